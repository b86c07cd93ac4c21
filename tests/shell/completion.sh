#!/bin/sh
# Shell completion: completions/dfnav.bash driven through COMP_WORDS,
# COMP_CWORD, COMP_LINE and readline's word (as bash 5 splits a line at
# COMP_WORDBREAKS: 'dfnav --by=fi' is dfnav --by = fi, readline's word fi),
# and completions/_dfnav in a real zsh (tests/shell/zcomplete.zsh types
# each line and Tab in a pseudo-terminal). Commands, options, values, the
# argument and layer names of the set on the line (from dfnav info --list),
# paths with spaces, a slow dfnav cut off by the time limit, and the fixed
# vocabulary checked against what dfnav itself accepts.
. "$SRCDIR/tests/shell/lib.sh"
BASHC="$SRCDIR/completions/dfnav.bash"
W="$T/w"
mkdir -p "$W/sub"
"$DFNAV_GEN" --seed 5 --events 3000 --ranks 2 "$W/gen" >/dev/null
cp -r "$W/gen" "$W/my traces"
: >"$W/a.pfw"; : >"$W/b.pfw.gz"; : >"$W/c.txt"
# the dfnav under test answers for the names of a set
PATH="$(dirname "$DFNAV"):$PATH"
ARGS="cmd_hash count date epoch exec_hash fd flags image_idx level mode num_events offset p_idx ppid ret size step version whence"
LAYERS="app training compute fetch_data data_loader data_loader_fork reader reader_posix reader_posix_lustre reader_posix_ssd checkpoint checkpoint_posix checkpoint_posix_lustre checkpoint_posix_ssd other_posix other"
# words joined by |, sorted, with a prefix and suffix each: join PRE SUF WORD...
join() {
    pre=$1 suf=$2; shift 2
    for w in "$@"; do printf '%s%s%s\n' "$pre" "$w" "$suf"; done | LC_ALL=C sort | paste -sd'|' -
}

