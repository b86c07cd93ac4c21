#!/bin/sh
# The command line as a contract: exit statuses, damage reports naming file
# and line, formats (CSV header and quoting, valid JSON), closed pipes, full
# disks, sets too big for the memory, standard input, and names with
# control bytes never reaching a terminal.
. "$SRCDIR/tests/shell/lib.sh"

"$DFNAV_GEN" --seed 5 --events 3000 --ranks 2 "$T/ok" >/dev/null

check_status "help" 0 "$DFNAV" --help
grep -q "dfnav report" "$T/out" && ok || fail "--help shows report"
check_status "version" 0 "$DFNAV" --version
grep -q "gzip: " "$T/out" && ok || fail "--version names the gzip backend"
check_status "no path" 2 "$DFNAV" report
check_status "bad option" 2 "$DFNAV" report --bogus "$T/ok"
check_status "bad format" 2 "$DFNAV" report --format xml "$T/ok"
check_status "bad top" 2 "$DFNAV" report --top -3 "$T/ok"
check_status "bad dimension" 2 "$DFNAV" report --by colour "$T/ok"
grep -q "unknown dimension 'colour'" "$T/err" && ok || fail "bad dimension is named"
check_status "bad filter" 2 "$DFNAV" report --where 'cat=POSIX dur>soon' "$T/ok"
grep -q '\^\^\^\^' "$T/err" && ok || fail "bad filter gets a caret under the term: $(cat "$T/err")"
check_status "bad sort" 2 "$DFNAV" report --sort speed "$T/ok"
check_status "bad layers" 2 "$DFNAV" report --layers /nonexistent.layers "$T/ok"
check_status "clean set" 0 "$DFNAV" report "$T/ok"
check_status "missing path" 3 "$DFNAV" report /nonexistent/trace.pfw
grep -q "/nonexistent/trace.pfw" "$T/err" && ok || fail "missing path is named"
check_status "one missing among good" 1 "$DFNAV" report "$T/ok" /nonexistent/trace.pfw
check_status "empty directory" 3 "$DFNAV" info "$T/ok/.."/nonexistent-dir

# damaged lines: counted, reported with file and line, the rest loads
{
    echo '['
    echo '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"ret":100}}'
    echo '{"name":"read","cat":"POSIX",'
    printf '\001\002garbage\n'
    echo '{"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X","args":{"ret":7}}'
    echo ']'
} >"$T/bad.pfw"
check_status "damaged file" 1 "$DFNAV" report --format csv "$T/bad.pfw"
grep -q "bad.pfw:3: malformed line" "$T/err" && ok || fail "line 3 reported: $(cat "$T/err")"
grep -q "bad.pfw:4: malformed line" "$T/err" && ok || fail "line 4 reported"
check "damaged file still loads the rest" "2" "$(awk -F, 'NR == 2 { print $1 }' "$T/out")"
check_status "quiet hides the report" 1 "$DFNAV" report -q "$T/bad.pfw"
check "quiet stderr" "" "$(cat "$T/err")"
"$DFNAV" info --format csv "$T/bad.pfw" 2>/dev/null >"$T/info.csv"
check "info header" "path,format,compression,size_bytes,lines,events,metadata,malformed,start_us,end_us,counters,other,agg_records,agg_calls,time_unit" "$(head -1 "$T/info.csv" | tr -d '\r')"
check "info malformed count" "2" "$(awk -F, 'NR == 2 { print $8 }' "$T/info.csv")"

# info --list: the names a set has, one a line and nothing else (the
# shell's completion reads them); a second run comes from the cache
args="cmd_hash count date epoch exec_hash fd flags image_idx level mode num_events offset p_idx ppid ret size step version whence"
check "info --list args" "$args" "$("$DFNAV" info -q --list args "$T/ok" | tr '\n' ' ' | sed 's/ $//')"
check "info --list args, cached" "$args" "$("$DFNAV" info -q --list args "$T/ok" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check "info --list layers" "app training compute fetch_data data_loader data_loader_fork reader reader_posix reader_posix_lustre reader_posix_ssd checkpoint checkpoint_posix checkpoint_posix_lustre checkpoint_posix_ssd other_posix other" \
    "$("$DFNAV" info -q --list layers "$T/ok" | tr '\n' ' ' | sed 's/ $//')"
