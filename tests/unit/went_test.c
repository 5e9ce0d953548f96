/* Unit tests of the limits told when units went (*_went, gate_went). */
#include <inttypes.h>

#include "bucket.h"
#include "fixed.h"
#include "keys.h"
#include "limiter.h"
#include "sliding.h"
#include "unit.h"

/* A sliding window counts a unit from when it went, not when taken. */
static void
sliding_cases(void)
{
	struct sliding w;

	/* 2 a second: two taken at once go 30 and 50 ms later. */
	check(sliding_init(&w, 2, NS, 10 * MS) == 0, "init 2/s");
	check(sliding_take(&w, 0, 0, 2) == 2, "two at once");
	sliding_went(&w, 2, 30 * MS); /* the first started by 30 ms */
	sliding_went(&w, 1, 50 * MS); /* the second by 50 ms */
	check(sliding_ready_at(&w, 0, 1) == NS + 30 * MS,
	    "the third a period after the first went: %" PRId64,
	    sliding_ready_at(&w, 0, 1));
	check(sliding_ready_at(&w, 0, 2) == NS + 50 * MS,
	    "the fourth a period after the second went");
	check(sliding_avail(&w, 0, NS + 29 * MS) == 0, "none a ms early");
	/* Only later: a time before what it counts is no change. */
	sliding_went(&w, 2, 10 * MS);
	check(sliding_ready_at(&w, 0, 1) == NS + 30 * MS, "never earlier");
	sliding_free(&w);

	/*
	 * --drop judges a record as of when it came: a time before the
	 * latest release went counts as that time, not as one to wait for.
	 */
	check(sliding_init(&w, 3, NS, 0) == 0, "init 3/s");
	(void)sliding_take(&w, 0, 0, 1);
	sliding_went(&w, 1, 50 * MS);
	check(sliding_avail(&w, 10 * MS, 10 * MS) == 2,
	    "judged at 10 ms, after one went at 50 ms: two more");
	check(sliding_take(&w, 10 * MS, 10 * MS, 1) == 1, "taken");
	check(sliding_take(&w, 20 * MS, 20 * MS, 5) == 1, "the last one");
	check(sliding_avail(&w, 30 * MS, 30 * MS) == 0, "then none");
	check(sliding_ready_at(&w, 0, 1) == NS + 50 * MS,
	    "next when the first leaves");
	sliding_free(&w);
}

/* A fixed window counts a unit in the window it went in. */
static void
fixed_cases(void)
{
	struct fixed f;

	/* 2 per wall second: two taken at 990 ms start at 1005 ms. */
	fixed_init(&f, 2, NS, 0, 10 * MS);
	check(fixed_take(&f, 990 * MS, 990 * MS, 2) == 2, "two at 990 ms");
	fixed_went(&f, 2, 1005 * MS);
	check(fixed_avail(&f, 1100 * MS, 1100 * MS) == 0,
	    "the second window holds them");
	check(fixed_ready_at(&f, 1100 * MS, 1) == 2 * NS,
	    "the next in the third: %" PRId64,
	    fixed_ready_at(&f, 1100 * MS, 1));
	/* Judged as of 995 ms, before the window they went in: as of its
	 * start, and full. */
	check(fixed_avail(&f, 995 * MS, 995 * MS) == 0, "judged at 995 ms");

	/* Went within the window taken in: no change. */
	fixed_init(&f, 3, NS, 0, 0);
	(void)fixed_take(&f, 100 * MS, 100 * MS, 1);
	fixed_went(&f, 1, 900 * MS);
	check(fixed_avail(&f, 950 * MS, 950 * MS) == 2, "same window");
	/* One taken at 990 ms went at 1005 ms: judged at 995 ms a record
	 * counts in the second window, which has room for two more. */
	(void)fixed_take(&f, 990 * MS, 990 * MS, 1);
	fixed_went(&f, 1, 1005 * MS);
	check(fixed_avail(&f, 995 * MS, 995 * MS) == 2,
	    "judged at 995 ms: %" PRIu64, fixed_avail(&f, 995 * MS, 995 * MS));
	check(fixed_take(&f, 995 * MS, 995 * MS, 5) == 2, "taken there");
	check(fixed_ready_at(&f, 995 * MS, 1) == 2 * NS, "then the third");
}

