#!/bin/sh
# Exact figures on generated traces: for every format era and gzip mode,
# dfnav's report equals the generator's ground truth (counts, summed
# durations, bytes, busy time and slowest process per layer, job span), and
# the output does not depend on the thread count.
. "$SRCDIR/tests/shell/lib.sh"

# dfnav CSV "key,count,time_s,busy_s,max_proc_s,bytes,..." -> "key count time_us bytes"
rows() {
    awk -F, 'NR > 1 { printf "%s %d %.0f %.0f\n", $1, $2, $3 * 1e6, $6 }' | sort
}
truth_rows() {   # truth_rows DIM TRUTHFILE
    awk -F, -v d="$1" '$1 == d && $3 > 0 { printf "%s %d %d %s\n", $2, $3, $4, $5 }' "$2" | sort
}

compare_set() {   # compare_set LABEL DIR TRUTH
    label=$1; dir=$2; truth=$3
    for dim in func cat host file fs class layer pid; do
        "$DFNAV" report -q --layers dlio --by "$dim" --format csv "$dir" | rows >"$T/got"
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
    "$DFNAV" report -q --layers dlio --by layer --format csv "$dir" |
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

n=0
for spec in v0:none quoted:none inline:none hash16:none hex:none u64:none newest:none \
            u64:single u64:members quoted:single newest:members v0:members; do
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
finish
