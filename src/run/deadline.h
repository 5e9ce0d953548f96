/* --timeout, --halt and a stop's grace: when commands get SIGTERM, then SIGKILL. */
#ifndef DEADLINE_H
#define DEADLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "failure.h"
#include "stats.h"

/* A stop's grace for the commands running, unless --timeout gives one. */
#define DEADLINE_GRACE_NS INT64_C(10000000000)
/* From SIGTERM to SIGKILL. */
#define DEADLINE_KILL_NS INT64_C(2000000000)

/* Why a command is to get SIGTERM at its term_ns. */
enum ender { END_TIMEOUT, END_STOP, END_HALT };

/* The run's: what bounds its commands. */
struct deadlines {
	int64_t timeout_ns; /* --timeout; 0: none */
	struct halt halt;   /* --halt */
	bool graced;	    /* a stop came: the grace counts */
	bool halting;	    /* --halt came due */
	bool said_timeout;
};

/* One command's. */
struct deadline {
	int64_t term_ns, kill_ns; /* when SIGTERM, SIGKILL are due */
	enum ender why;		  /* what term_ns is for */
	unsigned char sent;	  /* 0, 1: SIGTERM sent, 2: SIGKILL too */
};

/* A command that started at start_ns: its deadline, none sent. */
void deadline_start(
    const struct deadlines *d, struct deadline *c, int64_t start_ns);

/* Is any command's deadline possible now (none is, most runs)? */
bool deadline_any(const struct deadlines *d);

/*
 * A stop came (stopping) and is first seen now_ns: true once, with *at_ns
 * the end of the grace (--timeout, else DEADLINE_GRACE_NS).
 */
bool deadline_grace(
    struct deadlines *d, bool stopping, int64_t now_ns, int64_t *at_ns);

/* The command of c is to get SIGTERM by at_ns, for why. */
void deadline_due_by(struct deadline *c, int64_t at_ns, enum ender why);

/*
 * Send pid, the command of record seq, the signal c has due by now_ns;
 * when its next is due, INT64_MAX when none.
 */
int64_t deadline_signal(struct deadlines *d, struct deadline *c, pid_t pid,
    uint64_t seq, int64_t now_ns);

/*
 * The outcomes so far are n: true once, when --halt comes due (said on
 * stderr, running the number of commands running).
 */
bool deadline_halt(
    struct deadlines *d, const struct stats_jobs *n, unsigned running);

#endif
