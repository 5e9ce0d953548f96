/* Unit tests of keys.c: key fields and the per-key bucket table. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "bucket.h"
#include "field.h"
#include "keys.h"
#include "unit.h"

/* The hash seed of a table under test. */
#define SEED(x) (&(struct siphash_key){ { (x), ~(uint64_t)(x) } })

/* A table of buckets like proto for every key, without tiers. */
static int
init_buckets(struct keytab *t, const struct bucket *proto, size_t max_keys,
    const struct siphash_key *seed, int64_t now_ns)
{
	struct keyrule rule = { .bucket = *proto };

	return keys_init(
	    t, KEYS_BUCKET, &rule, 1, NULL, max_keys, seed, now_ns);
}

/*
 * Two keys that the old multiply-xor hash sent to one bucket whatever
 * its seed: they differ only in the top bit of bytes 7, 11 and 15.
 */
static void
test_keys_apart(void)
{
	char a[17] = "0123456789abcdef", b[17];
	struct keytab t;
	struct bucket proto;
	int shared = 0;

	current = "per-key buckets: two keys never share one";
	memcpy(b, a, sizeof b);
	b[7] ^= (char)0x80;
	b[11] ^= (char)0x80;
	b[15] ^= (char)0x80;
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		(void)init_buckets(&t, &proto, 100, SEED(seed), 0);
		keys_select(&t, a, 16, 0);
		(void)bucket_take(&t.cur, 0, 0, 1);
		keys_store(&t, 1, 0);
		keys_select(&t, b, 16, 0);
		if (bucket_avail(&t.cur, 0, 0) != 1)
			shared++;
		keys_free(&t);
	}
	check(shared == 0,
	    "the top bits of bytes 7, 11, 15: shared under "
	    "%d of 20 seeds",
	    shared);
}

/*
 * At the cap, a new key goes to the overflow bucket only while every
 * live bucket is still refilling: a refilled one is forgotten first.
 */
static void
test_keys_refilled_at_cap(void)
{
	struct keytab t;
	struct bucket proto;
	char key[16];
	int over = 0, bad = 0;

	current = "per-key buckets: refilled buckets make room at the cap";
	/* 1/s, burst 1, at most 10000 live keys. */
	bucket_init(&proto, 1, NS, 1, 1, 0);
	(void)init_buckets(&t, &proto, 10000, SEED(7), 0);
	for (int i = 0; i < 10000; i++) {
		int n = snprintf(key, sizeof key, "a%d", i);

		keys_select(&t, key, (size_t)n, 0);
		if (bucket_take(&t.cur, 0, 0, 1) != 1 || t.sel_overflow)
			bad++;
		keys_store(&t, 1, 0);
	}
	check(
	    bad == 0 && t.live == 10000, "10000 keys at 0 s: %zu live", t.live);
	/* At 0.5 s none has refilled: the overflow bucket is needed. */
	keys_select(&t, "early", 5, 500 * MS);
	check(t.sel_overflow, "a new key at 0.5 s shares the overflow bucket");
	keys_store(&t, bucket_take(&t.cur, 500 * MS, 500 * MS, 1), 500 * MS);
	/* From 1 s all have refilled: 20000 new keys, 10000 a second, each
	 * get a bucket of their own, and hold the table at the cap. */
	for (int i = 0; i < 20000; i++) {
		int64_t now = NS + i * 100 * US;
		int n = snprintf(key, sizeof key, "b%d", i);

		keys_select(&t, key, (size_t)n, now);
		if (t.sel_overflow)
			over++;
		else if (bucket_take(&t.cur, now, now, 1) != 1)
			bad++;
		keys_store(&t, t.sel_overflow ? 0 : 1, now);
	}
	check(over == 0 && bad == 0,
	    "refilled buckets make room: %d of 20000 "
	    "new keys sent to the overflow bucket, %d refused",
	    over, bad);
	check(t.live <= 10000, "still at most 10000 live: %zu", t.live);
	keys_free(&t);
}

