#!/bin/sh
# dfnav serve and dfnav --connect (issue 20): a client's report, overview,
# info and headless replay give the bytes and exit status of the same
# command run locally, in every format; the explorer runs over the
# connection in tmux at 80x24, and keeps its screen with a message when
# the server goes; the token file is its user's only (mode 0600), wrong
# tokens and malformed messages are refused and logged while the server
# goes on serving; a client may not set what the server holds. Under MPI
# (when built with it and mpirun is there) the server's load is divided
# among 2 and 3 ranks and clients get the same answers.
. "$SRCDIR/tests/shell/lib.sh"
. "$SRCDIR/tests/shell/term.sh"
B=${DFN_BUILDDIR:-$PWD}
NETSEND="$B/tests/netsend"
export LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=1790000000

"$DFNAV_GEN" --seed 7 --events 30000 --ranks 4 --era newest --ckpt-func PyTorchCheckpointing.checkpoint "$T/set" >/dev/null ||
    fail "dfnav-gen"
# (a set with counter samples: the explorer's tracks and ctr column)
"$DFNAV_GEN" --seed 5 --events 6000 --ranks 3 --era v2 --counters "$T/cset" >/dev/null || fail "dfnav-gen counters"
mkdir -p "$T/damaged"
for f in nul.pfw negative.pfw kinds.pfw numbers.pfw; do cp "$SRCDIR/tests/damaged/$f" "$T/damaged/"; done
cp "$T/set/trace-0-of-4.pfw" "$T/damaged/gen.pfw"

# serve NAME [LAUNCHER...] -- PATHS: starts a server in the background
# (its log in $T/NAME.log, its token in $T/NAME.tok) and waits until it
# is ready; PORT is where it listens, SPID its pid (mpirun's under MPI)
serve() {
    name=$1; shift
    launcher=""
    while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
    shift
    $launcher "$DFNAV" serve --listen 127.0.0.1:0 --token-file "$T/$name.tok" "$@" 2>"$T/$name.log" &
    SPID=$!
    if poll 60 grep -q "serve: ready" "$T/$name.log"; then ok; else fail "$name: not ready: $(cat "$T/$name.log")"; fi
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$T/$name.log")
    TOK="$T/$name.tok"
}
stop() {   # stop STATUS|mpi: the server ends on SIGTERM with its load's status, the token file with it
    kill "$SPID"
    wait "$SPID"
    st=$?
    # (mpirun's own status after a SIGTERM is mpirun's to choose)
    [ "$1" = mpi ] || check "server: exit status on SIGTERM" "$1" "$st"
    [ ! -e "$TOK" ] && ok || fail "the token file outlived the server"
}
# same NAME SET ARGS...: ARGS over --connect give the local run's stdout,
# stderr and exit status
same() {
    name=$1 set=$2; shift 2
    "$DFNAV" "$@" --no-cache "$set" >"$T/local.out" 2>"$T/local.err"
    want=$?
    "$DFNAV" "$@" --connect "127.0.0.1:$PORT" --token-file "$TOK" >"$T/remote.out" 2>"$T/remote.err"
    got=$?
    if [ "$got" != "$want" ]; then
        fail "$name: exit $got over --connect, $want locally ($(head -c 300 "$T/remote.err"))"
    elif [ ! -s "$T/local.out" ] || ! cmp -s "$T/local.out" "$T/remote.out"; then
        fail "$name: output differs over --connect"; diff "$T/local.out" "$T/remote.out" 2>&1 | head -5 >&2
    elif ! cmp -s "$T/local.err" "$T/remote.err"; then
        fail "$name: stderr differs over --connect"; diff "$T/local.err" "$T/remote.err" 2>&1 | head -5 >&2
    else
        ok
    fi
}

serve one -- "$T/set"
# the token: 64 hex digits, the user's only
check "token file mode" "600" "$(stat -c %a "$TOK")"
check "token: 64 hex digits" 1 "$(grep -c '^[0-9a-f]\{64\}$' "$TOK")"
for fmt in table csv json; do
    same "report by func ($fmt)" "$T/set" report --by func -f "$fmt"
done
same "report by file,pid all metrics" "$T/set" report --by file,pid -m all -f csv
same "report by layer, where" "$T/set" report --by layer --where "dur>100" -f json
same "report by time" "$T/set" report --by time --bin 0.5 -f csv
same "report by event" "$T/set" report --by event --top 300 -f csv
same "report diagnose" "$T/set" report --diagnose
same "overview" "$T/set" overview
same "info" "$T/set" info -f csv
# a usage error: the same message and status, and no output
"$DFNAV" report --by nosuch --no-cache "$T/set" >"$T/local.out" 2>"$T/local.err"
check_status "a usage error over --connect" 2 "$DFNAV" report --by nosuch --connect "127.0.0.1:$PORT" --token-file "$TOK"
same_files "a usage error: its message" "$T/local.err" "$T/err"
check "a usage error: no output" "" "$(cat "$T/out")"
# the headless explorer: the same screens (the latency lines aside)
"$DFNAV" --replay 'p f > <Enter> <Down> / read <Enter>' --size 80x24 --no-cache "$T/set" 2>/dev/null |
    grep -v '^latency' >"$T/local.screens"
