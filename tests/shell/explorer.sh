#!/bin/sh
# The explorer without a terminal: --replay drives the real key handling
# and drawing, and the screens are compared with golden copies in
# tests/golden (regenerate with DFN_UPDATE_GOLDEN=1 after a deliberate UI
# change, and read the diff). Also: export equals `dfnav report`, escapes
# from trace names stay visible, too-small terminals, resize, latency.
. "$SRCDIR/tests/shell/lib.sh"
export SOURCE_DATE_EPOCH=1790000000 LANG=C.UTF-8 LC_ALL=C.UTF-8

S="$SRCDIR/data/sample"
# drill down the default path, into a call, and back; then pivot and sort
"$DFNAV" --replay '<Enter> <Enter> <Down> <Enter> <Enter> <Enter> <Esc> <BS> <BS> p f > > r <BS> <BS>' \
    "$S" >"$T/drill.txt" 2>"$T/drill.err"
golden sample-drill.txt "$T/drill.txt"
grep -q '^latency: 16 actions, p50 [0-9.]* ms, p95 [0-9.]* ms, max [0-9.]* ms$' "$T/drill.err" && ok ||
    fail "latency report: $(cat "$T/drill.err")"
# filter with an error shown inline, history, then search
"$DFNAV" --replay 'p l f dur>>1 <Enter> <C-u> cat=POSIX <Enter> f <Esc> / ckpt <Enter> n' "$S" >"$T/filter.txt" 2>/dev/null
golden sample-filter.txt "$T/filter.txt"
# ASCII mode, as in LANG=C
LC_ALL=C LANG=C "$DFNAV" --replay '<Enter> p s' "$S" >"$T/ascii.txt" 2>/dev/null
golden sample-ascii.txt "$T/ascii.txt"
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$T/ascii.txt"; then fail "ASCII mode drew non-ASCII"; else ok; fi
"$DFNAV" --ascii --replay 'p l' "$S" >"$T/ascii2.txt" 2>/dev/null
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$T/ascii2.txt"; then fail "--ascii drew non-ASCII"; else ok; fi

# lanes: a row per process at 80x24 and 200x60, the cell cursor, the
# shades, a pivot to threads, a cell opened and back; help and the key bar
"$DFNAV" --replay 'L <Down> <Right> <Right> <Right> m m m <Enter> <Esc> p $ <Esc>' "$S" >"$T/lanes.txt" 2>/dev/null
golden sample-lanes.txt "$T/lanes.txt"
"$DFNAV" --size 200x60 --replay 'L <Right> <Enter> <BS> z' "$S" >"$T/lanes-wide.txt" 2>/dev/null
golden sample-lanes-wide.txt "$T/lanes-wide.txt"
check "a lane cell opens that process and time range" \
    "dfnav All › lanes › node01/1000000/1000001 1.560-2.081 s" "$(grep -m1 '› lanes ›' "$T/lanes.txt")"
# flame: call paths as a tree at 80x24 and 200x60, a path's calls, back
"$DFNAV" --replay 'F <Down> <Down> <Enter> <BS> r F' "$S" >"$T/flame.txt" 2>/dev/null
golden sample-flame.txt "$T/flame.txt"
"$DFNAV" --size 200x60 --replay 'F <End>' "$S" >"$T/flame-wide.txt" 2>/dev/null
golden sample-flame-wide.txt "$T/flame-wide.txt"
grep -q "call paths keep the tree's order" "$T/flame.txt" && ok || fail "r on the flame level: no word on the order"
"$DFNAV" --replay '? <PgDn> <PgDn> <End>' "$S" >"$T/help.txt" 2>/dev/null
golden sample-help.txt "$T/help.txt"
for size in 80x24 100x30 132x40 200x60; do
    bar=$("$DFNAV" --size "$size" --replay '' "$S" 2>/dev/null | tail -1)
    case $bar in "Enter drill  Bksp back  p pivot  f filter  / search  </> sort  "*"? help  q quit") ok ;;
    *) fail "the key bar at $size: '$bar'" ;; esac
