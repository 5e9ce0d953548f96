/* --resume: the records a joblog says are done, taken out as they are read; pure. */
#include <stdlib.h>
#include <string.h>

#include "resume.h"

void
resume_init(struct resume *r, struct seqset *done)
{
	memset(r, 0, sizeof *r);
	if (done != NULL)
		r->done = *done;
	else
		seqset_init(&r->done);
}

void
resume_free(struct resume *r)
{
	seqset_free(&r->done);
	free(r->jump);
	memset(r, 0, sizeof *r);
}

/* Record seen, the next of the input, is kept. */
static int
keep(struct resume *r)
{
	r->kept++;
	if (!r->gap)
		return 0;
	if (r->head > 0 && r->head >= r->njump / 2) {
		memmove(r->jump, r->jump + r->head,
		    (r->njump - r->head) * sizeof *r->jump);
		r->njump -= r->head;
		r->head = 0;
	}
	if (r->njump == r->cap) {
		size_t cap = r->cap < 16 ? 16 : r->cap * 2;
		struct resume_jump *j = realloc(r->jump, cap * sizeof *j);

		if (j == NULL) {
			r->kept--;
			return -1;
		}
		r->jump = j;
		r->cap = cap;
	}
	r->jump[r->njump++] = (struct resume_jump){ r->kept, r->seen };
	r->gap = false;
	return 0;
}

int
resume_filter(struct resume *r, const struct framer *f, char *buf, size_t len,
    bool final, size_t *kept_len, size_t *looked)
{
	size_t at = 0, to = 0; /* read from at, records kept written to */
	int rc = 0;

	/* One pass: each record kept moves up once, over those taken out. */
	while (at < len) {
		const char *d = memchr(buf + at, f->delim, len - at);
		size_t next;

		if (d == NULL && !final)
			break;
		next = d != NULL ? (size_t)(d - buf) + 1 : len;
		r->seen++;
		if (seqset_has(&r->done, r->seen)) {
			r->skipped++;
			r->gap = true;
		} else if ((rc = keep(r)) != 0) {
			r->seen--;
			break;
		} else {
			if (to != at)
				memmove(buf + to, buf + at, next - at);
			to += next - at;
		}
		at = next;
	}
	/* The rest, not looked at, follows what was kept. */
	if (to != at)
		memmove(buf + to, buf + at, len - at);
	*looked = to;
	*kept_len = to + (len - at);
	return rc;
}

int
resume_pass(struct resume *r)
{
	r->seen++;
	if (keep(r) == 0)
		return 0;
	r->seen--;
	return -1;
}

uint64_t
resume_seq(struct resume *r, uint64_t n)
{
	while (r->head + 1 < r->njump && r->jump[r->head + 1].kept <= n)
		r->head++;
	if (r->head == r->njump || r->jump[r->head].kept > n)
		return n; /* nothing was taken out before it */
	return r->jump[r->head].seq + (n - r->jump[r->head].kept);
}
