/* Unit tests of stats.c: the achieved rate and the report lines. */
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "unit.h"

void
test_stats(void)
{
	struct stats s = {
		.start_ns = 0, .units_out = 1, .limit = { "5/s, burst 1", 5, 1 }
	};
	char line[STATS_LINE_MAX];
	size_t n;

	current = "stats";
	/* One line at 5/s, 74 us after the start: within its burst. */
	check(stats_rate(&s, 74000) == 0, "one line is not %g/s",
	    stats_rate(&s, 74000));
	/* 10 lines in 1.8 s at 5/s b1: 9 beyond the burst, 5/s. */
	s.units_out = 10;
	check(stats_rate(&s, 1800 * MS) == 5, "10 at 5/s: %g/s",
	    stats_rate(&s, 1800 * MS));
	/* A first burst is no breach: 10 at once with burst 10. */
	s.limit.allowance = 10;
	check(stats_rate(&s, 1 * MS) == 0, "a burst is no breach");
	s.limit = (struct stats_limit){ "none", 0, 0 };
	check(stats_rate(&s, 2 * NS) == 5, "no limit: units a second");

	n = stats_format(&s, 2 * NS, false, line, sizeof line);
	check(n == strlen(line) &&
		strstr(line, "5 units/s (limit none)") != NULL &&
		line[n - 1] == '\n',
	    "text: %s", line);
	snprintf(s.limit.text, sizeof s.limit.text, "a \"q\" \\ \x01");
	n = stats_format(&s, 2 * NS, true, line, sizeof line);
	check(strstr(line, "\"limit\":\"a \\\"q\\\" \\\\ \\u0001\"") != NULL,
	    "json escapes the limit: %s", line);
	n = stats_format_progress(&s, 2 * NS, false, 200, line, 20);
	check(n == 19 && strlen(line) == 19, "a short buffer cuts, safely");
	s.next_due_ns = 3 * NS;
	(void)stats_format_progress(&s, 2 * NS, true, 200, line, sizeof line);
	check(strstr(line, "next in 1.00 s\033[K\n") != NULL, "progress: %s",
	    line);
}

/* The columns -P's line takes on a terminal: its bytes but the carriage
 * return, the erase and the newline. */
static size_t
columns(const char *line)
{
	size_t n = strlen(line);

	if (n > 0 && line[n - 1] == '\n')
		n--;
	return n - (sizeof STATS_CLEAR - 1);
}

/* -P's line of s at now_ns for a terminal width columns wide. */
static const char *
progress(const struct stats *s, int64_t now_ns, size_t width)
{
	static char line[STATS_LINE_MAX];

	(void)stats_format_progress(s, now_ns, false, width, line, sizeof line);
	return line;
}

/* Every count and time of -P's line in 3 or 4 significant digits. */
static void
test_progress_numbers(void)
{
	static const struct {
		uint64_t out, bytes, waiting;
		int64_t now_ns, next_ns;
		const char *want, *want2;
	} t[] = {
		{ 9999, 1023, 0, 10 * NS, 0, " 9999 out at 1.00k/s ",
		    ", 1023 B," },
		{ 12345678, 1536, 123456, 10 * NS, 0, " 12.3M out at 1.23M/s ",
		    ", 1.50 KiB, 123k waiting" },
		{ 2, 5000000000, 0, 3600 * NS, 0, " 2 out at 1.00/h ",
		    ", 4.66 GiB," },
		{ 2, 1048575, 0, 3600 * NS, 0, " at 1.00/h ", ", 1.00 MiB," },
		{ 2, 0, 0, 30 * 86400 * NS, 0, " at 0.033/day ", "" },
		{ 2, 0, 0, NS, NS + 1500 * US, ", next in 1.50 ms", "" },
		{ 2, 0, 0, NS, 3724 * NS, ", next in 1:02:03", "" },
	};
	struct stats s = { .limit = { "1/day, burst 1", 1.0 / 86400, 1 } };
	const char *line;

	current = "stats: -P's numbers";
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		s.units_out = t[i].out;
		s.bytes_out = t[i].bytes;
		s.units_waiting = t[i].waiting;
		s.next_due_ns = t[i].next_ns;
		line = progress(&s, t[i].now_ns, 200);
		check(strstr(line, t[i].want) != NULL &&
			strstr(line, t[i].want2) != NULL,
		    "want '%s' and '%s': %s", t[i].want, t[i].want2, line);
	}
}

/* With the input's size known: the share done and the time left. */
static void
test_progress_eta(void)
{
	struct stats s = { .limit = { "5/s, burst 1", 5, 1 } };
	const char *line;

	current = "stats: -P's share done and ETA";
	s.bytes_total = 1000;
	line = progress(&s, 10 * NS, 200);
	check(strstr(line, ", 0%") != NULL && strstr(line, "ETA") == NULL,
	    "nothing done yet: %s", line);
	s.bytes_out = 200;
	s.bytes_dropped = 50;
	line = progress(&s, 10 * NS, 200);
	check(strstr(line, ", 25% ETA 30.0 s,") != NULL,
	    "a quarter in 10 s: %s", line);
	s.bytes_out = 1000;
	s.bytes_dropped = 0;
	line = progress(&s, 10 * NS, 200);
	check(strstr(line, ", 100%,") != NULL && strstr(line, "ETA") == NULL,
	    "all done: %s", line);
	s.bytes_out = 2000; /* the file grew */
	line = progress(&s, 10 * NS, 200);
	check(strstr(line, "%") == NULL, "past the size, no share: %s", line);
}

/* Whatever the width and the counts, the line fits, leaving fields out
 * by rank, never in a wrong form. */
