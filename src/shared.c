/* A token bucket shared by processes: one word in a file mapped in memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "rundir.h"
#include "shared.h"

#define SHARED_MAGIC	0x3253484254425400ULL	/* "\0TBTBHS2" */
/* How long an opener waits for another process to finish creating it. */
#define SHARED_INIT_WAIT_MS	1000

/*
 * The file.  tat is the whole token state, changed only by compare and
 * swap: no lock, so a process killed at any point leaves it consistent.
 * magic is written last by the creator.
 */
struct shared_state {
	_Atomic uint64_t magic;
	uint64_t n, d, burst;
	uint64_t bytes;		/* 1: units are bytes (-c), 0: records */
	int64_t epoch_ns;
	char rate_text[40];
	_Atomic int64_t tat;
};

/* Put the reason in err; -1. */
static int
fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* The analyzer misses the va_start above:
	 * NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/* Map the file open on fd, checked to be ours alone and whole. */
static struct shared_state *
map_file(int fd, const char *path, char *err, size_t errsz)
{
	struct stat st;
	void *p;

	for (int ms = 0;; ms++) {
		if (fstat(fd, &st) != 0) {
			fail(err, errsz, "%s: %s", path, strerror(errno));
			return NULL;
		}
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 077) != 0) {
			fail(err, errsz, "%s is not a private file of yours",
			    path);
			return NULL;
		}
		if (st.st_size == (off_t)sizeof(struct shared_state))
			break;
		if (st.st_size != 0 || ms >= SHARED_INIT_WAIT_MS) {
			fail(err, errsz, "%s is not a shared bucket (wrong "
			    "size)", path);
			return NULL;
		}
		(void)clock_sleep_until(clock_now_ns() + 1000000);
	}
	p = mmap(NULL, sizeof(struct shared_state), PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fail(err, errsz, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return p;
}

int
shared_open(struct shared *s, const char *name, uint64_t n, uint64_t d,
    uint64_t burst, bool bytes, const char *rate_text, char *err,
    size_t errsz)
{
	char dir[sizeof s->path - 80];
	struct shared_state *st;
	bool created = false;
	int fd, rc;

	if (burst > (uint64_t)GCRA_MAX_SCALED / ((d + n - 1) / n))
		return fail(err, errsz, "-r %s: the burst takes too long to "
		    "refill for a shared bucket", rate_text);
	/*
	 * In the file, time is plain monotonic nanoseconds, good for 73
	 * years of uptime whatever the rate, and a unit costs its interval
	 * rounded up to a whole ns: never faster than asked, and slower by
	 * less than 1 ns a unit (exact when d / n is whole).
	 */
	s->g = (struct gcra){ 1, (d + n - 1) / n, burst };
	if ((rc = rundir_make(dir, sizeof dir)) == -2)
		return fail(err, errsz, "%s is not a private directory (mode "
		    "0700, owned by you)", dir);
	if (rc != 0)
		return fail(err, errsz, "no directory for shared buckets");
	snprintf(s->path, sizeof s->path, "%s/%s.bucket", dir, name);
	fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd >= 0) {
		created = true;
		if (ftruncate(fd, (off_t)sizeof *st) != 0) {
			(void)close(fd);
			(void)unlink(s->path);
			return fail(err, errsz, "%s: %s", s->path,
			    strerror(errno));
		}
	} else if (errno != EEXIST || (fd = open(s->path, O_RDWR |
	    O_NOFOLLOW | O_CLOEXEC)) < 0) {
		return fail(err, errsz, "%s: %s", s->path, strerror(errno));
	}
	st = map_file(fd, s->path, err, errsz);
	(void)close(fd);
	if (st == NULL)
		return -1;
	s->st = st;
	if (created) {
		st->n = n;
		st->d = d;
		st->burst = burst;
		st->bytes = bytes;
		st->epoch_ns = 0;	/* the clock's own origin: boot */
		snprintf(st->rate_text, sizeof st->rate_text, "%s", rate_text);
		atomic_store(&st->tat, 0);	/* full */
		atomic_store(&st->magic, SHARED_MAGIC);
	}
	for (int ms = 0; atomic_load(&st->magic) != SHARED_MAGIC; ms++) {
		if (atomic_load(&st->magic) != 0 || ms >= SHARED_INIT_WAIT_MS)
			return fail(err, errsz, "%s is not a shared bucket, or "
			    "its creator died: remove it", s->path);
		(void)clock_sleep_until(clock_now_ns() + 1000000);
	}
	if (st->n != n || st->d != d || st->burst != burst ||
	    st->bytes != bytes) {
		char was[120];

		snprintf(was, sizeof was, "%.*s, burst %llu%s",
		    (int)sizeof st->rate_text, st->rate_text,
		    (unsigned long long)st->burst, st->bytes ? " (bytes)" : "");
		snprintf(err, errsz, "shared bucket '%s' is -r %s; this run "
		    "asks for -r %s, burst %llu%s (give the same, or remove %s "
		    "when no process uses it)", name, was, rate_text,
		    (unsigned long long)burst, bytes ? " (bytes)" : "", s->path);
		return -1;
	}
	{
		int64_t tat = atomic_load(&st->tat);

		if (tat < 0 || tat > GCRA_MAX_SCALED || st->epoch_ns < 0)
			return fail(err, errsz, "%s is corrupt: remove it when "
			    "no process uses it", s->path);
	}
	s->epoch_ns = st->epoch_ns;
	if (gcra_scale(&s->g, s->epoch_ns, clock_now_ns()) < 0)
		return fail(err, errsz, "shared bucket %s is too old for its "
		    "rate: remove it when no process uses it", s->path);
	return 0;
}

