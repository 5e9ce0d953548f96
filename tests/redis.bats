#!/usr/bin/env bats
# --shared NAME --redis URL: one bucket for processes on many hosts, kept
# in a real redis-server on a loopback port.  Skipped, saying so, when
# redis-server is not installed or tbthrottle was built without hiredis.

load helpers
load redis

# fake_server MODE [ARG...]: tests/tools/fakeserver MODE ARG... (a listener
# that is not Redis), on port $FPORT, stopped by teardown.
fake_server() {
	local i
	[[ -x $BATS_TEST_DIRNAME/tools/fakeserver ]] || {
		echo "tests/tools/fakeserver is missing: run make tests/tools/fakeserver" \
		    "(make check builds it)" >&2
		return 1
	}
	rm -f "$BATS_TEST_TMPDIR/fport"
	"$BATS_TEST_DIRNAME/tools/fakeserver" "$1" "$BATS_TEST_TMPDIR/fport" \
	    "${@:2}" 3>&- &
	FPID=$!
	for ((i = 0; i < 500; i++)); do
		[[ -s $BATS_TEST_TMPDIR/fport ]] && break
		sleep 0.01
	done
	FPORT=$(cat "$BATS_TEST_TMPDIR/fport")
}

# scripted_redis WORD=REPLY...: a fake Redis (fakeserver script) that
# answers as a lone server with no eviction up to the settings claimed,
# and a command with WORD (book, take) with REPLY.
scripted_redis() {
	local info sha
	printf -v info '$%d\r\n%s\r\n' 50 \
	    $'# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction'
	printf -v sha '$40\r\n%s\r\n' 0123456789abcdef0123456789abcdef01234567
	fake_server script "$@" "INFO=$info" \
	    $'CLUSTER=-ERR This instance has cluster support disabled\r\n' \
	    "SCRIPT=$sha" $'claim=:0\r\n' $'keep=:0\r\n'
}

# run_pty OUT CMD...: run CMD with its output to OUT and its stderr on a
# terminal made by script(1), so that -P is live; in the background, its
# pid in $TPID.  The terminal's text goes to $BATS_TEST_TMPDIR/tty.
run_pty() {
	local out=$1 d=$BATS_TEST_TMPDIR
	shift
	{
		printf 'echo $$ >%q\nexec' "$d/pty.pid"
		printf ' %q' "$@"
		printf ' >%q\n' "$out"
	} >"$d/pty.sh"
	script -qec "bash $d/pty.sh" /dev/null >"$d/tty" 2>&1 3>&- &
	wait_for_output "$d/pty.pid"
	TPID=$(cat "$d/pty.pid")
}

