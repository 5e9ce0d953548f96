/* Property tests: the real policies over random arrivals, every algorithm. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "fixed.h"
#include "gcra.h"
#include "keys.h"
#include "limiter.h"
#include "sliding.h"
#include "policy.h"
#include "shape.h"
#include "drop.h"
#include "queue.h"
#include "sim.h"
#include "unit.h"

enum palg {
	P_TOKEN,
	P_LEAKY,
	P_SLIDING,
	P_FIXED,
	P_SET,
	P_KEYS,
	P_GCRA,
	P_KEYS_SLIDING,
	P_KEYS_FIXED,
	P_NALG
};
static const char *const palg_name[] = { "token", "leaky", "sliding", "fixed",
	"token+token", "per-key", "shared (gcra)", "per-key sliding",
	"per-key fixed" };

/* Does alg keep a limit per key (-k)? */
static bool
keyed(enum palg alg)
{
	return alg == P_KEYS || alg == P_KEYS_SLIDING || alg == P_KEYS_FIXED;
}

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

	(void)gcra_reserve(
	    &p->g, p->tat, gcra_scale(&p->g, 0, ready_ns), units, &at);
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

/* ---- the real policies on a fake clock: a fake engine drives them ---- */

enum pmode { M_SHAPE, M_DROP, M_QUEUE, M_NMODE };
static const char *const pmode_name[] = { "shaped", "policed", "queued" };

/* The limiter of case c for algorithm alg, in the storage given. */
struct pcase {
	uint64_t n, d, burst;
	int64_t catchup, width;
	struct bucket b[2];
	struct sliding w;
	struct fixed fx;
	struct keytab kt;
	struct pgcra pg;
	struct limiter l, members[2];
	struct limiter_set set;
};

/* A table of the limit of alg for each key, max_keys up to 2 or 1000. */
static void
pcase_keys(struct pcase *pc, enum palg alg, int c)
{
	struct keyrule rule = { 0 };
	enum keys_kind kind = KEYS_BUCKET;

	if (alg == P_KEYS_SLIDING) {
		kind = KEYS_SLIDING;
		rule.sliding = (struct sliding){ .limit = pc->burst,
			.width_ns = pc->width,
			.catchup_ns = pc->catchup };
	} else if (alg == P_KEYS_FIXED) {
		kind = KEYS_FIXED;
		fixed_init(&rule.fixed, pc->burst, pc->width,
		    (int64_t)rng_below((uint64_t)pc->width), pc->catchup);
		pc->fx = rule.fixed;
	} else {
		bucket_init(
		    &rule.bucket, pc->n, pc->d, pc->burst, pc->burst, 0);
		bucket_set_catchup(&rule.bucket, pc->catchup);
	}
	(void)keys_init(&pc->kt, kind, &rule, 1, NULL, c % 3 == 0 ? 2 : 1000,
	    &(struct siphash_key){ { (uint64_t)c, 0 } }, 0);
	pc->kt.spec = (struct keyspec){ 1, -1, '\n' };
	limiter_of_keys(&pc->l, &pc->kt);
}

static void
pcase_limiter(struct pcase *pc, enum palg alg, int c)
{
	switch (alg) {
	case P_TOKEN:
	case P_LEAKY:
		bucket_init(&pc->b[0], pc->n, pc->d, pc->burst, pc->burst, 0);
		bucket_set_catchup(&pc->b[0], pc->catchup);
		limiter_of_bucket(&pc->l, &pc->b[0]);
		break;
	case P_SLIDING:
		(void)sliding_init(&pc->w, pc->burst, pc->width, pc->catchup);
		limiter_of_sliding(&pc->l, &pc->w);
		break;
	case P_FIXED:
		fixed_init(&pc->fx, pc->burst, pc->width,
		    (int64_t)rng_below((uint64_t)pc->width), pc->catchup);
		limiter_of_fixed(&pc->l, &pc->fx);
		break;
	case P_SET:
		bucket_init(&pc->b[0], pc->n, pc->d, pc->burst, pc->burst, 0);
		bucket_init(&pc->b[1], 2 * pc->n, pc->d, 2, 2, 0);
		bucket_set_catchup(&pc->b[0], pc->catchup);
		bucket_set_catchup(&pc->b[1], pc->catchup);
		limiter_of_bucket(&pc->members[0], &pc->b[0]);
		limiter_of_bucket(&pc->members[1], &pc->b[1]);
		pc->set = (struct limiter_set){ pc->members, 2 };
		limiter_of_set(&pc->l, &pc->set);
		break;
	case P_KEYS:
	case P_KEYS_SLIDING:
	case P_KEYS_FIXED:
		pcase_keys(pc, alg, c);
		break;
	case P_GCRA:
		pc->pg = (struct pgcra){ { pc->n, pc->d, pc->burst, 0 }, 0 };
		pc->l = (struct limiter){ .self = &pc->pg,
			.ready_at = pg_ready_at,
			.avail = pg_avail,
			.take = pg_take };
		break;
	case P_NALG:
		break;
	}
}

