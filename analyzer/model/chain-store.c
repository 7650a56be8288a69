/* SPDX-License-Identifier: MIT */
/*
 * Compact records of operations and packets for chains (fsa/chain.h): a model sink adds what it
 * gets, seals once, and the store answers the chain's lookups by binary search over sorted
 * arrays. Memory: one 88-byte struct fsa_chain_item per operation and per packet, plus a 4-byte
 * index entry per queue wait and two per packet, and a copy of each queue's info for frames
 * (docs/analyzer.md "Chains of causes"); sealing takes 32 bytes per record more for a moment.
 *
 * It is not the model: it forgets nothing, so it is made only when a chain is asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "fsa/chain.h"

struct fsa_chain_store {
	struct fsa_chain_item *ops, *packets;
	size_t op_len, op_cap, packet_len, packet_cap;
	/* After the seal: ops by id; packets by (queue, progress value, end); indexes into them. */
	uint32_t *waits;         /* waits by (queue, progress value, id) */
	uint32_t *by_queue_end;  /* packets by (queue, end) */
	uint32_t *by_engine_end; /* packets by (adapter, engine, end) */
	size_t wait_len;
	struct fsa_queue_info *queues; /* in the order added (the model's) */
	size_t queue_len, queue_cap;
	bool is_sealed;
	struct fsa_chain_source source;
};

static bool store_find_op(void *data, uint64_t op_id, struct fsa_chain_item *out);
static bool store_find_packet(void *data, uint64_t queue, uint64_t progress,
			      struct fsa_chain_item *out);
static bool store_previous_packet(void *data, uint64_t queue, uint64_t progress,
				  struct fsa_chain_item *out);
static bool store_engine_packet_before(void *data, uint32_t adapter_id, uint32_t engine_id,
				       uint64_t queue, uint64_t at_ns, struct fsa_chain_item *out);
static bool store_cmdbuf_wait(void *data, uint64_t queue, uint64_t progress, size_t index,
			      struct fsa_chain_item *out);
static bool store_packet_before(void *data, uint64_t queue, uint64_t at_ns,
				struct fsa_chain_item *out);
static size_t store_context_queues(void *data, uint64_t context_handle, uint64_t *out,
				   size_t capacity);
static bool store_find_queue(void *data, uint64_t queue, struct fsa_queue_info *out);

struct fsa_chain_store *
fsa_chain_store_create(void)
{
	struct fsa_chain_store *store = calloc(1, sizeof(*store));

	if (!store)
		return NULL;
	store->source = (struct fsa_chain_source){
	    .data = store,
	    .find_op = store_find_op,
	    .find_packet = store_find_packet,
	    .previous_packet = store_previous_packet,
	    .engine_packet_before = store_engine_packet_before,
	    .cmdbuf_wait = store_cmdbuf_wait,
	    .packet_before = store_packet_before,
	    .context_queues = store_context_queues,
	    .find_queue = store_find_queue,
	};
	return store;
}

void
fsa_chain_store_destroy(struct fsa_chain_store *store)
{
	if (!store)
		return;
	free(store->ops);
	free(store->packets);
	free(store->waits);
	free(store->by_queue_end);
	free(store->by_engine_end);
	free(store->queues);
	free(store);
}

static fsa_status
append(struct fsa_chain_item **array, size_t *len, size_t *cap, const struct fsa_chain_item *item)
{
	if (*len == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 256;
		struct fsa_chain_item *grown;

		/* Index entries are 32-bit. */
		if (new_cap > UINT32_MAX)
			return FSA_ERR_NOMEM;
		grown = realloc(*array, new_cap * sizeof(**array));
		if (!grown)
			return FSA_ERR_NOMEM;
		*array = grown;
		*cap = new_cap;
	}
	(*array)[(*len)++] = *item;
	return FSA_OK;
}

void
fsa_chain_item_from_op(const struct fsa_op *op, struct fsa_chain_item *out)
{
	bool is_inferred = op->state == FSA_OP_INFERRED;

	*out = (struct fsa_chain_item){
	    .id = op->id,
	    .hwqueue_handle = op->source == FSA_SRC_CPU ? 0 : op->hwqueue_handle,
	    .progress_value = op->progress_value,
	    .queued_ns = op->queued_ns,
	    .start_ns = op->observed_ns,
	    .end_ns = is_inferred ? op->inferred_end_ns : op->end_ns,
	    .signal_op_id = op->kind == FSA_OP_WAIT ? op->signal_op_id : 0,
	    .fence_global_handle = op->fence_global_handle,
	    .fence_value = op->fence_value,
	    .process_id = op->process_id,
	    .adapter_id = op->adapter_id,
	    .engine_id = op->engine_id,
	    .type = op->kind == FSA_OP_WAIT ? FSA_CHAIN_ITEM_WAIT : FSA_CHAIN_ITEM_SIGNAL,
	    .source = (uint8_t) op->source,
	    .state = (uint8_t) op->state,
	};
}

