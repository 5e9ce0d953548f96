/* Unit tests of zonemap.c: zones built by hand, their windows and days. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "unit.h"
#include "zonemap.h"

#define HOUR (3600 * NS)
#define DAY (24 * HOUR)

/* y-m-d h:m UTC, in ns since 1970. */
static int64_t
utc_ns(int y, int m, int d, int h, int min)
{
	return calendar_days_from_civil(y, m, d) * DAY + h * HOUR +
	    min * 60 * NS;
}

/* y-m-d h:m as local time, in ns from local midnight of 1970. */
#define LOCAL(y, m, d, h, min) utc_ns(y, m, d, h, min)

/* Europe/Paris in 2026: +1 h, +2 h from 29 March, +1 h from 25 October. */
void
zonemap_test_paris(struct zonemap *z)
{
	memset(z, 0, sizeof *z);
	strcpy(z->name, "Europe/Paris");
	z->base_off_ns = HOUR;
	check(zonemap_add(z, utc_ns(2026, 3, 29, 1, 0), 2 * HOUR) == 0 &&
		zonemap_add(z, utc_ns(2026, 10, 25, 1, 0), HOUR) == 0,
	    "Paris built");
}

/* Asia/Kolkata: +5:30, no transition. */
void
zonemap_test_kolkata(struct zonemap *z)
{
	memset(z, 0, sizeof *z);
	strcpy(z->name, "Asia/Kolkata");
	z->base_off_ns = 5 * HOUR + 30 * 60 * NS;
}

static void
test_offsets(const struct zonemap *paris)
{
	int64_t spring = utc_ns(2026, 3, 29, 1, 0),
		fall = utc_ns(2026, 10, 25, 1, 0);

	check(zonemap_offset(paris, spring - 1) == HOUR, "winter time");
	check(zonemap_offset(paris, spring) == 2 * HOUR, "summer time");
	check(zonemap_offset(paris, fall - 1) == 2 * HOUR, "still summer");
	check(zonemap_offset(paris, fall) == HOUR, "winter again");
	check(zonemap_next_change(paris, 0) == spring, "next: spring");
	check(zonemap_next_change(paris, spring) == fall, "next: fall");
	check(zonemap_next_change(paris, fall) == INT64_MAX, "none after");
	check(zonemap_offset(NULL, 12345) == 0, "NULL is UTC");
	check(zonemap_next_change(NULL, 0) == INT64_MAX, "UTC: no change");
	check(zonemap_window_start(NULL, 7, HOUR) == 7 * HOUR &&
		zonemap_window_of(NULL, -1, HOUR) == -1 &&
		zonemap_window_reached(NULL, 7 * HOUR, HOUR) == 7,
	    "UTC windows on the multiples of their width");
}

/* A local calendar day is 23 h at the spring forward and 25 h at the
 * fall back, each from local midnight. */
static void
test_days(const struct zonemap *paris)
{
	int64_t d = calendar_days_from_civil(2026, 3, 29), s0, s1;

	s0 = zonemap_window_start(paris, d, DAY);
	s1 = zonemap_window_start(paris, d + 1, DAY);
	check(s0 == utc_ns(2026, 3, 28, 23, 0), "29 March starts at 23:00Z");
	check(
	    s1 - s0 == 23 * HOUR, "29 March: %" PRId64 " h", (s1 - s0) / HOUR);
	check(zonemap_window_of(paris, s0, DAY) == d &&
		zonemap_window_of(paris, s1 - 1, DAY) == d &&
		zonemap_window_of(paris, s1, DAY) == d + 1,
	    "the day holds its 23 h");
	d = calendar_days_from_civil(2026, 10, 25);
	s0 = zonemap_window_start(paris, d, DAY);
	s1 = zonemap_window_start(paris, d + 1, DAY);
	check(s0 == utc_ns(2026, 10, 24, 22, 0), "25 Oct starts at 22:00Z");
	check(s1 - s0 == 25 * HOUR, "25 Oct: %" PRId64 " h", (s1 - s0) / HOUR);
	check(zonemap_window_reached(paris, s1 - 1, DAY) == d,
	    "the repeated hour is of the same day");
	d = calendar_days_from_civil(2026, 11, 29);
	check(
	    zonemap_window_start(paris, d, DAY) == utc_ns(2026, 11, 28, 23, 0),
	    "29 Nov starts at 23:00Z");
}

