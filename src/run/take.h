/* --take: tokens of a shared bucket taken from the shell, then exit. */
#ifndef TAKE_H
#define TAKE_H

#include "build.h"

/*
 * Take cfg->take_units tokens (of the bucket of cfg->take_key, with -k)
 * through the gate of L: wait until they are granted and return 0; with
 * --drop, 0 when they are granted at once, else 1.  A stop signal
 * meanwhile ends the process by that signal; a key no record could hold
 * is refused with status 2.
 */
int take_run(struct limits *L, const struct config *cfg);

#endif
