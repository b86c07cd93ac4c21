#!/usr/bin/env bash
# The performance benchmark behind `make bench`: generates (once, cached in
# BENCH_DIR) the 7.4-million-event DLIO-like set as 8 plain files, as 8 gzip
# files and as one single file; then, interleaving BENCH_RUNS rounds so
# that drift on the machine hits every figure alike, times on those same
# bytes: dfnav report --by func (load and query) with its peak RSS, the
# explorer's first screen on a pseudo-terminal and its per-action latency
# (headless --replay), the read and inflate limits (cat, zcat, igzip -dc),
# and the Dask pipeline of ../shared/peers with 2 workers. It prints one
# table of medians with the ratios to limits and peer and the targets.
#
# Environment: DFNAV, DFNAV_GEN (the programs), SRCDIR (the sources),
# BENCH_DIR (data and scratch, default ./bench), BENCH_RUNS (default 3),
# BENCH_PEER_RUNS (default BENCH_RUNS; 0 skips the peer), BENCH_EVENTS
# (default 7400000), BENCH_OUT (also write the table there), BENCH_BASE
# (another dfnav, e.g. a build of the last release, timed in the same
# rounds on the plain files: its time and peak RSS against this one's).
# A DFTracer 2.x set of the same calls with counter samples (cpu and mem
# every 0.5 s per process) is timed too: 2.x must load at the events/s of
# the default set. Every parse is timed with --no-cache; the cache is timed
# on its own: the first load that saves the image (after a sync, against
# the parse), the reopen that maps it, the explorer's first full table
# from it, a set of which 7 of 8 files are cached, and the image's size.
#
# DuckDB is the second peer, in the same rounds: its JSON reader through
# the @duckdb/node-api npm package (installed once into BENCH_DUCKDB,
# default BENCH_DIR/duckdb; said and skipped without node and npm), on the
# DFTracer 2.x "newest era" set (numeric ph, files named by FH hash
# records) as 8 and as 64 files, by function, by file (joining the FH
# records) and by epoch, against dfnav on the same files; both must count
# the same calls and time. Every run gives its wall time, CPU seconds
# (user + system) and peak RSS. CPU nanoseconds per event are given for
# dfnav's parse of each set beside the limits (cat, wc -l, zcat, igzip),
# and, with perf (Debian: linux-perf), the parse's CPU by phase. Last, one
# headless replay of the explorer's actions on BENCH_BIG_EVENTS (default
# 30000000; 0 skips it) events gives each key's latency at that size.
set -uo pipefail

DFNAV=${DFNAV:-./dfnav}
DFNAV_GEN=${DFNAV_GEN:-./dfnav-gen}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BENCH_DIR=${BENCH_DIR:-bench}
RUNS=${BENCH_RUNS:-3}
PEER_RUNS=${BENCH_PEER_RUNS:-$RUNS}
EVENTS=${BENCH_EVENTS:-7400000}
PEER=${BENCH_PEER:-$SRCDIR/../shared/peers/dask_baseline.py}
BIG_EVENTS=${BENCH_BIG_EVENTS:-30000000}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
REPLAY_KEYS='<Enter> <Enter> <Enter> <BS> <BS> <BS> p f > > r < p l <Down> <Down> <Enter> <BS> f cat=POSIX <Enter> p F z z Z ] [ p t <Enter> <Enter> <BS> <BS> f <C-u> <Enter> p p p c p s L <Down> <Right> <Right> m <Enter> <BS> p z <Esc> / read <Enter> n F <Down> <Down> <Enter> <BS> F'

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

command -v /usr/bin/time >/dev/null || die "needs /usr/bin/time (Debian: apt-get install time)"
[ -x "$DFNAV" ] && [ -x "$DFNAV_GEN" ] || die "build dfnav and dfnav-gen first (make)"
DFNAV=$(cd "$(dirname "$DFNAV")" && pwd)/$(basename "$DFNAV")
DFNAV_GEN=$(cd "$(dirname "$DFNAV_GEN")" && pwd)/$(basename "$DFNAV_GEN")
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
DATA=$BENCH_DIR/data
RES=$BENCH_DIR/results
rm -rf "$RES"
mkdir -p "$DATA" "$RES"

