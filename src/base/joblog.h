/* --joblog's lines, in GNU parallel's layout, and reading them back; pure. */
#ifndef JOBLOG_H
#define JOBLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seqset.h"

/* The first line of a joblog, as GNU parallel writes it. */
#define JOBLOG_HEADER \
	"Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\t" \
	"Command\n"

/* What a line tells of one job that ended. */
struct joblog_job {
	uint64_t seq;	    /* its number, from 1 in input order */
	int64_t start_ns;   /* when it started, wall clock since the epoch */
	int64_t runtime_ns; /* how long it ran */
	int exitval; /* its exit status, 0-255; 0 when a signal killed it */
	int signal;  /* the signal that killed it, or 0 */
	char *const *argv; /* the command, NULL-terminated */
};

/*
 * The line of job j, with its newline, into buf[0..size) as snprintf
 * does (cut to fit, NUL-terminated when size > 0); returns its length,
 * however large, so that a caller whose buffer was too small can size one
 * that fits and write the line with one write(2).  The columns, tab
 * separated, as GNU parallel writes them: the Seq; ':' for the host; the
 * start in seconds, rounded to the millisecond ("1795911130.791"); the
 * runtime in seconds, cut to the millisecond, as "%10.3f"; 0 and 0 for
 * Send and Receive; Exitval; Signal; the command.  A negative start or
 * runtime is written as 0.
 *
 * The command is its arguments joined by spaces, each quoted for the
 * shell only when it needs it: as is when it is of letters, digits and
 * "%+,-./:@_" (and '=' past the first), in '...' when it holds other
 * printable bytes or bytes above 0x7f ("'" written '\''), and in bash's
 * $'...' when it holds a control byte (below 0x20, or 0x7f): \n, \t, \r
 * as such, \\ and \' for '\' and "'", the others as \xHH.  So a line
 * holds no newline, carriage return or tab but its own, whatever bytes
 * the command held, and bash or zsh reads the arguments back from it
 * (POSIX sh has $'...' only since POSIX.1-2024).  An empty argument is ''.
 */
size_t joblog_format(char *buf, size_t size, const struct joblog_job *j);

/* Which jobs a joblog says need not run again. */
enum joblog_mode {
	JOBLOG_RESUME,	     /* --resume: every job with a line */
	JOBLOG_RESUME_FAILED /* --resume-failed: those whose line says 0 0 */
};

/* What reading a joblog found besides the jobs. */
struct joblog_scan {
	size_t records;	      /* lines read as jobs' */
	size_t garbage;	      /* lines neither a job's, the header nor empty */
	size_t first_garbage; /* the line number of the first, from 1; or 0 */
	bool cut; /* its last line had no newline, and was ignored */
};

/*
 * Read the joblog text[0..len) and add to done the Seqs that need not run
 * again under mode: with JOBLOG_RESUME every Seq that has a line; with
 * JOBLOG_RESUME_FAILED the Seqs whose last line has Exitval 0 and Signal
 * 0 (a later line of a Seq overrides an earlier one, either way: a Seq
 * done by an earlier line is removed from done by a failed one).  A job's
 * line is: a Seq of decimal digits up to SEQSET_MAX (2^63 - 1), a host
 * of at least one byte, four numbers (" *-?[0-9]+(.[0-9]+)?": start,
 * runtime, send, receive), Exitval and Signal (" *-?[0-9]+"), then the
 * command, which may hold anything, tabs too, as GNU parallel's may;
 * nine columns separated by tabs.  A line may end in CRLF.  The header
 * (JOBLOG_HEADER, anywhere) and empty lines are passed over; any other
 * line is garbage: counted in scan, with the number of the first, and
 * passed over.  The last line, when no newline ends it, is the line a
 * crash cut short: it is ignored (its job runs again) and scan->cut set.
 * done is settled on return.  0, or -1 when memory runs out.
 */
int joblog_read(const char *text, size_t len, enum joblog_mode mode,
    struct seqset *done, struct joblog_scan *scan);

#endif
