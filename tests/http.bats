#!/usr/bin/env bats
# --exec against a real HTTP server whose answers are slow, then fast: the
# limit holds where requests start; through a pipe into xargs it does not.
# And a real nginx limit_req zone accepts every request of --exec.

load helpers

setup() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
}

teardown() {
	local f
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[[ -e $f ]] || continue
		kill_ours TERM "$(cat "$f")" 'python3*'
	done
}

# serve SLOW_FOR SLOW_S FAST_S: start tests/tools/slowserver.py; its port in PORT,
# its log of arrivals in $BATS_TEST_TMPDIR/arrivals.
serve() {
	local d=$BATS_TEST_TMPDIR i
	python3 "$BATS_TEST_DIRNAME/tools/slowserver.py" "$d/port" "$d/arrivals" \
	    "$@" 3>&- &
	echo $! >"$d/server.pid"
	for ((i = 0; i < 500; i++)); do
		[[ -s $d/port ]] && break
		sleep 0.01
	done
	PORT=$(cat "$d/port")
	seq 20 | sed "s|^|http://127.0.0.1:$PORT/|" >"$d/urls"
}

# worst_window BURST RATE: of the arrivals logged, the most in a window
# beyond BURST + 2 + RATE x its length; "ok" when none.  The server sees a
# request after curl's start-up, which a busy machine may stretch by more
# for one request than for the next: as a server that judges arrivals
# must, two requests more are allowed for that, a jitter of up to 2/RATE
# (400 ms at 5/s; one request, 200 ms, was once 12 ms short under make
# check).  A sender twice too fast still fails it (20 in 2 s at 5/s,
# burst 2: 14 allowed).
worst_window() {
	awk '{ print $1 }' "$BATS_TEST_TMPDIR/arrivals" | sort -n |
	    awk -v b="$1" -v r="$2" '
	    { t[NR] = $1 }
	    END {
		for (i = 1; i <= NR; i++)
			for (j = i; j <= NR; j++)
				if (j - i + 1 > b + 2 + r * (t[j] - t[i])) {
					printf "%d requests in %.3f s\n", j - i + 1, t[j] - t[i]
					exit
				}
		print "ok"
	    }'
}

@test "--exec -j 2: a server slow then fast gets no more than burst + rate x t in any window, 2 at most at once" {
	serve 2.5 1 0.005
	run -0 "$TB" -r 5/s -b 2 -j 2 "$BATS_TEST_TMPDIR/urls" \
	    --exec curl -fsS -o /dev/null
	assert_eq "$(wc -l <"$BATS_TEST_TMPDIR/arrivals")" 20 "requests"
	assert_eq "$(worst_window 2 5)" ok "the worst window"
	assert_le "$(awk '$2 > m { m = $2 } END { print m }' \
	    "$BATS_TEST_TMPDIR/arrivals")" 2 "requests in flight"
}

@test "the contrast, as documented: through | xargs -P 2 the same limit lets a backlog through at once" {
	# At 1/s, slow answers of 4 s for 8 s: 6 lines wait in the pipe when
	# the server speeds up, and go as fast as curl can start, which a
	# busy machine slows but not to one a second.
	serve 8 4 0.005
	seq 14 | sed "s|^|http://127.0.0.1:$PORT/|" >"$BATS_TEST_TMPDIR/urls"
	"$TB" -r 1/s -b 2 "$BATS_TEST_TMPDIR/urls" |
	    xargs -d '\n' -n 1 -P 2 curl -fsS -o /dev/null
	assert_eq "$(wc -l <"$BATS_TEST_TMPDIR/arrivals")" 14 "requests"
	# Lines went into the pipe at 1/s while the server was slow; when
	# it sped up, xargs let them all go.
	[[ $(worst_window 2 1) != ok ]]
}

# worst_grants BURST RATE: of the grants logged as "BEFORE AFTER" (the
# clock read before --take began and after it returned, s), the most in
# a window beyond BURST + RATE x its length; "ok" when none.  Each grant
# lies between its two readings, so a set of them, from the earliest
# before to the latest after, spans no more than that: no allowance is
# needed, however slow the machine.
worst_grants() {
	sort -n "$BATS_TEST_TMPDIR/grants" | awk -v b="$1" -v r="$2" '
	    { lo[NR] = $1; hi[NR] = $2 }
	    END {
		for (i = 1; i <= NR; i++) {
			top = hi[i]
			for (j = i; j <= NR; j++) {
				if (hi[j] > top)
					top = hi[j]
				if (j - i + 1 > b + r * (top - lo[i])) {
					printf "%d grants in %.3f s\n", j - i + 1, top - lo[i]
					exit
				}
			}
		}
		print "ok"
	    }'
}

@test "--take: four shells sharing one bucket start no more than burst + rate x t" {
	local d=$BATS_TEST_TMPDIR i pids=()
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	serve 0 0 0.005
	for i in 1 2 3 4; do
		(for _ in 1 2 3 4 5; do
			t=${EPOCHREALTIME/,/.}
			"$TB" --shared api -r 5/s -b 2 --take &&
			    echo "$t ${EPOCHREALTIME/,/.}" >>"$d/grants" &&
			    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/"
		done) &
		pids+=($!)
	done
	wait "${pids[@]}"
	assert_eq "$(wc -l <"$d/arrivals")" 20 "requests"
	assert_eq "$(worst_grants 2 5)" ok "the worst window of grants"
}

