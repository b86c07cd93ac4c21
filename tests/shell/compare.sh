#!/bin/sh
# Comparing runs: two generated runs of one job that differ in known ways
# (checkpoints moved from Lustre to node-local SSD, every checkpoint data
# write issued as two calls, the second run a day later) and each
# difference asserted against the generator's ground truth of each run;
# the explorer's side-by-side screens against golden copies, its export
# against the report, and the usage errors.
. "$SRCDIR/tests/shell/lib.sh"
export SOURCE_DATE_EPOCH=1790000000 LANG=C.UTF-8 LC_ALL=C.UTF-8

B="$T/lustre" S="$T/ssd"
"$DFNAV_GEN" --seed 21 --events 30000 --ranks 4 --ckpt-fs lustre --truth "$T/tb.csv" "$B" >/dev/null ||
    fail "dfnav-gen base"
"$DFNAV_GEN" --seed 21 --events 30000 --ranks 4 --ckpt-fs ssd --ckpt-write-split 2 --start-us 1744698312000000 \
    --truth "$T/ts.csv" "$S" >/dev/null || fail "dfnav-gen ssd"

# cmp_csv BY [WHERE]: the comparison as "key|field|field...", one per row
cmp_csv() {
    "$DFNAV" report -q --compare --layers dlio-legacy --by "$1" ${2:+--where "$2"} -m count,time_s,bytes --sort key \
        --format csv base="$B" scr="$S" | tr -d '\r'
}
truth() {   # truth FILE DIM KEY FIELD (3 count, 4 time_us, 5 bytes): empty when absent
    awk -F, -v d="$2" -v k="$3" -v f="$4" '$1 == d && $2 == k { print $f }' "$1"
}
# field N of the row whose key is KEY (columns: key, count@base, count@scr,
# count@diff, count@ratio, time_s@base ..., bytes@base, bytes@scr, bytes@diff, bytes@ratio)
col() { awk -F, -v k="$2" -v n="$3" '$1 == k { print $n }' "$1"; }
us() { awk -v s="$1" 'BEGIN { if (s == "") print ""; else printf "%.0f\n", s * 1e6 }'; }

cmp_csv fs >"$T/fs.csv"
check "fs header" "fs,count@base,count@scr,count@diff,count@ratio,time_s@base,time_s@scr,time_s@diff,time_s@ratio,bytes@base,bytes@scr,bytes@diff,bytes@ratio" \
    "$(head -1 "$T/fs.csv")"
for k in /p/lustre2 /l/ssd; do
    check "fs $k count in base" "$(truth "$T/tb.csv" fs $k 3)" "$(col "$T/fs.csv" $k 2)"
    check "fs $k count in scr" "$(truth "$T/ts.csv" fs $k 3)" "$(col "$T/fs.csv" $k 3)"
    check "fs $k bytes in base" "$(truth "$T/tb.csv" fs $k 5)" "$(col "$T/fs.csv" $k 10)"
    check "fs $k bytes in scr" "$(truth "$T/ts.csv" fs $k 5)" "$(col "$T/fs.csv" $k 11)"
    check "fs $k time in base" "$(truth "$T/tb.csv" fs $k 4)" "$(us "$(col "$T/fs.csv" $k 6)")"
    check "fs $k time in scr" "$(truth "$T/ts.csv" fs $k 4)" "$(us "$(col "$T/fs.csv" $k 7)")"
done
# the SSD is absent from the base run, not zero, and so are its diff and ratio
check "no SSD in the base run" ",," "$(col "$T/fs.csv" /l/ssd 2),$(col "$T/fs.csv" /l/ssd 4),$(col "$T/fs.csv" /l/ssd 5)"
# what left Lustre is exactly what the checkpoints wrote
moved=$(awk -F, '$1 == "layer" && $2 == "checkpoint_posix_lustre" { print $5 }' "$T/tb.csv")
check "Lustre bytes drop by the checkpoint bytes" "-$moved" "$(col "$T/fs.csv" /p/lustre2 12)"
check "SSD takes them" "$moved" "$(col "$T/fs.csv" /l/ssd 11)"

