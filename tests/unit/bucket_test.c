/* Unit tests of bucket.c: the token bucket's schedule on a fake clock. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "bucket.h"
#include "rate.h"
#include "unit.h"

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 i128; /* reference for muldiv only */
#endif

void
test_muldiv(void)
{
	current = "muldiv";
	check(bucket_muldiv_floor(7, 3, 2) == 10, "7*3/2");
	check(bucket_muldiv_floor(-7, 3, 2) == -11, "-7*3/2 floors");
	check(bucket_muldiv_ceil(7, 3, 2) == 11, "ceil 7*3/2");
	check(bucket_muldiv_ceil(-7, 3, 2) == -10, "ceil -7*3/2");
	check(
	    bucket_muldiv_floor(INT64_MAX, 3, 1) == INT64_MAX, "saturates up");
	check(bucket_muldiv_floor(INT64_MIN, 3, 1) == INT64_MIN,
	    "saturates down");
#ifdef __SIZEOF_INT128__
	for (int i = 0; i < 200000; i++) {
		i128 p, q;
		uint64_t num = 1 + rng_below(1ULL << 31);
		uint64_t den = 1 + rng_below(1ULL << 31);
		int64_t a = (int64_t)(rng() >> 2) - (INT64_MAX >> 2);

		a >>= rng_below(40);
		p = (i128)a * num;
		q = p / den;
		if (p % den != 0 && p < 0)
			q--;
		if (q > INT64_MAX || q < INT64_MIN)
			continue;
		if (bucket_muldiv_floor(a, num, den) != (int64_t)q) {
			check(0,
			    "bucket_muldiv_floor(%" PRId64 ", %" PRIu64
			    ", %" PRIu64 ")",
			    a, num, den);
			break;
		}
	}
	check(1, "random muldiv cases");
#endif
}

/*
 * Saturated input on a fake clock: all units ready at 0, the caller wakes
 * late_ns after each deadline.  Returns release time of each unit.
 */
static void
run_saturated(struct bucket *b, int64_t late_ns, int64_t *rel, int count)
{
	int64_t now = 0;

	for (int k = 0; k < count; k++) {
		int64_t due = bucket_ready_at(b, 0, 1);

		if (due > now)
			now = due + late_ns;
		if (bucket_take(b, 0, now, 1) != 1) {
			check(0, "take refused at the deadline (unit %d)", k);
			return;
		}
		rel[k] = now;
	}
}

/* The ideal release of unit k (1-based): max(0, k - burst) * d / n. */
static int64_t
ideal(uint64_t k, uint64_t burst, uint64_t n, uint64_t d)
{
	if (k <= burst)
		return 0;
	return bucket_muldiv_ceil((int64_t)(k - burst), d, n);
}

static void
exact_schedule(const char *rate, uint64_t burst, int count)
{
	struct bucket b;
	struct rate r;
	char err[200];
	int64_t *rel = calloc((size_t)count, sizeof *rel);
	int bad = 0;

	(void)rate_parse(rate, false, &r, err, sizeof err);
	bucket_init(&b, r.n, r.d, burst, burst, 0);
	run_saturated(&b, 0, rel, count);
	for (int k = 0; k < count && !bad; k++)
		if (rel[k] != ideal((uint64_t)k + 1, burst, r.n, r.d)) {
			check(0,
			    "%s b=%" PRIu64 ": unit %d at %" PRId64
			    " ns, ideal %" PRId64,
			    rate, burst, k + 1, rel[k],
			    ideal((uint64_t)k + 1, burst, r.n, r.d));
			bad = 1;
		}
	check(!bad, "%s exact", rate);
	free(rel);
}

void
test_exact_schedules(void)
{
	current = "saturated schedule is exact";
	exact_schedule("1000/s", 1, 100000);
	exact_schedule("1000/s", 10, 10000);
	exact_schedule("3/s", 1, 1000000);   /* 333333333.33.. ns */
	exact_schedule("7/min", 1, 1000000); /* 8571428571.43.. ns */
	exact_schedule("7/min", 5, 1000);
	exact_schedule("1/day", 1, 1000);
	exact_schedule("1G/s", 1, 1000000); /* 1 ns apart */
	exact_schedule("0.5", 3, 1000);
	exact_schedule("1/250ms", 2, 1000);

	/* No systematic error: the millionth unit at 3/s lands exactly on
	 * 999999 / 3 s, rounded up to the nanosecond. */
	{
		struct bucket b;
		int64_t *rel = calloc(1000000, sizeof *rel);

		bucket_init(&b, 3, NS, 1, 1, 0);
		run_saturated(&b, 0, rel, 1000000);
		check(rel[999999] == 333333000000000LL,
		    "3/s unit 1e6 at %" PRId64, rel[999999]);
		free(rel);
	}
}

