#!/bin/sh
# Taking a selection elsewhere: `dfnav extract` writes the events a filter
# selects as a DFTracer trace, which must load with the figures the filter
# gives on the whole set (every basic metric, by every dimension, on every
# era: inline names, quoted numbers, 16-bit, hex and decimal hashes, 2.x
# with aggregated records, counters and nanosecond times), and which the
# independent reference reader (tests/reference/dfnav_ref.py) reads with
# the same figures too; `report --by event --format chrome` writes Chrome
# trace JSON whose calls match the report per function and thread; CSV
# cells a spreadsheet would run as formulas are made text.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite

PYTHON=${PYTHON:-python3}
DIMS="func cat host pid rank file fs class type layer"
# under the sanitizers, two pairs that read each table of the store
# (kinds, lanes and their metadata, files, layers): each run costs a
# second there, and a pair reads both its tables in one run
if sanitized; then DIMS="func,rank file,layer"; fi

gen() {   # gen NAME OPTIONS...: a generated set in $T/NAME
    name=$1; shift
    "$DFNAV_GEN" --events 6000 --ranks 3 --ranks-per-node 2 "$@" "$T/$name" >/dev/null 2>"$T/gen.err" ||
        fail "dfnav-gen $name: $(head -c 300 "$T/gen.err")"
}

# same_figures LABEL SET SUBSET WHERE [OPTIONS]: the subset by every
# dimension equals the set with the filter, and so does the subset with it
same_figures() {
    label=$1; set=$2; sub=$3; where=$4; shift 4
    for dim in $DIMS; do
        "$DFNAV" report -q --no-cache "$@" ${where:+--where "$where"} --by "$dim" -f csv "$set" >"$T/want" 2>"$T/err" ||
            { fail "$label: report on the set: $(head -c 300 "$T/err")"; continue; }
        "$DFNAV" report -q --no-cache "$@" --by "$dim" -f csv "$sub" >"$T/got" 2>"$T/err"
        same_files "$label --by $dim: the subset differs from the set with the filter" "$T/want" "$T/got"
        if [ -n "$where" ]; then
            "$DFNAV" report -q --no-cache "$@" --where "$where" --by "$dim" -f csv "$sub" >"$T/got" 2>"$T/err"
            same_files "$label --by $dim --where: the subset differs" "$T/want" "$T/got"
        fi
    done
}

# extract_check LABEL SET WHERE LAYERS [OPTIONS]: extract (gzip) with the
# layers, and compare reports with them and the options
n_ex=0
extract_check() {
    label=$1; set=$2; where=$3; layers=$4; shift 4
    n_ex=$((n_ex + 1))
    sub="$T/sub$n_ex.pfw.gz"
    check_status "$label: extract" 0 "$DFNAV" extract -q --no-cache -l "$layers" ${where:+--where "$where"} -o "$sub" "$set"
    gzip -t "$sub" 2>/dev/null && ok || fail "$label: the subset is not valid gzip"
    check_status "$label: the subset loads without damage" 0 "$DFNAV" info -q --no-cache "$sub"
    same_figures "$label" "$set" "$sub" "$where" -l "$layers" "$@"
}

gen v0 --era v0
gen quoted --era quoted --gzip single
gen inline --era inline --gzip members
gen hash16 --era hash16
gen hex --era hex
gen u64 --era u64 --prefetch
gen newest --era newest --ai-logging
gen v2agg --era v2 --aggregate --counters
gen v2ns --era v2 --time-unit ns --counters --ai-logging
# aggregated records in ns: their dur_sum and dur_max were copied in ns
# under a record saying µs (every time 1000 times too long)
gen v2aggns --era v2 --aggregate --time-unit ns

for era in v0 quoted inline hash16 hex u64 newest; do
    extract_check "$era all" "$T/$era" "" dlio-legacy
    extract_check "$era POSIX reads" "$T/$era" "cat=POSIX func~read* dur>=5" dlio-legacy
