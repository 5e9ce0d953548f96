/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Write all of b[0..len) to fd; a signal does not cut it short.  Returns
 * 0, or -1 when fd is standard output and its reader went away: a stop by
 * SIGPIPE is then requested (signals_stop).  Any other error ends the
 * process with status 1, naming name (NULL for standard output).
 */
int output_write(int fd, const char *b, size_t len, const char *name);

/*
 * Open path for appending, made if it is not there.  A FIFO waits for a
 * reader: a signal meanwhile is handled, and a stop ends the run as it
 * would have.  The descriptor, or -1 with errno set.
 */
int output_open_append(const char *path);

/*
 * Write b[0..len), records ended by byte delim (-1: every byte is a
 * unit), to standard output as output_write does, unless a stop is asked
 * for meanwhile: then the write ends at the first record boundary at or
 * after what is written (b itself is one unless mid: b begins inside a
 * record), the record begun finished however long that waits.  From a
 * boundary, only whole records that the output takes without waiting
 * still go, PIPE_BUF bytes at a time.  Returns the bytes written, or -1
 * when the reader went away (a stop by SIGPIPE is then requested).
 */
ssize_t output_send(const char *b, size_t len, int delim, bool mid);

/*
 * Write b[0..len) to standard error whole, a signal meanwhile or not (a
 * stdio write interrupted by a signal loses its bytes); errors are
 * ignored, as a report must never stop the run.  Once a stop is asked
 * for, a write that waits is given up at the next signal (the stop's
 * own, or its alarm), so that a report never holds a stop up.  True when
 * it was written whole.
 */
bool output_say(const char *b, size_t len);

#endif
