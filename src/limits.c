/* The limits of a run, built from its options: every limiter and the gate. */
/* getentropy(3), in POSIX only since 2024, is a BSD and GNU extension. */
#define _DEFAULT_SOURCE
#include <err.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glibc declares getentropy with _DEFAULT_SOURCE from 2.25 on; other
 * systems read /dev/urandom. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 25)
#define HAVE_GETENTROPY
#endif

#include "msg.h"
#include "clock.h"
#include "engine.h"
#include "input.h"
#include "limits.h"
#include "rate.h"

/*
 * Units worth quantum_ns at a limit's rate, at least 1 and at most its
 * burst (or not capped by the burst, for a leaky bucket of bytes).
 */
static uint64_t
quantum(const struct limit *l, uint64_t quantum_ns, bool cap_at_burst)
{
	struct amount a = { true, quantum_ns, 1 };
	uint64_t q;

	if (rate_amount_units(&a, &l->rate, &q) != 0 || q < 1)
		q = 1;
	if (cap_at_burst && q > l->burst)
		q = l->burst;
	if (q > ENGINE_BUF_BYTES)
		q = ENGINE_BUF_BYTES;
	return q;
}

/* Units to gather per wake-up: the least any of L's limits allows. */
static uint64_t
limits_quantum(const struct limits *L)
{
	const struct config *cfg = L->cfg;
	bool bytes = cfg->mode == UNIT_BYTES;
	uint64_t q = UINT64_MAX;

	for (int i = 0; i < cfg->nlimits; i++) {
		const struct limit *l = &L->now[i];
		uint64_t qi;

		/* Leaky releases one record per slot; bytes still go out a
		 * millisecond of slots at a time, each no earlier than its
		 * own slot. */
		if (cfg->algorithm == ALG_LEAKY)
			qi = bytes ? quantum(l, LIMITS_BYTE_QUANTUM_NS, false) :
				     1;
		else
			qi = quantum(l,
			    bytes ? LIMITS_BYTE_QUANTUM_NS :
				    LIMITS_RECORD_QUANTUM_NS,
			    true);
		if (qi < q)
			q = qi;
	}
	return q;
}

/* The -r limits of cfg, started at start_ns, as one limiter. */
static struct limiter *
build_rates(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;

	for (int i = 0; i < cfg->nlimits; i++) {
		const struct limit *l = &cfg->limits[i];

		switch (cfg->algorithm) {
		case ALG_SLIDING:
			if (sliding_init(&L->windows[i], l->rate.count,
				(int64_t)l->rate.period_ns,
				cfg->catchup_ns) != 0)
				err(1, "window of %llu units",
				    (unsigned long long)l->rate.count);
			limiter_of_sliding(&L->members[i], &L->windows[i]);
			break;
		case ALG_FIXED:
			fixed_init(&L->fixeds[i], l->rate.count,
			    (int64_t)l->rate.period_ns, clock_wall_offset_ns(),
			    cfg->catchup_ns);
			limiter_of_fixed(&L->members[i], &L->fixeds[i]);
			break;
		case ALG_TOKEN:
		case ALG_LEAKY:
			bucket_init(&L->buckets[i], l->rate.n, l->rate.d,
			    l->burst, l->initial, start_ns);
			bucket_set_catchup(&L->buckets[i], cfg->catchup_ns);
			limiter_of_bucket(&L->members[i], &L->buckets[i]);
			break;
		}
	}
	if (cfg->nlimits == 1)
		return &L->members[0];
	L->set = (struct limiter_set){ L->members, cfg->nlimits };
	limiter_of_set(&L->all, &L->set);
	return &L->all;
}

/* The n bytes at b from /dev/urandom; -1 if it cannot give them all. */
static int
urandom(unsigned char *b, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = -1;

	if (fd >= 0) {
		do
			got = read(fd, b, n);
		while (got < 0 && errno == EINTR);
		(void)close(fd);
	}
	if (got >= 0 && got != (ssize_t)n)
		errno = EIO; /* a short read: not all the bytes asked */
	return got == (ssize_t)n ? 0 : -1;
}

