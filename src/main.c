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
#include "signals.h"

/*
 * When units wait for tokens, wake for this much of the rate at a time.
 * Measured at 200k lines/s: 250 us gives p99 jitter 0.50 ms for 0.41 s of
 * CPU per million lines, 500 us 0.90 ms for 0.23 s, 1 ms 1.85 ms for 0.11 s.
 */
#define RECORD_QUANTUM_NS	500000ULL
#define BYTE_QUANTUM_NS		1000000ULL

/* Units worth quantum_ns at the rate, at least 1 and at most the burst. */
static uint64_t
quantum(const struct config *cfg, uint64_t quantum_ns)
{
	struct amount a = { true, quantum_ns, 1 };
	uint64_t q;

	if (amount_units(&a, &cfg->rate, &q) != 0 || q < 1)
		q = 1;
	if (q > cfg->burst)
		q = cfg->burst;
	if (q > PUMP_BUF_BYTES)
		q = PUMP_BUF_BYTES;
	return q;
}

/* Slots in BYTE_QUANTUM_NS at the rate, for a leaky bucket of bytes. */
static uint64_t
quantum_leaky_bytes(const struct config *cfg)
{
	struct amount a = { true, BYTE_QUANTUM_NS, 1 };
	uint64_t q;

	if (amount_units(&a, &cfg->rate, &q) != 0 || q < 1)
		q = 1;
	if (q > PUMP_BUF_BYTES)
		q = PUMP_BUF_BYTES;
	return q;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct bucket bucket;
	struct window window;
	struct fixed fixed;
	struct limiter limiter;
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
	};
	stats.start_ns = pump.start_ns;
	if (!cfg.rate.inf) {
		if (cfg.algorithm == ALG_SLIDING) {
			if (window_init(&window, cfg.rate.count,
			    (int64_t)cfg.rate.period_ns, cfg.catchup_ns) != 0)
				err(1, "window of %llu units",
				    (unsigned long long)cfg.rate.count);
			limiter_of_window(&limiter, &window);
		} else if (cfg.algorithm == ALG_FIXED) {
			fixed_init(&fixed, cfg.rate.count,
			    (int64_t)cfg.rate.period_ns, clock_wall_offset_ns(),
			    cfg.catchup_ns);
			limiter_of_fixed(&limiter, &fixed);
		} else {
			bucket_init(&bucket, cfg.rate.n, cfg.rate.d, cfg.burst,
			    cfg.initial, pump.start_ns);
			bucket_set_catchup(&bucket, cfg.catchup_ns);
			limiter_of_bucket(&limiter, &bucket);
		}
		pump.limit = &limiter;
		pump.quantum = quantum(&cfg, bytes ? BYTE_QUANTUM_NS :
		    RECORD_QUANTUM_NS);
		/* Leaky releases one record per slot; bytes still go out a
		 * millisecond of slots at a time, each no earlier than its
		 * own slot. */
		if (cfg.algorithm == ALG_LEAKY)
			pump.quantum = bytes ? quantum_leaky_bytes(&cfg) : 1;
	}
	if (cfg.drop) {
		int fd = -1;

		if (cfg.drop_to != NULL && (fd = open(cfg.drop_to,
		    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) < 0)
			err(1, "%s", cfg.drop_to);
		status = police_run(&pump, fd, cfg.drop_to);
		if (fd >= 0 && close(fd) != 0) {
			warn("%s", cfg.drop_to);
			status = 1;
		}
	} else {
		status = pump_run(&pump);
	}
	if (pump.limit != NULL && cfg.algorithm == ALG_SLIDING)
		window_free(&window);
	signals_finish();
	return status;
}
