/* Unit tests of batch.c and limiter_book_all: batches of bookings. */
#include <inttypes.h>
#include <string.h>

#include "batch.h"
#include "bucket.h"
#include "drop.h"
#include "keys.h"
#include "limiter.h"
#include "shape.h"
#include "unit.h"

static const struct framer lines = { false, '\n' };

/* A view of text: read at read_ns, the end of input or not. */
static struct view
view_of(const char *text, bool eof, int64_t read_ns)
{
	return (struct view){ text, strlen(text), eof, false, 0, read_ns };
}

static void
test_plan(void)
{
	static struct batch bt;
	static char many[300 * 4 + 1];
	struct view v = view_of("a 1\nbb 2\nccc 3\ndd", false, 7);
	size_t n;

	n = batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 3);
	check(
	    n == 3 && bt.n == 3 && bt.done == 0, "three whole records: %zu", n);
	check(bt.b[0].bytes == 4 && bt.b[1].bytes == 5 && bt.b[2].bytes == 6,
	    "a booking a record");
	check(bt.b[0].units == 1 && bt.b[2].units == 1, "a unit each");
	check(bt.b[0].rec == v.b && bt.b[1].rec == v.b + 4, "where each is");
	check(bt.b[0].at_ns == 3 && bt.b[1].at_ns == 7 && bt.b[2].at_ns == 7,
	    "the first arrived when it began, the rest with the last read");
	v.eof = true;
	check(
	    batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 3) == 4 &&
		bt.b[3].bytes == 2,
	    "at the end of input the last part is a record too");
	check(
	    batch_plan(&bt, &lines, &v, 0, 2, UINT64_MAX, BATCH_MAX, 3) == 2 &&
		bt.b[0].bytes == 9 && bt.b[0].units == 2 &&
		bt.b[1].bytes == 8 && bt.b[1].units == 2,
	    "two records a booking");
	check(
	    batch_plan(&bt, &lines, &v, 4, 1, UINT64_MAX, BATCH_MAX, 3) == 3 &&
		bt.b[0].rec == v.b + 4,
	    "from an offset on");
	v = view_of("partial", false, 0);
	check(
	    batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 0) == 0 &&
		bt.n == 0,
	    "nothing whole, nothing planned");
	for (int i = 0; i < 300; i++)
		memcpy(many + 4 * i, "x 1\n", 4);
	v = view_of(many, false, 0);
	check(batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 0) ==
		BATCH_MAX,
	    "at most BATCH_MAX a round trip");
	v = view_of(many, false, 0);
	check(batch_plan(&bt, &(struct framer){ true, 0 }, &v, 0, 500,
		  UINT64_MAX, BATCH_MAX, 0) == 3 &&
		bt.b[0].bytes == 500 && bt.b[2].bytes == 200 &&
		bt.b[2].units == 200,
	    "bytes: quantum bytes a booking");
}

/* A limit that holds what it books: its bookings outlive a change. */
static const struct gate_backend holding = { .holds = true, .batch = 256 };

static void
test_due(void)
{
	struct gate held_gate;
	static struct batch bt;
	struct view v = view_of("a\nb\nc\nd\ne\n", false, 0);
	int64_t due[5] = { 0, 0, 5 * MS, 5 * MS, 9 * MS }, at;
	uint64_t units;
	size_t bytes;

	(void)batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 0);
	for (int i = 0; i < 5; i++)
		bt.b[i].due_ns = due[i];
	bytes = batch_due(&bt, 0, &units, &at);
	check(bytes == 4 && units == 2 && at == 0 && bt.done == 2,
	    "the run due now goes in one write: %zu bytes", bytes);
	bytes = batch_due(&bt, 4 * MS, &units, &at);
	check(bytes == 0 && units == 0 && at == 5 * MS && bt.done == 2,
	    "the next not due: its time");
	bytes = batch_due(&bt, 7 * MS, &units, &at);
	check(bytes == 4 && units == 2 && at == 5 * MS, "late: all due by now");
	check(batch_pending(&bt), "one left");
	bytes = batch_due(&bt, 9 * MS, &units, &at);
	check(bytes == 2 && !batch_pending(&bt), "the last");
	bytes = batch_due(&bt, 9 * MS, &units, &at);
	check(bytes == 0 && at == INT64_MAX, "nothing booked: no time");
	/* Only what was booked counts; a change of the limits keeps what
	 * is due by then and forgets the rest. */
	(void)batch_plan(&bt, &lines, &v, 0, 1, UINT64_MAX, BATCH_MAX, 0);
	for (int i = 0; i < 5; i++)
		bt.b[i].due_ns = due[i];
	batch_booked(&bt, 4);
	check(bt.n == 4, "four booked of five");
	gate_init(&held_gate, &lines, 1);
	gate_set_units(&held_gate, &holding);
	bt.n = bt.done +
	    gate_held(&held_gate, &bt.b[bt.done], bt.n - bt.done, 1 * MS);
	check(bt.n == 2 && batch_pending(&bt), "two due at the change kept");
}

