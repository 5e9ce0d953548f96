/* fakeserver: a loopback listener that is not Redis, for tests/redis.bats. */
/*
 *   fakeserver MODE PORTFILE
 *     garbage   answers each connection with a line that is not Redis
 *     close     closes each connection at once, unanswered, as a proxy
 *               whose server is down does
 *     http      reads a request and answers as an HTTP server does
 *     full      accepts nothing, its backlog full: a connect hangs
 *   It listens on a free port of 127.0.0.1, writes the port number to
 *   PORTFILE (atomically), and exits after 60 s whatever happens.
 *
 * Built by make check (make tests/fakeserver).
 */
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LIFE_S 60

/* Listen on a free port of 127.0.0.1 with backlog; the socket, or -1. */
static int
listen_any(int backlog, struct sockaddr_in *sin)
{
	socklen_t len = sizeof *sin;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)sin, sizeof *sin) != 0 ||
	    listen(s, backlog) != 0 ||
	    getsockname(s, (struct sockaddr *)sin, &len) != 0)
		return -1;
	return s;
}

/* Fill the backlog of the listener at sin, so that a connect hangs. */
static void
fill_backlog(const struct sockaddr_in *sin)
{
	for (int i = 0; i < 4; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (c < 0)
			return;
		(void)fcntl(c, F_SETFL, O_NONBLOCK);
		(void)connect(c, (const struct sockaddr *)sin, sizeof *sin);
	}
}

/* Write the port to path, atomically through a temporary file. */
static int
write_port(const char *path, int port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return -1;
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

/* Serve one connection as mode says. */
static void
serve(int c, const char *mode)
{
	static const char garbage[] = "hello, this is not Redis\r\n";
	static const char http[] =
	    "HTTP/1.1 400 Bad Request\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n";
	char buf[4096];
	ssize_t n = 0;

	/* A client gone early is no error here: n is not looked at. */
	if (strcmp(mode, "garbage") == 0) {
		n = write(c, garbage, sizeof garbage - 1);
	} else if (strcmp(mode, "http") == 0) {
		if ((n = read(c, buf, sizeof buf)) >= 0)
			n = write(c, http, sizeof http - 1);
	}
	(void)n;
	(void)close(c);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in sin;
	int s, full;

	if (argc != 3 ||
	    (strcmp(argv[1], "garbage") != 0 && strcmp(argv[1], "close") != 0 &&
		strcmp(argv[1], "http") != 0 && strcmp(argv[1], "full") != 0)) {
		fprintf(stderr,
		    "usage: fakeserver garbage|close|http|full "
		    "PORTFILE\n");
		return 2;
	}
	full = strcmp(argv[1], "full") == 0;
	if ((s = listen_any(full ? 0 : 16, &sin)) < 0) {
		perror("fakeserver: listen");
		return 1;
	}
	if (full)
		fill_backlog(&sin);
	if (write_port(argv[2], ntohs(sin.sin_port)) != 0) {
		perror(argv[2]);
		return 1;
	}
	alarm(LIFE_S); /* bounded, whatever the test does */
	for (;;) {
		int c;

		if (full) {
			pause();
			continue;
		}
		if ((c = accept(s, NULL, NULL)) >= 0)
			serve(c, argv[1]);
	}
}