# ---- the data, generated once per generator and options ----
# The checkpoint function takes the name newer DLIO versions log, the one
# the peer's per-process checkpoint aggregate looks for.
gen_args="--seed 1 --events $EVENTS --ranks 8 --ckpt-func PyTorchCheckpointing.checkpoint"
stamp="$gen_args +v2 $(cksum < "$DFNAV_GEN" | cut -d' ' -f1)"
if [ "$(cat "$DATA/stamp" 2>/dev/null)" != "$stamp" ]; then
    say "generating the set ($gen_args) in $DATA, once"
    rm -rf "$DATA/plain" "$DATA/gz" "$DATA/single" "$DATA/v2" "$DATA/stamp"
    # shellcheck disable=SC2086
    "$DFNAV_GEN" $gen_args "$DATA/plain" >/dev/null || die "dfnav-gen failed"
    # shellcheck disable=SC2086
    "$DFNAV_GEN" $gen_args --gzip single "$DATA/gz" >/dev/null || die "dfnav-gen --gzip failed"
    mkdir -p "$DATA/single"
    cat "$DATA"/plain/*.pfw > "$DATA/single/all.pfw" || die "cannot write the single file"
    # shellcheck disable=SC2086
    "$DFNAV_GEN" $gen_args --era v2 --counters "$DATA/v2" >/dev/null || die "dfnav-gen --era v2 --counters failed"
    echo "$stamp" > "$DATA/stamp"
fi
# the newest era, as 8 files and as the same calls of 64 processes, and
# the large set of the replay: each with a stamp of its own, so that
# adding them does not make the sets above again
gen_extra() {   # DIR ARGS...: generates DIR once per generator and options
    local dir=$1; shift
    local st="$* $(cksum < "$DFNAV_GEN" | cut -d' ' -f1)"
    [ "$(cat "$DATA/$dir.stamp" 2>/dev/null)" = "$st" ] && return
    say "generating $dir ($*) in $DATA, once"
    rm -rf "${DATA:?}/$dir" "$DATA/$dir.stamp"
    "$DFNAV_GEN" "$@" "$DATA/$dir" >/dev/null || die "dfnav-gen $* failed"
    echo "$st" > "$DATA/$dir.stamp"
}
newest_args="--seed 1 --events $EVENTS --ckpt-func PyTorchCheckpointing.checkpoint --era newest"
# shellcheck disable=SC2086
gen_extra newest $newest_args --ranks 8
# shellcheck disable=SC2086
gen_extra newest64 $newest_args --ranks 64
# shellcheck disable=SC2086
[ "$BIG_EVENTS" -gt 0 ] && gen_extra big --seed 1 --events "$BIG_EVENTS" --ranks 8 --ckpt-func PyTorchCheckpointing.checkpoint
NEWEST=("$DATA"/newest/*.pfw)
NEWEST64=("$DATA"/newest64/*.pfw)
PLAIN=("$DATA"/plain/*.pfw)
GZ=("$DATA"/gz/*.pfw.gz)
SINGLE=$DATA/single/all.pfw
V2=("$DATA"/v2/*.pfw)
BASE=${BENCH_BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || die "BENCH_BASE=$BASE is not a program"
bytes_plain=$(stat -c %s "${PLAIN[@]}" | awk '{ s += $1 } END { print s }')
bytes_gz=$(stat -c %s "${GZ[@]}" | awk '{ s += $1 } END { print s }')

# ---- a zlib build beside an ISA-L one, so that both inflaters are measured ----
# "dfnav 0.1.0 (gzip: isa-l, MPI: Open MPI 4.1.4)": the word after "gzip: "
backend=$("$DFNAV" --version | sed -n 's/.*gzip: \([^,)]*\).*/\1/p')
DFNAV_ZLIB=
if [ "$backend" = "isa-l" ]; then
    zb=$BENCH_DIR/zlib-build
    # configured from these sources, or made again (a tree configured from
    # a checkout since removed cannot rebuild)
    [ "$(cat "$zb/srcdir" 2>/dev/null)" = "$SRCDIR" ] || rm -rf "$zb"
    mkdir -p "$zb"
    if [ ! -f "$zb/tree/Makefile" ]; then
        echo "$SRCDIR" > "$zb/srcdir"
        rm -rf "$zb/tree"
        # a source tree configured in place takes no second configuration
        # beside it: the build copies the distributed sources (make distdir
        # here, the build directory) and configures the copy
        if [ -f "$SRCDIR/config.status" ]; then
            make -s distdir distdir="$zb/tree" >"$zb/distdir.log" 2>&1 || die "make distdir failed (see $zb/distdir.log)"
            (cd "$zb/tree" && ./configure --without-isal >/dev/null) || die "configure --without-isal failed"
        else
            mkdir -p "$zb/tree"
            (cd "$zb/tree" && "$SRCDIR/configure" --without-isal >/dev/null) || die "configure --without-isal failed"
        fi
    fi
    (cd "$zb/tree" && make -s dfnav >/dev/null 2>&1) || die "the zlib build failed (see $zb/tree)"
    DFNAV_ZLIB=$zb/tree/dfnav
elif [ "$backend" = "zlib" ]; then
    DFNAV_ZLIB=$DFNAV
fi

