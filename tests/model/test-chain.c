/* SPDX-License-Identifier: MIT */
/*
 * Chains of causes (fsa/chain.h, docs/analyzer.md "Chains of causes") on synthetic operations
 * and packets kept in a struct fsa_chain_store: one test per rule R1..R7 and per way a chain
 * stops. The pipeline is the frame-pipeline scenario's: a kernel-mode copy queue uploads, a
 * user-mode render queue waits for the upload, renders and signals; the next upload waits for
 * that render.
 */
#include <inttypes.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fsa/chain.h"

#define T(x) (UINT64_C(1000000000) + (uint64_t) (x) *10000) /* x in units of 10 µs */
#define NONE FSA_TIME_NONE
#define KQ   UINT64_C(0x8003000000000005) /* copy, kernel mode, engine 2 */
#define UQ   UINT64_C(0x8003000000000009) /* render, user mode, engine 0 */
#define UQ2  UINT64_C(0x800300000000000b) /* another user-mode queue on engine 0 */
#define UPL  UINT64_C(0x800400000000000c) /* fence "uploaded" */
#define REN  UINT64_C(0x800400000000000d) /* fence "rendered" */

static struct fsa_chain_store *store;
static struct fsa_chain_link links[64];
static struct fsa_chain chain;

static void
setup(void)
{
	store = fsa_chain_store_create();
	cr_assert_not_null(store);
	chain = (struct fsa_chain){.links = links, .capacity = 64};
}

static void
teardown(void)
{
	fsa_chain_store_destroy(store);
}

TestSuite(chain, .init = setup, .fini = teardown);

static void
op(uint64_t id, enum fsa_op_kind kind, enum fsa_op_state state, uint64_t queue, uint64_t progress,
   uint64_t queued, uint64_t observed, uint64_t end, uint64_t signal_op_id)
{
	struct fsa_op o = {
	    .id = id,
	    .kind = kind,
	    .source = queue == KQ  ? FSA_SRC_KERNEL_MODE_QUEUE
		      : queue == 0 ? FSA_SRC_CPU
				   : FSA_SRC_USER_MODE_QUEUE,
	    .state = state,
	    .hwqueue_handle = queue,
	    .process_id = 1,
	    .adapter_id = 0,
	    .engine_id = queue == KQ  ? 2
			 : queue == 0 ? UINT32_MAX
				      : 0,
	    .fence_global_handle = kind == FSA_OP_WAIT ? UPL : REN,
	    .fence_value = progress,
	    .progress_value = progress,
	    .queued_ns = queued,
	    .observed_ns = observed,
	    .end_ns = state == FSA_OP_INFERRED ? NONE : end,
	    .inferred_begin_ns = state == FSA_OP_INFERRED ? queued : NONE,
	    .inferred_end_ns = state == FSA_OP_INFERRED ? end : NONE,
	    .signal_op_id = signal_op_id,
	};

	cr_assert_eq(fsa_chain_store_add_op(store, &o), FSA_OK);
}

#define WAIT(id, q, pv, queued, obs, end, sig)                                                     \
	op(id, FSA_OP_WAIT, FSA_OP_OBSERVED, q, pv, queued, obs, end, sig)
#define SIGNAL(id, q, pv, queued, end)                                                             \
	op(id, FSA_OP_SIGNAL, FSA_OP_OBSERVED, q, pv, queued, NONE, end, 0)

static void
packet(uint64_t id, uint64_t queue, uint64_t progress, uint64_t queued, uint64_t start,
       uint64_t end)
{
	struct fsa_packet p = {
	    .adapter_id = 0,
	    .engine_id = queue == KQ ? 2 : 0,
	    .hwqueue_handle = queue,
	    .packet_id = id,
	    .progress_value = progress,
	    .is_user_mode = queue != KQ,
	    .queued_ns = queued,
	    .start_ns = start,
	    .end_ns = end,
	    .status = end == NONE ? FSA_PACKET_NEVER_ENDED : FSA_PACKET_COMPLETED,
	};

	cr_assert_eq(fsa_chain_store_add_packet(store, &p), FSA_OK);
}

/* Frame 1: upload (copy pv 1) 100..200, render (pv 1) 100..1200 stalled until the upload;
 * frame 2's upload (copy pv 2) submitted at 500 waits for render 1, runs 1201..1300. */