"$DFNAV" --replay 'p f > <Enter> <Down> / read <Enter>' --size 80x24 --connect "127.0.0.1:$PORT" --token-file "$TOK" \
    2>/dev/null | grep -v '^latency' >"$T/remote.screens"
same_files "replay screens over --connect" "$T/local.screens" "$T/remote.screens"
grep -q "connected: --replay" "$T/one.log" && ok || fail "the server logs who connected: $(cat "$T/one.log")"

# a client may not choose the server's set, cache or files
check_status "client's --cache refused" 2 "$DFNAV" report --cache "$T/c" --connect "127.0.0.1:$PORT" --token-file "$TOK"
grep -q -- "--cache is the server's to set" "$T/err" && ok || fail "--cache refusal: $(cat "$T/err")"
check_status "client's --screens refused" 2 "$DFNAV" --replay q --screens "$T/s" --connect "127.0.0.1:$PORT" --token-file "$TOK"
[ ! -e "$T/s" ] && ok || fail "a client's --screens wrote a file"
check_status "paths with --connect" 2 "$DFNAV" report --connect "127.0.0.1:$PORT" --token-file "$TOK" "$T/set"
check_status "extract with --connect" 2 "$DFNAV" extract -o - --connect "127.0.0.1:$PORT" --token-file "$TOK"

# tokens: a wrong one is refused and logged; a file others can read is
# not used
cp "$TOK" "$T/bad.tok"
printf '%064d\n' 0 >"$T/bad.tok"
check_status "wrong token" 5 "$DFNAV" report --connect "127.0.0.1:$PORT" --token-file "$T/bad.tok"
grep -q "refused: wrong token" "$T/err" && ok || fail "wrong token message: $(cat "$T/err")"
grep -q "refused: wrong token" "$T/one.log" && ok || fail "wrong token not logged"
cp "$TOK" "$T/open.tok"
chmod 644 "$T/open.tok"
check_status "token others can read" 5 "$DFNAV" report --connect "127.0.0.1:$PORT" --token-file "$T/open.tok"
grep -q "only you can read" "$T/err" && ok || fail "open token message: $(cat "$T/err")"
check_status "no server there" 5 "$DFNAV" report --connect "127.0.0.1:1" --token-file "$TOK"

# malformed messages: refused and logged, and the server goes on
printf 'GET / HTTP/1.1\r\n\r\n' | "$NETSEND" 127.0.0.1 "$PORT" >"$T/reply"
grep -q "unknown message type 47" "$T/reply" && ok || fail "an HTTP request: no refusal sent"
printf '\000\000\000\000\143' | "$NETSEND" 127.0.0.1 "$PORT" >/dev/null
# a greeting of protocol version 2
printf '\000\000\000\010\001DFNAV\000\000\002' | "$NETSEND" 127.0.0.1 "$PORT" >"$T/reply"
grep -q "protocol version 2" "$T/reply" && ok || fail "version 2: no refusal sent"
# a greeting cut short, then silence
printf '\000\000\000\100\001DFNAV' | "$NETSEND" 127.0.0.1 "$PORT" >/dev/null
poll 5 grep -q "unknown message type 99" "$T/one.log" && ok || fail "unknown type not logged: $(cat "$T/one.log")"
poll 5 grep -q "protocol version 2, where this dfnav speaks 1" "$T/one.log" && ok || fail "version not logged"
poll 5 grep -q "refused: closed before its greeting" "$T/one.log" && ok || fail "a greeting cut short not logged"
same "still serving after malformed messages" "$T/set" report --by func -f csv