done
extract_check "newest checkpoint layer" "$T/newest" "layer=checkpoint_posix" dlio
extract_check "v2 aggregated" "$T/v2agg" "cat=POSIX|STDIO" dlio-legacy
extract_check "v2 ns" "$T/v2ns" "file~lustre" dlio
extract_check "v2 aggregated ns" "$T/v2aggns" "cat=POSIX|STDIO" dlio-legacy -m count,time_s,mean_us,max_us,bytes
# a counter metric of the selection: its samples come along
extract_check "v2 counters" "$T/v2agg" "cat=POSIX" dlio-legacy -m count,time_s,ctr.cpu.iowait_pct,ctr.mem.Dirty
extract_check "v2 ns counters" "$T/v2ns" "func~*read*" dlio -m count,bytes,ctr.cpu.iowait_pct
# one process of several: the others' samples must not come along (in the
# subset they would be samples of processes without calls: the host's)
extract_check "v2 one process's counters" "$T/v2agg" "pid=1000000" dlio-legacy -m count,ctr.cpu.iowait_pct,ctr.mem.Dirty

# the subset says its unit: a --time-unit for files that say none does not apply
"$DFNAV" extract -q --no-cache --where 'cat=POSIX' -o "$T/ns.pfw" "$T/v2ns"
"$DFNAV" report -q --no-cache --where 'cat=POSIX' --by func -f csv "$T/v2ns" >"$T/want"
"$DFNAV" report -q --no-cache --time-unit ns --by func -f csv "$T/ns.pfw" >"$T/got"
same_files "an extracted ns subset read with --time-unit ns" "$T/want" "$T/got"
check "the subset's first records: [ and the unit" '[
CM time_metric US' "$(head -2 "$T/ns.pfw" | sed 's/^{"name":"\(CM\)".*"name":"\([a-z_]*\)","value":"\([A-Z]*\)".*/\1 \2 \3/')"
# and so does the end record of an NS trace, which comes along as a call
"$DFNAV" extract -q --no-cache --where 'func=end' -o "$T/end.pfw" "$T/v2ns"
check "the end record's cfg says US" "3" "$(grep -c '"time_metric":"US"' "$T/end.pfw")"
check "no NS is left" "0" "$(grep -c '"NS"' "$T/end.pfw")"

# names are data: invalid UTF-8, quotes, backslashes, control bytes, a pid
# given as a name, a 10,000-byte path, nested argument values; each comes
# back as the same bytes
{
    printf '{"name":"op\\"en","cat":"POSIX","pid":"worker \\\\1","tid":2,"ts":1744611912000000,"dur":5,"ph":"X",'
    printf '"args":{"fname":"/d/\377\\u0001\\u00e9\\ttab\\\\back","o":{"k":[1,2.5,"\\u0001"]},"ret":3}}\n'
    printf '{"name":"read","cat":"POSIX","pid":3,"tid":3,"ts":1744611912000010,"dur":7,"ph":"X","args":{"fname":"/'
    head -c 10000 /dev/zero | tr '\0' 'x'
    printf '","ret":8,"f":1.5e3}}\n'
} >"$T/names.pfw"
check "both hostile lines load" "2" "$("$DFNAV" report -q --no-cache -m count -f csv "$T/names.pfw" | awk -F, 'NR == 2 { print $1 }')"
"$DFNAV" extract -q --no-cache -o "$T/names-sub.pfw" "$T/names.pfw"
for dim in file func pid arg.o arg.f; do
    "$DFNAV" report -q --no-cache --by "$dim" -f csv "$T/names.pfw" >"$T/want"
    "$DFNAV" report -q --no-cache --by "$dim" -f csv "$T/names-sub.pfw" >"$T/got"
    same_files "hostile names --by $dim: the subset differs" "$T/want" "$T/got"
done
check_status "the hostile subset loads without damage" 0 "$DFNAV" info -q --no-cache "$T/names-sub.pfw"

# a process without a host name keeps its rank (its PR record names no host)
printf '%s\n' '{"name":"PR","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"rank","value":3}}' \
    '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1744611912000000,"dur":5,"ph":"X","args":{"ret":4}}' >"$T/nohost.pfw"
"$DFNAV" extract -q --no-cache -o "$T/nohost-sub.pfw" "$T/nohost.pfw"
check "the rank of a process without a host" "3,1" \
    "$("$DFNAV" report -q --no-cache --by rank -m count -f csv "$T/nohost-sub.pfw" | awk -F, 'NR == 2 { print $1 "," $2 }')"

# process and thread names (process_name, thread_name of other tools) stay
# with their calls, whole: one of 3000 characters, and a thread named in a
# process whose pid is a name; the subset's processes show as the set's
long=$(printf 'w%.0s' $(seq 3000))
printf '%s\n' '{"name":"process_name","cat":"t","pid":7,"tid":7,"ph":"M","args":{"name":"Trainer"}}' \
    '{"name":"thread_name","cat":"t","pid":7,"tid":8,"ph":"M","args":{"name":"'"$long"'"}}' \
    '{"name":"thread_name","cat":"t","pid":"svc","tid":2,"ph":"M","args":{"name":"Pump"}}' \
    '{"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":100,"dur":5,"ph":"X","args":{"hostname":"h1","size_sum":10}}' \
    '{"name":"write","cat":"POSIX","pid":7,"tid":7,"ts":200,"dur":5,"ph":"X","args":{"hostname":"h1","size_sum":10}}' \
    '{"name":"read","cat":"POSIX","pid":"svc","tid":2,"ts":300,"dur":5,"ph":"X","args":{"hostname":"h2"}}' >"$T/pnames.pfw"
"$DFNAV" extract -q --no-cache -o "$T/pnames-sub.pfw" "$T/pnames.pfw"
for dim in proc pid tid; do
    "$DFNAV" report -q --no-cache --by "$dim" -f csv "$T/pnames.pfw" >"$T/want"
    "$DFNAV" report -q --no-cache --by "$dim" -f csv "$T/pnames-sub.pfw" >"$T/got"
    same_files "named processes --by $dim: the subset differs" "$T/want" "$T/got"
done
check "the long thread name is whole" "h1/Trainer(7)/$long(8)" \
    "$("$DFNAV" report -q --no-cache --by proc -m count -f csv --sort key "$T/pnames-sub.pfw" | awk -F, 'NR == 3 { print $1 }')"
check "the named thread of a named pid" "h2/svc/Pump(2)" \
    "$("$DFNAV" report -q --no-cache --by proc -m count -f csv --sort key "$T/pnames-sub.pfw" | awk -F, 'NR == 4 { print $1 }')"

# a time window takes the calls that start in it, whole, and says how many
# it cuts: a 4 s read from 0 s and a 1 s read from 5 s
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":4000000,"ph":"X","args":{"ret":4000,"fname":"/a","hostname":"h"}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":6000000,"dur":1000000,"ph":"X","args":{"ret":1000,"fname":"/a","hostname":"h"}}' >"$T/window.pfw"
"$DFNAV" extract --no-cache --where 'time>=2' -o "$T/window-late.pfw" "$T/window.pfw" 2>"$T/err"
check "a call running into the window is said, not written" "1 0 1" \
    "$(sed -n 's/.*cuts \([0-9]*\) calls: \([0-9]*\) that start.* \([0-9]*\) that start before.*/\1 \2 \3/p' "$T/err")"
