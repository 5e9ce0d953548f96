/* --exec's command: {}, {N} and {#} filled in for each record; pure. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "shellscript.h"
#include "template.h"

/* Bytes of the largest uint64_t in decimal, and its NUL. */
#define SEQ_BYTES 21

/* The placeholder at s: its length, its kind and field; 0 if none. */
static size_t
placeholder(const char *s, enum tpl_kind *kind, unsigned *field)
{
	size_t n = 1;

	*field = 0;
	if (s[0] != '{')
		return 0;
	*kind = s[1] == '}' ? TPL_RECORD : TPL_SEQ;
	if (s[1] == '}')
		return 2;
	if (s[1] == '#' && s[2] == '}')
		return 3;
	if (s[1] < '1' || s[1] > '9')
		return 0;
	for (; s[n] >= '0' && s[n] <= '9' && n <= TPL_FIELD_DIGITS; n++)
		*field = *field * 10 + (unsigned)(s[n] - '0');
	*kind = TPL_FIELD;
	return s[n] == '}' ? n + 1 : 0;
}

size_t
template_placeholder(const char *s)
{
	enum tpl_kind kind;
	unsigned field;

	return placeholder(s, &kind, &field);
}

/* Add text[0..len) to the argument being read, read by l if not NULL. */
static void
add_text(struct template *t, const char *text, size_t len, struct shlex *l)
{
	if (len == 0)
		return;
	t->part[t->nparts++] = (struct tpl_part){
		.kind = TPL_TEXT, .quote = -1, .text = text, .len = len
	};
	if (l != NULL)
		shlex_read(l, text, len);
}

/*
 * Add the parts of argument a, a script that l reads if it is not NULL,
 * counting placeholders in *found.  0, or -1 with *why where a value
 * cannot go and *at the placeholder's text.
 */
static int
parse_arg(struct template *t, const char *a, struct shlex *l, int *found,
    const char **why, const char **at)
{
	struct tpl_arg *arg = &t->arg[t->nargs++];
	struct tpl_part part = { .quote = -1 };
	const char *text = a;
	size_t n;

	arg->first = t->nparts;
	for (const char *p = a; *p != '\0';) {
		/* Right after a $ it is the shell's: ${1}, ${#}. */
		if ((p > a && p[-1] == '$') ||
		    (n = placeholder(p, &part.kind, &part.field)) == 0) {
			p++;
			continue;
		}
		add_text(t, text, (size_t)(p - text), l);
		*at = p;
		if (l != NULL && (part.quote = shlex_place(l, why)) < 0)
			return -1;
		t->part[t->nparts++] = part;
		(*found)++;
		p += n;
		text = p;
	}
	add_text(t, text, strlen(text), l);
	arg->nparts = t->nparts - arg->first;
	return 0;
}

/* Parts cmd[0..ncmd) may need at most: text between each two braces. */
static size_t
most_parts(char *const *cmd, int ncmd)
{
	size_t n = 1; /* the record, when it comes last */

	for (int i = 0; i < ncmd; i++) {
		n++;
		for (const char *p = cmd[i]; (p = strchr(p, '{')) != NULL; p++)
			n += 2;
	}
	return n;
}

/* Is a placeholder in cmd[i] in the options or script of s->other? */
static bool
other_refuses(const struct shellscript *s, int i)
{
	return s->other != NULL && i >= s->from && i <= s->at;
}

/*
 * Say in why[0..whylen) that the placeholder at at cannot go where it
 * stands: where in the script of a POSIX shell, or with where NULL, in
 * the options or script of the shell other.
 */
static void
refuse(char *why, size_t whylen, const char *at, const char *where,
    const char *other)
{
	int n = 1;

	while (at[n - 1] != '}')
		n++;
	if (where != NULL)
		snprintf(why, whylen,
		    "%.*s stands %s in the shell's script: its value could "
		    "run as code there; put it where a word may go (it is "
		    "quoted there), or pass it as an argument: "
		    "sh -c '... \"$1\"' sh %.*s",
		    n, at, where, n, at);
	else
		snprintf(why, whylen,
		    "%.*s stands in the script of %s -c, whose quoting is not "
		    "sh's: its value could run as code there; pass it as an "
		    "argument ($argv)",
		    n, at, other);
}

