/* SPDX-License-Identifier: MIT */
/*
 * viewer/core: the search language (fsv-query.h). A hand-written lexer and recursive-descent
 * parser build a flat array of nodes (the tree's children are indexes into it), which
 * fsv_query_match_op() walks for each op. Grammar, loosest binding first:
 *
 *   query   := [ or ]                       (empty: every op)
 *   or      := and { "or" and }
 *   and     := not { ["and"] not }          (space between terms means "and")
 *   not     := "not" not | primary
 *   primary := "(" or ")" | term
 *   term    := FIELD OP VALUE { "|" VALUE } | NUMBER        (a bare number: fence=NUMBER)
 *
 * It matches ops only; packets and markers are never faded by a search.
 */
#include "fsv-query.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fsa/model.h"

G_DEFINE_QUARK(fsv - query - error - quark, fsv_query_error)

typedef enum {
	FIELD_DUR,
	FIELD_KIND,
	FIELD_STATE,
	FIELD_SOURCE,
	FIELD_QUEUE,
	FIELD_PID,
	FIELD_FENCE,
	FIELD_VALUE,
	FIELD_OP,
	FIELD_ADAPTER,
	FIELD_ENGINE,
} Field;

/* What a field's values are: this decides the operators it takes and how a value reads. */
typedef enum {
	VALUES_DURATION, /* "2ms": every operator */
	VALUES_NUMBER,   /* decimal or 0x hex: every operator */
	VALUES_HANDLE,   /* decimal or 0x hex: = and != only */
	VALUES_NAME,     /* one of the analyzer's names: = and != only */
} Values;

typedef struct {
	const char *name, *alias;
	Field field;
	Values values;
	/* VALUES_NAME: the analyzer's name of each enum value, 0 .. n_names - 1. */
	const char *(*name_of)(int value);
	int n_names;
} FieldInfo;

static const char *
kind_name(int value)
{
	return fsa_op_kind_name((enum fsa_op_kind) value);
}

static const char *
state_name(int value)
{
	return fsa_op_state_name((enum fsa_op_state) value);
}

static const char *
source_name(int value)
{
	return fsa_op_source_name((enum fsa_op_source) value);
}

static const FieldInfo fields[] = {
    {"dur", "duration", FIELD_DUR, VALUES_DURATION, NULL, 0},
    {"kind", NULL, FIELD_KIND, VALUES_NAME, kind_name, FSA_OP_SIGNAL + 1},
    {"state", NULL, FIELD_STATE, VALUES_NAME, state_name, FSA_OP_UNQUEUED + 1},
    {"source", NULL, FIELD_SOURCE, VALUES_NAME, source_name, FSA_SRC_CPU + 1},
    {"queue", "hwqueue", FIELD_QUEUE, VALUES_HANDLE, NULL, 0},
    {"pid", "process", FIELD_PID, VALUES_NUMBER, NULL, 0},
    {"fence", "handle", FIELD_FENCE, VALUES_HANDLE, NULL, 0},
    {"value", NULL, FIELD_VALUE, VALUES_NUMBER, NULL, 0},
    {"op", "id", FIELD_OP, VALUES_NUMBER, NULL, 0},
    {"adapter", NULL, FIELD_ADAPTER, VALUES_NUMBER, NULL, 0},
    {"engine", NULL, FIELD_ENGINE, VALUES_NUMBER, NULL, 0},
};

#define FIELD_LIST "dur, kind, state, source, queue, pid, fence, value, op, adapter, engine"

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } Cmp;

typedef enum { NODE_AND, NODE_OR, NODE_NOT, NODE_TERM } NodeType;

typedef struct {
	guint8 type;  /* NodeType */
	guint8 field; /* NODE_TERM: Field */
	guint8 cmp;   /* NODE_TERM: Cmp */
	/* AND, OR: the children's node indexes; NOT: a is the child; TERM: a is the first of
	 * b values in FsvQuery.values (alternatives, "kind=wait|signal"). */
	guint32 a, b;
} Node;

struct _FsvQuery {
	gatomicrefcount ref;
	char *text;
	GArray *nodes;  /* Node */
	GArray *values; /* guint64 */
	guint32 root;   /* G_MAXUINT32: the empty query */
};

/* ---- Lexer --------------------------------------------------------------------------- */

typedef enum { TOK_END, TOK_WORD, TOK_CMP, TOK_PIPE, TOK_OPEN, TOK_CLOSE, TOK_BAD } TokType;

