/* --exec: a command started for each record released, -j at a time. */
#ifndef JOBS_H
#define JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "deadline.h"
#include "joblogfile.h"
#include "joboutput.h"
#include "sink.h"
#include "stats.h"
#include "stream.h"
#include "adaptrate.h"
#include "retry.h"
#include "template.h"

/* One command in flight. */
struct job {
	pid_t pid; /* 0: the slot is free */
	int64_t start_ns;
	uint64_t seq;	/* the record's number */
	unsigned tries; /* its tries, this one too */
	char *rec;	/* a copy of it, when a failure may need one */
	size_t len;
	struct deadline dl; /* --timeout, --halt now, a stop's grace */
	char **argv;	    /* its command's, for --joblog */
};

struct jobs {
	char **cmd; /* the command and its arguments, {} for the record */
	int ncmd;
	struct template tpl;	/* cmd read: where each record goes */
	const struct stats *st; /* what left the input: records' numbers */
	char seq_env[40], try_env[40]; /* TBTHROTTLE_SEQ=, TBTHROTTLE_TRY= */
	char after_env[200];	       /* TBTHROTTLE_RETRY_AFTER= */
	char *env[4];		       /* them, for the next command */
	struct retries retry;	       /* --retry, --failed-to */
	struct deadlines dl;	       /* --timeout, --halt, a stop */
	char delim;		       /* after each record --failed-to gets */
	struct joblogfile log;	       /* --joblog */
	struct resume resume;	       /* --resume, --resume-failed */
	struct adaptrate *adapt;       /* --adapt, or NULL */
	uint64_t given_up;	       /* of retry.given_up, counted failed */
	uint64_t ends;		       /* commands that ended */
	const char *rec;	       /* the record being handed */
	size_t rec_len;
	unsigned max; /* slots */
	struct job *slot;
	unsigned running;
	int status;  /* the worst outcome so far: 0, 123, 124 or 125 */
	int broken;  /* 126 or 127: a command cannot be started */
	bool halted; /* none may start any more: one could not, or one
		       * exited 255 or was killed by a signal (xargs') */
	char **argv; /* the next command's, ncmd + 2 */
	char *text;  /* its arguments' text, cap bytes */
	size_t cap;
	uint64_t records; /* handed so far, to name one in a message */
	uint64_t ended;	  /* commands the engine's waits saw end */
	bool said_nul, said_long;
	struct stats_jobs counts;
	struct joboutput out;	 /* what the commands write */
	int out_fd[2];		 /* the next one's standard output, error */
	struct template tag_tpl; /* --tagstring's, or none (part NULL) */
	char *tag_word;		 /* the string it reads */
	char **tag_argv;	 /* it filled in */
	char *tag_text;
	size_t tag_cap;
	const char *tag; /* the next one's tag */
	size_t tag_len;
};

/*
 * Run cmd[0..ncmd) for each record, its placeholders filled in (template.h,
 * fields split at byte sep, or -1: runs of blanks), at most max at once;
 * a record's number is one more than the records st counts out and
 * dropped.  0, or -1 when memory ran out (errno set); a placeholder that
 * a shell could run as code is a usage error: a message and exit 2.
 * Reaps on SIGCHLD, and a second stop signal sends SIGTERM to the
 * commands still running.
 */
int jobs_init(struct jobs *j, char **cmd, int ncmd, int sep, unsigned max,
    const struct stats *st);

/*
 * Pass the commands' output on by mode (joboutput.h), each line tagged
 * with its record when tag, or with tagstring filled in as the command
 * is (fields split at sep) when not NULL.  A tagstring that cannot be
 * is a message and exit 2.  Before any record is handed.
 */
void jobs_output(struct jobs *j, enum output_mode mode, bool tag,
    const char *tagstring, int sep);

/*
 * Try a record whose command exits with a status in on again, up to max
 * more times, waiting from delay_ns doubling to max_ns (max 0: never);
 * append the records whose last try failed, each followed by delim, to
 * failed_to (NULL: nowhere).
 */
void jobs_retries(struct jobs *j, unsigned max, const struct exitset *on,
    int64_t delay_ns, int64_t max_ns, const char *failed_to, char delim);

/*
 * A command running over timeout_ns (0: no bound) gets SIGTERM, then
 * SIGKILL; h halts the run after failures.
 */
void jobs_deadlines(struct jobs *j, int64_t timeout_ns, const struct halt *h);

/*
 * --joblog: open joblog (NULL: none) to append a line per record whose
 * command is done (its last try ended, but by a signal once a stop was
 * asked for); with resume, first read from it the records not to start again
 * (resume_failed: those that succeeded), taken out of the input as it is
 * read: returns them for the engine (NULL without resume).
 */
struct resume *jobs_joblog(
    struct jobs *j, const char *joblog, bool resume, bool resume_failed);

/* Free what jobs_init allocated. */
void jobs_free(struct jobs *j);

/*
 * Make k the sink that starts j's commands, a record each, telling g of
 * each unit once its command started.  Its room is the free slots; it
 * stops taking records once halted.  Its finish waits for the commands
 * still running (a second stop sends them SIGTERM and ends the wait) and
 * gives their exit status, the highest that applies: 0 when all
 * succeeded; 127 or 126 when one could not be started (not found, not
 * runnable, no process to be had); 125 when one was killed by a signal,
 * 124 when one exited 255 (after either, none starts: halted); 123 when
 * one exited 1-254 or a record could be no argument.  A command killed
 * by SIGPIPE while our output's reader is gone stops the run instead.
 */
void jobs_sink(struct jobs *j, struct sink *k, const struct gate *g);

#endif
