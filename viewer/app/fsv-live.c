/* SPDX-License-Identifier: MIT */
/*
 * viewer/app: following a live session in a window (fsv-live.h). The reader's thread hands each
 * newer trace to the UI thread in an idle callback that holds only a weak reference to the
 * window and the number of the following it belongs to, so a closed window or a stopped
 * following simply drops it. The window's own code knows nothing of live sessions beyond a few
 * hooks (fsv-window-private.h): show a trace in place, the bar's text, the error line.
 *
 * Following is a property of the view, not a mode to keep in step: at each new trace the view
 * follows when its end was at the end of the trace shown (within 1 % of its width). Scrolling or
 * zooming back leaves that end, and the view then stays on the times it shows; End, F or the
 * bar's Follow toggle move it to the end again, and the next trace follows. Turning the toggle
 * off pauses following where the view is, even at the end.
 *
 * Everything else the user set is kept across traces by the window
 * (_fsv_window_show_live_trace: fsv_timeline_replace_trace, rows matched by what they show).
 */
#include "fsv-live.h"

#include "fsv-live-reader.h"
#include "fsv-window-private.h"

#define LIVE_DATA_KEY "fsv-live"

/* What the reader's thread holds of the window: a weak reference, on the UI thread's side of each
 * update (atomic reference count: the reader, and each update in flight). */
typedef struct {
	GWeakRef window;
	guint generation;
} LiveContext;

typedef struct {
	FsvLiveReader *reader; /* NULL once the session ended or the following stopped */
	LiveContext *context;  /* the reader's reference, released once it stopped */
	char *url;
	guint generation;   /* of this following: updates of an older one are dropped */
	gboolean has_trace; /* a trace of this session is shown */
	guint64 shown_end_ns;
	gboolean is_following;
	gboolean is_paused; /* the Follow toggle turned off: no following until it is on again */
	gboolean is_syncing_button; /* the toggle set from is_following, not by the user */
	gboolean has_ended;         /* the session ended: a static trace, no bar, no following */
	guint64 events;
	GtkWidget *follow_button; /* Weak: in the window's bar while it follows */
} FsvLive;

/* One trace (or the end) for the UI thread. */
typedef struct {
	LiveContext *context; /* a reference */
	FsvTrace *trace;      /* nullable */
	gboolean is_final;
	guint64 events;
	GError *error;
} LiveUpdate;

static guint live_generations;

static void
context_clear(gpointer data)
{
	g_weak_ref_clear(&((LiveContext *) data)->window);
}

static void
context_unref(LiveContext *context)
{
	g_atomic_rc_box_release_full(context, context_clear);
}

typedef struct {
	FsvLiveReader *reader;
	LiveContext *context;
} LiveStop;

static gpointer
stop_reader_thread(gpointer data)
{
	LiveStop *stop = data;

	fsv_live_reader_stop(stop->reader);
	context_unref(stop->context);
	g_free(stop);
	return NULL;
}

/* Stops READER without waiting on the UI thread (its thread ends at its next event or quiet
 * moment, or after the rebuild it may be in), then drops its CONTEXT reference. */
static void
stop_reader_async(FsvLiveReader *reader, LiveContext *context)
{
	LiveStop *stop;

	if (!reader) {
		if (context)
			context_unref(context);
		return;
	}
	stop = g_new0(LiveStop, 1);
	stop->reader = reader;
	stop->context = context;
	g_thread_unref(g_thread_new("fsv-live-stop", stop_reader_thread, stop));
}

static void
live_free(gpointer data)
{
	FsvLive *live = data;

	stop_reader_async(g_steal_pointer(&live->reader), g_steal_pointer(&live->context));
	if (live->follow_button)
		g_object_remove_weak_pointer(G_OBJECT(live->follow_button),
					     (gpointer *) &live->follow_button);
	g_free(live->url);
	g_free(live);
}

static FsvLive *
live_get(FsvWindow *window)
{
	return g_object_get_data(G_OBJECT(window), LIVE_DATA_KEY);
}

static void
live_update_free(LiveUpdate *update)
{
	context_unref(update->context);
	g_clear_pointer(&update->trace, fsv_trace_unref);
	g_clear_error(&update->error);
	g_free(update);
}
/* The bar: the session, the events so far, whether the view follows. */
static void
live_show_bar(FsvWindow *window, FsvLive *live)
{
	g_autofree char *label = g_strdup_printf("Live: %s", live->url);
	g_autofree char *text =
	    g_strdup_printf("%" G_GUINT64_FORMAT " events · %s", live->events,
			    !live->has_trace     ? "waiting for the first events"
			    : live->is_following ? "following the newest events"
						 : "paused on the times shown (End follows)");

	_fsv_window_set_live_bar(window, label, text);
	if (live->follow_button) {
		live->is_syncing_button = TRUE;
		gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(live->follow_button),
					     live->is_following);
		live->is_syncing_button = FALSE;
	}
}

