#!/bin/sh
# The cache as a user meets it: every table is the same read from the
# traces, on the load that saves the image and on the one that maps it;
# where the cache lives; dfnav cache and --clear; a damaged entry is said
# and rebuilt; processes building one entry at once; a cache that cannot
# be written costs only speed, with one warning.
. "$SRCDIR/tests/shell/lib.sh"
C="$T/cache"
export DFNAV_CACHE="$C"

# 32 events: a store of a multiple of 16 events once kept an index
# entry of 0 past its end, and its image was refused as damaged
mkdir "$T/sixteens"
awk 'BEGIN { for (i = 0; i < 32; i++) printf "{\"id\":%d,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"ph\":\"X\",\"args\":{\"fname\":\"/d/f%d\",\"ret\":10}}\n", i, 100 + i, i % 3 }' >"$T/sixteens/t.pfw"
sets="$T/sixteens $SRCDIR/tests/damaged"
[ -d "$TRACES" ] && sets="$sets $TRACES/dlio-unet3d $TRACES/dlio-2023 $TRACES/v0-quoted"

# every table, read three ways: without the cache, saving, and mapping
tables() {   # tables OUT OPTIONS... PATH
    out=$1; shift
    : >"$out"
    for args in "info" "report --by func" "report --by file,func --metrics all" "report --by time,layer" \
                "report --by event --top 50" "report --by proc --diagnose" "overview" "report --counters --by counter"; do
        # shellcheck disable=SC2086
        "$DFNAV" $args --format csv "$@" >>"$out" 2>&1
        echo "status $?" >>"$out"
    done
}
for s in $sets; do
    name=$(basename "$s")
    rm -rf "$C"
    tables "$T/$name.plain" --no-cache "$s"
    tables "$T/$name.first" "$s"
    check "$name: one entry saved" 1 "$(ls "$C" | grep -c '^set-.*\.img$')"
    born=$(stat -c '%w' "$C"/set-*.img)
    used=$(stat -c '%y' "$C"/set-*.img)
    sleep 0.01
    tables "$T/$name.again" "$s"
    # a use touches the entry in place; a rebuild would rename a new file over it
    [ "$born" = "-" ] || check "$name: the same entry" "$born" "$(stat -c '%w' "$C"/set-*.img)"
    [ "$used" != "$(stat -c '%y' "$C"/set-*.img)" ] && ok || fail "$name: the entry was not used"
    same_files "$name: tables saving the image equal the parse" "$T/$name.plain" "$T/$name.first"
    same_files "$name: tables from the image equal the parse" "$T/$name.plain" "$T/$name.again"
done

# three files on one process and thread: none of them can be given back
# alone (the third once took the lane for its own, and a set of it and
# another file showed all three files' calls)
mkdir "$T/shared" "$T/other"
for f in 0 1 2; do
    echo "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":$((100 + f)),\"dur\":5,\"ph\":\"X\",\"args\":{\"fname\":\"/d/f$f\",\"ret\":10}}" >"$T/shared/f$f.pfw"
done
echo '{"name":"write","cat":"POSIX","pid":8,"tid":8,"ts":100,"dur":5,"ph":"X","args":{"fname":"/d/g","ret":10}}' >"$T/other/g.pfw"
rm -rf "$C"
"$DFNAV" info -q "$T/shared" >/dev/null
"$DFNAV" report --by event --format csv --no-cache "$T/shared/f2.pfw" "$T/other/g.pfw" >"$T/want" 2>&1
"$DFNAV" report --by event --format csv "$T/shared/f2.pfw" "$T/other/g.pfw" >"$T/got" 2>&1
same_files "a file on a process other files share is read, not given back" "$T/want" "$T/got"
check "its one call" 1 "$(grep -c ',read,' "$T/got")"

# one host named two ways on one process (a hash in one file, its name in
# the other) makes one lane of two: neither file can come back alone
# (their events on it were left out, and an empty table was saved)
mkdir "$T/named"
printf '%s\n' '[' '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"node01","value":11}}' \
    '{"id":2,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":100,"dur":5,"ph":"X","args":{"hhash":11,"ret":10}}' >"$T/named/x1.pfw"
