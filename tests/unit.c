/* Unit tests of the pure modules: schedule math on a fake clock, parsing. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "fixed.h"
#include "framer.h"
#include "gcra.h"
#include "keys.h"
#include "limiter.h"
#include "options.h"
#include "units.h"
#include "window.h"

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 i128;	/* reference for muldiv only */
#endif

static int passed, failed;
static const char *current;

static void
check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	fprintf(stderr, "FAIL %s: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define NS	1000000000LL
#define MS	1000000LL
#define US	1000LL

/* A small deterministic generator, so every run sees the same cases. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t
rng_below(uint64_t n)
{
	return rng() % n;
}

/* ---- units ---- */

static void
rate_is(const char *s, bool bytes, uint64_t n, uint64_t d)
{
	struct rate r;
	char err[200] = "";
	int rc = parse_rate(s, bytes, &r, err, sizeof err);

	check(rc == 0 && !r.inf && r.n == n && r.d == d,
	    "rate '%s' -> rc %d %" PRIu64 "/%" PRIu64 " (want %" PRIu64
	    "/%" PRIu64 ") %s", s, rc, r.n, r.d, n, d, err);
}

static void
rate_bad(const char *s, bool bytes, const char *want)
{
	struct rate r;
	char err[200] = "";
	int rc = parse_rate(s, bytes, &r, err, sizeof err);

	check(rc == -1 && strstr(err, want) != NULL,
	    "rate '%s' should fail with '%s', got rc %d '%s'", s, want, rc,
	    err);
}

static void
test_parse_rate(void)
{
	struct rate r;
	char err[200];

	current = "parse_rate";
	rate_is("5", false, 1, 200000000);
	rate_is("5/s", false, 1, 200000000);
	rate_is("0.5", false, 1, 2000000000);
	rate_is("90/min", false, 3, 2000000000);
	rate_is("2/h", false, 1, 1800000000000ULL);
	rate_is("1/day", false, 1, 86400000000000ULL);
	rate_is("1/d", false, 1, 86400000000000ULL);
	rate_is("3/10s", false, 3, 10000000000ULL);
	rate_is("1/250ms", false, 1, 250000000);
	rate_is("3/s", false, 3, 1000000000);
	rate_is("7/min", false, 7, 60000000000ULL);
	rate_is("2k/s", false, 1, 500000);
	rate_is("1M/s", false, 1, 1000);
	rate_is("1G/s", false, 1, 1);
	rate_is("10/seconds", false, 1, 100000000);
	rate_is("10/minutes", false, 1, 6000000000ULL);
	rate_is("1/1.5s", false, 1, 1500000000);
	rate_is(".5/s", false, 1, 2000000000);
	rate_is("1.5M/s", true, 3072, 1953125);
	rate_is("64KiB/s", true, 128, 1953125);
	rate_is("64K/s", true, 128, 1953125);
	rate_is("10MB/min", true, 1, 6000);
	rate_is("1kB/s", true, 1, 1000000);
	rate_is("100B/s", true, 1, 10000000);
	rate_is("1T/min", true, 536870912, 29296875);
	check(parse_rate("inf", false, &r, err, sizeof err) == 0 && r.inf,
	    "inf");

	rate_bad("0", false, "above zero");
	rate_bad("0/s", false, "above zero");
	rate_bad("-1", false, "signed");
	rate_bad("abc", false, "expected a number");
	rate_bad("1e400", false, "unknown unit 'e'");
	rate_bad("10/fortnight", false, "unknown period 'fortnight'");
	rate_bad("5/0s", false, "longer than zero");
	rate_bad("", false, "empty");
	rate_bad("1KiB/s", false, "for byte rates");
	rate_bad("10q", false, "unknown unit 'q'");
	rate_bad("10s", false, "needs a slash");
	rate_bad("5/", false, "missing period");
	rate_bad("5/10", false, "missing period");
	rate_bad("1.2.3", false, "unexpected");
	rate_bad("5 /s", false, "unexpected ' /s'");
	rate_bad("2T/s", true, "fastest");
	rate_bad("1/10000day", false, "slowest");
	rate_bad("99999999999999999999999", false, "too many digits");

	/* Awkward decimals still give an exact or near-exact ratio. */
	check(parse_rate("1.23456789012345/s", false, &r, err, sizeof err) ==
	    0 && fabs(rate_per_sec(&r) / 1.23456789012345 - 1) < 1e-12,
	    "approximation of 1.23456789012345/s: %g", rate_per_sec(&r));
	check(r.n <= (UINT64_MAX >> 1) / r.d, "n*d < 2^63 after approximation");
}

static void
amount_is(const char *s, bool bytes, const char *rate, uint64_t want)
{
	struct amount a;
	struct rate r;
	uint64_t u = 0;
	char err[200] = "";
	int rc;

	(void)parse_rate(rate, bytes, &r, err, sizeof err);
	rc = parse_amount(s, bytes, &a, err, sizeof err);
	if (rc == 0)
		rc = amount_units(&a, &r, &u);
	check(rc == 0 && u == want, "amount '%s' at %s -> %" PRIu64
	    " (want %" PRIu64 ") %s", s, rate, u, want, err);
}

static void
test_parse_amount(void)
{
	struct amount a;
	char err[200];

	current = "parse_amount";
	amount_is("10", false, "1/s", 10);
	amount_is("2k", false, "1/s", 2000);
	amount_is("2s", false, "5/s", 10);
	amount_is("500ms", false, "10/s", 5);
	amount_is("1.5min", false, "2/s", 180);
	amount_is("64K", true, "1M/s", 65536);
	amount_is("1MB", true, "1M/s", 1000000);
	amount_is("10ms", true, "1M/s", 10485);
	amount_is("1.5", false, "1/s", 1);
	amount_is("2m", false, "1/s", 120);
	check(parse_amount("2x", false, &a, err, sizeof err) == -1 &&
	    strstr(err, "unknown unit 'x'") != NULL, "2x: %s", err);
	check(parse_amount("-1", false, &a, err, sizeof err) == -1,
	    "negative amount");
	check(parse_amount("", false, &a, err, sizeof err) == -1, "empty");
	/* A value with control bytes cannot break a message over lines. */
	check(parse_amount("5\n64q", false, &a, err, sizeof err) == -1 &&
	    strchr(err, '\n') == NULL && strstr(err, "\\x0a") != NULL,
	    "control bytes escaped: %s", err);
	check(parse_amount("2s5", false, &a, err, sizeof err) == -1,
	    "trailing junk after a duration");
}

/* ---- bucket ---- */

static void
test_muldiv(void)
{
	current = "muldiv";
	check(muldiv_floor(7, 3, 2) == 10, "7*3/2");
	check(muldiv_floor(-7, 3, 2) == -11, "-7*3/2 floors");
	check(muldiv_ceil(7, 3, 2) == 11, "ceil 7*3/2");
	check(muldiv_ceil(-7, 3, 2) == -10, "ceil -7*3/2");
	check(muldiv_floor(INT64_MAX, 3, 1) == INT64_MAX, "saturates up");
	check(muldiv_floor(INT64_MIN, 3, 1) == INT64_MIN, "saturates down");
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
		if (muldiv_floor(a, num, den) != (int64_t)q) {
			check(0, "muldiv_floor(%" PRId64 ", %" PRIu64 ", %"
			    PRIu64 ")", a, num, den);
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
	return muldiv_ceil((int64_t)(k - burst), d, n);
}

static void
exact_schedule(const char *rate, uint64_t burst, int count)
{
	struct bucket b;
	struct rate r;
	char err[200];
	int64_t *rel = calloc((size_t)count, sizeof *rel);
	int bad = 0;

	(void)parse_rate(rate, false, &r, err, sizeof err);
	bucket_init(&b, r.n, r.d, burst, burst, 0);
	run_saturated(&b, 0, rel, count);
	for (int k = 0; k < count && !bad; k++)
		if (rel[k] != ideal((uint64_t)k + 1, burst, r.n, r.d)) {
			check(0, "%s b=%" PRIu64 ": unit %d at %" PRId64
			    " ns, ideal %" PRId64, rate, burst, k + 1, rel[k],
			    ideal((uint64_t)k + 1, burst, r.n, r.d));
			bad = 1;
		}
	check(!bad, "%s exact", rate);
	free(rel);
}

static void
test_exact_schedules(void)
{
	current = "saturated schedule is exact";
	exact_schedule("1000/s", 1, 100000);
	exact_schedule("1000/s", 10, 10000);
	exact_schedule("3/s", 1, 1000000);	/* 333333333.33.. ns */
	exact_schedule("7/min", 1, 1000000);	/* 8571428571.43.. ns */
	exact_schedule("7/min", 5, 1000);
	exact_schedule("1/day", 1, 1000);
	exact_schedule("1G/s", 1, 1000000);	/* 1 ns apart */
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

static void
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
	    1e-4, "achieved rate within 0.01%%");

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
		check(worst < 900 * US, "random lateness: worst %" PRId64
		    " ns behind ideal", worst);
	}
	free(rel);
}