# wait_text FILE TEXT SECONDS: wait until FILE holds TEXT.
wait_text() {
	local i
	for ((i = 0; i < $3 * 100; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	echo "no '$2' in $1 after $3 s:" >&2
	cat "$1" >&2
	return 1
}

setup_file() {
	file_redis
}

teardown_file() {
	stop_redis
}

teardown() {
	local p
	if [[ -n ${TPID:-} ]]; then
		kill_ours KILL "$TPID" tbthrottle
	fi
	# Whatever the test left running in the background (a run waiting
	# for a Redis that never started): a failed test must not hang.
	for p in $(jobs -p); do
		kill_ours KILL "$p"
		wait "$p" 2>/dev/null || true
	done
	if [[ -n ${FPID:-} ]]; then
		kill_ours TERM "$FPID" fakeserver
	fi
	stop_own_redis
}

setup() {
	need_redis
	# A test that stops the file's server and could not start it again
	# (a machine too busy) fails alone: the next one starts it.
	[[ $(redis-cli -p "$RPORT" ping 2>/dev/null) == PONG ]] || start_redis
	URL=redis://127.0.0.1:$RPORT
	# Each test its own bucket names.
	P=t$BATS_TEST_NUMBER
}

@test "--redis: a second run finds the tokens the first one spent" {
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" -r 1/min -b 5 --drop --redis "$1"' "$P" "$URL"
	assert_eq "$output" "$(seq 5)" "first run"
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" -r 1/min -b 5 --drop --redis "$1"' "$P" "$URL"
	assert_eq "$output" "" "second run"
	# The key expires when the bucket is full again: in about 5 min.
	local ttl
	ttl=$(redis-cli -p "$RPORT" pttl "tbthrottle:$P")
	assert_le "$ttl" 300001 "expiry (ms)"
	assert_ge "$ttl" 200000 "expiry (ms)"
}

@test "--redis: four processes at once stay within burst + rate x time" {
	assert_four_share --shared "$P" --redis "$URL"
}

@test "--redis -k: a bucket per key, in Redis" {
	run -0 --separate-stderr bash -c '
	    printf "a 1\nb 1\na 2\nb 2\nc 1\n" |
	    tb --shared "$0" --redis "$1" -k 1 -r 1/min --drop' "$P" "$URL"
	assert_eq "$output" $'a 1\nb 1\nc 1' "kept"
	[[ $(redis-cli -p "$RPORT" exists "tbthrottle:$P:a") == 1 ]]
}

@test "--redis -k: keys that share their first 2000 bytes have buckets of their own" {
	local d=$BATS_TEST_TMPDIR stem
	stem=$(head -c 2000 /dev/zero | tr '\0' k)
	printf '%sA 1\n%sB 1\n%sA 2\n%sB 2\n' "$stem" "$stem" "$stem" "$stem" >"$d/in"
	run -0 --separate-stderr tb --shared "$P" --redis "$URL" -k 1 -r 1/min \
	    --drop "$d/in"
	assert_eq "$(cut -c 2001- <<<"$output")" $'A 1\nB 1' "lines kept, past the stem"
	assert_eq "$output" "$(sed -n 1,2p "$d/in")" "one line of each key"
	[[ $(redis-cli -p "$RPORT" exists "tbthrottle:$P:${stem}A" \
	    "tbthrottle:$P:${stem}B") == 2 ]]
}

@test "--redis: the server killed and restarted mid-stream loses and repeats nothing" {
	local d=$BATS_TEST_TMPDIR pid
	seq 150 >"$d/in"
	# A server of the test's own: the file's serves tests running beside.
	own_redis
	# 3 s at 50/s: the server goes once lines are out, mid-stream however
	# slow the machine.
	"$TB" --shared "$P" -r 50/s --redis "redis://127.0.0.1:$OPORT" "$d/in" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	wait_for "the first lines out" has_lines "$d/out" 10
	stop_redis "$OPORT"
	sleep 0.5
	start_redis "$OPORT"
	wait "$pid"
	cmp "$d/in" "$d/out"
	stderr=$(cat "$d/err")
	# Said as it goes down and as it comes back; on a busy machine a
	# reconnection that takes its whole deadline is said again, paired.
	[[ $(grep -c 'waiting for it' "$d/err") -ge 1 &&
	    $(grep -c 'waiting for it' "$d/err") == $(grep -c 'reached again' "$d/err") ]] ||
	    { cat "$d/err" >&2; false; }
	assert_paired "$d/err"
}

@test "--redis-fallback=block: waits for a server that is not up yet" {
	local d=$BATS_TEST_TMPDIR pid
	# A port of the test's own, its server started late.
	OPORT=$(free_port)
	seq 3 >"$d/in"
	"$TB" --shared "$P" -r 100/s --redis "redis://127.0.0.1:$OPORT" \
	    "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	sleep 0.5
	assert_eq "$(wc -l <"$d/out")" 0 "lines before the server is up"
	start_redis "$OPORT"
	wait "$pid"
	cmp "$d/in" "$d/out"
}

@test "--redis-fallback=local limits locally while Redis is down; no password shown" {
	local url=redis://me:hunter2@127.0.0.1:1
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" -r 1/min -b 2 --drop --redis "$1" --redis-fallback local' "$P" "$url"
	assert_eq "$output" $'1\n2' "kept by the local bucket"
	assert_one_stderr_line
	[[ $stderr == *"limiting locally"* && $stderr != *hunter2* ]]
}

@test "--redis-fallback=fail: exit 1, one line, no password" {
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" -r 10/s --redis "$1" --redis-fallback fail' "$P" redis://:hunter2@127.0.0.1:1
	assert_one_stderr_line
	[[ $stderr == *"127.0.0.1:1"* && $stderr != *hunter2* ]]
	assert_eq "$output" "" "nothing copied"
}

@test "--redis: another rate for the same name is refused" {
	# At 1/min the key lives a minute: long enough for the second run
	# to find it however slow the machine (a full bucket has expired).
	run -0 --separate-stderr bash -c 'echo x | tb --shared "$0" -r 1/min --redis "$1"' "$P" "$URL"
	run -1 --separate-stderr bash -c 'echo x | tb --shared "$0" -r 2/min --redis "$1"' "$P" "$URL"
	assert_one_stderr_line
	[[ $stderr == *"-r 1/min"* && $stderr == *"-r 2/min"* ]]
}

@test "--redis usage errors, and no password in them" {
	local args
	for args in "--redis redis://h -r 1/s" "--redis-fallback local -r 1/s" \
	    "--shared x --redis http://h -r 1/s" "--shared x --redis redis:// -r 1/s" \
	    "--shared x --redis redis://h:0 -r 1/s" "--shared x --redis redis://h:99999 -r 1/s" \
	    "--shared x --redis redis://h/x -r 1/s" "--shared x --redis redis://h --redis-fallback maybe -r 1/s" \
	    "--shared x --redis redis://pw@h -r 1/s"; do
		eval "run -2 --separate-stderr tb $args" </dev/null
		assert_one_stderr_line
	done
	run -2 --separate-stderr tb --shared x --redis redis://:hunter2@h:0 -r 1/s </dev/null
	[[ $stderr != *hunter2* ]]
}

@test "--redis: a password without its @ is never shown" {
	local url
	for url in redis://admin:hunter2 redis://:hunter2 \
	    redis://admin:hunter2/0 rediss://admin:hunter2 \
	    rediss://admin:hunter2@h:0 admin:hunter2; do
		run -2 --separate-stderr tb --shared x --redis "$url" -r 1/s </dev/null
		assert_one_stderr_line
		[[ $stderr != *hunter2* && $stderr == *'***'* ]] ||
		    { echo "$url: $stderr" >&2; return 1; }
	done
}

@test "--redis: a stop while waiting for a down Redis releases nothing" {
	local d=$BATS_TEST_TMPDIR
	stop_after 1 "$d/out" "$d/err" "$TB" --shared "$P" -r 1/min -b 1 \
	    --redis redis://127.0.0.1:1 "$BATS_TEST_DIRNAME/../README.md"
	assert_eq "$stopped_status" 143 "exit status"
	assert_eq "$(wc -c <"$d/out")" 0 "bytes out"
}

@test "--redis: the password may come from REDISCLI_AUTH, and is never shown" {
	run -1 --separate-stderr bash -c 'echo x | REDISCLI_AUTH=hunter2 "$0" \
	    --shared "$1" -r 1/s --redis redis://127.0.0.1:1 --redis-fallback fail' \
	    "$TB" "$P"
	assert_one_stderr_line
	[[ $stderr == *':***@127.0.0.1:1'* && $stderr != *hunter2* ]]
	run -2 --separate-stderr tb --shared x --redis 'redis://:p@ss@h:99999' -r 1/s </dev/null
	[[ $stderr != *p@ss* && $stderr != *ss@h* ]]
}

@test "--redis --drop -c: a read bigger than the tokens passes what fits" {
	run -0 --separate-stderr bash -c 'head -c 2000 /dev/zero |
	    tb -c --shared "$0" --redis "$1" -r 1/min -b 1000 --drop --stats=json' "$P" "$URL"
	assert_eq "$(json_field bytes_out)" 1000 "bytes out"
	assert_eq "$(json_field bytes_dropped)" 1000 "bytes dropped"
}

# run_one EXIT URL FALLBACK [ARG...]: one line x through the bucket $P at
# 1/s with --redis URL; at most 5 s, so that a hang fails quickly.
run_one() {
	local want=$1 url=$2 fb=$3
	shift 3
	TB_LIMIT=5 run "-$want" --separate-stderr bash -c 'echo x |
	    tb --shared "$0" -r 1/s --redis "$1" --redis-fallback "$2" \
	    "${@:3}"' "$P" "$url" "$fb" "$@"
}

# newcomer URL RATE: a run of the bucket $P at RATE, which is refused.
newcomer() {
	run -1 --separate-stderr bash -c 'echo x |
	    tb --shared "$0" -r "$1" --redis "$2"' "$P" "$2" "$1"
}

# settings_rate PORT: the rate kept in the settings of the bucket $P.
settings_rate() {
	redis-cli -p "$1" hget "tbthrottle-settings:$P" r
}

# wait_settings PORT RATE: wait up to 6 s for the settings to say RATE.
wait_settings() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ $(settings_rate "$1") == "$2" ]] && return 0
		sleep 0.01
	done
	assert_eq "$(settings_rate "$1")" "$2" "the settings' rate"
}

