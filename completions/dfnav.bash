# bash completion for dfnav and dfnav-gen.
# Installed as completions/dfnav, with completions/dfnav-gen a link to it
# (bash-completion loads completions/NAME for the command NAME), or
# sourced by hand: `. completions/dfnav.bash`. Needs nothing of
# bash-completion. The names a trace set has (its argument names for
# arg.NAME, its layer names) come from `dfnav info --list` on the PATHs
# already on the line, quietly, within DFNAV_COMPLETION_TIMEOUT seconds
# (default 3), so a huge set never read before cannot hang the shell; the
# cache makes the next ask fast.

# The fixed vocabulary, as dfnav --help and dfnav(1) give it
# (tests/shell/completion.sh checks these lists against --help).
_dfnav_commands="report overview info compare extract cache serve"
_dfnav_dims="time host pid tid proc rank cat func type class op layer file pattern part dir fs sizebin size path event"
_dfnav_keys="time dur bytes size host pid tid proc rank cat func type class op layer file pattern part dir fs sizebin path counter"
_dfnav_metrics="count time_s busy_s max_proc_s bytes bw_mibps ops_per_s mean_us p50_us p90_us p99_us max_us files procs
pct_time compute_s io_busy_s exposed_s overlap_pct self_s seq_pct shared_files max_proc agg_calls min_proc_s mean_proc_s
std_proc_s max_proc_bytes mean_proc_bytes size_mean size_p50 size_min size_max active idle_s"
_dfnav_groups="basic overlap analysis all"
# Options taking a value (the next word, or after '=').
_dfnav_valued="-b --by -w --where -s --sort -n --top -m --metrics --compute --io --overlap-by --threshold --bin
--time-unit -l --layers -f --format -j --threads --cache --color --colour --replay --size --screens --list -o --output
--listen --token-file --connect"
_dfnav_opts_common="-b --by -w --where -s --sort --compare -n --top -m --metrics --sizes --compute --io --overlap-by
--bin --time-unit -l --layers -f --format -j --threads --cache --no-cache -q --quiet --force -h --help"

# The options that make sense for a command ("" is the explorer).
_dfnav_options()
{
    case $1 in
    report) echo "$_dfnav_opts_common --diagnose --threshold --counters --connect --token-file" ;;
    overview) echo "$_dfnav_opts_common --connect --token-file" ;;
    extract) echo "-o --output -w --where -l --layers -j --threads --time-unit --cache --no-cache -q --quiet --force -h --help" ;;
    info) echo "--list -l --layers -f --format -j --threads --time-unit --cache --no-cache -q --quiet --force -h --help
--connect --token-file" ;;
    serve) echo "--spread --listen --token-file -l --layers --compute --io --overlap-by --compare -j --threads --time-unit -q --quiet
--force -h --help" ;;
    cache) echo "--clear --cache --no-cache -f --format -h --help" ;;
    *) echo "$_dfnav_opts_common --ascii --color --replay --size --screens --keys -V --version --connect --token-file" ;;
    esac
}

