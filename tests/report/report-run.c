/* SPDX-License-Identifier: MIT */
/*
 * The `fencescope` runner shared by the golden and CLI tests (report-run.h).
 */
#include <stdio.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "report-run.h"

void
fst_run_fencescope(const char *const *args, struct fst_run *run)
{
	fst_run_fencescope_in(NULL, args, run);
}

void
fst_run_fencescope_in(const char *cwd, const char *const *args, struct fst_run *run)
{
	GPtrArray *argv = g_ptr_array_new();
	GError *error = NULL;
	int wait_status = 0;

	g_ptr_array_add(argv, (gpointer) FS_FENCESCOPE);
	for (size_t i = 0; args[i]; i++)
		g_ptr_array_add(argv, (gpointer) args[i]);
	g_ptr_array_add(argv, NULL);
	*run = (struct fst_run){0};
	cr_assert(g_spawn_sync(cwd, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
			       &run->out, &run->err, &wait_status, &error),
		  "cannot run %s: %s", FS_FENCESCOPE, error ? error->message : "");
	g_ptr_array_free(argv, TRUE);
	run->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
	if (run->err && run->err[0])
		fprintf(stderr, "%s", run->err);
}

void
fst_run_clear(struct fst_run *run)
{
	g_free(run->out);
	g_free(run->err);
	*run = (struct fst_run){0};
}
