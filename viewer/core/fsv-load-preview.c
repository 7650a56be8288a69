/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: FsvLoadPreview (fsv-load-preview.h) — the index builder's collector, which counts
 * each item the model closes into its row's time buckets, the text block that carries a preview
 * over the builder's pipe, and the loader's parser of it. It is not the index: it keeps no item,
 * only counts, so it costs a hash lookup per item and a few kilobytes.
 */
#include "fsv-load-preview-private.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The first bucket width, doubled (pairs of buckets merged) whenever an item lies past the last
 * bucket: the strip always spans what was read so far in FSV_PREVIEW_BUCKETS buckets. */
#define PREVIEW_FIRST_BUCKET_NS 1024

struct _FsvLoadPreview {
	gint ref_count;
	guint64 begin_ns, bucket_ns, items;
	guint used_buckets;
	GArray *rows; /* FsvPreviewRow */
};

static FsvLoadPreview *
preview_new(void)
{
	FsvLoadPreview *preview = g_new0(FsvLoadPreview, 1);

	preview->ref_count = 1;
	preview->bucket_ns = PREVIEW_FIRST_BUCKET_NS;
	preview->rows = g_array_new(FALSE, TRUE, sizeof(FsvPreviewRow));
	return preview;
}

FsvLoadPreview *
fsv_load_preview_ref(FsvLoadPreview *preview)
{
	g_return_val_if_fail(preview != NULL, NULL);
	g_atomic_int_inc(&preview->ref_count);
	return preview;
}

void
fsv_load_preview_unref(FsvLoadPreview *preview)
{
	if (!preview || !g_atomic_int_dec_and_test(&preview->ref_count))
		return;
	for (guint i = 0; i < preview->rows->len; i++)
		g_free(g_array_index(preview->rows, FsvPreviewRow, i).label);
	g_array_unref(preview->rows);
	g_free(preview);
}

guint
fsv_load_preview_get_row_count(const FsvLoadPreview *preview)
{
	return preview->rows->len;
}

const FsvPreviewRow *
fsv_load_preview_get_row(const FsvLoadPreview *preview, guint row)
{
	g_return_val_if_fail(row < preview->rows->len, NULL);
	return &g_array_index(preview->rows, FsvPreviewRow, row);
}

guint64
fsv_load_preview_get_begin_ns(const FsvLoadPreview *preview)
{
	return preview->begin_ns;
}

guint64
fsv_load_preview_get_bucket_ns(const FsvLoadPreview *preview)
{
	return preview->bucket_ns;
}

guint
fsv_load_preview_get_used_buckets(const FsvLoadPreview *preview)
{
	return preview->used_buckets;
}

guint64
fsv_load_preview_get_item_count(const FsvLoadPreview *preview)
{
	return preview->items;
}

static void
preview_finish(FsvLoadPreview *preview)
{
	preview->items = 0;
	preview->used_buckets = 0;
	for (guint r = 0; r < preview->rows->len; r++) {
		FsvPreviewRow *row = &g_array_index(preview->rows, FsvPreviewRow, r);

		row->max_count = 0;
		preview->items += row->items;
		for (guint b = 0; b < FSV_PREVIEW_BUCKETS; b++) {
			row->max_count = MAX(row->max_count, row->counts[b]);
			if (row->counts[b])
				preview->used_buckets = MAX(preview->used_buckets, b + 1);
		}
	}
}

/* ---- The collector ---------------------------------------------------------------------- */

/* What a row is found by: an adapter, an engine of an adapter, a queue handle, the CPU group,
 * a process. */
typedef struct {
	guint8 kind; /* FsvRowKind */
	guint32 adapter_id, engine_id;
	guint64 id; /* hwqueue handle, process id */
} RowKey;

typedef struct {
	RowKey key;
	guint32 parent; /* index in the collector's rows, G_MAXUINT32 at top level */
	guint64 items;
	guint32 counts[FSV_PREVIEW_BUCKETS];
} CollectedRow;

struct _FsvPreviewCollector {
	GArray *rows;       /* CollectedRow, in the order found */
	GHashTable *by_key; /* RowKey * (inside rows' elements: by index) → index + 1 */
	gboolean has_begin, has_news;
	guint64 begin_ns, bucket_ns;
};

static guint
row_key_hash(gconstpointer data)
{
	const RowKey *key = data;
	guint64 h = key->id * 0x9e3779b97f4a7c15ULL;

	h ^= ((guint64) key->kind << 56) ^ ((guint64) key->adapter_id << 24) ^ key->engine_id;
	h ^= h >> 29;
	return (guint) (h ^ (h >> 32));
}