/* A bucket: as if taken when they went, the catch-up from then. */
static void
bucket_cases(void)
{
	struct bucket b;

	/* Leaky 20/s, catch-up 0: a start 7 ms late puts the next back. */
	bucket_init(&b, 1, 50 * MS, 1, 1, 0);
	bucket_set_catchup(&b, 0);
	check(bucket_take(&b, 0, 0, 1) == 1, "the first");
	bucket_went(&b, 1, 7 * MS);
	check(bucket_ready_at(&b, 0, 1) == 57 * MS,
	    "the next 1/rate after it went: %" PRId64,
	    bucket_ready_at(&b, 0, 1));

	/* Catch-up 10 ms: a start 7 ms late keeps its place; 15 ms late
	 * loses what is beyond the catch-up. */
	bucket_init(&b, 1, 50 * MS, 1, 1, 0);
	bucket_set_catchup(&b, 10 * MS);
	(void)bucket_take(&b, 0, 0, 1);
	bucket_went(&b, 1, 7 * MS);
	check(bucket_ready_at(&b, 0, 1) == 50 * MS, "kept its place");
	(void)bucket_take(&b, 50 * MS, 50 * MS, 1);
	bucket_went(&b, 1, 65 * MS);
	check(bucket_ready_at(&b, 0, 1) == 105 * MS,
	    "5 ms beyond the catch-up: %" PRId64, bucket_ready_at(&b, 0, 1));

	/*
	 * --drop judges a record as of when it came: a time before the
	 * latest units went counts as that time, not as one before the
	 * bucket they were taken from was there.  1/min, burst 2, catch-up
	 * 10 ms: the first went 50 ms after it came, the second came with
	 * it and has the second token.
	 */
	bucket_init(&b, 1, 60 * NS, 2, 2, 0);
	bucket_set_catchup(&b, 10 * MS);
	check(bucket_take(&b, 0, 0, 1) == 1, "the first at 0");
	bucket_went(&b, 1, 50 * MS);
	check(bucket_avail(&b, 0, 0) == 1, "judged at 0, the second: %" PRIu64,
	    bucket_avail(&b, 0, 0));
	check(bucket_take(&b, 0, 0, 2) == 1, "taken");

	/* Units taken on a schedule (the bucket not full when they were
	 * taken, nor when they went): no change. */
	bucket_init(&b, 1, 10 * MS, 5, 5, 0);
	bucket_set_catchup(&b, 0);
	(void)bucket_take(&b, 0, 0, 5);
	(void)bucket_take(&b, 0, 10 * MS, 1);
	bucket_went(&b, 1, 12 * MS);
	check(bucket_ready_at(&b, 0, 1) == 20 * MS, "in a backlog, as taken");
}

/* Went never gives tokens: at every later time, at most as many. */
static void
bucket_never_more(void)
{
	int bad = 0;

	for (int c = 0; c < 3000; c++) {
		struct bucket b, was;
		uint64_t n = 1 + rng_below(10), burst = 1 + rng_below(8);
		uint64_t d = (1 + rng_below(100)) * MS, units;
		int64_t now = (int64_t)rng_below(NS), at;

		bucket_init(&b, n, d, burst, rng_below(burst + 1), 0);
		bucket_set_catchup(&b, (int64_t)rng_below(3) * 5 * MS);
		units = bucket_take(&b, (int64_t)rng_below((uint64_t)now + 1),
		    now, 1 + rng_below(burst));
		was = b;
		at = now + (int64_t)rng_below(3 * d);
		bucket_went(&b, units, at);
		for (int k = 0; k < 20; k++) {
			int64_t t = at + (int64_t)rng_below(4 * d);

			if (bucket_avail(&b, t, t) > bucket_avail(&was, t, t) ||
			    bucket_ready_at(&b, at, 1) <
				bucket_ready_at(&was, at, 1))
				bad++;
		}
	}
	check(
	    bad == 0, "%d times a bucket told of a late start gave more", bad);
}

/* The gate g over a table t of rule kr per key (-k 1), through kb. */
static void
keyed_gate(struct gate *g, struct gate_backend *be, struct keys_backend *kb,
    struct keytab *t, enum keys_kind kind, const struct keyrule *kr)
{
	(void)keys_init(
	    t, kind, kr, 1, NULL, 100, &(struct siphash_key){ { 1, 2 } }, 0);
	t->spec = (struct keyspec){ 1, -1, '\n' };
	keys_backend(be, kb, t);
	gate_init(g, &(struct framer){ false, '\n' }, 1);
	gate_set_units(g, be);
}