/* At most limit releases rel[0..n) in each window of fixed f. */
static bool
fixed_ok(const struct fixed *f, const int64_t *rel, int n, uint64_t limit)
{
	for (int i = 0, j; i < n; i = j) {
		int64_t win = fixed_window_of(f, rel[i]);

		for (j = i; j < n && fixed_window_of(f, rel[j]) == win; j++)
			;
		if (j - i > (int)limit)
			return false;
	}
	return true;
}

/* Does the release schedule s keep algorithm alg's promise? */
static bool
pcase_bound_ok(const struct pcase *pc, enum palg alg, const struct sim *s)
{
	int64_t rel[SIM_RECORDS], krel[3][SIM_RECORDS];
	int nrel = s->nrel, kn[3] = { 0, 0, 0 };
	bool ok = true;

	for (int i = 0; i < nrel; i++) {
		int id = s->order[i];

		rel[i] = s->rel[id];
		krel[s->key[id]][kn[s->key[id]]++] = s->rel[id];
	}
	switch (alg) {
	case P_TOKEN:
	case P_LEAKY:
	case P_GCRA:
		return window_ok(
		    rel, nrel, pc->burst, pc->n, pc->d, pc->catchup);
	case P_SET:
		return window_ok(
			   rel, nrel, pc->burst, pc->n, pc->d, pc->catchup) &&
		    window_ok(rel, nrel, 2, 2 * pc->n, pc->d, pc->catchup);
	case P_KEYS:
		for (int k = 0; k < 3; k++)
			ok = ok &&
			    window_ok(krel[k], kn[k], pc->burst, pc->n, pc->d,
				pc->catchup);
		return ok;
	case P_KEYS_SLIDING:
		for (int k = 0; k < 3; k++)
			ok = ok &&
			    most_in_window(krel[k], kn[k], pc->width) <=
				(int)pc->burst;
		return ok;
	case P_KEYS_FIXED:
		for (int k = 0; k < 3; k++)
			ok = ok && fixed_ok(&pc->fx, krel[k], kn[k], pc->burst);
		return ok;
	case P_SLIDING:
		return most_in_window(rel, nrel, pc->width) <= (int)pc->burst;
	case P_FIXED:
		/* At most burst in each window on the wall clock. */
		for (int i = 0, j; i < nrel; i = j) {
			int64_t off = pc->fx.wall_offset_ns;
			int64_t win = (rel[i] + off) / pc->width;

			for (j = i;
			     j < nrel && (rel[j] + off) / pc->width == win; j++)
				;
			if (j - i > (int)pc->burst)
				ok = false;
		}
		return ok;
	case P_NALG:
		break;
	}
	return ok;
}

/* What the cases found amiss, and the first that did. */
struct pfound {
	int order, count, bound;
	char first[96];
};

/* Random arrivals at about pc's rate, of keys keys. */
static void
pcase_arrivals(const struct pcase *pc, int keys, int64_t *arrive, int *key)
{
	int64_t t = 0;

	for (int i = 0; i < SIM_RECORDS; i++) {
		if (rng_below(4) == 0)
			t += (int64_t)rng_below(2 * pc->d / pc->n + 1);
		arrive[i] = t;
		key[i] = (int)rng_below((uint64_t)keys);
	}
}

