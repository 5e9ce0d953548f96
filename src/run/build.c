/* The gate of a run, built from its options, and every limit behind it. */
#include <err.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "clock.h"
#include "engine.h"
#include "describe.h"
#include "entropy.h"
#include "readfile.h"
#include "build.h"
#include "rate.h"
#include "zoneinfo.h"

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
			qi = bytes ? quantum(l, BUILD_BYTE_QUANTUM_NS, false) :
				     1;
		else
			qi = quantum(l,
			    bytes ? BUILD_BYTE_QUANTUM_NS :
				    BUILD_RECORD_QUANTUM_NS,
			    true);
		if (qi < q)
			q = qi;
	}
	return q;
}

/*
 * Limit l under cfg's algorithm, started at start_ns, as a limiter l_out
 * on the state given (one of them is used).
 */
static void
one_limit(const struct limits *L, const struct limit *l, int64_t start_ns,
    struct bucket *b, struct sliding *w, struct fixed *f, struct limiter *l_out)
{
	const struct config *cfg = L->cfg;

	switch (cfg->algorithm) {
	case ALG_SLIDING:
		if (sliding_init(w, l->rate.count, (int64_t)l->rate.period_ns,
			cfg->catchup_ns) != 0)
			err(1, "window of %llu units",
			    (unsigned long long)l->rate.count);
		limiter_of_sliding(l_out, w);
		break;
	case ALG_FIXED:
		fixed_init(f, l->rate.count, (int64_t)l->rate.period_ns,
		    clock_wall_offset_ns(), cfg->catchup_ns);
		fixed_zone(f, L->tz);
		limiter_of_fixed(l_out, f);
		break;
	case ALG_TOKEN:
	case ALG_LEAKY:
		bucket_init(
		    b, l->rate.n, l->rate.d, l->burst, l->initial, start_ns);
		bucket_set_catchup(b, cfg->catchup_ns);
		limiter_of_bucket(l_out, b);
		break;
	}
}

/* The -r limits of cfg, started at start_ns, as one limiter. */
static struct limiter *
build_rates(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;

	for (int i = 0; i < cfg->nlimits; i++)
		one_limit(L, &cfg->limits[i], start_ns, &L->buckets[i],
		    &L->windows[i], &L->fixeds[i], &L->members[i]);
	if (cfg->nlimits == 1)
		return &L->members[0];
	L->set = (struct limiter_set){ .members = L->members,
		.n = cfg->nlimits };
	limiter_of_set(&L->all, &L->set);
	return &L->all;
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

	entropy_bytes(b, sizeof b, "seed for the key hash");
	return siphash_key_of(b);
}

/* The rule l gives keys, started at start_ns: none when l is NULL. */
static void
rule_of_limit(const struct limits *L, const struct limit *l, int64_t start_ns,
    struct keyrule *r)
{
	const struct config *cfg = L->cfg;

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
		fixed_zone(&r->fixed, L->tz);
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
		rule_of_limit(L, &t->tier[i].limit, start_ns, &r[i]);
	rule_of_limit(L, cfg->nlimits > 0 ? &cfg->limits[0] : NULL, start_ns,
	    &r[t->ntiers]);
	return r;
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

