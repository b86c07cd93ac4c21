#!/bin/sh
# Damaged input, case by case: what still loads, what is reported (file and
# line, or the compressed byte offset for gzip) and the exit status, through
# `dfnav info` and `dfnav report`. Small cases are files in tests/damaged/;
# big ones (a 100 MB line, deep nesting, 10,000 files) are made here.
#
# case                        input                          status  events  stderr
# truncated gzip              truncated.pfw.gz                  1      102   gzip data truncated at byte 517
# garbage after a member      garbage-after.pfw.gz              1      100   trailing garbage after gzip member at byte 390
# concatenated members        members.pfw.gz (one empty)        0      175   -
# plain text after a member   plain-after-member.pfw.gz         1      100   trailing garbage after gzip member at byte 390
# member of another method    not-deflate-member.pfw.gz         1      100   corrupt gzip data at byte N: unknown compression method
# member with bad deflate     corrupt-member.pfw.gz             1      100   corrupt gzip data at byte N: REASON (N, REASON per backend)
# plain text named .gz        plain-named-gz.pfw.gz             0       10   -
# zero bytes, plain and .gz   empty.pfw empty.pfw.gz            0        0   -
# only "["                    only-bracket.pfw                  0        0   -
# NUL bytes                   nul.pfw                           1        2   :2: NUL byte, :3: and :5: not a JSON object
# invalid UTF-8, ESC in names bad-utf8.pfw                      0        3   - (names shown as \xff, \x1b)
# numbers out of range        numbers.pfw                       1        3   :2-4: bad number, :5: ts or dur out of range
# negative durations          negative.pfw                      1        2   :2-3: negative dur, :4: bad number
# far-future timestamps       future.pfw                        0        3   - (end 9223372036854775806 µs)
# stray quote, bad literals   primitives.pfw                    1        3   :2-4,6-7: invalid JSON, :5: bad number
# hash with two names         hash-collision/ (two files)       1        2   b.pfw:2: hash defined again ... (2 ... in all)
# same hash, same name twice  hash-twice.pfw                    0        1   -
# a 100 MB line               made here                         1        3   :2: truncated JSON, 1 line cut; RSS bounded
# 100,000 unclosed [          made here                         1        2   :2: JSON nested too deeply
# 100,000 balanced [ ]        made here                         1        2   :2: JSON nested too deeply, in seconds
# 2.5 MB flat wide object     made here                         0        3   - (in seconds: jsmn was quadratic)
# a 10 MB string argument     made here                         0        3   -
# unreadable file and dir     made here, run as nobody          1        1   F: Permission denied (each once)
# deflate broken at once      made here, beside 3 good files    1    7690   no line of it, at every thread count
# only unreadable inputs      made here, run as nobody          3        -   ... nothing could be read
# 10,000 small trace files    made here, ulimit -n 64           0    10000   -
. "$SRCDIR/tests/shell/lib.sh"

D="$T/d"
cp -R "$SRCDIR/tests/damaged" "$D"
cd "$T" || exit 1
case $("$DFNAV" --version) in
*isa-l*) backend=isal ;;
*) backend=zlib ;;
esac

# expect NAME STATUS EVENTS MALFORMED STDERR PATH...: `dfnav info` exits
# with STATUS, prints exactly STDERR, and totals EVENTS events and
# MALFORMED malformed lines ("-" when nothing loads); `dfnav report` exits
# with the same status and counts the same events.
expect() {
    name=$1 st=$2 ev=$3 mal=$4 msg=$5
    shift 5
    "$DFNAV" info -j2 --format csv "$@" >"$T/info.csv" 2>"$T/info.err"
    check "$name: info status" "$st" "$?"
    check "$name: stderr" "$msg" "$(cat "$T/info.err")"
    total=$(tr -d '\r' <"$T/info.csv" | awk -F, '$1 == "total" { print $6 " " $8 }')
    if [ "$ev" = - ]; then check "$name: nothing loads" "" "$total"
    else check "$name: events and malformed lines" "$ev $mal" "$total"; fi
    "$DFNAV" report -q -j2 --format csv "$@" >"$T/report.csv" 2>"$T/report.err"
    check "$name: report status" "$st" "$?"
    if [ "$ev" != - ]; then
        check "$name: report count" "$ev" "$(tr -d '\r' <"$T/report.csv" | awk -F, 'NR == 2 { print $1 }')"
    fi
}
nl='
'

