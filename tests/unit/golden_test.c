/*
 * Golden traces: the real policies over every kind of limit, on a fake
 * clock, each case reduced to a digest of when each record went or that
 * it was dropped, checked against tests/unit/golden.txt.  The digests were
 * written by an earlier shape of the gate, so that a change of how the
 * policies ask the limits is shown to change no release time and no
 * verdict: TB_GOLDEN_OUT=FILE writes them anew, to compare by hand.
 * Written again once since, for the replay cases alone: their records
 * now hold a timestamp the replay can read (a blank ends it), and a
 * replay waits for a timed record before the first goes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "drop.h"
#include "fixed.h"
#include "gcra.h"
#include "keys.h"
#include "limiter.h"
#include "policy.h"
#include "queue.h"
#include "replay.h"
#include "shape.h"
#include "sim.h"
#include "sliding.h"
#include "tiers.h"
#include "unit.h"

#define GOLDEN_CASES 6000
#define GOLDEN_FILE "tests/unit/golden.txt"

/* Every kind of limit behind the gate. */
enum gback {
	G_TOKEN,
	G_LEAKY,
	G_SLIDING,
	G_FIXED,
	G_SET,
	G_KEYS,
	G_KEYS_SLIDING,
	G_KEYS_FIXED,
	G_TIERS,
	G_SHARED,
	G_BYTES,
	G_TOKEN_BYTES,
	G_REMOTE,
	G_REMOTE_KEYS,
	G_REMOTE_BYTES,
	G_REMOTE_KEYS_BYTES,
	G_NBACK
};

/* Every policy over it. */
enum gmode {
	GM_SHAPE,
	GM_DROP,
	GM_QUEUE,
	GM_QUEUE_DROP,
	GM_REPLAY,
	GM_REPLAY_DROP,
	GM_NMODE
};

/* A case: its limits, as the command line would give them. */
struct gcase {
	enum gback back;
	enum gmode mode;
	uint64_t n, d, burst; /* units: n every d ns, burst */
	int64_t catchup, width;
	uint64_t quantum;
	uint64_t bn, bd, bburst, bquantum; /* bytes, when limited */
	uint64_t qmax;
	uint64_t speed_num, speed_den;
	int64_t max_gap;
	/* The live change: a new rate (or tiers, or speed). */
	uint64_t n2, d2, burst2;
};

static bool
keyed(enum gback b)
{
	return b == G_KEYS || b == G_KEYS_SLIDING || b == G_KEYS_FIXED ||
	    b == G_TIERS || b == G_REMOTE_KEYS || b == G_REMOTE_KEYS_BYTES;
}

static bool
remote(enum gback b)
{
	return b == G_REMOTE || b == G_REMOTE_KEYS || b == G_REMOTE_BYTES ||
	    b == G_REMOTE_KEYS_BYTES;
}

static bool
bytes_limited(enum gback b)
{
	return b == G_BYTES || b == G_TOKEN_BYTES || b == G_REMOTE_BYTES ||
	    b == G_REMOTE_KEYS_BYTES;
}

/* The mode asked for, or shaping where the command line refuses it. */
static enum gmode
fit_mode(enum gback b, enum gmode m)
{
	bool queue = m == GM_QUEUE || m == GM_QUEUE_DROP;
	bool replay = m == GM_REPLAY || m == GM_REPLAY_DROP;

	if (queue &&
	    (keyed(b) || remote(b) || bytes_limited(b) || b == G_SHARED))
		return GM_SHAPE;
	if (replay && (remote(b) || b == G_SHARED))
		return GM_SHAPE;
	return m;
}

