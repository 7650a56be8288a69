/* SPDX-License-Identifier: MIT */
/*
 * The Babeltrace 2 plugin `fencescope` and its sink component class `sink.fencescope.report`:
 * `fencescope report` inside any babeltrace2 graph,
 *
 *     babeltrace2 --plugin-path=DIR TRACE -c sink.fencescope.report [-p 'format="json"']
 *
 * It takes what upstream gives it (the babeltrace2 CLI's sources and muxer), decodes each message
 * with analyzer/ingest's decoder, feeds the model, and writes the report when the stream ends.
 * Parameters, as `fencescope report`'s options:
 *
 *     format        "text" (default), "json" or "csv"
 *     path          write the report to this file (default: standard output); it is checked
 *                   when the component is created and appears under its name only once
 *                   complete (fsa/output-file.h): an interrupted run leaves no file
 *     sections      "summary,latency,…" or "all"
 *     begin, end    time filters, "1.5s", "+200ms", …
 *     fail-if       a threshold expression, or an array of them: a failed one makes the sink fail
 *                   (babeltrace2 exits 1, the cause names the threshold)
 *     fail-on-loss  boolean: lost data makes the sink fail
 *     wide          boolean: text tables one line per row (default: split to fit 120 columns)
 *     top, examples unsigned integers, as --top and --examples
 *
 * It owns no graph and reads no folder: that is the babeltrace2 CLI's job here.
 */
#define _GNU_SOURCE

#include <babeltrace2/babeltrace.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder-private.h"
#include "fsa/model.h"
#include "fsa/output-file.h"
#include "fsa/report.h"

struct report_sink {
	bt_self_component *self;
	bt_message_iterator *iterator;
	struct fsa_decoder *decoder;
	struct fsa_report *report;
	struct fsa_model *model;
	enum fsa_report_format format;
	char *path;
	struct fsa_output_file output; /* begun when path is given */
	bool is_done;
};

#define REPORT_ERROR(sink, ...)                                                                    \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((sink)->self, __VA_ARGS__)

static void
report_sink_destroy(struct report_sink *sink)
{
	if (!sink)
		return;
	bt_message_iterator_put_ref(sink->iterator);
	fsa_model_destroy(sink->model);
	fsa_report_destroy(sink->report);
	fsa_decoder_destroy(sink->decoder);
	fsa_output_file_end(&sink->output);
	free(sink->path);
	free(sink);
}

/* A string parameter, or NULL when absent; false (with a cause) when of another type. */
static bool
param_string(struct report_sink *sink, const bt_value *params, const char *name, const char **value)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);

	*value = NULL;
	if (!v)
		return true;
	if (!bt_value_is_string(v)) {
		REPORT_ERROR(sink, "parameter \"%s\" must be a string", name);
		return false;
	}
	*value = bt_value_string_get(v);
	return true;
}

static bool
param_count(struct report_sink *sink, const bt_value *params, const char *name, size_t *value)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);

	if (!v)
		return true;
	if (bt_value_is_unsigned_integer(v)) {
		*value = (size_t) bt_value_integer_unsigned_get(v);
		return true;
	}
	if (bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) >= 0) {
		*value = (size_t) bt_value_integer_signed_get(v);
		return true;
	}
	REPORT_ERROR(sink, "parameter \"%s\" must be a positive integer", name);
	return false;
}

/* Runs one of fsa_report_parse_*'s kind of result check: a cause with the reason on failure. */
static bool
parse_ok(struct report_sink *sink, fsa_status status, const char *name, char *error)
{
	if (status == FSA_OK)
		return true;
	REPORT_ERROR(sink, "parameter \"%s\": %s", name, error ? error : "invalid value");
	free(error);
	return false;
}

static bool
report_options_parse(struct report_sink *sink, const bt_value *params,
		     struct fsa_report_options *options)
{
	const char *format, *path, *sections, *begin, *end;
	const bt_value *fail_on_loss, *wide;
	char *error = NULL;