printf '%s\n' '[' '{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":200,"dur":5,"ph":"X","args":{"hostname":"node01","ret":20}}' >"$T/named/x2.pfw"
rm -rf "$C"
"$DFNAV" info -q "$T/named/x1.pfw" "$T/named/x2.pfw" >/dev/null
for f in x1 x2; do
    "$DFNAV" report --by func --format csv --no-cache "$T/named/$f.pfw" >"$T/want" 2>&1
    "$DFNAV" report --by func --format csv "$T/named/$f.pfw" >"$T/got" 2>&1
    same_files "$f, on a lane another file names its host otherwise, is read, not given back" "$T/want" "$T/got"
    check "$f: its call" 1 "$(grep -c '^read,1,' "$T/got")"
done

# a set that shares files with one the cache holds: those come from its
# image, the rest are parsed, and every table is the parse's (how many
# come back is checked in test_cache.c)
if [ -d "$TRACES/dlio-unet3d" ]; then
    U="$TRACES/dlio-unet3d"
    for args in "info" "report --by func" "report --by file,func --metrics all" "report --by time,layer" \
                "report --by event --top 50" "report --by proc --diagnose" "overview"; do
        for part in "$U/trace-[0-2]-of-8.pfw" "$U/trace-[0-9]-of-8.pfw"; do
            rm -rf "$C"
            # shellcheck disable=SC2086
            "$DFNAV" info -q $part >/dev/null                   # the image of a part of the set
            # shellcheck disable=SC2086
            "$DFNAV" $args --format csv --no-cache $U/trace-[2-5]-of-8.pfw >"$T/want" 2>&1
            "$DFNAV" $args --format csv $U/trace-[2-5]-of-8.pfw >"$T/got" 2>&1
            same_files "$args, files from another set's image" "$T/want" "$T/got"
        done
    done
fi

# --no-cache neither reads nor writes
rm -rf "$C"
"$DFNAV" info -q --no-cache "$SRCDIR/data/sample" >/dev/null
check "--no-cache writes nothing" "no" "$([ -e "$C" ] && echo yes || echo no)"

# where it lives: --cache, then DFNAV_CACHE, then XDG_CACHE_HOME, then HOME
"$DFNAV" info -q --cache "$T/given" "$SRCDIR/data/sample" >/dev/null
check "--cache DIR" 1 "$(ls "$T/given" | grep -c '^set-')"
(unset DFNAV_CACHE; XDG_CACHE_HOME="$T/xdg" "$DFNAV" info -q "$SRCDIR/data/sample" >/dev/null)
check "XDG_CACHE_HOME/dfnav" 1 "$(ls "$T/xdg/dfnav" | grep -c '^set-')"
(unset DFNAV_CACHE XDG_CACHE_HOME; HOME="$T/home" "$DFNAV" info -q "$SRCDIR/data/sample" >/dev/null)
check "~/.cache/dfnav" 1 "$(ls "$T/home/.cache/dfnav" | grep -c '^set-')"
check "the cache is private" "drwx------" "$(ls -ld "$T/home/.cache/dfnav" | cut -c1-10)"

# dfnav cache lists entries with their source; --clear empties it
rm -rf "$C"
"$DFNAV" info -q "$SRCDIR/data/sample" >/dev/null
"$DFNAV" info -q "$SRCDIR/tests/damaged/kinds.pfw" >/dev/null
"$DFNAV" cache >"$T/list"
check "two entries listed" 2 "$(grep -c '^set-' "$T/list")"
check "newest first, with its source" "kinds.pfw" "$(awk 'NR == 2 { print $NF }' "$T/list" | xargs basename)"
check "the total line" "$C: 2 entries," "$(tail -1 "$T/list" | cut -d' ' -f1-3)"
"$DFNAV" cache --format csv >"$T/list.csv"
check "csv header" "entry,bytes,events,files,last_used,source" "$(head -1 "$T/list.csv")"
check "csv rows" 3 "$(wc -l <"$T/list.csv" | tr -d ' ')"
check_status "cache takes no path" 2 "$DFNAV" cache "$SRCDIR/data/sample"
check_status "--clear only with cache" 2 "$DFNAV" info --clear "$SRCDIR/data/sample"
"$DFNAV" cache --clear >"$T/clear"
check "cleared" "$C: removed 2 entries," "$(cut -d' ' -f1-4 "$T/clear")"
check "empty after --clear" 0 "$(ls "$C" | wc -l | tr -d ' ')"

