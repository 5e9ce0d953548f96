#!/usr/bin/env bats
# examples/curl-retry against tests/tools/quotad.py, a real HTTP server
# that keeps a quota: the exit status tells a 2xx (0) from "try again"
# (75, 429 or 503, the server's Retry-After written where
# $TBTHROTTLE_RETRY_AFTER names) from any other failure (1, one line on
# standard error naming the URL and the status or curl's).

load helpers

CR=$BATS_TEST_DIRNAME/../examples/curl-retry

setup() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v curl >/dev/null || skip "curl is not installed"
	# A temporary directory of the test's own, to see what is left in it.
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
	unset TBTHROTTLE_RETRY_AFTER
}

teardown() {
	quotad_stop
}

# early_in_minute: wait, if need be, for a wall-clock minute with 15 s
# or more left, so that a test's requests all fall in one window of 60 s.
early_in_minute() {
	local s=$(($(date +%s) % 60))
	((s <= 45)) || sleep $((60 - s))
}

@test "curl-retry: a 200 exits 0, its body on standard output and nothing on standard error" {
	quotad --status 200
	run -0 --separate-stderr "$CR" "${URL}a"
	assert_eq "$output" ok "the body"
	assert_eq "$stderr" "" "standard error"
	assert_eq "$(awk '{ print $3, $4 }' "$BATS_TEST_TMPDIR/requests")" \
	    "/a 200" "the request the server saw"
}

@test "curl-retry: a 429 with Retry-After in seconds exits 75, writes them to \$TBTHROTTLE_RETRY_AFTER, and nothing to standard output" {
	quotad --status 429 --retry-after 7
	export TBTHROTTLE_RETRY_AFTER=$BATS_TEST_TMPDIR/ra
	run -75 --separate-stderr "$CR" "$URL"
	assert_eq "$output" "" "standard output"
	assert_eq "$stderr" "" "standard error"
	assert_eq "$(cat "$TBTHROTTLE_RETRY_AFTER")" 7 "the Retry-After file"
}

@test "curl-retry: a 503 with Retry-After as an HTTP-date exits 75 and writes the date" {
	quotad --status 503 --retry-after 30 --date
	export TBTHROTTLE_RETRY_AFTER=$BATS_TEST_TMPDIR/ra
	run -75 "$CR" "$URL"
	[[ $(cat "$TBTHROTTLE_RETRY_AFTER") =~ ^(Mon|Tue|Wed|Thu|Fri|Sat|Sun),\ [0-9]{2}\ [A-Z][a-z]{2}\ [0-9]{4}\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ GMT$ ]]
}

@test "curl-retry: a quota's window of 1 request: the first exits 0, the next 75 with the seconds left in the window" {
	local before after
	quotad --window 1/60s
	export TBTHROTTLE_RETRY_AFTER=$BATS_TEST_TMPDIR/ra
	early_in_minute
	run -0 "$CR" "$URL"
	[[ ! -e $TBTHROTTLE_RETRY_AFTER ]]
	before=$(date +%s)
	run -75 "$CR" "$URL"
	after=$(date +%s)
	# The window ends at the next multiple of 60 s after the request.
	assert_ge "$(cat "$TBTHROTTLE_RETRY_AFTER")" \
	    $((60 - after % 60 - 1)) "Retry-After"
	assert_le "$(cat "$TBTHROTTLE_RETRY_AFTER")" $((60 - before % 60)) \
	    "Retry-After"
}

@test "curl-retry: a 429 without Retry-After exits 75 and writes no file" {
	quotad --status 429
	export TBTHROTTLE_RETRY_AFTER=$BATS_TEST_TMPDIR/ra
	run -75 "$CR" "$URL"
	[[ ! -e $TBTHROTTLE_RETRY_AFTER ]]
}

@test "curl-retry: without \$TBTHROTTLE_RETRY_AFTER a 429 exits 75 and leaves no file behind" {
	quotad --status 429 --retry-after 7
	cd "$BATS_TEST_TMPDIR/tmp"
	run -75 "$CR" "$URL"
	assert_eq "$(ls -A)" "" "files left in the directory and TMPDIR"
}

