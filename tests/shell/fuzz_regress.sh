#!/bin/sh
# Every fuzz target over its committed seeds and over each input a fuzzer
# once crashed on (tests/fuzz/regress/TARGET/), without libFuzzer: in the
# sanitizer build this replays them under ASan and UBSan too.
. "$SRCDIR/tests/shell/lib.sh"
B=${DFN_BUILDDIR:-$PWD}

for t in parse gzip filter walk wire partial qspec remote; do
    seeds="$SRCDIR/tests/fuzz/seeds/fuzz_$t"
    regress="$SRCDIR/tests/fuzz/regress/fuzz_$t"
    inputs=$(($(ls "$seeds" | wc -l) + $(ls "$regress" | wc -l)))
    check_status "replay fuzz_$t" 0 "$B/tests/fuzz/replay_$t" "$seeds" "$regress"
    check "fuzz_$t inputs replayed" "$inputs inputs" "$(cat "$T/out")"
    [ "$inputs" -gt 0 ] && ok || fail "fuzz_$t has no seeds"
done
finish
