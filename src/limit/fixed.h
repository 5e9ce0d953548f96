/* Fixed windows: at most limit units per wall-clock-aligned window; pure. */
#ifndef FIXED_H
#define FIXED_H

#include <stdint.h>

struct zonemap;

/*
 * Windows of width_ns start where wall time is a multiple of width_ns
 * (per minute on the minute, per day at 00:00 UTC), or with a zone where
 * its local time is (per day at its midnight: see zonemap.h).
 * wall_offset_ns is wall time minus the monotonic time the callers pass
 * in.
 */
struct fixed {
	uint64_t limit;
	int64_t width_ns;
	int64_t wall_offset_ns;
	const struct zonemap *zone; /* the calendar; NULL: UTC */
	int64_t catchup_ns;
	int64_t index; /* window of the last release */
	uint64_t used; /* units released in that window */
};

void fixed_init(struct fixed *f, uint64_t limit, int64_t width_ns,
    int64_t wall_offset_ns, int64_t catchup_ns);

/*
 * Align f's windows to the calendar of zone z (NULL: UTC, as fixed_init
 * leaves it), which must outlive f.
 */
void fixed_zone(struct fixed *f, const struct zonemap *z);

/*
 * The window holding monotonic time t_ns, by its number: the latest
 * begun, so that it never goes back when a zone's clocks do.
 */
int64_t fixed_window_of(const struct fixed *f, int64_t t_ns);

/* Monotonic time at which window i starts (see zonemap_window_start). */
int64_t fixed_window_start(const struct fixed *f, int64_t i);

/* Earliest time, not before ready_ns, at which units (<= limit) fit. */
int64_t fixed_ready_at(const struct fixed *f, int64_t ready_ns, uint64_t units);

/*
 * How many units fixed_take would grant at now_ns; no change.  A time
 * before the window of the latest release (fixed_went) counts as its
 * start.
 */
uint64_t fixed_avail(const struct fixed *f, int64_t ready_ns, int64_t now_ns);

/*
 * Release up to max units at now_ns, waiting since ready_ns.  Units due
 * while the caller was late (up to catchup_ns) count in the window they
 * were due in.
 */
uint64_t fixed_take(
    struct fixed *f, int64_t ready_ns, int64_t now_ns, uint64_t max);

/*
 * The latest units released went at at_ns, no earlier than they were
 * taken (a write returned, a command started): when that is in a later
 * window than they were counted in, they count in that one, so that no
 * window holds more than limit units by the times they really went.
 */
void fixed_went(struct fixed *f, uint64_t units, int64_t at_ns);

#endif
