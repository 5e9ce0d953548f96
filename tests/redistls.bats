#!/usr/bin/env bats
# --redis rediss://: TLS to real redis-servers started here, with
# certificates openssl makes for the test: a CA, a server's for localhost
# and 127.0.0.1, one for another host, a client's, and a CA nobody trusts.

load helpers
load redis

setup_file() {
	command -v redis-server >/dev/null || return 0
	command -v openssl >/dev/null || return 0
	local d=$BATS_FILE_TMPDIR
	cert() { # cert NAME CN SAN: a key and a certificate NAME, signed by ca
		openssl req -newkey rsa:2048 -nodes -keyout "$d/$1.key" \
		    -out "$d/$1.csr" -subj "/CN=$2" 2>/dev/null
		printf 'subjectAltName=%s\n' "$3" >"$d/$1.ext"
		openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.pem" \
		    -CAkey "$d/ca.key" -CAcreateserial -out "$d/$1.pem" \
		    -days 2 -extfile "$d/$1.ext" 2>/dev/null
	}
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" \
	    -out "$d/ca.pem" -days 2 -subj "/CN=tbthrottle test CA" 2>/dev/null
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/untrusted.key" \
	    -out "$d/untrusted.pem" -days 2 -subj "/CN=nobody's CA" 2>/dev/null
	cert server localhost "DNS:localhost,IP:127.0.0.1"
	cert other other.example "DNS:other.example"
	cert client client "DNS:client"
	TPORT=$(free_port) MPORT=$(free_port) OTHERPORT=$(free_port)
	export TPORT MPORT OTHERPORT
	# And a plain one, for rediss:// given to it.
	file_redis
	tls_server "$TPORT" server no
	tls_server "$MPORT" server yes
	tls_server "$OTHERPORT" other no
}

# tls_server PORT CERT AUTH: a redis-server speaking TLS alone on PORT,
# with CERT's certificate, asking clients for theirs if AUTH is yes.
tls_server() {
	local d=$BATS_FILE_TMPDIR i
	redis-server --port 0 --tls-port "$1" --bind 127.0.0.1 --dir "$BATS_FILE_TMPDIR" \
	    --tls-cert-file "$d/$2.pem" --tls-key-file "$d/$2.key" \
	    --tls-ca-cert-file "$d/ca.pem" --tls-auth-clients "$3" \
	    --save '' --appendonly no >"$d/redis-$1.log" 2>&1 &
	echo $! >"$d/redis-$1.pid"
	for ((i = 0; i < 500; i++)); do
		redis-cli --tls --cacert "$d/ca.pem" --cert "$d/client.pem" \
		    --key "$d/client.key" -h 127.0.0.1 -p "$1" ping 2>/dev/null |
		    grep -q PONG && return 0
		sleep 0.01
	done
	echo "no TLS redis-server on $1" >&2
	return 1
}

teardown_file() {
	local f
	for f in "$BATS_FILE_TMPDIR"/redis-*.pid; do
		[[ -e $f ]] || continue
		kill_ours TERM "$(cat "$f")" 'redis-*'
	done
}

setup() {
	need_redis
	command -v openssl >/dev/null || skip "openssl is not installed"
	"$TB" -V | grep -q 'TLS: yes' ||
	    skip "this tbthrottle is built without TLS (install libssl-dev)"
	C=$BATS_FILE_TMPDIR
	P=tls$BATS_TEST_NUMBER
}

@test "rediss:// with --redis-cacert: 20 lines through a TLS Redis" {
	run -0 --separate-stderr bash -c 'seq 20 | tb --shared "$0" \
	    --redis "rediss://127.0.0.1:$1" --redis-cacert "$2" -r 1000/s' \
	    "$P" "$TPORT" "$C/ca.pem"
	assert_eq "$output" "$(seq 20)" "lines"
	but_slow_handshakes
	assert_eq "$stderr" "" "stderr"
	# The name is checked too: localhost is in the certificate.
	run -0 --separate-stderr bash -c 'seq 3 | tb --shared "$0" \
	    --redis "rediss://localhost:$1" --redis-cacert "$2" -r 1000/s' \
	    "$P" "$TPORT" "$C/ca.pem"
	assert_eq "$output" "$(seq 3)" "lines by name"
}

@test "rediss://: a sliding window through a TLS Redis, and --show of it" {
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "rediss://127.0.0.1:$1" --redis-cacert "$2" -a sliding \
	    -r 3/1h --drop' "$P" "$TPORT" "$C/ca.pem"
	assert_eq "$output" "$(seq 3)" "lines"
	run -0 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$TPORT" \
	    --redis-cacert "$C/ca.pem" --show
	[[ ${lines[1]} == "3 of 3 in the last 3600.000 s, 0 left; the next may go in "*" s" ]]
}

# The refusals below are given a record: a link that took more than its
# second on a busy machine is an outage, and with no input the run would end
# at once with nothing to do (exit 0); with a record it tries again and says
# what the server is.  Each try has its second, and a machine busy enough
# to miss it once may miss it a few times: a minute in all.
@test "rediss://: a certificate from a CA not trusted is exit 1 within seconds, naming the reason" {
	local t0
	t0=$(now_ms)
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$TPORT" \
	    --redis-cacert "$C/untrusted.pem" -r 10/s <<<x
	assert_le "$(elapsed_ms "$t0")" 45000 "ms to the error"
	but_slow_handshakes
	assert_msg "$stderr" "rediss://127.0.0.1:$TPORT/0: TLS: certificate verify failed: self-signed certificate in certificate chain"
	# The system's CAs do not know the test's either.
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$TPORT" \
	    -r 10/s <<<x
	but_slow_handshakes
	[[ $stderr == *"certificate verify failed"* ]] || { echo "$stderr" >&2; return 1; }
}