void
fsa_chain_item_from_packet(const struct fsa_packet *packet, struct fsa_chain_item *out)
{
	bool has_ended = packet->status != FSA_PACKET_NEVER_ENDED;

	*out = (struct fsa_chain_item){
	    .id = packet->packet_id,
	    .hwqueue_handle = packet->hwqueue_handle,
	    .progress_value = packet->progress_value,
	    .queued_ns = packet->queued_ns,
	    .start_ns = packet->start_ns,
	    .end_ns = has_ended ? packet->end_ns : FSA_TIME_NONE,
	    .process_id = UINT32_MAX,
	    .adapter_id = packet->adapter_id,
	    .engine_id = packet->engine_id,
	    .type = FSA_CHAIN_ITEM_PACKET,
	    .source = packet->is_user_mode ? FSA_SRC_USER_MODE_QUEUE : FSA_SRC_KERNEL_MODE_QUEUE,
	    .state = has_ended ? FSA_OP_OBSERVED : FSA_OP_NEVER_COMPLETED,
	};
}

fsa_status
fsa_chain_store_add_op(struct fsa_chain_store *store, const struct fsa_op *op)
{
	struct fsa_chain_item item;

	fsa_chain_item_from_op(op, &item);
	store->is_sealed = false;
	return append(&store->ops, &store->op_len, &store->op_cap, &item);
}

fsa_status
fsa_chain_store_add_packet(struct fsa_chain_store *store, const struct fsa_packet *packet)
{
	struct fsa_chain_item item;

	fsa_chain_item_from_packet(packet, &item);
	store->is_sealed = false;
	return append(&store->packets, &store->packet_len, &store->packet_cap, &item);
}

/* --- Orders ----------------------------------------------------------------------------------- */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int
compare_id(const void *a, const void *b)
{
	const struct fsa_chain_item *x = a, *y = b;

	return CMP(x->id, y->id);
}

/* An unknown end (UINT64_MAX) sorts last, which is what "ended at or before" wants. */
static int
compare_queue_progress_end(const void *a, const void *b)
{
	const struct fsa_chain_item *x = a, *y = b;

	if (x->hwqueue_handle != y->hwqueue_handle)
		return CMP(x->hwqueue_handle, y->hwqueue_handle);
	if (x->progress_value != y->progress_value)
		return CMP(x->progress_value, y->progress_value);
	if (x->end_ns != y->end_ns)
		return CMP(x->end_ns, y->end_ns);
	return CMP(x->id, y->id);
}

/* An index entry while sorting: three keys and the position (qsort has no context argument). */
struct sort_entry {
	uint64_t key[3];
	uint32_t index;
};