typedef struct {
	TokType type;
	const char *start; /* into the query's text */
	gsize len;
	Cmp cmp; /* TOK_CMP */
} Token;

typedef struct {
	const char *text;
	const char *pos;
	Token tok; /* the current token, not consumed */
	FsvQuery *query;
	GError *error;
	guint error_offset;
} Parser;

static bool
is_word_char(char c)
{
	return c && !g_ascii_isspace(c) && !strchr(",()|=!<>", c);
}

static void
next_token(Parser *p)
{
	const char *s = p->pos;
	Token t = {TOK_END, s, 0, CMP_EQ};

	/* Commas separate terms like spaces do (the first search of the viewer took both). */
	while (*s && (g_ascii_isspace(*s) || *s == ','))
		s++;
	t.start = s;
	t.type = TOK_CMP;
	t.len = 1;
	switch (*s) {
	case '\0':
		t.type = TOK_END;
		t.len = 0;
		break;
	case '(':
		t.type = TOK_OPEN;
		break;
	case ')':
		t.type = TOK_CLOSE;
		break;
	case '|':
		t.type = TOK_PIPE;
		break;
	case '=':
		t.cmp = CMP_EQ;
		break;
	case '!':
		if (s[1] == '=') {
			t.len = 2;
			t.cmp = CMP_NE;
		} else {
			t.type = TOK_BAD;
		}
		break;
	case '<':
	case '>':
		t.len = s[1] == '=' ? 2 : 1;
		if (*s == '<')
			t.cmp = t.len == 2 ? CMP_LE : CMP_LT;
		else
			t.cmp = t.len == 2 ? CMP_GE : CMP_GT;
		break;
	default:
		t.type = TOK_WORD;
		t.len = 0;
		while (is_word_char(s[t.len]))
			t.len++;
		break;
	}
	p->tok = t;
	p->pos = s + t.len;
}

static bool
token_is_keyword(const Token *t, const char *keyword)
{
	return t->type == TOK_WORD && t->len == strlen(keyword) &&
	       g_ascii_strncasecmp(t->start, keyword, t->len) == 0;
}

/* Characters (not bytes) from the start of the text: "µs" is one character per letter. */
static guint
offset_of(const Parser *p, const char *at)
{
	return (guint) g_utf8_strlen(p->text, at - p->text);
}

/* Sets the parse error once: "TERM: WHAT at OFFSET". TERM runs from term_start to term_end. */
G_GNUC_PRINTF(5, 6)
static void
fail(Parser *p, const char *term_start, const char *term_end, const char *at, const char *format,
     ...)
{
	g_autofree char *what = NULL;
	g_autofree char *term = NULL;
	va_list args;

	if (p->error)
		return;
	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	while (term_end > term_start && g_ascii_isspace(term_end[-1]))
		term_end--;
	term = term_end > term_start ? g_strndup(term_start, term_end - term_start)
				     : g_strdup(p->text);
	p->error_offset = offset_of(p, at);
	p->error = g_error_new(FSV_QUERY_ERROR, FSV_QUERY_ERROR_SYNTAX, "%s: %s at %u", term, what,
			       p->error_offset);
}

static const char *
token_end(const Token *t)
{
	return t->start + t->len;
}

/* ---- Values ---------------------------------------------------------------------------- */

/* Decimal, or hexadecimal after 0x. Not strtoull's base 0: it reads a leading zero as octal,
 * so "value=010" would match 8 and "pid=09" would be refused. */
static bool
parse_u64(const char *text, gsize len, guint64 *out)
{
	g_autofree char *copy = g_strndup(text, len);
	const char *s = copy;
	char *end = NULL;
	guint base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (!g_ascii_isxdigit(s[0]) || (base == 10 && !g_ascii_isdigit(s[0])))
		return false;
	errno = 0;
	*out = g_ascii_strtoull(s, &end, base);
	return errno == 0 && end && *end == '\0';
}

typedef enum {
	DURATION_OK,
	DURATION_NOT_A_NUMBER,
	DURATION_NO_UNIT,
	DURATION_BAD_UNIT,
	DURATION_TOO_LONG
} DurationStatus;

