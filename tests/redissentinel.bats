#!/usr/bin/env bats
# --redis redis-sentinel://: the master found through Redis Sentinel, and
# found again when a failover moves it.  Real redis-servers, replicas and
# redis-sentinels on loopback ports, stopped by pid.  Skipped, saying so,
# without redis-sentinel (or redis-server, or hiredis).

load helpers
load redis

# A failover test takes 6 s of records and a sentinel's 0.5 s to call the
# master down, and each test starts servers and sentinels of its own: on a
# busy machine, minutes.  (Set for the file: bats starts a test's
# countdown before the test runs.)
BATS_TEST_TIMEOUT=300

# start_sentinel PORT NAME MASTER_PORT [LINE...]: a redis-sentinel on PORT
# watching the master on MASTER_PORT as NAME, quick to call it down
# (500 ms), LINE... added to its config, which it rewrites, in
# BATS_FILE_TMPDIR.  With TLS_CLI set (redis-cli's TLS options), PORT is
# its TLS port, and its only one.
start_sentinel() {
	local conf=$BATS_FILE_TMPDIR/sentinel-$1.conf
	printf '%s\n' "${TLS_CLI:+tls-}port $1" "${TLS_CLI:+port 0}" \
	    "bind 127.0.0.1" "dir $BATS_FILE_TMPDIR" \
	    "sentinel monitor $2 127.0.0.1 $3 1" \
	    "sentinel down-after-milliseconds $2 500" \
	    "sentinel failover-timeout $2 2000" "${@:4}" >"$conf"
	redis-sentinel "$conf" >"$BATS_FILE_TMPDIR/redis-$1.log" 2>&1 &
	echo $! >"$BATS_FILE_TMPDIR/redis-$1.pid"
	await_redis "$1" redis-sentinel ${TLS_CLI:+"${TLS_CLI[@]}"}
}

# start_trio NAME: a master ($MPORT), its replica ($QPORT) in sync, and a
# sentinel ($SPORT) that watches the master as NAME and knows the
# replica, ready for a failover.
start_trio() {
	local i
	MPORT=$(free_port) QPORT=$(free_port) SPORT=$(free_port)
	start_redis "$MPORT"
	start_redis "$QPORT" --replicaof 127.0.0.1 "$MPORT"
	for ((i = 0; i < 500; i++)); do
		redis-cli -p "$QPORT" info replication |
		    grep -q 'master_link_status:up' && break
		sleep 0.01
	done
	start_sentinel "$SPORT" "$1" "$MPORT"
	for ((i = 0; i < 500; i++)); do
		redis-cli -p "$SPORT" sentinel replicas "$1" 2>/dev/null |
		    grep -qx "127.0.0.1:$QPORT" && return 0
		sleep 0.01
	done
	echo "the sentinel on $SPORT does not know the replica $QPORT" >&2
	return 1
}

setup_file() {
	command -v redis-sentinel >/dev/null || return 0
	command -v redis-server >/dev/null || return 0
	start_trio m
	export MPORT QPORT SPORT
}

teardown_file() {
	local port
	for port in ${SPORT:-} ${QPORT:-} ${MPORT:-}; do
		stop_redis "$port"
	done
}

setup() {
	need_redis
	command -v redis-sentinel >/dev/null ||
	    skip "redis-sentinel is not installed (apt-get install redis-sentinel)"
	URL=redis-sentinel://127.0.0.1:$SPORT/m
	P=sentinel$BATS_TEST_NUMBER
	OWN=()
}

# Servers a test started for itself, stopped even when it fails.
teardown() {
	local port
	if [[ -n ${TPID:-} ]]; then
		kill_ours KILL "$TPID"
	fi
	for port in "${OWN[@]}"; do
		stop_redis "$port"
	done
}

@test "redis-sentinel://: 20 lines through the master the sentinel names" {
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "$URL"
	assert_eq "$output" "$(seq 20)" "output"
	assert_eq "$stderr" "" "stderr"
	assert_eq "$(redis-cli -p "$MPORT" exists "tbthrottle-settings:$P")" 1 \
	    "the settings, on the master"
}

