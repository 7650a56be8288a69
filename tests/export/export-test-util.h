/* SPDX-License-Identifier: MIT */
/*
 * What the exporter tests share: a private temporary folder per test, removed afterwards, and
 * synthetic model items with every field set to something recognizable.
 */
#ifndef FST_EXPORT_TEST_UTIL_H
#define FST_EXPORT_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsa/model.h"

static char fst_dir[64];

static inline void
fst_make_dir(void)
{
	snprintf(fst_dir, sizeof(fst_dir), "/tmp/fst-export-XXXXXX");
	if (!mkdtemp(fst_dir))
		abort();
}

/* Files in the test folder, "." and ".." aside. */
static inline int
fst_dir_file_count(void)
{
	DIR *d = opendir(fst_dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static inline void
fst_remove_dir(void)
{
	DIR *d = opendir(fst_dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", fst_dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(fst_dir);
}

/* PATH = the test folder + "/" + NAME. */
static inline const char *
fst_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", fst_dir, name);
	return path;
}

/* An observed user-mode operation on queue 0x100 of process 42, adapter 0 engine 1. */
static inline struct fsa_op
fst_op(uint64_t id, enum fsa_op_kind kind, uint64_t queued_ns, uint64_t end_ns)
{
	return (struct fsa_op){
	    .id = id,
	    .kind = kind,
	    .source = FSA_SRC_USER_MODE_QUEUE,
	    .state = FSA_OP_OBSERVED,
	    .hwqueue_handle = 0x100,
	    .process_id = 42,
	    .adapter_id = 0,
	    .engine_id = 1,
	    .fence_handle = 0x7,
	    .fence_global_handle = 0x12,
	    .fence_value = 5,
	    .progress_value = 3,
	    .queued_ns = queued_ns,
	    .observed_ns = FSA_TIME_NONE,
	    .end_ns = end_ns,
	    .inferred_begin_ns = FSA_TIME_NONE,
	    .inferred_end_ns = FSA_TIME_NONE,
	    .log_position = UINT64_MAX,
	};
}

static inline struct fsa_edge
fst_edge(const struct fsa_op *signal, const struct fsa_op *wait)
{
	return (struct fsa_edge){
	    .signal_op_id = signal->id,
	    .wait_op_id = wait->id,
	    .fence_global_handle = signal->fence_global_handle,
	    .signal_value = signal->fence_value,
	    .wait_value = wait->fence_value,
	    .signal_source = signal->source,
	    .wait_source = wait->source,
	    .signal_hwqueue_handle = signal->hwqueue_handle,
	    .wait_hwqueue_handle = wait->hwqueue_handle,
	    .signal_process_id = signal->process_id,
	    .wait_process_id = wait->process_id,
	    .signal_end_ns = signal->end_ns,
	    .wait_end_ns = wait->end_ns,
	    .signal_adapter_id = signal->adapter_id,
	    .wait_adapter_id = wait->adapter_id,
	};
}

#endif /* FST_EXPORT_TEST_UTIL_H */
