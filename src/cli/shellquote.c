/* Values written into a sh script so that they stay data: pure, no I/O. */
#include <string.h>

#include "shellquote.h"

/* Bytes that end a word where they are not quoted. */
#define SEPARATORS " \t\n;&|()<>"

void
shlex_init(struct shlex *l)
{
	*l = (struct shlex){ .depth = 1, .word_start = true };
	l->open[0] = 'T';
}

static char
top(const struct shlex *l)
{
	return l->open[l->depth - 1];
}

static void
push(struct shlex *l, char c)
{
	if (l->depth == SHLEX_DEPTH)
		l->lost = "nested deeper than it follows";
	else
		l->open[l->depth++] = c;
}

static void
pop(struct shlex *l)
{
	if (l->depth > 1)
		l->depth--;
}

/*
 * A ) where nothing is quoted: it closes a $( or a (, or the first of a
 * $(('s two.  A case pattern's ) closes nothing: at the top of the
 * script that is harmless (nothing was open), within a $(...) or (...)
 * the word case has already made the rest unplaceable (note_word).
 */
static void
close_paren(struct shlex *l)
{
	if (l->close_arith) {
		l->close_arith = false;
		return;
	}
	if (top(l) == 'C' || top(l) == 'P')
		pop(l);
	else if (top(l) == 'A') {
		pop(l);
		l->close_arith = true;
	}
}

/* Byte c where nothing is quoted. */
static void
unquoted(struct shlex *l, char c, bool opened)
{
	switch (c) {
	case '\\':
		l->escaped = true;
		break;
	case '\'':
		l->single = true;
		break;
	case '"':
		push(l, 'D');
		break;
	case '`':
		l->lost = "after a backquote";
		break;
	case '$':
		l->dollar = true;
		break;
	case '#':
		l->comment = l->word_start && top(l) != 'B' && top(l) != 'A';
		break;
	case '(':
		if (opened)
			l->open[l->depth - 1] = 'A';
		else
			push(l, 'P');
		break;
	case ')':
		close_paren(l);
		break;
	case '}':
		if (top(l) == 'B')
			pop(l);
		break;
	case '<':
		/* A here-document's text is read as the shell reads it. */
		if (l->prev == '<' && top(l) != 'A')
			l->lost = "after a here-document (<<)";
		break;
	default:
		break;
	}
}

/* Byte c inside double quotes. */
static void
in_double(struct shlex *l, char c)
{
	if (c == '"')
		pop(l);
	else if (c == '\\')
		l->escaped = true;
	else if (c == '$')
		l->dollar = true;
	else if (c == '`')
		l->lost = "after a backquote";
}

/* Byte c after a $ that expands: true when it opened something. */
static bool
after_dollar(struct shlex *l, char c)
{
	l->dollar = false;
	if (c == '(') {
		push(l, 'C');
		l->just_opened = true;
	} else if (c == '{')
		push(l, 'B');
	else if (c == '\'' && top(l) != 'D')
		l->ansi = true;
	else
		return false;
	return true;
}

/*
 * Byte c, read plain (not quoted, not escaped) or not, in the word being
 * read: the word case inside a $(...) or (...) is one whose ) patterns
 * could close it too soon, so nothing more is placed after it.
 */
static void
note_word(struct shlex *l, char c, bool plain)
{
	/* $( starts a command, whose first word may be case. */
	if ((plain && strchr(SEPARATORS, c) != NULL) || l->just_opened) {
		if (l->word_len == 4 && memcmp(l->word, "case", 4) == 0 &&
		    l->depth > 1)
			l->lost = "after a case inside $(...) or (...)";
		l->word_len = 0;
		l->word_start = true;
		return;
	}
	l->word_start = false;
	if (plain && c >= 'a' && c <= 'z' && l->word_len < sizeof l->word)
		l->word[l->word_len++] = c;
	else
		l->word_len = sizeof l->word; /* no keyword */
}

/* Read byte c of the script. */
static void
read_byte(struct shlex *l, char c)
{
	bool opened = l->just_opened, plain = false;

	l->just_opened = false;
	if (l->comment) {
		l->comment = c != '\n';
		l->word_start = true;
		return;
	}
	if (l->escaped)
		l->escaped = false;
	else if (l->single)
		l->single = c != '\'';
	else if (l->ansi) {
		l->ansi = c != '\'';
		l->escaped = c == '\\';
	} else if (l->dollar && after_dollar(l, c))
		;
	else if (top(l) == 'D')
		in_double(l, c);
	else {
		unquoted(l, c, opened);
		plain = true;
	}
	note_word(l, c, plain);
	l->prev = plain ? c : '\0';
}

void
shlex_read(struct shlex *l, const char *s, size_t n)
{
	for (size_t i = 0; i < n && l->lost == NULL; i++)
		read_byte(l, s[i]);
}

/* Why no value goes inside what open[i] is, or NULL when one can. */
static const char *
refused_in(char open, bool innermost)
{
	if (open == 'B')
		return "inside ${...}";
	if (open == 'A')
		return "inside $((...))";
	if (open == 'D' && !innermost)
		return "inside $(...) or (...) within double quotes";
	return NULL;
}

int
shlex_place(struct shlex *l, const char **why)
{
	*why = l->lost;
	if (l->lost == NULL && l->comment)
		*why = "in a comment";
	else if (l->lost == NULL && l->escaped)
		*why = l->ansi ? "inside $'...'" : "right after a backslash";
	else if (l->lost == NULL && l->dollar)
		*why = "right after a $";
	else if (l->lost == NULL && l->ansi)
		*why = "inside $'...'";
	for (int i = 0; *why == NULL && i < l->depth; i++)
		*why = refused_in(l->open[i], i == l->depth - 1);
	if (*why != NULL)
		return -1;
	l->word_start = false;
	l->word_len = sizeof l->word;
	l->prev = '\0';
	if (l->single)
		return SHQ_SINGLE;
	return top(l) == 'D' ? SHQ_DOUBLE : SHQ_WORD;
}

/* Does q write byte c of a value with a \ before it (inside "...")? */
static bool
escapes(enum shellquote q, char c)
{
	return q == SHQ_DOUBLE &&
	    (c == '$' || c == '`' || c == '"' || c == '\\');
}

size_t
shellquote_bytes(enum shellquote q, const char *v, size_t n)
{
	size_t bytes = n + (q == SHQ_WORD ? 2 : 0);

	for (size_t i = 0; i < n; i++)
		if (v[i] == '\'' && q != SHQ_DOUBLE)
			bytes += 3;
		else if (escapes(q, v[i]))
			bytes++;
	return bytes;
}

char *
shellquote_write(enum shellquote q, char *out, const char *v, size_t n)
{
	if (q == SHQ_WORD)
		*out++ = '\'';
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '\'' && q != SHQ_DOUBLE) {
			memcpy(out, "'\\''", 4);
			out += 4;
			continue;
		}
		if (escapes(q, v[i]))
			*out++ = '\\';
		*out++ = v[i];
	}
	if (q == SHQ_WORD)
		*out++ = '\'';
	return out;
}
