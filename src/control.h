/* Live changes: the control file a running tbthrottle serves, and -R. */
#ifndef CONTROL_H
#define CONTROL_H

#include <stddef.h>
#include <sys/types.h>

/* First line of a request; the reply starts with "ok" or "error: ". */
#define CONTROL_MAGIC	"tbthrottle-retune\n"
/* Largest request or reply, in bytes. */
#define CONTROL_MAX	4096

/*
 * Serve live changes: create this process's control file, mode 0600, in
 * the private directory of rundir_make.  Returns 0, or -1 when there is
 * none (a directory that is not private is reported).
 */
int	control_serve(void);

/*
 * Read a pending request into buf[0..size), NUL-terminated.  Returns its
 * length, or -1 when the file holds no request.
 */
ssize_t	control_request(char *buf, size_t size);

/* Answer the request with reply, one line. */
void	control_reply(const char *reply);

/* Remove the control file; async-signal-safe. */
void	control_remove(void);

/*
 * Send request to the tbthrottle of process pid, which must be ours, and
 * wait up to 5 s for its reply.  Returns 0 with the reply line in
 * reply[0..size), or -1 with the reason in reply.
 */
int	control_send(pid_t pid, const char *request, char *reply, size_t size);

#endif
