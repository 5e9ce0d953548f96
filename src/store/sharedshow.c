/* --show and --reset: a --shared bucket's file, read or made new. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "calendar.h"
#include "clock.h"
#include "jsontext.h"
#include "msg.h"
#include "shared.h"
#include "sharedfile.h"
#include "zoneinfo.h"

/* A bucket's file, mapped: its path, descriptor and state. */
struct opened {
	char path[4096];
	char printable[4096]; /* path, its control bytes escaped */
	int fd;
	struct shared_state *st;
	size_t bytes; /* of the file, all mapped */
};

/* A sliding window's ring whole, its stamps in range?  Locked to read. */
static bool
ring_sound(struct opened *o)
{
	int64_t now = clock_now_ns() + clock_wall_offset_ns() - o->st->epoch_ns;
	struct slidering r;
	bool ok;

	if ((o->st->bytes & KIND_SLIDING) == 0)
		return true;
	shared_ring_of(&r, o->st);
	if (shared_lock(o->fd, F_RDLCK) != 0)
		return false;
	ok = shared_ring_sound(&r, o->st, now < 0 ? 0 : now);
	(void)shared_lock(o->fd, F_UNLCK);
	return ok;
}

/* Open and map name's file in the state directory; 0 or -1 (err). */
/*
 * Are st's rate and burst of a size a run could have made: n units every
 * d ns, d and a full bucket's time within half the range of the clock's
 * times (a run allows 3650 days and 100 years of them)?
 */
static bool
sound_rate(const struct shared_state *st)
{
	uint64_t unit;

	if (st->n == 0 || st->d == 0 || st->d > (uint64_t)INT64_MAX / 2)
		return false;
	unit = st->d / st->n + (st->d % st->n != 0);
	return st->burst <= (uint64_t)INT64_MAX / 2 / unit;
}