# ---- the truth every variant must agree on ----
"$DFNAV" report --by func -f csv -m count -q "${PLAIN[@]}" > "$RES/ref.txt" || die "dfnav report failed on the plain set"
events=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "count") c = i; next } { n += $c } END { print n }' "$RES/ref.txt")
for v in single gz; do
    case $v in single) set -- "$SINGLE" ;; gz) set -- "${GZ[@]}" ;; esac
    "$DFNAV" report --by func -f csv -m count -q "$@" | cmp -s - "$RES/ref.txt" || die "the $v set does not give the plain set's report"
done
# the 2.x set: its events (calls) and its counter records, from info
read -r events_v2 counters_v2 < <("$DFNAV" info -q --format csv "${V2[@]}" |
    awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             $1 == "total" { print $c["events"], $c["counters"] }')
[ "${counters_v2:-0}" -gt 0 ] || die "the 2.x set has no counter records"
events_newest=$("$DFNAV" report -q -f csv -m count "${NEWEST[@]}" | awk -F, 'NR == 2 { sub(/\r$/, ""); print $1 }')
bytes_v2=$(stat -c %s "${V2[@]}" | awk '{ s += $1 } END { print s }')
say "$events events; $((bytes_plain / 1000000)) MB plain, $((bytes_gz / 1000000)) MB gzip; 2.x: $events_v2 events and $counters_v2 counter records; $RUNS rounds"

have_igzip=0; command -v igzip >/dev/null && have_igzip=1
have_peer=0
if [ "$PEER_RUNS" -gt 0 ]; then
    if [ ! -f "$PEER" ]; then
        say "peer skipped: $PEER not found"
    elif ! "$PY" -c 'import dask.bag, dask.dataframe, distributed, pandas' 2>/dev/null; then
        say "peer skipped: Dask is not installed (Debian: apt-get install python3-dask python3-distributed python3-pandas)"
    else
        have_peer=1
    fi
fi

# time NAME CMD...: wall seconds, peak RSS (KiB) and CPU seconds (user +
# system) appended to RES/NAME (the output is dropped: cat's would be
# 1.8 GB written to disk, timed as reading)
timed() {
    local name=$1; shift
    /usr/bin/time -f '%e %M %U %S' -o "$RES/$name.one" "$@" >/dev/null 2>"$RES/$name.err" ||
        die "$name failed: $(tail -3 "$RES/$name.err")"
    awk '{ print $1, $2, $3 + $4 }' "$RES/$name.one" >> "$RES/$name"
}

# ---- DuckDB, from npm into a cache of its own ----
DUCK=${BENCH_DUCKDB:-$BENCH_DIR/duckdb}
have_duck=0
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "DuckDB skipped: needs node and npm (Debian: apt-get install nodejs npm)"
elif [ -d "$DUCK/node_modules/@duckdb/node-api" ] ||
     { say "installing DuckDB (@duckdb/node-api) into $DUCK, once"
       mkdir -p "$DUCK" && npm install --silent --no-audit --no-fund --prefix "$DUCK" @duckdb/node-api >"$RES/npm.log" 2>&1; }; then
    have_duck=1
    duck_version=$(sed -n 's/^ *"version": "\([^"]*\)".*/\1/p' "$DUCK/node_modules/@duckdb/node-api/package.json" | head -1)
else
    say "DuckDB skipped: npm install failed ($(tail -2 "$RES/npm.log"))"
fi
# dfnav's grouping for each of DuckDB's queries: own.epoch is the epoch a
# call itself carries, as DuckDB reads it (arg.epoch would also give the
# POSIX calls the epoch of the DLIO call around them)
dfnav_by() { case $1 in func) echo func ;; file) echo file ;; epoch) echo own.epoch ;; esac; }
# both must count the same calls and time, in as many groups
duck_check() {   # BY SETNAME FILES...
    local by=$1 set=$2; shift 2
    local d c t g
    d=$(node "$SRCDIR/tests/bench_duckdb.mjs" "$DUCK" "$by" "$@") || die "DuckDB failed by $by on $set"
    c=$("$DFNAV" report -q --no-cache -f csv -m count,time_s "$@" | awk -F, 'NR == 2 { sub(/\r$/, ""); printf "%s %.0f", $1, $2 * 1e6 }')
    g=$("$DFNAV" report -q --no-cache -f csv -m count --by "$(dfnav_by "$by")" "$@" | awk 'END { print NR - 1 }')
    t=$(printf '%s' "$d" | sed 's/.*"groups":\([0-9]*\),"events":"\([0-9]*\)","dur_us":"\([0-9]*\)".*/\2 \3 \1/')
    [ "$t" = "$c $g" ] || die "DuckDB by $by on $set: calls, µs and groups '$t'; dfnav '$c $g'"
}
if [ $have_duck = 1 ]; then
    for by in func file epoch; do duck_check "$by" newest "${NEWEST[@]}"; done
    duck_check func newest64 "${NEWEST64[@]}"
    say "DuckDB $duck_version counts the calls and time dfnav does, in the same groups"
