/* Output: writing whole runs of bytes, whatever signals arrive meanwhile. */
#include <err.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"
#include "signals.h"
#include "splice.h"

#ifndef PIPE_BUF
#define PIPE_BUF _POSIX_PIPE_BUF
#endif

/* The latest writes to standard output, for the room a pipe there has. */
static struct piperoom written;

/* How a write to standard output may end early at a stop. */
struct cut {
	int delim; /* the byte that ends a record, or -1: every byte is one */
	bool mid;  /* the first byte is not the first of its record */
};

/*
 * Of b[0..len), which begins a record, the whole records a write should
 * take: those that the output surely takes without waiting when it is a
 * pipe, by the pages our writes to it may hold (and at least PIPE_BUF
 * bytes of them, which a pipe with room takes whole or, full, not at
 * all), so that a reader that stops reading holds whole records; at a
 * stop, only if the output has room.  0: none.
 */
static size_t
whole_fit(const char *b, size_t len, int delim, bool stop)
{
	ssize_t room = -1;
	size_t n;

	if (stop && !clock_fd_ready(STDOUT_FILENO, POLLOUT))
		return 0;
	if (delim >= 0 || stop)
		room = splice_pipe_room(STDOUT_FILENO, &written);
	if (room < 0)
		room = stop ? PIPE_BUF : SSIZE_MAX;
	n = (size_t)(room > PIPE_BUF ? room : PIPE_BUF);
	if (n >= len)
		return len;
	if (delim >= 0)
		while (n > 0 && (unsigned char)b[n - 1] != delim)
			n--;
	/* A first record longer than the room goes whole, but not at a
	 * stop. */
	return n > 0 || stop ? n : len;
}

/*
 * With done bytes of b[0..len) written, the bytes to write next (0: end
 * here, at a stop).  A record begun is finished (*finishing) whatever the
 * wait, even at a stop; from a boundary, whole_fit says.
 */
static size_t
next_write(const char *b, size_t done, size_t len, const struct cut *c,
    bool *finishing)
{
	const char *end;
	bool stop = signals_stop_requested() != 0;

	*finishing = false;
	if (c->delim < 0 ||
	    (done == 0 ? !c->mid : (unsigned char)b[done - 1] == c->delim))
		return whole_fit(b + done, len - done, c->delim, stop);
	if (!stop)
		return len - done;
	*finishing = true;
	end = memchr(b + done, c->delim, len - done);
	return end != NULL ? (size_t)(end - (b + done)) + 1 : len - done;
}

/*
 * Write b[0..len) to fd whatever signals arrive; with c, end early at a
 * stop as at_stop says.  The bytes written, or -1 when fd is standard
 * output and its reader went away.
 */
static ssize_t
write_all(
    int fd, const char *b, size_t len, const char *name, const struct cut *c)
{
	size_t done = 0, want;
	bool finishing = false;
	ssize_t n;

	while (done < len) {
		want = c == NULL ? len - done :
				   next_write(b, done, len, c, &finishing);
		if (want == 0)
			break;
		if ((n = write(fd, b + done, want)) >= 0) {
			done += (size_t)n;
			if (fd == STDOUT_FILENO && n > 0)
				piperoom_wrote(&written, (size_t)n);
			/* A full pipe takes a long write piecemeal: let asked
			 * reports and changes in meanwhile. */
			if (done < len)
				signals_dispatch();
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			(void)signals_wait_ready(
			    fd, POLLOUT, c == NULL || finishing);
		} else if (errno == EPIPE && fd == STDOUT_FILENO) {
			/* The reader went away: stop as for a signal. */
			signals_stop(SIGPIPE);
			return -1;
		} else if (errno == EINTR) {
			signals_dispatch();
		} else {
			err(1, "write error%s%s", name ? " on " : "",
			    name ? name : "");
		}
	}
	return (ssize_t)done;
}

int
output_write(int fd, const char *b, size_t len, const char *name)
{
	return write_all(fd, b, len, name, NULL) < 0 ? -1 : 0;
}

ssize_t
output_send(const char *b, size_t len, int delim, bool mid)
{
	const struct cut c = { delim, mid };

	return write_all(STDOUT_FILENO, b, len, NULL, &c);
}

bool
output_say(const char *b, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, b, len);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			if (!signals_wait_ready(STDERR_FILENO, POLLOUT, false))
				return false;
		} else if (n == 0 || errno != EINTR ||
		    signals_stop_requested()) {
			/* A report never stops the run, nor holds up a stop
			 * (a terminal stopped by ^S, a reader that stopped
			 * reading): the stop's alarm ends a write begun. */
			return false;
		}
	}
	return true;
}

int
output_open_append(const char *path)
{
	int fd;

	while ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0666)) < 0 &&
	    errno == EINTR) {
		signals_finish();
		signals_dispatch();
	}
	return fd;
}
