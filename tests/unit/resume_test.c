/* Unit tests of resume.c: records a joblog says are done, taken out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resume.h"
#include "unit.h"

#define RECORDS 2000
#define CAP 256

/*
 * The input: RECORDS records "<n>:xx..." of random length, some done;
 * read in random pieces into a buffer as the stream does (whole records
 * looked at once, a record not yet whole left for the next read), the
 * records kept taken from its head in random numbers, each asked its
 * number as it goes.  What goes must be the records not done, whole and
 * in order, each with the number it had in the input.
 */
static void
test_model(void)
{
	static char in[RECORDS * 24];
	unsigned char done[RECORDS + 2] = { 0 };
	struct seqset set;
	struct resume r;
	struct framer f = { .bytes = false, .delim = '\n' };
	char buf[CAP];
	size_t inlen = 0, pos = 0, head = 0, tail = 0, looked = 0;
	uint64_t want = 1, left = 0;
	int bad = 0;

	current =
	    "resume: done records are taken out, the rest keep their numbers";
	seqset_init(&set);
	for (uint64_t i = 1; i <= RECORDS; i++) {
		int n = snprintf(in + inlen, sizeof in - inlen,
		    "%llu:", (unsigned long long)i);
		size_t pad = rng_below(12);

		inlen += (size_t)n;
		memset(in + inlen, 'x', pad);
		inlen += pad;
		in[inlen++] = '\n';
		/* Runs of done records, and lone ones. */
		done[i] = (unsigned char)(rng_below(3) == 0 ||
		    (i > 1 && done[i - 1] && rng_below(4) != 0));
		if (done[i])
			check(seqset_add(&set, i) == 0, "add %llu",
			    (unsigned long long)i);
	}
	/* The input ends without its last delimiter. */
	inlen--;
	check(seqset_settle(&set) == 0, "settle");
	resume_init(&r, &set);
	while (!bad) {
		bool final;
		size_t got, kept_len, now_looked;

		/* Read: close up the head first, as the stream does. */
		memmove(buf, buf + head, tail - head);
		tail -= head;
		looked -= head;
		head = 0;
		got = rng_below(CAP - tail + 1);
		if (got > inlen - pos)
			got = inlen - pos;
		memcpy(buf + tail, in + pos, got);
		pos += got;
		tail += got;
		final = pos == inlen;
		check(resume_filter(&r, &f, buf + looked, tail - looked, final,
			  &kept_len, &now_looked) == 0,
		    "filter");
		tail = looked + kept_len;
		looked += now_looked;
		/* Take some of the records looked at from the head. */
		for (size_t n = rng_below(6); n > 0 && head < looked; n--) {
			char *d = memchr(buf + head, '\n', looked - head);
			size_t end = d != NULL ? (size_t)(d - buf) : looked;
			uint64_t seq, got_num;

			left++;
			seq = resume_seq(&r, left);
			while (want <= RECORDS && done[want])
				want++;
			got_num = strtoull(buf + head, NULL, 10);
			if (seq != want || got_num != want) {
				check(0,
				    "record %llu went as %llu numbered %llu",
				    (unsigned long long)want,
				    (unsigned long long)got_num,
				    (unsigned long long)seq);
				bad = 1;
				break;
			}
			want++;
			head = d != NULL ? end + 1 : end;
		}
		if (final && head == looked && looked == tail)
			break;
	}
	while (want <= RECORDS && done[want])
		want++;
	check(want == RECORDS + 1,
	    "records not done that never went, from %llu",
	    (unsigned long long)want);
	check(r.seen == RECORDS, "seen %llu", (unsigned long long)r.seen);
	check(r.kept + r.skipped == RECORDS, "kept and skipped");
	/* Its notes of jumps are few: those of records held. */
	check(r.cap <= 256, "notes held: room for %zu", r.cap);
	resume_free(&r);
}

/* A record that could not be looked at is kept, numbered in its place. */
static void
test_pass(void)
{
	struct seqset set;
	struct resume r;
	struct framer f = { .bytes = false, .delim = '\n' };
	char buf[32];
	size_t kept_len, looked;

	current = "resume: a record too long to look at is kept, in its place";
	seqset_init(&set);
	check(seqset_add(&set, 1) == 0 && seqset_add(&set, 3) == 0 &&
		seqset_settle(&set) == 0,
	    "set");
	resume_init(&r, &set);
	memcpy(buf, "a\nb\n", 4);
	check(resume_filter(&r, &f, buf, 4, false, &kept_len, &looked) == 0,
	    "filter");
	check(kept_len == 2 && looked == 2 && memcmp(buf, "b\n", 2) == 0,
	    "record 1 out, 2 kept: %zu %zu", kept_len, looked);
	check(resume_pass(&r) == 0, "pass"); /* record 3, done, kept */
	memcpy(buf, "d", 1);
	check(resume_filter(&r, &f, buf, 1, true, &kept_len, &looked) == 0,
	    "filter");
	check(
	    kept_len == 1 && looked == 1, "record 4, the last, unended, kept");
	check(resume_seq(&r, 1) == 2, "first kept is 2");
	check(resume_seq(&r, 2) == 3, "second kept is 3, passed");
	check(resume_seq(&r, 3) == 4, "third kept is 4");
	resume_free(&r);

	current = "resume: nothing done, or a seq 0, changes no number";
	seqset_init(&set);
	check(seqset_add(&set, 0) == 0 && seqset_settle(&set) == 0, "set");
	resume_init(&r, &set);
	memcpy(buf, "a\nb\n", 4);
	check(resume_filter(&r, &f, buf, 4, false, &kept_len, &looked) == 0 &&
		kept_len == 4 && looked == 4,
	    "all kept");
	check(resume_seq(&r, 1) == 1 && resume_seq(&r, 2) == 2, "numbers");
	resume_free(&r);
}

void
test_resume(void)
{
	rng_start("resume");
	test_model();
	test_pass();
}
