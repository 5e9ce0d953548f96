#!/usr/bin/env bats
# --exec's placeholders: {} quoted in a shell's script so that a record
# stays data, {N} a field split as -k splits, {#} and TBTHROTTLE_SEQ the
# record's number in the input, TBTHROTTLE_TRY.

load helpers

setup() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	cd "$BATS_TEST_TMPDIR" || return 1
}

# Records that would run `touch pwned` were they read as code.
hostile() {
	printf '%s\0' 'a; touch pwned' '$(touch pwned)' '`touch pwned`' \
	    "'; touch pwned; '" '"; touch pwned; "' 'back\' "it's" 'a\'\''b' \
	    $'x\ntouch pwned' '' '{}' '$HOME' '-n'
}

@test "{} in sh -c's script: a hostile record is printed exactly and runs nothing" {
	hostile >in
	run -0 tb -r inf -0 in --exec sh -c 'printf "<%s>\n" {}'
	assert_eq "$output" "$(hostile | xargs -0 printf '<%s>\n')" "records"
	[[ ! -e pwned ]]
}

@test "{} inside the script's \"...\" and '...' is the record too, and still data" {
	hostile >in
	run -0 tb -r inf -0 in --exec sh -c 'printf "<%s>\n" "{}"'
	assert_eq "$output" "$(hostile | xargs -0 printf '<%s>\n')" "in \"...\""
	run -0 tb -r inf -0 in --exec sh -c "printf '<%s>\n' '{}'"
	assert_eq "$output" "$(hostile | xargs -0 printf '<%s>\n')" "in '...'"
	run -0 tb -r inf -0 in --exec sh -c 'printf "<%s>\n" $(printf %s {})x'
	[[ ! -e pwned ]]
}

@test "{} in the scripts of bash -ec, -o pipefail -c, and behind env, nice and timeout" {
	hostile >in
	want=$(hostile | xargs -0 printf '<%s>\n')
	for cmd in "bash -ec" "bash -o pipefail -c" "env -u X A=1 sh -c" \
	    "nice -n 1 timeout -s KILL 10 dash -c" "/bin/sh -xc"; do
		# shellcheck disable=SC2086 # the words of cmd
		run -0 --separate-stderr tb -r inf -0 in --exec $cmd \
		    'printf "<%s>\n" {}'
		assert_eq "$output" "$want" "$cmd"
	done
	[[ ! -e pwned ]]
}

@test "{} as a script's \$0 or \$1, and in any command but a shell's script, is the record as it is" {
	hostile >in
	run -0 tb -r inf -0 in --exec sh -c 'printf "<%s|%s>\n" "$0" "$1"' {} {}
	assert_eq "$output" "$(hostile | xargs -0 -I R printf '<%s|%s>\n' R R)" \
	    "\$0 and \$1"
	run -0 tb -r inf -0 in --exec printf '<%s>\n' {}
	assert_eq "$output" "$(hostile | xargs -0 printf '<%s>\n')" "printf"
	[[ ! -e pwned ]]
}

@test "sh -c with no {}: the record is the script, on purpose" {
	run -0 tb -r inf --exec sh -c <<<'echo one; echo two'
	assert_eq "$output" $'one\ntwo' "the record run"
}

@test "{} where no quoting keeps it data (backquotes, a comment, \${...}) is a usage error, nothing run" {
	for script in 'echo `echo {}`' 'echo x # {}' 'echo ${x:-{}}' \
	    'echo $(( {} ))' 'echo \{}' 'cat <<E
{}
E'; do
		run -2 --separate-stderr tb -r inf --exec sh -c "$script" <<<'x'
		assert_eq "$output" "" "nothing run for $script"
		[[ $stderr == "tbthrottle: --exec: {} stands "*" in the shell's script: its value could run as code there; "*"sh -c '... \"\$1\"' sh {}" ]]
	done
	run -2 --separate-stderr tb -r inf --exec fish -c 'echo {}' <<<'x'
	[[ $stderr == *"{} stands in the script of fish -c, whose quoting is not sh's"* ]]
}

@test "{N}: field N split at runs of blanks, or at each byte of -F; missing or empty fields are empty" {
	printf '%s\n' '  a  b	c' 'one' >in
	run -0 tb -r inf in --exec printf '<%s|%s|%s|%s>\n' {1} {2} {3} {4}
	assert_eq "$output" $'<a|b|c|>\n<one|||>' "blanks"
	printf '%s\n' 'a,,c' 'p,q,r,s,t,u,v,w,x,y,z' >in
	run -0 tb -r inf -F , in --exec printf '<%s|%s|%s|%s>\n' {1} {2} {3} {11}
	assert_eq "$output" $'<a||c|>\n<p|q|r|z>' "-F ,"
	run -0 tb -r inf -F , in --exec sh -c 'printf "<%s>\n" {3}{2}{1}'
	assert_eq "$output" $'<ca>\n<rqp>' "adjacent, in a script"
}

@test "{#}, TBTHROTTLE_SEQ and TBTHROTTLE_TRY: each record's number in the input, at -j 4" {
	seq 101 140 >in
	TBTHROTTLE_SEQ=x run -0 tb -r inf -j 4 in --exec sh -c \
	    'echo "{#} $TBTHROTTLE_SEQ $TBTHROTTLE_TRY {}"; env | grep -c ^TBTHROTTLE_SEQ='
	assert_eq "$(grep ' ' <<<"$output" | sort -n)" \
	    "$(seq 1 40 | awk '{ print $1, $1, 1, $1 + 100 }')" "numbers"
	assert_eq "$(grep -vc ' ' <<<"$output")" 40 "lines of counts"
	assert_eq "$(grep -v ' ' <<<"$output" | sort -u)" 1 "one TBTHROTTLE_SEQ"
}

@test "{#} counts every record read, those --drop dropped too" {
	printf '%s\n' a a b a c >in
	run -0 tb -k 1 -r 1/h -b 1 --drop in --exec echo '{#}' {}
	assert_eq "$output" $'1 a\n3 b\n5 c' "numbers"
}

@test "--replay into curl's URL: field 7 of the combined log format is the path" {
	cat >access.log <<'LOG'
127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif?a=1 HTTP/1.0" 200 2326 "http://example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"
10.0.0.2 - - [10/Oct/2000:13:55:36 -0700] "POST /api/v1/items HTTP/1.1" 201 12 "-" "curl/8.0"
LOG
	run -0 tb --replay access.log --exec printf '%s\n' "http://test{7}"
	assert_eq "$output" $'http://test/apache_pb.gif?a=1\nhttp://test/api/v1/items' \
	    "the URLs"
}

@test "-F applies to --exec's {N}; without -k, --time-field or --exec it is refused, naming all three" {
	run -2 --separate-stderr tb -r inf -F , <<<'a,b'
	assert_eq "$stderr" "tbthrottle: -F needs -k FIELD, --time-field N or --exec" \
	    "the message"
}
