/* The first lines of control requests and replies: to whom, and from whom. */
#ifndef REQUEST_H
#define REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Request req of the run target (its NAME or PID) as sent: a line
 * "to TARGET" and then req, into out; -1 when it does not fit.
 */
int request_to(char *out, size_t size, const char *target, const char *req);

/*
 * Is msg, as request_to made it, for the run of process pid called name
 * (NULL: no name), being sent to its pid or to its name?  Then *req is
 * the request.  A message without the line is for no one.
 */
bool request_is_for(
    const char *msg, long pid, const char *name, const char **req);

/*
 * The line a reply of the run of process pid called name (NULL: no name)
 * starts with, "from PID NAME" ("-" for no name), into out: its length, or
 * -1 when it does not fit.
 */
int request_from(char *out, size_t size, long pid, const char *name);

/*
 * Read the line request_from made at the start of msg: the pid in *pid,
 * the name into name[0..size) ("" for none), the reply in *reply.  -1
 * when msg does not start with such a line.
 */
int request_sender(
    const char *msg, long *pid, char *name, size_t size, const char **reply);

#endif
