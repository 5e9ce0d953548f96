#!/usr/bin/env bats
# The bash completion script: sourced as bash-completion would, it
# completes options, their values, and the running tbthrottles for -R.

load helpers

# complete_words WORD...: the completions offered for the last WORD.
complete_words() {
	bash --norc --noprofile -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tbthrottle tbthrottle "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ \
	    "$BATS_TEST_DIRNAME/../completion/tbthrottle.bash" "$@"
}

@test "completion: options from a prefix" {
	run -0 complete_words tbthrottle --dr
	assert_eq "$output" $'--drop\n--drop-to' "completions"
}

@test "completion: every long option of --help can be completed" {
	local opt
	for opt in $("$TB" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		run -0 complete_words tbthrottle "$opt"
		[[ $'\n'$output$'\n' == *$'\n'"$opt"$'\n'* ]] ||
		    { echo "no completion for $opt: $output" >&2; return 1; }
	done
}

@test "completion: algorithms, fallbacks and stats formats" {
	run -0 complete_words tbthrottle -a s
	assert_eq "$output" sliding "-a s"
	run -0 complete_words tbthrottle --redis-fallback ''
	assert_eq "$output" $'block\nlocal\nfail' "--redis-fallback"
	run -0 complete_words tbthrottle --stats=j
	assert_eq "$output" --stats=json "--stats="
}

@test "completion: -R offers the names and pids of the running tbthrottles" {
	local pid d=$BATS_TEST_TMPDIR
	export XDG_RUNTIME_DIR=$d/run
	mkdir -m 700 "$XDG_RUNTIME_DIR" "$d/bin"
	ln -s "$TB" "$d/bin/tbthrottle"
	export PATH=$d/bin:$PATH
	"$TB" -c -r 1/min --name compl </dev/zero >/dev/null &
	pid=$!
	wait_running "$pid"
	run -0 complete_words tbthrottle -R ''
	kill "$pid"
	wait "$pid" || true
	[[ $'\n'$output$'\n' == *$'\n'"$pid"$'\n'* ]] ||
	    { echo "completions: $output" >&2; return 1; }
	[[ $'\n'$output$'\n' == *$'\n'compl$'\n'* ]] ||
	    { echo "completions: $output" >&2; return 1; }
}