/* Scaled time of t_ns; times beyond the range stick at its end. */
static int64_t
scaled(const struct shared *s, int64_t t_ns)
{
	int64_t t = gcra_scale(&s->g, s->epoch_ns, t_ns);

	return t >= 0 ? t : GCRA_MAX_SCALED;
}

static int64_t
s_ready_at(const void *self, int64_t ready_ns, uint64_t units)
{
	const struct shared *s = self;
	int64_t at, now = scaled(s, ready_ns);

	(void)gcra_reserve(&s->g, atomic_load(&s->st->tat), now, units, &at);
	return at > now ? gcra_unscale(&s->g, s->epoch_ns, at) : ready_ns;
}

static uint64_t
s_avail(const void *self, int64_t ready_ns, int64_t now_ns)
{
	const struct shared *s = self;

	(void)ready_ns;
	return gcra_avail(&s->g, atomic_load(&s->st->tat), scaled(s, now_ns));
}

static uint64_t
s_take(void *self, int64_t ready_ns, int64_t now_ns, uint64_t max)
{
	struct shared *s = self;
	int64_t now, present, tat = atomic_load(&s->st->tat), at;
	uint64_t got;

	/* Judged at a past arrival, a unit would take a token the bucket
	 * had then, which other processes may since have taken: book at the
	 * present instead. */
	(void)ready_ns;
	present = clock_now_ns();
	now = scaled(s, present > now_ns ? present : now_ns);
	do {
		got = gcra_avail(&s->g, tat, now);
		if (got > max)
			got = max;
		if (got == 0)
			return 0;
	} while (!atomic_compare_exchange_weak(&s->st->tat, &tat,
	    gcra_reserve(&s->g, tat, now, got, &at)));
	return got;
}

static int64_t
s_reserve(void *self, int64_t now_ns, uint64_t units)
{
	struct shared *s = self;
	int64_t now = scaled(s, now_ns), tat = atomic_load(&s->st->tat), at;

	while (!atomic_compare_exchange_weak(&s->st->tat, &tat,
	    gcra_reserve(&s->g, tat, now, units, &at)))
		;
	return at > now ? gcra_unscale(&s->g, s->epoch_ns, at) : now_ns;
}

void
shared_limiter(struct limiter *l, struct shared *s)
{
	*l = (struct limiter){ s, s_ready_at, s_avail, s_take, s_reserve };
}