	if (readfile(name, TIERS_FILE_MAX, &text, &len, err, size) != 0)
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

/* The limit of the keys no tier takes: the first -r, or none. */
static const struct limit *
rest_limit(const struct config *cfg)
{
	return cfg->nlimits > 0 ? &cfg->limits[0] : NULL;
}

/* Tell the reports of L's limits as they are now, and of its tiers. */
static void
show_limits(const struct limits *L)
{
	if (L->stats == NULL)
		return;
	describe_limits(L->cfg, L->now, L->tiers.ntiers, &L->stats->limit);
	L->stats->tiers = L->counts.rows;
	L->stats->ntiers = L->counts.n;
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
		L->counts.kt = &L->keytab;
		if (tiercounts_make(&L->counts, &L->counts, &L->tiers,
			rest_limit(cfg), cfg->mode == UNIT_BYTES,
			cfg->algorithm) != 0)
			err(1, "tiers");
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
	L->keytab.spec = (struct keyspec){ .field = cfg->key_field,
		.sep = cfg->key_sep,
		.delim = cfg->delim };
	L->delim = (char)cfg->delim;
}

/* -k: a limit per key, in a table. */
static void
build_keys(struct limits *L, int64_t start_ns)
{
	build_keytab(L, start_ns);
	keys_backend(&L->units, &L->keys, &L->keytab);
	gate_set_units(&L->gate, &L->units);
	L->gate.quantum = 1;
}

/*
 * --total-rate with --redis: a bucket in Redis that every process of the
 * name books each record in, with its key's (b); and for
 * --redis-fallback local, while Redis is down, in this process beside
 * each key's limit, started at start_ns.
 */
static void
redis_total(struct limits *L, struct redis_bucket *b, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	const struct limit *t = &cfg->total_limit;

	if (!cfg->total_limited)
		return;
	b->total_n = t->rate.n;
	b->total_d = t->rate.d;
	b->total_burst = t->burst;
	b->total_text = cfg->total_text;
	one_limit(L, t, start_ns, &L->total_bucket, &L->total_window,
	    &L->total_fixed, &L->total_limit);
	L->redis_local_parts[0] = L->redis_local_limit;
	L->redis_local_parts[1] = L->total_limit;
	L->redis_local_set =
	    (struct limiter_set){ .members = L->redis_local_parts, .n = 2 };
	limiter_of_set(&L->redis_local_limit, &L->redis_local_set);
}

/* --redis: the bucket, or a bucket per key, kept in Redis. */
static void
build_redis(struct limits *L, int64_t start_ns)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = cfg->nlimits > 0 ? &cfg->limits[0] : NULL;
	bool win = cfg->algorithm == ALG_FIXED || cfg->algorithm == ALG_SLIDING;
	char why[512], id[TIERS_ID_MAX];
	struct redis_bucket b = { .name = cfg->shared,
		.n = l == NULL ? 0 :
		    win	       ? l->rate.count :
				 l->rate.n,
		.d = l == NULL ? 0 :
		    win	       ? l->rate.period_ns :
				 l->rate.d,
		.zone = L->tz,
		.window = !win			? NULL :
		    cfg->algorithm == ALG_FIXED ? "fixed" :
						  "sliding",
		.burst = l != NULL ? l->burst : 0,
		.bytes = cfg->mode == UNIT_BYTES,
		.rate_text = cfg->rate_text,
		.allow_eviction = cfg->redis_allow_eviction };
	unsigned char session[8];

	/* The number Redis knows this process's batches by. */
	entropy_bytes(session, sizeof session, "number for Redis");
	for (size_t i = 0; i < sizeof session; i++)
		b.session = b.session << 8 | session[i];
	L->remote =
	    (struct remote){ .ahead_ns = (int64_t)BUILD_RECORD_QUANTUM_NS,
		    .delim = (char)cfg->delim };
	if (cfg->key_field > 0) {
		/* Each key is limited alone while Redis is down. */
		build_keytab(L, start_ns);
		limiter_of_keys(&L->redis_local_limit, &L->keytab);
		L->remote.kt = &L->keytab;
		if (cfg->tiers_file != NULL) {
			remote_tiers(&L->remote, &L->tiers, id, sizeof id);
			b.tiers_id = id;
		}
		redis_total(L, &b, start_ns);
	} else {
		/* Without -k, --shared has one -r (options.c), and while
		 * Redis is down it is kept here, of the same algorithm. */
		one_limit(L, &cfg->limits[0], start_ns, &L->redis_local,
		    &L->windows[0], &L->fixeds[0], &L->redis_local_limit);
	}
	if ((L->remote.redis = redis_open(&cfg->redis_url, &b,
		 cfg->redis_fallback, &L->redis_local_limit, why,
		 sizeof why)) == NULL)
		errx(1, "%s", why);
	remote_backend(&L->units, &L->remote);
	gate_set_units(&L->gate, &L->units);
	/* A window books each record alone, as a key does. */
	L->gate.quantum = cfg->key_field > 0 || win ? 1 : limits_quantum(L);
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

	remote_tiers(&L->remote, &L->tiers, id, sizeof id);
	/* The keys follow the new tiers here at once; if Redis cannot be
	 * told now, newcomers see the old settings until this run books. */
	if (redis_retier(L->remote.redis, id, why, sizeof why) != 0)
		warnx("--reload: the tiers in Redis stay as they were until "
		      "it is back: %s",
		    why);
}

