/* --adapt: a rate that falls when the server refuses and climbs back; pure. */
#ifndef ADAPT_H
#define ADAPT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The rate the run may use, between a floor and the ceiling the user set
 * (-r), which it never passes.  A refusal cuts it to ADAPT_BETA of what it
 * was; then it climbs back along a cubic curve (as TCP's CUBIC and the
 * AWS SDKs' adaptive retries do): fast while far below the rate of the
 * last cut, flat near it, then probing past it towards the ceiling.  Time
 * is measured in rounds: one second, or one unit at the ceiling when that
 * is longer, so a limit of a few a day climbs back in days, not seconds.
 * The curve is in floating point; the rate it yields is made exact
 * (adapt_apply) before the limits see it.
 */
struct adapt {
	double ceil;	  /* units a second: the rate set, never passed */
	double floor;	  /* the lowest it falls to */
	double round_s;	  /* one round of the curve, in seconds */
	double peak;	  /* units a round when last cut (W_max) */
	double k_rounds;  /* rounds from a cut back to peak */
	double cut_to;	  /* units a round just after the last cut */
	int64_t cut_ns;	  /* when it was last cut; INT64_MIN: never */
	uint64_t cuts;	  /* refusals that cut it */
	uint64_t refused; /* refusals heard */
};

/*
 * The factor of a cut, and the cubic's constant (units a round^3).  Built
 * with -DADAPT_AIMD, the curve is the simplest other one instead, for
 * bench/adapt.sh to compare: a cut to half, then one unit a round more
 * each round (AIMD, as TCP Reno).
 */
#ifdef ADAPT_AIMD
#define ADAPT_BETA 0.5
#else
#define ADAPT_BETA 0.7
#endif
#define ADAPT_C 0.4
/* The floor, as a fraction of the ceiling. */
#define ADAPT_FLOOR 1e-3

/* Start at the ceiling, ceil_per_s units a second (> 0). */
void adapt_init(struct adapt *a, double ceil_per_s);

/*
 * A try that started at sent_ns was refused, heard at now_ns.  It cuts the
 * rate at most once a round trip: a try sent before the last cut was sent
 * too fast for the rate now, and says nothing new.  True when the rate
 * fell.
 */
bool adapt_refused(struct adapt *a, int64_t sent_ns, int64_t now_ns);

/* The rate at now_ns, units a second: floor <= it <= ceiling. */
double adapt_rate(const struct adapt *a, int64_t now_ns);

/*
 * The ceiling changed (-R NAME -r) at now_ns: the rate keeps its place on
 * the curve, scaled to the new ceiling, and never above it.
 */
void adapt_set_ceiling(struct adapt *a, double ceil_per_s, int64_t now_ns);

/*
 * The last cut as one word, for processes that share a bucket (--shared):
 * when it was (ms of the monotonic clock, rounded up, 40 bits: 34 years
 * of uptime) and its peak as a fraction of the ceiling (24 bits).  0:
 * never cut.  Every process that adopts a word is at the same place on
 * the same curve, so the bucket they share slows and climbs as one.
 */
uint64_t adapt_word(const struct adapt *a);

/* The ms of a word's cut; a later cut is a larger value. */
#define ADAPT_WORD_MS(w) ((w) >> 24)
/* Its peak, a fraction of the ceiling in 1 .. ADAPT_PEAK_ONE. */
#define ADAPT_WORD_PEAK(w) ((w)&ADAPT_PEAK_ONE)
#define ADAPT_PEAK_ONE ((UINT64_C(1) << 24) - 1)
/* The word of a cut at ms (1 .. 2^40 - 1) of peak p. */
#define ADAPT_WORD_OF(ms, p) ((uint64_t)(ms) << 24 | (p))

/*
 * Take the cut of word w as this process's own when it is later than
 * its own; true when it was.
 */
bool adapt_adopt(struct adapt *a, uint64_t w);

/*
 * The rate n units every d ns (the ceiling's own) slowed to per_s units a
 * second, rounded slower: into *n and *d, with n * d < 2^63 and d no
 * longer than max_d.  per_s >= the ceiling's rate gives n and d back.
 */
void adapt_apply(uint64_t *n, uint64_t *d, double per_s, uint64_t max_d);

#endif
