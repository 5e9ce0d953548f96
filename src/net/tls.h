/* TLS under a transport: OpenSSL on a non-blocking socket, where built. */
#ifndef TLS_H
#define TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How to meet the server: whom to trust, and who we are. */
struct tls_config {
	const char *cafile;   /* NULL: the system's store */
	const char *certfile; /* NULL, or ours, with keyfile */
	const char *keyfile;
	bool insecure; /* no check of the server's certificate */
};

struct tls;

/* Is TLS built in (OpenSSL found by pkg-config)? */
bool tls_available(void);

/*
 * A TLS session over the connected socket fd, to be verified as host's
 * (DNS name or IP address, sent as SNI when a name).  NULL with the reason
 * in why (a file of cfg that cannot be read, no memory, no TLS).
 */
struct tls *tls_open(const struct tls_config *cfg, int fd, const char *host,
    char *why, size_t size);

/*
 * Go on with the handshake, never waiting: 1 done, 0 not yet (see
 * tls_events), -1 with the reason in why when the link broke (an outage),
 * or -2 when trying again cannot help: the server's certificate not
 * trusted or not for host, ours refused, or the server speaking no TLS.
 */
int tls_handshake(struct tls *s, char *why, size_t size);

/* As read(2) and write(2) on the socket: -1 with EAGAIN to wait. */
ssize_t tls_read(struct tls *s, void *b, size_t len);
ssize_t tls_write(struct tls *s, const void *b, size_t len);

/* The events (POLLIN, POLLOUT) the session waits for, if it waits. */
short tls_events(const struct tls *s);

/* Are there bytes read and decrypted, not yet taken by tls_read? */
bool tls_pending(const struct tls *s);

/*
 * Why the session failed for good after its handshake (the server refused
 * our certificate, say), when a read or write failed with EPROTO; NULL
 * when it did not.
 */
const char *tls_fault(const struct tls *s);

/* End the session (not the socket) and free it. */
void tls_close(struct tls *s);

#endif