	*options = (struct fsa_report_options){0};
	sink->format = FSA_REPORT_FORMAT_TEXT;
	if (!param_string(sink, params, "format", &format) ||
	    !param_string(sink, params, "path", &path) ||
	    !param_string(sink, params, "sections", &sections) ||
	    !param_string(sink, params, "begin", &begin) ||
	    !param_string(sink, params, "end", &end) ||
	    !param_count(sink, params, "top", &options->longest_count) ||
	    !param_count(sink, params, "examples", &options->example_count))
		return false;
	if (format && !parse_ok(sink, fsa_report_parse_format(format, &sink->format, &error),
				"format", error))
		return false;
	if (sections &&
	    !parse_ok(sink, fsa_report_parse_sections(sections, &options->sections, &error),
		      "sections", error))
		return false;
	if (begin &&
	    !parse_ok(sink, fsa_report_parse_time(begin, &options->begin, &error), "begin", error))
		return false;
	if (end && !parse_ok(sink, fsa_report_parse_time(end, &options->end, &error), "end", error))
		return false;
	fail_on_loss = bt_value_map_borrow_entry_value_const(params, "fail-on-loss");
	if (fail_on_loss) {
		if (!bt_value_is_bool(fail_on_loss)) {
			REPORT_ERROR(sink, "parameter \"fail-on-loss\" must be a boolean");
			return false;
		}
		options->is_fail_on_loss = bt_value_bool_get(fail_on_loss);
	}
	/* `fencescope report --wide`: text tables one line per row however wide. */
	wide = bt_value_map_borrow_entry_value_const(params, "wide");
	if (wide) {
		if (!bt_value_is_bool(wide)) {
			REPORT_ERROR(sink, "parameter \"wide\" must be a boolean");
			return false;
		}
		options->is_text_wide = bt_value_bool_get(wide);
	}
	if (path && !(sink->path = strdup(path))) {
		REPORT_ERROR(sink, "out of memory");
		return false;
	}
	if (path) {
		/* Before any message: a wrong path fails at once. */
		char *why = NULL;

		if (fsa_output_file_begin(&sink->output, path,
					  FSA_OUTPUT_REPLACE | FSA_OUTPUT_INTO_SPECIAL,
					  &why) != FSA_OK) {
			REPORT_ERROR(sink, "%s", why ? why : path);
			free(why);
			return false;
		}
	}
	return true;
}

static bool
report_threshold_add(struct report_sink *sink, const bt_value *v)
{
	char *error = NULL;

	if (!bt_value_is_string(v)) {
		REPORT_ERROR(sink, "parameter \"fail-if\" must be a string or an array of strings");
		return false;
	}
	if (fsa_report_add_threshold(sink->report, bt_value_string_get(v), &error) != FSA_OK) {
		REPORT_ERROR(sink, "parameter \"fail-if\": %s",
			     error ? error : bt_value_string_get(v));
		free(error);
		return false;
	}
	return true;
}

static bool
report_thresholds_add(struct report_sink *sink, const bt_value *params)
{
	const bt_value *fail_if = bt_value_map_borrow_entry_value_const(params, "fail-if");

	if (!fail_if)
		return true;
	if (!bt_value_is_array(fail_if))
		return report_threshold_add(sink, fail_if);
	for (uint64_t i = 0; i < bt_value_array_get_length(fail_if); i++) {
		if (!report_threshold_add(sink,
					  bt_value_array_borrow_element_by_index_const(fail_if, i)))
			return false;
	}
	return true;
}

static bt_component_class_initialize_method_status
report_initialize(bt_self_component_sink *self_sink,
		  bt_self_component_sink_configuration *configuration, const bt_value *params,
		  void *initialize_method_data)
{
	struct report_sink *sink = calloc(1, sizeof(*sink));
	struct fsa_report_options options;
	bt_component_class_initialize_method_status status =
	    BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;

	(void) configuration;
	(void) initialize_method_data;
	if (!sink)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	sink->self = bt_self_component_sink_as_self_component(self_sink);
	if (params && !bt_value_is_map(params)) {
		REPORT_ERROR(sink, "parameters must be a map");
		goto end;
	}
	if (!report_options_parse(sink, params, &options))
		goto end;
	sink->decoder = fsa_decoder_create();
	sink->report = fsa_report_create(&options);
	if (!sink->decoder || !sink->report) {
		REPORT_ERROR(sink, "out of memory");
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto end;
	}
	if (!report_thresholds_add(sink, params))
		goto end;
	sink->model = fsa_model_create(fsa_report_borrow_sink(sink->report));
	if (!sink->model) {
		REPORT_ERROR(sink, "out of memory");
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto end;
	}
	fsa_report_set_model(sink->report, sink->model);
	if (bt_self_component_sink_add_input_port(self_sink, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		goto end;
	bt_self_component_set_data(sink->self, sink);
	sink = NULL;
	status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
end:
	report_sink_destroy(sink);
	return status;
}

static void
report_finalize(bt_self_component_sink *self_sink)
{
	report_sink_destroy(
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink)));
}

