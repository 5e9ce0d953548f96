/* -a sliding through a --shared file: its ring of release times, locked. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"
#include "shared.h"
#include "sharedfile.h"
#include "signals.h"

size_t
shared_file_bytes(const struct shared_state *h)
{
	if (atomic_load(&h->magic) != SHARED_MAGIC ||
	    (h->bytes & KIND_SLIDING) == 0)
		return sizeof *h;
	if (h->n == 0 || h->n > SHARED_WINDOW_MAX)
		return 0;
	return sizeof *h + (size_t)(h->n + 1) * sizeof(int64_t);
}

int
shared_write_ring(int fd, const struct shared_state *init)
{
	static const char zero[65536];
	uint64_t end = SHARED_END;
	size_t left;
	ssize_t w;

	if ((init->bytes & KIND_SLIDING) == 0)
		return 0;
	/* Written, not a hole left by ftruncate: a full disk then fails the
	 * making of the file, not a later store into its mapping (SIGBUS). */
	for (left = init->n * sizeof(int64_t); left > 0; left -= (size_t)w)
		if ((w = write(fd, zero,
			 left < sizeof zero ? left : sizeof zero)) <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
	if ((w = write(fd, &end, sizeof end)) == (ssize_t)sizeof end)
		return 0;
	if (w >= 0)
		errno = ENOSPC; /* a short write to a regular file */
	return -1;
}

int
shared_lock(int fd, short type)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1
	};
	int rc;

	/* The lock orders the ring's stores between processes; the fences
	 * say so to the compiler too. */
	atomic_thread_fence(memory_order_seq_cst);
	/* A process stopped while it holds the lock holds up the others:
	 * a stop signal (timeout(1)'s) ends the wait, and the run, with
	 * nothing booked. */
	while ((rc = fcntl(fd, F_SETLKW, &fl)) != 0 && errno == EINTR)
		if (signals_stop_requested())
			signals_finish();
	atomic_thread_fence(memory_order_seq_cst);
	return rc;
}

/* Hold s's lock (on) or let it go; a file that cannot be locked: exit 1. */
static void
hold(const struct shared *s, bool on)
{
	if (shared_lock(s->fd, on ? F_WRLCK : F_UNLCK) != 0)
		err(1, "cannot lock %s", s->what);
}

/* The units booked so far, of a file not damaged (under the lock). */
static uint64_t
sound_head(const struct shared *s)
{
	int64_t head = atomic_load(&s->st->tat);

	if (head < 0 || head > GCRA_MAX_SCALED ||
	    atomic_load(&s->st->magic) != SHARED_MAGIC ||
	    atomic_load(&s->st->end) != SHARED_END || s->st->n != s->ring.n ||
	    atomic_load(SLIDE_END(&s->ring)) != SHARED_END)
		shared_damaged(s);
	return (uint64_t)head;
}

/* Monotonic t_ns in the file's time (ns from its making), in range. */
static int64_t
file_time(const struct shared *s, int64_t t_ns)
{
	int64_t t = t_ns - s->epoch_ns;

	return t < 0 ? 0 : t > s->ring.max_ns ? s->ring.max_ns : t;
}

void
shared_ring_of(struct slidering *r, struct shared_state *st)
{
	int64_t width = st->d < GCRA_MAX_SCALED ? (int64_t)st->d :
						  GCRA_MAX_SCALED;

	/* The guard of a fixed window's end, for the same reason: a unit
	 * that goes a little after its stamp, not yet told, keeps the bound. */
	*r = (struct slidering){ .t = SLIDE_RING(st),
		.n = st->n,
		.width_ns = width,
		.span_ns = width +
		    (width / 10 < WIN_GUARD_NS ? width / 10 : WIN_GUARD_NS),
		.max_ns = GCRA_MAX_SCALED };
}

