#!/bin/sh
# Memory past what the checks promise (issue 23): per-row state that grows
# with what the row holds, and running out of memory mid-query ends with a
# message and status 4, never an abort. Under ulimit -v, so skipped where
# the build cannot run under it (sanitizers reserve terabytes).
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
# (the probe without the sanitizers' log files: a build that cannot map
# its shadow memory is not a finding)
if ! (ulimit -v 2000000 && exec env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u TSAN_OPTIONS "$DFNAV" --version >/dev/null 2>&1); then
    echo "SKIP: $DFNAV cannot start under ulimit -v (sanitizers?): memory limits not checked"
    exit 77
fi

# 65,536 processes, one read each: every row's per-process sums used to
# be arrays of all processes (659 MB, SIGABRT under 2 GB)
awk 'BEGIN { print "["; for (i = 1; i <= 65536; i++)
    printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":10,\"ph\":\"X\",\"args\":{\"fname\":\"/d/f%d\",\"ret\":4096}}\n", i, i, 1000 + i, i % 100 }' \
    >"$T/procs.pfw"
(ulimit -v 2000000 && exec "$DFNAV" report -q -j 2 --by pid --sort key -m count,max_proc_s,procs,max_proc_bytes --format csv \
    "$T/procs.pfw" >"$T/pid.csv" 2>"$T/err")
check "65,536 processes by pid under 2 GB: status" 0 "$?"
check "65,536 rows" 65537 "$(wc -l <"$T/pid.csv" | tr -d ' ')"
check "each with its one process" 1 "$(tr -d '\r' <"$T/pid.csv" | awk -F, 'NR > 1 { print $4 }' | sort -u | paste -sd' ')"
(ulimit -v 2000000 && exec "$DFNAV" report -q -j 2 --by layer --sort key -m count,procs,max_proc_bytes --format csv \
    "$T/procs.pfw" >"$T/layer.csv" 2>"$T/err")
check "by layer: every process once" "posix,65536,65536,4096" "$(tr -d '\r' <"$T/layer.csv" | awk 'NR == 2')"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$T/rss" "$DFNAV" report -q -j 2 --by pid -m max_proc_s,procs "$T/procs.pfw" >/dev/null 2>&1
    rss=$(tail -1 "$T/rss")
    if [ "$rss" -lt 204800 ]; then ok; else fail "65,536 processes by pid: peak RSS $rss KiB (over 200 MiB)"; fi
else
    echo "note: /usr/bin/time not found: the peak RSS of 65,536 processes is not measured"
fi

# rows past the dense histograms' budget (about 1,500 a part) keep theirs
# in a sparse map: their percentiles are those of the row queried alone
# (one row, dense)
awk 'BEGIN { for (f = 1; f <= 3000; f++) for (k = 1; k <= 7; k++)
    printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d,\"ph\":\"X\",\"args\":{\"fname\":\"/f%05d\",\"ret\":1}}\n",
        1000 + f * 10 + k, (f * 37 + k * k * 1013) % 90000 + 1, f }' >"$T/hist.pfw"
"$DFNAV" report -q --no-cache -j 1 --by file -m count,p50_us,p90_us,p99_us --sort key -f csv "$T/hist.pfw" >"$T/hist.csv"
for f in 00001 01600 02999 03000; do
    "$DFNAV" report -q --no-cache --where "file=/f$f" --by file -m count,p50_us,p90_us,p99_us --sort key -f csv "$T/hist.pfw" |
        tail -1 >"$T/one.csv"
    grep -F "/f$f," "$T/hist.csv" >"$T/many.csv"
    same_files "percentiles of /f$f among 3,000 rows and alone" "$T/one.csv" "$T/many.csv"
done

