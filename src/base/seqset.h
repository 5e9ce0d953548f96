/* A set of job numbers, kept as runs of consecutive ones; pure. */
#ifndef SEQSET_H
#define SEQSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest number a set holds: 2^63 - 1. */
#define SEQSET_MAX ((uint64_t)INT64_MAX)

/* The numbers lo..hi, both in. */
struct seqrun {
	uint64_t lo, hi;
};

/*
 * The set is a sorted array of disjoint runs that do not touch, so that
 * numbers added in order cost nothing past the first of each run.
 * Numbers added out of order, or removed, wait in a log of changes that
 * is sorted and merged into the runs, in place, once it is as long as
 * they are (and at least 1024 long), so that each change costs O(log n)
 * over a run.  Measured (tests/unit/seqset_test.c, SEQSET_MEASURE=1),
 * bytes held at the end and at most on the way:
 *   10^6 numbers in order                    64 and 64 (one run)
 *   10^6 random distinct numbers of 1..10^7  14.4 M and 26.8 M
 *   1..10^6 shuffled                         64 and 11.8 M
 * that is 16 bytes a number at worst at rest, 27 on the way.
 */
struct seqset {
	struct seqrun *runs;
	size_t nruns, runs_cap;
	uint64_t *log; /* changes not yet merged, oldest first */
	size_t nlog, log_cap;
	uint64_t log_max; /* the largest number in the log */
	size_t peak_bytes;
};

/* An empty set; it allocates nothing until a number is added. */
void seqset_init(struct seqset *s);

/* Free what set s holds; it is then empty again. */
void seqset_free(struct seqset *s);

/*
 * Add seq (at most SEQSET_MAX) to s, or remove it; a later change of a
 * number overrides an earlier one.  0, or -1 when seq is above
 * SEQSET_MAX or memory runs out (the set is then as it was).
 */
int seqset_add(struct seqset *s, uint64_t seq);
int seqset_remove(struct seqset *s, uint64_t seq);

/*
 * Merge the changes not yet merged into the runs, after which
 * seqset_has is O(log n).  0, or -1 when memory runs out (the set is
 * then as it was, still correct, only slower to ask).
 */
int seqset_settle(struct seqset *s);

/*
 * Whether s holds seq: O(log n) in its runs once settled, plus a look
 * through the changes that wait otherwise.
 */
bool seqset_has(const struct seqset *s, uint64_t seq);

/* How many numbers s holds; s must be settled. */
uint64_t seqset_count(const struct seqset *s);

/* Bytes s holds allocated now, and the most it has held at once. */
size_t seqset_bytes(const struct seqset *s);
size_t seqset_peak_bytes(const struct seqset *s);

#endif
