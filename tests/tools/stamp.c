/* stamp: the timestamping receiver that the bats timing tests run. */
/*
 * stamp starts its clock, then forks and runs CMD with standard output on a
 * pipe it reads.  Its clock therefore starts before CMD's, so every time it
 * reports is an upper bound on how long CMD had been running: a lower bound
 * "line k arrives at >= X ms" needs no tolerance at all.
 *
 *   stamp [-cS] [-i FILE [-I MS]] [-w MS] [-W FILE] [-o FILE] [-p PIDFILE]
 *       [-P BYTES] -- CMD [ARG]...
 *     default   one line per line read: "MS TEXT" (TEXT escaped, cut at 80
 *               bytes); a final line without newline is reported too
 *     -c        one line per read(2): "MS LEN LASTBYTE_HEX TOTAL_SO_FAR"
 *     -i FILE   feed FILE to CMD's stdin through a pipe, all at once, 100 ms
 *               (-I MS: MS ms) after the start, and print "IN MS" with the
 *               time just before the first byte is written.  CMD has
 *               started by then (even under ASan), so unit k of a token
 *               bucket cannot leave before IN + (k - burst) / rate: a lower
 *               bound from the input's arrival, not hidden by CMD's
 *               start-up time.
 *     -w MS     do not read the pipe before MS ms (a slow consumer)
 *     -W FILE   then do not read it before FILE exists (a consumer stalled
 *               until the test says, however slow the machine), and as
 *               soon as CMD has written to it, print "WROTE MS"
 *     -o FILE   also copy the raw bytes to FILE
 *     -p FILE   write CMD's pid to FILE (atomically) once it is forked
 *     -P BYTES  shrink the pipe to BYTES (Linux F_SETPIPE_SZ), so a
 *               stalled reader blocks CMD sooner
 *     -S        sockets (socketpair) instead of pipes, for -i too
 *   The last line is "END MS STATUS", MS taken after CMD exited; stamp
 *   exits with CMD's status (128+N when CMD was killed by signal N).
 *   CMD is killed with SIGKILL (status 137) after TB_LIMIT seconds (from
 *   the environment; default 20).
 *   CMD starts with every signal at its default disposition, unblocked, so
 *   SIGINT works even though bats runs background jobs with it ignored.
 *
 * Built by make check (make tests/tools/stamp); the tests find it through
 * build_stamp in tests/helpers.bash.
 */

/* F_SETPIPE_SZ (-P) is Linux's; where it is missing, -P does nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec t0;
static volatile pid_t child;
static char rec[80];
static size_t reclen, rectotal;

static double
ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void
on_alarm(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

/*
 * Read nothing from fd before the file gate exists; say "WROTE MS" once
 * fd has something to read (or its writer closed it).  Gives up after
 * limit_s, as the command is killed then.
 */
static void
await_gate(int fd, const char *gate, unsigned limit_s)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec tick = { 0, 10000000L };
	int said = 0;

	while (access(gate, F_OK) != 0 && ms() < limit_s * 1e3) {
		if (said) {
			(void)nanosleep(&tick, NULL);
		} else if (poll(&p, 1, 10) > 0) {
			printf("WROTE %.3f\n", ms());
			fflush(stdout);
			said = 1;
		}
	}
}

