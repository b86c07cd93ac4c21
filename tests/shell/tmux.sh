#!/bin/sh
# The explorer in a real terminal: tmux runs it at 80x24, send-keys types,
# capture-pane reads the screen. Start-up, drill down and back, pivot, sort,
# filter, export (file content checked), resize, ASCII mode, an escape byte
# in a file name (raw terminal output read with pipe-pane), TERM variants,
# monochrome, cancel while loading, and signals restoring the terminal.
. "$SRCDIR/tests/shell/lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux not installed (apt-get install tmux)"
    exit 77
fi
RUN=0
SOCK="dfnavtest$$-0"
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
S="$SRCDIR/data/sample"
export SOURCE_DATE_EPOCH=1790000000

# start CMD...: a fresh 80x24 session running CMD, then the exit status
start() {
    tm kill-server 2>/dev/null
    RUN=$((RUN + 1))
    SOCK="dfnavtest$$-$RUN"   # a fresh server each time: no race with the last one's exit
    printf '%s\n' "cd '$T' && $* ; echo DFNAV-EXIT=\$?; sleep 600" >"$T/run.sh"
    tm -f /dev/null new-session -d -s e -x 80 -y 24 "sh '$T/run.sh'"
}
screen() { tm capture-pane -t e -p; }
wait_for() {   # wait_for TEXT [seconds]
    n=$(( ${2:-10} * 20 ))
    while [ $n -gt 0 ]; do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.05
        n=$((n - 1))
    done
    return 1
}
expect() {   # expect DESCRIPTION TEXT [seconds]
    if wait_for "$2" "${3:-10}"; then ok; else fail "$1: '$2' not on screen:"; screen | sed 's/^/    | /' >&2; fi
}
keys() { tm send-keys -t e "$@"; sleep 0.15; }

E="LANG=C.UTF-8 TERM=xterm-256color $DFNAV"

# start-up shows the time level; drill down and back
start "$E '$S'"
expect "start-up" "time▲"
expect "start-up breadcrumb" "dfnav All"
keys Enter
expect "drill to processes" "process"
expect "breadcrumb grows" "All › 0.0-2.0 s"
keys Enter
expect "drill to layers" "layer "
keys BSpace
expect "back to processes" "process "
keys BSpace
expect "back to time" "time▲"
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
"$DFNAV" report -q --by func --where cat=POSIX --sort pct_time:asc --format csv "$S" >"$T/r.csv"
same_files "exported CSV (${f:-none in $T}) differs from dfnav report" "$T/r.csv" "$f"
# resize: wider shows more columns, smaller says so, back again draws
tm resize-window -t e -x 130 -y 30
expect "wider screen" "bandwidth"
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
    expect "ASCII start-up ($mode)" "time^"
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
    "$DFNAV" report -q --by file --where "proc=$proc layer=reader_posix_lustre time<5" --format csv "$U" >"$T/u-all.csv"
    same_files "real trace: export differs from dfnav report" "$T/u-all.csv" "$T/unet3d-files.csv"
    if screen | LC_ALL=C grep -q "$(printf '[\200-\377]')"; then fail "real trace: non-ASCII on screen"; else ok; fi
    keys Q
    expect "real trace: quits" "DFNAV-EXIT=0"
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

# monochrome: no colour codes at all, the selection still visible (reverse)
for how in "NO_COLOR=1 $E" "$E --color=never"; do
    start "$how '$S'"
    expect "monochrome start-up" "time▲"
    if tm capture-pane -t e -p -e | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then fail "colour with $how"; else ok; fi
    tm capture-pane -t e -p -e | grep -q "$(printf '\033')\[7m" && ok || fail "no reverse video with $how"
    keys q
    expect "monochrome quits" "DFNAV-EXIT=0"
done

# an escape sequence inside a file name is shown, never sent
printf '{"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"fname":"/x\\u001b[31m\\u001b]0;\\u0007"}}\n' >"$T/esc.pfw"
start "$E '$T/esc.pfw'"
expect "escape trace loads" "time▲"
tm pipe-pane -t e -o "cat >>'$T/raw.out'"
keys p F
expect "file shown with visible escapes" '/x\x1b[31m\x1b]0;\x07'
keys q
expect "quit" "DFNAV-EXIT=0"
tm pipe-pane -t e
if grep -q "$(printf '\033')\[31m" "$T/raw.out" || grep -q "$(printf '\033')]0;" "$T/raw.out"; then
    fail "a trace's escape sequence reached the terminal"
else ok; fi
[ -s "$T/raw.out" ] && ok || fail "pipe-pane captured nothing"

# cancel while loading: q stops the load at once
"$DFNAV_GEN" --seed 9 --events 3000000 --ranks 4 "$T/big" >/dev/null
start "$E -j 1 '$T/big'"
expect "loading shows progress" "loading " 10
keys q
expect "q cancels the load" "DFNAV-EXIT=0" 5

# signals restore the terminal and end the program
for sig in TERM HUP INT; do
    start "$E '$S'"
    expect "start-up before SIG$sig" "time▲"
    pid=$(pgrep -n -f "dfnav $S")
    kill -s "$sig" "$pid"
    expect "SIG$sig ends it" "DFNAV-EXIT=" 5
    if screen | grep -q "time▲"; then fail "SIG$sig left the explorer's screen"; else ok; fi
done
tm kill-server
finish
