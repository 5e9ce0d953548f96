/* The limits of a run, built from its options: every limiter and the gate. */
/* getentropy(3), in POSIX only since 2024, is a BSD and GNU extension. */
#define _DEFAULT_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
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

/*
 * A secret key for the key hash, from the kernel's random source: without
 * it, input could aim keys at one slot of the table.  No key is better
 * than a guessable one, so this fails rather than fall back to the clock.
 */
static struct siphash_key
random_seed(void)
{
	unsigned char b[16];

#ifdef HAVE_GETENTROPY
	if (getentropy(b, sizeof b) == 0)
		return siphash_key_of(b);
#endif
	if (urandom(b, sizeof b) != 0)
		err(1,
		    "no random seed for the key hash from getentropy "
		    "or /dev/urandom");
	return siphash_key_of(b);
}

static void
select_keytab(void *ctx, const char *rec, size_t len, int64_t now_ns)
{
	keys_select_record(ctx, rec, len, now_ns);
}

static void
select_redis(void *ctx, const char *rec, size_t len, int64_t now_ns)
{
	struct limits *L = ctx;
	const char *key;
	size_t n = keys_of_record(&L->redis_keys, rec, len, &key);

	(void)now_ns;
	redis_select(L->redis, key, n);
}

/* --redis: the bucket, or a bucket per key, kept in Redis. */
static void
build_redis(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = &cfg->limits[0];
	char why[512];
	struct redis_bucket b = { cfg->shared, l->rate.n, l->rate.d, l->burst,
		cfg->mode == UNIT_BYTES, cfg->rate_text };

	bucket_init(&L->redis_local, l->rate.n, l->rate.d, l->burst, l->burst,
	    start_ns);
	bucket_set_catchup(&L->redis_local, cfg->catchup_ns);
	limiter_of_bucket(&L->redis_local_limit, &L->redis_local);
	if ((L->redis = redis_open(&cfg->redis_url, &b, cfg->redis_fallback,
		 &L->redis_local_limit, why, sizeof why)) == NULL)
		errx(1, "%s", why);
	redis_limiter(&L->members[0], L->redis);
	L->gate.limit = &L->members[0];
	L->gate.quantum = limits_quantum(L);
	if (cfg->key_field > 0) {
		L->redis_keys = (struct keyspec){ cfg->key_field, cfg->key_sep,
			cfg->delim };
		L->gate.select = select_redis;
		L->gate.select_ctx = L;
		L->gate.quantum = 1;
	}
}

/* -k: a bucket per key, in a table. */
static void
build_keys(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = &cfg->limits[0];
	struct bucket proto;
	struct siphash_key seed = random_seed();

	bucket_init(&proto, l->rate.n, l->rate.d, l->burst, l->burst, start_ns);
	bucket_set_catchup(&proto, cfg->catchup_ns);
	if (keys_init(&L->keytab, &proto, (size_t)cfg->max_keys, &seed,
		start_ns) != 0)
		err(1, "key table");
	L->keyed = true;
	L->keytab.spec = (struct keyspec){ cfg->key_field, cfg->key_sep,
		cfg->delim };
	limiter_of_keys(&L->members[0], &L->keytab);
	L->gate.limit = &L->members[0];
	L->gate.select = select_keytab;
	L->gate.select_ctx = &L->keytab;
	L->gate.quantum = 1;
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
	if (stats != NULL)
		limits_describe(L, &stats->limit);
}

void
limits_free(struct limits *L)
{
	for (int i = 0; L->gate.limit != NULL && i < L->cfg->nlimits; i++)
		if (L->cfg->algorithm == ALG_SLIDING)
			sliding_free(&L->windows[i]);
	if (L->keyed)
		keys_free(&L->keytab);
	redis_close(L->redis);
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
	if (cfg->nlimits > 0) {
		describe_rates(L, out);
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
