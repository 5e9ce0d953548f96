/* Names in the run directory: a run's name, a bucket, a boot's directory. */
#include <stdio.h>
#include <string.h>

#include "runname.h"

#define LINK_HEAD "name."
#define LOCK_TAIL ".name"
#define TEMP_TAIL ".tmp"
#define TEMP_MID ".bucket."
/* Digits of the largest pid: pid_t is an int. */
#define PID_DIGITS 10

/* Did snprintf's n characters fit in size bytes? 0, else -1. */
static int
fits(int n, size_t size)
{
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int
runname_link(char *out, size_t size, const char *name)
{
	return fits(snprintf(out, size, LINK_HEAD "%s", name), size);
}

const char *
runname_link_name(const char *f)
{
	size_t head = strlen(LINK_HEAD);

	return strncmp(f, LINK_HEAD, head) == 0 && f[head] != '\0' &&
		f[head] != '.' ?
	    f + head :
	    NULL;
}

int
runname_lock(char *out, size_t size, const char *name)
{
	return fits(snprintf(out, size, ".%s" LOCK_TAIL, name), size);
}

int
runname_temp(char *out, size_t size, const char *name, long pid)
{
	return fits(
	    snprintf(out, size, ".%s" TEMP_MID "%ld" TEMP_TAIL, name, pid),
	    size);
}

long
runname_temp_pid(const char *f)
{
	size_t len = strlen(f), mid = strlen(TEMP_MID),
	       tail = strlen(TEMP_TAIL);
	const char *end, *p;
	long pid = 0;

	if (f[0] != '.' || len < tail || strcmp(f + len - tail, TEMP_TAIL) != 0)
		return -1;
	end = f + len - tail;
	for (p = end; p > f && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == end || end - p > PID_DIGITS || (size_t)(p - f) <= mid + 1 ||
	    strncmp(p - mid, TEMP_MID, mid) != 0)
		return -1;
	for (; p < end; p++)
		pid = pid * 10 + (*p - '0');
	return pid > 0 && pid <= 0x7fffffffL ? pid : -1;
}

/* Is s a boot key: RUNNAME_BOOT_LEN bytes of [0-9a-f-]? */
static bool
is_boot_key(const char *s)
{
	size_t len = strspn(s, "0123456789abcdef-");

	return len == RUNNAME_BOOT_LEN && s[len] == '\0';
}

int
runname_boot(char *out, size_t size, const char *host, const char *boot)
{
	size_t len = strlen(host);

	if (!is_boot_key(boot) || len + 1 + RUNNAME_BOOT_LEN >= size)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = host[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || strchr("._-", c) != NULL ?
		    c :
		    '_';
	}
	out[len] = '-';
	memcpy(out + len + 1, boot, RUNNAME_BOOT_LEN + 1);
	return 0;
}

bool
runname_other_boot(const char *f, const char *ours)
{
	size_t len = strlen(ours), host = len - RUNNAME_BOOT_LEN;

	/* The boot key's fixed length tells host "a" from host "a-b". */
	return len > RUNNAME_BOOT_LEN && strlen(f) == len &&
	    strncmp(f, ours, host) == 0 && is_boot_key(f + host) &&
	    strcmp(f, ours) != 0;
}
