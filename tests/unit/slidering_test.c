/* Unit tests of slidering.c: a --shared sliding window's ring, fake clock. */
#include <inttypes.h>
#include <stdlib.h>

#include "slidering.h"
#include "unit.h"

#define MAX_NS (INT64_MAX / 4)

/* A ring of n units a width_ns, guard_ns more between a unit and the
 * one n after it, over t. */
static struct slidering
ring(int64_t *t, uint64_t n, int64_t width_ns, int64_t guard_ns)
{
	return (struct slidering){ .t = t,
		.n = n,
		.width_ns = width_ns,
		.span_ns = width_ns + guard_ns,
		.max_ns = MAX_NS };
}

/* Book one unit at now_ns: when it goes. */
static int64_t
book1(const struct slidering *r, uint64_t *head, int64_t now_ns)
{
	return slidering_book(r, head, now_ns, 1);
}

/* Do the sorted release times rel[0..k) keep n in any width_ns? */
static int
bound_kept(const int64_t *rel, size_t k, uint64_t n, int64_t width_ns)
{
	for (size_t i = 0; i + n < k; i++)
		if (rel[i + n] - rel[i] < width_ns)
			return 0;
	return 1;
}

static int
cmp_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Booking and taking on a ring of 3 a second. */
static void
test_book_take(void)
{
	int64_t t[3];
	struct slidering r = ring(t, 3, NS, 0), g = ring(t, 3, NS, 20 * MS);
	uint64_t head = 0, got;

	check(book1(&r, &head, 0) == 0 && book1(&r, &head, 0) == 0 &&
		book1(&r, &head, 5 * MS) == 5 * MS,
	    "three at once");
	check(book1(&r, &head, 0) == NS, "the fourth when the first leaves");
	check(book1(&r, &head, 0) == NS, "the fifth when the second leaves");
	check(book1(&r, &head, 0) == NS + 5 * MS, "the sixth after the third");
	check(head == 6, "head counts the units booked: %" PRIu64, head);
	/* Taking: none while the latest is ahead of now, then those whose
	 * n-th before has left the window. */
	check(slidering_take(&r, &head, NS, 3, &got) == 0 && got == 0,
	    "none while one is booked ahead");
	check(slidering_take(&r, &head, 2 * NS, 3, &got) == 0 && got == 2,
	    "two at 2 s: %" PRIu64, got);
	check(t[0] == 2 * NS && t[1] == 2 * NS && head == 8,
	    "stamped at the present");
	/* Two units in one booking go together, when the later may. */
	head = 0;
	(void)book1(&g, &head, 0);
	(void)book1(&g, &head, 100 * MS);
	(void)book1(&g, &head, 200 * MS);
	check(slidering_book(&g, &head, 300 * MS, 2) == NS + 120 * MS &&
		t[0] == NS + 120 * MS && t[1] == NS + 120 * MS,
	    "two at once: a window and the guard after the second: %" PRId64,
	    t[0]);
	/* The guard: a take waits for it too. */
	head = 3;
	t[0] = t[1] = t[2] = 0;
	check(slidering_take(&g, &head, NS + 19 * MS, 1, &got) == 0 && got == 0,
	    "not in the guard");
	check(slidering_take(&g, &head, NS + 20 * MS, 5, &got) == 0 && got == 3,
	    "all three after it: %" PRIu64, got);
}

/* went: late units stamped when they went, while it still counts. */
static void
test_went_stamps(void)
{
	int64_t t[2], b[100];
	struct slidering r = ring(t, 2, NS, 0), big = ring(b, 100, NS, 0);
	uint64_t head = 0;

	(void)book1(&r, &head, 0);
	(void)book1(&r, &head, 0);
	check(slidering_went(&r, head, 0, 1, 300 * MS) == 0 &&
		t[0] == 300 * MS && t[1] == 300 * MS,
	    "raised, the one after too, to keep them in order");
	check(book1(&r, &head, 0) == 1300 * MS, "the next from when it went");
	check(
	    slidering_went(&r, head, 0, 1, 900 * MS) == 0 && t[0] == 1300 * MS,
	    "read already by the unit n after it: untouched");
	check(slidering_went(&r, head, 5, 6, 900 * MS) == 0 && t[1] == 300 * MS,
	    "booked before a reset: untouched");
	/* Past SLIDERING_RAISE_MAX entries after it, a went keeps them in
	 * order: it raises no higher than the first it may not touch. */
	head = 0;
	(void)book1(&big, &head, 0);
	for (int i = 0; i < 90; i++)
		(void)book1(&big, &head, i < SLIDERING_RAISE_MAX ? 0 : 7 * MS);
	check(slidering_went(&big, head, 0, 1, 50 * MS) == 0 &&
		b[0] == 7 * MS && b[SLIDERING_RAISE_MAX] == 7 * MS &&
		b[SLIDERING_RAISE_MAX + 1] == 7 * MS,
	    "raised up to the first kept: %" PRId64, b[0]);
}