# wait_gone PID: wait up to 5 s for process PID to end.
wait_gone() {
	local i
	for ((i = 0; i < 500; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.01
	done
}

# since_ms T0: milliseconds from T0 (from now_ms) to now.
since_ms() {
	awk -v a="$1" -v b="$(now_ms)" 'BEGIN { print b - a }'
}

@test "--redis: a server that wants a password, given none or a wrong one: exit 1 at once, whatever the fallback" {
	local fb
	own_redis --requirepass hunter2
	for fb in block local fail; do
		run_one 1 "redis://127.0.0.1:$OPORT" "$fb"
		assert_one_stderr_line
		[[ $stderr == *NOAUTH* && $stderr == *REDISCLI_AUTH* ]]
		assert_eq "$output" "" "copied without the password ($fb)"
		run_one 1 "redis://:wrong@127.0.0.1:$OPORT" "$fb"
		assert_one_stderr_line
		[[ $stderr == *WRONGPASS* || $stderr == *"invalid password"* ]]
		[[ $stderr != *wrong@* && $stderr != *hunter2* ]]
	done
	run_one 0 "redis://:hunter2@127.0.0.1:$OPORT" block
	assert_eq "$output" x "copied with the password"
}

@test "--redis: a user whom the ACL keeps from the script or the keys: exit 1 at once" {
	local user
	[[ $(redis-cli -p "$RPORT" acl whoami 2>/dev/null) == default ]] ||
	    skip "this redis-server has no ACL (Redis 6 or later)"
	redis-cli -p "$RPORT" acl setuser "k$P" on '>pw' '+@all' '~other:*' \
	    >/dev/null
	redis-cli -p "$RPORT" acl setuser "s$P" on '>pw' '+@all' -evalsha '~*' \
	    >/dev/null
	for user in "k$P" "s$P"; do
		run_one 1 "redis://$user:pw@127.0.0.1:$RPORT" block
		assert_one_stderr_line
		[[ $stderr == *NOPERM* && $stderr == *"$user:***@"* ]]
		assert_eq "$output" "" "copied as $user"
	done
}

@test "--redis: a key of tbthrottle's that holds another type: exit 1 at once" {
	local fb
	redis-cli -p "$RPORT" set "tbthrottle:$P" x >/dev/null
	for fb in block local; do
		run_one 1 "$URL" "$fb"
		assert_one_stderr_line
		[[ $stderr == *WRONGTYPE* ]]
		assert_eq "$output" "" "copied ($fb)"
	done
	redis-cli -p "$RPORT" rpush "tbthrottle:$P:x" x >/dev/null
	run_one 1 "$URL" block -k 1
	[[ $stderr == *WRONGTYPE* ]]
	redis-cli -p "$RPORT" del "tbthrottle:$P" "tbthrottle-settings:$P" \
	    >/dev/null
	redis-cli -p "$RPORT" rpush "tbthrottle-settings:$P" x >/dev/null
	run_one 1 "$URL" block
	[[ $stderr == *WRONGTYPE* ]]
}

@test "--redis: a server that answers other than Redis does (garbage, HTTP): exit 1 at once, whatever the fallback" {
	local mode fb
	for mode in garbage http; do
		fake_server "$mode"
		for fb in block local; do
			run_one 1 "redis://127.0.0.1:$FPORT" "$fb"
			assert_one_stderr_line
			[[ $stderr == *"not a Redis server"* ]]
			assert_eq "$output" "" "copied ($mode, $fb)"
		done
		kill "$FPID"
		wait "$FPID" 2>/dev/null || true
	done
}

@test "--adapt --redis: a nonsense answer to a look or a cut at the fleet's cut is not believed: the run keeps its own" {
	local d=$BATS_TEST_TMPDIR reply
	printf '#!/bin/sh\n[ "$TBTHROTTLE_TRY" = 1 ] && exit 75\nexit 0\n' >"$d/once"
	chmod +x "$d/once"
	# A cut later than the server's now, negative numbers, a peak out of
	# range, a cut with no peak, an error, a bulk string.
	for reply in $'*3\r\n:5\r\n:9\r\n:1\r\n' $'*3\r\n:-1\r\n:-5\r\n:0\r\n' \
	    $'*3\r\n:9\r\n:5\r\n:16777216\r\n' $'*3\r\n:9\r\n:5\r\n:0\r\n' \
	    $'-ERR no\r\n' $'$2\r\nno\r\n'; do
		scripted_redis "look=$reply" "cut=$reply" $'book=*2\r\n:1\r\n:0\r\n'
		TB_LIMIT=10 run -0 --separate-stderr tb --shared "$P" \
		    --redis "redis://127.0.0.1:$FPORT" -r 5000/s --adapt --retry 1 \
		    --retry-delay 1ms --stats=json --exec "$d/once" < <(echo x)
		[[ $stderr == *'"limit":"3'[45]*'"adapt":{"refusals":1,"cuts":1}'* ]] ||
		    { echo "$reply: $stderr" >&2; false; }
		kill "$FPID"
		wait "$FPID" 2>/dev/null || true
	done
}

@test "--redis: a reply that would make the client hold too much (a huge array or bulk string) is refused at once, one line naming the server; the fallback applies, SIGTERM is heard" {
	local d=$BATS_TEST_TMPDIR reply what pid t0 st
	for reply in $'*2147483647\r\n' $'$2147483647\r\n'; do
		scripted_redis "book=$reply"
		case $reply in
		\**) what="an array of 2147483647 elements (at most 16384" ;;
		*) what="a bulk string of 2147483647 bytes (at most 8388608" ;;
		esac
		t0=$(now_ms)
		run_one 1 "redis://127.0.0.1:$FPORT" fail
		# At once: the 2^31 elements were once walked for 6.6 s; a busy
		# machine may take a second or two to start and end a run.
		assert_le "$(elapsed_ms "$t0")" 4000 "ms to exit (fail)"
		assert_one_stderr_line
		[[ $stderr == *"redis://127.0.0.1:$FPORT"*": $what"* ]]
		run_one 0 "redis://127.0.0.1:$FPORT" local
		assert_eq "$output" x "copied (local)"
		[[ $stderr == *": $what"*"; limiting locally"* ]]
		echo x >"$d/in"
		"$TB" --shared "$P" -r 1/s --redis "redis://127.0.0.1:$FPORT" \
		    "$d/in" >"$d/out" 2>"$d/err" &
		pid=$!
		wait_text "$d/err" "waiting for it" 5
		sleep 0.5
		t0=$(now_ms)
		kill -TERM "$pid"
		st=0
		wait "$pid" || st=$?
		assert_le "$(elapsed_ms "$t0")" 4000 "ms to end after SIGTERM (deaf: 6.6 s)"
		assert_eq "$st" 143 "status after SIGTERM (block)"
		assert_eq "$(cat "$d/out")" "" "copied (block)"
		kill "$FPID"
		wait "$FPID" 2>/dev/null || true
	done
}

