/*
 * Unit tests of replay.c on a fake clock: the schedule (speed, max gap,
 * out of order, no timestamp, a live change of speed), the ceiling of a
 * limit, dropping what it cannot carry, and that no record is ever early.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bucket.h"
#include "limiter.h"
#include "options.h"
#include "replay.h"
#include "unit.h"

/* A log's epoch, whole seconds: the records' times are offsets to it. */
#define EPOCH 1732370706LL
#define T0 (5 * NS) /* when the fake clock starts */
#define MAXREC 4096

/* The input of a run: records "EPOCH.fraction text\n", or untimed. */
struct input {
	char buf[MAXREC * 40];
	size_t len;
	int n;
};

/* Add a record at offset off_ns from EPOCH (off_ns < 0: no timestamp). */
static void
rec(struct input *in, int64_t off_ns)
{
	int64_t s = EPOCH + off_ns / NS, f = off_ns % NS;

	if (off_ns < 0)
		in->len += (size_t)snprintf(in->buf + in->len,
		    sizeof in->buf - in->len, "  at line %d\n", in->n);
	else
		in->len += (size_t)snprintf(in->buf + in->len,
		    sizeof in->buf - in->len, "%" PRId64 ".%09" PRId64 " r%d\n",
		    s, f, in->n);
	in->n++;
}

/* One replay on the fake clock, and what it did. */
struct run {
	struct gate gate;
	struct bucket bucket;
	struct limiter limit;
	struct gate_backend be;
	struct timestamp_format fmt;
	struct replay r;
	struct policy p;
	struct stats_replay st;
	int64_t rel[MAXREC]; /* when each record went; -1: dropped */
	int n;
	int64_t now;
};

static void
start(struct run *u, uint64_t num, uint64_t den, int64_t max_gap_ns, bool drop)
{
	static const struct timestamp_civil ref = { 2024, 11, 23, 0, 0, 0 };
	struct replay_schedule s;

	memset(u, 0, sizeof *u);
	gate_init(&u->gate, &(struct framer){ false, '\n' }, 1);
	timestamp_init(&u->fmt, &ref, NULL, NULL);
	replay_schedule_init(&s, num, den, max_gap_ns);
	replay_policy(&u->p, &u->r, &u->gate, &u->fmt, &s, drop, &u->st);
	u->now = T0;
}

/* A token bucket of n units every d ns, burst b, full at T0: the ceiling. */
static void
ceiling(struct run *u, uint64_t n, uint64_t d, uint64_t b)
{
	bucket_init(&u->bucket, n, d, b, b, T0);
	limiter_of_bucket(&u->limit, &u->bucket);
	limiter_backend(&u->be, &u->limit);
	gate_set_units(&u->gate, &u->be);
}

/*
 * Drive the policy over in from u->n on, all of it there from T0, until
 * it has nothing left or the clock reaches until_ns; every wait ends
 * lag_ns late.
 */
static void
drive(struct run *u, const struct input *in, int64_t lag_ns, int64_t until_ns)
{
	size_t head = 0;

	for (int i = 0; i < u->n; i++)
		head += (size_t)(strchr(in->buf + head, '\n') -
			    (in->buf + head)) +
		    1;
	while (u->now < until_ns) {
		struct view v = { in->buf + head, in->len - head, true, false,
			T0, T0 };
		struct action a;

		policy_next(&u->p, &v, u->now, &a);
		if (a.kind == ACT_READ)
			return;
		if (a.kind == ACT_WAIT) {
			check(
			    a.due_ns > u->now && !a.read, "a wait on nothing");
			u->now = (a.due_ns < until_ns ? a.due_ns : until_ns) +
			    lag_ns;
			continue;
		}
		check(a.kind == ACT_SEND || a.kind == ACT_DROP, "action %d",
		    (int)a.kind);
		check(framer_count(&u->gate.framer, v.b, a.bytes, false) ==
			a.units,
		    "units %" PRIu64 " in %zu bytes", a.units, a.bytes);
		for (uint64_t k = 0; k < a.units && u->n < MAXREC; k++)
			u->rel[u->n++] = a.kind == ACT_SEND ? u->now : -1;
		head += a.bytes;
	}
}