printf 'reads : func=read\nwrites : func=write\n' >"$T/rw.layers"
check "info --list layers of --layers FILE" "reads writes other" "$("$DFNAV" info -q --list layers -l "$T/rw.layers" "$T/ok" | tr '\n' ' ' | sed 's/ $//')"
check "info --list args of a hand-made file" "ret" "$("$DFNAV" info -q --list args "$T/bad.pfw")"
printf '{"name":"x","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"a\\u001bb":1,"z":2}}\n' >"$T/ctl.pfw"
check "info --list args: control bytes made safe" 'a\x1bb z' "$("$DFNAV" info -q --list args "$T/ctl.pfw" | tr '\n' ' ' | sed 's/ $//')"
check_status "info --list of something else" 2 "$DFNAV" info --list files "$T/ok"
check_status "--list without info" 2 "$DFNAV" report --list args "$T/ok"
check_status "info --list of nothing readable" 3 "$DFNAV" info --list args /nonexistent/trace.pfw
check "info --list of nothing readable prints no name" "" "$(cat "$T/out")"

# CSV: header of dimension then metric names, CRLF rows, RFC 4180 quoting
"$DFNAV" report -q --by func --format csv "$T/ok" >"$T/r.csv"
check "csv header" "func,count,time_s,busy_s,max_proc_s,bytes,bw_mibps,ops_per_s,mean_us,p50_us,p90_us,p99_us,max_us,files,procs,pct_time" "$(head -1 "$T/r.csv" | tr -d '\r')"
check "csv rows end in CRLF" "$(wc -l <"$T/r.csv" | tr -d ' ')" "$(grep -c "$(printf '\r')\$" "$T/r.csv")"
printf '{"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"fname":"/a,b \\"q\\"\\u001b[31mred"}}\n' >"$T/esc.pfw"
"$DFNAV" report -q --by file --format csv "$T/esc.pfw" >"$T/esc.csv"
check "csv quotes commas and quotes" '"/a,b ""q""' "$(sed -n 2p "$T/esc.csv" | cut -c1-11)"
"$DFNAV" report -q --by file "$T/esc.pfw" >"$T/esc.txt"
if grep -q "$(printf '\033')" "$T/esc.txt"; then fail "an escape byte from a trace reached the table"; else ok; fi
grep -q '\\x1b\[31mred' "$T/esc.txt" && ok || fail "escape shown as \\x1b: $(cat "$T/esc.txt")"
# bidirectional and zero-width characters are shown as \uXXXX: "/d/<RLO>vsc.exe"
# must not read "/d/exe.csv" (issue 23); CSV keeps the raw value
printf '{"name":"re\\u200bad","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X","args":{"fname":"/d/\\u202evsc.exe"}}\n' >"$T/bidi.pfw"
check "bidi and zero-width shown" "/d/\\u202evsc.exe re\\u200bad" \
    "$("$DFNAV" report -q --by file,func -m count "$T/bidi.pfw" | awk 'NR == 2 { print $1, $2 }')"
check "bidi kept raw in CSV" "/d/$(printf '\342\200\256')vsc.exe" \
    "$("$DFNAV" report -q --by file -m count --format csv "$T/bidi.pfw" | tr -d '\r' | awk -F, 'NR == 2 { print $1 }')"
# columns count display width, not bytes: CJK names take two columns a
# character, combining accents none (issue 23)
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"fname":"/d/数据集.h5","ret":1}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":2,"dur":5,"ph":"X","args":{"fname":"/d/e\u0301t\u00e9.bin","ret":1}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":3,"dur":5,"ph":"X","args":{"fname":"/d/plain.bin","ret":1}}' >"$T/cjk.pfw"
check "wide and combining characters align" "file          count|$(printf '/d/e\314\201t\303\251.bin')        1|/d/plain.bin      1|/d/数据集.h5      1" \
    "$("$DFNAV" report -q --by file -m count "$T/cjk.pfw" | sed 's/  *[^ ]*$//' | paste -sd'|')"
