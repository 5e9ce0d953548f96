#!/usr/bin/env bats
# Docs that match: every example of the man page runs, as written, with
# local stand-ins for the network and for the commands records go to
# (tests/tools/examples.py says which), and README.md's examples are the page's.

load helpers
load redis

teardown() {
	stop_own_redis
}

@test "every example of the man page runs and exits 0; README.md shows the same ones" {
	local port=
	command -v python3 >/dev/null || skip "python3 is not installed"
	if command -v redis-server >/dev/null &&
	    "$TB" -V | grep -q 'Redis support: yes'; then
		# The example's server asks a password, and uses database 2.
		own_redis --requirepass secret
		port=$OPORT
	fi
	mkdir "$BATS_TEST_TMPDIR/work"
	run python3 "$BATS_TEST_DIRNAME/tools/examples.py" "$TB" \
	    "$BATS_TEST_TMPDIR/work" $port
	echo "$output" >&2
	assert_eq "$status" 0 "exit status"
	[[ $output == *"blocks of the page run, 0 failed"* ]]
}

@test "every quota example of the man page keeps the quota it names: burst + rate x period, or the windows', at most the quota" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	run python3 "$BATS_TEST_DIRNAME/tools/quotas.py"
	echo "$output" >&2
	assert_eq "$status" 0 "exit status"
	# The examples as they once were: 105 calls in a minute of 100.
	cat >"$BATS_TEST_TMPDIR/old.1" <<'PAGE'
.Pp
A cron job that stays within an API quota of 100 calls a minute, with
bursts of up to 10:
.Bd -literal -offset indent
*/15 * * * * cut -d, -f1 users.csv | tbthrottle -r 95/min -b 10 \
    --exec sync-user
.Ed
.Pp
The same quota kept by jobs started elsewhere:
.Bd -literal -offset indent
xargs -P 4 -I{} sh -c \
    'tbthrottle --shared api -r 95/min -b 10 --take && call-api' _ {} <ids
.Ed
PAGE
	run python3 "$BATS_TEST_DIRNAME/tools/quotas.py" "$BATS_TEST_TMPDIR/old.1"
	assert_eq "$status" 1 "exit status for the old page"
	[[ $output == *"BROKEN tbthrottle -r 95/min -b 10"*"at most 105 in 60 s, the quota 100"*"BROKEN tbthrottle --shared api -r 95/min -b 10 --take"* ]]
}