/* n (at most 256) bytes at b from the kernel's random source, for what. */
static void
random_bytes(unsigned char *b, size_t n, const char *what)
{
#ifdef HAVE_GETENTROPY
	if (getentropy(b, n) == 0)
		return;
#endif
	if (urandom(b, n) != 0)
		err(1, "no random %s from getentropy or /dev/urandom", what);
}

/*
 * A secret key for the key hash, from the kernel's random source: without
 * it, input could aim keys at one slot of the table.  No key is better
 * than a guessable one, so this fails rather than fall back to the clock.
 */
static struct siphash_key
random_seed(void)
{
	unsigned char b[16];

	random_bytes(b, sizeof b, "seed for the key hash");
	return siphash_key_of(b);
}

static void
select_keytab(
    void *ctx, const char *rec, size_t len, bool whole, int64_t now_ns)
{
	keys_select_record(ctx, rec, len, whole, now_ns);
}

/* The rule l gives keys, started at start_ns: none when l is NULL. */
static void
rule_of_limit(const struct config *cfg, const struct limit *l, int64_t start_ns,
    struct keyrule *r)
{
	memset(r, 0, sizeof *r);
	if (l == NULL || l->rate.inf) {
		r->none = l == NULL;
		r->inf = l != NULL;
		return;
	}
	switch (cfg->algorithm) {
	case ALG_SLIDING:
		r->sliding = (struct sliding){ .limit = l->rate.count,
			.width_ns = (int64_t)l->rate.period_ns,
			.catchup_ns = cfg->catchup_ns };
		break;
	case ALG_FIXED:
		fixed_init(&r->fixed, l->rate.count, (int64_t)l->rate.period_ns,
		    clock_wall_offset_ns(), cfg->catchup_ns);
		break;
	default:
		bucket_init(&r->bucket, l->rate.n, l->rate.d, l->burst,
		    l->burst, start_ns);
		bucket_set_catchup(&r->bucket, cfg->catchup_ns);
		break;
	}
}

static enum keys_kind
kind_of(enum algorithm alg)
{
	return alg == ALG_SLIDING ? KEYS_SLIDING :
	    alg == ALG_FIXED	  ? KEYS_FIXED :
				    KEYS_BUCKET;
}

/*
 * The rules of the tiers t and of the keys no tier takes, started at
 * start_ns, into a new array; NULL when memory runs out.
 */
static struct keyrule *
make_rules(const struct limits *L, const struct tiers *t, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	size_t n = t->ntiers + 1;
	struct keyrule *r = calloc(n, sizeof *r);

	if (r == NULL)
		return NULL;
	for (size_t i = 0; i < t->ntiers; i++)
		rule_of_limit(cfg, &t->tier[i].limit, start_ns, &r[i]);
	rule_of_limit(cfg, cfg->nlimits > 0 ? &cfg->limits[0] : NULL, start_ns,
	    &r[t->ntiers]);
	return r;
}

/* The rate of limit l (NULL: none) as a person reads it, into out. */
static void
rate_text(
    const struct config *cfg, const struct limit *l, char *out, size_t size)
{
	if (l == NULL) {
		snprintf(out, size, "none: dropped");
		return;
	}
	rate_format(&l->rate, cfg->mode == UNIT_BYTES, out, size);
	if (cfg->algorithm == ALG_TOKEN && !l->rate.inf) {
		size_t n = strlen(out);

		snprintf(out + n, size - n, ", burst %llu",
		    (unsigned long long)l->burst);
	}
}

/* Order tiers by pattern, for bsearch. */
static int
by_pattern(const void *a, const void *b)
{
	return strcmp((*(const struct tier *const *)a)->pattern,
	    (*(const struct tier *const *)b)->pattern);
}

