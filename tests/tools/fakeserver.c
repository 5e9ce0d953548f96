/* fakeserver: a loopback listener that is not Redis, for tests/redis.bats. */
/*
 *   fakeserver MODE PORTFILE [WORD=REPLY]...
 *     garbage   answers each connection with a line that is not Redis
 *     close     closes each connection at once, unanswered, as a proxy
 *               whose server is down does
 *     http      reads a request and answers as an HTTP server does
 *     full      accepts nothing, its backlog full: a connect hangs
 *     script    answers each command (RESP) with the REPLY of the first
 *               WORD=REPLY whose WORD is one of its words (any case):
 *               REPLY's bytes as given, or with WORD=@FILE the bytes of
 *               FILE; a command no WORD matches is answered with an
 *               error.  Replies a real Redis cannot be made to send.
 *   It listens on a free port of 127.0.0.1, writes the port number to
 *   PORTFILE (atomically), and exits after 60 s whatever happens.
 *
 * Built by make check (make tests/tools/fakeserver).
 */
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* The replies of script mode: argv[0..n) of WORD=REPLY. */
static char **rules;
static int nrules;

/* Send the bytes of FILE, or nothing when it cannot be read. */
static void
send_file(int c, const char *path)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		if (write(c, buf, n) != (ssize_t)n)
			break;
	fclose(f);
}

/* Answer the command of words w[0..n) as the first rule it matches. */
static void
answer(int c, char *const *w, int n)
{
	static const char none[] = "-ERR fakeserver: no reply scripted\r\n";

	for (int r = 0; r < nrules; r++) {
		const char *eq = strchr(rules[r], '=');
		size_t len = eq != NULL ? (size_t)(eq - rules[r]) : 0;

		for (int i = 0; eq != NULL && i < n; i++) {
			if (strlen(w[i]) != len ||
			    strncasecmp(w[i], rules[r], len) != 0)
				continue;
			if (eq[1] == '@')
				send_file(c, eq + 2);
			else
				(void)!write(c, eq + 1, strlen(eq + 1));
			return;
		}
	}
	(void)!write(c, none, sizeof none - 1);
}

/*
 * The words of the command at buf[0..len) (RESP: *N, then N bulk
 * strings), each ended by a NUL put over its CR, into w[0..*n); the
 * command's length, 0 while incomplete, or -1 when it is not one.
 */
static long
command_at(char *buf, size_t len, char **w, int *n)
{
	char *p = buf, *end = buf + len, *nl;
	long words;

	if (len == 0 || buf[0] != '*')
		return len == 0 ? 0 : -1;
	if ((nl = memchr(p, '\n', len)) == NULL)
		return 0;
	words = strtol(p + 1, NULL, 10);
	if (words < 1 || words > 64)
		return -1;
	p = nl + 1;
	for (*n = 0; *n < words; (*n)++) {
		long blen;

		if (p >= end ||
		    (nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return 0;
		if (*p != '$' || (blen = strtol(p + 1, NULL, 10)) < 0)
			return -1;
		p = nl + 1;
		if (end - p < blen + 2)
			return 0;
		w[*n] = p;
		p[blen] = '\0';
		p += blen + 2;
	}
	return p - buf;
}

/* Script mode: answer each command of the client until it is gone. */
static void
serve_script(int c)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t got;

	while ((got = read(c, buf + len, sizeof buf - len)) > 0) {
		char *w[64];
		int n = 0;
		long used;

		len += (size_t)got;
		while ((used = command_at(buf, len, w, &n)) > 0) {
			answer(c, w, n);
			memmove(buf, buf + used, len - (size_t)used);
			len -= (size_t)used;
		}
		if (used < 0 || len == sizeof buf)
			return;
	}
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
	if (strcmp(mode, "script") == 0) {
		/* A connection of its own: the client may open another. */
		if (fork() == 0) {
			alarm(LIFE_S);
			serve_script(c);
			_exit(0);
		}
	} else if (strcmp(mode, "garbage") == 0) {
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

	if (argc < 3 || (argc > 3 && strcmp(argv[1], "script") != 0) ||
	    (strcmp(argv[1], "garbage") != 0 && strcmp(argv[1], "close") != 0 &&
		strcmp(argv[1], "http") != 0 && strcmp(argv[1], "full") != 0 &&
		strcmp(argv[1], "script") != 0)) {
		fprintf(stderr,
		    "usage: fakeserver garbage|close|http|full PORTFILE\n"
		    "       fakeserver script PORTFILE [WORD=REPLY]...\n");
		return 2;
	}
	rules = argv + 3;
	nrules = argc - 3;
	signal(SIGCHLD, SIG_IGN); /* script mode's children reap themselves */
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
