#!/bin/sh
# The same answer for any thread count. tests/threads_diff writes every
# table (each dimension alone and in pairs, each metric group, filters,
# two runs compared) of a set loaded and queried with 2, 3 and 7 threads
# and compares it byte for byte with one thread, on generated sets of
# every era (plain and gzip, hashed and inline names, several files,
# forked workers) big enough that the merge and the layer index run in
# parts, and on the real traces. Through the command line, the grouping
# by an argument that once lost whole epochs with -j 2 (the merge started
# a part's argument records too early). The command line reads with
# --no-cache: a set mapped from the cache would not be parsed at -j N.
#
# DFN_THREADS_LONG=1 (CI's normal pass) adds a set of seven merge parts,
# the other eras, every pair at every thread count and with every metric,
# and loads with one thread count queried with another.
# DFN_THREADS_SANITIZER=1 (CI's ASan and TSan passes, where the long form
# would take half an hour) keeps the reproduction (at 1 and 2 threads,
# one epoch filtered), the set of two merge parts and one real trace, each
# dimension alone at 2 and 7 threads.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
DIFF=${DFN_BUILDDIR:-.}/tests/threads_diff
long=${DFN_THREADS_LONG:-}
san=${DFN_THREADS_SANITIZER:-}

gen() {   # gen NAME OPTIONS...
    name=$1; shift
    mkdir -p "$T/$name"
    "$DFNAV_GEN" "$@" "$T/$name" >/dev/null || fail "dfnav-gen $name $*"
    sets="$sets $T/$name"
}

# The reproduction of the report: five epochs of 3560 to 3568 calls each
# for every -j, where -j 2 once gave three, one of 8 calls.
gen repro --seed 1 --events 1000000 --ranks 8 --era newest --ckpt-func PyTorchCheckpointing.checkpoint
# (the calls' own epochs; arg.epoch, which calls inside an epoch's calls
# inherit, the same for every -j too). The sanitizer form loads it at 1
# and 2 threads and filters one epoch: each load of it takes 15 s under
# TSan, and the thread counts and filters past those add no code path.
jobs="2 3 7" epochs="1 4 5"
[ -z "$san" ] || { jobs=2; epochs=4; }
for j in 1 $jobs; do
    "$DFNAV" report --no-cache -q -j $j --by own.epoch -m count -f csv "$T/repro" >"$T/epoch-j$j.csv" || fail "report -j $j"
    "$DFNAV" report --no-cache -q -j $j --by arg.epoch -m count,time_s,bytes -f csv "$T/repro" >"$T/iepoch-j$j.csv" ||
        fail "report -j $j"
done
check "epochs with their calls" "1:3560 2:3560 3:3560 4:3568 5:3568" \
    "$(awk -F, 'NR > 1 && $1 != "" { print $1 ":" $2 }' "$T/epoch-j1.csv" | sort | tr '\n' ' ' | sed 's/ $//')"
for j in $jobs; do
    same_files "--by own.epoch: -j $j differs from -j 1" "$T/epoch-j1.csv" "$T/epoch-j$j.csv"
    same_files "--by arg.epoch: -j $j differs from -j 1" "$T/iepoch-j1.csv" "$T/iepoch-j$j.csv"
done
# each epoch alone (a filter reads the arguments another way) has the count its row has
for e in $epochs; do
    want=$(awk -F, -v e=$e '$1 == e { print $2 }' "$T/epoch-j1.csv")
    got=$("$DFNAV" report --no-cache -q -j 2 --where "own.epoch=$e" -m count -f csv "$T/repro" | awk -F, 'NR == 2 { print $1 }')
    check "--where own.epoch=$e -j 2" "$want" "$got"
    want=$(awk -F, -v e=$e '$1 == e { print $2 }' "$T/iepoch-j1.csv")
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
rm -rf "$T/repro"
sets=""

# More than 2^17 events: two merge parts and two layer index parts.
gen newest --seed 1 --events 140000 --ranks 8 --era newest --ckpt-func PyTorchCheckpointing.checkpoint
if [ -z "$san" ]; then
    gen hash16-gz --seed 2 --events 30000 --ranks 4 --era hash16 --gzip single
    gen quoted-members --seed 3 --events 30000 --ranks 3 --era quoted --gzip members
    gen inline-prefetch --seed 4 --events 30000 --ranks 4 --era inline --prefetch
fi
if [ -n "$long" ]; then
    # seven merge parts, in the short form (every pair at every count
    # would take minutes here alone)
    mkdir -p "$T/u64-big"
    "$DFNAV_GEN" --seed 5 --events 470000 --ranks 16 --era u64 --gzip members "$T/u64-big" >/dev/null || fail "dfnav-gen u64-big"
    if "$DIFF" "$T/u64-big" >"$T/big.out" 2>"$T/big.err"; then ok; else
        fail "tables of seven merge parts differ between thread counts:"; grep -v "^threads_diff" "$T/big.err" | head -40 >&2
    fi
    grep "^threads_diff" "$T/big.err"
    cat "$T/big.out"
    rm -rf "$T/u64-big"
    # every other era
    gen v0 --seed 6 --events 40000 --ranks 4 --era v0
    gen hex-prefetch --seed 7 --events 40000 --ranks 6 --era hex --prefetch --gzip single
fi
if [ -d "$TRACES" ] && [ -n "$san" ]; then
    sets="$sets $TRACES/dlio-unet3d"
elif [ -d "$TRACES" ]; then
    for d in "$TRACES"/*/; do sets="$sets ${d%/}"; done
else
    echo "threads: $TRACES not found; the real traces are skipped"
fi
# shellcheck disable=SC2086
form=${long:+--long}
[ -z "$san" ] || form=--quick
# shellcheck disable=SC2086
if "$DIFF" $form $sets >"$T/diff.out" 2>"$T/diff.err"; then ok; else
    fail "tables differ between thread counts:"; grep -v "^threads_diff" "$T/diff.err" | head -40 >&2
fi
grep "^threads_diff" "$T/diff.err"
cat "$T/diff.out"
finish