@test "redis-sentinel://: a fixed window on the master the sentinel names, N in all, and --show" {
	local granted=0 i
	for i in 1 2 3 4; do
		if tb --shared "$P" --redis "$URL" -a fixed -r 2/1h --take --drop; then
			granted=$((granted + 1))
		fi
	done
	assert_eq "$granted" 2 "runs granted"
	assert_eq "$(redis-cli -p "$MPORT" hget "tbthrottle:$P" c)" 2 "count, on the master"
	run -0 --separate-stderr tb --shared "$P" --redis "$URL" --show --json
	[[ $output == *'"kind":"fixed","limit":"2/1h",'*'"used":2,"left":0,'* ]]
}

@test "redis-sentinel://: a master no sentinel knows is exit 1 at once, named" {
	local t0
	t0=$(now_ms)
	run -1 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" -r 10/s' "$P" "redis-sentinel://127.0.0.1:$SPORT/nosuch"
	assert_le "$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print int(b - a) }')" \
	    5000 "ms to exit"
	assert_eq "$output" "" "output"
	assert_one_stderr_line
	[[ $stderr == *"no sentinel knows a master named 'nosuch'"* ]]
}

@test "redis-sentinel://: a dead sentinel first in the list, the next answers" {
	local dead
	dead=$(free_port)
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" \
	    "redis-sentinel://127.0.0.1:$dead,127.0.0.1:$SPORT/m"
	assert_eq "$output" "$(seq 20)" "output"
	assert_eq "$stderr" "" "stderr"
}

# connections PORT: the connections the server on PORT has taken, this
# one too.
connections() {
	redis-cli -p "$1" info stats | tr -d '\r' |
	    sed -n 's/^total_connections_received://p'
}

@test "redis-sentinel://: hung sentinels first in the list cost their seconds once, not at each connection" {
	local h1 h2 h urls c0=() c1
	h1=$(free_port) h2=$(free_port)
	start_redis "$h1"
	start_redis "$h2"
	OWN=("$h1" "$h2")
	# The connections each has taken so far.
	for h in "$h1" "$h2"; do
		c0+=("$(connections "$h")")
	done
	kill -STOP "$(cat "$BATS_FILE_TMPDIR/redis-$h1.pid")" \
	    "$(cat "$BATS_FILE_TMPDIR/redis-$h2.pid")"
	urls="redis-sentinel://127.0.0.1:$h1,127.0.0.1:$h2,127.0.0.1:$SPORT/m"
	# The connection cut mid-run (CLIENT KILL), once the first line is
	# out through the master: asked for again, the sentinel that
	# answered comes first, and the two that hang, which held the start
	# up 2 s, are not asked again.
	{
		echo 1
		wait_for "the first line" has_lines "$BATS_TEST_TMPDIR/out" 1
		redis-cli -p "$MPORT" client kill type normal >/dev/null
		sleep 0.2
		echo 2
	} | tb --shared "$P" --redis "$urls" -r 1000/s \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	assert_eq "$(cat "$BATS_TEST_TMPDIR/out")" "$(printf '1\n2')" "output"
	grep -q "reached again" "$BATS_TEST_TMPDIR/err"
	# Each hung one was connected to once, at the start, however long
	# the run took: its connection waits in the queue of a server that
	# hangs, to be taken (and counted) once it wakes.  Asked from the
	# first again, each would have been connected to twice, costing its
	# second each time.  (The check's own connection is one more.)
	kill -CONT "$(cat "$BATS_FILE_TMPDIR/redis-$h1.pid")" \
	    "$(cat "$BATS_FILE_TMPDIR/redis-$h2.pid")"
	for h in 0 1; do
		c1=$(connections "${OWN[h]}")
		assert_eq "$((c1 - c0[h] - 1))" 1 \
		    "connections to hung sentinel $((h + 1))"
	done
}

@test "redis-sentinel://: the password is the master's, and a sentinel's that wants one" {
	local mport sport lport
	mport=$(free_port) sport=$(free_port) lport=$(free_port)
	OWN=("$sport" "$lport" "$mport")
	start_redis "$mport" --requirepass hunter2
	start_sentinel "$sport" pw "$mport" "sentinel auth-pass pw hunter2"
	start_sentinel "$lport" pw "$mport" "sentinel auth-pass pw hunter2" \
	    "requirepass hunter2"
	# A sentinel without a password is sent none: AUTH would be refused.
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://:hunter2@127.0.0.1:$sport/pw"
	assert_eq "$output" "$(seq 5)" "output, a sentinel without a password"
	assert_eq "$stderr" "" "stderr"
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://:hunter2@127.0.0.1:$lport/pw"
	assert_eq "$output" "$(seq 5)" "output, a sentinel with the password"
	assert_eq "$stderr" "" "stderr"
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://127.0.0.1:$sport/pw"
	assert_one_stderr_line
	[[ $stderr == *"(master 127.0.0.1:$mport): NOAUTH"* ]]
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://:wrong@127.0.0.1:$lport/pw"
	assert_one_stderr_line
	[[ $stderr == *"sentinel 127.0.0.1:$lport: WRONGPASS"* && $stderr != *wrong* ]]
}