/* The tier of sorted[0..n) whose pattern is p, or NULL. */
static const struct tier *
find_pattern(const struct tier **sorted, size_t n, const char *p)
{
	struct tier key = { .pattern = (char *)(uintptr_t)p };
	const struct tier *kp = &key, **at;

	at = n > 0 ? bsearch(&kp, sorted, n, sizeof *sorted, by_pattern) : NULL;
	return at != NULL ? *at : NULL;
}

/*
 * A row of counts per tier of t and one for the rest, carrying the
 * counts of L's rows whose pattern t keeps; NULL when memory runs out.
 */
static struct stats_tier *
make_tier_stats(const struct limits *L, const struct tiers *t)
{
	const struct config *cfg = L->cfg;
	struct stats_tier *row = calloc(t->ntiers + 1, sizeof *row);
	const struct tier **sorted = malloc((t->ntiers + 1) * sizeof *sorted);

	if (row == NULL || sorted == NULL) {
		free(row);
		free(sorted);
		return NULL;
	}
	for (size_t i = 0; i < t->ntiers; i++)
		sorted[i] = &t->tier[i];
	qsort(sorted, t->ntiers, sizeof *sorted, by_pattern);
	for (size_t i = 0; i <= t->ntiers; i++) {
		const struct tier *ti = i < t->ntiers ? &t->tier[i] : NULL;

		row[i].pattern = ti != NULL ? ti->pattern : NULL;
		row[i].line = ti != NULL ? ti->line : 0;
		rate_text(cfg,
		    ti != NULL		 ? &ti->limit :
			cfg->nlimits > 0 ? &cfg->limits[0] :
					   NULL,
		    row[i].limit, sizeof row[i].limit);
	}
	/* The rest's counts carry; a tier's, when its pattern stays. */
	for (size_t j = 0; j < L->ntier_stats; j++) {
		const struct stats_tier *was = &L->tier_stats[j];
		const struct tier *now = was->pattern == NULL ?
		    NULL :
		    find_pattern(sorted, t->ntiers, was->pattern);
		struct stats_tier *to = was->pattern == NULL ? &row[t->ntiers] :
		    now != NULL ? &row[now->index] :
				  NULL;

		if (to != NULL) {
			to->units_out += was->units_out;
			to->units_dropped += was->units_dropped;
		}
	}
	free(sorted);
	return row;
}

/*
 * Can the tiers t (of the file name) serve cfg: a rate for every key,
 * and a worst case of the key table within KEYS_MEMORY_MAX?  The reason
 * into err when not.
 */
static int
check_tiers(const struct config *cfg, const char *name, const struct tiers *t,
    char *err, size_t size)
{
	uint64_t most = cfg->nlimits > 0 ? cfg->limits[0].rate.count : 0;
	const struct tier *big = NULL;
	uint64_t need, fit;
	char what[TIERS_LINE_MAX + 64];

	if (cfg->nlimits == 0 && !cfg->drop && t->catchall == 0)
		return msg_fail(err, size,
		    "%s: no line matches every key ('*'), and keys no line "
		    "matches have no -r: give -r for them, or --drop to "
		    "set them aside",
		    name);
	if (cfg->algorithm != ALG_SLIDING)
		return 0;
	for (size_t i = 0; i < t->ntiers; i++)
		if (!t->tier[i].limit.rate.inf &&
		    t->tier[i].limit.rate.count > most) {
			most = t->tier[i].limit.rate.count;
			big = &t->tier[i];
		}
	need = keys_worst_bytes(
	    KEYS_SLIDING, cfg->max_keys, most, t->ntiers + 1);
	if (need <= KEYS_MEMORY_MAX)
		return 0;
	/* The most keys that fit, at the cost of one key's worst case. */
	fit = (KEYS_MEMORY_MAX -
		  keys_worst_bytes(KEYS_SLIDING, 0, most, t->ntiers + 1)) /
	    keys_worst_bytes(KEYS_SLIDING, 1, most, 0);
	if (big != NULL)
		snprintf(what, sizeof what, "tier '%s' of %s:%zu", big->pattern,
		    name, big->line);
	else
		snprintf(what, sizeof what, "-r");
	return msg_fail(err, size,
	    "-k with -a sliding keeps up to %llu release times a key (%s): "
	    "%llu keys may need %.1f GiB, over the %llu MiB the key table "
	    "may use; give --max-keys %llu or less, or use -a fixed",
	    (unsigned long long)most, what, (unsigned long long)cfg->max_keys,
	    (double)need / (1 << 30),
	    (unsigned long long)(KEYS_MEMORY_MAX >> 20),
	    (unsigned long long)fit);
}