static int
by_tag(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * Two keys whose hashes agree in the 32 bits the index keeps, found by
 * trying a few hundred thousand: they land in one slot and still get a
 * bucket each, because the index compares their bytes.
 */
static void
test_keys_same_slot(void)
{
	enum { TRIES = 300000 };
	static uint64_t tags[TRIES];
	struct keytab t;
	struct bucket proto;
	char a[16], b[16];
	int na = 0, nb = 0;
	uint64_t ia = 0, ib = 0;

	current = "per-key buckets: keys of one slot and hash bits";
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	(void)init_buckets(&t, &proto, 100, SEED(99), 0);
	for (uint64_t i = 0; i < TRIES; i++) {
		int n = snprintf(a, sizeof a, "u%07" PRIu64, i);

		tags[i] = (siphash24(&t.seed, a, (size_t)n) & 0xffffffffULL)
			<< 32 |
		    i;
	}
	qsort(tags, TRIES, sizeof *tags, by_tag);
	for (int i = 1; i < TRIES && ia == ib; i++)
		if (tags[i] >> 32 == tags[i - 1] >> 32) {
			ia = tags[i - 1] & 0xffffffffULL;
			ib = tags[i] & 0xffffffffULL;
		}
	check(ia != ib, "two keys agree in 32 bits of hash");
	na = snprintf(a, sizeof a, "u%07" PRIu64, ia);
	nb = snprintf(b, sizeof b, "u%07" PRIu64, ib);
	keys_select(&t, a, (size_t)na, 0);
	keys_store(&t, bucket_take(&t.cur, 0, 0, 1), 0);
	keys_select(&t, b, (size_t)nb, 0);
	check(
	    bucket_avail(&t.cur, 0, 0) == 1, "%s and %s: a bucket each", a, b);
	keys_store(&t, bucket_take(&t.cur, 0, 0, 1), 0);
	keys_select(&t, a, (size_t)na, 0);
	check(t.live == 2 && bucket_avail(&t.cur, 0, 0) == 0,
	    "%s finds its own spent bucket", a);
	keys_free(&t);
}

/*
 * A number below n from the generator state *r (xorshift64): its own, so
 * that the tests after this one draw the same cases from rng() as before.
 */
static uint64_t
below(uint64_t *r, uint64_t n)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r % n;
}

/* A key of the model below: short, empty, or longer than fits inline. */
static size_t
model_key(int u, char *buf)
{
	if (u == 0)
		return 0;
	if (u % 3 == 0)
		return (size_t)snprintf(buf, 64, "a key longer than 19: %d", u);
	return (size_t)snprintf(buf, 64, "k%d", u);
}

/*
 * The table against a plain model of its contract, on random keys and
 * times: a key keeps its bucket until a new key comes when that bucket is
 * full again; a new key that finds max_keys buckets still refilling gets
 * the overflow bucket.  Every selected bucket, verdict and count agrees.
 */
static void
test_keys_model(void)
{
	enum { U = 40, STEPS = 40000 };
	struct keytab t;
	struct bucket proto, m[U], mover, mcur;
	bool have[U], mover_sel;
	char key[64];
	int64_t now = 0;
	size_t mlive, max;
	int bad = 0, step = -1;
	uint64_t r = 1;

	current = "per-key buckets: the table against a model";
	for (int c = 0; c < 20; c++) {
		uint64_t burst = 1 + below(&r, 3);

		max = 1 + below(&r, 16);
		bucket_init(&proto, 1 + below(&r, 5), (1 + below(&r, 20)) * MS,
		    burst, burst, 0);
		(void)init_buckets(&t, &proto, max, SEED(c), 0);
		mover = proto;
		memset(have, 0, sizeof have);
		mlive = 0;
		for (int i = 0; i < STEPS / 20 && bad == 0; i++) {
			int u = (int)below(&r, U);
			size_t n = model_key(u, key);
			uint64_t got;

			now += (int64_t)below(&r, 3 * MS);
			mover_sel = false;
			if (have[u]) {
				mcur = m[u];
			} else {
				for (int v = 0; v < U; v++) {
					if (!have[v] ||
					    !bucket_full_at(&m[v], now))
						continue;
					have[v] = false;
					mlive--;
				}
				mcur = proto;
				mcur.base_ns = now;
				mover_sel = mlive >= max;
				if (mover_sel)
					mcur = mover;
			}
			keys_select(&t, key, n, now);
			if (t.sel_overflow != mover_sel ||
			    t.cur.base_ns != mcur.base_ns || t.cur.k != mcur.k)
				bad++;
			got = bucket_take(&t.cur, now, now, below(&r, 3));
			(void)bucket_take(&mcur, now, now, got);
			keys_store(&t, got, now);
			if (mover_sel) {
				mover = mcur;
			} else if (have[u] || got > 0) {
				mlive += !have[u];
				have[u] = true;
				m[u] = mcur;
			}
			if (t.live != mlive)
				bad++;
			if (bad > 0)
				step = i;
		}
		keys_free(&t);
	}
	check(bad == 0,
	    "the table agrees with the model (first wrong at "
	    "step %d)",
	    step);
}