done
# the argument prompt lists the names the selection's calls have, and Tab
# completes them; the prompt starts with the last name, selected
"$DFNAV" --replay 'p a <BS> ep <Tab>' "$S" >"$T/args.txt" 2>/dev/null
grep -q '^arguments here (Tab completes): .*epoch' "$T/args.txt" && ok || fail "argument names: $(tail -3 "$T/args.txt")"
check "Tab completes an argument name" "argument name: epoch" "$(tail -1 "$T/args.txt")"
check "the names of all events, without a scan, are those a scan finds" \
    "$("$DFNAV" --size 300x24 --replay 'f dur>=0 <Enter> p a' "$S" 2>/dev/null | tail -2 | head -1)" \
    "$("$DFNAV" --size 300x24 --replay 'p a' "$S" 2>/dev/null | tail -2 | head -1)"
check "typing replaces the selected text" "argument name: x" \
    "$("$DFNAV" --replay 'p a x' "$S" 2>/dev/null | tail -1)"
check "Up recalls what the prompt was given" "filter: cat=POSIX" \
    "$("$DFNAV" --replay 'f cat=POSIX <Enter> f <BS> <Up>' "$S" 2>/dev/null | tail -1)"
# the save prompt: Tab completes file names (several: listed above it),
# ~ is the home folder
mkdir -p "$T/tab/home" && : >"$T/tab/report-a.csv" && : >"$T/tab/report-b.csv" && mkdir -p "$T/tab/reports"
(cd "$T/tab" && "$DFNAV" --replay 'e <BS> rep <Tab> <Tab>' "$S" >"$T/tab.txt" 2>/dev/null)
check "Tab: as far as the names agree" "save CSV as: report" "$(tail -1 "$T/tab.txt")"
grep -q '^report-a.csv  report-b.csv  reports/$' "$T/tab.txt" && ok || fail "Tab: the candidates: $(tail -2 "$T/tab.txt")"
(cd "$T/tab" && HOME="$T/tab/home" "$DFNAV" --replay 'e <C-u> ~/t.csv <Enter>' "$S" >/dev/null 2>&1)
[ -s "$T/tab/home/t.csv" ] && ok || fail "~/t.csv was not saved in HOME: $(ls "$T/tab" "$T/tab/home")"
# / finds rows and counts them; a text no row has is looked for in the
# files (then functions) of the selection, which open as a level
"$DFNAV" --replay '/ 2.0 <Enter> n / checkpoint <Enter>' "$S" >"$T/search.txt" 2>/dev/null
grep -q '^match 1 of 6: 2.0   (n next, N previous)$' "$T/search.txt" && ok || fail "/ 2.0: $(grep -m1 match "$T/search.txt")"
grep -q "^match 2 of 6: 2.0" "$T/search.txt" && ok || fail "n: the second match"
grep -q "^no row here holds 'checkpoint'; [0-9]* files of the selection do (Bksp returns)$" "$T/search.txt" && ok ||
    fail "/ checkpoint: $(tail -2 "$T/search.txt" | head -1)"
grep -q "^dfnav All › files holding 'checkpoint'$" "$T/search.txt" && ok || fail "/ checkpoint: no level of its files"
# Tab never completes half a UTF-8 character; p on call paths says why not
mkdir -p "$T/utf" && : >"$T/utf/café1.csv" && : >"$T/utf/cafè2.csv"
(cd "$T/utf" && "$DFNAV" --replay 'e <BS> ca <Tab>' "$S" >"$T/utf.txt" 2>/dev/null)
check "Tab: whole characters" "save CSV as: caf" "$(tail -1 "$T/utf.txt")"
"$DFNAV" --replay 'F p' "$S" >"$T/fp.txt" 2>/dev/null
grep -q "call paths stay call paths" "$T/fp.txt" && ok || fail "p on call paths: $(tail -2 "$T/fp.txt" | head -1)"
# a filter that matches nothing says so, rather than a table of zeros
"$DFNAV" --replay 'f func=nosuch <Enter>' "$S" >"$T/none.txt" 2>/dev/null
grep -q "No event in this window matches func=nosuch (f changes the filter)." "$T/none.txt" && ok ||
    fail "a filter matching nothing: no word on it"
if sed -n '/^--- <Enter>/,$p' "$T/none.txt" | grep -q '^  0.0-2.0 s'; then fail "a filter matching nothing: rows of zeros"; else ok; fi
# keys pressed while the screen is too small do nothing; Q quits
check "keys on a too-small screen" "dfnav All" \
    "$("$DFNAV" --size 60x20 --replay '<Enter> <Enter> p f <Resize:80x24>' "$S" 2>/dev/null | sed -n '/^--- <Resize/{n;p}')"

