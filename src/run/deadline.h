/* --timeout, --halt and a stop's grace: when commands get SIGTERM, then SIGKILL. */
#ifndef DEADLINE_H
#define DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "failure.h"

/* A stop's grace for the commands running, unless --timeout gives one. */
#define DEADLINE_GRACE_NS INT64_C(10000000000)
/* From SIGTERM to SIGKILL. */
#define DEADLINE_KILL_NS INT64_C(2000000000)

/* Why a command is to get SIGTERM at its term_ns. */
enum ender { END_TIMEOUT, END_STOP, END_HALT };

struct deadlines {
	int64_t timeout_ns; /* --timeout; 0: none */
	struct halt halt;   /* --halt */
	bool graced;	    /* a stop came: the grace counts */
	bool halting;	    /* --halt came due */
	bool said_timeout;
};

struct jobs;
struct job;

/* Commands of j run at most timeout_ns (0: no bound); h halts the run. */
void deadline_set(struct jobs *j, int64_t timeout_ns, const struct halt *h);

/* The command of s started at s->start_ns: its deadline, none sent. */
void deadline_start(const struct jobs *j, struct job *s);

/*
 * Send the signals due by now_ns to j's commands (once a stop came,
 * each has a grace: --timeout, else DEADLINE_GRACE_NS); when the next is
 * due, INT64_MAX when none.
 */
int64_t deadline_check(struct jobs *j, int64_t now_ns);

/* The command of s ended after a signal of ours: none, or why. */
bool deadline_killed(const struct job *s, enum ender *why);

/*
 * A record's outcome was counted: once --halt is due, no command starts
 * any more (j->halted), said once, the status at least 123; with now,
 * those running get SIGTERM.
 */
void deadline_counted(struct jobs *j, int64_t now_ns);

#endif