@test "redis-sentinel://: a sentinel that names a replica is not taken for the master" {
	local sport
	sport=$(free_port)
	OWN=("$sport")
	start_sentinel "$sport" r "$QPORT"
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s --redis-fallback fail' "$P" \
	    "redis-sentinel://127.0.0.1:$sport/r"
	assert_eq "$output" "" "output"
	assert_one_stderr_line
	[[ $stderr == *"(master 127.0.0.1:$QPORT): ROLE says slave"* ]]
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s --redis-fallback local' "$P" \
	    "redis-sentinel://127.0.0.1:$sport/r"
	assert_eq "$output" "$(seq 5)" "output, limited locally"
	[[ $stderr == *"ROLE says slave"*"limiting locally"* ]]
}

@test "redis-sentinel://: a first sentinel that names a replica as the master: the next one is asked at once, whatever the fallback" {
	local liar good fb
	liar=$(free_port) good=$(free_port)
	OWN=("$liar" "$good")
	# Both watch a master named "two": the first takes the replica for
	# it, the second knows the master.
	start_sentinel "$liar" two "$QPORT"
	start_sentinel "$good" two "$MPORT"
	for fb in block fail; do
		TB_LIMIT=10 run -0 --separate-stderr bash -c 'seq 5 | tb \
		    --shared "$0" --redis "$1" -r 1000/s --redis-fallback "$2"' \
		    "$P" "redis-sentinel://127.0.0.1:$liar,127.0.0.1:$good/two" \
		    "$fb"
		assert_eq "$output" "$(seq 5)" "output ($fb)"
		assert_eq "$stderr" "" "stderr ($fb)"
	done
	assert_eq "$(redis-cli -p "$MPORT" exists "tbthrottle-settings:$P")" 1 \
	    "the settings, on the master"
}

@test "redis-sentinel://: a host that is no sentinel is said so" {
	run -1 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://127.0.0.1:$MPORT/m"
	assert_one_stderr_line
	[[ $stderr == *"sentinel 127.0.0.1:$MPORT: ERR unknown command"*"not a sentinel"* ]]
}

# resumed_ms: after the master was killed, ms from the sentinel's naming
# the replica ($QPORT) to the first line out since the kill ($d/out), or
# 0 when that line came first (a fast sentinel).
resumed_ms() {
	local n i p
	sleep 0.3	# what was on its way is out: no failover yet
	n=$(wc -l <"$d/out")
	for ((i = 0; i < 3000; i++)); do
		redis-cli -p "$SPORT" sentinel get-master-addr-by-name f |
		    grep -qx "$QPORT" && break
		sleep 0.01
	done
	p=$(now_ms)
	for ((i = 0; i < 3000; i++)); do
		(($(wc -l <"$d/out") > n)) && break
		sleep 0.01
	done
	elapsed_ms "$p"
}

# failover FALLBACK MIN_MS [LAG_MS]: 600 lines at 100/s, the master killed
# (SIGKILL) after the first 100: all 600 out, exit 0, the replica
# promoted, the run no shorter than MIN_MS, and output going on within
# LAG_MS of the promotion.
failover() {
	local d=$BATS_TEST_TMPDIR t0 ms rc=0 i lag
	start_trio f
	OWN=("$SPORT" "$QPORT" "$MPORT")
	seq 600 >"$d/in"
	t0=$(now_ms)
	TB_LIMIT=45 tb --shared "$P" -r 100/s --redis-fallback "$1" \
	    --redis "redis-sentinel://127.0.0.1:$SPORT/f" "$d/in" \
	    >"$d/out" 2>"$d/err" &
	TPID=$!
	for ((i = 0; i < 1000; i++)); do
		(($(wc -l <"$d/out") >= 100)) && break
		sleep 0.01
	done
	kill -KILL "$(cat "$BATS_FILE_TMPDIR/redis-$MPORT.pid")"
	lag=$(resumed_ms)
	wait "$TPID" || rc=$?
	ms=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print int(b - a) }')
	cat "$d/err" >&2
	assert_eq "$rc" 0 "exit status"
	cmp "$d/in" "$d/out"
	assert_eq "$(redis-cli -p "$QPORT" role | head -1)" master \
	    "the replica's role"
	# Back, named as the report of the outage named it, and where.
	[[ $(cat "$d/err") == *"(master 127.0.0.1:$MPORT): reached again, now at 127.0.0.1:$QPORT"* ]]
	assert_paired "$d/err"
	assert_ge "$ms" "$2" "ms for 600 lines at 100/s"
	assert_le "$ms" 40000 "ms for 600 lines at 100/s"
	assert_le "$lag" "${3:-60000}" "ms from the promotion to output"
}