# ... and a file name in a damage report on stderr
"$DFNAV" report -q --format csv "$T/ok" "$T/no$(printf '\033')[31msuch" >/dev/null 2>"$T/esc.err"
if grep -q "$(printf '\033')" "$T/esc.err"; then fail "an escape byte of a path reached stderr"; else ok; fi
grep -q 'no\\x1b\[31msuch' "$T/esc.err" && ok || fail "path escape shown as \\x1b: $(cat "$T/esc.err")"

# JSON parses and carries the same numbers as CSV
"$DFNAV" report -q --by func --format json "$T/ok" >"$T/r.json"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d and "func" in d[0] and "p99_us" in d[0]' "$T/r.json" && ok || fail "json does not parse"
fi
check "json rows" "$(($(wc -l <"$T/r.csv") - 1))" "$(grep -c '"func":' "$T/r.json")"

# info JSON keeps a UTF-8 file name as text
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}\n' >"$T/été.pfw"
if command -v python3 >/dev/null; then
    "$DFNAV" info -q --format json "$T/été.pfw" >"$T/i.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert d[0]["path"].endswith("/été.pfw"), d[0]["path"]' "$T/i.json" && ok ||
        fail "info --format json mangles a UTF-8 path: $(head -c 200 "$T/i.json")"
fi

# closed pipe: quiet, and no error status from the write
{ "$DFNAV" report -q --by event --format csv "$T/ok" 2>"$T/err"; echo $? >"$T/st"; } | head -1 >/dev/null
check "closed pipe is quiet" "" "$(cat "$T/err")"
check "closed pipe exits 0" 0 "$(cat "$T/st")"

# a full disk and a file size limit: a message saying why and status 2,
# never a silent death (SIGXFSZ) with a cut file behind
if [ -w /dev/full ]; then
    "$DFNAV" report -q --by event --format csv "$T/ok" >/dev/full 2>"$T/err"
    check "full disk: exit status" 2 "$?"
    check "full disk: message" "dfnav: cannot write the output: No space left on device" "$(cat "$T/err")"
fi
(ulimit -f 8 && exec "$DFNAV" report -q --by event --format csv "$T/ok" >"$T/limited.csv" 2>"$T/err")
check "file size limit: exit status" 2 "$?"
check "file size limit: message" "dfnav: cannot write the output: File too large" "$(cat "$T/err")"

# a set estimated not to fit in memory is refused before it loads, with
# the figures; --force loads it; standard input has no size to go by
check_status "too big for the memory available" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" report "$T/ok"
grep -qE '^dfnav: this set needs about [0-9]+ MiB \(2 files, ~[0-9.]+ k events estimated\), only 1 MiB available \(DFNAV_MEM_AVAILABLE\)$' "$T/err" &&
    ok || fail "the estimate is said: $(cat "$T/err")"
grep -q "^dfnav: --force loads it anyway" "$T/err" && ok || fail "the way out is said: $(cat "$T/err")"
grep -q "^dfnav: under MPI too: the files of one traced process alone need more than this memory$" "$T/err" && ok ||
    fail "no number of nodes holds it: $(cat "$T/err")"
check "nothing on standard output when refused" "" "$(cat "$T/out")"
check "report's tables: no word of the explorer's node" 0 "$(grep -c "explorer" "$T/err")"
# the estimate of the events within 5% of what loads
est=$(sed -n 's/.*~\([0-9.]*\) k events.*/\1/p' "$T/err")
real=$("$DFNAV" info -q --format csv "$T/ok" | tr -d '\r' | awk -F, '$1 == "total" { print $6 }')
awk -v e="$est" -v r="$real" 'BEGIN { d = e * 1000 / r; exit !(d > 0.95 && d < 1.05) }' && ok ||
    fail "estimated ~$est k events, $real loaded"
