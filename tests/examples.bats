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