static int
open_bucket(struct opened *o, const char *name, const char *dir_given,
    char *err, size_t errsz)
{
	char dir[sizeof o->path - 80];

	if (shared_dir(dir_given, dir, sizeof dir, err, errsz) != 0)
		return -1;
	snprintf(o->path, sizeof o->path, "%s/%s.bucket", dir, name);
	if ((o->fd = open(o->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return msg_fail(err, errsz,
		    errno == ENOENT ? "no shared bucket '%s' in %s: no run "
				      "has used it yet, or it was removed" :
				      "%s: %s",
		    errno == ENOENT ? name : o->path,
		    errno == ENOENT ? dir : strerror(errno));
	if ((o->st = shared_map(o->fd, o->path, &o->bytes, err, errsz)) ==
	    NULL) {
		(void)close(o->fd);
		return -1;
	}
	if (atomic_load(&o->st->magic) != SHARED_MAGIC ||
	    atomic_load(&o->st->end) != SHARED_END ||
	    atomic_load(&o->st->tat) < 0 ||
	    atomic_load(&o->st->tat) > GCRA_MAX_SCALED || !sound_rate(o->st) ||
	    o->st->epoch_ns < 0 || !ring_sound(o)) {
		msg_fail(err, errsz,
		    "%s is not a shared bucket, or is damaged: remove it when "
		    "no process uses it",
		    o->path);
		(void)munmap(o->st, o->bytes);
		(void)close(o->fd);
		return -1;
	}
	return 0;
}

static void
close_bucket(struct opened *o)
{
	(void)munmap(o->st, o->bytes);
	(void)close(o->fd);
}

/* The rate as the file gives it, fit for a terminal, into out. */
static const char *
rate_of(const struct shared_state *st, char *out, size_t size)
{
	snprintf(out, size, "%.*s", (int)sizeof st->rate_text, st->rate_text);
	msg_escape(out, size);
	return out;
}

/* Room for json_head's line: a path, a rate and a name, escaped. */
#define JSON_HEAD (8192 + 1200 + 1024)

/*
 * The fields each --show --json line starts with, its name, path, kind
 * and limit, as '{"name":...' into out; the line's own fields follow.
 */
static const char *
json_head(const struct opened *o, const char *name, const char *kind, char *out,
    size_t size)
{
	char path[8192], rate[200], jrate[1200];

	snprintf(out, size,
	    "{\"name\":\"%s\",\"path\":\"%s\",\"kind\":\"%s\",\"limit\":\"%s\"",
	    name, json_text(o->path, path, sizeof path), kind,
	    json_text(rate_of(o->st, rate, sizeof rate), jrate, sizeof jrate));
	return out;
}

/* Seconds of ns, for the report. */
static double
secs(int64_t ns)
{
	return ns > 0 ? (double)ns / 1e9 : 0;
}

/* A bucket: its tokens now, when the next comes and when it is full. */
static void
show_bucket(const struct opened *o, const char *name, bool json, FILE *out)
{
	const struct shared_state *st = o->st;
	struct gcra g = {
		.n = 1, .d = (st->d + st->n - 1) / st->n, .burst = st->burst
	};
	int64_t now = clock_now_ns() + clock_wall_offset_ns() - st->epoch_ns;
	int64_t tat = atomic_load(&st->tat), next, full;
	uint64_t have;
	char rate[200], head[JSON_HEAD];

	now = now < 0 ? 0 : now;
	have = gcra_avail(&g, tat, now);
	full = tat > now ? tat - now : 0;
	/* The next token: when what the bucket owes falls by one more. */
	next = have >= st->burst ?
	    0 :
	    tat - (int64_t)((st->burst - have) * g.d) + (int64_t)g.d - now;
	if (json)
		fprintf(out,
		    "%s,\"burst\":%llu,\"unit\":\"%s\","
		    "\"tokens\":%llu,\"next_s\":%.6f,\"full_s\":%.6f}\n",
		    json_head(o, name, "bucket", head, sizeof head),
		    (unsigned long long)st->burst,
		    (st->bytes & 1) ? "bytes" : "records",
		    (unsigned long long)have, secs(next), secs(full));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -r %s, burst %llu%s\n"
		    "%llu of %llu tokens now; %s%.3f s; full in %.3f s\n",
		    name, o->printable, rate_of(st, rate, sizeof rate),
		    (unsigned long long)st->burst,
		    (st->bytes & 1) ? " (bytes)" : "", (unsigned long long)have,
		    (unsigned long long)st->burst,
		    have >= st->burst ? "full; the next token in " :
					"the next token in ",
		    secs(next), secs(full));
}

/*
 * A fixed window: the records of the window now, and when the next
 * starts, in the calendar of zone z (NULL: UTC), which is named zone.
 */
static void
show_window(const struct opened *o, const char *name, bool json, FILE *out,
    const struct zonemap *z, const char *zone)
{
	const struct shared_state *st = o->st;
	int64_t width = (int64_t)st->d,
		wall = clock_now_ns() + clock_wall_offset_ns();
	int64_t base = calendar_floor_div(st->epoch_ns - WIN_BASE_NS, width);
	int64_t cur = zonemap_window_reached(z, wall, width) - base;
	int64_t w = atomic_load(&st->tat),
		start = zonemap_window_start(z, cur + base, width),
		end = zonemap_window_start(z, cur + base + 1, width);
	char rate[200], head[JSON_HEAD], jzone[400];
	uint64_t used = WIN_INDEX(w) == cur ? WIN_COUNT(w) :
	    WIN_INDEX(w) > cur		    ? st->n :
					      0;
	char at[64], until[64];

	used = used < st->n ? used : st->n;
	zonemap_print(z, start, at, sizeof at);
	zonemap_print(z, end, until, sizeof until);
	if (json)
		fprintf(out,
		    "%s,\"window_start\":\"%s\","
		    "\"used\":%llu,\"left\":%llu,\"booked_ahead\":%lld,"
		    "\"next_window_s\":%.6f,\"window_end\":\"%s\","
		    "\"zone\":\"%s\"}\n",
		    json_head(o, name, "fixed", head, sizeof head), at,
		    (unsigned long long)used,
		    (unsigned long long)(st->n - used),
		    (long long)(WIN_INDEX(w) > cur ? WIN_INDEX(w) - cur : 0),
		    secs(end - wall), until,
		    json_text(zone, jzone, sizeof jzone));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -a fixed -r %s%s%s\n"
		    "window from %s: %llu of %llu used, %llu left; the next "
		    "window in %.3f s\n",
		    name, o->printable, rate_of(st, rate, sizeof rate),
		    z != NULL ? " --tz " : "", z != NULL ? zone : "", at,
		    (unsigned long long)used, (unsigned long long)st->n,
		    (unsigned long long)(st->n - used), secs(end - wall));
}

/*
 * The fixed window of o, in the calendar of the zone its file names
 * (loaded from the system's zone data); 0, or -1 with why in err.
 */
static int
show_zoned(const struct opened *o, const char *name, bool json, FILE *out,
    char *err, size_t errsz)
{
	char zone[sizeof o->st->zone + 1], why[1024];
	struct zonemap z;

	snprintf(
	    zone, sizeof zone, "%.*s", (int)sizeof o->st->zone, o->st->zone);
	msg_escape(zone, sizeof zone);
	if (strcmp(zone, "UTC") == 0) {
		show_window(o, name, json, out, NULL, zone);
		return 0;
	}
	if (zoneinfo_load(&z, zone, clock_now_ns() + clock_wall_offset_ns(),
		why, sizeof why) != 0)
		return msg_fail(err, errsz, "%s: %s", o->path, why);
	show_window(o, name, json, out, &z, z.name);
	zonemap_free(&z);
	return 0;
}

/*
 * A sliding window: the records it counts now (those of its last width),
 * those booked ahead, what a take would get, and when the next may go.
 */
static void
show_slide(const struct opened *o, const char *name, bool json, FILE *out)
{
	struct shared_state *st = o->st;
	int64_t now = clock_now_ns() + clock_wall_offset_ns() - st->epoch_ns;
	uint64_t used, ahead, left;
	char rate[200], head[JSON_HEAD];
	struct slidering r;
	int64_t next;

	shared_ring_of(&r, st);
	now = now < 0 ? 0 : now > r.max_ns ? r.max_ns : now;
	(void)shared_lock(o->fd, F_RDLCK);
	next = slidering_look(
	    &r, (uint64_t)atomic_load(&st->tat), now, &used, &ahead, &left);
	(void)shared_lock(o->fd, F_UNLCK);
	if (json)
		fprintf(out,
		    "%s,\"used\":%llu,\"booked_ahead\":%llu,"
		    "\"left\":%llu,\"next_s\":%.6f}\n",
		    json_head(o, name, "sliding", head, sizeof head),
		    (unsigned long long)used, (unsigned long long)ahead,
		    (unsigned long long)left, secs(next - now));
	else
		fprintf(out,
		    "shared bucket '%s' (%s): -a sliding -r %s\n"
		    "%llu of %llu used in the last %.3f s, %llu booked ahead, "
		    "%llu left; the next may go in %.3f s\n",
		    name, o->printable, rate_of(st, rate, sizeof rate),
		    (unsigned long long)used, (unsigned long long)st->n,
		    secs(r.width_ns), (unsigned long long)ahead,
		    (unsigned long long)left, secs(next - now));
}

int
shared_show(const char *name, const char *dir, bool json, FILE *out, char *err,
    size_t errsz)
{
	struct opened o;
	int rc = 0;

	if (open_bucket(&o, name, dir, err, errsz) != 0)
		return -1;
	snprintf(o.printable, sizeof o.printable, "%s", o.path);
	msg_escape(o.printable, sizeof o.printable);
	if (o.st->bytes & KIND_SLIDING)
		show_slide(&o, name, json, out);
	else if (o.st->bytes & KIND_FIXED)
		rc = show_zoned(&o, name, json, out, err, errsz);
	else
		show_bucket(&o, name, json, out);
	close_bucket(&o);
	return rc;
}

int
shared_reset(const char *name, const char *dir, char *err, size_t errsz)
{
	struct opened o;

	if (open_bucket(&o, name, dir, err, errsz) != 0)
		return -1;
	/* A bucket full (its time 0), or an empty window: every process
	 * using it books from it at once.  A sliding window's head is
	 * stored under its lock, between bookings. */
	if (o.st->bytes & KIND_SLIDING && shared_lock(o.fd, F_WRLCK) != 0) {
		close_bucket(&o);
		return msg_fail(
		    err, errsz, "cannot lock %s: %s", o.path, strerror(errno));
	}
	atomic_store(&o.st->tat, 0);
	if (o.st->bytes & KIND_SLIDING)
		(void)shared_lock(o.fd, F_UNLCK);
	atomic_store(&o.st->adapt, 0);
	close_bucket(&o);
	return 0;
}
