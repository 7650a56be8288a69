/* SPDX-License-Identifier: MIT */
/*
 * The two entry points of a libFuzzer target. libFuzzer's driver calls them in the fuzz tree;
 * replay-main.c calls them in every other tree, to replay saved inputs without clang.
 */
#ifndef FUZZ_TARGET_H
#define FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Once, before the first input (optional in libFuzzer; every target here has one). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
/* One input; returns 0. A broken property aborts, so the input is saved as a crash. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_TARGET_H */