/* Is word w in text[0..len) as a word of its own (outside quotes or not)? */
static bool
has_word(const char *text, size_t len, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = 0; i + n <= len; i++)
		if (strncmp(text + i, w, n) == 0 &&
		    (i == 0 || strchr(" \t\n;&|(", text[i - 1]) != NULL) &&
		    (i + n == len || strchr(" \t\n;&|)", text[i + n]) != NULL))
			return true;
	return false;
}

/* Does text[0..len) hold a placeholder, as parse_arg finds them? */
static bool
has_placeholder(const char *text, size_t len)
{
	size_t n;

	for (size_t i = 0; i < len; i++)
		if ((i == 0 || text[i - 1] != '$') &&
		    (n = template_placeholder(text + i)) > 0 && i + n <= len)
			return true;
	return false;
}

/*
 * In the simple command cmd[0..len), what takes a word as a variable's
 * name, whose subscript bash, zsh and ksh evaluate: read, unset, mapfile,
 * readarray, getopts, printf -v, print -v, test -v or -R, [ -v or -R,
 * wait -p; NULL when none.
 */
static const char *
names_a_variable(const char *cmd, size_t len)
{
	static const char *const words[] = { "read", "unset", "mapfile",
		"readarray", "getopts" };
	bool testing = has_word(cmd, len, "[") || has_word(cmd, len, "test");

	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (has_word(cmd, len, words[i]))
			return words[i];
	if (has_word(cmd, len, "-v") &&
	    (testing || has_word(cmd, len, "printf") ||
		has_word(cmd, len, "print")))
		return "-v";
	if (testing && has_word(cmd, len, "-R"))
		return "-R";
	if (has_word(cmd, len, "wait") && has_word(cmd, len, "-p"))
		return "-p";
	return NULL;
}

/*
 * Of the simple commands of script (split at ; & | ( ) and newlines
 * outside quotes), the first that has a placeholder and names a variable
 * with a word (names_a_variable): what does; NULL when none.
 */
static const char *
names_a_placeholder(const char *script)
{
	const char *from = script, *p, *what;
	char quote = 0;

	for (p = script;; p++) {
		if (*p != '\0' && quote != 0) {
			quote = *p == quote ? 0 : quote;
			continue;
		}
		if (*p == '\'' || *p == '"') {
			quote = *p;
			continue;
		}
		if (*p != '\0' && strchr(";&|()\n", *p) == NULL)
			continue;
		if (has_placeholder(from, (size_t)(p - from)) &&
		    (what = names_a_variable(from, (size_t)(p - from))) != NULL)
			return what;
		if (*p == '\0')
			return NULL;
		from = p + 1;
	}
}

/*
 * What in script makes bash, zsh or ksh evaluate a value as arithmetic or
 * as a name, where quoting does not keep it data ('a[$(cmd)]' runs cmd):
 * "((", "$[", "[[", "[{" (a subscript), "${!" (a name held), or the word
 * let, declare, typeset, local or eval; or a placeholder in a command
 * that takes a word as a variable's name (names_a_placeholder); NULL when
 * none.
 */
static const char *
evaluates(const char *script)
{
	static const char *const marks[] = { "((", "$[", "[[", "[{", "${!" };
	static const char *const words[] = { "let", "declare", "typeset",
		"local", "eval" };

	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		if (strstr(script, marks[i]) != NULL)
			return marks[i];
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (has_word(script, strlen(script), words[i]))
			return words[i];
	return names_a_placeholder(script);
}

