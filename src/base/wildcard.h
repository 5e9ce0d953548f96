/* Globs as fnmatch(3) reads them, over keys of any bytes; pure, no I/O. */
#ifndef WILDCARD_H
#define WILDCARD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does the glob pattern (a string) match key[0..len)?  Exactly as
 * fnmatch(3) of the GNU C library answers with flags 0 in the C locale,
 * '*' and '?' taking '/' and a leading '.', '[...]' with '!' or '^',
 * ranges by byte value, [:class:], [=c=] and [.c.], backslash escapes,
 * ill-formed brackets and all: but over bytes, so a key may be of any
 * length and hold NUL bytes, which '*', '?' and a bracket that takes
 * them match.  Costs O(len) for a pattern of one '*', O(len * pattern)
 * at worst.
 */
bool wildcard_match(const char *pattern, const char *key, size_t len);

#endif
