#!/usr/bin/env bats
# --exec: the commands' output passed on whole lines at a time (-j N, -P),
# whole commands (--group), tagged (--tag, --tagstring), or left to them
# (--ungroup, and -j 1 by default).

load helpers

setup() {
	d=$BATS_TEST_TMPDIR
	# gen C: 1000 lines of 10 KB of the letter C, as yes(1) writes them:
	# in blocks that end mid-line.
	printf '#!/bin/sh\nyes "$(head -c 10239 /dev/zero | tr "\\0" "$1")" | head -n 1000\n' >"$d/gen"
	chmod +x "$d/gen"
	printf 'a\nb\nc\nd\n' >"$d/in"
}

# whole FILE: "LINES bad BAD": the lines of FILE, and those that are not
# 10239 of one letter, after that letter and a tab when tagged.
whole() {
	LC_ALL=C awk '{ t = ""
	    if (match($0, /^[a-d]\t/)) { t = substr($0, 1, 1); $0 = substr($0, 3) } }
	    length($0) != 10239 || $0 !~ /^(a+|b+|c+|d+)$/ ||
	    (t != "" && substr($0, 1, 1) != t) { bad++ }
	    END { print NR " bad " bad + 0 }' "$1"
}

@test "-j 4: four commands each writing 1000 lines of 10 KB at once pass on only whole lines" {
	run -0 bash -c '"$0" -r inf -j 4 "$1" --exec "$2" >"$3"' "$TB" "$d/in" "$d/gen" "$d/out"
	assert_eq "$(whole "$d/out")" "4000 bad 0" "lines"
	# Each line is one command's; with --ungroup they write themselves,
	# and mix within lines (what the default is for).
	run -0 bash -c '"$0" -r inf -j 4 --ungroup "$1" --exec "$2" >"$3"' "$TB" "$d/in" "$d/gen" "$d/out"
	assert_eq "$(wc -c <"$d/out")" $((4000 * 10240)) "bytes with --ungroup"
}

@test "--tag: each line after its record and a tab, whole" {
	run -0 bash -c '"$0" -r inf -j 4 --tag "$1" --exec "$2" >"$3"' "$TB" "$d/in" "$d/gen" "$d/out"
	assert_eq "$(whole "$d/out")" "4000 bad 0" "lines"
	assert_eq "$(cut -f 1 "$d/out" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
	    "1000a 1000b 1000c 1000d " "lines of each record"
}

@test "--group: each command's output together, once it ended" {
	run -0 bash -c '"$0" -r inf -j 4 --group "$1" --exec "$2" >"$3"' "$TB" "$d/in" "$d/gen" "$d/out"
	assert_eq "$(whole "$d/out")" "4000 bad 0" "lines"
	# Four runs of 1000 lines, one a command.
	assert_eq "$(cut -c 1 "$d/out" | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" \
	    "1000 1000 1000 1000 " "runs of one command's lines"
	run -0 bash -c '"$0" -r inf -j 4 --group --tag "$1" --exec "$2" >"$3"' "$TB" "$d/in" "$d/gen" "$d/out"
	assert_eq "$(whole "$d/out")" "4000 bad 0" "lines with --tag"
	assert_eq "$(cut -c 1 "$d/out" | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" \
	    "1000 1000 1000 1000 " "runs with --tag"
}

@test "standard error too: whole lines, tagged, to our standard error; a last line unended goes as it is" {
	run -0 --separate-stderr tb -r inf -j 3 --tag --exec sh -c \
	    'echo "out $0"; echo "err $0" >&2; printf "end $0"' <<<$'x\ny\nz'
	assert_eq "$(sort <<<"$stderr")" $'x\terr x\ny\terr y\nz\terr z' "errors"
	# What it writes last, with no newline, is passed on when it ended.
	[[ $output == *$'x\tend x'* && $output == *$'z\tout z\n'* ]] ||
	    { echo "$output" >&2; false; }
	assert_eq "$(grep -o $'[xyz]\tout [xyz]' <<<"$output" | sort)" \
	    $'x\tout x\ny\tout y\nz\tout z' "lines"
}

@test "--tagstring: the tag filled in as the command is, {N} a field, {#} the number" {
	run -0 --separate-stderr tb -r inf -j 2 --tagstring '{#}:{2}' \
	    --exec echo <<<$'a b\nc d'
	assert_eq "$(sort <<<"$output")" $'1:b\ta b\n2:d\tc d' "tagged"
	run -0 --separate-stderr tb -r inf --group --tagstring '[{1}]' \
	    --exec echo hello <<<$'a b'
	assert_eq "$output" $'[a]\thello a b' "grouped"
}