static void
pipeline(void)
{
	WAIT(1, KQ, 1, T(100), NONE, T(100), 0); /* rendered ≥ 0: no signal needed */
	packet(11, KQ, 1, T(100), T(100), T(200));
	SIGNAL(2, KQ, 1, T(100), T(200));
	packet(12, UQ, 1, T(100), T(100), T(1200));
	WAIT(3, UQ, 1, T(100), T(100), T(202), 2);
	SIGNAL(4, UQ, 1, T(100), T(1200));
	WAIT(5, KQ, 2, T(500), NONE, T(1201), 4);
	packet(13, KQ, 2, T(1201), T(1201), T(1300));
	SIGNAL(6, KQ, 2, T(500), T(1300));
}

static void
chain_of(uint64_t wait_id, uint64_t horizon)
{
	struct fsa_chain_options options = {.horizon_ns = horizon};

	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	cr_assert_eq(
	    fsa_chain_of_wait(fsa_chain_store_borrow_source(store), wait_id, &options, &chain),
	    FSA_OK);
}

static void
assert_link(size_t i, enum fsa_chain_role role, uint64_t id, uint64_t begin, uint64_t end)
{
	cr_assert_lt(i, chain.length, "link %zu missing (length %zu)", i, chain.length);
	cr_assert_eq(links[i].role, role, "link %zu: role %s, not %s", i,
		     fsa_chain_role_name(links[i].role), fsa_chain_role_name(role));
	cr_assert_eq(links[i].item.id, id, "link %zu: item %" PRIu64, i, links[i].item.id);
	cr_assert_eq(links[i].hold_begin_ns, begin, "link %zu: begin", i);
	cr_assert_eq(links[i].hold_end_ns, end, "link %zu: end", i);
}

/* The links tile [last begin, first end]: each ends where the one before it begins. */
static void
assert_tiled(void)
{
	for (size_t i = 1; i < chain.length; i++)
		cr_assert_eq(links[i].hold_end_ns, links[i - 1].hold_begin_ns, "gap at link %zu",
			     i);
}

Test(chain, r1_r3_r4_r6_a_wait_goes_back_through_signal_render_stall_upload_to_the_cpu)
{
	pipeline();
	chain_of(5, 0);
	assert_link(0, FSA_CHAIN_WAIT, 5, T(1200), T(1201));
	assert_link(1, FSA_CHAIN_SIGNAL, 4, T(1200), T(1200));
	assert_link(2, FSA_CHAIN_RUN, 12, T(202), T(1200));
	assert_link(3, FSA_CHAIN_STALL, 3, T(200), T(202));
	assert_link(4, FSA_CHAIN_SIGNAL, 2, T(200), T(200));
	assert_link(5, FSA_CHAIN_RUN, 11, T(100), T(200));
	assert_link(6, FSA_CHAIN_SUBMIT, 11, T(100), T(100));
	cr_assert_eq(chain.length, 7);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SUBMISSION);
	assert_tiled();
}

Test(chain, horizon_cuts_the_chain_at_the_waits_queued_time)
{
	pipeline();
	chain_of(5, T(500));
	assert_link(2, FSA_CHAIN_RUN, 12, T(500), T(1200));
	cr_assert_eq(chain.length, 3);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_HORIZON);
	assert_tiled();
}

Test(chain, r5_a_kernel_mode_wait_that_stalled_the_queue_before_its_packet)
{
	pipeline();
	/* Frame 2's render waits for upload 2, which waited for render 1. */
	packet(14, UQ, 2, T(600), T(1200), T(1900));
	WAIT(7, UQ, 2, T(600), T(1200), T(1301), 6);
	SIGNAL(8, UQ, 2, T(600), T(1900));
	chain_of(7, 0);
	assert_link(0, FSA_CHAIN_WAIT, 7, T(1300), T(1301));
	assert_link(1, FSA_CHAIN_SIGNAL, 6, T(1300), T(1300));
	assert_link(2, FSA_CHAIN_RUN, 13, T(1201), T(1300));
	assert_link(3, FSA_CHAIN_STALL, 5, T(1200), T(1201));
	assert_link(4, FSA_CHAIN_SIGNAL, 4, T(1200), T(1200));
	assert_link(5, FSA_CHAIN_RUN, 12, T(202), T(1200));
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SUBMISSION);
	assert_tiled();
}