static gboolean
row_key_equal(gconstpointer a, gconstpointer b)
{
	const RowKey *x = a, *y = b;

	return x->kind == y->kind && x->adapter_id == y->adapter_id &&
	       x->engine_id == y->engine_id && x->id == y->id;
}

FsvPreviewCollector *
_fsv_preview_collector_new(void)
{
	FsvPreviewCollector *collector = g_new0(FsvPreviewCollector, 1);

	collector->rows = g_array_new(FALSE, TRUE, sizeof(CollectedRow));
	/* Keys are copies (the rows array moves when it grows). */
	collector->by_key = g_hash_table_new_full(row_key_hash, row_key_equal, g_free, NULL);
	collector->bucket_ns = PREVIEW_FIRST_BUCKET_NS;
	return collector;
}

void
_fsv_preview_collector_free(FsvPreviewCollector *collector)
{
	if (!collector)
		return;
	g_array_unref(collector->rows);
	g_hash_table_unref(collector->by_key);
	g_free(collector);
}

static guint32
collector_row(FsvPreviewCollector *collector, RowKey key, guint32 parent)
{
	gpointer found = g_hash_table_lookup(collector->by_key, &key);
	CollectedRow row = {.key = key, .parent = parent};

	if (found)
		return GPOINTER_TO_UINT(found) - 1;
	g_array_append_val(collector->rows, row);
	g_hash_table_insert(collector->by_key, g_memdup2(&key, sizeof(key)),
			    GUINT_TO_POINTER(collector->rows->len));
	return collector->rows->len - 1;
}

static guint32
adapter_row(FsvPreviewCollector *collector, guint32 adapter_id)
{
	return collector_row(collector, (RowKey){.kind = FSV_ROW_ADAPTER, .adapter_id = adapter_id},
			     G_MAXUINT32);
}

static guint32
engine_row(FsvPreviewCollector *collector, guint32 adapter_id, guint32 engine_id)
{
	RowKey key = {.kind = FSV_ROW_ENGINE, .adapter_id = adapter_id, .engine_id = engine_id};
	gpointer found = g_hash_table_lookup(collector->by_key, &key);

	if (found)
		return GPOINTER_TO_UINT(found) - 1;
	return collector_row(collector, key, adapter_row(collector, adapter_id));
}

/* A queue is found by its handle alone. Until an item names its engine (fence operations often
 * do not) it sits right under its adapter; the first item that does moves it under that engine. */
static guint32
queue_row(FsvPreviewCollector *collector, guint64 handle, guint32 adapter_id, guint32 engine_id)
{
	RowKey key = {.kind = FSV_ROW_QUEUE, .id = handle};
	gpointer found = g_hash_table_lookup(collector->by_key, &key);
	guint32 row;
	CollectedRow *r;

	if (!found)
		return collector_row(collector, key,
				     engine_id != UINT32_MAX
					 ? engine_row(collector, adapter_id, engine_id)
					 : adapter_row(collector, adapter_id));
	row = GPOINTER_TO_UINT(found) - 1;
	r = &g_array_index(collector->rows, CollectedRow, row);
	if (engine_id != UINT32_MAX &&
	    g_array_index(collector->rows, CollectedRow, r->parent).key.kind == FSV_ROW_ADAPTER) {
		guint32 parent = engine_row(collector, adapter_id, engine_id);

		/* engine_row may have grown the array. */
		g_array_index(collector->rows, CollectedRow, row).parent = parent;
	}
	return row;
}

static guint32
process_row(FsvPreviewCollector *collector, guint32 process_id)
{
	RowKey key = {.kind = FSV_ROW_CPU_PROCESS, .id = process_id};
	gpointer found = g_hash_table_lookup(collector->by_key, &key);

	if (found)
		return GPOINTER_TO_UINT(found) - 1;
	return collector_row(
	    collector, key,
	    collector_row(collector, (RowKey){.kind = FSV_ROW_CPU_GROUP}, G_MAXUINT32));
}

