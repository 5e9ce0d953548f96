/* The set-up of a run: its policy, its sink, what it says at start and end. */
#include <err.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adaptrate.h"
#include "boundary.h"
#include "clock.h"
#include "drop.h"
#include "dryrun.h"
#include "entropy.h"
#include "msg.h"
#include "fair.h"
#include "queue.h"
#include "redis.h"
#include "replay.h"
#include "retune.h"
#include "setup.h"
#include "shape.h"
#include "signals.h"
#include "take.h"
#include "zone.h"

void
setup_warn(const struct config *cfg)
{
	if (cfg->warning[0] != '\0')
		warnx("%s", cfg->warning);
	if (cfg->exec_warning[0] != '\0')
		warnx("%s", cfg->exec_warning);
	if (cfg->redis && cfg->redis_url.insecure)
		warnx("--redis-insecure: the server's certificate is not "
		      "checked; whoever is between may read and change the "
		      "bucket");
}

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
int
setup_dry_run(const struct config *cfg)
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
int
setup_take(const struct config *cfg)
{
	static struct limits limits;
	int status;

	build_limits(&limits, cfg, clock_now_ns(), NULL);
	status = take_run(&limits, cfg);
	build_free(&limits);
	return status;
}

int
setup_show(const struct config *cfg)
{
	char why[600];
	int rc;

	if (cfg->redis)
		rc = cfg->show ?
		    redis_show(&cfg->redis_url, cfg->shared, cfg->list_json,
			stdout, why, sizeof why) :
		    redis_reset(&cfg->redis_url, cfg->shared, why, sizeof why);
	else
		rc = cfg->show ?
		    shared_show(cfg->shared, cfg->state_dir, cfg->list_json,
			stdout, why, sizeof why) :
		    shared_reset(cfg->shared, cfg->state_dir, why, sizeof why);

	if (rc != 0) {
		msg_escape(why, sizeof why);
		warnx("%s", why);
		return 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("standard output");
		return 1;
	}
	return 0;
}

/*
 * How the commands' output reaches ours: as asked; else in whole lines
 * where lines of two could mix, or -P's line be torn by them.
 */
static enum output_mode
output_mode(const struct config *cfg)
{
	switch (cfg->output) {
	case OUTPUT_LINE:
		return OUTPUT_LINES;
	case OUTPUT_WHOLE:
		return OUTPUT_GROUP;
	case OUTPUT_OWN:
		return OUTPUT_DIRECT;
	case OUTPUT_AUTO:
		break;
	}
	return cfg->jobs > 1 || cfg->progress || cfg->tag ||
		cfg->tagstring != NULL ?
	    OUTPUT_LINES :
	    OUTPUT_DIRECT;
}

/*
 * Where released records go, telling g of them: with --exec, commands'
 * slots (j, counted in st; *resume: what --resume takes out of the
 * input); else standard output.  False without --exec.
 */
static bool
choose_sink(const struct config *cfg, const struct gate *g, struct sink *k,
    struct jobs *j, struct stats *st, struct resume **resume)
{
	if (!cfg->exec) {
		sink_stdout(k, g);
		return false;
	}
	if (jobs_init(j, cfg->exec_argv, cfg->exec_argc, cfg->key_sep,
		cfg->jobs, st) != 0)
		err(1, "--exec: %u slots", cfg->jobs);
	jobs_output(
	    j, output_mode(cfg), cfg->tag, cfg->tagstring, cfg->key_sep);
	jobs_retries(j, cfg->retries, &cfg->retry_on, cfg->retry_delay_ns,
	    cfg->retry_max_ns, cfg->failed_to, (char)cfg->delim);
	jobs_deadlines(j, cfg->timeout_ns, &cfg->halt);
	*resume = jobs_joblog(j, cfg->joblog, cfg->resume, cfg->resume_failed);
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

void
setup_run(struct setup *u, const struct config *cfg)
{
	struct engine *e = &u->engine;

	check_loop_files(cfg);
	u->said_boundary = boundary_start(cfg);
	*e = (struct engine){ .policy = &u->policy,
		.files = cfg->files,
		.nfiles = cfg->nfiles,
		.drop_to = cfg->drop_to,
		.start_ns = clock_now_ns(),
		.stats = &u->stats,
		.stats_json = cfg->stats_json,
		.stats_at_exit = cfg->stats,
		.progress = cfg->progress && isatty(STDERR_FILENO),
		.sink = &u->sink,
		.loops = cfg->loops };
	u->stats.start_ns = e->start_ns;
	build_limits(&u->limits, cfg, e->start_ns, &u->stats);
	e->framer = u->limits.gate.framer;
	/* With --tiers, the counts of each tier follow each record. */
	e->tally = u->limits.counts.rows != NULL ? tiercounts_tally : NULL;
	e->tally_ctx = &u->limits.counts;
	e->buf_bytes = cfg->replay ?
	    choose_replay(cfg, &u->limits.gate, &u->policy, &u->stats) :
	    choose_policy(cfg, &u->limits.gate, &u->policy);
	/* Before the sink makes files, what --adapt cannot slow is said. */
	if (cfg->adapt)
		adaptrate_init(&u->adapt, &u->limits);
	u->exec = choose_sink(
	    cfg, &u->limits.gate, &u->sink, &u->jobs, &u->stats, &e->resume);
	if (cfg->adapt) {
		u->jobs.adapt = &u->adapt;
		u->jobs.counts.adapt = true;
	}
}

void
setup_end(struct setup *u, const struct config *cfg)
{
	const struct stats_replay *rs = u->stats.replay;

	if (!signals_stop_requested())
		note_drops(cfg, &u->stats);
	boundary_end(cfg, &u->stats, u->said_boundary);
	if (rs != NULL && rs->untimed > 0 && rs->timed > 0)
		warnx("--replay: %llu of %llu records had no timestamp: each "
		      "went right after the record before it",
		    (unsigned long long)rs->untimed,
		    (unsigned long long)(rs->untimed + rs->timed));
	if (rs != NULL && rs->out_of_order > 0)
		warnx("--replay: %llu of %llu records %s out of order (before "
		      "a timestamp already gone): each went right after the "
		      "record before it",
		    (unsigned long long)rs->out_of_order,
		    (unsigned long long)(rs->untimed + rs->timed),
		    rs->out_of_order == 1 ? "was" : "were");
	if (cfg->order == ORDER_KEY)
		fair_free(u->policy.self);
	else if (cfg->queue > 0)
		queue_free(u->policy.self);
	if (u->exec)
		jobs_free(&u->jobs);
	build_free(&u->limits);
}