Test(chain, r5_a_command_buffer_queued_behind_the_queues_previous_one)
{
	/* Two render buffers submitted at once: the second runs when the first ends. */
	packet(21, UQ, 1, T(0), T(0), T(400));
	packet(22, UQ, 2, T(0), T(400), T(700));
	SIGNAL(31, UQ, 2, T(0), T(700));
	WAIT(32, KQ, 1, T(0), NONE, T(701), 31);
	chain_of(32, 0);
	assert_link(1, FSA_CHAIN_SIGNAL, 31, T(700), T(700));
	assert_link(2, FSA_CHAIN_RUN, 22, T(400), T(700));
	assert_link(3, FSA_CHAIN_QUEUE, 21, T(0), T(400));
	assert_link(4, FSA_CHAIN_SUBMIT, 21, T(0), T(0));
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SUBMISSION);
}

Test(chain, r5_another_queues_packet_that_had_the_engine)
{
	packet(21, UQ2, 1, T(0), T(0), T(400));
	packet(22, UQ, 1, T(100), T(400), T(700));
	SIGNAL(31, UQ, 1, T(100), T(700));
	WAIT(32, KQ, 1, T(0), NONE, T(701), 31);
	chain_of(32, 0);
	assert_link(2, FSA_CHAIN_RUN, 22, T(400), T(700));
	assert_link(3, FSA_CHAIN_ENGINE, 21, T(0), T(400));
	cr_assert_eq(links[3].item.hwqueue_handle, UQ2);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SUBMISSION);
}

Test(chain, r6_the_submission_holds_the_time_from_the_cpu_to_the_packets_start)
{
	packet(21, UQ, 1, T(0), T(50), T(400));
	SIGNAL(31, UQ, 1, T(0), T(400));
	WAIT(32, KQ, 1, T(0), NONE, T(401), 31);
	chain_of(32, 0);
	assert_link(2, FSA_CHAIN_RUN, 21, T(0), T(400));
	assert_link(3, FSA_CHAIN_SUBMIT, 21, T(0), T(0));
}

Test(chain, r2_a_wait_without_an_edge_stops_release_unknown)
{
	pipeline();
	chain_of(1, 0);
	cr_assert_eq(chain.length, 1);
	cr_assert_eq(links[0].hold_begin_ns, links[0].hold_end_ns, "it holds nothing");
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_RELEASE_UNKNOWN);
	cr_assert(chain.has_stop_item);
	cr_assert_eq(chain.stop_item.id, 1);
}

Test(chain, r2_a_release_that_is_not_kept_stops_release_unknown)
{
	WAIT(5, KQ, 2, T(500), NONE, T(1201), 99);
	chain_of(5, 0);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_RELEASE_UNKNOWN);
}

Test(chain, r3_a_cpu_signal_ends_the_chain_at_the_cpu)
{
	op(40, FSA_OP_SIGNAL, FSA_OP_OBSERVED, 0, 0, T(300), NONE, T(300), 0);
	WAIT(41, UQ, 1, T(0), T(0), T(301), 40);
	chain_of(41, 0);
	assert_link(0, FSA_CHAIN_WAIT, 41, T(300), T(301));
	assert_link(1, FSA_CHAIN_SIGNAL, 40, T(300), T(300));
	cr_assert_eq(chain.length, 2);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SIGNAL);
}

Test(chain, r3_an_inferred_signal_stops_the_chain_it_never_guesses)
{
	op(40, FSA_OP_SIGNAL, FSA_OP_INFERRED, UQ, 1, T(200), NONE, T(300), 0);
	packet(21, UQ, 1, T(0), T(0), T(290));
	WAIT(41, KQ, 1, T(0), NONE, T(301), 40);
	chain_of(41, 0);
	cr_assert_eq(chain.length, 2);
	cr_assert_eq(links[1].hold_begin_ns, links[1].hold_end_ns);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_INFERRED);
	cr_assert_eq(chain.stop_item.id, 40);
}

Test(chain, r3_an_unqueued_signal_stops_its_command_buffer_is_unknown)
{
	op(40, FSA_OP_SIGNAL, FSA_OP_UNQUEUED, UQ, 0, NONE, NONE, T(300), 0);
	WAIT(41, KQ, 1, T(0), NONE, T(301), 40);
	chain_of(41, 0);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_UNQUEUED);
}

Test(chain, r3_a_signal_without_its_packet_stops_no_packet)
{
	SIGNAL(40, UQ, 1, T(0), T(300));
	WAIT(41, KQ, 1, T(0), NONE, T(301), 40);
	chain_of(41, 0);
	cr_assert_eq(chain.length, 2);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_NO_PACKET);
}

Test(chain, r7_a_wait_never_unblocked_has_no_release)
{
	op(41, FSA_OP_WAIT, FSA_OP_NEVER_COMPLETED, KQ, 1, T(10), NONE, NONE, 0);
	chain_of(41, 0);
	cr_assert_eq(chain.length, 1);
	cr_assert_eq(links[0].hold_end_ns, T(10));
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_NOT_OBSERVED);
}

