/* What Redis's error replies mean: which waiting cures, which end a run. */
#ifndef REDISERR_H
#define REDISERR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does the error reply msg carry code: first, or after ": ", where
 * servers before Redis 7 put the error of a command in a script?
 */
bool rediserr_has(const char *msg, const char *code);

/* Is the error reply msg one that waiting cures (loading, busy...)? */
bool rediserr_transient(const char *msg);

/*
 * Does the error reply msg refuse the command alone, not the client (an
 * ACL's NOPERM, a command the server does not know)?
 */
bool rediserr_refuses(const char *msg);

/*
 * Is the error reply msg one that no waiting cures (a password, an ACL, a
 * key of another type, a command the server lacks)?  Then what to check,
 * to follow it in the message ("" when nothing is to be said); else NULL.
 */
const char *rediserr_hint(const char *msg);

/*
 * The error reply msg as a message shows it, into text[0..size): without
 * where in the script Redis 7 says it failed, of no use to the reader.
 */
void rediserr_text(const char *msg, char *text, size_t size);

#endif