@test "--redis: a server that closes the connection before it answers is down, not refused: local limits locally, fail exits, block waits for it" {
	local d=$BATS_TEST_TMPDIR pid st=0
	fake_server close
	run_one 0 "redis://127.0.0.1:$FPORT" local
	assert_eq "$output" x "copied (local)"
	assert_one_stderr_line
	[[ $stderr == *"before any answer; limiting locally"* ]]
	run_one 1 "redis://127.0.0.1:$FPORT" fail
	assert_one_stderr_line
	[[ $stderr == *"before any answer"* ]]
	echo x >"$d/in"
	"$TB" --shared "$P" -r 1/s --redis "redis://127.0.0.1:$FPORT" "$d/in" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	sleep 0.5
	kill -0 "$pid"
	assert_eq "$(cat "$d/out")" "" "copied while the server closes"
	# A real server comes up on that port: the run gets through.
	kill "$FPID"
	wait "$FPID" 2>/dev/null || true
	OPORT=$FPORT
	start_redis "$OPORT"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status: $(cat "$d/err")"
	assert_eq "$(cat "$d/out")" x "copied (block)"
	[[ $(grep -c 'before any answer; waiting for it' "$d/err") == 1 ]]
	[[ $(grep -c 'reached again' "$d/err") == 1 ]]
}

@test "--redis: a newcomer with other settings is refused while a process uses the bucket, full or not; that one goes on" {
	local d=$BATS_TEST_TMPDIR pid st=0 ttl
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 10/s --redis "$URL" <"$d/fifo" >"$d/out" \
	    2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	echo one >&8
	wait_for_output "$d/out"
	sleep 0.3	# the bucket is full again, and its key has expired
	assert_eq "$(redis-cli -p "$RPORT" exists "tbthrottle:$P")" 0 \
	    "bucket key"
	newcomer "$URL" 5/s
	assert_one_stderr_line
	[[ $stderr == *"-r 10/s"* && $stderr == *"-r 5/s"* ]]
	assert_eq "$output" "" "the newcomer's output"
	echo two >&8
	exec 8>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "the running process's exit status: $(cat "$d/err")"
	assert_eq "$(cat "$d/out")" $'one\ntwo' "the running process's output"
	# The settings go some seconds after the last process.
	ttl=$(redis-cli -p "$RPORT" pttl "tbthrottle-settings:$P")
	assert_le "$ttl" 10000 "settings TTL (ms)"
	assert_ge "$ttl" 1 "settings TTL (ms)"
}

@test "--redis: an idle process keeps its settings in Redis (a heartbeat)" {
	local d=$BATS_TEST_TMPDIR pid
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 10/s --redis "$URL" <"$d/fifo" >"$d/out" \
	    2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	wait_running "$pid"
	# As if they had expired: the heartbeat (every 3 s) sets them again.
	redis-cli -p "$RPORT" del "tbthrottle-settings:$P" >/dev/null
	wait_settings "$RPORT" 10/s
	newcomer "$URL" 5/s
	[[ $stderr == *"-r 10/s"* ]]
	exec 8>&-
	wait "$pid"
}

@test "--redis: a process that started while Redis was down claims the settings once it is back, idle" {
	local d=$BATS_TEST_TMPDIR pid
	OPORT=$(free_port)
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 10/s --redis "redis://127.0.0.1:$OPORT" \
	    <"$d/fifo" >"$d/out" 2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	wait_running "$pid"
	start_redis "$OPORT" 8>&-	# no writer of the FIFO left behind
	wait_settings "$OPORT" 10/s
	newcomer "redis://127.0.0.1:$OPORT" 5/s
	[[ $stderr == *"-r 10/s"* ]]
	echo one >&8
	exec 8>&-
	wait "$pid"
	assert_eq "$(cat "$d/out")" one "the first process's output"
	[[ $(grep -c 'waiting for it' "$d/err") == 1 ]]
	[[ $(grep -c 'reached again' "$d/err") == 1 ]]
}

