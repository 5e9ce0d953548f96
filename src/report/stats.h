/* Counters of what went in, out and was dropped, and their report. */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* The limit a report compares the achieved rate with. */
struct stats_limit {
	char text[160]; /* as a person reads it: "5/s, burst 1" */
	double per_sec; /* units a second; 0: none to compare */
	/*
	 * Units the limit may let through at once: released units never
	 * exceed allowance + per_sec * elapsed.  The achieved rate leaves
	 * them out, so a run within its limit never seems to exceed it.
	 */
	uint64_t allowance;
};

/* The counts of one tier of --tiers, or of the keys no tier takes. */
struct stats_tier {
	const char *pattern; /* as written, or NULL: the keys no tier takes */
	size_t line;	     /* of the tiers file, from 1 */
	char limit[64];	     /* the rate as a person reads it, or "none" */
	uint64_t units_out, units_dropped, units_waiting;
};

/* What became of a record, for the counts of its tier. */
enum stats_fate { STATS_OUT, STATS_DROPPED, STATS_WAITING };

/*
 * Count the record rec[0..len) (delimiter and all; with whole false, the
 * first bytes of one longer than the buffer) as fate says: each is told
 * it waits once, when it is read, then its fate, out or dropped, which it
 * no longer waits for.  With STATS_WAITING and rec NULL, forget the
 * records counted waiting.
 */
typedef void stats_tally_fn(
    void *ctx, const char *rec, size_t len, bool whole, enum stats_fate fate);

/* Buckets of the lateness histogram: 16 per power of two of ns. */
#define STATS_LATE_SUB 16
#define STATS_LATE_BUCKETS (64 * STATS_LATE_SUB)

/* What --replay adds to the report: in constant memory. */
struct stats_replay {
	const char *format; /* of the timestamps, once detected, or NULL */
	uint64_t speed_num, speed_den;
	uint64_t timed, untimed, out_of_order; /* records gone */
	uint64_t passes;		       /* over the input (--loop) */
	uint64_t late_count;
	int64_t late_max_ns;
	int64_t last_late_ns; /* of the record that went last */
	int64_t last_ts;      /* the timestamp of the last timed one */
	uint64_t late[STATS_LATE_BUCKETS]; /* behind the schedule, ns */
};

/* Count a record that left late_ns behind its time (< 0 as 0). */
void stats_late_add(struct stats_replay *r, int64_t late_ns);

/*
 * The lateness that num/den of the records counted did not exceed, to
 * within 1/16 (rounded up, never above the largest); 0 when none.
 */
int64_t stats_late_quantile(
    const struct stats_replay *r, uint64_t num, uint64_t den);

/* What --exec adds to the report. */
struct stats_jobs {
	uint64_t started, succeeded, failed;
	uint64_t refused;  /* records that could be no argument: dropped */
	uint64_t retried;  /* tries again, each also started (--retry) */
	bool adapt;	   /* --adapt: the rate learns from these two */
	uint64_t refusals; /* exits with a --retry-on status */
	uint64_t cuts;	   /* of them, those that cut the rate */
	size_t retrying;   /* records waiting to be tried again */
	unsigned running;
	int64_t slowest_ns; /* of the commands that ended */
};

struct stats {
	int64_t start_ns;
	uint64_t bytes_in;
	uint64_t units_out, bytes_out;
	uint64_t units_dropped, bytes_dropped;
	uint64_t units_waiting, bytes_waiting; /* read, not yet released */
	uint64_t units_skipped; /* --resume: read, done before, taken out */
	uint64_t bytes_skipped; /* their bytes, not in bytes_in */
	int64_t max_late_ns;	/* latest release after its due time */
	int64_t next_due_ns;	/* when the next release is due, or 0 */
	uint64_t bytes_total;	/* of all the input, when known, or 0 */
	uint64_t units_total;	/* the same in units */
	struct stats_limit limit;
	const struct stats_tier *tiers; /* with --tiers, else NULL */
	size_t ntiers;
	const struct stats_replay *replay; /* with --replay, else NULL */
	const struct stats_jobs *jobs;	   /* with --exec, else NULL */
};

/*
 * Units a second released beyond the limit's allowance over the time
 * from start to now_ns: comparable with the limit's rate (when there is
 * none, simply units out a second).
 */
double stats_rate(const struct stats *s, int64_t now_ns);

/*
 * Append to buf[*used..size) as snprintf would, never past the end: *used
 * grows by what was written, and stays below size.
 */
void stats_add(char *buf, size_t size, size_t *used, const char *fmt, ...);

/* Room for any report line. */
#define STATS_LINE_MAX 1024

/*
 * Room for any piece of stats_report: a tier's line holds its pattern, of
 * up to 4096 bytes (TIERS_LINE_MAX), 6 bytes each escaped in JSON.
 */
#define STATS_PIECE_MAX (32 * 1024)

/* What clears the live status line on a terminal. */
#define STATS_CLEAR "\r\033[K"

/*
 * Format the report at now_ns into buf[0..size), NUL-terminated, and
 * return its length: units and bytes in, out, dropped and waiting (in =
 * out + dropped + waiting), elapsed time, the achieved rate beside the
 * limit, and the largest lateness; with --replay, its speed, format,
 * records without a timestamp or out of order, and how far behind its
 * schedule they went.  json selects one JSON object.  With tiers, the
 * units of each that saw any follow: a line each, or in the object an
 * array "tiers", cut short (and "tiers_cut" true) where size would be
 * passed.
 */
size_t stats_format(
    const struct stats *s, int64_t now_ns, bool json, char *buf, size_t size);

/*
 * The report of stats_format, never cut short: handed to out in pieces
 * (the summary, a tier each, the end of the JSON object), each formatted
 * in buf[0..size), of STATS_PIECE_MAX bytes for any piece to be whole.
 * Stops at the first piece out returns false for.
 */
void stats_report(const struct stats *s, int64_t now_ns, bool json, char *buf,
    size_t size, bool (*out)(const char *, size_t));

/*
 * Format -P's live status line at now_ns, as stats_format, for a terminal
 * width columns wide (0: unknown, taken as 80): a carriage return, at most
 * width - 1 columns of text, and an erase to the end of the line (and a
 * newline when done).  Its fields, in 3 or 4 significant digits: units
 * out, their rate and the limit, bytes out, with bytes_total the share of
 * the input done and an ETA, units dropped (if any) and waiting, and when
 * the next release is due.  Fields that do not fit are left out, the
 * least useful first (the limit, the program's name, bytes, units
 * waiting, the next release, units dropped, the ETA, the rate, the share
 * done); units out are cut short, never left out.
 */
size_t stats_format_progress(const struct stats *s, int64_t now_ns, bool done,
    size_t width, char *buf, size_t size);

/*
 * Format the line --list shows for a run, as stats_format: the limit in
 * force (for a replay, its speed, log time and records gone, the limit
 * its ceiling), units in, out, dropped and waiting, and how long it has
 * run.
 * With json, the same as the members of a JSON object, its closing brace
 * and a newline after them, for --list --json to open.
 */
size_t stats_format_status(
    const struct stats *s, int64_t now_ns, bool json, char *buf, size_t size);

#endif
