/* --joblog: a line for each record whose command is done, in GNU parallel's layout. */
#ifndef JOBLOGFILE_H
#define JOBLOGFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "joblog.h"

struct joblogfile {
	int fd; /* -1: no --joblog */
	const char *path;
	bool failed; /* a line could not be written (said once) */
};

/*
 * Open path for --joblog (NULL: none), appending, made when it is not
 * there, with JOBLOG_HEADER written when it is empty.  Exits (status 1)
 * when it cannot be opened or the header written.
 */
void joblogfile_open(struct joblogfile *l, const char *path);

/*
 * --resume, --resume-failed: add to done the numbers of the records the
 * joblog at path says need not run again under mode (none when there is
 * no file), settled; what it cannot read as a job's line is passed over,
 * said once.  Exits (status 1) when it cannot be read, or is no regular
 * file, or memory runs out.
 */
void joblogfile_done(
    const char *path, enum joblog_mode mode, struct seqset *done);

/* Is there a joblog to write? */
bool joblogfile_on(const struct joblogfile *l);

/*
 * A copy of the NULL-terminated argv, in one allocation (free(3) frees
 * it); exits (status 1) when memory ran out.
 */
char **joblogfile_argv(char *const *argv);

/*
 * The line of the record numbered seq, whose last try ran argv from
 * start_ns to end_ns (clock_now_ns) and ended with wait(2) status st,
 * written with one write(2) so that lines of processes appending to the
 * same file do not mix.  A write that fails is said once, and remembered.
 */
void joblogfile_write(struct joblogfile *l, uint64_t seq, int64_t start_ns,
    int64_t end_ns, int st, char *const *argv);

/* Close the joblog: 0, or 1 when a line could not be written. */
int joblogfile_close(struct joblogfile *l);

#endif
