/* SPDX-License-Identifier: MIT */
/*
 * Reading a scenario file as JSON with lines (file-private.h): the file's bytes, JSON-GLib's
 * tree, the line of every member and element noted from the parser's signals, and the typed
 * readers that report a problem as "FILE:LINE: problem". It knows nothing of what a scenario
 * holds: that is file-parse.c's.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file-private.h"

/* ---- reading JSON with lines ------------------------------------------------------------- */

/*
 * What the parser's signals tell while it reads. JSON-GLib emits "object-member" and
 * "array-element" once the value is read, when the current line is the value's (its last
 * line), and "object-start"/"array-start" when the opening bracket is read: a container is
 * blamed at its opening bracket, which is where its key usually is too.
 */
struct sf_load {
	const char *path;
	JsonParser *parser;          /* owns the tree: NULL until the file is read */
	JsonNode *root;              /* borrowed from the parser */
	GHashTable *node_lines;      /* JsonNode * → line */
	GHashTable *container_lines; /* JsonObject * or JsonArray * → line of its bracket */
	GArray *open_lines;          /* guint: lines of the brackets still open, innermost last */
	GHashTable *member_names;    /* JsonObject * → set of member names read so far */
	guint top_level_values;
	guint extra_value_line; /* JSON-GLib keeps the last of several top-level values */
	guint duplicate_line;
	char *duplicate_name;
};

static SfLoad *
sf_load_new(const char *path)
{
	SfLoad *load = g_new0(SfLoad, 1);

	load->path = path;
	load->node_lines = g_hash_table_new(g_direct_hash, g_direct_equal);
	load->container_lines = g_hash_table_new(g_direct_hash, g_direct_equal);
	load->open_lines = g_array_new(FALSE, FALSE, sizeof(guint));
	load->member_names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						   (GDestroyNotify) g_hash_table_unref);
	return load;
}

void
sf_load_free(SfLoad *load)
{
	g_hash_table_unref(load->node_lines);
	g_hash_table_unref(load->container_lines);
	g_array_unref(load->open_lines);
	g_hash_table_unref(load->member_names);
	g_free(load->duplicate_name);
	g_clear_object(&load->parser);
	g_free(load);
}

const char *
sf_load_get_path(const SfLoad *load)
{
	return load->path;
}

JsonNode *
sf_load_get_root(const SfLoad *load)
{
	return load->root;
}

static void
on_container_start(JsonParser *parser, gpointer user_data)
{
	SfLoad *load = user_data;
	guint line = json_parser_get_current_line(parser);

	if (load->open_lines->len == 0 && load->top_level_values++ > 0 &&
	    load->extra_value_line == 0)
		load->extra_value_line = line;
	g_array_append_val(load->open_lines, line);
}

static void
on_container_end(SfLoad *load, gpointer container)
{
	guint line;

	g_assert(load->open_lines->len > 0);
	line = g_array_index(load->open_lines, guint, load->open_lines->len - 1);
	g_array_set_size(load->open_lines, load->open_lines->len - 1);
	g_hash_table_insert(load->container_lines, container, GUINT_TO_POINTER(line));
}

static void
on_object_end(JsonParser *parser, JsonObject *object, gpointer user_data)
{
	(void) parser;
	on_container_end(user_data, object);
}

static void
on_array_end(JsonParser *parser, JsonArray *array, gpointer user_data)
{
	(void) parser;
	on_container_end(user_data, array);
}

static void
note_node_line(JsonParser *parser, SfLoad *load, JsonNode *node)
{
	gpointer container = NULL;
	guint line;

	if (JSON_NODE_HOLDS_OBJECT(node))
		container = json_node_get_object(node);
	else if (JSON_NODE_HOLDS_ARRAY(node))
		container = json_node_get_array(node);
	if (container)
		line = GPOINTER_TO_UINT(g_hash_table_lookup(load->container_lines, container));
	else
		line = json_parser_get_current_line(parser);
	g_hash_table_insert(load->node_lines, node, GUINT_TO_POINTER(line));
}

static void
on_object_member(JsonParser *parser, JsonObject *object, const char *name, gpointer user_data)
{
	SfLoad *load = user_data;
	GHashTable *names = g_hash_table_lookup(load->member_names, object);
	JsonNode *node = json_object_get_member(object, name);

	/* JSON-GLib keeps the last of two members of one name: a typo's twin would go unseen. */
	if (!names) {
		names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_hash_table_insert(load->member_names, object, names);
	}
	if (!g_hash_table_add(names, g_strdup(name)) && load->duplicate_line == 0) {
		load->duplicate_line = json_parser_get_current_line(parser);
		load->duplicate_name = g_strdup(name);
	}
	if (node)
		note_node_line(parser, load, node);
}

static void
on_array_element(JsonParser *parser, JsonArray *array, int index, gpointer user_data)
{
	note_node_line(parser, user_data, json_array_get_element(array, (guint) index));
}

