/* --exec: the commands' output passed on whole lines at a time. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "joboutput.h"
#include "progressline.h"
#include "signals.h"

/* What one read of a pipe takes at most. */
#define READ_BYTES 65536
/* Reads of a pipe in one turn, so that a chatty one does not hold up
 * the others or a start. */
#define READS_A_TURN 4

/* The one of the run: the waits of clock.h call back into it. */
static struct joboutput *the;

/* A write of ours to fd failed with e: passed on no more. */
static void
out_gone(struct joboutput *o, int fd, int e)
{
	o->gone[fd] = true;
	if (e == EPIPE && fd == STDOUT_FILENO) {
		/* Its reader went away: the run stops, as for a record of
		 * ours written, and ends of SIGPIPE. */
		signals_stop(SIGPIPE);
		return;
	}
	errno = e;
	if (e != EPIPE)
		warn("%s",
		    fd == STDOUT_FILENO ? "standard output" : "standard error");
	o->status = 1;
}

/* Write p[0..n) to fd whole, waiting while it takes nothing. */
static void
write_all(struct joboutput *o, int fd, const char *p, size_t n)
{
	while (n > 0 && !o->gone[fd]) {
		ssize_t w = write(fd, p, n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd q = { .fd = fd, .events = POLLOUT };

			(void)poll(&q, 1, -1);
		} else if (w < 0 && errno != EINTR) {
			out_gone(o, fd, errno);
		}
	}
}

/*
 * Pass p[0..n) on to fd, with tag[0..tlen) before each line that starts
 * in it (*bol: the first does), -P's line kept clear.
 */
static void
emit(struct joboutput *o, int fd, const char *tag, size_t tlen, const char *p,
    size_t n, bool *bol)
{
	static char *b;
	static size_t cap;
	size_t need = n, k = 0;

	if (n == 0 || o->gone[fd])
		return;
	progress_around_fd(fd, false);
	if (tag == NULL) {
		write_all(o, fd, p, n);
		*bol = p[n - 1] == '\n';
		progress_around_fd(fd, true);
		return;
	}
	for (size_t i = 0; i < n; i++)
		need += p[i] == '\n' ? tlen : 0;
	need += tlen;
	if (need > cap) {
		char *g = realloc(b, need);

		if (g == NULL)
			err(1, "--tag: memory for %zu bytes of output", need);
		b = g;
		cap = need;
	}
	for (size_t i = 0; i < n; i++) {
		if (*bol) {
			memcpy(b + k, tag, tlen);
			k += tlen;
		}
		b[k++] = p[i];
		*bol = p[i] == '\n';
	}
	write_all(o, fd, b, k);
	progress_around_fd(fd, true);
}

/* The ended lines held by c passed on; a line grown past
 * OUTPUT_LINE_MAX too, in part. */
static void
pass_lines(struct joboutput *o, struct capture *c)
{
	size_t end = c->len;

	while (end > 0 && c->buf[end - 1] != '\n')
		end--;
	if (end == 0 && c->len >= OUTPUT_LINE_MAX)
		end = c->len;
	if (end == 0)
		return;
	emit(o, c->to, c->tag, c->tag_len, c->buf, end, &c->bol);
	memmove(c->buf, c->buf + end, c->len - end);
	c->len -= end;
}

/* c's pipe at its end: what is held passed on, unended; closed. */
static void
capture_close(struct joboutput *o, struct capture *c)
{
	emit(o, c->to, c->tag, c->tag_len, c->buf, c->len, &c->bol);
	(void)close(c->fd);
	free(c->buf);
	free(c->tag);
	*c = (struct capture){ .fd = -1 };
}

/* Read c's pipe up to reads times, its lines passed on: is it still
 * open? */
static bool
capture_read(struct joboutput *o, struct capture *c, int reads)
{
	while (reads-- > 0) {
		ssize_t n;

		if (c->cap - c->len < READ_BYTES) {
			char *g = realloc(c->buf, c->len + READ_BYTES);

			if (g == NULL)
				err(1, "--exec: memory for a command's output");
			c->buf = g;
			c->cap = c->len + READ_BYTES;
		}
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true; /* nothing more now */
		if (n > 0) {
			c->len += (size_t)n;
			pass_lines(o, c);
		}
		if (n <= 0 || o->gone[c->to]) {
			capture_close(o, c);
			return false;
		}
	}
	return true;
}

