#!/bin/sh
# README's screens are the real ones: each block between
#   <!-- screen: DFNAV-ARGUMENTS -->
# and <!-- /screen --> holds the last screen `dfnav DFNAV-ARGUMENTS` draws
# (a --replay, run from the source tree, indented four spaces), and the block
# after <!-- keys --> what `dfnav --keys` prints. With --update the blocks are
# written again; without, README is checked against them (a shell test; it
# skips when ../shared/traces, which the screens read, is not there).
#   tests/readme_screens.sh [--update] [DFNAV]
update=false
[ "${1:-}" = --update ] && { update=true; shift; }
DFNAV=${1:-${DFNAV:-./dfnav}}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
case $DFNAV in /*) ;; *) DFNAV=$(pwd)/$DFNAV ;; esac
cd "$SRCDIR" || exit 2
if [ ! -d ../shared/traces ]; then
    echo "SKIP: ../shared/traces not found (README's screens read the real traces)"
    exit 77
fi
export LANG=C.UTF-8 LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=1790000000
# scratch in the build tree under make check (the source tree may be
# read-only, as in distcheck)
tmp_root=${DFN_TEST_TMP:-${TMPDIR:-/tmp}}
mkdir -p "$tmp_root" && tmp=$(mktemp -d "$tmp_root/readme.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# the runs the comparing example reads ($RUNS in its arguments)
RUNS=$tmp/runs
mkdir -p "$RUNS/lustre" "$RUNS/ssd"
GEN=${DFNAV_GEN:-$(dirname "$DFNAV")/dfnav-gen}
"$GEN" --seed 21 --events 30000 --ranks 4 --ckpt-fs lustre "$RUNS/lustre" >/dev/null &&
    "$GEN" --seed 21 --events 30000 --ranks 4 --ckpt-fs ssd --ckpt-write-split 2 "$RUNS/ssd" >/dev/null || exit 2

# the last screen of a replay: after the last "--- KEY" line
last_screen() {
    eval "set -- $1"
    "$DFNAV" "$@" 2>/dev/null | awk '/^--- /{n = 0; delete s; next} {s[n++] = $0} END {for (i = 0; i < n; i++) print s[i]}' |
        sed -e 's/^/    /' -e 's/ *$//'
}

out=$tmp/README.md
block=""
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    "<!-- screen: "*" -->")
        printf '%s\n\n' "$line" >>"$out"
        args=${line#"<!-- screen: "}
        args=${args%" -->"}
        last_screen "$args" >>"$out"
        printf '\n' >>"$out"
        block=screen ;;
    "<!-- keys -->")
        printf '%s\n\n' "$line" >>"$out"
        "$DFNAV" --keys | sed -e 's/^/    /' -e 's/ *$//' >>"$out"
        printf '\n' >>"$out"
        block=keys ;;
    "<!-- /screen -->" | "<!-- /keys -->")
        printf '%s\n' "$line" >>"$out"
        block="" ;;
    *) [ -z "$block" ] && printf '%s\n' "$line" >>"$out" ;;
    esac
done <README.md

if $update; then
    cp "$out" README.md
    echo "README.md: screens written"
elif cmp -s "$out" README.md; then
    echo "PASS: README's screens are what dfnav draws"
else
    echo "FAIL: README's screens differ from what dfnav draws (tests/readme_screens.sh --update):"
    diff README.md "$out" | head -40
    exit 1
fi
