/* The private directory of a user's running tbthrottles. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"

int
rundir_candidate(int which, char *out, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (xdg != NULL && xdg[0] == '/')
		n = which == 0 ? snprintf(out, size, "%s/tbthrottle", xdg) : -1;
	else if (which == 0 && stat("/dev/shm", &st) == 0 &&
	    S_ISDIR(st.st_mode))
		n = snprintf(out, size, "/dev/shm/tbthrottle-%ld",
		    (long)getuid());
	else if (which <= 1)
		n = snprintf(out, size, "/tmp/tbthrottle-%ld", (long)getuid());
	else
		n = -1;
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
