#!/usr/bin/env bats
# -k FIELD: a token bucket per value of a field.  With --drop each key's
# flood is cut on its own; without, order is kept and a record waiting for
# its key's token holds back those behind it.

load helpers
load redis

setup_file() {
	build_stamp
}

teardown() {
	stop_own_redis
}

@test "-k 1 --drop: each key gets its own burst" {
	run -0 --separate-stderr bash -c '
	    for i in 1 2 3 4 5; do printf "web1 GET /%s\nweb2 GET /%s\ndb GET /%s\n" $i $i $i; done |
	    tb -k 1 -r 1/min -b 2 --drop --stats=json'
	assert_eq "$output" "$(printf 'web1 GET /1\nweb2 GET /1\ndb GET /1\nweb1 GET /2\nweb2 GET /2\ndb GET /2')" "kept"
	assert_eq "$(json_field units_dropped)" 9 "dropped"
}

@test "-k with -F: a field of comma-separated records, empty fields counted" {
	run -0 --separate-stderr bash -c '
	    printf "1,alice,x\n2,bob,x\n3,alice,y\n4,,z\n5,,w\n" |
	    tb -k 2 -F , -r 1/min --drop'
	assert_eq "$output" $'1,alice,x\n2,bob,x\n4,,z' "kept"
}

@test "-k: records without the field share the empty key" {
	run -0 --separate-stderr bash -c '
	    printf "a 1\nb\nc\na 2\nd 3\n" | tb -k 2 -r 1/min --drop'
	# Keys: 1, empty, empty, 2, 3.
	assert_eq "$output" $'a 1\nb\na 2\nd 3' "kept"
}

@test "-k without --drop: order is kept, a waiting record holds back the rest" {
	printf 'a 1\nb 1\na 2\nb 2\n' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$STAMP" -i "$BATS_TEST_TMPDIR/in" -- \
	    "$TB" -k 1 -r 10/s
	assert_eq "$(stamp_texts)" $'a 1\nb 1\na 2\nb 2' "order"
	local in
	in=$(stamp_in)
	# a 2 waits 100 ms for key a; b 2 (due at once) comes after it.
	assert_ge "$(stamp_field 3)" "$(awk -v t="$in" 'BEGIN { print t + 100 }')" "a 2 (ms)"
	assert_ge "$(stamp_field 4)" "$(stamp_field 3)" "b 2 after a 2 (ms)"
	assert_le "$(stamp_field 4)" 5000 "b 2 (ms)"
}

@test "--max-keys: beyond the cap, new keys share one bucket" {
	run -0 --separate-stderr bash -c '
	    printf "a\nb\nc\nd\na\n" | tb -k 1 -r 1/min --max-keys 2 --drop'
	# a and b have buckets; c takes the shared one; d finds it spent.
	assert_eq "$output" $'a\nb\nc' "kept"
}

@test "-k --drop: 100000 records over 10000 keys, counts exact" {
	run -0 --separate-stderr bash -c '
	    seq 100000 | awk "{ print \$1 % 10000, \$1 }" |
	    tb -k 1 -r 1/min -b 3 --drop --stats=json | wc -l'
	assert_eq "$output" 30000 "kept: 3 per key"
	assert_eq "$(json_field units_dropped)" 70000 "dropped"
}

@test "-k usage errors" {
	local args
	for args in "-k 0 -r 1/s" "-k x -r 1/s" "-k 1 -c -r 1/s" "-k 1" \
	    "-k 1 -r 1/s -r 2/s" "-F , -r 1/s" "--tiers t -r 1/s" \
	    "--max-keys 5 -r 1/s" "-k 1 -r 1/s --max-keys 0" \
	    "-k 1 -r 1/s --initial 0" "-k 1 -r 1/s --queue 3" "-k 1 -r 1/s -F ''"; do
		# shellcheck disable=SC2086 # split on purpose
		eval "run -2 --separate-stderr tb $args" </dev/null
		assert_one_stderr_line
		assert_eq "$output" "" "stdout for $args"
	done
}

@test "-k --drop: records split across reads keep their whole key" {
	# 1 MB of records over 20000 keys, burst 1: each key passes once,
	# however the records fall across the 128 KiB buffer.
	run -0 --separate-stderr bash -c '
	    awk "BEGIN { for (i = 0; i < 100000; i++) printf \"key%d %d\\n\", (i * 7919) % 20000, i }" |
	    tb -k 1 -r 1/min --drop | awk "{ print \$1 }" | sort | uniq -c | awk "\$1 != 1" | wc -l'
	assert_eq "$output" 0 "keys passed other than once"
	run -0 --separate-stderr bash -c '
	    awk "BEGIN { for (i = 0; i < 100000; i++) printf \"key%d %d\\n\", (i * 7919) % 20000, i }" |
	    tb -k 1 -r 1/min --drop | wc -l'
	assert_eq "$output" 20000 "kept"
}

@test "--max-keys: once the table's buckets refill, new keys get their own" {
	local d=$BATS_TEST_TMPDIR
	# c and d come 1.2 s after a and b have come out, so after tbthrottle
	# read them, however late it started: their buckets have refilled.
	{
		printf 'a\nb\n'
		wait_for "a and b out" has_lines "$d/out" 2
		sleep 1.2
		printf 'c\nd\n'
	} | tb -k 1 -r 1/s -b 1 --max-keys 2 --drop >"$d/out"
	assert_eq "$(cat "$d/out")" $'a\nb\nc\nd' "kept"
}