/* The gate g over pc's limit of alg, its backend in be (or kb). */
static void
pcase_gate(struct pcase *pc, enum palg alg, struct gate *g,
    struct gate_backend *be, struct keys_backend *kb)
{
	gate_init(g, &(struct framer){ false, '\n' },
	    1 + rng_below(pc->burst < 4 ? pc->burst : 4));
	if (keyed(alg)) {
		keys_backend(be, kb, &pc->kt);
		g->quantum = 1;
	} else {
		limiter_backend(be, &pc->l);
	}
	gate_set_units(g, be);
	if (alg == P_LEAKY)
		g->quantum = 1;
}

/*
 * Count in f what run s of case c, in mode, found amiss (bad: what the
 * mode found besides), as its records arrived at arrive[].
 */
static void
pcase_found(const struct pcase *pc, int c, enum pmode mode, const struct sim *s,
    const int64_t *arrive, int bad, struct pfound *f)
{
	enum palg alg = (enum palg)(c % P_NALG);

	bad += s->bad;
	for (int i = 0; i < s->nrel; i++)
		if (s->rel[s->order[i]] < arrive[s->order[i]] ||
		    (i > 0 && s->order[i] < s->order[i - 1]))
			bad++; /* early, or out of order */
	f->order += bad;
	if (s->nrel + s->ndrop != SIM_RECORDS || s->len != 0)
		f->count++;
	if (!pcase_bound_ok(pc, alg, s))
		f->bound++;
	if (f->first[0] == '\0' && f->order + f->count + f->bound > 0)
		snprintf(f->first, sizeof f->first, " (first: case %d, %s, %s)",
		    c, palg_name[alg], pmode_name[mode]);
}

/*
 * Case c: random arrivals through the real policy of its mode over the
 * limit of its algorithm; with went, each record sent takes a random
 * time to go (a command's start), after which the gate is told.
 */
static void
property_case(int c, bool went, struct pfound *f)
{
	enum palg alg = (enum palg)(c % P_NALG);
	enum pmode mode = (enum pmode)((c / P_NALG) % M_NMODE);
	static struct pcase pc;
	static struct sim s;
	int64_t arrive[SIM_RECORDS];
	int key[SIM_RECORDS];
	struct gate g;
	struct gate_backend be;
	static struct keys_backend kb;
	struct policy p;
	struct shape sh;
	struct drop dr;
	struct queue q;
	uint64_t qmax = 1 + rng_below(5);
	bool qdrop = rng_below(2) == 0;

	if (keyed(alg) && mode == M_QUEUE)
		mode = M_SHAPE; /* -k does not combine with --queue */
	memset(&pc, 0, sizeof pc);
	pc.n = 1 + rng_below(100);
	pc.d = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
	pc.burst = alg == P_LEAKY ? 1 : 1 + rng_below(12);
	/* Told when units went, windows hold whatever the catch-up. */
	pc.catchup = !went &&
		(alg == P_SLIDING || alg == P_FIXED || alg == P_GCRA ||
		    alg == P_KEYS_SLIDING || alg == P_KEYS_FIXED ||
		    mode == M_DROP) ?
	    0 :
	    (int64_t)rng_below(3) * MS;
	pc.width = (int64_t)(pc.burst * pc.d / pc.n);
	if (pc.width < 1)
		pc.width = 1;
	pcase_limiter(&pc, alg, c);
	pcase_arrivals(&pc, keyed(alg) ? 3 : 1, arrive, key);
	pcase_gate(&pc, alg, &g, &be, &kb);
	sim_start(&s, arrive, key, SIM_RECORDS, mode != M_DROP, rng_below);
	if (went) {
		s.went = &g;
		s.spawn_ns = (int64_t)rng_below(2 * pc.d / pc.n + 1);
	}
	if (mode == M_SHAPE)
		shape_policy(&p, &sh, &g);
	else if (mode == M_DROP)
		drop_policy(&p, &dr, &g);
	else
		(void)queue_policy(&p, &q, &g, qmax, qdrop);
	sim_run(&s, &p);
	/* Shaping never drops; a dropping queue holds at most its N while
	 * it waits. */
	pcase_found(&pc, c, mode, &s, arrive,
	    (mode == M_SHAPE && s.ndrop > 0) +
		(mode == M_QUEUE && qdrop && s.most_held > qmax),
	    f);
	if (mode == M_QUEUE)
		queue_free(&q);
	if (alg == P_SLIDING)
		sliding_free(&pc.w);
	if (keyed(alg))
		keys_free(&pc.kt);
}