# greetings with the token's proof that no dfnav client sends: each
# refused, and nothing run (a command line that would swallow the
# server's own part, a path, an option without its value); a greeting
# with the proof of another token; and one that is fine
hello() { "$NETSEND" 127.0.0.1 "$PORT" --hello "$TOK" "$@" >"$T/reply"; }
hello --se --replay /dev/null --screens "$T/pwned" --io
grep -q "^REFUSE '--se' is not an option a client may give" "$T/reply" && ok || fail "--se: $(cat "$T/reply")"
[ ! -e "$T/pwned" ] && ok || fail "a client's --screens wrote a file on the server"
hello info /etc
grep -q "^REFUSE '/etc' is not an option" "$T/reply" && ok || fail "a path from a client: $(cat "$T/reply")"
hello report --by
grep -q "^REFUSE --by without its value" "$T/reply" && ok || fail "an option without its value: $(cat "$T/reply")"
hello --bad report --by func
grep -q "^REFUSE wrong token" "$T/reply" && ok || fail "another token's proof: $(cat "$T/reply")"
hello report --by func --format csv
check "an admitted greeting: the server proves itself" "WELCOME ok" "$(grep WELCOME "$T/reply")"
check "an admitted greeting: its status" "EXIT 0" "$(tail -1 "$T/reply")"
# a server without the token: the client shows nothing it sends
"$NETSEND" --forger "$T/forger.port" &
fpid=$!
poll 5 test -s "$T/forger.port" || fail "the forger did not start"
check_status "a server without the token" 5 "$DFNAV" report --connect "127.0.0.1:$(cat "$T/forger.port")" --token-file "$TOK"
grep -q "does not hold the token" "$T/err" && ok || fail "forged server: $(cat "$T/err")"
check "forged server: nothing shown" "" "$(cat "$T/out")"
wait $fpid
# ... nor the escapes of its refusal
rm -f "$T/forger.port"
"$NETSEND" --forger-refuse "$T/forger.port" &
fpid=$!
poll 5 test -s "$T/forger.port" || fail "the forger did not start"
check_status "a refusal with escapes" 5 "$DFNAV" report --connect "127.0.0.1:$(cat "$T/forger.port")" --token-file "$TOK"
check "a refusal's escapes are not passed to the terminal" 0 "$(tr -cd '\033\007' <"$T/err" | wc -c)"
grep -q "fake prompt" "$T/err" && ok || fail "the refusal's text: $(cat -v "$T/err")"
wait $fpid
# a layer file would be the server's: a client names presets only; and
# option clusters are sent as typed
check_status "a client's --layers FILE" 2 "$DFNAV" report --layers /etc/passwd --connect "127.0.0.1:$PORT" --token-file "$TOK"
grep -q "takes a preset over --connect" "$T/err" && ok || fail "--layers FILE: $(cat "$T/err")"
hello report --layers /etc/passwd --by layer
grep -q "^REFUSE --layers takes a preset" "$T/reply" && ok || fail "--layers FILE in a greeting: $(cat "$T/reply")"
same "--layers preset over --connect" "$T/set" report --layers posix --by layer
same "an option cluster over --connect" "$T/set" report -qbfunc
# a flood of connections that never greet: dropped, the oldest first,
# and a client still served
# (one process opens all 70 at once and holds them 3 s: 70 shells'
# pipelines started one by one on a loaded machine did not all overlap)
sleep 3 | "$NETSEND" --flood 127.0.0.1 "$PORT" 70 >"$T/flood.out" 2>&1 &
flood=$!
sleep 1
same "served during a flood of silent connections" "$T/set" report --by layer -f csv
wait $flood
# (70 less the gate's 64, but a connection the kernel's backlog made
# wait may come as others leave)
n=$(cat "$T/flood.out")
[ "${n:-0}" -ge 1 ] && ok || fail "the flood: no silent connection refused as too many ($n)"
grep -q "too many connections waiting to be admitted" "$T/one.log" && ok || fail "the flood: none dropped"
# a second server may not take the token file of one that runs
check_status "a second server on the same token file" 2 "$DFNAV" serve --token-file "$TOK" "$T/set"
grep -q "holds the token of a server that runs here" "$T/err" && ok || fail "second server: $(cat "$T/err")"
same "the first still serves" "$T/set" info -f csv

# a terminal the server's machine does not know: drawn for the common
# one; q ends the explorer and the client with it, status 0
start "TERM=dfnav-no-such-term $DFNAV --connect 127.0.0.1:$PORT --token-file '$TOK'"
expect "explorer for an unknown TERM" "time range▲"
keys q
expect "q over --connect: status 0" "DFNAV-EXIT=0"
grep -q "ended: the explorer: status 0" "$T/one.log" && ok || fail "the explorer's end not logged: $(cat "$T/one.log")"

