/* Asking running tbthrottles over their control sockets: -R and --list. */
#ifndef ASK_H
#define ASK_H

#include <stddef.h>

/* How long a request may take in all: connecting, sending, the reply. */
#define ASK_WAIT_NS (5 * 1000000000LL)

/*
 * Send request, addressed to target (a NAME or a PID), to the running
 * tbthrottle of ours that target names, and wait for its reply, for
 * ASK_WAIT_NS in all.  Returns 0 with the reply in reply[0..size), or -1
 * with the reason in reply.  A socket whose process is gone is removed,
 * and a name's link whose run is gone.
 */
int ask_one(const char *target, const char *request, char *reply, size_t size);

/*
 * Send request to every live tbthrottle of ours with a socket, up to
 * CLOCK_WAIT_MAX at once, and wait for their replies for ASK_WAIT_NS at
 * most; then call each(arg, pid, name, reply) for each, in order of pid:
 * name as the run gives it ("" for none), reply NULL when it did not
 * answer in time (the name is then that of a link to it).  Sockets whose
 * process is gone are removed.  Returns how many runs there were.
 */
int ask_all(const char *request,
    void (*each)(void *, long, const char *, const char *), void *arg);

#endif
