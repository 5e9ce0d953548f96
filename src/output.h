/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stddef.h>

/*
 * Write all of b[0..len) to fd; a signal does not cut it short.  On
 * standard output a closed pipe ends the process of SIGPIPE; any other
 * error ends it with status 1, naming name (NULL for standard output).
 */
void	output_write(int fd, const char *b, size_t len, const char *name);

#endif
