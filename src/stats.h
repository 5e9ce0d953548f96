/* Counters of what went in, out and was dropped, and their report. */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct stats {
	int64_t start_ns;
	uint64_t bytes_in;
	uint64_t units_out, bytes_out;
	uint64_t units_dropped, bytes_dropped;
	uint64_t units_waiting, bytes_waiting;	/* read, not yet released */
	int64_t max_late_ns;	/* latest release after its due time */
	int64_t next_due_ns;	/* when the next release is due, or 0 */
};

/*
 * Print one summary line at now_ns: units and bytes in, out, dropped and
 * waiting (in = out + dropped + waiting), elapsed time, the achieved rate
 * and the largest lateness.  json selects one JSON object per line.
 */
void	stats_print(const struct stats *s, int64_t now_ns, bool json,
	    FILE *fp);

/*
 * Redraw the one-line live status on a terminal at now_ns: units out and
 * their rate, bytes out, dropped, waiting and when the next release is
 * due.  done ends the line.
 */
void	stats_progress(const struct stats *s, int64_t now_ns, bool done,
	    FILE *fp);

#endif
