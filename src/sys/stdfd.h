/* The standard descriptors: none closed at start may be taken by a file. */
#ifndef STDFD_H
#define STDFD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Put /dev/null on each of descriptors 0, 1 and 2 that is closed, so that
 * no file opened later (a control socket, the Redis connection, the drop
 * file) takes its number, and remember which were.  Call first.
 */
void stdfd_guard(void);

/* Was descriptor fd (0, 1 or 2) closed at start? */
bool stdfd_closed(int fd);

/* Are descriptors a and b the same terminal? */
bool stdfd_same_tty(int a, int b);

/* Is descriptor fd /dev/null (closed at start, stdfd_guard's too)? */
bool stdfd_is_null(int fd);

/* The width of terminal fd in columns, or 0 when it cannot tell. */
size_t stdfd_columns(int fd);

#endif
