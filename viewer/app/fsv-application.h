/* SPDX-License-Identifier: MIT */
/*
 * FsvApplication: the fencescope viewer as a GtkApplication. It owns the application-wide
 * actions (quit, about, keyboard shortcuts) and opens one FsvWindow per trace it is given
 * (`fencescope-view TRACE` goes through GApplication's "open"). Nothing about traces lives
 * here: loading and drawing belong to FsvWindow and viewer/core.
 */
#ifndef FSV_APPLICATION_H
#define FSV_APPLICATION_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define FSV_APPLICATION_ID   "org.fencescope.Viewer"
#define FSV_TYPE_APPLICATION (fsv_application_get_type())

G_DECLARE_FINAL_TYPE(FsvApplication, fsv_application, FSV, APPLICATION, GtkApplication)

/* Returns: (transfer full) a new application. */
FsvApplication *fsv_application_new(void);

G_END_DECLS

#endif /* FSV_APPLICATION_H */
