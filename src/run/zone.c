/* The local time zone (TZ) for --replay: times written without a zone. */
#include <string.h>
#include <time.h>

#include "zone.h"

/*
 * The local time tm taken with daylight saving time (isdst 1) or without
 * (0) into *s; -1 when mktime moves it elsewhere: the zone has no such
 * time with that isdst.
 */
static int
try_local(const struct timestamp_civil *tm, int isdst, int64_t *s)
{
	struct tm t;
	time_t r;

	memset(&t, 0, sizeof t);
	t.tm_year = tm->year - 1900;
	t.tm_mon = tm->month - 1;
	t.tm_mday = tm->day;
	t.tm_hour = tm->hour;
	t.tm_min = tm->min;
	t.tm_sec = tm->sec;
	t.tm_isdst = isdst;
	r = mktime(&t);
	/* -1 is also one second before the epoch: the fields tell. */
	if (t.tm_year != tm->year - 1900 || t.tm_mon != tm->month - 1 ||
	    t.tm_mday != tm->day || t.tm_hour != tm->hour ||
	    t.tm_min != tm->min || t.tm_sec != tm->sec)
		return -1;
	*s = (int64_t)r;
	return 0;
}

int
zone_local(void *arg, const struct timestamp_civil *tm, int64_t utc_s[2])
{
	int64_t dst, std;
	int have_dst, have_std;

	(void)arg;
	have_dst = try_local(tm, 1, &dst) == 0;
	have_std = try_local(tm, 0, &std) == 0;
	if (!have_dst && !have_std)
		return -1;
	if (!have_dst)
		dst = std;
	if (!have_std)
		std = dst;
	utc_s[0] = dst < std ? dst : std;
	utc_s[1] = dst < std ? std : dst;
	return 0;
}

void
zone_civil(int64_t wall_s, struct timestamp_civil *out)
{
	time_t t = (time_t)wall_s;
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	if (localtime_r(&t, &tm) == NULL)
		(void)gmtime_r(&t, &tm);
	*out = (struct timestamp_civil){ tm.tm_year + 1900, tm.tm_mon + 1,
		tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec };
}
