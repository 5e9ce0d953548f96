# shellcheck shell=bash
# Helpers for the tests against a real redis-server (tests/redis.bats,
# tests/redisbatch.bats): load after helpers.  Servers listen on loopback
# ports, without persistence; their logs and pids go to BATS_FILE_TMPDIR.

# A port that is free now: one the kernel hands out, then released.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
	    echo $((20000 + RANDOM % 20000))
}

# start_redis [PORT [ARG...]]: redis-server on PORT (default $RPORT) with
# ARG..., no persistence; wait until it answers.
start_redis() {
	local port=${1:-$RPORT} try pid deadline
	shift || true
	for ((try = 0; try < 3; try++)); do
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
		    --dir "$BATS_FILE_TMPDIR" --appendonly no --daemonize no \
		    "$@" >"$BATS_FILE_TMPDIR/redis-$port.log" 2>&1 &
		pid=$!
		echo "$pid" >"$BATS_FILE_TMPDIR/redis-$port.pid"
		deadline=$((SECONDS + ${WAIT_LIMIT:-20}))
		while ((SECONDS <= deadline)) && kill -0 "$pid" 2>/dev/null; do
			case $(redis-cli -p "$port" ping 2>/dev/null) in
			PONG | NOAUTH*) return 0 ;;
			esac
			sleep 0.01
		done
		kill -0 "$pid" 2>/dev/null && break
		# It could not listen: a port just freed (a test's fake server's)
		# may be a client's for a moment, a connection to a closed port
		# having taken that very port.  Try again.
		sleep 0.2
	done
	echo "redis-server did not start on port $port:" \
	    "$(tail -n 2 "$BATS_FILE_TMPDIR/redis-$port.log")" >&2
	return 1
}

# await_redis PORT WHAT [ARG...]: wait until the WHAT started on PORT
# answers redis-cli ARG... (--tls and its CA for a TLS port), for as long
# as a busy machine may need (WAIT_LIMIT, as wait_for).
await_redis() {
	local deadline=$((SECONDS + ${WAIT_LIMIT:-20}))
	while ((SECONDS <= deadline)); do
		case $(redis-cli "${@:3}" -p "$1" ping 2>/dev/null) in
		PONG | NOAUTH*) return 0 ;;
		esac
		sleep 0.01
	done
	echo "$2 did not start on port $1" >&2
	return 1
}

# stop_redis [PORT]: stop the redis-server on PORT (default $RPORT), even
# a stopped one.
stop_redis() {
	local port=${1:-$RPORT} pid
	pid=$(cat "$BATS_FILE_TMPDIR/redis-$port.pid" 2>/dev/null) || return 0
	kill_ours CONT "$pid" 'redis-*'
	kill_ours TERM "$pid" 'redis-*'
	while ! is_gone "$pid" && is_named "$pid" 'redis-*'; do
		sleep 0.01
	done
	rm -f "$BATS_FILE_TMPDIR/redis-$port.pid"
}

# file_redis: from setup_file, a redis-server for the file's tests, on
# port $RPORT (none without redis-server: need_redis skips each test).
file_redis() {
	command -v redis-server >/dev/null || return 0
	RPORT=$(free_port)
	export RPORT
	start_redis
}

# own_redis [ARG...]: a redis-server of this test's own, on port $OPORT,
# stopped by teardown (stop_own_redis): for tests that stop or
# reconfigure it.
own_redis() {
	OPORT=$(free_port)
	start_redis "$OPORT" "$@"
}

# stop_own_redis: from teardown, stop the test's own server, if any.
stop_own_redis() {
	if [[ -n ${OPORT:-} ]]; then
		stop_redis "$OPORT"
	fi
}

# hung_batch LINES ARG...: tbthrottle ARG... on the test's own server
# (own_redis), its output in $d/out and stderr in $d/err, while the server
# hangs with the batch of LINES on its way: no answer within 1 s, so it is
# asked again, until the server wakes and runs both calls; the second
# must find the first's answer.
hung_batch() {
	local lines=$1 pid spid
	shift
	spid=$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")
	mkfifo "$d/fifo"
	"$TB" "$@" --redis "redis://127.0.0.1:$OPORT" <"$d/fifo" >"$d/out" \
	    2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	wait_running "$pid"
	kill -STOP "$spid"
	printf '%s\n' "$lines" >&8
	sleep 1.5
	kill -CONT "$spid"
	exec 8>&-
	wait "$pid"
}

# redis_test PREFIX: from setup, skip the test without Redis; else URL for
# the file's server, P a bucket name of the test's own and d its directory.
# shellcheck disable=SC2034 # the tests read them
redis_test() {
	need_redis
	URL=redis://127.0.0.1:$RPORT
	P=$1$BATS_TEST_NUMBER
	d=$BATS_TEST_TMPDIR
}

# need_redis: skip the test, saying why, without redis-server or hiredis.
need_redis() {
	command -v redis-server >/dev/null ||
	    skip "redis-server is not installed (apt-get install redis-server)"
	"$TB" -V | grep -q 'Redis support: yes' ||
	    skip "built without hiredis (apt-get install libhiredis-dev pkg-config)"
}

# assert_paired FILE: in tbthrottle's stderr FILE, each "reached again"
# follows a report of Redis down ("...; waiting for it", "...; limiting
# locally until it is back") and names the node that report named.
assert_paired() {
	awk '
	{ sub(/^[^:]*: /, "") }	# the program name
	/; (waiting for it|limiting locally until it is back)$/ {
		name = substr($0, 1, index($0, ": ") - 1)
		if (open) { bad = "down twice: " $0; exit }
		open = 1
		next
	}
	/: reached again/ {
		here = substr($0, 1, index($0, ": reached again") - 1)
		if (!open || here != name) {
			bad = "[" here "] reached again, unpaired or not [" name "]"
			exit
		}
		open = 0
	}
	END { if (bad != "") { print bad > "/dev/stderr"; exit 1 } }' "$1" || {
		cat "$1" >&2
		return 1
	}
}