/* Counts one item closed at NS on ROW. */
static void
collector_count(FsvPreviewCollector *collector, guint32 row, guint64 ns)
{
	guint64 bucket;
	CollectedRow *r;

	if (ns == FSA_TIME_NONE)
		return;
	if (!collector->has_begin) {
		collector->has_begin = TRUE;
		collector->begin_ns = ns;
	}
	/* An item closed before the first one counted (items are closed about in time order)
	 * goes to the first bucket. */
	bucket = ns > collector->begin_ns ? (ns - collector->begin_ns) / collector->bucket_ns : 0;
	while (bucket >= FSV_PREVIEW_BUCKETS && collector->bucket_ns < G_MAXUINT64 / 2) {
		for (guint i = 0; i < collector->rows->len; i++) {
			CollectedRow *c = &g_array_index(collector->rows, CollectedRow, i);

			for (guint b = 0; b < FSV_PREVIEW_BUCKETS / 2; b++)
				c->counts[b] = c->counts[2 * b] + c->counts[2 * b + 1];
			memset(&c->counts[FSV_PREVIEW_BUCKETS / 2], 0,
			       sizeof(c->counts[0]) * FSV_PREVIEW_BUCKETS / 2);
		}
		collector->bucket_ns *= 2;
		bucket /= 2;
	}
	r = &g_array_index(collector->rows, CollectedRow, row);
	r->counts[MIN(bucket, FSV_PREVIEW_BUCKETS - 1)]++;
	r->items++;
	collector->has_news = TRUE;
}

static guint64
closed_at(guint64 end_ns, guint64 begin_ns)
{
	return end_ns != FSA_TIME_NONE ? end_ns : begin_ns;
}

static fsa_status
collect_op(void *data, const struct fsa_op *op)
{
	FsvPreviewCollector *collector = data;
	guint32 row = op->hwqueue_handle != 0
			  ? queue_row(collector, op->hwqueue_handle, op->adapter_id, op->engine_id)
			  : process_row(collector, op->process_id);
	guint64 begin = op->state == FSA_OP_INFERRED ? op->inferred_begin_ns : op->queued_ns;
	guint64 end = op->state == FSA_OP_INFERRED ? op->inferred_end_ns : op->end_ns;

	collector_count(collector, row, closed_at(end, closed_at(op->observed_ns, begin)));
	return FSA_OK;
}

static fsa_status
collect_packet(void *data, const struct fsa_packet *packet)
{
	FsvPreviewCollector *collector = data;

	collector_count(collector, engine_row(collector, packet->adapter_id, packet->engine_id),
			closed_at(packet->end_ns, packet->start_ns));
	return FSA_OK;
}

static fsa_status
collect_marker(void *data, const struct fsa_marker *marker)
{
	FsvPreviewCollector *collector = data;
	guint32 row;

	if (marker->hwqueue_handle != 0)
		row = queue_row(collector, marker->hwqueue_handle, marker->adapter_id,
				marker->engine_id);
	else if (marker->engine_id != UINT32_MAX)
		row = engine_row(collector, marker->adapter_id, marker->engine_id);
	else if (marker->adapter_id != UINT32_MAX)
		row = adapter_row(collector, marker->adapter_id);
	else
		return FSA_OK; /* a process's or the trace's own marker: no preview row */
	collector_count(collector, row, closed_at(marker->end_ns, marker->begin_ns));
	return FSA_OK;
}

void
_fsv_preview_collector_init_sink(FsvPreviewCollector *collector, struct fsa_model_sink *sink)
{
	*sink = (struct fsa_model_sink){
	    .data = collector,
	    .op = collect_op,
	    .packet = collect_packet,
	    .marker = collect_marker,
	};
}

gboolean
_fsv_preview_collector_has_news(const FsvPreviewCollector *collector)
{
	return collector->has_news;
}

/* Display order: adapters (then each one's engines, then each engine's queues), then the CPU
 * group and its processes; by id within a level. */
static int
compare_display_order(const CollectedRow *rows, guint32 a, guint32 b)
{
	/* The chain of ancestors from the top, compared level by level. */
	guint32 chain_a[3], chain_b[3];
	int na = 0, nb = 0;

	for (guint32 r = a; r != G_MAXUINT32 && na < 3; r = rows[r].parent)
		chain_a[na++] = r;
	for (guint32 r = b; r != G_MAXUINT32 && nb < 3; r = rows[r].parent)
		chain_b[nb++] = r;
	while (na > 0 && nb > 0) {
		const RowKey *x = &rows[chain_a[--na]].key, *y = &rows[chain_b[--nb]].key;
		int group_x = x->kind == FSV_ROW_CPU_GROUP || x->kind == FSV_ROW_CPU_PROCESS;
		int group_y = y->kind == FSV_ROW_CPU_GROUP || y->kind == FSV_ROW_CPU_PROCESS;

		if (group_x != group_y)
			return group_x - group_y;
		/* Under an adapter, its engines first, then the queues whose engine is unknown. */
		if (x->kind != y->kind)
			return x->kind < y->kind ? -1 : 1;
		if (x->adapter_id != y->adapter_id)
			return x->adapter_id < y->adapter_id ? -1 : 1;
		if (x->engine_id != y->engine_id)
			return x->engine_id < y->engine_id ? -1 : 1;
		if (x->id != y->id)
			return x->id < y->id ? -1 : 1;
	}
	return na - nb; /* the parent first */
}