static bt_component_class_sink_graph_is_configured_method_status
report_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct report_sink *sink =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));

	if (bt_message_iterator_create_from_sink_component(
		self_sink, bt_self_component_sink_borrow_input_port_by_name(self_sink, "in"),
		&sink->iterator) != BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* End of the stream (or a damaged one, `partial` says why): finish and write the report.
 * Returns false, with a cause, when writing fails or a threshold failed. */
static bool
report_write(struct report_sink *sink, const char *partial)
{
	FILE *out = stdout;
	fsa_status status;
	bool ok = true;

	sink->is_done = true;
	status = fsa_model_finish(sink->model);
	if (partial)
		fsa_report_set_partial(sink->report, partial);
	if (status == FSA_OK)
		status = fsa_report_finish(sink->report);
	if (status != FSA_OK) {
		REPORT_ERROR(sink, "cannot finish the analysis: %s", fsa_status_string(status));
		return false;
	}
	if (sink->path && !(out = fopen(sink->output.tmp_path, "w"))) {
		REPORT_ERROR(sink, "%s: %s", sink->path, strerror(errno));
		return false;
	}
	status = fsa_report_write(sink->report, sink->format, out);
	if (sink->path ? fclose(out) != 0 : fflush(out) != 0)
		status = FSA_ERR_IO;
	if (status == FSA_OK && sink->path) {
		char *why = NULL;

		if (fsa_output_file_commit(&sink->output, &why) != FSA_OK) {
			REPORT_ERROR(sink, "%s", why ? why : sink->path);
			free(why);
			return false;
		}
	}
	if (status != FSA_OK) {
		REPORT_ERROR(sink, "%s: cannot write the report",
			     sink->path ? sink->path : "standard output");
		return false;
	}
	for (size_t i = 0; i < fsa_report_failure_count(sink->report); i++) {
		REPORT_ERROR(sink, "threshold failed: %s",
			     fsa_report_borrow_failure(sink->report, i));
		ok = false;
	}
	return ok;
}

/* Upstream failed: the report of what was read, marked partial with upstream's root cause. The
 * thread's error is put back untouched, so babeltrace2 still prints it and exits 1. */
static void
report_write_partial(struct report_sink *sink)
{
	const bt_error *error = bt_current_thread_take_error();
	const char *cause = NULL;
	char *reason = NULL;

	if (error && bt_error_get_cause_count(error) > 0)
		cause = bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, 0));
	if (asprintf(&reason, "the trace is damaged: %s", cause ? cause : "upstream failed") < 0)
		reason = NULL;
	for (char *p = reason; p && *p; p++) {
		if (*p == '\n')
			*p = ' ';
	}
	if (error)
		bt_current_thread_move_error(error);
	report_write(sink, reason ? reason : "the trace is damaged");
	free(reason);
}

static fsa_status
report_message_add(struct report_sink *sink, const bt_message *msg)
{
	const struct fsa_event *event = NULL;
	struct fsa_discard discard;
	enum fsa_decoded what;
	char *error = NULL;
	fsa_status status = fsa_decoder_decode(sink->decoder, msg, &what, &event, &discard, &error);

	if (status == FSA_OK && what == FSA_DECODED_EVENT)
		status = fsa_model_add_event(sink->model, event);
	else if (status == FSA_OK && what == FSA_DECODED_DISCARD)
		status = fsa_model_add_discard(sink->model, &discard);
	if (status != FSA_OK)
		REPORT_ERROR(sink, "%s", error ? error : fsa_status_string(status));
	free(error);
	return status;
}

static bt_component_class_sink_consume_method_status
report_consume(bt_self_component_sink *self_sink)
{
	struct report_sink *sink =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));
	bt_message_array_const msgs;
	uint64_t count = 0;
	fsa_status status = FSA_OK;

	switch (bt_message_iterator_next(sink->iterator, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return report_write(sink, NULL)
			   ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END
			   : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		/* Upstream could not decode the trace: report what was read, marked partial,
		 * and keep upstream's cause as the error. */
		if (!sink->is_done)
			report_write_partial(sink);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (status == FSA_OK)
			status = report_message_add(sink, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return status == FSA_OK ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
				: BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

BT_PLUGIN_MODULE()

BT_PLUGIN(fencescope);
BT_PLUGIN_DESCRIPTION("fencescope: GPU fence timelines from fencescope traces");
BT_PLUGIN_AUTHOR("fencescope contributors");
BT_PLUGIN_LICENSE("MIT");

BT_PLUGIN_SINK_COMPONENT_CLASS(report, report_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(
    report, "Write the fencescope report (latency, longest waits, losses, anomalies)");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(
    report,
    "Parameters as `fencescope report`'s options: format (text, json, csv), path, "
    "sections, begin, end, fail-if (string or array), fail-on-loss (bool), wide (bool), top, "
    "examples. "
    "See docs/user-guide.md.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(report, report_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(report, report_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(report, report_graph_is_configured);
