#!/bin/sh
# DFTracer 2.x sets from the generator against its exact truth: a set with
# aggregated records, counters, nanosecond times (the end record says NS)
# and DLIO's AI-logging names reports the truth's calls, time and bytes by
# every dimension but layer (type and rank included), folded calls and the
# longest call per function, and the counter truth per series and host;
# info accounts for every line. A set whose end record leaves the unit out
# reads 1000 times too long unless --time-unit ns says so.
. "$SRCDIR/tests/shell/lib.sh"

# CSV "key,count,time_s,busy_s,max_proc_s,bytes" -> "key count time_us bytes"
rows() {
    awk -F, '{ sub(/\r$/, "") } NR > 1 { printf "%s %d %.0f %.0f\n", $1, $2, $3 * 1e6, $6 }' | sort
}
truth_rows() {   # truth_rows DIM TRUTHFILE
    awk -F, -v d="$1" '$1 == d && $3 > 0 { printf "%s %d %d %s\n", $2, $3, $4, $5 }' "$2" | sort
}
# column NAME of a CSV on stdin, keyed by its first column: "key value"
csv_col() {
    awk -F, -v want="$1" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                          { printf "%s %s\n", $1, $c[want] }' | sort
}
M=count,time_s,busy_s,max_proc_s,bytes

# compare_dims LABEL DIR TRUTH [OPTIONS]: every dimension equals the truth
compare_dims() {
    label=$1; dir=$2; truth=$3; shift 3
    for dim in func cat host file fs class pid type rank; do
        "$DFNAV" report -q "$@" -m $M --by "$dim" --format csv "$dir" | rows >"$T/got"
        truth_rows "$dim" "$truth" >"$T/want"
        same_files "$label --by $dim differs from the truth:" "$T/want" "$T/got"
    done
}

"$DFNAV_GEN" --era v2 --aggregate --counters --time-unit ns --ai-logging --events 20000 --ranks 4 \
    --ranks-per-node 2 --truth "$T/truth.csv" --counter-truth "$T/ctruth.csv" "$T/v2" >/dev/null 2>"$T/gen.err" ||
    fail "dfnav-gen v2: $(head -c 300 "$T/gen.err")"
compare_dims v2 "$T/v2" "$T/truth.csv"
check_status "v2 loads without damage" 0 "$DFNAV" info -q "$T/v2"

# DLIO's AI logging names pick the dlio preset on their own, and say so;
# its layers are the truth's (the compute layer, and so exposed I/O, with it)
"$DFNAV" report -m count,time_s,busy_s,max_proc_s,bytes --by layer --format csv "$T/v2" 2>"$T/layers.err" | rows >"$T/got"
# (among other notes: the ns set's times rounded to the µs)
check "the preset is named on stderr" "dfnav: layers: dlio (DLIO's AI logging names; --layers chooses)" \
    "$(grep '^dfnav: layers: ' "$T/layers.err")"
truth_rows layer "$T/truth.csv" >"$T/want"
same_files "v2 --by layer (dlio preset) differs from the truth:" "$T/want" "$T/got"
check "compute is a layer of the preset" "compute" \
    "$("$DFNAV" report -q --by layer --where 'layer=compute' --format csv "$T/v2" | awk -F, 'NR == 2 { print $1 }')"

# calls folded into aggregated records, per function
"$DFNAV" report -q -m agg_calls --by func --format csv "$T/v2" | csv_col agg_calls | awk '$2 > 0' >"$T/got"
awk -F, '$1 == "aggcalls" { print $2, $3 }' "$T/truth.csv" | sort >"$T/want"
same_files "agg_calls per func differs from the truth's aggcalls" "$T/want" "$T/got"
# the longest call of every function, folded ones included
"$DFNAV" report -q -m max_us --by func --format csv "$T/v2" | csv_col max_us >"$T/got"
awk -F, '$1 == "maxdur" { print $2, $3 }' "$T/truth.csv" | sort >"$T/want"
same_files "max_us per func differs from the truth's maxdur" "$T/want" "$T/got"