@test "--take --drop: four shells trying at once are granted no more than burst + rate x t" {
	local d=$BATS_TEST_TMPDIR i pids=() t0 t1 granted
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	t0=$(now_ms)
	for i in 1 2 3 4; do
		(for _ in $(seq 40); do
			"$TB" --shared api2 -r 10/s -b 3 --take --drop &&
			    echo granted >>"$d/granted"
			sleep 0.02
		done) &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now_ms)
	granted=$(wc -l <"$d/granted")
	assert_le "$granted" "$(awk -v a="$t0" -v b="$t1" \
	    'BEGIN { printf "%d", 3 + (b - a) / 100 }')" "tokens granted"
	assert_ge "$granted" 4 "tokens granted"
}

# nginx_refuses RATE BURST [SLACK_MS]: of the times (ms) on standard input,
# one a line, how many nginx's limit_req zone of RATE r/s with
# burst=BURST nodelay refuses, judged as ngx_http_limit_req_module judges:
# the excess, in thousandths of a request, is the last one's less what
# the ms since the last accepted request drained, plus one request, and
# never below 0; a request whose excess would pass BURST requests is
# refused, and leaves the excess as it was.  SLACK_MS is added to each
# gap: the most the times may have taken from it.
nginx_refuses() {
	sort -n | awk -v r="$1" -v b="$2" -v slack="${3:-0}" '
	    NR == 1 { last = $1; excess = 0; next }
	    {
		ms = int($1 - last + slack)
		if (ms < 0) ms = 0
		e = excess - int(r * 1000 * ms / 1000) + 1000
		if (e < 0) e = 0
		if (e > b * 1000) { refused++; next }
		excess = e
		if (ms > 0) last = $1
	    }
	    END { print refused + 0 }'
}

@test "nginx limit_req 10r/s burst=5 nodelay accepts every request of -r 10/s -b 5 -j 8 --exec curl as it was started, slow answers or fast" {
	local d=$BATS_TEST_TMPDIR nport i user= refused hz
	command -v nginx >/dev/null || skip "nginx is not installed (apt-get install nginx-light)"
	serve 1.5 0.6 0.005
	nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p "$d/nginx/logs"
	if [[ $(id -u) == 0 ]]; then user="user root;"; fi
	cat >"$d/nginx/nginx.conf" <<CONF
$user
worker_processes 1;
error_log $d/nginx/logs/error.log;
pid $d/nginx.pid;
events { worker_connections 256; }
http {
	log_format judged '\$msec \$request_time \$status \$request_uri';
	access_log $d/nginx/logs/access.log judged;
	client_body_temp_path $d/nginx/body;
	proxy_temp_path $d/nginx/proxy;
	fastcgi_temp_path $d/nginx/fastcgi;
	uwsgi_temp_path $d/nginx/uwsgi;
	scgi_temp_path $d/nginx/scgi;
	limit_req_zone \$binary_remote_addr zone=api:1m rate=10r/s;
	server {
		listen 127.0.0.1:$nport;
		location / {
			limit_req zone=api burst=5 nodelay;
			proxy_pass http://127.0.0.1:$PORT;
		}
	}
}
CONF
	nginx -p "$d/nginx" -c "$d/nginx/nginx.conf" -g 'daemon on;'
	for ((i = 0; i < 500; i++)); do
		curl -s -o /dev/null "http://127.0.0.1:$nport/warm" && break
		sleep 0.01
	done
	# The warm-up took a token of the zone: let it come back.
	sleep 1
	seq 40 | sed "s|^|http://127.0.0.1:$nport/|" >"$d/nurls"
	# Each command notes the time its process was made (the kernel's
	# start time of it, in clock ticks), then becomes curl.
	run -0 --separate-stderr "$TB" -r 10/s -b 5 -j 8 -s "$d/nurls" \
	    --exec sh -c 'u=$1; read -r s </proc/$$/stat 2>/dev/null &&
		set -- ${s##*) } && echo "${20}" >>"$0"
		exec curl -sS -o /dev/null -w "%{http_code}\n" "$u"' "$d/started"
	refused=$(grep -vc '^200$' <<<"$output" || true)
	if [[ -s $d/started ]]; then
		# At the source: nginx's rule accepts every request at the
		# time tbthrottle started its command, a clock tick given to
		# each gap for the ticks' rounding.
		hz=$(getconf CLK_TCK)
		assert_eq "$(awk -v hz="$hz" '{ print $1 * 1000 / hz }' \
		    "$d/started" | nginx_refuses 10 5 "$((1000 / hz))")" 0 \
		    "requests nginx's rule refuses at the times they were started"
		# At nginx: it refused what its rule refuses at the times it
		# judged them (its log): any refused arrived bunched by the
		# clients' start-up, which the one request of margin between
		# -b 5 and burst=5 covers on all but a very busy machine.
		assert_eq "$(awk '$4 != "/warm" {
		    printf "%.0f\n", $1 * 1000 - $2 * 1000 }' \
		    "$d/nginx/logs/access.log" | nginx_refuses 10 5)" "$refused" \
		    "requests nginx's rule refuses at the times nginx judged them"
	else
		assert_eq "$refused" 0 "requests refused"
	fi
	assert_eq "$(grep -c '^[0-9]' <<<"$output")" 40 "answers"
}
