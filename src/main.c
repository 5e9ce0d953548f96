/* tbthrottle: release input a record at a time at a set rate. */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bucket.h"
#include "limiter.h"
#include "window.h"
#include "clock.h"
#include "control.h"
#include "options.h"
#include "police.h"
#include "pump.h"
#include "queue.h"
#include "redis.h"
#include "shared.h"
#include "signals.h"

/*
 * When units wait for tokens, wake for this much of the rate at a time.
 * Measured at 200k lines/s: 250 us gives p99 jitter 0.50 ms for 0.41 s of
 * CPU per million lines, 500 us 0.90 ms for 0.23 s, 1 ms 1.85 ms for 0.11 s.
 */
#define RECORD_QUANTUM_NS	500000ULL
#define BYTE_QUANTUM_NS		1000000ULL

/*
 * Units worth quantum_ns at a limit's rate, at least 1 and at most its
 * burst (or not capped by the burst, for a leaky bucket of bytes).
 */
static uint64_t
quantum(const struct limit *l, uint64_t quantum_ns, bool cap_at_burst)
{
	struct amount a = { true, quantum_ns, 1 };
	uint64_t q;

	if (amount_units(&a, &l->rate, &q) != 0 || q < 1)
		q = 1;
	if (cap_at_burst && q > l->burst)
		q = l->burst;
	if (q > PUMP_BUF_BYTES)
		q = PUMP_BUF_BYTES;
	return q;
}

/* The state behind every limit; static, as main runs once. */
static struct bucket buckets[MAX_LIMITS];
static struct window windows[MAX_LIMITS];
static struct fixed fixeds[MAX_LIMITS];
static struct limiter members[MAX_LIMITS];
static struct limiter_set set;
static struct limiter all;
static struct bucket byte_bucket;
static struct keytab keytab;
static struct shared shared;
static struct redis *redis;
/* Where a record's key is, for buckets in Redis. */
static struct keyspec redis_keys;
/* The limit while Redis is down, with --redis-fallback=local. */
static struct bucket redis_local;
static struct limiter redis_local_limit;

static void
select_keytab(void *ctx, const char *rec, size_t len, int64_t now_ns)
{
	keytab_select_record(ctx, rec, len, now_ns);
}

static void
select_redis(void *ctx, const char *rec, size_t len, int64_t now_ns)
{
	const char *key;
	size_t n = record_key(&redis_keys, rec, len, &key);

	(void)now_ns;
	redis_select(ctx, key, n);
}

/* Units to gather per wake-up: the least any of cfg's limits allows. */
static uint64_t
limits_quantum(const struct config *cfg)
{
	bool bytes = cfg->mode == UNIT_BYTES;
	uint64_t q = UINT64_MAX;

	for (int i = 0; i < cfg->nlimits; i++) {
		const struct limit *l = &cfg->limits[i];
		uint64_t qi;

		/* Leaky releases one record per slot; bytes still go out a
		 * millisecond of slots at a time, each no earlier than its
		 * own slot. */
		if (cfg->algorithm == ALG_LEAKY)
			qi = bytes ? quantum(l, BYTE_QUANTUM_NS, false) : 1;
		else
			qi = quantum(l, bytes ? BYTE_QUANTUM_NS :
			    RECORD_QUANTUM_NS, true);
		if (qi < q)
			q = qi;
	}
	return q;
}

/* Build the limiter for cfg's limits, started at start_ns. */
static struct limiter *
build_limits(const struct config *cfg, int64_t start_ns)
{
	for (int i = 0; i < cfg->nlimits; i++) {
		const struct limit *l = &cfg->limits[i];

		switch (cfg->algorithm) {
		case ALG_SLIDING:
			if (window_init(&windows[i], l->rate.count,
			    (int64_t)l->rate.period_ns, cfg->catchup_ns) != 0)
				err(1, "window of %llu units",
				    (unsigned long long)l->rate.count);
			limiter_of_window(&members[i], &windows[i]);
			break;
		case ALG_FIXED:
			fixed_init(&fixeds[i], l->rate.count,
			    (int64_t)l->rate.period_ns, clock_wall_offset_ns(),
			    cfg->catchup_ns);
			limiter_of_fixed(&members[i], &fixeds[i]);
			break;
		case ALG_TOKEN:
		case ALG_LEAKY:
			bucket_init(&buckets[i], l->rate.n, l->rate.d, l->burst,
			    l->initial, start_ns);
			bucket_set_catchup(&buckets[i], cfg->catchup_ns);
			limiter_of_bucket(&members[i], &buckets[i]);
			break;
		}
	}
	if (cfg->nlimits == 1)
		return &members[0];
	set = (struct limiter_set){ members, cfg->nlimits };
	limiter_of_set(&all, &set);
	return &all;
}

/* A secret seed for the key hash, from the kernel's random source. */
static uint64_t
random_seed(void)
{
	uint64_t seed = (uint64_t)clock_now_ns() ^ ((uint64_t)getpid() << 32);
	uint64_t r;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &r, sizeof r) == (ssize_t)sizeof r)
			seed ^= r;
		(void)close(fd);
	}
	return seed;
}

