/* --joblog: a line for each record whose command is done, in GNU parallel's layout. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "joblog.h"
#include "joblogfile.h"
#include "output.h"

/* Write buf[0..len) with one write(2): 0, or -1 (errno set). */
static int
write_line(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while ((n = write(fd, buf, len)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

void
joblogfile_open(struct joblogfile *l, const char *path)
{
	struct stat sb;

	*l = (struct joblogfile){ .fd = -1, .path = path };
	if (path == NULL)
		return;
	l->fd = output_open_append(path);
	if (l->fd < 0 || fstat(l->fd, &sb) != 0)
		err(1, "--joblog %s", path);
	if (sb.st_size == 0 &&
	    write_line(l->fd, JOBLOG_HEADER, strlen(JOBLOG_HEADER)) != 0)
		err(1, "--joblog %s", path);
}

/* Lines in buf[0..len). */
static size_t
lines_in(const char *buf, size_t len)
{
	size_t n = 0;
	const char *p = buf, *end = buf + len;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* The bytes of buf[0..len) up to its last newline, and it. */
static size_t
whole_lines(const char *buf, size_t len)
{
	while (len > 0 && buf[len - 1] != '\n')
		len--;
	return len;
}

/* Read what fd holds, whole lines at a time, into done. */
static void
read_done(int fd, const char *path, enum joblog_mode mode, struct seqset *done,
    struct joblog_scan *all)
{
	size_t cap = 1 << 20, held = 0, lines = 0;
	char *buf = malloc(cap);
	ssize_t n = 1;

	if (buf == NULL)
		err(1, "--resume: memory to read %s", path);
	while (n > 0) {
		struct joblog_scan scan;
		size_t whole;

		if (held == cap) { /* a line longer than all read */
			char *grown = realloc(buf, cap * 2);

			if (grown == NULL)
				err(1, "--resume: memory to read %s", path);
			buf = grown;
			cap *= 2;
		}
		while ((n = read(fd, buf + held, cap - held)) < 0 &&
		    errno == EINTR)
			;
		if (n < 0)
			err(1, "--resume: %s", path);
		held += (size_t)n;
		/* Whole lines, until the end: then the rest too. */
		whole = n > 0 ? whole_lines(buf, held) : held;
		if (joblog_read(buf, whole, mode, done, &scan) != 0)
			err(1, "--resume: memory for the records of %s", path);
		all->records += scan.records;
		if (scan.garbage > 0 && all->garbage == 0)
			all->first_garbage = lines + scan.first_garbage;
		all->garbage += scan.garbage;
		all->cut = all->cut || scan.cut;
		lines += lines_in(buf, whole);
		memmove(buf, buf + whole, held - whole);
		held -= whole;
	}
	free(buf);
}

void
joblogfile_done(const char *path, enum joblog_mode mode, struct seqset *done)
{
	struct joblog_scan all = { 0 };
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	seqset_init(done);
	if (fd < 0 && errno == ENOENT)
		return; /* nothing was done: every record runs */
	if (fd < 0 || fstat(fd, &sb) != 0)
		err(1, "--resume: %s", path);
	if (!S_ISREG(sb.st_mode))
		errx(1,
		    "--resume: %s is no regular file: give the --joblog "
		    "file of the run to resume",
		    path);
	read_done(fd, path, mode, done, &all);
	close(fd);
	if (all.garbage > 0)
		warnx("--resume: %s: %zu line%s no joblog line (the first is "
		      "line %zu): passed over",
		    path, all.garbage, all.garbage == 1 ? " is" : "s are",
		    all.first_garbage);
	if (all.cut)
		warnx("--resume: %s: its last line has no newline (a run cut "
		      "short): its record runs again",
		    path);
}

bool
joblogfile_on(const struct joblogfile *l)
{
	return l->fd >= 0;
}

char **
joblogfile_argv(char *const *argv)
{
	size_t n = 0, bytes = 0;
	char **copy, *text;

	while (argv[n] != NULL)
		bytes += strlen(argv[n++]) + 1;
	copy = malloc((n + 1) * sizeof *copy + bytes);
	if (copy == NULL)
		err(1, "--joblog: memory for a command");
	text = (char *)(copy + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(argv[i]) + 1;

		copy[i] = memcpy(text, argv[i], len);
		text += len;
	}
	copy[n] = NULL;
	return copy;
}

void
joblogfile_write(struct joblogfile *l, uint64_t seq, int64_t start_ns,
    int64_t end_ns, int st, char *const *argv)
{
	struct joblog_job job = { .seq = seq,
		.start_ns = start_ns + clock_wall_offset_ns(),
		.runtime_ns = end_ns - start_ns,
		.exitval = WIFEXITED(st) ? WEXITSTATUS(st) : 0,
		.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0,
		.argv = argv };
	char small[1024], *buf = small;
	size_t len;
	int rc;

	if (l->fd < 0)
		return;
	len = joblog_format(small, sizeof small, &job);
	if (len >= sizeof small) {
		if ((buf = malloc(len + 1)) == NULL)
			err(1, "--joblog: memory for a line");
		(void)joblog_format(buf, len + 1, &job);
	}
	rc = write_line(l->fd, buf, len);
	if (buf != small)
		free(buf);
	if (rc != 0 && !l->failed)
		warn("--joblog %s", l->path);
	if (rc != 0)
		l->failed = true;
}

int
joblogfile_close(struct joblogfile *l)
{
	int rc = l->failed ? 1 : 0;

	if (l->fd >= 0 && close(l->fd) != 0 && rc == 0) {
		warn("--joblog %s", l->path);
		rc = 1;
	}
	l->fd = -1;
	return rc;
}
