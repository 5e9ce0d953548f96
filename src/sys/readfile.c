/* A whole small file read into memory: the --tiers file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"

/* Fill err with "path: reason" for errno e; -1. */
static int
fail(const char *path, int e, char *err, size_t size)
{
	snprintf(err, size, "%s: %s", path, strerror(e));
	return -1;
}

int
readfile(const char *path, size_t max, char **text, size_t *len, char *err,
    size_t size)
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;
	char *b;
	int fd, e;

	/* Non-blocking: a FIFO must not hold a running tbthrottle up. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return fail(path, errno, err, size);
	if (fstat(fd, &st) != 0) {
		e = errno;
		(void)close(fd);
		return fail(path, e, err, size);
	}
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > max) {
		(void)close(fd);
		if (!S_ISREG(st.st_mode))
			snprintf(err, size, "%s: not a regular file", path);
		else
			snprintf(
			    err, size, "%s: larger than %zu bytes", path, max);
		return -1;
	}
	if ((b = malloc((size_t)st.st_size + 1)) == NULL) {
		(void)close(fd);
		return fail(path, ENOMEM, err, size);
	}
	/* It may shrink meanwhile; what grows past its size is not read. */
	while (got < (size_t)st.st_size &&
	    ((n = read(fd, b + got, (size_t)st.st_size - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	e = errno;
	(void)close(fd);
	if (n < 0) {
		free(b);
		return fail(path, e, err, size);
	}
	b[got] = '\0';
	*text = b;
	*len = got;
	return 0;
}