Test(chain, r7_an_inferred_wait_stops_inferred)
{
	op(41, FSA_OP_WAIT, FSA_OP_INFERRED, UQ, 1, T(10), NONE, T(50), 7);
	chain_of(41, 0);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_INFERRED);
}

Test(chain, a_packet_submitted_before_the_trace_stops_trace_start)
{
	packet(21, UQ, 1, NONE, T(0), T(400));
	SIGNAL(31, UQ, 1, NONE, T(400));
	WAIT(32, KQ, 1, T(0), NONE, T(401), 31);
	chain_of(32, 0);
	assert_link(2, FSA_CHAIN_RUN, 21, T(0), T(400));
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_TRACE_START);
}

Test(chain, a_full_array_stops_limit)
{
	pipeline();
	chain.capacity = 3;
	chain_of(5, 0);
	cr_assert_eq(chain.length, 3);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_LIMIT);
}

Test(chain, an_unknown_op_or_a_signal_asked_as_a_wait_is_invalid)
{
	pipeline();
	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	cr_assert_eq(fsa_chain_of_wait(fsa_chain_store_borrow_source(store), 77, NULL, &chain),
		     FSA_ERR_INVALID);
	cr_assert_eq(fsa_chain_of_wait(fsa_chain_store_borrow_source(store), 2, NULL, &chain),
		     FSA_ERR_INVALID);
}

Test(chain, a_packets_chain_explains_its_end)
{
	struct fsa_chain_item render;

	pipeline();
	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	cr_assert(fsa_chain_store_packet_before(store, UQ, T(1250), &render));
	cr_assert_eq(render.id, 12);
	cr_assert_not(fsa_chain_store_packet_before(store, UQ, T(1199), &render));
	cr_assert(fsa_chain_store_packet_before(store, UQ, T(1200), &render));
	cr_assert_eq(
	    fsa_chain_of_packet(fsa_chain_store_borrow_source(store), &render, NULL, &chain),
	    FSA_OK);
	assert_link(0, FSA_CHAIN_RUN, 12, T(202), T(1200));
	assert_link(1, FSA_CHAIN_STALL, 3, T(200), T(202));
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_CPU_SUBMISSION);
	assert_tiled();
}

Test(chain, a_caller_without_some_lookups_gets_a_chain_that_stops_where_they_are_needed)
{
	struct fsa_chain_source source = *fsa_chain_store_borrow_source(store);

	pipeline();
	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	source.find_packet = NULL;
	cr_assert_eq(fsa_chain_of_wait(&source, 5, NULL, &chain), FSA_OK);
	cr_assert_eq(chain.length, 2);
	cr_assert_eq(chain.stop, FSA_CHAIN_STOP_NO_PACKET);
}

/* ---- A frame's critical path (fsa_chain_of_frame) and its shares ------------------------- */

#define CTX UINT64_C(0x8002000000000003) /* the presenting context of UQ and UQ2 */

static void
queue(uint64_t handle)
{
	struct fsa_queue_info q = {
	    .hwqueue_handle = handle,
	    .process_id = 7,
	    .context_handle = CTX,
	    .adapter_id = 0,
	    .engine_id = 0,
	};

	cr_assert_eq(fsa_chain_store_add_queue(store, &q), FSA_OK);
}

/* Frame 2 of display 0:0, from vsync 1000 to vsync 1400; its flip queued at 1250. */
static const struct fsa_frame frame2 = {
    .adapter_id = 0,
    .source_id = 0,
    .index = 2,
    .flip_id = 77,
    .begin_ns = T(1000),
    .end_ns = T(1400),
    .frame_time_ns = T(1400) - T(1000),
    .queued_ns = T(1250),
    .done_ns = T(1390),
    .process_id = 7,
    .context_handle = CTX,
};

static struct fsa_path_link path_links[66];
static struct fsa_frame_path path = {.links = path_links, .capacity = 66};

static void
path_of(const struct fsa_frame *previous)
{
	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	cr_assert_eq(fsa_chain_of_frame(fsa_chain_store_borrow_source(store), &frame2, previous,
					&chain, &path),
		     FSA_OK);
}

/* The render: two queues of the context end a packet at the same time (1200); the first queue
 * in the model's order is the render, whatever the handles' order (report == viewer). */
