/* SPDX-License-Identifier: MIT */
/* Placeholder replaced by the model's GPU → trace time mapping in the next commit. */
#include "model-private.h"
