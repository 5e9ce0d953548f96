/* Live changes (-R): asking a running tbthrottle, and answering. */
#ifndef RETUNE_H
#define RETUNE_H

#include "limits.h"
#include "options.h"

/*
 * Serve live changes to the limits L, when they can be retuned: a
 * request is checked as the command line would be, then applied at once.
 */
void	retune_serve(struct limits *L);

/* Stop serving live changes; async-signal-safe. */
void	retune_stop(void);

/* -R: send cfg's new limits to the running tbthrottle; the exit status. */
int	retune_send(const struct config *cfg);

#endif