/* The checks of what the cases found. */
static void
pfound_check(const struct pfound *f)
{
	check(f->order == 0, "%d releases early, refused or out of order%s",
	    f->order, f->first);
	check(f->count == 0, "%d cases where in != out + dropped%s", f->count,
	    f->first);
	check(f->bound == 0, "%d cases broke their algorithm's bound%s",
	    f->bound, f->first);
}

void
test_properties(void)
{
	struct pfound f = { 0 };
	int cases = 0;

	current = "properties: the real policies on every algorithm";
	for (int c = 0; c < 9000; c++, cases++)
		property_case(c, false, &f);
	pfound_check(&f);
	check(cases == 9000,
	    "%d cases over %d algorithms, shaped, policed "
	    "and queued",
	    cases, (int)P_NALG);
}

/*
 * Units that go a while after they were let through (a command's start,
 * a slow write), the gate told when each went: every bound holds at the
 * times they really went, a window's exactly, a bucket's with its
 * catch-up.  Not the shared file's bucket (the bookings of another
 * process's units are of its own).
 */
void
test_went_properties(void)
{
	struct pfound f = { 0 };
	int cases = 0;

	current = "properties: the bounds hold at the times units went";
	for (int c = 0; c < 6000; c++) {
		if (c % P_NALG == P_GCRA)
			continue;
		property_case(c, true, &f);
		cases++;
	}
	pfound_check(&f);
	check(cases > 5000, "%d cases", cases);
}

/* ---- batches (--redis) against one booking at a time, on a fake clock ---- */

/* A limit kept elsewhere, as Redis keeps it: the bookings of -k keys. */
struct remote {
	struct keytab kt;
	struct limiter keys;
	bool keyed;
};

static void
rm_select_local(void *ctx, const struct booking *b)
{
	keys_select(ctx, b->key, b->key_len, b->at_ns);
}

/* Book (or take) b[0..n) over the remote limit, as Redis's script does. */
static size_t
rm_book(
    struct remote *rm, struct booking *b, size_t n, bool take, int64_t now_ns)
{
	for (size_t i = 0; rm->keyed && i < n; i++)
		b[i].key_len = keys_of_record(&rm->kt.spec, b[i].rec,
		    b[i].bytes, !b[i].outgrown, &b[i].key);
	return limiter_book_all(&rm->keys, b, n, take, now_ns, MS / 2,
	    rm->keyed ? rm_select_local : NULL, &rm->kt);
}

static size_t
rm_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	return rm_book(self, b, n, false, now_ns);
}

static size_t
rm_judge(void *self, struct booking *b, size_t n)
{
	return n == 0 ? 0 : rm_book(self, b, n, true, b[0].at_ns);
}

/* Three keys (or one) at n per d ns, burst burst, started at 0. */
static void
remote_init(struct remote *rm, const struct pcase *pc, bool keyed)
{
	struct keyrule rule = { 0 };

	/* Redis's bucket has no catch-up. */
	bucket_init(&rule.bucket, pc->n, pc->d, pc->burst, pc->burst, 0);
	bucket_set_catchup(&rule.bucket, 0);
	(void)keys_init(&rm->kt, KEYS_BUCKET, &rule, 1, NULL, 1000,
	    &(struct siphash_key){ { 7, 7 } }, 0);
	rm->kt.spec = (struct keyspec){ keyed ? 1 : 9, -1, '\n' };
	rm->keyed = keyed;
	limiter_of_keys(&rm->keys, &rm->kt);
}

