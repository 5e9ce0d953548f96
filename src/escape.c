/* Messages that quote input: control bytes shown, never obeyed. */
#include <stdio.h>

#include "escape.h"

void
escape_controls(char *msg, size_t size)
{
	char tmp[1024];
	size_t j = 0;

	if (size == 0)
		return;
	for (size_t i = 0; msg[i] != '\0' && j + 5 < sizeof tmp; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c == 0x7f)
			j += (size_t)snprintf(
			    tmp + j, sizeof tmp - j, "\\x%02x", c);
		else
			tmp[j++] = (char)c;
	}
	tmp[j] = '\0';
	snprintf(msg, size, "%s", tmp);
}
