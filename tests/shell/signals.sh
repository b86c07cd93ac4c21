#!/bin/sh
# Signals and resizes in a real terminal (tmux), during a load and during
# an export: INT, TERM, HUP and QUIT end dfnav promptly with status 128+N,
# the terminal's modes as they were, the cursor shown and the main screen
# back; an export cut by a signal leaves no file under its name (and, but
# for KILL, no temporary file either); Q cancels an export, q waits for
# it; Ctrl-Z stops with the terminal restored and fg redraws, and an
# export stopped that way completes after fg; a stop and continue from
# outside repaints over whatever was written meanwhile and takes the modes
# back; storms of resizes end on the screen the final size gives.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
. "$SRCDIR/tests/shell/term.sh"
export SOURCE_DATE_EPOCH=1790000000
# without the cache: a load these tests interrupt must be a parse, not the
# image an earlier complete load saved
E="LANG=C.UTF-8 TERM=xterm-256color $DFNAV --no-cache"

# big: one process's trace; mid: loads at once, and its first 40 s are an
# export of tens of thousands of calls
"$DFNAV_GEN" --seed 9 --events 600000 --ranks 1 "$T/big" >/dev/null
"$DFNAV_GEN" --seed 9 --events 500000 --ranks 4 "$T/mid" >/dev/null
mkdir -p "$T/out"