check_status "--force loads it" 0 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" report --force "$T/ok"
check_status "enough memory" 0 env DFNAV_MEM_AVAILABLE=1G "$DFNAV" report "$T/ok"
# compute that matched nothing: undefined cells and a note, never "100% exposed"
"$DFNAV" report --by func -m compute_s,io_busy_s,exposed_s,overlap_pct --compute cat=nothing --format csv "$T/ok" \
    >"$T/cmp.csv" 2>"$T/cmp.err"
check "no compute: empty compute, exposed and overlap cells" "" \
    "$(tr -d '\r' <"$T/cmp.csv" | awk -F, 'NR > 1 && ($3 != "" || $5 != "" || $6 != "" || $4 == "")')"
check "no compute: said on stderr" 1 "$(grep -c "^dfnav: compute (cat=nothing) matched no event: .*--compute EXPR" "$T/cmp.err")"
# --io: app-level I/O set against compute; a bad one is refused by name
check "--io: only the I/O it names" "0.000000" \
    "$("$DFNAV" report -q -m io_busy_s --io 'func=no_such_call' --format csv "$T/ok" | tr -d '\r' | awk -F, 'NR == 2 { print $2 }')"
check_status "--io that does not parse" 2 "$DFNAV" report -m io_busy_s --io 'nokey=1' "$T/ok"
# ... for any thread count: a set large enough to be scanned in parts
"$DFNAV_GEN" --seed 3 --events 600000 --ranks 4 "$T/io600k" >/dev/null
for j in 1 3; do
    "$DFNAV" report -q -j $j --by pid -m io_busy_s,exposed_s --io 'dur>1000' --format csv "$T/io600k" >"$T/io-j$j.csv"
done
same_files "--io: -j 3 differs from -j 1" "$T/io-j1.csv" "$T/io-j3.csv"
grep -q "^dfnav: io: unknown key 'nokey'" "$T/err" && ok || fail "--io error: $(cat "$T/err")"
# the filter's size grammar, and a clear refusal of anything else
check_status "an unreadable DFNAV_MEM_AVAILABLE is refused" 2 env DFNAV_MEM_AVAILABLE=lots "$DFNAV" report "$T/ok"
check "it says what it wants" "dfnav: DFNAV_MEM_AVAILABLE='lots' is not a size such as 512M, 2g or 1.5 GiB" "$(cat "$T/err")"
check_status "DFNAV_MEM_AVAILABLE=1k (any case)" 4 env DFNAV_MEM_AVAILABLE=1k "$DFNAV" report "$T/ok"
check_status "DFNAV_MEM_AVAILABLE='1 g' (a blank before the unit)" 0 env "DFNAV_MEM_AVAILABLE=1 g" "$DFNAV" report "$T/ok"
check_status "info refuses too" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" info "$T/ok"
check_status "runs side by side add up" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" report --compare "a=$T/ok" "b=$T/ok"
grep -q "^dfnav: these runs need about [0-9]* MiB (4 files," "$T/err" && ok || fail "runs: $(cat "$T/err")"
check_status "the replay refuses too" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" --replay q "$T/ok"
# ... and names the node that would hold it for the explorer, and the way
# there; as dfnav serve does for its clients' explorers
need=$(sed -n 's/^dfnav: this set needs about \([0-9.]* [MG]iB\) .*/\1/p' "$T/err")
grep -qF "dfnav: the explorer holds a set in one process: on a node with about $need available, start dfnav serve $T/ok (srun -N 1, flux run -N 1; under mpirun its ranks share the parse) and run dfnav --connect HOST:PORT here (dfnav(1), SERVING)" "$T/err" &&
    ok || fail "the explorer's node ($need): $(cat "$T/err")"
grep -q "^dfnav: under MPI too: the files of one traced process alone need more than this memory$" "$T/err" && ok ||
    fail "the explorer: report under MPI is said too: $(cat "$T/err")"
