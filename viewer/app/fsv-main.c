/* SPDX-License-Identifier: MIT */
/*
 * `fencescope-view [--select-op ID] [--at TIME] [--frame-budget TIME] [--live URL]
 * [--compare NEW [--align B=N]] [TRACE…]`: the viewer's entry
 * point. A TRACE that does not exist is refused here with one line, before any window opens;
 * FsvApplication checks the options.
 */
#include "fsv-config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fsv-application.h"

int
main(int argc, char **argv)
{
	/* The options FsvApplication gives a value: the value of one given as "--select-op 12"
	 * is not a TRACE. */
	static const char *const with_value[] = {"--select-op", "--at",    "--live",
						 "--compare",   "--align", "--frame-budget"};
	g_autoptr(FsvApplication) app = NULL;

	for (int i = 1; i < argc; i++) {
		bool is_value_next = false;

		for (size_t k = 0; k < G_N_ELEMENTS(with_value); k++)
			is_value_next |= strcmp(argv[i], with_value[k]) == 0;
		if (is_value_next) {
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
