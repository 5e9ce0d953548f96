/* Reading Redis replies, bounded: what one reply may make us hold. */
#ifndef REPLY_H
#define REPLY_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis.h>

/*
 * What the reply being read holds so far, and why it was refused if it
 * was; one for each reader.
 */
struct reply_bound {
	size_t elements; /* of its arrays, in all */
	char why[96];	 /* empty until a reply is refused */
};

/*
 * A hiredis reader for the replies of one connection, bounded through b
 * (which must outlive it): an array of more than 16384 elements, or a
 * reply of more than 262144 in all, makes it fail, the reason in
 * b->why.  NULL when memory ran out.
 */
redisReader *reply_reader(struct reply_bound *b);

/* Does reader hold as much of a reply not yet whole as one may have? */
bool reply_full(const redisReader *reader);

/*
 * After redisReaderGetReply gave no reply: is the one under way too big
 * to take (reply_full, or a bulk string whose header says more)?  Then
 * b->why says why.
 */
bool reply_oversized(const redisReader *reader, struct reply_bound *b);

#endif