# the checkpoint writes: twice the data write calls, the same bytes
cmp_csv func 'layer=checkpoint_posix' >"$T/func.csv"
for f in write pwrite64; do
    check "$f calls in base" "$(truth "$T/tb.csv" func $f 3)" "$(col "$T/func.csv" $f 2)"
    check "$f calls in scr" "$(truth "$T/ts.csv" func $f 3)" "$(col "$T/func.csv" $f 3)"
    check "$f bytes unchanged" "0" "$(col "$T/func.csv" $f 12)"
done
check "pwrite64 calls doubled" "2" "$(col "$T/func.csv" pwrite64 5)"
nb=$(col "$T/func.csv" write 2) ns=$(col "$T/func.csv" write 3)
[ "$ns" -gt "$nb" ] && [ $((ns - nb)) = "$(col "$T/func.csv" write 4)" ] && ok || fail "write diff: $nb -> $ns"

# time is relative to each run's start: the day between them does not show
"$DFNAV" report -q --by time --bin 1 -m count --format csv "$B" | tr -d '\r' | sed 1d >"$T/tb_time"
"$DFNAV" report -q --by time --bin 1 -m count --format csv "$S" | tr -d '\r' | sed 1d >"$T/ts_time"
"$DFNAV" report -q --compare --by time --bin 1 -m count --format csv base="$B" scr="$S" | tr -d '\r' | sed 1d >"$T/cmp_time"
cut -d, -f1,2 "$T/cmp_time" | grep -v ',$' >"$T/got"
same_files "time bins of the base run" "$T/tb_time" "$T/got"
cut -d, -f1,3 "$T/cmp_time" | grep -v ',$' >"$T/got"
same_files "time bins of the other run" "$T/ts_time" "$T/got"

# sorting by the difference, the ratio and a run's column
"$DFNAV" report -q --compare --by func -m time_s --sort time_s@diff --format csv base="$B" scr="$S" |
    tr -d '\r' | sed 1d | awk -F, '$4 != ""' | cut -d, -f4 >"$T/d"
sort -g -r "$T/d" >"$T/d2"
same_files "--sort time_s@diff orders by the difference" "$T/d2" "$T/d"
"$DFNAV" report -q --compare --by func -m count --sort count@scr:asc --format csv base="$B" scr="$S" |
    tr -d '\r' | sed 1d | awk -F, '$3 != ""' | cut -d, -f3 >"$T/d"
sort -g "$T/d" >"$T/d2"
same_files "--sort count@scr:asc" "$T/d2" "$T/d"
top=$("$DFNAV" report -q --compare --by layer -m count --sort count@ratio -n 1 --format csv base="$B" scr="$S" |
    tr -d '\r' | sed -n 2p | cut -d, -f1)
check "largest call-count ratio: the split writes" "checkpoint_posix" "$top"

# the table for people and JSON
"$DFNAV" report -q --compare --by layer -m count --sort key base="$B" scr="$S" >"$T/table"
check "table header" "layer count@base count@scr count@diff count@ratio" "$(head -1 "$T/table" | tr -s ' ')"
grep -q '^checkpoint_posix_ssd  *- ' "$T/table" && ok || fail "absent shows as - in the table"
"$DFNAV" report -q --compare --by layer -m count --format json base="$B" scr="$S" >"$T/json"
grep -Eq '"layer": "checkpoint_posix_ssd", "count@base": null, "count@scr": [1-9][0-9]*,' "$T/json" &&
    ok || fail "JSON: absent is null"

# default names, overview, diagnostics per run
"$DFNAV" report -q --compare --by layer -m count --sort key --format csv "$B" "$S" | head -1 | tr -d '\r' >"$T/h"
check "names from the paths" "layer,count@lustre,count@ssd,count@diff,count@ratio" "$(cat "$T/h")"
"$DFNAV" overview -q --compare base="$B" scr="$S" >"$T/ov"
grep -q '^base: [0-9]* events in 4 files' "$T/ov" && grep -q '^scr: [0-9]* events in 4 files' "$T/ov" && ok ||
    fail "overview: a line per run"
grep -q 'time_s@base' "$T/ov" && ok || fail "overview tables compare"
"$DFNAV" report -q --compare --diagnose base="$B" scr="$S" >"$T/diag"
grep -q '^== base ==$' "$T/diag" && grep -q '^== scr ==$' "$T/diag" && ok || fail "diagnostics per run"