static int
compare_rows_qsort(const void *a, const void *b, void *data)
{
	return compare_display_order(data, *(const guint32 *) a, *(const guint32 *) b);
}

static char *
row_label(const RowKey *key)
{
	switch ((FsvRowKind) key->kind) {
	case FSV_ROW_ADAPTER:
		return key->adapter_id == UINT32_MAX
			   ? g_strdup("Adapter ?")
			   : g_strdup_printf("Adapter %" PRIu32, key->adapter_id);
	case FSV_ROW_ENGINE:
		return key->engine_id == UINT32_MAX
			   ? g_strdup("Engine ?")
			   : g_strdup_printf("Engine %" PRIu32, key->engine_id);
	case FSV_ROW_QUEUE:
		return g_strdup_printf("HWQueue 0x%" PRIx64, key->id);
	case FSV_ROW_CPU_GROUP:
		return g_strdup("CPU");
	case FSV_ROW_CPU_PROCESS:
		return g_strdup_printf("pid %" PRIu64, key->id);
	default:
		return g_strdup("?");
	}
}

static guint
row_depth(const CollectedRow *rows, guint32 r)
{
	guint depth = 0;

	while (rows[r].parent != G_MAXUINT32) {
		r = rows[r].parent;
		depth++;
	}
	return depth;
}

FsvLoadPreview *
_fsv_preview_collector_snapshot(FsvPreviewCollector *collector)
{
	FsvLoadPreview *preview = preview_new();
	const CollectedRow *rows = (const CollectedRow *) (void *) collector->rows->data;
	guint n = collector->rows->len;
	g_autofree guint32 *order = g_new(guint32, n ? n : 1);

	for (guint i = 0; i < n; i++)
		order[i] = i;
	g_qsort_with_data(order, (gint) n, sizeof(guint32), compare_rows_qsort, (gpointer) rows);
	preview->begin_ns = collector->begin_ns;
	preview->bucket_ns = collector->bucket_ns;
	for (guint i = 0; i < n && i < FSV_PREVIEW_MAX_ROWS; i++) {
		const CollectedRow *c = &rows[order[i]];
		FsvPreviewRow row = {
		    .kind = (FsvRowKind) c->key.kind,
		    .depth = row_depth(rows, order[i]),
		    .label = row_label(&c->key),
		    .items = c->items,
		};

		memcpy(row.counts, c->counts, sizeof(row.counts));
		g_array_append_val(preview->rows, row);
	}
	preview_finish(preview);
	return preview;
}

void
_fsv_preview_collector_write(FsvPreviewCollector *collector, GString *out)
{
	g_autoptr(FsvLoadPreview) preview = _fsv_preview_collector_snapshot(collector);

	collector->has_news = FALSE;
	g_string_append_printf(out, "preview %" PRIu64 " %" PRIu64 " %u %u\n", preview->begin_ns,
			       preview->bucket_ns, FSV_PREVIEW_BUCKETS, preview->rows->len);
	for (guint r = 0; r < preview->rows->len; r++) {
		const FsvPreviewRow *row = fsv_load_preview_get_row(preview, r);
		guint last = FSV_PREVIEW_BUCKETS;

		while (last > 0 && row->counts[last - 1] == 0)
			last--;
		g_string_append_printf(out, "row %d %u %" PRIu64 " ", (int) row->kind, row->depth,
				       row->items);
		for (guint b = 0; b < last; b++)
			g_string_append_printf(out, b ? ",%" PRIu32 : "%" PRIu32, row->counts[b]);
		if (last == 0)
			g_string_append_c(out, '-');
		/* Labels are ours and hold no newline. */
		g_string_append_printf(out, " %s\n", row->label);
	}
	g_string_append(out, "end\n");
}

/* ---- The parser ------------------------------------------------------------------------- */

struct _FsvPreviewParser {
	FsvLoadPreview *building; /* between "preview" and "end", else NULL */
	guint expected_rows;
};

FsvPreviewParser *
_fsv_preview_parser_new(void)
{
	return g_new0(FsvPreviewParser, 1);
}

void
_fsv_preview_parser_free(FsvPreviewParser *parser)
{
	if (!parser)
		return;
	fsv_load_preview_unref(parser->building);
	g_free(parser);
}

static gboolean
parse_u64(const char *text, guint64 max, guint64 *value)
{
	return g_ascii_string_to_unsigned(text, 10, 0, max, value, NULL);
}