static void
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
	check(bucket_avail(&b, 5 * NS, 5 * NS) == 5, "full after idle: %"
	    PRIu64, bucket_avail(&b, 5 * NS, 5 * NS));
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

static void
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

static void
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
	check(bucket_ready_at(&b, 0, 1) == 51 * MS, "then on schedule from"
	    " the catch-up point: %" PRId64, bucket_ready_at(&b, 0, 1));

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

/*
 * In any window [t_i, t_j] of the releases: j - i + 1 <= burst +
 * rate * (t_j - t_i + catchup).
 */
static int
window_ok(const int64_t *rel, int count, uint64_t burst, uint64_t n,
    uint64_t d, int64_t catchup_ns)
{
	long double r = (long double)n / d, best = -1e300L;

	for (int j = 0; j < count; j++) {
		long double v = r * rel[j] - j;

		if (v > best)
			best = v;
		if (best + j + 1 - r * rel[j] > burst +
		    r * catchup_ns + 1e-6L)
			return 0;
	}
	return 1;
}

static void
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
			late = rng_below(4) == 0 ?
			    (int64_t)rng_below(3 * MS) : 0;
			if (due > now)
				now = due + late;
			got = bucket_take(&b, arrive, now,
			    1 + rng_below(burst + 3));
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
		    " exceeds the window bound", c, n, d, burst);
		free(rel);
	}
}

static void
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
		(void)bucket_take(&b, 0, (int64_t)rng_below(NS),
		    rng_below(burst + 1));
		due = bucket_ready_at(&b, ready, units);
		now = due + (int64_t)rng_below(3 * MS);
		if (bucket_avail(&b, ready, now) < units ||
		    (due > ready && bucket_avail(&b, ready, due - 1) >= units)) {
			check(0, "n=%" PRIu64 " d=%" PRIu64 " burst=%" PRIu64
			    " units=%" PRIu64, n, d, burst, units);
			return;
		}
	}
	check(1, "ready_at is the earliest time with enough tokens");
}

/* ---- sliding window ---- */

