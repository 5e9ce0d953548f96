/* A byte stream to a server, opened and used without ever waiting. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "transport.h"

void
transport_init(struct transport *t)
{
	*t = (struct transport){ .fd = -1 };
}

void
transport_close(struct transport *t)
{
	const struct tls_config *cfg = t->tls_cfg;
	const char *host = t->host;

	tls_close(t->tls);
	if (t->fd >= 0)
		(void)close(t->fd);
	if (t->addrs != NULL)
		freeaddrinfo(t->addrs);
	transport_init(t);
	t->tls_cfg = cfg;
	t->host = host;
}

/* A socket of family, non-blocking, closed on exec; -1 with errno. */
static int
open_socket(int family)
{
	int fd = socket(family, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
		int e = errno;

		(void)close(fd);
		errno = e;
		return -1;
	}
	/* Commands are small and answered one at a time: send each now. */
	if (family != AF_UNIX)
		(void)setsockopt(
		    fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/*
 * Start connecting to addr of family: 0 connected or under way, else -1
 * with errno (the socket closed).
 */
static int
start(
    struct transport *t, int family, const struct sockaddr *addr, socklen_t len)
{
	int e;

	if ((t->fd = open_socket(family)) < 0)
		return -1;
	if (connect(t->fd, addr, len) == 0)
		return 0;
	if ((e = errno) == EINPROGRESS) {
		t->connecting = true;
		return 0;
	}
	(void)close(t->fd);
	t->fd = -1;
	errno = e;
	return -1;
}

/* Try the host's next addresses until one starts: 0, or -1 (why). */
static int
try_next(struct transport *t, int e, char *why, size_t size)
{
	errno = e;
	while (t->next != NULL) {
		const struct addrinfo *a = t->next;

		t->next = a->ai_next;
		t->connecting = false;
		if (start(t, a->ai_family, a->ai_addr, a->ai_addrlen) == 0)
			return 0;
	}
	snprintf(why, size, "%s", strerror(errno != 0 ? errno : ECONNREFUSED));
	transport_close(t);
	return -1;
}

/* The socket is connected: with TLS, start the handshake. */
static int
connected(struct transport *t, char *why, size_t size)
{
	if (t->tls_cfg == NULL) {
		t->connecting = false;
		return 1;
	}
	t->connecting = true;
	if ((t->tls = tls_open(t->tls_cfg, t->fd, t->host, why, size)) == NULL)
		return -2;
	return 0;
}

int
transport_connect(struct transport *t, const char *host, int port,
    const char *path, const struct tls_config *tls, char *why, size_t size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM };
	char service[16];
	int rc;

	transport_close(t);
	t->tls_cfg = tls;
	t->host = host;
	if (path[0] != '\0') {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
		if (start(t, AF_UNIX, (const struct sockaddr *)&sun,
			sizeof sun) == 0)
			return 0;
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	snprintf(service, sizeof service, "%d", port);
	if ((rc = getaddrinfo(host, service, &hints, &t->addrs)) != 0) {
		snprintf(why, size, "%s",
		    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		t->addrs = NULL;
		return -1;
	}
	t->next = t->addrs;
	if (try_next(t, 0, why, size) != 0)
		return -1;
	/* Connected at once (as on loopback may be): the handshake next. */
	if (!t->connecting && t->tls_cfg != NULL)
		return connected(t, why, size) == -2 ? -2 : 0;
	return 0;
}

int
transport_connected(struct transport *t, char *why, size_t size)
{
	socklen_t len = sizeof(int);
	int e = 0, rc;

	if (!t->connecting)
		return 1;
	if (t->tls == NULL) {
		if (!clock_fd_ready(t->fd, POLLOUT))
			return 0;
		if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
			e = errno;
		if (e != 0) {
			/* This address refused: the host may have others. */
			(void)close(t->fd);
			t->fd = -1;
			if (try_next(t, e, why, size) != 0)
				return -1;
			if (t->connecting)
				return 0;
		}
		if ((rc = connected(t, why, size)) != 0)
			return rc;
	}
	if ((rc = tls_handshake(t->tls, why, size)) == 1)
		t->connecting = false;
	return rc;
}

ssize_t
transport_read(struct transport *t, void *b, size_t len)
{
	return t->tls != NULL ? tls_read(t->tls, b, len) : read(t->fd, b, len);
}

ssize_t
transport_write(struct transport *t, const void *b, size_t len)
{
	return t->tls != NULL ? tls_write(t->tls, b, len) :
				write(t->fd, b, len);
}

const char *
transport_fault(const struct transport *t)
{
	return t->tls != NULL ? tls_fault(t->tls) : NULL;
}

bool
transport_pending(const struct transport *t)
{
	return t->tls != NULL && tls_pending(t->tls);
}

short
transport_events(const struct transport *t, bool writing)
{
	short tls = t->tls != NULL ? tls_events(t->tls) : 0;

	if (t->connecting)
		return t->tls != NULL ? (tls != 0 ? tls : POLLIN) : POLLOUT;
	/* TLS may have to write to read on, or read to write. */
	return (short)(POLLIN | (writing ? POLLOUT : 0) | tls);
}

bool
transport_speaks_tls(const char *host, int port, int64_t deadline_ns)
{
	static const struct tls_config any = { .insecure = true };
	struct transport t;
	char why[256];
	int rc;

	if (!tls_available())
		return false;
	transport_init(&t);
	rc = transport_connect(&t, host, port, "", &any, why, sizeof why);
	while (rc == 0 && (rc = transport_connected(&t, why, sizeof why)) == 0)
		if (clock_wait_fd(
			t.fd, transport_events(&t, false), deadline_ns) == 0)
			break; /* no answer in time: no telling */
	transport_close(&t);
	return rc == 1;
}

bool
transport_speaks_redis(const char *host, int port, int64_t deadline_ns)
{
	struct transport t;
	char why[256], c = 0;
	int rc;

	transport_init(&t);
	rc = transport_connect(&t, host, port, "", NULL, why, sizeof why);
	while (rc == 0 && (rc = transport_connected(&t, why, sizeof why)) == 0)
		if (clock_wait_fd(t.fd, POLLOUT, deadline_ns) == 0)
			break;
	if (rc == 1 && transport_write(&t, "PING\r\n", 6) == 6)
		while (clock_wait_fd(t.fd, POLLIN, deadline_ns) == 1 &&
		    transport_read(&t, &c, 1) < 0 && errno == EAGAIN)
			;
	transport_close(&t);
	return c == '+' || c == '-';
}
