/* tbthrottle: release input a record at a time at a set rate. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "drop.h"
#include "dryrun.h"
#include "engine.h"
#include "entropy.h"
#include "fair.h"
#include "build.h"
#include "jobs.h"
#include "options.h"
#include "queue.h"
#include "replay.h"
#include "retune.h"
#include "shape.h"
#include "signals.h"
#include "stdfd.h"
#include "take.h"
#include "tls.h"
#include "zone.h"

/* What --version says of a build without the paths only Linux has. */
#ifdef TB_PORTABLE
#define PORTABLE_NOTE "; portable build"
#else
#define PORTABLE_NOTE ""
#endif

/* --order key: the keys in turn, as many records held as --queue says. */
static size_t
choose_fair(const struct config *cfg, struct gate *g, struct policy *p)
{
	static struct fair fair;
	unsigned char b[16];
	struct siphash_key seed;

	entropy_bytes(b, sizeof b, "seed for the order of keys");
	seed = siphash_key_of(b);
	if (fair_policy(p, &fair, g, cfg->queue, &seed) != 0)
		err(1, "records held for --order key");
	return QUEUE_BUF_BYTES;
}

/* The policy cfg asks for, over the gate g; the buffer it needs. */
static size_t
choose_policy(const struct config *cfg, struct gate *g, struct policy *p)
{
	static struct shape shape;
	static struct drop drop;
	static struct queue queue;

	if (cfg->order == ORDER_KEY)
		return choose_fair(cfg, g, p);
	if (cfg->queue > 0) {
		if (queue_policy(p, &queue, g, cfg->queue, cfg->drop) != 0)
			err(1, "queue of %llu units",
			    (unsigned long long)cfg->queue);
		return QUEUE_BUF_BYTES;
	}
	if (cfg->drop)
		drop_policy(p, &drop, g);
	else if (gate_limits(g))
		shape_policy(p, &shape, g);
	else
		pass_policy(p, g);
	return ENGINE_BUF_BYTES;
}

/* The timestamps' format and the schedule of cfg's --replay. */
static void
replay_setup(const struct config *cfg, struct timestamp_format *fmt,
    struct replay_schedule *sched)
{
	struct timestamp_civil today;
	char why[160];

	zone_civil(
	    (clock_now_ns() + clock_wall_offset_ns()) / 1000000000, &today);
	timestamp_init(fmt, &today, zone_local, NULL);
	fmt->field = cfg->time_field;
	fmt->sep = cfg->key_sep;
	fmt->key = cfg->time_key;
	if (cfg->time_format != NULL &&
	    timestamp_set_format(fmt, cfg->time_format, why, sizeof why) != 0)
		errx(
		    2, "invalid --time-format '%s': %s", cfg->time_format, why);
	replay_schedule_init(
	    sched, cfg->speed_num, cfg->speed_den, cfg->max_gap_ns);
}

/*
 * --replay: the replay policy over the gate g (its ceiling), reading
 * timestamps as cfg says, local times by TZ; its counts go to st.
 */
static size_t
choose_replay(const struct config *cfg, struct gate *g, struct policy *p,
    struct stats *st)
{
	static struct timestamp_format fmt;
	static struct replay replay;
	static struct stats_replay counts;
	struct replay_schedule sched;

	replay_setup(cfg, &fmt, &sched);
	replay_policy(p, &replay, g, &fmt, &sched, cfg->drop, &counts);
	replay_loop_gap(&replay, cfg->loop_gap_ns);
	st->replay = &counts;
	retune_replay(&replay);
	return ENGINE_BUF_BYTES;
}

/* --replay --dry-run: what the replay would do, nothing released; a stop
 * signal ends it, said, and then the process, as it ends a run. */
static int
dry_run(const struct config *cfg)
{
	static struct timestamp_format fmt;
	struct replay_schedule sched;
	int status;

	replay_setup(cfg, &fmt, &sched);
	status = dryrun_run(cfg, &fmt, &sched);
	signals_finish();
	return status;
}

/* --take: build the limits of cfg, take the tokens, and exit. */
static int
take(const struct config *cfg)
{
	static struct limits limits;
	int status;

	build_limits(&limits, cfg, clock_now_ns(), NULL);
	status = take_run(&limits, cfg);
	build_free(&limits);
	return status;
}

/*
 * Where released records go, telling g of them: with --exec, commands'
 * slots (j, counted in st); else standard output.  False without --exec.
 */
static bool
choose_sink(const struct config *cfg, const struct gate *g, struct sink *k,
    struct jobs *j, struct stats *st)
{
	if (!cfg->exec) {
		sink_stdout(k, g);
		return false;
	}
	if (jobs_init(j, cfg->exec_argv, cfg->exec_argc, cfg->jobs) != 0)
		err(1, "--exec: %u slots", cfg->jobs);
	st->jobs = &j->counts;
	jobs_sink(j, k, g);
	return true;
}

/*
 * --drop with a bucket of one: records read together find one token, and
 * a file is mostly dropped at once.  Say so when it was (over 90 %).
 */
