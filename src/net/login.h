/* Logging in on a new connection to Redis: AUTH, SELECT, ROLE. */
#ifndef LOGIN_H
#define LOGIN_H

#include "redisconn.h"

/* How many steps the log-in has. */
#define LOGIN_STEPS 3

/*
 * The log-in, the first steps of an errand on a new connection, on the
 * connection itself as their context: AUTH when the URL or REDISCLI_AUTH
 * gives a password, SELECT when its database is not 0, and with sentinels
 * ROLE, as the server they named may be no master (yet).  A refusal that
 * no waiting cures ends the process (exit 1).
 */
extern const struct redisconn_step login_steps[LOGIN_STEPS];

#endif