/* "1.5ms" → 1500000. *unit_at: where the unit starts (for errors). */
static DurationStatus
parse_duration(const char *text, gsize len, guint64 *ns, gsize *unit_at)
{
	static const struct {
		const char *name;
		guint64 ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"µs", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	guint64 whole = 0, frac = 0, frac_scale = 1, unit = 0;
	gsize i = 0;

	while (i < len && g_ascii_isdigit(text[i])) {
		if (whole > (G_MAXUINT64 - 9) / 10)
			return DURATION_TOO_LONG;
		whole = whole * 10 + (guint64) (text[i++] - '0');
	}
	if (i == 0)
		return DURATION_NOT_A_NUMBER;
	if (i < len && text[i] == '.') {
		gsize digits = 0;

		i++;
		while (i < len && g_ascii_isdigit(text[i])) {
			/* Ten digits round a second to the nanosecond (and 10^10 × 10^9 fits in 64
			 * bits); more cannot change the result. */
			if (digits++ < 10) {
				frac = frac * 10 + (guint64) (text[i] - '0');
				frac_scale *= 10;
			}
			i++;
		}
		if (digits == 0)
			return DURATION_NOT_A_NUMBER;
	}
	*unit_at = i;
	if (i == len) {
		/* Zero needs no unit; any other number does ("dur>2" would otherwise be 2 ns,
		 * which nobody means). */
		if (whole == 0 && frac == 0) {
			*ns = 0;
			return DURATION_OK;
		}
		return DURATION_NO_UNIT;
	}
	for (gsize u = 0; u < G_N_ELEMENTS(units); u++) {
		if (strlen(units[u].name) == len - i &&
		    memcmp(units[u].name, text + i, len - i) == 0)
			unit = units[u].ns;
	}
	if (unit == 0)
		return DURATION_BAD_UNIT;
	frac = (frac * unit + frac_scale / 2) / frac_scale;
	if (whole > (G_MAXUINT64 - 1 - frac) / unit)
		return DURATION_TOO_LONG;
	*ns = whole * unit + frac;
	return DURATION_OK;
}

bool
fsv_query_parse_duration(const char *text, guint64 *ns)
{
	gsize unit_at = 0;
	guint64 v = 0;
	g_autofree char *trimmed = NULL;
	g_autofree char *joined = NULL;

	g_return_val_if_fail(text != NULL && ns != NULL, false);
	/* "1.5 ms" reads like "1.5ms". */
	trimmed = g_strstrip(g_strdup(text));
	{
		g_auto(GStrv) parts = g_strsplit(trimmed, " ", 2);

		joined = parts[0] && parts[1] ? g_strconcat(parts[0], g_strstrip(parts[1]), NULL)
					      : g_strdup(trimmed);
	}
	if (parse_duration(joined, strlen(joined), &v, &unit_at) != DURATION_OK)
		return false;
	*ns = v;
	return true;
}

/* ---- Parser ---------------------------------------------------------------------------- */

static guint32
add_node(Parser *p, Node node)
{
	g_array_append_val(p->query->nodes, node);
	return p->query->nodes->len - 1;
}

static const FieldInfo *
find_field(const Token *t)
{
	for (gsize i = 0; i < G_N_ELEMENTS(fields); i++) {
		const char *names[] = {fields[i].name, fields[i].alias};

		for (gsize n = 0; n < 2; n++) {
			if (names[n] && strlen(names[n]) == t->len &&
			    g_ascii_strncasecmp(names[n], t->start, t->len) == 0)
				return &fields[i];
		}
	}
	return NULL;
}

static char *
name_list(const FieldInfo *f)
{
	GString *s = g_string_new(NULL);

	for (int i = 0; i < f->n_names; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", f->name_of(i));
	return g_string_free(s, FALSE);
}

/* One value of FIELD's term starting at term_start; appends it to the query's values. */
static bool
parse_value(Parser *p, const FieldInfo *f, const char *term_start, const Token *v)
{
	guint64 value = 0;

	if (v->type != TOK_WORD) {
		fail(p, term_start, v->start, v->start, "missing value");
		return false;
	}
	switch (f->values) {
	case VALUES_DURATION: {
		gsize unit_at = 0;

		switch (parse_duration(v->start, v->len, &value, &unit_at)) {
		case DURATION_OK:
			break;
		case DURATION_NOT_A_NUMBER:
			fail(p, term_start, token_end(v), v->start,
			     "not a duration (a number and ns, us, µs, ms or s)");
			return false;
		case DURATION_NO_UNIT:
			fail(p, term_start, token_end(v), v->start + unit_at,
			     "missing unit (ns, us, µs, ms or s)");
			return false;
		case DURATION_BAD_UNIT:
			fail(p, term_start, token_end(v), v->start + unit_at, "unknown unit '%.*s'",
			     (int) (v->len - unit_at), v->start + unit_at);
			return false;
		case DURATION_TOO_LONG:
			fail(p, term_start, token_end(v), v->start, "duration too long");
			return false;
		}
		break;
	}
	case VALUES_NUMBER:
	case VALUES_HANDLE:
		if (!parse_u64(v->start, v->len, &value)) {
			fail(p, term_start, token_end(v), v->start,
			     "not a number (decimal or 0x hex)");
			return false;
		}
		if (f->field == FIELD_PID && value > G_MAXUINT32) {
			fail(p, term_start, token_end(v), v->start, "a process id is at most %u",
			     G_MAXUINT32);
			return false;
		}
		break;
	case VALUES_NAME: {
		int found = -1;

		for (int i = 0; i < f->n_names && found < 0; i++) {
			if (strlen(f->name_of(i)) == v->len &&
			    g_ascii_strncasecmp(f->name_of(i), v->start, v->len) == 0)
				found = i;
		}
		if (found < 0) {
			g_autofree char *names = name_list(f);

			fail(p, term_start, token_end(v), v->start, "unknown %s '%.*s' (%s)",
			     f->name, (int) v->len, v->start, names);
			return false;
		}
		value = (guint64) found;
		break;
	}
	}
	g_array_append_val(p->query->values, value);
	return true;
}

static bool parse_or(Parser *p, guint32 *out);

static bool
parse_term(Parser *p, guint32 *out)
{
	Token word = p->tok;
	const FieldInfo *f;
	Node node = {.type = NODE_TERM, .cmp = CMP_EQ};

	next_token(p);
	if (p->tok.type != TOK_CMP) {
		/* A bare number is a fence handle, as the first search had it. */
		node.field = FIELD_FENCE;
		node.a = p->query->values->len;
		node.b = 1;
		f = &fields[FIELD_FENCE];
		if (!parse_u64(word.start, word.len, &(guint64){0})) {
			fail(p, word.start, token_end(&word), word.start,
			     "unknown term (FIELD=VALUE with a field of " FIELD_LIST
			     ", or a fence handle)");
			return false;
		}
		if (!parse_value(p, f, word.start, &word))
			return false;
		*out = add_node(p, node);
		return true;
	}
	f = find_field(&word);
	if (f == NULL) {
		fail(p, word.start, token_end(&p->tok), word.start,
		     "unknown field '%.*s' (" FIELD_LIST ")", (int) word.len, word.start);
		return false;
	}
	node.field = (guint8) f->field;
	node.cmp = (guint8) p->tok.cmp;
	if ((f->values == VALUES_NAME || f->values == VALUES_HANDLE) && node.cmp != CMP_EQ &&
	    node.cmp != CMP_NE) {
		fail(p, word.start, token_end(&p->tok), p->tok.start, "%s takes = or != only",
		     f->name);
		return false;
	}
	node.a = p->query->values->len;
	next_token(p);
	for (;;) {
		if (!parse_value(p, f, word.start, &p->tok))
			return false;
		node.b++;
		next_token(p);
		if (p->tok.type != TOK_PIPE)
			break;
		if (node.cmp != CMP_EQ && node.cmp != CMP_NE) {
			fail(p, word.start, token_end(&p->tok), p->tok.start,
			     "'|' (one of) only after = or !=");
			return false;
		}
		next_token(p);
	}
	*out = add_node(p, node);
	return true;
}

static bool
parse_primary(Parser *p, guint32 *out)
{
	switch (p->tok.type) {
	case TOK_OPEN: {
		const char *open = p->tok.start;

		next_token(p);
		if (!parse_or(p, out))
			return false;
		if (p->tok.type != TOK_CLOSE) {
			fail(p, open, p->tok.start, p->tok.start, "missing ')'");
			return false;
		}
		next_token(p);
		return true;
	}
	case TOK_WORD:
		if (token_is_keyword(&p->tok, "and") || token_is_keyword(&p->tok, "or")) {
			fail(p, p->tok.start, token_end(&p->tok), p->tok.start,
			     "a term is missing before it");
			return false;
		}
		return parse_term(p, out);
	case TOK_END:
		fail(p, p->text, p->tok.start, p->tok.start, "a term is missing at the end");
		return false;
	default:
		fail(p, p->tok.start, token_end(&p->tok), p->tok.start, "unexpected '%.*s'",
		     (int) p->tok.len, p->tok.start);
		return false;
	}
}

static bool
parse_not(Parser *p, guint32 *out)
{
	guint32 child;

	if (!token_is_keyword(&p->tok, "not"))
		return parse_primary(p, out);
	next_token(p);
	if (!parse_not(p, &child))
		return false;
	*out = add_node(p, (Node){.type = NODE_NOT, .a = child});
	return true;
}

static bool
starts_operand(const Token *t)
{
	return t->type == TOK_OPEN || (t->type == TOK_WORD && !token_is_keyword(t, "or"));
}

static bool
parse_and(Parser *p, guint32 *out)
{
	guint32 left, right;

	if (!parse_not(p, &left))
		return false;
	while (starts_operand(&p->tok)) {
		if (token_is_keyword(&p->tok, "and"))
			next_token(p);
		if (!parse_not(p, &right))
			return false;
		left = add_node(p, (Node){.type = NODE_AND, .a = left, .b = right});
	}
	*out = left;
	return true;
}

static bool
parse_or(Parser *p, guint32 *out)
{
	guint32 left, right;

	if (!parse_and(p, &left))
		return false;
	while (token_is_keyword(&p->tok, "or")) {
		next_token(p);
		if (!parse_and(p, &right))
			return false;
		left = add_node(p, (Node){.type = NODE_OR, .a = left, .b = right});
	}
	*out = left;
	return true;
}

FsvQuery *
fsv_query_parse(const char *text, guint *error_offset, GError **error)
{
	g_autoptr(FsvQuery) query = g_new0(FsvQuery, 1);
	Parser p = {0};

	g_return_val_if_fail(text != NULL, NULL);
	g_atomic_ref_count_init(&query->ref);
	query->text = g_strdup(text);
	query->nodes = g_array_new(FALSE, FALSE, sizeof(Node));
	query->values = g_array_new(FALSE, FALSE, sizeof(guint64));
	query->root = G_MAXUINT32;
	if (!g_utf8_validate(text, -1, NULL)) {
		g_set_error(error, FSV_QUERY_ERROR, FSV_QUERY_ERROR_SYNTAX,
			    "the search text is not UTF-8 at 0");
		if (error_offset)
			*error_offset = 0;
		return NULL;
	}
	p.text = query->text;
	p.pos = query->text;
	p.query = query;
	next_token(&p);
	if (p.tok.type != TOK_END && parse_or(&p, &query->root) && p.tok.type != TOK_END)
		fail(&p, p.tok.start, token_end(&p.tok), p.tok.start,
		     p.tok.type == TOK_CLOSE ? "')' without '('" : "unexpected '%.*s'",
		     (int) p.tok.len, p.tok.start);
	if (p.error) {
		if (error_offset)
			*error_offset = p.error_offset;
		g_propagate_error(error, p.error);
		return NULL;
	}
	return g_steal_pointer(&query);
}

FsvQuery *
fsv_query_ref(FsvQuery *query)
{
	g_return_val_if_fail(query != NULL, NULL);
	g_atomic_ref_count_inc(&query->ref);
	return query;
}

void
fsv_query_unref(FsvQuery *query)
{
	if (query == NULL || !g_atomic_ref_count_dec(&query->ref))
		return;
	g_free(query->text);
	g_array_unref(query->nodes);
	g_array_unref(query->values);
	g_free(query);
}

const char *
fsv_query_get_text(const FsvQuery *query)
{
	g_return_val_if_fail(query != NULL, "");
	return query->text;
}

bool
fsv_query_is_active(const FsvQuery *query)
{
	return query != NULL && query->root != G_MAXUINT32;
}

/* ---- Matching -------------------------------------------------------------------------- */

guint64
fsv_op_get_duration(const FsvOp *op)
{
	guint64 begin = op->queued_ns != FSV_TIME_NONE ? op->queued_ns : op->begin_ns;
	guint64 end = op->op_end_ns != FSV_TIME_NONE ? op->op_end_ns : op->end_ns;

	if (begin == FSV_TIME_NONE || end == FSV_TIME_NONE || end < begin)
		return 0;
	return end - begin;
}

static guint64
field_of(const FsvOp *op, Field field)
{
	switch (field) {
	case FIELD_DUR:
		return fsv_op_get_duration(op);
	case FIELD_KIND:
		return op->kind;
	case FIELD_STATE:
		return op->state;
	case FIELD_SOURCE:
		return op->source;
	case FIELD_QUEUE:
		return op->hwqueue_handle;
	case FIELD_PID:
		return op->process_id;
	case FIELD_FENCE:
		return op->fence_handle;
	case FIELD_VALUE:
		return op->fence_value;
	case FIELD_OP:
		return op->id;
	case FIELD_ADAPTER:
		return op->adapter_id;
	case FIELD_ENGINE:
		return op->engine_id;
	}
	return 0;
}

static bool
match_term(const FsvQuery *query, const Node *node, const FsvOp *op)
{
	const guint64 *values = &g_array_index(query->values, guint64, node->a);
	guint64 x = field_of(op, (Field) node->field);
	bool any = false;

	switch ((Cmp) node->cmp) {
	case CMP_EQ:
	case CMP_NE:
		for (guint32 i = 0; i < node->b && !any; i++) {
			/* fence= names the process-local or the global handle. */
			any = values[i] == x ||
			      (node->field == FIELD_FENCE && values[i] == op->fence_global_handle);
		}
		return node->cmp == CMP_EQ ? any : !any;
	case CMP_LT:
		return x < values[0];
	case CMP_LE:
		return x <= values[0];
	case CMP_GT:
		return x > values[0];
	case CMP_GE:
		return x >= values[0];
	}
	return false;
}

static bool
match_node(const FsvQuery *query, guint32 index, const FsvOp *op)
{
	const Node *node = &g_array_index(query->nodes, Node, index);

	switch ((NodeType) node->type) {
	case NODE_AND:
		return match_node(query, node->a, op) && match_node(query, node->b, op);
	case NODE_OR:
		return match_node(query, node->a, op) || match_node(query, node->b, op);
	case NODE_NOT:
		return !match_node(query, node->a, op);
	case NODE_TERM:
		return match_term(query, node, op);
	}
	return false;
}

bool
fsv_query_match_op(const FsvQuery *query, const FsvOp *op)
{
	if (!fsv_query_is_active(query))
		return true;
	return match_node(query, query->root, op);
}

/* ---- Finding ops ----------------------------------------------------------------------- */

static int
compare_op_begin(const void *a, const void *b, void *data)
{
	const FsvTrace *trace = data;
	const FsvOp *x = fsv_trace_get_op(trace, *(const guint32 *) a);
	const FsvOp *y = fsv_trace_get_op(trace, *(const guint32 *) b);

	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

GArray *
fsv_trace_find_ops(const FsvTrace *trace, const FsvQuery *query, guint64 begin_ns, guint64 end_ns,
		   guint max)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(guint32));

	g_return_val_if_fail(trace != NULL, out);
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		const FsvOp *o = fsv_trace_get_op(trace, i);

		if (o->end_ns < begin_ns || o->begin_ns > end_ns || !fsv_query_match_op(query, o))
			continue;
		g_array_append_val(out, i);
	}
	g_qsort_with_data(out->data, (gint) out->len, sizeof(guint32), compare_op_begin,
			  (gpointer) trace);
	if (max > 0 && out->len > max)
		g_array_set_size(out, max);
	return out;
}

/* (begin_ns, index) of A before that of B. */
static bool
op_is_before(const FsvTrace *trace, guint32 a, guint32 b)
{
	guint64 ba = fsv_trace_get_op(trace, a)->begin_ns,
		bb = fsv_trace_get_op(trace, b)->begin_ns;

	return ba < bb || (ba == bb && a < b);
}

guint32
fsv_trace_find_next_op(const FsvTrace *trace, const FsvQuery *query, guint32 after)
{
	guint32 next = FSV_INDEX_NONE, first = FSV_INDEX_NONE;

	g_return_val_if_fail(trace != NULL, FSV_INDEX_NONE);
	if (after >= fsv_trace_get_op_count(trace))
		after = FSV_INDEX_NONE;
	for (guint32 i = 0; i < fsv_trace_get_op_count(trace); i++) {
		if (!fsv_query_match_op(query, fsv_trace_get_op(trace, i)))
			continue;
		if (first == FSV_INDEX_NONE || op_is_before(trace, i, first))
			first = i;
		if (after != FSV_INDEX_NONE && op_is_before(trace, after, i) &&
		    (next == FSV_INDEX_NONE || op_is_before(trace, i, next)))
			next = i;
	}
	return next != FSV_INDEX_NONE ? next : first;
}
