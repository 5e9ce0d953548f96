/* Unit tests of fixed.c: fixed windows on a fake clock. */
#include <inttypes.h>

#include "fixed.h"
#include "unit.h"

void
test_fixed(void)
{
	struct fixed f;

	current = "fixed windows";
	/* Wall time is monotonic + 0.3 s: windows start at 0.7, 1.7, ... */
	fixed_init(&f, 3, NS, 300 * MS, 0);
	check(fixed_take(&f, 0, 0, 10) == 3, "three in the first window");
	check(fixed_ready_at(&f, 0, 1) == 700 * MS,
	    "next at the boundary: %" PRId64, fixed_ready_at(&f, 0, 1));
	check(fixed_avail(&f, 0, 700 * MS - 1) == 0, "not a ns early");
	check(fixed_take(&f, 0, 700 * MS, 2) == 2, "two of the next three");
	check(fixed_take(&f, 0, 900 * MS, 5) == 1, "then the third");
	check(fixed_ready_at(&f, 0, 1) == 1700 * MS, "then 1.7 s");
	/* Idle for windows: a fresh window is whole again. */
	check(fixed_take(&f, 5 * NS, 5 * NS, 10) == 3, "after idle");

	/* A late wake-up counts its units in the window they were due in,
	 * so the next window is not charged for them. */
	fixed_init(&f, 1, NS, 0, 10 * MS);
	(void)fixed_take(&f, 0, 0, 1);
	check(fixed_take(&f, 0, NS + 5 * MS, 1) == 1, "late by 5 ms");
	check(fixed_ready_at(&f, 0, 1) == 2 * NS, "still one per window");

	/* Random arrivals, catch-up 0: no aligned window exceeds limit. */
	for (int c = 0; c < 200; c++) {
		uint64_t limit = 1 + rng_below(10);
		int64_t width = (int64_t)(1 + rng_below(50)) * MS;
		int64_t off = (int64_t)rng_below((uint64_t)width), now = 0;
		int64_t arrive = 0, idx = INT64_MIN;
		uint64_t in_idx = 0;
		int bad = 0;

		fixed_init(&f, limit, width, off, 0);
		for (int k = 0; k < 2000 && !bad;) {
			int64_t due, i;
			uint64_t got;

			if (rng_below(3) == 0)
				arrive += (int64_t)rng_below((uint64_t)width);
			if (arrive > now)
				now = arrive;
			due = fixed_ready_at(&f, arrive, 1);
			if (due > now)
				now = due + (int64_t)rng_below(MS);
			got = fixed_take(&f, arrive, now, 1 + rng_below(limit));
			if (got == 0) {
				bad = 1;
				break;
			}
			i = (now + off) / width;
			in_idx = i == idx ? in_idx + got : got;
			idx = i;
			if (in_idx > limit)
				bad = 2;
			k += (int)got;
		}
		check(!bad, "case %d: limit %" PRIu64 ": %s", c, limit,
		    bad == 1 ? "no grant at the deadline" : "window over");
	}
}
