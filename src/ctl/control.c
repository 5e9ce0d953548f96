/* The control socket: a running tbthrottle answers -R and --list on it. */
#ifdef __linux__
#define _GNU_SOURCE /* SO_PEERCRED, struct ucred, O_ASYNC */
#endif
/*
 * Who is at the other end: SO_PEERCRED (Linux: user and process), else
 * getpeereid(3) (the BSDs, macOS: the user alone), else no one can be
 * trusted and the control socket is not made.  make PORTABLE=1 takes the
 * getpeereid path on Linux too, through a stand-in for it below, so that
 * the path of the systems without SO_PEERCRED is built and tested here.
 */
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__) || defined(__DragonFly__) || \
    (defined(__linux__) && defined(TB_PORTABLE))
#define PEER_EID 1
#elif defined(__linux__)
#define PEER_CRED 1
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "name.h"
#include "request.h"
#include "rundir.h"

static char sock_path[PATH_MAX];    /* ours, or "" */
static char run_name[NAME_MAX + 1]; /* ours, or "" */
static int listen_fd = -1;
/*
 * While no connection can be taken (no descriptor left), when to try
 * again: the socket, ready all the while, is not watched meanwhile, or
 * every wait would end at once.  0: it is watched.
 */
static int64_t accept_after_ns;

/* A connection whose request is being read, or held for its answer. */
static struct pending {
	int64_t deadline_ns; /* when it is closed unanswered, if not held */
	size_t len;
	int fd;	   /* -1: a free place */
	bool held; /* whole, its answer to be given later */
	char req[CONTROL_MAX];
} pending[CONTROL_PEERS];

/* What answers a request: false when it cannot be answered now. */
typedef bool answer_fn(void *, const char *, char *, size_t);

/* Fill sa with path; -1 when it does not fit a socket's address. */
static int
address(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa->sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return 0;
}

/* Make fd close-on-exec and non-blocking; -1 if it cannot be. */
static int
nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fl < 0 ||
		fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ?
	    -1 :
	    0;
}

/* A socket of ours, close-on-exec and non-blocking. */
static int
new_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd >= 0 && nonblocking(fd) != 0) {
		(void)close(fd);
		return -1;
	}
	return fd;
}

#if defined(PEER_EID) && defined(__linux__)
/* getpeereid(3), as the BSDs have it, which glibc and musl have not. */
static int
getpeereid(int fd, uid_t *euid, gid_t *egid)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -1;
	*euid = cred.uid;
	*egid = cred.gid;
	return 0;
}
#endif

bool
control_peers_known(void)
{
#if defined(PEER_CRED) || defined(PEER_EID)
	return true;
#else
	return false;
#endif
}

