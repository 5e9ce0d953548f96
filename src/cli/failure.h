/* What counts as a failure worth another try, and when a run halts; pure. */
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

/* When --halt stops the run. */
enum halt_when { HALT_NEVER, HALT_SOON, HALT_NOW };

struct halt {
	enum halt_when when; /* soon: start no more; now: end those running */
	uint64_t fails;	     /* after this many failed records, or ... */
	unsigned percent;    /* ... this percent of those ended (1-100) */
};

/*
 * Parse --halt's WHEN: never, now,fail=N, soon,fail=N, now,fail=P%,
 * soon,fail=P%, or GNU parallel's 0, 1 and 2 (never, soon,fail=1,
 * now,fail=1).  0, or -1 with a reason in err.
 */
int halt_parse(const char *s, struct halt *out, char *err, size_t errsz);

/*
 * Does h halt a run where failed of ended records failed?  A percentage
 * judges from HALT_PERCENT_FROM ended records on (as GNU parallel's from
 * 3), or the first failure would be 100 %.
 */
#define HALT_PERCENT_FROM 3
bool halt_due(const struct halt *h, uint64_t failed, uint64_t ended);

#endif
