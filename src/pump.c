/* The I/O pump: read input, frame units, wait for tokens, write. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "pump.h"
#include "signals.h"
#include "splice.h"

struct input {
	char **files;
	int nfiles;
	int next;		/* index of the next operand to open */
	int fd;			/* -1 between files */
	const char *name;
	int status;
	bool no_splice;		/* don't splice(2) this operand */
	bool checked;		/* no_splice is set for this operand */
};

static char buf[PUMP_BUF_BYTES];

/* Wait until fd is ready after EAGAIN; false if a stop was requested. */
static bool
wait_ready(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR || signals_stop_requested())
			return errno == EINTR ? false : true;
	return true;
}

/*
 * Write all of b[0..len) to standard output.  A signal does not cut the
 * write short: released units always go out whole.
 */
static void
write_all(const char *b, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, b, len);

		if (n >= 0) {
			b += n;
			len -= (size_t)n;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			(void)wait_ready(STDOUT_FILENO, POLLOUT);
		} else if (errno == EPIPE) {
			signals_die_of_sigpipe();
		} else if (errno != EINTR) {
			err(1, "write error");
		}
	}
}

/* Open the next operand; false when there are none left. */
static bool
input_open(struct input *in)
{
	while (in->fd < 0) {
		const char *path;

		if (in->nfiles == 0 && in->next == 0) {
			in->next = 1;
			in->fd = STDIN_FILENO;
			in->name = "stdin";
			break;
		}
		if (in->next >= in->nfiles)
			return false;
		path = in->files[in->next++];
		if (strcmp(path, "-") == 0) {
			in->fd = STDIN_FILENO;
			in->name = "stdin";
		} else if ((in->fd = open(path, O_RDONLY)) < 0) {
			warn("%s", path);
			in->status = 1;
		} else {
			in->name = path;
		}
	}
	return true;
}

static void
input_close(struct input *in)
{
	if (in->fd > STDIN_FILENO)
		(void)close(in->fd);
	in->fd = -1;
	in->no_splice = false;
	in->checked = false;
}

/*
 * Move input straight to standard output inside the kernel.  Returns bytes
 * moved, 0 at the end of all input, -1 when a stop was requested, or
 * SPLICE_UNSUPPORTED when this operand must be read instead.  Errors other
 * than a closed pipe also fall back, so read(2) and write(2) report them
 * precisely.
 */
static ssize_t
input_splice(struct input *in)
{
	while (input_open(in)) {
		struct stat st;
		ssize_t n;

		/* Measured: from a file splice takes half the time of read
		 * and write; between two pipes it is 10% slower. */
		if (!in->checked) {
			in->checked = true;
			in->no_splice = fstat(in->fd, &st) != 0 ||
			    !S_ISREG(st.st_mode);
		}
		if (in->no_splice)
			return SPLICE_UNSUPPORTED;
		n = splice_move(in->fd, STDOUT_FILENO, PUMP_BUF_BYTES);
		if (n > 0)
			return n;
		if (n == 0) {
			input_close(in);
		} else if (n == -1 && errno == EINTR) {
			if (signals_stop_requested())
				return -1;
		} else {
			if (n == -1 && errno == EPIPE)
				signals_die_of_sigpipe();
			in->no_splice = true;
			return SPLICE_UNSUPPORTED;
		}
	}
	return 0;
}

/* Would a read of fd return at once: is input already waiting? */
static bool
input_waiting(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

/*
 * Read into b[0..room) from the current operand, moving to the next one
 * at end of file.  Returns bytes read, 0 at the end of all input, or -1
 * when a stop was requested.  When fresh is not NULL, *fresh tells whether
 * the data had to be waited for, rather than being there already.
 */
static ssize_t
input_read(struct input *in, char *b, size_t room, bool *fresh)
{
	while (input_open(in)) {
		ssize_t n;

		if (fresh != NULL && !input_waiting(in->fd))
			*fresh = true;
		n = read(in->fd, b, room);

		if (n > 0)
			return n;
		if (n == 0) {
			input_close(in);
		} else if (errno == EINTR) {
			if (signals_stop_requested())
				return -1;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!wait_ready(in->fd, POLLIN))
				return -1;
		} else {
			warn("%s", in->name);
			in->status = 1;
			input_close(in);
		}
	}
	return 0;
}

