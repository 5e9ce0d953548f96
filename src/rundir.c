/* The private directory of a user's running tbthrottles. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

/* Is path an existing directory? */
static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
rundir_candidate(int which, char *out, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char base[64];
	int n = -1, k = 0;

	/* Walk the list, counting the candidates that apply here. */
	if (xdg != NULL && xdg[0] == '/' && k++ == which)
		n = snprintf(out, size, "%s/tbthrottle", xdg);
	snprintf(base, sizeof base, "/run/user/%ld", (long)getuid());
	if (n < 0 && is_dir(base) && (xdg == NULL || strcmp(xdg, base) != 0) &&
	    k++ == which)
		n = snprintf(out, size, "%s/tbthrottle", base);
	if (n < 0 && is_dir("/dev/shm") && k++ == which)
		n = snprintf(out, size, "/dev/shm/tbthrottle-%ld",
		    (long)getuid());
	if (n < 0 && k++ == which)
		n = snprintf(out, size, "/tmp/tbthrottle-%ld", (long)getuid());
	return n > 0 && (size_t)n < size ? 0 : -1;
}

bool
rundir_private(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

int
rundir_make(char *out, size_t size)
{
	for (int which = 0; rundir_candidate(which, out, size) == 0; which++) {
		if (mkdir(out, 0700) != 0 && errno != EEXIST)
			continue;
		return rundir_private(out) ? 0 : -2;
	}
	return -1;
}
