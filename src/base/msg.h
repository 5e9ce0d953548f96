/* Messages: one line each, naming the value, its control bytes shown. */
#ifndef MSG_H
#define MSG_H

#include <stddef.h>

/*
 * Rewrite control characters in the message msg (size bytes) as \xHH, so
 * a value quoted in it cannot break it over lines.
 */
void msg_escape(char *msg, size_t size);

/*
 * Format a one-line reason into err[0..errsz), as snprintf; returns -1,
 * for the parsers' "value, or -1 with the reason" shape.
 */
int msg_fail(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
