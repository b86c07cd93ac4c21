#!/bin/sh
# The explorer in a real terminal: tmux runs it at 80x24, send-keys types,
# capture-pane reads the screen. Start-up, drill down and back, pivot, sort,
# filter, export (file content checked), resize, ASCII mode, TERM variants,
# monochrome, the question before loading a set that may not fit in
# memory, and control and escape bytes from traces shown escaped and
# never sent (the raw terminal output read with pipe-pane). Signals and
# resize storms: signals.sh; export failures: exports.sh.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
. "$SRCDIR/tests/shell/term.sh"
S="$SRCDIR/data/sample"
export SOURCE_DATE_EPOCH=1790000000

E="LANG=C.UTF-8 TERM=xterm-256color $DFNAV"

# start-up shows the time level; drill down and back
start "$E '$S'"
expect "start-up" "time range▲"
expect "start-up breadcrumb" "dfnav All"
# the rows of a finished load: opened mid-load, a time row is of the run so far
expect_loaded "start-up load"
keys Enter
expect "drill to processes" "process"
expect "breadcrumb grows" "All › 0.0-2.0 s"
keys Enter
expect "drill to layers" "layer: dlio-legacy "
keys BSpace
expect "back to processes" "process "
keys BSpace
expect "back to time" "time range▲"
# pivot and sort
keys p f
expect "pivot to functions" "function"
keys '>'
expect "sort moves right" "% time▼"
keys r
expect "reverse" "% time▲"
# filter, shown in the breadcrumb's where line
keys f C-u 'cat=POSIX' Enter
expect "filter applied" "where: cat=POSIX"
# export: the file equals dfnav report
keys e
expect "export asks for a path" "save CSV as: dfnav-func-"
keys Enter
expect "export done" "saved "
f=$(ls "$T"/dfnav-func-*.csv 2>/dev/null | head -1)
"$DFNAV" report -q --by func --where cat=POSIX --sort pct_time:asc --metrics basic,max_proc --format csv "$S" >"$T/r.csv"
same_files "exported CSV (${f:-none in $T}) differs from dfnav report" "$T/r.csv" "$f"
# resize: wider shows more columns, smaller says so, back again draws
tm resize-window -t e -x 130 -y 30
expect "wider screen" "bytes/time"
tm resize-window -t e -x 60 -y 20
expect "too small" "terminal too small"
tm resize-window -t e -x 80 -y 24
expect "back to 80x24" "function"
keys q
expect "q at the top quits" "DFNAV-EXIT=0"
if screen | grep -q "function"; then fail "the explorer's screen stayed after exit"; else ok; fi

# ASCII mode: LANG=C, and --ascii in a UTF-8 terminal
for mode in "LANG=C LC_ALL=C TERM=xterm $DFNAV" "LANG=C.UTF-8 TERM=xterm $DFNAV --ascii"; do
    start "$mode '$S'"
    expect "ASCII start-up ($mode)" "time range^"
    keys Enter
    expect "ASCII drill" "All > 0.0-2.0 s"
    if screen | LC_ALL=C grep -q "$(printf '[\200-\377]')"; then fail "non-ASCII on screen in ASCII mode"; else ok; fi
    keys Q
    expect "Q quits" "DFNAV-EXIT=0"
done

