/* A zone's table of UTC offsets (zonemap), from the system's zone data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calendar.h"
#include "msg.h"
#include "zoneinfo.h"

#define ZONE_DIR "/usr/share/zoneinfo"
#define SEC_NS 1000000000LL
/*
 * The span probed around now, and the step between two probes: a zone
 * whose offset changed twice within a step would seem not to change (no
 * zone does so in 6 hours); each change found is then sought to the
 * second, in about 15 probes.  Some 7000 calls of localtime_r in all.
 */
#define PROBE_BEFORE_S (400LL * 86400)
#define PROBE_AFTER_S (3LL * 366 * 86400)
#define PROBE_STEP_S (6LL * 3600)

/* The directory of the zone data: TZDIR's, as the C library reads it. */
static const char *
zone_dir(void)
{
	const char *d = getenv("TZDIR");

	return d != NULL && d[0] == '/' ? d : ZONE_DIR;
}

/* Is path a regular file that starts as a zone file does ("TZif")? */
static bool
tzif(const char *path)
{
	char magic[4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
	    memcmp(magic, "TZif", sizeof magic) == 0;
	(void)close(fd);
	return ok;
}

/*
 * The zone file of name into path: name itself when absolute, else under
 * the zone data's directory, with no ".." to climb out of it.  Is it
 * there, a zone file?
 */
static bool
zone_file(const char *name, char *path, size_t size)
{
	int n;

	if (name[0] == '\0' || strstr(name, "..") != NULL)
		return false;
	n = name[0] == '/' ? snprintf(path, size, "%s", name) :
			     snprintf(path, size, "%s/%s", zone_dir(), name);
	return n > 0 && (size_t)n < size && tzif(path);
}

/*
 * The zone of --tz local into name: TZ's (its leading ':' aside; empty,
 * UTC, as the C library takes it), else the one /etc/localtime links to
 * in the zone data, else /etc/localtime itself, else UTC (the C
 * library's choice then).  *from says which, for a refusal.
 */
static void
local_name(char *name, size_t size, const char **from)
{
	const char *tz = getenv("TZ"), *p, *q;
	char link[PATH_MAX], path[PATH_MAX];
	ssize_t n;

	if (tz != NULL) {
		*from = "TZ";
		tz += tz[0] == ':';
		snprintf(name, size, "%s", tz[0] != '\0' ? tz : "UTC");
		return;
	}
	*from = "/etc/localtime";
	if ((n = readlink("/etc/localtime", link, sizeof link - 1)) > 0) {
		link[n] = '\0';
		for (p = NULL, q = link; (q = strstr(q, "zoneinfo/")) != NULL;
		     q++)
			p = q + strlen("zoneinfo/");
		if (p != NULL && zone_file(p, path, sizeof path)) {
			snprintf(name, size, "%s", p);
			return;
		}
	}
	snprintf(name, size, "%s",
	    access("/etc/localtime", F_OK) == 0 ? "/etc/localtime" : "UTC");
}

/* The UTC offset at s of the zone TZ names, in s; false if none. */
static bool
offset_at(int64_t s, int64_t *off)
{
	time_t t = (time_t)s;
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return false;
	*off = calendar_days_from_civil(
		   tm.tm_year + 1900LL, tm.tm_mon + 1, tm.tm_mday) *
		86400 +
	    tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec - s;
	return true;
}

/*
 * The offsets of the zone TZ names from from_s to to_s into z: probed
 * every PROBE_STEP_S, and each change between two probes found to the
 * second by halving.  0, or -1 (errno set).
 */
static int
probe(struct zonemap *z, int64_t from_s, int64_t to_s)
{
	int64_t prev, off, lo, hi, mid, o;

	if (!offset_at(from_s, &prev))
		return -1;
	z->base_off_ns = prev * SEC_NS;
	for (int64_t t = from_s + PROBE_STEP_S; t <= to_s; t += PROBE_STEP_S) {
		if (!offset_at(t, &off))
			return -1;
		/* The first second of each change since the last probe. */
		for (lo = t - PROBE_STEP_S; off != prev; lo = hi) {
			for (hi = t; hi - lo > 1;) {
				mid = lo + (hi - lo) / 2;
				if (!offset_at(mid, &o))
					return -1;
				*(o == prev ? &lo : &hi) = mid;
			}
			if (!offset_at(hi, &prev) ||
			    zonemap_add(z, hi * SEC_NS, prev * SEC_NS) != 0)
				return -1;
		}
	}
	return 0;
}

/* Probe the zone file path around now_s with TZ set to it, then put TZ
 * back as it was.  0, or -1 (errno set). */
static int
probe_file(struct zonemap *z, const char *path, int64_t now_s)
{
	const char *old = getenv("TZ");
	char *saved = old != NULL ? strdup(old) : NULL, tz[PATH_MAX + 2];
	int rc = -1, e = ENOMEM;

	snprintf(tz, sizeof tz, ":%s", path);
	if ((old == NULL || saved != NULL) && setenv("TZ", tz, 1) == 0) {
		tzset();
		errno = EINVAL; /* localtime_r may fail and set none */
		rc = probe(z, now_s - PROBE_BEFORE_S, now_s + PROBE_AFTER_S);
		e = errno;
		if (saved != NULL)
			(void)setenv("TZ", saved, 1);
		else
			(void)unsetenv("TZ");
		tzset();
	}
	free(saved);
	errno = e;
	return rc;
}

int
zoneinfo_load(struct zonemap *z, const char *name, int64_t wall_ns, char *err,
    size_t errsz)
{
	char want[PATH_MAX], path[PATH_MAX];
	const char *from = NULL;

	memset(z, 0, sizeof *z);
	if (strcmp(name, "local") == 0)
		local_name(want, sizeof want, &from);
	else
		snprintf(want, sizeof want, "%s", name);
	if (strcmp(want, "UTC") == 0) {
		snprintf(z->name, sizeof z->name, "UTC");
		return 0;
	}
	if (strlen(want) >= sizeof z->name ||
	    !zone_file(want, path, sizeof path))
		return msg_fail(err, errsz,
		    "unknown time zone '%s'%s%s%s: give a name from %s such as "
		    "Europe/Paris, or UTC",
		    want, from != NULL ? " (" : "", from != NULL ? from : "",
		    from != NULL ? ", for --tz local)" : "", zone_dir());
	if (probe_file(z, path, calendar_floor_div(wall_ns, SEC_NS)) != 0) {
		zonemap_free(z);
		return msg_fail(err, errsz, "time zone '%s' (%s): %s", want,
		    path, strerror(errno));
	}
	/* No offset and no change: UTC by any other name. */
	snprintf(z->name, sizeof z->name, "%.*s", (int)sizeof z->name - 1,
	    z->n == 0 && z->base_off_ns == 0 ? "UTC" : want);
	return 0;
}