static int
compare_entry(const void *a, const void *b)
{
	const struct sort_entry *x = a, *y = b;

	for (int i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return CMP(x->key[i], y->key[i]);
	return CMP(x->index, y->index);
}

/* Sorts `count` entries and writes their positions to `index`. */
static void
sort_index(struct sort_entry *entries, size_t count, uint32_t *index)
{
	if (count > 1)
		qsort(entries, count, sizeof(*entries), compare_entry);
	for (size_t i = 0; i < count; i++)
		index[i] = entries[i].index;
}

fsa_status
fsa_chain_store_seal(struct fsa_chain_store *store)
{
	size_t most = store->op_len > store->packet_len ? store->op_len : store->packet_len;
	struct sort_entry *entries = malloc((most ? most : 1) * sizeof(*entries));
	size_t count = 0;

	free(store->waits);
	free(store->by_queue_end);
	free(store->by_engine_end);
	store->waits = store->by_queue_end = store->by_engine_end = NULL;
	store->is_sealed = false;
	store->wait_len = 0;
	if (store->op_len > 1)
		qsort(store->ops, store->op_len, sizeof(*store->ops), compare_id);
	if (store->packet_len > 1)
		qsort(store->packets, store->packet_len, sizeof(*store->packets),
		      compare_queue_progress_end);
	for (size_t i = 0; i < store->op_len; i++)
		store->wait_len +=
		    store->ops[i].type == FSA_CHAIN_ITEM_WAIT && store->ops[i].hwqueue_handle != 0;
	store->waits = malloc((store->wait_len ? store->wait_len : 1) * sizeof(uint32_t));
	store->by_queue_end =
	    malloc((store->packet_len ? store->packet_len : 1) * sizeof(uint32_t));
	store->by_engine_end =
	    malloc((store->packet_len ? store->packet_len : 1) * sizeof(uint32_t));
	if (!entries || !store->waits || !store->by_queue_end || !store->by_engine_end) {
		free(entries);
		return FSA_ERR_NOMEM;
	}
	for (size_t i = 0; i < store->op_len; i++) {
		const struct fsa_chain_item *op = &store->ops[i];

		if (op->type == FSA_CHAIN_ITEM_WAIT && op->hwqueue_handle)
			entries[count++] = (struct sort_entry){
			    {op->hwqueue_handle, op->progress_value, op->id}, (uint32_t) i};
	}
	sort_index(entries, count, store->waits);
	for (size_t i = 0; i < store->packet_len; i++) {
		const struct fsa_chain_item *p = &store->packets[i];

		entries[i] = (struct sort_entry){{p->hwqueue_handle, p->end_ns, 0}, (uint32_t) i};
	}
	sort_index(entries, store->packet_len, store->by_queue_end);
	for (size_t i = 0; i < store->packet_len; i++) {
		const struct fsa_chain_item *p = &store->packets[i];

		entries[i] = (struct sort_entry){
		    {(uint64_t) p->adapter_id << 32 | p->engine_id, p->end_ns, 0}, (uint32_t) i};
	}
	sort_index(entries, store->packet_len, store->by_engine_end);
	free(entries);
	store->is_sealed = true;
	return FSA_OK;
}

/* --- Lookups ---------------------------------------------------------------------------------- */

static bool
store_find_op(void *data, uint64_t op_id, struct fsa_chain_item *out)
{
	struct fsa_chain_store *store = data;
	size_t count = store->is_sealed ? store->op_len : 0, low = 0, high = count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (store->ops[mid].id < op_id)
			low = mid + 1;
		else
			high = mid;
	}
	if (low == count || store->ops[low].id != op_id)
		return false;
	*out = store->ops[low];
	return true;
}

