# The matches zsh's completion offers for the end of a command line, one a
# line: zsh -f tests/tools/zcomplete.zsh COMPLETION-FILE 'tbthrottle --dr'
#
# An interactive zsh on a pseudo-terminal (zsh/zpty) loads the file as
# _tbthrottle through compinit, as an installed one is, and completes
# the line with ZLE's own complete-word; compadd is wrapped to note each
# match it adds.  Nothing is read from the user's files (zsh -f).
zmodload zsh/zpty || { print -u2 "zcomplete: no zsh/zpty module"; exit 3 }
emulate -L zsh

local file=$1 line=$2 dir out x
dir=$(mktemp -d) || exit 1
out=$dir/matches
cp -- "$file" "$dir/_tbthrottle" || exit 1
: >"$out"

zpty tbz zsh -f -i || exit 1
# No list of matches, and so no question whether to show a long one.
zpty -w tbz "PS1=; unsetopt autolist; LISTMAX=100000; fpath=(${(q)dir} \$fpath)"
zpty -w tbz 'autoload -Uz compinit && compinit -u -D'
# Calls given -O, -A or -D only compute; the others add matches, which
# compadd -O first collects, as they would be added, into m (it returns
# 1 then, having added none).  Lines start with spaces, not tabs: a tab
# typed on the terminal would complete.
zpty -w tbz "compadd() {
    local -a m
    if (( ! \${@[(I)-[OAD]*]} )); then
        builtin compadd -O m \"\$@\"
        (( \$#m )) && print -rl -- \$m >>${(q)out}
    fi
    builtin compadd \"\$@\"
}"
# A widget that completes, then says so on the terminal, so that no key
# is sent while completion runs (typed-ahead keys change what it does).
zpty -w tbz "_tbz_complete() { zle complete-word; print -rn -- '<<tbz''done>>' }"
zpty -w tbz 'zle -N _tbz_complete && bindkey "^T" _tbz_complete'
zpty -w -n tbz "$line"$'\C-t'
zpty -r -m tbz x '*<<tbzdone>>*' || { print -u2 "zcomplete: no completion"; exit 1 }
zpty -w -n tbz $'\C-u'
zpty -w tbz 'exit'
while zpty -r tbz x; do :; done
zpty -d tbz
cat -- "$out"
rm -rf -- "$dir"
