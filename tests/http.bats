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
		[[ -e $f ]] && kill "$(cat "$f")" 2>/dev/null || true
	done
}

# serve SLOW_FOR SLOW_S FAST_S: start tests/slowserver.py; its port in PORT,
# its log of arrivals in $BATS_TEST_TMPDIR/arrivals.
serve() {
	local d=$BATS_TEST_TMPDIR i
	python3 "$BATS_TEST_DIRNAME/slowserver.py" "$d/port" "$d/arrivals" \
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
# beyond BURST + RATE x its length (50 ms allowed for curl's start-up);
# "ok" when none.
worst_window() {
	awk '{ print $1 }' "$BATS_TEST_TMPDIR/arrivals" | sort -n |
	    awk -v b="$1" -v r="$2" '
	    { t[NR] = $1 }
	    END {
		for (i = 1; i <= NR; i++)
			for (j = i; j <= NR; j++)
				if (j - i + 1 > b + r * (t[j] - t[i] + 0.05)) {
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
	serve 2.5 1 0.005
	"$TB" -r 5/s -b 2 "$BATS_TEST_TMPDIR/urls" |
	    xargs -d '\n' -n 1 -P 2 curl -fsS -o /dev/null
	assert_eq "$(wc -l <"$BATS_TEST_TMPDIR/arrivals")" 20 "requests"
	# Lines went into the pipe at 5/s while the server was slow; when
	# it sped up, xargs let them all go.
	[[ $(worst_window 2 5) != ok ]]
}

@test "--take: four shells sharing one bucket start no more than burst + rate x t" {
	local d=$BATS_TEST_TMPDIR i pids=()
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	serve 0 0 0.005
	for i in 1 2 3 4; do
		(for _ in 1 2 3 4 5; do
			"$TB" --shared api -r 5/s -b 2 --take &&
			    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/"
		done) &
		pids+=($!)
	done
	wait "${pids[@]}"
	assert_eq "$(wc -l <"$d/arrivals")" 20 "requests"
	assert_eq "$(worst_window 2 5)" ok "the worst window"
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

@test "nginx limit_req 10r/s burst=5 nodelay accepts every request of -r 10/s -b 5 -j 8 --exec curl, slow answers or fast" {
	local d=$BATS_TEST_TMPDIR nport i user=
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
	access_log $d/nginx/logs/access.log;
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
	run -0 --separate-stderr "$TB" -r 10/s -b 5 -j 8 -s "$d/nurls" \
	    --exec curl -sS -o /dev/null -w '%{http_code}\n'
	assert_eq "$(grep -c '^200$' <<<"$output")" 40 "requests accepted"
}
