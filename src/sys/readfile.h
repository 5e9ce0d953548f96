/* A whole small file read into memory: the --tiers file. */
#ifndef READFILE_H
#define READFILE_H

#include <stddef.h>

/*
 * Read the whole regular file path, of at most max bytes, into a new
 * buffer *text of *len bytes (with a NUL after them), without waiting
 * for anything else.  0, or -1 with "path: reason" in err.
 */
int readfile(const char *path, size_t max, char **text, size_t *len, char *err,
    size_t size);

#endif
