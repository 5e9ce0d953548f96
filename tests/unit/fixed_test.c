/* Unit tests of fixed.c: fixed windows on a fake clock. */
#include <inttypes.h>

#include "calendar.h"
#include "fixed.h"
#include "unit.h"
#include "zonemap.h"

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

/* The window of wall time t by the starts of windows alone: the last
 * window of z to start at or before t. */
static int64_t
started_at(const struct zonemap *z, int64_t t, int64_t width)
{
	int64_t i = zonemap_window_of(z, t, width);

	while (zonemap_window_start(z, i + 1, width) <= t)
		i++;
	return i;
}

/* Random takes through a zone's changes of the clocks, wall time wall +
 * monotonic time: no span from a window's start to the next's gets more
 * than limit units. */
static void
random_zone_takes(const struct zonemap *z, int64_t wall, const char *what)
{
	for (int c = 0; c < 100; c++) {
		static const int64_t widths[] = { 15 * 60 * NS, 30 * 60 * NS,
			3600 * NS, 86400 * NS };
		uint64_t limit = 1 + rng_below(4), in_idx = 0;
		int64_t width = widths[rng_below(4)], now = 0, idx = INT64_MIN;
		struct fixed f;
		int bad = 0;

		fixed_init(&f, limit, width, wall, 0);
		fixed_zone(&f, z);
		for (int k = 0; k < 300 && !bad; k++) {
			int64_t due, i;
			uint64_t got;

			now += (int64_t)rng_below((uint64_t)width / 2);
			due = fixed_ready_at(&f, now, 1);
			if (due > now)
				now = due;
			if ((got = fixed_take(
				 &f, now, now, 1 + rng_below(limit))) == 0)
				bad = 1;
			i = started_at(z, now + wall, width);
			in_idx = i == idx ? in_idx + got : got;
			if (i < idx || in_idx > limit)
				bad = 2;
			idx = i;
		}
		check(!bad,
		    "%s, case %d: limit %" PRIu64 ", width %" PRId64 " s: %s",
		    what, c, limit, width / NS,
		    bad == 1 ? "no grant at the deadline" : "window over");
	}
}

void
test_fixed_zone(void)
{
	struct zonemap paris, kolkata;
	struct fixed f;
	int64_t hour = 3600 * NS, day = 24 * hour,
		oct25 = calendar_days_from_civil(2026, 10, 25) * day,
		mar29 = calendar_days_from_civil(2026, 3, 29) * day;

	current = "fixed windows of a zone";
	zonemap_test_paris(&paris);
	zonemap_test_kolkata(&kolkata);

	/* Monotonic 0 is 14:00Z: Kolkata's hours start at half past. */
	fixed_init(&f, 1, hour,
	    calendar_days_from_civil(2026, 11, 29) * day + 14 * hour, 0);
	fixed_zone(&f, &kolkata);
	check(fixed_take(&f, 0, 0, 1) == 1, "one in 13:30Z's hour");
	check(fixed_ready_at(&f, 0, 1) == hour / 2,
	    "the next at 14:30Z: %" PRId64, fixed_ready_at(&f, 0, 1));
	check(fixed_avail(&f, 0, hour / 2 - 1) == 0, "not a ns early");
	check(fixed_take(&f, 0, hour / 2, 1) == 1, "one at 14:30Z");

	/* A day is a local day: 25 h on 25 October, 23 h on 29 March. */
	fixed_init(&f, 1, day, oct25 - hour, 0); /* 01:00 local */
	fixed_zone(&f, &paris);
	check(fixed_take(&f, 0, 0, 1) == 1, "one on 25 October");
	check(fixed_ready_at(&f, 0, 1) == day,
	    "the next at 23:00Z: %" PRId64 " h",
	    fixed_ready_at(&f, 0, 1) / hour);
	fixed_init(&f, 1, day, mar29 - hour / 2, 0); /* 00:30 local */
	fixed_zone(&f, &paris);
	check(fixed_take(&f, 0, 0, 1) == 1, "one on 29 March");
	check(fixed_ready_at(&f, 0, 1) == 22 * hour + hour / 2,
	    "the next at 22:00Z");

	/* 02:40 in summer time, then 02:10 again in winter time: the
	 * window of 02:30 goes on, full, until 03:00 (02:00Z). */
	fixed_init(&f, 2, hour / 2, oct25 + 40 * 60 * NS, 0);
	fixed_zone(&f, &paris);
	check(fixed_take(&f, 0, 0, 5) == 2, "two at 02:40 CEST");
	check(fixed_avail(&f, hour / 2, hour / 2) == 0 &&
		fixed_take(&f, hour / 2, hour / 2, 1) == 0,
	    "none at 02:10 CET: no second allowance");
	check(fixed_ready_at(&f, hour / 2, 1) == hour + 20 * 60 * NS,
	    "the next at 03:00 CET: %" PRId64 " min",
	    fixed_ready_at(&f, hour / 2, 1) / (60 * NS));
	fixed_went(&f, 2, hour / 2);
	check(fixed_avail(&f, hour / 2, hour / 2) == 0, "went: still full");

	random_zone_takes(&paris, oct25 - 2 * day, "fall back");
	random_zone_takes(&paris, mar29 - 2 * day, "spring forward");
	random_zone_takes(&kolkata, mar29, "Kolkata");
	zonemap_free(&paris);
}