/* One case of keys_of_record: the key found, or NULL when cut. */
struct cutcase {
	unsigned field;
	int sep;
	const char *rec;
	bool whole;
	const char *want;
};

/*
 * The first bytes of a record longer than the buffer: its key is known
 * only if a separator ends it within them.
 */
static void
test_keys_cut(void)
{
	static const struct cutcase cases[] = {
		{ 1, -1, "abc def", false, "abc" },
		{ 1, -1, "abc ", false, "abc" },
		{ 1, -1, "abcdef", false, NULL },
		{ 2, -1, "abc", false, NULL },
		{ 2, -1, "abc  ", false, NULL },
		{ 2, -1, "abc de", false, NULL },
		{ 2, -1, "abc de f", false, "de" },
		{ 1, -1, "abc\n", true, "abc" },
		{ 1, -1, "abcdef", true, "abcdef" },
		{ 3, -1, "a b", true, "" },
		{ 1, ',', "a,b", false, "a" },
		{ 2, ',', "a,b", false, NULL },
		{ 2, ',', "a,,", false, "" },
		{ 3, ',', "a,,", false, NULL },
	};

	current = "key fields of records longer than the buffer";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct cutcase *c = &cases[i];
		struct keyspec spec = { c->field, c->sep, '\n' };
		const char *k;
		size_t n = keys_of_record(
		    &spec, c->rec, strlen(c->rec), c->whole, &k);

		check(c->want == NULL ? k == NULL && n == 0 :
					k != NULL && n == strlen(c->want) &&
			    memcmp(k, c->want, n) == 0,
		    "case %zu: field %u of '%s'", i, c->field, c->rec);
	}
}

/* A bucket rule of n per d ns, burst b; with n 0, of no limit (inf). */
static struct keyrule
rule(uint64_t n, uint64_t d, uint64_t b)
{
	struct keyrule r = { 0 };

	r.inf = n == 0;
	if (n > 0)
		bucket_init(&r.bucket, n, d, b, b, 0);
	return r;
}

/*
 * Keys cut at the buffer share one state, of the strictest rule a key
 * may follow: the lowest rate, then the smallest burst; never a rule no
 * key reaches, nor none where a rule of a limit is left.
 */
