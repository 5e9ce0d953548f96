/* The limits of a run as a person reads them, for the reports and --list. */
#ifndef DESCRIBE_H
#define DESCRIBE_H

#include <stddef.h>

#include "options.h"
#include "spec.h"
#include "stats.h"

/*
 * The limits of cfg, its -r as in force now (now[0..cfg->nlimits), which
 * a live change may have changed) and ntiers tiers (with --tiers), as a
 * person reads them, into out; with the rate the achieved one is compared
 * with, the tightest in the long run, and what it let through at once.
 */
void describe_limits(const struct config *cfg, const struct limit *now,
    size_t ntiers, struct stats_limit *out);

#endif