# ---- gzip ----
expect "truncated gzip" 1 102 0 "dfnav: d/truncated.pfw.gz: gzip data truncated at byte 517" d/truncated.pfw.gz
expect "garbage after a member" 1 100 0 "dfnav: d/garbage-after.pfw.gz: trailing garbage after gzip member at byte 390" d/garbage-after.pfw.gz
expect "concatenated members" 0 175 0 "" d/members.pfw.gz
check "every member counted" "pid,count${nl}1,100${nl}2,50${nl}3,25" \
    "$("$DFNAV" report -q --by pid --sort key --metrics count --format csv d/members.pfw.gz | tr -d '\r')"
expect "plain text after a member" 1 100 0 "dfnav: d/plain-after-member.pfw.gz: trailing garbage after gzip member at byte 390" d/plain-after-member.pfw.gz
# where a decoder gives up inside damaged data differs between ISA-L and zlib
if [ $backend = isal ]; then at_method=400 at_corrupt=411 why="invalid deflate block"; else at_method=394 at_corrupt=409 why="invalid code lengths set"; fi
expect "member of another method" 1 100 0 "dfnav: d/not-deflate-member.pfw.gz: corrupt gzip data at byte $at_method: unknown compression method" d/not-deflate-member.pfw.gz
expect "member with bad deflate data" 1 100 0 "dfnav: d/corrupt-member.pfw.gz: corrupt gzip data at byte $at_corrupt: $why" d/corrupt-member.pfw.gz
expect "plain text named .gz" 0 10 0 "" d/plain-named-gz.pfw.gz
expect "damage in two files of three" 1 202 0 "dfnav: d/truncated.pfw.gz: gzip data truncated at byte 517
dfnav: d/garbage-after.pfw.gz: trailing garbage after gzip member at byte 390" d/truncated.pfw.gz d/empty.pfw d/garbage-after.pfw.gz
expect "zero-byte files" 0 0 0 "" d/empty.pfw d/empty.pfw.gz
check "zero-byte gzip is no gzip" "none" "$("$DFNAV" info -q --format csv d/empty.pfw.gz | tr -d '\r' | awk -F, 'NR == 2 { print $3 }')"
expect "only [" 0 0 0 "" d/only-bracket.pfw

# ---- lines ----
expect "NUL bytes" 1 2 3 "dfnav: d/nul.pfw:2: malformed line: NUL byte
dfnav: d/nul.pfw:3: malformed line: not a JSON object
dfnav: d/nul.pfw:5: malformed line: not a JSON object" d/nul.pfw
expect "invalid UTF-8" 0 3 0 "" d/bad-utf8.pfw
"$DFNAV" report -q --by func,file d/bad-utf8.pfw >"$T/utf8.txt"
grep -q 'r\\xff\\xfe\\xc3(ad  */p/\\xe2(\\xa1\\x1b\[31mx ' "$T/utf8.txt" && ok || fail "names with bad UTF-8 shown escaped: $(cat "$T/utf8.txt")"
if LC_ALL=C grep -q "$(printf '[\033\377]')" "$T/utf8.txt"; then fail "a raw byte of a bad name reached the table"; else ok; fi
expect "numbers out of range" 1 3 4 "dfnav: d/numbers.pfw:2: malformed line: bad number in pid, tid, ts or dur
dfnav: d/numbers.pfw:3: malformed line: bad number in pid, tid, ts or dur
dfnav: d/numbers.pfw:4: malformed line: bad number in pid, tid, ts or dur
dfnav: d/numbers.pfw:5: malformed line: ts or dur out of range" d/numbers.pfw
expect "negative durations" 1 2 3 "dfnav: d/negative.pfw:2: malformed line: negative dur
dfnav: d/negative.pfw:3: malformed line: negative dur
dfnav: d/negative.pfw:4: malformed line: bad number in pid, tid, ts or dur" d/negative.pfw
expect "far-future timestamps" 0 3 0 "" d/future.pfw
check "far-future end" "1712599257392616 9223372036854775806" "$("$DFNAV" info -q --format csv d/future.pfw | tr -d '\r' | awk -F, 'NR == 2 { print $9 " " $10 }')"
for by in time func proc file; do
    check_status "far-future report --by $by" 0 "$DFNAV" report -q --by "$by" d/future.pfw
