#!/usr/bin/env bats
# The completions for bash, zsh and fish, each in its own shell: options
# (every one --help names), their values (rates after -r), files where an
# option takes one, commands after --exec and then their own completion,
# and the running tbthrottles for -R; bash also as a user meets it,
# interactive with bash-completion, as its list shows.  The zsh and fish
# tests are skipped, saying so, when that shell is missing, and the
# interactive bash ones without bash-completion.

load helpers

# The long and the short options --help names.
help_long_options() {
	"$TB" --help | grep -o -- '--[a-z][a-z-]*' | sort -u
}
help_short_options() {
	"$TB" --help | grep -o -- '^  -[[:alnum:]],' | tr -d ' ,'
}

# has_line TEXT LINE: LINE is one of the lines of TEXT, else say so.
has_line() {
	[[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]] ||
	    { printf 'no %s among:\n%s\n' "$2" "$1" >&2; return 1; }
}

# Run tbthrottle -c -r 1/min --name NAME on a private runtime directory,
# findable as tbthrottle on PATH as an installed one is; its pid in $pid.
start_listed() {
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	mkdir -p -m 700 "$XDG_RUNTIME_DIR" "$BATS_TEST_TMPDIR/bin"
	ln -sf "$TB" "$BATS_TEST_TMPDIR/bin/tbthrottle"
	export PATH=$BATS_TEST_TMPDIR/bin:$PATH
	"$TB" -c -r 1/min --name "$1" </dev/zero >/dev/null 3>&- &
	pid=$!
	wait_running "$pid"
}

stop_listed() {
	kill "$pid"
	wait "$pid" || true
}

# Two commands, tbcmd-one and tbcmd-two, first on PATH, for --exec.
add_commands() {
	mkdir -p "$BATS_TEST_TMPDIR/cmds"
	printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/cmds/tbcmd-one"
	cp "$BATS_TEST_TMPDIR/cmds/tbcmd-one" "$BATS_TEST_TMPDIR/cmds/tbcmd-two"
	chmod +x "$BATS_TEST_TMPDIR"/cmds/tbcmd-*
	export PATH=$BATS_TEST_TMPDIR/cmds:$PATH
}

# The rates every shell offers after -r.
RATES=$'1/0.2s\n1/day\n10/s\n100/min\n1000/h\n5/2s\ninf'
# With -c (and for --byte-rate), bytes as pv's -L gives them.
BYTE_RATES=$'10MB/min\n1G/h\n1M/s\n500k/s\n64K/s\ninf'

# ---- bash: the completion sourced, its function called as bash would ----

# complete_words WORD...: the completions bash offers for the last WORD.
complete_words() {
	bash --norc --noprofile -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tbthrottle tbthrottle "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ \
	    "$BATS_TEST_DIRNAME/../completion/tbthrottle.bash" "$@"
}

@test "bash completion: options from a prefix" {
	run -0 complete_words tbthrottle --dro
	assert_eq "$output" $'--drop\n--drop-to' "completions"
}

