/* Counters of what went in, out and was dropped, and their report. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
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

/* Append to buf[*used..size) as snprintf would, never past the end. */
static void
add(char *buf, size_t size, size_t *used, const char *fmt, ...)
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

/* Append str as a JSON string: quoted, quotes and controls escaped. */
static void
add_json_string(char *buf, size_t size, size_t *used, const char *str)
{
	add(buf, size, used, "\"");
	for (; *str != '\0'; str++) {
		unsigned char c = (unsigned char)*str;

		if (c == '"' || c == '\\')
			add(buf, size, used, "\\%c", c);
		else if (c < 0x20)
			add(buf, size, used, "\\u%04x", c);
		else
			add(buf, size, used, "%c", c);
	}
	add(buf, size, used, "\"");
}

/* Append tier t's line, or its JSON object (first: the first). */
static void
add_tier(char *buf, size_t size, size_t *used, const struct stats_tier *t,
    bool json, bool first)
{
	uint64_t in = t->units_out + t->units_dropped + t->units_waiting;

	if (json) {
		add(buf, size, used, "%s{\"pattern\":", first ? "" : ",");
		if (t->pattern != NULL)
			add_json_string(buf, size, used, t->pattern);
		else
			add(buf, size, used, "null");
		add(buf, size, used, ",\"line\":%zu,\"limit\":", t->line);
		add_json_string(buf, size, used, t->limit);
		add(buf, size, used,
		    ",\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    "}",
		    in, t->units_out, t->units_dropped, t->units_waiting);
		return;
	}
	if (t->pattern != NULL)
		add(buf, size, used, "tbthrottle: tier '%s' (line %zu, %s)",
		    t->pattern, t->line, t->limit);
	else
		add(buf, size, used, "tbthrottle: keys no tier takes (%s)",
		    t->limit);
	add(buf, size, used,
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
		add(buf, size, used,
		    ",\"replay\":{\"speed\":%.6g,\"format\":", speed);
		add_json_string(buf, size, used, format);
		add(buf, size, used,
		    ",\"records_timed\":%" PRIu64
		    ",\"records_untimed\":%" PRIu64 ",\"out_of_order\":%" PRIu64
		    ",\"behind_p50_ms\":%.3f,\"behind_p99_ms\":%.3f"
		    ",\"behind_max_ms\":%.3f,\"passes\":%" PRIu64 "}",
		    r->timed, r->untimed, r->out_of_order, p50, p99, max,
		    r->passes);
		return;
	}
	add(buf, size, used,
	    "; replay at speed %.6g, timestamps %s: %" PRIu64
	    " records timed, %" PRIu64 " without a timestamp, %" PRIu64
	    " out of order; behind schedule p50 %.3f ms, p99 %.3f ms, "
	    "max %.3f ms",
	    speed, format, r->timed, r->untimed, r->out_of_order, p50, p99,
	    max);
	if (r->passes > 1)
		add(buf, size, used, "; pass %" PRIu64, r->passes);
}

