#!/bin/sh
# The same answer for any thread count. tests/threads_diff writes every
# table (each dimension alone and in pairs, each metric group, filters,
# two runs compared) of a set loaded and queried with 2, 3 and 7 threads
# and compares it byte for byte with one thread, on generated sets of
# every era (plain and gzip, hashed and inline names, several files,
# forked workers) big enough that the merge and the layer index run in
# parts, and on the real traces (tests/shell/epochs.sh has the grouping
# by an argument that once lost whole epochs with -j 2).
#
# DFN_THREADS_LONG=1 (CI's normal pass) adds a set of seven merge parts
# and the other eras, and checks the newest era's set and the real traces
# with every pair at 2 and 3 threads and where the load's count differs
# from the query's (7 and 1 both ways), with every metric at 3 threads
# and at the mixed counts.
# DFN_THREADS_SANITIZER=1 (CI's ASan and TSan passes, where the long form
# would take half an hour) keeps the set of two merge parts and one real
# trace (under TSan the set alone), each dimension alone at 2 and 3
# threads.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
DIFF=${DFN_BUILDDIR:-.}/tests/threads_diff
long=${DFN_THREADS_LONG:-}
san=${DFN_THREADS_SANITIZER:-}

gen() {   # gen NAME OPTIONS...
    name=$1; shift
    mkdir -p "$T/$name"
    "$DFNAV_GEN" "$@" "$T/$name" >/dev/null || fail "dfnav-gen $name $*"
    if [ -z "$sets" ]; then sets="$T/$name"; else others="$others $T/$name"; fi
}

# the first generated set and the real traces in the form asked for, the
# other eras in the short form: every pair at every count on each era
# would double the normal pass's longest suite for the parser's share of
# the code, which the short form reaches the same
sets="" others=""
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
    # under TSan the generated set alone: the races are the threads', which
    # its two merge parts reach, and the trace's data is ASan's to read
    [ -n "${TSAN_OPTIONS:-}" ] || sets="$sets $TRACES/dlio-unet3d"
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
if [ -n "$others" ]; then
    # shellcheck disable=SC2086
    if "$DIFF" $others >"$T/others.out" 2>"$T/others.err"; then ok; else
        fail "tables of the other eras differ between thread counts:"; grep -v "^threads_diff" "$T/others.err" | head -40 >&2
    fi
    grep "^threads_diff" "$T/others.err"
    cat "$T/others.out"
fi
finish
