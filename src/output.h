/* Output: writing released units whole to standard output. */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Wait until fd is ready after EAGAIN; false if a stop was requested. */
bool	wait_ready(int fd, short events);

/*
 * Write all of b[0..len) to fd; a signal does not cut it short.  On
 * standard output a closed pipe ends the process of SIGPIPE; any other
 * error ends it with status 1, naming name.
 */
void	write_all(int fd, const char *b, size_t len, const char *name);

/* Write b[0..n), holding units whole units, out, and count them in st. */
void	output_release(struct stats *st, const char *b, size_t n,
	    uint64_t units);

#endif