/* Records' release times, as offsets to T0 in ms (-1: dropped). */
static void
expect(const struct run *u, const char *what, int n, const double *ms)
{
	check(u->n == n, "%s: %d records went, want %d", what, u->n, n);
	for (int i = 0; i < n && i < u->n; i++) {
		int64_t want = ms[i] < 0 ? -1 : T0 + (int64_t)(ms[i] * MS);

		check(u->rel[i] == want,
		    "%s: record %d at %" PRId64 " ns, want %" PRId64, what, i,
		    u->rel[i], want);
	}
}

static void
test_speed(void)
{
	struct input in = { .n = 0 };
	struct run u;

	rec(&in, 0);
	rec(&in, 100 * MS);
	rec(&in, 250 * MS);
	rec(&in, 1 * NS);
	start(&u, 1, 1, -1, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "speed 1", 4, (const double[]){ 0, 100, 250, 1000 });
	start(&u, 4, 1, -1, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "speed 4", 4, (const double[]){ 0, 25, 62.5, 250 });
	start(&u, 1, 2, -1, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "speed 0.5", 4, (const double[]){ 0, 200, 500, 2000 });
	check(u.st.timed == 4 && u.st.untimed == 0 && u.st.out_of_order == 0,
	    "counts");
	check(strcmp(u.st.format, "epoch s") == 0, "format %s", u.st.format);
}

/*
 * Speed 7/3 over random gaps, woken late by up to 3 ms: every record at
 * T0 + ceil((ts_i - ts_0) * 3 / 7) or later, and no later than the lag:
 * an absolute schedule, which a late wake-up does not push back.
 */
static void
test_replay_drift(void)
{
	static struct input in;
	static struct run u;
	int64_t ts[1000], off = 0;

	in = (struct input){ .n = 0 };
	for (int i = 0; i < 1000; i++) {
		off += (int64_t)rng_below(300 * MS);
		ts[i] = off;
		rec(&in, off);
	}
	for (int pass = 0; pass < 2; pass++) {
		int64_t lag = pass == 0 ? 0 : 3 * MS;
		int early = 0, drift = 0;

		start(&u, 7, 3, -1, false);
		drive(&u, &in, lag, INT64_MAX);
		check(u.n == 1000, "all went: %d", u.n);
		for (int i = 0; i < u.n; i++) {
			int64_t due = T0 +
			    bucket_muldiv_ceil(ts[i] - ts[0], 3, 7);

			early += u.rel[i] < due;
			drift += u.rel[i] > due + lag;
		}
		check(early == 0 && drift == 0,
		    "lag %" PRId64 ": %d early, %d later than the lag", lag,
		    early, drift);
	}
	check(u.st.late_count == 1000 && u.st.late_max_ns <= 3 * MS,
	    "lateness counted: %" PRIu64 ", max %" PRId64, u.st.late_count,
	    u.st.late_max_ns);
}

static void
test_max_gap(void)
{
	struct input in = { .n = 0 };
	struct run u;

	rec(&in, 0);
	rec(&in, 1 * NS);
	rec(&in, 10 * NS); /* 9 s of silence, cut to 2 s */
	rec(&in, 10 * NS + 500 * MS);
	rec(&in, 13 * NS); /* 2.5 s, cut to 2 s */
	start(&u, 1, 1, 2 * NS, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(
	    &u, "max gap 2s", 5, (const double[]){ 0, 1000, 3000, 3500, 5500 });
	/* At speed 2 the cut is of the wait, in real time. */
	start(&u, 2, 1, 2 * NS, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "max gap 2s, speed 2", 5,
	    (const double[]){ 0, 500, 2500, 2750, 4000 });
	start(&u, 1, 1, 0, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "max gap 0", 5, (const double[]){ 0, 0, 0, 0, 0 });
}

static void
test_out_of_order_untimed(void)
{
	struct input in = { .n = 0 };
	struct run u;

	rec(&in, -1); /* before any timestamp: at once */
	rec(&in, 1 * NS);
	rec(&in, -1); /* a continuation: right after the one before */
	rec(&in, 5 * NS);
	rec(&in, 3 * NS); /* earlier than the one before: at once */
	rec(&in, 4 * NS); /* still before 5 s */
	rec(&in, 6 * NS); /* the schedule did not move back */
	start(&u, 1, 1, -1, false);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "out of order", 7,
	    (const double[]){ 0, 0, 0, 4000, 4000, 4000, 5000 });
	check(u.st.untimed == 2 && u.st.timed == 5 && u.st.out_of_order == 2,
	    "counts: %" PRIu64 " untimed, %" PRIu64 " timed, %" PRIu64
	    " out of order",
	    u.st.untimed, u.st.timed, u.st.out_of_order);
}