# counters: "series host samples mean min max" against the truth, the
# mean within 1e-6, the rest exact
counter_diff() {   # counter_diff WANT GOT: prints the rows that differ
    awk 'NR == FNR { w[$1 " " $2] = $0; next }
         { k = $1 " " $2; split(w[k], a, " "); seen[k] = 1
           d = a[4] - $4; if (d < 0) d = -d
           if (!(k in w) || a[3] != $3 || d > 1e-6 || a[5] + 0 != $5 + 0 || a[6] + 0 != $6 + 0) print "got " $0 " want " w[k] }
         END { for (k in w) if (!(k in seen)) print "missing " w[k] }' "$1" "$2"
}
"$DFNAV" report -q --counters --by host --format csv "$T/v2" |
    awk -F, '{ sub(/\r$/, "") } NR > 1 { print $1, $2, $3, $4, $5, $6 }' | sort >"$T/got"
awk -F, 'NR > 1 && $2 != "*" { print $1, $2, $3, $4, $5, $6 }' "$T/ctruth.csv" | sort >"$T/want"
check "v2 counters by host (rows)" "$(wc -l <"$T/want")" "$(wc -l <"$T/got")"
check "v2 counters by host differ from the counter truth" "" "$(counter_diff "$T/want" "$T/got" | head -5)"
"$DFNAV" report -q --counters --format csv "$T/v2" |
    awk -F, '{ sub(/\r$/, "") } NR > 1 { print $1, "*", $2, $3, $4, $5 }' | sort >"$T/got"
awk -F, 'NR > 1 && $2 == "*" { print $1, $2, $3, $4, $5, $6 }' "$T/ctruth.csv" | sort >"$T/want"
check "v2 counters over all hosts (rows)" "$(wc -l <"$T/want")" "$(wc -l <"$T/got")"
check "v2 counters over all hosts differ from the counter truth" "" "$(counter_diff "$T/want" "$T/got" | head -5)"
[ "$(wc -l <"$T/want")" -ge 9 ] || fail "counter truth has $(wc -l <"$T/want") series"

# The explorer's counter tracks: C shows the first three series (of 9)
# under the timeline, C again the next ones, and after the last page none;
# a drill keeps them, for the processes of the row
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$DFNAV" --replay 'C <Enter> C C C' "$T/v2" >"$T/tracks.txt" 2>/dev/null
golden v2-tracks.txt "$T/tracks.txt"
check "C: the first page of tracks" 1 "$(grep -c '^counter tracks 1-3 of 9, mean per time cell; C: next ones' "$T/tracks.txt")"
check "C C C C: off after the last page" 1 "$(grep -c '^counter tracks off' "$T/tracks.txt")"
check "tracks: one line per series with its scale" 3 \
    "$(awk '/^cpu\.(idle|iowait|system)_pct .* [0-9.]+\.\.[0-9.kMG]+$/ { print $1 }' "$T/tracks.txt" | sort -u | wc -l)"
LC_ALL=C LANG=C "$DFNAV" --replay 'C' "$T/v2" 2>/dev/null | grep '^cpu\.' >"$T/tracks-ascii.txt"
check "tracks in ASCII" "3 0" "$(wc -l <"$T/tracks-ascii.txt") $(LC_ALL=C grep -c "$(printf '[\200-\377]')" "$T/tracks-ascii.txt")"
check "C on a set without counters says so" 1 \
    "$("$DFNAV" --replay 'C' "$SRCDIR/data/sample" 2>/dev/null | grep -c '^no counter samples in this set')"

# the counter column (c): the mean of the first series while each row's
# calls ran, as report's ctr.SERIES gives it (the 16th of the c menu); C
# moves it to the shown track
keys='c'
for k in $(seq 15); do keys="$keys <Down>"; done
"$DFNAV" --replay "$keys <Space> <Esc> p f" "$T/v2" >"$T/ctrcol.txt" 2>/dev/null
want=$("$DFNAV" report -q --by func --where 'func=compute' -m ctr.cpu.idle_pct --format csv "$T/v2" |
       tr -d '\r' | awk -F, 'NR == 2 { printf "%.4g", $4 }')
