/* Fields of a record, split as -k and -F say: pure, no I/O. */
#include "field.h"

size_t
field_of(const char *rec, size_t len, unsigned field, int sep, const char **key)
{
	size_t i = 0, start;

	for (unsigned f = 1;; f++) {
		if (sep < 0)
			while (i < len && (rec[i] == ' ' || rec[i] == '\t'))
				i++;
		if (sep < 0 && i == len)
			break;
		start = i;
		while (i < len &&
		    (sep < 0 ? rec[i] != ' ' && rec[i] != '\t' :
			       (unsigned char)rec[i] != (unsigned)sep))
			i++;
		if (f == field) {
			*key = rec + start;
			return i - start;
		}
		if (i == len)
			break;
		if (sep >= 0)
			i++; /* past this separator: the next may be empty */
	}
	*key = rec + len;
	return 0;
}
