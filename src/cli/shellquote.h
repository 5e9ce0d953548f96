/* Values written into a sh script so that they stay data: pure, no I/O. */
#ifndef SHELLQUOTE_H
#define SHELLQUOTE_H

#include <stdbool.h>
#include <stddef.h>

/* How a value is written where it goes into a script. */
enum shellquote {
	SHQ_WORD,   /* bare: as a word of its own, '...' ('\'' for ') */
	SHQ_SINGLE, /* inside the script's '...': ' as '\'' */
	SHQ_DOUBLE  /* inside the script's "...": \ before $ ` " \ */
};

/* Deepest nesting of quotes, $(...), (...), ${...} followed. */
#define SHLEX_DEPTH 32

/*
 * Where a POSIX shell is in a script read so far: the quotes, command
 * substitutions and parentheses open, and what makes the next byte
 * special.  Only what tells how a value inserted next must be quoted.
 */
struct shlex {
	char open[SHLEX_DEPTH]; /* 'T' the script, 'C' $(, 'P' (, 'D' ",
				 * 'B' ${, 'A' $(( */
	int depth;
	bool single, ansi; /* in '...', in $'...' */
	bool escaped;	   /* a \ waits for the byte it escapes */
	bool dollar;	   /* the last byte was a $ that expands */
	bool comment;	   /* in a # comment */
	bool word_start;   /* the next byte starts a word */
	bool just_opened;  /* the last bytes were $( */
	bool close_arith;  /* the second ) of $((...)) comes next */
	char prev;	   /* the last byte read plain, or 0 */
	char word[8];	   /* the word being read, to see case */
	size_t word_len;
	const char *lost; /* from here on no value can be placed: why */
};

/* A script not read yet. */
void shlex_init(struct shlex *l);

/* Read the next n bytes s[0..n) of the script. */
void shlex_read(struct shlex *l, const char *s, size_t n);

/*
 * How a value that comes next must be written, or -1 with *why set (a
 * phrase) when none can be written there safely: in a comment, inside
 * backquotes, ${...}, $((...)) or $'...', right after a \ or a $, after
 * a here-document, or past more nesting than followed.  A value
 * inserted as said counts as a part of a word.
 */
int shlex_place(struct shlex *l, const char **why);

/* Bytes of value v[0..n) written as q says. */
size_t shellquote_bytes(enum shellquote q, const char *v, size_t n);

/* Write v[0..n) as q says at out; returns the end of what was written. */
char *shellquote_write(enum shellquote q, char *out, const char *v, size_t n);

#endif
