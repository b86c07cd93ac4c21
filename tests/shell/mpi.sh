#!/bin/sh
# The same answer under MPI (issue 20): `mpirun -n N dfnav CMD` divides
# the parse among N ranks and must print the very bytes, and give the
# exit status, of one process. Sets of every era (plain, gzip single and
# members, hashes defined in other files than they are used, damaged and
# set-aside lines, 2.x with counters and aggregated records), for report
# in every format and several groupings, overview, info, compare and
# extract, at 1 to 4 ranks (oversubscribed: this machine has 2 cores),
# and the real traces of ../shared/traces when they are there.
# Skipped where dfnav was built without MPI or mpirun is missing.
. "$SRCDIR/tests/shell/lib.sh"
slow_suite
mpi_setup || { echo "SKIP: $mpi_why: MPI not checked"; exit 77; }

gen() {   # gen NAME OPTIONS...
    mkdir -p "$T/$1"
    name=$1; shift
    "$DFNAV_GEN" "$@" "$T/$name" >/dev/null || fail "dfnav-gen $name $*"
}
gen u64 --seed 1 --events 40000 --ranks 6 --era u64
gen newest-gz --seed 2 --events 30000 --ranks 5 --era newest --gzip single --ckpt-func PyTorchCheckpointing.checkpoint
gen hash16-members --seed 3 --events 20000 --ranks 4 --era hash16 --gzip members
gen v2 --seed 4 --events 20000 --ranks 4 --era v2 --counters
gen quoted --seed 5 --events 8000 --ranks 3 --era quoted
# hashes defined in one file and used in another, damage of every kind,
# kinds set aside, beside a generated file
mkdir -p "$T/damaged"
cp "$SRCDIR/tests/damaged/hash-collision/a.pfw" "$T/damaged/ha.pfw"
cp "$SRCDIR/tests/damaged/hash-collision/b.pfw" "$T/damaged/hb.pfw"
for f in nul.pfw negative.pfw truncated.pfw.gz kinds.pfw hash-twice.pfw numbers.pfw members.pfw.gz empty.pfw; do
    cp "$SRCDIR/tests/damaged/$f" "$T/damaged/"
done
cp "$T/quoted/trace-0-of-3.pfw" "$T/damaged/gen.pfw"