void
test_no_drift(void)
{
	struct bucket b;
	int64_t *rel = calloc(10000, sizeof *rel);
	int bad = 0;

	current = "late wake-ups do not drift";
	/* 1000/s, burst 1, every wake-up 70 us late. */
	bucket_init(&b, 1, MS, 1, 1, 0);
	bucket_set_catchup(&b, MS);
	run_saturated(&b, 70 * US, rel, 10000);
	for (int k = 1; k < 10000 && !bad; k++)
		if (rel[k] != k * MS + 70 * US) {
			check(0, "unit %d at %" PRId64, k + 1, rel[k]);
			bad = 1;
		}
	check(!bad, "70 us late: every release exactly 70 us after ideal");
	/* Achieved rate over 10000 releases within 0.01 %. */
	check(fabs((9999.0 * NS / (double)(rel[9999] - rel[0])) / 1000 - 1) <
		1e-4,
	    "achieved rate within 0.01%%");

	/* Random lateness up to 0.9 ms never accumulates. */
	bucket_init(&b, 1, MS, 1, 1, 0);
	{
		int64_t now = 0, worst = 0;

		for (int k = 0; k < 10000; k++) {
			int64_t due = bucket_ready_at(&b, 0, 1);

			if (due > now)
				now = due + (int64_t)rng_below(900 * US);
			(void)bucket_take(&b, 0, now, 1);
			if (now - k * MS > worst)
				worst = now - k * MS;
		}
		check(worst < 900 * US,
		    "random lateness: worst %" PRId64 " ns behind ideal",
		    worst);
	}
	free(rel);
}

void
test_idle_and_initial(void)
{
	struct bucket b;

	current = "idle gaps and initial fill";
	/* 10/s, burst 5: 10 units at t=0 go at 0 x5, then every 100 ms. */
	bucket_init(&b, 1, 100 * MS, 5, 5, 0);
	for (int k = 1; k <= 10; k++) {
		int64_t due = bucket_ready_at(&b, 0, 1);

		check(due == ideal((uint64_t)k, 5, 1, 100 * MS),
		    "unit %d due %" PRId64, k, due);
		(void)bucket_take(&b, 0, due, 1);
	}
	/* Idle until 5 s: the bucket is full again, exactly 5 go at once. */
	check(bucket_avail(&b, 5 * NS, 5 * NS) == 5,
	    "full after idle: %" PRIu64, bucket_avail(&b, 5 * NS, 5 * NS));
	check(bucket_take(&b, 5 * NS, 5 * NS, 100) == 5, "burst after idle");
	check(bucket_ready_at(&b, 5 * NS, 1) == 5 * NS + 100 * MS,
	    "next after the burst");

	/* Idle far beyond the burst earns nothing more than the burst. */
	check(bucket_avail(&b, 3600 * NS, 3600 * NS) == 5, "capped after 1 h");

	/* --initial 0: the first unit waits one interval. */
	bucket_init(&b, 1, NS, 10, 0, 0);
	check(bucket_ready_at(&b, 0, 1) == NS, "initial 0: first at 1 s");
	(void)bucket_take(&b, 0, NS, 1);
	check(bucket_ready_at(&b, 0, 1) == 2 * NS, "initial 0: second at 2 s");
	/* --initial 3 of 10. */
	bucket_init(&b, 1, NS, 10, 3, 0);
	check(bucket_take(&b, 0, 0, 100) == 3, "initial 3 go at once");
	check(bucket_ready_at(&b, 0, 1) == NS, "then one per second");

	/* A unit arriving during a refill waits only for its token. */
	bucket_init(&b, 1, NS, 1, 1, 0);
	(void)bucket_take(&b, 0, 0, 1);
	check(bucket_ready_at(&b, 400 * MS, 1) == NS, "arrival at 0.4 s");
	check(bucket_ready_at(&b, 1500 * MS, 1) == 1500 * MS,
	    "arrival at 1.5 s goes at once");
}