/* What a live change needs: the run's settings and its pump. */
struct run {
	struct config *cfg;
	struct pump *pump;
};

/*
 * Apply the live change in req (CONTROL_MAGIC, then a line "RATE\tBURST"
 * per limit, BURST empty to keep it) to the first limits of r, checked as
 * the command line checks its -r and -b.  The reply goes to reply[0..size).
 */
static void
apply_change(struct run *r, char *req, char *reply, size_t size)
{
	struct config *cfg = r->cfg;
	struct limit new[MAX_LIMITS];
	const char *rates[MAX_LIMITS], *bursts[MAX_LIMITS];
	char kept[MAX_LIMITS][24], why[512], *line, *save = NULL;
	int n = 0;
	int64_t now_ns;

	if (cfg->algorithm != ALG_TOKEN && cfg->algorithm != ALG_LEAKY) {
		snprintf(reply, size, "error: live changes need -a token or "
		    "-a leaky\n");
		return;
	}
	if (r->pump->select != NULL || cfg->shared != NULL) {
		snprintf(reply, size, "error: the buckets of %s cannot be "
		    "changed live\n", cfg->shared != NULL ? "--shared" : "-k");
		return;
	}
	for (line = strtok_r(req + strlen(CONTROL_MAGIC), "\n", &save);
	    line != NULL && n < MAX_LIMITS && n < cfg->nlimits;
	    line = strtok_r(NULL, "\n", &save)) {
		char *burst = strchr(line, '\t');

		if (burst != NULL)
			*burst++ = '\0';
		if (burst != NULL && *burst == '\0')
			burst = NULL;
		if (burst == NULL && cfg->algorithm == ALG_TOKEN) {
			/* No -b: the burst stays, checked at the new rate. */
			snprintf(kept[n], sizeof kept[n], "%llu",
			    (unsigned long long)cfg->limits[n].burst);
			burst = kept[n];
		}
		rates[n] = line;
		bursts[n++] = burst;
	}
	if (n == 0 || line != NULL) {
		snprintf(reply, size, "error: this tbthrottle has %d limit%s "
		    "(-r) to change\n", cfg->nlimits, cfg->nlimits == 1 ?
		    "" : "s");
		return;
	}
	/* Last to first, and inf refused, as on the command line. */
	for (int i = n - 1; i >= 0; i--) {
		if (limit_parse(rates[i], bursts[i], NULL, cfg->mode,
		    cfg->algorithm, &new[i], why, sizeof why) != 0) {
			snprintf(reply, size, "error: %s\n", why);
			return;
		}
		if (new[i].rate.inf) {
			snprintf(reply, size, "error: %s\n", n > 1 ?
			    "-r inf cannot be combined with other rates" :
			    "a running limit cannot be lifted with -r inf");
			return;
		}
	}
	now_ns = clock_now_ns();
	for (int i = 0; i < n; i++) {
		struct limit *l = &cfg->limits[i];

		l->rate = new[i].rate;
		l->burst = new[i].burst;
		bucket_retune(&buckets[i], l->rate.n, l->rate.d, l->burst,
		    now_ns);
	}
	r->pump->quantum = limits_quantum(cfg);
	pump_limits_changed(now_ns);
	snprintf(reply, size, "ok\n");
}

/* SIGUSR2: a live change may be waiting in the control file. */
static void
on_control(void *arg)
{
	char req[CONTROL_MAX], reply[600];

	if (control_request(req, sizeof req) < 0)
		return;
	apply_change(arg, req, reply, sizeof reply);
	control_reply(reply);
}