/* A damaged ring is said so, and --show's figures. */
static void
test_wild_and_look(void)
{
	int64_t t[3] = { 0, 0, 0 };
	struct slidering r = ring(t, 3, NS, 20 * MS);
	uint64_t head = 3, got, used, ahead, left;

	t[2] = -1;
	check(book1(&r, &head, 0) == -1, "a negative stamp is damage");
	check(slidering_check(&r, 3, NS) == -1, "and found by the check");
	t[2] = MAX_NS + 1;
	check(slidering_take(&r, &head, NS, 1, &got) == -1 &&
		slidering_went(&r, head, 1, 2, NS) == -1,
	    "beyond the range too");
	t[0] = 0;
	t[1] = 500 * MS;
	t[2] = 2 * NS;
	check(slidering_check(&r, 3, NS) == -1 &&
		slidering_check(&r, 3, 2 * NS) == 0,
	    "a stamp past the most allowed");
	check(slidering_reach(&r, NS, 3) == NS + 3 * (NS + 20 * MS) &&
		slidering_reach(&r, NS, 1000000000000) == MAX_NS &&
		slidering_reach(&r, MAX_NS - 1, 1) == MAX_NS,
	    "how far ahead stamps may be, within the range");
	check(
	    slidering_look(&r, 3, 1200 * MS, &used, &ahead, &left) == 2 * NS &&
		used == 1 && ahead == 1 && left == 0,
	    "one in the last second, one ahead, none left");
	check(slidering_look(&r, 3, 2100 * MS, &used, &ahead, &left) ==
		    2100 * MS &&
		used == 1 && ahead == 0 && left == 2,
	    "later, two left at once: %" PRIu64, left);
	check(slidering_look(&r, 1, 0, &used, &ahead, &left) == 0 &&
		used == 1 && left == 2,
	    "a ring not yet full");
}

/*
 * procs processes share a ring of n a width_ns: each books a unit (or,
 * now and then, takes one), goes up to late_ns after it may, tells the
 * ring, and books again.  The release times, sorted, into rel; how many.
 */
static size_t
simulate(uint64_t n, int64_t width_ns, int64_t guard_ns, int procs,
    int64_t late_ns, int64_t *rel, size_t most)
{
	int64_t *t = calloc(n, sizeof *t), next[8] = { 0 };
	struct slidering r = ring(t, n, width_ns, guard_ns);
	uint64_t head = 0, lo[8] = { 0 }, hi[8] = { 0 }, got;
	int going[8] = { 0 };
	uint64_t think = (uint64_t)width_ns / 20 + 1;
	size_t k = 0;

	/* A process books again soon after its unit went: they keep the
	 * window full. */
	while (k < most) {
		int p = 0;

		for (int i = 1; i < procs; i++)
			p = next[i] < next[p] ? i : p;
		if (going[p]) {
			rel[k++] = next[p];
			check(slidering_went(&r, head, lo[p], hi[p], next[p]) ==
				0,
			    "went");
			going[p] = 0;
			next[p] += (int64_t)(rng_below(3) * rng_below(think));
			continue;
		}
		if (rng_below(4) == 0) {
			(void)slidering_take(&r, &head, next[p], 1, &got);
			if (got == 0) {
				next[p] += 1 + (int64_t)rng_below(think);
				continue;
			}
		} else {
			next[p] = book1(&r, &head, next[p]);
		}
		lo[p] = head - 1;
		hi[p] = head;
		going[p] = 1;
		next[p] += late_ns > 0 ? (int64_t)rng_below(late_ns + 1) : 0;
	}
	free(t);
	qsort(rel, k, sizeof *rel, cmp_ns);
	return k;
}

/* Random fleets: no window holds more than n, and they fill it. */
static void
test_fleets(void)
{
	static int64_t rel[4000];

	for (int c = 0; c < 100; c++) {
		uint64_t n = 1 + rng_below(20);
		int64_t width = (int64_t)(1 + rng_below(100)) * MS;
		int64_t guard = width / 10 < 20 * MS ? width / 10 : 20 * MS;
		int procs = 1 + (int)rng_below(8);
		size_t k;
		double fill;

		/* Late by the guard at most: exact whoever is told when. */
		k = simulate(n, width, guard, procs, guard, rel, 4000);
		fill = (double)k * (double)(width + 2 * guard) /
		    ((double)n * (double)(rel[k - 1] - rel[0] + width));
		check(bound_kept(rel, k, n, width),
		    "case %d: n %" PRIu64 ", %d processes, late by the guard: "
		    "a window over n",
		    c, n, procs);
		check(fill > 0.75,
		    "case %d: n %" PRIu64 ", width %" PRId64
		    " ms, %d processes: fill %.2f",
		    c, n, width / MS, procs, fill);
		/* One process, told before it books again: exact however
		 * late, with no guard. */
		k = simulate(n, width, 0, 1, 3 * width, rel, 4000);
		check(bound_kept(rel, k, n, width),
		    "case %d: n %" PRIu64
		    ", one process, late: a window over n",
		    c, n);
	}
}

void
test_slidering(void)
{
	current = "shared sliding ring";
	test_book_take();
	test_went_stamps();
	test_wild_and_look();
	test_fleets();
}
