/* --dry-run: a replay read through and described, nothing released. */
#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "dryrun.h"
#include "engine.h"
#include "input.h"
#include "msg.h"
#include "signals.h"

/*
 * Records are read here as the replay reads them: through a buffer of
 * the replay's size, so a record longer than it has its timestamp looked
 * for in the same first bytes, and memory stays this whatever the input.
 */
static char buf[ENGINE_BUF_BYTES];

/* What the records of a replay came to, and where the reading is. */
struct dry {
	uint64_t timed, untimed, out_of_order;
	int64_t first_ts, last_ts; /* the lowest and highest timestamps */
	int64_t end_ns;		   /* when the last would go, from 0 */
	uint64_t loops;		   /* --loop: passes after the first */
	int64_t loop_gap_ns;
	uint64_t bytes; /* read so far */
	struct timestamp_format *fmt;
	struct replay_schedule *sched;
	struct input in;
	int delim;
	size_t head, tail; /* buf[head..tail): read, no record taken */
	bool skipping;	   /* in the rest of a record longer than buf */
	char first[1024];  /* the start of the first record, for a message */
	size_t first_len;
	uint64_t base;	  /* the input's offset of buf[0] */
	size_t probed;	  /* records the replay looks at for a first time */
	bool probe_found; /* and one of them has it */
};

/* Say once, as the replay would, which JSON key times the records. */
static void
note(const struct dry *d, const char *rec, size_t len)
{
	char line[256];

	replay_note(d->fmt, rec, len, line, sizeof line);
	if (line[0] != '\0')
		warnx("%s", line);
}

/* Take the record rec[0..len) into d, on its schedule. */
static void
take(struct dry *d, const char *rec, size_t len)
{
	struct replay_slot slot;
	int64_t ts = 0;
	bool timed = timestamp_parse(d->fmt, rec, len, &ts) == 0;

	uint64_t k = d->timed + d->untimed,
		 end = d->base + (size_t)(rec - buf) + len;

	if (k == 0) {
		d->first_len = len < sizeof d->first ? len : sizeof d->first;
		memcpy(d->first, rec, d->first_len);
	}
	/* As the replay looks for its first time (replay.c, probe): in the
	 * first REPLAY_PROBE records that end inside its first buffer (with
	 * room after them: a last record ending the input at its very end is
	 * not known to be whole), the first by its start when longer. */
	if (k < REPLAY_PROBE && (k == 0 || end < sizeof buf)) {
		d->probed++;
		d->probe_found = d->probe_found || timed;
	}

	/* Every record is there at once: each goes when it is due. */
	replay_plan(d->sched, timed, ts, d->end_ns, &slot);
	replay_commit(d->sched, &slot);
	d->end_ns = slot.due_ns;
	if (!timed) {
		d->untimed++;
		return;
	}
	if (d->timed == 0)
		note(d, rec, len);
	if (d->timed == 0 || ts < d->first_ts)
		d->first_ts = ts;
	if (d->timed == 0 || ts > d->last_ts)
		d->last_ts = ts;
	d->timed++;
	d->out_of_order += slot.out_of_order;
}

/* Take the whole records of buf[head..tail); keep the start of the next. */
static void
take_whole(struct dry *d)
{
	char *end;

	while ((end = memchr(buf + d->head, d->delim, d->tail - d->head)) !=
	    NULL) {
		if (!d->skipping)
			take(d, buf + d->head, (size_t)(end - (buf + d->head)));
		d->skipping = false;
		d->head = (size_t)(end - buf) + 1;
	}
	/* The rest of a long record was looked at already. */
	if (d->skipping || d->head == d->tail) {
		d->base += d->tail;
		d->head = d->tail = 0;
	}
}

/*
 * Room to read into, with buf[head..tail) holding no delimiter: the start
 * of a record moved to the front, or, when it fills buf, the record
 * taken by its start (as the replay takes it) and the rest skipped.
 */
static void
make_room(struct dry *d)
{
	if (d->tail < sizeof buf)
		return;
	if (d->head > 0) {
		memmove(buf, buf + d->head, d->tail - d->head);
		d->base += d->head;
		d->tail -= d->head;
		d->head = 0;
		return;
	}
	take(d, buf, d->tail);
	d->skipping = true;
	d->base += d->tail;
	d->head = d->tail = 0;
}

/* Read the input into d, until its end or a stop. */
static void
read_all(struct dry *d)
{
	ssize_t n;

	for (;;) {
		signals_dispatch();
		if (signals_stop_requested())
			return;
		make_room(d);
		n = input_read(
		    &d->in, buf + d->tail, sizeof buf - d->tail, NULL);
		if (n < 0)
			return;
		if (n == 0) {
			/* A last record without its delimiter. */
			if (!d->skipping && d->tail > d->head)
				take(d, buf + d->head, d->tail - d->head);
			return;
		}
		d->bytes += (uint64_t)n;
		d->tail += (size_t)n;
		take_whole(d);
	}
}

/*
 * ns as "2 d 1 h 2 min 3.456 s", the larger parts left out when 0; the
 * ceilings where a sum or a slow speed went past what is counted
 * (INT64_MAX, and the schedule's INT64_MAX - 1) as "over 292 years".
 */