/* Sleep to deadline_ns; false if a stop was requested meanwhile. */
static bool
sleep_until(int64_t deadline_ns)
{
	while (clock_sleep_until(deadline_ns) == EINTR)
		if (signals_stop_requested())
			return false;
	return true;
}

/*
 * Bytes at b[0..len) taken by at most max units.  At end of input a final
 * record without a delimiter is a unit too.
 */
static size_t
span(const struct framer *f, const char *b, size_t len, bool eof, size_t max,
    size_t *units)
{
	size_t n = framer_span(f, b, len, max, units);

	if (eof && n < len && *units < max) {
		(*units)++;
		n = len;
	}
	return n;
}

int
pump_run(const struct pump *p)
{
	struct input in = { p->files, p->nfiles, 0, -1, "stdin", 0, false,
	    false };
	const struct framer *f = &p->framer;
	size_t head = 0, tail = 0, units, n;
	int64_t ready_ns = p->start_ns, now_ns;
	bool eof = false, paid = false, fresh;

	while (!signals_stop_requested()) {
		size_t pending = tail - head;
		ssize_t got;

		if (paid) {
			/* The head record is longer than the buffer and has
			 * its token: stream it to its end. */
			n = framer_span(f, buf + head, pending, 1, &units);
			if (units == 1) {
				paid = false;
				pending = n;
			}
			write_all(buf + head, pending);
			head += pending;
			if (!paid)
				continue;
		} else if (p->bucket == NULL) {
			n = eof ? pending : framer_whole(f, buf + head, pending);
			if (n == 0 && pending == sizeof buf) {
				paid = true;	/* a record longer than buf */
				continue;
			}
			write_all(buf + head, n);
			head += n;
		} else {
			size_t want = p->quantum > SIZE_MAX ? SIZE_MAX :
			    (size_t)p->quantum;

			(void)span(f, buf + head, pending, eof, want, &units);
			if (units == 0 && pending == sizeof buf) {
				/* A record longer than the buffer: pay for it
				 * now, then let it through without waiting. */
				units = 1;
				paid = true;
			}
			if (units > 0) {
				int64_t due = bucket_ready_at(p->bucket, ready_ns,
				    units);

				if ((now_ns = clock_now_ns()) < due) {
					if (!sleep_until(due))
						break;
					now_ns = clock_now_ns();
				}
				if (paid) {
					(void)bucket_take(p->bucket, ready_ns,
					    now_ns, 1);
					continue;
				}
				want = (size_t)bucket_avail(p->bucket, ready_ns,
				    now_ns);
				n = span(f, buf + head, pending, eof, want,
				    &units);
				(void)bucket_take(p->bucket, ready_ns, now_ns,
				    units);
				write_all(buf + head, n);
				head += n;
				continue;
			}
		}

		if (head == tail) {
			head = tail = 0;
			if (eof)
				break;
		} else if (eof) {
			continue;
		}
		if (tail == sizeof buf && head > 0) {
			memmove(buf, buf + head, tail - head);
			tail -= head;
			head = 0;
		}
		if (p->bucket == NULL && f->bytes && head == tail &&
		    !in.no_splice) {
			got = input_splice(&in);
			if (got == -1)
				break;
			if (got == 0)
				eof = true;
			if (got != SPLICE_UNSUPPORTED)
				continue;
		}
		/*
		 * Units are ready from the time they arrive.  Data that was
		 * already waiting when we came for it has been ready since we
		 * last knew, so the schedule keeps its place; only data we had
		 * to wait for starts afresh, as after an idle period.
		 */
		fresh = false;
		got = input_read(&in, buf + tail, sizeof buf - tail,
		    p->bucket != NULL ? &fresh : NULL);
		if (got < 0)
			break;
		if (got == 0)
			eof = true;
		tail += (size_t)got;
		if (fresh)
			ready_ns = clock_now_ns();
	}
	input_close(&in);
	return in.status;
}