fi

# the cache's rows: a cache of their own, emptied where a row needs it
BCACHE="$BENCH_DIR/cache"
cache_rows() {
    # the save against a parse just before it, twice, each after a sync
    # (earlier writes are not its own): the ratio is of these pairs
    for pair in 1 2; do
        rm -rf "$BCACHE"
        sync
        timed report_pair "$DFNAV" report --by func -q --no-cache "${PLAIN[@]}"
        sync
        timed report_save "$DFNAV" report --by func -q --cache "$BCACHE" "${PLAIN[@]}"
    done
    du -sb "$BCACHE" | awk '{ print $1 }' >> "$RES/cache_bytes"
    timed report_reopen "$DFNAV" report --by func -q --cache "$BCACHE" "${PLAIN[@]}"
    # the time level's header: from the cache no snapshot comes first;
    # then a pivot to functions at once (p f), while the analyses build,
    # until a function only that level shows
    "$PY" "$SRCDIR/tests/bench_pty.py" 80x24 120 "range▲" "+pf" "DLIOBenchmark._train" -- "$DFNAV" --cache "$BCACHE" "${PLAIN[@]}" \
        > "$RES/pty_cache.one" 2>/dev/null || die "the explorer from the cache failed"
    # a marker that never came prints "-", which awk would read as 0 ms
    grep -qx -- - "$RES/pty_cache.one" && die "the explorer from the cache never showed its first table or the pivot"
    paste -s -d' ' "$RES/pty_cache.one" >> "$RES/first_cached"
    rm -rf "$BCACHE"
    "$DFNAV" info -q --cache "$BCACHE" "${PLAIN[@]:0:7}" >/dev/null
    sync
    timed report_part "$DFNAV" report --by func -q --cache "$BCACHE" "${PLAIN[@]}"
    rm -rf "$BCACHE"
}

for ((round = 1; round <= RUNS; round++)); do
    say "round $round of $RUNS"
    # first: the rows below leave gigabytes of page cache churning, which
    # on a 2-core VM slows the kernel's writes of the image unevenly
    cache_rows
    timed cat cat "${PLAIN[@]}"
    timed report_plain "$DFNAV" report --by func -q --no-cache "${PLAIN[@]}"
    [ -n "$BASE" ] && timed report_base "$BASE" report --by func -q "${PLAIN[@]}"
    # every set is read once before its first timed parse, as cat reads
    # the plain set: a round's 30 M-event replay (7 GB) pushes the sets
    # read before it out of the page cache, and the 2.x set, read cold
    # after the warm plain one, came out at 0.68x its speed
    cat "${V2[@]}" >/dev/null
    timed report_v2 "$DFNAV" report --by func -q --no-cache "${V2[@]}"
    timed cat_single cat "$SINGLE"
    timed report_single "$DFNAV" report --by func -q --no-cache "$SINGLE"
    timed wc_plain wc -l "${PLAIN[@]}"
    timed cat_newest cat "${NEWEST[@]}"
    for by in func file epoch; do
        timed "newest_dfnav_$by" "$DFNAV" report --by "$(dfnav_by "$by")" -q --no-cache "${NEWEST[@]}"
        [ $have_duck = 1 ] && timed "newest_duck_$by" node "$SRCDIR/tests/bench_duckdb.mjs" "$DUCK" "$by" "${NEWEST[@]}"
    done
    cat "${NEWEST64[@]}" >/dev/null   # (dfnav runs first: not on colder files than DuckDB)
    timed newest64_dfnav_func "$DFNAV" report --by func -q --no-cache "${NEWEST64[@]}"
    [ $have_duck = 1 ] && timed newest64_duck_func node "$SRCDIR/tests/bench_duckdb.mjs" "$DUCK" func "${NEWEST64[@]}"
    timed zcat zcat "${GZ[@]}"
    [ -n "$DFNAV_ZLIB" ] && timed report_gz_zlib "$DFNAV_ZLIB" report --by func -q --no-cache "${GZ[@]}"
    if [ $have_igzip = 1 ]; then timed igzip igzip -dc "${GZ[@]}"; fi
    [ "$backend" = "isa-l" ] && timed report_gz_isal "$DFNAV" report --by func -q --no-cache "${GZ[@]}"
    "$PY" "$SRCDIR/tests/bench_pty.py" 80x24 120 "dfnav" "range▲" -- "$DFNAV" --no-cache "${PLAIN[@]}" \
        > "$RES/pty.one" 2>/dev/null || die "the explorer on a pseudo-terminal failed"
    paste -sd' ' "$RES/pty.one" >> "$RES/first"
    "$DFNAV" --replay "$REPLAY_KEYS" --size 80x24 --screens /dev/null --no-cache "${PLAIN[@]}" 2> "$RES/replay.err" >/dev/null ||
        die "the replay failed: $(tail -3 "$RES/replay.err")"
    grep '^latency [^:]*:' "$RES/replay.err" | awk -v r="$round" '{ k = NR; sub(/ ms$/, ""); print r, k, $NF }' >> "$RES/latency"
    if [ $have_peer = 1 ] && [ "$round" -le "$PEER_RUNS" ]; then
        /usr/bin/time -f '%e %M' -o "$RES/peer.one" "$PY" "$PEER" 2 "${PLAIN[@]}" > "$RES/peer.json" 2>"$RES/peer.err" ||
            die "the peer failed: $(tail -3 "$RES/peer.err")"
        sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' "$RES/peer.json" >> "$RES/peer"
        sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$RES/peer.json" > "$RES/peer_events"
    fi
