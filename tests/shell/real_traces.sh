#!/bin/sh
# The reference figures of analysis.md on the real DLIO U-Net3D trace, and
# the other real eras. Skipped, with a message, without ../shared/traces.
. "$SRCDIR/tests/shell/lib.sh"
if [ ! -d "$TRACES/dlio-unet3d" ]; then
    echo "SKIP: $TRACES not found: real-trace figures not checked"
    exit 77
fi
U="$TRACES/dlio-unet3d"

"$DFNAV" info -q --format csv "$U" >"$T/info.csv"
check "events" 18039 "$(awk -F, '$1 == "total" { print $6 }' "$T/info.csv")"
check "job span µs" 56695354 "$(awk -F, '$1 == "total" { print $10 - $9 }' "$T/info.csv")"
check "era" "v1.0.8" "$(awk -F, 'NR == 2 { print $2 }' "$T/info.csv")"

"$DFNAV" report -q --layers dlio-legacy --by layer --format csv "$U" >"$T/layers.csv"
layer() { awk -F, -v l="$1" -v c="$2" '$1 == l { print $c }' "$T/layers.csv"; }
# analysis.md's counts; compute, data_loader and checkpoint differ on
# purpose (README: "Reference figures").
for pair in app:8 training:40 fetch_data:160 data_loader_fork:96 reader:4008 \
            reader_posix_lustre:10432 checkpoint_posix_lustre:45 \
            compute:512 data_loader:920 checkpoint:26 other_posix:8; do
    check "layer ${pair%%:*} count" "${pair#*:}" "$(layer "${pair%%:*}" 2)"
done
check "reader_posix_lustre MiB" "111833.161" "$(layer reader_posix_lustre 6 | awk '{ printf "%.3f", $1 / 1048576 }')"
check "checkpoint_posix_lustre MiB" "0.011" "$(layer checkpoint_posix_lustre 6 | awk '{ printf "%.3f", $1 / 1048576 }')"
check "app time" "441.967" "$(layer app 3 | awk '{ printf "%.3f", $1 }')"
check "reader POSIX time" "127.812" "$(layer reader_posix 3 | awk '{ printf "%.3f", $1 }')"
# the stricter definitions that give analysis.md's other three counts
check "TorchFramework.compute" 200 "$("$DFNAV" report -q --format csv --where 'layer=compute func~.compute' "$U" | awk -F, 'NR == 2 { print $1 }')"
check "save_checkpoint" 8 "$("$DFNAV" report -q --format csv --where 'layer=checkpoint func~save_checkpoint' "$U" | awk -F, 'NR == 2 { print $1 }')"

# README's finding: each rank computes 34.18 s and reads 15.45-16.53 s,
# and none of its reads overlaps its compute
"$DFNAV" report -q --by pid --sort key --metrics compute_s,io_busy_s,exposed_s,overlap_pct --format csv "$U" | tr -d '\r' >"$T/ov.csv"
check "ranks with exposed == I/O and 0% hidden" 8 "$(awk -F, 'NR > 1 && $3 == $4 && $5 == 0 && $3 > 15 { n++ } END { print n + 0 }' "$T/ov.csv")"
check "compute per rank" "34.181" "$(awk -F, 'NR == 2 { printf "%.3f", $2 }' "$T/ov.csv")"
check "most exposed rank" "1028571 16.533" "$(sort -t, -k4 -rn "$T/ov.csv" | awk -F, 'NR == 1 { printf "%s %.3f", $1, $4 }')"
got=$("$DFNAV" report -q --diagnose --format csv "$U" | awk -F, '$1 == "selection" && $3 == "exposed-io" { print $4 }' | tr -d '\r')
check "diagnose: exposed I/O of the whole run" 100 "$got"
got=$("$DFNAV" report -q --diagnose --format csv "$U" | awk -F, '$2 == "layer checkpoint_posix" && $3 == "metadata-heavy" { printf "%.1f", $4 }')
check "diagnose: checkpoint metadata share" 97.6 "$got"

# v0 quoted: plain and gzip load the same; dlio-2023: one gzip member
"$DFNAV" report -q --by func --format csv "$TRACES/v0-quoted/test.pfw" >"$T/a.csv"
"$DFNAV" report -q --by func --format csv "$TRACES/v0-quoted/test.pfw.gz" >"$T/b.csv"
same_files "v0 plain and gzip differ" "$T/a.csv" "$T/b.csv"
check "v0 events" 1012 "$("$DFNAV" report -q --format csv "$TRACES/v0-quoted/test.pfw" | awk -F, 'NR == 2 { print $1 }')"
"$DFNAV" info -q --format csv "$TRACES/dlio-2023" >"$T/i23.csv"
check "dlio-2023 events" 93894 "$(awk -F, '$1 == "total" { print $6 }' "$T/i23.csv")"
check "dlio-2023 malformed" 0 "$(awk -F, '$1 == "total" { print $8 }' "$T/i23.csv")"
check "dlio-2023 era" "v0.0.2-v1.0.4" "$(awk -F, 'NR == 2 { print $2 }' "$T/i23.csv")"
# time ranges count the part of each call inside them (issue 17): no bin is
# busier than it is wide, for the default bins and for 1 s and 0.1 s bins,
# and the bins add up to the run's time and calls
for bin in "" 1 0.1; do
    "$DFNAV" report -q ${bin:+--bin $bin} --by time -m count,time_s,busy_s -f csv "$U" | tr -d '\r' >"$T/bins.csv"
    w=${bin:-5}
    check "busy within each ${w} s bin" 0 "$(awk -F, -v w="$w" 'NR > 1 && $4 > w + 1e-9' "$T/bins.csv" | wc -l | tr -d ' ')"
    check "${w} s bins add up to the calls" 18039 "$(awk -F, 'NR > 1 { n += $2 } END { print n }' "$T/bins.csv")"
    check "${w} s bins add up to the time" "$("$DFNAV" report -q -m time_s -f csv "$U" | tr -d '\r' | awk -F, 'NR == 2 { print $1 }')" \
        "$(awk -F, 'NR > 1 { t += $3 } END { printf "%.6f", t }' "$T/bins.csv")"
done
# all three eras in one set
check_status "mixed eras in one set" 0 "$DFNAV" report --by host "$U" "$TRACES/v0-quoted/test.pfw" "$TRACES/dlio-2023"
finish
