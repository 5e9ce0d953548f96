/* Random bytes from the kernel, for secrets: the key hash, Redis's session. */
/* getentropy(3), in POSIX only since 2024, is a BSD and GNU extension. */
#define _DEFAULT_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* glibc declares getentropy with _DEFAULT_SOURCE from 2.25 on; other
 * systems read /dev/urandom. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 25)
#define HAVE_GETENTROPY
#endif

#include "entropy.h"

/* The n bytes at b from /dev/urandom; -1 if it cannot give them all. */
static int
urandom(unsigned char *b, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = -1;

	if (fd >= 0) {
		do
			got = read(fd, b, n);
		while (got < 0 && errno == EINTR);
		(void)close(fd);
	}
	if (got >= 0 && got != (ssize_t)n)
		errno = EIO; /* a short read: not all the bytes asked */
	return got == (ssize_t)n ? 0 : -1;
}

void
entropy_bytes(unsigned char *b, size_t n, const char *what)
{
#ifdef HAVE_GETENTROPY
	if (getentropy(b, n) == 0)
		return;
#endif
	if (urandom(b, n) != 0)
		err(1, "no random %s from getentropy or /dev/urandom", what);
}
