/* SPDX-License-Identifier: MIT */
/*
 * Output files of the exporters: written under a temporary name next to the output and renamed
 * at the end, so a failed, cancelled or crashed export never leaves a file that looks complete.
 * Not a general file layer: the writers do their own I/O on the temporary file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export-file-private.h"

char *
fsa_strdup_printf(const char *format, ...)
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
fsa_set_error_message(char **error_message, const char *message)
{
	if (error_message)
		*error_message = message ? strdup(message) : NULL;
}

fsa_status
fsa_export_file_begin(struct fsa_export_file *file, const char *path, bool is_overwrite,
		      char **error_message)
{
	fsa_status status = FSA_OK;
	struct stat st;
	mode_t mask;
	int fd;

	*file = (struct fsa_export_file){.is_overwrite = is_overwrite};
	if (!path || !*path) {
		fsa_set_error_message(error_message, "no output file name");
		status = FSA_ERR_INVALID;
		goto end;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			if (error_message)
				*error_message = fsa_strdup_printf("%s: is a folder", path);
			status = FSA_ERR_IO;
			goto end;
		}
		if (!is_overwrite) {
			if (error_message)
				*error_message = fsa_strdup_printf(
				    "%s: exists (use --force to replace it)", path);
			status = FSA_ERR_IO;
			goto end;
		}
	}
	file->path = strdup(path);
	file->tmp_path = fsa_strdup_printf("%s.tmp-XXXXXX", path);
	if (!file->path || !file->tmp_path) {
		status = FSA_ERR_NOMEM;
		fsa_set_error_message(error_message, "out of memory");
		goto end;
	}
	fd = mkstemp(file->tmp_path);
	if (fd < 0) {
		if (error_message)
			*error_message = fsa_strdup_printf("%s: %s", path, strerror(errno));
		free(file->tmp_path);
		file->tmp_path = NULL;
		status = FSA_ERR_IO;
		goto end;
	}
	/* mkstemp makes the file 0600; the output gets the mode any new file would get. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
end:
	if (status != FSA_OK)
		fsa_export_file_end(file);
	return status;
}

fsa_status
fsa_export_file_commit(struct fsa_export_file *file, char **error_message)
{
	int rc;

	if (file->is_overwrite) {
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
			    fsa_strdup_printf("%s: %s", file->path,
					      errno == EEXIST ? "exists (use --force to replace it)"
							      : strerror(errno));
		return FSA_ERR_IO;
	}
	free(file->tmp_path);
	file->tmp_path = NULL;
	return FSA_OK;
}

void
fsa_export_file_end(struct fsa_export_file *file)
{
	if (file->tmp_path)
		unlink(file->tmp_path);
	free(file->tmp_path);
	free(file->path);
	file->tmp_path = NULL;
	file->path = NULL;
}