guint
sf_line_of(const SfLoad *load, JsonNode *node)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(load->node_lines, node));
}

guint
sf_object_line(const SfLoad *load, JsonObject *object)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(load->container_lines, object));
}

static GQuark
sf_error_quark(void)
{
	return g_quark_from_static_string("fsr-scenario-file-error");
}

/* Sets "PATH:LINE: problem" (or "PATH: problem" without a line) and returns FALSE. */
gboolean
sf_fail(const SfLoad *load, guint line, GError **error, const char *format, ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	if (line > 0)
		g_set_error(error, sf_error_quark(), 0, "%s:%u: %s", load->path, line, message);
	else
		g_set_error(error, sf_error_quark(), 0, "%s: %s", load->path, message);
	return FALSE;
}

const char *
sf_describe(JsonNode *node)
{
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_OBJECT:
		return "an object";
	case JSON_NODE_ARRAY:
		return "an array";
	case JSON_NODE_NULL:
		return "null";
	case JSON_NODE_VALUE:
		break;
	}
	switch (json_node_get_value_type(node)) {
	case G_TYPE_INT64:
		return "an integer";
	case G_TYPE_DOUBLE:
		return "a number with a fraction or an exponent";
	case G_TYPE_BOOLEAN:
		return "a boolean";
	case G_TYPE_STRING:
		return "a string";
	default:
		return "a value of an unknown type";
	}
}

/* Unknown members are errors: a misspelt optional member would silently take its default. */
gboolean
sf_check_members(const SfLoad *load, JsonObject *object, const char *what,
		 const char *const *allowed, GError **error)
{
	g_autoptr(GList) names = json_object_get_members(object);

	for (GList *l = names; l; l = l->next) {
		const char *name = l->data;

		if (!g_strv_contains(allowed, name)) {
			g_autofree char *known = g_strjoinv(", ", (char **) allowed);

			return sf_fail(load, sf_line_of(load, json_object_get_member(object, name)),
				       error, "unknown member \"%s\" in %s (known: %s)", name, what,
				       known);
		}
	}
	return TRUE;
}

gboolean
sf_need_member(const SfLoad *load, JsonObject *object, const char *name, const char *what,
	       JsonNode **node, GError **error)
{
	*node = json_object_get_member(object, name);
	if (!*node)
		return sf_fail(load, sf_object_line(load, object), error, "%s has no \"%s\" member",
			       what, name);
	return TRUE;
}

gboolean
sf_read_string(const SfLoad *load, JsonNode *node, const char *name, const char **value,
	       GError **error)
{
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must be a string, not %s", name, sf_describe(node));
	*value = json_node_get_string(node);
	return TRUE;
}

gboolean
sf_read_name(const SfLoad *load, JsonNode *node, const char *name, const char **value,
	     GError **error)
{
	if (!sf_read_string(load, node, name, value, error))
		return FALSE;
	if (**value == '\0')
		return sf_fail(load, sf_line_of(load, node), error, "\"%s\" must not be empty",
			       name);
	return TRUE;
}

gboolean
sf_read_uint(const SfLoad *load, JsonNode *node, const char *name, uint64_t min, uint64_t max,
	     uint64_t *value, GError **error)
{
	gint64 number;

	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must be an integer, not %s", name, sf_describe(node));
	number = json_node_get_int(node);
	/* JSON-GLib reads integers above 2^63 - 1 as -1: they land here too. */
	if (number < 0)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must not be negative (%" G_GINT64_FORMAT "%s)", name, number,
			       number == -1 ? ", or above 2^63 - 1, which JSON-GLib reads as -1"
					    : "");
	if ((uint64_t) number < min || (uint64_t) number > max) {
		if (max >= G_MAXINT64)
			return sf_fail(load, sf_line_of(load, node), error,
				       "\"%s\" must be at least %" G_GUINT64_FORMAT
				       " (%" G_GINT64_FORMAT ")",
				       name, min, number);
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must be between %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
			       " (%" G_GINT64_FORMAT ")",
			       name, min, max, number);
	}
	*value = (uint64_t) number;
	return TRUE;
}

gboolean
sf_read_bool(const SfLoad *load, JsonNode *node, const char *name, bool *value, GError **error)
{
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_BOOLEAN)
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must be true or false, not %s", name, sf_describe(node));
	*value = json_node_get_boolean(node);
	return TRUE;
}

gboolean
sf_read_array(const SfLoad *load, JsonNode *node, const char *name, JsonArray **value,
	      GError **error)
{
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return sf_fail(load, sf_line_of(load, node), error,
			       "\"%s\" must be an array, not %s", name, sf_describe(node));
	*value = json_node_get_array(node);
	return TRUE;
}

gboolean
sf_read_object(const SfLoad *load, JsonNode *node, const char *what, JsonObject **value,
	       GError **error)
{
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return sf_fail(load, sf_line_of(load, node), error, "%s must be an object, not %s",
			       what, sf_describe(node));
	*value = json_node_get_object(node);
	return TRUE;
}

