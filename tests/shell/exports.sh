#!/bin/sh
# The explorer's exports in a real terminal (tmux) when things go wrong:
# an existing file is replaced only after a yes; a directory, a device, a
# path under a plain file, a missing directory, a directory the user may
# not write (dfnav run as nobody), a file size limit (ulimit -f, as a full
# disk) and a full file system (a small tmpfs, where mounting is allowed)
# each give a message on the status line naming the file and the reason,
# leave no file and no temporary file, and the explorer goes on: keys
# work and a save to a good path succeeds.
. "$SRCDIR/tests/shell/lib.sh"
. "$SRCDIR/tests/shell/term.sh"
export SOURCE_DATE_EPOCH=1790000000
E="LANG=C.UTF-8 TERM=xterm-256color $DFNAV"
cp -R "$SRCDIR/data/sample" "$T/sample"
chmod -R a+rX "$T"   # dfnav runs as nobody below
"$DFNAV" report -q --by func --metrics basic,max_proc --format csv "$T/sample" >"$T/funcs.csv"

# save PATH: e, the path, Enter
save() { keys e C-u "$1" Enter; }
no_tmp() { check "temporary files left ($1)" "" "$(find "$T" -name '*.tmp.*' | sed "s|$T/||")"; }

start "$E sample"
expect "start-up" "time range▲"
expect_loaded "loaded (exports wait for the analyses too)"
save ref.csv
expect "a first save" "saved " 10
[ -s "$T/ref.csv" ] && ok || fail "ref.csv not written"

# an existing file: n keeps it, y replaces it
printf 'OLD\n' >"$T/old.csv"
save old.csv
expect "an existing file asks first" "The file exists. Overwrite it?"
keys n
expect "n: not saved" "not saved"
check "n keeps the file" "OLD" "$(cat "$T/old.csv")"
save old.csv
expect "asks again" "The file exists. Overwrite it?"
keys y
expect "y: saved" "saved "
same_files "y replaces the file with the table" "$T/ref.csv" "$T/old.csv"

# E: the selected row's calls as CSV, or (C-t, or a .json name) as a
# Chrome trace for Perfetto
keys E
expect "E offers CSV and the switch" "save calls CSV (C-t: Perfetto) as: dfnav-calls-"
keys C-t
expect "C-t: a Chrome trace" "save Perfetto trace (C-t: CSV) as: dfnav-calls-"
check "named .json" "1" "$(screen | grep -c 'as: dfnav-calls-[0-9-]*[.]json$')"
keys C-t
expect "C-t again: back to CSV" "save calls CSV (C-t: Perfetto) as: dfnav-calls-"
check "named .csv" "1" "$(screen | grep -c 'as: dfnav-calls-[0-9-]*[.]csv$')"
keys C-u calls.json Enter
expect "saved as a Chrome trace" "calls to calls.json (Chrome trace: open it in Perfetto UI)" 10
n_saved=$(screen | sed -n 's/.*saved \([0-9]*\) calls to calls.json.*/\1/p')
check "the trace holds the calls saved" "$n_saved" \
    "$(python3 -c 'import json,sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' \
        "$T/calls.json" 2>&1)"

# a dangling symlink is a name that exists: asked, and y replaces the link,
# never writing through it to where it points (issue 23)
ln -s "$T/nowhere/target.csv" "$T/dangling.csv"
save dangling.csv
expect "a dangling link asks first" "The file exists. Overwrite it?"
keys y
expect "y: saved over the link" "saved "
[ -f "$T/dangling.csv" ] && [ ! -L "$T/dangling.csv" ] && [ ! -e "$T/nowhere" ] && ok ||
    fail "the dangling link was not replaced by the file: $(ls -l "$T/dangling.csv")"
same_files "the link's name holds the table" "$T/ref.csv" "$T/dangling.csv"
printf 'KEEP\n' >"$T/kept.csv"
ln -s "$T/kept.csv" "$T/link.csv"
save link.csv
expect "a link to a file asks first" "The file exists. Overwrite it?"
keys y
expect "y: saved over the link to a file" "saved "
check "the link's target is untouched" "KEEP" "$(cat "$T/kept.csv")"
[ ! -L "$T/link.csv" ] && ok || fail "link.csv is still a link"