[ -n "$want" ] && ok || fail "report gives compute's cpu.idle_pct"
check "explorer ctr column: cpu.idle_pct of compute" "$want" \
    "$(sed -n '/^--- f/,$p' "$T/ctrcol.txt" | awk '/^compute / { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+$/) v = $i; print v }')"
check "its header names the series" 1 "$(sed -n '/^--- f/,$p' "$T/ctrcol.txt" | grep -c 'cpu\.idle')"

# info: the five new columns last; every line of a file accounted for
"$DFNAV" info -q --format csv "$T/v2" | tr -d '\r' >"$T/info.csv"
check "info: the last five columns" "counters,other,agg_records,agg_calls,time_unit" \
    "$(head -1 "$T/info.csv" | awk -F, '{ print $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF }')"
check "info: files whose lines are events+metadata+counters+other+malformed, in NS, undamaged" "4" \
    "$(awk -F, 'NR > 1 && $1 != "total" && $5 == $6 + $7 + $8 + $11 + $12 && $8 == 0 && $12 == 0 &&
                $11 > 0 && $13 > 0 && $13 <= $14 && $15 == "NS"' "$T/info.csv" | wc -l)"
# records are events, an aggregated one stands for its calls: the truth's calls
check "info: events - agg_records + agg_calls = the truth's calls" \
    "$(awk -F, '$1 == "total" { print $3 }' "$T/truth.csv")" \
    "$(awk -F, '$1 == "total" { print $6 - $13 + $14 }' "$T/info.csv")"
check "info: agg_calls = the truth's aggcalls" \
    "$(awk -F, '$1 == "aggcalls" { n += $3 } END { print n }' "$T/truth.csv")" \
    "$(awk -F, '$1 == "total" { print $14 }' "$T/info.csv")"
# every counter record: one cpu and one mem sample per interval
check "info: counter records = cpu and mem samples" \
    "$(awk -F, '$2 == "*" && ($1 == "cpu.user_pct" || $1 == "mem.Dirty") { n += $3 } END { print n }' "$T/ctruth.csv")" \
    "$(awk -F, '$1 == "total" { print $11 }' "$T/info.csv")"

