/* Counters of what went in, out and was dropped, and their report. */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The limit a report compares the achieved rate with. */
struct stats_limit {
	char text[160];		/* as a person reads it: "5/s, burst 1" */
	double per_sec;		/* units a second; 0: none to compare */
	/*
	 * Units the limit may let through at once: released units never
	 * exceed allowance + per_sec * elapsed.  The achieved rate leaves
	 * them out, so a run within its limit never seems to exceed it.
	 */
	uint64_t allowance;
};

struct stats {
	int64_t start_ns;
	uint64_t bytes_in;
	uint64_t units_out, bytes_out;
	uint64_t units_dropped, bytes_dropped;
	uint64_t units_waiting, bytes_waiting;	/* read, not yet released */
	int64_t max_late_ns;	/* latest release after its due time */
	int64_t next_due_ns;	/* when the next release is due, or 0 */
	struct stats_limit limit;
};

/*
 * Units a second released beyond the limit's allowance over the time
 * from start to now_ns: comparable with the limit's rate (when there is
 * none, simply units out a second).
 */
double	stats_rate(const struct stats *s, int64_t now_ns);

/*
 * Print one summary line at now_ns: units and bytes in, out, dropped and
 * waiting (in = out + dropped + waiting), elapsed time, the achieved rate
 * beside the limit, and the largest lateness.  json selects one JSON
 * object per line.
 */
void	stats_print(const struct stats *s, int64_t now_ns, bool json,
	    FILE *fp);

/*
 * Redraw the one-line live status on a terminal at now_ns: units out and
 * their rate beside the limit, bytes out, dropped, waiting and when the
 * next release is due.  done ends the line.
 */
void	stats_progress(const struct stats *s, int64_t now_ns, bool done,
	    FILE *fp);

/* Clear the live status line, so that other output starts on a clean line. */
void	stats_progress_clear(FILE *fp);

#endif
