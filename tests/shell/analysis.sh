#!/bin/sh
# The analysis figures of issue 4 on generated traces whose truth is known:
# per-process compute, I/O and exposed I/O (with the data loader
# prefetching during compute, so exposure is partial), the same per layer,
# the slowest process of each layer, self time per function, sequential
# and random calls per file and layer, files shared between processes,
# checkpoint cost per step and checkpoint parts by function. Every figure
# must equal the generator's ground truth exactly (times in microseconds).
. "$SRCDIR/tests/shell/lib.sh"

# csv_cols COLUMN... : the named columns of a dfnav CSV on stdin, space
# separated, times (…_s) in whole microseconds, a row per line, sorted.
csv_cols() {
    awk -F, -v want="$*" '
        { sub(/\r$/, "") }
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
        { line = ""
          for (k = 1; k <= n; k++) {
              v = $(col[w[k]])
              if (w[k] ~ /_s$/) v = sprintf("%.0f", v * 1e6)
              line = line (k > 1 ? " " : "") v
          }
          print line }' | sort
}
# truth DIM... : "key count time_us bytes" of the truth rows of those dims
truth() {
    awk -F, -v dims=" $* " 'index(dims, " " $1 " ") { print $1, $2, $3, $4, $5 }' "$TRUTH"
}
same() {   # same LABEL: compares $T/want and $T/got
    if [ ! -s "$T/want" ]; then fail "$1: no truth rows"; return; fi
    same_files "$1 differs from the truth (want < > got):" "$T/want" "$T/got"
}

analyse() {   # analyse LABEL DIR
    label=$1; dir=$2
    R="$DFNAV report -q --layers dlio-legacy --format csv"

    # compute, I/O busy and exposed I/O per process, and for the whole set
    $R --by pid --metrics compute_s,io_busy_s,exposed_s "$dir" | csv_cols pid compute_s io_busy_s exposed_s >"$T/got"
    truth procio proccompute procexposed | awk '$2 != "*" { v[$2, $1] = $4; k[$2] = 1 }
        END { for (p in k) print p, v[p, "proccompute"], v[p, "procio"], v[p, "procexposed"] }' | sort >"$T/want"
    same "$label compute/io/exposed per process"
    $R --metrics compute_s,io_busy_s,exposed_s "$dir" | csv_cols compute_s io_busy_s exposed_s >"$T/got"
    truth procio proccompute procexposed | awk '$2 == "*" { v[$1] = $4 }
        END { print v["proccompute"], v["procio"], v["procexposed"] }' >"$T/want"
    same "$label compute/io/exposed in all"
    # overlap_pct follows from them: 1 - exposed / io
    got=$($R --metrics io_busy_s,exposed_s,overlap_pct "$dir" | csv_cols io_busy_s exposed_s overlap_pct |
          awk '{ d = $3 - 100 * (1 - $2 / $1); print (d < 1e-9 && d > -1e-9) ? "ok" : $0 }')
    check "$label overlap_pct" ok "$got"

    # the same per layer (exposure against all of a process's compute)
    $R --by layer --metrics compute_s,io_busy_s,exposed_s "$dir" | csv_cols layer compute_s io_busy_s exposed_s >"$T/got"
    truth layerio layercompute layerexposed | awk '{ sub("layer:", "", $2); v[$2, $1] = $4; k[$2] = 1 }
        END { for (l in k) print l, v[l, "layercompute"], v[l, "layerio"], v[l, "layerexposed"] }' |
        sort >"$T/want.all"
    # dfnav lists the layers that have events
    cut -d' ' -f1 "$T/got" >"$T/has"
    grep -F -w -f "$T/has" "$T/want.all" >"$T/want"
    same "$label compute/io/exposed per layer"

    # the slowest process of each layer, and its time
    $R --by layer --metrics max_proc_s,max_proc "$dir" | csv_cols layer max_proc max_proc_s |
        awk '{ sub(".*/", "", $2); print }' >"$T/got"
    truth maxprocpid | awk '{ sub("layer:", "", $2); print $2, $3, $4 }' | sort >"$T/want"
    same "$label slowest process per layer"

    # self time per function
    $R --by func --metrics self_s "$dir" | csv_cols func self_s >"$T/got"
    truth self | awk '{ print $2, $4 }' | sort >"$T/want"
    same "$label self time per function"

    # sequential and random reads and writes, per file and per layer
    for by in file layer; do
        $R --by "$by" --where 'class=read|write' --metrics count,seq_pct "$dir" | csv_cols "$by" count seq_pct >"$T/got.pct"
        truth seqcalls randcalls | awk -v by="$by" '$2 != "*" && (by == "layer") == ($2 ~ /^layer:/) {
                sub("layer:", "", $2); v[$2, $1] = $3; k[$2] = 1 }
            END { for (f in k) if (v[f, "seqcalls"] + v[f, "randcalls"] > 0) print f, v[f, "seqcalls"], v[f, "randcalls"] }' |
            sort >"$T/want.sr"
        # count = sequential + random; seq_pct = 100 * sequential / count
        got=$(join "$T/want.sr" "$T/got.pct" | awk '{ n++; d = $5 - 100 * $2 / ($2 + $3)
                if ($4 != $2 + $3 || d > 1e-9 || d < -1e-9) { print "row " $0; exit } } END { if (n) print "ok " n }')
        check "$label sequential share per $by" "ok $(wc -l <"$T/want.sr" | tr -d ' ')" "$got"
    done

    # files touched by one process versus shared, per layer and in all
    $R --by layer --metrics files,shared_files "$dir" | csv_cols layer files shared_files >"$T/got.all"
    truth files sharedfiles | awk '$2 != "*" { sub("layer:", "", $2); v[$2, $1] = $3; k[$2] = 1 }
        END { for (l in k) print l, v[l, "files"], v[l, "sharedfiles"] }' | sort >"$T/want.all"
    join "$T/want.all" "$T/got.all" | awk '{ print $1, $2, $3 }' >"$T/want"
    join "$T/want.all" "$T/got.all" | awk '{ print $1, $4, $5 }' >"$T/got"
    same "$label shared files per layer"
    got=$($R --metrics files,shared_files "$dir" | csv_cols files shared_files)
    want=$(truth files sharedfiles | awk '$2 == "*" { v[$1] = $3 } END { print v["files"], v["sharedfiles"] }')
    check "$label shared files in all" "$want" "$got"

    # checkpoint cost per step: calls, summed time, slowest process
    $R --by arg.step --where 'func=PyTorchCheckpointing.save_checkpoint' --metrics count,time_s,max_proc_s,max_proc "$dir" |
        csv_cols arg.step count time_s max_proc max_proc_s | awk '{ sub(".*/", "", $4); print }' >"$T/got"
    truth ckptstep ckptstepmax | awk '{ v[$2, $1] = $3 " " $4; k[$2] = 1 }
        END { for (s in k) print s, v[s, "ckptstep"], v[s, "ckptstepmax"] }' | sort >"$T/want"
    same "$label checkpoint cost per step"
    # any argument groups at every level: all events by their own step
    $R --by own.step "$dir" | csv_cols own.step count time_s bytes >"$T/got"
    awk -F, '$1 == "argstep" { print $2, $3, $4, $5 }' "$TRUTH" | sort >"$T/want"
    same "$label grouping by arg.step"

    # checkpoint parts: pattern x function on the checkpoint files
    $R --by pattern,func --where 'file~/checkpoint' "$dir" | csv_cols pattern func count time_s bytes |
        awk '{ print $1 "|" $2, $3, $4, $5 }' | sort >"$T/got"
    truth patfunc | awk '{ print $2, $3, $4, $5 }' | sort >"$T/want"
    same "$label checkpoint parts by function"
}