/* The case c: drawn from its own seed, whatever runs before it. */
static void
gcase_draw(struct gcase *g, int c)
{
	g->back = (enum gback)(c % G_NBACK);
	g->mode = fit_mode(g->back, (enum gmode)((c / G_NBACK) % GM_NMODE));
	g->n = 1 + rng_below(100);
	g->d = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
	g->burst = g->back == G_LEAKY ? 1 : 1 + rng_below(12);
	g->catchup = remote(g->back) ? 0 : (int64_t)rng_below(3) * MS;
	g->width = (int64_t)(g->burst * g->d / g->n);
	if (g->width < 1)
		g->width = 1;
	g->quantum = 1 + rng_below(g->burst < 4 ? g->burst : 4);
	if (keyed(g->back) || g->back == G_LEAKY)
		g->quantum = 1;
	g->bn = 10 + rng_below(1000);
	g->bd = g->d;
	g->bburst = 20 + rng_below(200);
	g->bquantum = 1 + rng_below(g->bburst);
	g->qmax = 1 + rng_below(5);
	g->speed_num = rng_below(2) ? 1 : 1 + rng_below(10);
	g->speed_den = rng_below(2) ? 1 : 1 + rng_below(4);
	g->max_gap = rng_below(3) == 0 ? (int64_t)(1 + rng_below(20)) * MS : -1;
	g->n2 = 1 + rng_below(100);
	g->d2 = (1 + rng_below(200)) * (rng_below(2) ? MS : US);
	g->burst2 = g->back == G_LEAKY ? 1 : 1 + rng_below(12);
}

/* The arrivals of case g into s: times, keys, padding, timestamps. */
struct garrivals {
	int64_t arrive[SIM_RECORDS];
	int key[SIM_RECORDS];
	unsigned char pad[SIM_RECORDS];
	int64_t ts[SIM_RECORDS];
};

static void
garrivals_draw(struct garrivals *a, const struct gcase *g)
{
	int64_t t = 0, ts = 0;

	for (int i = 0; i < SIM_RECORDS; i++) {
		if (rng_below(4) == 0)
			t += (int64_t)rng_below(2 * g->d / g->n + 1);
		if (rng_below(40) == 0)
			t += (int64_t)rng_below(20 * g->d / g->n + 1);
		a->arrive[i] = t;
		a->key[i] = keyed(g->back) ? (int)rng_below(3) : 0;
		a->pad[i] = (unsigned char)rng_below(30);
		ts += (int64_t)rng_below(3 * g->d / g->n + 1);
		a->ts[i] = rng_below(10) == 0 ? -1 :
		    rng_below(20) == 0	      ? ts / 2 :
						ts;
	}
}

/* ---- the gate of a case: how the policies are given the limits ---- */

/* A one-word bucket shared with others, without the file. */
struct gshared {
	struct gcra g;
	int64_t tat;
};

/* Book units at now_ns in line, as shared.c does; when they go. */
static int64_t
gs_reserve(struct gshared *p, int64_t now_ns, uint64_t units)
{
	int64_t now = gcra_scale(&p->g, 0, now_ns), at;

	p->tat = gcra_reserve(&p->g, p->tat, now, units, &at);
	return at > now ? gcra_unscale(&p->g, 0, at) : now_ns;
}

static size_t
gs_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	if (n == 0)
		return 0;
	b->due_ns = gs_reserve(self, now_ns, b->units);
	return 1;
}

static size_t
gs_judge(void *self, struct booking *b, size_t n)
{
	struct gshared *p = self;

	for (size_t i = 0; i < n; i++) {
		int64_t now = gcra_scale(&p->g, 0, b[i].at_ns), at;
		uint64_t got = gcra_avail(&p->g, p->tat, now);

		if (got > b[i].units)
			got = b[i].units;
		if (got > 0)
			p->tat = gcra_reserve(&p->g, p->tat, now, got, &at);
		b[i].taken = got;
	}
	return n;
}

/* Everything behind the gate of one case. */
struct gstate {
	const struct gcase *gc;
	struct gate gate;
	struct gate_backend be;
	struct keys_backend kb;
	struct bucket b[2], bytes;
	struct sliding w;
	struct fixed fx;
	struct keytab kt;
	struct tiers tiers;
	struct gshared sh;
	struct limiter l, members[2], keys;
	struct limiter_set set;
	struct replay *replay;
};