@test "curl-retry: a 404 exits 1, one line on standard error naming the URL and the status, no body" {
	quotad --status 404
	run -1 --separate-stderr "$CR" "${URL}missing"
	assert_eq "$output" "" "standard output"
	assert_eq "$stderr" "curl-retry: ${URL}missing: HTTP 404" "the message"
}

@test "curl-retry: a connection refused exits 1, one line naming the URL and curl's exit status" {
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run -1 --separate-stderr "$CR" "http://127.0.0.1:$port/"
	assert_one_stderr_line
	[[ $stderr == "curl-retry: http://127.0.0.1:$port/: curl failed, exit 7: "* ]]
	assert_eq "$output" "" "standard output"
}

@test "curl-retry: -o FILE gets a 2xx's body, and a 429 leaves FILE alone" {
	local d=$BATS_TEST_TMPDIR
	quotad --window 1/60s
	early_in_minute
	run -0 --separate-stderr "$CR" "$URL" -o "$d/body"
	assert_eq "$output" "" "standard output"
	assert_eq "$(cat "$d/body")" ok "the body in -o's file"
	run -75 "$CR" "$URL" --output "$d/body2"
	[[ ! -e $d/body2 ]]
	run -75 "$CR" "$URL" -o"$d/body"
	assert_eq "$(cat "$d/body")" ok "the body of the 200, still"
}

@test "curl-retry: curl's options pass through (--request-target reaches the server); with --fail, still 75 and 1" {
	quotad --status 429 --retry-after 3
	run -75 "$CR" "$URL" --fail
	kill "$(cat "$BATS_TEST_TMPDIR/quotad.pid")"
	rm -f "$BATS_TEST_TMPDIR/port"
	quotad --status 404
	run -1 --separate-stderr "$CR" "$URL" -f --request-target /other
	assert_eq "$stderr" "curl-retry: $URL: HTTP 404" "the message"
	assert_eq "$(tail -n 1 "$BATS_TEST_TMPDIR/requests" |
	    awk '{ print $3, $4 }')" "/other 404" "the request the server saw"
}

@test "curl-retry: no URL, or an option that would take its output, is a usage error (exit 2)" {
	run -2 --separate-stderr "$CR"
	assert_eq "$stderr" "usage: curl-retry URL [curl option...]" "usage"
	run -2 --separate-stderr "$CR" http://127.0.0.1:1/ -w '%{http_code}'
	assert_one_stderr_line
	run -2 --separate-stderr "$CR" http://127.0.0.1:1/ -O
	assert_one_stderr_line
	run -2 --separate-stderr "$CR" http://127.0.0.1:1/ -o
	assert_one_stderr_line
}

@test "quotad --bucket 0.1/s,2: two answers at once, then 429 with Retry-After 1, each request logged with both clocks" {
	quotad --bucket 0.1/s,2
	# One curl, one connection: five requests well within the 5 s a
	# token takes to be half refilled.
	run -0 curl -s -w '%{http_code} %header{retry-after}\n' \
	    -o /dev/null "$URL" -o /dev/null "$URL" -o /dev/null "$URL" \
	    -o /dev/null "$URL" -o /dev/null "$URL"
	assert_eq "$(tr '\n' , <<<"$output")" "200 ,200 ,429 1,429 1,429 1," \
	    "the answers"
	export TBTHROTTLE_RETRY_AFTER=$BATS_TEST_TMPDIR/ra
	run -75 "$CR" "$URL"
	assert_eq "$(cat "$TBTHROTTLE_RETRY_AFTER")" 1 "Retry-After"
	assert_eq "$(awk '{ print $4 }' "$BATS_TEST_TMPDIR/requests" |
	    tr '\n' ,)" 200,200,429,429,429,429, "the statuses logged"
	awk 'NF != 4 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ ||
	    length($2) != 19 || $3 != "/" { exit 1 }' "$BATS_TEST_TMPDIR/requests"
}
