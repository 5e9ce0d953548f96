/* Live changes (-R): asking a running tbthrottle, and answering. */
#ifndef RETUNE_H
#define RETUNE_H

#include "build.h"
#include "options.h"
#include "replay.h"

/*
 * Answer requests on the control socket (for a run with a limit, or named
 * name): live changes to the limits L, checked as the command line would
 * be and applied at once, its report, its status for --list.  A name
 * another live run has ends the process with status 1.
 */
void retune_serve(struct limits *L, const char *name);

/*
 * The replay that requests for a new speed (-R ... --speed) change; call
 * before retune_serve, which then serves a replay without a limit too.
 */
void retune_replay(struct replay *r);

/* Stop serving live changes; async-signal-safe. */
void retune_stop(void);

/*
 * -R: send cfg's new limits to the running tbthrottle, or ask for its
 * report (printed on standard output); the exit status.
 */
int retune_send(const struct config *cfg);

/* --list: a header, then a line for each running tbthrottle of ours (json:
 * a JSON object each, no header); the exit status. */
int retune_list(bool json);

#endif