/* Most bytes of a tiers file: its most lines, each at its longest. */
#define TIERS_FILE_MAX ((size_t)TIERS_MAX * (TIERS_LINE_MAX + 2))

/*
 * Read and check the tiers file of cfg into t.  0, or -1 with the
 * reason, naming the file, in err.
 */
static int
read_tiers(const struct config *cfg, struct tiers *t, char *err, size_t size)
{
	const char *name = cfg->tiers_file;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (input_slurp(name, TIERS_FILE_MAX, &text, &len, err, size) != 0)
		return -1;
	rc = tiers_parse(
	    t, name, text, len, cfg->mode, cfg->algorithm, err, size);
	free(text);
	if (rc != 0)
		return -1;
	if (check_tiers(cfg, name, t, err, size) != 0) {
		tiers_free(t);
		return -1;
	}
	return 0;
}

/* The table of -k, its rules by --tiers or by -r, started at start_ns. */
static void
build_keytab(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	struct siphash_key seed = random_seed();
	struct keyrule *rules;
	char why[1024];

	if (cfg->tiers_file != NULL) {
		if (read_tiers(cfg, &L->tiers, why, sizeof why) != 0)
			errx(2, "%s", why);
		if ((L->tier_stats = make_tier_stats(L, &L->tiers)) == NULL)
			err(1, "tiers");
		L->ntier_stats = L->tiers.ntiers + 1;
	} else if (check_tiers(cfg, "-r", &L->tiers, why, sizeof why) != 0) {
		errx(2, "%s", why);
	}
	if ((rules = make_rules(L, &L->tiers, start_ns)) == NULL ||
	    keys_init(&L->keytab, kind_of(cfg->algorithm), rules,
		L->tiers.ntiers + 1, cfg->tiers_file != NULL ? &L->tiers : NULL,
		(size_t)cfg->max_keys, &seed, start_ns) != 0)
		err(1, "key table");
	free(rules);
	L->keyed = true;
	L->keytab.spec = (struct keyspec){ cfg->key_field, cfg->key_sep,
		cfg->delim };
	L->delim = (char)cfg->delim;
}

/* -k: a limit per key, in a table. */
static void
build_keys(struct limits *L, int64_t start_ns)
{
	build_keytab(L, start_ns);
	limiter_of_keys(&L->members[0], &L->keytab);
	L->gate.limit = &L->members[0];
	L->gate.select = select_keytab;
	L->gate.select_ctx = &L->keytab;
	L->gate.quantum = 1;
}

/*
 * The rate in Redis of each rule of the keys (--tiers), into
 * L->redis_rates, and the id that the settings of the name keep: a
 * digest of them all, the same for the same tiers in any file.
 */
