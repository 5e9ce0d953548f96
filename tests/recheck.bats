#!/usr/bin/env bats
# The package build's test run (tests/tools/recheck.sh, make
# check-package): a test that fails is run once more on its own, saying
# so; one that fails twice fails the run.  Driven on small suites of its own.

load helpers

# recheck JOBS FILE: tests/tools/recheck.sh, in an environment free of
# this bats's variables, which the inner bats would take for its own, and
# with the bats command, not bats's own libexec/ (first on this PATH).
recheck() {
	local path
	path=$(tr ':' '\n' <<<"$PATH" | grep -v "^$BATS_LIBEXEC\$" | paste -s -d :)
	env -i PATH="$path" HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" \
	    bash "$BATS_TEST_DIRNAME/tools/recheck.sh" "$@"
}

# The suite of tests/tools/recheck.fixture, in this test's directory.
make_suite() {
	cp "$BATS_TEST_DIRNAME/tools/recheck.fixture" \
	    "$BATS_TEST_TMPDIR/suite.bats"
}

@test "recheck: tests that fail once are run again alone, say so, and pass the run" {
	make_suite
	touch "$BATS_TEST_TMPDIR/ok"
	run -0 --separate-stderr recheck 2 "$BATS_TEST_TMPDIR/suite.bats"
	assert_eq "$stderr" "recheck: 1 tests failed; running them once more, one at a time (a real-time test can miss on a busy machine):
recheck:   fails once (a|b) [1.0]
recheck: the 1 tests passed when run again" "stderr"
	# The second run ran that test alone.
	[[ $output == *$'\n1..1\nok 1 fails once (a|b) [1.0] in '* ]] ||
	    { echo "stdout: $output" >&2; return 1; }
}

@test "recheck: a test that fails twice fails the run, and says so" {
	make_suite
	run -1 --separate-stderr recheck 2 "$BATS_TEST_TMPDIR/suite.bats"
	assert_eq "$stderr" "recheck: 2 tests failed; running them once more, one at a time (a real-time test can miss on a busy machine):
recheck:   fails once (a|b) [1.0]
recheck:   fails while there is no file named ok
recheck: tests failed twice (above)" "stderr"
}

@test "recheck: a suite that passes is run once, with nothing said" {
	make_suite
	touch "$BATS_TEST_TMPDIR/ok" "$BATS_TEST_TMPDIR/seen"
	run -0 --separate-stderr recheck 1 "$BATS_TEST_TMPDIR/suite.bats"
	assert_eq "$stderr" "" "stderr"
	assert_eq "$(grep -c '^ok ' <<<"$output")" 3 "tests run"
}

@test "recheck: a file bats cannot run is not run again" {
	echo '@test "x" {' >"$BATS_TEST_TMPDIR/broken.bats"
	run -1 --separate-stderr recheck 1 "$BATS_TEST_TMPDIR/broken.bats"
	assert_eq "$stderr" "recheck: bats failed (status 1) before any test did" \
	    "stderr"
}
