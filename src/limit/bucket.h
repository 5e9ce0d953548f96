/* Token bucket in GCRA form, exact on integer nanoseconds; pure, no I/O. */
#ifndef BUCKET_H
#define BUCKET_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Units whose release was due while the caller was late (a late wake-up, a
 * slow write) keep their place in the schedule for up to catchup_ns; beyond
 * it the lost time is treated like idle time and earns no more than a full
 * bucket.  This is the scheduling slack of the contract: in any window of
 * w ns at most burst + rate * (w + catchup_ns) units are released.  The
 * default is one scheduler tick at HZ=100, the longest a runnable process
 * commonly waits for a CPU.
 */
#define BUCKET_CATCHUP_NS 10000000LL

/*
 * Rate n units every d ns (n * d < 2^63), capacity burst units.  The bucket
 * is full at time base_ns + k * d / n exactly, with 0 <= k < n, so no
 * rounding error ever accumulates.  A leaky bucket is a bucket with
 * burst 1: consecutive units are exactly d / n apart.
 */
struct bucket {
	uint64_t n;
	uint64_t d;
	uint64_t burst;
	int64_t base_ns;
	uint64_t k;
	int64_t catchup_ns;
	int64_t went_ns; /* the latest time units went (bucket_went) */
};

/*
 * Start a bucket at now_ns holding initial tokens (initial <= burst), with
 * a catch-up of BUCKET_CATCHUP_NS.  burst * d / n must be below 2^62 ns.
 */
void bucket_init(struct bucket *b, uint64_t n, uint64_t d, uint64_t burst,
    uint64_t initial, int64_t now_ns);

/*
 * Whole tokens available at now_ns to units that have been waiting since
 * ready_ns (ready_ns <= now_ns).  This is at most burst plus what the rate
 * earns in catchup_ns.  Does not change the bucket.  A now_ns before the
 * latest time units went (bucket_went) is taken for that time, here and
 * in bucket_take and bucket_charge: one known to have come.
 */
uint64_t bucket_avail(const struct bucket *b, int64_t ready_ns, int64_t now_ns);

/*
 * Earliest time, not before ready_ns, at which units (<= burst) tokens are
 * available to units waiting since ready_ns.  Does not change the bucket.
 */
int64_t bucket_ready_at(
    const struct bucket *b, int64_t ready_ns, uint64_t units);

/*
 * Release up to max units at now_ns that have been waiting since ready_ns;
 * returns how many were granted and charges them to the bucket at their
 * ideal release times, so a late caller does not drift.
 */
uint64_t bucket_take(
    struct bucket *b, int64_t ready_ns, int64_t now_ns, uint64_t max);

/*
 * Charge cost units at now_ns to units waiting since ready_ns, even more
 * than are available: a cost above the burst, charged to a full bucket,
 * leaves it in debt, and later units wait until the debt is paid, so the
 * long-run rate holds.
 */
void bucket_charge(
    struct bucket *b, int64_t ready_ns, int64_t now_ns, uint64_t cost);

/*
 * The latest units taken or charged went at at_ns, no earlier than they
 * were taken (a write returned, a command started): the bucket becomes
 * what it would be had they been taken at at_ns, whose catch-up reaches
 * back to at_ns - catchup_ns; only ever fewer tokens.  So the bound on
 * releases holds at the times they really went: a slow start or write
 * keeps its place for up to catchup_ns, as a late wake-up does.  No time
 * before at_ns is asked of it after.
 */
void bucket_went(struct bucket *b, uint64_t units, int64_t at_ns);

/*
 * Change the rate to n units every d ns and the capacity to burst at
 * now_ns.  Tokens earned until now_ns are counted at the old rate, then
 * cut to the new burst; a debt is kept, and so is the progress towards
 * the next token (to within 1 ns).  From now_ns on the new rate applies,
 * so a lower rate delays the very next unit.
 */
void bucket_retune(
    struct bucket *b, uint64_t n, uint64_t d, uint64_t burst, int64_t now_ns);

/* Is the bucket full at t_ns: would a new bucket hold the same? */
bool bucket_full_at(const struct bucket *b, int64_t t_ns);

/* Let late units keep their schedule for up to catchup_ns (>= 0). */
void bucket_set_catchup(struct bucket *b, int64_t catchup_ns);

/* floor(a * num / den) saturated to int64, for num * den < 2^63. */
int64_t bucket_muldiv_floor(int64_t a, uint64_t num, uint64_t den);

/* ceil(a * num / den) saturated to int64, for num * den < 2^63. */
int64_t bucket_muldiv_ceil(int64_t a, uint64_t num, uint64_t den);

#endif