# diagnostics: d lists the findings of the selection, Enter on one opens its
# evidence; a call's detail shows the calls around it
"$DFNAV" --replay 'd <Down> <Enter> <BS> d <Esc> p e f func=write <Enter> <Enter>' "$S" >"$T/diag.txt" 2>/dev/null
golden sample-diag.txt "$T/diag.txt"
grep -q '^ selection: exposed-io' "$T/diag.txt" && ok || fail "d: no exposed-io finding for the selection"
grep -q '^dfnav All › .*: selection' "$T/diag.txt" && ok || fail "d, Enter: no level on the evidence"
grep -q '^ called from$' "$T/diag.txt" && grep -q 'PyTorchCheckpointing.save_checkpoint' "$T/diag.txt" && ok ||
    fail "detail: no enclosing calls of a checkpoint write"
# the process level: compute over I/O, two lines a row, with their figures
"$DFNAV" report -q --by proc --metrics compute_s,io_busy_s,exposed_s --sort key --format csv "$S" | tr -d '\r' >"$T/ov.csv"
"$DFNAV" --replay 'p p' "$S" >"$T/procs.txt" 2>/dev/null
row=$(grep -A1 '^node01/1000000/1000000 ' "$T/procs.txt")
want=$(awk -F, '$1 == "node01/1000000/1000000" { print ($3 > 0) }' "$T/ov.csv")
check "process level has an I/O line under each row" "1 I/O" "$want $(echo "$row" | sed -n 2p | grep -o 'I/O')"

# p90 is computed for every level that shows it, also when the level before
# was too narrow for it
"$DFNAV" --replay '<Enter> <Enter>' --size 100x30 "$S" >"$T/p90.txt" 2>/dev/null
check "p90 of the app layer at 100 columns" "31.49s" "$(grep '^app ' "$T/p90.txt" | tail -1 | awk '{ print $6 }')"
# a compute definition that does not compile is said, not silently dropped
"$DFNAV" --compute 'layer=nosuch' --replay 'k' "$S" >"$T/cmp.txt" 2>/dev/null
grep -q "^compute: unknown layer 'nosuch'" "$T/cmp.txt" && ok || fail "bad --compute not shown: $(tail -2 "$T/cmp.txt")"

# too small, then resized to fit
"$DFNAV" --size 60x20 --replay '<Resize:80x24> <Resize:120x40>' "$S" >"$T/small.txt" 2>/dev/null
grep -q "terminal too small" "$T/small.txt" && ok || fail "60x20 says the terminal is too small"
check "resize to 120x40 draws 40 rows" 40 "$(awk '/^--- <Resize:120x40>/{f=1; next} f' "$T/small.txt" | wc -l | tr -d ' ')"
grep -q "bytes/time" "$T/small.txt" && ok || fail "a wide screen shows more columns"
# a level made at 80 columns, shown again after the screen grew, is made
# again with what the wider screen shows (it showed p90 as '-', busy too,
# and sparklines of the old width)
"$DFNAV" --replay 'p f <Enter> <Resize:200x60> <BS>' --size 80x24 "$S" 2>/dev/null | tail -60 >"$T/back.txt"
"$DFNAV" --replay 'p f' --size 200x60 "$S" 2>/dev/null | tail -60 >"$T/wide.txt"
same_files "back after a resize: the level as a wide screen makes it" "$T/wide.txt" "$T/back.txt"