/* b's keys: -k 1 of each record, as the gate of --redis sets them. */
static void
key_all(struct keytab *t, struct booking *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i].key_len = keys_of_record(
		    &t->spec, b[i].rec, b[i].bytes, !b[i].outgrown, &b[i].key);
}

static void
select_local(void *ctx, const struct booking *b)
{
	keys_select(ctx, b->key, b->key_len, b->at_ns);
}

/* A table of keys at 10/s, burst burst, for limiter_book_all. */
static void
keys_at_10(struct keytab *t, struct limiter *l, uint64_t burst)
{
	struct keyrule rule = { 0 };

	bucket_init(&rule.bucket, 1, 100 * MS, burst, burst, 0);
	(void)keys_init(t, KEYS_BUCKET, &rule, 1, NULL, 100,
	    &(struct siphash_key){ { 1, 2 } }, 0);
	t->spec = (struct keyspec){ 1, -1, '\n' };
	limiter_of_keys(l, t);
}

/*
 * Book the records of text from byte off on, at -k 1 in a fresh table
 * at 10/s, burst 1 (unless kept from the call before), into bt: at
 * now_ns looking ahead ahead_ns, or with take.  How many were booked.
 */
static struct keytab book_t;
static bool book_made;

static size_t
book_text(struct batch *bt, const char *text, size_t off, bool fresh, bool take,
    int64_t now_ns, int64_t ahead_ns)
{
	static struct limiter l;
	struct view v = view_of(text, false, 0);
	size_t n;

	if (fresh && book_made)
		keys_free(&book_t);
	if (fresh)
		keys_at_10(&book_t, &l, 1);
	book_made = true;
	n = batch_plan(bt, &lines, &v, off, 1, UINT64_MAX, BATCH_MAX, 0);
	key_all(&book_t, bt->b, n);
	return limiter_book_all(
	    &l, bt->b, n, take, now_ns, ahead_ns, select_local, &book_t);
}

static void
test_book_all(void)
{
	static struct batch bt;
	static const char keys[] = "a 1\nb 1\na 2\nb 2\na 3\nc 1\n";
	size_t n;

	/* a 1 and b 1 at once; a 2 at 100 ms ends the batch, booked; b 2
	 * is left for the next. */
	n = book_text(&bt, keys, 0, true, false, 0, MS / 2);
	check(n == 3, "booked up to the first due later: %zu", n);
	check(bt.b[0].due_ns == 0 && bt.b[1].due_ns == 0 &&
		bt.b[2].due_ns == 100 * MS,
	    "each at its key's time: %" PRId64, bt.b[2].due_ns);
	/* The rest when a 2 went: b 2 from then, a 3 after it, c 1 not
	 * yet, as one at a time would have it. */
	n = book_text(&bt, keys, 12, false, false, 100 * MS, MS / 2);
	check(
	    n == 2 && bt.b[0].due_ns == 100 * MS && bt.b[1].due_ns == 200 * MS,
	    "b 2 at once, a 3 a step later, c 1 not booked: %zu", n);
	/* Beyond the look-ahead the same key goes on, within the
	 * look-ahead of its first due beyond; another key does not. */
	n = book_text(&bt, "a\na\na\na\nb\n", 0, true, false, 0, 150 * MS);
	check(
	    n == 4 && bt.b[2].due_ns == 200 * MS && bt.b[3].due_ns == 300 * MS,
	    "the same key within the look-ahead of the first beyond: %zu", n);
	n = book_text(&bt, "a\na\nb\n", 0, true, false, 0, 50 * MS);
	check(n == 2 && bt.b[1].due_ns == 100 * MS,
	    "another key is never booked beyond the look-ahead: %zu", n);
	/* take: each judged in turn, none waits. */
	n = book_text(&bt, "a\na\nd\nd\n", 0, true, true, 0, 0);
	check(n == 4 && bt.b[0].taken == 1 && bt.b[1].taken == 0 &&
		bt.b[2].taken == 1 && bt.b[3].taken == 0,
	    "take: each key once");
	keys_free(&book_t);
	book_made = false;
}

