/* A bounded queue: read ahead while units wait for tokens, at most N. */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "pump.h"

/* Bytes the queue holds at most, whatever its length in units. */
#define QUEUE_BUF_BYTES	(1024 * 1024)

/*
 * Copy the input to standard output under p's limit (records, not bytes),
 * reading on while units wait so that each is stamped with its arrival.
 * At most max_units units wait.  When that many wait, a new unit is
 * dropped if drop is set (written whole to drop_fd, named drop_name,
 * unless it is -1); otherwise reading stops until one leaves.  Returns the
 * exit status, as pump_run.
 */
int	queue_run(const struct pump *p, uint64_t max_units, bool drop,
	    int drop_fd, const char *drop_name);

#endif