static void
redis_tiers(struct limits *L, char *id, size_t size)
{
	static const struct siphash_key fixed_key = { { 0, 0 } };
	size_t n = L->keytab.nrules;
	uint64_t h = 0;
	char one[TIERS_LINE_MAX + 96];

	free(L->redis_rates);
	if ((L->redis_rates = calloc(n, sizeof *L->redis_rates)) == NULL)
		err(1, "tiers");
	for (size_t i = 0; i < n; i++) {
		const struct keyrule *r = &L->keytab.rules[i];
		const struct bucket *b = &r->bucket;
		int len;

		redis_rate_init(
		    &L->redis_rates[i], b->n, b->d, b->burst, r->none, r->inf);
		len = snprintf(one, sizeof one, "%s%c%s%c%s%c%llu",
		    i < L->tiers.ntiers ? L->tiers.tier[i].pattern : "", 0,
		    L->redis_rates[i].interval, 0, L->redis_rates[i].burst, 0,
		    (unsigned long long)h);
		h = siphash24(&fixed_key, one, (size_t)len);
	}
	snprintf(id, size, "tiers %016llx", (unsigned long long)h);
}

/*
 * The key in Redis of the keys cut at the buffer: the record delimiter
 * alone, which no key holds, so that they share one bucket.
 */
static const char *
cut_key(const struct limits *L, const char *key, size_t *len)
{
	if (key != NULL)
		return key;
	*len = 1;
	return &L->delim;
}

static void
select_redis(void *ctx, const char *rec, size_t len, bool whole, int64_t now_ns)
{
	struct limits *L = ctx;
	const char *key;
	size_t n = keys_of_record(&L->keytab.spec, rec, len, whole, &key);

	/* The table holds the keys' rules, and their local limits for
	 * --redis-fallback local. */
	keys_select(&L->keytab, key, n, now_ns);
	key = cut_key(L, key, &n);
	redis_select(L->redis, key, n,
	    L->redis_rates != NULL ? &L->redis_rates[L->keytab.sel_rule] :
				     NULL);
}

/* Choose b's key in the table of local limits (--redis-fallback local). */
static void
select_local(void *ctx, const struct booking *b)
{
	struct limits *L = ctx;

	keys_select(&L->keytab, b->key == &L->delim ? NULL : b->key, b->key_len,
	    b->at_ns);
}

/*
 * The gate's book with --redis: each record's key (with -k) and its
 * tier's rate, then one round trip for them all.
 */
static size_t
book_redis(void *ctx, struct booking *b, size_t n, bool take, int64_t now_ns)
{
	struct limits *L = ctx;

	for (size_t i = 0; L->cfg->key_field > 0 && i < n; i++) {
		b[i].key_len = keys_of_record(&L->keytab.spec, b[i].rec,
		    b[i].bytes, !b[i].outgrown, &b[i].key);
		b[i].rate = L->redis_rates != NULL ?
		    &L->redis_rates[keys_rule_of(
			&L->keytab, b[i].key, b[i].key_len)] :
		    NULL;
		b[i].key = cut_key(L, b[i].key, &b[i].key_len);
	}
	return redis_book(L->redis, b, n, take, now_ns,
	    (int64_t)LIMITS_RECORD_QUANTUM_NS,
	    L->cfg->key_field > 0 ? select_local : NULL, L);
}

/* --redis: the bucket, or a bucket per key, kept in Redis. */
static void
build_redis(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = cfg->nlimits > 0 ? &cfg->limits[0] : NULL;
	char why[512], id[TIERS_ID_MAX];
	struct redis_bucket b = { cfg->shared, l != NULL ? l->rate.n : 0,
		l != NULL ? l->rate.d : 0, l != NULL ? l->burst : 0,
		cfg->mode == UNIT_BYTES, cfg->rate_text, NULL, 0,
		cfg->redis_allow_eviction };
	unsigned char session[8];

	/* The number Redis knows this process's batches by. */
	random_bytes(session, sizeof session, "number for Redis");
	for (size_t i = 0; i < sizeof session; i++)
		b.session = b.session << 8 | session[i];

	if (cfg->key_field > 0) {
		/* Each key is limited alone while Redis is down. */
		build_keytab(L, start_ns);
		limiter_of_keys(&L->redis_local_limit, &L->keytab);
		if (cfg->tiers_file != NULL) {
			redis_tiers(L, id, sizeof id);
			b.tiers_id = id;
		}
	} else {
		/* Without -k, --shared has one -r (options.c). */
		const struct limit *one = &cfg->limits[0];

		bucket_init(&L->redis_local, one->rate.n, one->rate.d,
		    one->burst, one->burst, start_ns);
		bucket_set_catchup(&L->redis_local, cfg->catchup_ns);
		limiter_of_bucket(&L->redis_local_limit, &L->redis_local);
	}
	if ((L->redis = redis_open(&cfg->redis_url, &b, cfg->redis_fallback,
		 &L->redis_local_limit, why, sizeof why)) == NULL)
		errx(1, "%s", why);
	redis_limiter(&L->members[0], L->redis);
	L->gate.limit = &L->members[0];
	L->gate.quantum = limits_quantum(L);
	L->gate.book = book_redis;
	L->gate.book_ctx = L;
	if (cfg->key_field > 0) {
		L->gate.select = select_redis;
		L->gate.select_ctx = L;
		L->gate.quantum = 1;
	}
}

