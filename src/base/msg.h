/* Messages: one line each, naming the value, its control bytes shown. */
#ifndef MSG_H
#define MSG_H

#include <stddef.h>

/*
 * Rewrite control characters in the message msg (size bytes) as \xHH, so
 * a value quoted in it cannot break it over lines or steer a terminal:
 * C0 and C1 controls, DEL, bytes that are no UTF-8, and the marks that
 * reorder text.  Other UTF-8 characters are kept.
 */
void msg_escape(char *msg, size_t size);

/*
 * s[0..len), which may hold NUL bytes, as a string into out (size > 0): a
 * NUL as \x00, for msg_escape to take the rest; cut short to fit.
 * Returns out.
 */
const char *msg_bytes(const char *s, size_t len, char *out, size_t size);

/*
 * Format a one-line reason into err[0..errsz), as snprintf; returns -1,
 * for the parsers' "value, or -1 with the reason" shape.
 */
int msg_fail(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