static void
say_span(int64_t ns, char *out, size_t size)
{
	int64_t s = ns / 1000000000;
	double frac = (double)(ns % 1000000000) / 1e9,
	       sec = (double)(s % 60) + frac;
	long long d = s / 86400, h = s % 86400 / 3600, min = s % 3600 / 60;

	if (ns >= INT64_MAX - 1) /* the schedule's own ceiling too */
		snprintf(out, size, "over 292 years");
	else if (d > 0)
		snprintf(
		    out, size, "%lld d %lld h %lld min %.3f s", d, h, min, sec);
	else if (h > 0)
		snprintf(out, size, "%lld h %lld min %.3f s", h, min, sec);
	else if (min > 0)
		snprintf(out, size, "%lld min %.3f s", min, sec);
	else
		snprintf(out, size, "%.3f s", sec);
}

/* n passes of per_ns, gap_ns apart, in all; INT64_MAX if more. */
static int64_t
loop_span(uint64_t n, int64_t per_ns, int64_t gap_ns)
{
	int64_t gaps;

	if (n > 1 && gap_ns > INT64_MAX / (int64_t)(n - 1))
		return INT64_MAX;
	gaps = gap_ns * (int64_t)(n - 1);
	if (per_ns > (INT64_MAX - gaps) / (int64_t)n)
		return INT64_MAX;
	return per_ns * (int64_t)n + gaps;
}

/*
 * With --loop, how long its passes would take: each on a schedule of its
 * own, as long as the first, --loop-gap apart.
 */
static void
say_loop(FILE *fp, const struct dry *d)
{
	char one[64], gap[80] = "one right after another", all[64];
	uint64_t n = d->loops + 1;
	int64_t sum;

	if (d->loop_gap_ns > 0) {
		say_span(d->loop_gap_ns, one, sizeof one);
		snprintf(gap, sizeof gap, "%s apart", one);
	}
	if (d->loops == UINT64_MAX) {
		fprintf(fp,
		    "--loop inf: the pass again and again, %s, until "
		    "stopped\n",
		    gap);
		return;
	}
	say_span(d->end_ns, one, sizeof one);
	sum = loop_span(n, d->end_ns, d->loop_gap_ns);
	say_span(sum, all, sizeof all);
	fprintf(fp, "--loop %llu: %llu passes of %s, %s: %s in all\n",
	    (unsigned long long)n, (unsigned long long)n, one, gap, all);
}

/* What the records d has taken came to, on fp. */
static void
say(FILE *fp, const struct dry *d)
{
	char from[48], to[48], span[64], took[64];
	const char *format = replay_format_name(d->fmt);

	fprintf(fp,
	    "records: %llu, %llu timed (%s), %llu without a timestamp, "
	    "%llu out of order\n",
	    (unsigned long long)(d->timed + d->untimed),
	    (unsigned long long)d->timed,
	    format != NULL ? format : "none found",
	    (unsigned long long)d->untimed,
	    (unsigned long long)d->out_of_order);
	if (d->timed == 0)
		return;
	calendar_print(d->first_ts, from, sizeof from);
	calendar_print(d->last_ts, to, sizeof to);
	say_span(d->last_ts - d->first_ts, span, sizeof span);
	say_span(d->end_ns, took, sizeof took);
	fprintf(fp, "log time: %s to %s, %s\n", from, to, span);
	fprintf(fp, "replay at speed %.15g%s: %s (limits aside)\n",
	    (double)d->sched->num / (double)d->sched->den,
	    d->sched->max_gap_ns >= 0 ? ", gaps cut to --max-gap" : "", took);
	if (d->loops > 0)
		say_loop(fp, d);
}

/* SIGUSR1: what was read so far, on standard error, and read on. */
static void
report(void *arg)
{
	const struct dry *d = arg;

	say(stderr, d);
	fprintf(
	    stderr, "read so far: %llu bytes\n", (unsigned long long)d->bytes);
}

/* The name of stop signal sig. */
static const char *
stop_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	default:
		return "a signal";
	}
}

/*
 * No record the replay looks at for its first time has one: say so, with
 * the first record and what was tried, as the replay would.
 */
static void
untimed(const struct dry *d)
{
	char why[768], line[896];

	replay_missing(d->fmt, d->first, d->first_len, why, sizeof why);
	if (d->timed == 0)
		snprintf(line, sizeof line,
		    "--dry-run: no record has a timestamp %s", why);
	else
		snprintf(line, sizeof line,
		    "--dry-run: the replay would stop at its start: no "
		    "timestamp in the first %zu record%s %s",
		    d->probed, d->probed == 1 ? "" : "s", why);
	msg_escape(line, sizeof line);
	warnx("%s", line);
}

int
dryrun_run(const struct config *cfg, struct timestamp_format *fmt,
    struct replay_schedule *sched)
{
	static struct dry d;
	int stop;

	d = (struct dry){ .fmt = fmt,
		.sched = sched,
		.delim = cfg->delim,
		.loops = cfg->loops,
		.loop_gap_ns = cfg->loop_gap_ns };
	input_init(&d.in, cfg->files, cfg->nfiles, NULL, 0);
	signals_hook(SIGNALS_REPORT, report, &d, 0);
	read_all(&d);
	input_close(&d.in);
	say(stdout, &d);
	if ((stop = signals_stop_requested()) != 0)
		printf("stopped by %s after %llu bytes: the rest of the input "
		       "was not read\n",
		    stop_name(stop), (unsigned long long)d.bytes);
	if (fflush(stdout) != 0) {
		warn("write error");
		return 1;
	}
	/* An empty input is no error: the replay has nothing to do. */
	if (stop == 0 && d.timed + d.untimed > 0 && !d.probe_found) {
		untimed(&d);
		return 1;
	}
	return d.in.status;
}
