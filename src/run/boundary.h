/* Where --exec's command ends, made visible: an input FILE given to it. */
#ifndef BOUNDARY_H
#define BOUNDARY_H

#include <stdbool.h>

#include "options.h"
#include "stats.h"

/*
 * At the start of cfg's run: when --exec's command has a regular file
 * among its arguments and standard input is read, say that the file goes
 * to the command.  Standard input /dev/null (or closed) gives nothing to
 * read: said, exit 2.  A terminal: said as a warning, and true.
 */
bool boundary_start(const struct config *cfg);

/*
 * At the end of cfg's run, counted in st: when no record was read (and
 * not stopped, nor said at start, said), the same as a warning.
 */
void boundary_end(const struct config *cfg, const struct stats *st, bool said);

#endif
