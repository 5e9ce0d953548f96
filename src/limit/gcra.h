/* The token bucket as one integer (GCRA), for state shared by processes. */
#ifndef GCRA_H
#define GCRA_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Rate n units every d ns, capacity burst.  The whole state is tat, the
 * time at which the bucket is full again, in units of 1/n ns from an
 * epoch, so one unit moves it by exactly d and no rounding accumulates.
 * Callers keep times below GCRA_MAX_SCALED.
 */
struct gcra {
	uint64_t n, d, burst;
	/* The time a full bucket spans, scaled: 0 for burst * d.  A rate
	 * slowed (d grown) keeps the span of the rate it was slowed from,
	 * so that the units owed are never fewer: no token comes of it. */
	uint64_t span;
};

#define GCRA_MAX_SCALED (INT64_MAX / 4)

/* now_ns - epoch_ns in units of 1/n ns; -1 when beyond GCRA_MAX_SCALED. */
int64_t gcra_scale(const struct gcra *g, int64_t epoch_ns, int64_t now_ns);

/* A scaled time back in ns, rounded up: never early. */
int64_t gcra_unscale(const struct gcra *g, int64_t epoch_ns, int64_t t);

/*
 * Reserve units (<= burst) at scaled time now from state tat: returns the
 * new state and stores in *at the scaled time from which they may go (now
 * when the bucket holds them).  Reservations are served in order.
 */
int64_t gcra_reserve(const struct gcra *g, int64_t tat, int64_t now,
    uint64_t units, int64_t *at);

/*
 * The state from tat at which the bucket holds no unit before scaled
 * time t, and its first unit goes at t: tat itself when that is later.
 */
int64_t gcra_empty_until(const struct gcra *g, int64_t tat, int64_t t);

/* Whole units the bucket holds at scaled time now. */
uint64_t gcra_avail(const struct gcra *g, int64_t tat, int64_t now);

#endif