static void
two_renders(uint64_t first, uint64_t second)
{
	queue(first);
	queue(second);
	packet(12, UQ, 1, T(100), T(100), T(1200));
	packet(21, UQ2, 1, T(900), T(900), T(1200));
	path_of(NULL);
	cr_assert_str_eq(path.links[0].role, "vsync");
	cr_assert_eq(path.links[0].hold_begin_ns, T(1250));
	cr_assert_eq(path.links[0].hold_end_ns, T(1400));
	cr_assert_str_eq(path.links[1].role, "present");
	cr_assert_eq(path.links[1].hold_begin_ns, T(1200));
	cr_assert_str_eq(path.links[2].role, "run");
	cr_assert_eq(path.links[2].item.id, first == UQ ? 12 : 21);
	cr_assert_eq(path.begin_ns, T(1000));
	cr_assert_eq(path.end_ns, T(1400));
}

Test(chain, frame_two_renders_ending_together_the_first_queue_in_model_order_wins)
{
	two_renders(UQ2, UQ);
}

Test(chain, frame_two_renders_ending_together_in_the_other_model_order)
{
	two_renders(UQ, UQ2);
}

Test(chain, frame_the_links_tile_the_frame_and_the_shares_sum_to_it)
{
	struct fsa_path_share shares[3 * 66 + 1];
	uint64_t total = 0;
	size_t n;

	two_renders(UQ2, UQ);
	for (size_t i = 1; i < path.length; i++)
		cr_assert_eq(path.links[i].hold_end_ns, path.links[i - 1].hold_begin_ns,
			     "gap at link %zu", i);
	cr_assert_eq(path.links[path.length - 1].hold_begin_ns, path.begin_ns);
	n = fsa_chain_path_shares(fsa_chain_store_borrow_source(store), path.links, path.length,
				  frame2.adapter_id, frame2.source_id, shares);
	/* queue (UQ2's packet, 200), engine 0:0 and process 7 (the packet's unknown process is
	 * its queue's, find_queue), display 0:0 (vsync 150 + present 50). */
	cr_assert_eq(n, 4);
	cr_assert_str_eq(shares[0].scope, "queue");
	cr_assert_str_eq(shares[0].key, "0x800300000000000b");
	cr_assert_eq(shares[0].hwqueue_handle, UQ2);
	cr_assert_str_eq(shares[1].scope, "engine");
	cr_assert_str_eq(shares[1].key, "0:0");
	cr_assert_str_eq(shares[2].scope, "process");
	cr_assert_str_eq(shares[2].key, "7");
	cr_assert_str_eq(shares[3].scope, "display");
	cr_assert_eq(shares[3].held_ns, T(1400) - T(1200));
	for (size_t i = 0; i < n; i++)
		if (strcmp(shares[i].scope, "queue") == 0 ||
		    strcmp(shares[i].scope, "display") == 0)
			total += shares[i].held_ns;
	cr_assert_eq(total, T(1400) - T(1000));
}

Test(chain, frame_the_previous_flip_on_screen_after_the_render_makes_it_display_bound)
{
	struct fsa_frame previous = frame2;

	previous.index = 1;
	previous.flip_id = 76;
	previous.queued_ns = T(900);
	previous.done_ns = T(1240); /* after the render's end (1200), before this flip's queue */
	queue(UQ);
	packet(12, UQ, 1, T(100), T(100), T(1200));
	path_of(&previous);
	cr_assert_eq(path.length, 2);
	cr_assert_str_eq(path.links[1].role, "previous_flip");
	cr_assert_eq(path.links[1].flip_id, 76);
	cr_assert_eq(path.links[1].flip_queued_ns, T(900));
	cr_assert_eq(path.links[1].hold_begin_ns, T(1000));
	cr_assert_eq(path.links[1].hold_end_ns, T(1250));
	cr_assert_str_eq(path.stop, "previous_flip");
}

Test(chain, frame_a_pending_present_or_a_short_path_array_is_invalid)
{
	struct fsa_frame pending = frame2;
	struct fsa_frame_path small = {.links = path_links, .capacity = 65};

	pending.is_pending = true;
	cr_assert_eq(fsa_chain_store_seal(store), FSA_OK);
	cr_assert_eq(
	    fsa_chain_of_frame(fsa_chain_store_borrow_source(store), &pending, NULL, &chain, &path),
	    FSA_ERR_INVALID);
	cr_assert_eq(
	    fsa_chain_of_frame(fsa_chain_store_borrow_source(store), &frame2, NULL, &chain, &small),
	    FSA_ERR_INVALID);
}
