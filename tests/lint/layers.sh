#!/usr/bin/env bash
# The layering check of `make lint`.  A file's folder under src/ is its
# layer: it may include only headers of its own layer or a lower one, and
# a file of a pure folder (no system calls, unit tested on a fake clock)
# only headers of pure folders.  No header of ours takes the name of a
# system header.  README.md's "How it is built" names every C file, and
# only files that exist.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The layers, bottom to top, and which are pure: the Makefile's LAYERS,
# PURE_LAYERS and PURE_FILES, the one place the order is written.  A
# folder's layer is its place in LAYERS; main.c, above them all, wires.
var() { # the words of the Makefile's VAR = ... (with its continued lines)
	awk -v v="$1" '$1 == v && $2 == "=" { on = 1; $1 = $2 = "" }
	    on { c = sub(/\\$/, ""); print; if (!c) exit }' Makefile
}
declare -A layer pure home purefile
n=0
for dir in $(var LAYERS); do
	layer[$dir]=$n
	pure[$dir]=s
	n=$((n + 1))
done
layer[.]=$n
pure[.]=s
for dir in $(var PURE_LAYERS); do
	pure[$dir]=p
done
# A pure file of a system folder: it and its header include pure headers
# only, and a pure folder may include its header.
for o in $(var PURE_FILES); do
	purefile[${o#src/}]=1
done

bad=0
say() {
	echo "layers: $*" >&2
	bad=1
}

# Where each header lives, and no two of one name.
for f in src/*/*.h; do
	h=${f##*/}
	d=${f#src/}
	d=${d%%/*}
	[[ -n ${home[$h]:-} ]] && say "$h is in both ${home[$h]} and $d"
	home[$h]=$d
done

# A folder of no layer, or a file at the top besides main.c.
for f in src/*; do
	[[ -d $f ]] && [[ -z ${layer[${f#src/}]:-} ]] &&
	    say "$f is no layer (add it to tests/lint/layers.sh)"
	[[ -f $f && $f != src/main.c ]] && [[ $f != *.o ]] &&
	    say "$f is in no layer's folder"
done

# Every include points down, and pure only to pure.
for f in src/main.c src/*/*.c src/*/*.h; do
	d=${f#src/}
	[[ $d == */* ]] && d=${d%%/*} || d=.
	stem=${f#src/}
	stem=${stem%.[ch]}
	while read -r inc; do
		i=${home[$inc]:-}
		if [[ -z $i ]]; then
			say "$f includes $inc, which is in no layer"
		elif ((layer[$i] > layer[$d])); then
			say "$f (layer ${layer[$d]}, $d/) includes $inc from" \
			    "layer ${layer[$i]} ($i/) above it"
		elif [[ ${pure[$d]} == p || -n ${purefile[$stem.o]:-} ]] &&
		    [[ ${pure[$i]} == s && -z ${purefile[$i/${inc%.h}.o]:-} ]]; then
			say "$f is pure but includes $inc ($i/), which makes" \
			    "system calls"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# A header named like one of the system's would hide it, or be hidden.
for h in "${!home[@]}"; do
	for dir in /usr/include /usr/local/include; do
		[[ -e $dir/$h ]] && say "src/${home[$h]}/$h has the name of" \
		    "the system header $dir/$h"
	done
done

# No circle of modules (a file.c and its file.h): one that, through the
# headers it and those it reaches include, comes back to itself, so that
# neither can be read or tested without the other.  deps holds each
# module's includes of ours; a depth first walk marks a module open (1)
# while what it includes is walked, done (2) after, and an include of
# one still open closes a circle.
# A header with no .c of its own (keytab.h, parsed.h) is the inside of
# the modules that share it, part of each: what it includes, they do.
declare -A deps mark inner
for f in src/*/*.h; do
	[[ -e ${f%.h}.c ]] || inner[$(basename "$f" .h)]=$f
done
includes() { # includes FILE: the stems of our headers FILE includes
	local i
	while read -r i; do
		if [[ -n ${inner[$i]:-} ]]; then
			includes "${inner[$i]}"
		else
			echo "$i"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$1")
}
for f in src/*/*.[ch]; do
	m=${f##*/}
	m=${m%.[ch]}
	[[ -n ${inner[$m]:-} ]] && continue
	deps[$m]+=" $(includes "$f" | { grep -vx -- "$m" || true; } |
	    tr '\n' ' ')"
done
walk() { # walk MODULE PATH: the modules reached from MODULE, by PATH
	local m=$1 path=$2 i
	mark[$m]=1
	for i in ${deps[$m]}; do
		[[ -z ${deps[$i]+set} ]] && continue
		if [[ ${mark[$i]:-0} == 1 ]]; then
			say "modules include each other in a circle:" \
			    "$path -> $i"
		elif [[ ${mark[$i]:-0} == 0 ]]; then
			walk "$i" "$path -> $i"
		fi
	done
	mark[$m]=2
}
for m in "${!deps[@]}"; do
	[[ ${mark[$m]:-0} == 0 ]] && walk "$m" "$m"
done

# README.md's map of the code and the tree, from the same truth.
mapped=$(awk '/^## How it is built/ { on = 1; next } /^## / { on = 0 }
	on' README.md | grep -o "\`[a-z./]*\\.c\`" | tr -d '`' | sort -u)
actual=$( (echo main.c; cd src && ls -- */*.c) | sort -u)
while read -r f; do
	[[ -n $f ]] && say "src/$f is not in README.md's How it is built"
done < <(comm -13 <(echo "$mapped") <(echo "$actual"))
while read -r f; do
	[[ -n $f ]] && say "README.md's How it is built names $f," \
	    "which is not in src/"
done < <(comm -23 <(echo "$mapped") <(echo "$actual"))

if ((bad)); then
	exit 1
fi
echo "layers: every include points down, in no circle; README.md maps every file"
