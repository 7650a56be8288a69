/* SPDX-License-Identifier: MIT */
/*
 * What ingest.c (the graph) and discover.c (finding the CTF traces under a path) share: the list
 * of trace folders and one-line error messages. Not part of the public API.
 */
#ifndef FSA_INGEST_PRIVATE_H
#define FSA_INGEST_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsa/ingest.h"
#include "fsa/model.h"

/* CTF trace folders (each holds a `metadata` file), sorted. */
struct ingest_dirs {
	char **paths;
	size_t count, capacity;
};

void ingest_dirs_fini(struct ingest_dirs *dirs);

/*
 * Every folder at or below `path` that directly holds a file named `metadata`, like the
 * babeltrace2 CLI finds them. Symbolic links to folders are not followed (no endless walk).
 * Returns FSA_OK (possibly with no folder), FSA_ERR_IO (no such path, not a folder, unreadable)
 * or FSA_ERR_NOMEM, with the message in *error.
 */
fsa_status ingest_dirs_find(const char *path, struct ingest_dirs *dirs, char **error);

/* Whether TRACE names an LTTng live session (net://, net4://, net6://) rather than a folder. */
bool ingest_is_live_url(const char *trace);

/*
 * Refuses a packetized metadata file whose packet claims more bytes than the file holds:
 * libbabeltrace2 2.0.4 retries a zero-byte read at the end of such a file forever, so a
 * truncated trace would hang instead of failing. Returns FSA_OK or FSA_ERR_TRACE.
 */
fsa_status ingest_metadata_check(const char *dir, char **error);

/* The trace UUID of a trace folder, read from its metadata file (the first packet header, or
 * `uuid = "…"` in plain-text metadata), to group folders of one trace without asking Babeltrace
 * (its queries abort on odd folders). NULL when unknown. (transfer full: free()) */
char *ingest_metadata_uuid(const char *dir);

/* Replaces heap addresses (0x followed by 8 or more hex digits) in `text` by "0x…", in place
 * (the result is never longer: "0x…" is 5 bytes, the shortest address 10). */
void ingest_error_strip_addresses(char *text);

/*
 * The in-process reader: the libbabeltrace2 graph itself (graph.c), with fsa_ingest_run()'s
 * contract. Only the decoder helper (decode-main.c) calls it; everyone else goes through
 * fsa_ingest_run(), which runs the helper in a child process.
 */
fsa_status ingest_graph_read(const char *trace, const struct fsa_ingest_callbacks *callbacks,
			     struct fsa_ingest_stats *stats, char **error_message);

/* Called about once a second while the graph has nothing to give (a live session between
 * its timer ticks), so that the reader can tell a quiet decoder from a hung one. */
void ingest_graph_set_heartbeat(void (*heartbeat)(void *data), void *data);
/* The callbacks read only the slots of an event's `present` (fsa_decoder_set_present_only):
 * the helper's wire writer does. Set before ingest_graph_read(). */
void ingest_graph_set_present_only(bool is_present_only);

/* check.c: the metadata's TSDL text (packetized metadata unpacked), NULL when unreadable. */
char *ingest_metadata_text(const char *dir);

/* Which recording a trace folder belongs to: "TRACE_NAME (CREATION_DATETIME, HOSTNAME)" from
 * LTTng's metadata env block, or the folder itself when the metadata does not say. All the
 * folders of one LTTng session (per-UID, per-PID, 32/64-bit) share it. (transfer full) */
char *ingest_recording_id(const char *dir);

/* Refuses (FSA_ERR_IO, the list in *error) a set of folders that holds several recordings:
 * their handles would collide. `root`: the path given, to name each recording by the highest
 * folder under it that holds nothing else. */
fsa_status ingest_recordings_check(const struct ingest_dirs *dirs, const char *root, char **error);

