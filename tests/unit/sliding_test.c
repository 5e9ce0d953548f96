/* Unit tests of window.c: the sliding window on a fake clock. */
#include <inttypes.h>

#include "sliding.h"
#include "unit.h"

void
test_window(void)
{
	struct sliding w;
	int64_t now;

	current = "sliding window";
	/* 3 per second: three at once, then the next three a second later. */
	check(sliding_init(&w, 3, NS, 0) == 0, "init");
	check(sliding_take(&w, 0, 0, 10) == 3, "first window");
	check(sliding_ready_at(&w, 0, 1) == NS, "fourth at 1 s");
	check(sliding_avail(&w, 0, NS - 1) == 0, "not a ns early");
	check(sliding_take(&w, 0, NS, 10) == 3, "second window");
	check(sliding_ready_at(&w, 0, 2) == 2 * NS, "two more at 2 s");
	/* After an idle gap the whole window is free again at once. */
	check(sliding_take(&w, 10 * NS, 10 * NS, 10) == 3, "after idle");
	sliding_free(&w);

	/* Spread releases: the window slides with each one. */
	check(sliding_init(&w, 2, NS, 0) == 0, "init 2/s");
	(void)sliding_take(&w, 0, 0, 1);
	(void)sliding_take(&w, 600 * MS, 600 * MS, 1);
	check(sliding_ready_at(&w, 600 * MS, 1) == NS,
	    "third when the first"
	    " leaves: %" PRId64,
	    sliding_ready_at(&w, 600 * MS, 1));
	(void)sliding_take(&w, 600 * MS, NS, 1);
	check(sliding_ready_at(&w, NS, 1) == 1600 * MS,
	    "fourth when the"
	    " second leaves");
	sliding_free(&w);

	/* No drift: 1 per ms, every wake-up 70 us late, catch-up 1 ms. */
	check(sliding_init(&w, 1, MS, MS) == 0, "init 1/ms");
	now = 0;
	for (int k = 0; k < 10000; k++) {
		int64_t due = sliding_ready_at(&w, 0, 1);

		if (due > now)
			now = due + 70 * US;
		(void)sliding_take(&w, 0, now, 1);
	}
	check(now == 9999 * MS + 70 * US, "no drift: last at %" PRId64, now);
	sliding_free(&w);

	/* Random arrivals and lateness, catch-up 0: no window of the
	 * actual releases holds more than the limit. */
	for (int c = 0; c < 200; c++) {
		uint64_t limit = 1 + rng_below(20);
		int64_t width = (int64_t)(1 + rng_below(100)) * MS;
		int64_t rel[3000], arrive = 0;
		int k = 0, j = 0, bad = 0;

		check(sliding_init(&w, limit, width, 0) == 0, "init random");
		now = 0;
		while (k < 3000) {
			int64_t due;
			uint64_t got;

			if (rng_below(4) == 0)
				arrive += (int64_t)rng_below((uint64_t)width);
			if (arrive > now)
				now = arrive;
			due = sliding_ready_at(&w, arrive, 1);
			if (due > now)
				now = due + (int64_t)rng_below(2 * MS);
			got = sliding_take(
			    &w, arrive, now, 1 + rng_below(limit));
			if (got == 0) {
				bad = 1;
				break;
			}
			for (uint64_t i = 0; i < got && k < 3000; i++)
				rel[k++] = now;
		}
		for (int i = 0; i < k && !bad; i++) {
			while (rel[i] - rel[j] >= width)
				j++;
			if ((uint64_t)(i - j + 1) > limit)
				bad = 2;
		}
		check(!bad, "case %d: limit %" PRIu64 " width %" PRId64 ": %s",
		    c, limit, width,
		    bad == 1 ? "no grant at the"
			       " deadline" :
			       "a window over the limit");
		sliding_free(&w);
	}
}
