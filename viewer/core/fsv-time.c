/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: times typed by a person (fsv-time.h). The number itself is read by the report's
 * parser (fsa_report_parse_time: exact decimals, the units the report prints), so a time
 * copied from `fencescope report` means the same instant here; this file only normalises what
 * people paste (spaces, thin spaces, a minus sign) and checks the result lies in the trace.
 */
#include <string.h>

#include <gio/gio.h>

#include "fsa/report.h"
#include "fsv-time.h"

/* A second each side: a time just outside the trace (a ruler label, a margin) is still fine. */
#define SLACK_NS G_GUINT64_CONSTANT(1000000000)

/* TEXT without its spaces (ASCII, U+00A0, U+2009, U+202F); "−" (U+2212) becomes "-". */
static char *
normalise(const char *text)
{
	GString *out = g_string_new(NULL);

	for (const char *p = text; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (g_unichar_isspace(c) || c == 0x00A0 || c == 0x2009 || c == 0x202F)
			continue;
		if (c == 0x2212)
			g_string_append_c(out, '-');
		else
			g_string_append_unichar(out, c);
	}
	return g_string_free(out, FALSE);
}

/* The report's parser on TEXT (normalised); a leading '-' (or "+-") counts back from the first
 * event. False with *why set (free()) when it is not a time. */
static bool
parse_number(const char *clean, struct fsa_report_time *time, bool *is_back, char **why)
{
	g_autofree char *relative = NULL;
	const char *number = clean;

	*is_back = false;
	if (number[0] == '-' || g_str_has_prefix(number, "+-")) {
		*is_back = true;
		number += number[0] == '-' ? 1 : 2;
		relative = g_strconcat("+", number, NULL);
		number = relative;
	}
	return fsa_report_parse_time(number, time, why) == FSA_OK;
}

bool
fsv_time_parse(const char *text, FsvTypedTime *time, GError **error)
{
	g_autofree char *clean = NULL;
	struct fsa_report_time parsed = {0};
	bool is_back;
	char *why = NULL;

	g_return_val_if_fail(text != NULL && time != NULL, false);
	clean = g_utf8_validate(text, -1, NULL) ? normalise(text) : g_strdup("");
	if (!parse_number(clean, &parsed, &is_back, &why)) {
		free(why);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "'%s' is not a time: trace ns, seconds with a unit "
			    "(1795455649.123456789 s) or +DURATION since the start (+1.5ms)",
			    text);
		return false;
	}
	*time = (FsvTypedTime){parsed.ns, parsed.is_relative, is_back};
	return true;
}

bool
fsv_trace_resolve_time(const FsvTrace *trace, const FsvTypedTime *time, const char *text,
		       guint64 *ns, GError **error)
{
	guint64 origin, begin, end, value;

	g_return_val_if_fail(trace != NULL && time != NULL && text != NULL && ns != NULL, false);
	origin = fsv_trace_get_begin_ns(trace);
	if (!time->is_relative)
		value = time->ns;
	else if (time->is_back)
		value = time->ns > origin ? 0 : origin - time->ns;
	else
		value = time->ns > G_MAXUINT64 - origin ? G_MAXUINT64 : origin + time->ns;
	begin = origin > SLACK_NS ? origin - SLACK_NS : 0;
	end = fsv_trace_get_end_ns(trace);
	end = end > G_MAXUINT64 - SLACK_NS ? G_MAXUINT64 : end + SLACK_NS;
	if (value < begin || value > end) {
		g_autofree char *last = fsv_format_duration(fsv_trace_get_end_ns(trace) - origin);

		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "'%s' is outside the trace (+0 ns … +%s)%s", text, last,
			    time->is_relative ? "" : "; write +TIME for a time since its start");
		return false;
	}
	*ns = value;
	return true;
}

bool
fsv_trace_parse_time(const FsvTrace *trace, const char *text, guint64 *ns, GError **error)
{
	FsvTypedTime time;

	g_return_val_if_fail(trace != NULL && text != NULL && ns != NULL, false);
	return fsv_time_parse(text, &time, error) &&
	       fsv_trace_resolve_time(trace, &time, text, ns, error);
}