# the real trace at 80x24 in ASCII mode: three Enters reach a file of the
# reader layer with report's figures, and e writes what report prints
if [ -d "$TRACES/dlio-unet3d" ]; then
    U="$TRACES/dlio-unet3d"
    start "LANG=C LC_ALL=C TERM=xterm $DFNAV '$U'"
    expect "real trace: time level at once" "0.0-5.0 s" 5
    keys Enter
    expect "real trace: processes" "corona171/"
    proc=$(screen | sed -n 's/^\(corona171\/[0-9]*\/[0-9]*\) .*/\1/p' | head -1)
    keys Enter
    expect "real trace: layers" "reader_posix_lustre"
    keys / 'reader_posix_lustre' Enter Enter
    expect "real trace: files of the reader layer" "hdf5"
    row=$(screen | grep -m1 'hdf5 ')
    "$DFNAV" report -q --by file --where "proc=$proc layer=reader_posix_lustre time<5" --top 1 --format csv "$U" >"$T/u.csv"
    cnt=$(awk -F, 'NR == 2 { print $2 }' "$T/u.csv")
    case "$row" in *" $cnt "*) ok ;; *) fail "real trace: file row '$row' lacks report's count $cnt" ;; esac
    keys e C-u 'unet3d-files.csv' Enter
    expect "real trace: export" "saved "
    "$DFNAV" report -q --by file --where "proc=$proc layer=reader_posix_lustre time<5" --metrics basic,max_proc --format csv "$U" >"$T/u-all.csv"
    same_files "real trace: export differs from dfnav report" "$T/u-all.csv" "$T/unet3d-files.csv"
    if screen | LC_ALL=C grep -q "$(printf '[\200-\377]')"; then fail "real trace: non-ASCII on screen"; else ok; fi
    keys Q
    expect "real trace: quits" "DFNAV-EXIT=0"
    # the flame view of the real trace: where DLIOBenchmark.run's time goes;
    # Enter lists a path's calls, as many as report counts for the path
    start "$E '$U'"
    expect_loaded "real trace loads, with its call tree"
    keys F
    expect "flame: the top path" "DLIOBenchmark.run "
    expect "flame: its callees indented" "  DLIOBenchmark._train "
    keys Down Down
    path=$(screen | sed -n 's/^row 3 of [0-9]*: \(.*\) | [0-9]* events$/\1/p')
    keys Enter
    n=$("$DFNAV" report -q --by path --where "path=DLIOBenchmark.run;DLIOBenchmark._train;loop.yield" -m count --format csv "$U" |
        awk -F, 'NR == 2 { print $2 }')
    expect "flame: Enter lists the path's calls ($path)" "row 1 of $n: "
    keys BSpace F
    expect "flame: F again, back to the table" "time range▲"
    keys Q
    expect "flame: quits" "DFNAV-EXIT=0"
else
    echo "SKIP: $TRACES not found: real-trace terminal checks skipped"
fi

# every TERM users have
for term in xterm xterm-256color screen tmux-256color vt100; do
    start "LANG=C.UTF-8 TERM=$term $DFNAV '$S'"
    expect "TERM=$term start-up" "0.0-2.0 s"
    keys q
    expect "TERM=$term quits" "DFNAV-EXIT=0"
done

# TERM=vt100 has no Home, End, PgUp or PgDn in its description: the keys
# still move the cursor, and their bytes are never read as Esc (back), '['
# (move the window) and digits
start "LANG=C.UTF-8 TERM=vt100 $DFNAV '$S'"
expect "vt100 start-up" "row 1 of 16: "
keys End
expect "vt100 End: the last row" "row 16 of 16: "
keys Home
expect "vt100 Home: the first row" "row 1 of 16: "
keys NPage
expect "vt100 PgDn: a page down (15 rows)" "row 16 of 16: "
keys PPage
expect "vt100 PgUp: a page up" "row 1 of 16: "
on_screen "window 0.000-31.730 s" && ok || fail "vt100 keys moved the window"
keys Enter Escape
expect "Esc goes back a level" "row 1 of 16: "
on_screen "dfnav All ›" && fail "Esc did not go back" || ok
keys q
expect "TERM=vt100 quits" "DFNAV-EXIT=0"

# lanes of hundreds of ranks at 80x24: a page at a time
"$DFNAV_GEN" --seed 3 --events 60000 --ranks 300 "$T/ranks" >/dev/null
start "$E '$T/ranks'"
expect_loaded "300 ranks load"
keys L
expect "lanes of processes (3 threads each)" "lane 1 of 900: "
keys NPage NPage
expect "two pages of lanes down (17 each)" "lane 35 of 900: "
keys p p p
expect "p p p: lanes by rank" "lanes by rank"
expect "... 300 of them" "lane 1 of 300: "
keys End Right Right
expect "the last lane" "lane 300 of 300: "
keys Enter
expect "a cell opens that lane and range" "› lanes › "
keys BSpace
expect "back to the lanes" "lane 300 of 300: "
keys q q
expect "q: lanes, then the table, then quit" "DFNAV-EXIT=0"

# monochrome: no colour codes at all, the selection still visible (reverse)
for how in "NO_COLOR=1 $E" "$E --color=never"; do
    start "$how '$S'"
    expect "monochrome start-up" "time range▲"
    if tm capture-pane -t e -p -e | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then fail "colour with $how"; else ok; fi
    tm capture-pane -t e -p -e | grep -q "$(printf '\033')\[7m" && ok || fail "no reverse video with $how"
    keys q
    expect "monochrome quits" "DFNAV-EXIT=0"
