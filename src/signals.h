/* Orderly stop on SIGINT, SIGTERM and SIGHUP. */
#ifndef SIGNALS_H
#define SIGNALS_H

/*
 * Catch SIGINT, SIGTERM and SIGHUP (unless they were ignored when we
 * started) so that blocking calls return EINTR and the pump can stop
 * between records.  A second signal ends the process at once.
 */
void	signals_init(void);

/* The signal that asked us to stop, or 0. */
int	signals_stop_requested(void);

/* If a signal asked us to stop, die of it so the caller sees 128 + N. */
void	signals_finish(void);

/* Die of SIGPIPE, as a program that leaves SIGPIPE alone would. */
void	signals_die_of_sigpipe(void);

#endif