/* The pipes closed left out of the list. */
static void
compact(struct joboutput *o)
{
	size_t k = 0;

	for (size_t i = 0; i < o->ncap; i++)
		if (o->cap[i].fd >= 0)
			o->cap[k++] = o->cap[i];
	o->ncap = k;
}

/* For the waits of clock.h: the pipes to watch. */
static struct pollfd *
pipes_list(int *n)
{
	for (size_t i = 0; i < the->ncap; i++)
		the->pfd[i] = (struct pollfd){ .fd = the->cap[i].fd,
			.events = POLLIN };
	*n = (int)the->ncap;
	return the->pfd;
}

/* And what they found: fds[i] is of the->cap[i]. */
static void
pipes_ready(const struct pollfd *fds, int n)
{
	for (int i = 0; i < n && (size_t)i < the->ncap; i++)
		if (fds[i].revents != 0 && the->cap[i].fd >= 0)
			(void)capture_read(the, &the->cap[i], READS_A_TURN);
	compact(the);
}

/* Open files enough for the pipes (or files) of max commands, and the
 * rest; else one line and exit 2. */
static void
files_enough(unsigned max)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)max * 2 + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ?
	    need :
	    rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= need)
		return;
	errx(2,
	    "-j %u: passing on the output of %u commands at once takes %llu "
	    "open files, and the limit is %llu (ulimit -n): give --ungroup, "
	    "or a smaller -j",
	    max, max, (unsigned long long)need,
	    (unsigned long long)rl.rlim_cur);
}

int
joboutput_init(
    struct joboutput *o, enum output_mode mode, bool tag, unsigned max)
{
	*o = (struct joboutput){ .mode = mode, .tag = tag, .max = max };
	if (mode == OUTPUT_DIRECT)
		return 0;
	files_enough(max);
	if (mode == OUTPUT_GROUP) {
		o->file = malloc(max * sizeof *o->file);
		o->ftag = calloc(max, sizeof *o->ftag);
		o->ftag_len = calloc(max, sizeof *o->ftag_len);
		if (o->file == NULL || o->ftag == NULL || o->ftag_len == NULL)
			return -1;
		for (unsigned i = 0; i < max; i++)
			o->file[i][0] = o->file[i][1] = -1;
		return 0;
	}
	o->capcap = (size_t)max * 2;
	o->cap = calloc(o->capcap, sizeof *o->cap);
	o->pfd = calloc(o->capcap, sizeof *o->pfd);
	if (o->cap == NULL || o->pfd == NULL)
		return -1;
	the = o;
	clock_watch_pipes(pipes_list, pipes_ready);
	return 0;
}

/* A file of our own for a command's output, gone from its directory:
 * in TMPDIR, else /tmp.  Its descriptor, or -1 with errno set. */
static int
temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof path, "%s/tbthrottle-out.XXXXXX",
		dir) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(path)) < 0)
		return -1;
	(void)unlink(path);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* A copy of tag[0..len) and a tab, into *to and *to_len. */
static void
tag_copy(const char *tag, size_t len, char **to, size_t *to_len)
{
	if ((*to = malloc(len + 1)) == NULL)
		err(1, "--tag: memory for a tag of %zu bytes", len);
	memcpy(*to, tag, len);
	(*to)[len] = '\t';
	*to_len = len + 1;
}

/* A pipe for what a command writes to fd: its write end, or -1 with
 * errno set; the read end watched. */
