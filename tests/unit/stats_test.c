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
	n = stats_format_progress(&s, 2 * NS, false, line, 20);
	check(n == 19 && strlen(line) == 19, "a short buffer cuts, safely");
	s.next_due_ns = 3 * NS;
	(void)stats_format_progress(&s, 2 * NS, true, line, sizeof line);
	check(strstr(line, "next in 1.000 s\033[K\n") != NULL, "progress: %s",
	    line);
}
