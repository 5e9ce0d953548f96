/* The first lines of control requests and replies: to whom, and from whom. */
#include <stdio.h>
#include <string.h>

#include "request.h"

#define TO "to "
#define FROM "from "
/* Digits of the largest pid: pid_t is an int. */
#define PID_DIGITS 10

int
request_to(char *out, size_t size, const char *target, const char *req)
{
	int n = snprintf(out, size, TO "%s\n%s", target, req);

	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The pid in s[0..len) (digits only, no leading 0), or -1. */
static long
pid_in(const char *s, size_t len)
{
	long pid = 0;

	if (len == 0 || len > PID_DIGITS || s[0] == '0' ||
	    strspn(s, "0123456789") < len)
		return -1;
	for (size_t i = 0; i < len; i++)
		pid = pid * 10 + (s[i] - '0');
	return pid <= 0x7fffffffL ? pid : -1;
}

bool
request_is_for(const char *msg, long pid, const char *name, const char **req)
{
	const char *to = msg + strlen(TO), *end;
	size_t len;

	if (strncmp(msg, TO, strlen(TO)) != 0 ||
	    (end = strchr(to, '\n')) == NULL)
		return false;
	len = (size_t)(end - to);
	*req = end + 1;
	if (pid_in(to, len) == pid)
		return true;
	return name != NULL && strlen(name) == len &&
	    strncmp(to, name, len) == 0;
}

int
request_from(char *out, size_t size, long pid, const char *name)
{
	int n = snprintf(
	    out, size, FROM "%ld %s\n", pid, name != NULL ? name : "-");

	return n > 0 && (size_t)n < size ? n : -1;
}

int
request_sender(
    const char *msg, long *pid, char *name, size_t size, const char **reply)
{
	const char *p = msg + strlen(FROM), *sp, *end;
	size_t len;

	if (strncmp(msg, FROM, strlen(FROM)) != 0 ||
	    (end = strchr(p, '\n')) == NULL ||
	    (sp = memchr(p, ' ', (size_t)(end - p))) == NULL ||
	    (*pid = pid_in(p, (size_t)(sp - p))) < 0)
		return -1;
	len = (size_t)(end - sp - 1);
	if (len == 0 || len >= size)
		return -1;
	memcpy(name, sp + 1, len);
	name[len] = '\0';
	if (strcmp(name, "-") == 0)
		name[0] = '\0';
	*reply = end + 1;
	return 0;
}