static void
test_window(void)
{
	struct window w;
	int64_t now;

	current = "sliding window";
	/* 3 per second: three at once, then the next three a second later. */
	check(window_init(&w, 3, NS, 0) == 0, "init");
	check(window_take(&w, 0, 0, 10) == 3, "first window");
	check(window_ready_at(&w, 0, 1) == NS, "fourth at 1 s");
	check(window_avail(&w, 0, NS - 1) == 0, "not a ns early");
	check(window_take(&w, 0, NS, 10) == 3, "second window");
	check(window_ready_at(&w, 0, 2) == 2 * NS, "two more at 2 s");
	/* After an idle gap the whole window is free again at once. */
	check(window_take(&w, 10 * NS, 10 * NS, 10) == 3, "after idle");
	window_free(&w);

	/* Spread releases: the window slides with each one. */
	check(window_init(&w, 2, NS, 0) == 0, "init 2/s");
	(void)window_take(&w, 0, 0, 1);
	(void)window_take(&w, 600 * MS, 600 * MS, 1);
	check(window_ready_at(&w, 600 * MS, 1) == NS, "third when the first"
	    " leaves: %" PRId64, window_ready_at(&w, 600 * MS, 1));
	(void)window_take(&w, 600 * MS, NS, 1);
	check(window_ready_at(&w, NS, 1) == 1600 * MS, "fourth when the"
	    " second leaves");
	window_free(&w);

	/* No drift: 1 per ms, every wake-up 70 us late, catch-up 1 ms. */
	check(window_init(&w, 1, MS, MS) == 0, "init 1/ms");
	now = 0;
	for (int k = 0; k < 10000; k++) {
		int64_t due = window_ready_at(&w, 0, 1);

		if (due > now)
			now = due + 70 * US;
		(void)window_take(&w, 0, now, 1);
	}
	check(now == 9999 * MS + 70 * US, "no drift: last at %" PRId64, now);
	window_free(&w);

	/* Random arrivals and lateness, catch-up 0: no window of the
	 * actual releases holds more than the limit. */
	for (int c = 0; c < 200; c++) {
		uint64_t limit = 1 + rng_below(20);
		int64_t width = (int64_t)(1 + rng_below(100)) * MS;
		int64_t rel[3000], arrive = 0;
		int k = 0, j = 0, bad = 0;

		check(window_init(&w, limit, width, 0) == 0, "init random");
		now = 0;
		while (k < 3000) {
			int64_t due;
			uint64_t got;

			if (rng_below(4) == 0)
				arrive += (int64_t)rng_below((uint64_t)width);
			if (arrive > now)
				now = arrive;
			due = window_ready_at(&w, arrive, 1);
			if (due > now)
				now = due + (int64_t)rng_below(2 * MS);
			got = window_take(&w, arrive, now, 1 + rng_below(limit));
			if (got == 0) {
				bad = 1;
				break;
			}
			for (uint64_t i = 0; i < got && k < 3000; i++)
				rel[k++] = now;
		}
		for (int i = 0; i < k && !bad; i++) {
			while (rel[i] - rel[j] >= width)
				j++;
			if ((uint64_t)(i - j + 1) > limit)
				bad = 2;
		}
		check(!bad, "case %d: limit %" PRIu64 " width %" PRId64
		    ": %s", c, limit, width, bad == 1 ? "no grant at the"
		    " deadline" : "a window over the limit");
		window_free(&w);
	}
}

/* ---- fixed windows ---- */