@test "--redis: a hung server under -P: limited locally within about a second; SIGTERM ends the run at once" {
	local d=$BATS_TEST_TMPDIR t0 n
	command -v script >/dev/null || skip "script(1) is not installed"
	own_redis
	seq 1000 >"$d/in"
	run_pty "$d/out" "$TB" --shared "$P" -r 20/s -P --redis-fallback local \
	    --redis "redis://127.0.0.1:$OPORT" "$d/in"
	wait_for_output "$d/out"
	kill -STOP "$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")"
	t0=$(now_ms)
	wait_text "$d/tty" "limiting locally" 5
	# 1 s to call it hung; 4 s leaves a busy machine its slowness, and
	# still fails a run that waits for the server (here, for ever).
	assert_le "$(since_ms "$t0")" 4000 "ms to the fallback"
	# A run that waited for the server would write nothing more while
	# it hangs, which is to the end of the test: the wait gives up.
	n=$(wc -l <"$d/out")
	wait_for "a line out while Redis hangs" has_lines "$d/out" $((n + 1))
	t0=$(now_ms)
	kill -TERM "$TPID"
	wait_gone "$TPID"
	# A stop that waited for the hung server would wait past wait_gone's
	# 5 s; 3 s leaves a busy machine its slowness.
	assert_le "$(since_ms "$t0")" 3000 "ms to end after SIGTERM"
}

@test "--redis: SIGTERM ends a run waiting for a hung server at once, -P or not" {
	local d=$BATS_TEST_TMPDIR t0 p
	command -v script >/dev/null || skip "script(1) is not installed"
	own_redis
	seq 1000 >"$d/in"
	for p in -P -s; do
		run_pty "$d/out" "$TB" --shared "$P" -r 20/s "$p" \
		    --redis "redis://127.0.0.1:$OPORT" "$d/in"
		wait_for_output "$d/out"
		kill -STOP "$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")"
		wait_text "$d/tty" "waiting for it" 5
		sleep 0.3
		t0=$(now_ms)
		kill -TERM "$TPID"
		wait_gone "$TPID"
		# As above: waiting for the server would outlast wait_gone.
		assert_le "$(since_ms "$t0")" 3000 "ms to the end ($p)"
		kill -CONT "$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")"
		rm -f "$d/out" "$d/pty.pid"
	done
}

@test "--redis: connecting waits 1 s, neither cut short nor made longer by the ticks of -P" {
	local t0 t
	command -v script >/dev/null || skip "script(1) is not installed"
	fake_server full
	echo x >"$BATS_TEST_TMPDIR/in"
	t0=$(now_ms)
	run_pty "$BATS_TEST_TMPDIR/out" "$TB" --shared "$P" -r 1/s -P \
	    --redis "redis://127.0.0.1:$FPORT" --redis-fallback fail \
	    "$BATS_TEST_TMPDIR/in"
	wait_gone "$TPID"
	t=$(since_ms "$t0")
	assert_ge "$t" 1000 "ms to give up"
	# Ticks that started the wait again would make it endless; the time
	# includes starting script(1) and the run, which a busy machine
	# stretches.
	assert_le "$t" 5000 "ms to give up"
	grep -q "127.0.0.1:$FPORT/0: cannot connect within 1000 ms" \
	    "$BATS_TEST_TMPDIR/tty"
}

@test "--redis unix:///path: a server on a UNIX-domain socket" {
	local d=$BATS_TEST_TMPDIR port
	port=$(free_port)
	OPORT=$port
	start_redis "$port" --unixsocket "$d/redis.sock" --unixsocketperm 700
	run -0 --separate-stderr bash -c \
	    'seq 9 | tb --shared "$0" --redis "$1" -r 1/min -b 3 --drop' \
	    "$P" "unix://$d/redis.sock?db=2"
	assert_eq "$output" $'1\n2\n3' "kept"
	[[ $(redis-cli -s "$d/redis.sock" -n 2 exists "tbthrottle:$P") == 1 ]]
}

@test "--redis URL forms: [IPv6], percent-escapes, TLS options only with rediss://" {
	run -2 --separate-stderr tb --shared x --redis redis://::1:6379 -r 1/s
	assert_one_stderr_line
	[[ $stderr == *"an IPv6 address goes in brackets, as redis://[::1]:6379"* ]]
	run -2 --separate-stderr tb --shared x --redis redis://h:1 \
	    --redis-cacert /dev/null -r 1/s
	assert_msg "$stderr" "--redis-cacert needs a rediss:// URL for --redis: it is of TLS"
	# A password with an escaped '@' and ':' logs in (and is never shown).
	redis-cli -p "$RPORT" acl setuser "u@x" on '>p:w@rd' '~*' '&*' '+@all' \
	    >/dev/null
	run -0 --separate-stderr bash -c \
	    'seq 2 | tb --shared "$0" --redis "$1" -r 1k/s' "$P" \
	    "redis://u%40x:p%3Aw%40rd@127.0.0.1:$RPORT"
	assert_eq "$output" $'1\n2' "output"
	[[ $stderr != *"p:w@rd"* && $stderr != *"p%3Aw"* ]]
}

@test "--redis redis://[::1]:PORT: a server on IPv6 loopback" {
	local port
	port=$(free_port)
	redis-server --port "$port" --bind ::1 --save '' --appendonly no \
	    >"$BATS_TEST_TMPDIR/r6.log" 2>&1 &
	local rpid=$! i
	for ((i = 0; i < 300; i++)); do
		[[ $(redis-cli -h ::1 -p "$port" ping 2>/dev/null) == PONG ]] &&
		    break
		sleep 0.01
	done
	if ((i == 300)); then
		kill "$rpid" 2>/dev/null || true
		skip "no IPv6 loopback here"
	fi
	run -0 --separate-stderr bash -c \
	    'seq 5 | tb --shared "$0" --redis "$1" -r 1/min -b 2 --drop' \
	    "$P" "redis://[::1]:$port"
	kill "$rpid"
	wait "$rpid" || true
	assert_eq "$output" $'1\n2' "kept"
}

