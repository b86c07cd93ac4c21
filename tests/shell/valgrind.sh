#!/bin/sh
# Memcheck over whole runs of dfnav: loading and querying a generated set,
# comparing runs, the damaged-input corpus and the real traces, with no
# leak and no invalid access allowed. Skipped, with a message, without
# valgrind and in a sanitizer build (the two do not run together).
. "$SRCDIR/tests/shell/lib.sh"

if ! command -v valgrind >/dev/null; then
    echo "SKIP: valgrind not installed (apt-get install valgrind): memcheck runs skipped"
    exit 77
fi
if grep -q __asan_init "$DFNAV"; then
    echo "SKIP: a sanitizer build: memcheck runs are for the normal build"
    exit 77
fi

# memcheck NAME EXPECTED-STATUS ARGS...: dfnav exits as it would without
# valgrind, which reports nothing (status 99 on any error or leak).
memcheck() {
    name=$1 st=$2
    shift 2
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --error-exitcode=99 "$DFNAV" "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$st" ] && ! grep -q '^==[0-9]*==' "$T/err"; then ok; else
        fail "memcheck $name: exit $got, expected $st"; grep '^==[0-9]*==' "$T/err" | head -30 >&2
    fi
}

"$DFNAV_GEN" --seed 9 --events 20000 --ranks 4 --era hex --gzip members "$T/gen" >/dev/null
"$DFNAV_GEN" --seed 9 --events 20000 --ranks 4 --ckpt-fs ssd "$T/ssd" >/dev/null
memcheck "load and report" 0 report -j2 --by func,file --metrics all --sizes "$T/gen"
memcheck "filters, time bins, diagnostics" 0 report -j2 --by time,layer --where 'dur>1ms class=read|write' "$T/gen"
memcheck "diagnostics per time range" 0 report -j2 --by time --where 'dur>1ms' --diagnose "$T/gen"
memcheck "compare" 0 report -j2 --compare --by layer --format json a="$T/gen" b="$T/ssd"
memcheck "damaged corpus" 1 report -j2 --by file "$SRCDIR/tests/damaged"
# a gzip member whose deflate data break at once: the decoder's state read
# before it was written, its bytes taken for text, under ISA-L
printf '\037\213\010\000\122\360\063\226\132\113\322\136\342\074\240\174\330\304\056\367\237\063\223\056\010\372\021\251\277\214\360\215\067\370\120\325\037\261\216\014\236\175\266\043\303\231\266\065\175\334\252\316\301\144\317\044\052\067\262\224\323\164\241\372' \
    >"$T/broken-at-once.pfw.gz"
memcheck "a gzip member broken at once" 3 info --no-cache "$T/broken-at-once.pfw.gz"
if [ -d "$TRACES" ]; then
    memcheck "real traces: info" 0 info -j2 "$TRACES"
    memcheck "real traces: overview" 0 -j2 "$TRACES/dlio-unet3d"
else
    echo "SKIP: $TRACES not found: memcheck on the real traces skipped"
fi
finish