bool
shared_ring_sound(
    const struct slidering *r, struct shared_state *st, int64_t now_ns)
{
	/* Stamps beyond as many windows ahead as a fixed window's word may
	 * be: a file tampered with, which would wait for decades. */
	return atomic_load(SLIDE_END(r)) == SHARED_END &&
	    slidering_check(r, (uint64_t)atomic_load(&st->tat),
		slidering_reach(r, now_ns, WIN_AHEAD_MAX)) == 0;
}

int
shared_slide_open(struct shared *s, char *err, size_t errsz)
{
	bool sound;

	shared_ring_of(&s->ring, s->st);
	if (shared_lock(s->fd, F_RDLCK) != 0)
		return msg_fail(
		    err, errsz, "cannot lock %s: %s", s->path, strerror(errno));
	sound = shared_ring_sound(
	    &s->ring, s->st, file_time(s, clock_now_ns()));
	(void)shared_lock(s->fd, F_UNLCK);
	if (!sound)
		return msg_fail(err, errsz,
		    "%s is corrupt: remove it when no process uses it",
		    s->path);
	return 0;
}

/*
 * Book units at now_ns in line with the other processes: when they go.
 * The stamps are stored first, then head, which makes them count: a
 * process killed between the two leaves the places it stamped holding a
 * later time than the units they held, which only delays the units n
 * after those (it never grants one more).
 */
static int64_t
reserve(struct shared *s, int64_t now_ns, uint64_t units)
{
	uint64_t head;
	int64_t at;

	shared_check_size(s, now_ns);
	units = units < s->ring.n ? units : s->ring.n;
	hold(s, true);
	head = sound_head(s);
	at = slidering_book(&s->ring, &head, file_time(s, now_ns), units);
	if (at < 0)
		shared_damaged(s);
	atomic_store(&s->st->tat, (int64_t)head);
	hold(s, false);
	s->mine_lo = head - units;
	s->mine_hi = head;
	s->mine_ns = at;
	at += s->epoch_ns;
	return at > now_ns ? at : now_ns;
}

/*
 * Take up to max units at the present: those that may go now.  Judged at
 * a past arrival, a unit would have a place that other processes may
 * since have taken.
 */
static uint64_t
take(struct shared *s, uint64_t max)
{
	int64_t present = clock_now_ns(), now;
	uint64_t head, got;

	shared_check_size(s, present);
	now = file_time(s, present);
	hold(s, true);
	head = sound_head(s);
	if (slidering_take(&s->ring, &head, now, max, &got) != 0)
		shared_damaged(s);
	atomic_store(&s->st->tat, (int64_t)head);
	hold(s, false);
	if (got > 0) {
		s->mine_lo = head - got;
		s->mine_hi = head;
		s->mine_ns = now;
	}
	return got;
}

/*
 * The latest units taken went at at_ns: later than stamped (a command
 * that started late), their stamps move to when they went, unless the
 * units n after them are booked already (the guard covers those).
 */
static void
slide_went(void *self, uint64_t units, int64_t at_ns)
{
	struct shared *s = self;
	int64_t at = file_time(s, at_ns);
	uint64_t lo = s->mine_hi - s->mine_lo > units ? s->mine_hi - units :
							s->mine_lo;

	if (at <= s->mine_ns || lo == s->mine_hi)
		return;
	hold(s, true);
	if (slidering_went(&s->ring, sound_head(s), lo, s->mine_hi, at) != 0)
		shared_damaged(s);
	hold(s, false);
	if (lo == s->mine_lo)
		s->mine_ns = at;
}

static size_t
slide_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	if (n == 0)
		return 0;
	b->due_ns = reserve(self, now_ns, b->units);
	return 1;
}

static size_t
slide_judge(void *self, struct booking *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i].taken = take(self, b[i].units);
	return n;
}

void
shared_slide_backend(struct gate_backend *be)
{
	be->plan = slide_plan;
	be->judge = slide_judge;
	be->went = slide_went;
}
