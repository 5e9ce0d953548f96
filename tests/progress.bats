#!/usr/bin/env bats
# -P's live line on a real terminal (a pseudo-terminal made by script(1)):
# it fits the terminal's width, follows it when resized, and leaves no
# stale rows behind, with the output on the same terminal or not.

load helpers

setup() {
	command -v script >/dev/null || skip "script(1) is not installed"
}

# on_tty COLS CMD: run the shell command CMD with its standard streams on
# a terminal COLS wide; what the terminal was sent goes to $d/tty.
on_tty() {
	local d=$BATS_TEST_TMPDIR
	script -qfec "stty cols $1 rows 24; $2" /dev/null >"$d/tty" 2>&1 3>&-
}

# screen COLS [AFTER MARK]: play the bytes a terminal was sent (standard
# input) on a screen COLS wide (AFTER wide once a row reading MARK has
# ended), wrapping text that passes the last column as a terminal does.
# Prints the rows left on the screen, then "wrapped N": how many times a
# row was longer than the screen.
screen() {
	LC_ALL=C awk -v w="$1" -v after="${2:-}" -v mark="${3:-}" '
	BEGIN {
		row = 0
		col = 0
	}
	function put(c) {
		if (col >= w) {
			wrapped++
			row++
			col = 0
		}
		while (length(scr[row]) < col)
			scr[row] = scr[row] " "
		scr[row] = substr(scr[row], 1, col) c substr(scr[row], col + 2)
		col++
	}
	{
		n = length($0)
		for (i = 1; i <= n; i++) {
			c = substr($0, i, 1)
			if (c == "\r") {
				col = 0
			} else if (c == "\033" && substr($0, i + 1, 1) == "[") {
				for (i += 2; i <= n && substr($0, i, 1) ~ /[0-9;?]/; i++)
					;
				if (substr($0, i, 1) == "K")
					scr[row] = substr(scr[row], 1, col)
			} else if (c >= " " && c != "\177") {
				put(c)
			}
		}
		if (mark != "" && scr[row] == mark)
			w = after
		row++
		col = 0
	}
	END {
		for (r = 0; r < row; r++)
			if (scr[r] != "")
				print scr[r]
		print "wrapped " wrapped + 0
	}'
}

# assert_screen COLS [AFTER MARK]: $d/tty on such a screen wrapped no row,
# and holds one status line (the last one drawn) and the lines WANT
# (from $want), in order.
assert_screen() {
	local d=$BATS_TEST_TMPDIR rows
	rows=$(screen "$@" <"$d/tty")
	if [[ $(tail -n 1 <<<"$rows") != "wrapped 0" ]] ||
	    [[ $(grep -cE '[0-9] out( at|,|$)' <<<"$rows") != 1 ]] ||
	    [[ $(grep -vE ' out( at|,|$)|^wrapped' <<<"$rows") != "$want" ]]; then
		printf 'screen %s:\n%s\nsent: %q\n' "$*" "$rows" \
		    "$(cat "$d/tty")" >&2
		return 1
	fi
}

@test "-P with the output on the same terminal, 80 columns: no row wraps, no stale status rows" {
	want=$(seq 20)
	on_tty 80 "seq 20 | '$TB' -r 20/s -P"
	assert_screen 80
}

@test "-P with the output on the same terminal, 40 columns: no row wraps, no stale status rows" {
	want=$(seq 20)
	on_tty 40 "seq 20 | '$TB' -r 20/s -P"
	assert_screen 40
}

@test "-P at 40 columns with -c and a limit of two rates: the line still fits" {
	want=
	head -c 3000 /dev/zero >"$BATS_TEST_TMPDIR/in"
	on_tty 40 "'$TB' -c -r 2k/s -b 100 -r 3k/s -b 10 -P \
	    '$BATS_TEST_TMPDIR/in' >/dev/null"
	assert_screen 40
}

@test "-P on a file of known size: the share done and an ETA, at 80 and 40 columns" {
	local d=$BATS_TEST_TMPDIR
	want=
	seq 30 >"$d/in"
	on_tty 80 "'$TB' -r 40/s -P '$d/in' >/dev/null"
	assert_screen 80
	grep -q '% ETA ' "$d/tty" || { cat -v "$d/tty" >&2; return 1; }
	grep -q ', 100%' "$d/tty" || { cat -v "$d/tty" >&2; return 1; }
	on_tty 40 "'$TB' -r 40/s -P <'$d/in' >/dev/null"
	assert_screen 40
	grep -q '% ETA ' "$d/tty" || { cat -v "$d/tty" >&2; return 1; }
}

@test "-P follows the terminal when it narrows (SIGWINCH)" {
	want=$(seq 10)
	# 80 columns while nothing comes, 40 from 0.5 s; the first line comes
	# at 1 s.
	on_tty 80 "(sleep 0.5; stty cols 40 </dev/tty) & { sleep 1; seq 10; } |
	    '$TB' -r 20/s -P; wait"
	assert_screen 80 40 1
}

@test "-P on a terminal whose output is suspended (^S): SIGTERM still ends the run at once" {
	local d=$BATS_TEST_TMPDIR spid pid st
	seq 100 >"$d/in"
	mkfifo "$d/keys"
	script -qfec "echo \$\$ >$d/pid; exec $TB -r 5/s -P $d/in >/dev/null" \
	    /dev/null <"$d/keys" >"$d/tty" 2>&1 3>&- &
	spid=$!
	exec 8>"$d/keys"
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	wait_running "$pid"
	# ^S: the terminal stops showing what it is sent, and -P's next
	# line waits for it.  The second after holds four of its ticks: a
	# run that wrote its line whatever the terminal is held by then.
	printf '\023' >&8
	sleep 1
	kill -TERM "$pid"
	# A run held in a write to the stopped terminal never ends (it is
	# let go below, after the wait): the wait fails.  Its 100 lines at
	# 5/s would last 20 s, beyond the wait's 10 s.
	st=0
	WAIT_LIMIT=10 wait_for "the run to end after SIGTERM" is_gone "$pid" ||
	    st=1
	# script(1) may have ended with the run: a FIFO with no reader would
	# kill this shell with SIGPIPE, so the write is a subshell's, which
	# ignores it.
	(trap '' PIPE; printf '\021' >&8) 2>/dev/null || true
	exec 8>&-
	wait "$spid" || true
	assert_eq "$st" 0 "the run ended while the terminal was stopped"
}

