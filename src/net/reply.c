/* Reading Redis replies, bounded: what one reply may make us hold. */
#ifdef HAVE_HIREDIS

#include <stdio.h>

#include "reply.h"

/*
 * Hiredis 0.14 allocates an array's element pointers as soon as its
 * header gives their number, and buffers a bulk string whole, each
 * without a bound of its own: a reply "*2147483647" had it allocate
 * 16 GB and walk it.  The largest array tbthrottle asks for is CLUSTER
 * SLOTS of a cluster with a range per slot; a reply's arrays together
 * hold 16 times that at most, and a reply not yet whole is 8 MiB at
 * most.  So a reply makes the client hold tens of MB at worst.
 */
#define ARRAY_MAX 16384
#define ELEMENTS_MAX (16 * ARRAY_MAX)
#define BYTES_MAX (8 << 20)

/* Hiredis's own way to make an array: bounded_array calls it. */
static void *(*make_array)(const redisReadTask *, int);

/* An array of n elements, unless the reply would hold too many. */
static void *
bounded_array(const redisReadTask *task, int n)
{
	struct reply_bound *b = task->privdata;

	if (task->parent == NULL)
		b->elements = 0;
	b->elements += (size_t)(n > 0 ? n : 0);
	if (n > ARRAY_MAX)
		snprintf(b->why, sizeof b->why,
		    "an array of %d elements (at most %d taken)", n, ARRAY_MAX);
	else if (b->elements > ELEMENTS_MAX)
		snprintf(b->why, sizeof b->why,
		    "a reply of more than %d elements", ELEMENTS_MAX);
	else
		return make_array(task, n);
	return NULL; /* hiredis stops there: "out of memory" */
}

redisReader *
reply_reader(struct reply_bound *b)
{
	static redisReplyObjectFunctions fn;
	redisReader *reader = redisReaderCreate();

	if (reader == NULL)
		return NULL;
	if (make_array == NULL) {
		fn = *reader->fn;
		make_array = fn.createArray;
		fn.createArray = bounded_array;
	}
	reader->fn = &fn;
	reader->privdata = b;
	b->elements = 0;
	b->why[0] = '\0';
	return reader;
}

bool
reply_full(const redisReader *reader)
{
	return reader->len - reader->pos > BYTES_MAX;
}

bool
reply_oversized(const redisReader *reader, struct reply_bound *b)
{
	const char *p = reader->buf + reader->pos;
	size_t left = reader->len - reader->pos, i = 0;
	long long n = 0;

	if (reply_full(reader)) {
		snprintf(b->why, sizeof b->why, "a reply of more than %d bytes",
		    BYTES_MAX);
		return true;
	}
	/* A bulk string's header is read, its length line at pos, while
	 * hiredis waits for the string whole. */
	if (reader->ridx < 0 ||
	    reader->rstack[reader->ridx].type != REDIS_REPLY_STRING)
		return false;
	for (; i < left && i < 20 && p[i] >= '0' && p[i] <= '9'; i++)
		n = n * 10 + (p[i] - '0');
	if (i == 0 || i == left || p[i] != '\r' || n <= BYTES_MAX)
		return false;
	snprintf(b->why, sizeof b->why,
	    "a bulk string of %lld bytes (at most %d taken)", n, BYTES_MAX);
	return true;
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int reply_unused;

#endif