# what can never be written: each says which file and why, at once
mkdir "$T/adir"
printf 'x' >"$T/plain"
save adir
expect "a directory" "not saved: adir is a directory"
save /dev/full
expect "a device" "not saved: /dev/full is not a regular file"
save plain/x.csv
expect "under a plain file" "not saved: plain/x.csv: cannot create a file in plain: Not a directory"
save nodir/x.csv
expect "a missing directory" "not saved: nodir/x.csv: cannot create a file in nodir: No such file or directory"
# a long path: the reason stays on the line
long="nodir/$(printf '%0100d' 0)/x.csv"
save "$long"
expect "a long path keeps its reason" "No such file or directory"
[ -d "$T/adir" ] && ok || fail "adir is no longer a directory"
[ -c /dev/full ] && ok || fail "/dev/full was replaced"
no_tmp "after refusals"
# the explorer goes on
keys Enter
expect "keys work after failed saves" "process "
keys BSpace
save ref2.csv
expect "a good path saves" "saved "
same_files "the good save" "$T/ref.csv" "$T/ref2.csv"
keys q
expect "quits" "DFNAV-EXIT=0"

# a file size limit (EFBIG, as a full disk): the calls do not fit, the
# function table does
start "ulimit -f 200 && $E sample"   # 100 KiB
expect "start-up with ulimit -f" "time range▲"
expect_loaded "loaded with ulimit -f"
keys p e
expect "calls" "start s"
save calls.csv
expect "the calls exceed the limit" "not saved: calls.csv: File too large" 20
[ -e "$T/calls.csv" ] && fail "calls.csv exists after EFBIG" || ok
no_tmp "after EFBIG"
keys p f
expect "keys work after EFBIG" "function"
save funcs-ex.csv
expect "a smaller table saves" "saved "
same_files "the table saved after EFBIG" "$T/funcs.csv" "$T/funcs-ex.csv"
keys q
expect "quits after EFBIG" "DFNAV-EXIT=0"

# a full file system: a 64 KiB tmpfs in a private mount namespace
mkdir "$T/small"
if [ "$(id -u)" = 0 ] && unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$T/small'" 2>/dev/null; then
    cat >"$T/full.sh" <<EOF
mount -t tmpfs -o size=64k tmpfs small || exit 99
$E sample
st=\$?
echo "LEFT=[\$(ls small)]"
exit \$st
EOF
    start "unshare -m sh full.sh"
    expect "start-up with a small file system" "time range▲"
    expect_loaded "loaded with a small file system"
    keys p e
    expect "calls" "start s"
    save small/calls.csv
    expect "the disk fills" "not saved: small/calls.csv: No space left on device" 20
    keys p f
    expect "keys work after ENOSPC" "function"
    save funcs-ns.csv
    expect "a save elsewhere succeeds" "saved "
    same_files "the table saved after ENOSPC" "$T/funcs.csv" "$T/funcs-ns.csv"
    keys q
    expect "the full file system holds nothing" "LEFT=[]"
    expect "quits after ENOSPC" "DFNAV-EXIT=0"
else
    echo "SKIP: cannot mount a tmpfs here: full file system checks skipped (ulimit -f covers the failure path)"
fi

# a directory the user may not write: dfnav as nobody
mkdir "$T/ro" "$T/rw"
chmod 755 "$T/ro"
chmod 777 "$T/rw"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && $NOBODY "$DFNAV" --version >/dev/null 2>&1; then
    start "LANG=C.UTF-8 TERM=xterm-256color $NOBODY $DFNAV sample"
    expect "start-up as nobody" "time range▲"
    expect_loaded "loaded as nobody"
    save ro/x.csv
    expect "an unwritable directory" "not saved: ro/x.csv: cannot create a file in ro: Permission denied"
    check "nothing in it" "" "$(ls "$T/ro")"
    keys Enter
    expect "keys work after EACCES" "process "
    keys BSpace
    save rw/x.csv
    expect "a writable one saves" "saved "
    same_files "the save as nobody" "$T/ref.csv" "$T/rw/x.csv"
    keys q
    expect "quits as nobody" "DFNAV-EXIT=0"
else
    echo "SKIP: not root, no setpriv, or nobody cannot run $DFNAV: unwritable directory checks skipped"
fi
finish
