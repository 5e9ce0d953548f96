/* The standard descriptors: none closed at start may be taken by a file. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stdfd.h"

static bool closed[3];

void
stdfd_guard(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free number is fd itself. */
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd) {
			static const char msg[] =
			    "tbthrottle: cannot open "
			    "/dev/null for a closed standard descriptor\n";

			(void)write(STDERR_FILENO, msg, sizeof msg - 1);
			_exit(1);
		}
		closed[fd] = true;
	}
}

bool
stdfd_closed(int fd)
{
	return fd >= 0 && fd < 3 && closed[fd];
}

bool
stdfd_same_tty(int a, int b)
{
	struct stat sa, sb;

	return isatty(a) && isatty(b) && fstat(a, &sa) == 0 &&
	    fstat(b, &sb) == 0 && sa.st_rdev == sb.st_rdev;
}

bool
stdfd_is_null(int fd)
{
	struct stat sf, sn;

	return fstat(fd, &sf) == 0 && S_ISCHR(sf.st_mode) &&
	    stat("/dev/null", &sn) == 0 && S_ISCHR(sn.st_mode) &&
	    sf.st_rdev == sn.st_rdev;
}

size_t
stdfd_columns(int fd)
{
#ifdef TIOCGWINSZ
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0)
		return ws.ws_col;
#else
	(void)fd;
#endif
	return 0;
}
