/* Counters of what went in, out and was dropped, and their report. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "jsontext.h"
#include "stats.h"

double
stats_rate(const struct stats *s, int64_t now_ns)
{
	double elapsed = (double)(now_ns - s->start_ns) / 1e9;
	uint64_t beyond = s->units_out > s->limit.allowance ?
	    s->units_out - s->limit.allowance :
	    0;

	return elapsed > 0 ? (double)beyond / elapsed : 0;
}

void
stats_add(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= size)
		return;
	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	n = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < size - *used ? (size_t)n :
						    size - *used - 1;
}

/*
 * Append str as a JSON string: quoted, escaped as json_text does, cut
 * short at a whole escape when the report is full.
 */
static void
add_json_string(char *buf, size_t size, size_t *used, const char *str)
{
	stats_add(buf, size, used, "\"");
	/* Escaped in place, with room left for the closing quote. */
	if (*used + 2 < size) {
		json_text(str, buf + *used, size - *used - 1);
		*used += strlen(buf + *used);
	}
	stats_add(buf, size, used, "\"");
}

/* Append tier t's line, or its JSON object (first: the first). */
static void
add_tier(char *buf, size_t size, size_t *used, const struct stats_tier *t,
    bool json, bool first)
{
	uint64_t in = t->units_out + t->units_dropped + t->units_waiting;

	if (json) {
		stats_add(buf, size, used, "%s{\"pattern\":", first ? "" : ",");
		if (t->pattern != NULL)
			add_json_string(buf, size, used, t->pattern);
		else
			stats_add(buf, size, used, "null");
		stats_add(buf, size, used, ",\"line\":%zu,\"limit\":", t->line);
		add_json_string(buf, size, used, t->limit);
		stats_add(buf, size, used,
		    ",\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    "}",
		    in, t->units_out, t->units_dropped, t->units_waiting);
		return;
	}
	if (t->pattern != NULL)
		stats_add(buf, size, used,
		    "tbthrottle: tier '%s' (line %zu, %s)", t->pattern, t->line,
		    t->limit);
	else
		stats_add(buf, size, used,
		    "tbthrottle: keys no tier takes (%s)", t->limit);
	stats_add(buf, size, used,
	    ": units %" PRIu64 " in, %" PRIu64 " out, %" PRIu64
	    " dropped, %" PRIu64 " waiting\n",
	    in, t->units_out, t->units_dropped, t->units_waiting);
}

/*
 * Append the tiers of s that saw units, each whole or not at all, with
 * room kept for the closing bytes of the JSON object; true if all fit.
 */
static bool
add_tiers(
    const struct stats *s, bool json, char *buf, size_t size, size_t *used)
{
	const size_t keep = json ? sizeof ",\"tiers_cut\":true}\n" : 0;
	bool first = true;

	for (size_t i = 0; i < s->ntiers; i++) {
		const struct stats_tier *t = &s->tiers[i];
		size_t was = *used;

		if (t->units_out + t->units_dropped + t->units_waiting == 0)
			continue;
		add_tier(buf, size, used, t, json, first);
		if (*used + keep + 1 >= size) {
			*used = was;
			buf[was] = '\0';
			return false;
		}
		first = false;
	}
	return true;
}

/* The bucket of v >= 0: v itself below 16, then 16 per power of two. */
static int
late_bucket(uint64_t v)
{
	int e = 63;

	if (v < STATS_LATE_SUB)
		return (int)v;
	while (!(v >> e & 1))
		e--;
	return (e - 3) * STATS_LATE_SUB + (int)(v >> (e - 4) & 15);
}

/* The largest value of bucket i. */
static uint64_t
late_top(int i)
{
	int e = i / STATS_LATE_SUB + 3;

	if (i < STATS_LATE_SUB)
		return (uint64_t)i;
	return ((uint64_t)(STATS_LATE_SUB + i % STATS_LATE_SUB) << (e - 4)) +
	    ((uint64_t)1 << (e - 4)) - 1;
}