check "the window's one start, whole" "1,1.000000,1000" \
    "$("$DFNAV" report -q --no-cache -m count,time_s,bytes -f csv "$T/window-late.pfw" | tr -d '\r' | awk -F, 'NR == 2 { print $1 "," $2 "," $3 }')"
"$DFNAV" extract --no-cache --where 'time<3' -o "$T/window-early.pfw" "$T/window.pfw" 2>"$T/err"
check "a call running past the window is said, and written whole" "1 1 0" \
    "$(sed -n 's/.*cuts \([0-9]*\) calls: \([0-9]*\) that start.* \([0-9]*\) that start before.*/\1 \2 \3/p' "$T/err")"
check "the call past the window's end counts whole" "1,4.000000,4000" \
    "$("$DFNAV" report -q --no-cache -m count,time_s,bytes -f csv "$T/window-early.pfw" | tr -d '\r' | awk -F, 'NR == 2 { print $1 "," $2 "," $3 }')"
"$DFNAV" extract --no-cache --where 'time<4.5' -o "$T/window-all.pfw" "$T/window.pfw" 2>"$T/err"
check "a window that cuts no call says nothing of it" "0" "$(grep -c cuts "$T/err")"

# the reference reader reads the subset with the figures dfnav gives the set
if command -v "$PYTHON" >/dev/null 2>&1; then
    for era in hash16 v2agg; do
        "$DFNAV" extract -q --no-cache --where 'cat=POSIX|STDIO' -o "$T/ref-$era.pfw.gz" "$T/$era"
        for dim in func file; do
            "$DFNAV" report -q --no-cache --where 'cat=POSIX|STDIO' --by $dim -m count,time_s,bytes -f csv --sort key \
                "$T/$era" >"$T/ref-$era-$dim.csv"
        done
        "$PYTHON" "$SRCDIR/tests/reference/dfnav_ref.py" --label "$era subset" --check "func=$T/ref-$era-func.csv" \
            --check "file=$T/ref-$era-file.csv" "$T/ref-$era.pfw.gz" >"$T/ref.out" 2>&1
        check "the reference reads the $era subset as dfnav reads the set" "2" "$(grep -c '^ok ' "$T/ref.out")"
    done