# foreign_names DIR: each file of DIR names the next one's process (a
# process_name record without a host, after its first line): a name
# whose events another rank holds, which only the set's load gives them,
# so the set goes the images' way
foreign_names() {
    set -- "$1"/*.pfw
    pids=""
    for f in "$@"; do pids="$pids $(grep -m1 -o '"pid":[0-9]*' "$f" | cut -d: -f2)"; done
    set -- $pids "$@"   # (the pids, each file's, then the files)
    n=$(($# / 2)) k=1
    for pid in $pids; do
        eval "f=\${$((n + k))}"
        eval "named=\${$((k % n + 1))}"
        sed -i "1a {\"name\":\"process_name\",\"cat\":\"dftracer\",\"pid\":$named,\"tid\":$named,\"ph\":\"M\",\"args\":{\"name\":\"Named$named\",\"value\":\"process_name\"}}" "$f"
        k=$((k + 1))
    done
}

# same NAME N ARGS...: ARGS under mpirun -n N give one process's stdout
# and exit status
same() {
    name=$1 n=$2; shift 2
    "$DFNAV" "$@" >"$T/one.out" 2>"$T/one.err"
    want=$?
    $MPIRUN -n "$n" "$DFNAV" "$@" >"$T/mpi.out" 2>"$T/mpi.err"
    got=$?
    if [ "$got" != "$want" ]; then
        fail "$name, $n ranks: exit $got, one process $want ($(head -c 300 "$T/mpi.err"))"
    elif [ ! -s "$T/one.out" ] || ! cmp -s "$T/one.out" "$T/mpi.out"; then
        fail "$name, $n ranks: output differs from one process"; diff "$T/one.out" "$T/mpi.out" 2>&1 | head -5 >&2
    else
        ok
    fi
}

# DFN_THREADS_LONG=1 (CI's normal pass) runs the damaged set at 1 to 4
# ranks and every other set at two of them (each count on several eras),
# and the rarer commands; otherwise (make check, distcheck, the sanitizer
# build) a short form of two sets at 1 and 3 ranks: each mpirun costs
# about a second here. Under the sanitizers (each mpirun 4 s), the damaged
# set at 3 ranks: the commands past the load run no code of MPI's.
long=${DFN_THREADS_LONG:-}
all="v2 damaged" full="damaged"
[ -n "$long" ] && all="u64 newest-gz hash16-members v2 damaged" full="hash16-members v2 damaged"
if sanitized; then all="damaged" full=""; fi
# ranks_of SET: the rank counts SET's report runs at; in the long form the
# damaged set at every count, the other eras at two each, so that each
# count meets several eras (about 2 s an mpirun)
ranks_of() {
    if sanitized; then echo 3
    elif [ -z "$long" ]; then echo "1 3"
    else
        case $1 in
        u64) echo "1 2" ;; newest-gz) echo "3 4" ;; hash16-members) echo "2 4" ;; v2) echo "1 3" ;; *) echo "1 2 3 4" ;;
        esac
    fi
}
for set in $all; do
    for n in $(ranks_of "$set"); do
        same "$set: report --by func" $n report -q --no-cache --by func "$T/$set"
    done
    same "$set: report --by file,pid csv" 3 report -q --no-cache --by file,pid -m all -f csv "$T/$set"
    same "$set: info" 4 info -q --no-cache "$T/$set"
done
# overview's first line and three tables from the ranks' shares: the
# processes, threads and files of every share told apart by their text
same "u64: overview, each rank its share" 3 overview -q --no-cache "$T/u64"
same "v2: overview csv, each rank its share" 2 overview -q --no-cache -f csv "$T/v2"
$MPIRUN -n 3 "$DFNAV" overview --no-cache "$T/u64" >/dev/null 2>"$T/mpi.err"
check "overview: each rank queried its share" 1 "$(grep -c '^dfnav: MPI: 3 ranks: each queried its share' "$T/mpi.err")"
# shares of an empty file and of metadata alone: no events to span
mkdir -p "$T/mix"
cp "$T/quoted/"*.pfw "$T/mix/"
: >"$T/mix/empty.pfw"
printf '{"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/x","value":5}}\n' >"$T/mix/meta.pfw"
same "overview: shares without events (a file a rank)" 5 overview -q --no-cache "$T/mix"
# (under the sanitizers too, a report by each rank's share: its partials,
# busy slices, swaps and tree of merges; the damaged set goes the
# images' way)
if sanitized; then
    same "u64: report --by func, each rank its share" 3 report -q --no-cache --by func "$T/u64"
fi
for set in $full; do
    same "$set: report json by layer" 2 report -q --no-cache --by layer -m all -f json "$T/$set"
    same "$set: report by time" 3 report -q --no-cache --by time --bin 0.5 -f csv "$T/$set"
    same "$set: report by event" 4 report -q --no-cache --by event --top 500 -f csv "$T/$set"
    same "$set: report by function and call" 3 report -q --no-cache --by func,event --sort time_s --top 40 "$T/$set"
    same "$set: report --where" 2 report -q --no-cache --by host,func --where "dur>100" -m count,bytes,p99_us "$T/$set"
    same "$set: overview" 3 overview -q --no-cache "$T/$set"
    same "$set: info json" 2 info -q --no-cache -f json "$T/$set"
    same "$set: diagnose" 3 report -q --no-cache --diagnose "$T/$set"
done
if [ -n "$long" ]; then
    same "v2: counters" 3 report -q --no-cache --counters -f csv "$T/v2"
    same "v2: chrome" 2 report -q --no-cache --by event --format chrome "$T/v2"
    same "compare" 3 report -q --no-cache --compare --by func "$T/u64" "$T/quoted"
    same "compare csv" 4 overview -q --no-cache --compare -f csv "$T/newest-gz" "$T/v2"
    same "extract" 3 extract -q --no-cache --where "func=read" -o - "$T/u64"
fi
# the analysis metrics from shares of whole processes: the plan keeps a
# process's files on one rank by what their first lines name, so a
# process whose trace was cut in two (the second part without the
# first's metadata) is whole on its rank; arguments inherited from
# enclosing calls read the same call trees
# (shares NAME N ARGS: same, and each rank queried its share)
shares() {
    same "$@"
    grep -q "^dfnav: MPI: $2 ranks: each queried its share" "$T/mpi.err" && ok ||
        fail "$1: not from the ranks' shares: $(grep '^dfnav: MPI:' "$T/mpi.err")"
}
# refused NAME N ARGS: ARGS refused under mpirun -n N with one process's
# status and words (mpirun's own report of the status follows them,
# between lines of dashes)
refused() {
    name=$1 n=$2; shift 2
    "$DFNAV" "$@" >/dev/null 2>"$T/one.err"
    want=$?
    $MPIRUN -n "$n" "$DFNAV" "$@" >/dev/null 2>"$T/mpi.err"
    check "$name: the status" "$want" "$?"
    sed '/^-----/,$d' "$T/mpi.err" | grep -v '^dfnav: MPI:' >"$T/mpi.dfnav"
    same_files "$name: said once, as one process says it" "$T/one.err" "$T/mpi.dfnav"
}
mkdir -p "$T/parts"
for f in "$T/quoted/"*.pfw; do split -n l/2 -d --additional-suffix=.pfw "$f" "$T/parts/$(basename "$f" .pfw)-"; done
shares "parts: the analysis metrics" 2 report --no-cache --by func -m all "$T/parts"
shares "parts: by layer" 3 report --no-cache --by layer -m self,seq,overlap "$T/parts"
shares "newest-gz: overlap by time, csv" 3 report --no-cache --by func,time -m overlap --sort overlap_pct -f csv "$T/newest-gz"
shares "newest-gz: arguments inherited" 2 report --no-cache --by arg.epoch,layer -m count,self "$T/newest-gz"
# pids and tids by their number, call paths by their text in the tree's
# order (one rank's call trees, whole processes)
shares "parts: by pid and tid, json" 3 report --no-cache --by pid,tid -m all -f json "$T/parts"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "u64: by call path, csv" 2 report --no-cache --by path -f csv --sort key "$T/u64"
    shares "newest-gz: call path and file, top 20 by time" 4 report --no-cache --by path,file --sort time_s --top 20 "$T/newest-gz"
    shares "compare by pid and tid" 2 report --no-cache --compare --by pid,tid --sort time_s@diff "$T/u64" "$T/parts"
fi
# the diagnosis: its queries on the shares, its rules on rank 0, of the
# selection, layers and processes, and of rows (the set's compute
# matched over the ranks: a definition that matches nothing skips the
# exposed-I/O rule as in one process)
shares "diagnose" 3 report --no-cache --diagnose "$T/newest-gz"
shares "diagnose two runs, by layer" 3 report --no-cache --diagnose --compare --by layer a="$T/u64" b="$T/quoted"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "diagnose, csv, by time" 2 report --no-cache --diagnose --by time -f csv "$T/newest-gz"
    shares "diagnose json by call path" 4 report --no-cache --diagnose --by path -f json "$T/parts"
    shares "diagnose where an inherited argument" 2 report --no-cache --diagnose --where arg.epoch=1 "$T/newest-gz"
    refused "diagnose two runs as csv" 2 report --no-cache --diagnose --compare -f csv "$T/u64" "$T/quoted"
    shares "diagnose by file, a compute matching nothing" 3 report --no-cache --diagnose --by file \
        --compute func=nosuch --where cat=POSIX "$T/u64"
fi
# compute united by host: a host's files together (two hosts here), and
# only for the overlap metrics (self time needs a process's)
shares "u64: compute united by host" 3 report --no-cache --by layer -m overlap --overlap-by host "$T/u64"
shares "u64: self time, compute by host unasked" 4 report --no-cache --by func -m self --overlap-by host "$T/u64"
# a definition that matches nothing: the same note, from the shares' sum
"$DFNAV" report --no-cache --by func -m overlap --compute func=nosuch "$T/newest-gz" >"$T/one.out" 2>"$T/one.err"
$MPIRUN -n 3 "$DFNAV" report --no-cache --by func -m overlap --compute func=nosuch "$T/newest-gz" >"$T/mpi.out" 2>"$T/mpi.err"
check "compute matching nothing: from the shares" 1 "$(grep -c '^dfnav: MPI: 3 ranks: each queried its share' "$T/mpi.err")"
grep '^dfnav' "$T/mpi.err" | grep -v '^dfnav: MPI:' >"$T/mpi.dfnav"
same_files "compute matching nothing: said as one process says it" "$T/one.err" "$T/mpi.dfnav"
same_files "compute matching nothing: the table" "$T/one.out" "$T/mpi.out"
refused "a bad compute definition" 2 report --no-cache --by func -m overlap --compute nosuch=1 "$T/newest-gz"
refused "diagnose: a bad compute definition" 3 report --no-cache --diagnose --compute nosuch=1 "$T/newest-gz"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    refused "compare: a bad compute definition, the run named" 2 report --no-cache --compare --by func -m overlap \
        --compute nosuch=1 "$T/quoted" "$T/u64"
fi
# ... also when rank 0 has no readable file of the run (the largest, all
# damage, went to it): the failing rank's reason says it was the analysis
mkdir -p "$T/rank0bad"
cp "$T/quoted/"*.pfw "$T/rank0bad/"
# (a deflate block of a reserved type at once, so that nothing inflates:
# the same bytes every run; damaged.sh has the case random bytes here once
# found, ISA-L reading its state before writing it)
{ printf '\037\213\010\000'; head -c 2000000 /dev/zero | tr '\0' '\377'; } >"$T/rank0bad/zz-broken.pfw.gz"
refused "compare: a bad compute definition, rank 0 without the run" 2 report --no-cache --compare --by func \
    -m overlap --compute nosuch=1 a="$T/rank0bad" b="$T/u64"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    refused "diagnose by two dimensions" 2 report --no-cache --diagnose --by func,file "$T/newest-gz"
fi
# counter metrics: a host's files together (its telemetry counts for its
# processes' calls), each row's samples and fixed-point sums merged
gen v2hosts --seed 7 --events 16000 --ranks 8 --ranks-per-node 2 --era v2 --counters
shares "counters: by host" 3 report --no-cache --by host -m count,ctr.mem.MemFree,ctr.cpu.user_pct "$T/v2hosts"
shares "counters: overview" 2 overview --no-cache -m +ctr.mem.Dirty "$T/v2hosts"
shares "counters: by function and time, sorted by one" 4 report --no-cache --by func,time -m +ctr.cpu.iowait_pct \
    --sort ctr.cpu.iowait_pct -f csv "$T/v2hosts"
# a telemetry file (samples of a process that made no call) counts for
# its host's calls: with the host's files when its head names the host;
# when its head names another host it lies apart, and the set goes to
# rank 0 whole, said
mkdir -p "$T/tele" "$T/tele2"
cp "$T/v2hosts/"*.pfw "$T/tele/"
cp "$T/v2hosts/"*.pfw "$T/tele2/"
grep '"cat":"sys"' "$T/v2hosts/trace-0-of-8.pfw" | sed 's/"pid":1000000,"tid":1000000/"pid":999,"tid":999/' >"$T/tele/t.pfw"
{ echo '{"name":"read","cat":"POSIX","pid":998,"tid":998,"ts":1744611912000500,"dur":5,"ph":"X","args":{"hostname":"node09"}}'
  cat "$T/tele/t.pfw"; } >"$T/tele2/t.pfw"
shares "counters: a host's telemetry" 3 report --no-cache --by host -m count,ctr.cpu.user_pct,ctr.mem.MemFree "$T/tele"
same "counters: telemetry apart from its host" 3 report --no-cache --by host -m count,ctr.cpu.user_pct "$T/tele2"
check "counters: telemetry apart from its host, said" 1 "$(grep -c 'the events of host node01 lie in files that went to two ranks' "$T/mpi.err")"
shares "counters: compare" 2 report --no-cache --compare --by host -m count,ctr.cpu.user_pct "$T/v2hosts" "$T/tele"
# Chrome output from the shares: the calls as rank 0 merges them, then
# the counter samples of their hosts over their span from every rank
# (the window rank 0 sends), in one store's order; a telemetry process
# without calls gets a track; tracks named by the process's rank
shares "Chrome output with counters" 3 report --no-cache --by event -f chrome "$T/tele"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "Chrome output, the slowest calls and their counters" 4 report --no-cache --by event -f chrome \
        --sort time_s --top 7 "$T/v2hosts"
    shares "Chrome output of two runs" 2 report --no-cache --compare --by event -f chrome --top 60 "$T/tele" "$T/v2"
    grep -q 'pid 999"' "$T/mpi.out" && ok || fail "Chrome output: the telemetry process's track is missing"
    # a process's samples in a file another process's head leads (on
    # another rank than its threads): its track would lose its rank, so
    # the set goes to rank 0 whole, said
    mkdir -p "$T/apart"
    cp "$T/v2hosts/"*.pfw "$T/apart/"
    { grep -m1 '"ph":1' "$T/v2hosts/trace-0-of-8.pfw"; grep '"cat":"sys"' "$T/v2hosts/trace-1-of-8.pfw"; } >"$T/apart/s.pfw"
    grep -v '"cat":"sys"' "$T/v2hosts/trace-1-of-8.pfw" >"$T/apart/trace-1-of-8.pfw"
    same "Chrome output: a process's samples apart from its threads" 3 report --no-cache --by event -f chrome \
        --where pid=1000000 "$T/apart"
    check "Chrome output: samples apart, said" 1 "$(grep -c 'lie in files that went to two ranks' "$T/mpi.err")"
fi
# a series one host's files lack: those ranks have none of it
mkdir -p "$T/partial-series"
cp "$T/v2hosts/"*.pfw "$T/partial-series/"
for f in "$T/partial-series/trace-0-of-8.pfw" "$T/partial-series/trace-1-of-8.pfw"; do
    grep -v '"name":"mem","cat":"sys"' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
done
shares "counters: a series some ranks lack" 4 report --no-cache --by host -m count,ctr.mem.MemFree "$T/partial-series"
# a series no file has: refused as one process refuses it
refused "counters: an unknown series" 3 report --no-cache --by func -m +ctr.cpu.nosuch "$T/v2hosts"
# the --counters table: each rank's rows of its samples in the set's
# window, merged up the tree by their text with their exact sums
shares "counters table" 3 report --no-cache --counters "$T/v2hosts"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "counters table by host and time, csv" 4 report --no-cache --counters --by host,time --bin 0.5 -f csv "$T/v2hosts"
    shares "counters table of a host's telemetry by pid, json" 2 report --no-cache --counters --by pid,host -f json "$T/tele"
    shares "counters table: a series some ranks lack, later samples" 3 report --no-cache --counters --by time \
        --where 'time>1 counter~mem' -f csv "$T/partial-series"
    refused "counters table: a term counters lack" 2 report --no-cache --counters --where func=read "$T/v2hosts"
fi
# a process whose head misleads the plan (its first part behind another
# process's lines): the load finds it on two ranks, and the set goes to
# rank 0 whole, saying so
mkdir -p "$T/misled"
half=$(( $(wc -l <"$T/quoted/trace-1-of-3.pfw") / 2 ))
{ cat "$T/quoted/trace-0-of-3.pfw"; head -n "$half" "$T/quoted/trace-1-of-3.pfw"; } >"$T/misled/x.pfw"
tail -n +"$((half + 1))" "$T/quoted/trace-1-of-3.pfw" >"$T/misled/y.pfw"
cp "$T/quoted/trace-2-of-3.pfw" "$T/misled/"
same "a process on two ranks: the analysis metrics" 2 report -q --no-cache --by func -m all "$T/misled"
$MPIRUN -n 2 "$DFNAV" report --no-cache --by func -m self "$T/misled" >/dev/null 2>"$T/mpi.err"
check "a process on two ranks: said" 1 "$(grep -c 'lie in files that went to two ranks' "$T/mpi.err")"
check "a process on two ranks: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
same "a process on two ranks: no analysis metric, the shares" 2 report -q --no-cache --by func "$T/misled"
# hashes one file uses and another defines, on another rank: the ranks
# share their definitions and a rank that needs them reads its share
# again with their names, where the set went to rank 0 whole before
mkdir -p "$T/cross"
cp "$T/u64/"*.pfw "$T/cross/"
grep '"name":"FH"' "$T/u64/trace-1-of-6.pfw" >>"$T/cross/trace-0-of-6.pfw"
grep -v '"name":"FH"' "$T/u64/trace-1-of-6.pfw" >"$T/cross/trace-1-of-6.pfw"
# (at 3 and 4 ranks the two files are on two ranks: the plan gives the
# largest first, each to the rank with the fewest bytes)
# (under the sanitizers, 4 only: CI's time)
cross_ranks="3 4"
sanitized && cross_ranks=4
for n in $cross_ranks; do
    shares "hashes defined on another rank: by file" $n report --no-cache --by file,func "$T/cross"
    check "hashes defined on another rank: a share read again, $n ranks" 1 \
        "$(grep -c "^dfnav: MPI: 1 of $n ranks read their share again with the hash names" "$T/mpi.err")"
done
shares "hashes defined on another rank: the analysis" 4 report --no-cache --by dir -m all -f csv "$T/cross"
same "hashes defined on another rank: info" 3 info -q --no-cache "$T/cross"
# rank and name metadata of a process in another process's file: its
# events, on another rank, take the name the set's load gives them (each
# share alone named it by its pid): the set to rank 0 whole
mkdir -p "$T/foreign"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":5,"tid":5,"ts":10,"dur":3,"ph":"X","args":{"fname":"/a"}}' \
    '{"name":"PR","cat":"dftracer","pid":77,"tid":77,"ph":"M","args":{"name":"rank","value":9}}' \
    '{"name":"process_name","cat":"dftracer","pid":77,"tid":77,"ph":"M","args":{"name":"Trainer","value":"process_name"}}' \
    >"$T/foreign/a.pfw"
printf '%s\n' '{"name":"write","cat":"POSIX","pid":77,"tid":77,"ts":12,"dur":4,"ph":"X","args":{"fname":"/b"}}' \
    '{"name":"write","cat":"POSIX","pid":77,"tid":77,"ts":22,"dur":4,"ph":"X","args":{"fname":"/b"}}' >"$T/foreign/b.pfw"
same "another process's metadata: by rank and process" 2 report --no-cache --by rank,proc "$T/foreign"
check "another process's metadata: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
grep -q 'Trainer(77)' "$T/mpi.out" && ok || fail "another process's metadata: the name lost: $(cat "$T/mpi.out")"
# a process name given without a host names the pid on every host: one
# on h1 in one file names h2's process 7 in another, on another rank (one
# process's load names both): the set to rank 0 whole; without a process
# 7 on h2 the name names only its own rank's: the shares
mkdir -p "$T/anyhost"
printf '%s\n' '{"name":"process_name","cat":"t","pid":7,"tid":7,"ph":"M","args":{"name":"Trainer"}}' \
    '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":100,"dur":5,"ph":"X","args":{"hostname":"h1","size_sum":10}}' \
    >"$T/anyhost/a.pfw"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":150,"dur":5,"ph":"X","args":{"hostname":"h2","fname":"/x"}}' \
    >"$T/anyhost/b.pfw"
same "a name without a host, two hosts' pid 7" 2 report --no-cache --by proc "$T/anyhost"
check "a name without a host, two hosts' pid 7: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
sed -i 's/"pid":7,"tid":7/"pid":8,"tid":8/' "$T/anyhost/b.pfw"
shares "a name without a host, one host's pid 7" 2 report --no-cache --by proc "$T/anyhost"
# so do names of a pid or tid given as a long name (past any buffer a
# text of it could be cut to: it must still match its lanes)
lname=$(printf 'w%.0s' $(seq 300))
mkdir -p "$T/longname"
printf '{"name":"read","cat":"POSIX","pid":"%s","tid":"%s","ts":100,"dur":5,"ph":"X","args":{"hostname":"h1","fname":"/a"}}\n' \
    "$lname" "t$lname" >"$T/longname/a.pfw"
printf '{"name":"process_name","cat":"t","pid":"%s","tid":1,"ph":"M","args":{"name":"Trainer"}}\n' "$lname" >"$T/longname/b.pfw"
printf '{"name":"thread_name","cat":"t","pid":"%s","tid":"%s","ph":"M","args":{"name":"Pump"}}\n' "$lname" "t$lname" \
    >>"$T/longname/b.pfw"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":8,"tid":8,"ts":150,"dur":5,"ph":"X","args":{"hostname":"h2","fname":"/x"}}' \
    >>"$T/longname/b.pfw"
same "names of a long named pid and tid" 2 report --no-cache --by proc,tid "$T/longname"
check "names of a long named pid and tid: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
grep -q "h1/Trainer($lname)/Pump(t$lname)" "$T/mpi.out" && ok || fail "names of a long named pid and tid: lost: $(head -c 300 "$T/mpi.out")"
# a process whose file with its metadata went to one rank and another of
# its files (whose head names another process) to the other: its lanes
# there took no name, so the set goes to rank 0 whole
mkdir -p "$T/splitmeta"
printf '%s\n' '{"name":"PR","cat":"dftracer","pid":77,"tid":77,"ph":"M","args":{"name":"rank","value":9}}' \
    '{"name":"process_name","cat":"dftracer","pid":77,"tid":77,"ph":"M","args":{"name":"Trainer","value":"process_name"}}' \
    '{"name":"read","cat":"POSIX","pid":77,"tid":77,"ts":10,"dur":3,"ph":"X","args":{"fname":"/a"}}' >"$T/splitmeta/a.pfw"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":5,"tid":5,"ts":11,"dur":3,"ph":"X","args":{"fname":"/c"}}' \
    '{"name":"write","cat":"POSIX","pid":77,"tid":78,"ts":12,"dur":4,"ph":"X","args":{"fname":"/b"}}' >"$T/splitmeta/b.pfw"
same "a process named on one rank only" 2 report --no-cache --by rank,proc "$T/splitmeta"
check "a process named on one rank only: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
# metadata of a thread without events anywhere names nothing: the shares
printf '%s\n' '{"name":"thread_name","cat":"dftracer","pid":77,"tid":79,"ph":"M","args":{"name":"idle","value":"thread_name"}}' \
    >>"$T/cross/trace-0-of-6.pfw"
shares "metadata naming nothing: the shares" 2 report --no-cache --by proc "$T/cross"
# single calls (report --by event): each rank's calls the query matches,
# sorted with the set's total and cut to --top, merged on rank 0 in the
# set's order: calls of one time by their file's place among the set's,
# then by their line (files of one size on four ranks: a merge by rank,
# or by time alone, gives another order)
mkdir -p "$T/ties"
for f in a b c d; do
    i=0
    for t in 10 10 20 30 30 30; do
        i=$((i + 1))
        printf '{"name":"read","cat":"POSIX","pid":%d,"tid":1,"ts":%d,"dur":%d,"ph":"X","args":{"fname":"/%s%d","ret":%d}}\n' \
            "$(printf '%d' "'$f")" "$t" "$((t / 10))" "$f" "$t" "$i"
    done >"$T/ties/$f.pfw"
done
shares "calls of one time in four files" 4 report --no-cache --by event -f csv "$T/ties"
shares "calls: the slowest, json" 3 report --no-cache --by event --sort time_s --top 25 -f json "$T/newest-gz"
# a call's exposed I/O is undefined only when compute matched no call of
# the set: here it matches one process's, on one rank
shares "calls: exposed I/O, compute of one process" 3 report --no-cache --by event -m overlap --sort exposed_s \
    --top 12 -f csv --compute 'func=TorchFramework.compute pid=1000000' "$T/u64"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "calls of one time, files given in another order" 3 report --no-cache --by event \
        "$T/ties/d.pfw" "$T/ties/a.pfw" "$T/ties/c.pfw" "$T/ties/b.pfw"
    shares "calls of one time, two files a rank" 2 report --no-cache --by event --sort key:desc "$T/ties"
    shares "calls by their share of the set's time" 2 report --no-cache --by event --sort pct_time --top 10 "$T/u64"
    shares "calls by self time, whole processes" 4 report --no-cache --by event --sort self_s --top 12 -f csv "$T/parts"
    shares "calls a filter keeps, in time order" 3 report --no-cache --by event --where 'cat=POSIX dur>500' "$T/cross"
    # comparing, each run's calls merged apart, then the runs' rows by
    # time from each run's start
    shares "calls of two runs" 3 report --no-cache --compare --by event --top 30 u="$T/u64" q="$T/quoted"
    shares "calls of three runs, the slowest, json" 2 report --no-cache --compare --by event --sort time_s --top 12 \
        -f json "$T/u64" "$T/ties" "$T/quoted"
    refused "calls of two runs: a bad compute definition, the run named" 3 report --no-cache --compare --by event \
        -m overlap --sort exposed_s --compute nosuch=1 "$T/quoted" "$T/u64"
    gen v2agg --seed 6 --events 12000 --ranks 3 --era v2 --aggregate
    shares "calls of aggregated records" 2 report --no-cache --by event --top 300 -f csv "$T/v2agg"
    shares "Chrome output of aggregated records" 3 report --no-cache --by event -f chrome "$T/v2agg"
    refused "calls: a bad compute definition" 2 report --no-cache --by event -m overlap --sort exposed_s \
        --compute nosuch=1 "$T/newest-gz"
    # calls rank 0 could not hold as text (more than a third of its
    # memory): rank 0 loads the set whole, as one process would, said;
    # the damage and the layers said once; a top of them, the shares
    gen callmany --seed 2 --events 300000 --ranks 4
    echo 'not json' >>"$T/callmany/trace-1-of-4.pfw"
    DFNAV_MEM_AVAILABLE=150M same "calls too many for rank 0" 3 report --no-cache --by event "$T/callmany"
    check "calls too many for rank 0: said" 1 "$(grep -c 'the calls to print take [0-9.]* MiB as text, more than a third' "$T/mpi.err")"
    check "calls too many for rank 0: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
    check "calls too many for rank 0: the damage said once" 1 "$(grep -c 'malformed line' "$T/mpi.err")"
    check "calls too many for rank 0: the layers said once" 1 "$(grep -c '^dfnav: layers:' "$T/mpi.err")"
    DFNAV_MEM_AVAILABLE=150M shares "calls too many for rank 0: a top of them" 3 report --no-cache --by event \
        --top 40 -f csv "$T/callmany"
    # a subset too large for rank 0 to hold as text: the images' way, said
    DFNAV_MEM_AVAILABLE=150M same "a subset too many calls for rank 0" 2 extract --no-cache -o - "$T/callmany"
    check "a subset too many calls for rank 0: said" 1 \
        "$(grep -c 'the calls to write take [0-9.]* MiB as text, more than a third' "$T/mpi.err")"
    check "a subset too many calls for rank 0: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
    rm -rf "$T/callmany"
fi
# rows sorted by their slowest process's name, which a store and the
# merged partials number apart
shares "sorted by the slowest process's name" 3 report --no-cache --by func -m all --sort max_proc -f csv "$T/u64"
shares "two runs sorted by one's slowest process's name" 3 report --no-cache --compare --by func -m max_proc,count \
    --sort max_proc@a -f csv a="$T/u64" b="$T/quoted"
# calls within other groups (report --by func,event) with a --top: a call
# is a key of the partials (its bytes: its place in the set's order, its
# fields), each rank's the rows of its calls that can be among the set's
# top, as the set's total time and compute sort them; without a --top
# (every call a row) rank 0 holds the set, as one process does
shares "calls within functions: the slowest" 3 report --no-cache --by func,event --sort time_s --top 20 -f csv \
    "$T/newest-gz"
shares "calls of one time within functions, a top past them all" 4 report --no-cache --by func,event --top 100 "$T/ties"
same "calls within functions, every one" 3 report --no-cache --by func,event "$T/quoted"
check "calls within functions, every one: the images' way" 1 "$(grep -c 'files from their images' "$T/mpi.err")"
if ! sanitized; then   # (under the sanitizers, one check of each way: about 4 s an mpirun there)
    shares "calls before their process, json" 2 report --no-cache --by event,proc --sort bytes --top 15 -f json \
        "$T/quoted"
    shares "calls within layers and time bins" 3 report --no-cache --by layer,time,event --top 30 "$T/u64"
    shares "calls within functions by exposed I/O, compute of one process" 3 report --no-cache --by func,event \
        -m overlap --sort exposed_s --top 12 -f csv --compute 'func=TorchFramework.compute pid=1000000' "$T/u64"
    shares "calls within functions, the analysis metrics" 2 report --no-cache --by func,event -m all --top 10 "$T/parts"
    shares "calls of aggregated records within functions" 2 report --no-cache --by func,event --top 50 -f csv \
        "$T/v2agg"
    refused "calls within functions of two runs: refused" 3 report --no-cache --compare --by func,event --top 20 \
        u="$T/u64" q="$T/quoted"
fi
# extract on the shares: each rank selects its calls in the set's order,
# rank 0 gives the hashes and metadata records in the order the set's
# calls first need them and adds the counter samples the shares have of
# their hosts and span, less those of processes with calls none of which
# was selected (which only the set knows): one process's subset, byte
# for byte, and its words
subset() {   # subset NAME N ARGS: extract -o FILE ARGS in one process and under mpirun
    name=$1 n=$2; shift 2
    rm -f "$T/sub.pfw" "$T/one.pfw"
    "$DFNAV" extract --no-cache -o "$T/sub.pfw" "$@" 2>"$T/one.err"
    want=$?
    [ -e "$T/sub.pfw" ] && mv "$T/sub.pfw" "$T/one.pfw"
    $MPIRUN -n "$n" "$DFNAV" extract --no-cache -o "$T/sub.pfw" "$@" 2>"$T/mpi.err"
    check "$name, $n ranks: the status" "$want" "$?"
    same_files "$name, $n ranks: the subset" "$T/one.pfw" "$T/sub.pfw"
    sed '/^-----/,$d' "$T/mpi.err" | grep -v '^dfnav: MPI:' >"$T/mpi.dfnav"
    same_files "$name, $n ranks: said as one process says it" "$T/one.err" "$T/mpi.dfnav"
    grep -q "^dfnav: MPI: $n ranks: each queried its share" "$T/mpi.err" && ok ||
        fail "$name: not from the ranks' shares: $(grep '^dfnav: MPI:' "$T/mpi.err")"
}
gen v2aggc --seed 7 --events 8000 --ranks 3 --era v2 --aggregate --counters
gen v2ns --seed 8 --events 8000 --ranks 3 --era v2 --time-unit ns --counters --ai-logging
mkdir -p "$T/mixunits"
cp "$T/v2aggc/trace-0-of-3.pfw" "$T/mixunits/a.pfw"
"$DFNAV_GEN" --seed 9 --events 3000 --ranks 2 --era v2 --aggregate --time-unit ns "$T/mixns" >/dev/null
cp "$T/mixns/trace-1-of-2.pfw" "$T/mixunits/b.pfw"
subset "extract: a set with counters" 3 "$T/v2"
subset "extract: aggregated records and counters" 2 --where 'cat=POSIX|STDIO' "$T/v2aggc"
subset "extract: one process's calls and samples" 4 --where 'pid=1000000' "$T/v2aggc"
subset "extract: ns" 3 --where 'file~lustre' "$T/v2ns"
subset "extract: aggregated records in two units" 2 "$T/mixunits"
subset "extract: a layer" 2 -l dlio --where 'layer=checkpoint_posix' "$T/newest-gz"
subset "extract: arguments inherited" 3 --where 'arg.epoch=1' "$T/newest-gz"
subset "extract: an empty selection" 2 --where 'func=nosuch' "$T/u64"
# process and thread names, a named pid's thread, in files of their own
mkdir -p "$T/pnames"
printf '%s\n' '{"name":"process_name","cat":"t","pid":7,"tid":7,"ph":"M","args":{"name":"Trainer"}}' \
    '{"name":"thread_name","cat":"t","pid":7,"tid":8,"ph":"M","args":{"name":"Loader"}}' \
    '{"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":100,"dur":5,"ph":"X","args":{"hostname":"h1","size_sum":10}}' \
    '{"name":"write","cat":"POSIX","pid":7,"tid":7,"ts":200,"dur":5,"ph":"X","args":{"hostname":"h1","size_sum":10}}' \
    >"$T/pnames/a.pfw"
printf '%s\n' '{"name":"thread_name","cat":"t","pid":"svc","tid":2,"ph":"M","args":{"name":"Pump"}}' \
    '{"name":"read","cat":"POSIX","pid":"svc","tid":2,"ts":150,"dur":5,"ph":"X","args":{"hostname":"h2","fname":"/x"}}' \
    >"$T/pnames/b.pfw"
subset "extract: process and thread names" 2 "$T/pnames"
# samples of process 77 in a file whose first lines name process 5 (so
# on another rank than 77's calls) and of a telemetry process 900 with no
# call: selecting 5's calls drops 77's samples, a caller's, keeps 900's
mkdir -p "$T/telem"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":77,"tid":77,"ts":1000,"dur":50,"ph":"X","args":{"hostname":"h","fname":"/a"}}' \
    '{"name":"read","cat":"POSIX","pid":77,"tid":77,"ts":3000,"dur":50,"ph":"X","args":{"hostname":"h","fname":"/a"}}' \
    >"$T/telem/a.pfw"
{
    printf '%s\n' '{"name":"write","cat":"POSIX","pid":5,"tid":5,"ts":900,"dur":3000,"ph":"X","args":{"hostname":"h","fname":"/b"}}'
    for k in 1 2 3; do
        printf '{"name":"cpu","cat":"sys","pid":77,"tid":77,"ts":%d,"ph":2,"type":7,"args":{"hostname":"h","user_pct":%d.5}}\n' \
            $((k * 1000)) "$k"
        printf '{"name":"mem","cat":"sys","pid":900,"tid":900,"ts":%d,"ph":2,"type":7,"args":{"hostname":"h","used":%d}}\n' \
            $((k * 1000 + 1)) "$k"
    done
} >"$T/telem/b.pfw"
subset "extract: samples of callers and of telemetry" 2 --where 'pid=5' "$T/telem"
check "extract: the telemetry's samples kept, the other caller's dropped" "3 0" \
    "$(grep -c '"used"' "$T/sub.pfw") $(grep -c '"user_pct"' "$T/sub.pfw")"
# a time window cuts calls on two ranks: said as one process says it
mkdir -p "$T/window"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":4000000,"ph":"X","args":{"ret":4000,"fname":"/a","hostname":"h"}}' \
    '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":6000000,"dur":1000000,"ph":"X","args":{"ret":1000,"fname":"/a","hostname":"h"}}' \
    >"$T/window/a.pfw"
printf '%s\n' '{"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":2500000,"dur":1000000,"ph":"X","args":{"ret":10,"fname":"/b","hostname":"h"}}' \
    '{"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":3500000,"dur":4000000,"ph":"X","args":{"ret":10,"fname":"/b","hostname":"h"}}' \
    >"$T/window/b.pfw"
subset "extract: a window's cut calls" 2 --where 'time>=2 time<3' "$T/window"
check "extract: a window's cut calls, counted over the ranks" "1" \
    "$(grep -c 'cuts 3 calls: 1 that start in it and end past it are written whole, 2 that start before' "$T/mpi.err")"
shares "extract to standard output" 2 extract --no-cache --where 'func=read' -o - "$T/u64"
: >"$T/exists.pfw"
refused "extract onto an existing file" 2 extract --no-cache -o "$T/exists.pfw" "$T/u64"
# the real traces of three eras, when they are beside the sources
if [ -d "$TRACES" ]; then
    same "real traces: report" 3 report -q --no-cache --by layer,func -m all -f csv "$TRACES"
    same "real traces: report, each rank its share" 4 report -q --no-cache --by layer,func -f csv "$TRACES"
    same "real traces: overview, each rank its share" 4 overview -q --no-cache "$TRACES"
    same "real traces: info" 2 info -q --no-cache -f csv "$TRACES"
    same "real traces: the slowest calls, each rank its share" 3 report -q --no-cache --by event --sort time_s \
        --top 10 -f csv "$TRACES"
    same "real traces: POSIX calls for Perfetto, each rank its share" 2 report -q --no-cache --by event \
        --where cat=POSIX --top 200 -f chrome "$TRACES"
fi
# the damage reports on stderr, once, as one process gives them
"$DFNAV" report --no-cache --by func "$T/damaged" >/dev/null 2>"$T/one.err"
$MPIRUN -n 3 "$DFNAV" report --no-cache --by func "$T/damaged" >/dev/null 2>"$T/mpi.err"
grep '^dfnav' "$T/mpi.err" | grep -v '^dfnav: MPI:' >"$T/mpi.dfnav"
same_files "damage reported once, as one process does" "$T/one.err" "$T/mpi.dfnav"
# the same damage without the hashes of two names (which only the whole
# set finds): info, report and overview take each rank's share, and rank
# 0 reports every file's damage from the ranks' accounts, in the set's
# order, as one process does (notes on the set's time units included)
mkdir -p "$T/hurt"
cp "$T/damaged/"*.pfw* "$T/hurt/"
rm -f "$T/hurt/ha.pfw" "$T/hurt/hb.pfw"
for cmd in info "report --by func" overview "overview --compare a=$T/hurt b=$T/quoted"; do
    # (the compare's runs are its own paths)
    case $cmd in *compare*) paths= ;; *) paths="$T/hurt" ;; esac
    "$DFNAV" $cmd --no-cache $paths >"$T/one.out" 2>"$T/one.err"
    $MPIRUN -n 3 "$DFNAV" $cmd --no-cache $paths >"$T/mpi.out" 2>"$T/mpi.err"
    grep '^dfnav' "$T/mpi.err" | grep -v '^dfnav: MPI:' >"$T/mpi.dfnav"
    same_files "$cmd: damage said once, in the set's order" "$T/one.err" "$T/mpi.dfnav"
    same_files "$cmd: each rank's share, one process's output" "$T/one.out" "$T/mpi.out"
    check "$cmd: each rank took its share" 1 "$(grep -cE '^dfnav: MPI: 3 ranks: each (queried|read) its share' "$T/mpi.err")"
done
same "info json, each rank its share" 2 info -q --no-cache -f json "$T/hurt"
same "info --list args, each rank its share" 4 info -q --no-cache --list args "$T/hurt" "$T/v2"
same "info --list layers, each rank its share" 2 info -q --no-cache --list layers "$T/newest-gz"
same "compare, each rank its share" 3 report -q --no-cache --compare --by func --sort count@diff a="$T/u64" b="$T/quoted"
same "compare of three runs by file, json" 2 report -q --no-cache --compare --by file -f json --top 7 "$T/u64" "$T/v2" "$T/hurt"
# standard input, which rank 0 alone can read, and once: the images' way
# (read in rank 0's share, a fallback after the shares read it again, and
# found it empty)
"$DFNAV" report -q --no-cache --by func - "$T/quoted/trace-1-of-3.pfw" <"$T/quoted/trace-0-of-3.pfw" >"$T/one.out"
$MPIRUN -n 2 "$DFNAV" report -q --no-cache --by func - "$T/quoted/trace-1-of-3.pfw" <"$T/quoted/trace-0-of-3.pfw" >"$T/mpi.out"
same_files "standard input, read once" "$T/one.out" "$T/mpi.out"
"$DFNAV" info -q --no-cache -f csv - "$T/quoted/trace-1-of-3.pfw" <"$T/quoted/trace-0-of-3.pfw" >"$T/one.out"
$MPIRUN -n 2 "$DFNAV" info -q --no-cache -f csv - "$T/quoted/trace-1-of-3.pfw" <"$T/quoted/trace-0-of-3.pfw" >"$T/mpi.out"
same_files "info of standard input, read once" "$T/one.out" "$T/mpi.out"
# a rank 0 whose only file cannot be read (the largest, a damaged gzip
# file): another rank's refusal of a query, and the status, are one
# process's
mkdir -p "$T/norank0"
head -c 300000 /dev/urandom | gzip -c | head -c 200000 >"$T/norank0/big.pfw.gz"
printf '{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":5000000,"ph":"X"}\nnot json\n' >"$T/norank0/a.pfw"
"$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/norank0" >/dev/null 2>"$T/one.err"
want=$?
$MPIRUN -n 2 "$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/norank0" >/dev/null 2>"$T/mpi.err"
check "rank 0 without a store: the status" "$want" "$?"
grep '^dfnav' "$T/mpi.err" >"$T/mpi.dfnav"
same_files "rank 0 without a store: another rank's refusal in one process's words" "$T/one.err" "$T/mpi.dfnav"
# a query partial results answer runs on each rank's share, merged on
# rank 0, which never holds the set (the equality runs above took that
# way for report by function, and by file: see partial.h)
$MPIRUN -n 3 "$DFNAV" report --no-cache --by func "$T/u64" >/dev/null 2>"$T/mpi.err"
grep -qE '^dfnav: MPI: 3 ranks: each queried its share of the files; rank 0 merged the results \(queries [0-9.]+ s, busy slices [0-9.]+ s, merge [0-9.]+ s\)$' "$T/mpi.err" &&
    ok || fail "report by function: each rank queried its share: $(grep '^dfnav: MPI:' "$T/mpi.err")"
# and a set they do not (a process's name in another process's file,
# which only the set's load gives its events) takes what the ranks'
# images gave: each rank's files, where every file is a process of its
# own in microseconds (files sharing one, as these damaged ones do, are
# read again by rank 0: their events cannot be told apart in an image)
mkdir -p "$T/u64names"
cp "$T/u64/"*.pfw "$T/u64names/"
foreign_names "$T/u64names"
$MPIRUN -n 3 "$DFNAV" report --no-cache --by func,event --top 30 "$T/u64names" >/dev/null 2>"$T/mpi.err"
check "the ranks' images give every file" "dfnav: MPI: 3 ranks: 6 of 6 files from their images" \
    "$(grep '^dfnav: MPI:' "$T/mpi.err")"
# a comparison's runs each an image of its own on every rank: runs that
# use the same pids, in one image, were files sharing a process, which
# rank 0 read again (0 of 8); a run with another process's metadata
# (above) takes this way
same "compare by call from the runs' images" 3 report -q --no-cache --compare --by event --top 30 "$T/u64" "$T/foreign"
$MPIRUN -n 3 "$DFNAV" report --no-cache --compare --by event --top 30 "$T/u64" "$T/foreign" >/dev/null 2>"$T/mpi.err"
check "compare: each run's files from their images" "dfnav: MPI: 3 ranks: 8 of 8 files from their images" \
    "$(grep '^dfnav: MPI:' "$T/mpi.err")"
# so does a set whose hashes mean one name in one file and another in
# another: one store's first definition names both files' calls
$MPIRUN -n 2 "$DFNAV" report --no-cache --by file "$T/damaged" >/dev/null 2>"$T/mpi.err"
check "hashes of two names: the whole set on rank 0" "1" "$(grep -c 'files from their images' "$T/mpi.err")"
# pids given as names (other tools' Chrome traces) travel as their text,
# as tids do: each rank its share, and one process's rows. Processes of
# equal time are told apart by their names, whatever order the shares
# met them in (w-9 first: the heaviest process of read and write is a tie
# of three, two hosts each with a w-a)
mkdir -p "$T/named"
for k in 3 1 2; do
    printf '{"name":"read","cat":"POSIX","pid":"worker-%d","tid":1,"ts":%d,"dur":50,"ph":"X","args":{"fname":"/f%d"}}\n' \
        "$k" "$((k * 10))" "$k" >"$T/named/w$k.pfw"
done
same "pids by name: report" 3 report -q --no-cache --by func -m all "$T/named"
shares "pids by name: report, basic" 2 report --no-cache --by func "$T/named"
mkdir -p "$T/named2"
i=0
for spec in b:A:11 a:A:11 c:B:22 a:B:22 9:A:11 d:B:22; do
    n=${spec%%:*} hh=${spec##*:} h=${spec#*:}
    h=${h%%:*}
    i=$((i + 1))
    {
        echo '['
        printf '{"name":"HH","cat":"dftracer","type":1,"pid":"w-%s","tid":1,"ph":4,"args":{"name":"node%s","value":"%s"}}\n' \
            "$n" "$h" "$hh"
        for t in 1 2; do for e in 1 2 3; do
            printf '{"name":"%s","cat":"POSIX","pid":"w-%s","tid":%d,"ts":%d,"dur":%d,"ph":"X","args":{"hhash":"%s","fname":"/f%d","ret":4096}}\n' \
                "$([ "$e" = 2 ] && echo write || echo read)" "$n" "$t" "$((e * 100 + t))" "$((50 + i % 2 * 10))" "$hh" "$e"
        done; done
    } >"$T/named2/p$i.pfw"
done
named_ranks="2 3 4"
sanitized && named_ranks=3
for n in $named_ranks; do
    shares "pids by name: the heaviest process, ties" "$n" report --no-cache --by func -m all "$T/named2"
done
shares "pids by name: by host and pid, csv" 4 report --no-cache --by host,pid -m count,time,max_proc -f csv "$T/named2"
shares "pids by name: by process, the spread" 3 report --no-cache --by proc --sort max_proc_s -m max_proc,mean_proc_s,std_proc_s "$T/named2"
shares "pids by name: the analysis metrics" 3 report --no-cache --by func -m overlap,self,seq "$T/named2"
shares "pids by name: overview" 3 overview --no-cache "$T/named2"
subset "extract: pids by name, ties" 4 "$T/named2"
# a process named past any buffer: its whole name as the heaviest, and a
# filter on it (each rank its share)
pname=$(printf 'p%.0s' $(seq 1500))
mkdir -p "$T/named3"
for k in 1 2; do
    printf '{"name":"read","cat":"POSIX","pid":"%s%d","tid":1,"ts":%d,"dur":%d,"ph":"X","args":{"fname":"/f"}}\n' \
        "$pname" "$k" "$((k * 10))" "$((k * 50))" >"$T/named3/w$k.pfw"
done
shares "pids by name: a long name, the heaviest process" 2 report --no-cache --by func -m count,max_proc -f csv "$T/named3"
check "pids by name: a long name, whole" 1 "$(grep -c "/${pname}2" "$T/mpi.out")"
shares "pids by name: a filter on a long name" 2 report --no-cache --by pid --where "pid=${pname}1" -f csv "$T/named3"
check "pids by name: a filter on a long name, its row" 2 "$(wc -l <"$T/mpi.out")"
# time bins, time terms and a layer file's time terms count from the
# set's start on every rank (each share spans the set): each rank its
# share; comparing by time, one bin for both runs, from the longer
printf 'early: func=read time<1\nposixy: cat=POSIX\n' >"$T/timed.layers"
same "a layer file with time terms" 3 report -q --no-cache --layers "$T/timed.layers" --by layer "$T/u64"
same "time bins and terms" 3 report -q --no-cache --by func,time --where "time>0.5 time<=4" -f csv "$T/u64"
same "a time series with its gaps" 2 report -q --no-cache --by time --bin 0.25 "$T/quoted"
same "compare by time" 3 report -q --no-cache --compare --by time -f json "$T/u64" "$T/quoted"
# a window of 1.7e12 s (one file's ns read as µs beside µs files): every
# partial travels whole, time rows or none
mkdir -p "$T/wide"
cp "$T/quoted/trace-0-of-3.pfw" "$T/quoted/trace-1-of-3.pfw" "$T/wide/"
printf '{"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1744611912171318000,"dur":500,"ph":"X","args":{"fname":"/z","size_sum":4096}}\n' >"$T/wide/zz.pfw"
same "a window of 1.7e12 s, by op" 3 report -q --no-cache --by op "$T/wide"
same "a window of 1.7e12 s, by time" 3 report -q --no-cache --by time "$T/wide"
# idle time: each row's stretch of the set's window less its busy time
same "idle time by function and time" 3 report -q --no-cache --by func,time --where "time>1" -m busy_s,idle_s,active -f csv "$T/u64"
# a file is shared when two processes use it, in one share or in two
mkdir -p "$T/shared"
for k in 1 2 3; do
    for f in /shared/x /own/$k /shared/y; do
        [ "$f" = /shared/y ] && [ "$k" = 3 ] && continue
        printf '{"name":"read","cat":"POSIX","pid":%d,"tid":1,"ts":%d,"dur":10,"ph":"X","args":{"fname":"%s","ret":4}}\n' \
            "$k" "$((k * 100))" "$f"
    done >"$T/shared/p$k.pfw"
done
same "shared files across shares" 3 report -q --no-cache --by func,file -m count,files,shared_files -f csv "$T/shared"
same "shared files by layer" 2 report -q --no-cache --by layer -m shared_files "$T/shared"
# transfer-size bins add up across shares (their busy slices keep them)
same "size bins, each rank its share" 3 report -q --no-cache --by file --sizes -f csv "$T/newest-gz"
same "size bins by layer" 2 report -q --no-cache --by layer --sizes "$T/hurt"
for args in "--layers $T/timed.layers --by layer" "--by time" "--compare --by time $T/quoted" "--by func --sizes" "--by func -m idle_s,shared_files"; do
    $MPIRUN -n 3 "$DFNAV" report --no-cache $args "$T/u64" >/dev/null 2>"$T/mpi.err"
    check "$args: each rank its share" 1 "$(grep -c 'each queried its share' "$T/mpi.err")"
done
# a bin that cuts the window into more rows than a query makes: refused,
# in one process's words (it took 9 GB and the kernel's kill)
"$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/u64" 2>"$T/one.err"
$MPIRUN -n 3 "$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/u64" 2>"$T/mpi.err"
check "a bin too fine: exit status" 2 $?
grep '^dfnav' "$T/mpi.err" >"$T/mpi.dfnav"
same_files "a bin too fine: said as one process says it" "$T/one.err" "$T/mpi.dfnav"
# ... bounded by the whole set's calls, not a share's: two calls of 2.2 s
# in 1 µs bins, each alone under 2^22 pieces, both over
mkdir -p "$T/fine"
printf '{"name":"read","cat":"POSIX","pid":%d,"tid":1,"ts":%d,"dur":2200000,"ph":"X"}\n' 1 1000000 >"$T/fine/a.pfw"
printf '{"name":"read","cat":"POSIX","pid":%d,"tid":1,"ts":%d,"dur":2200000,"ph":"X"}\n' 2 3200000 >"$T/fine/b.pfw"
"$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/fine" 2>"$T/one.err"
$MPIRUN -n 2 "$DFNAV" report -q --no-cache --by time --bin 0.000001 "$T/fine" 2>"$T/mpi.err" >/dev/null
check "a bin too fine for the set, not for a share: exit status" 2 $?
grep '^dfnav' "$T/mpi.err" >"$T/mpi.dfnav"
same_files "a bin too fine for the set: said as one process says it" "$T/one.err" "$T/mpi.dfnav"
# a set too big for one node's memory: how many nodes would hold it, and
# that many ranks, each checking its own share, do
gen nodes --seed 7 --events 600000 --ranks 6
"$DFNAV" report --no-cache --by func "$T/nodes" >"$T/one.out" 2>/dev/null
need=$(DFNAV_MEM_AVAILABLE=1K "$DFNAV" report --no-cache --by func "$T/nodes" 2>&1 | sed -n 's/.*needs about \([0-9]*\) MiB.*/\1/p')
# (a node's fixed costs are most of a small set's: the memory that
# needs several nodes lies just under the set's need)
nodes="" avail=$need
while [ -z "$nodes" ] && [ "$avail" -gt 1 ]; do
    avail=$((avail - 1))
    nodes=$(DFNAV_MEM_AVAILABLE=${avail}M "$DFNAV" report --no-cache --by func "$T/nodes" 2>&1 |
        sed -n 's/^dfnav: about \([0-9]*\) nodes of this memory hold it.*mpirun -n \([0-9]*\) .*/\1 \2/p')
done
avail=${avail}M
set -- $nodes
if [ $# -eq 2 ] && [ "$1" = "$2" ] && [ "$1" -ge 2 ] && [ "$1" -le 6 ]; then
    DFNAV_MEM_AVAILABLE=$avail $MPIRUN -n "$1" "$DFNAV" report -q --no-cache --by func "$T/nodes" \
        >"$T/mpi.out" 2>"$T/mpi.err"
    check "the nodes it names hold it: status" 0 "$?"
    same_files "the nodes it names hold it: the rows" "$T/one.out" "$T/mpi.out"
    # serve: the nodes that hold the set in shares (serve --spread; at
    # least as many: a served rank keeps its share while a command runs),
    # whose clients get the same rows
    DFNAV_MEM_AVAILABLE=$avail "$DFNAV" serve --token-file "$T/advice.tok" "$T/nodes" 2>"$T/serve.err"
    check "serve: a set too big for its node: status" 4 "$?"
    served=$(sed -n "s|^dfnav: about \([0-9]*\) nodes of this memory hold it in shares for clients' commands and explorers (dfnav(1), SERVING): mpirun -n \([0-9]*\) --map-by ppr:1:node dfnav serve --spread $T/nodes\$|\1 \2|p" "$T/serve.err")
    set -- $nodes $served
    if [ $# -eq 4 ] && [ "$3" = "$4" ] && [ "$3" -ge "$1" ] && [ "$3" -le 6 ]; then ok; else
        fail "serve's advice (report's nodes: $1): $(cat "$T/serve.err")"
    fi
    # the explorer names those nodes too, and the way to it from here
    DFNAV_MEM_AVAILABLE=$avail "$DFNAV" --replay q "$T/nodes" 2>"$T/explorer.err"
    check "the explorer: a set too big for its node: status" 4 "$?"
    grep -qF "dfnav: or about $3 nodes of this memory hold it in shares: mpirun -n $3 --map-by ppr:1:node dfnav serve --spread $T/nodes there, and dfnav --connect HOST:PORT here (dfnav(1), SERVING)" "$T/explorer.err" &&
        ok || fail "the explorer's advice: $(cat "$T/explorer.err")"
    DFNAV_MEM_AVAILABLE=$avail $MPIRUN -n "${3:-2}" "$DFNAV" serve --spread --listen 127.0.0.1:0 --token-file "$T/spread.tok" \
        "$T/nodes" 2>"$T/spread.log" &
    spid=$!
    i=0
    while [ $i -lt 600 ] && ! grep -q "serve: ready" "$T/spread.log"; do sleep 0.1; i=$((i + 1)); done
    if grep -q "serve: ready" "$T/spread.log"; then
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$T/spread.log")
        "$DFNAV" report -q --by func --connect "127.0.0.1:$port" --token-file "$T/spread.tok" >"$T/spread.out" 2>/dev/null
        same_files "serve --spread on the nodes it names: the rows" "$T/one.out" "$T/spread.out"
        # and the explorer there: the screens of one process that holds it
        keys='p l <Enter> <Enter> <Enter> <Enter> <Enter>'
        "$DFNAV" --replay "$keys" --size 80x24 --no-cache "$T/nodes" 2>/dev/null | grep -v '^latency' >"$T/local.screens"
        "$DFNAV" --replay "$keys" --size 80x24 --connect "127.0.0.1:$port" --token-file "$T/spread.tok" 2>/dev/null |
            grep -v '^latency' >"$T/remote.screens"
        same_files "serve --spread on the nodes it names: the explorer's screens" "$T/local.screens" "$T/remote.screens"
    else
        fail "serve --spread on the nodes it names: $(cat "$T/spread.log")"
    fi
    kill "$spid"
    wait "$spid"
else
    fail "nodes to hold a set needing $need MiB in $avail: '$nodes'"
fi
rm -rf "$T/nodes"
DFNAV_MEM_AVAILABLE=1M $MPIRUN -n 2 "$DFNAV" report --no-cache --by func "$T/u64" >/dev/null 2>"$T/mpi.err"
check "a share too big for its node: status" 4 "$?"
check "a share too big: said once" 1 "$(grep -c "a rank's share of the files needs more memory" "$T/mpi.err")"
# a set that is not there, and a usage error: said once, the same status
$MPIRUN -n 3 "$DFNAV" report -q --no-cache "$T/none" >"$T/mpi.out" 2>"$T/mpi.err"
check "nothing to read: status" 3 "$?"
check "nothing to read: said once" 1 "$(grep -c 'no trace file to read' "$T/mpi.err")"
$MPIRUN -n 3 "$DFNAV" report --by nosuch "$T/damaged" >/dev/null 2>"$T/mpi.err"
check "a usage error under mpirun: status" 2 "$?"
check "a usage error: said once" 1 "$(grep -c "unknown dimension 'nosuch'" "$T/mpi.err")"
# the explorer is one process: refused, not run on each rank
$MPIRUN -n 2 "$DFNAV" --replay q "$T/u64" >/dev/null 2>"$T/mpi.err"
check "the explorer under mpirun: status" 2 "$?"
grep -q "explorer runs as one process" "$T/mpi.err" && ok || fail "the explorer's refusal: $(head -c 300 "$T/mpi.err")"
# the ranks' images are gone afterwards
check "no images left behind" "" "$(ls -A "$DFNAV_MPI_TMPDIR")"
# and after Ctrl-C on mpirun, which passes it on to the ranks as SIGTERM,
# while they hold images (a set's worth stayed in the node's /tmp): each
# rank removes its own, or, when mpirun's SIGKILL came first, the next
# run on the node does
# (the images stand for about 0.2 s of a 1 M-event run on two cores: a
# poll that forked `ls` every 20 ms missed them once under make -j2 check;
# 2 M events and the shell's own glob, no fork)
sig_events=2000000
if sanitized; then sig_events=300000; fi   # as long a load under ASan
gen sig --seed 6 --events $sig_events --ranks 4
foreign_names "$T/sig"   # (the images' way)
$MPIRUN -n 2 "$DFNAV" report -q --no-cache --by func,event --top 5 "$T/sig" >/dev/null 2>"$T/sig.err" &
mpid=$!
images() { set -- "$DFNAV_MPI_TMPDIR"/*/*.img; [ -e "$1" ]; }
n=0
while [ $n -lt 6000 ] && ! images; do sleep 0.01; n=$((n + 1)); done
if images; then
    kill -INT $mpid
    wait $mpid
    st=$?
    if [ $st -ne 0 ]; then ok; else fail "Ctrl-C on mpirun: the run ended first (status 0): nothing was tested"; fi
    echo "mpi: after Ctrl-C, before the next run: $(cd "$DFNAV_MPI_TMPDIR" && ls -A . * 2>/dev/null | tr '\n' ' ')"
    # (the killed ranks gone first: mpirun may leave them to init to reap)
    n=0
    while [ $n -lt 100 ] && pgrep -f "$T/sig" >/dev/null; do sleep 0.1; n=$((n + 1)); done
    $MPIRUN -n 2 "$DFNAV" report -q --no-cache --by func,event --top 5 "$T/u64names" >/dev/null 2>"$T/mpi.err"
    check "Ctrl-C on mpirun, then a run: images left behind" "" "$(ls -A "$DFNAV_MPI_TMPDIR")"
else
    wait $mpid
    fail "Ctrl-C on mpirun: no image to interrupt in 60 s: $(head -c 300 "$T/sig.err")"
fi
# a signal to rank 0 while it saves an extract the images' way (its
# calls too many to hold as text): its temporary file and its images both
# go (the extract's handler hands the signal on to the one that removes
# the images, which it had replaced)
sig_mem=400M
if sanitized; then sig_mem=150M; fi
DFNAV_MEM_AVAILABLE=$sig_mem $MPIRUN -n 2 "$DFNAV" extract -q --no-cache -o "$T/sig-out.pfw.gz" "$T/sig" 2>"$T/sigx.err" &
mpid=$!
saving() { ls "$T"/sig-out.pfw.gz.tmp.* >/dev/null 2>&1; }
n=0
while [ $n -lt 3000 ] && ! saving; do sleep 0.02; n=$((n + 1)); done
if saving; then
    d=$(ls -d "$DFNAV_MPI_TMPDIR"/dfnav-rank0-* 2>/dev/null | head -1)
    kill -TERM "$(echo "$d" | sed 's/.*-\([0-9]*\)-[^-]*$/\1/')"
    wait $mpid
    check "a signal during an MPI extract: no temporary file" "" "$(ls "$T" | grep 'sig-out')"
    [ -n "$d" ] && [ ! -e "$d" ] && ok || fail "a signal during an MPI extract: rank 0's images left in '$d'"
else
    wait $mpid
    fail "an MPI extract: never saving in 60 s: $(head -c 300 "$T/sigx.err")"
fi
rm -rf "$T/sig"
# what the next run sweeps: a gone rank's directory (and one its handler
# renamed) on this host, never a live process's, another host's or what
# is not such a directory
sh -c 'exit 0' &
dead=$!
wait $dead
host=$(hostname)
for d in "dfnav-rank1-$host-$dead-AbC123" "dfnav-rank0-$host-$dead-XyZ789~" "dfnav-rank1-$host-$$-LiVe00" \
    "dfnav-rank1-elsewhere-$dead-OtHeR0" "dfnav-rank1-$host-$dead"; do
    mkdir "$DFNAV_MPI_TMPDIR/$d" && : >"$DFNAV_MPI_TMPDIR/$d/set-0123456789abcdef.img"
done
$MPIRUN -n 2 "$DFNAV" report -q --no-cache --by func,event --top 5 "$T/u64names" >/dev/null 2>"$T/mpi.err"
check "the next run sweeps what gone ranks left" \
    "$(printf '%s\n' "dfnav-rank1-$host-$$-LiVe00" "dfnav-rank1-$host-$dead" "dfnav-rank1-elsewhere-$dead-OtHeR0" | LC_ALL=C sort | tr '\n' ' ')" \
    "$(ls -A "$DFNAV_MPI_TMPDIR" | LC_ALL=C sort | tr '\n' ' ')"
finish