static void
test_progress_width(void)
{
	struct stats s = { .limit = { "1000/s, burst 5000 and 5000/s, "
				      "burst 10",
			       1000, 5000 } };
	const char *line;
	int bad = 0;

	current = "stats: -P fits its terminal";
	for (int k = 0; k < 2000; k++) {
		size_t width = rng_below(200), cols;

		s.units_out = rng() >> rng_below(64);
		s.units_dropped = rng() >> rng_below(64);
		s.units_waiting = rng() >> rng_below(64);
		s.bytes_out = rng() >> rng_below(64);
		s.bytes_total = rng_below(2) ? s.bytes_out + rng_below(1000) :
					       0;
		s.next_due_ns = (int64_t)(rng() >> rng_below(64) >> 2);
		line = progress(&s, (int64_t)(rng() >> 2), width);
		cols = columns(line);
		if (cols > (width > 1	      ? width - 1 :
				   width == 0 ? 79 :
						0) ||
		    strstr(line, "e+") != NULL || strstr(line, "e-") != NULL ||
		    strstr(line, " 0.0 KiB") != NULL ||
		    strstr(line, "nan") != NULL ||
		    strstr(line, "inf") != NULL ||
		    (width > 40 && strstr(line, " out") == NULL))
			check(bad++ > 10, "width %zu: %s", width, line);
	}
	check(bad == 0, "%d lines too wide or ill-formed", bad);
	s = (struct stats){ .units_out = 12,
		.units_waiting = 3,
		.bytes_out = 24,
		.limit = { "5/s, burst 1", 5, 1 } };
	line = progress(&s, 2 * NS, 80);
	check(strcmp(line,
		  "\rtbthrottle: 12 out at 5.50/s (limit 5/s, burst 1), 24 B, "
		  "3 waiting\033[K") == 0,
	    "all at 80 columns: %s", line);
	line = progress(&s, 2 * NS, 40);
	check(strcmp(line, "\r12 out at 5.50/s, 24 B, 3 waiting\033[K") == 0,
	    "the limit, then the name, left out at 40: %s", line);
	line = progress(&s, 2 * NS, 20);
	check(strcmp(line, "\r12 out at 5.50/s\033[K") == 0,
	    "then bytes and units waiting at 20: %s", line);
	line = progress(&s, 2 * NS, 4);
	check(strcmp(line, "\r12 \033[K") == 0, "cut short at 4: %s", line);
	line = progress(&s, 2 * NS, 0);
	check(columns(line) <= 79, "80 columns when unknown: %s", line);
}

void
test_progress(void)
{
	test_progress_numbers();
	test_progress_eta();
	test_progress_width();
}

/* What stats_report handed out, joined; pieces taken before refusing. */
static char joined[64 * 1024];
static size_t joined_len;
static int pieces, refuse_after;

static bool
collect(const char *b, size_t len)
{
	if (refuse_after >= 0 && pieces >= refuse_after)
		return false;
	pieces++;
	if (joined_len + len < sizeof joined) {
		memcpy(joined + joined_len, b, len);
		joined_len += len;
		joined[joined_len] = '\0';
	}
	return true;
}

/* Occurrences of needle in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* stats_report of s into joined, refusing pieces after refuse (-1: none). */
static void
report_of(const struct stats *s, bool json, int refuse)
{
	static char piece[STATS_PIECE_MAX];

	joined_len = 0;
	joined[0] = '\0';
	pieces = 0;
	refuse_after = refuse;
	stats_report(s, 2 * NS, json, piece, sizeof piece, collect);
}

void
test_report_tiers(void)
{
	static struct stats_tier rows[61];
	static char patterns[60][24];
	struct stats s = { .units_out = 60,
		.limit = { "60 tiers by key", 0, 0 },
		.tiers = rows,
		.ntiers = 61 };
	char line[STATS_LINE_MAX];

	current = "report of many tiers";
	for (int i = 0; i < 60; i++) {
		snprintf(patterns[i], sizeof patterns[i], "pat%d-*", i + 1);
		rows[i] = (struct stats_tier){ patterns[i], (size_t)i + 1,
			"10/s, burst 1", 1, 0, 0 };
	}
	rows[60] = (struct stats_tier){ NULL, 0, "5/s, burst 1", 0, 0, 0 };
	/* A line of STATS_LINE_MAX cuts the tiers, and says so in JSON. */
	(void)stats_format(&s, 2 * NS, true, line, sizeof line);
	check(strstr(line, "\"tiers_cut\":true}\n") != NULL,
	    "a report of 1 KiB is cut: %s", line);
	/* The report in pieces holds them all, and ends the object. */
	report_of(&s, true, -1);
	check(count_of(joined, "\"pattern\":") == 60 &&
		strstr(joined, "tiers_cut") == NULL &&
		strstr(joined, "\"pattern\":\"pat60-*\",\"line\":60") != NULL &&
		strcmp(joined + joined_len - 4, "}]}\n") == 0,
	    "json: %d tiers, ends '%s'", count_of(joined, "\"pattern\":"),
	    joined + (joined_len > 20 ? joined_len - 20 : 0));
	check(count_of(joined, "},{") == 59, "json: tiers apart by commas");
	report_of(&s, false, -1);
	check(count_of(joined, "\n") == 61 &&
		count_of(joined, "tbthrottle: tier 'pat") == 60,
	    "text: %d lines", count_of(joined, "\n"));
	/* Once a piece is refused, no more are offered. */
	report_of(&s, false, 3);
	check(pieces == 3 && count_of(joined, "\n") == 3,
	    "refused at the fourth piece: %d taken", pieces);
}