/* Half-hour windows through both changes of the clocks. */
static void
test_changes(const struct zonemap *paris)
{
	int64_t h = 30 * 60 * NS, spring = utc_ns(2026, 3, 29, 1, 0),
		fall = utc_ns(2026, 10, 25, 1, 0);
	int64_t w0200 = LOCAL(2026, 3, 29, 2, 0) / h,
		w0300 = LOCAL(2026, 3, 29, 3, 0) / h;

	/* 02:00 to 03:00 does not exist: its windows take no time. */
	check(zonemap_window_start(paris, w0200, h) == spring &&
		zonemap_window_start(paris, w0200 + 1, h) == spring &&
		zonemap_window_start(paris, w0300, h) == spring,
	    "the skipped windows start at the transition");
	check(zonemap_window_of(paris, spring - 1, h) == w0200 - 1 &&
		zonemap_window_of(paris, spring, h) == w0300,
	    "from 01:59:59 to 03:00");
	/* 02:00 to 03:00 happens twice: from 00:00Z in summer time, and
	 * from 01:00Z in winter time. */
	w0200 = LOCAL(2026, 10, 25, 2, 0) / h;
	w0300 = LOCAL(2026, 10, 25, 3, 0) / h;
	check(zonemap_window_start(paris, w0200, h) == fall - HOUR &&
		zonemap_window_start(paris, w0200 + 1, h) == fall - h &&
		zonemap_window_start(paris, w0300, h) == fall + HOUR,
	    "each window starts the first time its local time comes");
	check(zonemap_window_of(paris, fall + 10 * 60 * NS, h) == w0200,
	    "02:10 again: window_of goes back");
	check(
	    zonemap_window_reached(paris, fall + 10 * 60 * NS, h) == w0200 + 1,
	    "02:10 again: the window reached stays 02:30's");
	check(zonemap_window_reached(paris, fall + h, h) == w0200 + 1 &&
		zonemap_window_reached(paris, fall + HOUR - 1, h) ==
		    w0200 + 1 &&
		zonemap_window_reached(paris, fall + HOUR, h) == w0300,
	    "until 03:00 comes");
	check(zonemap_window_reached(paris, fall + 10 * 60 * NS, HOUR) ==
		zonemap_window_of(paris, fall + 10 * 60 * NS, HOUR),
	    "an hour's window: the same hour, twice as long");
}

/* An hour's windows in Kolkata start at half past in UTC. */
static void
test_half_hour_zone(const struct zonemap *kolkata)
{
	int64_t t = utc_ns(2026, 11, 29, 14, 3), i, s;

	i = zonemap_window_of(kolkata, t, HOUR);
	s = zonemap_window_start(kolkata, i, HOUR);
	check(s == utc_ns(2026, 11, 29, 13, 30), "14:03Z is in 13:30Z's hour");
	check(zonemap_window_start(kolkata, i + 1, HOUR) - s == HOUR,
	    "an hour long");
	check(zonemap_window_start(kolkata,
		  calendar_days_from_civil(2026, 11, 30),
		  DAY) == utc_ns(2026, 11, 29, 18, 30),
	    "a day from 18:30Z");
}

/* The window reached is the last one started, and never goes back. */
static void
test_reached(const struct zonemap *z)
{
	static const int64_t widths[] = { 15 * 60 * NS, 30 * 60 * NS, HOUR,
		7 * HOUR, DAY, 1 };
	int64_t from = utc_ns(2026, 3, 1, 0, 0), span = 300 * DAY;

	for (int c = 0; c < 5000; c++) {
		int64_t w = widths[rng_below(sizeof widths / sizeof widths[0])];
		int64_t t = from + (int64_t)rng_below((uint64_t)span), i;
		int64_t later = t + (int64_t)rng_below(3 * HOUR);

		i = zonemap_window_reached(z, t, w);
		if (!(zonemap_window_start(z, i, w) <= t &&
			zonemap_window_start(z, i + 1, w) > t &&
			zonemap_window_reached(z, later, w) >= i &&
			zonemap_window_of(z, t, w) <= i)) {
			check(0, "case %d: t %" PRId64 " width %" PRId64, c, t,
			    w);
			return;
		}
	}
	check(1, "window reached");
}

static void
test_print(const struct zonemap *paris, const struct zonemap *kolkata)
{
	struct zonemap nf;
	char buf[64];

	zonemap_print(paris, utc_ns(2026, 11, 28, 23, 0), buf, sizeof buf);
	check(strcmp(buf, "2026-11-29T00:00:00+01:00") == 0, "Paris: %s", buf);
	zonemap_print(paris, utc_ns(2026, 7, 1, 12, 0) + 999, buf, sizeof buf);
	check(strcmp(buf, "2026-07-01T14:00:00+02:00") == 0, "summer: %s", buf);
	zonemap_print(kolkata, utc_ns(2026, 11, 29, 13, 30), buf, sizeof buf);
	check(
	    strcmp(buf, "2026-11-29T19:00:00+05:30") == 0, "Kolkata: %s", buf);
	zonemap_print(NULL, utc_ns(1969, 12, 31, 23, 59), buf, sizeof buf);
	check(strcmp(buf, "1969-12-31T23:59:00Z") == 0, "UTC: %s", buf);
	memset(&nf, 0, sizeof nf);
	nf.base_off_ns = -(3 * HOUR + 30 * 60 * NS);
	zonemap_print(&nf, utc_ns(2026, 1, 1, 2, 0), buf, sizeof buf);
	check(strcmp(buf, "2025-12-31T22:30:00-03:30") == 0, "St John's: %s",
	    buf);
}

void
test_zonemap(void)
{
	struct zonemap paris, kolkata;

	current = "zonemap";
	zonemap_test_paris(&paris);
	zonemap_test_kolkata(&kolkata);
	check(paris.n == 2, "two transitions: %zu", paris.n);
	check(zonemap_add(&paris, utc_ns(2026, 1, 1, 0, 0), 0) == -1,
	    "a transition before the last is refused");
	check(zonemap_add(&paris, utc_ns(2027, 1, 1, 0, 0), HOUR) == 0 &&
		paris.n == 2,
	    "one that changes nothing is left out");
	test_offsets(&paris);
	test_days(&paris);
	test_changes(&paris);
	test_half_hour_zone(&kolkata);
	test_reached(&paris);
	test_reached(&kolkata);
	test_print(&paris, &kolkata);
	zonemap_free(&paris);
	check(paris.n == 0 && paris.at_ns == NULL, "freed");
	zonemap_free(&kolkata);
}
