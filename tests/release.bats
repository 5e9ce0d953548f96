#!/usr/bin/env bats
# tests/lint/release.sh (make lint, make deb): the tool's version is the
# package's, the man page's .Dd moves when the page does, and the newest
# debian/changelog entry is no older than .Dd.  Each test on a small git
# tree of its own with those three files.

load helpers

# make_tree VERSION CHANGELOG_VERSION CHANGELOG_DATE DD: the three files
# in $T, committed on 2026-11-20.
make_tree() {
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/src/cli" "$T/debian" "$T/man"
	printf '#define TBTHROTTLE_VERSION "%s"\n' "$1" >"$T/src/cli/options.h"
	printf 'tbthrottle (%s) unstable; urgency=medium\n\n  * A change.\n\n -- A <a@example.org>  %s\n' \
	    "$2" "$3" >"$T/debian/changelog"
	printf '.Dd %s\n.Dt TBTHROTTLE 1\n.Os\n' "$4" >"$T/man/tbthrottle.1"
	commit_tree 2026-11-20
}

# commit_tree DAY: commit all of $T as authored on DAY.
commit_tree() {
	git -C "$T" init -q 2>/dev/null
	git -C "$T" add -A
	GIT_AUTHOR_DATE="$1T12:00:00Z" GIT_COMMITTER_DATE="$1T12:00:00Z" \
	    git -C "$T" -c user.name=t -c user.email=t@example.org \
	    commit -q -m change
}

@test "release: versions that agree and dates in order pass" {
	make_tree 1.2.0 1.2.0 'Fri, 20 Nov 2026 12:00:00 +0000' \
	    'November 20, 2026'
	run -0 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "" "stderr"
}

@test "release: the tool's version differs from the package's" {
	make_tree 1.3.0 1.2.0 'Fri, 20 Nov 2026 12:00:00 +0000' \
	    'November 20, 2026'
	run -1 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "release: src/cli/options.h has version 1.3.0 but\
 debian/changelog has 1.2.0: give them the same version" "stderr"
}

@test "release: the page changed after its .Dd, committed or not" {
	make_tree 1.2.0 1.2.0 'Fri, 20 Nov 2026 12:00:00 +0000' \
	    'November 20, 2026'
	echo '.Sh NAME' >>"$T/man/tbthrottle.1"
	commit_tree 2026-11-24
	run -1 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "release: man/tbthrottle.1 changed on 2026-11-24 but\
 its .Dd is November 20, 2026: date the page to its change" "stderr"
	echo '.Nm tbthrottle' >>"$T/man/tbthrottle.1"
	run -1 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "release: man/tbthrottle.1 changed on $(date -u +%F)\
 but its .Dd is November 20, 2026: date the page to its change" "stderr"
}

@test "release: a .Dd newer than the newest changelog entry" {
	make_tree 1.2.0 1.2.0 'Fri, 20 Nov 2026 12:00:00 +0000' \
	    'November 24, 2026'
	run -1 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "release: debian/changelog's newest entry (1.2.0)\
 is of 2026-11-20, older than the man page's .Dd (November 24, 2026): add an\
 entry with a new version (dch -v), or man keeps showing the page it cached" \
	    "stderr"
}

@test "release: a .Dd that is not a date" {
	make_tree 1.2.0 1.2.0 'Fri, 20 Nov 2026 12:00:00 +0000' '$Mdocdate$'
	run -1 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" "$T"
	assert_eq "$stderr" "release: man/tbthrottle.1: .Dd '\$Mdocdate\$' is not\
 a date" "stderr"
}

@test "release: this tree passes" {
	run -0 --separate-stderr bash "$BATS_TEST_DIRNAME/lint/release.sh" \
	    "$BATS_TEST_DIRNAME/.."
	assert_eq "$stderr" "" "stderr"
}
