#!/usr/bin/env zsh
# Drives zsh's completion of dfnav without a terminal: an interactive zsh
# in a pseudo-terminal (the zpty module) loads completions/_dfnav through
# compinit, each line read from standard input is typed there followed by
# Tab, and a compadd wrapper records the words each real compadd call
# offers. Prints, per line, the words offered, sorted, joined by |.
#   zsh -f zcomplete.zsh COMPLETIONS_DIR WORKDIR < lines
emulate -L zsh
zmodload zsh/zpty || exit 2
dir=$1 work=$2
out=$work/zc.out
: >$out
zpty -b zc zsh -f -i
# the inner shell: no prompt, no listing (a list or its "do you wish to
# see" question would eat the keys that follow), _dfnav from $dir
# C-y erases the line: C-u is the terminal's own kill character, and keys
# typed while the shell still runs the line before (the terminal then in
# its cooked mode) would have it erase them before zsh reads them
zpty -w zc "PS1='' PS2='' RPS1=''; unsetopt autolist listambiguous beep zle_bracketed_paste 2>/dev/null; bindkey '^Y' kill-whole-line"
zpty -w zc "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D; cd ${(q)work}"
zpty -w zc "compadd() { local -a zc_hits; if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)* ]]; then builtin compadd \"\$@\"; return; fi; builtin compadd -O zc_hits \"\$@\"; print -rl -- \$zc_hits >>${(q)out}; builtin compadd \"\$@\" }"
# (quoted so that the echo of the typed line, which may come while the
# lines before it still run, does not match: only the output does)
zpty -w zc 'print "RE""ADY"'
zpty -r -m zc junk '*READY*'
n=0
while IFS= read -r input; do
  (( n++ ))
  : >$out
  # the line, Tab, then erase the line and print a marker the loop waits for
  zpty -w -n zc "$input"$'\t'
  # (typed ahead, the line may be echoed before it runs: the pattern is
  # of its output only)
  zpty -w -n zc $'\x19'"print DONE-\"$n\"-"$'\n'
  zpty -r -m zc junk "*DONE-$n-*"
  print -r -- ${(j:|:)${(uo)${(f)"$(<$out)"}}}
done
zpty -d zc
