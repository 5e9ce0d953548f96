/* --retry and --failed-to: records whose command failed, tried again or kept. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backoff.h"
#include "clock.h"
#include "entropy.h"
#include "output.h"
#include "msg.h"
#include "retry.h"
#include "retryafter.h"

/* The most a command may write for TBTHROTTLE_RETRY_AFTER that is read. */
#define AFTER_MAX 256

void
retries_init(struct retries *t, unsigned max, const struct exitset *on,
    int64_t delay_ns, int64_t max_ns, const char *failed_to, unsigned slots)
{
	const char *tmp = getenv("TMPDIR");
	unsigned char seed[8];

	*t = (struct retries){ .max = max,
		.slots = slots,
		.on = *on,
		.delay_ns = delay_ns,
		.max_ns = max_ns,
		.failed_to = failed_to,
		.failed_fd = -1 };
	if (failed_to != NULL &&
	    (t->failed_fd = output_open_append(failed_to)) < 0)
		err(1, "--failed-to %s", failed_to);
	if (max == 0)
		return;
	entropy_bytes(seed, sizeof seed, "--retry's waits");
	memcpy(&t->rng, seed, sizeof seed);
	if (tmp == NULL || *tmp != '/' || strlen(tmp) + 20 >= sizeof t->dir)
		tmp = "/tmp";
	snprintf(t->dir, sizeof t->dir, "%s/tbthrottle.XXXXXX", tmp);
	if (mkdtemp(t->dir) == NULL)
		err(1, "--retry: a directory for TBTHROTTLE_RETRY_AFTER in %s",
		    tmp);
}

bool
retries_keep(const struct retries *t)
{
	return t->max > 0 || t->failed_to != NULL;
}

void
retries_file(const struct retries *t, unsigned slot, char *out, size_t size)
{
	*out = '\0';
	if (t->dir[0] == '\0')
		return;
	snprintf(out, size, "%s/%u", t->dir, slot);
	(void)unlink(out);
}