/* The arguments of cmd[0..ncmd) as parts, s saying which one is a script. */
static int
parse_args(struct template *t, char *const *cmd, int ncmd,
    const struct shellscript *s, char *why, size_t whylen)
{
	struct shlex lex;
	const char *where = NULL, *at = NULL;
	int found = 0, before;

	for (int i = 0; i < ncmd; i++) {
		before = found;
		shlex_init(&lex);
		if (parse_arg(t, cmd[i],
			i == s->at && s->other == NULL ? &lex : NULL, &found,
			&where, &at) < 0) {
			refuse(why, whylen, at, where, "sh");
			return -1;
		}
		if (found > before && other_refuses(s, i)) {
			refuse(why, whylen, at, NULL, s->other);
			return -1;
		}
		if (found > before && i == s->at && s->other == NULL &&
		    (where = evaluates(cmd[i])) != NULL) {
			snprintf(why, whylen,
			    "a placeholder in a shell's script with '%s': bash, "
			    "zsh and ksh evaluate a value there even quoted, "
			    "and it could run as code; pass it as an argument "
			    "(sh -c '... \"$1\"' sh {}) and check it first",
			    where);
			return -1;
		}
	}
	if (found == 0) {
		t->arg[t->nargs++] = (struct tpl_arg){ .first = t->nparts,
			.nparts = 1 };
		t->part[t->nparts++] = (struct tpl_part){ .kind = TPL_RECORD,
			.quote = -1 };
	}
	return 0;
}

int
template_parse(struct template *t, char *const *cmd, int ncmd, int sep,
    char *why, size_t whylen)
{
	struct shellscript s;

	*t = (struct template){ .sep = sep };
	t->part = calloc(most_parts(cmd, ncmd), sizeof *t->part);
	t->arg = calloc((size_t)ncmd + 1, sizeof *t->arg);
	if (t->part == NULL || t->arg == NULL) {
		template_free(t);
		errno = ENOMEM;
		return -1;
	}
	shellscript_find(cmd, ncmd, &s);
	if (parse_args(t, cmd, ncmd, &s, why, whylen) < 0) {
		template_free(t);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The value part p stands for in record rec[0..len) (seq: in buf). */
static const char *
value_of(const struct template *t, const struct tpl_part *p, const char *rec,
    size_t len, const char *seq, size_t *n)
{
	const char *v;

	switch (p->kind) {
	case TPL_RECORD:
		*n = len;
		return rec;
	case TPL_FIELD:
		*n = field_of(rec, len, p->field, t->sep, &v);
		return v;
	case TPL_SEQ:
		*n = strlen(seq);
		return seq;
	case TPL_TEXT:
	default:
		*n = p->len;
		return p->text;
	}
}

size_t
template_bytes(const struct template *t, const char *rec, size_t len)
{
	size_t bytes = (size_t)t->nargs, n;
	const struct tpl_part *p;
	const char *v;

	for (size_t i = 0; i < t->nparts; i++) {
		p = &t->part[i];
		/* {#} as the widest number is. */
		v = value_of(t, p, rec, len, "18446744073709551615", &n);
		bytes += p->quote < 0 ?
		    n :
		    shellquote_bytes((enum shellquote)p->quote, v, n);
	}
	return bytes;
}

void
template_fill(const struct template *t, const char *rec, size_t len,
    uint64_t seq, char *text, char **argv)
{
	char num[SEQ_BYTES];
	const struct tpl_part *p;
	const char *v;
	size_t n;

	snprintf(num, sizeof num, "%" PRIu64, seq);
	for (int a = 0; a < t->nargs; a++) {
		argv[a] = text;
		for (size_t i = 0; i < t->arg[a].nparts; i++) {
			p = &t->part[t->arg[a].first + i];
			v = value_of(t, p, rec, len, num, &n);
			if (p->quote < 0) {
				memcpy(text, v, n);
				text += n;
			} else
				text = shellquote_write(
				    (enum shellquote)p->quote, text, v, n);
		}
		*text++ = '\0';
	}
	argv[t->nargs] = NULL;
}

void
template_free(struct template *t)
{
	free(t->part);
	free(t->arg);
	t->part = NULL;
	t->arg = NULL;
}
