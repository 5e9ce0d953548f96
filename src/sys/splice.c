/* Zero-copy pass-through with splice(2) where the OS has it. */
#if defined(__linux__) && !defined(TB_PORTABLE)
#define _GNU_SOURCE /* splice(2) */
/* Linux's pipes: splice(2), their size (F_GETPIPE_SZ) and what they hold
 * (FIONREAD).  make PORTABLE=1 builds without, as elsewhere. */
#define LINUX_PIPES 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <unistd.h>
#ifdef LINUX_PIPES
#include <sys/ioctl.h>
#endif

#include "splice.h"

ssize_t
splice_move(int in_fd, int out_fd, size_t len)
{
#if defined(LINUX_PIPES) && defined(SPLICE_F_MOVE)
	ssize_t n = splice(
	    in_fd, NULL, out_fd, NULL, len, SPLICE_F_MOVE | SPLICE_F_MORE);

	/* EINVAL: neither side is a pipe, or a side does not support it
	 * (a terminal, an O_APPEND file); ENOSYS: no splice at all. */
	if (n < 0 && (errno == EINVAL || errno == ENOSYS))
		return SPLICE_UNSUPPORTED;
	return n;
#else
	(void)in_fd;
	(void)out_fd;
	(void)len;
	return SPLICE_UNSUPPORTED;
#endif
}

ssize_t
splice_pending(int fd)
{
#if defined(LINUX_PIPES) && defined(FIONREAD)
	int n;

	if (ioctl(fd, FIONREAD, &n) != 0 || n < 0)
		return -1;
	return n;
#else
	(void)fd;
	return -1;
#endif
}

ssize_t
splice_pipe_room(int fd, struct piperoom *written)
{
#if defined(LINUX_PIPES) && defined(FIONREAD) && defined(F_GETPIPE_SZ)
	long page = sysconf(_SC_PAGESIZE);
	int size = fcntl(fd, F_GETPIPE_SZ), queued;

	if (size <= 0 || page <= 0 || ioctl(fd, FIONREAD, &queued) != 0 ||
	    queued < 0)
		return -1;
	return (ssize_t)piperoom_free(
	    written, (size_t)queued, (size_t)page, (size_t)(size / page));
#else
	(void)fd, (void)written;
	return -1;
#endif
}

void
splice_grow_pipe(int fd, size_t bytes)
{
#if defined(LINUX_PIPES) && defined(F_SETPIPE_SZ) && defined(F_GETPIPE_SZ)
	int now = fcntl(fd, F_GETPIPE_SZ);

	/* A pipe made smaller than the default was made so on purpose. */
	if (now >= SPLICE_DEFAULT_PIPE_BYTES && (size_t)now < bytes &&
	    bytes <= INT_MAX)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)bytes);
#else
	(void)fd;
	(void)bytes;
#endif
}