void
stats_late_add(struct stats_replay *r, int64_t late_ns)
{
	if (late_ns < 0)
		late_ns = 0;
	r->late[late_bucket((uint64_t)late_ns)]++;
	r->late_count++;
	if (late_ns > r->late_max_ns)
		r->late_max_ns = late_ns;
	r->last_late_ns = late_ns;
}

int64_t
stats_late_quantile(const struct stats_replay *r, uint64_t num, uint64_t den)
{
	/* The rank of the record asked for, 1-based, rounded up. */
	uint64_t rank = r->late_count / den * num +
	    (r->late_count % den * num + den - 1) / den;
	uint64_t seen = 0;

	if (r->late_count == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	for (int i = 0; i < STATS_LATE_BUCKETS; i++) {
		seen += r->late[i];
		if (seen >= rank) {
			uint64_t top = late_top(i);

			return top < (uint64_t)r->late_max_ns ? (int64_t)top :
								r->late_max_ns;
		}
	}
	return r->late_max_ns;
}

/* The replay's part of the report, after the rest. */
static void
add_replay(const struct stats_replay *r, bool json, char *buf, size_t size,
    size_t *used)
{
	double speed = (double)r->speed_num / (double)r->speed_den;
	double p50 = (double)stats_late_quantile(r, 50, 100) / 1e6;
	double p99 = (double)stats_late_quantile(r, 99, 100) / 1e6;
	double max = (double)r->late_max_ns / 1e6;
	const char *format = r->format != NULL ? r->format : "none found";

	if (json) {
		stats_add(buf, size, used,
		    ",\"replay\":{\"speed\":%.15g,\"format\":", speed);
		add_json_string(buf, size, used, format);
		stats_add(buf, size, used,
		    ",\"records_timed\":%" PRIu64
		    ",\"records_untimed\":%" PRIu64 ",\"out_of_order\":%" PRIu64
		    ",\"behind_p50_ms\":%.3f,\"behind_p99_ms\":%.3f"
		    ",\"behind_max_ms\":%.3f,\"passes\":%" PRIu64 "}",
		    r->timed, r->untimed, r->out_of_order, p50, p99, max,
		    r->passes);
		return;
	}
	stats_add(buf, size, used,
	    "; replay at speed %.15g, timestamps %s: %" PRIu64
	    " records timed, %" PRIu64 " without a timestamp, %" PRIu64
	    " out of order; behind schedule p50 %.3f ms, p99 %.3f ms, "
	    "max %.3f ms",
	    speed, format, r->timed, r->untimed, r->out_of_order, p50, p99,
	    max);
	if (r->passes > 1)
		stats_add(buf, size, used, "; pass %" PRIu64, r->passes);
}

/* The commands' part of the report (--exec), after the rest. */
static void
add_jobs(const struct stats_jobs *j, uint64_t skipped, bool json, char *buf,
    size_t size, size_t *used)
{
	double slowest = (double)j->slowest_ns / 1e9;

	if (json) {
		stats_add(buf, size, used,
		    ",\"commands\":{\"started\":%" PRIu64
		    ",\"succeeded\":%" PRIu64 ",\"failed\":%" PRIu64
		    ",\"refused\":%" PRIu64 ",\"running\":%u"
		    ",\"retried\":%" PRIu64 ",\"retrying\":%zu"
		    ",\"slowest_s\":%.6f,\"done_before\":%" PRIu64,
		    j->started, j->succeeded, j->failed, j->refused, j->running,
		    j->retried, j->retrying, slowest, skipped);
		if (j->adapt)
			stats_add(buf, size, used,
			    ",\"adapt\":{\"refusals\":%" PRIu64
			    ",\"cuts\":%" PRIu64 "}",
			    j->refusals, j->cuts);
		stats_add(buf, size, used, "}");
		return;
	}
	stats_add(buf, size, used,
	    "; commands %" PRIu64 " started, %" PRIu64 " succeeded, %" PRIu64
	    " failed, %u running, slowest %.3f s",
	    j->started, j->succeeded, j->failed, j->running, slowest);
	if (j->retried > 0 || j->retrying > 0)
		stats_add(buf, size, used,
		    ", %" PRIu64 " tried again, %zu waiting to be tried",
		    j->retried, j->retrying);
	if (j->refused > 0)
		stats_add(buf, size, used,
		    ", %" PRIu64 " records no argument can hold (dropped)",
		    j->refused);
	if (j->adapt)
		stats_add(buf, size, used,
		    ", %" PRIu64
		    " asked to be tried again, the rate cut %" PRIu64
		    " time%s (--adapt)",
		    j->refusals, j->cuts, j->cuts == 1 ? "" : "s");
	if (skipped > 0)
		stats_add(buf, size, used,
		    ", %" PRIu64 " done before (the joblog says), not started",
		    skipped);
}

/*
 * The summary of s at now_ns: in JSON, the object up to its tiers' array,
 * opened; in text, its line, the replay's part and all.
 */
static void
add_summary(const struct stats *s, int64_t now_ns, bool json, char *buf,
    size_t size, size_t *used)
{
	uint64_t units_in = s->units_out + s->units_dropped + s->units_waiting;
	double elapsed = (double)(now_ns - s->start_ns) / 1e9;
	double rate = stats_rate(s, now_ns);
	double late_ms = (double)s->max_late_ns / 1e6;

	if (json) {
		stats_add(buf, size, used,
		    "{\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64
		    ",\"bytes_dropped\":%" PRIu64 ",\"bytes_waiting\":%" PRIu64
		    ",\"elapsed_s\":%.6f,\"rate_per_s\":%.6g,\"limit\":",
		    units_in, s->units_out, s->units_dropped, s->units_waiting,
		    s->bytes_in, s->bytes_out, s->bytes_dropped,
		    s->bytes_waiting, elapsed, rate);
		add_json_string(buf, size, used, s->limit.text);
		stats_add(buf, size, used,
		    ",\"limit_per_s\":%.6g,\"max_lateness_ms\":%.3f%s",
		    s->limit.per_sec, late_ms,
		    s->tiers != NULL ? ",\"tiers\":[" : "");
		return;
	}
	stats_add(buf, size, used,
	    "tbthrottle: units %" PRIu64 " in, %" PRIu64 " out, %" PRIu64
	    " dropped, %" PRIu64 " waiting; "
	    "bytes %" PRIu64 " in, %" PRIu64 " out, %" PRIu64
	    " dropped, %" PRIu64 " waiting; %.3f s, %.6g units/s "
	    "(limit %s), max lateness %.3f ms",
	    units_in, s->units_out, s->units_dropped, s->units_waiting,
	    s->bytes_in, s->bytes_out, s->bytes_dropped, s->bytes_waiting,
	    elapsed, rate,
	    s->replay != NULL && s->limit.per_sec == 0 ? "the timestamps" :
							 s->limit.text,
	    late_ms);
	if (s->replay != NULL)
		add_replay(s->replay, false, buf, size, used);
	if (s->jobs != NULL)
		add_jobs(s->jobs, s->units_skipped, false, buf, size, used);
	stats_add(buf, size, used, "\n");
}

/*
 * The end of s's JSON object, after its tiers (whole: all of them): the
 * array closed, the replay's part, the brace.  Nothing in text.
 */
static void
add_end(const struct stats *s, bool json, bool whole, char *buf, size_t size,
    size_t *used)
{
	if (!json)
		return;
	if (s->tiers != NULL)
		stats_add(
		    buf, size, used, "]%s", whole ? "" : ",\"tiers_cut\":true");
	if (s->replay != NULL)
		add_replay(s->replay, true, buf, size, used);
	if (s->jobs != NULL)
		add_jobs(s->jobs, s->units_skipped, true, buf, size, used);
	stats_add(buf, size, used, "}\n");
}

size_t
stats_format(
    const struct stats *s, int64_t now_ns, bool json, char *buf, size_t size)
{
	size_t used = 0;
	bool whole = true;

	add_summary(s, now_ns, json, buf, size, &used);
	if (s->tiers != NULL)
		whole = add_tiers(s, json, buf, size, &used);
	add_end(s, json, whole, buf, size, &used);
	return used;
}

void
stats_report(const struct stats *s, int64_t now_ns, bool json, char *buf,
    size_t size, bool (*out)(const char *, size_t))
{
	size_t used = 0;
	bool first = true;

	add_summary(s, now_ns, json, buf, size, &used);
	if (!out(buf, used))
		return;
	for (size_t i = 0; s->tiers != NULL && i < s->ntiers; i++) {
		const struct stats_tier *t = &s->tiers[i];

		if (t->units_out + t->units_dropped + t->units_waiting == 0)
			continue;
		used = 0;
		add_tier(buf, size, &used, t, json, first);
		first = false;
		if (!out(buf, used))
			return;
	}
	used = 0;
	add_end(s, json, true, buf, size, &used);
	if (used > 0)
		(void)out(buf, used);
}

/*
 * Where a replay is, for --list: its speed, the log time of the record
 * that went last (to the second) and how many went; in JSON, as a member.
 */
static void
add_replay_place(const struct stats_replay *r, bool json, char *buf,
    size_t size, size_t *used)
{
	double speed = (double)r->speed_num / (double)r->speed_den;
	uint64_t gone = r->timed + r->untimed;
	char when[48] = "";

	if (r->timed > 0)
		calendar_print_s(r->last_ts, when, sizeof when);
	if (json) {
		stats_add(
		    buf, size, used, ",\"replay\":{\"speed\":%.15g,", speed);
		stats_add(buf, size, used,
		    when[0] != '\0' ? "\"log_time\":\"%s\"," :
				      "\"log_time\":null,",
		    when);
		stats_add(buf, size, used,
		    "\"records\":%" PRIu64 ",\"pass\":%" PRIu64 "}", gone,
		    r->passes);
		return;
	}
	stats_add(buf, size, used,
	    "replay at speed %.15g, %s%s, %" PRIu64 " record%s gone", speed,
	    when[0] != '\0' ? "log time " : "no log time yet", when, gone,
	    gone == 1 ? "" : "s");
	if (r->passes > 1)
		stats_add(buf, size, used, " in pass %" PRIu64, r->passes);
}

size_t
stats_format_status(
    const struct stats *s, int64_t now_ns, bool json, char *buf, size_t size)
{
	size_t used = 0;

	if (json) {
		stats_add(buf, size, &used, "\"limit\":");
		add_json_string(buf, size, &used, s->limit.text);
		if (s->replay != NULL)
			add_replay_place(s->replay, true, buf, size, &used);
		stats_add(buf, size, &used,
		    ",\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    ",\"up_s\":%.1f}\n",
		    s->units_out + s->units_dropped + s->units_waiting,
		    s->units_out, s->units_dropped, s->units_waiting,
		    (double)(now_ns - s->start_ns) / 1e9);
		return used;
	}
	if (s->replay != NULL) {
		/* Its timestamps pace it; limits, if any, are a ceiling. */
		add_replay_place(s->replay, false, buf, size, &used);
		if (strcmp(s->limit.text, "none") != 0)
			stats_add(
			    buf, size, &used, ", ceiling %s", s->limit.text);
	} else {
		stats_add(buf, size, &used, "%s", s->limit.text);
	}
	stats_add(buf, size, &used,
	    "; units %" PRIu64 " in, %" PRIu64 " out, %" PRIu64
	    " dropped, %" PRIu64 " waiting; up %.1f s\n",
	    s->units_out + s->units_dropped + s->units_waiting, s->units_out,
	    s->units_dropped, s->units_waiting,
	    (double)(now_ns - s->start_ns) / 1e9);
	return used;
}