done

# a set that may not fit in memory: the explorer asks before loading
start "DFNAV_MEM_AVAILABLE=1M $E '$S'"
expect "asks before loading" "This set needs about"
expect "with the figures" "available (DFNAV_MEM_AVAILABLE)"
expect "and the node that would hold it, through dfnav serve" "The explorer holds a set in one process: on a"
expect "... and the way there (dfnav --connect)" "HOST:PORT"
keys n
expect "n quits with status 4" "DFNAV-EXIT=4"
start "DFNAV_MEM_AVAILABLE=1M $E '$S'"
expect "asks again" "This set needs about"
keys y
expect "y loads it" "time range▲"
keys q
expect "quits after loading anyway" "DFNAV-EXIT=0"
start "DFNAV_MEM_AVAILABLE=1M $E --force '$S'"
expect "--force does not ask" "time range▲"
if screen | grep -q "This set needs"; then fail "--force asked"; else ok; fi
keys q
expect "quits" "DFNAV-EXIT=0"

# Control and escape bytes from traces are shown escaped and never reach
# the terminal: window-title and clipboard OSC, erase-display CSI, C1
# controls (U+009B in UTF-8 and a raw 0x9b byte), bell, backspace, carriage
# return and DEL, in function names, file paths, arguments (the call
# detail) and a trace file's own name (the damage screen). Markers MKn
# around each make a leak recognisable among curses' own sequences.
mkdir -p "$T/evil"
ev() { printf '{"name":"%s","cat":"POSIX","pid":1,"tid":1,"ts":%s,"dur":5,"ph":"X","args":{"fname":"%s"%s}}\n' "$@"; }
{
    ev 'evil\u001b]0;pwned\u0007' 1 /d/f1 ',"evil":"\u001b]52;c;cHduZWQ=\u0007"'
    ev read 10 '/d/MK1\u001b[2JMK2' ''
    ev read 20 '/d/MK3\u0008MK4\u000dMK5' ''
    ev read 30 '/d/MK6\u007f\u009bMK7' ''
    ev read 40 "/d/MK8$(printf '\233')MK9" ''
    ev read 50 '/d/\u009d0;pw\u0090q' ''
} >"$T/evil/a.pfw"
printf '{"name":"open","cat":"POSIX","pid":2,"tid":2,"ts":60,"dur":5,"ph":"X"}\nnot json\n' >"$T/evil/b$(printf '\033')]0;fname$(printf '\007').pfw"
start "$E evil"
expect "escape trace loads" "time range▲"
keys p f
expect "function name shown escaped" 'evil\x1b]0;pwned\x07'
keys p F
expect "CSI shown escaped" '/d/MK1\x1b[2JMK2'
expect "BS and CR shown escaped" '/d/MK3\x08MK4\x0dMK5'
expect "DEL and C1 in UTF-8 shown escaped" '/d/MK6\x7f\xc2\x9bMK7'
expect "a raw C1 byte shown escaped" '/d/MK8\x9bMK9'
expect "C1 OSC and DCS shown escaped" '/d/\xc2\x9d0;pw\xc2\x90q'
keys p e
expect "calls level" "start s"
keys Home Enter
expect "clipboard OSC in an argument shown escaped" 'evil           \x1b]52;c;cHduZWQ=\x07'
keys Escape '!'
expect "a file name with an escape shown escaped on the damage screen" 'b\x1b]0;fname\x07.pfw'
keys Q
expect "quit" "DFNAV-EXIT=1"
h=$(hex <"$RAW")
leaked=""
for seq in "$(printf '\033]0;pwned')" "$(printf '\033[2JMK2')" "$(printf '\033]52;')" "$(printf '\033]0;fname')" \
    "$(printf 'MK3\010MK4')" "$(printf 'MK4\rMK5')" "$(printf '\302\233MK7')" "$(printf 'MK8\233MK9')" \
    "$(printf '\007')" "$(printf '\177')"; do
    case $h in *"$(printf '%s' "$seq" | hex)"*) leaked="$leaked $(printf '%s' "$seq" | hex)" ;; esac
