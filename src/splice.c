/* Zero-copy pass-through with splice(2) where the OS has it. */
#ifdef __linux__
#define _GNU_SOURCE /* splice(2) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

#include "splice.h"

ssize_t
splice_move(int in_fd, int out_fd, size_t len)
{
#if defined(__linux__) && defined(SPLICE_F_MOVE)
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
