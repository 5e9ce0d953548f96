/* Commands started and reaped: posix_spawn(3) and waitpid(2). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"

extern char **environ;

/* Does environment string e set the variable that set sets (NAME=...)? */
static bool
same_name(const char *e, const char *set)
{
	size_t n = strcspn(set, "=");

	return strncmp(e, set, n) == 0 && e[n] == '=';
}

/*
 * Our environment with env's strings in place of those of their names,
 * in memory kept for the next call; NULL when there is none to be had.
 */
static char **
environment(char *const env[])
{
	static char **envp;
	static size_t cap;
	size_t n = 0, k = 0, extra = 0;
	char **grown;

	while (environ[n] != NULL)
		n++;
	while (env[extra] != NULL)
		extra++;
	if (n + extra + 1 > cap) {
		if ((grown = realloc(envp, (n + extra + 1) * sizeof *envp)) ==
		    NULL)
			return NULL;
		envp = grown;
		cap = n + extra + 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t x = 0;

		while (x < extra && !same_name(environ[i], env[x]))
			x++;
		if (x == extra)
			envp[k++] = environ[i];
	}
	memcpy(envp + k, env, (extra + 1) * sizeof *envp);
	return envp;
}

/* Start path with argv and env, searched on PATH with search, its
 * standard output and error out[0] and out[1] (-1: ours). */
static int
start(const char *path, char *const argv[], char *const env[], const int out[2],
    pid_t *pid, bool search)
{
	char **envp = environment(env);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, pipe_set;
	int rc;

	if (envp == NULL)
		return ENOMEM;
	sigemptyset(&none);
	sigemptyset(&pipe_set);
	/* Ignored here, so that EPIPE is seen: a command gets its default. */
	sigaddset(&pipe_set, SIGPIPE);
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		(void)posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	/* Our standard input holds the records: never the command's. */
	rc = posix_spawn_file_actions_addopen(
	    &fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	for (int k = 0; k < 2 && rc == 0; k++)
		if (out[k] >= 0)
			rc = posix_spawn_file_actions_adddup2(
			    &fa, out[k], STDOUT_FILENO + k);
	if (rc == 0)
		rc = posix_spawnattr_setflags(
		    &at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &pipe_set);
	if (rc == 0)
		rc = search ? posix_spawnp(pid, path, &fa, &at, argv, envp) :
			      posix_spawn(pid, path, &fa, &at, argv, envp);
	(void)posix_spawnattr_destroy(&at);
	(void)posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
command_start(
    char *const argv[], char *const env[], const int out[2], pid_t *pid)
{
	return start(argv[0], argv, env, out, pid, true);
}

int
command_script(
    char *const argv[], char *const env[], const int out[2], pid_t *pid)
{
	static char sh[] = "sh";
	char **av;
	size_t n = 0;
	int rc;

	while (argv[n] != NULL)
		n++;
	if ((av = calloc(n + 2, sizeof *av)) == NULL)
		return ENOMEM;
	av[0] = sh;
	memcpy(av + 1, argv, (n + 1) * sizeof *av);
	rc = start("/bin/sh", av, env, out, pid, false);
	free(av);
	return rc;
}

bool
command_reap(pid_t *pid, int *status)
{
	pid_t p;

	while ((p = waitpid(-1, status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (p <= 0)
		return false;
	*pid = p;
	return true;
}

/* Is file a regular file we may run? */
static bool
runnable(const char *file)
{
	struct stat st;

	return stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(file, X_OK) == 0;
}

bool
command_found(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[4096];
	size_t dir;

	if (name[0] == '\0')
		return false;
	if (strchr(name, '/') != NULL)
		return runnable(name);
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		dir = end != NULL ? (size_t)(end - p) : strlen(p);
		/* An empty entry is the working directory, as for execvp. */
		if (snprintf(file, sizeof file, "%.*s%s%s", (int)dir, p,
			dir > 0 ? "/" : "", name) < (int)sizeof file &&
		    runnable(file))
			return true;
		if (end == NULL)
			return false;
	}
}