# export: the file holds what dfnav report prints for the same filter and grouping
mkdir -p "$T/exp" && cd "$T/exp" || exit 1
"$DFNAV" --replay 'p f f cat=POSIX <Enter> e <Enter>' "$S" >"$T/exp.txt" 2>/dev/null
f=$(ls dfnav-func-*.csv 2>/dev/null | head -1)
[ -f "$f" ] && ok || fail "e wrote no file: $(ls)"
# (and the slowest process, which the status line shows)
"$DFNAV" report -q --by func --where 'cat=POSIX' --metrics basic,max_proc --format csv "$S" >"$T/report.csv"
same_files "export differs from dfnav report" "$T/report.csv" "$f"
grep -q "saved [0-9]* rows to dfnav-func-" "$T/exp.txt" && ok || fail "the status line says where the file went"
# the same name again: asked, and 'n' keeps the old file
before=$(cksum <"$f")
"$DFNAV" --replay 'p f e <Enter> n' "$S" >"$T/exp2.txt" 2>/dev/null
grep -q "Overwrite it?" "$T/exp2.txt" && ok || fail "an existing file is not overwritten without asking"
check "the existing file is untouched" "$before" "$(cksum <"$f")"
# e on a process level: the columns on screen too, with report's figures
"$DFNAV" --replay 'p p e <Enter>' "$S" >/dev/null 2>&1
f=$(ls dfnav-proc-*.csv 2>/dev/null | head -1)
"$DFNAV" report -q --by proc --metrics basic,compute_s,io_busy_s,exposed_s,max_proc --format csv "$S" >"$T/procs.csv"
same_files "e on processes: report's columns and compute, I/O, exposed" "$T/procs.csv" "$f"
head -1 "$f" | grep -q ',compute_s,io_busy_s,exposed_s,' && ok || fail "e on processes: header $(head -1 "$f")"
# E: the calls of the selected row
"$DFNAV" --replay 'p f E <Enter>' "$S" >/dev/null 2>&1
c=$(ls dfnav-calls-*.csv 2>/dev/null | head -1)
check "E exports calls: their own fields, then their arguments" "start_s,dur_us,proc,rank,cat,func,file,bytes,arg." "$(head -1 "$c" | cut -c1-49)"
top=$("$DFNAV" report -q --by func --format csv "$S" | awk -F, 'NR == 2 { print $2 }')
check "E exports every call of the row" "$top" "$(($(wc -l <"$c") - 1))"
# E on a time range: exactly the calls of that range
rm -f dfnav-calls-*.csv
"$DFNAV" --replay 'E <Enter>' "$S" >/dev/null 2>&1
c=$(ls dfnav-calls-*.csv 2>/dev/null | head -1)
n=$("$DFNAV" report -q --where 'time<2' --format csv "$S" | awk -F, 'NR == 2 { print $1 }')
check "E on the first time range exports its calls" "$n" "$(($(wc -l <"$c") - 1))"
# e on the time level: the bins on screen (2 s at 80x24), not report's 1 s
"$DFNAV" --replay 'e <Enter>' "$S" >/dev/null 2>&1
f=$(ls dfnav-time-*.csv 2>/dev/null | head -1)
"$DFNAV" report -q --by time --bin 2 --metrics basic,max_proc --format csv "$S" >"$T/bins.csv"
same_files "e on time ranges: the screen's bins" "$T/bins.csv" "$f"
# e on the call paths (F): report's rows with the self column, in the
# tree order on screen (it left self out and sorted by time)
"$DFNAV" --replay 'F e <Enter>' "$S" >"$T/flame-e.txt" 2>/dev/null
f=$(ls dfnav-path-*.csv 2>/dev/null | head -1)
"$DFNAV" report -q --by path --metrics basic,max_proc,self_s --format csv "$S" >"$T/paths.csv"
check "e on call paths: report's columns and self" "$(head -1 "$T/paths.csv")" "$(head -1 "$f")"
check "e on call paths: report's rows" "$(tail -n +2 "$T/paths.csv" | sort | cksum)" "$(tail -n +2 "$f" | sort | cksum)"
# (by time, compute would come before the checkpoint's pwrite64)
check "e on call paths: the tree order on screen" \
    "fwrite pwrite64 write" "$(sed -n 6,8p "$f" | cut -d, -f1 | sed 's/.*save_checkpoint;//' | tr '\n' ' ' | sed 's/ $//')"
ls *.tmp.* >/dev/null 2>&1 && fail "a temporary file was left behind" || ok
cd "$T" || exit 1

# --where is the explorer's first filter, as if typed (it was ignored),
# and report's shaping options are refused, not ignored
"$DFNAV" --where 'time>=10 cat=POSIX' --replay '' "$S" >"$T/where.txt" 2>/dev/null
check "--where in the explorer" 'window 10.000-31.730 s  where: time>=10 cat=POSIX' "$(grep window "$T/where.txt" | tail -1)"
for opt in '--by func' '--sort count' '--top 3' '--bin 2' '-m count' '--sizes'; do
    # shellcheck disable=SC2086
    check_status "the explorer refuses $opt" 2 "$DFNAV" $opt --replay '' "$S"