/* Run the arrivals through a remote limit, in batches or one at a time. */
static void
remote_run(struct sim *s, const struct pcase *pc, bool keyed, bool drop,
    bool batched, uint64_t quantum)
{
	static struct remote rm;
	static struct shape sh;
	static struct drop dr;
	/* One at a time, or up to 256 bookings a call. */
	struct gate_backend be = { .self = &rm,
		.plan = rm_plan,
		.judge = rm_judge,
		.holds = true,
		.batch = batched ? 256 : 1 };
	struct gate g;
	struct policy p;

	remote_init(&rm, pc, keyed);
	gate_init(&g, &(struct framer){ false, '\n' }, keyed ? 1 : quantum);
	gate_set_units(&g, &be);
	if (drop)
		drop_policy(&p, &dr, &g);
	else
		shape_policy(&p, &sh, &g);
	sim_run(s, &p);
	keys_free(&rm.kt);
}

void
test_batch_properties(void)
{
	int cases = 0, differ = 0, bad = 0;
	char first[96] = "";

	current = "properties: batches book as one booking at a time would";
	for (int c = 0; c < 3000; c++) {
		static struct pcase pc;
		static struct sim one, many;
		int64_t arrive[SIM_RECORDS], t = 0;
		int key[SIM_RECORDS];
		bool keyed = c % 2 == 0, drop = c % 3 == 0, jitter = c % 5 == 0;
		uint64_t quantum;
		int64_t rel[3][SIM_RECORDS];
		int kn[3] = { 0, 0, 0 };

		memset(&pc, 0, sizeof pc);
		pc.n = 1 + rng_below(100);
		pc.d = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
		pc.burst = 1 + rng_below(12);
		quantum = 1 + rng_below(pc.burst < 4 ? pc.burst : 4);
		for (int i = 0; i < SIM_RECORDS; i++) {
			if (rng_below(4) == 0)
				t += (int64_t)rng_below(2 * pc.d / pc.n + 1);
			arrive[i] = t;
			key[i] = keyed ? (int)rng_below(3) : 0;
		}
		for (int run = 0; run < 2; run++) {
			struct sim *s = run == 0 ? &one : &many;

			sim_start(s, arrive, key, SIM_RECORDS, jitter && !drop,
			    rng_below);
			remote_run(s, &pc, keyed, drop, run == 1, quantum);
		}
		/* Without jitter, every record goes when it would have gone
		 * booked alone, or is dropped as it would have been. */
		for (int i = 0; !jitter && i < SIM_RECORDS; i++)
			if (one.rel[i] != many.rel[i] ||
			    one.dropped[i] != many.dropped[i])
				differ++;
		/* Always: all of it out (shaping) or judged, in order, never
		 * before it came, each key within its bucket's bound. */
		bad += many.bad;
		if (many.nrel + many.ndrop != SIM_RECORDS ||
		    (!drop && many.ndrop))
			bad++;
		for (int i = 0; i < many.nrel; i++) {
			int id = many.order[i];

			if (many.rel[id] < arrive[id] ||
			    (i > 0 && id < many.order[i - 1]))
				bad++;
			rel[key[id]][kn[key[id]]++] = many.rel[id];
		}
		/*
		 * A booking made while the one before waits is not put off
		 * when that one goes late: after a late wake-up of up to 3 ms
		 * the next may follow it closer, by as much, as it did when
		 * each was booked alone.
		 */
		for (int k = 0; k < 3; k++)
			if (!window_ok(rel[k], kn[k], pc.burst, pc.n, pc.d,
				jitter ? 3 * MS : 0))
				bad++;
		if (first[0] == '\0' && differ + bad > 0)
			snprintf(first, sizeof first,
			    " (first: case %d, %s, %s%s)", c,
			    keyed ? "per key" : "one bucket",
			    drop ? "policed" : "shaped",
			    jitter ? ", late wake-ups" : "");
		cases++;
	}
	check(differ == 0, "%d records went otherwise in batches%s", differ,
	    first);
	check(bad == 0, "%d early, out of order, lost or beyond the bound%s",
	    bad, first);
	check(cases == 3000, "%d cases", cases);
}