@test "--redis: SIGUSR2 and SIGIO while it still meets a hung server at start do not end the run" {
	local d=$BATS_TEST_TMPDIR pid rpid st=0
	own_redis
	rpid=$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")
	seq 3 >"$d/in"
	kill -STOP "$rpid"
	# Meeting the server takes 1 s (its deadline): the signals come
	# in the middle of it.
	"$TB" --shared "$P" -r 100/s --redis "redis://127.0.0.1:$OPORT" \
	    "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	sleep 0.4
	kill -USR2 "$pid"
	kill -IO "$pid"
	sleep 0.3
	kill -CONT "$rpid"
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status: $(cat "$d/err")"
	assert_eq "$(cat "$d/out")" "$(cat "$d/in")" "output"
}

# fatal_midrun URL ARG... -- CMD...: a run of the bucket $P with -s and
# ARG..., from a FIFO: one line goes out, then CMD runs, then a second
# line comes; the run must end with status 1, its report on stderr.
fatal_midrun() {
	local d=$BATS_TEST_TMPDIR url=$1 pid st=0 args=()
	shift
	while [[ $1 != -- ]]; do
		args+=("$1")
		shift
	done
	shift
	rm -f "$d/fifo" "$d/out"
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 100/s -s --redis "$url" "${args[@]}" \
	    <"$d/fifo" >"$d/out" 2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	echo one >&8
	wait_for_output "$d/out"
	"$@" >/dev/null
	echo two >&8
	wait "$pid" || st=$?
	exec 8>&-
	stderr=$(cat "$d/err")
	assert_eq "$st" 1 "exit status: $stderr"
	assert_eq "$(cat "$d/out")" one "output"
	[[ $(grep -c 'units 2 in, 1 out, 0 dropped, 1 waiting' "$d/err") == 1 ]] ||
	    { echo "no report, or more than one: $stderr" >&2; return 1; }
}

@test "--redis: a run that Redis ends mid-way (WRONGTYPE, NOPERM, --redis-fallback fail) still prints its -s report, once" {
	fatal_midrun "$URL" -- redis-cli -p "$RPORT" set "tbthrottle:$P" x
	[[ $stderr == *WRONGTYPE* ]]
	[[ $(redis-cli -p "$RPORT" acl whoami 2>/dev/null) == default ]] ||
	    skip "this redis-server has no ACL (Redis 6 or later)"
	redis-cli -p "$RPORT" acl setuser "u$P" on '>pw' '+@all' '~*' \
	    >/dev/null
	P=n$P fatal_midrun "redis://u$P:pw@127.0.0.1:$RPORT" -- \
	    redis-cli -p "$RPORT" acl setuser "u$P" -evalsha
	[[ $stderr == *NOPERM* ]]
	own_redis
	P=f$P fatal_midrun "redis://127.0.0.1:$OPORT" --redis-fallback fail \
	    -- stop_redis "$OPORT"
	[[ $stderr == *"127.0.0.1:$OPORT"* ]]
}

# hung_local WHEN: a run at 20/s, burst 1, --redis-fallback local, whose
# server hangs (SIGSTOP) before it starts or once it runs (WHEN: start,
# midrun); once it limits locally, 4 s of it must hold the rate, then
# the server wakes and the run must reach it again.  Beside it, for the
# same 4 s, a run at 20/s without Redis: what this machine lets a rate
# of 20/s release just then.
hung_local() {
	local d=$BATS_TEST_TMPDIR rpid pid lpid n0 n1 l0 l1 t0 t1 t2 t3
	rpid=$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")
	rm -f "$d/out" "$d/err" "$d/alone"
	[[ $1 == start ]] && kill -STOP "$rpid"
	"$TB" --shared "$P$1" -r 20/s --redis-fallback local \
	    --redis "redis://127.0.0.1:$OPORT" "$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	if [[ $1 == midrun ]]; then
		wait_for_output "$d/out"
		kill -STOP "$rpid"
	fi
	wait_text "$d/err" "limiting locally" 5
	"$TB" -r 20/s "$d/in" >"$d/alone" &
	lpid=$!
	wait_for_output "$d/alone"
	# Each count between two readings of the clock: the lines counted
	# came out within [t0, t3], and those between t1 and t2 were counted.
	t0=$(now_ms)
	n0=$(wc -l <"$d/out")
	l0=$(wc -l <"$d/alone")
	t1=$(now_ms)
	sleep 4
	t2=$(now_ms)
	n1=$(wc -l <"$d/out")
	l1=$(wc -l <"$d/alone")
	t3=$(now_ms)
	kill -TERM "$lpid"
	wait "$lpid" || true
	kill -CONT "$rpid"
	wait_text "$d/err" "reached again" 5
	kill -TERM "$pid"
	wait "$pid" || true
	echo "# $1: $((n1 - n0)) lines, $((l1 - l0)) without Redis" >&3
	# The old code blocked for 1 s at each try of Redis: 50 to 60 % of
	# the rate, and of what the run without Redis released.  A busy
	# machine's late wake-ups cost both runs alike (each late by more
	# than 10 ms loses its slot), so the run must release 80 % of what
	# the other did, less a line each count may have missed.
	assert_ge "$((n1 - n0))" "$(awk -v l="$((l1 - l0))" \
	    'BEGIN { printf "%d", 0.8 * l - 2 }')" \
	    "lines in 4 s of local limiting ($1), beside a run without Redis"
	# Never faster than the rate: the burst, and one line of the count
	# that may have been partly written.
	assert_le "$((n1 - n0))" "$(awk -v a="$t0" -v b="$t3" \
	    'BEGIN { printf "%d", 1 + 20 * (b - a) / 1000 + 1 }')" \
	    "lines in 4 s of local limiting ($1)"
}

@test "--redis-fallback local: a hung server, at start or mid-run, is probed in the background; the local rate holds, and Redis is used again once it answers" {
	own_redis
	seq 100000 >"$BATS_TEST_TMPDIR/in"
	hung_local start
	hung_local midrun
}

