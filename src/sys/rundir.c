/* The private directory of a user's running tbthrottles. */
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
#include "rundir.h"
#include "runname.h"

/* Ample for a host name: POSIX allows 255 bytes. */
#define HOST_BYTES 256

/*
 * Is path a directory owned by us, with none of the mode bits of mask
 * (077: no one else may enter it; 022: no one else may write in it)?
 * A link is followed only if follow.
 */
static bool
owned_dir(const char *path, bool follow, mode_t mask)
{
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0)
		return false;
	return S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & mask) == 0;
}

/* This boot's key (RUNNAME_BOOT_LEN bytes) into out. */
static void
boot_key(char *out, size_t size)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, RUNNAME_BOOT_LEN) : -1;

	if (fd >= 0)
		(void)close(fd);
	if (n == RUNNAME_BOOT_LEN && size > RUNNAME_BOOT_LEN) {
		out[n] = '\0';
		return;
	}
	/*
	 * Without Linux's boot id, the time of boot in whole seconds, read
	 * from the clocks.  Stepping the wall clock or sleeping changes it:
	 * later runs then use a new directory, a bucket split in two but
	 * never one left waiting on the clock of a boot that is over.
	 */
	snprintf(out, size, "%0*lld", RUNNAME_BOOT_LEN,
	    (long long)(clock_wall_offset_ns() / 1000000000));
}

/*
 * The directory under HOME (depth 2), or its parents .cache (0) and
 * .cache/tbthrottle (1), into out; -1 when HOME is not set or it does not
 * fit.  Not XDG_CACHE_HOME or XDG_STATE_HOME: cron sets HOME alone, and a
 * cron job must find the buckets of a login shell that sets them.  Under
 * .cache, as the files are worth nothing once their processes end.  The
 * state counts on the monotonic clock of one boot of one host, and a home
 * may outlive a boot and be shared by hosts: each boot of each host has
 * its own directory, and the first run of a boot removes those of the
 * host's earlier boots.
 */
static int
home_dir(int depth, char *out, size_t size)
{
	const char *home = getenv("HOME");
	char host[HOST_BYTES], boot[RUNNAME_BOOT_LEN + 1];
	char name[HOST_BYTES + RUNNAME_BOOT_LEN + 2];
	int n;

	if (home == NULL || home[0] != '/')
		return -1;
	if (depth < 2) {
		n = snprintf(out, size, "%s/.cache%s", home,
		    depth == 1 ? "/tbthrottle" : "");
		return n > 0 && (size_t)n < size ? 0 : -1;
	}
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	boot_key(boot, sizeof boot);
	if (runname_boot(name, sizeof name, host, boot) != 0)
		return -1;
	n = snprintf(out, size, "%s/.cache/tbthrottle/%s", home, name);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Candidate number which into out; *home when it is the one under HOME. */
static int
candidate(int which, char *out, size_t size, bool *home)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char run[64];
	int n = -1, k = 0;

	/* Walk the list, counting the candidates that apply here. */
	*home = false;
	if (xdg != NULL && xdg[0] == '/' && owned_dir(xdg, true, 077) &&
	    k++ == which)
		n = snprintf(out, size, "%s/tbthrottle", xdg);
	snprintf(run, sizeof run, "/run/user/%ld", (long)getuid());
	if (n < 0 && (xdg == NULL || strcmp(xdg, run) != 0) &&
	    owned_dir(run, false, 077) && k++ == which)
		n = snprintf(out, size, "%s/tbthrottle", run);
	if (n > 0)
		return (size_t)n < size ? 0 : -1;
	if (k++ == which && home_dir(2, out, size) == 0) {
		*home = true;
		return 0;
	}
	return -1;
}

int
rundir_candidate(int which, char *out, size_t size)
{
	bool home;

	return candidate(which, out, size, &home);
}

bool
rundir_private(const char *dir)
{
	return owned_dir(dir, false, 077);
}

/*
 * Make dir, mode 0700, unless it is there; *made tells which.  0 when it
 * is then private, -2 when it is not, -1 when it cannot be made.
 */
static int
make_private(const char *dir, bool *made)
{
	*made = mkdir(dir, 0700) == 0;
	if (!*made && errno != EEXIST)
		return -1;
	return rundir_private(dir) ? 0 : -2;
}

/* Is f a directory of an earlier boot of this host (ours names ours)? */
static bool
other_boot(int dfd, const char *f, void *ours)
{
	(void)dfd;
	return runname_other_boot(f, ours);
}

/*
 * Make the directory under HOME, and its parents, into out.  HOME and
 * .cache may be links, as long as they lead to a directory of ours that
 * no one else may write in, so that no one else can put anything in the
 * way.  0, or -1, -2 or -3 as for rundir_make.
 */
static int
make_home(char *out, size_t size)
{
	const char *home = getenv("HOME");
	char top[PATH_MAX];
	bool made;
	int rc;

	if (home == NULL)
		return -1;
	if (!owned_dir(home, true, 022)) {
		snprintf(out, size, "%s", home);
		return -3;
	}
	if (home_dir(0, out, size) != 0 ||
	    (mkdir(out, 0700) != 0 && errno != EEXIST))
		return -1;
	if (!owned_dir(out, true, 022))
		return -3;
	if (home_dir(1, top, sizeof top) != 0 || home_dir(2, out, size) != 0)
		return -1;
	if ((rc = make_private(top, &made)) != 0) {
		snprintf(out, size, "%s", top);
		return rc;
	}
	if ((rc = make_private(out, &made)) == 0 && made)
		rundir_sweep(top, other_boot, strrchr(out, '/') + 1);
	return rc;
}

