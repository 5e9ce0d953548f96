/* A set of job numbers, kept as runs of consecutive ones; pure. */
#include <stdlib.h>
#include <string.h>

#include "seqset.h"

/* A change in the log: the number, and this bit when it is a removal. */
#define REMOVE (UINT64_C(1) << 63)
#define SEQ(v) ((v) & ~REMOVE)
/* The log is merged once it is as long as the runs, and at least this. */
#define LOG_MIN 1024

void
seqset_init(struct seqset *s)
{
	memset(s, 0, sizeof *s);
}

void
seqset_free(struct seqset *s)
{
	free(s->runs);
	free(s->log);
	seqset_init(s);
}

size_t
seqset_bytes(const struct seqset *s)
{
	return s->runs_cap * sizeof s->runs[0] + s->log_cap * sizeof s->log[0];
}

size_t
seqset_peak_bytes(const struct seqset *s)
{
	return s->peak_bytes;
}

static void
note_peak(struct seqset *s, size_t extra)
{
	size_t b = seqset_bytes(s) + extra;

	if (b > s->peak_bytes)
		s->peak_bytes = b;
}

/* Room for one more run at the end; -1 when memory runs out. */
static int
runs_room(struct seqset *s)
{
	struct seqrun *r;
	size_t cap = s->runs_cap < 4 ? 4 : s->runs_cap * 2;

	if (s->runs != NULL && s->nruns < s->runs_cap)
		return 0;
	if ((r = realloc(s->runs, cap * sizeof *r)) == NULL)
		return -1;
	s->runs = r;
	s->runs_cap = cap;
	note_peak(s, 0);
	return 0;
}

/* Sort the log by number, changes of one number kept in their order. */
static void
sort_log(uint64_t *a, uint64_t *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = mid + w < n ? mid + w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = SEQ(a[j]) < SEQ(a[i]) ? a[j++] :
								   a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, n * sizeof *a);
	}
}

/*
 * Put lo..hi below the runs r[*w..end) that are written so far, joining
 * the lowest when they touch.
 */
static void
emit(struct seqrun *r, size_t *w, size_t end, uint64_t lo, uint64_t hi)
{
	if (*w < end && r[*w].lo <= hi + 1) {
		if (lo < r[*w].lo)
			r[*w].lo = lo;
		return;
	}
	(*w)--;
	r[*w].lo = lo;
	r[*w].hi = hi;
}

/*
 * Merge the sorted log of n changes, one a number, into the runs, from
 * the top down, in place: the runs have room for n more, and each run or
 * change read makes at most one run more than it takes, so a run written
 * never lands on one not yet read.  The count of runs.
 */
static size_t
merge(struct seqrun *r, size_t nruns, const uint64_t *log, size_t n)
{
	size_t i = nruns, j = n, end = nruns + n, w = end;

	while (i > 0 || j > 0) {
		uint64_t lo, top; /* the part of run i left is lo..top-1 */

		if (j > 0 && (i == 0 || SEQ(log[j - 1]) > r[i - 1].hi)) {
			if (!(log[--j] & REMOVE))
				emit(r, &w, end, log[j], log[j]);
			continue;
		}
		lo = r[i - 1].lo;
		top = r[--i].hi + 1;
		for (; j > 0 && SEQ(log[j - 1]) >= lo; j--) {
			uint64_t v = SEQ(log[j - 1]);

			if (!(log[j - 1] & REMOVE))
				continue;
			if (v + 1 < top)
				emit(r, &w, end, v + 1, top - 1);
			top = v;
		}
		if (lo < top)
			emit(r, &w, end, lo, top - 1);
	}
	memmove(r, r + w, (end - w) * sizeof *r);
	return end - w;
}

int
seqset_settle(struct seqset *s)
{
	struct seqrun *r;
	uint64_t *tmp;
	size_t n = 0, cap = s->nruns + s->nlog;

	if (s->nlog == 0)
		return 0;
	if ((tmp = malloc(s->nlog * sizeof *tmp)) == NULL)
		return -1;
	note_peak(s, s->nlog * sizeof *tmp);
	sort_log(s->log, tmp, s->nlog);
	free(tmp);
	if (cap > s->runs_cap) {
		if ((r = realloc(s->runs, cap * sizeof *r)) == NULL)
			return -1;
		s->runs = r;
		s->runs_cap = cap;
		note_peak(s, 0);
	}
	/* Of the changes of one number, the last decides. */
	for (size_t i = 0; i < s->nlog; i++)
		if (i + 1 == s->nlog || SEQ(s->log[i + 1]) != SEQ(s->log[i]))
			s->log[n++] = s->log[i];
	s->nruns = merge(s->runs, s->nruns, s->log, n);
	free(s->log);
	s->log = NULL;
	s->nlog = s->log_cap = 0;
	s->log_max = 0;
	cap = s->nruns < 4 ? 4 : s->nruns;
	if (cap < s->runs_cap && (r = realloc(s->runs, cap * sizeof *r))) {
		s->runs = r;
		s->runs_cap = cap;
	}
	return 0;
}

/* Log change v, merging the log once it is long enough. */
static int
log_change(struct seqset *s, uint64_t v)
{
	if (s->nlog == s->log_cap) {
		size_t cap = s->log_cap < 64 ? 64 : s->log_cap * 2;
		uint64_t *l = realloc(s->log, cap * sizeof *l);

		if (l == NULL)
			return -1;
		s->log = l;
		s->log_cap = cap;
		note_peak(s, 0);
	}
	s->log[s->nlog++] = v;
	if (SEQ(v) > s->log_max)
		s->log_max = SEQ(v);
	if (s->nlog >= LOG_MIN && s->nlog >= s->nruns)
		(void)seqset_settle(s); /* else slower, still right */
	return 0;
}

int
seqset_add(struct seqset *s, uint64_t seq)
{
	struct seqrun *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;

	if (seq > SEQSET_MAX)
		return -1;
	/* Above every change logged: the runs alone decide. */
	if (s->nlog == 0 || seq > s->log_max) {
		if (last != NULL && seq >= last->lo && seq <= last->hi + 1) {
			if (seq > last->hi)
				last->hi = seq;
			return 0;
		}
		if (last == NULL || seq > last->hi) {
			if (runs_room(s) == -1)
				return -1;
			s->runs[s->nruns].lo = s->runs[s->nruns].hi = seq;
			s->nruns++;
			return 0;
		}
	}
	return log_change(s, seq);
}

int
seqset_remove(struct seqset *s, uint64_t seq)
{
	struct seqrun *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;

	if (seq > SEQSET_MAX)
		return -1;
	if (s->nlog == 0 || seq > s->log_max) {
		if (last == NULL || seq > last->hi)
			return 0;
		if (seq == last->hi) {
			if (last->lo == seq)
				s->nruns--;
			else
				last->hi--;
			return 0;
		}
	}
	return log_change(s, seq | REMOVE);
}

bool
seqset_has(const struct seqset *s, uint64_t seq)
{
	size_t lo = 0, hi = s->nruns;

	/* The log is newer than the runs for every number it names. */
	for (size_t i = s->nlog; i-- > 0;)
		if (SEQ(s->log[i]) == seq)
			return !(s->log[i] & REMOVE);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->runs[mid].hi < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nruns && s->runs[lo].lo <= seq;
}

uint64_t
seqset_count(const struct seqset *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nruns; i++)
		n += s->runs[i].hi - s->runs[i].lo + 1;
	return n;
}
