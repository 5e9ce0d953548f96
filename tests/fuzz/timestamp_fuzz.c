/*
 * Fuzz target: the timestamps of arbitrary records.  Two bytes choose a
 * field, a separator, a local zone and the reference date; when asked,
 * a --time-format follows up to a NUL byte; the rest is records split at
 * newlines, parsed in turn with one state, as a stream is.  Whatever is
 * found must be in range, print as RFC 3339 and parse back to the same
 * time, and the format detected first must be held.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "timeformat.h"
#include "timestamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A local zone *arg seconds east of UTC, where every 01:xx passes twice
 * (as when clocks go back) and, for odd offsets, no 02:xx exists (as when
 * they go forward): the caller's conversion at its most awkward.
 */
static int
awkward_zone(void *arg, const struct timestamp_civil *tm, int64_t utc_s[2])
{
	int64_t off = *(const int64_t *)arg, s;

	if (tm->hour == 2 && (off & 1))
		return -1;
	s = calendar_days_from_civil(tm->year, tm->month, tm->day) * 86400 +
	    tm->hour * 3600 + tm->min * 60 + tm->sec - off;
	utc_s[0] = s;
	utc_s[1] = tm->hour == 1 ? s + 3600 : s;
	return 0;
}

/* That ns prints as RFC 3339 and parses back to itself. */
static void
round_trip(int64_t ns)
{
	struct timestamp_civil ref = { 2000, 1, 1, 0, 0, 0 };
	struct timestamp_format fmt;
	char buf[64];
	int64_t back;
	int n = calendar_print(ns, buf, sizeof buf);

	if (n <= 0 || (size_t)n >= sizeof buf)
		abort();
	timestamp_init(&fmt, &ref, NULL, NULL);
	if (timestamp_parse(&fmt, buf, (size_t)n, &back) != 0 || back != ns ||
	    fmt.kind != TIMESTAMP_ISO)
		abort();
}

/* A --time-format from the input, checked; NULL when it is refused. */
static const char *
format_of(const uint8_t **data, size_t *size, char *spec, size_t specsz)
{
	const uint8_t *nul = memchr(*data, '\0', *size);
	size_t n = nul != NULL ? (size_t)(nul - *data) : *size;
	char err[128];

	if (n >= specsz)
		n = specsz - 1;
	memcpy(spec, *data, n);
	spec[n] = '\0';
	*data += nul != NULL ? n + 1 : *size;
	*size -= nul != NULL ? n + 1 : *size;
	err[0] = '\0';
	if (timeformat_check(spec, err, sizeof err) == 0)
		return spec;
	if (err[0] == '\0' || strchr(err, '\n') != NULL)
		abort(); /* a reason, on one line */
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int seps[4] = { -1, ',', ' ', '|' };
	struct timestamp_format fmt;
	struct timestamp_civil ref;
	enum timestamp_kind held = TIMESTAMP_AUTO;
	char spec[64];
	int64_t off_s, ns, y;
	int m, d;

	if (size < 2)
		return 0;
	off_s = ((int64_t)(data[1] & 0x7f) - 64) * 900;
	ref = (struct timestamp_civil){ 1900 + data[1] % 200, 1 + data[0] % 12,
		1 + data[1] % 28, 0, 0, 0 };
	timestamp_init(
	    &fmt, &ref, data[1] & 0x80 ? awkward_zone : NULL, &off_s);
	fmt.field = data[0] >> 4 & 3;
	fmt.sep = seps[data[0] >> 6];
	data += 2;
	size -= 2;
	if (ref.month % 2 == 0 && size > 0) {
		const char *s = format_of(&data, &size, spec, sizeof spec);

		if (s != NULL && timestamp_set_format(&fmt, s, NULL, 0) != 0)
			abort();
		held = fmt.kind;
	}
	/* The calendar both ways, on days the input picks. */
	if (size >= 4) {
		int32_t days = (int32_t)((uint32_t)data[0] << 24 |
		    (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]);

		calendar_civil_from_days(days, &y, &m, &d);
		if (m < 1 || m > 12 || d < 1 || d > 31 ||
		    calendar_days_from_civil(y, m, d) != days)
			abort();
	}
	while (size > 0) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl != NULL ? (size_t)(nl - data) : size;

		if (timestamp_parse(&fmt, (const char *)data, len, &ns) == 0) {
			if (ns < TIMESTAMP_MIN_NS || ns > TIMESTAMP_MAX_NS)
				abort();
			round_trip(ns);
			if (held == TIMESTAMP_AUTO)
				held = fmt.kind;
		}
		if (fmt.kind != held)
			abort(); /* the first format found is kept */
		data += nl != NULL ? len + 1 : len;
		size -= nl != NULL ? len + 1 : len;
	}
	return 0;
}
