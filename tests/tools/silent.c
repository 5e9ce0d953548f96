/* silent: clients of a control socket that connect and never ask. */
/*
 *   silent PATH N [MORE]
 *     connects N times to the UNIX-domain socket PATH, without blocking
 *     (a connection the listener's full backlog refuses is left out),
 *     then MORE times, each tried again until the listener takes it (for
 *     10 s at most): as soon as it can, with no process to start between;
 *     sends nothing, and writes "connected K" (K made) on a line of its
 *     own; then, as the other end closes each, "closed MS" (MS since just
 *     before it connected).  It exits when all are closed, or after
 *     60 s.
 *   Standard output is flushed at each line, so a test may read it from
 *   a file while silent runs.
 *
 * Built by make check (make tests/tools/silent), for tests/control.bats.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define LIFE_S 60
#define MAX_PEERS 256
#define RETRY_MS 10000

static double
now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A connection to sa, or -1 when the listener cannot take one now. */
static int
connect_one(const struct sockaddr_un *sa)
{
	int c = socket(AF_UNIX, SOCK_STREAM, 0);

	if (c < 0)
		return -1;
	(void)fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
	if (connect(c, (const struct sockaddr *)sa, sizeof *sa) != 0 &&
	    errno != EINPROGRESS) {
		(void)close(c);
		return -1;
	}
	return c;
}

int
main(int argc, char *argv[])
{
	struct pollfd pfd[MAX_PEERS];
	double start[MAX_PEERS];
	struct sockaddr_un sa;
	int n, more = 0, made = 0, open;

	if ((argc != 3 && argc != 4) || (n = atoi(argv[2])) < 1 ||
	    (argc == 4 && (more = atoi(argv[3])) < 1) || n + more > MAX_PEERS ||
	    strlen(argv[1]) >= sizeof sa.sun_path) {
		fprintf(stderr,
		    "usage: silent PATH N [MORE] (N + MORE at most %d)\n",
		    MAX_PEERS);
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
	for (int i = 0; i < n; i++) {
		/*
		 * The time before connect(2): the run may accept, and start
		 * its second, before this process runs again, and a time
		 * taken after would make its close look early.
		 */
		double t = now_ms();
		int c = connect_one(&sa);

		if (c < 0)
			continue;
		pfd[made] = (struct pollfd){ .fd = c, .events = POLLIN };
		start[made++] = t;
	}
	for (int i = 0; i < more; i++) {
		double t = now_ms(), until = t + RETRY_MS;
		int c;

		while ((c = connect_one(&sa)) < 0 && now_ms() < until) {
			struct timespec ms1 = { 0, 1000000L };

			(void)nanosleep(&ms1, NULL);
			t = now_ms();
		}
		if (c < 0)
			continue;
		pfd[made] = (struct pollfd){ .fd = c, .events = POLLIN };
		start[made++] = t;
	}
	printf("connected %d\n", made);
	(void)fflush(stdout);
	alarm(LIFE_S); /* bounded, whatever the test does */
	for (open = made; open > 0;) {
		if (poll(pfd, (nfds_t)made, -1) < 0 && errno != EINTR)
			return 1;
		for (int i = 0; i < made; i++) {
			char b[64];

			if (pfd[i].fd < 0 || pfd[i].revents == 0 ||
			    read(pfd[i].fd, b, sizeof b) > 0)
				continue;
			printf("closed %.0f\n", now_ms() - start[i]);
			(void)fflush(stdout);
			(void)close(pfd[i].fd);
			pfd[i].fd = -1;
			open--;
		}
	}
	return 0;
}
