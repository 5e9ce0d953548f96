/* --dry-run: a replay read through and described, nothing released. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "dryrun.h"

/* What the records of a replay came to. */
struct tally {
	uint64_t timed, untimed, out_of_order;
	int64_t first_ts, last_ts; /* the lowest and highest timestamps */
	int64_t end_ns;		   /* when the last would go, from 0 */
};

/* Take the record rec[0..len) into t, on the schedule s. */
static void
take(struct tally *t, struct timestamp_format *fmt, struct replay_schedule *s,
    const char *rec, size_t len)
{
	struct replay_slot slot;
	int64_t ts = 0;
	bool timed = timestamp_parse(fmt, rec, len, &ts) == 0;

	/* Every record is there at once: each goes when it is due. */
	replay_plan(s, timed, ts, t->end_ns, &slot);
	replay_commit(s, &slot);
	t->end_ns = slot.due_ns;
	if (!timed) {
		t->untimed++;
		return;
	}
	if (t->timed == 0 || ts < t->first_ts)
		t->first_ts = ts;
	if (t->timed == 0 || ts > t->last_ts)
		t->last_ts = ts;
	t->timed++;
	t->out_of_order += slot.out_of_order;
}

/* Read fp's records into t; false on a read error (said). */
static bool
read_all(FILE *fp, const char *name, int delim, struct tally *t,
    struct timestamp_format *fmt, struct replay_schedule *s)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getdelim(&line, &cap, delim, fp)) > 0)
		take(t, fmt, s, line,
		    (size_t)n - (line[n - 1] == (char)delim ? 1 : 0));
	free(line);
	if (ferror(fp)) {
		warn("%s", name);
		return false;
	}
	return true;
}

/* ns as "1 h 2 min 3.456 s", the larger parts left out when 0. */
static void
say_span(int64_t ns, char *buf, size_t size)
{
	int64_t s = ns / 1000000000;
	double frac = (double)(ns % 1000000000) / 1e9;

	if (s >= 3600)
		snprintf(buf, size, "%lld h %lld min %.3f s",
		    (long long)(s / 3600), (long long)(s % 3600 / 60),
		    (double)(s % 60) + frac);
	else if (s >= 60)
		snprintf(buf, size, "%lld min %.3f s", (long long)(s / 60),
		    (double)(s % 60) + frac);
	else
		snprintf(buf, size, "%.3f s", (double)s + frac);
}

int
dryrun_run(const struct config *cfg, struct timestamp_format *fmt,
    struct replay_schedule *sched)
{
	struct tally t = { 0 };
	char from[48], to[48], span[64], took[64];
	const char *format;
	int status = 0;

	if (cfg->nfiles == 0 &&
	    !read_all(stdin, "standard input", cfg->delim, &t, fmt, sched))
		status = 1;
	for (int i = 0; i < cfg->nfiles; i++) {
		const char *f = cfg->files[i];
		FILE *fp = strcmp(f, "-") == 0 ? stdin : fopen(f, "r");

		if (fp == NULL) {
			warn("%s", f);
			status = 1;
			continue;
		}
		if (!read_all(fp, f, cfg->delim, &t, fmt, sched))
			status = 1;
		if (fp != stdin)
			(void)fclose(fp);
	}
	format = replay_format_name(fmt);
	printf("records: %llu, %llu timed (%s), %llu without a timestamp, "
	       "%llu out of order\n",
	    (unsigned long long)(t.timed + t.untimed),
	    (unsigned long long)t.timed, format != NULL ? format : "none found",
	    (unsigned long long)t.untimed, (unsigned long long)t.out_of_order);
	if (t.timed == 0) {
		warnx("--dry-run: no record has a timestamp: give --time-field "
		      "N, --time-key NAME or --time-format FMT");
		return 1;
	}
	calendar_print(t.first_ts, from, sizeof from);
	calendar_print(t.last_ts, to, sizeof to);
	say_span(t.last_ts - t.first_ts, span, sizeof span);
	say_span(t.end_ns, took, sizeof took);
	printf("log time: %s to %s, %s\n", from, to, span);
	printf("replay at speed %g%s: %s (limits aside)\n",
	    (double)sched->num / (double)sched->den,
	    sched->max_gap_ns >= 0 ? ", gaps cut to --max-gap" : "", took);
	return fflush(stdout) == 0 ? status : 1;
}