/* A reply of one line, as printf, its control bytes escaped. */
static void
say(char *reply, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(reply, size - 1, fmt, ap);
	va_end(ap);
	msg_escape(reply, size - 1);
	n = strlen(reply);
	reply[n] = '\n';
	reply[n + 1] = '\0';
}

/* The tiers in L's table changed: tell Redis, and book at their rates. */
static void
retier_redis(struct limits *L)
{
	char id[TIERS_ID_MAX], why[512];

	redis_tiers(L, id, sizeof id);
	/* The keys follow the new tiers here at once; if Redis cannot be
	 * told now, newcomers see the old settings until this run books. */
	if (redis_retier(L->redis, id, why, sizeof why) != 0)
		warnx("--reload: the tiers in Redis stay as they were until "
		      "it is back: %s",
		    why);
}

void
limits_reload(struct limits *L, int64_t now_ns, char *reply, size_t size)
{
	const struct config *cfg = L->cfg;
	struct tiers t;
	struct keyrule *rules;
	struct stats_tier *rows;
	char why[1024];

	if (cfg->tiers_file == NULL) {
		say(reply, size, "error: this run has no --tiers file");
		return;
	}
	if (read_tiers(cfg, &t, why, sizeof why) != 0) {
		say(reply, size, "error: %s", why);
		return;
	}
	rules = make_rules(L, &t, now_ns);
	rows = rules != NULL ? make_tier_stats(L, &t) : NULL;
	if (rows == NULL ||
	    keys_retune(&L->keytab, rules, t.ntiers + 1, &t, now_ns) != 0) {
		say(reply, size, "error: %s: out of memory", cfg->tiers_file);
		free(rules);
		free(rows);
		tiers_free(&t);
		return;
	}
	free(rules);
	tiers_free(&L->tiers);
	L->tiers = t;
	L->keytab.tiers = &L->tiers; /* it kept the address of t */
	if (L->redis != NULL)
		retier_redis(L);
	free(L->tier_stats);
	L->tier_stats = rows;
	L->ntier_stats = t.ntiers + 1;
	if (L->stats != NULL) {
		L->stats->tiers = rows;
		L->stats->ntiers = L->ntier_stats;
	}
	say(reply, size, "ok: %zu tier%s from %s", t.ntiers,
	    t.ntiers == 1 ? "" : "s", cfg->tiers_file);
}

/*
 * The stream tells each record once that it waits, then its fate: the
 * counts of its tier follow, and a report only reads them.
 */
static void
tally(void *ctx, const char *rec, size_t len, bool whole, enum stats_fate fate)
{
	struct limits *L = ctx;
	struct stats_tier *row;
	const char *key;
	size_t n;

	if (L->tier_stats == NULL)
		return;
	if (rec == NULL) {
		for (size_t i = 0; i < L->ntier_stats; i++)
			L->tier_stats[i].units_waiting = 0;
		return;
	}
	n = keys_of_record(&L->keytab.spec, rec, len, whole, &key);
	row = &L->tier_stats[keys_rule_of(&L->keytab, key, n)];
	if (fate == STATS_WAITING) {
		row->units_waiting++;
		return;
	}
	/* Not below 0: a reload between may have moved it to another row,
	 * until the stream tells it again. */
	if (row->units_waiting > 0)
		row->units_waiting--;
	if (fate == STATS_OUT)
		row->units_out++;
	else
		row->units_dropped++;
}