# a run without DLIO categories takes the same layers as the DLIO run, so
# a layer holds the same kind of events in both and its filter works
P="$T/posix"
mkdir -p "$P"
for f in "$B"/*.pfw; do grep -v '"cat":"dlio_benchmark"\|"cat":"ai_framework"' "$f" >"$P/${f##*/}"; done
"$DFNAV" report -q --compare --by layer -m count --sort key --format csv base="$B" posix="$P" | tr -d '\r' >"$T/mixed.csv"
check "POSIX-only run: checkpoint_posix in both" "$(awk -F, '$1 == "checkpoint_posix" { print $2 }' "$T/mixed.csv")" \
    "$(awk -F, '$1 == "checkpoint_posix" { print $3 }' "$T/mixed.csv")"
check_status "a DLIO layer filter on a POSIX-only run" 0 "$DFNAV" report -q --compare --where layer=checkpoint_posix_lustre base="$B" posix="$P"

# three runs: a column per run, no difference or ratio
"$DFNAV" report -q --compare --by layer -m count --sort key --format csv a="$B" b="$S" c="$B" | head -1 | tr -d '\r' >"$T/h"
check "three runs" "layer,count@a,count@b,count@c" "$(cat "$T/h")"
"$DFNAV" compare --replay '<Down>' a="$B" b="$S" c="$B" >"$T/three.txt" 2>/dev/null
check "three runs: a timeline line each" "a b c" "$(sed -n '/^--- <Down>/,$p' "$T/three.txt" | sed -n '4,6p' | cut -c1-8 | tr -d ' ' | tr '\n' ' ' | sed 's/ *$//')"

# usage errors
check_status "diagnostics of several runs as one CSV" 2 "$DFNAV" report -q --compare --diagnose -f csv base="$B" scr="$S"
check_status "calls with another dimension" 2 "$DFNAV" report -q --compare --by event,func base="$B" scr="$S"
check_status "calls sorted by another run's column" 2 "$DFNAV" report -q --compare --by event --sort time_s@scr base="$B" scr="$S"
check_status "five runs in the explorer" 2 "$DFNAV" compare --replay q a="$B" b="$S" c="$B" d="$S" e="$B"
# a run with nothing to read: status 3 before any run loads (no damage
# report of the other run, whose bad line is never read)
mkdir -p "$T/none" "$T/badrun"
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}\n{"name":\n' >"$T/badrun/t.pfw"
check_status "a run without trace files" 3 "$DFNAV" report --compare none="$T/none" bad="$T/badrun"
grep -q "none: no trace file to read" "$T/err" && ok || fail "the empty run is not named: $(head -c 300 "$T/err")"
grep -q "malformed" "$T/err" && fail "the other run loaded anyway: $(head -c 300 "$T/err")" || ok
check_status "one run" 2 "$DFNAV" report --compare "$B"
grep -q 'comparing needs 2 to 8 runs' "$T/err" && ok || fail "one run: $(cat "$T/err")"
check_status "a run named diff" 2 "$DFNAV" report --compare diff="$B" "$S"
check_status "two runs named alike" 2 "$DFNAV" report --compare x="$B" x="$S"
check_status "@run without --compare" 2 "$DFNAV" report --sort time_s@base "$B"
check_status "unknown run in --sort" 2 "$DFNAV" report --compare --sort time_s@nope base="$B" scr="$S"
check_status "a run that does not exist" 3 "$DFNAV" report -q --compare base="$B" scr="$T/none"
check_status "info compares nothing" 2 "$DFNAV" info --compare "$B" "$S"

# the explorer: side by side at 80x24 and 120x30, sorted by the difference,
# into the calls of both runs
"$DFNAV" compare --replay '<Enter> p l > > > <Resize:120x30> p f <Enter> <Enter>' base="$B" scr="$S" \
    >"$T/screens.txt" 2>"$T/screens.err"
golden compare-layers.txt "$T/screens.txt"
grep -q '^latency: 11 actions' "$T/screens.err" && ok || fail "compare replay: $(tail -2 "$T/screens.err")"
# the export of a compared level is the report's CSV
cd "$T" || exit 1
"$DFNAV" compare --replay 'p l e <Enter>' base="$B" scr="$S" >/dev/null 2>&1
"$DFNAV" report -q --compare --layers dlio-legacy --by layer --format csv base="$B" scr="$S" >"$T/want.csv"
same_files "explorer export equals the report" "$T/want.csv" "$(ls "$T"/dfnav-layer-*.csv | head -1)"
finish
