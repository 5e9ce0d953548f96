/* Commands started and reaped: posix_spawn(3) and waitpid(2). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"

extern char **environ;

/* Start path with argv, searched on PATH with search. */
static int
start(const char *path, char *const argv[], pid_t *pid, bool search)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, pipe_set;
	int rc;

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
	if (rc == 0)
		rc = posix_spawnattr_setflags(
		    &at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &pipe_set);
	if (rc == 0)
		rc = search ? posix_spawnp(pid, path, &fa, &at, argv, environ) :
			      posix_spawn(pid, path, &fa, &at, argv, environ);
	(void)posix_spawnattr_destroy(&at);
	(void)posix_spawn_file_actions_destroy(&fa);
	return rc;
}

int
command_start(char *const argv[], pid_t *pid)
{
	return start(argv[0], argv, pid, true);
}

int
command_script(char *const argv[], pid_t *pid)
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
	rc = start("/bin/sh", av, pid, false);
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
