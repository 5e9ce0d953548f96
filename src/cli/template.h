/* --exec's command: {}, {N} and {#} filled in for each record; pure. */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "shellquote.h"

/* What a piece of an argument is. */
enum tpl_kind {
	TPL_TEXT,   /* text[0..len) as written */
	TPL_RECORD, /* {}: the record */
	TPL_FIELD,  /* {N}: its field N */
	TPL_SEQ	    /* {#}: its number in the input */
};

/* Most digits of N in {N}: a longer number is text. */
#define TPL_FIELD_DIGITS 7

struct tpl_part {
	enum tpl_kind kind;
	int quote; /* -1: as it is; else an enum shellquote */
	unsigned field;
	const char *text; /* TPL_TEXT: into the command line's word */
	size_t len;
};

/* An argument: parts part[first..first + nparts). */
struct tpl_arg {
	size_t first, nparts;
};

struct template
{
	struct tpl_part *part;
	size_t nparts;
	struct tpl_arg *arg;
	int nargs; /* the command's, and the record's when none names it */
	int sep;   /* -F's byte, or -1: fields split at runs of blanks */
};

/*
 * Read cmd[0..ncmd) (kept, not copied), fields split by sep as -k splits
 * them (-1: runs of blanks).  {} is the record, {N} (N from 1, at most
 * TPL_FIELD_DIGITS digits, no leading 0) its field N, empty when it has
 * fewer, {#} its number; any other brace is text.  With none of them in
 * any argument, the record is one more argument, last.  In the script a
 * sh (bash, dash ...) runs with -c (shellscript_find), each value is
 * quoted for where it stands (shellquote.h); elsewhere it is as it is.
 * 0; -1 with errno ENOMEM; or -1 with errno EINVAL and a message naming
 * the argument in why[0..whylen) when a value cannot go where one stands.
 */
int template_parse(struct template *t, char *const *cmd, int ncmd, int sep,
    char *why, size_t whylen);

/* Bytes the arguments of record rec[0..len) need, their NULs too. */
size_t template_bytes(const struct template *t, const char *rec, size_t len);

/*
 * The arguments for record rec[0..len), number seq, written at text
 * (template_bytes of it) and pointed at by argv[0..nargs), argv[nargs]
 * NULL.
 */
void template_fill(const struct template *t, const char *rec, size_t len,
    uint64_t seq, char *text, char **argv);

void template_free(struct template *t);

/* The length of the placeholder ({}, {#} or {N}) s starts with; 0: none. */
size_t template_placeholder(const char *s);

#endif
