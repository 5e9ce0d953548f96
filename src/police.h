/* Policing: units that find no token on arrival are dropped, not delayed. */
#ifndef POLICE_H
#define POLICE_H

#include "pump.h"

/*
 * Copy the input to standard output, never waiting for tokens: each unit
 * is judged when its first byte arrives, and one that finds no token is
 * written whole to drop_fd (named drop_name), or discarded when drop_fd is
 * -1.  A record longer than the buffer keeps its verdict to its end.
 * Returns the exit status, as pump_run.
 */
int	police_run(const struct pump *p, int drop_fd, const char *drop_name);

#endif
