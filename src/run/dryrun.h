/* --dry-run: a replay read through and described, nothing released. */
#ifndef DRYRUN_H
#define DRYRUN_H

#include "options.h"
#include "replay.h"

/*
 * Read every record of cfg's input, their timestamps as fmt finds them,
 * and print on standard output what a replay on sched would do: the
 * format found, the records timed, without a timestamp and out of order,
 * the span of log time, and how long the replay would take.  Returns the
 * exit status: 0; 1 when no record has a timestamp, or on a read error.
 */
int dryrun_run(const struct config *cfg, struct timestamp_format *fmt,
    struct replay_schedule *sched);

#endif