static void
test_fixed(void)
{
	struct fixed f;

	current = "fixed windows";
	/* Wall time is monotonic + 0.3 s: windows start at 0.7, 1.7, ... */
	fixed_init(&f, 3, NS, 300 * MS, 0);
	check(fixed_take(&f, 0, 0, 10) == 3, "three in the first window");
	check(fixed_ready_at(&f, 0, 1) == 700 * MS, "next at the boundary: %"
	    PRId64, fixed_ready_at(&f, 0, 1));
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
		for (int k = 0; k < 2000 && !bad; ) {
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

/* ---- several limits ---- */

static void
test_set(void)
{
	struct bucket sustained, peak;
	struct limiter m[2], all;
	struct limiter_set set = { m, 2 };
	int64_t now = 0, rel[20];

	current = "several limits";
	/* 10/s burst 5 with a peak of 50/s burst 2, saturated input. */
	bucket_init(&sustained, 1, 100 * MS, 5, 5, 0);
	bucket_init(&peak, 1, 20 * MS, 2, 2, 0);
	limiter_of_bucket(&m[0], &sustained);
	limiter_of_bucket(&m[1], &peak);
	limiter_of_set(&all, &set);
	for (int k = 0; k < 20; k++) {
		int64_t due = all.ready_at(all.self, 0, 1);

		if (due > now)
			now = due;
		if (all.take(all.self, 0, now, 1) != 1) {
			check(0, "no grant at the deadline");
			return;
		}
		rel[k] = now;
	}
	check(rel[0] == 0 && rel[1] == 0, "peak burst of 2 at once");
	check(rel[2] == 20 * MS && rel[3] == 40 * MS && rel[4] == 60 * MS,
	    "then the peak rate: %" PRId64 " %" PRId64, rel[2], rel[3]);
	check(rel[5] == 100 * MS && rel[6] == 200 * MS && rel[19] ==
	    1500 * MS, "then the sustained rate: %" PRId64 " %" PRId64,
	    rel[5], rel[19]);
	/* Neither is charged for a unit the other refuses. */
	bucket_init(&sustained, 1, NS, 1, 0, 0);	/* empty */
	bucket_init(&peak, 1, NS, 3, 3, 0);
	check(all.take(all.self, 0, 0, 5) == 0, "refused by one");
	check(bucket_avail(&peak, 0, 0) == 3, "the other not charged");
}

/* ---- framer ---- */

static void
test_framer(void)
{
	struct framer lines = { false, '\n' }, bytes = { true, 0 };
	const char *s = "ab\ncd\nef";
	size_t units;

	current = "framer";
	check(framer_span(&lines, s, 8, 10, &units) == 6 && units == 2,
	    "two whole lines");
	check(framer_span(&lines, s, 8, 1, &units) == 3 && units == 1,
	    "max 1");
	check(framer_span(&lines, s, 2, 10, &units) == 0 && units == 0,
	    "no delimiter");
	check(framer_whole(&lines, s, 8) == 6, "whole stops at last delim");
	check(framer_whole(&lines, "abc", 3) == 0, "whole: none");
	check(framer_span(&bytes, s, 8, 5, &units) == 5 && units == 5,
	    "bytes");
	check(framer_whole(&bytes, s, 8) == 8, "bytes whole");
	check(framer_count(&lines, s, 8, false) == 2, "count: two lines");
	check(framer_count(&lines, s, 8, true) == 3, "count: and a final");
	check(framer_count(&lines, s, 6, true) == 2, "count: final ended");
	check(framer_count(&lines, s, 0, true) == 0, "count: empty");
	check(framer_count(&bytes, s, 8, true) == 8, "count: bytes");
	{
		struct framer nul = { false, '\0' };

		check(framer_span(&nul, "a\0b\0c", 5, 9, &units) == 4 &&
		    units == 2, "NUL records");
	}
	{
		/* The word-at-a-time count against a byte loop, for every
		 * delimiter and buffers of bytes near it, 0x00, 0x7f, 0x80
		 * and 0xff, at every length and alignment. */
		static const unsigned char near[] = { 0, 1, 0x7f, 0x80, 0xff };
		char b[80] = { 0 };
		int bad = 0;

		for (int delim = 0; delim < 256; delim++) {
			struct framer f = { false, (unsigned char)delim };

			for (int round = 0; round < 40; round++) {
				size_t off = rng_below(8), len = rng_below(70);
				size_t want = 0;

				for (size_t i = 0; i < off + len; i++) {
					uint64_t r = rng_below(4);

					b[i] = (char)(r == 0 ? delim : r == 1 ?
					    delim ^ (int)(1u << rng_below(8)) :
					    near[rng_below(5)]);
				}
				for (size_t i = off; i < off + len; i++)
					want += (unsigned char)b[i] == delim;
				if (framer_count(&f, b + off, len, false) !=
				    want)
					bad++;
			}
		}
		check(bad == 0, "count: %d of 10240 random buffers wrong", bad);
	}
}

/* ---- options ---- */

static enum parse_result
parse(struct config *cfg, char *err, size_t errsz, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"tbthrottle";
	va_start(ap, errsz);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	return options_parse(cfg, argc, argv, err, errsz);
}

static void
opt_bad(const char *want, ...)
{
	char *argv[32], err[512] = "";
	struct config cfg;
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"tbthrottle";
	va_start(ap, want);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	check(options_parse(&cfg, argc, argv, err, sizeof err) == OPT_ERROR &&
	    strstr(err, want) != NULL && strchr(err, '\n') == NULL,
	    "args starting '%s' should fail with '%s', got '%s'", argv[1],
	    want, err);
}

static void
test_options(void)
{
	struct config cfg;
	char err[512];

	current = "options";
	check(parse(&cfg, err, sizeof err, "-r", "10/s", (char *)NULL) ==
	    OPT_RUN && cfg.nlimits == 1 && cfg.limits[0].burst == 1 &&
	    cfg.limits[0].initial == 1 && cfg.mode == UNIT_LINES &&
	    cfg.delim == '\n', "defaults");
	check(parse(&cfg, err, sizeof err, "-c", "-r", "1M/s", (char *)NULL) ==
	    OPT_RUN && cfg.limits[0].burst == 10485,
	    "byte burst is 10 ms: %" PRIu64, cfg.limits[0].burst);
	check(parse(&cfg, err, sizeof err, "--rate=5", "-b", "2s", "--initial",
	    "0", "f1", "f2", (char *)NULL) == OPT_RUN &&
	    cfg.limits[0].burst == 10 && cfg.limits[0].initial == 0 &&
	    cfg.nfiles == 2, "burst as duration, files");
	check(parse(&cfg, err, sizeof err, "-0", "-r", "1", (char *)NULL) ==
	    OPT_RUN && cfg.delim == '\0', "-0");
	check(parse(&cfg, err, sizeof err, "-d", "\\t", "-r", "1",
	    (char *)NULL) == OPT_RUN && cfg.delim == '\t', "-d \\t");
	check(parse(&cfg, err, sizeof err, "-d", "\\x1e", "-r", "1",
	    (char *)NULL) == OPT_RUN && cfg.delim == 0x1e, "-d \\x1e");
	check(parse(&cfg, err, sizeof err, "--leaky", "-a", "leaky", "-r", "1",
	    (char *)NULL) == OPT_RUN && cfg.algorithm == ALG_LEAKY, "leaky");
	check(parse(&cfg, err, sizeof err, "-h", (char *)NULL) == OPT_HELP,
	    "help");
	check(parse(&cfg, err, sizeof err, "-V", (char *)NULL) == OPT_VERSION,
	    "version");
	check(parse(&cfg, err, sizeof err, "-r", "inf", "-b", "5",
	    (char *)NULL) == OPT_RUN && config_unlimited(&cfg) &&
	    cfg.nlimits == 0, "inf ignores -b, and is no limit");
	check(parse(&cfg, err, sizeof err, "--byte-rate", "1M/s",
	    (char *)NULL) == OPT_RUN && config_unlimited(&cfg) &&
	    cfg.byte_limited, "--byte-rate alone: no limit on records");

	check(parse(&cfg, err, sizeof err, "-r", "1", (char *)NULL) == OPT_RUN &&
	    cfg.catchup_ns == BUCKET_CATCHUP_NS, "catch-up default");
	check(parse(&cfg, err, sizeof err, "-r", "1", "--catch-up", "0",
	    (char *)NULL) == OPT_RUN && cfg.catchup_ns == 0, "catch-up 0");
	check(parse(&cfg, err, sizeof err, "-r", "1", "--catch-up=2.5ms",
	    (char *)NULL) == OPT_RUN && cfg.catchup_ns == 2500000,
	    "catch-up 2.5ms");
	opt_bad("invalid --catch-up '5': give a duration", "-r", "1",
	    "--catch-up", "5", (char *)NULL);
	opt_bad("invalid --catch-up '2h': at most 1h", "-r", "1",
	    "--catch-up", "2h", (char *)NULL);
	opt_bad("invalid --catch-up '-1ms'", "-r", "1", "--catch-up", "-1ms",
	    (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-a", "sliding", "-r", "100/min",
	    (char *)NULL) == OPT_RUN && cfg.algorithm == ALG_SLIDING &&
	    cfg.limits[0].rate.count == 100 &&
	    cfg.limits[0].rate.period_ns == 60 * NS &&
	    cfg.limits[0].burst == 100, "sliding 100/min");
	opt_bad("whole count per period", "-a", "sliding", "-r", "0.5/s",
	    (char *)NULL);
	opt_bad("-b does not apply to -a sliding", "-a", "sliding", "-r",
	    "5/s", "-b", "2", (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-a", "fixed", "-r", "2/h",
	    (char *)NULL) == OPT_RUN && cfg.algorithm == ALG_FIXED &&
	    cfg.limits[0].rate.count == 2 &&
	    cfg.limits[0].rate.period_ns == 3600 * NS, "fixed");
	opt_bad("-b does not apply to -a fixed", "-a", "fixed", "-r", "5/s",
	    "-b", "2", (char *)NULL);
	opt_bad("missing -r", (char *)NULL);
	opt_bad("invalid rate '0'", "-r", "0", (char *)NULL);
	opt_bad("invalid rate '-1'", "-r", "-1", (char *)NULL);
	opt_bad("invalid rate 'abc'", "-r", "abc", (char *)NULL);
	opt_bad("invalid burst '0'", "-r", "1", "-b", "0", (char *)NULL);
	opt_bad("invalid burst '10ms'", "-r", "1", "-b", "10ms", (char *)NULL);
	opt_bad("invalid --initial '-1'", "-r", "1", "--initial", "-1",
	    (char *)NULL);
	opt_bad("invalid --initial '5'", "-r", "1", "-b", "2", "--initial", "5",
	    (char *)NULL);
	opt_bad("invalid delimiter ''", "-r", "1", "-d", "", (char *)NULL);
	opt_bad("invalid delimiter 'ab'", "-r", "1", "-d", "ab", (char *)NULL);
	opt_bad("-c conflicts with -l", "-l", "-c", "-r", "1", (char *)NULL);
	opt_bad("-0 conflicts with -d", "-d", ",", "-0", "-r", "1",
	    (char *)NULL);
	opt_bad("does not apply to -a leaky", "--leaky", "-b", "3", "-r", "1",
	    (char *)NULL);
	opt_bad("conflicting algorithms", "-a", "token", "--leaky", "-r", "1",
	    (char *)NULL);
	opt_bad("invalid algorithm 'foo'", "-a", "foo", "-r", "1",
	    (char *)NULL);
	opt_bad("unknown option '--frobnicate'", "--frobnicate", (char *)NULL);
	opt_bad("unknown option '-x'", "-x", (char *)NULL);
	opt_bad("option '-r' needs a value", "-r", (char *)NULL);
	check(parse(&cfg, err, sizeof err, "-r", "1000/s", "-b", "5000", "-r",
	    "5000/s", "-b", "10", (char *)NULL) == OPT_RUN && cfg.nlimits == 2 &&
	    cfg.limits[0].burst == 5000 && cfg.limits[1].burst == 10 &&
	    cfg.limits[1].rate.d == 200000,
	    "two limits, each -b after its -r");
	check(parse(&cfg, err, sizeof err, "-b", "7", "-r", "1", (char *)NULL) ==
	    OPT_RUN && cfg.nlimits == 1 && cfg.limits[0].burst == 7,
	    "-b before a single -r");
	opt_bad("comes before any -r", "-b", "2", "-r", "1", "-r", "2",
	    (char *)NULL);
	opt_bad("-b given twice ('2' and '3') for one -r", "-r", "1", "-b", "2",
	    "-b", "3", (char *)NULL);
	opt_bad("-r inf cannot be combined", "-r", "1", "-r", "inf",
	    (char *)NULL);
	opt_bad("--initial applies to a single -r", "-r", "1", "-r", "2",
	    "--initial", "0", (char *)NULL);
	opt_bad("too many -r", "-r", "1", "-r", "1", "-r", "1", "-r", "1", "-r",
	    "1", "-r", "1", "-r", "1", "-r", "1", "-r", "1", (char *)NULL);
	opt_bad("100 years", "-c", "-r", "1/day", "-b", "1G", (char *)NULL);
	/* When several things are wrong, the first in the rules' order is
	 * named; the -r are read last to first. */
	opt_bad("invalid rate 'y'", "-r", "x", "-r", "y", (char *)NULL);
	opt_bad("-r inf cannot be combined", "-r", "0", "-r", "inf",
	    (char *)NULL);
	opt_bad("invalid rate '0'", "-r", "inf", "-r", "0", (char *)NULL);
	opt_bad("invalid --byte-rate '0'", "--byte-rate", "0", "-b", "5", "-r",
	    "1", "-r", "2", (char *)NULL);
	opt_bad("invalid -R 'x'", "-R", "x", (char *)NULL);
	opt_bad("-R takes only -r and -b, not '--stats'", "-R", "x",
	    "--stats=json", (char *)NULL);
	opt_bad("invalid rate '0'", "--shared", ".x", "-r", "0", (char *)NULL);
	opt_bad("-k 5 needs a rate", "-k", "05", "--shared", "x", "-r", "inf",
	    (char *)NULL);
	opt_bad("for byte rates", "-r", "1KiB/s", (char *)NULL);
}

/* The option table: --help shows every option it reads. */
static void
test_option_table(void)
{
	char *text = NULL, want[64];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int i;

	current = "option table";
	if (fp == NULL) {
		check(0, "open_memstream");
		return;
	}
	options_usage(fp);
	fclose(fp);
	for (i = 0; options_long_name(i) != NULL; i++) {
		snprintf(want, sizeof want, "--%s", options_long_name(i));
		check(strstr(text, want) != NULL, "--help names %s", want);
		for (int j = 0; j < i; j++)
			check(strcmp(options_long_name(i),
			    options_long_name(j)) != 0, "%s twice", want);
	}
	check(i == 26, "26 long options: %d", i);
	free(text);
	/* options.h names these so as not to include the limiters. */
	check(DEFAULT_CATCHUP_NS == BUCKET_CATCHUP_NS, "catch-up default");
	check(MAX_WINDOW_UNITS == WINDOW_MAX_LIMIT, "window limit");
}

/* One limit, as the command line and -R read it. */
static void
test_limit_parse(void)
{
	struct limit l;
	char err[512];

	current = "limit_parse";
	check(limit_parse("10/s", NULL, NULL, UNIT_LINES, ALG_TOKEN, &l, err,
	    sizeof err) == 0 && l.burst == 1 && l.initial == 1 &&
	    l.rate.n == 1 && l.rate.d == NS / 10, "10/s: one record");
	check(limit_parse("1M/s", NULL, NULL, UNIT_BYTES, ALG_TOKEN, &l, err,
	    sizeof err) == 0 && l.burst == 10485, "1M/s of bytes: 10 ms");
	check(limit_parse("1M/s", NULL, NULL, UNIT_BYTES, ALG_LEAKY, &l, err,
	    sizeof err) == 0 && l.burst == 1, "leaky bytes: one");
	check(limit_parse("5/s", "2s", "3", UNIT_NULL, ALG_TOKEN, &l, err,
	    sizeof err) == 0 && l.burst == 10 && l.initial == 3,
	    "burst as time, initial");
	check(limit_parse("inf", "5", NULL, UNIT_LINES, ALG_TOKEN, &l, err,
	    sizeof err) == 0 && l.rate.inf && l.burst == 1, "inf");
	check(limit_parse("1/min", "5", NULL, UNIT_LINES, ALG_LEAKY, &l, err,
	    sizeof err) != 0 && strcmp(err, "-b 5 does not apply to -a "
	    "leaky, which releases one unit every 1/RATE") == 0, "%s", err);
	check(limit_parse("1/3650day", "5000", NULL, UNIT_LINES, ALG_TOKEN,
	    &l, err, sizeof err) != 0 && strcmp(err, "invalid burst '5000': "
	    "takes more than 100 years to refill at 1/3650day") == 0, "%s",
	    err);
	check(limit_parse("7/min", "2", NULL, UNIT_LINES, ALG_SLIDING, &l, err,
	    sizeof err) != 0 && strcmp(err, "-b does not apply to -a "
	    "sliding: N in N/PERIOD is the most units in a window") == 0, "%s",
	    err);
	check(limit_parse("5/\n", NULL, NULL, UNIT_LINES, ALG_TOKEN, &l, err,
	    sizeof err) != 0 && strchr(err, '\n') == NULL &&
	    strstr(err, "'5/\\x0a'") != NULL, "one line: %s", err);
}

static void
test_keys(void)
{
	struct keytab t;
	struct bucket proto;
	const char *k;
	size_t n;
	int bad = 0;

	current = "key fields";
	n = key_field("  a b\tc ", 8, 2, -1, &k);
	check(n == 1 && *k == 'b', "blanks: field 2");
	n = key_field("  a b\tc ", 8, 3, -1, &k);
	check(n == 1 && *k == 'c', "blanks: field 3 after a tab");
	n = key_field("  a b\tc ", 8, 4, -1, &k);
	check(n == 0, "blanks: no field 4 is the empty key");
	n = key_field("a,,c", 4, 2, ',', &k);
	check(n == 0 && *k == ',', "sep: an empty field 2");
	n = key_field("a,,c", 4, 3, ',', &k);
	check(n == 1 && *k == 'c', "sep: field 3");
	n = key_field("a,,c", 4, 4, ',', &k);
	check(n == 0, "sep: no field 4");
	n = key_field("", 0, 1, -1, &k);
	check(n == 0, "empty record");

	current = "per-key buckets";
	/* 1/s, burst 2 per key: each key gets its own two at once. */
	bucket_init(&proto, 1, NS, 2, 2, 0);
	check(keytab_init(&t, &proto, 100, 42, 0) == 0, "init");
	for (int rep = 0; rep < 3; rep++)
		for (char c = 'a'; c <= 'e'; c++) {
			keytab_select(&t, &c, 1, 0);
			if (bucket_take(&t.cur, 0, 0, 1) != (rep < 2 ? 1u : 0u))
				bad++;
			keytab_store(&t, 1, 0);
		}
	check(bad == 0, "two per key at once, then none");
	check(t.live == 5, "5 live keys: %zu", t.live);
	keytab_select(&t, "a", 1, 0);
	check(bucket_ready_at(&t.cur, 0, 1) == NS, "key a: next at 1 s");
	/* Refilled at 2 s: a full bucket is forgotten on the next sweep. */
	keytab_free(&t);

	/* max_keys 3: a fourth live key shares the overflow bucket. */
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	(void)keytab_init(&t, &proto, 3, 42, 0);
	for (char c = 'a'; c <= 'f'; c++) {
		keytab_select(&t, &c, 1, 0);
		(void)bucket_take(&t.cur, 0, 0, 1);
		keytab_store(&t, 1, 0);
	}
	check(t.live == 3, "capped at 3 live: %zu", t.live);
	check(t.overflowed == 3, "3 went to the overflow bucket: %" PRIu64,
	    t.overflowed);
	keytab_select(&t, "g", 1, 0);
	check(t.sel_overflow && bucket_avail(&t.cur, 0, 0) == 0,
	    "the overflow bucket is spent");
	keytab_free(&t);

	/* A million keys, each charged once at 1/ms with burst 1: at any
	 * time only the last millisecond's keys are live, so forgetting
	 * refilled buckets keeps the table small. */
	bucket_init(&proto, 1, MS, 1, 1, 0);
	(void)keytab_init(&t, &proto, 1000000, 42, 0);
	bad = 0;
	for (uint64_t i = 0; i < 1000000; i++) {
		char key[8];
		int64_t now = (int64_t)(i / 1000) * MS;

		memcpy(key, &i, sizeof key);
		keytab_select(&t, key, sizeof key, now);
		if (bucket_take(&t.cur, now, now, 1) != 1)
			bad++;
		keytab_store(&t, 1, now);
	}
	check(bad == 0, "every new key finds a full bucket");
	check(t.cap <= 16384, "table stays small: %zu slots, %zu live",
	    t.cap, t.live);
	keytab_free(&t);
}

static void
test_gcra(void)
{
	struct gcra g = { 1, NS, 3 };
	int64_t tat = 0, at;
	int bad = 0;

	current = "gcra: the shared bucket's one-word form";
	tat = gcra_reserve(&g, tat, 0, 3, &at);
	check(at == 0 && tat == 3 * NS, "a full bucket: 3 at once");
	tat = gcra_reserve(&g, tat, 0, 1, &at);
	check(at == NS, "the fourth books 1 s: %" PRId64, at);
	check(gcra_avail(&g, tat, 0) == 0, "none left");
	check(gcra_avail(&g, tat, 2500 * MS) == 1, "one at 2.5 s");
	check(gcra_avail(&g, tat, 3600 * NS) == 3, "full after idle");
	tat = gcra_reserve(&g, tat, 3600 * NS, 1, &at);
	check(at == 3600 * NS, "idle credit is capped at the burst");

	/* 3 per 7 s, burst 1, all booked at 0: unit k goes at exactly
	 * ceil(k * 7 s / 3), the same schedule as the private bucket. */
	g = (struct gcra){ 3, 7 * NS, 1 };
	tat = 0;
	for (int64_t k = 0; k < 100000; k++) {
		tat = gcra_reserve(&g, tat, 0, 1, &at);
		if (gcra_unscale(&g, 0, at) != (k * 7 * NS + 2) / 3)
			bad++;
	}
	check(bad == 0, "3/7s: %d of 100000 off the exact schedule", bad);
	check(gcra_scale(&g, 0, 10 * NS) == 30 * NS, "scale by n");
	check(gcra_scale(&g, 0, INT64_MAX / 2) == -1, "out of range");
}

/* ---- property tests: every algorithm, shaping and policing ---- */

enum palg { P_TOKEN, P_LEAKY, P_SLIDING, P_FIXED, P_SET, P_KEYS, P_GCRA,
	P_NALG };
static const char *const palg_name[] = { "token", "leaky", "sliding",
	"fixed", "token+token", "per-key", "shared (gcra)" };

/* A limiter on the one-word shared bucket, without the file. */
struct pgcra {
	struct gcra g;
	int64_t tat;
};

static int64_t
pg_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	const struct pgcra *p = self;
	int64_t at;

	(void)gcra_reserve(&p->g, p->tat, gcra_scale(&p->g, 0, ready_ns),
	    units, &at);
	return gcra_unscale(&p->g, 0, at);
}

static uint64_t
pg_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	const struct pgcra *p = self;

	(void)ready_ns;
	return gcra_avail(&p->g, p->tat, gcra_scale(&p->g, 0, now_ns));
}

