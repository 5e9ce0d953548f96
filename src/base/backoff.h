/* The wait between tries of one record: exponential, full jitter; pure. */
#ifndef BACKOFF_H
#define BACKOFF_H

#include <stdint.h>

/*
 * The wait before try next (2, 3, ...) of a record: a uniform draw below
 * min(max_ns, base_ns * 2^(next - 2)), from the 64 random bits r ("full
 * jitter": tries of many records spread out instead of coming back
 * together).  A wait the server asked for (after_ns, 0: none) is the
 * least: the larger of the two is returned.
 */
int64_t backoff_ns(unsigned next, int64_t base_ns, int64_t max_ns,
    int64_t after_ns, uint64_t r);

#endif