int
control_peer(int fd, uid_t *uid, pid_t *pid)
{
#if defined(PEER_CRED)
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -1;
	*uid = cred.uid;
	*pid = cred.pid;
	return 0;
#elif defined(PEER_EID)
	gid_t gid;

	*pid = 0;
	return getpeereid(fd, uid, &gid);
#else
	(void)fd, (void)uid, (void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int
control_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd, e;

	if (address(&sa, path) != 0 || (fd = new_socket()) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	e = errno == EWOULDBLOCK ? EAGAIN : errno;
	(void)close(fd);
	errno = e;
	return -1;
}

/* Have SIGIO sent to us when fd has something, so a blocked write hears. */
static void
signal_io(int fd)
{
#ifdef O_ASYNC
	if (fcntl(fd, F_SETOWN, getpid()) == 0)
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
#else
	(void)fd;
#endif
}

/* Bind the listening socket at sock_path; -1 with errno. */
static int
listen_at(void)
{
	struct sockaddr_un sa;
	int fd;

	if (address(&sa, sock_path) != 0 || (fd = new_socket()) < 0)
		return -1;
	(void)unlink(sock_path); /* left by an earlier holder of our pid */
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    chmod(sock_path, 0600) != 0 || listen(fd, CONTROL_PEERS) != 0) {
		int e = errno;

		(void)close(fd);
		errno = e;
		return -1;
	}
	signal_io(fd);
	return fd;
}

/* The directory, made private: 0, or -1 having said why it is not. */
static int
private_dir(char *dir, size_t size)
{
	int rc = rundir_make(dir, size);

	if (rc == -2)
		warnx("%s is not a private directory: live changes "
		      "(-R) are off",
		    dir);
	else if (rc == -3)
		warnx("%s is not a directory of yours that only you "
		      "may write in: live changes (-R) are off",
		    dir);
	return rc == 0 ? 0 : -1;
}

int
control_serve(const char *name, char *why, size_t size)
{
	char dir[PATH_MAX];

	sock_path[0] = run_name[0] = '\0';
	for (int i = 0; i < CONTROL_PEERS; i++)
		pending[i].fd = -1;
	if (!control_peers_known()) {
		/* Anyone could ask what only we may. */
		snprintf(why, size,
		    "--name %s: this system cannot tell who connects to a "
		    "socket (no SO_PEERCRED, no getpeereid): no control "
		    "socket, -R and --list cannot reach this run",
		    name != NULL ? name : "");
		if (name == NULL)
			warnx(
			    "this system cannot tell who connects to a socket "
			    "(no SO_PEERCRED, no getpeereid): live changes "
			    "(-R) are off");
		return name != NULL ? -2 : -1;
	}
	if (private_dir(dir, sizeof dir) != 0) {
		snprintf(why, size, "--name %s: no private directory for it",
		    name != NULL ? name : "");
		return name != NULL ? -2 : -1;
	}
	name_forget(dir, (long)getpid());
	if (snprintf(sock_path, sizeof sock_path, "%s/%ld", dir,
		(long)getpid()) >= (int)sizeof sock_path ||
	    (listen_fd = listen_at()) < 0) {
		warn("%s: live changes (-R) are off", dir);
		sock_path[0] = '\0';
		snprintf(why, size, "--name %s: no socket for it",
		    name != NULL ? name : "");
		return name != NULL ? -2 : -1;
	}
	if (name != NULL &&
	    name_claim(dir, name, (long)getpid(), why, size) != 0) {
		control_remove();
		(void)close(listen_fd);
		listen_fd = -1;
		return -2;
	}
	snprintf(run_name, sizeof run_name, "%s", name != NULL ? name : "");
	return 0;
}

int
control_watch(int *fds, int max, int64_t *wake_ns)
{
	int n = 0;

	if (listen_fd < 0 || max < 1)
		return 0;
	if (accept_after_ns == 0)
		fds[n++] = listen_fd;
	else if (accept_after_ns < *wake_ns)
		*wake_ns = accept_after_ns;
	/* A request held is read to its end: its descriptor is always
	 * ready, and it waits for the run, not for its peer. */
	for (int i = 0; i < CONTROL_PEERS && n < max; i++) {
		if (pending[i].fd < 0 || pending[i].held)
			continue;
		fds[n++] = pending[i].fd;
		if (pending[i].deadline_ns < *wake_ns)
			*wake_ns = pending[i].deadline_ns;
	}
	return n;
}

/* Close the connection of p, answered or not. */
static void
drop(struct pending *p)
{
	(void)close(p->fd);
	p->fd = -1;
}

/* Read what p's peer has sent: 1 when the request is whole, 0 if not yet. */
static int
read_more(struct pending *p)
{
	for (;;) {
		ssize_t n = read(
		    p->fd, p->req + p->len, sizeof p->req - 1 - p->len);

		if (n > 0 && (p->len += (size_t)n) < sizeof p->req - 1)
			continue;
		if (n >= 0)
			return 1; /* its end, or as much as we take */
		if (errno != EINTR)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	}
}

/* Write what fits of b[0..len) to fd now: a reply of ours always fits. */
static void
write_now(int fd, const char *b, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, b, len);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
		} else if (n == 0 || errno != EINTR) {
			return;
		}
	}
}

