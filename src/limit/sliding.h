/* Sliding window: at most limit units in any window of width_ns; pure. */
#ifndef SLIDING_H
#define SLIDING_H

#include <stdint.h>

/* The most units a window may hold; memory is 8 bytes per unit. */
#define SLIDING_MAX_LIMIT 1000000ULL

struct sliding {
	uint64_t limit;
	int64_t width_ns;
	int64_t catchup_ns;
	int64_t *times;	 /* ring of the last limit release times */
	uint64_t oldest; /* index of the oldest entry */
	uint64_t count;	 /* entries, <= limit */
};

/*
 * Set up a window of limit units (1..SLIDING_MAX_LIMIT) per width_ns, with
 * the bucket's catch-up.  Returns 0, or -1 when memory is short.
 */
int sliding_init(
    struct sliding *w, uint64_t limit, int64_t width_ns, int64_t catchup_ns);

void sliding_free(struct sliding *w);

/*
 * Earliest time, not before ready_ns, at which units (<= limit) more may
 * be released without any window of width_ns holding more than limit.
 */
int64_t sliding_ready_at(
    const struct sliding *w, int64_t ready_ns, uint64_t units);

/*
 * How many units take() would grant at now_ns; does not change w.  A time
 * before the latest release went (sliding_went) counts as that time.
 */
uint64_t sliding_avail(
    const struct sliding *w, int64_t ready_ns, int64_t now_ns);

/*
 * Release up to max units at now_ns that have waited since ready_ns.
 * A late caller's units are recorded at their due time, up to catchup_ns
 * back, so late wake-ups do not drift the windows.
 */
uint64_t sliding_take(
    struct sliding *w, int64_t ready_ns, int64_t now_ns, uint64_t max);

/*
 * The latest units releases went at at_ns, no earlier than they were
 * taken (a write returned, a command started): each is counted from
 * at_ns on, if it was counted from before, so that no window of the
 * times units really went holds more than limit, late ones included.
 */
void sliding_went(struct sliding *w, uint64_t units, int64_t at_ns);

#endif
