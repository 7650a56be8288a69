/* SPDX-License-Identifier: MIT */
/*
 * Fires every event of the trace contract once, with the distinctive values of
 * contract-events.h, in the order of that table. It is the program that the contract test
 * records; it is not a workload and has no other use.
 */
#include "fencescope-umd.h"
#include "fencescope-os.h"
#include "fencescope-kmd.h"
#include "fencescope-hw.h"
#include "contract-events.h"

/*
 * Each field contributes ", value" (a sequence contributes its count and its elements), so
 * that an event's fields expand into the argument list of its tracepoint call. FSTC_CALL_
 * makes the preprocessor split that list into arguments before lttng_ust_tracepoint() sees it.
 */
#define FSTC_U8(name, value)                                , (uint8_t) (value)
#define FSTC_U16(name, value)                               , (uint16_t) (value)
#define FSTC_U32(name, value)                               , (uint32_t) (value)
#define FSTC_U64(name, value)                               , (uint64_t) (value)
#define FSTC_HEX(name, value)                               , (uint64_t) (value)
#define FSTC_STR(name, value)                               , (value)
#define FSTC_ENUM(name, enumeration, backing, value, label) , (int) (value)
#define FSTC_SEQ(name, count, ...)                                                                 \
	, (uint32_t) (count), (const uint64_t[])                                                   \
	{                                                                                          \
		__VA_ARGS__                                                                        \
	}
#define FSTC_CALL_(macro, ...) macro(__VA_ARGS__)
#define FSTC_EVENT(provider, event, fields)                                                        \
	FSTC_CALL_(lttng_ust_tracepoint, provider, event fields);

int
main(void)
{
	FSTC_CONTRACT_EVENTS
	return 0;
}