@test "redis-sentinel:// --redis-fallback block: the master killed mid-run, all goes on the promoted replica" {
	# 599 lines after the first take 5990 ms at 100/s; a booking the
	# replica had not yet been sent as the master died would let 10 ms
	# go again, and on loopback there is no more than one or two.
	# The tries are 200 ms apart at most while the sentinels are asked:
	# the output goes on within that of the promotion, and of a busy
	# machine's slowness, seen by a test that polls; 1.2 s leaves it a
	# second.  The backoff to 2 s tried 1.5 s and 3.1 s after the kill:
	# a promotion some 1.7 s after it, as a sentinel quick to call the
	# master down makes, waited 1.4 s for the next try.
	failover block 5970 1200
}

@test "redis-sentinel:// --redis-fallback local: the master killed mid-run, all goes on the promoted replica" {
	# As above, and the local bucket's burst as the master dies, and the
	# promoted one's as it is reached: 20 ms more.
	failover local 5950
}

@test "rediss-sentinel://: TLS to the sentinel and the master, each certificate checked" {
	local d=$BATS_TEST_TMPDIR mport sport tls
	command -v openssl >/dev/null || skip "openssl is not installed"
	"$TB" -V | grep -q 'TLS: yes' ||
	    skip "this tbthrottle is built without TLS (install libssl-dev)"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" \
	    -out "$d/ca.pem" -days 2 -subj "/CN=tbthrottle test CA" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout "$d/s.key" -out "$d/s.csr" \
	    -subj /CN=localhost 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1\n' >"$d/s.ext"
	openssl x509 -req -in "$d/s.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
	    -CAcreateserial -out "$d/s.pem" -days 2 -extfile "$d/s.ext" 2>/dev/null
	mport=$(free_port) sport=$(free_port)
	OWN=("$sport" "$mport")
	tls=(--tls-cert-file "$d/s.pem" --tls-key-file "$d/s.key"
	    --tls-ca-cert-file "$d/ca.pem" --tls-auth-clients no)
	redis-server --port 0 --tls-port "$mport" --bind 127.0.0.1 "${tls[@]}" \
	    --dir "$BATS_FILE_TMPDIR" --save '' --appendonly no >"$BATS_FILE_TMPDIR/redis-$mport.log" 2>&1 &
	echo $! >"$BATS_FILE_TMPDIR/redis-$mport.pid"
	TLS_CLI=(--tls --cacert "$d/ca.pem")
	await_redis "$mport" redis-server "${TLS_CLI[@]}"
	# The sentinel speaks TLS alone, to its clients and to the master
	# (tls-replication).
	start_sentinel "$sport" t "$mport" "tls-cert-file $d/s.pem" \
	    "tls-key-file $d/s.key" "tls-ca-cert-file $d/ca.pem" \
	    "tls-auth-clients no" "tls-replication yes"
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" --redis-cacert "$2" -r 1000/s' "$P" \
	    "rediss-sentinel://127.0.0.1:$sport/t" "$d/ca.pem"
	assert_eq "$output" "$(seq 20)" "output"
	but_slow_handshakes
	assert_eq "$stderr" "" "stderr"
	# A CA that signed neither: the sentinel's certificate is refused.
	run -1 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "rediss-sentinel://127.0.0.1:$sport/t"
	but_slow_handshakes
	assert_one_stderr_line
	[[ $stderr == *"sentinel 127.0.0.1:$sport: "*certificate* ]]
	# The TLS sentinel given as redis-sentinel://: the scheme to give.
	run -1 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "$1" -r 1000/s' "$P" "redis-sentinel://127.0.0.1:$sport/t"
	but_slow_handshakes
	assert_one_stderr_line
	[[ $stderr == *"speaks TLS: give rediss-sentinel:// (and"* ]]
}