/* --shared: one bucket in a file mapped by every process that uses it. */
static void
build_shared(struct limits *L)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = &cfg->limits[0];
	char why[512];

	if (shared_open(&L->shared, cfg->shared, l->rate.n, l->rate.d, l->burst,
		cfg->mode == UNIT_BYTES, cfg->rate_text, why,
		sizeof why) != 0) {
		msg_escape(why, sizeof why);
		errx(1, "%s", why);
	}
	shared_limiter(&L->members[0], &L->shared);
	L->gate.limit = &L->members[0];
	L->gate.quantum = limits_quantum(L);
}

void
limits_build(struct limits *L, const struct config *cfg, int64_t start_ns,
    struct stats *stats)
{
	memset(L, 0, sizeof *L);
	L->cfg = cfg;
	L->stats = stats;
	memcpy(L->now, cfg->limits, sizeof L->now);
	L->gate = (struct gate){ .framer = { .bytes = cfg->mode == UNIT_BYTES,
				     .delim = cfg->delim },
		.quantum = 1 };
	if (cfg->redis) {
		build_redis(L, start_ns);
	} else if (cfg->key_field > 0) {
		build_keys(L, start_ns);
	} else if (cfg->shared != NULL) {
		build_shared(L);
	} else if (!options_unlimited(cfg)) {
		L->gate.limit = build_rates(L, start_ns);
		L->gate.quantum = limits_quantum(L);
	} else if (cfg->byte_limited) {
		L->gate.quantum = ENGINE_BUF_BYTES; /* bytes set the pace */
	}
	if (cfg->byte_limited) {
		const struct limit *l = &cfg->byte_limit;

		bucket_init(&L->byte_bucket, l->rate.n, l->rate.d, l->burst,
		    l->initial, start_ns);
		bucket_set_catchup(&L->byte_bucket, cfg->catchup_ns);
		L->gate.byte_limit = &L->byte_bucket;
		L->gate.byte_quantum = quantum(l, LIMITS_BYTE_QUANTUM_NS, true);
	}
	if (stats != NULL) {
		limits_describe(L, &stats->limit);
		stats->tiers = L->tier_stats;
		stats->ntiers = L->ntier_stats;
	}
}

stats_tally_fn *
limits_tally_fn(const struct limits *L)
{
	return L->tier_stats != NULL ? tally : NULL;
}

void
limits_free(struct limits *L)
{
	for (int i = 0; L->gate.limit != NULL && i < L->cfg->nlimits; i++)
		if (L->cfg->algorithm == ALG_SLIDING)
			sliding_free(&L->windows[i]);
	if (L->keyed)
		keys_free(&L->keytab);
	tiers_free(&L->tiers);
	free(L->tier_stats);
	free(L->redis_rates);
	redis_close(L->redis);
}

bool
limits_busy(const struct limits *L)
{
	return L->redis != NULL && redis_busy(L->redis);
}

bool
limits_retunable(const struct limits *L, const char **why)
{
	const struct config *cfg = L->cfg;

	*why = NULL;
	if (cfg->algorithm != ALG_TOKEN && cfg->algorithm != ALG_LEAKY)
		*why = "live changes need -a token or -a leaky";
	else if (L->gate.select != NULL || cfg->shared != NULL)
		*why = cfg->shared != NULL ?
		    "the buckets of --shared cannot "
		    "be changed live" :
		    "the buckets of -k cannot be changed "
		    "live";
	return *why == NULL;
}

