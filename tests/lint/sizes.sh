#!/usr/bin/env bash
# The size check of `make lint`: no function of src/ over 60 lines, from
# its name to its closing brace, and no .c file over 800.  A file that
# grows past either holds two things: split it by what each part is for.
# tests/lint/sizes.allow names what is let through for now, a line each:
# FILE for a file over the limit, FILE:FUNCTION for a function (FILE as
# src/folder/name.c); blank lines and lines from '#' on are skipped.
# Functions are found by universal-ctags.
#
# usage: bash tests/lint/sizes.sh [DIR]   (DIR holds src/ and tests/; default:
# this tree)
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"

MAX_FUNCTION=60
MAX_FILE=800
allow=tests/lint/sizes.allow

declare -A length=() # of each function found, by FILE:FUNCTION
functions=0       # were they found (by universal-ctags)?
bad=0
say() {
	echo "sizes: $*" >&2
	bad=1
}
allowed() { # is $1 in the allow-list?
	[[ -f $allow ]] && sed 's/#.*//; s/[[:space:]]*$//' "$allow" |
	    grep -Fxq -- "$1"
}

mapfile -t files < <(find src -name '*.c' | sort)
if ((${#files[@]} == 0)); then
	say "no .c file under $(pwd)/src"
	exit 1
fi

for f in "${files[@]}"; do
	n=$(wc -l <"$f")
	if ((n > MAX_FILE)) && ! allowed "$f"; then
		say "$f has $n lines, more than $MAX_FILE: split it by what" \
		    "each part is for"
	fi
done

if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
	echo "sizes: universal-ctags is not installed (apt-get install" \
	    "universal-ctags): the lengths of functions are not checked" >&2
else
	functions=1
	# name, file, line and end of every function defined.
	while IFS=$'\t' read -r name f line end; do
		n=$((end - line + 1))
		length[$f:$name]=$n
		if ((n > MAX_FUNCTION)) && ! allowed "$f:$name"; then
			say "$f:$line: $name has $n lines, more than" \
			    "$MAX_FUNCTION"
		fi
	done < <(ctags --kinds-C=f --fields=+ne -o - "${files[@]}" |
	    awk -F'\t' '{ l = e = ""
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^line:/) l = substr($i, 6)
			if ($i ~ /^end:/) e = substr($i, 5)
		}
		if (l != "" && e != "") print $1 "\t" $2 "\t" l "\t" e }')
fi

# What the allow-list lets through must still need it.
if [[ -f $allow ]]; then
	while read -r entry; do
		f=${entry%%:*}
		if [[ ! -f $f ]]; then
			say "$allow names $entry, but there is no $f"
		elif [[ $entry != *:* ]] && (($(wc -l <"$f") <= MAX_FILE)); then
			say "$allow names $f, which is $MAX_FILE lines or" \
			    "fewer now: take it out"
		elif [[ $entry == *:* ]] && ((functions)) &&
		    ((${length[$entry]:-0} <= MAX_FUNCTION)); then
			say "$allow names $entry, which is not there or is" \
			    "$MAX_FUNCTION lines or fewer now: take it out"
		fi
	done < <(sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$allow")
fi

if ((bad)); then
	exit 1
fi
echo "sizes: no function over $MAX_FUNCTION lines, no .c file over" \
    "$MAX_FILE"
