/*
 * Fuzz target: Retry-After values as a command may write them.  Eight
 * bytes give the wall clock; the rest is the value.  Whatever it is, the
 * status is one of five, a delay is within 0 and a day (a day exactly
 * when cut), only blanks are empty, and blanks around change nothing.
 * Then the clock and a delay the input picks, written as an IMF-fixdate,
 * must parse back to that delay.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "retryafter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NS_PER_S 1000000000LL
#define HALF_SPAN UINT64_C(9000000000000000000)

static enum retryafter_status
parse_checked(const char *text, size_t len, int64_t now_ns, int64_t *ns)
{
	enum retryafter_status st;

	*ns = -1;
	st = retryafter_parse(text, len, now_ns, ns);
	switch (st) {
	case RETRYAFTER_OK:
		if (*ns < 0 || *ns > RETRYAFTER_MAX_NS)
			abort();
		break;
	case RETRYAFTER_CLAMPED:
		if (*ns != RETRYAFTER_MAX_NS)
			abort();
		break;
	case RETRYAFTER_EMPTY:
	case RETRYAFTER_BAD:
	case RETRYAFTER_BAD_DATE:
		if (*ns != -1)
			abort(); /* set only with a delay */
		break;
	default:
		abort();
	}
	return st;
}

/* Only blanks and line ends, or nothing. */
static int
all_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(" \t\r\n", p[i]) == NULL || p[i] == '\0')
			return 0;
	return 1;
}

/* The same value, blanks around it, parses the same. */
static void
padded(const uint8_t *data, size_t size, int64_t now_ns,
    enum retryafter_status st, int64_t ns)
{
	char *buf = malloc(size + 4);
	int64_t ns2;

	if (buf == NULL)
		return;
	buf[0] = ' ';
	buf[1] = '\t';
	memcpy(buf + 2, data, size);
	buf[size + 2] = '\r';
	buf[size + 3] = '\n';
	if (parse_checked(buf, size + 4, now_ns, &ns2) != st || ns2 != ns)
		abort();
	free(buf);
}

/* now_ns and ahead_s (0 to a day) as an IMF-fixdate parse back. */
static void
imf_back(int64_t now_ns, int64_t ahead_s)
{
	static const char days[] = "ThuFriSatSunMonTueWed";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int64_t now_s = calendar_floor_div(now_ns, NS_PER_S);
	int64_t s = now_s + ahead_s, d = calendar_floor_div(s, 86400), y, ns;
	int64_t want = ahead_s * NS_PER_S - (now_ns - now_s * NS_PER_S);
	int m, md, wd = (int)(d - calendar_floor_div(d, 7) * 7), n;
	char buf[64];

	calendar_civil_from_days(d, &y, &m, &md);
	n = snprintf(buf, sizeof buf,
	    "%.3s, %02d %.3s %04lld %02d:%02d:%02d GMT", days + 3 * wd, md,
	    months + 3 * (m - 1), (long long)y, (int)(s - d * 86400) / 3600,
	    (int)(s - d * 86400) / 60 % 60, (int)(s - d * 86400) % 60);
	if (n <= 0 || (size_t)n >= sizeof buf)
		abort();
	if (parse_checked(buf, (size_t)n, now_ns, &ns) != RETRYAFTER_OK ||
	    ns != (want > 0 ? want : 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum retryafter_status st;
	uint64_t u = 0;
	int64_t now_ns, ahead_s, ns;

	if (size < 8)
		return 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | data[i];
	ahead_s = (int64_t)(u >> 40) % 86401;
	/* Years with four digits either side: 1685 to 2255. */
	u %= 2 * HALF_SPAN;
	now_ns = u >= HALF_SPAN ? (int64_t)(u - HALF_SPAN) :
				  -(int64_t)(HALF_SPAN - u);
	data += 8;
	size -= 8;
	st = parse_checked((const char *)data, size, now_ns, &ns);
	if ((st == RETRYAFTER_EMPTY) != all_blank(data, size))
		abort();
	padded(data, size, now_ns, st, ns);
	imf_back(now_ns, ahead_s);
	return 0;
}