# a grouping of 200,000 rows (distinct files): each of the first 4,096 rows
# of a part took a bitset of every file and a 10.5 KiB histogram, and the
# parts' rows stayed while they were merged (1.2 KB a row, then 930 B);
# with the dense arrays on a budget, about 760 B a row more than by func;
# now the later part's rows and maps go as they merge, the accumulators as
# the result fills, and the sort moves the rows in place (610 B); a sparse
# row's first bucket, process and file stay out of the maps, and sizes and
# analysis sums out of the accumulator unless asked for (415 B); freeing
# rows already given back no longer takes their pages again, and those
# first entries are finished with their row (269 B); calls cut by the
# window and aggregated records' counts move out of the accumulator too,
# and large arrays stay mappings that grow in place (dfn_malloc_policy:
# about 175 B, of which the dense histograms' fixed budget is 86 B); on
# a kernel without the shared zero page, reading the rows given back took
# their pages again (part_free's walk: 260-320 B a row), so they are not
# rows_by_file N MAX: N distinct files, one read each, grouped by file:
# the peak over that of grouping them by function, at most MAX bytes a row
rows_by_file() {
    awk -v n="$1" 'BEGIN { print "["; for (i = 1; i <= n; i++)
        printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":10,\"ph\":\"X\",\"args\":{\"fname\":\"/data/run/f%07d.h5\",\"ret\":4096}}\n", i % 8 + 1, 1000 + i, i }' \
        >"$T/files.pfw"
    # both parse (no cache): the first would save an image and the second
    # map it; one thread, as two put the by-func baseline anywhere between
    # 46 and 55 MB (which part holds what when) and the figure with it
    /usr/bin/time -f '%M' -o "$T/rss1" "$DFNAV" report --no-cache -q -j 1 --by func "$T/files.pfw" >/dev/null 2>&1
    /usr/bin/time -f '%M' -o "$T/rss2" "$DFNAV" report --no-cache -q -j 1 --by file --format csv "$T/files.pfw" >"$T/files.csv" 2>/dev/null
    check "$1 rows by file" "$(($1 + 1))" "$(wc -l <"$T/files.csv" | tr -d ' ')"
    last=$(printf '/data/run/f%07d.h5' "$1")
    check "the last of $1 rows" "$last,1,0.000010" "$(tr -d '\r' <"$T/files.csv" | grep -F "$last," | cut -d, -f1-3)"
    per_row=$(( ($(tail -1 "$T/rss2") - $(tail -1 "$T/rss1")) * 1024 / $1 ))
    if [ "$per_row" -le "$2" ]; then ok; else fail "$1 rows by file: $per_row bytes a row ($2 at most)"; fi
    rm -f "$T/files.pfw" "$T/files.csv"
}
if [ -x /usr/bin/time ]; then
    rows_by_file 200000 240
    # and at a million rows, where the issue's 200 bytes a row holds (143)
    rows_by_file 1000000 200
fi

# many small files: a one-line file's columns took a mapping of their own,
# at least a page (117 MB for 20,000 files), then the heap (43 MB, 1.9 KB a
# file over one file's peak); a file's and a chunk's room for damaged
# lines and kinds set aside is now made only when there are some (1.3-1.5
# KB); whole tiny files now go into packs, not a chunk each (0.95-1.1 KB);
# a file's rarer figures behind a pointer, its path kept once, the parser
# threads' name caches bounded and no lane key table (440-475 B); a
# lane's names beside it, the loader's and the store's figures of a file
# smaller (a file's compression a flag, its error and long lines behind a
# pointer): 430-440 B, where CI had measured 518; the string tables'
# index three quarters full rather than half: 370-380 B
mkdir "$T/many"
(cd "$T/many" && awk 'BEGIN { for (i = 1; i <= 20000; i++) { f = sprintf("t%05d.pfw", i)
    printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":10,\"ph\":\"X\",\"args\":{\"fname\":\"/d/f%d\",\"ret\":4096}}\n", i, 1000 + i, i % 10 > f
    close(f) } }')
