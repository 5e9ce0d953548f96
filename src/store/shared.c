/* A token bucket shared by processes: one word in a file mapped in memory. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adapt.h"
#include "calendar.h"
#include "clock.h"
#include "msg.h"
#include "rundir.h"
#include "runname.h"
#include "shared.h"
#include "sharedfile.h"
#include "signals.h"
#include "zonemap.h"

/* Map the file open on fd, checked to be ours alone and whole. */
struct shared_state *
shared_map(int fd, const char *path, size_t *bytes, char *err, size_t errsz)
{
	struct shared_state h;
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0) {
		msg_fail(err, errsz, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		msg_fail(err, errsz, "%s is not a private file of yours", path);
		return NULL;
	}
	/* Its header, read (not mapped, which a file cut short meanwhile
	 * would make a SIGBUS): the size its kind has. */
	if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    st.st_size != (off_t)shared_file_bytes(&h)) {
		msg_fail(err, errsz,
		    "%s is not a shared bucket (wrong size): "
		    "remove it when no process uses it",
		    path);
		return NULL;
	}
	*bytes = (size_t)st.st_size;
	p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		msg_fail(err, errsz, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * Is f in dfd the temporary file of a creator killed before it could
 * remove it?  Only a regular file is one.  It is named by its creator's
 * pid: stale once that process is gone, or is us (we hold none yet: a
 * process that had our pid left it).  A pid that is still there may be a
 * zombie's or another process's that took it, so a file older than
 * SHARED_TEMP_STALE_S is stale too; a creator stopped longer than that
 * finds its file gone, and starts again.
 */
static bool
stale_temp(int dfd, const char *f, void *now)
{
	long pid = runname_temp_pid(f);
	time_t t = *(time_t *)now;
	struct stat st;

	if (pid <= 0 || fstatat(dfd, f, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	if (pid == (long)getpid() ||
	    (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return true;
	return st.st_mtime < t - SHARED_TEMP_STALE_S ||
	    st.st_mtime > t + SHARED_TEMP_STALE_S;
}

/*
 * Create the bucket init at path whole, so that no process, whenever it
 * is killed, leaves a part of one there: written under the temporary
 * name tmp, then linked into place, which fails if another process won
 * the race (then theirs serves).  0 when a bucket is in place, or -1.
 * Its bytes reach the disk before its name does, so that a crash of the
 * machine cannot leave a name with no bucket behind it; later changes
 * go to the disk as the system writes mapped pages back (within about
 * 30 s on Linux): a crash may lose those, the bucket then fuller by what
 * was spent since.
 */
static int
create_file(const char *path, const char *tmp, const struct shared_state *init)
{
	int fd, rc = -1, saved;
	ssize_t w;

	if ((fd = open(tmp,
		 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) <
	    0)
		return -1;
	/* Swept away while we were stopped (ENOENT): the caller tries
	 * again. */
	if ((w = write(fd, init, sizeof *init)) == (ssize_t)sizeof *init &&
	    shared_write_ring(fd, init) == 0 && fsync(fd) == 0)
		rc = link(tmp, path) == 0 || errno == EEXIST ||
			errno == ENOENT ?
		    0 :
		    -1;
	else if (w >= 0 && w < (ssize_t)sizeof *init)
		errno = ENOSPC; /* a short write to a regular file */
	saved = errno;
	(void)close(fd);
	(void)unlink(tmp);
	errno = saved;
	return rc;
}

/*
 * Open the bucket file of name in dir into s->path, creating it full
 * from init if there is none.  The descriptor, or -1 with the reason in
 * err.
 */
static int
open_file(struct shared *s, const char *dir, const char *name,
    const struct shared_state *init, char *err, size_t errsz)
{
	char tmp[sizeof s->path + 32], file[96];
	time_t now;
	int fd;

	snprintf(s->path, sizeof s->path, "%s/%s.bucket", dir, name);
	(void)runname_temp(file, sizeof file, name, (long)getpid());
	snprintf(tmp, sizeof tmp, "%s/%s", dir, file);
	now = time(NULL);
	rundir_sweep(dir, stale_temp, &now);
	/* Another process may remove the bucket between our link and our
	 * open: try again, a few times. */
	for (int tries = 0;; tries++) {
		fd = open(s->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || tries == 3)
			break;
		if (create_file(s->path, tmp, init) != 0)
			break;
	}
	if (fd < 0)
		msg_fail(err, errsz, "%s: %s", s->path, strerror(errno));
	return fd;
}

/* The bucket as it starts, full: the contents of a new file. */
static void
make_state(struct shared_state *init, const struct shared_spec *sp)
{
	memset(init, 0, sizeof *init);
	init->n = sp->n;
	init->d = sp->d;
	init->burst = sp->fixed ? 0 : sp->burst;
	init->bytes = (sp->bytes ? 1 : 0) | (sp->fixed ? KIND_FIXED : 0);
	/* Now on the wall clock: the bucket's time starts at its making. */
	init->epoch_ns = clock_now_ns() + clock_wall_offset_ns();
	snprintf(init->rate_text, sizeof init->rate_text, "%s", sp->rate_text);
	/* Every process of a window counts the days of one zone. */
	if (sp->fixed)
		snprintf(init->zone, sizeof init->zone, "%s",
		    sp->zone != NULL ? sp->zone->name : "UTC");
	atomic_init(&init->tat, 0); /* full */
	atomic_init(&init->adapt, 0);
	atomic_init(&init->magic, SHARED_MAGIC);
	atomic_init(&init->end, SHARED_END);
}

/* How the limit of st is given: "-r RATE, burst B" or "-a fixed -r RATE". */
static void
say_limit(
    const struct shared_state *st, const char *rate, char *out, size_t size)
{
	if (st->bytes & (KIND_FIXED | KIND_SLIDING))
		snprintf(out, size, "-a %s -r %.*s",
		    st->bytes & KIND_FIXED ? "fixed" : "sliding", 40, rate);
	else
		snprintf(out, size, "-r %.*s, burst %llu%s", 40, rate,
		    (unsigned long long)st->burst,
		    (st->bytes & 1) ? " (bytes)" : "");
}

/* Does the mapped bucket st hold what this run asks for?  Else say so. */
static int
check_state(const struct shared *s, const struct shared_state *st,
    const struct shared_state *want, const char *name, char *err, size_t errsz)
{
	int64_t tat = atomic_load(&st->tat);
	char was[120], asks[120];

	if (atomic_load(&st->magic) != SHARED_MAGIC ||
	    atomic_load(&st->end) != SHARED_END)
		return msg_fail(err, errsz,
		    "%s is not a shared bucket: remove it "
		    "when no process uses it",
		    s->path);
	if (st->n != want->n || st->d != want->d || st->burst != want->burst ||
	    st->bytes != want->bytes) {
		say_limit(st, st->rate_text, was, sizeof was);
		say_limit(want, want->rate_text, asks, sizeof asks);
		return msg_fail(err, errsz,
		    "shared bucket '%s' is %s; this run asks for %s (give the "
		    "same, or remove %s when no process uses it)",
		    name, was, asks, s->path);
	}
	if (memcmp(st->zone, want->zone, sizeof st->zone) != 0)
		return msg_fail(err, errsz,
		    "shared bucket '%s' is -a fixed -r %.40s --tz %.*s; this run "
		    "asks for --tz %s (give the same, or remove %s when no "
		    "process uses it)",
		    name, st->rate_text, (int)sizeof st->zone, st->zone,
		    want->zone, s->path);
	if (tat < 0 || tat > GCRA_MAX_SCALED || st->epoch_ns < 0)
		return msg_fail(err, errsz,
		    "%s is corrupt: remove it when "
		    "no process uses it",
		    s->path);
	return 0;
}

/*
 * Be ready for the file to be damaged or cut short while we use it.
 * Another process of ours may write or truncate it.  An access to a page
 * past the end of a truncated file raises SIGBUS, whenever it happens, so
 * a handler must catch it.  A file cut short within its page raises
 * nothing: the bytes past its end read as 0, and the bucket would seem to
 * have refilled.  Checking the size with fstat before each access would
 * add a system call to every booking and still race with a truncation
 * right after it, so the file ends with a word of no zero byte, checked
 * with the magic and the token word at each access (valid_word), which
 * costs no system call; the size itself is looked at once a second, for
 * a file grown.
 */
static void
watch_faults(struct shared *s, const char *name)
{
	snprintf(
	    s->what, sizeof s->what, "shared bucket '%s' (%s)", name, s->path);
	msg_escape(s->what, sizeof s->what);
	snprintf(s->bus_msg, sizeof s->bus_msg,
	    "tbthrottle: %s was "
	    "truncated while in use\n",
	    s->what);
	signals_on_bus_error(s->st, s->map_bytes, s->bus_msg);
}

static int64_t window_of(const struct shared *s, int64_t t_ns);

/*
 * Start a window's time, from sp and the file; -1 when its word names a
 * window far beyond now (a file tampered with: trusted, it would wait
 * for decades or wrap the times).
 */
static int
window_init(struct shared *s, const struct shared_spec *sp)
{
	s->win_n = sp->n;
	s->width_ns = (int64_t)sp->d;
	s->zone = sp->zone;
	s->base = calendar_floor_div(
	    s->st->epoch_ns - WIN_BASE_NS, s->width_ns);
	s->guard_ns = s->width_ns / 10 < WIN_GUARD_NS ? s->width_ns / 10 :
							WIN_GUARD_NS;
	s->last_idx = -1;
	return WIN_INDEX(atomic_load(&s->st->tat)) >
		window_of(s, clock_now_ns()) + WIN_AHEAD_MAX ?
	    -1 :
	    0;
}

/* The state directory (rundir_state) into dir, or -1 with why in err. */
int
shared_dir(const char *given, char *dir, size_t size, char *err, size_t errsz)
{
	int rc = rundir_state(given, dir, size);

	if (rc == -2)
		return msg_fail(err, errsz,
		    "%s is not a private directory (mode 0700, owned by "
		    "you): no place for shared buckets",
		    dir);
	if (rc == -3)
		return msg_fail(err, errsz,
		    "%s is not a directory of yours that only you may write "
		    "in: no place for shared buckets",
		    dir);
	if (rc != 0 && dir[0] != '\0')
		return msg_fail(err, errsz, "%s", dir);
	if (rc != 0)
		return msg_fail(err, errsz,
		    "no directory for shared buckets: set HOME or "
		    "XDG_STATE_HOME, or give --state-dir DIR");
	return 0;
}

/* Can a file hold what sp asks?  0, or -1 with why in err. */
static int
spec_fits(const struct shared_spec *sp, char *err, size_t errsz)
{
	bool window = sp->fixed || sp->sliding;
	const char *alg = sp->fixed ? "fixed" : "sliding";

	if (window && sp->d < SHARED_WINDOW_MIN_NS)
		return msg_fail(err, errsz,
		    "-a %s -r %s: a shared window is 1 ms or longer", alg,
		    sp->rate_text);
	if (window && sp->n > SHARED_WINDOW_MAX)
		return msg_fail(err, errsz,
		    "-a %s -r %s: a shared window counts up to %d "
		    "records",
		    alg, sp->rate_text, SHARED_WINDOW_MAX);
	if (!window &&
	    sp->burst >
		(uint64_t)GCRA_MAX_SCALED / ((sp->d + sp->n - 1) / sp->n))
		return msg_fail(err, errsz,
		    "-r %s: the burst takes too long to "
		    "refill for a shared bucket",
		    sp->rate_text);
	return 0;
}

int
shared_open(
    struct shared *s, const struct shared_spec *sp, char *err, size_t errsz)
{
	char dir[sizeof s->path - 80];
	struct shared_state init, *st;
	int fd;

	if (spec_fits(sp, err, errsz) != 0)
		return -1;
	/*
	 * In the file, time is nanoseconds from its making, good for 73
	 * years whatever the rate, and a unit costs its interval rounded up
	 * to a whole ns: never faster than asked, and slower by less than
	 * 1 ns a unit (exact when d / n is whole).
	 */
	s->g = sp->fixed || sp->sliding ?
	    (struct gcra){ .n = 1, .d = 1, .burst = 1 } :
	    (struct gcra){
		    .n = 1, .d = (sp->d + sp->n - 1) / sp->n, .burst = sp->burst
	    };
	s->d0 = s->g.d;
	if (shared_dir(sp->dir, dir, sizeof dir, err, errsz) != 0)
		return -1;
	make_state(&init, sp);
	init.bytes |= sp->sliding ? KIND_SLIDING : 0;
	if ((fd = open_file(s, dir, sp->name, &init, err, errsz)) < 0)
		return -1;
	if ((st = shared_map(fd, s->path, &s->map_bytes, err, errsz)) == NULL) {
		(void)close(fd);
		return -1;
	}
	s->st = st;
	s->fd = fd; /* for its size, while it is used */
	watch_faults(s, sp->name);
	if (check_state(s, st, &init, sp->name, err, errsz) != 0)
		return -1;
	/*
	 * The bucket's time, in this process's monotonic frame: the wall
	 * clock read once, so that a step of it while this process runs
	 * changes nothing here.  A process started after a step back waits
	 * longer by as much (a bucket never refills for it); one started
	 * after a step forward finds what that time would have given.
	 */
	s->wall_ns = clock_wall_offset_ns();
	s->epoch_ns = st->epoch_ns - s->wall_ns;
	if (sp->fixed && window_init(s, sp) != 0)
		return msg_fail(err, errsz,
		    "%s is corrupt: remove it when no process uses it",
		    s->path);
	if (sp->sliding && shared_slide_open(s, err, errsz) != 0)
		return -1;
	if (gcra_scale(&s->g, s->epoch_ns, clock_now_ns()) < 0)
		return msg_fail(err, errsz,
		    "shared bucket %s is too old for its "
		    "rate: remove it when no process uses it",
		    s->path);
	return 0;
}

/* The file was found damaged, or of another size: say which, exit 1. */
void
shared_damaged(const struct shared *s)
{
	struct stat st;

	if (fstat(s->fd, &st) == 0 && st.st_size < (off_t)s->map_bytes)
		errx(1, "%s was truncated while in use", s->what);
	if (fstat(s->fd, &st) == 0 && st.st_size != (off_t)s->map_bytes)
		errx(1,
		    "%s changed size while in use: remove it when no "
		    "process uses it",
		    s->what);
	errx(1,
	    "%s was damaged while in use: remove it when no "
	    "process uses it",
	    s->what);
}

/* Is tat a word the bucket can hold, in a file not damaged?  Else exit. */
static int64_t
valid_word(const struct shared *s, int64_t tat)
{
	if (tat < 0 || tat > GCRA_MAX_SCALED ||
	    atomic_load(&s->st->magic) != SHARED_MAGIC ||
	    atomic_load(&s->st->end) != SHARED_END)
		shared_damaged(s);
	return tat;
}

/* Once a second, at a booking at now_ns: is the file still its size? */
void
shared_check_size(struct shared *s, int64_t now_ns)
{
	struct stat st;

	if (now_ns < s->check_ns)
		return;
	s->check_ns = now_ns + SHARED_CHECK_NS;
	if (fstat(s->fd, &st) == 0 && st.st_size != (off_t)s->map_bytes)
		shared_damaged(s);
}

/* Scaled time of t_ns; times beyond the range stick at its end. */
static int64_t
scaled(const struct shared *s, int64_t t_ns)
{
	int64_t t = gcra_scale(&s->g, s->epoch_ns, t_ns);

	return t >= 0 ? t : GCRA_MAX_SCALED;
}

/*
 * The window of monotonic time t_ns, from the file's first: the latest
 * begun, so that through a fall back of the zone's clocks the count goes
 * on in the window they had reached.
 */
static int64_t
window_of(const struct shared *s, int64_t t_ns)
{
	int64_t w = zonemap_window_reached(
			s->zone, t_ns + s->wall_ns, s->width_ns) -
	    s->base;

	return w < 0 ? 0 : w > WIN_INDEX_MAX ? WIN_INDEX_MAX : w;
}

/* When window i starts, on the monotonic clock. */
static int64_t
window_start(const struct shared *s, int64_t i)
{
	return zonemap_window_start(s->zone, i + s->base, s->width_ns) -
	    s->wall_ns;
}

/*
 * The window after i that has time: a spring forward skips the windows
 * of the hour it jumps over, which start and end at once (at the
 * change), and a unit counted in one of them would count in none.
 */
static int64_t
window_after(const struct shared *s, int64_t i)
{
	int64_t j = window_of(s, window_start(s, i + 1));

	return j > i + 1 ? j : i + 1;
}

/*
 * The window a unit that goes at t_ns counts in: the next when t_ns is in
 * the last guard_ns of its own, so that one that goes a little late
 * (a command's start) cannot land in a window already full.
 */
static int64_t
window_due(const struct shared *s, int64_t t_ns)
{
	int64_t i = window_of(s, t_ns);

	return window_start(s, i + 1) - t_ns < s->guard_ns ?
	    window_after(s, i) :
	    i;
}

/* Book units at now_ns in the window; when they go. */
static int64_t
window_reserve(struct shared *s, int64_t now_ns, uint64_t units)
{
	int64_t w = atomic_load(&s->st->tat), due = window_due(s, now_ns), i,
		at;
	uint64_t c;

	shared_check_size(s, now_ns);
	units = units < s->win_n ? units : s->win_n;
	do {
		i = WIN_INDEX(valid_word(s, w));
		c = WIN_COUNT(w);
		if (i < due) {
			i = due;
			c = 0;
		}
		if (c + units > s->win_n) {
			i = window_after(s, i);
			c = 0;
		}
	} while (!atomic_compare_exchange_weak(
	    &s->st->tat, &w, WIN_WORD(i, c + units)));
	s->last_idx = i;
	at = window_start(s, i);
	return at > now_ns ? at : now_ns;
}

/*
 * Take up to max units at now_ns, or at the present if later: in the
 * window they go in.  In its last guard_ns the window is closed after
 * them (the word moves to the next, where they count too), so that one
 * that goes a little late (the command of a --take) lands in no window
 * already full, and this one never holds more than N.
 */
static uint64_t
window_take(struct shared *s, int64_t now_ns, uint64_t max)
{
	int64_t present = clock_now_ns(), w = atomic_load(&s->st->tat), i, t;
	int64_t cur, next;
	uint64_t c, got;
	bool late;

	t = present > now_ns ? present : now_ns;
	shared_check_size(s, present);
	cur = window_of(s, t);
	late = window_due(s, t) > cur;
	next = late ? window_due(s, t) : cur;
	do {
		i = WIN_INDEX(valid_word(s, w));
		c = i < cur ? 0 : WIN_COUNT(w);
		/* Booked into a later window: this one is closed. */
		if (i > cur || c >= s->win_n)
			return 0;
		got = s->win_n - c < max ? s->win_n - c : max;
	} while (!atomic_compare_exchange_weak(&s->st->tat, &w,
	    late ? WIN_WORD(next, got) : WIN_WORD(cur, c + got)));
	s->last_idx = next;
	return got;
}

/*
 * The units last booked went at at_ns: later than the window they were
 * counted in (a late start), they count in the window they went in too,
 * unless later ones are booked already.
 */
static void
window_went(void *self, uint64_t units, int64_t at_ns)
{
	struct shared *s = self;
	int64_t i = window_of(s, at_ns), w = atomic_load(&s->st->tat);

	if (i <= s->last_idx)
		return;
	do {
		if (WIN_INDEX(valid_word(s, w)) > i)
			return;
	} while (!atomic_compare_exchange_weak(&s->st->tat, &w,
	    WIN_WORD(i, (WIN_INDEX(w) == i ? WIN_COUNT(w) : 0) + units)));
	s->last_idx = i;
}

/* Take up to max units at now_ns, or at the present if later. */
static uint64_t
take(struct shared *s, int64_t now_ns, uint64_t max)
{
	int64_t now, present, tat = atomic_load(&s->st->tat), at;
	uint64_t got;

	/* Judged at a past arrival, a unit would take a token the bucket
	 * had then, which other processes may since have taken: book at the
	 * present instead. */
	present = clock_now_ns();
	shared_check_size(s, present);
	now = scaled(s, present > now_ns ? present : now_ns);
	do {
		got = gcra_avail(&s->g, valid_word(s, tat), now);
		if (got > max)
			got = max;
		if (got == 0)
			return 0;
	} while (!atomic_compare_exchange_weak(
	    &s->st->tat, &tat, gcra_reserve(&s->g, tat, now, got, &at)));
	return got;
}

/* Book units at now_ns, in line with the other processes; when they go. */
static int64_t
reserve(struct shared *s, int64_t now_ns, uint64_t units)
{
	int64_t now = scaled(s, now_ns), tat = atomic_load(&s->st->tat), at;

	shared_check_size(s, now_ns);
	while (!atomic_compare_exchange_weak(&s->st->tat, &tat,
	    gcra_reserve(&s->g, valid_word(s, tat), now, units, &at)))
		;
	return at > now ? gcra_unscale(&s->g, s->epoch_ns, at) : now_ns;
}

static size_t
s_plan(void *self, struct booking *b, size_t n, int64_t now_ns)
{
	struct shared *s = self;

	if (n == 0)
		return 0;
	b->due_ns = s->win_n > 0 ? window_reserve(s, now_ns, b->units) :
				   reserve(s, now_ns, b->units);
	return 1;
}

static size_t
s_judge(void *self, struct booking *b, size_t n)
{
	struct shared *s = self;

	for (size_t i = 0; i < n; i++)
		b[i].taken = s->win_n > 0 ?
		    window_take(s, b[i].at_ns, b[i].units) :
		    take(s, b[i].at_ns, b[i].units);
	return n;
}

void
shared_backend(struct gate_backend *be, struct shared *s)
{
	*be = (struct gate_backend){ .self = s,
		.plan = s_plan,
		.judge = s_judge,
		.went = s->win_n > 0 ? window_went : NULL,
		.holds = true,
		.batch = 1 };
	if (s->ring.t != NULL)
		shared_slide_backend(be);
}

/*
 * A cut's word w as the file keeps it, its ms counted from the file's
 * making (so that it outlives a boot), or back (to_file false) as this
 * process's, its ms of the monotonic clock: never before its start, nor
 * after now.
 */
static uint64_t
cut_word(const struct shared *s, uint64_t w, bool to_file)
{
	int64_t made_ms = calendar_floor_div(s->epoch_ns, 1000000);
	int64_t ms = (int64_t)ADAPT_WORD_MS(w), now_ms;

	if (w == 0)
		return 0;
	ms = to_file ? ms - made_ms : ms + made_ms;
	now_ms = to_file ? clock_now_ns() / 1000000 - made_ms + 1 :
			   clock_now_ns() / 1000000 + 1;
	ms = ms < 1 ? 1 : ms > now_ms ? now_ms : ms;
	return ADAPT_WORD_OF(ms, ADAPT_WORD_PEAK(w));
}

uint64_t
shared_adapt_cut(struct shared *s, uint64_t w)
{
	uint64_t have = atomic_load(&s->st->adapt), mine = cut_word(s, w, true);

	(void)valid_word(s, atomic_load(&s->st->tat));
	while (ADAPT_WORD_MS(mine) > ADAPT_WORD_MS(have) &&
	    !atomic_compare_exchange_weak(&s->st->adapt, &have, mine))
		;
	return ADAPT_WORD_MS(mine) > ADAPT_WORD_MS(have) ?
	    w :
	    cut_word(s, have, false);
}

void
shared_retune(struct shared *s, uint64_t n, uint64_t d)
{
	uint64_t per = (d + n - 1) / n, d0 = s->d0;
	uint64_t most = (uint64_t)GCRA_MAX_SCALED / 4 /
	    (s->g.burst > 0 ? s->g.burst : 1);

	/* A unit's interval, rounded up: never faster than asked, nor than
	 * the bucket's -r; a burst of such units must still fit the range
	 * of the word (else slowed less). */
	per = per < most ? per : most;
	s->g.d = per > d0 ? per : d0;
	/* The span stays the -r's: slowing gives no token back. */
	s->g.span = s->g.burst * d0 > s->g.d ? s->g.burst * d0 : s->g.d;
}

void
shared_hold(struct shared *s, int64_t until_ns)
{
	int64_t tat = atomic_load(&s->st->tat), want;

	/* Empty at until_ns: its first unit goes then, no sooner. */
	while ((want = gcra_empty_until(
		    &s->g, valid_word(s, tat), scaled(s, until_ns))) > tat &&
	    !atomic_compare_exchange_weak(&s->st->tat, &tat, want))
		;
}