else
    echo "SKIP: $PYTHON not found: the subsets not read by the reference"
fi

# as every export: never over an existing file, nothing left on failure
check_status "extract onto an existing file" 2 "$DFNAV" extract -q --no-cache -o "$T/ns.pfw" "$T/v2ns"
check "it says so" "dfnav: not saved: $T/ns.pfw exists" "$(cat "$T/err")"
check_status "extract without -o" 2 "$DFNAV" extract -q --no-cache "$T/v2ns"
check_status "extract --by" 2 "$DFNAV" extract -q --no-cache --by func -o "$T/x.pfw" "$T/v2ns"
check_status "-o outside extract" 2 "$DFNAV" report -q -o "$T/x.pfw" "$T/v2ns"
check_status "extract into a missing folder" 2 "$DFNAV" extract -q --no-cache -o "$T/no/x.pfw" "$T/v2ns"
check "nothing left behind" "" "$(ls "$T" | grep 'tmp\.' )"
check_status "extract to stdout" 0 "$DFNAV" extract -q --no-cache --where 'func=read' -o - "$T/u64"
check "stdout holds the reads and the metadata" "$(grep -c '"name":"read"' "$T/out")" \
    "$("$DFNAV" report -q --no-cache --where 'func=read' -m count -f csv "$T/u64" | awk -F, 'NR == 2 { print $1 }')"
check_status "an empty selection is an empty trace" 0 "$DFNAV" extract -q --no-cache --where 'func=nosuch' -o "$T/empty.pfw" "$T/u64"
check "its lines" '[
{"name":"CM","cat":"dftracer","type":1,"pid":0,"tid":0,"ph":4,"args":{"name":"time_metric","value":"US"}}
]' "$(cat "$T/empty.pfw")"

# ---- Chrome trace JSON ----
if command -v "$PYTHON" >/dev/null 2>&1; then
    check_status "chrome export" 0 "$DFNAV" report -q --no-cache --by event -f chrome "$T/u64"
    "$DFNAV" report -q --no-cache --by func,tid -m count,time_s -f csv "$T/u64" |
        awk -F, 'NR > 1 { sub(/\r$/, ""); printf "%s %s %d %.0f\n", $1, $2, $3, $4 * 1e6 }' | sort >"$T/want"
    # X events per name and thread: count and summed dur; tracks named
    "$PYTHON" - "$T/out" >"$T/got" 2>"$T/py.err" <<'EOF'
