/* The I/O pump: read input, frame units, wait for tokens, write. */
#ifndef PUMP_H
#define PUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "limiter.h"
#include "framer.h"
#include "stats.h"

/*
 * Records up to this many bytes go out whole in one write(2); a longer
 * record is streamed through this buffer once its token is granted.
 */
#define PUMP_BUF_BYTES	(128 * 1024)

/* How often --progress redraws its line. */
#define PUMP_PROGRESS_MS	250

struct pump {
	struct framer framer;
	struct limiter *limit;	/* NULL: no limit on units */
	uint64_t quantum;	/* units to gather before a wake-up, >= 1 */
	/* With -k: select the bucket of record rec[0..len) (delimiter and
	 * all) before the limit is asked about it; else NULL. */
	void (*select)(void *ctx, const char *rec, size_t len, int64_t now_ns);
	void *select_ctx;
	struct bucket *byte_limit;	/* NULL, or records cost their length */
	uint64_t byte_quantum;	/* bytes to gather before a wake-up, >= 1 */
	int64_t start_ns;	/* when the bucket was started */
	char **files;		/* operands; none means standard input */
	int nfiles;
	struct stats *stats;	/* counters, kept up to date */
	bool stats_json;	/* report format */
	bool stats_at_exit;	/* print the report when done */
	bool progress;		/* redraw a status line on stderr */
};

/*
 * Copy the input to standard output under the pump's limit.  Returns the
 * exit status: 0, or 1 after an input or output error (input errors are
 * reported and the next file is read).  Returns early when a stop signal
 * arrives, after finishing the write in progress.
 */
int	pump_run(const struct pump *p);

/*
 * Print p's report on SIGUSR1 and redraw its --progress line, calling
 * count_waiting first to bring the waiting counts up to date.
 */
void	pump_watch(const struct pump *p, void (*count_waiting)(void));

/* How a sleep to a deadline ended. */
enum wake { WAKE_DUE, WAKE_STOP, WAKE_CHANGED };

/*
 * Sleep to deadline_ns, printing reports as they are asked for.  Returns
 * early with WAKE_STOP when a stop was requested, or WAKE_CHANGED when
 * the limits changed (pump_limits_changed), so the deadline is stale.
 */
enum wake pump_sleep_until(int64_t deadline_ns);

/* The limits were changed at now_ns: recompute any deadline. */
void	pump_limits_changed(int64_t now_ns);

/* When the limits were last changed, or INT64_MIN. */
int64_t	pump_changed_ns(void);

/* The final --progress line and --stats report, as p asks. */
void	pump_report_end(void);

#endif
