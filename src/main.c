/* tbthrottle: release input a record at a time at a set rate. */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bucket.h"
#include "limiter.h"
#include "window.h"
#include "clock.h"
#include "options.h"
#include "police.h"
#include "pump.h"
#include "queue.h"
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

/*
 * Build the limiter for cfg's limits, started at start_ns, and the
 * number of units to gather per wake-up.
 */
static struct limiter *
build_limits(const struct config *cfg, int64_t start_ns, uint64_t *quantum_out)
{
	bool bytes = cfg->mode == UNIT_BYTES;
	uint64_t q = UINT64_MAX;

	for (int i = 0; i < cfg->nlimits; i++) {
		const struct limit *l = &cfg->limits[i];
		uint64_t qi;

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
	*quantum_out = q;
	if (cfg->nlimits == 1)
		return &members[0];
	set = (struct limiter_set){ members, cfg->nlimits };
	limiter_of_set(&all, &set);
	return &all;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct pump pump;
	struct stats stats = { 0 };
	char why[512];
	int status;
	bool bytes;

	switch (options_parse(&cfg, argc, argv, why, sizeof why)) {
	case OPT_HELP:
		options_usage(stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_VERSION:
		printf("tbthrottle %s\n", TBTHROTTLE_VERSION);
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_ERROR:
		fprintf(stderr, "tbthrottle: %s\n", why);
		return 2;
	case OPT_RUN:
		break;
	}

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
	if (!cfg.rate.inf)
		pump.limit = build_limits(&cfg, pump.start_ns, &pump.quantum);
	else if (cfg.byte_limited)
		pump.quantum = PUMP_BUF_BYTES;	/* bytes alone set the pace */
	if (cfg.byte_limited) {
		const struct limit *l = &cfg.byte_limit;

		bucket_init(&byte_bucket, l->rate.n, l->rate.d, l->burst,
		    l->initial, pump.start_ns);
		bucket_set_catchup(&byte_bucket, cfg.catchup_ns);
		pump.byte_limit = &byte_bucket;
		pump.byte_quantum = quantum(l, BYTE_QUANTUM_NS, true);
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
	signals_finish();
	return status;
}