/* Moves the view to the end of the trace shown, WIDTH ns wide (0: the view's width). */
static void
live_follow_now(FsvWindow *window, FsvLive *live, guint64 width)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view = fsv_timeline_get_view(timeline);
	FsvTrace *trace = fsv_timeline_get_trace(timeline);
	guint64 begin, end;

	if (!view || !trace)
		return;
	if (width == 0)
		width = fsv_view_get_end_ns(view) - fsv_view_get_begin_ns(view);
	begin = fsv_trace_get_begin_ns(trace);
	end = fsv_trace_get_end_ns(trace);
	if (width == 0 || end - begin <= width)
		fsv_timeline_fit(timeline);
	else
		fsv_timeline_set_visible_range(timeline, end - width, end);
	live->is_following = TRUE;
	live->is_paused = FALSE;
	if (!live->has_ended)
		live_show_bar(window, live);
}

/* Shows TRACE in place of the one shown, the view following or staying where it was (the
 * window keeps the rest: rows, selection, table, bookmarks). */
static void
live_swap(FsvWindow *window, FsvLive *live, FsvTrace *trace)
{
	FsvTimeline *timeline = _fsv_window_get_timeline(window);
	const FsvView *view = fsv_timeline_get_view(timeline);
	guint64 begin = 0, end = 0;
	gboolean is_following = !live->is_paused, had_trace = live->has_trace && view != NULL;

	if (had_trace) {
		begin = fsv_view_get_begin_ns(view);
		end = fsv_view_get_end_ns(view);
		is_following = !live->is_paused && end + (end - begin) / 100 >= live->shown_end_ns;
	}
	_fsv_window_show_live_trace(window, trace);
	live->has_trace = TRUE;
	live->shown_end_ns = fsv_trace_get_end_ns(trace);
	live->is_following = is_following;
	if (!had_trace)
		return; /* the first: the whole of it, as any trace opens */
	if (is_following)
		live_follow_now(window, live, end - begin);
	else
		fsv_timeline_set_visible_range(timeline, begin, end);
}

/* A newer trace (or the end) of the session LIVE follows, on the UI thread. */
static void
live_show(FsvWindow *window, FsvLive *live, FsvTrace *trace, gboolean is_final, guint64 events,
	  const GError *error)
{
	live->events = events;
	if (trace)
		live_swap(window, live, trace);
	if (!is_final) {
		live_show_bar(window, live);
		return;
	}
	/* The session ended: a static trace from now on. */
	live->has_ended = TRUE;
	stop_reader_async(g_steal_pointer(&live->reader), g_steal_pointer(&live->context));
	if (live->follow_button)
		gtk_widget_set_visible(live->follow_button, FALSE);
	_fsv_window_set_live_bar(window, NULL, NULL);
	if (error)
		_fsv_window_show_error(window, error->message);
}

static gboolean
live_apply(gpointer data)
{
	LiveUpdate *update = data;
	g_autoptr(FsvWindow) window = g_weak_ref_get(&update->context->window);
	FsvLive *live = window ? live_get(window) : NULL;

	if (live && live->generation == update->context->generation)
		live_show(window, live, update->trace, update->is_final, update->events,
			  update->error);
	return G_SOURCE_REMOVE;
}

/* The reader's thread: to the UI thread. */
static void
on_live_trace(FsvTrace *trace, gboolean is_final, guint64 events, const GError *error,
	      gpointer user_data)
{
	LiveUpdate *update = g_new0(LiveUpdate, 1);

	update->context = g_atomic_rc_box_acquire(user_data);
	update->trace = trace ? fsv_trace_ref(trace) : NULL;
	update->is_final = is_final;
	update->events = events;
	update->error = error ? g_error_copy(error) : NULL;
	g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, live_apply, update,
			(GDestroyNotify) live_update_free);
}

/* The Follow toggle: on follows the newest events now, off pauses following where the view is. */
static void
on_follow_toggled(GtkToggleButton *button, gpointer user_data)
{
	FsvWindow *window = user_data;
	FsvLive *live = live_get(window);

	if (!live || live->is_syncing_button || !live->has_trace || live->has_ended)
		return;
	if (gtk_toggle_button_get_active(button)) {
		live_follow_now(window, live, 0);
	} else {
		live->is_following = FALSE;
		live->is_paused = TRUE;
		live_show_bar(window, live);
	}
}

/* End follows the newest events again (the timeline has no End of its own); F fits the whole
 * trace (the timeline's own key) and follows from there. Not while typing in an entry. */