/* The first packet at or after (queue, progress). */
static size_t
packet_lower_bound(const struct fsa_chain_store *store, uint64_t queue, uint64_t progress)
{
	size_t low = 0, high = store->is_sealed ? store->packet_len : 0;

	while (low < high) {
		size_t mid = low + (high - low) / 2;
		const struct fsa_chain_item *p = &store->packets[mid];

		if (p->hwqueue_handle < queue ||
		    (p->hwqueue_handle == queue && p->progress_value < progress))
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static bool
store_find_packet(void *data, uint64_t queue, uint64_t progress, struct fsa_chain_item *out)
{
	struct fsa_chain_store *store = data;
	size_t at = packet_lower_bound(store, queue, progress + 1);

	/* The last of that command buffer's pieces: the one just before the next buffer. */
	if (at == 0 || !store->is_sealed)
		return false;
	if (store->packets[at - 1].hwqueue_handle != queue ||
	    store->packets[at - 1].progress_value != progress)
		return false;
	*out = store->packets[at - 1];
	return true;
}

static bool
store_previous_packet(void *data, uint64_t queue, uint64_t progress, struct fsa_chain_item *out)
{
	struct fsa_chain_store *store = data;
	size_t at = packet_lower_bound(store, queue, progress);

	if (at == 0 || !store->is_sealed || store->packets[at - 1].hwqueue_handle != queue)
		return false;
	*out = store->packets[at - 1];
	return true;
}

static bool
store_engine_packet_before(void *data, uint32_t adapter_id, uint32_t engine_id, uint64_t queue,
			   uint64_t at_ns, struct fsa_chain_item *out)
{
	struct fsa_chain_store *store = data;
	size_t low = 0, high = store->is_sealed ? store->packet_len : 0;

	/* The first packet after (adapter, engine, at_ns). */
	while (low < high) {
		size_t mid = low + (high - low) / 2;
		const struct fsa_chain_item *p = &store->packets[store->by_engine_end[mid]];

		if (p->adapter_id < adapter_id ||
		    (p->adapter_id == adapter_id &&
		     (p->engine_id < engine_id ||
		      (p->engine_id == engine_id && p->end_ns <= at_ns))))
			low = mid + 1;
		else
			high = mid;
	}
	/* Back over that queue's own packets, a bounded number of them. */
	for (size_t i = low, steps = 0; i-- > 0 && steps < 64; steps++) {
		const struct fsa_chain_item *p = &store->packets[store->by_engine_end[i]];

		if (p->adapter_id != adapter_id || p->engine_id != engine_id)
			return false;
		if (p->hwqueue_handle != queue && p->end_ns != FSA_TIME_NONE) {
			*out = *p;
			return true;
		}
	}
	return false;
}

static bool
store_cmdbuf_wait(void *data, uint64_t queue, uint64_t progress, size_t index,
		  struct fsa_chain_item *out)
{
	struct fsa_chain_store *store = data;
	size_t low = 0, high = store->is_sealed ? store->wait_len : 0;

	while (low < high) {
		size_t mid = low + (high - low) / 2;
		const struct fsa_chain_item *w = &store->ops[store->waits[mid]];

		if (w->hwqueue_handle < queue ||
		    (w->hwqueue_handle == queue && w->progress_value < progress))
			low = mid + 1;
		else
			high = mid;
	}
	if (low + index >= store->wait_len)
		return false;
	const struct fsa_chain_item *w = &store->ops[store->waits[low + index]];

	if (w->hwqueue_handle != queue || w->progress_value != progress)
		return false;
	*out = *w;
	return true;
}

bool
fsa_chain_store_packet_before(const struct fsa_chain_store *store, uint64_t queue, uint64_t at_ns,
			      struct fsa_chain_item *out)
{
	size_t low = 0, high = store->is_sealed ? store->packet_len : 0;

	while (low < high) {
		size_t mid = low + (high - low) / 2;
		const struct fsa_chain_item *p = &store->packets[store->by_queue_end[mid]];

		if (p->hwqueue_handle < queue || (p->hwqueue_handle == queue && p->end_ns <= at_ns))
			low = mid + 1;
		else
			high = mid;
	}
	if (low == 0)
		return false;
	const struct fsa_chain_item *p = &store->packets[store->by_queue_end[low - 1]];

	if (p->hwqueue_handle != queue)
		return false;
	*out = *p;
	return true;
}

static bool
store_packet_before(void *data, uint64_t queue, uint64_t at_ns, struct fsa_chain_item *out)
{
	return fsa_chain_store_packet_before(data, queue, at_ns, out);
}

fsa_status
fsa_chain_store_add_queue(struct fsa_chain_store *store, const struct fsa_queue_info *queue)
{
	if (store->queue_len == store->queue_cap) {
		size_t new_cap = store->queue_cap ? store->queue_cap * 2 : 16;
		struct fsa_queue_info *grown =
		    realloc(store->queues, new_cap * sizeof(*store->queues));

		if (!grown)
			return FSA_ERR_NOMEM;
		store->queues = grown;
		store->queue_cap = new_cap;
	}
	store->queues[store->queue_len++] = *queue;
	return FSA_OK;
}

/* Queues are few (one per hardware queue): a scan. */
static size_t
store_context_queues(void *data, uint64_t context_handle, uint64_t *out, size_t capacity)
{
	const struct fsa_chain_store *store = data;
	size_t n = 0;

	for (size_t i = 0; i < store->queue_len; i++) {
		if (store->queues[i].context_handle != context_handle)
			continue;
		if (n < capacity)
			out[n] = store->queues[i].hwqueue_handle;
		n++;
	}
	return n;
}

static bool
store_find_queue(void *data, uint64_t queue, struct fsa_queue_info *out)
{
	const struct fsa_chain_store *store = data;

	for (size_t i = 0; i < store->queue_len; i++) {
		if (store->queues[i].hwqueue_handle == queue) {
			*out = store->queues[i];
			return true;
		}
	}
	return false;
}

const struct fsa_chain_source *
fsa_chain_store_borrow_source(struct fsa_chain_store *store)
{
	return &store->source;
}

size_t
fsa_chain_store_op_count(const struct fsa_chain_store *store)
{
	return store->is_sealed ? store->op_len : 0;
}

const struct fsa_chain_item *
fsa_chain_store_borrow_op(const struct fsa_chain_store *store, size_t index)
{
	return store->is_sealed && index < store->op_len ? &store->ops[index] : NULL;
}

size_t
fsa_chain_store_count(const struct fsa_chain_store *store)
{
	return store->op_len + store->packet_len;
}

size_t
fsa_chain_store_bytes(const struct fsa_chain_store *store)
{
	return (store->op_cap + store->packet_cap) * sizeof(struct fsa_chain_item) +
	       (store->wait_len + 2 * store->packet_len) * sizeof(uint32_t) +
	       store->queue_cap * sizeof(struct fsa_queue_info);
}