# ... a path's control bytes escaped (a newline would end the line); runs
# compared, as the serve and report commands take them
mkdir -p "$T/nl
dir"
cp "$T/ok/"*.pfw "$T/nl
dir/"
check_status "the replay refuses a path with a newline" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" --replay q "$T/nl
dir"
grep -qF "start dfnav serve $T/nl\x0adir (srun -N 1" "$T/err" && ok || fail "a newline in the advice's path: $(cat "$T/err")"
check "a newline in the advice's path: each line said whole" 4 "$(grep -c '^dfnav: ' "$T/err")"
rm -rf "$T/nl
dir"
check_status "the replay refuses runs compared" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" --compare --replay q "a=$T/ok" "b=$T/ok"
grep -qF "start dfnav serve --compare a=$T/ok ... (srun -N 1" "$T/err" && ok || fail "runs compared: $(cat "$T/err")"
check_status "serve refuses too" 4 env DFNAV_MEM_AVAILABLE=1M "$DFNAV" serve --token-file "$T/advice-token" "$T/ok"
grep -qF "dfnav: dfnav serve holds a set in one process (rank 0 under MPI) and each client's explorer needs about $need: start it on a node with that much available" "$T/err" &&
    ok || fail "serve's node ($need): $(cat "$T/err")"
[ -e "$T/advice-token" ] && fail "serve refused but left its token file" || ok
# a real limit: under 20 MB of address space not even the fixed part fits
# (a sanitizer build cannot start there: its shadow memory is terabytes)
if (ulimit -v 20000 && exec "$DFNAV" --version >/dev/null 2>&1); then
    (ulimit -v 20000 && exec "$DFNAV" report -j 1 "$T/ok" >"$T/out" 2>"$T/err")
    check "ulimit -v: exit status" 4 "$?"
    grep -q "available (ulimit -v)$" "$T/err" && ok || fail "ulimit -v is named: $(cat "$T/err")"
else
    echo "SKIP: $DFNAV cannot start under ulimit -v 20000 (sanitizers?): the ulimit -v check is skipped"
fi
cat "$T"/ok/*.pfw | DFNAV_MEM_AVAILABLE=1M "$DFNAV" report -q - >/dev/null
check "standard input: nothing to estimate, it loads" 0 "$?"

# standard input and globs
cat "$T"/ok/*.pfw | "$DFNAV" report -q --format csv - >"$T/stdin.csv"
"$DFNAV" report -q --format csv "$T/ok" >"$T/dir.csv"
same_files "standard input gives other totals" "$T/dir.csv" "$T/stdin.csv"
"$DFNAV" report -q --format csv "$T/ok/*.pfw" >"$T/glob.csv"
same_files "a quoted glob gives other totals" "$T/dir.csv" "$T/glob.csv"

# the analysis options: bad values are usage errors that say what is allowed
check_status "bad metric" 2 "$DFNAV" report --metrics nope "$T/ok"
grep -q "unknown metric 'nope'" "$T/err" && ok || fail "bad metric message: $(cat "$T/err")"
check_status "bad compute" 2 "$DFNAV" report --metrics +overlap --compute 'dur>>1' "$T/ok"
grep -q "compute" "$T/err" && ok || fail "bad compute message: $(cat "$T/err")"
check_status "bad threshold" 2 "$DFNAV" report --diagnose --threshold nope=1 "$T/ok"
check_status "bad overlap-by" 2 "$DFNAV" report --overlap-by rack "$T/ok"
# metrics lists: +adds, -removes, groups; sorting by a metric shows it
check "metrics +overlap -count" "func,time_s,busy_s,max_proc_s,bytes,bw_mibps,ops_per_s,mean_us,p50_us,p90_us,p99_us,max_us,files,procs,pct_time,compute_s,io_busy_s,exposed_s,overlap_pct" \
    "$("$DFNAV" report -q --by func --metrics +overlap,-count --format csv "$T/ok" | head -1 | tr -d '\r')"
check "sort adds its metric" "func,count,self_s" "$("$DFNAV" report -q --by func --metrics count --sort self_s --format csv "$T/ok" | head -1 | tr -d '\r')"
check "--sizes adds twelve columns (after count and the sort's time_s)" 14 "$("$DFNAV" report -q --metrics count --sizes --format csv "$T/ok" | head -1 | tr ',' '\n' | wc -l | tr -d ' ')"
# diagnostics in every format
check_status "diagnose" 0 "$DFNAV" report --diagnose "$T/ok"
grep -q "^Diagnostics (thresholds: metadata>=50%" "$T/out" && ok || fail "diagnose table header: $(head -2 "$T/out")"
if command -v python3 >/dev/null; then
    "$DFNAV" report -q --diagnose --format json "$T/ok" |
        python3 -c 'import json,sys; d = json.load(sys.stdin); assert d and all("rule" in f and "filter" in f for f in d)' && ok ||
        fail "diagnose json does not parse"
fi
check "diagnose csv header" "scope,where,rule,value_pct,threshold,info,figures,filter,by" \
    "$("$DFNAV" report -q --diagnose --format csv "$T/ok" | head -1 | tr -d '\r')"

# overview
check_status "overview" 0 "$DFNAV" "$T/ok"
grep -q "^Layers (dlio-legacy)" "$T/out" && ok || fail "overview shows layers"
grep -q "^Busiest files" "$T/out" && ok || fail "overview shows files"
# processes are (host, pid), as procs counts them; it counted threads
check "overview's processes are procs' processes" \
    "$("$DFNAV" report -q -m procs --format csv "$SRCDIR/data/sample" | tr -d '\r' | awk -F, 'NR == 2 { print $2 }') processes (12 threads)" \
    "$("$DFNAV" overview -q "$SRCDIR/data/sample" | head -1 | sed 's/.* files, \(.*threads)\).*/\1/')"