# the explorer over the connection, in tmux at 80x24; the server goes
# while it runs: the last screen stays, with a message, until a key
start "TERM=xterm-256color $DFNAV --connect 127.0.0.1:$PORT --token-file '$TOK'"
expect "explorer over --connect" "time range▲"
keys p f
expect "pivot over --connect" "function"
keys '>'
expect "sort over --connect" "% time▼"
keys e
expect "no saving over --connect" "no saving over --connect"
tm resize-window -t e -x 100 -y 30 2>/dev/null || tm resize-pane -t e -x 100 -y 30 2>/dev/null
# the explorer draws for the new size: lines past 80 columns, the header,
# and the hints on row 30 (the last of the new size, so not left from the
# old one) before the server is stopped: a stop in the middle of the
# redraw would leave half a screen, rightly
redrawn() {
    screen >"$T/wide"
    [ "$(awk '{ if (length > n) n = length } END { print n + 0 }' "$T/wide")" -gt 80 ] &&
        grep -qF "% time▼" "$T/wide" && sed -n 30p "$T/wide" | grep -qF "q quit"
}
if poll 10 redrawn; then ok
else fail "resize did not reach the server:"; screen | sed 's/^/    | /' >&2; fi
stop 0
expect "the connection lost: said" "the connection was lost; press a key"
on_screen "% time▼" && ok || fail "the last screen was not kept"
keys x
expect "a key: the status" "DFNAV-EXIT=5"
expect "the message again below" "dfnav: --connect 127.0.0.1:$PORT: the connection was lost"

# a damaged set: the damage reports reach the client as they are
serve dmg -- "$T/damaged"
# the served explorer killed outright: the client gives the terminal back
# (no alternate screen) and says how it ended
start "TERM=xterm-256color $DFNAV --connect 127.0.0.1:$PORT --token-file '$TOK'"
expect "explorer again" "time range▲"
kill -KILL $(pgrep -f -- "--served --cache") 2>/dev/null
expect "killed explorer: the client's status" "DFNAV-EXIT=137"
check "killed explorer: out of the alternate screen" 0 "$(tm display -p -t e '#{alternate_on}')"

same "damaged: report" "$T/damaged" report --by func
same "damaged: info" "$T/damaged" info
stop 1

# serve --spread: the set stays in shares on the ranks (here one, without
# a launcher; 2 and 3 under MPI below) and clients' report, overview and
# info give the local run's bytes (runs compared too); a command after
# another builds its own layers; what needs the set whole, and the explorer, are refused
# with why; the ranks' socket is the server's user's and refuses what no
# client's command sends; stopping leaves nothing behind
# spread_same NAME: the commands a spread server answers as a local run
spread_same() {
    for fmt in table csv json; do
        same "$1: report by func ($fmt)" "$T/set" report --by func -f "$fmt"
    done
    same "$1: report by file,pid all metrics" "$T/set" report --by file,pid -m all -f csv
    same "$1: report by layer, where" "$T/set" report --by layer --where "dur>100" -f json
    same "$1: report by time" "$T/set" report --by time --bin 0.5 -f csv
    same "$1: report by event" "$T/set" report --by event --top 300 -f csv
    same "$1: report by func,event" "$T/set" report --by func,event --top 5
    same "$1: report overlap" "$T/set" report --by pid -m compute_s,io_busy_s,overlap_pct
    same "$1: report diagnose" "$T/set" report --diagnose
    same "$1: report counters" "$T/set" report --counters -f csv
    same "$1: report, layers of a preset" "$T/set" report --by layer --layers posix
    same "$1: report, layers of its own again" "$T/set" report --by layer
    same "$1: overview" "$T/set" overview
    same "$1: info" "$T/set" info -f csv
    same "$1: info --list args" "$T/set" info --list args
    # what report refuses: in its words, with its status
    same_refusal "$1: a bad --by" report --by nosuch
    same_refusal "$1: --counters with --top" report --counters --top 3
    same_refusal "$1: --counters by what counters lack" report --counters --by func
    same_refusal "$1: --counters where counters lack" report --counters --where "func=read"
    same_refusal "$1: --diagnose by two dimensions" report --diagnose --by func,file
}
# same_refusal NAME ARGS...: ARGS over --connect say what a local run
# says on stderr, with its status (and print nothing)
same_refusal() {
    name=$1; shift
    "$DFNAV" "$@" --no-cache "$T/set" >"$T/local.out" 2>"$T/local.err"
    want=$?
    "$DFNAV" "$@" --connect "127.0.0.1:$PORT" --token-file "$TOK" >"$T/remote.out" 2>"$T/remote.err"
    check "$name: its status" "$want" "$?"
    same_files "$name: what it says" "$T/local.err" "$T/remote.err"
    check "$name: nothing printed" "" "$(cat "$T/local.out" "$T/remote.out")"
}
# spread_refuses NAME: what needs the set whole in one process
spread_refuses() {
    check_status "$1: calls within groups without --top" 2 \
        "$DFNAV" report --by func,event --connect "127.0.0.1:$PORT" --token-file "$TOK"
    grep -q "needs it whole in one process: calls within other groups add up on the ranks with a --top" "$T/err" &&
        ok || fail "$1: calls within groups: $(cat "$T/err")"
}
# explore_same NAME SET KEYS SIZE [ARGS...]: the explorer's screens over
# --connect, key by key, are a local run's of SET with ARGS
explore_same() {
    name=$1 set=$2 keys=$3 size=$4; shift 4
    "$DFNAV" --replay "$keys" --size "$size" "$@" --no-cache "$set" 2>/dev/null | grep -v '^latency' >"$T/local.screens"
    "$DFNAV" --replay "$keys" --size "$size" "$@" --connect "127.0.0.1:$PORT" --token-file "$TOK" 2>"$T/remote.err" |
        grep -v '^latency' >"$T/remote.screens"
    same_files "$name: $keys" "$T/local.screens" "$T/remote.screens"
}
# spread_explore NAME KEYS...: the explorer on the spread set, each KEYS
# a replay: every level and view, queried on the ranks (calls and a
# call's detail, lanes, flame, diagnostics and marks, filters, search,
# the argument prompt), as a local run of $T/set shows them
spread_explore() {
    name=$1; shift
    for keys; do explore_same "$name: explorer" "$T/set" "$keys" 80x24; done
}
explore_all() {
    spread_explore "$1" 'p l' '<Enter> <Enter> <Enter>' 'p f > > r <Enter>' 'L m <Right> <Enter>' 'L p p' \
        'd <Down> <Enter>' 'F <Down> <Down> <Enter>' 'p F / ckpt <Enter> n' 'z z Z [ ]' 'p a <Tab>' \
        'f dur>1000 <Enter> p l' '!' '<Enter> <Enter> <Enter> <Enter> <Enter>' 'p e > > <Enter> <Down>' \
        'p t <Enter> <Enter>'
}
explore_ranks() {
    spread_explore "$1" 'p l' '<Enter> <Enter> <Enter> <Enter> <Enter>' 'p e > > <Enter>' 'F <Down> <Enter>' 'd' 'L'
}
mkdir -p "$T/spreadtmp"
keep_tmp=${TMPDIR-}
export TMPDIR="$T/spreadtmp"
serve spread1 -- --spread "$T/set"
export TMPDIR="$keep_tmp"
grep -q "serve: ready: 30745 events, in shares on 1 rank;" "$T/spread1.log" && ok ||
    fail "spread: the ready line: $(cat "$T/spread1.log")"
