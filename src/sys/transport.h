/* A byte stream to a server, opened and used without ever waiting. */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct addrinfo;

/*
 * A TCP or UNIX-domain socket, non-blocking.  Every call returns at once;
 * one that cannot go on says so, and transport_events tells what to wait
 * for on fd before calling again.  An encrypting transport (TLS) fits
 * under the same calls: its handshake is part of connecting, and it may
 * want to write before it can read.
 */
struct transport {
	int fd;			       /* -1 while closed */
	bool connecting;	       /* connect(2) under way */
	struct addrinfo *addrs, *next; /* a host's addresses: those to try */
};

/* Set t up closed. */
void transport_init(struct transport *t);

/*
 * Start connecting to host:port, or to the UNIX-domain socket path when
 * path is not empty.  A host name is looked up first (getaddrinfo(3),
 * which waits for the resolver; an address does not).  Returns 0, the
 * rest left to transport_connected, or -1 with the reason in why.
 */
int transport_connect(struct transport *t, const char *host, int port,
    const char *path, char *why, size_t size);

/*
 * Go on connecting: 1 connected, 0 not yet, or -1 with the reason in why
 * when no address of the host took the connection.
 */
int transport_connected(struct transport *t, char *why, size_t size);

/*
 * read(2) and write(2), never waiting: bytes moved, 0 at the end of the
 * stream (reading), or -1 with errno (EAGAIN: nothing can move now).
 */
ssize_t transport_read(struct transport *t, void *b, size_t len);
ssize_t transport_write(struct transport *t, const void *b, size_t len);

/*
 * The events (POLLIN, POLLOUT) to wait for on t->fd before it can go on:
 * connecting, or reading, and writing too while writing is true.
 */
short transport_events(const struct transport *t, bool writing);

/* Close t, if it is open. */
void transport_close(struct transport *t);

#endif