# peak_kib COMMAND...: the median of five runs' peak RSS in KiB (output
# to $T/peak.out). With one thread: two threads' timing moves the peak
# by up to 80 B a file on a loaded machine (440-520 B), one thread's
# stays within 20 B (the one-file run alone moves by 400 KiB, 20 B a
# file: three runs once gave 513), and the limit below is the issue's 0.5 KB
peak_kib() {
    for k in 1 2 3 4 5; do /usr/bin/time -f '%M' -o "$T/rss.$k" "$@" >"$T/peak.out" 2>/dev/null; tail -1 "$T/rss.$k"; done |
        sort -n | sed -n 3p
}
if [ -x /usr/bin/time ]; then
    one=$(peak_kib "$DFNAV" report -q -j 1 --no-cache --by func "$T/many/t00001.pfw")
    many=$(peak_kib "$DFNAV" report -q -j 1 --no-cache --by func --format csv "$T/many")
    check "20,000 one-line files: every call" 20000 "$(tr -d '\r' <"$T/peak.out" | awk -F, 'NR == 2 { print $2 }')"
    per_file=$(( (many - one) * 1024 / 20000 ))
    if [ "$per_file" -le 512 ]; then ok; else fail "20,000 one-line files: $per_file bytes a file (512 at most)"; fi
    # info's table of them (it kept every row's figures as text: 1.4 KB a file)
    many=$(peak_kib "$DFNAV" info -q -j 1 --no-cache --format csv "$T/many")
    check "20,000 one-line files: info's rows" 20002 "$(wc -l <"$T/peak.out" | tr -d ' ')"
    per_file=$(( (many - one) * 1024 / 20000 ))
    if [ "$per_file" -le 512 ]; then ok; else fail "20,000 one-line files, info: $per_file bytes a file (512 at most)"; fi
fi
rm -rf "$T/many"

# distinct strings: 20,000 calls with 64 string values each, none alike,
# take about 72 MB to load (150 before the parser caches were bounded, 94
# with the string index at most half full); the estimate once counted 40
# bytes a call (21 MB). Refused under 64M, less than they take.
awk 'BEGIN { print "["; for (i = 1; i <= 20000; i++) { a = ""
    for (j = 0; j < 64; j++) a = a sprintf("%s\"k%d\":\"v%d_%d_value\"", j ? "," : "", j, i, j)
    printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10,\"ph\":\"X\",\"args\":{%s}}\n", 1000 + i, a } }' \
    >"$T/distinct.pfw"
DFNAV_MEM_AVAILABLE=64M "$DFNAV" report -q "$T/distinct.pfw" >/dev/null 2>"$T/err"
check "distinct strings are estimated: refused under 64M" 4 "$?"
need=$(sed -n 's/.*needs about \([0-9.]*\) MiB.*/\1/p' "$T/err")
if [ -n "$need" ] && [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$T/rss" "$DFNAV" report --no-cache -q "$T/distinct.pfw" >/dev/null 2>&1
    rss=$(tail -1 "$T/rss")
    # the estimate covers the peak, and not by more than half again
    awk -v n="$need" -v r="$rss" 'BEGIN { exit !(n * 1024 >= r && n * 1024 <= r * 1.5) }' && ok ||
        fail "estimate $need MiB against a peak of $rss KiB"
else
    fail "the refusal gives the figure: $(cat "$T/err")"
fi
rm -f "$T/distinct.pfw"

# many mid-sized files under ulimit -v: each file's chunks once reserved
# 8 MiB of address space for the whole parse (src/chunkmem.c), which
# counts against the limit, so 300 files of 600 KB that load in 260 MB
# were refused at 1.5 GB; under a limit the chunks are mapped alone
"$DFNAV_GEN" --events 1800000 --ranks 300 "$T/mid" >/dev/null
(ulimit -v 500000 && exec "$DFNAV" report -q --no-cache -j 2 --by pid -m count -f csv "$T/mid" >"$T/mid.csv" 2>"$T/err")
check "300 files of 600 KB under 500 MB: status ($(head -c 200 "$T/err"))" 0 "$?"
"$DFNAV" report -q --no-cache -j 2 --by pid -m count -f csv "$T/mid" >"$T/mid-free.csv"
same_files "300 files: the same rows with and without the limit" "$T/mid.csv" "$T/mid-free.csv"
rm -rf "$T/mid"

# memory that runs out during the query: a message and status 4
(ulimit -v 90000 && exec "$DFNAV" report -q -j 2 --by pid,file -m all "$T/procs.pfw" >/dev/null 2>"$T/oom")
check "out of memory mid-query: status" 4 "$?"
grep -q "^dfnav: out of memory (.*see Memory in the README$" "$T/oom" && ok ||
    fail "out of memory says so: $(head -c 300 "$T/oom")"
finish
