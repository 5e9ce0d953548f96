/* The control socket: a running tbthrottle answers -R and --list on it. */
#ifndef CONTROL_H
#define CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest request or reply, in bytes. */
#define CONTROL_MAX 4096

/*
 * Requests read at a time; a connection beyond them takes the place of
 * the one that has waited longest for its request, which is closed.
 */
#define CONTROL_PEERS 16

/*
 * How long a run waits to take connections again after it could not (no
 * descriptor left: EMFILE), in ns.
 */
#define CONTROL_RETRY_NS (100 * 1000000LL)

/* How long a run waits for the bytes of a request, in ns. */
#define CONTROL_REQUEST_NS (1 * 1000000000LL)

/*
 * Answer requests on a UNIX-domain socket named after this process in the
 * private directory of rundir_make, and with name (not NULL) also by that
 * name, first removing the links an earlier process with our pid left.
 * Returns 0; -1 when there is no socket (a directory that is not private
 * is reported on the standard error, and the run goes on without one);
 * -2 with the reason in why when name is held by another live run of
 * ours.
 */
int control_serve(const char *name, char *why, size_t size);

/*
 * What to watch for requests, for clock_watch: the socket (unless no
 * connection could be taken on it lately) and the connections whose
 * requests are being read, up to max, into fds; how many.  *wake_ns is
 * made the time the first of them is to be dropped, or the socket tried
 * again, if it is earlier.
 */
int control_watch(int *fds, int max, int64_t *wake_ns);

/*
 * Take what has come, without waiting: new connections (a peer of
 * another user is closed at once) and the bytes of requests being read.
 * A whole request addressed to this run is answered, answer(arg, request,
 * reply, size) filling the reply; one whose sender has given up is not.
 * A connection whose request is not whole within CONTROL_REQUEST_NS is
 * closed unanswered.  When answer returns false, the request cannot be
 * answered now (the run is in the middle of what it would change): it is
 * held, and offered to answer again at the next call, until its sender
 * gives up.  Returns true while a request is held.
 */
bool control_answer(
    bool (*answer)(void *, const char *, char *, size_t), void *arg);

/* Remove the socket and the name; async-signal-safe. */
void control_remove(void);

/*
 * Connect to the socket at path without waiting: the descriptor,
 * non-blocking, or -1 with errno (EAGAIN when its backlog is full).
 */
int control_connect(const char *path);

/*
 * The user and process at the other end of the socket fd (the process 0
 * where the system tells the user alone); -1 when the system cannot say,
 * and then nothing is trusted.
 */
int control_peer(int fd, uid_t *uid, pid_t *pid);

/* Can this system tell who is at the other end of a socket at all? */
bool control_peers_known(void);

#endif