# A hand-written file of every kind: its 12 record lines (the blank and
# [ ] lines are not) are 3 events, 2 metadata, 2 counters, 3 other (b, 7,
# none) and 2 malformed, one aggregated record of 4 calls.
cat >"$T/kinds.pfw" <<'EOF'
[
{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":100,"dur":10,"ph":"X","args":{"ret":5}}
{"name":"pread64","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":150,"ph":3,"args":{"dft_cnt":4,"dur_sum":40,"ret_sum":400}}
{"name":"mark","pid":1,"tid":1,"ts":160,"ph":"i","args":{}}
{"name":"HH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"node01","value":"77"}}
{"name":"thread_name","pid":1,"tid":1,"ph":"M","args":{"name":"main"}}
{"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":130,"ph":2,"args":{"user_pct":12}}
{"name":"gpu","pid":1,"tid":1,"ts":140,"ph":"C","args":{"util":80}}
{"name":"a","pid":1,"tid":1,"ts":180,"ph":"b","id":1,"args":{}}
{"name":"u","pid":1,"tid":1,"ts":186,"ph":7,"args":{}}
{"name":"nothing","pid":1,"tid":1,"args":{}}
{"name":"bad","ts":
{"name":"read","cat":"POSIX","pid":1,"tid":1,"dur":3,"ph":"X","args":{}}

]
EOF
check "info of every kind: lines,events,metadata,malformed ... counters,other,agg_records,agg_calls,time_unit" \
    "12,3,2,2 2,3,1,4,US" \
    "$("$DFNAV" info -q --format csv "$T/kinds.pfw" | tr -d '\r' |
       awk -F, 'NR == 2 { print $5 "," $6 "," $7 "," $8, $11 "," $12 "," $13 "," $14 "," $15 }')"
"$DFNAV" info -q "$T/kinds.pfw" >"$T/kinds.txt" 2>&1
check "info names the kinds set aside" "1" "$(grep -c 'records of kinds not used, by ph: b: 1, 7: 1, none: 1$' "$T/kinds.txt")"

# the explorer's status line says what was set aside, by kind
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":100,"dur":10,"ph":"X","args":{"ret":5}}' \
    '{"name":"a","pid":1,"tid":1,"ts":180,"ph":"b","id":1,"args":{}}' \
    '{"name":"a","pid":1,"tid":1,"ts":181,"ph":"n","id":1,"args":{}}' \
    '{"name":"a","pid":1,"tid":1,"ts":190,"ph":"b","id":2,"args":{}}' >"$T/aside.pfw"
check "status line: records set aside by kind" 1 \
    "$("$DFNAV" --replay '' "$T/aside.pfw" 2>/dev/null | grep -c '| 3 records set aside (b 2, n 1; ! lists) | ')"

# The unit left out of the end record: µs unless --time-unit ns.
"$DFNAV_GEN" --era v2 --aggregate --counters --time-unit ns --omit-time-metric --events 4000 --ranks 2 \
    --truth "$T/truth-om.csv" "$T/om" >/dev/null 2>"$T/gen.err" || fail "dfnav-gen --omit-time-metric: $(head -c 300 "$T/gen.err")"
compare_dims omit-time-metric "$T/om" "$T/truth-om.csv" --time-unit ns
check "omit-time-metric: time_unit without --time-unit" "US US" \
    "$("$DFNAV" info -q --format csv "$T/om" | tr -d '\r' | awk -F, 'NR > 1 && $1 != "total" { printf "%s%s", s, $NF; s = " " }')"
check "omit-time-metric: time_unit with --time-unit ns" "NS NS" \
    "$("$DFNAV" info -q --time-unit ns --format csv "$T/om" | tr -d '\r' | awk -F, 'NR > 1 && $1 != "total" { printf "%s%s", s, $NF; s = " " }')"
# read as µs: the same calls and bytes, every time 1000 times the truth's
# give or take the ns below a µs (each call's dur is within -500..499 ns
# of its µs times 1000)
"$DFNAV" report -q -m $M --by func --format csv "$T/om" | rows >"$T/got"
truth_rows func "$T/truth-om.csv" >"$T/want"
bad=$(awk 'NR == FNR { c[$1] = $2; t[$1] = $3; b[$1] = $4; next }
           { lo = t[$1] * 1000 - 500 * c[$1]; hi = t[$1] * 1000 + 499 * c[$1]
             if (!($1 in c) || $2 != c[$1] || $4 != b[$1] || $3 < lo || $3 > hi) print }' "$T/want" "$T/got")
check "omit-time-metric without --time-unit: times 1000x the truth" "" "$(echo "$bad" | head -3)"
check "omit-time-metric: functions" "$(wc -l <"$T/want")" "$(wc -l <"$T/got")"
# JSON of pids and tids given as names: strings, escaped (a quote and a
# comma in them); numeric ones stay numbers; a counter mean that overflows
# is null, never inf
printf '%s\n' '{"name":"t","cat":"app","ph":"X","ts":1,"dur":1,"pid":"a,b\"c","tid":"x,\"y"}' \
    '{"name":"t","cat":"app","ph":"X","ts":2,"dur":1,"pid":7,"tid":8}' \
    '{"name":"gpu","ph":"C","ts":3,"pid":"a,b\"c","tid":1,"args":{"util":1e308}}' \
    '{"name":"gpu","ph":"C","ts":4,"pid":"a,b\"c","tid":1,"args":{"util":1e308}}' \
    '{"name":"gpu","ph":"C","ts":5,"pid":7,"tid":1,"args":{"util":0.5}}' >"$T/jsonids.pfw"
if command -v python3 >/dev/null; then
    "$DFNAV" report -q -b pid,tid -m count -f json "$T/jsonids.pfw" >"$T/ids.json" 2>&1
    check "report json: named and numeric pids and tids" "[('a,b\"c', 'x,\"y'), (7, 8)]" \
        "$(python3 -c 'import json,sys; print(sorted(((r["pid"], r["tid"]) for r in json.load(open(sys.argv[1]))), key=str))' \
           "$T/ids.json" 2>&1)"
    "$DFNAV" report -q --counters -b pid -f json "$T/jsonids.pfw" >"$T/cids.json" 2>&1
    check "counters json: named pid, null for an overflowing mean" "[(7, 0.5, 0.5), ('a,b\"c', None, 1e+308)]" \
        "$(python3 -c 'import json,sys; print([(r["pid"], r["mean"], r["max"]) for r in json.load(open(sys.argv[1]))])' \
           "$T/cids.json" 2>&1)"
fi

# info -f json: control bytes of the end record's cfg and app (a TAB, 0x01,
# ESC) escaped inside their strings, never raw
printf '{"name":"end","cat":"dftracer","ph":1,"ts":5,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"US","log_file":"a\tb"},"app":{"model":"x\001y\033[31m"}}}\n' \
    >"$T/ctl.pfw"
"$DFNAV" info -q -f json "$T/ctl.pfw" >"$T/ctl.json" 2>&1
check "info json: no raw control byte" 0 "$(tr -d '\n' <"$T/ctl.json" | tr -cd '\000-\037' | wc -c | tr -d ' ')"
if command -v python3 >/dev/null; then
    check "info json: cfg and app as the file gave them" "['a\\tb', 'x\\x01y\\x1b[31m']" \
        "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print([d["cfg"]["log_file"], d["app"]["model"]])' \
           "$T/ctl.json" 2>&1)"
fi

# --where pid= and tid= with names that start like numbers
printf '%s\n' '{"name":"task","cat":"app","ph":"X","ts":1000,"dur":5,"pid":"10.0.0.1","tid":"1st-worker"}' \
    '{"name":"task","cat":"app","ph":"X","ts":1000,"dur":7,"pid":"10.0.0.2","tid":"2nd-worker"}' >"$T/ippid.pfw"
check "--where pid=10.0.0.1" "pid,tid,count|10.0.0.1,1st-worker,1|" \
    "$("$DFNAV" report -q -b pid,tid -m count --where pid=10.0.0.1 -f csv "$T/ippid.pfw" 2>&1 | cut -d, -f1-3 | tr -d '\r' | tr '\n' '|')"
check "--where tid=2nd-worker" "pid,tid,count|10.0.0.2,2nd-worker,1|" \
    "$("$DFNAV" report -q -b pid,tid -m count --where tid=2nd-worker -f csv "$T/ippid.pfw" 2>&1 | cut -d, -f1-3 | tr -d '\r' | tr '\n' '|')"

# counter bins count from the trace start (the first event, at 1 s) as the
# events' do: samples before it fall in bins of negative index
printf '%s\n' '{"name":"read","cat":"POSIX","ph":"X","ts":1000000,"dur":10,"pid":1,"tid":1}' \
    '{"name":"read","cat":"POSIX","ph":"X","ts":2200000,"dur":10,"pid":1,"tid":1}' >"$T/ctime.pfw"
for ts in 500000 1000000 1500000 2000000 2600000; do
    printf '{"name":"cpu","ph":2,"ts":%s,"pid":1,"tid":1,"args":{"iowait_pct":1}}\n' "$ts"
done >>"$T/ctime.pfw"
bins() { awk -F, 'NR > 1 { printf "%s%s", s, $2; s = " " }' | tr -d '\r'; }
check "counter bins from the trace start" "-1 0 1" \
    "$("$DFNAV" report -q --counters -b time --bin 1 -f csv "$T/ctime.pfw" 2>&1 | bins)"
check "counter bins line up with the events'" \
    "$("$DFNAV" report -q -b time --bin 1 -m count -f csv "$T/ctime.pfw" 2>&1 | awk -F, 'NR > 1 { printf "%s%s", s, $1; s = " " }' | tr -d '\r')" \
    "$("$DFNAV" report -q --counters -b time --bin 1 --where 'time>=0' -f csv "$T/ctime.pfw" 2>&1 | bins)"

# counter rows of pids given as names: numbers first, then names in name
# order, whatever the thread count (not by the order names were met)
mkdir -p "$T/named"
for f in 0 1 2 3 4 5 6 7; do
    awk -v f=$f 'BEGIN { for (i = 39; i >= 0; i--) {
        p = sprintf("\"w%02d\"", (i + f * 5) % 40)
        printf "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":%d,\"dur\":3,\"pid\":%s,\"tid\":1}\n", 1000 + i, p
        printf "{\"name\":\"gpu\",\"ph\":\"C\",\"ts\":%d,\"pid\":%s,\"tid\":1,\"args\":{\"util\":%d.25}}\n", 1000 + i, p, i
      }
      printf "{\"name\":\"gpu\",\"ph\":\"C\",\"ts\":2000,\"pid\":%d,\"tid\":1,\"args\":{\"util\":1}}\n", 12 - f % 2 * 7 }' \
        >"$T/named/f$f.pfw"
done
"$DFNAV" report -q -j 1 --counters -b pid -f csv "$T/named" >"$T/named1.csv" 2>&1
"$DFNAV" report -q -j 8 --counters -b pid -f csv "$T/named" >"$T/named8.csv" 2>&1
same_files "counters -b pid: rows the same with -j 1 and -j 8" "$T/named1.csv" "$T/named8.csv"
check "counters -b pid: numbers, then names in order" \
    "5 12 $(awk 'BEGIN { for (i = 0; i < 40; i++) printf "%sw%02d", i ? " " : "", i }')" \
    "$(awk -F, 'NR > 1 { printf "%s%s", s, $2; s = " " }' "$T/named1.csv" | tr -d '\r')"
# times with fractions of a second: a file is read again with them kept;
# standard input, which cannot be, says how many moved and by how much
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000,"dur":0.25,"ph":1,"args":{"ret":100}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000.5,"dur":1.5,"ph":1,"args":{"ret":100}}' \
    '{"name":"end","cat":"dftracer","pid":1,"tid":1,"ts":1003,"dur":0,"ph":1,"args":{"cfg":{"time_metric":"SEC"}}}' >"$T/sec.pfw"
