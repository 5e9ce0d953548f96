/* --name: a run's name, a link to its socket, held by a lock while it lives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "name.h"
#include "runname.h"

/*
 * How long a start waits for a name that -R or --list holds for a moment
 * (to remove a link whose run is gone) before taking it for another run's.
 */
#define CLAIM_WAIT_NS (100 * 1000000LL)
#define CLAIM_STEP_NS (2 * 1000000LL)

/* A path in the run directory. */
#define PATH_BYTES (PATH_MAX + NAME_MAX + 2)

/* Ours while the run lives: the link, the lock file and its lock, or "". */
static char link_path[PATH_BYTES], lock_path[PATH_BYTES];
static int lock_fd = -1;

/* dir/f into out[0..PATH_BYTES); -1 if it does not fit. */
static int
join(char *out, const char *dir, const char *f)
{
	int n = snprintf(out, PATH_BYTES, "%s/%s", dir, f);

	return n > 0 && n < PATH_BYTES ? 0 : -1;
}

/* The paths of the link and the lock of name in dir; -1 if too long. */
static int
paths(const char *dir, const char *name, char *link, char *lock)
{
	char f[NAME_MAX + 1];

	if (runname_link(f, sizeof f, name) != 0 || join(link, dir, f) != 0 ||
	    runname_lock(f, sizeof f, name) != 0 || join(lock, dir, f) != 0)
		return -1;
	return 0;
}

/* The pid a name's link at path leads to, or -1. */
static long
link_pid(const char *path)
{
	char target[16];
	ssize_t n = readlink(path, target, sizeof target - 1);
	char *end;
	long pid;

	if (n <= 0)
		return -1;
	target[n] = '\0';
	pid = strtol(target, &end, 10);
	return *end == '\0' && pid > 0 ? pid : -1;
}

/*
 * Lock the file at path, made if need be, without waiting: its descriptor,
 * or -1 with errno (EAGAIN when a live process holds it, that process in
 * *holder).  The file locked is the one at path: a holder that has just
 * ended may have removed the one opened.
 */
static int
try_lock(const char *path, long *holder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat a, b;
	int fd, e;

	*holder = 0;
	for (int tries = 0; tries < 4; tries++) {
		fd = open(
		    path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (fcntl(fd, F_SETLK, &fl) != 0) {
			e = errno == EACCES ? EAGAIN : errno;
			if (fcntl(fd, F_GETLK, &fl) == 0 &&
			    fl.l_type != F_UNLCK)
				*holder = (long)fl.l_pid;
			(void)close(fd);
			errno = e;
			return -1;
		}
		if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return fd;
		(void)close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/* try_lock, trying again for CLAIM_WAIT_NS while another process holds it. */
static int
lock_waiting(const char *path, long *holder)
{
	int64_t deadline_ns = clock_now_ns() + CLAIM_WAIT_NS;
	int fd;

	while ((fd = try_lock(path, holder)) < 0 && errno == EAGAIN &&
	    clock_now_ns() < deadline_ns)
		(void)clock_sleep_until(clock_now_ns() + CLAIM_STEP_NS);
	return fd;
}

/* With the lock held: put a link to pid at link_path; -1 with why. */
static int
link_to(const char *name, long pid, char *why, size_t size)
{
	char target[24];
	struct stat st;

	/* Locked, a link there is one whose run has gone. */
	if (lstat(link_path, &st) == 0 && !S_ISLNK(st.st_mode)) {
		snprintf(why, size,
		    "--name %s: %s is not a name's link (a --shared "
		    "bucket of an older tbthrottle may have that name): "
		    "choose another name",
		    name, link_path);
		return -1;
	}
	snprintf(target, sizeof target, "%ld", pid);
	if ((unlink(link_path) != 0 && errno != ENOENT) ||
	    symlink(target, link_path) != 0) {
		snprintf(why, size, "--name %s: %s: %s", name, link_path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
name_claim(const char *dir, const char *name, long pid, char *why, size_t size)
{
	long holder;

	if (paths(dir, name, link_path, lock_path) != 0) {
		snprintf(why, size, "--name %s: the path is too long", name);
	} else if ((lock_fd = lock_waiting(lock_path, &holder)) < 0) {
		if (errno == EAGAIN)
			snprintf(why, size,
			    "--name %s: another tbthrottle of yours (pid %ld) "
			    "has this name",
			    name, holder);
		else
			snprintf(why, size, "--name %s: %s: %s", name,
			    lock_path, strerror(errno));
	} else if (link_to(name, pid, why, size) == 0) {
		return 0; /* lock_fd stays open: the lock lasts */
	} else {
		(void)unlink(lock_path);
		(void)close(lock_fd);
		lock_fd = -1;
	}
	link_path[0] = lock_path[0] = '\0';
	return -1;
}

void
name_release(void)
{
	/* The lock itself goes with the process. */
	if (link_path[0] != '\0') {
		(void)unlink(link_path);
		link_path[0] = '\0';
	}
	if (lock_path[0] != '\0') {
		(void)unlink(lock_path);
		lock_path[0] = '\0';
	}
}

/*
 * If no live run holds name in dir, remove its link (when it is one, and
 * leads to pid unless pid is 0), then its lock file.
 */
static void
drop_unheld(const char *dir, const char *name, long pid)
{
	char link[PATH_BYTES], lock[PATH_BYTES];
	struct stat st;
	long holder;
	int fd;

	if (paths(dir, name, link, lock) != 0 ||
	    (fd = try_lock(lock, &holder)) < 0)
		return;
	if (lstat(link, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (pid == 0 || link_pid(link) == pid))
		(void)unlink(link);
	(void)unlink(lock);
	(void)close(fd);
}

/*
 * Call found(dir, name, pid) for each name in dir whose link leads to
 * process pid; stop at the first that returns true.
 */
static void
each_link_to(const char *dir, long pid,
    bool (*found)(const char *, const char *, long, void *), void *arg)
{
	char path[PATH_BYTES];
	struct dirent *e;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *name = runname_link_name(e->d_name);

		if (name != NULL && join(path, dir, e->d_name) == 0 &&
		    link_pid(path) == pid && found(dir, name, pid, arg))
			break;
	}
	(void)closedir(d);
}

/* each_link_to: drop the link of name if no live run holds it. */
static bool
forget(const char *dir, const char *name, long pid, void *arg)
{
	(void)arg;
	drop_unheld(dir, name, pid);
	return false;
}

void
name_forget(const char *dir, long pid)
{
	each_link_to(dir, pid, forget, NULL);
}

void
name_drop(const char *dir, const char *name)
{
	drop_unheld(dir, name, 0);
}

/* each_link_to: keep the first name found, in the buffer at arg. */
static bool
first(const char *dir, const char *name, long pid, void *arg)
{
	char *out = arg;

	(void)dir, (void)pid;
	snprintf(out, NAME_MAX + 1, "%s", name);
	return true;
}

void
name_of(const char *dir, long pid, char *out, size_t size)
{
	char name[NAME_MAX + 1] = "";

	each_link_to(dir, pid, first, name);
	snprintf(out, size, "%s", name);
}