static void
flush_record(double at)
{
	printf("%.3f ", at);
	for (size_t i = 0; i < reclen; i++) {
		unsigned char c = (unsigned char)rec[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	if (rectotal > reclen)
		printf("...");
	putchar('\n');
	reclen = rectotal = 0;
}

int
main(int argc, char **argv)
{
	static char buf[1 << 16];
	int chunks = 0, opt, fd[2], status, out = -1, sock = 0, pipesz = 0;
	const char *limit = getenv("TB_LIMIT");
	struct sigaction sa;
	long wait_ms = 0, in_ms = 100;
	unsigned long long total = 0;
	const char *pidfile = NULL, *infile = NULL, *gate = NULL;
	int in[2] = { -1, -1 };
	pid_t pid, feeder = -1;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((opt = getopt(argc, argv, "+ci:I:w:W:o:p:P:S")) != -1) {
		switch (opt) {
		case 'c':
			chunks = 1;
			break;
		case 'i':
			infile = optarg;
			break;
		case 'I':
			in_ms = atol(optarg);
			break;
		case 'w':
			wait_ms = atol(optarg);
			break;
		case 'W':
			gate = optarg;
			break;
		case 'o':
			out = open(optarg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0) {
				perror(optarg);
				return 127;
			}
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'P':
			pipesz = atoi(optarg);
			break;
		case 'S':
			sock = 1;
			break;
		default:
			return 127;
		}
	}
	if (optind >= argc ||
	    (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, fd) : pipe(fd)) != 0 ||
	    (infile != NULL &&
		(sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, in) : pipe(in)) !=
		    0)) {
		fprintf(stderr, "stamp: usage or setup error\n");
		return 127;
	}
#ifdef F_SETPIPE_SZ
	if (pipesz > 0 && !sock)
		(void)fcntl(fd[1], F_SETPIPE_SZ, pipesz);
#endif
	fflush(stdout);
	if (infile != NULL && (feeder = fork()) == 0) {
		struct timespec due = t0;
		int f = open(infile, O_RDONLY);

		close(fd[0]);
		close(fd[1]);
		close(in[0]);
		alarm(limit != NULL && atoi(limit) > 0 ? (unsigned)atoi(limit) :
							 20);
		if (f < 0) {
			perror(infile);
			_exit(127);
		}
		due.tv_sec += in_ms / 1000;
		due.tv_nsec += in_ms % 1000 * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(
			   CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) != 0)
			;
		printf("IN %.3f\n", ms());
		fflush(stdout);
		while ((n = read(f, buf, sizeof buf)) > 0)
			if (write(in[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	if ((pid = fork()) < 0) {
		fprintf(stderr, "stamp: fork failed\n");
		return 127;
	}
	if (pid == 0) {
		sigset_t none;

		for (int s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				(void)signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		if (infile != NULL) {
			dup2(in[0], STDIN_FILENO);
			close(in[0]);
			close(in[1]);
		}
		if (out >= 0)
			close(out);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(fd[1]);
	if (infile != NULL) {
		close(in[0]);
		close(in[1]);
	}
	child = pid;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm; /* no SA_RESTART: read must end */
	sigaction(SIGALRM, &sa, NULL);
	alarm(limit != NULL && atoi(limit) > 0 ? (unsigned)atoi(limit) : 20);
	if (pidfile != NULL) {
		char tmp[4096];
		FILE *fp;

		snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
		if ((fp = fopen(tmp, "w")) == NULL)
			return 127;
		fprintf(fp, "%ld\n", (long)pid);
		fclose(fp);
		rename(tmp, pidfile);
	}
	if (wait_ms > 0) {
		struct timespec ts = { wait_ms / 1000,
			wait_ms % 1000 * 1000000L };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	if (gate != NULL)
		await_gate(fd[0], gate,
		    limit != NULL && atoi(limit) > 0 ? (unsigned)atoi(limit) :
						       20);
	for (;;) {
		double at;

		n = read(fd[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at = ms();
		total += (unsigned long long)n;
		if (out >= 0 && write(out, buf, (size_t)n) != n) {
			perror("stamp: write");
			return 127;
		}
		if (chunks) {
			printf("%.3f %zd %02x %llu\n", at, n,
			    (unsigned char)buf[n - 1], total);
		} else {
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] == '\n') {
					flush_record(at);
					continue;
				}
				if (reclen < sizeof rec)
					rec[reclen++] = buf[i];
				rectotal++;
			}
		}
		fflush(stdout);
	}
	if (rectotal > 0)
		flush_record(ms());
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	alarm(0);
	if (feeder > 0)
		(void)waitpid(feeder, NULL, 0);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		fprintf(stderr, "stamp: %s killed after the time limit?\n",
		    argv[optind]);
	status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				       WEXITSTATUS(status);
	printf("END %.3f %d\n", ms(), status);
	return status;
}