@test "-j 1 leaves a command our own output; -j 2, --line-buffer and -P give it a pipe" {
	local cmd='readlink /proc/self/fd/1'
	[[ -e /proc/self/fd/1 ]] || skip "no /proc/self/fd"
	run -0 bash -c 'echo x | "$0" -r inf --exec sh -c "$1" >"$2"; cat "$2"' "$TB" "$cmd" "$d/o1"
	assert_eq "$output" "$d/o1" "-j 1"
	run -0 bash -c 'echo x | "$0" -r inf -j 2 --exec sh -c "$1" >"$2"; cat "$2"' "$TB" "$cmd" "$d/o2"
	[[ $output == pipe:* ]] || { echo "$output" >&2; false; }
	run -0 bash -c 'echo x | "$0" -r inf --line-buffer --exec sh -c "$1" >"$2"; cat "$2"' "$TB" "$cmd" "$d/o3"
	[[ $output == pipe:* ]] || { echo "$output" >&2; false; }
	run -0 bash -c 'echo x | "$0" -r inf -j 2 --ungroup --exec sh -c "$1" >"$2"; cat "$2"' "$TB" "$cmd" "$d/o4"
	assert_eq "$output" "$d/o4" "--ungroup"
}

@test "a command's background child holding its output open does not hold the run" {
	local t0 t1
	t0=$(now_ms)
	run -0 --separate-stderr tb -r inf -j 2 --exec sh -c \
	    'echo "a $0"; sleep 5 >/dev/null 2>&1 & exec sleep 0' <<<$'1\n2'
	t1=$(now_ms)
	assert_eq "$(sort <<<"$output")" $'a 1\na 2' "output"
	# Never before the output; the children's 5 s are not waited for.
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 4000 "ms the run took"
}

@test "our output gone (head): the run stops, as when it writes records" {
	local t0 t1
	t0=$(now_ms)
	run bash -c 'seq 1000 | "$0" -r inf -j 2 --exec sh -c "yes \$0" | head -n 3' "$TB"
	t1=$(now_ms)
	assert_eq "${#lines[@]}" 3 "lines"
	assert_le "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')" 5000 "ms the run took"
}

@test "output options: each needs --exec, --tag none of --ungroup, two ways of passing on conflict; one line, exit 2" {
	run -2 --separate-stderr tb -r 1/s --tag </dev/null
	assert_eq "$stderr" "tbthrottle: --tag needs --exec: it is of the output of the commands run" "--tag"
	run -2 --separate-stderr tb -r 1/s --line-buffer </dev/null
	assert_eq "$stderr" "tbthrottle: --line-buffer needs --exec: it is of the output of the commands run" "--line-buffer"
	run -2 --separate-stderr tb -r 1/s -j 2 --tagstring '{1}' --ungroup --exec echo </dev/null
	assert_eq "$stderr" "tbthrottle: --tagstring does not combine with --ungroup: the commands write to our output themselves, with no tag before their lines" "--ungroup"
	run -2 --separate-stderr tb -r 1/s --group --line-buffer --exec echo </dev/null
	assert_eq "$stderr" "tbthrottle: --line-buffer conflicts with --group: give one of --line-buffer, --group, --ungroup" "two"
}

@test "-j N beyond the open files the limit lets pipes for: one line naming the limit, exit 2" {
	run -2 --separate-stderr bash -c 'ulimit -n 100 && echo x | "$0" -r inf -j 200 --exec true' "$TB"
	assert_eq "$stderr" "tbthrottle: -j 200: passing on the output of 200 commands at once takes 464 open files, and the limit is 100 (ulimit -n): give --ungroup, or a smaller -j" "message"
	run -0 --separate-stderr bash -c 'ulimit -n 100 && echo x | "$0" -r inf -j 200 --ungroup --exec true' "$TB"
}

@test "--group where no file can be made for the output: one line naming TMPDIR, nothing started" {
	run -126 --separate-stderr env TMPDIR="$d/none" "$TB" -r inf --group --exec echo x <<<$'1\n2'
	assert_eq "$output" "" "output"
	[[ $stderr == "tbthrottle: --exec: no file (in TMPDIR, else /tmp) for the output of 'echo': No such file or directory" ]] ||
	    { echo "$stderr" >&2; false; }
}
