/* SPDX-License-Identifier: MIT */
/*
 * Status codes of the runtime's public API. Every call returns one: FSR_OK (0) on success,
 * a negative code otherwise, and a failed call changes nothing and leaves no half-made
 * object. The values are those of the trace contract's `status` enumeration, so a refused
 * call's `fencescope_os:call_failed` event carries the same number.
 */
#ifndef FENCESCOPE_STATUS_H
#define FENCESCOPE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(FSR_BUILDING_RUNTIME)
#define FSR_API __attribute__((visibility("default")))
#else
#define FSR_API
#endif

typedef enum fsr_status {
	FSR_OK = 0,
	FSR_ERR_INVALID_ARGUMENT = -1, /* a null pointer, a zero size, an unknown enum value */
	FSR_ERR_INVALID_HANDLE = -2,   /* no such object in the caller's handle table */
	FSR_ERR_DESTROYED = -3,        /* the object existed but was destroyed */
	FSR_ERR_VALUE_REGRESSION = -4, /* a signal to a value lower than CurrentValue */
	FSR_ERR_MALFORMED_PACKET = -5, /* a command buffer that does not decode */
	FSR_ERR_ACCESS_DENIED = -6,    /* an object of another process, not opened by this one */
	FSR_ERR_NOT_SUPPORTED = -7,    /* the adapter or queue cannot do this */
	FSR_ERR_NO_RESOURCES = -8,     /* a ring or a table is full */
	FSR_ERR_TIMEOUT = -9,          /* a wait ran out of time */
	FSR_ERR_DEVICE_LOST = -10,     /* the device was lost */
	FSR_ERR_BAD_STATE = -11,       /* not now: e.g. a wait that nothing can ever satisfy */
} fsr_status;

/* Returns: (transfer none) the constant's name without prefix, e.g. "INVALID_HANDLE". */
FSR_API const char *fsr_status_name(fsr_status status);

#ifdef __cplusplus
}
#endif

#endif /* FENCESCOPE_STATUS_H */