@test "-P on a terminal whose output is suspended (^S): the output elsewhere goes on at its rate" {
	local d=$BATS_TEST_TMPDIR spid pid n0 st
	seq 1000 >"$d/in"
	mkfifo "$d/keys"
	script -qfec "echo \$\$ >$d/pid; exec $TB -r 50/s -P $d/in >$d/out" \
	    /dev/null <"$d/keys" >"$d/tty" 2>&1 3>&- &
	spid=$!
	exec 8>"$d/keys"
	wait_for_output "$d/pid"
	pid=$(cat "$d/pid")
	wait_running "$pid"
	# The second after ^S holds four of -P's ticks: a run that wrote its
	# line whatever the terminal is held by then.
	printf '\023' >&8
	sleep 1
	n0=$(wc -l <"$d/out")
	# 50 lines a second are due; -P's line waits for the terminal, the
	# output does not.  Held with it, none would go: half a second's
	# more lines never come, however long the wait.
	st=0
	wait_for "25 more lines with the terminal stopped" \
	    has_lines "$d/out" "$((n0 + 25))" || st=1
	kill -TERM "$pid"
	# script(1) may have ended with the run: a FIFO with no reader would
	# kill this shell with SIGPIPE, so the write is a subshell's, which
	# ignores it.
	(trap '' PIPE; printf '\021' >&8) 2>/dev/null || true
	exec 8>&-
	wait "$spid" || true
	assert_eq "$st" 0 "lines out with the terminal stopped"
}

@test "-P on a replay: the log time reached, the speed and how far behind, at 80 columns" {
	local d=$BATS_TEST_TMPDIR
	printf '2024-01-01T10:00:00Z a\n2024-01-01T10:00:01Z b\n2024-01-01T10:00:02Z c\n' >"$d/in"
	want=$(cat "$d/in")
	on_tty 80 "'$TB' --replay --speed 2 -P '$d/in'"
	assert_screen 80
	grep -q 'log 10:00:02Z x2 [0-9.]* ms behind' "$d/tty" ||
	    { cat -v "$d/tty" >&2; return 1; }
}

@test "-P with --exec -j 3, commands writing to the terminal's output and error, 80 columns: no row torn, no stale status rows" {
	local d=$BATS_TEST_TMPDIR rows
	seq 12 >"$d/in"
	printf '#!/bin/sh\necho "out $1"; echo "err $1" >&2\n' >"$d/cmd"
	chmod +x "$d/cmd"
	on_tty 80 "'$TB' -r 10/s -j 3 -P '$d/in' --exec '$d/cmd'"
	rows=$(screen 80 <"$d/tty")
	# Each row is a command's line, whole, or the one status line left.
	if [[ $(tail -n 1 <<<"$rows") != "wrapped 0" ]] ||
	    [[ $(grep -cE '[0-9] out( at|,|$)' <<<"$rows") != 1 ]] ||
	    [[ $(grep -vE ' out( at|,|$)|^wrapped' <<<"$rows" | sort) != \
	    "$(for i in $(seq 12); do echo "err $i"; echo "out $i"; done | sort)" ]]; then
		printf 'screen:\n%s\nsent: %q\n' "$rows" "$(cat "$d/tty")" >&2
		return 1
	fi
}

@test "-P on a file of records: the ETA is the limit's, with its burst, not the average's" {
	local d=$BATS_TEST_TMPDIR
	seq 100 >"$d/in"
	on_tty 80 "'$TB' -r 20/s -b 10 -P '$d/in' >/dev/null"
	# Each line: N out ... ETA T.  After N of 100 out at 20/s, the rest
	# takes (100 - N) / 20 s; the average, lifted by the burst, says
	# less (2.85 s less after 15).  A late tick on a busy machine can
	# make it up to a second less.
	tr '\r' '\n' <"$d/tty" | LC_ALL=C awk '
	    / ETA / { match($0, /[0-9]+ out/); n = substr($0, RSTART) + 0; t = $0; sub(/.* ETA /, "", t); sub(/[,\033].*/, "", t)
	        if (t ~ /ms$/) s = t / 1000; else if (t ~ / s$/) s = t + 0
	        else { split(t, p, ":"); s = p[1] * 60 + p[2] }
	        want = (100 - n) / 20; seen++
	        if (s < want - 1 || s > want + 1) { print "after " n ": ETA " t ", want " want; bad++ } }
	    END { if (!seen) print "no ETA"; exit bad > 0 || !seen }' >&2
}

@test "-P counts a record that runs on from one file into the next once" {
	local d=$BATS_TEST_TMPDIR
	want=
	printf 'a' >"$d/f1"
	printf 'b\nc' >"$d/f2"
	on_tty 80 "'$TB' -r 2/s -P '$d/f1' '$d/f2' >/dev/null"
	# Two records, "ab" and "c": 50 % after the first, 100 % at the end.
	tr '\r' '\n' <"$d/tty" | grep -q ' 1 out .*, 50%' ||
	    { cat -v "$d/tty" >&2; return 1; }
	grep -q ', 100%' "$d/tty" || { cat -v "$d/tty" >&2; return 1; }
}