@test "bash completion: every long option of --help can be completed" {
	local opt
	for opt in $("$TB" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		run -0 complete_words tbthrottle "$opt"
		[[ $'\n'$output$'\n' == *$'\n'"$opt"$'\n'* ]] ||
		    { echo "no completion for $opt: $output" >&2; return 1; }
	done
}

@test "bash completion: algorithms, fallbacks and stats formats" {
	run -0 complete_words tbthrottle -a s
	assert_eq "$output" sliding "-a s"
	run -0 complete_words tbthrottle --redis-fallback ''
	assert_eq "$output" $'block\nlocal\nfail' "--redis-fallback"
	run -0 complete_words tbthrottle --stats=j
	assert_eq "$output" --stats=json "--stats="
}

@test "bash completion: -R offers the names and pids of the running tbthrottles" {
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

@test "bash completion: every short option of --help is offered after -" {
	local opt
	run -0 complete_words tbthrottle -
	for opt in $(help_short_options); do
		has_line "$output" "$opt" || return 1
	done
}

@test "bash completion: rates after -r and --rate" {
	run -0 complete_words tbthrottle -r ''
	assert_eq "$(sort <<<"$output")" "$RATES" "-r"
	run -0 complete_words tbthrottle --rate 5
	assert_eq "$(sort <<<"$output")" 5/2s "--rate 5"
	run -0 complete_words tbthrottle -c -r ''
	assert_eq "$(sort <<<"$output")" "$BYTE_RATES" "-c -r"
	run -0 complete_words tbthrottle --byte-rate ''
	assert_eq "$(sort <<<"$output")" "$BYTE_RATES" "--byte-rate"
}

@test "bash completion: bytes for -d quoted as the shell reads them, zones without the tables beside them" {
	run -0 complete_words tbthrottle -d ''
	assert_eq "$output" $',\n\\\\t\n\\\\0\n\\|\n\\\\x1e' "-d"
	[[ -d ${TZDIR:-/usr/share/zoneinfo} ]] || skip "no zone data"
	run -0 complete_words tbthrottle --tz ''
	has_line "$output" UTC
	has_line "$output" Europe
	[[ $output != *zone.tab* && $output != *posixrules* && $output != *localtime* ]] ||
	    { echo "$output" >&2; return 1; }
	[[ $(grep -c '^UTC$' <<<"$output") == 1 ]]
}

# ---- bash as a user meets it: interactive, bash-completion loaded ----

need_bash_completion() {
	BASH_COMPLETION=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
	[[ -f $BASH_COMPLETION ]] ||
	    skip "bash-completion is not installed (apt-get install bash-completion)"
	command -v python3 >/dev/null ||
	    skip "python3, which drives bash on a pseudo-terminal, is not installed"
}

# bash_shown LINE: the words an interactive bash lists at a TAB after LINE.
bash_shown() {
	timeout -k 2 40 python3 "$BATS_TEST_DIRNAME/tools/bcomplete.py" \
	    "$BASH_COMPLETION" "$BATS_TEST_DIRNAME/../completion/tbthrottle.bash" \
	    "$1"
}

@test "bash with bash-completion: -r TAB lists the rates whole (10/s, not s)" {
	need_bash_completion
	run -0 bash_shown 'tbthrottle -r '
	assert_eq "$(sort <<<"$output")" "$RATES" "-r TAB"
}

@test "bash with bash-completion: --exec TAB lists commands, then files for their arguments" {
	need_bash_completion
	add_commands
	run -0 bash_shown 'tbthrottle -r 1/s --exec tbcmd-'
	assert_eq "$output" $'tbcmd-one\ntbcmd-two' "--exec TAB"
	mkdir "$BATS_TEST_TMPDIR/files"
	touch "$BATS_TEST_TMPDIR/files/data1" "$BATS_TEST_TMPDIR/files/data2"
	cd "$BATS_TEST_TMPDIR/files"
	run -0 bash_shown 'tbthrottle --exec tbcmd-one da'
	assert_eq "$output" $'data1\ndata2' "--exec CMD TAB"
}

@test "bash with bash-completion: --stats=TAB offers the formats, --exec TAB no builtins" {
	need_bash_completion
	run -0 bash_shown 'tbthrottle --stats='
	assert_eq "$output" $'json\ntext' "--stats="
	run -0 bash_shown 'tbthrottle --exec ex'
	! has_line "$output" export 2>/dev/null || { echo "$output" >&2; return 1; }
	! has_line "$output" exit 2>/dev/null || { echo "$output" >&2; return 1; }
}

@test "bash with bash-completion: after --exec CMD, CMD's own completion (kill's signals)" {
	need_bash_completion
	run -0 bash_shown 'tbthrottle -r 1/s --exec kill -s S'
	has_line "$output" STOP
}

# ---- zsh: the completion loaded by compinit and run by ZLE on a pty ----

need_zsh() {
	command -v zsh >/dev/null ||
	    skip "zsh is not installed (apt-get install zsh)"
	zsh -fc 'zmodload zsh/zpty' 2>/dev/null ||
	    skip "this zsh has no zsh/zpty module to drive its completion"
}

# zsh_words WORD...: the matches zsh adds for the end of the command line
# WORD... (a last word '' completes a new word).
zsh_words() {
	timeout -k 2 20 zsh -f "$BATS_TEST_DIRNAME/tools/zcomplete.zsh" \
	    "$BATS_TEST_DIRNAME/../completion/tbthrottle.zsh" "$*"
}

@test "zsh completion: the file parses (zsh -n)" {
	need_zsh
	zsh -n "$BATS_TEST_DIRNAME/../completion/tbthrottle.zsh"
}

@test "zsh completion: options from a prefix" {
	need_zsh
	run -0 zsh_words tbthrottle --dro
	assert_eq "$output" $'--drop\n--drop-to' "completions"
}

@test "zsh completion: every option of --help is offered" {
	local opt
	need_zsh
	run -0 zsh_words tbthrottle -
	for opt in $(help_long_options) $(help_short_options); do
		has_line "$output" "$opt" || return 1
	done
}

@test "zsh completion: algorithms, fallbacks, stats formats, rates and bytes" {
	need_zsh
	run -0 zsh_words tbthrottle -a s
	assert_eq "$output" sliding "-a s"
	run -0 zsh_words tbthrottle --algorithm=l
	assert_eq "$output" leaky "--algorithm=l"
	run -0 zsh_words tbthrottle --redis-fallback ''
	assert_eq "$(sort <<<"$output")" $'block\nfail\nlocal' "--redis-fallback"
	run -0 zsh_words tbthrottle --stats=j
	assert_eq "$output" json "--stats="
	run -0 zsh_words tbthrottle -r 1/s -b ''
	has_line "$output" 10ms || return 1
	run -0 zsh_words tbthrottle -c -r 1
	has_line "$output" 1M/s || return 1
	run -0 zsh_words tbthrottle -d ''
	has_line "$output" '\t' || return 1
}

@test "zsh completion: files for --tiers, --drop-to and operands" {
	local d=$BATS_TEST_TMPDIR/files
	need_zsh
	mkdir "$d" && touch "$d/tiers.txt" "$d/other"
	run -0 zsh_words tbthrottle -k 1 --tiers "$d/ti"
	assert_eq "$output" tiers.txt "--tiers"
	run -0 zsh_words tbthrottle --drop-to "$d/o"
	assert_eq "$output" other "--drop-to"
	run -0 zsh_words tbthrottle -r 1/s "$d/"
	assert_eq "$(sort <<<"$output")" $'other\ntiers.txt' "operands"
}

@test "zsh completion: -R offers the names and pids of the running tbthrottles" {
	local pid
	need_zsh
	start_listed zcompl
	run -0 zsh_words tbthrottle -R ''
	stop_listed
	has_line "$output" "$pid" && has_line "$output" zcompl
}

@test "zsh completion: rates after -r, commands after --exec" {
	need_zsh
	run -0 zsh_words tbthrottle -r ''
	assert_eq "$(sort <<<"$output")" "$RATES" "-r"
	run -0 zsh_words tbthrottle -c -r ''
	assert_eq "$(sort <<<"$output")" "$BYTE_RATES" "-c -r"
	add_commands
	run -0 zsh_words tbthrottle -r 1/s --exec tbcmd-
	assert_eq "$(sort <<<"$output")" $'tbcmd-one\ntbcmd-two' "--exec"
	# Then the command's own completion: kill's options.
	run -0 zsh_words tbthrottle --exec kill -
	has_line "$output" -s && has_line "$output" -l
}

# ---- fish: the completion sourced, and fish's complete -C ----

need_fish() {
	command -v fish >/dev/null ||
	    skip "fish is not installed (apt-get install fish)"
}

# fish_words WORD...: the completions fish offers for the end of the
# command line WORD..., without their descriptions.  No other completion
# file is loaded (an empty fish_complete_path).
fish_words() {
	timeout -k 2 20 fish --no-config -c '
		set -g fish_complete_path
		source $argv[1]; and complete -C $argv[2]' \
	    "$BATS_TEST_DIRNAME/../completion/tbthrottle.fish" "$*" |
	    cut -f 1
}

@test "fish completion: the file parses (fish -n)" {
	need_fish
	fish -n "$BATS_TEST_DIRNAME/../completion/tbthrottle.fish"
}

@test "fish completion: options from a prefix" {
	need_fish
	run -0 fish_words tbthrottle --dro
	assert_eq "$output" $'--drop\n--drop-to' "completions"
}

@test "fish completion: every option of --help is offered" {
	local opt
	need_fish
	run -0 fish_words tbthrottle -
	for opt in $(help_long_options) $(help_short_options); do
		has_line "$output" "$opt" || return 1
	done
}

@test "fish completion: algorithms, fallbacks, stats formats, rates and bytes" {
	need_fish
	run -0 fish_words tbthrottle -a s
	assert_eq "$output" sliding "-a s"
	run -0 fish_words tbthrottle --algorithm=l
	assert_eq "$output" --algorithm=leaky "--algorithm=l"
	run -0 fish_words tbthrottle --redis-fallback ''
	assert_eq "$(sort <<<"$output")" $'block\nfail\nlocal' "--redis-fallback"
	run -0 fish_words tbthrottle --stats=j
	assert_eq "$output" --stats=json "--stats="
	run -0 fish_words tbthrottle -r 1/s -b ''
	has_line "$output" 10ms || return 1
	run -0 fish_words tbthrottle -c -r 1
	has_line "$output" 1M/s || return 1
	run -0 fish_words tbthrottle -d ''
	has_line "$output" '\t' || return 1
}

@test "fish completion: files for --tiers, --drop-to and operands; none for -k" {
	local d=$BATS_TEST_TMPDIR/files
	need_fish
	mkdir "$d" && touch "$d/tiers.txt" "$d/other"
	run -0 fish_words tbthrottle -k 1 --tiers "$d/ti"
	assert_eq "$output" "$d/tiers.txt" "--tiers"
	run -0 fish_words tbthrottle --drop-to "$d/o"
	assert_eq "$output" "$d/other" "--drop-to"
	run -0 fish_words tbthrottle -r 1/s "$d/"
	assert_eq "$(sort <<<"$output")" "$d/other"$'\n'"$d/tiers.txt" "operands"
	cd "$d"
	run -0 fish_words tbthrottle -k ''
	assert_eq "$output" "" "-k"
}

@test "fish completion: -R offers the names and pids of the running tbthrottles" {
	local pid
	need_fish
	start_listed fcompl
	run -0 fish_words tbthrottle -R ''
	stop_listed
	has_line "$output" "$pid" && has_line "$output" fcompl
}

@test "fish completion: rates after -r, commands after --exec" {
	need_fish
	run -0 fish_words tbthrottle -r ''
	assert_eq "$(sort <<<"$output")" "$RATES" "-r"
	run -0 fish_words tbthrottle -c -r ''
	assert_eq "$(sort <<<"$output")" "$BYTE_RATES" "-c -r"
	add_commands
	run -0 fish_words tbthrottle -r 1/s --exec tbcmd-
	assert_eq "$(sort <<<"$output")" $'tbcmd-one\ntbcmd-two' "--exec"
	# Our options are not the command's: none offered after it.
	run -0 fish_words tbthrottle --exec tbcmd-one --ret
	assert_eq "$output" "" "--exec CMD --ret"
	run -0 fish_words tbthrottle --exec tbcmd-one -j ''
	! has_line "$output" 16 2>/dev/null || { echo "$output" >&2; return 1; }
}

@test "fish completion: after --exec CMD, CMD's own completion, else files" {
	need_fish
	add_commands
	mkdir "$BATS_TEST_TMPDIR/files"
	touch "$BATS_TEST_TMPDIR/files/data1" "$BATS_TEST_TMPDIR/files/data2"
	cd "$BATS_TEST_TMPDIR/files"
	run -0 timeout -k 2 20 fish --no-config -c '
		set -g fish_complete_path
		source $argv[1]
		complete -c tbcmd-one -x -a "alpha beta"
		complete -C "tbthrottle -r 1/s --exec tbcmd-one "
		echo ==
		complete -C "tbthrottle --exec tbcmd-two da"' \
	    "$BATS_TEST_DIRNAME/../completion/tbthrottle.fish"
	assert_eq "$output" $'alpha\nbeta\n==\ndata1\ndata2' "--exec CMD"
}