/*
 * A file of a trace folder that the decoder must not see as it is. libbabeltrace2 2.0.4 refuses a
 * whole trace folder when one file in it does not start with the CTF packet magic, so such files
 * are left out of the view too:
 * - CUT_SHORT: a stream file shorter than its index says (LTTng's index/NAME.idx); its whole
 *   packets are read, the rest is a loss.
 * - DAMAGED: a file that is a stream of this trace by its name (LTTng's CHANNEL_CPU, or a
 *   matching index/NAME.idx) but whose first packet does not start with the magic: none of it
 *   can be read, all of it is a loss.
 * - STRAY: any other file without the magic (a notes.txt, an editor backup): not part of the
 *   trace, skipped with a note, nothing lost.
 */
enum ingest_cut_kind {
	INGEST_CUT_SHORT,
	INGEST_CUT_DAMAGED,
	INGEST_CUT_STRAY,
};

struct ingest_truncation {
	enum ingest_cut_kind kind;
	char *file;            /* the file's path */
	uint64_t packets;      /* in the index */
	uint64_t packets_lost; /* not whole in the file */
	uint64_t kept_bytes;   /* the whole packets before the cut */
	uint64_t file_bytes;   /* the file's size */
	bool has_range;        /* begin_ns/end_ns: the lost packets' times, from the index */
	uint64_t begin_ns, end_ns;
	uint64_t stream_id;
	uint32_t cpu_id; /* from the file name (CHANNEL_CPU), UINT32_MAX if not */
};

struct ingest_truncations {
	struct ingest_truncation *items;
	size_t count, capacity;
};

/* Adds every file of the folders that the view leaves out or cuts: truncated streams (streams
 * without an index are not checked for that), damaged streams and stray files. Returns FSA_OK
 * or FSA_ERR_NOMEM. */
fsa_status ingest_truncations_find(const struct ingest_dirs *dirs, struct ingest_truncations *out);
void ingest_truncations_fini(struct ingest_truncations *t);

/* A temporary folder (in $TMPDIR or /tmp) in which dN mirrors dirs->paths[N] through symbolic
 * links, the truncated streams being copied up to their last whole packet, the damaged streams
 * and stray files left out. *view: (transfer
 * full) give it to ingest_view_remove(), which removes the folder and frees the path. */
fsa_status ingest_view_create(const struct ingest_dirs *dirs, const struct ingest_truncations *t,
			      char **view, char **error);
void ingest_view_remove(char *view);

/*
 * Two decoders (docs/analyzer.md "Two decoders"): which one reads each stream file. Every
 * stream file of the folders is listed (stray files are not), with its part, 0 or 1.
 */
struct ingest_split {
	char **files;
	uint8_t *part;
	uint64_t *keys;  /* per file: trace (its first folder's index), stream class, instance */
	uint64_t *sizes; /* per file, bytes */
	size_t count, capacity;
	uint64_t bytes[2]; /* per part */
};

/* Splits the stream files into two parts of about equal size, whole streams each. False
 * (nothing to free) when the trace cannot be split so that the two decoders' messages merge in
 * exactly the muxer's order: a cut or damaged stream, a folder without a UUID, a stream file
 * without an LTTng index 1.1 (which names its stream), a stream in several files, fewer than
 * two non-empty parts. */
bool ingest_split_plan(const struct ingest_dirs *dirs, const struct ingest_truncations *t,
		       struct ingest_split *split);
void ingest_split_fini(struct ingest_split *split);

/* ingest_view_create() with only the stream files of `part`. */
fsa_status ingest_view_create_part(const struct ingest_dirs *dirs,
				   const struct ingest_truncations *t,
				   const struct ingest_split *split, int part, char **view,
				   char **error);

/* Sets *error (when error is non-NULL and *error still NULL) to the formatted one-line text. */
__attribute__((format(printf, 2, 3))) void ingest_error_set(char **error, const char *fmt, ...);

#endif /* FSA_INGEST_PRIVATE_H */