done
check "trace bytes that reached the terminal (hex)" "" "$leaked"
# no C1 control at all: curses writes none, so any is a trace's
if printf '%s\n' "$h" | grep -qE ' c2 [89][0-9a-f] '; then fail "a C1 control (U+0080-U+009F) reached the terminal"; else ok; fi
[ -s "$RAW" ] && ok || fail "pipe-pane captured nothing"

# A set that grows while it loads (a named pipe written in two spurts: 0-10 s
# of trace time, a pause, then 10-100 s): the cursor, and Enter, follow the
# highlighted time range when the bins are cut again, not its row number.
if command -v python3 >/dev/null 2>&1; then
    cat >"$T/grow.py" <<'PY'
import sys, time
out = open(sys.argv[1], 'w')
def ev(t, f):
    out.write('{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":%d,"dur":100,"ph":"X","args":{"fname":"/d/%s","size":4096}}\n' % (t, f))
for i in range(60000):
    ev(i * 10000000 // 60000, 'a')
out.flush()
time.sleep(float(sys.argv[2]))
for i in range(540000):
    ev(10000000 + i * 90000000 // 540000, 'b')
out.close()
PY
    mkfifo "$T/grow.pfw"
    start "python3 '$T/grow.py' '$T/grow.pfw' 8 & $E '$T/grow.pfw'"
    expect "the first part shows while loading" "(q cancels)" 20
    # a pipe has no size: what it sent so far, never a percent of it
    expect "a pipe's progress: bytes so far" "MB read so far (q cancels)"
    if on_screen "% of "; then fail "a pipe's progress gives a percent"; else ok; fi
    expect "... with the cursor's row" "row 1 of " 20
    # the part the pipe has sent so far, with room to move (an earlier
    # snapshot may have had a row or two: slow builds see it longer)
    rows4() { screen | grep -q '^row 1 of \([4-9]\|[1-9][0-9]\)[0-9]*: ' && on_screen "(q cancels)"; }
    poll 20 rows4 && ok || fail "no snapshot of 4 rows or more while loading"
    keys Down Down Down
    expect "the cursor on the fourth range" "row 4 of " 5
    # the range it shows (bins of the part read so far: under 10 s each)
    range=$(screen | sed -n 's/^row 4 of [0-9]*: \([0-9.]*-[0-9.]* s\) .*/\1/p')
    case $range in "" | "0.0-10.0 s") fail "the fourth range while loading: '$range'" ;; *) ok ;; esac
    wait_for "compute matched no event" 60   # the load has finished, its note on the status line
    keys C-l                                 # which any key clears
    expect "the cursor stayed on the range that holds it, now 10 s wide" "row 1 of 10: 0.0-10.0 s"
    keys Enter
    expect "Enter opens the highlighted range" "dfnav All › 0.0-10.0 s"
    keys Q
    expect "quits" "DFNAV-EXIT=0"
else
    echo "# no python3: the growing-set test is skipped"
fi

# Files the cache holds show at once; a new one (a pipe, written later)
# loads behind them
C2="$T/cache-late"
DFNAV_CACHE="$C2" "$DFNAV" info -q "$SRCDIR/data/sample" >/dev/null
mkfifo "$T/late.pfw"
start "DFNAV_CACHE='$C2' $E '$SRCDIR/data/sample' '$T/late.pfw'"
expect "the cached files, named in the progress line" "(4 files from the cache)" 10
expect "... show as rows while the pipe is not written yet" "row 1 of " 10
on_screen "files from the cache)" && ok || fail "the load ended before the pipe was written"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":77,"tid":77,"ts":1000,"dur":5,"ph":"X","args":{"ret":1}}' >"$T/late.pfw" &
# its early event re-bins the time ranges, and the cursor follows the
# range it was on (any row): wait for the load, then check the rows
pipe_loaded() { ! on_screen "(q cancels)" && ! on_screen "files from the cache)" && ! on_screen "indexing the layers" &&
                on_screen "0.0-200000000.0 s              1 "; }
poll 30 pipe_loaded && ok || { fail "the pipe's file did not load after them:"; screen | sed 's/^/    | /' >&2; }
sleep 2   # the set's final indexes, installed after its rows show
keys g
expect "the pipe's event counts among the rest" "row 1 of 9: 0.0-200000000.0 s" 10
keys Q
expect "quits" "DFNAV-EXIT=0"

finish