grep -Eq "serve: the 1 rank loaded its share of the set: [0-9.]+[KMGT]?i?B, 30745 events in [0-9.]+ s\$" "$T/spread1.log" && ok ||
    fail "spread: how the rank loaded: $(cat "$T/spread1.log")"
spread_same "spread"
spread_refuses "spread"
# (under the sanitizers, the views that cross ranks: CI's time)
if sanitized; then explore_ranks spread; else explore_all spread; fi
explore_same "spread: wide calls" "$T/set" 'p e > r <Down> <Enter>' 130x40
explore_same "spread: a client's own layers" "$T/set" '<Enter> <Enter>' 80x24 --layers posix
explore_same "spread: a compute that matches nothing" "$T/set" 'p p' 80x24 --compute func=nosuch
ranks=$(echo "$T"/spreadtmp/dfnav-serve-*/ranks)
check "spread: the ranks' socket's mode" "600" "$(stat -c %a "$ranks")"
check "spread: its directory's mode" "700" "$(stat -c %a "$(dirname "$ranks")")"
# what no client's command sends: each refused and logged, the server serving on
printf 'GET / HTTP/1.1\r\n\r\n' | "$NETSEND" --unix "$ranks" --fds >"$T/reply"
printf 'DFNR\002\002\000\000\000\000\000\001\000\000\000\002a\000' | "$NETSEND" --unix "$ranks" --fds >/dev/null
printf 'DFNR\001\011\000\000\000\000\000\001\000\000\000\002a\000' | "$NETSEND" --unix "$ranks" --fds >/dev/null
printf 'DFNR\001\002\000\000\000\000\000\002\000\000\000\002a\000' | "$NETSEND" --unix "$ranks" --fds >/dev/null
printf 'DFNR\001\002\000\000\000\000\000\001\000\000\000\144report\000' | "$NETSEND" --unix "$ranks" >/dev/null
check "spread: a request that is none: no answer" "" "$(cat "$T/reply")"
for why in "no command of dfnav's" "a command of another version" "a command of word 9" \
           "a command of fewer words than it says" "a command cut short"; do
    grep -q "ranks: refused: $why" "$T/spread1.log" && ok || fail "spread: not refused: $why: $(tail -3 "$T/spread1.log")"
