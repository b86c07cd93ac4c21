#!/bin/sh
# Exact figures on generated traces: for every format era and gzip mode,
# dfnav's report equals the generator's ground truth (counts, summed
# durations, bytes, busy time and slowest process per layer, job span), and
# the output does not depend on the thread count.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite

# dfnav CSV "key,count,time_s,busy_s,max_proc_s,bytes,..." -> "key count time_us bytes"
rows() {
    awk -F, 'NR > 1 { printf "%s %d %.0f %.0f\n", $1, $2, $3 * 1e6, $6 }' | sort
}
truth_rows() {   # truth_rows DIM TRUTHFILE
    awk -F, -v d="$1" '$1 == d && $3 > 0 { printf "%s %d %d %s\n", $2, $3, $4, $5 }' "$2" | sort
}

# under the sanitizers, the groupings that read each table of the store
DIMS="func cat host file fs class layer pid"
if sanitized; then DIMS="func file layer pid"; fi
compare_set() {   # compare_set LABEL DIR TRUTH
    label=$1; dir=$2; truth=$3
    for dim in $DIMS; do
        "$DFNAV" report -q --layers dlio-legacy --by "$dim" --format csv "$dir" | rows >"$T/got"
        truth_rows "$dim" "$truth" >"$T/want"
        same_files "$label --by $dim differs from the truth:" "$T/want" "$T/got"
    done
    "$DFNAV" report -q --by sizebin --where 'class=read|write bytes>0' --format csv "$dir" | rows >"$T/got"
    truth_rows sizebin "$truth" >"$T/want"
    same_files "$label sizebin differs" "$T/want" "$T/got"
    # totals
    got=$("$DFNAV" report -q --format csv "$dir" | awk -F, 'NR == 2 { printf "%d %.0f %.0f", $1, $2 * 1e6, $5 }')
    want=$(awk -F, '$1 == "total" { printf "%s %s %s", $3, $4, $5 }' "$truth")
    check "$label totals" "$want" "$got"
    # busy time and slowest process per layer
    "$DFNAV" report -q --layers dlio-legacy --by layer --format csv "$dir" |
        awk -F, 'NR > 1 { printf "%s %.0f %.0f\n", $1, $4 * 1e6, $5 * 1e6 }' | sort >"$T/got"
    awk -F, '$1 == "busy" { sub("layer:", "", $2); b[$2] = $4 }
             $1 == "maxproc" { sub("layer:", "", $2); m[$2] = $4 }
             END { for (k in b) if (b[k] > 0) printf "%s %s %s\n", k, b[k], m[k] }' "$truth" | sort >"$T/want"
    same_files "$label busy/max_proc per layer differ" "$T/want" "$T/got"
    # span from info
    got=$("$DFNAV" info -q --format csv "$dir" | awk -F, '$1 == "total" { print $10 - $9 }')
    want=$(awk -F, '$1 == "span" { print $4 }' "$truth")
    check "$label span" "$want" "$got"
}

specs="v0:none quoted:none inline:none hash16:none hex:none u64:none newest:none
       u64:single u64:members quoted:single newest:members v0:members"