int
rundir_make(char *out, size_t size)
{
	bool home, made;
	int rc;

	for (int which = 0; candidate(which, out, size, &home) == 0; which++) {
		rc = home ? make_home(out, size) : make_private(out, &made);
		if (rc != -1)
			return rc;
	}
	return -1;
}

/*
 * Can no one else put anything in the way at dir: is it a directory of
 * ours or root's that no one else may write in, or only into names of
 * their own (sticky, as /tmp)?
 */
static bool
safe_parent(const char *dir)
{
	struct stat st;

	/* A link another user made could be turned elsewhere at any time. */
	if (lstat(dir, &st) != 0 ||
	    (S_ISLNK(st.st_mode) && st.st_uid != geteuid() && st.st_uid != 0))
		return false;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_uid == geteuid() || st.st_uid == 0) &&
	    ((st.st_mode & 022) == 0 || (st.st_mode & 01000) != 0); /* sticky */
}

/*
 * Make each missing directory of path (absolute) mode 0700, each one on
 * the way safe (safe_parent), and path a directory of ours that only we
 * may write in.  0, -1 (out: the reason) or -3 (out: the one at fault).
 */
static int
make_parents(const char *path, char *out, size_t size)
{
	char p[PATH_MAX], was;
	int n = snprintf(p, sizeof p, "%s", path);

	if (n <= 0 || (size_t)n >= sizeof p) {
		snprintf(out, size, "%s: path too long", path);
		return -1;
	}
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		was = *c;
		*c = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			snprintf(out, size, "%s: %s", p, strerror(errno));
			return -1;
		}
		if (!(was == '\0' ? safe_parent(p) && owned_dir(p, true, 022) :
				    safe_parent(p))) {
			snprintf(out, size, "%s", p);
			return -3;
		}
		*c = was;
		if (was == '\0')
			return 0;
	}
}

/*
 * Is every directory above path (relative: from the working directory)
 * safe (safe_parent)?  0, or -3 with the one at fault in out.
 */
static int
safe_chain(const char *path, char *out, size_t size)
{
	char p[PATH_MAX];
	char *c;
	int n = snprintf(p, sizeof p, "%s", path);
	struct stat st;

	if (n <= 0 || (size_t)n >= sizeof p)
		return 0;

	while ((c = strrchr(p, '/')) != NULL) {
		*c = '\0';
		/* One not there yet fails the mkdir below, said so. */
		if (p[0] != '\0' && lstat(p, &st) == 0 && !safe_parent(p)) {
			snprintf(out, size, "%s", p);
			return -3;
		}
	}
	return 0;
}

/* This host's name, fit for a file name (else "localhost"), into out. */
static void
host_name(char *out, size_t size)
{
	if (gethostname(out, size) != 0)
		out[0] = '\0';
	out[size - 1] = '\0';
	for (char *c = out; *c != '\0'; c++)
		if (strchr(
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-",
			*c) == NULL)
			*c = '_';
	if (out[0] == '\0' || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, size, "localhost");
}

int
rundir_state(const char *given, char *out, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX], host[HOST_BYTES];
	bool made;
	int rc, n;

	if (given != NULL) {
		n = snprintf(out, size, "%s", given);
		if (n <= 0 || (size_t)n >= size) {
			snprintf(out, size, "--state-dir: path too long");
			return -1;
		}
		if ((rc = safe_chain(given, out, size)) != 0)
			return rc;
		if (mkdir(out, 0700) != 0 && errno != EEXIST) {
			snprintf(out, size, "--state-dir %s: %s", given,
			    strerror(errno));
			return -1;
		}
		return rundir_private(out) ? 0 : -2;
	}
	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(base, sizeof base, "%s", xdg);
	else if (home != NULL && home[0] == '/')
		n = snprintf(base, sizeof base, "%s/.local/state", home);
	else
		n = -1;
	if (n <= 0 || (size_t)n >= sizeof base) {
		out[0] = '\0';
		return -1;
	}
	if ((rc = make_parents(base, out, size)) != 0)
		return rc;
	host_name(host, sizeof host);
	if ((n = snprintf(out, size, "%s/tbthrottle", base)) <= 0 ||
	    (size_t)n >= size)
		return -1;
	if ((rc = make_private(out, &made)) != 0)
		return rc;
	if ((n = snprintf(out, size, "%s/tbthrottle/%s", base, host)) <= 0 ||
	    (size_t)n >= size)
		return -1;
	return make_private(out, &made);
}

/* Is name . or ..? */
static bool
is_dots(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* Remove dir name in dfd and the files in it. */
static void
remove_dir(int dfd, const char *name)
{
	int fd = openat(
	    dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (!is_dots(e->d_name))
			(void)unlinkat(fd, e->d_name, 0);
	(void)closedir(d);
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

void
rundir_sweep(
    const char *dir, bool (*stale)(int, const char *, void *), void *arg)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return;
	if ((d = fdopendir(dfd)) == NULL) {
		(void)close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (is_dots(e->d_name) || !stale(dfd, e->d_name, arg))
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			remove_dir(dfd, e->d_name);
		else
			(void)unlinkat(dfd, e->d_name, 0);
	}
	(void)closedir(d);
}
