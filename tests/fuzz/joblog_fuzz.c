/*
 * Fuzz target: joblogs of arbitrary bytes read back in both modes, the
 * set of Seqs against a plain model, and a line of arbitrary arguments
 * written then read: one line, one job, its Seq and verdict kept.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "joblog.h"
#include "seqset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs sorted, apart, and within 0..SEQSET_MAX. */
static void
check_runs(const struct seqset *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		if (s->runs[i].lo > s->runs[i].hi || s->runs[i].hi > SEQSET_MAX)
			abort();
		if (i > 0 && s->runs[i - 1].hi + 1 >= s->runs[i].lo)
			abort();
	}
}

/* The input as a joblog, in both modes. */
static void
read_both(const char *text, size_t len)
{
	struct seqset all, ok;
	struct joblog_scan a, f;
	size_t lines = 0;

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	seqset_init(&all);
	seqset_init(&ok);
	if (joblog_read(text, len, JOBLOG_RESUME, &all, &a) == -1 ||
	    joblog_read(text, len, JOBLOG_RESUME_FAILED, &ok, &f) == -1)
		abort();
	check_runs(&all);
	check_runs(&ok);
	if (a.records + a.garbage > lines || a.records != f.records ||
	    a.garbage != f.garbage || a.first_garbage != f.first_garbage ||
	    a.cut != (len > 0 && text[len - 1] != '\n') ||
	    (a.garbage > 0) != (a.first_garbage > 0) ||
	    seqset_count(&all) > a.records)
		abort();
	/* What --resume-failed skips, --resume skips too. */
	for (size_t i = 0; i < ok.nruns; i++)
		if (!seqset_has(&all, ok.runs[i].lo) ||
		    !seqset_has(&all, ok.runs[i].hi))
			abort();
	seqset_free(&all);
	seqset_free(&ok);
}

/* The number a byte names: small ones, and those at the top. */
static uint64_t
number(uint8_t b)
{
	b >>= 1;
	return b >= 120 ? SEQSET_MAX - (127 - b) : b;
}

/*
 * The input as adds and removals, against an array of what is held; read
 * four times over, each time shifted, so that a short input also logs
 * enough changes to be merged on the way.
 */
static void
against_model(const uint8_t *data, size_t size)
{
	struct seqset s;
	bool model[128] = { false };

	seqset_init(&s);
	for (size_t i = 0; i < 4 * size; i++) {
		uint8_t b = (uint8_t)(data[i % size] + i / size * 37);

		if ((b & 1 ? seqset_remove(&s, number(b)) :
			     seqset_add(&s, number(b))))
			abort();
		model[b >> 1] = !(b & 1);
	}
	/* Asked before it is settled, each answer a look through the log. */
	for (int i = 0; i < 128; i += size < 64 ? 1 : 7)
		if (seqset_has(&s, number((uint8_t)(i << 1))) != model[i])
			abort();
	if (seqset_settle(&s) == -1)
		abort();
	check_runs(&s);
	for (int i = 0; i < 128; i++)
		if (seqset_has(&s, number((uint8_t)(i << 1))) != model[i])
			abort();
	seqset_free(&s);
}

/* The line of a job whose arguments are the input's NUL-split pieces. */
static void
round_trip(const uint8_t *data, size_t size)
{
	char *copy, *argv[17], *line;
	struct joblog_job j = { 0, 0, 0, 0, 0, argv };
	size_t n = 0, len, tabs = 0;
	struct seqset s;
	struct joblog_scan sc;

	if (size < 12)
		return;
	for (int i = 0; i < 8; i++)
		j.seq = j.seq << 8 | data[i];
	j.seq &= SEQSET_MAX;
	j.exitval = data[8];
	j.signal = data[9] % 65;
	j.start_ns = (int64_t)(j.seq >> 8) * (data[10] - 128);
	j.runtime_ns = (int64_t)(j.seq >> 9) * (data[11] - 128);
	if ((copy = malloc(size - 12 + 1)) == NULL)
		return;
	memcpy(copy, data + 12, size - 12);
	copy[size - 12] = '\0';
	for (char *p = copy; n < 16 && p <= copy + (size - 12);
	     p += strlen(p) + 1)
		argv[n++] = p;
	argv[n] = NULL;
	len = joblog_format(NULL, 0, &j);
	if ((line = malloc(len + 1)) == NULL ||
	    joblog_format(line, len + 1, &j) != len || strlen(line) != len)
		abort();
	for (size_t i = 0; i < len; i++) {
		if ((line[i] == '\n') != (i == len - 1) || line[i] == '\r')
			abort();
		tabs += line[i] == '\t';
	}
	if (tabs != 8)
		abort();
	for (int mode = 0; mode < 2; mode++) {
		bool ok = mode == JOBLOG_RESUME ||
		    (j.exitval == 0 && j.signal == 0);

		seqset_init(&s);
		if (joblog_read(line, len, (enum joblog_mode)mode, &s, &sc) ||
		    sc.records != 1 || sc.garbage != 0 || sc.cut ||
		    seqset_has(&s, j.seq) != ok || seqset_count(&s) != ok)
			abort();
		seqset_free(&s);
	}
	free(line);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_both((const char *)data, size);
	against_model(data, size);
	round_trip(data, size);
	return 0;
}