void
build_reload(struct limits *L, int64_t now_ns, char *reply, size_t size)
{
	const struct config *cfg = L->cfg;
	struct tiers t;
	struct keyrule *rules;
	struct tiercounts counts;
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
	if (rules == NULL ||
	    tiercounts_make(&counts, &L->counts, &t, rest_limit(cfg),
		cfg->mode == UNIT_BYTES, cfg->algorithm) != 0) {
		free(rules);
		tiers_free(&t);
		say(reply, size, "error: %s: out of memory", cfg->tiers_file);
		return;
	}
	if (keys_retune(&L->keytab, rules, t.ntiers + 1, &t, now_ns) != 0) {
		say(reply, size, "error: %s: out of memory", cfg->tiers_file);
		free(rules);
		tiercounts_free(&counts);
		tiers_free(&t);
		return;
	}
	free(rules);
	tiers_free(&L->tiers);
	L->tiers = t;
	L->keytab.tiers = &L->tiers; /* it kept the address of t */
	if (L->remote.redis != NULL)
		retier_redis(L);
	tiercounts_free(&L->counts);
	L->counts = counts;
	show_limits(L);
	say(reply, size, "ok: %zu tier%s from %s", t.ntiers,
	    t.ntiers == 1 ? "" : "s", cfg->tiers_file);
}

/* --shared: one bucket in a file mapped by every process that uses it. */
static void
build_shared(struct limits *L)
{
	const struct config *cfg = L->cfg;
	const struct limit *l = &cfg->limits[0];
	char why[512];

	bool fixed = cfg->algorithm == ALG_FIXED,
	     sliding = cfg->algorithm == ALG_SLIDING, window = fixed || sliding;
	const struct shared_spec sp = { .name = cfg->shared,
		.n = window ? l->rate.count : l->rate.n,
		.d = window ? l->rate.period_ns : l->rate.d,
		.burst = window ? 0 : l->burst,
		.fixed = fixed,
		.sliding = sliding,
		.bytes = cfg->mode == UNIT_BYTES,
		.rate_text = cfg->rate_text,
		.dir = cfg->state_dir,
		.zone = L->tz };

	if (shared_open(&L->shared, &sp, why, sizeof why) != 0) {
		msg_escape(why, sizeof why);
		errx(1, "%s", why);
	}
	shared_backend(&L->units, &L->shared);
	gate_set_units(&L->gate, &L->units);
	/* A window books each record alone, in the window it goes in. */
	L->gate.quantum = window ? 1 : limits_quantum(L);
}

/* --byte-rate: records cost their length, in a bucket of bytes. */
static void
build_bytes(struct limits *L, int64_t start_ns)
{
	const struct limit *l = &L->cfg->byte_limit;

	bucket_init(&L->byte_bucket, l->rate.n, l->rate.d, l->burst, l->initial,
	    start_ns);
	bucket_set_catchup(&L->byte_bucket, L->cfg->catchup_ns);
	gate_set_bytes(
	    &L->gate, &L->byte_bucket, quantum(l, BUILD_BYTE_QUANTUM_NS, true));
}

/*
 * --tz: the calendar of the fixed windows, from the system's zone data,
 * before anything is opened; an unknown zone ends the process with
 * status 2.
 */
static void
build_zone(struct limits *L)
{
	char why[1024];

	if (zoneinfo_load(&L->zone, L->cfg->tz,
		clock_now_ns() + clock_wall_offset_ns(), why,
		sizeof why) != 0) {
		msg_escape(why, sizeof why);
		errx(2, "%s", why);
	}
	L->tz = &L->zone;
}

void
build_limits(struct limits *L, const struct config *cfg, int64_t start_ns,
    struct stats *stats)
{
	struct framer f = { .bytes = cfg->mode == UNIT_BYTES,
		.delim = cfg->delim };

	memset(L, 0, sizeof *L);
	L->cfg = cfg;
	L->stats = stats;
	if (cfg->tz != NULL)
		build_zone(L);
	memcpy(L->now, cfg->limits, sizeof L->now);
	gate_init(&L->gate, &f, 1);
	if (cfg->redis) {
		build_redis(L, start_ns);
	} else if (cfg->key_field > 0) {
		build_keys(L, start_ns);
	} else if (cfg->shared != NULL) {
		build_shared(L);
	} else if (!options_unlimited(cfg)) {
		limiter_backend(&L->units, build_rates(L, start_ns));
		gate_set_units(&L->gate, &L->units);
		L->gate.quantum = limits_quantum(L);
	} else if (cfg->byte_limited) {
		L->gate.quantum = ENGINE_BUF_BYTES; /* bytes set the pace */
	}
	if (cfg->total_limited && !cfg->redis) {
		/* Every key together: a limit of the run's algorithm (with
		 * --redis, it is in Redis). */
		one_limit(L, &cfg->total_limit, start_ns, &L->total_bucket,
		    &L->total_window, &L->total_fixed, &L->total_limit);
		limiter_backend(&L->total, &L->total_limit);
		gate_set_total(&L->gate, &L->total);
	}
	if (cfg->byte_limited)
		build_bytes(L, start_ns);
	/* Bytes counted and not looked at may wait in the input, unless
	 * each is booked where another process books them too. */
	L->gate.claim = f.bytes && !cfg->redis;
	show_limits(L);
}