static gboolean
on_live_key(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
	    gpointer user_data)
{
	FsvWindow *window = user_data;
	FsvLive *live = live_get(window);
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
	gboolean is_end = keyval == GDK_KEY_End || keyval == GDK_KEY_KP_End;
	gboolean is_fit = keyval == GDK_KEY_f; /* the timeline's fit: f without modifiers */

	(void) controller;
	(void) keycode;
	if ((!is_end && !is_fit) || (state & GDK_MODIFIER_MASK & ~GDK_LOCK_MASK) || !live ||
	    !live->has_trace || live->has_ended ||
	    (focus && (GTK_IS_EDITABLE(focus) || GTK_IS_TEXT(focus))))
		return FALSE;
	if (is_fit) {
		GtkWidget *timeline = GTK_WIDGET(_fsv_window_get_timeline(window));

		if (!focus || (focus != timeline && !gtk_widget_is_ancestor(focus, timeline)))
			return FALSE; /* F fits only in the timeline */
		/* The timeline fits; its end is then past the newest event: the next trace
		 * follows with the width of the whole. */
		live->is_following = TRUE;
		live->is_paused = FALSE;
		live_show_bar(window, live);
		return FALSE;
	}
	live_follow_now(window, live, 0);
	return TRUE;
}

/* The bar's Follow button, made once per window and kept (hidden when not following). */
static GtkWidget *
live_follow_button(FsvWindow *window)
{
	GtkBox *box = _fsv_window_get_progress_box(window);
	GtkWidget *button = g_object_get_data(G_OBJECT(window), "fsv-live-follow");
	GtkEventController *keys;

	if (button)
		return button;
	button = gtk_toggle_button_new_with_mnemonic("_Follow");
	gtk_widget_set_tooltip_text(button, "Follow the newest events (End, F); off: stay here");
	g_signal_connect(button, "toggled", G_CALLBACK(on_follow_toggled), window);
	if (box)
		gtk_box_append(box, button);
	g_object_set_data(G_OBJECT(window), "fsv-live-follow", button);
	keys = gtk_event_controller_key_new();
	gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
	g_signal_connect(keys, "key-pressed", G_CALLBACK(on_live_key), window);
	/* Named, so that a test finds it among the window's controllers. */
	gtk_event_controller_set_name(keys, "fsv-live-keys");
	gtk_widget_add_controller(GTK_WIDGET(window), keys);
	return button;
}

/* A following of URL in WINDOW, without its reader yet. */
static FsvLive *
live_new(FsvWindow *window, const char *url)
{
	FsvLive *live;

	_fsv_window_stop_loading(window);
	live = g_new0(FsvLive, 1);
	live->url = g_strdup(url);
	live->generation = ++live_generations;
	live->context = g_atomic_rc_box_new0(LiveContext);
	g_weak_ref_init(&live->context->window, window);
	live->context->generation = live->generation;
	live->follow_button = live_follow_button(window);
	g_object_add_weak_pointer(G_OBJECT(live->follow_button), (gpointer *) &live->follow_button);
	gtk_widget_set_visible(live->follow_button, TRUE);
	/* Replaces (and stops) a following this window had. */
	g_object_set_data_full(G_OBJECT(window), LIVE_DATA_KEY, live, live_free);
	return live;
}

void
fsv_window_follow_live(FsvWindow *window, const char *url)
{
	FsvLive *live;

	g_return_if_fail(FSV_IS_WINDOW(window));
	g_return_if_fail(url != NULL);
	live = live_new(window, url);
	/* live->context's reference is the reader's: released once the reader stopped. */
	live->reader = fsv_live_reader_start(url, 0, on_live_trace, live->context);
	_fsv_window_show_error(window, NULL);
	live_show_bar(window, live);
}

void
_fsv_live_stop(FsvWindow *window)
{
	FsvLive *live = live_get(window);

	if (!live)
		return;
	if (live->follow_button)
		gtk_widget_set_visible(live->follow_button, FALSE);
	if (live->reader)
		_fsv_window_set_live_bar(window, NULL, NULL);
	g_object_set_data(G_OBJECT(window), LIVE_DATA_KEY, NULL);
}

gboolean
_fsv_live_is_running(FsvWindow *window)
{
	FsvLive *live = live_get(window);

	return live && live->reader;
}

gboolean
_fsv_live_is_following(FsvWindow *window)
{
	FsvLive *live = live_get(window);

	return live && live->is_following;
}

void
_fsv_live_show_trace(FsvWindow *window, const char *url, FsvTrace *trace, gboolean is_final)
{
	FsvLive *live = live_get(window);

	if (!live)
		live = live_new(window, url);
	live_show(window, live, trace, is_final, fsv_trace_get_summary(trace)->event_count, NULL);
}

GtkWidget *
_fsv_live_get_follow_button(FsvWindow *window)
{
	FsvLive *live = live_get(window);

	return live ? live->follow_button : NULL;
}
