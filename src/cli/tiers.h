/* Rate tiers by key: the tiers file read into limits, and the first match. */
#ifndef TIERS_H
#define TIERS_H

#include <stddef.h>

#include "spec.h"

/* Most tiers in a file; comments and blank lines do not count. */
#define TIERS_MAX 10000
/* Longest line of a tiers file in bytes, without its line ending. */
#define TIERS_LINE_MAX 4096

/* One line PATTERN RATE [BURST] of a tiers file. */
struct tier {
	size_t index;	    /* from 0, in the order of the file */
	size_t line;	    /* its line number in the file, from 1 */
	char *pattern;	    /* as written, backslashes kept */
	char *literal;	    /* the only key it matches, or NULL: a glob */
	size_t literal_len; /* its length */
	struct limit limit; /* as -r RATE -b BURST would give */
};

/* The tiers of a file, and an index to find the first match quickly. */
struct tiers {
	struct tier *tier; /* ntiers of them, in the order of the file */
	size_t ntiers;
	struct tier **bylit; /* the literal ones, sorted by their key */
	size_t nlit;
	struct tier **globs; /* the others, in the order of the file */
	size_t nglobs;
	size_t catchall; /* the line of a pattern of only '*', or 0 */
};

/*
 * Parse the tiers file called name, text[0..len), for units of mode under
 * algorithm alg (the caller reads the file).  A line is PATTERN RATE
 * [BURST], fields separated by blanks (spaces and tabs), so no field is
 * empty; RATE and BURST mean what -r and -b do, through spec_limit_parse, and
 * a RATE of inf makes a tier without a limit.  A field that starts with
 * '#' starts a comment to the end of the line; a '#' inside a field is
 * kept.  A backslash keeps the byte after it in its field, so '\ ' puts
 * a blank in a pattern and '\#' starts one with '#'; the glob reads the
 * escape too.  Lines end at "\n" or "\r\n"; blank and comment lines
 * are skipped.
 *
 * Refused: a NUL byte, a line over TIERS_LINE_MAX bytes, more than
 * TIERS_MAX tiers, a line of one field or of more than three, a bad RATE
 * or BURST, and a line that can never apply: one whose pattern repeats an
 * earlier one (as written, or as the one key of a pattern without
 * wildcards), or that follows a pattern of only '*'.  Not every dead line
 * is found: 'bob' after 'b*' is kept.  A file of only comments, or
 * empty, has no tiers.
 *
 * All or nothing: returns 0 with the tiers in t (whatever t held is not
 * freed), or leaves t untouched and returns -1 with one line in err,
 * "NAME:LINE: reason" quoting the value, control bytes escaped; or -2
 * with "NAME: out of memory".
 */
int tiers_parse(struct tiers *t, const char *name, const char *text, size_t len,
    enum unit_mode mode, enum algorithm alg, char *err, size_t errsz);

/*
 * The first tier whose pattern matches key[0..len), or NULL when none
 * does.  Patterns are globs matched against every byte of the key, as
 * fnmatch(3) matches a string without flags in the C locale (see
 * wildcard_match): '*' and '?' match '/' and a leading '.' too, and each
 * byte is one character.  A key of any length, NUL bytes and all, is
 * matched whole, so a pattern of only '*' takes every key, the empty key
 * too.  Costs a binary search among the patterns without wildcards, then
 * a match of each glob on a line before the one that search finds.
 */
const struct tier *tiers_match(
    const struct tiers *t, const char *key, size_t len);

/* Free what tiers_parse gave t, and empty it; t may be all zero. */
void tiers_free(struct tiers *t);

#endif
