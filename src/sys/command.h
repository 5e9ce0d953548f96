/* Commands started and reaped: posix_spawn(3) and waitpid(2). */
#ifndef COMMAND_H
#define COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Start argv[0] (found on PATH as execvp(3) finds it) with arguments
 * argv, standard input from /dev/null, standard output and error out[0]
 * and out[1] (-1: ours),
 * the signal mask empty and SIGPIPE as by default, and our environment
 * with the NAME=VALUE strings of env (up to a NULL) in place of any of
 * the same names.  0 with the child's id in *pid, or the error number
 * (ENOENT, EACCES, E2BIG, ENOMEM...) where the system can tell it before
 * the command runs.
 */
int command_start(
    char *const argv[], char *const env[], const int out[2], pid_t *pid);

/*
 * command_start for a script without a #! line: /bin/sh runs argv[0]
 * with the other arguments, as execvp(3) would have.
 */
int command_script(
    char *const argv[], char *const env[], const int out[2], pid_t *pid);

/*
 * Is name a command that command_start would find: a path to a file it
 * may run, or, without a slash, such a file in a directory of PATH (as
 * execvp(3) searches it, "/bin:/usr/bin" when PATH is not set)?
 */
bool command_found(const char *name);

/*
 * A child that has ended, without waiting: true with its id in *pid and
 * its status as waitpid(2) gives it in *status; false when none has.
 */
bool command_reap(pid_t *pid, int *status);

#endif