static uint64_t
pg_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	struct pgcra *p = self;
	int64_t now = gcra_scale(&p->g, 0, now_ns), at;
	uint64_t got = gcra_avail(&p->g, p->tat, now);

	(void)ready_ns;
	if (got > max)
		got = max;
	if (got > 0)
		p->tat = gcra_reserve(&p->g, p->tat, now, got, &at);
	return got;
}

/* Most releases in any window [t, t + width) of sorted rel[0..count). */
static int
most_in_window(const int64_t *rel, int count, int64_t width)
{
	int best = 0;

	for (int i = 0, j = 0; j < count; j++) {
		while (rel[j] - rel[i] >= width)
			i++;
		if (j - i + 1 > best)
			best = j - i + 1;
	}
	return best;
}

static void
test_properties(void)
{
	int cases = 0, bad_bound = 0, bad_order = 0, bad_count = 0;
	char first[80] = "";

	current = "properties: random arrivals on every algorithm";
	for (int c = 0; c < 6000; c++) {
		enum palg alg = (enum palg)(c % P_NALG);
		bool police = (c / P_NALG) % 2;
		uint64_t n = 1 + rng_below(100);
		uint64_t d = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
		uint64_t burst = alg == P_LEAKY ? 1 : 1 + rng_below(12);
		int64_t catchup = alg == P_SLIDING || alg == P_FIXED ||
		    alg == P_GCRA || police ? 0 :
		    (int64_t)rng_below(3) * MS;
		int count = 120, keys = alg == P_KEYS ? 3 : 1;
		int64_t arrive[120], rel[120], krel[3][120], now = 0, t = 0;
		int64_t ready = 0;
		int key[120], nrel = 0, kn[3] = { 0, 0, 0 }, dropped = 0;
		struct bucket b[2];
		struct window w;
		struct fixed fx;
		struct keytab kt;
		struct pgcra pg;
		struct limiter l, members[2];
		struct limiter_set set;
		int64_t width = (int64_t)(burst * d / n);

		if (width < 1)
			width = 1;
		switch (alg) {
		case P_TOKEN:
		case P_LEAKY:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_set_catchup(&b[0], catchup);
			limiter_of_bucket(&l, &b[0]);
			break;
		case P_SLIDING:
			(void)window_init(&w, burst, width, 0);
			limiter_of_window(&l, &w);
			break;
		case P_FIXED:
			fixed_init(&fx, burst, width,
			    (int64_t)rng_below((uint64_t)width), 0);
			limiter_of_fixed(&l, &fx);
			break;
		case P_SET:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_init(&b[1], 2 * n, d, 2, 2, 0);
			bucket_set_catchup(&b[0], catchup);
			bucket_set_catchup(&b[1], catchup);
			limiter_of_bucket(&members[0], &b[0]);
			limiter_of_bucket(&members[1], &b[1]);
			set = (struct limiter_set){ members, 2 };
			limiter_of_set(&l, &set);
			break;
		case P_KEYS:
			bucket_init(&b[0], n, d, burst, burst, 0);
			bucket_set_catchup(&b[0], catchup);
			(void)keytab_init(&kt, &b[0], 1000, (uint64_t)c, 0);
			limiter_of_keys(&l, &kt);
			break;
		case P_GCRA:
			pg = (struct pgcra){ { n, d, burst }, 0 };
			l = (struct limiter){ &pg, pg_ready_at, pg_avail,
			    pg_take, NULL };
			break;
		case P_NALG:
			break;
		}
		for (int i = 0; i < count; i++) {
			if (rng_below(4) == 0)
				t += (int64_t)rng_below(2 * d / n + 1);
			arrive[i] = t;
			key[i] = (int)rng_below((uint64_t)keys);
		}
		for (int i = 0; i < count; i++) {
			char kc = (char)('a' + key[i]);

			if (police) {
				if (alg == P_KEYS)
					keytab_select(&kt, &kc, 1, arrive[i]);
				/* Judged on arrival; conservation below. */
				if (limiter_take(&l, arrive[i], arrive[i], 1) ==
				    1) {
					rel[nrel++] = arrive[i];
					krel[key[i]][kn[key[i]]++] = arrive[i];
				} else {
					dropped++;
				}
				continue;
			}
			/* Shaped, as the pump does: units wait since the
			 * backlog began (ready), each for its due time; the
			 * waker is sometimes late. */
			if (arrive[i] > now)
				now = ready = arrive[i];
			if (alg == P_KEYS)
				keytab_select(&kt, &kc, 1, now);
			{
				int64_t due = limiter_ready_at(&l, ready, 1);

				if (due > now)
					now = due + (rng_below(4) == 0 ?
					    (int64_t)rng_below(3 * MS) : 0);
				if (limiter_take(&l, ready, now, 1) != 1 ||
				    now < due || now < arrive[i])
					bad_order++;
			}
			if (nrel > 0 && now < rel[nrel - 1])
				bad_order++;
			rel[nrel++] = now;
			krel[key[i]][kn[key[i]]++] = now;
		}
		if (nrel + dropped != count)
			bad_count++;
		/* Each algorithm's own promise. */
		switch (alg) {
		case P_TOKEN:
		case P_LEAKY:
		case P_GCRA:
			if (!window_ok(rel, nrel, burst, n, d, catchup))
				bad_bound++;
			break;
		case P_SET:
			if (!window_ok(rel, nrel, burst, n, d, catchup) ||
			    !window_ok(rel, nrel, 2, 2 * n, d, catchup))
				bad_bound++;
			break;
		case P_KEYS:
			for (int k = 0; k < keys; k++)
				if (!window_ok(krel[k], kn[k], burst, n, d,
				    catchup))
					bad_bound++;
			break;
		case P_SLIDING:
			if (most_in_window(rel, nrel, width) > (int)burst)
				bad_bound++;
			break;
		case P_FIXED: {
			/* At most burst in each window on the wall clock. */
			int64_t off = fx.wall_offset_ns;

			for (int i = 0, j; i < nrel; i = j) {
				int64_t win = (rel[i] + off) / width;

				for (j = i; j < nrel &&
				    (rel[j] + off) / width == win; j++)
					;
				if (j - i > (int)burst)
					bad_bound++;
			}
			break;
		}
		case P_NALG:
			break;
		}
		if (alg == P_SLIDING)
			window_free(&w);
		if (alg == P_KEYS)
			keytab_free(&kt);
		if (first[0] == '\0' && bad_order + bad_count + bad_bound > 0)
			snprintf(first, sizeof first, " (first: case %d, %s, "
			    "%s)", c, palg_name[alg], police ? "policed" :
			    "shaped");
		cases++;
	}
	check(bad_order == 0, "%d releases early, refused or out of order%s",
	    bad_order, first);
	check(bad_count == 0, "%d cases where in != out + dropped%s",
	    bad_count, first);
	check(bad_bound == 0, "%d cases broke their algorithm's bound%s",
	    bad_bound, first);
	check(cases == 6000, "%d cases over %d algorithms, shaped and policed",
	    cases, (int)P_NALG);
}

int
main(void)
{
	test_parse_rate();
	test_parse_amount();
	test_muldiv();
	test_exact_schedules();
	test_no_drift();
	test_idle_and_initial();
	test_catchup_cap();
	test_charge_and_retune();
	test_random_conformance();
	test_ready_then_take();
	test_window();
	test_fixed();
	test_set();
	test_framer();
	test_keys();
	test_gcra();
	test_properties();
	test_options();
	test_option_table();
	test_limit_parse();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