# prefetching loaders: part of the I/O hidden behind compute
"$DFNAV_GEN" --seed 3 --events 20000 --ranks 4 --prefetch --truth "$T/t1.csv" "$T/pre" >/dev/null || fail "dfnav-gen --prefetch"
TRUTH="$T/t1.csv"
analyse prefetch "$T/pre"
# the truth itself must make the test meaningful: exposure strictly between
# nothing and all of the I/O in every process
partial=$(awk -F, '$1 == "procio" && $2 != "*" { io[$2] = $4 } $1 == "procexposed" && $2 != "*" { ex[$2] = $4 }
    END { n = 0; for (p in io) if (ex[p] > 0 && ex[p] < io[p]) n++; print n }' "$TRUTH")
check "generated exposure is partial in every process" 4 "$partial"

# another era, gzip members, more ranks on two hosts
"$DFNAV_GEN" --seed 7 --events 30000 --ranks 6 --ranks-per-node 3 --prefetch --era hash16 --gzip members \
    --truth "$T/t2.csv" "$T/pre2" >/dev/null || fail "dfnav-gen --prefetch hash16"
TRUTH="$T/t2.csv"
analyse hash16/members "$T/pre2"

# the default workload: the main thread waits for its reads, nothing hidden
"$DFNAV_GEN" --seed 5 --events 12000 --ranks 3 --truth "$T/t3.csv" "$T/plain" >/dev/null || fail "dfnav-gen"
TRUTH="$T/t3.csv"
analyse plain "$T/plain"

# big enough that the merge into the store and the layer index run in
# parts (2^16 events and more each): the same truth holds
"$DFNAV_GEN" --seed 9 --events 300000 --ranks 4 --prefetch --truth "$T/t4.csv" "$T/big" >/dev/null ||
    fail "dfnav-gen --events 300000"
TRUTH="$T/t4.csv"
analyse big "$T/big"
"$DFNAV" report -q -j 1 --by layer,pid,func --metrics all --format csv "$T/big" >"$T/b1.csv"
"$DFNAV" report -q -j 3 --by layer,pid,func --metrics all --format csv "$T/big" >"$T/b3.csv"
same_files "--metrics all on 310,000 events differs between -j 1 and -j 3" "$T/b1.csv" "$T/b3.csv"

# any number of loader threads, the same figures
"$DFNAV" report -q -j 1 --by layer,pid --metrics all --format csv "$T/pre2" >"$T/j1.csv"
"$DFNAV" report -q -j 3 --by layer,pid --metrics all --format csv "$T/pre2" >"$T/j3.csv"
same_files "--metrics all differs between -j 1 and -j 3" "$T/j1.csv" "$T/j3.csv"
finish
