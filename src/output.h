/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stddef.h>

/*
 * Write all of b[0..len) to fd; a signal does not cut it short.  Returns
 * 0, or -1 when fd is standard output and its reader went away: a stop by
 * SIGPIPE is then requested (signals_stop).  Any other error ends the
 * process with status 1, naming name (NULL for standard output).
 */
int output_write(int fd, const char *b, size_t len, const char *name);

/*
 * Write b[0..len) to standard error whole, a signal meanwhile or not (a
 * stdio write interrupted by a signal loses its bytes); errors are
 * ignored, as a report must never stop the run.
 */
void output_say(const char *b, size_t len);

#endif