static void
note_drops(const struct config *cfg, const struct stats *st)
{
	uint64_t in = st->units_out + st->units_dropped + st->units_waiting;

	if (!cfg->drop || cfg->mode == UNIT_BYTES || cfg->nlimits != 1 ||
	    cfg->limits[0].burst != 1 || in < 10 ||
	    st->units_dropped * 10 <= in * 9)
		return;
	warnx("%llu of %llu records were dropped: with --drop a record "
	      "passes only if a token is there when it comes, and -b 1 "
	      "holds one; give -b N for bursts, or leave --drop out to "
	      "delay them",
	    (unsigned long long)st->units_dropped, (unsigned long long)in);
}

/* --loop reads its FILEs again: each must be a regular file. */
static void
check_loop_files(const struct config *cfg)
{
	struct stat st;

	for (int i = 0; cfg->loops != 0 && i < cfg->nfiles; i++)
		if (stat(cfg->files[i], &st) == 0 && !S_ISREG(st.st_mode))
			errx(2,
			    "--loop reads its FILEs again: '%s' is no regular "
			    "file (a pipe or a terminal cannot be read twice)",
			    cfg->files[i]);
}

/* Run cfg: build its limits, then let the engine copy the input. */
static int
run(const struct config *cfg)
{
	static struct limits limits;
	static struct jobs jobs;
	struct stats stats = { 0 };
	struct sink sink;
	bool exec;
	struct policy policy;
	struct engine e;
	int status;

	clock_init();
	signals_init();
	if (cfg->take)
		return take(cfg);
	if (cfg->dry_run)
		return dry_run(cfg);
	check_loop_files(cfg);
	e = (struct engine){ .policy = &policy,
		.files = cfg->files,
		.nfiles = cfg->nfiles,
		.drop_to = cfg->drop_to,
		.start_ns = clock_now_ns(),
		.stats = &stats,
		.stats_json = cfg->stats_json,
		.stats_at_exit = cfg->stats,
		.progress = cfg->progress && isatty(STDERR_FILENO) };
	stats.start_ns = e.start_ns;
	build_limits(&limits, cfg, e.start_ns, &stats);
	e.framer = limits.gate.framer;
	/* With --tiers, the counts of each tier follow each record. */
	e.tally = limits.counts.rows != NULL ? tiercounts_tally : NULL;
	e.tally_ctx = &limits.counts;
	e.buf_bytes = cfg->replay ?
	    choose_replay(cfg, &limits.gate, &policy, &stats) :
	    choose_policy(cfg, &limits.gate, &policy);
	exec = choose_sink(cfg, &limits.gate, &sink, &jobs, &stats);
	e.sink = &sink;
	e.loops = cfg->loops;
	retune_serve(&limits, cfg->name);
	status = engine_run(&e);
	if (!signals_stop_requested())
		note_drops(cfg, &stats);
	if (stats.replay != NULL && stats.replay->untimed > 0 &&
	    stats.replay->timed > 0)
		warnx("--replay: %llu of %llu records had no timestamp: each "
		      "went right after the record before it",
		    (unsigned long long)stats.replay->untimed,
		    (unsigned long long)(stats.replay->untimed +
			stats.replay->timed));
	if (cfg->order == ORDER_KEY)
		fair_free(policy.self);
	else if (cfg->queue > 0)
		queue_free(policy.self);
	if (exec)
		jobs_free(&jobs);
	build_free(&limits);
	retune_stop();
	signals_finish();
	return status;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	char why[512];
	enum parse_result parsed;

	stdfd_guard();
	parsed = options_parse(&cfg, argc, argv, why, sizeof why);
	/* Nothing can be written where nothing is open. */
	if (stdfd_closed(STDOUT_FILENO) && parsed != OPT_ERROR &&
	    (parsed != OPT_RUN || cfg.control_target == NULL ||
		cfg.ncontrol == 0)) {
		warnx("write error: %s", strerror(EBADF));
		return 1;
	}
	switch (parsed) {
	case OPT_HELP:
		options_usage(stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_VERSION:
		printf("tbthrottle %s (Redis support: %s; TLS: %s%s); ISC "
		       "licence, see LICENSE\n",
		    TBTHROTTLE_VERSION, redis_available() ? "yes" : "no",
		    redis_available() && tls_available() ? "yes" : "no",
		    PORTABLE_NOTE);
		return fflush(stdout) == 0 ? 0 : 1;
	case OPT_ERROR:
		fprintf(stderr, "tbthrottle: %s\n", why);
		return 2;
	case OPT_RUN:
		break;
	}
	if (cfg.warning[0] != '\0')
		warnx("%s", cfg.warning);
	if (cfg.redis && cfg.redis_url.insecure)
		warnx("--redis-insecure: the server's certificate is not "
		      "checked; whoever is between may read and change the "
		      "bucket");
	if (cfg.list)
		return retune_list(cfg.list_json);
	if (cfg.control_target != NULL)
		return retune_send(&cfg);
	return run(&cfg);
}