void
limits_retune(struct limits *L, int i, const struct limit *l, int64_t now_ns)
{
	L->now[i].rate = l->rate;
	L->now[i].burst = l->burst;
	bucket_retune(&L->buckets[i], l->rate.n, l->rate.d, l->burst, now_ns);
	L->gate.quantum = limits_quantum(L);
	if (L->stats != NULL)
		limits_describe(L, &L->stats->limit);
}

/* Limit l as a person reads it, into out; what it lets through at once. */
static uint64_t
describe_limit(
    const struct limits *L, const struct limit *l, char *out, size_t size)
{
	const struct config *cfg = L->cfg;
	const char *per = cfg->key_field > 0 ? " per key" : "";
	char rate[64];

	rate_format(&l->rate, cfg->mode == UNIT_BYTES, rate, sizeof rate);
	switch (cfg->algorithm) {
	case ALG_SLIDING:
		snprintf(out, size, "%s%s in any window", rate, per);
		return l->burst;
	case ALG_FIXED:
		snprintf(out, size, "%s%s per clock window", rate, per);
		return 2 * l->burst; /* two windows meet at an edge */
	case ALG_LEAKY:
		snprintf(out, size, "%s%s, leaky", rate, per);
		return l->initial < l->burst ? l->initial : l->burst;
	default:
		/* What the bucket held at start (--initial) is all it let
		 * through at once. */
		snprintf(out, size, "%s%s, burst %llu", rate, per,
		    (unsigned long long)l->burst);
		return l->initial < l->burst ? l->initial : l->burst;
	}
}

/*
 * Every -r limit as a person reads it; the tightest in the long run is
 * the one the achieved rate is compared with.
 */
static void
describe_rates(const struct limits *L, struct stats_limit *out)
{
	const struct config *cfg = L->cfg;
	size_t n = 0;

	for (int i = 0; i < cfg->nlimits && n < sizeof out->text; i++) {
		char one[96];
		uint64_t allowance = describe_limit(
		    L, &L->now[i], one, sizeof one);
		double per_sec = rate_per_sec(&L->now[i].rate);

		n += (size_t)snprintf(out->text + n, sizeof out->text - n,
		    "%s%s", i > 0 ? " and " : "", one);
		if (i == 0 || per_sec < out->per_sec) {
			out->per_sec = per_sec;
			out->allowance = allowance;
		}
	}
	if (cfg->key_field > 0) {
		/* All keys together may go faster than one. */
		out->per_sec = 0;
		out->allowance = 0;
	}
	if (cfg->shared != NULL && n < sizeof out->text)
		(void)snprintf(out->text + n, sizeof out->text - n,
		    ", shared as %s", cfg->shared);
}

void
limits_describe(const struct limits *L, struct stats_limit *out)
{
	const struct config *cfg = L->cfg;
	size_t n = 0;

	*out = (struct stats_limit){ .text = "none" };
	if (cfg->tiers_file != NULL) {
		/* The file's name may be long: the count says enough. */
		n = (size_t)snprintf(out->text, sizeof out->text,
		    "%zu tier%s by key, else ", L->tiers.ntiers,
		    L->tiers.ntiers == 1 ? "" : "s");
		if (cfg->nlimits == 0)
			n += (size_t)snprintf(
			    out->text + n, sizeof out->text - n, "dropped");
	}
	if (cfg->nlimits > 0) {
		struct stats_limit r;

		describe_rates(L, &r);
		(void)snprintf(
		    out->text + n, sizeof out->text - n, "%s", r.text);
		out->per_sec = r.per_sec;
		out->allowance = r.allowance;
		n = strlen(out->text);
	}
	if (cfg->byte_limited) {
		char rate[64];

		rate_format(&cfg->byte_limit.rate, true, rate, sizeof rate);
		(void)snprintf(out->text + n, sizeof out->text - n,
		    "%sbytes %s, "
		    "burst %llu",
		    n > 0 ? "; " : "", rate,
		    (unsigned long long)cfg->byte_limit.burst);
	}
}