static gboolean
parse_row(FsvPreviewParser *parser, const char *line)
{
	/* "row KIND DEPTH ITEMS COUNTS LABEL": the label is the rest of the line. */
	g_auto(GStrv) fields = g_strsplit(line, " ", 6);
	FsvPreviewRow row = {0};
	guint64 kind, depth, items;

	if (g_strv_length(fields) != 6 || !parse_u64(fields[1], FSV_ROW_XFENCE, &kind) ||
	    !parse_u64(fields[2], 8, &depth) || !parse_u64(fields[3], G_MAXUINT64, &items) ||
	    parser->building->rows->len >= parser->expected_rows)
		return FALSE;
	row.kind = (FsvRowKind) kind;
	row.depth = (guint) depth;
	row.items = items;
	if (strcmp(fields[4], "-") != 0) {
		g_auto(GStrv) counts = g_strsplit(fields[4], ",", FSV_PREVIEW_BUCKETS + 1);
		guint n = g_strv_length(counts);

		if (n > FSV_PREVIEW_BUCKETS)
			return FALSE;
		for (guint b = 0; b < n; b++) {
			guint64 count;

			if (!parse_u64(counts[b], G_MAXUINT32, &count))
				return FALSE;
			row.counts[b] = (guint32) count;
		}
	}
	row.label = g_utf8_make_valid(fields[5], -1);
	g_array_append_val(parser->building->rows, row);
	return TRUE;
}

gboolean
_fsv_preview_parser_feed(FsvPreviewParser *parser, const char *line, FsvLoadPreview **preview,
			 GError **error)
{
	gboolean ok = TRUE;

	*preview = NULL;
	if (g_str_has_prefix(line, "preview ")) {
		g_auto(GStrv) fields = g_strsplit(line, " ", -1);
		guint64 begin, bucket, buckets, rows;

		g_clear_pointer(&parser->building, fsv_load_preview_unref);
		if (g_strv_length(fields) != 5 || !parse_u64(fields[1], G_MAXUINT64, &begin) ||
		    !parse_u64(fields[2], G_MAXUINT64, &bucket) || bucket == 0 ||
		    !parse_u64(fields[3], FSV_PREVIEW_BUCKETS, &buckets) ||
		    buckets != FSV_PREVIEW_BUCKETS ||
		    !parse_u64(fields[4], FSV_PREVIEW_MAX_ROWS, &rows)) {
			ok = FALSE;
		} else {
			parser->building = preview_new();
			parser->building->begin_ns = begin;
			parser->building->bucket_ns = bucket;
			parser->expected_rows = (guint) rows;
		}
	} else if (g_str_has_prefix(line, "row ") && parser->building) {
		ok = parse_row(parser, line);
	} else if (strcmp(line, "end") == 0 && parser->building &&
		   parser->building->rows->len == parser->expected_rows) {
		preview_finish(parser->building);
		*preview = g_steal_pointer(&parser->building);
	} else {
		ok = FALSE;
	}
	if (!ok) {
		g_clear_pointer(&parser->building, fsv_load_preview_unref);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the index builder sent a preview line that cannot be read: %.60s",
			    line);
	}
	return ok;
}

/* ---- The tee ---------------------------------------------------------------------------- */

/* One forwarding function per sink callback: A's answer, then B's when A said FSA_OK. */
#define TEE_CALLBACK(name, type)                                                                   \
	static fsa_status tee_##name(void *data, const type *item)                                 \
	{                                                                                          \
		FsvSinkTee *tee = data;                                                            \
		fsa_status status = tee->a.name ? tee->a.name(tee->a.data, item) : FSA_OK;         \
                                                                                                   \
		return status == FSA_OK && tee->b.name ? tee->b.name(tee->b.data, item) : status;  \
	}

TEE_CALLBACK(op, struct fsa_op)
TEE_CALLBACK(edge, struct fsa_edge)
TEE_CALLBACK(packet, struct fsa_packet)
TEE_CALLBACK(marker, struct fsa_marker)
TEE_CALLBACK(loss, struct fsa_loss)
TEE_CALLBACK(anomaly, struct fsa_anomaly)
TEE_CALLBACK(fence_value, struct fsa_fence_value)

void
_fsv_sink_tee_init(struct fsa_model_sink *out, FsvSinkTee *storage, const struct fsa_model_sink *a,
		   const struct fsa_model_sink *b)
{
	storage->a = *a;
	storage->b = *b;
	*out = (struct fsa_model_sink){
	    .data = storage,
	    .op = tee_op,
	    .edge = tee_edge,
	    .packet = tee_packet,
	    .marker = tee_marker,
	    .loss = tee_loss,
	    .anomaly = tee_anomaly,
	    .fence_value = tee_fence_value,
	};
}
