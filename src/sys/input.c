/* Input: the FILE operands in turn, or standard input, read or spliced. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "input.h"
#include "signals.h"
#include "splice.h"
#include "stdfd.h"

/* Bytes asked of one splice(2); a pipe moves at most its capacity. */
#define SPLICE_CHUNK_BYTES (128 * 1024)

/* What pipes on either side of spliced bytes are grown to hold. */
#define INPUT_PIPE_BYTES (2 * SPLICE_CHUNK_BYTES)

void
input_init(
    struct input *in, char **files, int nfiles, const int *outs, int nouts)
{
	struct stat st;

	*in = (struct input){
		.files = files, .nfiles = nfiles, .fd = -1, .name = "stdin"
	};
	in->out_pipe = fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
	for (int i = 0; i < nouts && in->nouts < INPUT_MAX_OUTS; i++)
		if (outs[i] >= 0 && fstat(outs[i], &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			in->out_dev[in->nouts] = st.st_dev;
			in->out_ino[in->nouts++] = st.st_ino;
		}
}

/* Is fd one of the regular files written to?  Reading it would feed the
 * output into itself, as long as there is disk. */
static bool
is_output(const struct input *in, int fd)
{
	struct stat st;

	if (in->nouts == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	for (int i = 0; i < in->nouts; i++)
		if (st.st_dev == in->out_dev[i] && st.st_ino == in->out_ino[i])
			return true;
	return false;
}

/* Take fd, named name, as the operand being read, unless it must not be. */
static void
take_operand(struct input *in, int fd, const char *name)
{
	if (fd == STDIN_FILENO && stdfd_closed(STDIN_FILENO)) {
		warnx("%s: %s", name, strerror(EBADF));
	} else if (is_output(in, fd)) {
		warnx("%s: input file is output file", name);
	} else {
		in->fd = fd;
		in->name = name;
		return;
	}
	in->status = 1;
	if (fd != STDIN_FILENO)
		(void)close(fd);
}

/*
 * Open path for reading.  Opening a FIFO waits for a writer: a signal
 * meanwhile is handled and the open tried again, unless it asked us to
 * stop and a record need not be finished (then -1 with errno EINTR).
 */
static int
open_operand(const char *path, bool finish)
{
	int fd;

	while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR) {
		if (signals_stop_requested() && !finish)
			return -1;
		signals_dispatch();
	}
	return fd;
}

bool
input_open(struct input *in)
{
	in->stopped = false;
	while (in->fd < 0) {
		const char *path;
		int fd;

		if (in->nfiles == 0 && in->next == 0) {
			in->next = 1;
			take_operand(in, STDIN_FILENO, "stdin");
			continue;
		}
		if (in->next >= in->nfiles)
			return false;
		path = in->files[in->next++];
		if (strcmp(path, "-") == 0) {
			take_operand(in, STDIN_FILENO, "stdin");
		} else if ((fd = open_operand(path, in->finish)) < 0) {
			if (errno == EINTR) {
				/* A stop was requested: not the end of input,
				 * and this operand is still to be read. */
				in->next--;
				in->stopped = true;
				return false;
			}
			warn("%s", path);
			in->status = 1;
		} else {
			take_operand(in, fd, path);
		}
	}
	return true;
}

/* The bytes operand path ("-": standard input) holds, or -1: unknown. */
static off_t
operand_bytes(const char *path)
{
	struct stat st;
	off_t at;

	if (strcmp(path, "-") != 0)
		return stat(path, &st) == 0 && S_ISREG(st.st_mode) ?
		    st.st_size :
		    -1;
	if (stdfd_closed(STDIN_FILENO) || fstat(STDIN_FILENO, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (at = lseek(STDIN_FILENO, 0, SEEK_CUR)) < 0)
		return -1;
	return at < st.st_size ? st.st_size - at : 0;
}

uint64_t
input_total_bytes(const struct input *in)
{
	uint64_t total = 0;
	bool stdin_seen = false;
	off_t n;

	for (int i = 0; i < (in->nfiles > 0 ? in->nfiles : 1); i++) {
		const char *path = in->nfiles > 0 ? in->files[i] : "-";

		/* Standard input twice is read once: then it is at its end. */
		if (strcmp(path, "-") == 0 && stdin_seen)
			continue;
		stdin_seen = stdin_seen || strcmp(path, "-") == 0;
		if ((n = operand_bytes(path)) < 0)
			return 0;
		total += (uint64_t)n;
	}
	return total;
}

/*
 * Delimiters delim in fd's bytes from at, with *budget bytes left to read
 * (less what is read); *ended: whether its last byte (if any) is one.  -1
 * when it cannot be read or is over budget.
 */
static int64_t
count_records(
    int fd, off_t at, unsigned char delim, uint64_t *budget, bool *ended)
{
	char b[65536];
	int64_t n = 0;
	ssize_t got;

	while ((got = pread(fd, b, sizeof b, at)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || (uint64_t)got > *budget)
			return -1;
		*budget -= (uint64_t)got;
		at += got;
		for (const char *p = b, *end = b + got;
		     (p = memchr(p, delim, (size_t)(end - p))) != NULL; p++)
			n++;
		*ended = (unsigned char)b[got - 1] == delim;
	}
	return n;
}

uint64_t
input_total_records(
    const struct input *in, unsigned char delim, uint64_t most_bytes)
{
	uint64_t total = 0, budget = most_bytes, bytes = input_total_bytes(in);
	bool stdin_seen = false, ended = true;
	int64_t n;

	if (bytes == 0 || bytes > most_bytes)
		return 0;
	for (int i = 0; i < (in->nfiles > 0 ? in->nfiles : 1); i++) {
		const char *path = in->nfiles > 0 ? in->files[i] : "-";
		bool own = strcmp(path, "-") != 0;
		int fd;
		off_t at;

		/* Standard input twice is read once (input_total_bytes). */
		if (!own && stdin_seen)
			continue;
		stdin_seen = stdin_seen || !own;
		fd = own ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
		at = own ? 0 : lseek(fd, 0, SEEK_CUR);
		if (fd < 0)
			return 0;
		n = at < 0 ? -1 : count_records(fd, at, delim, &budget, &ended);
		if (own)
			(void)close(fd);
		if (n < 0)
			return 0;
		total += (uint64_t)n;
	}
	/* A file's last record unended runs on into the next file's first,
	 * as they are read: only the last of all counts once more. */
	return total + (ended ? 0 : 1);
}

void
input_close(struct input *in)
{
	if (in->fd > STDIN_FILENO)
		(void)close(in->fd);
	in->fd = -1;
	in->no_splice = false;
	in->checked = false;
	in->file_left = 0;
}

void
input_rewind(struct input *in)
{
	input_close(in);
	in->next = 0;
	in->stopped = false;
}

/*
 * Bytes left in the operand, a pipe or a regular file, as far as it can
 * tell without reading: -1 when it cannot, and for a file that says none
 * is left (files of /proc say so and hold some).
 */
static ssize_t
pending(struct input *in)
{
	struct stat st;
	off_t at;

	if (in->is_pipe)
		return splice_pending(in->fd);
	/* What a file had left is left less what was spliced: asking again
	 * for each chunk costs two system calls. */
	if (in->file_left == 0) {
		if (fstat(in->fd, &st) != 0 ||
		    (at = lseek(in->fd, 0, SEEK_CUR)) < 0 || st.st_size <= at)
			return -1;
		in->file_left = st.st_size - at;
	}
	return in->file_left > SSIZE_MAX ? SSIZE_MAX : (ssize_t)in->file_left;
}

/*
 * May the operand being read be spliced to standard output?  Yes from a
 * pipe or a regular file to a pipe.
 */
static bool
spliceable(struct input *in)
{
	struct stat st;

	if (!in->checked) {
		in->checked = true;
		in->no_splice = !in->out_pipe || fstat(in->fd, &st) != 0 ||
		    !(S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode));
		in->is_pipe = !in->no_splice && S_ISFIFO(st.st_mode);
		/* Room for two chunks on each side: measured at 200 MB/s,
		 * half the wake-ups and a third of the CPU of the default
		 * 64 KiB pipes, and nothing more beyond (bench/RESULTS.md). */
		if (in->is_pipe)
			splice_grow_pipe(in->fd, INPUT_PIPE_BYTES);
		if (!in->no_splice)
			splice_grow_pipe(STDOUT_FILENO, INPUT_PIPE_BYTES);
	}
	return !in->no_splice;
}

/*
 * Errors other than a closed pipe fall back to reading, so read(2) and
 * write(2) then report them against the right file.
 */
ssize_t
input_splice(struct input *in)
{
	while (input_open(in)) {
		ssize_t n;

		if (!spliceable(in))
			return SPLICE_UNSUPPORTED;
		n = splice_move(in->fd, STDOUT_FILENO, SPLICE_CHUNK_BYTES);
		if (n > 0)
			return n;
		if (n == 0) {
			input_close(in);
		} else if (n == -1 && errno == EINTR) {
			if (signals_stop_requested())
				return -1;
			signals_dispatch();
		} else {
			if (n == -1 && errno == EPIPE) {
				signals_stop(SIGPIPE); /* the reader left */
				return -1;
			}
			in->no_splice = true;
			return SPLICE_UNSUPPORTED;
		}
	}
	return in->stopped ? -1 : 0;
}
ssize_t
input_peek(struct input *in, size_t max, bool *fresh)
{
	while (input_open(in)) {
		ssize_t n;

		if (!spliceable(in))
			return SPLICE_UNSUPPORTED;
		if ((n = pending(in)) < 0)
			return SPLICE_UNSUPPORTED; /* read(2) will tell */
		if (n > 0)
			return (size_t)n < max ? n : (ssize_t)max;
		/* An empty pipe: wait for bytes, or its end. */
		if (clock_fd_ready(in->fd, POLLIN)) {
			if (splice_pending(in->fd) == 0)
				input_close(in); /* no writer is left */
			continue;
		}
		if (fresh != NULL)
			*fresh = true;
		if (clock_wait_fd(in->fd, POLLIN, INT64_MAX) == EINTR) {
			if (signals_stop_requested() && !in->finish)
				return -1;
			signals_dispatch();
		}
	}
	return in->stopped ? -1 : 0;
}

size_t
input_splice_out(struct input *in, size_t len, bool *gone)
{
	size_t done = 0;

	*gone = false;
	/* Bytes are whole units: a stop ends the move where it is. */
	while (done < len && !signals_stop_requested()) {
		ssize_t n = splice_move(in->fd, STDOUT_FILENO, len - done);

		if (n > 0) {
			done += (size_t)n;
			in->file_left -= in->file_left > n ? n : in->file_left;
			/* A full pipe takes the bytes piecemeal: let asked
			 * reports and changes in meanwhile. */
			signals_dispatch();
		} else if (n == 0) {
			in->file_left = 0;
			break; /* the file shrank */
		} else if (errno == EINTR) {
			signals_dispatch();
		} else if (errno == EAGAIN && clock_fd_ready(in->fd, POLLIN)) {
			(void)signals_wait_ready(STDOUT_FILENO, POLLOUT, true);
		} else if (errno == EPIPE) {
			signals_stop(SIGPIPE); /* the reader left */
			*gone = true;
			break;
		} else {
			/* read(2) and write(2) will report what is wrong. */
			in->no_splice = true;
			break;
		}
	}
	return done;
}

size_t
input_take(struct input *in, char *b, size_t len)
{
	size_t done = 0;

	while (done < len && in->fd >= 0) {
		ssize_t n = read(in->fd, b + done, len - done);

		if (n > 0) {
			done += (size_t)n;
		} else if (n == 0) {
			break;
		} else if (errno == EINTR) {
			signals_dispatch();
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			(void)signals_wait_ready(in->fd, POLLIN, true);
		} else {
			warn("%s", in->name);
			in->status = 1;
			input_close(in);
		}
	}
	return done;
}

ssize_t
input_read(struct input *in, char *b, size_t room, bool *fresh)
{
	while (input_open(in)) {
		ssize_t n;

		n = 0;
		if ((fresh != NULL || clock_watching()) &&
		    !clock_fd_ready(in->fd, POLLIN)) {
			if (fresh != NULL)
				*fresh = true;
			/* A request on the control socket, or Redis probed
			 * in the background, must not wait for input: wait
			 * for both. */
			if (clock_watching() &&
			    clock_wait_fd(in->fd, POLLIN, INT64_MAX) == EINTR) {
				n = -1;
				errno = EINTR;
			}
		}
		if (n == 0)
			n = read(in->fd, b, room);

		if (n > 0)
			return n;
		if (n == 0) {
			input_close(in);
		} else if (errno == EINTR) {
			if (signals_stop_requested() && !in->finish)
				return -1;
			signals_dispatch();
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!signals_wait_ready(in->fd, POLLIN, in->finish))
				return -1;
		} else {
			warn("%s", in->name);
			in->status = 1;
			input_close(in);
		}
	}
	return in->stopped ? -1 : 0;
}

void
input_hold_stop(struct input *in, bool hold)
{
	in->finish = hold;
}

bool
input_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool
input_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
