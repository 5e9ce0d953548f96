/* A time zone as a table of its UTC offsets, for calendar windows; pure. */
#ifndef ZONEMAP_H
#define ZONEMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * A zone over the years a run can last: its UTC offset before at_ns[0],
 * and from each transition on.  zonemap_add builds one; src/sys/zoneinfo.c
 * fills one from the system's zone data.
 */
struct zonemap {
	char name[64];	 /* as given to --tz: "UTC" by default */
	size_t n;	 /* transitions */
	int64_t *at_ns;	 /* instant of each (ns since 1970 UTC), ascending */
	int64_t *off_ns; /* the UTC offset from at_ns[i] on */
	int64_t base_off_ns; /* the offset before at_ns[0] */
};

/*
 * Windows.  A window of width_ns is a span of local time [i * width_ns,
 * (i + 1) * width_ns) counted from local midnight of 1970-01-01, so that
 * a window of a day is a local calendar day: 23 or 25 hours of real time
 * when the clocks change, and an hour's window of a zone half an hour off
 * UTC (Asia/Kolkata) starts at half past in UTC.
 *
 * At a spring forward, local time skips: a window wholly in the gap has
 * no time at all (it starts and ends at the transition).  At a fall back,
 * local time repeats, and zonemap_window_of goes back to a window already
 * past.  A user of it must then treat a window lower than the one it last
 * counted in as that one: the count goes on, never more than the limit
 * and never a second allowance of a window.  zonemap_window_reached does
 * so without a count: it never goes back.
 */

/* The zone's UTC offset at wall_ns; z NULL: UTC (0). */
int64_t zonemap_offset(const struct zonemap *z, int64_t wall_ns);

/* The first transition after wall_ns, or INT64_MAX: none known. */
int64_t zonemap_next_change(const struct zonemap *z, int64_t wall_ns);

/*
 * The window of width_ns (> 0) holding wall_ns: floor((wall_ns +
 * offset(wall_ns)) / width_ns).  Goes back at a fall back (see above).
 */
int64_t zonemap_window_of(
    const struct zonemap *z, int64_t wall_ns, int64_t width_ns);

/*
 * The first instant whose local time is at or past index * width_ns (a
 * local time that a spring forward skips starts at the transition).
 * Never decreases as index grows.
 */
int64_t zonemap_window_start(
    const struct zonemap *z, int64_t index, int64_t width_ns);

/*
 * The latest window started by wall_ns: the greatest index whose
 * zonemap_window_start is at or before wall_ns.  zonemap_window_of, but
 * through a fall back the window the clock had reached before it, until
 * local time passes its end again: never less than at an earlier instant.
 */
int64_t zonemap_window_reached(
    const struct zonemap *z, int64_t wall_ns, int64_t width_ns);

/*
 * Append a transition to offset off_ns at at_ns, after every other; one
 * that changes nothing is left out.  0, or -1 when memory runs out or
 * at_ns is not after the last.
 */
int zonemap_add(struct zonemap *z, int64_t at_ns, int64_t off_ns);

/*
 * wall_ns, to the second, as RFC 3339 in z's local time with its offset
 * (2026-11-29T00:00:00+01:00), or in UTC with Z when z is NULL.  The
 * length, as snprintf returns it.
 */
int zonemap_print(
    const struct zonemap *z, int64_t wall_ns, char *buf, size_t size);

/* Free the table of z, which then holds no transition. */
void zonemap_free(struct zonemap *z);

#endif