check "seconds with fractions, from a file: exact" "1.750000" \
    "$("$DFNAV" report --no-cache -m count,time_s -f csv --where func=read "$T/sec.pfw" 2>"$T/err" | tr -d '\r' | awk -F, 'NR == 2 { print $2 }')"
check "and nothing to say" "" "$(cat "$T/err")"
check "seconds with fractions, from standard input: read to the nearest second" "2.000000" \
    "$("$DFNAV" report --no-cache -m count,time_s -f csv --where func=read - <"$T/sec.pfw" 2>"$T/err" | tr -d '\r' | awk -F, 'NR == 2 { print $2 }')"
check "which is said" "dfnav: -: 3 ts or dur with a fraction of a second read to the nearest second: each is off by up to 0.5 s" \
    "$(cat "$T/err")"
check "--time-unit ms with fractions: exact" "0.251250" \
    "$(printf '%s\n' '{"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":1600,"dur":250.5,"ph":"X","args":{"ret":100}}' \
        '{"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":1700.25,"dur":0.75,"ph":"X","args":{"ret":100}}' >"$T/ms.pfw"
       "$DFNAV" report --no-cache -q --time-unit ms -m count,time_s -f csv "$T/ms.pfw" | tr -d '\r' | awk -F, 'NR == 2 { print $2 }')"
finish
