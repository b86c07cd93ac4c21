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
set -uo pipefail

DFNAV=${DFNAV:-./dfnav}
DFNAV_GEN=${DFNAV_GEN:-./dfnav-gen}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BENCH_DIR=${BENCH_DIR:-bench}
RUNS=${BENCH_RUNS:-3}
PEER_RUNS=${BENCH_PEER_RUNS:-$RUNS}
EVENTS=${BENCH_EVENTS:-7400000}
PEER=${BENCH_PEER:-$SRCDIR/../shared/peers/dask_baseline.py}
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
PLAIN=("$DATA"/plain/*.pfw)
GZ=("$DATA"/gz/*.pfw.gz)
SINGLE=$DATA/single/all.pfw
V2=("$DATA"/v2/*.pfw)
BASE=${BENCH_BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || die "BENCH_BASE=$BASE is not a program"
bytes_plain=$(stat -c %s "${PLAIN[@]}" | awk '{ s += $1 } END { print s }')
bytes_gz=$(stat -c %s "${GZ[@]}" | awk '{ s += $1 } END { print s }')

# ---- a zlib build beside an ISA-L one, so that both inflaters are measured ----
backend=$("$DFNAV" --version | sed -n 's/.*gzip: \([^)]*\)).*/\1/p')
DFNAV_ZLIB=
if [ "$backend" = "isa-l" ]; then
    zb=$BENCH_DIR/zlib-build
    mkdir -p "$zb"
    if [ ! -f "$zb/Makefile" ]; then
        (cd "$zb" && "$SRCDIR/configure" --without-isal >/dev/null) || die "configure --without-isal failed"
    fi
    (cd "$zb" && make -s dfnav >/dev/null 2>&1) || die "the zlib build failed (see $zb)"
    DFNAV_ZLIB=$zb/dfnav
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

# time NAME CMD...: wall seconds and peak RSS (KiB) appended to RES/NAME
timed() {
    local name=$1; shift
    /usr/bin/time -f '%e %M' -o "$RES/$name.one" "$@" >/dev/null 2>"$RES/$name.err" ||
        die "$name failed: $(tail -3 "$RES/$name.err")"
    cat "$RES/$name.one" >> "$RES/$name"
}

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
    # the time level's header: from the cache no snapshot comes first
    "$PY" "$SRCDIR/tests/bench_pty.py" 80x24 120 "range▲" -- "$DFNAV" --cache "$BCACHE" "${PLAIN[@]}" \
        > "$RES/pty_cache.one" 2>/dev/null || die "the explorer from the cache failed"
    cat "$RES/pty_cache.one" >> "$RES/first_cached"
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
    timed report_v2 "$DFNAV" report --by func -q --no-cache "${V2[@]}"
    timed cat_single cat "$SINGLE"
    timed report_single "$DFNAV" report --by func -q --no-cache "$SINGLE"
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
first_cached=$(med first_cached); cache_bytes=$(med cache_bytes)
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
    -v tsave="$t_save" -v tpair="$t_pair" -v treopen="$t_reopen" -v rssreopen="$rss_reopen" -v tpart="$t_part" -v fcached="$first_cached" \
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
    printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "peak RSS, 8 plain files", rss * 1024 / 1e6, sprintf("%.1f B/event (<= 48); 150 M events: %.1f GiB", bpe, bpe * 150e6 / 2^30), ok(bpe <= 48 && bpe * 150e6 <= 24 * 2^30)
    if (rssbase != "") printf "| %-44s | %7.0f MB | %-40s | %-4s |\n", "peak RSS, 8 plain files, BENCH_BASE", rssbase * 1024 / 1e6, sprintf("%.1f B/event; this one %.3fx (<= 1.05x)", rssbase * 1024 / ev, rss / rssbase), ok(rss / rssbase <= 1.05)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "explorer: first screen (pty, 80x24)", first, "< 150 ms", ok(first < 150)
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", "explorer: first rows of a snapshot", firstrows, "", ""
    printf "| %-44s | %7.1f ms | %-40s | %-4s |\n", sprintf("explorer: %d actions (replay), p95", nk), l95, sprintf("< 100 ms (p50 %.1f, max %.1f ms)", l50, lmax), ok(l95 < 100)
}'
[ -f "$RES/peer_events" ] && echo "Dask peer counted $(cat "$RES/peer_events") events."
} > "$RES/table.txt"
cat "$RES/table.txt"
[ -n "${BENCH_OUT:-}" ] && cp "$RES/table.txt" "$BENCH_OUT"
exit 0