void
build_free(struct limits *L)
{
	bool rates = !L->cfg->redis && L->cfg->key_field == 0 &&
	    L->cfg->shared == NULL && !options_unlimited(L->cfg);

	for (int i = 0; rates && i < L->cfg->nlimits; i++)
		if (L->cfg->algorithm == ALG_SLIDING)
			sliding_free(&L->windows[i]);
	if (L->keyed)
		keys_free(&L->keytab);
	if (L->cfg->total_limited && L->cfg->algorithm == ALG_SLIDING)
		sliding_free(&L->total_window);
	if (L->cfg->redis && L->cfg->key_field == 0 &&
	    L->cfg->algorithm == ALG_SLIDING)
		sliding_free(&L->windows[0]); /* Redis's local stand-in */
	tiers_free(&L->tiers);
	tiercounts_free(&L->counts);
	remote_free(&L->remote);
	zonemap_free(&L->zone);
}

bool
build_busy(const struct limits *L)
{
	return L->remote.redis != NULL && redis_busy(L->remote.redis);
}

/* Why cfg's algorithm cannot be changed live; NULL when it can. */
static const char *
algorithm_why(const struct config *cfg)
{
	return cfg->algorithm != ALG_TOKEN && cfg->algorithm != ALG_LEAKY ?
	    "live changes need -a token or -a leaky" :
	    NULL;
}

bool
build_retunable(const struct limits *L, const char **why)
{
	const struct config *cfg = L->cfg;

	*why = algorithm_why(cfg);
	if (*why == NULL && (cfg->key_field > 0 || cfg->shared != NULL))
		*why = cfg->shared != NULL ?
		    "the buckets of --shared cannot "
		    "be changed live" :
		    cfg->tiers_file != NULL ?
		    "the rates of -k are its tiers': edit its --tiers "
		    "file, then -R NAME --reload" :
		    "the rates of -k cannot be changed live (a run "
		    "started with --tiers FILE changes them by -R NAME "
		    "--reload)";
	return *why == NULL;
}

void
build_retune(struct limits *L, int i, const struct limit *l, int64_t now_ns)
{
	L->now[i].rate = l->rate;
	L->now[i].burst = l->burst;
	bucket_retune(&L->buckets[i], l->rate.n, l->rate.d, l->burst, now_ns);
	L->gate.quantum = limits_quantum(L);
	show_limits(L);
}

/* L's bucket when it is a --shared file (not Redis, not -k); else NULL. */
static struct shared *
shared_file(struct limits *L)
{
	const struct config *cfg = L->cfg;

	return cfg->shared != NULL && !cfg->redis && cfg->key_field == 0 ?
	    &L->shared :
	    NULL;
}

bool
build_fleet(const struct limits *L)
{
	return L->cfg->shared != NULL && L->cfg->key_field == 0;
}

bool
build_adaptable(struct limits *L, const char **why)
{
	/* -R cannot change a --shared bucket's rate, but --adapt slows
	 * every process of it together: only the algorithm may say no. */
	if (!build_fleet(L))
		return build_retunable(L, why);
	*why = algorithm_why(L->cfg);
	return *why == NULL;
}

uint64_t
build_fleet_cut(struct limits *L, uint64_t w)
{
	if (shared_file(L) != NULL)
		return shared_adapt_cut(&L->shared, w);
	return L->remote.redis != NULL ? redis_adapt_cut(L->remote.redis, w) :
					 w;
}

void
build_fleet_hold(struct limits *L, int64_t until_ns)
{
	if (shared_file(L) != NULL)
		shared_hold(&L->shared, until_ns);
	else if (L->remote.redis != NULL)
		redis_adapt_hold(L->remote.redis, until_ns);
}

void
build_slow(struct limits *L, const struct limit *l, int64_t now_ns)
{
	if (!build_fleet(L)) {
		build_retune(L, 0, l, now_ns);
		return;
	}
	L->now[0].rate = l->rate;
	if (shared_file(L) != NULL) {
		shared_retune(&L->shared, l->rate.n, l->rate.d);
	} else if (L->remote.redis != NULL) {
		redis_adapt_slow(L->remote.redis, l->rate.n, l->rate.d);
		/* and the bucket that stands in while Redis is down */
		bucket_retune(
		    &L->redis_local, l->rate.n, l->rate.d, l->burst, now_ns);
	}
	L->gate.quantum = limits_quantum(L);
	show_limits(L);
}
