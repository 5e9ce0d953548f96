/* --joblog's lines, in GNU parallel's layout, and reading them back; pure. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "joblog.h"

#define NS_PER_MS 1000000

/* A line being written: bytes kept while they fit, all counted. */
struct out {
	char *buf;
	size_t size, len;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static bool
is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Whether byte c needs no quoting; '=' only past the first argument. */
static bool
is_plain(unsigned char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return strchr("%+,-./:@_", c) != NULL || (c == '=' && !first);
}

/* The argument a in bash's $'...', every control byte escaped. */
static void
put_ansi(struct out *o, const unsigned char *a)
{
	char hex[8];

	puts_(o, "$'");
	for (; *a != '\0'; a++) {
		if (*a == '\n')
			puts_(o, "\\n");
		else if (*a == '\t')
			puts_(o, "\\t");
		else if (*a == '\r')
			puts_(o, "\\r");
		else if (*a == '\\' || *a == '\'') {
			put(o, "\\", 1);
			put(o, (const char *)a, 1);
		} else if (is_control(*a)) {
			snprintf(hex, sizeof hex, "\\x%02x", *a);
			puts_(o, hex);
		} else
			put(o, (const char *)a, 1);
	}
	put(o, "'", 1);
}

/* The argument a, quoted as it needs. */
static void
put_arg(struct out *o, const char *a, bool first)
{
	const unsigned char *u = (const unsigned char *)a;
	bool plain = *u != '\0', control = false;

	for (; *u != '\0'; u++) {
		plain = plain && is_plain(*u, first);
		control = control || is_control(*u);
	}
	if (plain) {
		puts_(o, a);
		return;
	}
	if (control) {
		put_ansi(o, (const unsigned char *)a);
		return;
	}
	put(o, "'", 1);
	for (; *a != '\0'; a++) {
		if (*a == '\'')
			puts_(o, "'\\''");
		else
			put(o, a, 1);
	}
	put(o, "'", 1);
}

size_t
joblog_format(char *buf, size_t size, const struct joblog_job *j)
{
	struct out o = { buf, size, 0 };
	int64_t start_ms, run_ms;
	char num[128], run[64];

	start_ms = j->start_ns < 0 ? 0 : j->start_ns / NS_PER_MS;
	if (j->start_ns >= 0 && j->start_ns % NS_PER_MS >= NS_PER_MS / 2)
		start_ms++;
	run_ms = j->runtime_ns < 0 ? 0 : j->runtime_ns / NS_PER_MS;
	snprintf(run, sizeof run, "%" PRId64 ".%03d", run_ms / 1000,
	    (int)(run_ms % 1000));
	snprintf(num, sizeof num,
	    "%" PRIu64 "\t:\t%" PRId64 ".%03d\t%10s\t0\t0\t%d\t%d\t", j->seq,
	    start_ms / 1000, (int)(start_ms % 1000), run, j->exitval,
	    j->signal);
	puts_(&o, num);
	for (size_t i = 0; j->argv != NULL && j->argv[i] != NULL; i++) {
		if (i > 0)
			put(&o, " ", 1);
		put_arg(&o, j->argv[i], i == 0);
	}
	put(&o, "\n", 1);
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

/* The column at *p, up to a tab, or to end when last; *p past its tab. */
static bool
column(const char **p, const char *end, const char **col, size_t *n)
{
	const char *t = memchr(*p, '\t', (size_t)(end - *p));

	if (t == NULL)
		return false;
	*col = *p;
	*n = (size_t)(t - *p);
	*p = t + 1;
	return true;
}

/* Whether s[0..n) is " *-?[0-9]+", with ".[0-9]+" after when frac. */
static bool
is_number(const char *s, size_t n, bool frac, bool *zero)
{
	size_t i = 0, digits = 0;

	*zero = true;
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && s[i] == '-')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		*zero = *zero && s[i] == '0';
	if (digits == 0)
		return false;
	if (frac && i < n && s[i] == '.') {
		for (digits = 0, i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
		if (digits == 0)
			return false;
	}
	return i == n;
}

/* The Seq s[0..n): digits, at most SEQSET_MAX; false when it is not. */
static bool
read_seq(const char *s, size_t n, uint64_t *seq)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (SEQSET_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*seq = v;
	return true;
}

/*
 * The job's line s[0..end): its Seq, and whether it says 0 0 (Exitval
 * and Signal); false when it is not a job's line.
 */
static bool
read_line(const char *s, const char *end, uint64_t *seq, bool *ok)
{
	const char *c;
	size_t n;
	bool zero, exit0;

	if (!column(&s, end, &c, &n) || !read_seq(c, n, seq))
		return false;
	if (!column(&s, end, &c, &n) || n == 0)
		return false; /* the host */
	for (int i = 0; i < 4; i++)
		if (!column(&s, end, &c, &n) || !is_number(c, n, true, &zero))
			return false;
	if (!column(&s, end, &c, &n) || !is_number(c, n, false, &exit0))
		return false;
	if (!column(&s, end, &c, &n) || !is_number(c, n, false, &zero))
		return false;
	*ok = exit0 && zero;
	return true; /* the command is the rest, tabs and all */
}

/* The line s[0..n), without its newline, into done under mode. */
static int
take_line(const char *s, size_t n, enum joblog_mode mode, struct seqset *done,
    struct joblog_scan *scan, size_t lineno)
{
	uint64_t seq;
	bool ok;

	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n == 0 ||
	    (n == sizeof JOBLOG_HEADER - 2 && memcmp(s, JOBLOG_HEADER, n) == 0))
		return 0;
	if (!read_line(s, s + n, &seq, &ok)) {
		if (scan->garbage++ == 0)
			scan->first_garbage = lineno;
		return 0;
	}
	scan->records++;
	if (mode == JOBLOG_RESUME || ok)
		return seqset_add(done, seq);
	return seqset_remove(done, seq);
}

int
joblog_read(const char *text, size_t len, enum joblog_mode mode,
    struct seqset *done, struct joblog_scan *scan)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;

	memset(scan, 0, sizeof *scan);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (nl == NULL) {
			scan->cut = true;
			break;
		}
		if (take_line(
			p, (size_t)(nl - p), mode, done, scan, ++lineno) == -1)
			return -1;
		p = nl + 1;
	}
	return seqset_settle(done);
}
