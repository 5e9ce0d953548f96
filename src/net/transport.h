/* A byte stream to a server, opened and used without ever waiting. */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tls.h"

struct addrinfo;

/*
 * A TCP or UNIX-domain socket, non-blocking.  Every call returns at once;
 * one that cannot go on says so, and transport_events tells what to wait
 * for on fd before calling again.  An encrypting transport (TLS) fits
 * under the same calls: its handshake is part of connecting, and it may
 * want to write before it can read.
 */
struct transport {
	int fd;		 /* -1 while closed */
	bool connecting; /* connect(2), or the handshake, under way */
	struct addrinfo *addrs, *next;	  /* a host's addresses: those to try */
	const struct tls_config *tls_cfg; /* NULL: no TLS */
	const char *host;		  /* whose certificate it must be */
	struct tls *tls;		  /* the session, once connected */
};

/* Set t up closed. */
void transport_init(struct transport *t);

/*
 * Start connecting to host:port, or to the UNIX-domain socket path when
 * path is not empty, with TLS as tls says (NULL: none; it and host must
 * outlive t).  A host name is looked up first (getaddrinfo(3), which
 * waits for the resolver; an address does not).  Returns 0, the rest
 * left to transport_connected, or -1 with the reason in why.
 */
int transport_connect(struct transport *t, const char *host, int port,
    const char *path, const struct tls_config *tls, char *why, size_t size);

/*
 * Go on connecting, and with TLS, with the handshake: 1 connected, 0 not
 * yet, -1 with the reason in why when no address of the host took the
 * connection (or it broke), or -2 when trying again cannot help (the
 * server's certificate refused, or no TLS spoken there).
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

/* Why TLS failed for good on t, or NULL (see tls_fault). */
const char *transport_fault(const struct transport *t);

/* Are there bytes the last transport_read left to read without waiting? */
bool transport_pending(const struct transport *t);

/*
 * Does the server at host:port complete a TLS handshake (its certificate
 * unchecked) by deadline_ns?  Asked of one that hung up on plain bytes,
 * to say what is wrong.  Waits (for a connection and a handshake).
 */
bool transport_speaks_tls(const char *host, int port, int64_t deadline_ns);

/*
 * Does the server at host:port answer a plain PING as Redis does by
 * deadline_ns?  Asked of one that gave no TLS handshake, to say why.
 * Waits.
 */
bool transport_speaks_redis(const char *host, int port, int64_t deadline_ns);

/* Close t, if it is open. */
void transport_close(struct transport *t);

#endif