void
test_charge_and_retune(void)
{
	struct bucket b;
	int64_t t;

	current = "byte cost: debt for records above the burst";
	/* 1000 B/s, burst 100 B.  A 50 B record goes at once, leaving 50. */
	bucket_init(&b, 1, MS, 100, 100, 0);
	bucket_charge(&b, 0, 0, 50);
	check(bucket_avail(&b, 0, 0) == 50, "50 left: %" PRIu64,
	    bucket_avail(&b, 0, 0));
	/* A 300 B record waits for a full bucket (at 50 ms), then goes and
	 * leaves 200 B of debt: the next 1 B is due 201 ms later. */
	t = bucket_ready_at(&b, 0, 100);
	check(t == 50 * MS, "full at 50 ms: %" PRId64, t);
	bucket_charge(&b, 0, t, 300);
	check(bucket_avail(&b, t, t) == 0, "in debt");
	check(bucket_ready_at(&b, t, 1) == t + 201 * MS,
	    "debt paid at 250 ms, then 1 ms for a byte: %" PRId64,
	    bucket_ready_at(&b, t, 1));
	/* Long-run: each 300 B record waits out the last one's debt, so the
	 * 1000th goes at 999 x 300 ms, exactly 1000 B/s. */
	bucket_init(&b, 1, MS, 100, 100, 0);
	t = 0;
	for (int i = 0; i < 1000; i++) {
		t = bucket_ready_at(&b, 0, 100);
		bucket_charge(&b, 0, t, 300);
	}
	check(t == 299 * NS + 700 * MS, "1000 x 300 B: last at %" PRId64, t);

	/* A debt beyond the clock's range saturates: one byte a decade, a
	 * 38-byte record; the next byte is centuries away, not due now. */
	bucket_init(&b, 1, 3650LL * 86400 * NS, 1, 1, 0);
	bucket_charge(&b, 0, 0, 38);
	check(bucket_ready_at(&b, 0, 1) > 100LL * 365 * 86400 * NS,
	    "saturated debt: %" PRId64, bucket_ready_at(&b, 0, 1));
	check(bucket_avail(&b, NS, NS) == 0, "nothing a second later");

	current = "live rate change";
	/* 10/s burst 10, drained at 0; at 500 ms 5 tokens are earned.  A
	 * change to 1/s burst 2 keeps 2; the third unit waits 1 s. */
	bucket_init(&b, 1, 100 * MS, 10, 10, 0);
	check(bucket_take(&b, 0, 0, 10) == 10, "drain");
	bucket_retune(&b, 1, NS, 2, 500 * MS);
	check(bucket_avail(&b, 500 * MS, 500 * MS) == 2, "clamped to 2");
	(void)bucket_take(&b, 500 * MS, 500 * MS, 2);
	check(bucket_ready_at(&b, 500 * MS, 1) == 1500 * MS,
	    "next at the new rate: %" PRId64, bucket_ready_at(&b, 500 * MS, 1));
	/* Raising the rate keeps the tokens held and earns faster. */
	bucket_init(&b, 1, NS, 5, 5, 0);
	(void)bucket_take(&b, 0, 0, 5);
	bucket_retune(&b, 1, MS, 5, 2500 * MS);
	check(bucket_avail(&b, 2500 * MS, 2500 * MS) == 2, "2 earned at 1/s");
	check(bucket_avail(&b, 2500 * MS, 2503 * MS) == 5, "then 1000/s");
	/* Progress towards a token is kept: 1/min, drained at 0; at 59 s,
	 * 59/60 of the next token at 2/min leaves 0.5 s to wait. */
	bucket_init(&b, 1, 60 * NS, 1, 1, 0);
	(void)bucket_take(&b, 0, 0, 1);
	bucket_retune(&b, 1, 30 * NS, 1, 59 * NS);
	check(bucket_ready_at(&b, 59 * NS, 1) == 59 * NS + 500 * MS,
	    "partial token kept: %" PRId64, bucket_ready_at(&b, 59 * NS, 1));
	/* ... and through a change at a rate of 3 per 7 s (not whole ns). */
	bucket_init(&b, 3, 7 * NS, 1, 1, 0);
	(void)bucket_take(&b, 0, 0, 1);
	bucket_retune(&b, 1, NS, 1, NS);
	t = bucket_ready_at(&b, NS, 1);
	check(t >= NS + 571428570 && t <= NS + 571428572,
	    "3/7s to 1/s after 1 s of 7/3 s: %" PRId64, t);
	/* A debt survives a change of rate. */
	bucket_init(&b, 1, MS, 100, 100, 0);
	bucket_charge(&b, 0, 0, 400);
	bucket_retune(&b, 1, 2 * MS, 100, 100 * MS);
	check(bucket_ready_at(&b, 100 * MS, 1) == 100 * MS + 402 * MS,
	    "200 B debt at 500 B/s, then 1 B: %" PRId64,
	    bucket_ready_at(&b, 100 * MS, 1));
}

