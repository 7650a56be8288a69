/* SPDX-License-Identifier: MIT */
/*
 * `fencescope-view [--select-op ID] [--at TIME] [--live URL] [--compare NEW [--align B=N]]
 * [TRACE…]`: the viewer's entry
 * point. A TRACE that does not exist is refused here with one line, before any window opens;
 * FsvApplication checks the options.
 */
#include "fsv-config.h"

#include <stdio.h>
#include <string.h>

#include "fsv-application.h"

int
main(int argc, char **argv)
{
	g_autoptr(FsvApplication) app = NULL;

	for (int i = 1; i < argc; i++) {
		/* The value of an option given as "--select-op 12" is not a TRACE (every option
		 * FsvApplication gives a value). */
		if (strcmp(argv[i], "--select-op") == 0 || strcmp(argv[i], "--at") == 0 ||
		    strcmp(argv[i], "--live") == 0 || strcmp(argv[i], "--compare") == 0 ||
		    strcmp(argv[i], "--align") == 0) {
			i++;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		if (!g_file_test(argv[i], G_FILE_TEST_EXISTS)) {
			fprintf(stderr, "fencescope-view: %s: no such file or folder\n", argv[i]);
			return 2;
		}
	}
	app = fsv_application_new();
	return g_application_run(G_APPLICATION(app), argc, argv);
}
