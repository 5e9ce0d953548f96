/* The control socket: a running tbthrottle answers -R and --list on it. */
#ifndef CONTROL_H
#define CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Largest request or reply, in bytes. */
#define CONTROL_MAX 4096

/*
 * Answer requests on a UNIX-domain socket named after this process in the
 * private directory of rundir_make, and with name (not NULL) also by that
 * name.  Returns 0; -1 when there is no socket (a directory that is not
 * private is reported on the standard error, and the run goes on without
 * one); -2 with the reason in why when name is held by another live run
 * of ours.
 */
int control_serve(const char *name, char *why, size_t size);

/* The listening socket, to be watched for requests, or -1. */
int control_fd(void);

/*
 * Answer each request waiting on the socket: the peer must be our user;
 * answer(arg, request, reply, size) fills the reply.  A peer too slow to
 * send its request is dropped after a second.
 */
void control_answer(
    void (*answer)(void *, const char *, char *, size_t), void *arg);

/* Remove the socket and the name; async-signal-safe. */
void control_remove(void);

/*
 * Send request to the running tbthrottle target, a NAME or a PID, which
 * must be ours, and wait up to 5 s for its reply.  Returns 0 with the
 * reply in reply[0..size), or -1 with the reason in reply.  A socket whose
 * process is gone is removed.
 */
int control_send(
    const char *target, const char *request, char *reply, size_t size);

/*
 * Call each(arg, pid, name) for each live tbthrottle of ours with a
 * socket (name "" when it has none), removing those whose process is
 * gone.  Returns how many there were.
 */
int control_each(void (*each)(void *, long, const char *), void *arg);

#endif