@test "-k: keys that differ only in the top bits of a few bytes are two keys" {
	# The old hash let these two share a bucket whatever its seed: they
	# differ only in the top bit of bytes 7, 11 and 15.
	run -0 --separate-stderr bash -c '
	    printf "0123456A89aAcdeA 1\n0123456\30189a\301cde\301 2\n" |
	    tb -k 1 -r 1/min --drop | wc -l'
	assert_eq "$output" 2 "kept: one record of each key"
}

@test "--max-keys: at the cap, refilled buckets make room for new keys" {
	local d=$BATS_TEST_TMPDIR pid w st=0
	# 10000 keys fill the table; 1.2 s after the last of them went all
	# their buckets have refilled, so 10000 new keys each get one of
	# their own.  (Counted from when they went, not from when they were
	# written: a busy machine may take a while over them.)
	mkfifo "$d/in"
	"$TB" -k 1 --max-keys 10000 -r 1/s -b 1 --drop --stats=json \
	    <"$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	exec {w}>"$d/in"
	awk 'BEGIN { for (i = 0; i < 10000; i++) print "a" i }' >&"$w"
	wait_for "the first 10000 keys" has_lines "$d/out" 10000
	sleep 1.2
	awk 'BEGIN { for (i = 0; i < 10000; i++) print "b" i }' >&"$w"
	exec {w}>&-
	wait "$pid" || st=$?
	assert_eq "$st" 0 "exit status"
	assert_eq "$(wc -l <"$d/out")" 20000 "kept: every key is new"
	stderr=$(cat "$d/err")
	assert_eq "$(json_field units_dropped)" 0 "dropped"
}

@test "--max-keys, shaped: refilled buckets make room, not the overflow" {
	# 20000 new keys at once, 10000 at most live at 1/s: the first
	# 10000 and one more pass at once, the next waits 1 s for the
	# overflow bucket, and by then every bucket has refilled, so the
	# rest pass at once too (not one a second, as the overflow would).
	run -0 --separate-stderr bash -c '
	    awk "BEGIN { for (i = 0; i < 20000; i++) print \"k\" i }" |
	    TB_LIMIT=10 tb -k 1 --max-keys 10000 -r 1/s -b 1 | wc -l'
	assert_eq "$output" 20000 "released within 10 s"
}

@test "-k: a long key takes a fixed entry: 1000 keys of 100 KB stay apart in 32 MiB" {
	# Each key passes its burst of one, and its second record is
	# dropped; the keys' bytes alone (100 MB) would not fit.
	(ulimit -v 32768 && "$TB" -V >/dev/null) ||
	    skip "this build cannot start in 32 MiB of address space (sanitizers, valgrind)"
	run -0 --separate-stderr bash -c '
	    ulimit -v 32768
	    awk "function rep(c, n, s) { for (s = c; length(s) < n; s = s s); return substr(s, 1, n) }
		BEGIN { pad = rep(\"k\", 100000)
		    for (i = 0; i < 1000; i++) printf \"%s%06d 1\\n\", pad, i
		    for (i = 0; i < 1000; i += 10) printf \"%s%06d 2\\n\", pad, i }" |
	    tb -k 1 -r 1/min --drop --stats=json |
	    awk "{ n[\$2]++ } END { print n[1] + 0, n[2] + 0 }"'
	assert_eq "$output" "1000 0" "first records out, second records out"
	assert_eq "$(json_field units_dropped)" 100 "dropped"
}

# The awk function rep(C, N): C N times over.
AWK_REP='function rep(c, n, s) {
	for (s = c; length(s) < n; s = s s)
		;
	return substr(s, 1, n)
}'

@test "-k: a key that ends within the 128 KiB buffer is never cut, up to its last byte" {
	# Records longer than the buffer whose keys, of 131071 bytes, end
	# with the blank that is its last byte, and differ only in their own
	# last byte: a bucket each.
	run -0 --separate-stderr bash -c '
	    awk "$1"'"'"'BEGIN { k = rep("k", 131070); p = rep("p", 70000)
		printf "%sa %s\n%sb %s\n%sa x\n", k, p, k, p, k }'"'"' |
	    tb -k 1 -r 1/min -b 1 --drop --stats=json | cut -c 131070-131075' _ "$AWK_REP"
	assert_eq "$output" $'ka ppp\nkb ppp' "records out: one of each key"
	assert_eq "$(json_field units_dropped)" 1 "dropped: a's second"
}

@test "-k: keys that run past the buffer are limited together: varying what comes before lets none escape" {
	# One key of 200 KB, its records behind a first field of another
	# length each, so the buffer ends at another byte of it each time:
	# it has one token, and so do all keys cut at the buffer together.
	run -0 --separate-stderr bash -c '
	    awk "$1"'"'"'BEGIN { k = rep("k", 200000)
		for (i = 1; i <= 5; i++) printf "%s %s\n", rep("p", i), k
		print "short 1" }'"'"' |
	    tb -k 2 -r 1/min -b 1 --drop --stats=json | cut -c 1-8' _ "$AWK_REP"
	assert_eq "$output" $'p kkkkkk\nshort 1' "records out: the first, and a key known whole"
	assert_eq "$(json_field units_dropped)" 4 "dropped"
}

@test "-k --redis: keys that run past the buffer share one bucket in Redis too" {
	need_redis
	own_redis
	run -0 --separate-stderr bash -c '
	    awk "$1"'"'"'BEGIN { k = rep("k", 200000)
		for (i = 1; i <= 5; i++) printf "%s %s\n", rep("p", i), k
		print "short 1" }'"'"' |
	    tb -k 2 -r 1/min -b 1 --drop --shared cut --redis "$2" | cut -c 1-8' \
	    _ "$AWK_REP" "redis://127.0.0.1:$OPORT"
	assert_eq "$output" $'p kkkkkk\nshort 1' "records out: the first, and a key known whole"
}