/* The next of t's random numbers (splitmix64). */
static uint64_t
next_random(struct retries *t)
{
	uint64_t z = (t->rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Remove path, a file or what a command made in its place. */
static void
forget(const char *path)
{
	if (unlink(path) != 0 && errno != ENOENT)
		(void)rmdir(path);
}

/* The wait slot's command asked for (0: none), its file read and gone. */
static int64_t
asked_wait(struct retries *t, unsigned slot, int64_t now_ns)
{
	char path[160], text[AFTER_MAX], shown[96];
	enum retryafter_status rs;
	int64_t after_ns = 0;
	ssize_t n = 0;
	struct stat sb;
	int fd;

	snprintf(path, sizeof path, "%s/%u", t->dir, slot);
	/* Not waiting on a FIFO, nor reading what is no regular file. */
	if (t->dir[0] == '\0' ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) <
		0) {
		if (t->dir[0] != '\0')
			forget(path);
		return 0;
	}
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		while (
		    (n = read(fd, text, sizeof text - 1)) < 0 && errno == EINTR)
			;
	(void)close(fd);
	forget(path);
	if (n <= 0)
		return 0;
	text[n] = '\0'; /* for the message: what was read, no more */
	rs = retryafter_parse(
	    text, (size_t)n, now_ns + clock_wall_offset_ns(), &after_ns);
	if (rs == RETRYAFTER_OK || rs == RETRYAFTER_CLAMPED)
		return after_ns;
	if (rs != RETRYAFTER_EMPTY && !t->said_after) {
		t->said_after = true;
		/* The server's text: its control bytes shown, not sent. */
		snprintf(shown, sizeof shown, "%.*s", (int)strcspn(text, "\n"),
		    text);
		msg_escape(shown, sizeof shown);
		warnx("--retry: TBTHROTTLE_RETRY_AFTER held '%s': %s (it is "
		      "not waited for)",
		    shown, retryafter_reason(rs));
	}
	return 0;
}

/* Keep a copy of rec[0..len) in *list; exits when memory ran out. */
static struct retry_rec *
keep(struct retry_rec **list, size_t *n, size_t *cap, const char *rec,
    size_t len)
{
	struct retry_rec *r;

	if (*n == *cap) {
		size_t grown = *cap == 0 ? 16 : *cap * 2;

		if ((r = realloc(*list, grown * sizeof *r)) == NULL)
			err(1, "--retry: memory for the records to try again");
		*list = r;
		*cap = grown;
	}
	r = &(*list)[(*n)++];
	*r = (struct retry_rec){ .rec = malloc(len + 1), .len = len };
	if (r->rec == NULL)
		err(1, "--retry: memory for the records to try again");
	memcpy(r->rec, rec, len);
	return r;
}

bool
retries_ended(struct retries *t, const char *rec, size_t len, uint64_t seq,
    unsigned tries, int st, bool timed_out, unsigned slot, int64_t now_ns,
    bool stopping)
{
	int64_t after_ns = asked_wait(t, slot, now_ns);
	bool refused = timed_out ?
	    t->on.timeout :
	    WIFEXITED(st) && exitset_has(&t->on, WEXITSTATUS(st));
	struct retry_rec *r;

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && !timed_out)
		return false;
	if (refused && after_ns > 0 && now_ns + after_ns > t->held_ns)
		t->held_ns = now_ns + after_ns;
	if (t->max > 0 && !stopping && tries <= t->max && refused) {
		r = keep(&t->wait, &t->nwait, &t->capwait, rec, len);
		r->seq = seq;
		r->tries = tries;
		r->due_ns = now_ns +
		    backoff_ns(tries + 1, t->delay_ns, t->max_ns, after_ns,
			next_random(t));
		return true;
	}
	if (t->failed_to != NULL) {
		r = keep(&t->failed, &t->nfailed, &t->capfailed, rec, len);
		r->seq = seq;
		r->tries = tries;
	}
	return false;
}

/*
 * The try of record m, put back, never started: it failed for good (its
 * last try did), kept for --failed-to.
 */
static void
give_up(struct retries *t, struct retry_mark *m)
{
	struct retry_rec *r;

	t->given_up++;
	if (t->failed_to != NULL) {
		r = keep(
		    &t->failed, &t->nfailed, &t->capfailed, m->rec, m->len);
		r->seq = m->seq;
		r->tries = m->tries;
	}
	free(m->rec);
	m->rec = NULL;
}

/* The copy of the record retries_which last took from its mark is not
 * needed any more: its try started. */
static void
forget_taken(struct retries *t)
{
	if (!t->taken)
		return;
	free(t->mark[t->headmark - 1].rec);
	t->mark[t->headmark - 1].rec = NULL;
	t->taken = false;
}

void
retries_unwhich(struct retries *t)
{
	if (!t->taken)
		return;
	t->taken = false;
	t->headmark--;
	t->put_back--;
	t->retried--;
}

void
retries_which(struct retries *t, uint64_t leave, uint64_t *seq, unsigned *tries)
{
	forget_taken(t);
	/* Records put back that left unseen (dropped) failed for good. */
	while (t->headmark < t->nmark && t->mark[t->headmark].leave < leave) {
		give_up(t, &t->mark[t->headmark]);
		t->headmark++;
		t->put_back++;
	}
	if (t->headmark < t->nmark && t->mark[t->headmark].leave == leave) {
		*seq = t->mark[t->headmark].seq;
		*tries = t->mark[t->headmark].tries;
		t->taken = true; /* its copy kept until it started */
		t->headmark++;
		t->put_back++;
		t->retried++; /* its try starts */
		return;
	}
	*seq = leave - t->put_back;
	if (t->resume != NULL)
		*seq = resume_seq(t->resume, *seq);
	*tries = 0;
}