done

# ---- where the parse's CPU goes: a profile of one newest-era parse, its
# functions sorted into phases by name ----
phases=""
if command -v perf >/dev/null && perf record -q -e cpu-clock -F 1999 -o "$RES/perf.data" -- \
        "$DFNAV" report --by func -q --no-cache "${NEWEST[@]}" >/dev/null 2>"$RES/perf.err"; then
    phases=$(perf report -i "$RES/perf.data" --no-children --stdio --sort sym 2>/dev/null | awk '
        /^ *[0-9.]+%/ {
            p = $1; sub(/%/, "", p); f = $NF
            if (f ~ /reader|inflate|isal_|crc32|gz|_copy_to_iter|copy_user|filemap|vfs_read|ksys_read|ext4|xfs|readahead/) k = "read"
            else if (f ~ /strtab|strcache|dfn_hash|parser_(intern|lane|kind|hash)/) k = "intern"
            else if (f ~ /linescan|tokenize|tok_|jsmn|parser_|evargs|dfn_parser_block|swar/) k = "tokenize"
            else if (f ~ /merge_part|chunk|heap_|pairs|build|col32|store_/) k = "merge"
            else if (f ~ /layerset|match|overlap|calltree|access|index/) k = "index"
            else if (f ~ /part_|query|hist|proc_step|map64|kv_/) k = "query"
            else if (f ~ /page|clear_|mm_|folio|lru|memcg|alloc|free|unmap|mas_|vma|zap|rmqueue|malloc|memset|memmove|memcpy|memcmp/) k = "memory"
            else k = "other"
            s[k] += p
        }
        END { n = split("read tokenize intern merge index query memory other", o, " ")
              for (i = 1; i <= n; i++) printf "%s%s %.0f%%", (i > 1 ? ", " : ""), o[i], s[o[i]] }')
else
    say "phases skipped: perf is missing or cannot record here (Debian: linux-perf; $(head -c 200 "$RES/perf.err" 2>/dev/null))"
fi

# ---- the explorer's actions on a set four times as large, once ----
if [ "$BIG_EVENTS" -gt 0 ]; then
    say "replay on $BIG_EVENTS events"
    "$DFNAV" --replay "$REPLAY_KEYS" --size 80x24 --screens /dev/null --no-cache "$DATA"/big/*.pfw 2> "$RES/replay_big.err" >/dev/null ||
        die "the replay on the large set failed: $(tail -3 "$RES/replay_big.err")"
    read -r blat50 blat95 blatmax bnkeys bworst < <(grep '^latency [^:]*:' "$RES/replay_big.err" |
        awk '{ v = $(NF - 1); k = $0; sub(/^latency /, "", k); sub(/: [0-9.]+ ms$/, "", k); print v, k }' | sort -g |
        awk '{ v[NR] = $1; k[NR] = $2 } END { print v[int((NR - 1) * 0.50) + 1], v[int((NR - 1) * 0.95 + 0.5) + 1], v[NR], NR, k[NR] }')
fi

# ---- medians and the table ----
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { [ -f "$RES/$1" ] && awk -v c="${2:-1}" '{ print $c }' "$RES/$1" | median; }

t_cat=$(med cat); t_plain=$(med report_plain); rss_plain=$(med report_plain 2)
t_cat1=$(med cat_single); t_single=$(med report_single)
t_zcat=$(med zcat); t_gzz=$(med report_gz_zlib); t_igzip=$(med igzip); t_gzi=$(med report_gz_isal)
t_peer=$(med peer)
t_v2=$(med report_v2); t_base=$(med report_base); rss_base=$(med report_base 2)
first=$(med first 1); first_rows=$(med first 2)
t_save=$(med report_save); t_pair=$(med report_pair); t_reopen=$(med report_reopen); rss_reopen=$(med report_reopen 2); t_part=$(med report_part)
first_cached=$(med first_cached); pivot_cached=$(med first_cached 2); cache_bytes=$(med cache_bytes)
# per set and peer: wall, RSS, CPU
trio() { echo "$(med "$1" 1) $(med "$1" 2) $(med "$1" 3)"; }
duck_rows=""
for by in func file epoch; do duck_rows="$duck_rows$by $(trio "newest_dfnav_$by") $(trio "newest_duck_$by");"; done
duck_rows="${duck_rows}func64 $(trio newest64_dfnav_func) $(trio newest64_duck_func)"
cpu_rows="default $events $(med report_plain 3);newest $events_newest $(med newest_dfnav_func 3);newest64 $events_newest $(med newest64_dfnav_func 3);v2 $events_v2 $(med report_v2 3)"
cpu_rows="$cpu_rows;cat $events $(med cat 3);wc $events $(med wc_plain 3);catnewest $events_newest $(med cat_newest 3)"
cpu_rows="$cpu_rows;zcat $events $(med zcat 3);igzip $events $(med igzip 3);gzz $events $(med report_gz_zlib 3);gzi $events $(med report_gz_isal 3)"
# latency: the median of each key over the rounds, then p50/p95/max over keys
read -r lat50 lat95 latmax nkeys < <(awk '{ print $2, $3 }' "$RES/latency" | sort -k1,1n -k2,2g |
    awk '{ v[$1] = v[$1] " " $2; n[$1]++ } END { for (k in v) { split(substr(v[k], 2), a, " "); m = n[k]; print (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2) } }' |
    sort -g | awk '{ v[NR] = $1 } END { p50 = v[int((NR - 1) * 0.50) + 1]; p95 = v[int((NR - 1) * 0.95 + 0.5) + 1]; print p50, p95, v[NR], NR }')

{
echo "dfnav benchmark: $events events, $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), medians of $RUNS rounds"
awk -v ev="$events" -v bp="$bytes_plain" -v bg="$bytes_gz" \
    -v tcat="$t_cat" -v tplain="$t_plain" -v rss="$rss_plain" -v tcat1="$t_cat1" -v tsingle="$t_single" \
    -v tzcat="$t_zcat" -v tgzz="$t_gzz" -v tigzip="$t_igzip" -v tgzi="$t_gzi" -v tpeer="$t_peer" \
    -v first="$first" -v firstrows="$first_rows" -v l50="$lat50" -v l95="$lat95" -v lmax="$latmax" -v nk="$nkeys" \
    -v tv2="$t_v2" -v evv2="$events_v2" -v bv2="$bytes_v2" -v tbase="$t_base" -v rssbase="$rss_base" \
    -v tsave="$t_save" -v tpair="$t_pair" -v treopen="$t_reopen" -v rssreopen="$rss_reopen" -v tpart="$t_part" -v fcached="$first_cached" -v pcached="$pivot_cached" \
    -v cbytes="$cache_bytes" '
function row(what, t, bytes, limit, lname, target, met,    r) {
    if (t == "") return
    printf "| %-44s | %8.2f s | %6.2f M/s | %6.0f MB/s | %-22s | %-14s | %-4s |\n", what, t, ev / t / 1e6, bytes / t / 1e6,
        (limit == "" ? "" : sprintf("%.1fx %s", t / limit, lname)), target, met
}
function ok(c) { return c ? "yes" : "NO" }
BEGIN {
    printf "| %-44s | %10s | %10s | %11s | %-22s | %-14s | %-4s |\n", "dfnav report --by func (load + query)", "median", "events", "JSON", "dfnav / limit", "target", "met"
    print "|----------------------------------------------|-----------:|-----------:|------------:|------------------------|----------------|------|"
    row("8 plain files", tplain, bp, tcat, "cat", ">= 4 M ev/s", ok(ev / tplain >= 4e6))
    row("1 plain file (same events)", tsingle, bp, tcat1, "cat", ">= 3 M ev/s", ok(ev / tsingle >= 3e6))
    row("8 gzip files, zlib", tgzz, bp, tzcat, "zcat", ">= 1.5 M ev/s", ok(ev / tgzz >= 1.5e6))
    row("8 gzip files, ISA-L", tgzi, bp, tigzip, "igzip -dc", ">= 3 M ev/s", ok(ev / tgzi >= 3e6))
    printf "| %-44s | %8.2f s | %6.2f M/s | %6.0f MB/s | %-22s | %-14s | %-4s |\n", "8 plain 2.x files with counters", tv2,
        evv2 / tv2 / 1e6, bv2 / tv2 / 1e6, sprintf("%.2fx default set", (evv2 / tv2) / (ev / tplain)), "ev/s >= 0.95x", ok((evv2 / tv2) / (ev / tplain) >= 0.95)
    if (tbase != "") printf "| %-44s | %8.2f s | %6.2f M/s | %6.0f MB/s | %-22s | %-14s | %-4s |\n", "8 plain files, BENCH_BASE", tbase,
        ev / tbase / 1e6, bp / tbase / 1e6, sprintf("this one %.3fx", tplain / tbase), "<= 1.05x", ok(tplain / tbase <= 1.05)
    print ""
    printf "| %-44s | %10s | %-40s | %-4s |\n", "the cache (8 plain files, report --by func)", "median", "target", "met"
    print "|----------------------------------------------|-----------:|------------------------------------------|------|"
    printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "first load, saving the image", tsave, sprintf("%.3fx the parse before it, %.2f s (<= 1.10x)", tsave / tpair, tpair), ok(tsave / tpair <= 1.10)
    printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "reopen, mapping the image", treopen, sprintf("%.1fx faster than the parse (>= 10x; 30x)", tplain / treopen), ok(tplain / treopen >= 10)
    printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "peak RSS, reopen", rssreopen * 1024 / 1e6, sprintf("%.3fx that of the parse (<= 1x)", rssreopen / rss), ok(rssreopen <= rss)
    printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "the image", cbytes / 1e6, sprintf("%.1f B/event; the store %.1f (<= 1x)", cbytes / ev, rss * 1024 / ev), ok(cbytes <= rss * 1024)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "explorer: first full table, from the cache", fcached, "< 200 ms", ok(fcached < 200)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "then at once p f (functions), analyses building", pcached, "< 100 ms, as any key", ok(pcached < 100)
    printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "7 of the 8 files cached, 1 parsed", tpart, sprintf("%.2fx the parse", tpart / tplain), ""
    print ""
    printf "| %-44s | %10s | %-40s | %-4s |\n", "other figures", "median", "target", "met"
    print "|----------------------------------------------|-----------:|------------------------------------------|------|"
    printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "cat, 8 plain files (read limit)", tcat, sprintf("%.0f MB/s", bp / tcat / 1e6), ""
    if (tzcat != "") printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "zcat, 8 gzip files (inflate limit, zlib)", tzcat, sprintf("%.0f MB/s of JSON", bp / tzcat / 1e6), ""
    if (tigzip != "") printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "igzip -dc, 8 gzip files (inflate limit, ISA-L)", tigzip, sprintf("%.0f MB/s of JSON", bp / tigzip / 1e6), ""
    if (tpeer != "") printf "| %-44s | %8.2f s | %-40s | %-4s |\n", "Dask peer, 2 workers, 8 plain files", tpeer, sprintf("dfnav %.1fx faster (target >= 20x)", tpeer / tplain), ok(tpeer / tplain >= 20)
    else printf "| %-44s | %10s | %-40s | %-4s |\n", "Dask peer, 2 workers, 8 plain files", "skipped", "see the message above", ""
    bpe = rss * 1024 / ev
    printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "peak RSS, 8 plain files", rss * 1024 / 1e6, sprintf("%.1f B/event (<= 32); 150 M events: %.1f GiB", bpe, bpe * 150e6 / 2^30), ok(bpe <= 32 && bpe * 150e6 <= 24 * 2^30)
    if (rssbase != "") printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "peak RSS, 8 plain files, BENCH_BASE", rssbase * 1024 / 1e6, sprintf("%.1f B/event; this one %.3fx (<= 1.05x)", rssbase * 1024 / ev, rss / rssbase), ok(rss / rssbase <= 1.05)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "explorer: first screen (pty, 80x24)", first, "< 150 ms", ok(first < 150)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "explorer: first rows of a snapshot", firstrows, "", ""
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", sprintf("explorer: %d actions (replay), p95", nk), l95, sprintf("< 100 ms (p50 %.1f, max %.1f ms)", l50, lmax), ok(l95 < 100)
}'
[ -f "$RES/peer_events" ] && echo "Dask peer counted $(cat "$RES/peer_events") events."
echo
awk -v rows="$duck_rows" -v ver="${duck_version:-}" -v ev="$events_newest" 'BEGIN {
    printf "| %-34s | %-22s | %-22s | %-12s | %-26s | %-4s |\n", "the newest era vs DuckDB " ver, "dfnav wall/CPU/RSS", "DuckDB wall/CPU/RSS", "dfnav faster", "target", "met"
    print "|------------------------------------|------------------------|------------------------|--------------|----------------------------|------|"
    n = split(rows, r, ";")
    for (i = 1; i <= n; i++) {
        split(r[i], f, " ")
        by = f[1]; dw = f[2]; dr = f[3]; dc = f[4]; kw = f[5]; kr = f[6]; kc = f[7]
        what = by == "func64" ? "report --by func, 64 files" : "report --by " (by == "epoch" ? "own.epoch" : by) ", 8 files"
        if (dw == "") continue
        if (kw == "") { printf "| %-34s | %5.2fs %5.2fs %6.0fMB | %-22s | %-12s | %-26s | %-4s |\n", what, dw, dc, dr * 1024 / 1e6, "skipped", "", "", ""; continue }
        need = by == "file" ? 2 : 1.5
        tgt = by == "epoch" ? "" : sprintf(">= %.1fx wall and CPU", need)
        met = by == "epoch" ? "" : (kw / dw >= need && kc / dc >= need ? "yes" : "NO")
        printf "| %-34s | %5.2fs %5.2fs %6.0fMB | %5.2fs %5.2fs %6.0fMB | %5.2fx %5.2fx | %-26s | %-4s |\n", what, dw, dc, dr * 1024 / 1e6,
            kw, kc, kr * 1024 / 1e6, kw / dw, kc / dc, tgt, met
        if (by == "func") printf "| %-34s | %20.1f B | %20.1f B | %-12s | %-26s | %-4s |\n", "  peak RSS a call, by func", dr * 1024 / ev, kr * 1024 / ev,
            sprintf("%.2fx", kr / dr), "<= DuckDB (moonshot)", (dr <= kr ? "yes" : "NO")
    }
}'
echo
awk -v rows="$cpu_rows" -v phases="$phases" 'BEGIN {
    n = split(rows, r, ";")
    for (i = 1; i <= n; i++) { split(r[i], f, " "); ns[f[1]] = (f[3] == "" ? "" : f[3] * 1e9 / f[2]) }
    printf "| %-44s | %12s | %-40s | %-4s |\n", "CPU a call (user + system, all cores)", "ns/event", "target", "met"
    print "|----------------------------------------------|-------------:|------------------------------------------|------|"
    split("default:dfnav parse, default era, 8 plain files;newest:dfnav parse, newest era, 8 files;newest64:dfnav parse, newest era, 64 files;v2:dfnav parse, 2.x with counters, 8 files", a, ";")
    for (i = 1; i <= 4; i++) { split(a[i], kv, ":"); if (ns[kv[1]] != "")
        printf "| %-44s | %12.0f | %-40s | %-4s |\n", kv[2], ns[kv[1]], (kv[1] == "v2" ? "" : "<= 350"), (kv[1] == "v2" ? "" : (ns[kv[1]] <= 350 ? "yes" : "NO")) }
    split("cat:cat, default era (read limit);catnewest:cat, newest era;wc:wc -l, default era (a plain line count);zcat:zcat, gzip set (inflate limit, zlib);igzip:igzip -dc, gzip set (inflate limit, ISA-L)", b, ";")
    for (i = 1; i <= 5; i++) { split(b[i], kv, ":"); if (ns[kv[1]] != "") printf "| %-44s | %12.0f | %-40s | %-4s |\n", kv[2], ns[kv[1]], "", "" }
    if (ns["gzz"] != "" && ns["zcat"] != "") printf "| %-44s | %12.0f | %-40s | %-4s |\n", "dfnav, gzip set, zlib", ns["gzz"], sprintf("%.2fx zcat + the plain parse", ns["gzz"] / (ns["zcat"] + ns["default"])), ""
    if (ns["gzi"] != "" && ns["igzip"] != "") printf "| %-44s | %12.0f | %-40s | %-4s |\n", "dfnav, gzip set, ISA-L", ns["gzi"], sprintf("%.2fx igzip + the plain parse", ns["gzi"] / (ns["igzip"] + ns["default"])), ""
    if (phases != "") printf "| %-44s | %-57s |\n", "the newest-era parse by phase (perf)", phases
}'
if [ -n "${blat95:-}" ]; then
    echo
    printf '| %-44s | %10s | %-40s | %-4s |\n' "explorer on $BIG_EVENTS events (replay, once)" "ms" "target" "met"
    echo "|----------------------------------------------|-----------:|------------------------------------------|------|"
    awk -v p50="$blat50" -v p95="$blat95" -v mx="$blatmax" -v n="$bnkeys" -v worst="$bworst" 'BEGIN {
        printf "| %-44s | %10.1f | %-40s | %-4s |\n", sprintf("%d actions, p95", n), p95, sprintf("< 100 ms (p50 %.1f ms)", p50), (p95 < 100 ? "yes" : "NO")
        printf "| %-44s | %10.1f | %-40s | %-4s |\n", "the slowest action (" worst ")", mx, "< 250 ms", (mx < 250 ? "yes" : "NO") }'
fi
} > "$RES/table.txt"
cat "$RES/table.txt"
[ -n "${BENCH_OUT:-}" ] && cp "$RES/table.txt" "$BENCH_OUT"
exit 0