/* -R: send the new limits to a running tbthrottle; the exit status. */
static int
send_change(const struct config *cfg)
{
	char req[CONTROL_MAX], reply[600];
	size_t len = (size_t)snprintf(req, sizeof req, "%s", CONTROL_MAGIC);

	for (int i = 0; i < cfg->ncontrol && len < sizeof req; i++)
		len += (size_t)snprintf(req + len, sizeof req - len, "%s\t%s\n",
		    cfg->control_rates[i], cfg->control_bursts[i] != NULL ?
		    cfg->control_bursts[i] : "");
	if (len >= sizeof req) {
		warnx("-R: the request is too long");
		return 2;
	}
	if (control_send((pid_t)cfg->control_pid, req, reply,
	    sizeof reply) != 0) {
		warnx("%s", reply);
		return 1;
	}
	if (strncmp(reply, "ok", 2) == 0)
		return 0;
	warnx("process %ld: %s", cfg->control_pid,
	    strncmp(reply, "error: ", 7) == 0 ? reply + 7 : reply);
	return 2;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct pump pump;
	struct stats stats = { 0 };
	struct run run;
	char why[512];
	int status;
	bool bytes;

	switch (options_parse(&cfg, argc, argv, why, sizeof why)) {
	case OPT_HELP:
		options_usage(stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_VERSION:
		printf("tbthrottle %s (Redis support: %s)\n",
		    TBTHROTTLE_VERSION, redis_available() ? "yes" : "no");
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_ERROR:
		fprintf(stderr, "tbthrottle: %s\n", why);
		return 2;
	case OPT_RUN:
		break;
	}

	if (cfg.control_pid != 0)
		return send_change(&cfg);
	bytes = cfg.mode == UNIT_BYTES;
	clock_init();
	signals_init();
	pump = (struct pump){
		.framer = { .bytes = bytes, .delim = cfg.delim },
		.limit = NULL,
		.quantum = 1,
		.files = cfg.files,
		.nfiles = cfg.nfiles,
		.start_ns = clock_now_ns(),
		.stats = &stats,
		.stats_json = cfg.stats_json,
		.stats_at_exit = cfg.stats,
		.progress = cfg.progress && isatty(STDERR_FILENO),
	};
	stats.start_ns = pump.start_ns;
	if (cfg.redis) {
		const struct limit *l = &cfg.limits[0];

		bucket_init(&redis_local, l->rate.n, l->rate.d, l->burst,
		    l->burst, pump.start_ns);
		bucket_set_catchup(&redis_local, cfg.catchup_ns);
		limiter_of_bucket(&redis_local_limit, &redis_local);
		if ((redis = redis_open(&cfg.redis_url, cfg.shared, l->rate.n,
		    l->rate.d, l->burst, cfg.rate_text, cfg.redis_fallback,
		    &redis_local_limit, why, sizeof why)) == NULL)
			errx(1, "%s", why);
		limiter_of_redis(&members[0], redis);
		pump.limit = &members[0];
		pump.quantum = limits_quantum(&cfg);
		if (cfg.key_field > 0) {
			redis_keys = (struct keyspec){ cfg.key_field,
			    cfg.key_sep, cfg.delim };
			pump.select = select_redis;
			pump.select_ctx = redis;
			pump.quantum = 1;
		}
	} else if (cfg.key_field > 0) {
		const struct limit *l = &cfg.limits[0];
		struct bucket proto;

		bucket_init(&proto, l->rate.n, l->rate.d, l->burst, l->burst,
		    pump.start_ns);
		bucket_set_catchup(&proto, cfg.catchup_ns);
		if (keytab_init(&keytab, &proto, (size_t)cfg.max_keys,
		    random_seed(), pump.start_ns) != 0)
			err(1, "key table");
		keytab.spec = (struct keyspec){ cfg.key_field, cfg.key_sep,
		    cfg.delim };
		limiter_of_keys(&members[0], &keytab);
		pump.limit = &members[0];
		pump.select = select_keytab;
		pump.select_ctx = &keytab;
		pump.quantum = 1;
	} else if (cfg.shared != NULL) {
		const struct limit *l = &cfg.limits[0];

		if (shared_open(&shared, cfg.shared, l->rate.n, l->rate.d,
		    l->burst, bytes, cfg.rate_text, why, sizeof why) != 0) {
			units_escape(why, sizeof why);
			errx(1, "%s", why);
		}
		limiter_of_shared(&members[0], &shared);
		pump.limit = &members[0];
		pump.quantum = limits_quantum(&cfg);
	} else if (!config_unlimited(&cfg)) {
		pump.limit = build_limits(&cfg, pump.start_ns);
		pump.quantum = limits_quantum(&cfg);
	} else if (cfg.byte_limited) {
		pump.quantum = PUMP_BUF_BYTES;	/* bytes alone set the pace */
	}
	if (cfg.byte_limited) {
		const struct limit *l = &cfg.byte_limit;

		bucket_init(&byte_bucket, l->rate.n, l->rate.d, l->burst,
		    l->initial, pump.start_ns);
		bucket_set_catchup(&byte_bucket, cfg.catchup_ns);
		pump.byte_limit = &byte_bucket;
		pump.byte_quantum = quantum(l, BYTE_QUANTUM_NS, true);
	}
	/* SIGUSR2 never kills us; with a rate it asks for a change. */
	run = (struct run){ &cfg, &pump };
	signals_on_control(on_control, &run);
	if (pump.limit != NULL && control_serve() == 0) {
		signals_on_death(control_remove);
		atexit(control_remove);
	}
	if (cfg.drop || cfg.queue > 0) {
		int fd = -1;

		if (cfg.drop_to != NULL && (fd = open(cfg.drop_to,
		    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) < 0)
			err(1, "%s", cfg.drop_to);
		if (cfg.queue > 0)
			status = queue_run(&pump, cfg.queue, cfg.drop, fd,
			    cfg.drop_to);
		else
			status = police_run(&pump, fd, cfg.drop_to);
		if (fd >= 0 && close(fd) != 0) {
			warn("%s", cfg.drop_to);
			status = 1;
		}
	} else {
		status = pump_run(&pump);
	}
	for (int i = 0; pump.limit != NULL && i < cfg.nlimits; i++)
		if (cfg.algorithm == ALG_SLIDING)
			window_free(&windows[i]);
	if (pump.select_ctx == &keytab)
		keytab_free(&keytab);
	redis_close(redis);
	control_remove();
	signals_finish();
	return status;
}
