/* -P's line: the counters fitted to a width, least useful fields left out. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "calendar.h"
#include "stats.h"

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

/*
 * When the rest of the units will be out: at the average speed so far
 * (as pv), and no sooner than the limit lets them, allowance + rate x
 * time from the start (with a burst, the average runs ahead of it).
 */
static double
eta_ns(const struct stats *s, int64_t now_ns, uint64_t total, uint64_t done,
    uint64_t moved)
{
	double ran = (double)(now_ns - s->start_ns);
	double avg = ran * (double)(total - done) / (double)moved, at_limit;

	if (s->units_total == 0 || s->limit.per_sec <= 0)
		return avg;
	at_limit = ((double)total - (double)s->limit.allowance) /
		s->limit.per_sec * 1e9 -
	    ran;
	return at_limit > avg ? at_limit : avg;
}

/* The share of the input done, and when the rest will be, if known: in
 * units when they were counted, else in bytes. */
static void
progress_done(const struct stats *s, int64_t now_ns, char (*f)[FIELD_MAX])
{
	bool units = s->units_total > 0;
	uint64_t done = units ?
	    s->units_out + s->units_dropped + s->units_skipped :
	    s->bytes_out + s->bytes_dropped + s->bytes_skipped;
	uint64_t total = units ? s->units_total : s->bytes_total;
	uint64_t moved = done - (units ? s->units_skipped : s->bytes_skipped);
	double eta;
	char t[32];

	if (total == 0 || done > total)
		return;
	snprintf(f[F_DONE], FIELD_MAX, ", %" PRIu64 "%%",
	    done == total ? 100 : (uint64_t)((double)done * 100 / total));
	if (moved == 0 || done == total || now_ns <= s->start_ns)
		return;
	/* What --resume took out is done, but took no time. */
	eta = eta_ns(s, now_ns, total, done, moved);
	fmt_wait(
	    t, sizeof t, eta < 3.6e18 ? (int64_t)eta : 3600000000000000000);
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
	stats_add(buf, size, &used, "\r");
	for (int i = 0; i < F_COUNT; i++) {
		size_t n = strlen(f[i]) < room ? strlen(f[i]) : room;

		stats_add(buf, size, &used, "%.*s", (int)n, f[i]);
		room -= n;
	}
	stats_add(buf, size, &used, done ? "\033[K\n" : "\033[K");
	return used;
}