# under the sanitizers the gzip forms and the oldest era: extract.sh reads
# every era there, plain, and the other eras add no code to what they run
if sanitized; then specs="v0:none u64:single u64:members quoted:single newest:members v0:members"; fi
n=0
for spec in $specs; do
    era=${spec%%:*}; gz=${spec#*:}
    n=$((n + 1))
    dir="$T/$era-$gz"
    "$DFNAV_GEN" --seed $n --events 6000 --ranks 3 --ranks-per-node 2 --era "$era" --gzip "$gz" \
        --truth "$T/truth-$n.csv" "$dir" >/dev/null || { fail "dfnav-gen $spec"; continue; }
    compare_set "$era/$gz" "$dir" "$T/truth-$n.csv"
    status=$("$DFNAV" info -q "$dir" >/dev/null; echo $?)
    check "$era/$gz loads without damage" 0 "$status"
done

# The same events in every era: identical reports.
"$DFNAV_GEN" --seed 7 --events 4000 --ranks 2 --era u64 "$T/same-u64" >/dev/null || fail "dfnav-gen u64"
"$DFNAV_GEN" --seed 7 --events 4000 --ranks 2 --era quoted --gzip members "$T/same-quoted" >/dev/null || fail "dfnav-gen quoted"
"$DFNAV" report -q --by layer,func --format csv "$T/same-u64" >"$T/a.csv"
"$DFNAV" report -q --by layer,func --format csv "$T/same-quoted" >"$T/b.csv"
same_files "u64 and quoted/gzip eras of the same events report differently" "$T/a.csv" "$T/b.csv"

# Any thread count, the same bytes out.
"$DFNAV_GEN" --seed 3 --events 60000 --ranks 4 "$T/big" >/dev/null || fail "dfnav-gen big"
for by in file,func proc arg.epoch,layer event; do
    "$DFNAV" report -q -j 1 --by "$by" --format csv "$T/big" >"$T/j1.csv"
    "$DFNAV" report -q -j 2 --by "$by" --format csv "$T/big" >"$T/j2.csv"
    "$DFNAV" report -q -j 5 --by "$by" --format csv "$T/big" >"$T/j5.csv"
    same_files "--by $by differs between -j 1 and 2" "$T/j1.csv" "$T/j2.csv"
    same_files "--by $by differs between -j 1 and 5" "$T/j1.csv" "$T/j5.csv"
done
# The single file of all ranks loads to the same figures.
cat "$T"/big/*.pfw >"$T/all-in-one.pfw"
"$DFNAV" report -q --by layer --format csv "$T/big" >"$T/dir.csv"
"$DFNAV" report -q --by layer --format csv "$T/all-in-one.pfw" >"$T/one.csv"
same_files "one concatenated file reports differently from its parts" "$T/dir.csv" "$T/one.csv"
# Runs of one job configured differently (for dfnav compare): checkpoints
# on one file system only, data writes split into several calls, another
# start time. Each run still equals its truth, analysis rows included.
# ckpt_truth LABEL DIR TRUTH: checkpoint cost per step, checkpoint parts by
# function, self time per function, sequential calls per layer.
ckpt_truth() {
    label=$1; dir=$2; truth=$3
    R="$DFNAV report -q --layers dlio-legacy --format csv"
    $R --by arg.step --where 'func=PyTorchCheckpointing.save_checkpoint|PyTorchCheckpointing.checkpoint' "$dir" |
        awk -F, 'NR > 1 { printf "%s %d %.0f\n", $1, $2, $3 * 1e6 }' | sort >"$T/got"
    awk -F, '$1 == "ckptstep" { print $2, $3, $4 }' "$truth" | sort >"$T/want"
    same_files "$label checkpoint cost per step differs from the truth" "$T/want" "$T/got"
    $R --by pattern,func --where 'file~/checkpoint' "$dir" |
        awk -F, 'NR > 1 { printf "%s|%s %d %.0f %.0f\n", $1, $2, $3, $4 * 1e6, $7 }' | sort >"$T/got"
    awk -F, '$1 == "patfunc" { print $2, $3, $4, $5 }' "$truth" | sort >"$T/want"
    same_files "$label checkpoint parts by function differ from the truth" "$T/want" "$T/got"
    $R --by func --metrics self_s "$dir" |
        awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 { printf "%s %.0f\n", $1, $c["self_s"] * 1e6 }' | sort >"$T/got"
    awk -F, '$1 == "self" { print $2, $4 }' "$truth" | sort >"$T/want"
    same_files "$label self time differs from the truth" "$T/want" "$T/got"
    $R --by layer --where 'class=read|write' --metrics count,seq_pct "$dir" |
        awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 { printf "%s %d %.0f\n", $1, $c["count"], $c["count"] * $c["seq_pct"] / 100 }' | sort >"$T/got"
    awk -F, '$1 ~ /^(seq|rand)calls$/ && $2 ~ /^layer:/ { sub("layer:", "", $2); c[$2] += $3; if ($1 == "seqcalls") q[$2] = $3 }
             END { for (l in c) if (c[l] > 0) print l, c[l], q[l] }' "$truth" | sort >"$T/want"
    same_files "$label sequential calls per layer differ from the truth" "$T/want" "$T/got"
}
base="--seed 11 --events 6000 --ranks 3 --ranks-per-node 2"
for spec in "ssd-split3:--ckpt-fs ssd --ckpt-write-split 3 --start-us 1800000000000000" \
            "lustre:--ckpt-fs lustre" "both-split2:--ckpt-write-split 2" "both:" \
            "ckptfunc:--ckpt-func PyTorchCheckpointing.checkpoint"; do
    name=${spec%%:*}
    # shellcheck disable=SC2086
    "$DFNAV_GEN" $base ${spec#*:} --truth "$T/truth-$name.csv" "$T/$name" >/dev/null ||
        { fail "dfnav-gen $spec"; continue; }
    compare_set "$name" "$T/$name" "$T/truth-$name.csv"
    ckpt_truth "$name" "$T/$name" "$T/truth-$name.csv"
done
# every mode: the same calls of every function, only where they go differs
for name in both lustre ssd-split3 both-split2; do
    "$DFNAV" report -q --by func --format csv "$T/$name" | awk -F, 'NR > 1 && $1 !~ /^p?write(64)?$/ { print $1, $2 }' | sort >"$T/calls-$name"
done
same_files "--ckpt-fs lustre changes the calls" "$T/calls-both" "$T/calls-lustre"
# --ckpt-func: the checkpoint function renamed, every call the same
"$DFNAV" report -q --by func --format csv "$T/ckptfunc" | awk -F, 'NR > 1 && $1 !~ /^p?write(64)?$/ { print $1, $2 }' |
    sed 's/^PyTorchCheckpointing\.checkpoint /PyTorchCheckpointing.save_checkpoint /' | sort >"$T/calls-ckptfunc"
same_files "--ckpt-func changes calls besides the name" "$T/calls-both" "$T/calls-ckptfunc"
got=$("$DFNAV" report -q --by func --where 'cat=checkpoint' --format csv "$T/ckptfunc" | awk -F, 'NR > 1 { printf "%s ", $1 }')
check "--ckpt-func: checkpoint functions" "PyTorchCheckpointing.__init__ PyTorchCheckpointing.checkpoint " "$(echo "$got" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/^ //')"
same_files "--ckpt-fs ssd --ckpt-write-split 3 changes the calls" "$T/calls-both" "$T/calls-ssd-split3"
# lustre: nothing on the SSD; ssd: no checkpoint bytes on Lustre
got=$("$DFNAV" report -q --by fs --format csv "$T/lustre" | grep -c '^/l/ssd,')
check "--ckpt-fs lustre: rows of /l/ssd" 0 "$got"
got=$("$DFNAV" report -q --by fs --where 'file~/checkpoint' --format csv "$T/ssd-split3" |
      awk -F, 'NR > 1 && $6 > 0 { printf "%s ", $1 }')
check "--ckpt-fs ssd: file systems with checkpoint bytes" "/l/ssd " "$got"
got=$("$DFNAV" report -q --by fs --where 'file~/checkpoint' --format csv "$T/both" |
      awk -F, 'NR > 1 && $6 > 0 { printf "%s ", $1 }')
check "--ckpt-fs both: file systems with checkpoint bytes" "/l/ssd /p/lustre2 " "$got"
# split 2: one call more per checkpoint data write (not the 512-byte
# headers), back to back: the same time, busy time, slowest process and
# bytes in every layer, every other function the same
data=$("$DFNAV" report -q --by func --where 'file~/checkpoint func=write|pwrite64 bytes>512' --format csv "$T/both" |
       awk -F, 'NR > 1 { n += $2 } END { print n + 0 }')
calls() { "$DFNAV" report -q --where 'func=write|pwrite64' --format csv "$1" | awk -F, 'NR == 2 { print $1 }'; }
c1=$(calls "$T/both"); c2=$(calls "$T/both-split2")
[ "$data" -gt 0 ] || fail "no checkpoint data writes in the run"
check "--ckpt-write-split 2: write and pwrite64 calls" "$((c1 + data))" "$c2"
for name in both both-split2; do
    "$DFNAV" report -q --layers dlio-legacy --by layer --format csv "$T/$name" | awk -F, 'NR > 1 { print $1, $3, $4, $5, $6 }' | sort >"$T/lt-$name"
    "$DFNAV" report -q --by func --format csv "$T/$name" | awk -F, 'NR > 1 && $1 !~ /^p?write(64)?$/ { print $1, $2, $3, $6 }' |
        sort >"$T/ft-$name"
done
same_files "--ckpt-write-split 2 changes time or bytes of a layer" "$T/lt-both" "$T/lt-both-split2"
same_files "--ckpt-write-split 2 changes other calls" "$T/ft-both" "$T/ft-both-split2"
# writes to a checkpoint file, a call that follows another back to back
# (and at its end offset, when positioned) merged into it:
# "proc func file start_us end_us bytes offset"
merged_writes() {
    "$DFNAV" report -q --by event --where 'file~/checkpoint func=write|pwrite64' --format csv "$1" |
        awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { s = sprintf("%.0f", $c["start_s"] * 1e6); o = $c["arg.offset"]
              printf "%s %s %s %d %d %s %s\n", $c["proc"], $c["func"], $c["file"], s,
                  s + $c["dur_us"], $c["bytes"], o == "" ? "-" : o }' |
        sort -k1,1 -k3,3 -k4,4n |
        awk '$1 == p1 && $2 == p2 && $3 == p3 && $4 == pe && ($7 == "-" || $7 == po + pb) { pe = $5; pb += $6; next }
             NR > 1 { print p1, p2, p3, ps, pe, pb, po }
             { p1 = $1; p2 = $2; p3 = $3; ps = $4; pe = $5; pb = $6; po = $7 }
             END { if (NR) print p1, p2, p3, ps, pe, pb, po }'
}
merged_writes "$T/both" >"$T/mw1"
merged_writes "$T/both-split2" >"$T/mw2"
same_files "--ckpt-write-split 2: the calls of a write do not span the unsplit call" "$T/mw1" "$T/mw2"
# another start: every time shifted by the difference, the rest the same
"$DFNAV_GEN" $base --ckpt-fs ssd --ckpt-write-split 3 "$T/ssd-split3-t0" >/dev/null || fail "dfnav-gen ssd split 3"
start() { "$DFNAV" info -q --format csv "$1" | awk -F, '$1 == "total" { print $9 }'; }
s0=$(start "$T/ssd-split3-t0"); s1=$(start "$T/ssd-split3")
check "--start-us shift of start_us" "$((1800000000000000 - 1744611912000000))" "$((s1 - s0))"
"$DFNAV" report -q --by func --format csv "$T/ssd-split3-t0" >"$T/f0.csv"
"$DFNAV" report -q --by func --format csv "$T/ssd-split3" >"$T/f1.csv"
same_files "--start-us changes the report by func" "$T/f0.csv" "$T/f1.csv"
finish