done
check_status "far-future overview" 0 "$DFNAV" -q d/future.pfw
check_status "far-future analysis metrics" 0 "$DFNAV" report -q --by func --metrics all d/future.pfw
expect "stray quote and bad literals" 1 3 6 "dfnav: d/primitives.pfw:2: malformed line: invalid JSON
dfnav: d/primitives.pfw:3: malformed line: invalid JSON
dfnav: d/primitives.pfw:4: malformed line: invalid JSON
dfnav: d/primitives.pfw:5: malformed line: bad number in pid, tid, ts or dur
dfnav: d/primitives.pfw:6: malformed line: invalid JSON
dfnav: d/primitives.pfw:7: malformed line: invalid JSON" d/primitives.pfw

# ---- hashes ----
expect "a hash with two names" 1 2 0 \
    "dfnav: d/hash-collision/b.pfw:2: hash defined again with another name; the first definition is used (2 such definitions in all)" d/hash-collision
check "the first definition wins" "file,count${nl}/first,2" \
    "$("$DFNAV" report -q --by file --sort key --metrics count --format csv d/hash-collision | tr -d '\r')"
expect "the same hash and name twice" 0 1 0 "" d/hash-twice.pfw

# ---- record kinds: broken aggregated records and counters, kinds set aside ----
"$DFNAV" info -j2 --format csv d/kinds.pfw >"$T/info.csv" 2>"$T/info.err"
check "record kinds: info status" 1 "$?"
check "record kinds: stderr" "dfnav: d/kinds.pfw:2: malformed line: aggregated figures out of range
dfnav: d/kinds.pfw:3: malformed line: aggregated figures out of range
dfnav: d/kinds.pfw:4: malformed line: aggregated record without a whole dft_cnt above 0
dfnav: d/kinds.pfw:5: malformed line: bad number in pid, tid or ts
dfnav: d/kinds.pfw: the end record's cfg.time_metric is none of US, NS, MS and SEC: times read as US" "$(cat "$T/info.err")"
# lines events metadata malformed | counters other agg_records agg_calls time_unit
check "record kinds: every line counted once" "9 2 0 4 1 2 1 4 US" \
    "$(tr -d '\r' <"$T/info.csv" | awk -F, 'NR == 2 { print $5, $6, $7, $8, $11, $12, $13, $14, $15 }')"
check "record kinds: the folded calls" "count,time_s,bytes,agg_calls${nl}5,0.000040,400,4" \
    "$("$DFNAV" report -q -m count,time_s,bytes,agg_calls --format csv d/kinds.pfw | tr -d '\r')"
check "record kinds: the finite numbers of a counter" "counter,samples,mean,min,max${nl}cpu.c,1,2,2,2" \
    "$("$DFNAV" report -q --counters --format csv d/kinds.pfw | tr -d '\r')"
check "record kinds: kinds set aside by ph" "d/kinds.pfw: 2 records of kinds not used, by ph: b: 1, 7: 1" \
    "$("$DFNAV" info -q d/kinds.pfw | grep 'kinds not used')"
tar cf "$T/set.tar" -C d kinds.pfw
gzip -c "$T/set.tar" >"$T/set.tar.gz"
for a in set.tar set.tar.gz; do
    check_status "a tar archive is refused: $a" 3 "$DFNAV" info -q "$T/$a"
    check "a tar archive is named: $a" "dfnav: $T/$a: a tar archive, not a trace: extract it (tar xf) and give its files or folder" \
        "$("$DFNAV" info "$T/$a" 2>&1 >/dev/null | head -1)"
done

# ---- a valid gzip member header across the reader's buffer (issue 23) ----
if command -v python3 >/dev/null; then
    python3 "$SRCDIR/tests/damaged/gzip_fhcrc.py" "$T/fhcrc.pfw.gz" >/dev/null
    check "FHCRC header across the 1 MiB buffer: every line loads" "$(gzip -dc "$T/fhcrc.pfw.gz" | wc -l | tr -d ' ') 0" \
        "$("$DFNAV" info -q --format csv "$T/fhcrc.pfw.gz" | tr -d '\r' | awk -F, 'NR == 2 { print $6, $8 }')"
    check_status "FHCRC header across the 1 MiB buffer: no damage" 0 "$DFNAV" info -q "$T/fhcrc.pfw.gz"