/* A gate's backend that answers with dues[] (INT64_MIN: not booked). */
static const int64_t *fake_dues;
static int fake_calls;

static size_t
fake_book(struct booking *b, size_t n, bool take)
{
	size_t i;

	fake_calls++;
	for (i = 0; i < n && fake_dues[i] != INT64_MIN; i++) {
		b[i].due_ns = fake_dues[i];
		b[i].taken = take ? (fake_dues[i] == 0 ? b[i].units : 0) : 0;
	}
	return i;
}

static size_t
fake_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	(void)self, (void)now_ns;
	return fake_book(b, n, false);
}

static size_t
fake_judge(void *self, struct booking *b, size_t n)
{
	(void)self;
	return fake_book(b, n, true);
}

static const struct gate_backend fake_backend = {
	.plan = fake_plan, .judge = fake_judge, .holds = true, .batch = 256
};

/* What a stop leaves: the policy's actions while it owes, as settle. */
static int
settle(const struct policy *p, const struct view *v, int64_t now_ns,
    uint64_t *sent, uint64_t *dropped)
{
	struct view cur = *v;
	struct action a;
	int n = 0;

	*sent = *dropped = 0;
	while (p->owes != NULL && p->owes(p->self) && n < 100) {
		policy_next(p, &cur, now_ns, &a);
		if (a.kind == ACT_SEND)
			*sent += a.units;
		else if (a.kind == ACT_DROP)
			*dropped += a.units;
		else
			break;
		/* The view moves on past what went, as the engine's does. */
		cur.b += a.bytes;
		cur.len -= a.bytes;
		n++;
	}
	return n;
}

static void
test_stop(void)
{
	static struct shape sh;
	static struct drop dr;
	static const int64_t dues[] = { 0, 0, 10 * MS, INT64_MIN };
	/* 0: taken, else refused; e is the last judged. */
	static const int64_t verdicts[] = { 0, 1, 1, 0, 0, INT64_MIN };
	struct gate g;
	struct policy p;
	struct action a;
	struct view v = view_of("a\nb\nc\nd\n", false, 0);
	uint64_t sent, dropped;

	/* Shaping: of three booked, two due; a stop releases those two,
	 * not the third before its time, and books nothing more. */
	gate_init(&g, &lines, 1);
	gate_set_units(&g, &fake_backend);
	fake_dues = dues;
	fake_calls = 0;
	shape_policy(&p, &sh, &g);
	check(!p.owes(p.self), "nothing owed before a booking");
	policy_next(&p, &v, 0, &a);
	check(a.kind == ACT_SEND && a.bytes == 4 && a.units == 2,
	    "the two due go in one write");
	v = view_of("c\nd\n", false, 0);
	policy_next(&p, &v, 0, &a);
	check(a.kind == ACT_WAIT && a.due_ns == 10 * MS && !a.read,
	    "the third waits for its time, reading nothing");
	check(p.owes(p.self), "a booked record is owed");
	check(settle(&p, &v, 5 * MS, &sent, &dropped) == 0 && sent == 0,
	    "a stop before its time releases it not");
	check(settle(&p, &v, 10 * MS, &sent, &dropped) == 1 && sent == 1,
	    "a stop once it is due releases it");
	check(!p.owes(p.self) && fake_calls == 1, "nothing more booked");

	/* Policing: verdicts given for a batch are carried out at a stop,
	 * and nothing more is judged. */
	fake_dues = verdicts;
	fake_calls = 0;
	drop_policy(&p, &dr, &g);
	v = view_of("a\nb\nc\nd\ne\nf\n", false, 0);
	policy_next(&p, &v, 0, &a);
	check(a.kind == ACT_SEND && a.units == 1, "the first passes");
	check(p.owes(p.self), "verdicts in hand are owed");
	v = view_of("b\nc\nd\ne\nf\n", false, 0);
	check(settle(&p, &v, 0, &sent, &dropped) == 2 && sent == 2 &&
		dropped == 2,
	    "a stop carries out the verdicts given: %" PRIu64 " dropped",
	    dropped);
	check(!p.owes(p.self) && fake_calls == 1, "f is not judged");
}

void
test_batch(void)
{
	current = "batch: planning";
	test_plan();
	current = "batch: releasing";
	test_due();
	current = "batch: booking in order (limiter_book_all)";
	test_book_all();
	current = "batch: a stop";
	test_stop();
}
