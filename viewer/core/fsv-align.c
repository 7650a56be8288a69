/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the arithmetic of a comparison's shared time mapping and the reading of `--align
 * BASE=NEW` (fsv-align.h). Times stay integers: trace times near 2^60 ns have a 256 ns step as
 * doubles, so an offset is added to the integer part of a viewport and its fraction is carried
 * over untouched, and two views of one mapping put a time and its aligned time at the very same
 * x. It is not the compare pane (viewer/app/fsv-compare.c), which decides when to align.
 */
#include "fsv-align.h"

#include <errno.h>
#include <string.h>

#include <gio/gio.h>

#include "fsv-frames.h"

#define OP_PREFIX    "op:"
#define FRAME_PREFIX "frame:"

static bool
parse_point(const char *text, const char *side, FsvAlignPoint *point, GError **error)
{
	g_autoptr(GError) why = NULL;
	g_autofree char *clean = g_strstrip(g_strdup(text));

	memset(point, 0, sizeof(*point));
	if (g_ascii_strncasecmp(clean, OP_PREFIX, strlen(OP_PREFIX)) == 0) {
		const char *digits = clean + strlen(OP_PREFIX);
		char *end = NULL;

		errno = 0;
		point->op_id = g_ascii_strtoull(digits, &end, 10);
		if (!g_ascii_isdigit(digits[0]) || errno != 0 || end == NULL || *end != '\0') {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "%s '%s': not an op id (op:ID, ID as fencescope report prints "
				    "it)",
				    side, clean);
			return false;
		}
		point->kind = FSV_ALIGN_POINT_OP;
	} else if (g_ascii_strncasecmp(clean, FRAME_PREFIX, strlen(FRAME_PREFIX)) == 0) {
		const char *digits = clean + strlen(FRAME_PREFIX);
		char *end = NULL;

		errno = 0;
		point->op_id = g_ascii_strtoull(digits, &end, 10);
		if (!g_ascii_isdigit(digits[0]) || errno != 0 || end == NULL || *end != '\0') {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "%s '%s': not a frame number (frame:N, N as fencescope report "
				    "prints it)",
				    side, clean);
			return false;
		}
		point->kind = FSV_ALIGN_POINT_FRAME;
	} else if (*clean == '\0') {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "%s is missing: write BASE_TIME=NEW_TIME (times as --at takes them, or "
			    "op:ID)",
			    side);
		return false;
	} else if (!fsv_time_parse(clean, &point->time, &why)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: %s", side,
			    why->message);
		return false;
	} else {
		point->kind = FSV_ALIGN_POINT_TIME;
	}
	point->text = g_steal_pointer(&clean);
	return true;
}

bool
fsv_align_parse(const char *text, FsvAlignSpec *spec, GError **error)
{
	const char *equal;
	g_autofree char *base_text = NULL;

	g_return_val_if_fail(text != NULL && spec != NULL, false);
	memset(spec, 0, sizeof(*spec));
	equal = strchr(text, '=');
	if (equal == NULL || strchr(equal + 1, '=') != NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "'%s' is not BASE_TIME=NEW_TIME (one '=' between a time or op:ID of "
			    "each trace, e.g. +1.5ms=+2ms or op:12=op:15)",
			    text);
		return false;
	}
	base_text = g_strndup(text, (gsize) (equal - text));
	if (!parse_point(base_text, "BASE", &spec->base_point, error))
		return false;
	if (!parse_point(equal + 1, "NEW", &spec->new_point, error)) {
		fsv_align_spec_clear(spec);
		return false;
	}
	return true;
}

void
fsv_align_spec_clear(FsvAlignSpec *spec)
{
	if (spec == NULL)
		return;
	g_clear_pointer(&spec->base_point.text, g_free);
	g_clear_pointer(&spec->new_point.text, g_free);
}

guint64
fsv_align_frame_ns(const FsvTrace *trace, guint32 frame)
{
	return fsv_trace_get_frame(trace, frame)->draw_begin_ns;
}

bool
fsv_align_point_resolve(const FsvAlignPoint *point, const FsvTrace *trace, const char *side,
			guint64 *ns, GError **error)
{
	g_autoptr(GError) why = NULL;
	guint32 op;

	g_return_val_if_fail(point != NULL && trace != NULL && ns != NULL, false);
	if (point->kind == FSV_ALIGN_POINT_OP) {
		op = fsv_trace_find_op_by_id(trace, point->op_id);
		if (op == FSV_INDEX_NONE) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "%s %s: %s has no operation with that op id", side, point->text,
				    fsv_trace_get_name(trace));
			return false;
		}
		*ns = fsv_trace_get_op(trace, op)->begin_ns;
		return true;
	}
	if (point->kind == FSV_ALIGN_POINT_FRAME) {
		guint32 frame = fsv_trace_find_frame(trace, point->op_id);

		if (frame == FSV_INDEX_NONE) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "%s %s: %s has no frame with that number", side, point->text,
				    fsv_trace_get_name(trace));
			return false;
		}
		*ns = fsv_align_frame_ns(trace, frame);
		return true;
	}
	if (!fsv_trace_resolve_time(trace, &point->time, point->text, ns, &why)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: %s", side,
			    why->message);
		return false;
	}
	return true;
}

bool
fsv_align_resolve(const FsvAlignSpec *spec, const FsvTrace *base, const FsvTrace *new_trace,
		  gint64 *offset_ns, GError **error)
{
	guint64 base_ns, new_ns;

	g_return_val_if_fail(spec != NULL && base != NULL && new_trace != NULL && offset_ns != NULL,
			     false);
	if (!fsv_align_point_resolve(&spec->base_point, base, "BASE", &base_ns, error) ||
	    !fsv_align_point_resolve(&spec->new_point, new_trace, "NEW", &new_ns, error))
		return false;
	*offset_ns = fsv_align_offset(base_ns, new_ns);
	return true;
}

gint64
fsv_align_offset(guint64 base_ns, guint64 new_ns)
{
	if (new_ns >= base_ns)
		return new_ns - base_ns > (guint64) G_MAXINT64 ? G_MAXINT64
							       : (gint64) (new_ns - base_ns);
	return base_ns - new_ns > (guint64) G_MAXINT64 ? -G_MAXINT64 : -(gint64) (base_ns - new_ns);
}

gint64
fsv_align_starts(const FsvTrace *base, const FsvTrace *new_trace)
{
	return fsv_align_offset(fsv_trace_get_begin_ns(base), fsv_trace_get_begin_ns(new_trace));
}

guint64
fsv_align_shift(guint64 ns, gint64 offset_ns)
{
	/* -G_MAXINT64 at least (fsv_align_offset never gives G_MININT64): its negation fits. */
	guint64 magnitude = offset_ns >= 0
				? (guint64) offset_ns
				: (guint64) (-(offset_ns == G_MININT64 ? G_MAXINT64 : offset_ns));

	if (offset_ns >= 0)
		return ns >= UINT64_MAX - 1 - magnitude ? UINT64_MAX - 1 : ns + magnitude;
	return ns <= magnitude ? 0 : ns - magnitude;
}

void
fsv_align_viewport(const FsvViewport *from, gint64 offset_ns, FsvViewport *to)
{
	guint64 shifted = fsv_align_shift(from->begin_ns, offset_ns);

	to->ns_per_px = from->ns_per_px;
	/* Saturated at time 0 (a left edge before NEW's time 0): the fraction would no longer
	 * be the one of an exact shift, and 0 is as far left as a view goes. */
	to->begin_ns = shifted;
	to->begin_frac =
	    offset_ns < 0 && from->begin_ns < (guint64) -offset_ns ? 0.0 : from->begin_frac;
}

void
fsv_align_union(const FsvTrace *base, const FsvTrace *new_trace, gint64 offset_ns,
		guint64 *begin_ns, guint64 *end_ns)
{
	/* NEW's span in BASE's times: NEW_time − offset. */
	guint64 new_begin = fsv_align_shift(fsv_trace_get_begin_ns(new_trace), -offset_ns);
	guint64 new_end = fsv_align_shift(fsv_trace_get_end_ns(new_trace), -offset_ns);

	*begin_ns = MIN(fsv_trace_get_begin_ns(base), new_begin);
	*end_ns = MAX(fsv_trace_get_end_ns(base), new_end);
}

char *
fsv_align_format_offset(gint64 offset_ns)
{
	g_autofree char *duration = NULL;

	if (offset_ns == 0)
		return g_strdup("0 ns");
	duration = fsv_format_duration(
	    offset_ns > 0 ? (guint64) offset_ns
			  : (guint64) (-(offset_ns == G_MININT64 ? G_MAXINT64 : offset_ns)));
	/* U+2212, the minus sign the ruler and fsv_trace_format_time() write. */
	return g_strdup_printf("%s%s", offset_ns > 0 ? "+" : "−", duration);
}