# a damaged entry: said once, removed, rebuilt; the tables stay right
U="$SRCDIR/tests/damaged/kinds.pfw"
"$DFNAV" report -q --by func --format csv --no-cache "$U" >"$T/want"
"$DFNAV" info -q "$U" >/dev/null
e=$(ls "$C"/set-*.img)
size=$(wc -c <"$e")
printf 'X' | dd of="$e" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$DFNAV" report --by func --format csv "$U" >"$T/got" 2>"$T/err"
same_files "a damaged entry does not change the table" "$T/want" "$T/got"
check "the damage is said" 1 "$(grep -c 'dfnav: cache: .*set-.*damaged (a checksum does not match); read the traces again' "$T/err")"
"$DFNAV" report --by func --format csv "$U" >"$T/got" 2>"$T/err"
check "rebuilt: nothing more to say" "" "$(grep cache "$T/err")"
head -c 100 "$e" >"$e.cut" && mv "$e.cut" "$e"
"$DFNAV" info "$U" >/dev/null 2>"$T/err"
check "a cut entry is said" 1 "$(grep -c 'cut short' "$T/err")"

# processes that build the same entry at once leave one good entry
rm -rf "$C"
G="$T/gen"
mkdir -p "$G"
"$DFNAV_GEN" --events 200000 --ranks 2 --era v2 "$G" >/dev/null
"$DFNAV" report -q --by func --format csv --no-cache "$G" >"$T/want"
for i in 1 2 3 4; do "$DFNAV" report -q --by func --format csv "$G" >"$T/par$i" & done
wait
for i in 1 2 3 4; do same_files "builder $i" "$T/want" "$T/par$i"; done
check "one entry, no temporary file" "1 0" "$(ls -A "$C" | grep -c '^set-') $(ls -A "$C" | grep -c '^\.tmp-')"
"$DFNAV" report --by func --format csv "$G" >"$T/got" 2>"$T/err"
same_files "the entry they left maps" "$T/want" "$T/got"
check "and needs no word" "" "$(grep cache "$T/err")"

# a full disk (a file size limit stands in) and a cache one cannot write
# to: the tables are right and one warning says why
rm -rf "$C"
(ulimit -f 64; "$DFNAV" report --by func --format csv "$G" >"$T/got" 2>"$T/err")
same_files "full: the table" "$T/want" "$T/got"
check "full: one warning" 1 "$(grep -c 'dfnav: cache: cannot write .*; the next open reads the traces again' "$T/err")"
check "full: nothing left behind" 0 "$(ls -A "$C" | wc -l | tr -d ' ')"
: >"$T/a-file"
"$DFNAV" report --by func --format csv --cache "$T/a-file/sub" "$G" >"$T/got" 2>"$T/err"
same_files "not a folder: the table" "$T/want" "$T/got"
check "not a folder: one warning" 1 "$(grep -c 'dfnav: cache: cannot write' "$T/err")"
# a folder the user may not write (root may write anywhere: as nobody)
as_user=""
if [ "$(id -u)" = 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    command -v setpriv >/dev/null && $as_user "$DFNAV" --version >/dev/null 2>&1 || as_user=none
fi
if [ "$as_user" = none ]; then
    echo "SKIP: root, and nobody cannot run $DFNAV here: the read-only cache not checked"
else
    chmod 755 "$T" "$G" && chmod 644 "$G"/*
    mkdir -p "$T/ro" && chmod 555 "$T/ro"
    $as_user "$DFNAV" report --by func --format csv --cache "$T/ro" "$G" >"$T/got" 2>"$T/err"
    same_files "read-only: the table" "$T/want" "$T/got"
    check "read-only: one warning" 1 "$(grep -c 'dfnav: cache: cannot write .*Permission denied' "$T/err")"
    check "read-only: nothing written" 0 "$(ls -A "$T/ro" | wc -l | tr -d ' ')"
    chmod 755 "$T/ro"
fi
finish