# A word as the command will get it: quotes and backslashes removed (an
# unclosed quote, as while typing, counts as closed). Sets REPLY.
_dfnav_dequote()
{
    local w=$1 c q="" i
    REPLY=""
    for ((i = 0; i < ${#w}; i++)); do
        c=${w:i:1}
        if [[ -n $q ]]; then
            if [[ $c == "$q" ]]; then q=""
            elif [[ $q == '"' && $c == \\ && ${w:i+1:1} == [\"\\\$\`] ]]; then REPLY+=${w:i+1:1}; ((i++))
            else REPLY+=$c; fi
        elif [[ $c == [\'\"] ]]; then q=$c
        elif [[ $c == \\ ]]; then REPLY+=${w:i+1:1}; ((i++))
        else REPLY+=$c; fi
    done
}

# The words of the line as the shell will split them: bash also splits
# COMP_WORDS at COMP_WORDBREAKS (= and : among them), which would cut
# 'func=open' in three; pieces with no blank between them in COMP_LINE
# are one word again. Sets _dfn_words (dequoted) and _dfn_cword.
_dfnav_words()
{
    local line=${COMP_LINE-} pos=0 i w n=-1 blank
    _dfn_words=()
    _dfn_cword=0
    local -a raw=()
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        blank=0
        while [[ ${line:pos:1} == [[:blank:]] ]]; do ((pos++)); blank=1; done
        if ((n < 0 || blank)) || [[ -z $line || ${line:pos:${#w}} != "$w" ]]; then
            raw[++n]=$w
        else
            raw[n]+=$w
        fi
        [[ ${line:pos:${#w}} == "$w" ]] && ((pos += ${#w}))
        ((i == COMP_CWORD)) && _dfn_cword=$n
    done
    for ((i = 0; i <= n; i++)); do
        _dfnav_dequote "${raw[i]}"
        _dfn_words[i]=$REPLY
    done
}

# The command word: report, info ... or "" for the explorer.
_dfnav_command()
{
    local c=${_dfn_words[1]-}
    [[ $_dfn_cword -gt 1 && " $_dfnav_commands " == *" $c "* ]] && echo "$c"
}

# The names the set of the line's PATHs has: dfnav info --list $1 (args
# or layers), with the line's --layers, --time-unit and cache options.
# One name a line on stdout; nothing without a PATH.
_dfnav_names()
{
    local i=1 w skip=0 opts=1 dfnav=${_dfn_words[0]}
    local -a paths=() fwd=() to=()
    [[ -n $(_dfnav_command) ]] && i=2
    [[ $dfnav == "~/"* ]] && dfnav=$HOME/${dfnav#"~/"}
    for (( ; i < ${#_dfn_words[@]}; i++)); do
        w=${_dfn_words[i]}
        ((i == _dfn_cword)) && { skip=0; continue; }
        if ((skip)); then skip=0; continue; fi
        if ((opts)) && [[ $w == -?* ]]; then
            case $w in
            --) opts=0 ;;
            -l | --layers | --time-unit | --cache) fwd+=("$w" "${_dfn_words[i + 1]-}"); skip=1 ;;
            --layers=* | --time-unit=* | --cache=* | --no-cache) fwd+=("$w") ;;
            --*=*) ;;
            *) [[ " $_dfnav_valued " == *[[:space:]]"$w"[[:space:]]* ]] && skip=1 ;;
            esac
            continue
        fi
        [[ $w == - ]] && continue   # standard input: not read while typing
        # compare's NAME=PATH: the PATH
        [[ $w == *=* && ! -e $w ]] && w=${w#*=}
        [[ $w == "~/"* ]] && w=$HOME/${w#"~/"}
        paths+=("$w")
    done
    ((${#paths[@]})) || return 0
    type timeout >/dev/null 2>&1 && to=(timeout "${DFNAV_COMPLETION_TIMEOUT:-3}")
    "${to[@]}" "$dfnav" info --list "$1" -q "${fwd[@]}" -- "${paths[@]}" 2>/dev/null </dev/null
}

# Adds to _dfn_cands each word of $2... (whitespace separated) that starts
# with $1, after the prefix $1 shares with it.
_dfnav_add()
{
    local cur=$1 w
    local -a list
    shift
    # read -a splits without expanding globs (a typed --sort 'x*:' stays x*)
    read -rd '' -a list <<<"$*"
    for w in "${list[@]}"; do [[ $w == "$cur"* ]] && _dfn_cands+=("$w"); done
}

# Names from dfnav (one a line in $3) that start with $2, each made
# $1 NAME $4 (a prefix such as "file,arg." and a suffix such as "=").
_dfnav_add_names()
{
    local name
    while IFS= read -r name; do
        [[ -n $name && $name == "$2"* ]] && _dfn_cands+=("$1$name$4")
    done <<<"$3"
}

# A comma list of dimensions: the part after the last comma completes.
_dfnav_by()
{
    local head="" term=$1 d
    [[ $term == *,* ]] && head=${term%,*}, term=${term##*,}
    if [[ $term == arg.* || $term == own.* ]]; then
        _dfnav_add_names "$head${term:0:4}" "${term:4}" "$(_dfnav_names args)" ""
    else
        for d in $_dfnav_dims arg. own.; do [[ $d == "$term"* ]] && _dfn_cands+=("$head$d"); done
    fi
    _dfn_nospace=1
}

# A metric list: names and groups, the first led by + (add to basic),
# any by - (remove), comma separated.
_dfnav_metric_list()
{
    local head="" term=$1 sign="" m
    [[ $term == *,* ]] && head=${term%,*}, term=${term##*,}
    [[ $term == [-+]* ]] && sign=${term:0:1} term=${term:1}
    for m in $_dfnav_metrics $_dfnav_groups ctr.; do
        [[ $m == "$term"* ]] && _dfn_cands+=("$head$sign$m")
    done
    _dfn_nospace=1
}

# A filter: terms KEY OP VALUE separated by blanks or commas; the last
# term completes, its key as KEY= (arg.NAME= from the set), or its value
# for keys with a fixed set of values (layer: the set's layers).
_dfnav_filter()
{
    local head="" term=$1 key op val vals="" v
    if [[ $term == *[[:blank:],]* ]]; then
        v=${term##*[[:blank:],]}
        head=${term:0:${#term}-${#v}} term=$v
    fi
    key=${term%%[!A-Za-z0-9_.-]*}
    op=${term:${#key}}
    _dfn_nospace=1
    if [[ -z $op ]]; then
        if [[ $key == arg.* || $key == own.* ]]; then
            _dfnav_add_names "$head${key:0:4}" "${key:4}" "$(_dfnav_names args)" "="
        else
            for v in $_dfnav_keys; do [[ $v == "$key"* ]] && _dfn_cands+=("$head$v="); done
            for v in arg. own.; do [[ $v == "$key"* ]] && _dfn_cands+=("$head$v"); done
        fi
        return
    fi
    op=${op%%[!=~<>!]*}
    val=${term:${#key}+${#op}}
    [[ -n $op ]] || return 0
    head+=$key$op
    # alternatives: a|b|c
    [[ $val == *\|* ]] && head+=${val%|*}\| val=${val##*|}
    case $key in
    layer) _dfnav_add_names "$head" "$val" "$(_dfnav_names layers)" "" ;;
    class) vals="read write metadata sync process ipc gpu-copy other" ;;
    op) vals="open close seek stat metadata" ;;
    type) vals="DFTRACER C_APP LIBC_IO HIP HDF5 PYTHON PSUTIL FINSTRUMENT CPP_APP MPI CUDA" ;;
    cat) vals="POSIX STDIO" ;;
    esac
    for v in $vals; do [[ $v == "$val"* ]] && _dfn_cands+=("$head$v"); done
}

# Files and directories into _dfn_cands, of a glob ("" for any file, else
# *.pfw and *.pfw.gz traces), led by prefix $3 (compare's NAME=).
_dfnav_files()
{
    local cur=$1 kind=$2 prefix=${3-} f
    local IFS=$'\n'
    local -a found
    if [[ $kind == dirs ]]; then
        found=($(compgen -d -- "$cur"))
    elif [[ $kind == any ]]; then
        found=($(compgen -f -- "$cur"))
    else
        found=($(compgen -d -- "$cur") $(compgen -f -X '!*.pfw' -- "$cur") $(compgen -f -X '!*.pfw.gz' -- "$cur"))
    fi
    for f in "${found[@]}"; do _dfn_cands+=("$prefix$f"); done
    _dfn_files=1
}

# The value of option $1 being typed as $2.
_dfnav_value()
{
    local opt=$1 cur=$2
    case $opt in
    -b | --by) _dfnav_by "$cur" ;;
    -w | --where | --compute | --io) _dfnav_filter "$cur" ;;
    -m | --metrics) _dfnav_metric_list "$cur" ;;
    -s | --sort)
        if [[ $cur == *:* ]]; then _dfnav_add "$cur" "${cur%%:*}:asc ${cur%%:*}:desc"
        else _dfnav_add "$cur" "$_dfnav_metrics key"; fi ;;
    -f | --format) _dfnav_add "$cur" "table csv json chrome" ;;
    -o | --output) _dfnav_files "$cur" any ;;
    --color | --colour) _dfnav_add "$cur" "auto always never" ;;
    --time-unit) _dfnav_add "$cur" "us ns ms sec" ;;
    --overlap-by) _dfnav_add "$cur" "process host" ;;
    --list) _dfnav_add "$cur" "args layers" ;;
    -l | --layers) _dfnav_add "$cur" "posix dlio dlio-legacy"; _dfnav_files "$cur" any ;;
    --cache) _dfnav_files "$cur" dirs ;;
    --screens | --token-file) _dfnav_files "$cur" any ;;
    --threshold)
        local head=""
        [[ $cur == *,* ]] && head=${cur%,*},
        _dfnav_add "$cur" "${head}metadata= ${head}small_time= ${head}small_size= ${head}imbalance= ${head}random= ${head}exposed="
        _dfn_nospace=1 ;;
    --size) _dfnav_add "$cur" "80x24 132x43 200x50" ;;
    esac
}

# What the word at the cursor can be: candidates in _dfn_cands, each the
# whole word.
_dfnav_candidates()
{
    local cur=${_dfn_words[_dfn_cword]} prev=${_dfn_words[_dfn_cword - 1]-} cmd i
    cmd=$(_dfnav_command)
    for ((i = 1; i < _dfn_cword; i++)); do
        [[ ${_dfn_words[i]} == -- ]] && { _dfnav_files "$cur" traces; return; }
    done
    if [[ " $_dfnav_valued " == *[[:space:]]"$prev"[[:space:]]* && $_dfn_cword -gt 1 ]]; then
        _dfnav_value "$prev" "$cur"
        return
    fi
    case $cur in
    --*=*)
        _dfnav_value "${cur%%=*}" "${cur#*=}"
        for i in "${!_dfn_cands[@]}"; do _dfn_cands[i]=${cur%%=*}=${_dfn_cands[i]}; done
        ;;
    -*) _dfnav_add "$cur" "$(_dfnav_options "$cmd")" ;;
    *)
        ((_dfn_cword == 1)) && _dfnav_add "$cur" "$_dfnav_commands"
        [[ $cmd == cache ]] && return
        if [[ $cur == *=* && ! -e ${cur%%=*} && ($cmd == compare || " ${_dfn_words[*]} " == *" --compare "*) ]]; then
            _dfnav_files "${cur#*=}" traces "${cur%%=*}="
        else
            _dfnav_files "$cur" traces
        fi
        ;;
    esac
}

# Turns whole-word candidates into COMPREPLY: readline replaces only the
# text after the last word break (its $2), so each loses what comes
# before it.
_dfnav_reply()
{
    local cur=${_dfn_words[_dfn_cword]} c cut
    _dfnav_dequote "$1"
    cut=$((${#cur} - ${#REPLY}))
    ((cut < 0)) && cut=0
    COMPREPLY=()
    for c in "${_dfn_cands[@]}"; do
        [[ $c == "$cur"* ]] && COMPREPLY+=("${c:cut}")
    done
    ((_dfn_nospace)) && compopt -o nospace 2>/dev/null
    ((_dfn_files)) && compopt -o filenames 2>/dev/null
    return 0
}

_dfnav()
{
    local -a _dfn_words _dfn_cands=()
    local _dfn_cword _dfn_nospace=0 _dfn_files=0
    _dfnav_words
    _dfnav_candidates
    _dfnav_reply "${2-${_dfn_words[_dfn_cword]}}"
}

# dfnav-gen [options] OUTDIR
_dfnav_gen()
{
    local -a _dfn_words _dfn_cands=()
    local _dfn_cword _dfn_nospace=0 _dfn_files=0 cur prev
    _dfnav_words
    cur=${_dfn_words[_dfn_cword]} prev=${_dfn_words[_dfn_cword - 1]-}
    case $prev in
    --era) _dfnav_add "$cur" "v0 quoted inline hash16 hex u64 newest v2" ;;
    --gzip) _dfnav_add "$cur" "none single members" ;;
    --ckpt-fs) _dfnav_add "$cur" "both lustre ssd" ;;
    --time-unit) _dfnav_add "$cur" "us ns" ;;
    --truth | --counter-truth) _dfnav_files "$cur" any ;;
    --seed | --events | --ranks | --ranks-per-node | --level | --start-us | --ckpt-func | --ckpt-write-split | \
        --agg-interval-us | --counter-interval-us) ;;
    *)
        if [[ $cur == -* ]]; then
            _dfnav_add "$cur" "--seed --events --ranks --ranks-per-node --era --gzip --level --truth --late-metadata
                --no-late-metadata --prefetch --ckpt-fs --ckpt-write-split --start-us --ckpt-func --ai-logging
                --aggregate --agg-interval-us --counters --counter-interval-us --counter-truth --time-unit
                --omit-time-metric --verbose --help"
        else
            _dfnav_files "$cur" dirs
        fi
        ;;
    esac
    _dfnav_reply "${2-$cur}"
}

complete -F _dfnav dfnav
complete -F _dfnav_gen dfnav-gen