static int
capture_add(struct joboutput *o, int fd, const char *tag, size_t tag_len)
{
	struct capture *c;
	int p[2];

	if (o->ncap == o->capcap) {
		size_t n = o->capcap * 2 + 2;
		struct capture *gc = realloc(o->cap, n * sizeof *gc);
		struct pollfd *gp;

		if (gc == NULL)
			return -1;
		o->cap = gc;
		if ((gp = realloc(o->pfd, n * sizeof *gp)) == NULL)
			return -1;
		o->pfd = gp;
		o->capcap = n;
	}
	if (pipe(p) != 0)
		return -1;
	(void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
	(void)fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	if (o->gone[fd]) {
		/* Ours is gone: the command finds its output gone too. */
		(void)close(p[0]);
		return p[1];
	}
	c = &o->cap[o->ncap++];
	*c = (struct capture){ .fd = p[0], .to = fd, .bol = true };
	if (o->tag)
		tag_copy(tag, tag_len, &c->tag, &c->tag_len);
	return p[1];
}

int
joboutput_open(struct joboutput *o, unsigned slot, const char *tag,
    size_t tag_len, int out[2])
{
	size_t had = o->ncap;

	out[0] = out[1] = -1;
	o->made[0] = o->made[1] = -1;
	for (int k = 0; k < 2 && o->mode != OUTPUT_DIRECT; k++) {
		out[k] = o->mode == OUTPUT_GROUP ?
		    temp_file() :
		    capture_add(o, k + 1, tag, tag_len);
		if (out[k] < 0) {
			int e = errno;

			if (k == 1)
				(void)close(out[0]);
			for (size_t i = had; i < o->ncap; i++)
				capture_close(o, &o->cap[i]);
			o->ncap = had;
			out[0] = out[1] = -1;
			return e;
		}
		if (o->mode == OUTPUT_GROUP)
			o->file[slot][k] = out[k];
		else if (o->ncap > had)
			o->made[k] = o->cap[o->ncap - 1].fd;
	}
	if (o->mode == OUTPUT_GROUP && o->tag)
		tag_copy(tag, tag_len, &o->ftag[slot], &o->ftag_len[slot]);
	return 0;
}

/* Slot's files closed, and its tag let go. */
static void
group_close(struct joboutput *o, unsigned slot)
{
	for (int k = 0; k < 2; k++) {
		if (o->file[slot][k] >= 0)
			(void)close(o->file[slot][k]);
		o->file[slot][k] = -1;
	}
	free(o->ftag[slot]);
	o->ftag[slot] = NULL;
}

void
joboutput_spawned(
    struct joboutput *o, unsigned slot, const int out[2], bool started)
{
	if (o->mode == OUTPUT_LINES) {
		(void)close(out[0]);
		(void)close(out[1]);
		/* Its pipes, made last, where a wait for a process may have
		 * moved them: nothing came. */
		for (size_t i = 0; !started && i < o->ncap; i++)
			if (o->cap[i].fd >= 0 &&
			    (o->cap[i].fd == o->made[0] ||
				o->cap[i].fd == o->made[1]))
				capture_close(o, &o->cap[i]);
		compact(o);
	} else if (o->mode == OUTPUT_GROUP && !started) {
		group_close(o, slot);
	}
}

void
joboutput_ended(struct joboutput *o, unsigned slot)
{
	char b[READ_BYTES];

	if (o->mode != OUTPUT_GROUP)
		return;
	for (int k = 0; k < 2; k++) {
		int fd = o->file[slot][k];
		bool bol = true;
		off_t at = 0;
		ssize_t n;

		/* From an offset of our own: a child of the command may still
		 * write at the one it shares. */
		while (fd >= 0 && (n = pread(fd, b, sizeof b, at)) != 0 &&
		    !o->gone[k + 1])
			if (n > 0) {
				emit(o, k + 1, o->ftag[slot], o->ftag_len[slot],
				    b, (size_t)n, &bol);
				at += n;
			} else if (errno != EINTR) {
				break;
			}
	}
	group_close(o, slot);
}

int
joboutput_finish(struct joboutput *o)
{
	for (size_t i = 0; i < o->ncap; i++)
		if (o->cap[i].fd >= 0 && capture_read(o, &o->cap[i], INT_MAX))
			capture_close(o, &o->cap[i]);
	o->ncap = 0;
	for (unsigned i = 0; o->mode == OUTPUT_GROUP && i < o->max; i++)
		group_close(o, i);
	return o->status;
}

void
joboutput_free(struct joboutput *o)
{
	if (o->mode == OUTPUT_LINES && the == o) {
		clock_watch_pipes(NULL, NULL);
		the = NULL;
	}
	for (size_t i = 0; i < o->ncap; i++)
		if (o->cap[i].fd >= 0) {
			(void)close(o->cap[i].fd);
			free(o->cap[i].buf);
			free(o->cap[i].tag);
		}
	for (unsigned i = 0; o->mode == OUTPUT_GROUP && o->file != NULL &&
	     o->ftag != NULL && i < o->max;
	     i++)
		group_close(o, i);
	free(o->cap);
	free(o->pfd);
	free(o->file);
	free(o->ftag);
	free(o->ftag_len);
	*o = (struct joboutput){ 0 };
}
