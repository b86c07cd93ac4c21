# Shared by the terminal suites (sourced after lib.sh): a tmux server per
# session, a session that runs a command at 80x24 and then shows its exit
# status, the screen as text (capture-pane), the bytes the program wrote to
# the terminal (pipe-pane, attached before the command starts), the
# terminal's modes (stty on the pane's tty), and waits that poll for a
# condition with a time limit rather than sleeping a fixed time.
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux not installed (apt-get install tmux)"
    exit 77
fi
# tmux's sockets go in the build tree too, unless its path is too long for
# a socket address (108 bytes with tmux-UID/dfnavtestPID-N): then /tmp
if [ ${#tmp_root} -le 64 ]; then
    TMUX_TMPDIR=$tmp_root
    export TMUX_TMPDIR
fi
RUN=0
SOCK="dfnavtest$$-0"
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT

# start CMD...: a fresh 80x24 session running CMD in $T, then
# DFNAV-EXIT=STATUS; $RAW gets every byte written to the terminal
start() {
    tm kill-server 2>/dev/null
    RUN=$((RUN + 1))
    SOCK="dfnavtest$$-$RUN"   # a fresh server each time: no race with the last one's exit
    RAW="$T/raw.$RUN"
    : >"$RAW"
    # the command waits until pipe-pane is attached, so no byte is missed
    printf '%s\n' "while [ ! -e '$T/go.$RUN' ]; do sleep 0.02; done; cd '$T' && $* ; echo DFNAV-EXIT=\$?; sleep 600" >"$T/run.sh"
    tm -f /dev/null new-session -d -s e -x 80 -y 24 "sh '$T/run.sh'"
    tm pipe-pane -t e "cat >>'$RAW'"
    : >"$T/go.$RUN"
}
screen() { tm capture-pane -t e -p; }
# poll SECONDS COMMAND...: true once COMMAND succeeds, false after SECONDS
poll() {
    n=$(( $1 * 20 ))
    shift
    while [ $n -gt 0 ]; do
        if "$@"; then return 0; fi
        sleep 0.05
        n=$((n - 1))
    done
    return 1
}
on_screen() { screen | grep -qF -- "$1"; }
wait_for() { poll "${2:-10}" on_screen "$1"; }   # wait_for TEXT [seconds]
# the load (and the indexing after it) has finished: the status line shows
# the cursor's row and no progress (the row shows while loading too)
loaded() { on_screen "row 1 of " && ! on_screen "(q cancels)" && ! on_screen "indexing the layers"; }
expect_loaded() {   # expect_loaded DESCRIPTION [seconds]
    if poll "${2:-60}" loaded; then ok; else fail "$1: the load did not finish:"; screen | sed 's/^/    | /' >&2; fi
}
expect() {   # expect DESCRIPTION TEXT [seconds]
    if wait_for "$2" "${3:-10}"; then ok; else fail "$1: '$2' not on screen:"; screen | sed 's/^/    | /' >&2; fi
}
keys() { tm send-keys -t e "$@"; sleep 0.15; }
# the pid of the program the session runs (the child of its shell)
dfnav_pid() {
    shpid=$(tm display -p -t e '#{pane_pid}')
    poll 10 pgrep -P "$shpid" -x dfnav >/dev/null && pgrep -P "$shpid" -x dfnav
}
pane_tty() { tm display -p -t e '#{pane_tty}'; }
# the terminal's line discipline as the shell needs it: line editing and
# echo on (a program that dies in curses mode leaves -icanon -echo)
tty_sane() {
    st=$(stty -a -F "$(pane_tty)") || return 1
    case " $st " in *" -icanon "* | *" -echo "* | *" -icrnl "*) return 1 ;; esac
    case " $st " in *" icanon "*) ;; *) return 1 ;; esac
    case " $st " in *" echo "*) return 0 ;; *) return 1 ;; esac
}

# Raw terminal output as " 1b 5b ..." so that byte sequences match only
# at byte boundaries; terminfo gives the sequences for xterm-256color.
hex() { od -An -tx1 -v | tr -s ' \n' '  '; }
SMCUP=$(tput -T xterm-256color smcup | hex)
RMCUP=$(tput -T xterm-256color rmcup | hex)
CIVIS=$(tput -T xterm-256color civis | hex)
CNORM=$(tput -T xterm-256color cnorm | hex)
# screen_left FILE: after the last switch to the alternate screen the
# program switched back, and after it last hid the cursor it showed it
screen_left() {
    h=$(hex <"$1")
    case $h in *"$SMCUP"*) ;; *) return 1 ;; esac
    case ${h##*"$SMCUP"} in *"$RMCUP"*) ;; *) return 1 ;; esac
    case ${h##*"$CIVIS"} in *"$CNORM"*) return 0 ;; *) return 1 ;; esac
}
# exit_status: N from the DFNAV-EXIT=N line, once it shows
# (anywhere on a line: a program killed in curses mode leaves the cursor anywhere)
exit_status() { screen | grep -o 'DFNAV-EXIT=[0-9]*' | tail -1 | cut -d= -f2; }
