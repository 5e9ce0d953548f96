#!/usr/bin/env bash
# tests/lint/counts.sh: the figures of tests/README.md's Reliability table that count
# tests are the counts of the tests themselves.  A row that names
# tests/NAME.bats files ends with the number of @test in them; the row of
# the system tests, with the number in all.  Without arguments, say which
# differ and exit 1; with --write, write them into tests/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

count() { # the @test lines of the files named
	cat "$@" | grep -c '^@test ' || true
}

total=$(count tests/*.bats)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bad=0
while IFS= read -r line; do
	want=""
	if [[ $line == "| system tests (bats)"* ]]; then
		want=$total
	elif [[ $line == "| bad-input cases"* ]]; then
		# The rows of its table of cases, not its @test.
		want=$(sed -n "/<<'EOF_CASES'/,/^EOF_CASES/p" tests/badinput.bats |
		    sed '1d;$d' | grep -cv '^#\|^$')
	elif [[ $line == "| "*"| "[0-9]*" |" && $line == *'`tests/'*'.bats`'* ]]; then
		# shellcheck disable=SC2016 # backquotes, not an expansion
		mapfile -t files < <(grep -o '`tests/[a-z]*\.bats`' <<<"$line" |
		    tr -d '`' | sort -u)
		want=$(count "${files[@]}")
	fi
	if [[ -n $want ]]; then
		new=$(sed -E "s/\| [0-9]+( each)? \|\$/| $want |/" <<<"$line")
		if [[ $new != "$line" ]]; then
			echo "tests/README.md: '${line:0:60}...' says" \
			    "'$(grep -oE '[0-9]+( each)? \|$' <<<"$line" | tr -d ' |')'," \
			    "the tests are $want" >&2
			bad=1
		fi
		line=$new
	fi
	printf '%s\n' "$line" >>"$out"
done <tests/README.md
if [[ ${1:-} == --write ]]; then
	cat "$out" >tests/README.md
	exit 0
fi
if ((bad)); then
	echo "counts: run 'bash tests/lint/counts.sh --write'" >&2
	exit 1
fi
echo "counts: tests/README.md's figures are the tests'"
