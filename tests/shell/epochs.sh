#!/bin/sh
# The same epochs for any thread count, through the command line: the
# grouping by an argument that once lost whole epochs with -j 2 (the
# merge started a part's argument records too early), on the set of the
# report. Apart from tests/shell/threads.sh so that the two run side by
# side. The command line reads with --no-cache: a set mapped from the
# cache would not be parsed at -j N.
#
# DFN_THREADS_LONG=1 (CI's normal pass) adds the independent reader's
# figures; DFN_THREADS_SANITIZER=1 (CI's ASan and TSan passes) loads at
# 2 threads only and filters one epoch by the inherited argument.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
long=${DFN_THREADS_LONG:-}
san=${DFN_THREADS_SANITIZER:-}
mkdir -p "$T/repro"
# The reproduction of the report: five epochs of 3560 to 3568 calls each
# for every -j, where -j 2 once gave three, one of 8 calls.
"$DFNAV_GEN" --seed 1 --events 1000000 --ranks 8 --era newest --ckpt-func PyTorchCheckpointing.checkpoint "$T/repro" >/dev/null ||
    fail "dfnav-gen repro"
# (the calls' own epochs; arg.epoch, which calls inside an epoch's calls
# inherit, the same for every -j too). The sanitizer form loads it at 2
# threads, to the report's figures, and filters one epoch by the inherited
# argument: each load of it takes 25 s under TSan, and the thread counts
# and filters past those add no code path.
base=1 jobs="2 3 7" epochs="1 4 5"
[ -z "$san" ] || { base=2 jobs="" epochs=4; }
for j in $base $jobs; do
    "$DFNAV" report --no-cache -q -j $j --by own.epoch -m count -f csv "$T/repro" >"$T/epoch-j$j.csv" || fail "report -j $j"
    "$DFNAV" report --no-cache -q -j $j --by arg.epoch -m count,time_s,bytes -f csv "$T/repro" >"$T/iepoch-j$j.csv" ||
        fail "report -j $j"
done
check "epochs with their calls" "1:3560 2:3560 3:3560 4:3568 5:3568" \
    "$(awk -F, 'NR > 1 && $1 != "" { print $1 ":" $2 }' "$T/epoch-j$base.csv" | sort | tr '\n' ' ' | sed 's/ $//')"
for j in $jobs; do
    same_files "--by own.epoch: -j $j differs from -j 1" "$T/epoch-j1.csv" "$T/epoch-j$j.csv"
    same_files "--by arg.epoch: -j $j differs from -j 1" "$T/iepoch-j1.csv" "$T/iepoch-j$j.csv"
done
# each epoch alone (a filter reads the arguments another way) has the count its row has
for e in $epochs; do
    if [ -z "$san" ]; then
        want=$(awk -F, -v e=$e '$1 == e { print $2 }' "$T/epoch-j$base.csv")
        got=$("$DFNAV" report --no-cache -q -j 2 --where "own.epoch=$e" -m count -f csv "$T/repro" | awk -F, 'NR == 2 { print $1 }')
        check "--where own.epoch=$e -j 2" "$want" "$got"
    fi
    want=$(awk -F, -v e=$e '$1 == e { print $2 }' "$T/iepoch-j$base.csv")
    got=$("$DFNAV" report --no-cache -q -j 3 --where "arg.epoch=$e" -m count -f csv "$T/repro" | awk -F, 'NR == 2 { print $1 }')
    check "--where arg.epoch=$e -j 3 (inherited)" "$want" "$got"
done
# and equal to the independent reader (18 s of Python: the long form)
if [ -n "$long" ] && command -v python3 >/dev/null 2>&1; then
    for j in 2 7; do
        "$DFNAV" report --no-cache -q -j $j --by own.epoch -m count,time_s,bytes -f csv --sort key "$T/repro" >"$T/ref-j$j.csv"
    done
    if python3 "$SRCDIR/tests/reference/dfnav_ref.py" --check "own.epoch=$T/ref-j2.csv" --check "own.epoch=$T/ref-j7.csv" \
        "$T/repro" >"$T/ref.out" 2>&1 && ! grep -q "^not ok" "$T/ref.out"; then ok; else
        fail "--by arg.epoch differs from the reference reader:"; head -20 "$T/ref.out" >&2
    fi
fi

finish
