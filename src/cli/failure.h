/* What counts as a failure worth another try; pure. */
#ifndef FAILURE_H
#define FAILURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses (1-255) for --retry-on, and whether a --timeout is one. */
struct exitset {
	uint64_t bits[4];
	bool timeout;
};

/*
 * Parse LIST as in the man page: exit statuses N or ranges N-M (1-255),
 * and the word timeout, separated by commas.  0, or -1 with a reason in
 * err.
 */
int exitset_parse(const char *s, struct exitset *out, char *err, size_t errsz);

/* Is exit status st (0-255) in set? */
bool exitset_has(const struct exitset *set, int st);

#endif
