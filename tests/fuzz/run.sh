#!/bin/sh
# Runs each fuzz target for FUZZ_SECONDS (default 60) in the build tree's
# fuzz/ directory: its corpus grows in corpus/TARGET across runs, seeded
# from tests/fuzz/seeds/TARGET and, when ../shared/traces exists beside the
# sources, from the start of each real trace (cut at run time, never
# committed). A crash lands in crashes/ and fails the run; it then belongs
# in tests/fuzz/regress/TARGET/ as a regression test.
#   usage: run.sh SRCDIR [TARGET...]
set -u
SRCDIR=$1; shift
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${*:-fuzz_parse fuzz_gzip fuzz_filter fuzz_walk fuzz_wire fuzz_partial fuzz_qspec fuzz_remote}
TRACES="$SRCDIR/../shared/traces"
mkdir -p crashes

# seeds-traces/TARGET: the first lines of each real trace as a block of
# lines, and as small gzip members (one, two concatenated, and one cut).
cut_trace_seeds() {
    [ -d "$TRACES" ] || { echo "fuzz: no $TRACES, committed seeds only"; return; }
    rm -rf seeds-traces && mkdir -p seeds-traces/fuzz_parse seeds-traces/fuzz_gzip
    find "$TRACES" -type f \( -name '*.pfw' -o -name '*.pfw.gz' \) | sort | while read -r f; do
        name=$(echo "$f" | sed "s|^$TRACES/||; s|/|_|g")
        gzip -dcf "$f" 2>/dev/null | head -n 40 >"seeds-traces/fuzz_parse/$name.txt"
        head -n 10 "seeds-traces/fuzz_parse/$name.txt" | gzip -c >"seeds-traces/fuzz_gzip/$name.gz"
        cat "seeds-traces/fuzz_gzip/$name.gz" "seeds-traces/fuzz_gzip/$name.gz" >"seeds-traces/fuzz_gzip/$name.2.gz"
        head -c 200 "seeds-traces/fuzz_gzip/$name.gz" >"seeds-traces/fuzz_gzip/$name.cut.gz"
    done
}
cut_trace_seeds

status=0
for t in $TARGETS; do
    mkdir -p "corpus/$t"
    dirs="corpus/$t $SRCDIR/tests/fuzz/seeds/$t"
    [ -d "seeds-traces/$t" ] && dirs="$dirs seeds-traces/$t"
    dict=""
    [ -f "$SRCDIR/tests/fuzz/$t.dict" ] && dict="-dict=$SRCDIR/tests/fuzz/$t.dict"
    echo "fuzz: $t for $SECONDS_EACH s"
    # shellcheck disable=SC2086
    nice -n 10 "./$t" -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="crashes/$t-" $dict $dirs >"$t.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t.log")
    corp=$(ls "corpus/$t" | wc -l)
    echo "fuzz: $t: $execs runs, corpus $corp inputs, exit $rc (log in fuzz/$t.log)"
    if [ "$rc" -ne 0 ]; then
        status=1
        grep -E "^(==[0-9]+==ERROR|SUMMARY)|runtime error" "$t.log" | head -5
        ls crashes/"$t"-* 2>/dev/null | sed 's/^/fuzz: crash input: fuzz\//'
    fi
done
[ "$status" -eq 0 ] || echo "fuzz: add each crash input to tests/fuzz/regress/TARGET/ once fixed"
exit $status