import json, sys, collections
d = json.load(open(sys.argv[1]))
n = collections.Counter(); t = collections.Counter(); names = {}
for e in d["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
    if e["ph"] == "X":
        k = (e["name"], e["tid"]); n[k] += 1; t[k] += e["dur"]
        assert (e["pid"], e["tid"]) in names, "an unnamed thread"
        assert e["ts"] > 1700000000000000, "times in the trace's own clock"
for k in sorted(n):
    print(k[0], k[1], n[k], t[k])
EOF
    sort "$T/got" -o "$T/got"
    same_files "chrome X events per name and thread differ from the report (or: $(head -c 200 "$T/py.err"))" "$T/want" "$T/got"
    # counters: one C event per sample of the selection's hosts while it ran
    "$DFNAV" report -q --no-cache --by event -f chrome "$T/v2agg" >"$T/c.json"
    "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(e["ph"]=="C" for e in d["traceEvents"]))' \
        "$T/c.json" >"$T/got" 2>&1
    check "chrome counter events are the samples" \
        "$("$DFNAV" report -q --no-cache --counters -f csv "$T/v2agg" | awk -F, 'NR > 1 { n += $2 } END { print n }')" "$(cat "$T/got")"
    # two hosts with the same pid: tracks apart, the trace's ids in the names
    printf '%s\n' \
        '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1744611912000000,"dur":5,"ph":"X","args":{"hostname":"a","ret":4,"x":1.5}}' \
        '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1744611912000010,"dur":5,"ph":"X","args":{"hostname":"b","ret":4,"s":"=1+1"}}' \
        >"$T/twohosts.pfw"
    "$DFNAV" report -q --no-cache --by event -f chrome "$T/twohosts.pfw" >"$T/th.json"
    "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = sorted(e["args"]["name"] for e in d["traceEvents"] if e["name"] == "process_name")
x = [(e["pid"], e["args"]["x"] if "x" in e["args"] else e["args"]["s"]) for e in d["traceEvents"] if e["ph"] == "X"]
print(p, x)' "$T/th.json" >"$T/got" 2>&1
    check "two processes with one pid" "['a pid 7', 'b pid 7'] [(1, 1.5), (2, '=1+1')]" "$(cat "$T/got")"
    # a pid of -1 (no id a track can keep) numbers the tracks, and ends
    printf '%s\n' \
        '{"name":"read","cat":"POSIX","pid":-1,"tid":-1,"ts":1744611912000000,"dur":5,"ph":"X","args":{"ret":4}}' \
        '{"name":"read","cat":"POSIX","pid":5,"tid":5,"ts":1744611912000010,"dur":5,"ph":"X","args":{"ret":4}}' \
        >"$T/negpid.pfw"
    timeout 20 "$DFNAV" report -q --no-cache --by event -f chrome "$T/negpid.pfw" >"$T/neg.json"
    "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted((e["pid"], e["args"]["name"]) for e in d["traceEvents"] if e["name"] == "process_name"))' "$T/neg.json" >"$T/got" 2>&1
    check "a pid of -1" "[(1, 'pid -1'), (2, 'pid 5')]" "$(cat "$T/got")"
    # a file name holding a NUL keeps what follows it (it was cut there)
    printf '%s\n' '{"name":"read","cat":"POSIX","ph":"X","pid":1,"tid":1,"ts":100,"dur":5,"args":{"fname":"/d/a\u0000b","ret":10}}' >"$T/nul.pfw"
    "$DFNAV" report -q --no-cache --by event -f chrome "$T/nul.pfw" >"$T/nul.json"
    "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([e["args"]["file"] for e in d["traceEvents"] if e.get("ph") == "X"])' "$T/nul.json" >"$T/got" 2>&1
    check "a file name with a NUL in a Chrome trace" "['/d/a\x00b']" "$(cat "$T/got")"
else
    echo "SKIP: $PYTHON not found: Chrome exports not checked"
fi
check_status "chrome needs --by event" 2 "$DFNAV" report -q -f chrome --by func "$T/u64"
check "it says so" "dfnav: --format chrome writes calls: use it with 'dfnav report --by event'" "$(cat "$T/err")"

# ---- formulas in CSV ----
printf '%s\n' \
    '{"name":"=HYPERLINK(\"http://x\")","cat":"POSIX","pid":1,"tid":1,"ts":1744611912000000,"dur":5,"ph":"X","args":{"n":-5,"s":"-2+3"}}' \
    '{"name":"+1+1","cat":"POSIX","pid":1,"tid":1,"ts":1744611912000010,"dur":5,"ph":"X","args":{"s":"@SUM(A1)"}}' \
    '{"name":"-3","cat":"POSIX","pid":1,"tid":1,"ts":1744611912000020,"dur":5,"ph":"X","args":{"s":"\tx"}}' \
    '{"name":"'"'"'=x","cat":"POSIX","pid":1,"tid":1,"ts":1744611912000030,"dur":5,"ph":"X","args":{"s":"plain"}}' \
    >"$T/formula.pfw"
"$DFNAV" report -q --no-cache --by func -m count -f csv --sort key "$T/formula.pfw" | tr -d '\r' >"$T/got"
check "formula names are text, numbers stay numbers" "func,count
-3,1
''=x,1
'+1+1,1
\"'=HYPERLINK(\"\"http://x\"\")\",1" "$(cat "$T/got")"
"$DFNAV" report -q --no-cache --by arg.s -m count -f csv --sort key "$T/formula.pfw" | tr -d '\r' >"$T/got"
check "formula argument values are text" "arg.s,count
'	x,1
'-2+3,1
'@SUM(A1),1
plain,1" "$(cat "$T/got")"
"$DFNAV" report -q --no-cache --by event -f csv "$T/formula.pfw" | tr -d '\r' | cut -d, -f6,9,10 >"$T/got"
check "call rows: negative numbers stay numbers" "func,arg.n,arg.s
\"'=HYPERLINK(\"\"http://x\"\")\",-5,'-2+3
'+1+1,,'@SUM(A1)
-3,,'	x
''=x,,plain" "$(cat "$T/got")"
"$DFNAV" report -q --no-cache --by func -m count -f json --sort key "$T/formula.pfw" >"$T/got"
check "JSON keeps the raw text" "1" "$(grep -c '"func": "=HYPERLINK' "$T/got")"

finish
