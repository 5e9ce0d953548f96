/* The engine: the one loop that reads, waits, and hands records to a sink. */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framer.h"
#include "policy.h"
#include "sink.h"
#include "stats.h"

/*
 * Records up to this many bytes go out whole in one write(2); a longer
 * record is streamed through the buffer once it is judged.
 */
#define ENGINE_BUF_BYTES (128 * 1024)

struct engine {
	const struct policy *policy; /* decides what each unit does */
	struct framer framer;
	size_t buf_bytes; /* the buffer: the longest record held whole */
	char **files;	  /* operands; none means standard input */
	int nfiles;
	const char *drop_to;   /* where dropped units go, or NULL */
	int64_t start_ns;      /* when the limits were started */
	struct stats *stats;   /* counters, kept up to date */
	bool stats_json;       /* report format */
	bool stats_at_exit;    /* print the report when done */
	bool progress;	       /* redraw a status line on stderr */
	stats_tally_fn *tally; /* NULL, or counts each record's fate */
	void *tally_ctx;
	struct sink *sink;     /* where released records go */
	struct resume *resume; /* NULL, or records to take out (--resume) */
	uint64_t loops; /* --loop: passes after the first (UINT64_MAX: for
			 * ever), 0 by default */
};

/*
 * Hand the input to e's sink as e's policy decides, no more at a time
 * than the sink has room for, and let the sink finish.  Returns the exit
 * status: the sink's when not 0; else 0, or 1 after an input or output
 * error (input errors are reported and the next file is read).  Returns early when a stop signal
 * arrives, after finishing the write in progress.  A process that exits
 * on an error meanwhile (err(3)) still prints -P's last line and -s's
 * report, once.
 */
int engine_run(const struct engine *e);

/*
 * The report of the run, as --stats prints it (json: as --stats=json),
 * into buf[0..size); its length.  For -R NAME --stats.
 */
size_t engine_report(char *buf, size_t size, bool json);

/* The run's line for --list (json: --list --json's members) into
 * buf[0..size); its length. */
size_t engine_status(char *buf, size_t size, bool json);

/* The limits were changed at now_ns: any decision made before is stale. */
void engine_limits_changed(int64_t now_ns);

#endif