# The bash driver: FUNC LINE RLWORD WORD... with COMP_WORDS the words (the
# last completed, or word $CW), COMP_LINE LINE and readline's word RLWORD ('-' for
# the words joined by blanks, and the last word); prints COMPREPLY sorted,
# joined by |.
cat >"$T/drive.bash" <<'EOF'
. "$BASHC"
fn=$1 line=$2 rl=$3
shift 3
COMP_WORDS=("$@")
COMP_CWORD=${CW:-$(($# - 1))}
[[ $line == - ]] && line="$*"
[[ $rl == - ]] && rl=${COMP_WORDS[COMP_CWORD]}
COMP_LINE=$line
COMP_POINT=${#line}
COMPREPLY=()
"$fn" "$1" "$rl" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd'|' -
EOF
export BASHC
# bcomp WORD...: complete the last word of dfnav's line, split at blanks only
bcomp() { (cd "$W" && bash --norc --noprofile "$T/drive.bash" _dfnav - - "$@"); }
# bcomp_at N WORD...: complete word N (the cursor inside the line)
bcomp_at() { cw=$1; shift; (cd "$W" && CW=$cw bash --norc --noprofile "$T/drive.bash" _dfnav - - "$@"); }
# bsplit LINE RLWORD WORD...: as bash splits LINE
bsplit() { l=$1 r=$2; shift 2; (cd "$W" && bash --norc --noprofile "$T/drive.bash" _dfnav "$l" "$r" "$@"); }
bgen() { (cd "$W" && bash --norc --noprofile "$T/drive.bash" _dfnav_gen - - "$@"); }

bash -n "$BASHC" && ok || fail "bash -n $BASHC"

# commands and paths: traces and directories only
check "bash: commands and paths" "a.pfw|b.pfw.gz|cache|compare|extract|gen|info|my traces|overview|report|serve|sub" "$(bcomp dfnav '')"
check "bash: a command" "report" "$(bcomp dfnav re)"
check "bash: no command after one" "a.pfw|b.pfw.gz|gen|my traces|sub" "$(bcomp dfnav report '')"
check "bash: no path for cache" "" "$(bcomp dfnav cache '')"
# options of each command
check "bash: report options" "--force|--format" "$(bcomp dfnav report --f)"
check "bash: info options" "--cache|--connect|--force|--format|--help|--layers|--list|--no-cache|--quiet|--threads|--time-unit|--token-file" "$(bcomp dfnav info --)"
check "bash: serve's --listen" "--layers|--listen" "$(bcomp dfnav serve --l)"
check "bash: serve's --token-file" "--threads|--time-unit|--token-file" "$(bcomp dfnav serve --t)"
check "bash: cache options" "--cache|--clear" "$(bcomp dfnav cache --c)"
check "bash: explorer's --color" "--color|--compare|--compute|--connect" "$(bcomp dfnav --co)"
check "bash: report's --counters" "--compare|--compute|--connect|--counters" "$(bcomp dfnav report --co)"
# dimensions: the part after the last comma
check "bash: --by fi" "file" "$(bcomp dfnav --by fi)"
check "bash: --by file,fu" "file,func" "$(bcomp dfnav --by file,fu)"
check "bash: --by t" "tid|time|type" "$(bcomp dfnav report -b t)"
check "bash: --by a" "arg." "$(bcomp dfnav report --by a)"
# metrics: names and groups, + and -, comma lists
check "bash: -m +seq" "+seq_pct" "$(bcomp dfnav -m +seq)"
check "bash: -m count,-p9" "count,-p90_us|count,-p99_us" "$(bcomp dfnav report -m count,-p9)"
check "bash: -m a" "active|agg_calls|all|analysis" "$(bcomp dfnav --metrics a)"
check "bash: --sort" "max_proc|max_proc_bytes|max_proc_s|max_us" "$(bcomp dfnav report --sort max)"
# fixed values
check "bash: --format" "chrome|csv|json|table" "$(bcomp dfnav report --format '')"
check "bash: -f j" "json" "$(bcomp dfnav report -f j)"
check "bash: --color" "always|auto" "$(bcomp dfnav --color a)"
check "bash: --time-unit" "ms|ns|sec|us" "$(bcomp dfnav --time-unit '')"
check "bash: --overlap-by" "host|process" "$(bcomp dfnav --overlap-by '')"
check "bash: --list" "args|layers" "$(bcomp dfnav info --list '')"
check "bash: --layers presets" "dlio|dlio-legacy" "$(bcomp dfnav --layers d)"
check "bash: --layers presets and files" "a.pfw|b.pfw.gz|c.txt|dlio|dlio-legacy|gen|my traces|posix|sub" "$(bcomp dfnav -l '')"
check "bash: --threshold" "metadata=40,small_size=|metadata=40,small_time=" "$(bcomp dfnav report --threshold metadata=40,sm)"
# filter keys; arg. keys and layers of the set on the line
check "bash: --where keys" "cat=|class=|counter=" "$(bcomp dfnav --where c)"
check "bash: --where arg." "$(join arg. = $ARGS)" "$(bcomp dfnav report gen --where arg.)"
check "bash: --where own.e, path after" "own.epoch=|own.exec_hash=" "$(bcomp_at 3 dfnav report --where own.e gen)"
check "bash: --by arg." "$(join arg. '' $ARGS)" "$(bcomp dfnav report gen --by arg.)"
check "bash: --by layer,own.s" "layer,own.size|layer,own.step" "$(bcomp dfnav report gen --by layer,own.s)"
check "bash: --where layer=" "$(join layer= '' $LAYERS)" "$(bcomp dfnav report gen --where layer=)"
check "bash: --where layer= of -l posix" "layer=other|layer=posix" "$(bcomp dfnav report gen -l posix --where layer=)"
check "bash: --compute layer=" "layer=compute" "$(bcomp dfnav report gen --compute layer=comp)"
check "bash: --io layer=" "layer=fetch_data" "$(bcomp dfnav report gen --io layer=fe)"
check "bash: --where class=" "class=write" "$(bcomp dfnav --where class=w)"
check "bash: no set on the line, no names" "" "$(bcomp dfnav report --where arg.)"
# a quoted filter of several terms: bash leaves the quote out of readline's word
check "bash: last term of a quoted filter" "func=open layer=reader|checkpoint_posix_lustre|func=open layer=reader|checkpoint_posix_ssd" \
    "$(bsplit "dfnav report gen --where 'func=open layer=reader|checkpoint_posix_" "func=open layer=reader|checkpoint_posix_" \
        dfnav report gen --where "'func=open layer=reader|checkpoint_posix_")" 
check "bash: quoted term after a comma" "func=open,op=" \
    "$(bsplit "dfnav --where 'func=open,op" "func=open,op" dfnav --where "'func=open,op")"
# bash's own splits at = and :
check "bash: --by=fi" "file" "$(bsplit 'dfnav --by=fi' fi dfnav --by = fi)"
check "bash: --by=" "$(join '' '' arg. own. time host pid tid proc rank cat func type class op layer file pattern part dir fs sizebin size path event)" \
    "$(bsplit 'dfnav --by=' '' dfnav --by =)"
check "bash: --where class=w split" "write" "$(bsplit 'dfnav --where class=w' w dfnav --where class = w)"
check "bash: --where arg.ep (no break at .)" "arg.epoch=" "$(bsplit 'dfnav report gen --where arg.ep' arg.ep dfnav report gen --where arg.ep)"
check "bash: --where layer=ch split" "checkpoint|checkpoint_posix|checkpoint_posix_lustre|checkpoint_posix_ssd" \
    "$(bsplit 'dfnav report gen --where layer=ch' ch dfnav report gen --where layer = ch)"
check "bash: --sort count:de split" "desc" "$(bsplit 'dfnav report --sort count:de' de dfnav report --sort count : de)"
# paths with spaces, on the line and completed
check "bash: a directory with a space" "my traces" "$(bcomp dfnav report my)"
check "bash: inside it" "my traces/trace-0-of-2.pfw|my traces/trace-1-of-2.pfw" "$(bcomp dfnav report 'my\ traces/')"
check "bash: names of a set with a space in its path" "arg.size=|arg.step=" "$(bcomp dfnav report 'my\ traces' --where arg.s)"
check "bash: names of a quoted path" "arg.size=|arg.step=" "$(bcomp dfnav report '"my traces"' --where arg.s)"
check "bash: compare NAME=PATH" "my traces" "$(bsplit 'dfnav compare a=my' my dfnav compare a = my)"
check "bash: a set named NAME=PATH" "layer=compute" "$(bcomp dfnav compare a=gen b=gen --where layer=comp)"
check "bash: after --, paths only" "a.pfw|b.pfw.gz|gen|my traces|sub" "$(bcomp dfnav report -- '')"
# dfnav-gen
check "bash: dfnav-gen --era" "hash16|hex|inline|newest|quoted|u64|v0|v2" "$(bgen dfnav-gen --era '')"
check "bash: dfnav-gen --gzip" "members" "$(bgen dfnav-gen --gzip m)"
check "bash: dfnav-gen options" "--ckpt-fs|--ckpt-func|--ckpt-write-split|--counter-interval-us|--counter-truth|--counters" "$(bgen dfnav-gen --c)"
check "bash: dfnav-gen OUTDIR" "gen|my traces|sub" "$(bgen dfnav-gen '')"
# the dfnav of the line runs, and a slow one is cut off
printf '#!/bin/sh\necho own_dfnav\n' >"$T/fake"; chmod +x "$T/fake"
check "bash: the line's dfnav is asked" "arg.own_dfnav=" "$(bcomp "$T/fake" report gen --where arg.)"
printf '#!/bin/sh\nsleep 20\necho late\n' >"$T/slow"; chmod +x "$T/slow"
t0=$(date +%s)
got=$(cd "$W" && DFNAV_COMPLETION_TIMEOUT=1 bash --norc --noprofile "$T/drive.bash" _dfnav - - "$T/slow" report gen --where arg.)
check "bash: a slow dfnav gives nothing" "" "$got"
[ $(($(date +%s) - t0)) -lt 8 ] && ok || fail "bash: a slow dfnav was waited for $(($(date +%s) - t0)) s"

# The fixed vocabulary against dfnav's own lists: the dimensions and keys
# its errors name, the metrics of -m all, the options of --help.
dims=$("$DFNAV" report -q --by colour "$W/gen" 2>&1 | sed -n 's/.*(\(.*\)).*/\1/p' | sed 's/arg.NAME/arg./; s/own.NAME/own./')
check "bash: --by offers dfnav's dimensions" "$(join '' '' $dims)" "$(bcomp dfnav --by '')"
keys=$("$DFNAV" report -q --where colour=1 "$W/gen" 2>&1 | sed -n 's/.*(keys: \(.*\)).*/\1/p' | sed 's/arg.NAME //; s/own.NAME;//; s/with --counters://')
check "bash: --where offers dfnav's keys" "$( (join '' = $keys size; echo arg.; echo own.) | tr '|' '\n' | LC_ALL=C sort | paste -sd'|' -)" \
    "$(bcomp dfnav --where '')"
metrics=$("$DFNAV" report -q -m all --format csv "$W/gen" | head -1 | tr -d '\r' | tr , ' ')
check "bash: -m offers dfnav's metrics" "$(join '' '' $metrics all analysis basic overlap ctr.)" "$(bcomp dfnav -m '')"
opts=$("$DFNAV" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | tr -d ',' | tr ' ' '\n' | grep -v '^$' | LC_ALL=C sort -u | paste -sd'|' -)
all=$( { bcomp dfnav -; bcomp dfnav report -; bcomp dfnav info -; bcomp dfnav cache -; bcomp dfnav extract -; bcomp dfnav serve -; } | tr '|' '\n' | grep -vx -- '--clear' | LC_ALL=C sort -u | paste -sd'|' -)
check "bash: options are --help's" "$opts" "$all"

# make install: bash-completion loads completions/NAME for the command
# NAME, so both names are there and register their functions; zsh's file
# names both programs
if [ -f "${DFN_BUILDDIR:-}/Makefile" ]; then
    MAKEFLAGS= make -s -C "$DFN_BUILDDIR" DESTDIR="$T/inst" prefix=/usr \
        install-data-local install-dist_zshcompletionDATA >"$T/inst.log" 2>&1 || fail "install: $(cat "$T/inst.log")"
    B="$T/inst/usr/share/bash-completion/completions"
    check "install: bash completion for dfnav-gen" "dfnav" "$(readlink "$B/dfnav-gen")"
    check "install: bash registers both" "complete -F _dfnav dfnav|complete -F _dfnav_gen dfnav-gen" \
        "$(bash --norc --noprofile -c ". '$B/dfnav-gen' && complete -p dfnav dfnav-gen" | paste -sd'|' -)"
    check "install: zsh's #compdef" "#compdef dfnav dfnav-gen" "$(head -1 "$T/inst/usr/share/zsh/vendor-completions/_dfnav")"
else
    echo "SKIP: no build directory (DFN_BUILDDIR): the installed layout not checked"
fi

# zsh: the same questions through a real zsh
if ! command -v zsh >/dev/null; then
    fail "zsh not found: ./bootstrap --deps installs it"
    finish
    exit
fi
zsh -n "$SRCDIR/completions/_dfnav" && ok || fail "zsh -n _dfnav"
D=$DFNAV
timeout 120 zsh -f "$SRCDIR/tests/shell/zcomplete.zsh" "$SRCDIR/completions" "$W" >"$T/z.out" <<EOF
dfnav re
dfnav report --fo
dfnav --by fi
dfnav --by file,fu
dfnav -m +seq
dfnav report -m count,-p9
dfnav report --format 
dfnav --layers d
dfnav --time-unit 
$D report gen --where arg.
$D report gen --by own.e
$D report gen --where 'func=open layer=reader|checkpoint_posix_
$D report gen -l posix --where layer=
$D report gen --compute layer=comp
$D report my\\ traces --where arg.s
dfnav report my
dfnav --where c
dfnav --where class=w
dfnav-gen --era 
dfnav report --sort count:
EOF
z() { sed -n "${1}p" "$T/z.out"; }
check "zsh: a command" "report" "$(z 1)"
check "zsh: report options" "--force|--format" "$(z 2)"
check "zsh: --by fi" "file" "$(z 3)"
check "zsh: --by file,fu" "func" "$(z 4)"
check "zsh: -m +seq" "seq_pct" "$(z 5)"
check "zsh: -m count,-p9" "p90_us|p99_us" "$(z 6)"
check "zsh: --format" "chrome|csv|json|table" "$(z 7)"
check "zsh: --layers d" "dlio|dlio-legacy" "$(z 8)"
check "zsh: --time-unit" "ms|ns|sec|us" "$(z 9)"
check "zsh: --where arg." "$(join '' '' $ARGS)" "$(z 10)"
check "zsh: --by own.e" "epoch|exec_hash" "$(z 11)"
check "zsh: last term of a quoted filter" "checkpoint_posix_lustre|checkpoint_posix_ssd" "$(z 12)"
check "zsh: layers of -l posix" "other|posix" "$(z 13)"
check "zsh: --compute layer=" "compute" "$(z 14)"
check "zsh: names of a set with a space in its path" "size|step" "$(z 15)"
check "zsh: a directory with a space" "my\\ traces" "$(z 16)"
check "zsh: --where keys" "cat|class|counter" "$(z 17)"
check "zsh: --where class=" "write" "$(z 18)"
check "zsh: dfnav-gen --era" "hash16|hex|inline|newest|quoted|u64|v0|v2" "$(z 19)"
check "zsh: --sort METRIC:" "asc|desc" "$(z 20)"
finish
