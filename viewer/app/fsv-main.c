/* SPDX-License-Identifier: MIT */
/*
 * `fencescope-view [TRACE…]`: the viewer's entry point. A TRACE that does not exist is
 * refused here with one line, before any window opens.
 */
#include "fsv-config.h"

#include <stdio.h>

#include "fsv-application.h"

int
main(int argc, char **argv)
{
	g_autoptr(FsvApplication) app = NULL;

	for (int i = 1; i < argc; i++) {
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
