/* Messages that quote input: control bytes shown, never obeyed. */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stddef.h>

/*
 * Rewrite control characters in the message msg (size bytes) as \xHH, so
 * a value quoted in it cannot break it over lines.
 */
void escape_controls(char *msg, size_t size);

#endif