/* Through the gate: every limit in memory is told; a key's, of it. */
static void
gate_cases(void)
{
	struct sliding w1, w2;
	struct limiter m[2], all;
	struct limiter_set set = { m, 2 };
	struct gate g;
	struct gate_backend be;
	struct keys_backend kb;
	struct keytab t;
	struct keyrule kr = { 0 };
	struct booking a = { .rec = "a 1\n", .bytes = 4, .units = 1 };
	struct booking b = { .rec = "b 1\n", .bytes = 4, .units = 1 };

	/* -r 1/s -a sliding twice over: both windows told. */
	(void)sliding_init(&w1, 1, NS, 0);
	(void)sliding_init(&w2, 1, 2 * NS, 0);
	limiter_of_sliding(&m[0], &w1);
	limiter_of_sliding(&m[1], &w2);
	limiter_of_set(&all, &set);
	limiter_backend(&be, &all);
	gate_init(&g, &(struct framer){ false, '\n' }, 1);
	gate_set_units(&g, &be);
	check(!gate_alone(&g), "one limit for all: records go together");
	gate_take(&g, &a, 1, 4, 0);
	gate_went(&g, 1, 4, 40 * MS);
	check(sliding_ready_at(&w1, 0, 1) == NS + 40 * MS &&
		sliding_ready_at(&w2, 0, 1) == 2 * NS + 40 * MS,
	    "both limits of a set told");
	sliding_free(&w1);
	sliding_free(&w2);

	/* -k 1 -a sliding -r 1/s: only the key that took is told. */
	kr.sliding = (struct sliding){ .limit = 1, .width_ns = NS };
	keyed_gate(&g, &be, &kb, &t, KEYS_SLIDING, &kr);
	check(gate_alone(&g), "a limit per key: each record alone");
	gate_take(&g, &a, 1, 4, 0);
	gate_went(&g, 1, 4, 30 * MS);
	a.at_ns = 0;
	(void)gate_plan(&g, &a, 1, 0);
	check(a.due_ns == NS + 30 * MS, "key a's window told: %" PRId64,
	    a.due_ns);
	/* Taken at 0, after a went at 30 ms: as of then, whatever the
	 * key. */
	gate_take(&g, &b, 1, 4, 0);
	gate_went(&g, 1, 4, 35 * MS);
	(void)gate_plan(&g, &b, 1, 0);
	check(b.due_ns == NS + 35 * MS, "key b's own: %" PRId64, b.due_ns);
	/* a is selected again (planned), not taken: a later went is of no
	 * unit of a's. */
	(void)gate_plan(&g, &a, 1, 0);
	gate_went(&g, 1, 4, 60 * MS);
	(void)gate_plan(&g, &a, 1, 0);
	check(a.due_ns == NS + 30 * MS, "no take since: key a unchanged");
	(void)gate_plan(&g, &b, 1, 0);
	check(b.due_ns == NS + 35 * MS, "nor key b");
	keys_free(&t);
}

/* A bucket per key, told: a judge as of before then is as of then. */
static void
keys_bucket_case(void)
{
	struct gate g;
	struct gate_backend be;
	struct keys_backend kb;
	struct keytab t;
	struct keyrule kr = { 0 };
	struct booking a = { .rec = "a 1\n", .bytes = 4, .units = 1 };

	bucket_init(&kr.bucket, 1, 60 * NS, 2, 2, 0);
	bucket_set_catchup(&kr.bucket, 10 * MS);
	keyed_gate(&g, &be, &kb, &t, KEYS_BUCKET, &kr);
	check(gate_judge(&g, &a, 1) == 1 && a.taken == 1, "a's first at 0");
	gate_went(&g, 1, 4, 50 * MS);
	check(gate_judge(&g, &a, 1) == 1 && a.taken == 1,
	    "a's second, judged at 0 after the first went at 50 ms");
	check(gate_judge(&g, &a, 1) == 1 && a.taken == 0, "a's third: none");
	keys_free(&t);
}

void
test_went(void)
{
	current = "limits told when units went";
	sliding_cases();
	fixed_cases();
	bucket_cases();
	bucket_never_more();
	gate_cases();
	keys_bucket_case();
}
