/* SPDX-License-Identifier: MIT */
/*
 * Output files (fsa/output-file.h): written under a temporary name next to the output and
 * renamed at the end, so a failed, cancelled or interrupted output never leaves a file that
 * looks complete, and never replaces a folder, device node or FIFO. Also the exporters' small
 * string helpers (export-file-private.h). Not a general file layer: the writers do their own
 * I/O on the temporary file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export-file-private.h"

char *
strdup_printf(const char *format, ...)
{
	va_list args;
	char *text = NULL;
	int n;

	va_start(args, format);
	n = vasprintf(&text, format, args);
	va_end(args);
	return n < 0 ? NULL : text;
}

void
set_error_message(char **error_message, const char *message)
{
	if (error_message)
		*error_message = message ? strdup(message) : NULL;
}

/* Temporary files a signal handler must remove: a fixed list, so that the handler reads it
 * without locks or allocation. A slot holds a name while its output is being written. */
#define TEMPORARY_SLOTS 16
static _Atomic(char *) temporary[TEMPORARY_SLOTS];
static _Atomic(pid_t) temporary_owner[TEMPORARY_SLOTS];

/* Returns the slot + 1, or 0 when every slot is taken. */
static int
remember_temporary(char *tmp_path)
{
	for (int i = 0; i < TEMPORARY_SLOTS; i++) {
		char *expected = NULL;

		atomic_store(&temporary_owner[i], getpid());
		if (atomic_compare_exchange_strong(&temporary[i], &expected, tmp_path))
			return i + 1;
	}
	return 0; /* more outputs at once than slots: that one is only removed on error paths */
}

static void
forget_temporary(struct fsa_output_file *file)
{
	if (file->slot > 0)
		atomic_store(&temporary[file->slot - 1], NULL);
	file->slot = 0;
}

void
fsa_output_files_remove_temporary(void)
{
	int saved_errno = errno;
	pid_t self = getpid();

	for (int i = 0; i < TEMPORARY_SLOTS; i++) {
		char *tmp_path = atomic_exchange(&temporary[i], NULL);

		if (tmp_path && atomic_load(&temporary_owner[i]) == self)
			unlink(tmp_path);
	}
	errno = saved_errno;
}

static const char *
kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "is a folder";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "is a device";
	if (S_ISFIFO(mode))
		return "is a FIFO";
	if (S_ISSOCK(mode))
		return "is a socket";
	return "is not a regular file";
}

fsa_status
fsa_output_file_begin(struct fsa_output_file *file, const char *path, unsigned flags,
		      char **error_message)
{
	fsa_status status = FSA_OK;
	sigset_t ending, saved;
	struct stat st;
	mode_t mask;
	int fd;

	*file = (struct fsa_output_file){.is_replace = flags & FSA_OUTPUT_REPLACE};
	if (error_message)
		*error_message = NULL;
	if (!path || !*path) {
		set_error_message(error_message, "no output file name");
		return FSA_ERR_INVALID;
	}
	if (stat(path, &st) == 0) {
		if ((flags & FSA_OUTPUT_INTO_SPECIAL) &&
		    (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
			/* A stream: written into, never renamed over. */
			file->is_direct = true;
			file->path = strdup(path);
			file->tmp_path = strdup(path);
			if (!file->path || !file->tmp_path) {
				status = FSA_ERR_NOMEM;
				set_error_message(error_message, "out of memory");
			}
			goto end;
		}
		if (!S_ISREG(st.st_mode)) {
			if (error_message)
				*error_message =
				    strdup_printf("%s: %s (only a regular file is ever replaced)",
						  path, kind_of(st.st_mode));
			status = FSA_ERR_IO;
			goto end;
		}
		if (!file->is_replace) {
			if (error_message)
				*error_message =
				    strdup_printf("%s: exists (use --force to replace it)", path);
			status = FSA_ERR_IO;
			goto end;
		}
		/* Replace what a symbolic link points to, not the link. */
		file->path = realpath(path, NULL);
	} else if (errno != ENOENT) {
		if (error_message)
			*error_message = strdup_printf("%s: %s", path, strerror(errno));
		status = FSA_ERR_IO;
		goto end;
	}
	if (!file->path)
		file->path = strdup(path);
	file->tmp_path = file->path ? strdup_printf("%s.tmp-XXXXXX", file->path) : NULL;
	if (!file->path || !file->tmp_path) {
		status = FSA_ERR_NOMEM;
		set_error_message(error_message, "out of memory");
		goto end;
	}
	/* Created and remembered with the usual ending signals held, so that a Ctrl-C cannot come
	 * between the two and leave the file behind. */
	sigemptyset(&ending);
	sigaddset(&ending, SIGINT);
	sigaddset(&ending, SIGTERM);
	sigaddset(&ending, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ending, &saved);
	fd = mkostemp(file->tmp_path, O_CLOEXEC);
	if (fd >= 0)
		file->slot = remember_temporary(file->tmp_path);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (fd < 0) {
		if (error_message)
			*error_message =
			    strdup_printf("%s: cannot create: %s", path,
					  errno == ENOENT ? "no such folder" : strerror(errno));
		free(file->tmp_path);
		file->tmp_path = NULL;
		status = FSA_ERR_IO;
		goto end;
	}
	/* mkstemp makes the file 0600; the output gets the mode of the file it replaces, or the
	 * mode any new file would get. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, stat(file->path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask) != 0) {
		/* Not worth failing for: the file stays private to its owner. */
	}
	close(fd);
end:
	if (status != FSA_OK)
		fsa_output_file_end(file);
	return status;
}