done
check_status "the explorer refuses a bad --where before loading" 2 "$DFNAV" --where 'dur>>1' --replay '' "$S"

# time typed with f: a later bound replaces it (it could only narrow the
# window), an empty filter clears it, and a bound between two µs selects
# what report's does (it was rounded to the µs)
"$DFNAV" --replay 'f time>=10 <Enter> f time>=5 <Enter>' "$S" >"$T/typed.txt" 2>/dev/null
check "a second time bound" 'window 5.000-31.730 s  where: time>=5' "$(grep window "$T/typed.txt" | tail -1)"
"$DFNAV" --replay 'f time>=10 <Enter> f <Enter>' "$S" >"$T/typed.txt" 2>/dev/null
check "an empty filter clears the time typed" 'window 0.000-31.730 s  where: all events' "$(grep window "$T/typed.txt" | tail -1)"
mkdir "$T/sub"
printf '%s\n' '{"name":"train","cat":"app","pid":1,"tid":1,"ts":0,"dur":4000000,"ph":"X"}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1499999,"dur":1,"ph":"X","args":{"fname":"/d/a","ret":1}}' >"$T/sub/t.pfw"
for w in 'time<1.4999994' 'time>=1.4999994'; do
    "$DFNAV" --replay "f $w <Enter> p f e <Enter>" "$T/sub/t.pfw" >/dev/null 2>&1
    "$DFNAV" report -q --by func --where "$w" --metrics basic,max_proc --format csv "$T/sub/t.pfw" >"$T/want.csv"
    same_files "the explorer's $w is report's" "$T/want.csv" "$(ls dfnav-func-*.csv | head -1)"
    rm -f dfnav-func-*.csv
done

# names from traces are data: an escape sequence in a file name is shown, not sent
printf '{"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"fname":"/tmp/x\\u001b[31mred\\u0007"}}\n' >"$T/esc.pfw"
"$DFNAV" --replay 'p F' "$T/esc.pfw" >"$T/esc.txt" 2>/dev/null
grep -q '/tmp/x\\x1b\[31mred\\x07' "$T/esc.txt" && ok || fail "escape bytes shown as \\x1b: $(grep tmp "$T/esc.txt")"
if grep -q "$(printf '\033')" "$T/esc.txt"; then fail "an escape byte reached the screen"; else ok; fi
printf '{"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"fname":"/d/\\u202evsc.exe"}}\n' >"$T/bidi.pfw"
"$DFNAV" --replay 'p F' "$T/bidi.pfw" >"$T/bidi.txt" 2>/dev/null
sed -E 's/^(! |  )//' "$T/bidi.txt" | grep -q '^/d/\\u202evsc\.exe ' && ok || fail "bidi control shown as \\u202e: $(grep /d/ "$T/bidi.txt")"

# a wide character is one character on the replayed screen, as on a terminal
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"fname":"/d/数据集.h5","ret":1}}\n' >"$T/cjk.pfw"
# (a file level marks the rows with diagnostic findings: '! ' or '  ' first)
check "replay: wide characters once" 1 "$("$DFNAV" --replay 'p F' "$T/cjk.pfw" 2>/dev/null | sed -E 's/^(! |  )//' |
    grep -c '^/d/数据集\.h5 ')"

# the time and file levels mark the rows the diagnostic rules find
# something in: small reads of /s in the first half second, not /b's
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":0,"dur":1000,"ph":"X","args":{"fname":"/s","ret":4096}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":2000,"dur":1000,"ph":"X","args":{"fname":"/s","ret":4096}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":4000000,"dur":1000,"ph":"X","args":{"fname":"/b","ret":67108864}}' \
    >"$T/marks.pfw"
"$DFNAV" --replay 'p F' "$T/marks.pfw" >"$T/marks.txt" 2>/dev/null
check "marked time ranges" "! 0.00-0.50 s" "$(awk '/^--- start/ { on = 1 } /^--- p/ { on = 0 } on && /^! / { print $1 " " $2 " " $3 }' "$T/marks.txt")"
check "marked files" "! /s|  /b" "$(awk '/^--- F/ { on = 1 } on && /^(! |  )\// { print substr($0, 1, 4) }' "$T/marks.txt" | sed 's/ *$//' | paste -sd'|')"

