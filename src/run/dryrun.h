/* --dry-run: a replay read through and described, nothing released. */
#ifndef DRYRUN_H
#define DRYRUN_H

#include "options.h"
#include "replay.h"

/*
 * Read every record of cfg's input, their timestamps as fmt finds them,
 * and print on standard output what a replay on sched would do: the
 * format found, the records timed, without a timestamp and out of order,
 * the span of log time, and how long the replay would take.  A record is
 * read as the replay reads it, its timestamp looked for in its first
 * ENGINE_BUF_BYTES bytes at most; memory is the same whatever the input.
 * SIGUSR1 prints the same of the records read so far on standard error.
 * A stop signal ends the reading: what was read is said, with the stop,
 * and the caller then dies of the signal (signals_finish).  Returns the
 * exit status: 0; 1 when no record has a timestamp (the input read to
 * its end), or when an operand could not be opened or read.
 */
int dryrun_run(const struct config *cfg, struct timestamp_format *fmt,
    struct replay_schedule *sched);

#endif