@test "--redis: a server whose maxmemory-policy evicts keys (allkeys-*, volatile-*) is refused at start, unless --redis-allow-eviction" {
	local pol url
	for pol in allkeys-lru volatile-ttl; do
		own_redis --maxmemory 100mb --maxmemory-policy "$pol"
		url=redis://127.0.0.1:$OPORT
		run_one 1 "$url" local
		assert_one_stderr_line
		[[ $stderr == *"maxmemory-policy $pol (maxmemory 104857600)"*"noeviction"*"--redis-allow-eviction" ]]
		assert_eq "$output" "" "copied ($pol)"
		run_one 0 "$url" block --redis-allow-eviction
		assert_eq "$output" x "copied ($pol, allowed)"
		assert_eq "$stderr" "" "stderr ($pol, allowed)"
		stop_own_redis
	done
	# Without maxmemory nothing is evicted, whatever the policy.
	own_redis --maxmemory-policy allkeys-lru
	url=redis://127.0.0.1:$OPORT
	run_one 0 "$url" block
	assert_eq "$output" x "copied (maxmemory 0)"
	assert_eq "$stderr" "" "stderr (maxmemory 0)"
	redis-cli -p "$OPORT" config set maxmemory 100mb >/dev/null
	# A user kept from INFO: CONFIG GET tells.  Kept from both: a warning.
	redis-cli -p "$OPORT" acl setuser i on '>pw' '+@all' -info '~*' '&*' \
	    >/dev/null
	redis-cli -p "$OPORT" acl setuser c on '>pw' '+@all' -info -config \
	    '~*' '&*' >/dev/null
	run_one 1 "redis://i:pw@127.0.0.1:$OPORT" block
	assert_one_stderr_line
	[[ $stderr == *"maxmemory-policy allkeys-lru"* ]]
	run_one 0 "redis://c:pw@127.0.0.1:$OPORT" block
	assert_eq "$output" x "copied (neither INFO nor CONFIG)"
	assert_one_stderr_line
	[[ $stderr == *"cannot tell whether the server evicts keys (INFO memory: NOPERM"* && $stderr != *pw@* ]]
	run_one 0 "redis://c:pw@127.0.0.1:$OPORT" block --redis-allow-eviction
	assert_eq "$stderr" "" "stderr (allowed: nothing to ask)"
}

@test "--redis: a policy turned to evicting mid-run is warned of once, in the words of the start's refusal, busy or idle; the run goes on" {
	local d=$BATS_TEST_TMPDIR pid feed st=0 warn t0
	BATS_TEST_TIMEOUT=60
	warn="maxmemory-policy allkeys-lru (maxmemory 104857600) evicts the keys of tbthrottle, resetting its limits"
	own_redis --maxmemory 100mb
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 1000/s --redis "redis://127.0.0.1:$OPORT" \
	    <"$d/fifo" >"$d/out" 2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	# Busy: records come for 10 s, each booked by a call that keeps the
	# settings.
	seq 200 | "$TB" -r 20/s -b 1 >&8 &
	feed=$!
	sleep 0.5
	t0=$(now_ms)
	redis-cli -p "$OPORT" config set maxmemory-policy allkeys-lru >/dev/null
	wait_text "$d/err" "$warn" 10
	# A heartbeat comes every 3 s: the warning well before the 10 s of
	# records are over.
	assert_le "$(elapsed_ms "$t0")" 6000 "ms to the warning, busy"
	sleep 3.5	# a heartbeat more, the policy unchanged: no more said
	assert_eq "$(grep -c "maxmemory-policy" "$d/err")" 1 "warnings"
	# Idle, turned back and to evicting again: said again.
	wait "$feed"
	redis-cli -p "$OPORT" config set maxmemory-policy noeviction >/dev/null
	sleep 3.5
	redis-cli -p "$OPORT" config set maxmemory-policy volatile-lru >/dev/null
	wait_text "$d/err" "maxmemory-policy volatile-lru" 5
	exec 8>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status: $(cat "$d/err")"
	assert_eq "$(cat "$d/out")" "$(seq 200)" "output"
	assert_eq "$(grep -c "maxmemory-policy" "$d/err")" 2 "warnings"
	[[ $(cat "$d/err") == *"/0: $warn: set maxmemory-policy noeviction, or give --redis-allow-eviction"* ]]
}

@test "--redis: a noeviction server out of memory is an outage: limited locally, and Redis used again once memory is freed" {
	local d=$BATS_TEST_TMPDIR pid i st=0
	own_redis
	head -c 1000000 /dev/zero | tr '\0' a >"$d/value"
	for i in 1 2 3; do
		redis-cli -p "$OPORT" -x set "big$i" <"$d/value" >/dev/null
	done
	redis-cli -p "$OPORT" config set maxmemory 2mb >/dev/null
	mkfifo "$d/fifo"
	"$TB" --shared "$P" -r 100/s --redis-fallback local \
	    --redis "redis://127.0.0.1:$OPORT" <"$d/fifo" >"$d/out" \
	    2>"$d/err" 3>&- &
	pid=$!
	exec 8>"$d/fifo"
	echo one >&8
	wait_for_output "$d/out"
	grep -q "OOM.*limiting locally" "$d/err"
	redis-cli -p "$OPORT" del big1 big2 big3 >/dev/null
	wait_text "$d/err" "reached again" 5
	echo two >&8
	exec 8>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status: $(cat "$d/err")"
	assert_eq "$(cat "$d/out")" $'one\ntwo' "output"
	assert_eq "$(redis-cli -p "$OPORT" hget "tbthrottle-settings:$P" r)" \
	    100/s "the settings, claimed once memory was freed"
}

