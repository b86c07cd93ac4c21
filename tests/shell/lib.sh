# Shared by the shell tests: locations, a scratch directory, and checks
# that count failures and say what differed.
DFNAV=${DFNAV:-$PWD/dfnav}
DFNAV_GEN=${DFNAV_GEN:-$PWD/dfnav-gen}
SRCDIR=${SRCDIR:-.}
TRACES="$SRCDIR/../shared/traces"
tmp_root=${DFN_TEST_TMP:-${TMPDIR:-/tmp}}
mkdir -p "$tmp_root"
T=$(mktemp -d "$tmp_root/shell.XXXXXX")
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
suite_t0=$(date +%s)

# slow_suite: said at the top of a suite of 20 s or more whose inputs it
# generates. DFN_SKIP_SLOW=1 skips it, for a quick run of the rest (CI's
# distcheck runs three suites alone: see .ci/run).
slow_suite() {
    if [ -n "${DFN_SKIP_SLOW:-}" ]; then
        echo "SKIP: DFN_SKIP_SLOW is set: a slow suite that CI's normal pass runs"
        exit 77
    fi
}

# sanitized: true in CI's sanitizer passes (ASAN_OPTIONS or TSAN_OPTIONS
# set), where every start of dfnav costs a third of a second. Suites of
# hundreds of runs check there each era and code path, in fewer of the
# groupings the normal pass checks them in.
sanitized() { [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; }

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() {   # check DESCRIPTION EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok; else fail "$1: expected '$2', got '$3'"; fi
}
check_status() {   # check_status DESCRIPTION EXPECTED COMMAND...
    desc=$1; want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$want" ]; then ok; else fail "$desc: exit $got, expected $want ($(head -c 300 "$T/err"))"; fi
}
same_files() {   # same_files DESCRIPTION EXPECTED ACTUAL: equal and not both empty
    if [ -s "$2" ] && cmp -s "$2" "$3"; then ok; else
        fail "$1"; diff "$2" "$3" 2>&1 | head -5 >&2
    fi
}
golden() {   # golden NAME FILE: the screens equal tests/golden/NAME
    if [ -n "${DFN_UPDATE_GOLDEN:-}" ]; then cp "$2" "$SRCDIR/tests/golden/$1"; ok; return; fi
    if cmp -s "$SRCDIR/tests/golden/$1" "$2"; then ok; else
        fail "screens differ from tests/golden/$1:"; diff "$SRCDIR/tests/golden/$1" "$2" | head -20 >&2
    fi
}
finish() {   # the time goes to CI's list of the slowest suites
    echo "$passed passed, $failed failed in $(($(date +%s) - suite_t0)) s"
    [ "$failed" -eq 0 ]
}

# mpi_setup: MPIRUN set to run dfnav over ranks on this machine (Open MPI:
# more ranks than cores, root allowed as in CI, no network to probe; the
# sanitizer build: Open MPI's own allocations kept until exit are no leak
# of dfnav's, full stacks and its components kept loaded so that the
# suppressions can name them), the ranks' images in $T/mpitmp; false,
# with why in mpi_why, without an MPI build or mpirun
mpi_setup() {
    case $("$DFNAV" --version 2>/dev/null) in
    *"MPI: none"*) mpi_why="dfnav built without MPI (configure found no libopenmpi-dev or libmpich-dev)"; return 1 ;;
    esac
    if ! command -v mpirun >/dev/null 2>&1; then
        mpi_why="no mpirun (apt-get install openmpi-bin)"
        return 1
    fi
    MPIRUN="mpirun"
    if mpirun --version 2>&1 | grep -q "Open MPI"; then
        MPIRUN="mpirun --oversubscribe"
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_MCA_btl="self,vader" OMPI_MCA_btl_vader_single_copy_mechanism=none
    fi
    if [ -n "${ASAN_OPTIONS:-}" ]; then
        export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
        export LSAN_OPTIONS="suppressions=$SRCDIR/tests/mpi.supp:print_suppressions=0"
        export OMPI_MCA_mca_base_component_disable_dlclose=1
    fi
    export DFNAV_MPI_TMPDIR="$T/mpitmp"
    mkdir -p "$DFNAV_MPI_TMPDIR"
}