# A load that is under way for as long as a test needs, however fast the
# machine: slow.pfw is a FIFO that gives the first 20 MB of big's trace at
# once and the rest only after release (a load timed to outlast the
# test's first look at the screen lost that race on a quick machine).
# The bytes are big's, so the loaded screen is --replay's of big.
BIGFILE=$(ls "$T"/big/*.pfw | head -n 1)
feed() {
    rm -f "$T/slow.pfw" "$T/release"
    mkfifo "$T/slow.pfw"
    (
        head -c 20000000 "$BIGFILE"
        while [ ! -e "$T/release" ]; do sleep 0.05; done
        tail -c +20000001 "$BIGFILE"
    ) >"$T/slow.pfw" 2>/dev/null &
    FEED=$!
}
release() { : >"$T/release"; }
# unfeed: the writer gone, whether or not the load read everything
unfeed() {
    release
    pkill -P "$FEED" 2>/dev/null
    kill "$FEED" 2>/dev/null
    wait "$FEED" 2>/dev/null
    rm -f "$T/slow.pfw"
}

signum() { case $1 in HUP) echo 1 ;; INT) echo 2 ;; QUIT) echo 3 ;; KILL) echo 9 ;; TERM) echo 15 ;; esac; }
exited() { exit_status | grep -q .; }

# after_signal SIG WHAT: dfnav ended of SIG, promptly, the terminal restored
after_signal() {
    if poll 5 exited; then ok; else fail "SIG$1 $2: dfnav still running 5 s later"; screen | sed 's/^/    | /' >&2; return; fi
    check "SIG$1 $2: exit status" "$((128 + $(signum "$1")))" "$(exit_status)"
    tty_sane && ok || fail "SIG$1 $2: terminal modes not restored: $(stty -a -F "$(pane_tty)" | tr '\n' ' ' | head -c 300)"
    # pipe-pane copies the output with some delay
    poll 5 screen_left "$RAW" && ok || fail "SIG$1 $2: the alternate screen or the hidden cursor was left"
    if screen | grep -q "Enter drill"; then fail "SIG$1 $2: the explorer's screen stayed"; else ok; fi
}

# -- during a load --
for sig in INT TERM HUP QUIT; do
    feed
    start "$E slow.pfw"
    expect "loading before SIG$sig" "loading " 10
    kill -s "$sig" "$(dfnav_pid)"
    after_signal "$sig" "while loading"
    unfeed
done

# q cancels a load at once, even one waiting for its input
feed
start "$E slow.pfw"
expect "loading shows progress" "loading " 10
keys q
expect "q cancels the load" "DFNAV-EXIT=0" 5
unfeed

# -- during an export --
# export_calls FILE: the calls of mid (all of them, so that the export
# lasts a second or so), saved to FILE
export_calls() {
    start "$E mid"
    expect_loaded "mid loads"
    keys p e
    expect "calls level" "start s"
    keys e C-u "$1" Enter
}
tmp_growing() { for f in "$T/$1".tmp.*; do [ -s "$f" ] && return 0; done; return 1; }
for sig in INT TERM HUP KILL; do
    rm -f "$T"/out/*
    export_calls out/x.csv
    if poll 30 tmp_growing out/x.csv && [ ! -e "$T/out/x.csv" ]; then ok; else
        fail "SIG$sig: no export under way to interrupt: $(ls "$T/out")"; continue
    fi
    kill -s "$sig" "$(dfnav_pid)"
    if [ "$sig" = KILL ]; then
        poll 5 exited
        check "SIGKILL mid-export: exit status" 137 "$(exit_status)"
        # only the temporary file can be left, under a name that says so
        left=$(ls "$T/out")
        case $left in x.csv.tmp.??????) ok ;; *) fail "SIGKILL mid-export left '$left', not one x.csv.tmp.XXXXXX" ;; esac
    else
        after_signal "$sig" "during an export"
        check "SIG$sig mid-export: files left in the export's directory" "" "$(ls "$T/out")"
    fi
done
rm -f "$T"/out/*

# quitting during an export: Q cancels it (nothing left), q q waits for it
export_calls out/q.csv
poll 30 tmp_growing out/q.csv || fail "Q: no export under way"
keys Q
expect "Q during an export quits at once" "DFNAV-EXIT=0" 5
expect "Q says the export was not saved" "not saved: out/q.csv: cancelled"
check "Q: files left in the export's directory" "" "$(ls "$T/out")"
export_calls out/q.csv
poll 30 tmp_growing out/q.csv || fail "q: no export under way"
keys q
expect "q during an export asks" "an export is running"
keys q
expect "q q waits for the export" "DFNAV-EXIT=0" 60
rows=$(screen | sed -n 's/.*saved \([0-9]*\) rows to out\/q.csv.*/\1/p')
check "q q: the whole export is there" "$((rows + 1))" "$(wc -l <"$T/out/q.csv" | tr -d ' ')"
rm -f "$T"/out/*

# -- Ctrl-Z and fg in a shell with job control, during a load --
start_shell() {
    tm kill-server 2>/dev/null
    RUN=$((RUN + 1))
    SOCK="dfnavtest$$-$RUN"
    RAW="$T/raw.$RUN"
    : >"$RAW"
    tm -f /dev/null new-session -d -s e -x 80 -y 24 "cd '$T' && PS1='PROMPT\$ ' bash --norc --noprofile -i"
    tm pipe-pane -t e "cat >>'$RAW'"
    expect "the shell is ready" 'PROMPT$' 10
}
stopped() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = T ]; }
feed
start_shell
keys "$E slow.pfw; echo DFNAV-EXIT=\$?" Enter
expect "loading before Ctrl-Z" "loading " 10
pid=$(pgrep -P "$(tm display -p -t e '#{pane_pid}')" -x dfnav)
keys C-z
expect "Ctrl-Z stops it" "Stopped" 5
poll 5 stopped "$pid" && ok || fail "Ctrl-Z: dfnav is not stopped"
poll 5 screen_left "$RAW" && ok || fail "Ctrl-Z: the alternate screen or the hidden cursor was left while stopped"
if screen | grep -q "Enter drill"; then fail "Ctrl-Z: the explorer's screen stayed"; else ok; fi
keys "fg; echo FG-EXIT=\$?" Enter
expect "fg redraws" "Enter drill" 5
not_left() { ! screen_left "$RAW"; }
poll 5 not_left && ok || fail "fg: the alternate screen was not entered again"
release
expect_loaded "the load goes on after fg"
unfeed
keys q
expect "quits after fg" "FG-EXIT=0" 10

# -- Ctrl-Z and fg during an export: the export pauses and then completes --
start_shell
keys "$E mid" Enter
expect_loaded "mid loads in the shell"
keys p e   # all the calls: an export of a second or so
expect "calls level in the shell" "start s"
keys e C-u out/tstp.csv Enter
poll 30 tmp_growing out/tstp.csv || fail "Ctrl-Z: no export under way"
pid=$(pgrep -P "$(tm display -p -t e '#{pane_pid}')" -x dfnav)
keys C-z
expect "Ctrl-Z during an export stops it" "Stopped" 5
poll 5 stopped "$pid" && ok || fail "Ctrl-Z during an export: dfnav is not stopped"
poll 5 screen_left "$RAW" && ok || fail "Ctrl-Z during an export: the terminal was not restored"
[ -e "$T/out/tstp.csv" ] && fail "the export completed before Ctrl-Z: nothing was tested" || ok
keys "fg" Enter
expect "the export completes after fg" "saved " 60
rows=$(screen | sed -n 's/.*saved \([0-9]*\) rows to out\/tstp.csv.*/\1/p')
check "Ctrl-Z during an export: the whole export is there" "$((rows + 1))" "$(wc -l <"$T/out/tstp.csv" | tr -d ' ')"
check "Ctrl-Z during an export: temporary files left" "" "$(ls "$T/out" | grep tmp)"
keys Q
rm -f "$T"/out/*

# -- SIGSTOP (not catchable) and SIGCONT from outside: the program takes
# the terminal modes back and repaints what was written over it --
start "$E mid"
expect_loaded "mid loads"
pid=$(dfnav_pid)
kill -s STOP "$pid"
poll 5 stopped "$pid" || fail "SIGSTOP did not stop it"
printf '\033[10;10HGARBAGE-WHILE-STOPPED' >"$(pane_tty)"
stty sane -F "$(pane_tty)"
expect "garbage is on the screen" "GARBAGE-WHILE-STOPPED"
kill -s CONT "$pid"
not_garbage() { ! screen | grep -q GARBAGE; }
poll 5 not_garbage && ok || fail "SIGCONT: the screen was not repainted"
program_modes() { ! tty_sane; }
poll 5 program_modes && ok || fail "SIGCONT: the terminal modes were not taken back"
keys p f
expect "keys work after SIGCONT" "function"
keys Q
expect "quits after SIGCONT" "DFNAV-EXIT=0"

# -- resize storms: no crash, and the screen of the final size --
# storm: many sizes, from 1x1 to 220x60, without pause
storm() {
    for s in 20x5 200x60 1x1 80x24 133x41 2x2 79x23 220x60 40x10 81x25 10x80 150x30 30x3 100x50 \
        60x20 199x59 3x1 120x40 80x23 79x24 90x90 17x17 100x30; do
        tm resize-window -t e -x "${s%x*}" -y "${s#*x}" 2>/dev/null
    done
    tm resize-window -t e -x "${1%x*}" -y "${1#*x}"
}
# same_screen DESC SIZE KEYS SET [LINE]: the pane equals the replay of
# KEYS on SET at SIZE, but for line LINE (the status line, which says
# other things after an export), within 10 s: what comes behind the keys
# (the rows' marks, the status line's slowest process) the replay waits
# for, and the pane shows once it is there
drop_line() { if [ -n "$1" ]; then sed "${1}d"; else cat; fi; }
same_screen() {
    "$DFNAV" --replay "$3" --size "$2" --screens "$T/replay.txt" "$T/$4" 2>/dev/null
    tail -n "${2#*x}" "$T/replay.txt" | drop_line "${5:-}" >"$T/want.txt"
    for _ in $(seq 100); do
        screen | sed 's/ *$//' | drop_line "${5:-}" >"$T/got.txt"
        cmp -s "$T/want.txt" "$T/got.txt" && break
        sleep 0.1
    done
    same_files "$1: the screen differs from --replay at $2" "$T/want.txt" "$T/got.txt"
}
feed
start "$E slow.pfw"
expect "loading before the storm" "loading " 10
storm 100x30
release
expect_loaded "the load ends after a storm"
unfeed
if kill -0 "$(dfnav_pid)" 2>/dev/null; then ok; else fail "the storm during the load ended dfnav"; fi
same_screen "storm while loading" 100x30 "" big
keys q
expect "quits after the storm" "DFNAV-EXIT=0"

export_calls out/storm.csv
expect "export under way" "saving out/storm.csv" 10
storm 90x28
expect "the export ends after a storm" "saved " 60
rows=$(screen | sed -n 's/.*saved \([0-9]*\) rows to out\/storm.csv.*/\1/p')
check "storm during the export: lines in the file" "$((rows + 1))" "$(wc -l <"$T/out/storm.csv" | tr -d ' ')"
check "storm during the export: temporary files left" "" "$(ls "$T/out" | grep tmp)"
same_screen "storm while exporting" 90x28 "p e" mid 27
keys Q
expect "quits after the storm" "DFNAV-EXIT=0"
finish