else
    echo "SKIP: no python3: the FHCRC member header across the buffer is not checked"
fi

# ---- made here: big lines, deep and wide JSON ----
line() { printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":%s,"dur":5,"ph":"X","args":{"ret":100}}\n' "$1"; }
big=$T/big
mkdir "$big"
# peak RSS of a command in KiB, empty when nothing here can measure it
max_rss() {
    if command -v python3 >/dev/null; then
        python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
    elif [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
    fi
}
{ line 1; printf '{"name":"long","args":{"a":"'; head -c 104857600 /dev/zero | tr '\0' a; printf '"}}\n'; line 2; line 3; } >"$big/long.pfw"
expect "a 100 MB line" 1 3 1 "dfnav: big/long.pfw:2: malformed line: truncated JSON
dfnav: big/long.pfw: 1 lines longer than 64 MiB were cut" big/long.pfw
rss=$(max_rss "$DFNAV" info -q -j2 big/long.pfw)
# one 64 MiB block and its copy at most; sanitizers add their shadow and quarantine
limit=$((200 * 1024))
grep -q __asan_init "$DFNAV" && limit=$((1024 * 1024))
if [ -z "$rss" ]; then echo "SKIP: neither python3 nor /usr/bin/time: peak memory of the 100 MB line not checked"
elif [ "$rss" -lt "$limit" ]; then ok; else fail "a 100 MB line took $rss KiB (limit $limit)"; fi
rm "$big/long.pfw"

{ line 1; printf '{"name":"deep","ts":2,"ph":"X","args":{"a":'; head -c 100000 /dev/zero | tr '\0' '['; printf '}}\n'; line 3; } >"$big/open.pfw"
expect "100,000 unclosed [" 1 2 1 "dfnav: big/open.pfw:2: malformed line: JSON nested too deeply" big/open.pfw
{ line 1; printf '{"name":"deep","ts":2,"ph":"X","args":{"a":'; head -c 100000 /dev/zero | tr '\0' '['
  head -c 100000 /dev/zero | tr '\0' ']'; printf '}}\n'; line 3; } >"$big/nested.pfw"
check_status "100,000 balanced [ ] in seconds" 1 timeout 60 "$DFNAV" info -q big/nested.pfw
expect "100,000 balanced [ ]" 1 2 1 "dfnav: big/nested.pfw:2: malformed line: JSON nested too deeply" big/nested.pfw
# 300 values 62 deep: past the first token array, within the depth limit
{ printf '{"name":"d62","ts":2,"ph":"X","args":{"a":'
  i=0; while [ $i -lt 62 ]; do printf '['; i=$((i + 1)); done
  i=0; while [ $i -lt 299 ]; do printf '1,'; i=$((i + 1)); done; printf '1'
  i=0; while [ $i -lt 62 ]; do printf ']'; i=$((i + 1)); done; printf '}}\n'; } >"$big/d62.pfw"
expect "62 deep loads" 0 1 0 "" big/d62.pfw
{ line 1; printf '{"name":"wide","ts":2,"ph":"X","args":{"a":[0'
  head -c 500000 /dev/zero | tr '\0' z | sed 's/z/,0/g'; printf ']'
  head -c 250000 /dev/zero | tr '\0' z | sed 's/z/,"b":1/g'; printf '}}\n'; line 3; } >"$big/wide.pfw"
check_status "a 2.5 MB wide object in seconds" 0 timeout 60 "$DFNAV" info -q big/wide.pfw
expect "a 2.5 MB wide object" 0 3 0 "" big/wide.pfw
{ line 1; printf '{"name":"huge","cat":"POSIX","pid":1,"tid":1,"ts":2,"dur":1,"ph":"X","args":{"note":"'
  head -c 10485760 /dev/zero | tr '\0' x; printf '"}}\n'; line 3; } >"$big/huge.pfw"
expect "a 10 MB string argument" 0 3 0 "" big/huge.pfw
check "the 10 MB value is kept" 10485760 \
    "$("$DFNAV" report -q --by arg.note --where 'func=huge' --metrics count --format csv big/huge.pfw | tr -d '\r' | awk -F, 'NR == 2 { print length($1) }')"
rm -r "$big"

# ---- unreadable files and directories (as nobody when root) ----
# beside $T, not in it: $T is private (0700) and nobody must reach $P
P=$(mktemp -d "$tmp_root/dfnav-unreadable.XXXXXX")
trap 'rm -rf "$T" "$P"' EXIT
chmod 755 "$P"
mkdir "$P/set" "$P/set/sub" "$P/set/locked"
line 1 >"$P/set/a.pfw"; line 2 >"$P/set/noread.pfw"; line 3 >"$P/set/locked/c.pfw"; line 4 >"$P/set/sub/b.pfw"
chmod 000 "$P/set/noread.pfw" "$P/set/locked"
as_user=""
if [ "$(id -u)" = 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    command -v setpriv >/dev/null && $as_user "$DFNAV" --version >/dev/null 2>&1 || as_user=none
fi
if [ "$as_user" = none ]; then
    echo "SKIP: root, and nobody cannot run $DFNAV here (setpriv, directory permissions): unreadable inputs not checked"
else
    cd "$P" || exit 1
    DFNAV_REAL=$DFNAV
    DFNAV=$T/as-user
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$as_user" "$DFNAV_REAL" >"$DFNAV"
    chmod 755 "$DFNAV"
    expect "unreadable file and directory" 1 2 0 "dfnav: set/locked: Permission denied
dfnav: set/noread.pfw: Permission denied" set
    expect "only an unreadable file" 3 - - "dfnav: set/noread.pfw: Permission denied
dfnav: nothing could be read" set/noread.pfw
    expect "only an unreadable directory" 3 - - "dfnav: set/locked: Permission denied
dfnav: no trace file to read" set/locked
    DFNAV=$DFNAV_REAL
    cd "$T" || exit 1
fi
chmod -R u+rwx "$P"

# ---- a gzip member whose deflate data break at once ----
# (ISA-L read its decoder's state before any of it was written, and
# whatever the heap held there came out as text: a line counted or not,
# by the run; the same answer now at every thread count, each time)
printf '\037\213\010\000\122\360\063\226\132\113\322\136\342\074\240\174\330\304\056\367\237\063\223\056\010\372\021\251\277\214\360\215\067\370\120\325\037\261\216\014\236\175\266\043\303\231\266\065\175\334\252\316\301\144\317\044\052\067\262\224\323\164\241\372' \
    >"$T/broken-at-once.pfw.gz"
"$DFNAV_GEN" --seed 5 --events 8000 --ranks 3 --era quoted "$T/brokenset" >/dev/null
cp "$T/broken-at-once.pfw.gz" "$T/brokenset/zz.pfw.gz"
seen=""
for t in 1 2 3 4 auto auto auto auto; do
    j=""
    [ "$t" = auto ] || j="-j $t"
    # shellcheck disable=SC2086
    seen="$seen $("$DFNAV" info --no-cache $j -f csv "$T/brokenset" 2>/dev/null | awk -F, '/zz.pfw.gz/ { print $5 "/" $8 }')"
done
check "a member broken at once: the same lines and damage every run" " 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0" "$seen"

# ---- 10,000 small files: every one loads, no descriptor is kept ----
mkdir "$T/many"
i=0
while [ $i -lt 10000 ]; do
    printf '{"name":"read","cat":"POSIX","pid":%d,"tid":1,"ts":%d,"dur":5,"ph":"X","args":{"ret":100}}\n' $i $((1000 + i)) >"$T/many/t$i.pfw"
    i=$((i + 1))
done
(ulimit -n 64; expect "10,000 files under ulimit -n 64" 0 10000 0 "" many; echo "$passed $failed" >"$T/sub")
read -r passed failed <"$T/sub"
check "10,000 files, 10,000 processes" "count,procs${nl}10000,10000" \
    "$(sh -c 'ulimit -n 64 && exec "$0" report -q --sort key --metrics count,procs --format csv many' "$DFNAV" | tr -d '\r')"
finish