/*
 * Answer p's whole request, unless its sender has closed the connection:
 * it gave up waiting, and was told that nothing was done.  False when
 * answer cannot answer it now: it is held.
 */
static bool
serve(struct pending *p, answer_fn *answer, void *arg)
{
	const char *name = run_name[0] != '\0' ? run_name : NULL, *req;
	char reply[CONTROL_MAX];
	int head;

	p->req[p->len] = '\0';
	if ((clock_fd_events(p->fd, POLLOUT) & POLLHUP) != 0)
		return true;
	head = request_from(reply, sizeof reply, (long)getpid(), name);
	if (head < 0)
		return true;
	if (!request_is_for(p->req, (long)getpid(), name, &req))
		snprintf(reply + head, sizeof reply - (size_t)head,
		    "error: not a request for this tbthrottle\n");
	else if (!answer(arg, req, reply + head, sizeof reply - (size_t)head))
		return false;
	write_now(p->fd, reply, strlen(reply));
	return true;
}

/*
 * Read on p's request, and answer it once whole (or hold it); drop it
 * when answered, or late.
 */
static void
go_on(struct pending *p, int64_t now_ns, answer_fn *answer, void *arg)
{
	int rc = p->held ? 1 : read_more(p);

	if (rc == 1 && !serve(p, answer, arg)) {
		p->held = true;
		return;
	}
	if (rc != 0 || now_ns >= p->deadline_ns)
		drop(p);
}

/* A free place for a request: else the one waiting longest, dropped. */
static struct pending *
place(void)
{
	struct pending *oldest = &pending[0];

	for (int i = 0; i < CONTROL_PEERS; i++) {
		if (pending[i].fd < 0)
			return &pending[i];
		if (pending[i].deadline_ns < oldest->deadline_ns)
			oldest = &pending[i];
	}
	drop(oldest);
	return oldest;
}

/*
 * Accept the connections waiting, a bounded number a call.  When none
 * can be had for want of descriptors or memory, they wait in the
 * backlog, and are tried for again CONTROL_RETRY_NS later.
 */
static void
take_new(int64_t now_ns, answer_fn *answer, void *arg)
{
	if (accept_after_ns != 0 && now_ns < accept_after_ns)
		return;
	accept_after_ns = 0;
	for (int k = 0; k < 2 * CONTROL_PEERS; k++) {
		int fd = accept(listen_fd, NULL, NULL);
		struct pending *p;
		uid_t uid;
		pid_t pid;

		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			accept_after_ns = now_ns + CONTROL_RETRY_NS;
		if (fd < 0)
			return; /* none left, or none to be had now */
		/* Only our own user may ask; others get nothing at all. */
		if (nonblocking(fd) != 0 || control_peer(fd, &uid, &pid) != 0 ||
		    uid != geteuid()) {
			(void)close(fd);
			continue;
		}
		signal_io(fd);
		p = place();
		/* From its accept, not from when this call began: a peer
		 * that connected meanwhile would be closed early. */
		*p = (struct pending){ .fd = fd,
			.deadline_ns = clock_now_ns() + CONTROL_REQUEST_NS };
		go_on(p, now_ns, answer, arg);
	}
}

bool
control_answer(answer_fn *answer, void *arg)
{
	int64_t now_ns = clock_now_ns();
	bool held = false;

	if (listen_fd < 0)
		return false; /* no socket: pending[] was never set up */
	for (int i = 0; i < CONTROL_PEERS; i++)
		if (pending[i].fd >= 0)
			go_on(&pending[i], now_ns, answer, arg);
	take_new(now_ns, answer, arg);
	for (int i = 0; i < CONTROL_PEERS; i++)
		held = held || (pending[i].fd >= 0 && pending[i].held);
	return held;
}

void
control_remove(void)
{
	name_release();
	if (sock_path[0] != '\0') {
		(void)unlink(sock_path);
		sock_path[0] = '\0';
	}
}