@test "--redis: -R --reload while a booking waits for Redis is answered once the booking is over, and nothing breaks" {
	local d=$BATS_TEST_TMPDIR pid rpid rtpid st=0 i t0
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	own_redis
	rpid=$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")
	printf 'a* 100/s 10\nb* 5/s\n' >"$d/tiers"
	mkfifo "$d/fifo"
	"$TB" --shared "$P" --redis "redis://127.0.0.1:$OPORT" -k 1 \
	    --tiers "$d/tiers" -r 50/s --name nested -s \
	    <"$d/fifo" >"$d/out" 2>"$d/err" 3>&- &
	pid=$!
	TPID=$pid # teardown ends it if the test fails
	exec 8>"$d/fifo"
	wait_running "name.nested"
	for ((i = 0; i < 30; i++)); do echo "a$((i % 3)) $i" >&8; done
	sleep 0.3
	# The next booking waits for a server that does not answer...
	kill -STOP "$rpid"
	for ((i = 0; i < 5; i++)); do echo "b$i x" >&8; done
	sleep 0.2
	# ... when the reload comes, which must not book in the middle of it.
	printf 'a* 200/s 10\nb* 5/s\n' >"$d/tiers"
	tb -R nested --reload >"$d/reload.out" 2>"$d/reload.err" 8>&- &
	rtpid=$!
	# A change refused whatever the time is refused at once meanwhile.
	t0=$(now_ms)
	run -2 --separate-stderr tb -R nested -r 5/s 8>&-
	assert_msg "$stderr" "nested: the buckets of --shared cannot be changed live"
	# Held behind the booking, it would wait for the server, which wakes
	# only below: -R would give up at 5 s (exit 1).  A process start on
	# a busy machine is well within 4 s.
	assert_le "$(since_ms "$t0")" 4000 "ms to the refusal"
	sleep 0.3
	kill -CONT "$rpid"
	wait "$rtpid" || { cat "$d/reload.err" >&2; false; }
	exec 8>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "the run's exit status"
	assert_eq "$(wc -l <"$d/out")" 35 "records out"
	grep -q "units 35 in, 35 out, 0 dropped, 0 waiting" "$d/err" ||
	    { cat "$d/err" >&2; false; }
}

@test "--redis-fallback local: after an outage's detection the local bucket goes on from then, its burst and no more at once" {
	local d=$BATS_TEST_TMPDIR rpid hpid gap_end clump
	build_stamp
	own_redis
	rpid=$(cat "$BATS_FILE_TMPDIR/redis-$OPORT.pid")
	seq 60 >"$d/in"
	# The server hangs once 10 lines are out (at 0.5 s, however late the
	# run started): the booking under way waits out its 1 s.
	(wait_for "10 lines" has_lines "$d/copy" 10 && kill -STOP "$rpid" &&
	    sleep 4 && kill -CONT "$rpid") 3>&- &
	hpid=$!
	run -0 "$STAMP" -o "$d/copy" -- "$TB" --shared "$P" -r 20/s -b 1 \
	    --redis-fallback local --redis "redis://127.0.0.1:$OPORT" "$d/in"
	wait "$hpid" || true
	# The line that ends the stall, and how many left within 20 ms of it.
	gap_end=$(awk '$1 ~ /^[0-9]/ { if (n++ && $1 - t > 800) print $1; t = $1 }' \
	    <<<"$output" | head -n 1)
	[[ -n $gap_end ]] || { echo "no stall seen: $output" >&2; false; }
	clump=$(awk -v g="$gap_end" '$1 ~ /^[0-9]/ && $1 >= g && $1 < g + 20' \
	    <<<"$output" | wc -l)
	# Burst 1: the bucket, full by then, lets one go, then one every 50 ms.
	assert_eq "$clump" 1 "lines within 20 ms of the end of the stall"
}

@test "--redis --exec: two runs start their commands at the fleet's rate together" {
	local d=$BATS_TEST_TMPDIR t0 t1 n i pids=()
	seq 20 >"$d/in"
	t0=$(now_ms)
	for i in 1 2; do
		"$TB" --shared "$P" --redis "$URL" -r 10/s -b 2 -j 2 "$d/in" \
		    --exec sh -c "echo \$1 >>'$d/started'" _ &
		pids+=($!)
	done
	sleep 1.5
	kill -TERM "${pids[@]}"
	wait "${pids[@]}" || true
	t1=$(now_ms)
	n=$(wc -l <"$d/started")
	assert_le "$n" "$(awk -v a="$t0" -v b="$t1" \
	    'BEGIN { printf "%d", 2 + (b - a) / 100 }')" "commands started"
	assert_ge "$n" 10 "commands started"
}

@test "--redis -k --take KEY: the key's own bucket, shared by the fleet" {
	run -0 tb --shared "$P" --redis "$URL" -k 1 -r 1/h --take --drop a
	run -1 tb --shared "$P" --redis "$URL" -k 1 -r 1/h --take --drop a
	run -0 tb --shared "$P" --redis "$URL" -k 1 -r 1/h --take --drop b
	# The same bucket as a run's record "a ..." meets.
	run -0 --separate-stderr bash -c 'printf "a x\nb y\nc z\n" |
	    tb --shared "$0" --redis "$1" -k 1 -r 1/h --drop' "$P" "$URL"
	assert_eq "$output" "c z" "records whose key had a token left"
	run -2 --separate-stderr tb --shared "$P" --redis "$URL" -k 1 -r 1/h --take
	assert_msg "$stderr" "--take with -k 1 needs the KEY to take from: --take KEY [N]"
	run -2 --separate-stderr tb --shared "$P" --redis "$URL" -k 1 -r 1/h --take 'a b'
	assert_msg "$stderr" "invalid --take key 'a b': give a key a field of a record can hold (not empty, no field separator or delimiter)"
}

@test "--redis -k -F --take KEY: the bucket a record with that key in field 2 meets" {
	local k
	for k in foo bar baz; do
		run -0 tb --shared "$P" --redis "$URL" -k 2 -F , -r 1/h --take --drop "$k"
	done
	run -1 tb --shared "$P" --redis "$URL" -k 2 -F , -r 1/h --take --drop foo
	run -0 --separate-stderr bash -c 'printf "a,foo\na,qux\n" |
	    tb --shared "$0" --redis "$1" -k 2 -F , -r 1/h --drop' "$P" "$URL"
	assert_eq "$output" "a,qux" "foo's token was taken by --take"
}