/* The rule of keys at n every d ns, burst burst, for kind. */
static void
grule(const struct gcase *g, enum keys_kind kind, uint64_t n, uint64_t d,
    uint64_t burst, struct keyrule *r)
{
	int64_t width = (int64_t)(burst * d / n);

	memset(r, 0, sizeof *r);
	if (width < 1)
		width = 1;
	if (kind == KEYS_SLIDING)
		r->sliding = (struct sliding){ .limit = burst,
			.width_ns = width,
			.catchup_ns = g->catchup };
	else if (kind == KEYS_FIXED)
		fixed_init(&r->fixed, burst, width, 12345, g->catchup);
	bucket_init(&r->bucket, n, d, burst, burst, 0);
	bucket_set_catchup(&r->bucket, g->catchup);
}

/* A table of keys; with tiers, key 'a' at the case's rate, 'b*' at
 * twice it, and the rest (c) at the rate of the change. */
static void
gkeys(struct gstate *st, enum keys_kind kind)
{
	const struct gcase *g = st->gc;
	struct keyrule r[3];
	char why[256];
	size_t nr = 1;

	grule(g, kind, g->n, g->d, g->burst, &r[0]);
	if (g->back == G_TIERS) {
		(void)tiers_parse(&st->tiers, "golden", "a 1/s\nb* 1/s\n", 13,
		    UNIT_LINES, ALG_TOKEN, why, sizeof why);
		grule(g, kind, 2 * g->n, g->d, g->burst, &r[1]);
		grule(g, kind, g->n2, g->d2, g->burst2, &r[2]);
		nr = 3;
	}
	(void)keys_init(&st->kt, kind, r, nr,
	    g->back == G_TIERS ? &st->tiers : NULL, 1000,
	    &(struct siphash_key){ { 7, 9 } }, 0);
	st->kt.spec = (struct keyspec){ 1, -1, '\n' };
	keys_backend(&st->be, &st->kb, &st->kt);
}

/* ---- a limit kept elsewhere, as Redis keeps it ---- */

static void
rm_select_local(void *ctx, const struct booking *b)
{
	keys_select(ctx, b->key, b->key_len, b->at_ns);
}

/* Book (or take) b[0..n) as the script does, each record by its key. */
static size_t
rm_book(
    struct gstate *st, struct booking *b, size_t n, bool take, int64_t now_ns)
{
	bool k = keyed(st->gc->back);

