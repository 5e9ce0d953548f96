/* Live changes: the control file a running tbthrottle serves, and -R. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "rundir.h"

/*
 * Lock ranges of the control file: the server holds ALIVE_BYTE while it
 * runs; senders take turns on TURN_BYTE.
 */
#define TURN_BYTE	0
#define ALIVE_BYTE	1

/* How long -R waits for the reply, and how often it looks. */
#define REPLY_WAIT_MS	5000
#define REPLY_POLL_MS	2

static char path[PATH_MAX];
static int fd = -1;

int
control_serve(void)
{
	char dir[PATH_MAX];
	int rc;

	path[0] = '\0';
	if ((rc = rundir_make(dir, sizeof dir)) != 0) {
		if (rc == -2)
			warnx("%s is not a private directory: live changes "
			    "(-R) are off", dir);
		else if (rc == -3)
			warnx("%s is not a directory of yours that only you "
			    "may write in: live changes (-R) are off", dir);
		return -1;
	}
	if (snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid()) >=
	    (int)sizeof path) {
		path[0] = '\0';
		return -1;
	}
	for (int tries = 0; tries < 2; tries++) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd >= 0) {
			/* Held for life: -R sees from it that we, and not a
			 * process that later got our pid, serve the file. */
			struct flock alive = { .l_type = F_WRLCK,
			    .l_whence = SEEK_SET, .l_start = ALIVE_BYTE,
			    .l_len = 1 };

			(void)fcntl(fd, F_SETLK, &alive);
			return 0;
		}
		if (errno != EEXIST)
			break;
		/* Left by a process that had our pid before. */
		(void)unlink(path);
	}
	path[0] = '\0';
	return -1;
}

ssize_t
control_request(char *buf, size_t size)
{
	ssize_t n;

	if (fd < 0 || (n = pread(fd, buf, size - 1, 0)) < 0)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, CONTROL_MAGIC, strlen(CONTROL_MAGIC)) != 0)
		return -1;
	return n;
}

void
control_reply(const char *reply)
{
	size_t len = strlen(reply);

	/* Write over the request, then cut it: a reader sees the reply's
	 * first line either way. */
	if (pwrite(fd, reply, len, 0) == (ssize_t)len)
		(void)ftruncate(fd, (off_t)len);
}

void
control_remove(void)
{
	if (path[0] != '\0')
		(void)unlink(path);
}

/* Is process pid there, and run by our real user? */
static int
check_owner(pid_t pid, char *why, size_t size)
{
	char proc[64];
	struct stat st;

	snprintf(proc, sizeof proc, "/proc/%ld", (long)pid);
	if (stat(proc, &st) == 0) {
		if (st.st_uid != getuid()) {
			snprintf(why, size, "process %ld belongs to another "
			    "user", (long)pid);
			return -1;
		}
		return 0;
	}
	if (kill(pid, 0) == 0)
		return 0;
	snprintf(why, size, errno == EPERM ? "process %ld belongs to another "
	    "user" : "no process %ld", (long)pid);
	return -1;
}

/* Open pid's control file, checked to be ours alone. */
static int
open_control(pid_t pid, char *why, size_t size)
{
	char dir[PATH_MAX], file[PATH_MAX + 32];
	struct stat st;

	for (int which = 0; rundir_candidate(which, dir, sizeof dir) == 0;
	    which++) {
		int f;

		if (!rundir_private(dir))
			continue;
		snprintf(file, sizeof file, "%s/%ld", dir, (long)pid);
		if ((f = open(file, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		if (fstat(f, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == getuid() && (st.st_mode & 077) == 0)
			return f;
		(void)close(f);
		snprintf(why, size, "%s is not a private control file", file);
		return -1;
	}
	snprintf(why, size, "process %ld is not a tbthrottle with a rate to "
	    "change (no control file)", (long)pid);
	return -1;
}

/* Read the reply, once there is one: not the request, a whole line. */
static int
read_reply(int f, char *reply, size_t size)
{
	ssize_t n = pread(f, reply, size - 1, 0);
	char *nl;

	if (n <= 0)
		return -1;
	reply[n] = '\0';
	if (strncmp(reply, CONTROL_MAGIC, strlen(CONTROL_MAGIC)) == 0 ||
	    (nl = strchr(reply, '\n')) == NULL)
		return -1;
	*nl = '\0';
	return 0;
}

/* Is the file served by process pid itself, alive now? */
static bool
served_by(int f, pid_t pid)
{
	struct flock alive = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_start = ALIVE_BYTE, .l_len = 1 };

	return fcntl(f, F_GETLK, &alive) == 0 && alive.l_type != F_UNLCK &&
	    alive.l_pid == pid;
}

int
control_send(pid_t pid, const char *request, char *reply, size_t size)
{
	struct flock turn = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_start = TURN_BYTE, .l_len = 1 };
	size_t len = strlen(request);
	int f, rc = -1;

	if (check_owner(pid, reply, size) != 0 ||
	    (f = open_control(pid, reply, size)) < 0)
		return -1;
	/* A file left by a process that died must not make us signal
	 * another that got its pid: SIGUSR2 would kill it. */
	if (!served_by(f, pid)) {
		(void)close(f);
		snprintf(reply, size, "process %ld is not a tbthrottle with a "
		    "rate to change (stale control file)", (long)pid);
		return -1;
	}
	/* One request at a time: other senders wait here. */
	while (fcntl(f, F_SETLKW, &turn) != 0 && errno == EINTR)
		;
	if (ftruncate(f, 0) != 0 ||
	    pwrite(f, request, len, 0) != (ssize_t)len) {
		snprintf(reply, size, "cannot write the request: %s",
		    strerror(errno));
	} else if (kill(pid, SIGUSR2) != 0) {
		snprintf(reply, size, "cannot signal process %ld: %s",
		    (long)pid, strerror(errno));
	} else {
		for (int ms = 0; ms < REPLY_WAIT_MS; ms += REPLY_POLL_MS) {
			if (read_reply(f, reply, size) == 0) {
				rc = 0;
				break;
			}
			(void)clock_sleep_until(clock_now_ns() +
			    REPLY_POLL_MS * 1000000LL);
		}
		if (rc != 0) {
			snprintf(reply, size, "no answer from process %ld "
			    "within %d s; nothing was changed", (long)pid,
			    REPLY_WAIT_MS / 1000);
			/* Withdraw it, so that it is not applied later. */
			(void)ftruncate(f, 0);
		}
	}
	(void)close(f);
	return rc;
}