done
same "spread: serving on" "$T/set" report --by func -f csv
# a client that stops reading holds up no other: its command's output
# waits in files of its own, never in the client's pipe (here a request
# sent as a client's command sends it, with descriptors to a pipe that
# nobody reads, which a rank that wrote there would fill and wait on)
be32() {
    printf "\\$(printf %03o $((($1 >> 24) & 255)))\\$(printf %03o $((($1 >> 16) & 255)))"
    printf "\\$(printf %03o $((($1 >> 8) & 255)))\\$(printf %03o $(($1 & 255)))"
}
ranksreq() {   # ranksreq WORD ARGS...: serve --spread's command (dfn_ranksreq)
    word=$1; shift
    bytes=0
    for a; do bytes=$((bytes + ${#a} + 1)); done
    printf 'DFNR\001'; printf "\\$(printf %03o "$word")"; printf '\000\000'
    be32 $#; be32 $bytes
    for a; do printf '%s\000' "$a"; done
}
# spread_bad_queries SOCKET: an explorer's queries that are none (no such
# op, no hex, damaged bytes of each kind, no such run) are answered, and
# every rank goes on serving: each refuses the same bytes alike
spread_bad_queries() {   # spread_bad_queries SOCKET
    sock=$1
    for q in "9 0 00" "2 0 zz" "2 0 0102" "3 0 0102" "4 0 0102" "5 0 0102" "6 0 0102" "2 99 00"; do
        # shellcheck disable=SC2086
        set -- $q
        ranksreq 7 "$1" "$2" "$3" "$DFNAV" --served --ranks "$sock" -- "$T/set" |
            "$NETSEND" --unix "$sock" --fds >/dev/null 2>&1
    done
}
spread_bad_queries "$ranks"
same "spread: serving on after queries that are none" "$T/set" report --by func -f csv
ranksreq 2 "$DFNAV" report --by event -f csv --served --ranks "$ranks" -- "$T/set" |
    "$NETSEND" --unix "$ranks" --fds --hold | sleep 30 &
stalled=$!
sleep 1
timeout 20 "$DFNAV" report --by func -f csv --connect "127.0.0.1:$PORT" --token-file "$TOK" >"$T/remote.out" 2>/dev/null
check "spread: answered while another client stalls" 0 "$?"
"$DFNAV" report --by func -f csv --no-cache "$T/set" >"$T/local.out" 2>/dev/null
same_files "spread: answered while another client stalls: the rows" "$T/local.out" "$T/remote.out"
kill "$stalled" 2>/dev/null
wait "$stalled" 2>/dev/null
stop 0
check "spread: nothing left in TMPDIR" "" "$(ls -A "$T/spreadtmp")"
# the counter tracks and the ctr column from the ranks
serve spreadc -- --spread "$T/cset"
for keys in 'p l' 'C' 'C C' 'C <Enter> <Enter>' 'C <Enter> <Enter> <Enter> z'; do
    explore_same "spread: counters" "$T/cset" "$keys" 80x24
done
stop 0

# a damaged set in shares: the damage reports reach the client as they are
serve spreaddmg -- --spread "$T/damaged"
same "spread: damaged: report" "$T/damaged" report --by func
same "spread: damaged: overview" "$T/damaged" overview
same "spread: damaged: info" "$T/damaged" info
stop 1

# runs side by side in shares (--compare): each run a share of every
# rank's, each client's comparison the local one's bytes
mkdir -p "$T/cmpa" "$T/cmpb"
cp "$T"/set/trace-0-of-4.pfw "$T"/set/trace-1-of-4.pfw "$T/cmpa/"
cp "$T"/set/trace-2-of-4.pfw "$T"/set/trace-3-of-4.pfw "$T/cmpb/"
# same_cmp NAME ARGS...: a comparison of runs a and b over --connect
# gives the local one's stdout, stderr and status
same_cmp() {
    name=$1; shift
    "$DFNAV" "$@" --compare --no-cache "a=$T/cmpa" "b=$T/cmpb" >"$T/local.out" 2>"$T/local.err"
    want=$?
    "$DFNAV" "$@" --connect "127.0.0.1:$PORT" --token-file "$TOK" >"$T/remote.out" 2>"$T/remote.err"
    check "$name: its status" "$want" "$?"
    same_files "$name: what it says" "$T/local.err" "$T/remote.err"
    if [ -s "$T/local.out" ]; then same_files "$name: its rows" "$T/local.out" "$T/remote.out"
    else check "$name: nothing printed" "" "$(cat "$T/remote.out")"; fi
}
spread_cmp_same() {
    same_cmp "$1: compare by func" report --by func
    same_cmp "$1: compare by layer,time (json)" report --by layer,time -f json
    same_cmp "$1: compare by func, all metrics, sorted by run b" report --by func -m all --sort time_s@b -f csv
    same_cmp "$1: compare calls" report --by event --top 20
    same_cmp "$1: compare diagnose" report --diagnose
    same_cmp "$1: compare overview" overview
    # what a comparison refuses, in report's words after the runs' layers
    same_cmp "$1: compare calls within groups" report --by func,event --top 5
    same_cmp "$1: compare counters" report --counters
    same_cmp "$1: compare sorted by no run" report --by func --sort time_s@c
}
serve spreadcmp -- --spread --compare "a=$T/cmpa" "b=$T/cmpb"
grep -q "serve: ready: 30745 events, in shares on 1 rank;" "$T/spreadcmp.log" && ok ||
    fail "spread, compare: the ready line: $(cat "$T/spreadcmp.log")"
grep -q "serve: the 1 rank loaded its share of run b: " "$T/spreadcmp.log" && ok ||
    fail "spread, compare: how run b loaded: $(cat "$T/spreadcmp.log")"
spread_cmp_same "spread"
stop 0
check_status "spread, compare: a run without files" 3 \
    "$DFNAV" serve --spread --compare --token-file "$T/x.tok" "a=$T/cmpa" "b=$T/nothing-here"
grep -q "b: no trace file to read" "$T/err" && ok || fail "spread, compare: a run without files: $(cat "$T/err")"
check_status "--spread belongs to serve" 2 "$DFNAV" report --spread "$T/set"

# runs side by side: the server's --compare, its runs' names
serve cmp -- --compare "base=$T/set" "bad=$T/damaged"
"$DFNAV" report --compare --by layer --no-cache "base=$T/set" "bad=$T/damaged" >"$T/local.out" 2>"$T/local.err"
check_status "compare: report over --connect" 1 "$DFNAV" report --by layer --connect "127.0.0.1:$PORT" --token-file "$TOK"
same_files "compare: report over --connect" "$T/local.out" "$T/out"
"$DFNAV" --compare --replay 'p l' --no-cache "base=$T/set" "bad=$T/damaged" 2>/dev/null | grep -v '^latency' >"$T/local.screens"
"$DFNAV" --replay 'p l' --connect "127.0.0.1:$PORT" --token-file "$TOK" 2>/dev/null | grep -v '^latency' >"$T/remote.screens"
same_files "compare: the explorer's screens" "$T/local.screens" "$T/remote.screens"
grep -q "base.*bad" "$T/remote.screens" && ok || fail "compare: no runs on the screens"
stop 1

# a set that cannot load: the server says so and ends, status 3
"$DFNAV" serve --token-file "$T/none.tok" "$T/nothing-here" 2>"$T/none.log"
check "serve: nothing to load" 3 "$?"
[ ! -e "$T/none.tok" ] && ok || fail "the token file outlived a failed load"
check_status "serve: standard input refused" 2 "$DFNAV" serve --token-file "$T/x.tok" -
# a named pipe too, also as one run of a comparison: a client's command,
# which reopens the set, would wait on it forever
mkfifo "$T/pipe.pfw"
check_status "serve: a named pipe refused" 2 "$DFNAV" serve --token-file "$T/x.tok" "$T/set" "$T/pipe.pfw"
grep -q "serve reads trace files, and $T/pipe.pfw is none (a pipe gives its bytes once" "$T/err" && ok ||
    fail "serve: a named pipe: $(cat "$T/err")"
check_status "serve: a named pipe in a comparison refused" 2 \
    "$DFNAV" serve --compare --token-file "$T/x.tok" "a=$T/set" "b=$T/pipe.pfw"
[ ! -e "$T/x.tok" ] && ok || fail "serve: a refused pipe left a token file"
check_status "serve: --listen needs a port" 2 "$DFNAV" serve --listen localhost: --token-file "$T/x.tok" "$T/set"
check_status "--listen belongs to serve" 2 "$DFNAV" report --listen 1 "$T/set"

# a signal while the set loads: the token file and the image's directory
# go with the server
"$DFNAV_GEN" --seed 8 --events 400000 --ranks 2 "$T/biggish" >/dev/null
mkdir -p "$T/sigtmp"
TMPDIR="$T/sigtmp" "$DFNAV" serve --token-file "$T/sig.tok" "$T/biggish" 2>"$T/sig.log" &
spid=$!
poll 10 grep -q "listening on" "$T/sig.log" || fail "serve: never listened"
kill -INT $spid
wait $spid
[ $? -ne 0 ] && ok || fail "serve: SIGINT while loading: status 0"
[ ! -e "$T/sig.tok" ] && ok || fail "SIGINT while loading: the token file was left"
check "SIGINT while loading: no image directory left" "" "$(ls -A "$T/sigtmp")"

# a server killed outright: its gate removes the token file and the image
mkdir -p "$T/killtmp"
TMPDIR="$T/killtmp" "$DFNAV" serve --token-file "$T/kill.tok" "$T/set" 2>"$T/kill.log" &
spid=$!
poll 30 grep -q "serve: ready" "$T/kill.log" || fail "serve: not ready: $(cat "$T/kill.log")"
kill -KILL $spid
wait $spid
poll 10 test ! -e "$T/kill.tok" && ok || fail "a killed server's token file was left"
poll 10 sh -c "[ -z \"\$(ls -A '$T/killtmp')\" ]" && ok || fail "a killed server's image was left: $(ls -R "$T/killtmp")"

# under MPI: the server's load divided among the ranks, the same answers
if ! mpi_setup; then
    echo "MPI serve checks skipped: $mpi_why"
else
    # (under the sanitizers, 3 ranks only: CI's time; 2 and 3 otherwise)
    mpi_ranks="2 3"
    sanitized && mpi_ranks=3
    for ranks in $mpi_ranks; do
        serve "mpi$ranks" $MPIRUN -n $ranks -- "$T/set"
        grep -q "MPI: $ranks ranks: 4 of 4 files from their images" "$T/mpi$ranks.log" && ok ||
            fail "$ranks ranks: the shares: $(cat "$T/mpi$ranks.log")"
        # every rank's last note reached rank 0: the events are the set's
        grep -Eq "serve: the $ranks ranks parsed their shares of the set: [0-9.]+[KMGT]?i?B, 30745 events in [0-9.]+ s; the slowest, rank [0-9], [0-9.]+ s, the fastest, rank [0-9], [0-9.]+ s\$" "$T/mpi$ranks.log" && ok ||
            fail "$ranks ranks: how the ranks parsed: $(cat "$T/mpi$ranks.log")"
        same "$ranks ranks: report by func" "$T/set" report --by func -f csv
        same "$ranks ranks: overview" "$T/set" overview
        "$DFNAV" --replay 'p l <Enter>' --size 80x24 --connect "127.0.0.1:$PORT" --token-file "$TOK" 2>/dev/null |
            grep -v '^latency' >"$T/remote.screens"
        "$DFNAV" --replay 'p l <Enter>' --size 80x24 --no-cache "$T/set" 2>/dev/null | grep -v '^latency' >"$T/local.screens"
        same_files "$ranks ranks: replay screens" "$T/local.screens" "$T/remote.screens"
        stop mpi
    done
    for ranks in $mpi_ranks; do
        keep_tmp=${TMPDIR-}
        export TMPDIR="$T/spreadtmp"   # (its private directory, where its ranks' socket is)
        serve "spread$ranks" $MPIRUN -n $ranks -- --spread "$T/set"
        export TMPDIR="$keep_tmp"
        grep -q "serve: ready: 30745 events, in shares on $ranks ranks;" "$T/spread$ranks.log" && ok ||
            fail "spread, $ranks ranks: $(cat "$T/spread$ranks.log")"
        grep -Eq "serve: the $ranks ranks loaded their shares of the set: [0-9.]+[KMGT]?i?B, 30745 events in [0-9.]+ s; the slowest, rank [0-9], [0-9.]+ s, the fastest, rank [0-9], [0-9.]+ s\$" "$T/spread$ranks.log" && ok ||
            fail "spread, $ranks ranks: how the ranks loaded: $(cat "$T/spread$ranks.log")"
        spread_same "spread, $ranks ranks"
        spread_refuses "spread, $ranks ranks"
        explore_ranks "spread, $ranks ranks"
        spread_bad_queries "$(echo "$T"/spreadtmp/dfnav-serve-*/ranks)"
        same "spread, $ranks ranks: serving on after queries that are none" "$T/set" report --by func -f csv
        stop mpi
        serve "spreadcmp$ranks" $MPIRUN -n $ranks -- --spread --compare "a=$T/cmpa" "b=$T/cmpb"
        spread_cmp_same "spread, $ranks ranks"
        stop mpi
    done
    # counters on 3 ranks: a row's counter means need each host whole on a
    # rank (--overlap-by host), and without it are not offered, which the
    # explorer says; with it, tracks and the ctr column as one process's
    serve spreadc3 $MPIRUN -n 3 -- --spread "$T/cset"
    "$DFNAV" --replay 'p l' --size 80x24 --connect "127.0.0.1:$PORT" --token-file "$TOK" 2>/dev/null >"$T/remote.screens"
    grep -q "no ctr column: a host's samples may lie on another rank" "$T/remote.screens" && ok ||
        fail "spread, 3 ranks: the ctr column, said: $(grep row "$T/remote.screens" | head -3)"
    stop mpi
    serve spreadch3 $MPIRUN -n 3 -- --spread --overlap-by host "$T/cset"
    for keys in 'p l' 'C <Enter> <Enter>'; do
        explore_same "spread, 3 ranks, hosts whole: counters" "$T/cset" "$keys" 80x24 --overlap-by host
    done
    stop mpi
    check "MPI: nothing left in the images' directory" "" "$(ls -A "$DFNAV_MPI_TMPDIR")"
fi
finish
