/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: how a preview is made (the index builder's collector, fed by the model's sink
 * next to the trace's own) and how it crosses the pipe from the builder to the loader (a block of
 * text lines, docs/viewer.md "Loading"). For fsv-loader.c, the builder and the tests.
 */
#ifndef FSV_LOAD_PREVIEW_PRIVATE_H
#define FSV_LOAD_PREVIEW_PRIVATE_H

#include "fsa/model.h"
#include "fsv-load-preview.h"

G_BEGIN_DECLS

/* ---- The builder's side ---- */

typedef struct _FsvPreviewCollector FsvPreviewCollector;

FsvPreviewCollector *_fsv_preview_collector_new(void);
void _fsv_preview_collector_free(FsvPreviewCollector *collector);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvPreviewCollector, _fsv_preview_collector_free)
/* A model sink (op, packet, marker) that counts each item into the collector. */
void _fsv_preview_collector_init_sink(FsvPreviewCollector *collector, struct fsa_model_sink *sink);
/* Whether an item arrived since the last _fsv_preview_collector_write(). */
gboolean _fsv_preview_collector_has_news(const FsvPreviewCollector *collector);
/* Appends the preview as a protocol block to OUT:
 *   preview BEGIN_NS BUCKET_NS BUCKETS ROWS
 *   row KIND DEPTH ITEMS C0,C1,…(trailing zeros left out) LABEL   (ROWS times)
 *   end
 */
void _fsv_preview_collector_write(FsvPreviewCollector *collector, GString *out);
/* The preview as it stands. Returns: (transfer full). */
FsvLoadPreview *_fsv_preview_collector_snapshot(FsvPreviewCollector *collector);

/* ---- The loader's side ---- */

typedef struct _FsvPreviewParser FsvPreviewParser;

FsvPreviewParser *_fsv_preview_parser_new(void);
void _fsv_preview_parser_free(FsvPreviewParser *parser);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FsvPreviewParser, _fsv_preview_parser_free)
/*
 * Feeds one line of a block (its first word is "preview", "row" or "end"; no newline). Returns
 * true with *preview set (transfer full) when the line ended a whole block, true with *preview
 * NULL when more lines are needed, false with *error set on a line it cannot read (the block is
 * dropped; the next "preview" line starts over).
 */
gboolean _fsv_preview_parser_feed(FsvPreviewParser *parser, const char *line,
				  FsvLoadPreview **preview, GError **error);

/* A sink that forwards every item to A, then to B (B's NULL callbacks are skipped). STORAGE
 * must live as long as the sink. */
typedef struct {
	struct fsa_model_sink a, b;
} FsvSinkTee;
void _fsv_sink_tee_init(struct fsa_model_sink *out, FsvSinkTee *storage,
			const struct fsa_model_sink *a, const struct fsa_model_sink *b);

G_END_DECLS

#endif /* FSV_LOAD_PREVIEW_PRIVATE_H */