void
test_catchup_cap(void)
{
	struct bucket b;

	current = "catch-up after a stall is capped";
	/* 1000/s burst 1, catch-up 1 ms; the caller stalls 50 ms: it may
	 * release the burst plus what 1 ms earns, not 50 units. */
	bucket_init(&b, 1, MS, 1, 1, 0);
	bucket_set_catchup(&b, MS);
	(void)bucket_take(&b, 0, 0, 1);
	check(bucket_take(&b, 0, 50 * MS, 1000) == 2,
	    "after a 50 ms stall: burst + 1 ms");
	/* Those two are charged at 49 and 50 ms; the next is due at 51. */
	check(bucket_ready_at(&b, 0, 1) == 51 * MS,
	    "then on schedule from"
	    " the catch-up point: %" PRId64,
	    bucket_ready_at(&b, 0, 1));

	/* The default catch-up is 10 ms: a 50 ms stall earns 1 + 10. */
	bucket_init(&b, 1, MS, 1, 1, 0);
	(void)bucket_take(&b, 0, 0, 1);
	check(bucket_take(&b, 0, 50 * MS, 1000) == 11, "default catch-up");
	/* Catch-up 0 is a plain token bucket: lateness is lost. */
	bucket_init(&b, 1, MS, 1, 1, 0);
	bucket_set_catchup(&b, 0);
	(void)bucket_take(&b, 0, 0, 1);
	check(bucket_take(&b, 0, 1 * MS + 70 * US, 1000) == 1, "catch-up 0");
	check(bucket_ready_at(&b, 0, 1) == 2 * MS + 70 * US,
	    "catch-up 0 drifts by the lateness");

	/* High rate: 1e9/s burst 1, woken 1000 ns late: 1001 units due. */
	bucket_init(&b, 1, 1, 1, 1, 0);
	bucket_set_catchup(&b, MS);
	check(bucket_take(&b, 0, 1000, UINT64_MAX) == 1001, "1e9/s batch");
	check(bucket_take(&b, 0, 1000, UINT64_MAX) == 0, "then empty");
	check(bucket_take(&b, 0, 10 * MS, UINT64_MAX) == 1 + MS,
	    "after 10 ms: burst + 1 ms worth");
}

void
test_random_conformance(void)
{
	current = "random arrivals keep the window bound";
	for (int c = 0; c < 300; c++) {
		struct bucket b;
		uint64_t n = 1 + rng_below(1000);
		uint64_t d = (1 + rng_below(1000)) * (rng_below(2) ? MS : US);
		uint64_t burst = 1 + rng_below(20);
		uint64_t initial = rng_below(burst + 1);
		int count = 2000, k = 0;
		int64_t *rel = calloc((size_t)count, sizeof *rel);
		int64_t arrive = 0, now = 0, prev = 0;
		int ordered = 1;

		int64_t catchup = (int64_t)rng_below(3) * MS;

		bucket_init(&b, n, d, burst, initial, 0);
		bucket_set_catchup(&b, catchup);
		while (k < count) {
			int64_t due, late;
			uint64_t got;

			if (rng_below(10) == 0)
				arrive += (int64_t)rng_below(3 * d / n + 1);
			if (arrive > now)
				now = arrive;
			due = bucket_ready_at(&b, arrive, 1);
			late = rng_below(4) == 0 ? (int64_t)rng_below(3 * MS) :
						   0;
			if (due > now)
				now = due + late;
			got = bucket_take(
			    &b, arrive, now, 1 + rng_below(burst + 3));
			if (got == 0) {
				check(0, "no token at the deadline");
				break;
			}
			for (uint64_t i = 0; i < got && k < count; i++) {
				if (now < prev)
					ordered = 0;
				rel[k++] = prev = now;
			}
		}
		check(ordered, "case %d ordered", c);
		check(window_ok(rel, count, burst, n, d, catchup),
		    "case %d: n=%" PRIu64 " d=%" PRIu64 " burst=%" PRIu64
		    " exceeds the window bound",
		    c, n, d, burst);
		free(rel);
	}
}

void
test_ready_then_take(void)
{
	current = "a deadline always yields its tokens";
	for (int c = 0; c < 20000; c++) {
		struct bucket b;
		uint64_t n = 1 + rng_below(1u << 20);
		uint64_t d = 1 + rng_below(1ULL << 32);
		uint64_t burst = 1 + rng_below(100);
		uint64_t units = 1 + rng_below(burst);
		int64_t ready = (int64_t)rng_below(10 * NS), due, now;

		bucket_init(&b, n, d, burst, rng_below(burst + 1), 0);
		(void)bucket_take(
		    &b, 0, (int64_t)rng_below(NS), rng_below(burst + 1));
		due = bucket_ready_at(&b, ready, units);
		now = due + (int64_t)rng_below(3 * MS);
		if (bucket_avail(&b, ready, now) < units ||
		    (due > ready &&
			bucket_avail(&b, ready, due - 1) >= units)) {
			check(0,
			    "n=%" PRIu64 " d=%" PRIu64 " burst=%" PRIu64
			    " units=%" PRIu64,
			    n, d, burst, units);
			return;
		}
	}
	check(1, "ready_at is the earliest time with enough tokens");
}