static void
test_keys_cut_rule(void)
{
	static const char file[] = "a* 10/s 5\nb* 1/min 100\nc* inf\n"
				   "d* 1/min 3\n";
	struct keyrule r[5] = { rule(1, NS / 10, 5), rule(1, 60 * NS, 100),
		rule(0, 0, 0), rule(1, 60 * NS, 3), rule(1, NS, 1) };
	char err[256];
	struct tiers t1, t2;
	struct keytab t;

	current = "per-key buckets: keys cut at the buffer";
	if (tiers_parse(&t1, "t", file, strlen(file), UNIT_LINES, ALG_TOKEN,
		err, sizeof err) != 0 ||
	    tiers_parse(&t2, "t", "a* 1/s\n* 1/s\n", 13, UNIT_LINES, ALG_TOKEN,
		err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	(void)keys_init(&t, KEYS_BUCKET, r, 5, &t1, 100, SEED(8), 0);
	check(t.open_rule == 3 && keys_rule_of(&t, NULL, 0) == 3,
	    "d*: as slow as b*, a smaller burst: rule %zu", t.open_rule);
	keys_select(&t, NULL, 0, 0);
	check(t.sel_overflow && t.sel_cut && bucket_avail(&t.cur, 0, 0) == 3,
	    "a cut key takes the overflow bucket of d*");
	keys_store(&t, bucket_take(&t.cur, 0, 0, 2), 0);
	keys_select(&t, NULL, 0, 0);
	check(bucket_avail(&t.cur, 0, 0) == 1 && t.cut == 2,
	    "another shares it: 2 taken, 1 left");
	keys_select(&t, "d1", 2, 0);
	check(!t.sel_cut && bucket_avail(&t.cur, 0, 0) == 3,
	    "a key of d* known whole has its own");
	keys_store(&t, 0, 0);
	/* The rest's 1/min burst 1 is the strictest, but a '*' leaves it
	 * no key: then the line '*' is; with none for the rest, too. */
	r[0] = rule(1, NS, 4);
	r[1] = rule(1, 60 * NS, 1);
	r[2] = rule(1, 60 * NS, 1);
	r[2].none = true;
	check(keys_retune(&t, r, 3, &t2, NS) == 0 && t.open_rule == 1,
	    "the line '*', not the rest's none: rule %zu", t.open_rule);
	/* Rates whose cross products pass 64 bits: (2^40 + 1) / (2^50 + 2)
	 * is a little more than 2^40 / 2^50. */
	r[0] = rule((1ULL << 40) + 1, (1ULL << 50) + 2, 1);
	r[1] = rule(1ULL << 40, 1ULL << 50, 1);
	check(keys_retune(&t, r, 3, &t2, NS) == 0 && t.open_rule == 1,
	    "rates compared exactly: rule %zu", t.open_rule);
	r[0] = rule((1ULL << 40) - 1, (1ULL << 50) - 2, 1);
	check(keys_retune(&t, r, 3, &t2, NS) == 0 && t.open_rule == 0,
	    "rates compared exactly: rule %zu", t.open_rule);
	keys_free(&t);
	r[0].none = true;
	(void)keys_init(&t, KEYS_BUCKET, r, 1, NULL, 100, SEED(8), 0);
	check(t.open_rule == 0, "without tiers, the one rule");
	keys_free(&t);
	tiers_free(&t1);
	tiers_free(&t2);
}

void
test_keys(void)
{
	struct keytab t;
	struct bucket proto;
	const char *k;
	size_t n;
	int bad = 0;

	current = "key fields";
	n = field_of("  a b\tc ", 8, 2, -1, &k);
	check(n == 1 && *k == 'b', "blanks: field 2");
	n = field_of("  a b\tc ", 8, 3, -1, &k);
	check(n == 1 && *k == 'c', "blanks: field 3 after a tab");
	n = field_of("  a b\tc ", 8, 4, -1, &k);
	check(n == 0, "blanks: no field 4 is the empty key");
	n = field_of("a,,c", 4, 2, ',', &k);
	check(n == 0 && *k == ',', "sep: an empty field 2");
	n = field_of("a,,c", 4, 3, ',', &k);
	check(n == 1 && *k == 'c', "sep: field 3");
	n = field_of("a,,c", 4, 4, ',', &k);
	check(n == 0, "sep: no field 4");
	n = field_of("", 0, 1, -1, &k);
	check(n == 0, "empty record");
	test_keys_cut();

	current = "per-key buckets";
	/* 1/s, burst 2 per key: each key gets its own two at once. */
	bucket_init(&proto, 1, NS, 2, 2, 0);
	check(init_buckets(&t, &proto, 100, SEED(42), 0) == 0, "init");
	for (int rep = 0; rep < 3; rep++)
		for (char c = 'a'; c <= 'e'; c++) {
			keys_select(&t, &c, 1, 0);
			if (bucket_take(&t.cur, 0, 0, 1) != (rep < 2 ? 1u : 0u))
				bad++;
			keys_store(&t, 1, 0);
		}
	check(bad == 0, "two per key at once, then none");
	check(t.live == 5, "5 live keys: %zu", t.live);
	keys_select(&t, "a", 1, 0);
	check(bucket_ready_at(&t.cur, 0, 1) == NS, "key a: next at 1 s");
	/* All refilled at 2 s: the next new key forgets them. */
	keys_select(&t, "f", 1, 2 * NS - 1);
	check(t.live == 5, "at 2 s - 1 ns none has refilled: %zu", t.live);
	keys_select(&t, "f", 1, 2 * NS);
	check(t.live == 0, "at 2 s all have: %zu live", t.live);
	keys_free(&t);

	/* max_keys 3: a fourth live key shares the overflow bucket. */
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	(void)init_buckets(&t, &proto, 3, SEED(42), 0);
	for (char c = 'a'; c <= 'f'; c++) {
		keys_select(&t, &c, 1, 0);
		(void)bucket_take(&t.cur, 0, 0, 1);
		keys_store(&t, 1, 0);
	}
	check(t.live == 3, "capped at 3 live: %zu", t.live);
	check(t.overflowed == 3, "3 went to the overflow bucket: %" PRIu64,
	    t.overflowed);
	keys_select(&t, "g", 1, 0);
	check(t.sel_overflow && bucket_avail(&t.cur, 0, 0) == 0,
	    "the overflow bucket is spent");
	keys_free(&t);

	/* A million keys, each charged once at 1/ms with burst 1: at any
	 * time only the last millisecond's keys are live, so forgetting
	 * refilled buckets keeps the table small. */
	bucket_init(&proto, 1, MS, 1, 1, 0);
	(void)init_buckets(&t, &proto, 1000000, SEED(42), 0);
	bad = 0;
	for (uint64_t i = 0; i < 1000000; i++) {
		char key[8];
		int64_t now = (int64_t)(i / 1000) * MS;

		memcpy(key, &i, sizeof key);
		keys_select(&t, key, sizeof key, now);
		if (bucket_take(&t.cur, now, now, 1) != 1)
			bad++;
		keys_store(&t, 1, now);
	}
	check(bad == 0, "every new key finds a full bucket");
	check(t.cap <= 16384, "table stays small: %zu slots, %zu live", t.cap,
	    t.live);
	keys_free(&t);
}

/*
 * Keys too long for an entry are kept as their 128-bit hash: an entry
 * stays 40 bytes, and keys that differ in any byte, at any place, or in
 * their length, still have a bucket each.
 */
static void
test_keys_long(void)
{
	enum { LEN = 200 * 1024, N = 600 };
	char *key = malloc(LEN + 1);
	struct keytab t;
	struct bucket proto;
	int bad = 0;

	current = "per-key buckets: long keys kept by a hash, still apart";
	check(sizeof(struct keyent) == 40, "an entry is %zu bytes",
	    sizeof(struct keyent));
	if (key == NULL)
		return;
	memset(key, 'k', LEN + 1);
	bucket_init(&proto, 1, 3600 * NS, 1, 1, 0);
	(void)init_buckets(&t, &proto, 10000, SEED(5), 0);
	/* Twice over: the first pass takes each key's one token, the
	 * second finds it spent.  Keys differ at the start, in the middle,
	 * at the end, or only in length around KEYS_INLINE. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < N; i++) {
			size_t at = i % 3 == 0 ? 0 :
			    i % 3 == 1	       ? LEN / 2 :
						 LEN - 1;
			size_t len = i < 40 ? (size_t)i : LEN;

			if (i >= 40)
				key[at] = (char)(128 + i / 3);
			keys_select(&t, key, len, 0);
			bad += bucket_take(&t.cur, 0, 0, 1) != (pass == 0);
			keys_store(&t, 1, 0);
			key[at] = 'k';
		}
	check(bad == 0 && t.live == N,
	    "%d of %d keys shared a bucket; %zu live", bad, 2 * N, t.live);
	keys_free(&t);
	free(key);
}

/* A bucket rule of 1 a minute and burst b, started at 0. */
static struct keyrule
per_minute(uint64_t b)
{
	struct keyrule r = { 0 };

	bucket_init(&r.bucket, 1, 60 * NS, b, b, 0);
	bucket_set_catchup(&r.bucket, 0);
	return r;
}

/* Tokens key[0..len) of t has at now, after taking take of them. */
static uint64_t
spend(struct keytab *t, const char *key, size_t len, uint64_t take, int64_t now)
{
	uint64_t got, left;

	keys_select(t, key, len, now);
	got = bucket_take(&t->cur, now, now, take);
	left = bucket_avail(&t->cur, now, now);
	keys_store(t, got, now);
	return left;
}

/*
 * A reload re-rates a long key as a short one, though it cannot match
 * it again until its next record: then it finds its new tier, its bucket
 * re-rated as of the reload.  One that has no record between two
 * reloads starts afresh.
 */
static void
test_keys_long_reload(void)
{
	static const char file1[] = "a* 1/min 2\n* 1/min 5\n",
			  file2[] = "b* 1/min 9\na* 1/min 4\n* 1/min 6\n";
	/* The rules of the tiers, then of the keys none takes: none here. */
	struct keyrule r1[3] = { per_minute(2), per_minute(5), per_minute(1) },
		       r2[4] = { per_minute(9), per_minute(4), per_minute(6),
			       per_minute(1) };
	char lng[64], err[256];
	struct tiers t1, t2;
	struct keytab t;
	size_t n = (size_t)snprintf(lng, sizeof lng, "a%040d", 7);

	current = "per-key buckets: a reload re-rates long keys too";
	if (tiers_parse(&t1, "t", file1, strlen(file1), UNIT_LINES, ALG_TOKEN,
		err, sizeof err) != 0 ||
	    tiers_parse(&t2, "t", file2, strlen(file2), UNIT_LINES, ALG_TOKEN,
		err, sizeof err) != 0) {
		check(0, "parse: %s", err);
		return;
	}
	if (keys_init(&t, KEYS_BUCKET, r1, 3, &t1, 100, SEED(3), 0) != 0) {
		check(0, "keys_init");
		return;
	}
	check(spend(&t, "ax", 2, 1, 0) == 1 && spend(&t, lng, n, 1, 0) == 1,
	    "tier a* of burst 2: one taken, one left, long or short");
	lng[0] = 'b';
	check(spend(&t, lng, n, 0, 0) == 5, "another long key: the rest's 5");
	lng[0] = 'a';
	/* Keys never live: their rules are remembered, then forgotten. */
	check(
	    keys_rule_of(&t, "azz", 3) == 0 && keys_rule_of(&t, "bzz", 3) == 1,
	    "rules of keys not live, under the first tiers");
	check(keys_retune(&t, r2, 4, &t2, NS) == 0, "reload");
	check(
	    keys_rule_of(&t, "azz", 3) == 1 && keys_rule_of(&t, "bzz", 3) == 0,
	    "under the new tiers, the rules remembered are not");
	/* bucket_retune keeps the tokens a bucket holds, up to the burst. */
	check(spend(&t, "ax", 2, 0, 2 * NS) == 1 &&
		spend(&t, lng, n, 0, 2 * NS) == 1,
	    "burst 4 now, and one token left, long or short");
	check(keys_retune(&t, r1, 3, &t1, 3 * NS) == 0 &&
		keys_retune(&t, r2, 4, &t2, 4 * NS) == 0,
	    "two reloads more");
	check(spend(&t, "ax", 2, 0, 5 * NS) == 1 &&
		spend(&t, lng, n, 0, 5 * NS) == 4,
	    "the short key kept its bucket; the long one, unseen through "
	    "two reloads, starts afresh");
	keys_free(&t);
	tiers_free(&t1);
	tiers_free(&t2);
}

void
test_keys_table(void)
{
	test_keys_apart();
	test_keys_refilled_at_cap();
	test_keys_same_slot();
	test_keys_model();
	test_keys_long();
	test_keys_long_reload();
	test_keys_cut_rule();
}