/* One of `names` (NULL-terminated); its index in *value. */
gboolean
sf_read_keyword(const SfLoad *load, JsonNode *node, const char *name, const char *const *names,
		guint *value, GError **error)
{
	g_autofree char *known = NULL;
	const char *text = NULL;

	if (!sf_read_string(load, node, name, &text, error))
		return FALSE;
	for (guint i = 0; names[i]; i++) {
		if (strcmp(text, names[i]) == 0) {
			*value = i;
			return TRUE;
		}
	}
	known = g_strjoinv(", ", (char **) names);
	return sf_fail(load, sf_line_of(load, node), error, "\"%s\" must be one of %s, not \"%s\"",
		       name, known, text);
}

/* ---- loading ------------------------------------------------------------------------------ */

static gboolean
read_contents(const SfLoad *load, GString *contents, GError **error)
{
	FILE *stream = fopen(load->path, "rb");
	char buffer[16384];
	size_t count;
	int saved_errno;

	if (!stream)
		return sf_fail(load, 0, error, "cannot open the file: %s", g_strerror(errno));
	while ((count = fread(buffer, 1, sizeof(buffer), stream)) > 0)
		g_string_append_len(contents, buffer, (gssize) count);
	saved_errno = errno;
	if (ferror(stream)) {
		fclose(stream);
		return sf_fail(load, 0, error, "cannot read the file: %s", g_strerror(saved_errno));
	}
	fclose(stream);
	return TRUE;
}

/*
 * JSON-GLib's syntax errors read "<data>:LINE:COLUMN: Parse error: problem"; they become
 * "PATH:LINE: syntax error at column COLUMN: problem".
 */
static gboolean
fail_syntax(const SfLoad *load, const GError *json_error, GError **error)
{
	const char *message = json_error->message;
	const char *prefix = "<data>:";

	if (g_str_has_prefix(message, prefix)) {
		const char *start = message + strlen(prefix);
		char *end = NULL;
		guint64 line = g_ascii_strtoull(start, &end, 10);
		guint64 column = 0;
		bool has_column = false;

		if (end != start && *end == ':') {
			start = end + 1;
			column = g_ascii_strtoull(start, &end, 10);
			has_column = end != start;
		}
		if (has_column && line > 0 && line <= G_MAXUINT && g_str_has_prefix(end, ": ")) {
			message = end + 2;
			if (g_str_has_prefix(message, "Parse error: "))
				message += strlen("Parse error: ");
			return sf_fail(load, (guint) line, error,
				       "syntax error at column %" G_GUINT64_FORMAT ": %s", column,
				       message);
		}
	}
	return sf_fail(load, 0, error, "syntax error: %s", message);
}

SfLoad *
sf_load_read(const char *path, GError **error)
{
	g_autoptr(SfLoad) load = sf_load_new(path);
	g_autoptr(GString) contents = g_string_new(NULL);
	g_autoptr(GError) json_error = NULL;
	const char *invalid;
	JsonParser *parser;
	JsonNode *root;

	if (!read_contents(load, contents, error))
		return NULL;
	if (!g_utf8_validate_len(contents->str, contents->len, &invalid)) {
		guint line = 1;

		for (const char *c = contents->str; c < invalid; c++)
			line += *c == '\n';
		{
			sf_fail(load, line, error, "not UTF-8 text (or a NUL byte)");
			return NULL;
		}
	}
	parser = load->parser = json_parser_new();
	g_signal_connect(parser, "object-start", G_CALLBACK(on_container_start), load);
	g_signal_connect(parser, "array-start", G_CALLBACK(on_container_start), load);
	g_signal_connect(parser, "object-end", G_CALLBACK(on_object_end), load);
	g_signal_connect(parser, "array-end", G_CALLBACK(on_array_end), load);
	g_signal_connect(parser, "object-member", G_CALLBACK(on_object_member), load);
	g_signal_connect(parser, "array-element", G_CALLBACK(on_array_element), load);
	if (!json_parser_load_from_data(parser, contents->str, (gssize) contents->len,
					&json_error)) {
		fail_syntax(load, json_error, error);
		return NULL;
	}
	if (load->duplicate_line) {
		sf_fail(load, load->duplicate_line, error, "member \"%s\" appears twice",
			load->duplicate_name);
		return NULL;
	}
	if (load->extra_value_line) {
		sf_fail(load, load->extra_value_line, error,
			"a second top-level value: a file holds one object");
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (!root) {
		sf_fail(load, 1, error, "the file holds no JSON value");
		return NULL;
	}
	if (JSON_NODE_HOLDS_OBJECT(root))
		g_hash_table_insert(
		    load->node_lines, root,
		    GUINT_TO_POINTER(sf_object_line(load, json_node_get_object(root))));
	else
		g_hash_table_insert(load->node_lines, root, GUINT_TO_POINTER(1));
	load->root = root;
	return g_steal_pointer(&load);
}