/* The ceiling: the later of the replay's time and the limit's. */
static void
test_ceiling(void)
{
	struct input in = { .n = 0 };
	struct run u;

	rec(&in, 0);
	rec(&in, 100 * MS);
	rec(&in, 200 * MS);
	rec(&in, 5 * NS);
	rec(&in, 5 * NS + 10 * MS);
	start(&u, 1, 1, -1, false);
	ceiling(&u, 1, NS, 1); /* 1/s, burst 1 */
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "ceiling 1/s", 5,
	    (const double[]){ 0, 1000, 2000, 5000, 6000 });
	/* Dropped instead of delayed: judged at their replay time. */
	start(&u, 1, 1, -1, true);
	ceiling(&u, 1, NS, 1);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "ceiling 1/s, drop", 5,
	    (const double[]){ 0, -1, -1, 5000, -1 });
	/* A burst of 2 carries two at once. */
	start(&u, 1, 1, -1, true);
	ceiling(&u, 1, NS, 2);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "ceiling 1/s b2, drop", 5,
	    (const double[]){ 0, 100, -1, 5000, 5010 });
}

/*
 * -R --speed: at 5 s into a replay of records at 0, 10 s and 20 s, the
 * speed goes to 2: the 10 s record, 5 s of log away, is due 2.5 s later.
 */
static void
test_live_speed(void)
{
	struct input in = { .n = 0 };
	struct run u;

	rec(&in, 0);
	rec(&in, 10 * NS);
	rec(&in, 20 * NS);
	start(&u, 1, 1, -1, false);
	drive(&u, &in, 0, T0 + 5 * NS);
	check(u.n == 1 && u.now == T0 + 5 * NS, "first only: %d", u.n);
	replay_speed(&u.r, 2, 1, u.now);
	u.p.retuned(u.p.self, u.now);
	drive(&u, &in, 0, INT64_MAX);
	expect(
	    &u, "speed 1 then 2 at 5 s", 3, (const double[]){ 0, 7500, 12500 });
	/* Slower, in the middle of a wait: from the place reached. */
	start(&u, 1, 1, -1, false);
	drive(&u, &in, 0, T0 + 12 * NS);
	check(u.n == 2, "two: %d", u.n);
	replay_speed(&u.r, 1, 4, u.now);
	u.p.retuned(u.p.self, u.now);
	drive(&u, &in, 0, INT64_MAX);
	expect(&u, "speed 1 then 0.25 at 12 s", 3,
	    (const double[]){ 0, 10000, 44000 });
}

/*
 * Input that comes after its time (a slow producer, tail -F): it goes at
 * once, and the records after it keep the first record's schedule.
 */