/* Note that the record put back is the leave-th to leave. */
static void
mark(struct retries *t, uint64_t leave, const struct retry_rec *r)
{
	struct retry_mark *m;

	forget_taken(t);
	if (t->headmark > 0 && t->headmark == t->nmark)
		t->headmark = t->nmark = 0;
	if (t->nmark == t->capmark) {
		size_t grown = t->capmark == 0 ? 16 : t->capmark * 2;

		if ((m = realloc(t->mark, grown * sizeof *m)) == NULL)
			err(1, "--retry: memory for the records to try again");
		t->mark = m;
		t->capmark = grown;
	}
	t->mark[t->nmark++] = (struct retry_mark){ .leave = leave,
		.seq = r->seq,
		.tries = r->tries,
		.rec = r->rec,
		.len = r->len };
}

int64_t
retries_put_back(
    struct retries *t, struct stream *s, uint64_t left, int64_t now_ns)
{
	size_t before, first;

	while (t->nwait > 0) {
		first = 0;
		for (size_t i = 1; i < t->nwait; i++)
			if (t->wait[i].due_ns < t->wait[first].due_ns)
				first = i;
		if (t->wait[first].due_ns > now_ns)
			return t->wait[first].due_ns;
		if (!stream_inject(s, t->wait[first].rec, t->wait[first].len,
			now_ns, &before))
			return now_ns + 1000000; /* no room: look again soon */
		/* The mark takes the copy over. */
		mark(t, left + before + 1, &t->wait[first]);
		t->wait[first] = t->wait[--t->nwait];
	}
	return INT64_MAX;
}

size_t
retries_waiting(const struct retries *t)
{
	return t->nwait;
}

/* Order of failed records: by their number in the input. */
static int
by_seq(const void *a, const void *b)
{
	const struct retry_rec *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Write the failed records, each with delim after it, to t->failed_to. */
static int
write_failed(struct retries *t, char delim)
{
	int fd = t->failed_fd, rc = 0;

	qsort(t->failed, t->nfailed, sizeof *t->failed, by_seq);
	for (size_t i = 0; i < t->nfailed && rc == 0; i++) {
		t->failed[i].rec[t->failed[i].len] = delim;
		if (write(fd, t->failed[i].rec, t->failed[i].len + 1) !=
		    (ssize_t)(t->failed[i].len + 1)) {
			warn("--failed-to %s", t->failed_to);
			rc = 1;
		}
	}
	return rc;
}

int
retries_finish(struct retries *t, char delim)
{
	int rc = 0;

	for (size_t i = 0; i < t->nwait; i++) {
		if (t->failed_to != NULL) {
			struct retry_rec *r = keep(&t->failed, &t->nfailed,
			    &t->capfailed, t->wait[i].rec, t->wait[i].len);
			r->seq = t->wait[i].seq;
		}
		free(t->wait[i].rec);
	}
	t->nwait = 0;
	forget_taken(t);
	for (; t->headmark < t->nmark; t->headmark++)
		give_up(t, &t->mark[t->headmark]);
	if (t->failed_fd >= 0) {
		if (t->nfailed > 0)
			rc = write_failed(t, delim);
		if (close(t->failed_fd) != 0 && rc == 0) {
			warn("--failed-to %s", t->failed_to);
			rc = 1;
		}
		t->failed_fd = -1;
	}
	for (size_t i = 0; i < t->nfailed; i++)
		free(t->failed[i].rec);
	free(t->failed);
	free(t->wait);
	free(t->mark);
	t->failed = t->wait = NULL;
	t->mark = NULL;
	t->nfailed = 0;
	if (t->dir[0] != '\0') {
		char path[160];

		for (unsigned i = 0; i < t->slots; i++) {
			snprintf(path, sizeof path, "%s/%u", t->dir, i);
			forget(path);
		}
		(void)rmdir(t->dir);
		t->dir[0] = '\0';
	}
	return rc;
}