# time windows keep round edges: zoom and move land on multiples of the
# bins, and a time typed as a filter becomes the window, binned from round
# edges (issue 17)
check "moving on against the end leaves the window" "window 14.000-31.730 s|window 14.000-31.730 s" \
    "$("$DFNAV" --replay '<Down> z ] ] ] ]' "$S" 2>/dev/null | grep '^window' | tail -2 | cut -d' ' -f1-3 | paste -sd'|')"
# a typed > or <= bound keeps or drops a call at exactly that time as
# --where does (2.x aggregated records sit on round times)
printf '%s\n' '{"name":"a","cat":"app","pid":1,"tid":1,"ts":1000000,"dur":1,"ph":"X","args":{}}' \
    '{"name":"b","cat":"app","pid":1,"tid":1,"ts":6000000,"dur":1,"ph":"X","args":{}}' \
    '{"name":"c","cat":"app","pid":1,"tid":1,"ts":9000000,"dur":1,"ph":"X","args":{}}' >"$T/edge.pfw"
for f in 'time>5' 'time<=5' 'time>=5' 'time<5'; do
    want=$("$DFNAV" report -q -m count --where "$f" --format csv "$T/edge.pfw" | tr -d '\r' | awk -F, 'NR == 2 { print $1 }')
    got=$("$DFNAV" --replay "f $f <Enter>" "$T/edge.pfw" 2>/dev/null | sed -n 's/^\(row [0-9]* of [0-9]*: .* | \|no rows, \)\([0-9]*\) events.*/\2/p' | tail -1)
    check "typed $f: the calls --where $f gives" "$want" "$got"
done
check "zoom in twice, then move: round windows" "window 0.000-16.000 s|window 0.000-8.000 s|window 4.000-12.000 s" \
    "$("$DFNAV" --replay '<Down> <Down> <Down> z z ]' "$S" 2>/dev/null | grep '^window' | tail -3 | cut -d' ' -f1-3 | paste -sd'|')"
# ] then [ comes back: the move keeps the window's width in its own bins
# (a window of 0-9 s went 4-14 s, then 0-10 s, and grew a bin at each
# step); [ at the start and ] at the end leave it; all of the run stays
# all of it
windows() { "$DFNAV" --replay "$1" "$S" 2>/dev/null | grep '^window' | cut -d' ' -f2 | paste -sd'|'; }
check "] and [ there and back, the width kept" \
    "0.000-31.730|0.000-16.000|8.000-24.000|0.000-16.000|8.000-24.000|15.000-31.730|8.000-24.000|0.000-16.000" \
    "$(windows 'z ] [ ] ] [ [')"
check "[ at the start, ] and [ over the whole run" "0.000-31.730|0.000-31.730|0.000-31.730|0.000-31.730" "$(windows '[ ] [')"
# a drilled time range's crumb names the window as it moves and zooms
# (it said 0.0-2.0 s over a window of 1-3 s)
"$DFNAV" --replay '<Enter> ] Z [' "$S" 2>/dev/null | awk '/^--- / { k = $2 } /^dfnav / { print k ": " $0 }' >"$T/crumbs.txt"
check "the crumb follows ], Z and [" "$(printf '%s\n' '<Enter>: dfnav All › 0.0-2.0 s' ']: dfnav All › 1.0-3.0 s' 'Z: dfnav All › 0.0-4.0 s' '[: dfnav All › 0.0-4.0 s')" \
    "$(grep -v '^start:' "$T/crumbs.txt")"
"$DFNAV" --replay 'f time>=3.3 <Space> time<9.1 <Enter>' "$S" >"$T/tw.txt" 2>/dev/null
check "a typed time is the window" "window 3.300-9.100 s  where: time>=3.3 time<9.1" "$(grep '^window' "$T/tw.txt" | tail -1)"
check "its bins: round edges, the first cut at the window" "3.30-3.50 s|3.50-4.00 s|9.00-9.10 s" \
    "$(sed -E 's/^(! |  )//' "$T/tw.txt" | awk '/^--- <Enter>/ { on = 1 } on && /^[0-9.]+-[0-9.]+ s/ { print $1 " " $2 }' |
       sed -n '1p;2p;$p' | paste -sd'|')"

