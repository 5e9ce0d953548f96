/* Text as the contents of a JSON string; pure. */
#include <stdio.h>

#include "jsontext.h"

const char *
json_text(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s != '\0' && n + 7 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			n += (size_t)snprintf(out + n, size - n, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, size - n, "\\u%04x", c);
		else
			out[n++] = (char)c;
	}
	out[n] = '\0';
	return out;
}