/* The commands' part of the report (--exec), after the rest. */
static void
add_jobs(
    const struct stats_jobs *j, bool json, char *buf, size_t size, size_t *used)
{
	double slowest = (double)j->slowest_ns / 1e9;

	if (json) {
		add(buf, size, used,
		    ",\"commands\":{\"started\":%" PRIu64
		    ",\"succeeded\":%" PRIu64 ",\"failed\":%" PRIu64
		    ",\"refused\":%" PRIu64 ",\"running\":%u"
		    ",\"slowest_s\":%.6f}",
		    j->started, j->succeeded, j->failed, j->refused, j->running,
		    slowest);
		return;
	}
	add(buf, size, used,
	    "; commands %" PRIu64 " started, %" PRIu64 " succeeded, %" PRIu64
	    " failed, %u running, slowest %.3f s",
	    j->started, j->succeeded, j->failed, j->running, slowest);
	if (j->refused > 0)
		add(buf, size, used,
		    ", %" PRIu64 " records no argument can hold (dropped)",
		    j->refused);
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
		add(buf, size, used,
		    "{\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64
		    ",\"bytes_dropped\":%" PRIu64 ",\"bytes_waiting\":%" PRIu64
		    ",\"elapsed_s\":%.6f,\"rate_per_s\":%.6g,\"limit\":",
		    units_in, s->units_out, s->units_dropped, s->units_waiting,
		    s->bytes_in, s->bytes_out, s->bytes_dropped,
		    s->bytes_waiting, elapsed, rate);
		add_json_string(buf, size, used, s->limit.text);
		add(buf, size, used,
		    ",\"limit_per_s\":%.6g,\"max_lateness_ms\":%.3f%s",
		    s->limit.per_sec, late_ms,
		    s->tiers != NULL ? ",\"tiers\":[" : "");
		return;
	}
	add(buf, size, used,
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
		add_jobs(s->jobs, false, buf, size, used);
	add(buf, size, used, "\n");
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
		add(buf, size, used, "]%s", whole ? "" : ",\"tiers_cut\":true");
	if (s->replay != NULL)
		add_replay(s->replay, true, buf, size, used);
	if (s->jobs != NULL)
		add_jobs(s->jobs, true, buf, size, used);
	add(buf, size, used, "}\n");
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
 * v in 3 significant digits, scaled by base while it reaches base (or
 * until the last of units[0..n)): "1.23k", "12.3", "999"; never an
 * exponent.
 */
static void
sig3(char *b, size_t size, double v, double base, const char *const *units,
    size_t n)
{
	size_t u = 0;

	while (v >= base - 0.5 && u + 1 < n) {
		v /= base;
		u++;
	}
	snprintf(b, size,
	    v < 0.9995	  ? "%.3f%s" :
		v < 9.995 ? "%.2f%s" :
		v < 99.95 ? "%.1f%s" :
			    "%.0f%s",
	    v, units[u]);
}

/* Units of counts, by thousands, and of bytes, by 1024s. */
static const char *const count_units[] = { "", "k", "M", "G", "T", "P", "E" };
static const char *const byte_units[] = { " B", " KiB", " MiB", " GiB", " TiB",
	" PiB", " EiB" };

/*
 * v, exact below exact ("9999", "1023 B"), else in 3 significant digits
 * scaled by base ("12.3k", "1.50 KiB"); units[0..7).
 */
static void
fmt_int(char *b, size_t size, uint64_t v, uint64_t exact, double base,
    const char *const *units)
{
	if (v < exact)
		snprintf(b, size, "%" PRIu64 "%s", v, units[0]);
	else
		sig3(b, size, (double)v, base, units, 7);
}

/* Units a second: "12.3/s", "1.23k/s"; below one a second, a minute, an
 * hour or a day: "30.0/min". */
static void
fmt_rate(char *b, size_t size, double v)
{
	static const char *const u[] = { "/s", "k/s", "M/s", "G/s", "T/s",
		"P/s", "E/s" };
	static const char *const min[] = { "/min" }, *const hour[] = { "/h" },
				 *const day[] = { "/day" };

	if (!(v > 0))
		snprintf(b, size, "0/s");
	else if (v >= 1)
		sig3(b, size, v, 1000, u, sizeof u / sizeof u[0]);
	else if (v * 60 >= 1)
		sig3(b, size, v * 60, 1000, min, 1);
	else if (v * 3600 >= 1)
		sig3(b, size, v * 3600, 1000, hour, 1);
	else
		sig3(b, size, v * 86400, 1000, day, 1);
}

/* A time to come, ns > 0: "123 ms", "4.56 s", then "1:05", "2:03:04". */
static void
fmt_wait(char *b, size_t size, int64_t ns)
{
	static const char *const ms[] = { " ms" }, *const sec[] = { " s" };
	int64_t t = ns / 1000000000 + (ns % 1000000000 != 0);

	if (ns < 999500000)
		sig3(b, size, (double)ns / 1e6, 1000, ms, 1);
	else if (ns < 59500000000)
		sig3(b, size, (double)ns / 1e9, 1000, sec, 1);
	else if (t < 3600)
		snprintf(b, size, "%" PRId64 ":%02" PRId64, t / 60, t % 60);
	else
		snprintf(b, size, "%" PRId64 ":%02" PRId64 ":%02" PRId64,
		    t / 3600, t / 60 % 60, t % 60);
}

/* The fields of -P's line, in their order, and which goes first. */
enum {
	F_NAME,
	F_OUT,
	F_RATE,
	F_LIMIT,
	F_REPLAY,
	F_BYTES,
	F_DONE,
	F_ETA,
	F_DROPPED,
	F_WAITING,
	F_NEXT,
	F_COUNT
};

/* When the line is too wide, the field of the highest rank is left out
 * first; units out (0) never are. */
static const int drop_rank[F_COUNT] = { [F_NAME] = 9,
	[F_OUT] = 0,
	[F_RATE] = 2,
	[F_LIMIT] = 10,
	[F_REPLAY] = 6,
	[F_BYTES] = 8,
	[F_DONE] = 1,
	[F_ETA] = 3,
	[F_DROPPED] = 4,
	[F_WAITING] = 7,
	[F_NEXT] = 5 };

#define FIELD_MAX (sizeof((struct stats_limit *)0)->text + 16)

/*
 * A replay's log time (of the last record timed: its time of day, UTC, to
 * the second), its speed and how far behind its schedule that record went.
 */
static void
progress_replay(const struct stats_replay *r, char (*f)[FIELD_MAX])
{
	char iso[48], when[16] = "-", behind[32];

	if (r->timed > 0 && calendar_print(r->last_ts, iso, sizeof iso) > 19)
		snprintf(when, sizeof when, "%.8sZ", iso + 11);
	fmt_wait(behind, sizeof behind, r->last_late_ns);
	snprintf(f[F_REPLAY], FIELD_MAX, ", log %s x%.4g %s behind", when,
	    (double)r->speed_num / (double)r->speed_den, behind);
}

/* The share of the input done, and when the rest will be, if known. */
static void
progress_done(const struct stats *s, int64_t now_ns, char (*f)[FIELD_MAX])
{
	uint64_t done = s->bytes_out + s->bytes_dropped, total = s->bytes_total;
	double eta_ns;
	char t[32];

	if (total == 0 || done > total)
		return;
	snprintf(f[F_DONE], FIELD_MAX, ", %" PRIu64 "%%",
	    done == total ? 100 : (uint64_t)((double)done * 100 / total));
	if (done == 0 || done == total || now_ns <= s->start_ns)
		return;
	/* As pv: the rest at the average speed so far. */
	eta_ns = (double)(now_ns - s->start_ns) * (double)(total - done) /
	    (double)done;
	fmt_wait(t, sizeof t,
	    eta_ns < 3.6e18 ? (int64_t)eta_ns : 3600000000000000000);
	snprintf(f[F_ETA], FIELD_MAX, " ETA %s", t);
}

/* Fill the fields of -P's line at now_ns; "" for those not shown. */
static void
progress_fields(const struct stats *s, int64_t now_ns, char (*f)[FIELD_MAX])
{
	char t[32];

	for (int i = 0; i < F_COUNT; i++)
		f[i][0] = '\0';
	snprintf(f[F_NAME], FIELD_MAX, "tbthrottle: ");
	fmt_int(t, sizeof t, s->units_out, 10000, 1000, count_units);
	snprintf(f[F_OUT], FIELD_MAX, "%s out", t);
	fmt_rate(t, sizeof t, stats_rate(s, now_ns));
	snprintf(f[F_RATE], FIELD_MAX, " at %s", t);
	snprintf(f[F_LIMIT], FIELD_MAX, " (limit %s)", s->limit.text);
	if (s->replay != NULL)
		progress_replay(s->replay, f);
	fmt_int(t, sizeof t, s->bytes_out, 1024, 1024, byte_units);
	snprintf(f[F_BYTES], FIELD_MAX, ", %s", t);
	progress_done(s, now_ns, f);
	if (s->units_dropped > 0) {
		fmt_int(
		    t, sizeof t, s->units_dropped, 10000, 1000, count_units);
		snprintf(f[F_DROPPED], FIELD_MAX, ", %s dropped", t);
	}
	fmt_int(t, sizeof t, s->units_waiting, 10000, 1000, count_units);
	snprintf(f[F_WAITING], FIELD_MAX, ", %s waiting", t);
	if (s->next_due_ns > now_ns) {
		fmt_wait(t, sizeof t, s->next_due_ns - now_ns);
		snprintf(f[F_NEXT], FIELD_MAX, ", next in %s", t);
	}
}

size_t
stats_format_progress(const struct stats *s, int64_t now_ns, bool done,
    size_t width, char *buf, size_t size)
{
	char f[F_COUNT][FIELD_MAX];
	size_t room = width > 1 ? width - 1 : width == 1 ? 0 : 79;
	size_t len = 0, used = 0;
	int worst;

	progress_fields(s, now_ns, f);
	for (int i = 0; i < F_COUNT; i++)
		len += strlen(f[i]);
	/* Leave fields out, least useful first, until the line fits. */
	while (len > room) {
		worst = F_OUT;
		for (int i = 0; i < F_COUNT; i++)
			if (f[i][0] != '\0' && drop_rank[i] > drop_rank[worst])
				worst = i;
		if (worst == F_OUT)
			break;
		len -= strlen(f[worst]);
		f[worst][0] = '\0';
	}
	add(buf, size, &used, "\r");
	for (int i = 0; i < F_COUNT; i++) {
		size_t n = strlen(f[i]) < room ? strlen(f[i]) : room;

		add(buf, size, &used, "%.*s", (int)n, f[i]);
		room -= n;
	}
	add(buf, size, &used, done ? "\033[K\n" : "\033[K");
	return used;
}

size_t
stats_format_status(
    const struct stats *s, int64_t now_ns, bool json, char *buf, size_t size)
{
	size_t used = 0;

	if (json) {
		add(buf, size, &used, "\"limit\":");
		add_json_string(buf, size, &used, s->limit.text);
		add(buf, size, &used,
		    ",\"units_in\":%" PRIu64 ",\"units_out\":%" PRIu64
		    ",\"units_dropped\":%" PRIu64 ",\"units_waiting\":%" PRIu64
		    ",\"up_s\":%.1f}\n",
		    s->units_out + s->units_dropped + s->units_waiting,
		    s->units_out, s->units_dropped, s->units_waiting,
		    (double)(now_ns - s->start_ns) / 1e9);
		return used;
	}
	add(buf, size, &used,
	    "%s; units %" PRIu64 " in, %" PRIu64 " out, %" PRIu64
	    " dropped, %" PRIu64 " waiting; up %.1f s\n",
	    s->limit.text, s->units_out + s->units_dropped + s->units_waiting,
	    s->units_out, s->units_dropped, s->units_waiting,
	    (double)(now_ns - s->start_ns) / 1e9);
	return used;
}
