#!/usr/bin/env bash
# bench/adapt.sh: fetching URLs from a server whose limit is lower than the
# rate given.  A real nginx limit_req zone of 7 requests a second, no
# burst, answers 429 past it; N URLs (150, --quick 40) are fetched four at
# a time, each through examples/curl-retry (0 for 2xx, 75 for 429):
#
#   --adapt       tbthrottle -r 35/s --adapt --retry 20 -j 4
#   retries       tbthrottle -r 35/s --retry 20 -j 4 (no learning)
#   curl --retry  tbthrottle -r 35/s -j 4 --exec curl --retry 20 (curl's
#                 own tries, which the limit never sees)
#   by hand       tbthrottle -r 7/s -j 4 (the server's limit, known)
#   AIMD          --adapt built with the simplest other curve
#                 (-DADAPT_AIMD: a cut to half, one unit a round more
#                 each round), to compare with the cubic one
#   two, shared   two processes of -r 35/s --adapt -j 2, each half the
#                 URLs, sharing one --shared bucket
#   two, Redis    the same, the bucket kept in a redis-server (when
#                 installed), as hosts sharing a quota would
#
# For each: requests nginx saw, how many it refused (429), the share
# refused, URLs that ended with 200, and the time; a Markdown table.
# The goal of --adapt: every URL 200, at most 30 % refused, at most
# 1.5 x N/7 s.
#
# usage: bash bench/adapt.sh [--quick]
#
# Environment: TB, RECV as for bench/run.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
quick=0
# shellcheck disable=SC1091 # bench/scenario.bash: TB, RECV and quick
. "$here/scenario.bash"
scenario_args adapt.sh "$@"
command -v nginx >/dev/null || { echo "adapt.sh: needs nginx" >&2; exit 1; }
command -v curl >/dev/null || { echo "adapt.sh: needs curl" >&2; exit 1; }

n=150
((quick)) && n=40
work=$(mktemp -d)
trap 'kill "$(cat "$work/nginx.pid" 2>/dev/null)" "$(cat "$work/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
export PATH=$here/../examples:$PATH

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/logs" "$work/www"
echo ok >"$work/www/ok.txt"
user=
[[ $(id -u) == 0 ]] && user="user root;"
cat >"$work/nginx.conf" <<CONF
$user
worker_processes 1;
error_log $work/logs/error.log;
pid $work/nginx.pid;
events { worker_connections 256; }
http {
	log_format judged '\$status';
	client_body_temp_path $work/body;
	proxy_temp_path $work/proxy;
	fastcgi_temp_path $work/fastcgi;
	uwsgi_temp_path $work/uwsgi;
	scgi_temp_path $work/scgi;
	limit_req_zone \$binary_remote_addr zone=api:1m rate=7r/s;
	server {
		listen 127.0.0.1:$port;
		access_log $work/logs/access.log judged;
		location / {
			limit_req zone=api;
			limit_req_status 429;
			root $work/www;
			try_files /ok.txt =404;
		}
	}
}
CONF
nginx -p "$work" -c "$work/nginx.conf" -g 'daemon on;'
for ((i = 0; i < 500; i++)); do
	curl -s -o /dev/null "http://127.0.0.1:$port/warm" && break
	sleep 0.01
done
seq "$n" | sed "s|^|http://127.0.0.1:$port/u|" >"$work/urls"

# The AIMD build: the same sources, the other curve.
mkdir "$work/aimd"
cp -r "$here/../src" "$here/../Makefile" "$work/aimd/"
find "$work/aimd" -name '*.o' -delete
make -s -C "$work/aimd" -j "$(nproc)" CPPFLAGS=-DADAPT_AIMD tbthrottle \
    >/dev/null

# run NAME ARG...: fetch the URLs with $bin ARG... (default $TB), after
# the zone has had two seconds to forget; a row of the table.  With
# pair=1, two processes, each half the URLs, ARG... each.
run() {
	local name=$1 t0 t1 st=0 st2=0 reqs refused ok pid
	shift
	sleep 2
	: >"$work/logs/access.log"
	t0=$(date +%s.%N)
	if ((${pair:-0})); then
		head -n $((n / 2)) "$work/urls" >"$work/urls.1"
		tail -n +$((n / 2 + 1)) "$work/urls" >"$work/urls.2"
		"${bin:-$TB}" "$work/urls.1" "$@" >"$work/out.1" 2>"$work/err" &
		pid=$!
		"${bin:-$TB}" "$work/urls.2" "$@" >"$work/out" 2>"$work/err" ||
		    st=$?
		wait "$pid" || st2=$?
		((st)) || st=$st2
		cat "$work/out.1" >>"$work/out"
	else
		"${bin:-$TB}" "$work/urls" "$@" >"$work/out" 2>"$work/err" ||
		    st=$?
	fi
	t1=$(date +%s.%N)
	reqs=$(wc -l <"$work/logs/access.log")
	refused=$(grep -c '^429$' "$work/logs/access.log" || true)
	ok=$(grep -c '^ok$' "$work/out" || true)
	awk -v name="$name" -v r="$reqs" -v x="$refused" -v ok="$ok" -v n="$n" \
	    -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
	    -v st="$st" 'BEGIN {
		printf "| %s | %d | %d | %.0f %% | %d of %d | %.1f s | %d |\n",
		    name, r, x, r ? 100 * x / r : 0, ok, n, t, st }'
}

echo "| $n URLs, nginx limit_req 7r/s, -j 4 | requests | refused (429) | share refused | ended 200 | time | exit |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
run "-r 35/s --adapt --retry 20" -r 35/s --adapt --retry 20 -j 4 --exec curl-retry
run "-r 35/s --adapt --retry 20 --retry-delay 0" -r 35/s --adapt --retry 20 --retry-delay 0 -j 4 --exec curl-retry
run "-r 35/s --retry 20" -r 35/s --retry 20 -j 4 --exec curl-retry
run "-r 35/s, curl --retry 20" -r 35/s -j 4 --exec curl -fsS --retry 20
run "-r 7/s (the server's limit, by hand)" -r 7/s -j 4 --exec curl-retry
bin=$work/aimd/tbthrottle run "-r 35/s --adapt --retry 20, AIMD" \
    -r 35/s --adapt --retry 20 -j 4 --exec curl-retry
pair=1 run "two: --shared -r 35/s --adapt --retry 20 -j 2 each" \
    --shared cubic -r 35/s --adapt --retry 20 -j 2 --exec curl-retry
pair=1 bin=$work/aimd/tbthrottle run "two: the same, AIMD" \
    --shared aimd -r 35/s --adapt --retry 20 -j 2 --exec curl-retry
if command -v redis-server >/dev/null && "$TB" -V | grep -q 'Redis support: yes'; then
	rport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
	    >"$work/redis.log" 2>&1 &
	echo $! >"$work/redis.pid"
	for ((i = 0; i < 500; i++)); do
		[[ $(redis-cli -p "$rport" ping 2>/dev/null) == PONG ]] && break
		sleep 0.01
	done
	pair=1 run "two: --shared --redis -r 35/s --adapt --retry 20 -j 2 each" \
	    --shared cubic --redis "redis://127.0.0.1:$rport" -r 35/s --adapt \
	    --retry 20 -j 2 --exec curl-retry
fi
echo
echo "Goal for --adapt: $n of $n ended 200, exit 0, at most 30 % refused, at most $(awk -v n="$n" 'BEGIN { printf "%.1f", 1.5 * n / 7 }') s."