fsa_status
fsa_output_file_commit(struct fsa_output_file *file, char **error_message)
{
	int rc;

	if (error_message)
		*error_message = NULL;
	if (!file->tmp_path) {
		set_error_message(error_message, "the output was not begun");
		return FSA_ERR_INVALID;
	}
	if (file->is_direct) {
		free(file->tmp_path);
		file->tmp_path = NULL;
		return FSA_OK;
	}
	if (file->is_replace) {
		struct stat st;

		/* A folder, device or FIFO that appeared meanwhile is not replaced either. */
		if (lstat(file->path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (error_message)
				*error_message =
				    strdup_printf("%s: %s (only a regular file is ever replaced)",
						  file->path, kind_of(st.st_mode));
			return FSA_ERR_IO;
		}
		rc = rename(file->tmp_path, file->path);
	} else {
		/* link() fails with EEXIST where rename() would silently replace a file that
		 * appeared during the export. */
		rc = link(file->tmp_path, file->path);
		if (rc == 0) {
			unlink(file->tmp_path);
		} else if (errno == EPERM || errno == ENOTSUP || errno == EXDEV) {
			/* A file system without hard links: check, then rename. */
			if (access(file->path, F_OK) == 0) {
				errno = EEXIST;
				rc = -1;
			} else {
				rc = rename(file->tmp_path, file->path);
			}
		}
	}
	if (rc != 0) {
		if (error_message)
			*error_message =
			    strdup_printf("%s: %s", file->path,
					  errno == EEXIST ? "exists (use --force to replace it)"
							  : strerror(errno));
		return FSA_ERR_IO;
	}
	forget_temporary(file);
	free(file->tmp_path);
	file->tmp_path = NULL;
	return FSA_OK;
}

void
fsa_output_file_end(struct fsa_output_file *file)
{
	forget_temporary(file);
	if (file->tmp_path && !file->is_direct)
		unlink(file->tmp_path);
	free(file->tmp_path);
	free(file->path);
	file->tmp_path = NULL;
	file->path = NULL;
}

/* The resolved folder of PATH followed by its last name; NULL if the folder does not resolve. */
static char *
resolved_name(const char *path)
{
	char *copy_dir = strdup(path), *copy_base = strdup(path), *dir, *result = NULL;

	if (copy_dir && copy_base) {
		dir = realpath(dirname(copy_dir), NULL);
		if (dir)
			result = strdup_printf("%s/%s", dir, basename(copy_base));
		free(dir);
	}
	free(copy_dir);
	free(copy_base);
	return result;
}

bool
fsa_output_paths_are_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ra, *rb;
	bool is_same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ra = resolved_name(a);
	rb = resolved_name(b);
	is_same = ra && rb ? strcmp(ra, rb) == 0 : strcmp(a, b) == 0;
	free(ra);
	free(rb);
	return is_same;
}