@test "rediss://: a certificate for another host is exit 1, naming the mismatch" {
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$OTHERPORT" \
	    --redis-cacert "$C/ca.pem" -r 10/s <<<x
	but_slow_handshakes
	[[ $stderr == *"certificate verify failed: "*"mismatch (the certificate is for another host)" ]] ||
	    { echo "$stderr" >&2; return 1; }
}

@test "rediss://: a server asking for our certificate: without one exit 1, with one it works" {
	local t0
	t0=$(now_ms)
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$MPORT" \
	    --redis-cacert "$C/ca.pem" -r 10/s <<<x
	assert_le "$(elapsed_ms "$t0")" 45000 "ms to the error"
	but_slow_handshakes
	assert_msg "$stderr" "rediss://127.0.0.1:$MPORT/0: TLS: tlsv13 alert certificate required"
	run -0 --separate-stderr bash -c 'seq 5 | tb --shared "$0" \
	    --redis "rediss://127.0.0.1:$1" --redis-cacert "$2" \
	    --redis-cert "$3" --redis-key "$4" -r 1000/s' \
	    "$P" "$MPORT" "$C/ca.pem" "$C/client.pem" "$C/client.key"
	assert_eq "$output" "$(seq 5)" "lines"
	run -2 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$MPORT" \
	    --redis-cert "$C/client.pem" -r 1/s
	assert_msg "$stderr" "--redis-cert and --redis-key go together: give both"
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$MPORT" \
	    --redis-cert "$C/client.pem" --redis-key /nonexistent -r 1/s <<<x
	but_slow_handshakes
	[[ $stderr == *"/nonexistent"* ]] || { echo "$stderr" >&2; return 1; }
}

@test "redis:// to a TLS port is exit 1 within seconds, saying the server speaks TLS" {
	local t0
	t0=$(now_ms)
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "redis://127.0.0.1:$TPORT" \
	    -r 10/s <<<x
	assert_le "$(elapsed_ms "$t0")" 45000 "ms to the error"
	but_slow_handshakes
	assert_msg "$stderr" "redis://127.0.0.1:$TPORT/0: the server speaks TLS: give rediss:// (and --redis-cacert FILE for a private CA)"
}

@test "rediss:// --redis-insecure takes any certificate, and says so at every start" {
	run -0 --separate-stderr bash -c 'seq 3 | tb --shared "$0" \
	    --redis "rediss://127.0.0.1:$1" --redis-insecure -r 1000/s' \
	    "$P" "$OTHERPORT"
	assert_eq "$output" "$(seq 3)" "lines"
	but_slow_handshakes
	assert_msg "$stderr" "--redis-insecure: the server's certificate is not checked; whoever is between may read and change the bucket"
}

@test "rediss://: two processes sharing 500/s over TLS release 500/s between them" {
	local d=$BATS_TEST_TMPDIR t0 t1 total i pids=()
	seq 100000 >"$d/in"
	t0=$(now_ms)
	for i in 1 2; do
		"$TB" --shared "$P" --redis "rediss://127.0.0.1:$TPORT" \
		    --redis-cacert "$C/ca.pem" -r 500/s -b 10 "$d/in" >"$d/out$i" &
		pids+=($!)
	done
	sleep 2
	kill -TERM "${pids[@]}"
	wait "${pids[@]}" || true
	t1=$(now_ms)
	total=$(cat "$d"/out? | wc -l)
	assert_le "$total" "$(awk -v a="$t0" -v b="$t1" \
	    'BEGIN { printf "%d", 10 + (b - a) / 2 + 1 }')" "lines"
	assert_ge "$total" 500 "lines"
	for i in 1 2; do
		assert_ge "$(wc -l <"$d/out$i")" 1 "lines of process $i"
	done
}

@test "rediss://: the server killed and started again mid-run is an outage, not an error" {
	local d=$BATS_TEST_TMPDIR port spid
	port=$(free_port)
	redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --dir "$BATS_FILE_TMPDIR" \
	    --tls-cert-file "$C/server.pem" --tls-key-file "$C/server.key" \
	    --tls-ca-cert-file "$C/ca.pem" --tls-auth-clients no --save '' \
	    >/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	seq 1000 | "$TB" --shared "$P" --redis "rediss://127.0.0.1:$port" \
	    --redis-cacert "$C/ca.pem" -r 20/s --redis-fallback local \
	    >"$d/out" 2>"$d/err" &
	local tb=$!
	sleep 1
	kill -9 "$spid"
	sleep 1
	redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --dir "$BATS_FILE_TMPDIR" \
	    --tls-cert-file "$C/server.pem" --tls-key-file "$C/server.key" \
	    --tls-ca-cert-file "$C/ca.pem" --tls-auth-clients no --save '' \
	    >/dev/null 2>&1 &
	spid=$!
	sleep 2
	kill -0 "$tb" # still running
	kill -TERM "$tb"
	wait "$tb" || true
	kill "$spid"
	grep -q "limiting locally until it is back" "$d/err" || { cat "$d/err" >&2; return 1; }
	assert_ge "$(wc -l <"$d/out")" 50 "lines through the outage"
}

@test "rediss:// to a plain Redis port is exit 1 after the deadline, saying no TLS is spoken there" {
	TB_LIMIT=60 run -1 --separate-stderr tb --shared "$P" --redis "rediss://127.0.0.1:$RPORT" \
	    --redis-cacert "$C/ca.pem" -r 10/s <<<x
	but_slow_handshakes
	assert_msg "$stderr" "rediss://127.0.0.1:$RPORT/0: the server speaks no TLS there: give redis://"
}