static void
test_late_input(void)
{
	struct input in = { .n = 0 };
	struct run u;
	struct action a;
	struct view v;
	size_t first;

	rec(&in, 0);
	first = in.len;
	rec(&in, 500 * MS);
	rec(&in, 4 * NS);
	start(&u, 1, 1, -1, false);
	v = (struct view){ in.buf, first, false, false, T0, T0 };
	policy_next(&u.p, &v, T0, &a);
	check(a.kind == ACT_SEND && a.bytes == first, "a at once");
	v = (struct view){ in.buf + first, 0, false, false, T0, T0 };
	policy_next(&u.p, &v, T0, &a);
	check(a.kind == ACT_READ, "then it reads");
	/* b and c arrive 3.5 s later: b was due at 0.5 s. */
	v = (struct view){ in.buf + first, in.len - first, false, false,
		T0 + 3500 * MS, T0 + 3500 * MS };
	policy_next(&u.p, &v, T0 + 3500 * MS, &a);
	check(a.kind == ACT_SEND && a.units == 1 && a.due_ns == T0 + 3500 * MS,
	    "b at once, on arrival: %d, due %" PRId64, (int)a.kind, a.due_ns);
	v.b += a.bytes;
	v.len -= a.bytes;
	policy_next(&u.p, &v, T0 + 3500 * MS, &a);
	check(a.kind == ACT_WAIT && a.due_ns == T0 + 4 * NS,
	    "c at 4 s from a: %d, due %" PRId64, (int)a.kind, a.due_ns);
	check(u.st.late_max_ns == 3 * NS, "b was 3 s late: %" PRId64,
	    u.st.late_max_ns);
}

/* The histogram of lateness: p50 and p99 within 1/16, max exact. */
static void
test_lateness(void)
{
	struct stats_replay st;
	int64_t p50, p99;

	memset(&st, 0, sizeof st);
	check(stats_late_quantile(&st, 99, 100) == 0, "none");
	for (int i = 1; i <= 1000; i++)
		stats_late_add(&st, i * US);
	stats_late_add(&st, -5);
	p50 = stats_late_quantile(&st, 50, 100);
	p99 = stats_late_quantile(&st, 99, 100);

	check(p50 >= 500 * US && p50 <= 500 * US + 500 * US / 16,
	    "p50 %" PRId64, p50);
	check(p99 >= 989 * US && p99 <= st.late_max_ns, "p99 %" PRId64, p99);
	check(st.late_max_ns == 1000 * US && st.late_count == 1001, "max");
	check(stats_late_quantile(&st, 1, 1) == 1000 * US, "p100 is the max");
}

/* The options of a replay, and what they refuse. */
static void
test_replay_options(void)
{
	char *argv[8] = { (char *)"tbthrottle", (char *)"--replay",
		(char *)"--speed", (char *)"2.5", (char *)"--max-gap",
		(char *)"1.5s", NULL };
	struct config cfg;
	uint64_t num = 0, den = 0;
	char err[512] = "";

	check(options_parse(&cfg, 6, argv, err, sizeof err) == OPT_RUN &&
		cfg.replay && cfg.speed_num == 5 && cfg.speed_den == 2 &&
		cfg.max_gap_ns == 1500 * MS && options_unlimited(&cfg),
	    "--replay --speed 2.5 --max-gap 1.5s: %s", err);
	check(options_parse(&cfg, 2, argv, err, sizeof err) == OPT_RUN &&
		cfg.speed_num == 1 && cfg.speed_den == 1 &&
		cfg.max_gap_ns == -1,
	    "--replay alone: speed 1, no gap");
	check(spec_speed_parse("0.000250", &num, &den, err, sizeof err) == 0 &&
		num == 1 && den == 4000,
	    "0.000250 is 1/4000: %" PRIu64 "/%" PRIu64, num, den);
	check(spec_speed_parse("1000000", &num, &den, err, sizeof err) == 0 &&
		num * den == 1000000,
	    "the fastest");
	check(spec_speed_parse("0", &num, &den, err, sizeof err) == -1 &&
		strstr(err, "'0'") != NULL,
	    "0: %s", err);
	check(spec_speed_parse("1000000.5", &num, &den, err, sizeof err) == -1,
	    "beyond the fastest");
}

void
test_replay(void)
{
	current = "replay";
	test_speed();
	test_replay_drift();
	test_max_gap();
	test_out_of_order_untimed();
	test_ceiling();
	test_live_speed();
	test_late_input();
	test_lateness();
	test_replay_options();
}