# one of each is said in the singular ("1 processes (1 threads)" before)
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000,"dur":100,"ph":"X","args":{"fname":"/a","ret":4}}\n' >"$T/one.pfw"
check "overview's counts of one" "1 event in 1 file, 1 process (1 thread), 1 file accessed, span 0.000 s, 0 malformed lines" \
    "$("$DFNAV" overview -q "$T/one.pfw" | head -1)"
# call paths (review findings): compare keeps long paths apart, a window
# past the trace's end has no idle time beyond it, and definitions built
# before the call tree refuse path terms
L=$(printf 'L%.0s' $(seq 70))
{ printf '{"name":"%s","cat":"app","pid":1,"tid":1,"ts":1000,"dur":100,"ph":"X","args":{}}\n' "$L"
  printf '{"name":"x","cat":"app","pid":1,"tid":1,"ts":1010,"dur":10,"ph":"X","args":{}}\n'
  printf '{"name":"y","cat":"app","pid":1,"tid":1,"ts":1030,"dur":10,"ph":"X","args":{}}\n'; } >"$T/long.pfw"
check "compare: paths alike in their first 63 bytes stay apart" 3 \
    "$("$DFNAV" report -q --compare --by path --format csv "a=$T/long.pfw" "b=$T/long.pfw" | tail -n +2 | wc -l | tr -d ' ')"
check "idle_s of a window past the end" "0.000000" \
    "$("$DFNAV" report -q -m idle_s --where 'time>=40' --format csv "$SRCDIR/data/sample" | tr -d '\r' | awk -F, 'NR == 2 { print $1 }')"
"$DFNAV" report -q --compute 'path~x' -m compute_s "$T/long.pfw" >/dev/null 2>"$T/perr"
grep -q "path terms need the call tree, which a compute definition does not have" "$T/perr" && ok || fail "--compute path~: $(cat "$T/perr")"
"$DFNAV" report -q --io 'path~x' -m io_busy_s "$T/long.pfw" >/dev/null 2>"$T/perr"
grep -q "path terms need the call tree, which the I/O definition does not have" "$T/perr" && ok || fail "--io path~: $(cat "$T/perr")"
printf 'mine : path~x\n' >"$T/p.layers"
"$DFNAV" report -q --layers "$T/p.layers" --by layer "$T/long.pfw" >/dev/null 2>"$T/perr"
grep -q "path terms need the call tree, which layers do not have" "$T/perr" && ok || fail "a layer with path~: $(cat "$T/perr")"
finish
