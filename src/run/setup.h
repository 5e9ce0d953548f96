/* The set-up of a run: its policy, its sink, what it says at start and end. */
#ifndef SETUP_H
#define SETUP_H

#include <stdbool.h>

#include "build.h"
#include "engine.h"
#include "jobs.h"
#include "options.h"
#include "policy.h"
#include "sink.h"
#include "stats.h"

/* What a run is made of: setup_run fills it, setup_end frees it. */
struct setup {
	struct limits limits;
	struct policy policy;
	struct stats stats;
	struct jobs jobs;
	bool exec;		/* jobs is in use (--exec) */
	bool said_boundary;	/* a FILE after --exec was said at start */
	struct adaptrate adapt; /* --adapt: the rate the jobs learn */
	struct sink sink;
	struct engine engine;
};

/* Say on standard error what cfg's options warn of as they are taken. */
void setup_warn(const struct config *cfg);

/* --take: build the limits of cfg, take the tokens; the exit status. */
int setup_take(const struct config *cfg);

/*
 * --shared NAME --show or --reset: the bucket's file read, or given a
 * clean budget; the exit status.
 */
int setup_show(const struct config *cfg);

/*
 * --replay --dry-run: what the replay would do, nothing released; the exit
 * status.  A stop signal ends it, said, and then the process, as it ends
 * a run.
 */
int setup_dry_run(const struct config *cfg);

/*
 * Set up the run cfg asks for in u: its limits, the policy over them
 * (--order key, --queue, --drop, --replay or plain shaping), the sink of
 * the records released (--exec's commands or standard output), and
 * u->engine to run them.  A bad --loop operand or --time-format, or a
 * FILE among --exec's arguments with nothing to read (boundary_start),
 * ends the process with status 2; no memory, with status 1.
 */
void setup_run(struct setup *u, const struct config *cfg);

/*
 * The run of u ended: say what its counts warn of (--drop dropping most
 * with -b 1, unless a stop ended it; --replay records without a
 * timestamp; none read, and a FILE among --exec's arguments), and free
 * what setup_run took.
 */
void setup_end(struct setup *u, const struct config *cfg);

#endif
