/* The release times of a --shared sliding window, in its file's ring; pure. */
#ifndef SLIDERING_H
#define SLIDERING_H

#include <stdint.h>

/*
 * A window of n units (at least 1) each width_ns, over the ring t[0..n)
 * of a file.  The i-th unit booked (from 0) is stamped in t[i % n] until
 * the unit n after it is booked in its place: entries head - n .. head - 1
 * are held, head the units booked so far (fewer when head < n).  Stamps
 * are ns of the file's time, in [0, max_ns], and never fall from one
 * entry to the next, but for the oldest held: a booking killed before it
 * stored head leaves them stamped later, which only delays the units n
 * after them.  A unit goes width_ns + guard_ns (span_ns) after the one n
 * before it: the guard covers a unit that goes a little after its stamp
 * (a command that starts late) before it is told.  The caller holds the
 * file's lock over each call, and stores head after the stamps.
 */
struct slidering {
	int64_t *t;
	uint64_t n;
	int64_t width_ns, span_ns, max_ns;
};

/* Entries a went raises at most, past those it was told of. */
#define SLIDERING_RAISE_MAX 64

/*
 * Book units (1..n) at now_ns, each after the unit before and span_ns
 * after the one n before: when they go, the time each is stamped with, or
 * -1 when the entries read are out of range (a damaged file).
 * *head advances by units.
 */
int64_t slidering_book(
    const struct slidering *r, uint64_t *head, int64_t now_ns, uint64_t units);

/*
 * Take up to max units at now_ns, as booking would grant them at once:
 * into *got, each stamped now_ns, *head advanced by as many.  None while
 * the latest stamp is later than now_ns (a clock behind the others').
 * 0, or -1 for a damaged ring.
 */
int slidering_take(const struct slidering *r, uint64_t *head, int64_t now_ns,
    uint64_t max, uint64_t *got);

/*
 * The units of entries lo..hi - 1 went at at_ns: those still in the ring
 * and not yet read by the booking n after them are stamped at_ns if they
 * were earlier, and the entries after them as far as need be (at most
 * SLIDERING_RAISE_MAX more; beyond, at_ns is cut to keep them sorted).
 * Stamps only rise, so a booking later than told of only delays others.
 * 0, or -1 for a damaged ring.
 */
int slidering_went(const struct slidering *r, uint64_t head, uint64_t lo,
    uint64_t hi, int64_t at_ns);

/* now_ns (in [0, max_ns]) and spans (> 0) of span_ns, or max_ns past it. */
int64_t slidering_reach(
    const struct slidering *r, int64_t now_ns, uint64_t spans);

/* Is every entry held in [0, most_ns]?  0, or -1. */
int slidering_check(const struct slidering *r, uint64_t head, int64_t most_ns);

/*
 * At now_ns (of a sound ring): the units stamped in (now_ns - width_ns,
 * now_ns] into *recent, those stamped later into *ahead; the units a take
 * would get now into *left, and when the next may be booked to go
 * (now_ns if at once) returned.
 */
int64_t slidering_look(const struct slidering *r, uint64_t head, int64_t now_ns,
    uint64_t *recent, uint64_t *ahead, uint64_t *left);

#endif
