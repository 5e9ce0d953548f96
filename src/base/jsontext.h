/* Text as the contents of a JSON string; pure. */
#ifndef JSONTEXT_H
#define JSONTEXT_H

#include <stddef.h>

/*
 * s as a JSON string's contents into out (size > 0): quotes, backslashes
 * and control bytes escaped, cut short (at a whole escape) to fit.
 * Returns out.
 */
const char *json_text(const char *s, char *out, size_t size);

#endif