# compute that matched nothing: "-" in compute and exposed, and the status
# line says so at once, or on the first process level when damage has it
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"ret":1}}\n' >"$T/io.pfw"
check "no compute: said at once" 1 \
    "$("$DFNAV" --replay '' "$T/io.pfw" 2>/dev/null | grep -c '^compute matched no event: compute, exposed are -; --compute EXPR sets it')"
check "no compute: the process level shows -" "- 5us -" \
    "$("$DFNAV" --replay 'p p' "$T/io.pfw" 2>/dev/null | awk '/^[^ ]*\/1\/1 / { print $3, $4, $5 }')"
printf 'not json\n' >>"$T/io.pfw"
"$DFNAV" --replay 'p p' "$T/io.pfw" >"$T/io.txt" 2>/dev/null
check "no compute, damage first: the damage on the first screens (and the pivot menu), the note on the process level" "2 1" \
    "$(grep -c 'DAMAGE: 1 bad lines' "$T/io.txt") $(grep -c '^compute matched no event' "$T/io.txt")"

# damage: counted in the status line, listed by file and line on !
{
    echo '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X","args":{"ret":100}}'
    echo '{"name":"read","cat":"POSIX",'
    printf '\001garbage\n'
} >"$T/bad.pfw"
(cd "$T" && "$DFNAV" --replay '!' bad.pfw nonexistent.pfw >"$T/bad.txt" 2>/dev/null)
grep -q "DAMAGE: 2 bad lines, 2 files (! lists)" "$T/bad.txt" && ok ||
    fail "status line counts the damage: $(grep -m1 DAMAGE "$T/bad.txt")"
grep -q "line 2: truncated JSON" "$T/bad.txt" && ok || fail "! lists the bad lines"
grep -q "line 3: not a JSON object" "$T/bad.txt" && ok || fail "! lists every bad line"
grep -q "nonexistent.pfw: No such file or directory" "$T/bad.txt" && ok || fail "! lists a path that gave no file"
(cd "$T" && "$DFNAV" --replay 'q' bad.pfw nonexistent.pfw >/dev/null 2>&1)
check "damage is exit status 1" 1 $?
# filter history: Up brings the last filter back
"$DFNAV" --replay 'f cat=POSIX <Enter> f <C-u> <Up>' "$S" 2>/dev/null | tail -1 >"$T/hist.txt"
check "filter history" "filter: cat=POSIX" "$(cat "$T/hist.txt")"
# columns: c, uncheck count, and the header loses it
"$DFNAV" --replay 'c <Space> <Enter>' "$S" 2>/dev/null >"$T/cols.txt"
awk '/^--- <Enter>$/{f=1; next} f && /^time/{print; exit}' "$T/cols.txt" | grep -q "count" && fail "c did not hide count" || ok
grep -q "\[ \] count" "$T/cols.txt" && ok || fail "the column chooser shows the unchecked column"

# the real trace: three Enters from the time level reach a file of the reader layer
if [ -d "$TRACES/dlio-unet3d" ]; then
    U="$TRACES/dlio-unet3d"
    "$DFNAV" --replay '<Enter> <Enter> / reader_posix_lustre <Enter> <Enter>' "$U" >"$T/u.txt" 2>/dev/null
    golden unet3d-reader-files.txt "$T/u.txt"
    # the figures on the last screen are dfnav report's
    awk '/^--- /{buf = ""; next} { buf = buf $0 "\n" } END { printf "%s", buf }' "$T/u.txt" >"$T/last.txt"
    win=$(sed -n 's/^window \([0-9.]*\)-\([0-9.]*\) s.*/\1 \2/p' "$T/last.txt")
    proc=$(sed -n '1s/.* › \(corona[^ ]*\) › .*/\1/p' "$T/last.txt")
    set -- $win
    "$DFNAV" report -q --by file --where "proc=$proc layer=reader_posix_lustre time<$2" --top 1 --format csv "$U" >"$T/top.csv"
    cnt=$(awk -F, 'NR == 2 { print $2 }' "$T/top.csv")
    row=$(grep -m1 'hdf5 ' "$T/last.txt")
    case "$row" in *" $cnt "*) ok ;; *) fail "file row '$row' does not show report's count $cnt" ;; esac
else
    echo "SKIP: $TRACES not found: explorer checks on the real trace skipped"
fi
finish