	for (size_t i = 0; k && i < n; i++)
		b[i].key_len = keys_of_record(&st->kt.spec, b[i].rec,
		    b[i].bytes, !b[i].outgrown, &b[i].key);
	return limiter_book_all(&st->keys, b, n, take, now_ns, MS / 2,
	    k ? rm_select_local : NULL, &st->kt);
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

/* Redis's buckets: one, or one per key. */
static void
gremote(struct gstate *st)
{
	const struct gcase *g = st->gc;
	struct keyrule r;

	grule(g, KEYS_BUCKET, g->n, g->d, g->burst, &r);
	if (keyed(g->back)) {
		(void)keys_init(&st->kt, KEYS_BUCKET, &r, 1, NULL, 1000,
		    &(struct siphash_key){ { 7, 7 } }, 0);
		st->kt.spec = (struct keyspec){ 1, -1, '\n' };
		limiter_of_keys(&st->keys, &st->kt);
	} else {
		st->b[0] = r.bucket;
		limiter_of_bucket(&st->keys, &st->b[0]);
	}
	st->be = (struct gate_backend){ .self = st,
		.plan = rm_plan,
		.judge = rm_judge,
		.holds = true,
		.batch = 256 };
}

/* The limit on units of case g, not kept elsewhere. */
static void
glocal(struct gstate *st)
{
	const struct gcase *g = st->gc;

	switch (g->back) {
	case G_SLIDING:
		(void)sliding_init(&st->w, g->burst, g->width, g->catchup);
		limiter_of_sliding(&st->l, &st->w);
		break;
	case G_FIXED:
		fixed_init(&st->fx, g->burst, g->width, 12345, g->catchup);
		limiter_of_fixed(&st->l, &st->fx);
		break;
	case G_SET:
		bucket_init(&st->b[1], 2 * g->n, g->d, 2, 2, 0);
		bucket_set_catchup(&st->b[1], g->catchup);
		limiter_of_bucket(&st->members[1], &st->b[1]);
		/* FALLTHROUGH */
	default:
		bucket_init(&st->b[0], g->n, g->d, g->burst, g->burst, 0);
		bucket_set_catchup(&st->b[0], g->catchup);
		limiter_of_bucket(&st->l, &st->b[0]);
		break;
	}
	if (g->back == G_SET) {
		st->members[0] = st->l;
		st->set = (struct limiter_set){ st->members, 2 };
		limiter_of_set(&st->l, &st->set);
	}
	limiter_backend(&st->be, &st->l);
}

/* The gate of case g in st. */
static void
gbuild(struct gstate *st, const struct gcase *g)
{
	static const struct framer lines = { false, '\n' };

	memset(st, 0, sizeof *st);
	st->gc = g;
	gate_init(&st->gate, &lines, g->quantum);
	if (remote(g->back)) {
		gremote(st);
	} else if (keyed(g->back)) {
		gkeys(st,
		    g->back == G_KEYS_SLIDING	? KEYS_SLIDING :
			g->back == G_KEYS_FIXED ? KEYS_FIXED :
						  KEYS_BUCKET);
	} else if (g->back == G_SHARED) {
		st->sh = (struct gshared){ { g->n, g->d, g->burst, 0 }, 0 };
		st->be = (struct gate_backend){ .self = &st->sh,
			.plan = gs_plan,
			.judge = gs_judge,
			.holds = true,
			.batch = 1 };
	} else if (g->back != G_BYTES) {
		glocal(st);
	} else {
		st->gate.quantum = SIM_BUF;
	}
	if (g->back != G_BYTES)
		gate_set_units(&st->gate, &st->be);
	if (bytes_limited(g->back)) {
		bucket_init(&st->bytes, g->bn, g->bd, g->bburst, g->bburst, 0);
		bucket_set_catchup(&st->bytes, g->catchup);
		gate_set_bytes(&st->gate, &st->bytes, g->bquantum);
	}
}

/* The live change of the case at now_ns: -R's rate, --reload, --speed. */
static void
gchange(void *ctx, int64_t now_ns)
{
	struct gstate *st = ctx;
	const struct gcase *g = st->gc;
	struct keyrule r[3];

	if (st->replay != NULL) {
		replay_speed(st->replay, g->speed_den, g->speed_num, now_ns);
		return;
	}
	if (g->back == G_TIERS) {
		/* The tiers swap the rates of 'a' and the rest. */
		grule(g, KEYS_BUCKET, g->n2, g->d2, g->burst2, &r[0]);
		grule(g, KEYS_BUCKET, 2 * g->n, g->d, g->burst, &r[1]);
		grule(g, KEYS_BUCKET, g->n, g->d, g->burst, &r[2]);
		(void)keys_retune(&st->kt, r, 3, &st->tiers, now_ns);
		return;
	}
	bucket_retune(&st->b[0], g->n2, g->d2, g->burst2, now_ns);
}

/* Can the case's limits be changed live (-R, --reload, --speed)? */
static bool
gchangeable(const struct gcase *g)
{
	return g->mode == GM_REPLAY || g->mode == GM_REPLAY_DROP ||
	    g->back == G_TIERS || g->back == G_TOKEN || g->back == G_LEAKY ||
	    g->back == G_SET || g->back == G_TOKEN_BYTES;
}

static void
gfree(struct gstate *st)
{
	if (st->gc->back == G_SLIDING)
		sliding_free(&st->w);
	if (keyed(st->gc->back))
		keys_free(&st->kt);
	tiers_free(&st->tiers);
}

/* ---- the policies, driven ---- */

/* Run case g over arrivals a; the digest of what became of each record. */
static uint64_t
grun(const struct gcase *g, const struct garrivals *a, bool jitter,
    int64_t change_at, int *bad)
{
	static struct gstate st;
	static struct sim s;
	static struct shape sh;
	static struct drop dr;
	static struct queue q;
	static struct replay rp;
	static struct timestamp_format fmt;
	static const struct timestamp_civil ref = { 2024, 11, 23, 0, 0, 0 };
	struct replay_schedule sched;
	struct policy p;
	uint64_t digest;

	gbuild(&st, g);
	sim_start(&s, a->arrive, a->key, SIM_RECORDS,
	    jitter && g->mode != GM_DROP, rng_below);
	s.pad = a->pad;
	switch (g->mode) {
	case GM_SHAPE:
		shape_policy(&p, &sh, &st.gate);
		break;
	case GM_DROP:
		drop_policy(&p, &dr, &st.gate);
		break;
	case GM_QUEUE:
	case GM_QUEUE_DROP:
		(void)queue_policy(
		    &p, &q, &st.gate, g->qmax, g->mode == GM_QUEUE_DROP);
		break;
	default:
		timestamp_init(&fmt, &ref, NULL, NULL);
		fmt.field = 3;
		replay_schedule_init(
		    &sched, g->speed_num, g->speed_den, g->max_gap);
		replay_policy(&p, &rp, &st.gate, &fmt, &sched,
		    g->mode == GM_REPLAY_DROP, NULL);
		st.replay = &rp;
		s.ts = a->ts;
		break;
	}
	if (gchangeable(g)) {
		s.change_at = change_at;
		s.change = gchange;
		s.change_ctx = &st;
	}
	sim_run(&s, &p);
	digest = sim_digest(&s);
	*bad += s.bad + (s.nrel + s.ndrop != SIM_RECORDS);
	if (g->mode == GM_QUEUE || g->mode == GM_QUEUE_DROP)
		queue_free(&q);
	gfree(&st);
	return digest;
}

/* The digests of the golden file, by case; false when it cannot be read. */
static bool
gread(uint64_t *want, int n)
{
	FILE *fp = fopen(GOLDEN_FILE, "r");
	int c, got = 0;
	unsigned long long d;

	if (fp == NULL)
		return false;
	while (got < n && fscanf(fp, "%d %llx", &c, &d) == 2)
		if (c == got) {
			want[got] = d;
			got++;
		}
	fclose(fp);
	return got == n;
}

void
test_golden(void)
{
	static uint64_t want[GOLDEN_CASES], have[GOLDEN_CASES];
	const char *out = getenv("TB_GOLDEN_OUT");
	uint64_t saved = rng_swap(0);
	int bad = 0, differ = 0, first = -1;
	enum gback back[GOLDEN_CASES];
	enum gmode mode[GOLDEN_CASES];
	bool known;

	current = "golden: every limit behind the gate, as it always went";
	for (int c = 0; c < GOLDEN_CASES; c++) {
		static struct gcase g;
		static struct garrivals a;
		bool jitter;
		int64_t change_at;

		(void)rng_swap(0x9e3779b97f4a7c15ULL * (uint64_t)(c + 1));
		gcase_draw(&g, c);
		garrivals_draw(&a, &g);
		jitter = rng_below(2) == 0;
		change_at = rng_below(2) == 0 ?
		    a.arrive[rng_below(SIM_RECORDS)] +
			(int64_t)rng_below(10 * MS) :
		    INT64_MAX;
		have[c] = grun(&g, &a, jitter, change_at, &bad);
		back[c] = g.back;
		mode[c] = g.mode;
	}
	(void)rng_swap(saved);
	if (out != NULL) {
		FILE *fp = fopen(out, "w");

		for (int c = 0; fp != NULL && c < GOLDEN_CASES; c++)
			fprintf(
			    fp, "%d %016llx\n", c, (unsigned long long)have[c]);
		if (fp != NULL)
			fclose(fp);
	}
	known = gread(want, GOLDEN_CASES);
	for (int c = 0; known && c < GOLDEN_CASES; c++)
		if (want[c] != have[c] && differ++ == 0)
			first = c;
	check(known, "%s missing or short (run from the top of the tree)",
	    GOLDEN_FILE);
	check(differ == 0,
	    "%d of %d cases went otherwise than recorded (first: case %d, "
	    "limit %d, mode %d)",
	    differ, GOLDEN_CASES, first, first < 0 ? -1 : (int)back[first],
	    first < 0 ? -1 : (int)mode[first]);
	check(
	    bad == 0, "%d cases lost records or made the engine stumble", bad);
}
