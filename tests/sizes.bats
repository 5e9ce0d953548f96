#!/usr/bin/env bats
# The size check of make lint (tests/lint/sizes.sh), on trees made for it: it
# catches a function of 61 lines and a .c file of 801, lets 60 and 800
# through, and lets through what tests/lint/sizes.allow names, only while it
# needs it.

load helpers

SIZES=$BATS_TEST_DIRNAME/lint/sizes.sh

# fn NAME BODY_LINES: a function whose name line to closing brace is
# BODY_LINES + 4 lines long (name, '{', the body, a return, '}').
fn() {
	printf 'static int\n%s(void)\n{\n' "$1"
	for ((i = 0; i < $2; i++)); do
		echo '	(void)0;'
	done
	printf '\treturn 0;\n}\n'
}

# tree: an empty tree to check, in $tree.
tree() {
	tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/src/base" "$tree/tests/lint"
}

# pad FILE LINES: FILE filled with comment lines up to LINES lines.
pad() {
	local n
	n=$(wc -l <"$1")
	for ((; n < $2; n++)); do
		echo '/* filler */'
	done >>"$1"
}

@test "sizes: a function of 61 lines fails, naming it and its length" {
	command -v ctags >/dev/null || skip "universal-ctags is not installed"
	tree
	fn fits 56 >"$tree/src/base/a.c"
	fn too_long 57 >>"$tree/src/base/a.c"
	run -1 --separate-stderr bash "$SIZES" "$tree"
	[[ $stderr == *"src/base/a.c:"*": too_long has 61 lines, more than 60"* ]]
	[[ $stderr != *fits* ]]
}

@test "sizes: a function of 60 lines passes" {
	command -v ctags >/dev/null || skip "universal-ctags is not installed"
	tree
	fn fits 56 >"$tree/src/base/a.c"
	run -0 --separate-stderr bash "$SIZES" "$tree"
	[[ $output == "sizes: no function over 60 lines, no .c file over 800" ]]
}

@test "sizes: a .c file of 801 lines fails, one of 800 passes" {
	tree
	fn small 1 >"$tree/src/base/big.c"
	pad "$tree/src/base/big.c" 800
	run -0 --separate-stderr bash "$SIZES" "$tree"
	echo '/* one more */' >>"$tree/src/base/big.c"
	run -1 --separate-stderr bash "$SIZES" "$tree"
	[[ $stderr == *"src/base/big.c has 801 lines, more than 800"* ]]
}

@test "sizes: the allow-list lets through what it names, while it needs it" {
	command -v ctags >/dev/null || skip "universal-ctags is not installed"
	tree
	fn too_long 58 >"$tree/src/base/a.c"
	pad "$tree/src/base/a.c" 801
	printf '# being split\nsrc/base/a.c\nsrc/base/a.c:too_long\n' \
	    >"$tree/tests/lint/sizes.allow"
	run -0 --separate-stderr bash "$SIZES" "$tree"
	# Short again, the file must leave the list.
	fn short 1 >"$tree/src/base/a.c"
	run -1 --separate-stderr bash "$SIZES" "$tree"
	[[ $stderr == *"names src/base/a.c, which is 800 lines or fewer now"* ]]
	[[ $stderr == *"names src/base/a.c:too_long, which is not there"* ]]
}

@test "sizes: without universal-ctags, files are checked and it says so" {
	tree
	fn too_long 58 >"$tree/src/base/a.c"
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexit 127\n' >"$BATS_TEST_TMPDIR/bin/ctags"
	chmod +x "$BATS_TEST_TMPDIR/bin/ctags"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run -0 --separate-stderr \
	    bash "$SIZES" "$tree"
	[[ $stderr == *"universal-ctags is not installed"* ]]
}

@test "sizes: this tree passes, with its allow-list" {
	command -v ctags >/dev/null || skip "universal-ctags is not installed"
	run -0 --separate-stderr bash "$SIZES"
}
