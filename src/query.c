/* The query engine: one pass over the matching events in start-time order,
 * grouping by the requested dimensions and accumulating every metric. The
 * store's time order makes busy time (the union of intervals) a running
 * sweep per group, and time windows a binary search. */
#include "dfnav/query.h"
#include "dfnav/ctrindex.h"
#include "dfnav/map64.h"
#include "dfnav/partial.h"
#include "dfnav/evrows.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *metric_names[DFN_M_COUNT_] = {
    "count", "time_s", "busy_s", "max_proc_s", "bytes", "bw_mibps", "ops_per_s", "mean_us",
    "p50_us", "p90_us", "p99_us", "max_us", "files", "procs", "pct_time",
    "compute_s", "io_busy_s", "exposed_s", "overlap_pct", "self_s", "seq_pct", "shared_files", "max_proc",
    "agg_calls", "min_proc_s", "mean_proc_s", "std_proc_s", "max_proc_bytes", "mean_proc_bytes",
    "size_mean", "size_p50", "size_min", "size_max", "active", "idle_s"
};
static const char *dim_names[DFN_DIM_COUNT] = {
    "time", "host", "pid", "tid", "proc", "cat", "func", "class", "op", "layer", "file",
    "pattern", "dir", "fs", "sizebin", "arg", "event", "type", "rank", "part", "size", "path"
};

const char *dfn_metric_name(dfn_metric m) { return m < DFN_M_COUNT_ ? metric_names[m] : "?"; }

int dfn_metric_parse(const char *s, size_t len)
{
    for (int i = 0; i < DFN_M_COUNT_; i++)
        if (strlen(metric_names[i]) == len && memcmp(metric_names[i], s, len) == 0) return i;
    /* the explorer's column titles work too */
    static const struct { const char *n; int m; } alias[] = {
        {"time", DFN_M_TIME_S}, {"busy", DFN_M_BUSY_S}, {"bandwidth", DFN_M_BW_MIBPS}, {"bw", DFN_M_BW_MIBPS},
        {"p50", DFN_M_P50_US}, {"p90", DFN_M_P90_US}, {"p99", DFN_M_P99_US}, {"max", DFN_M_MAX_US},
        {"mean", DFN_M_MEAN_US}, {"pct", DFN_M_PCT_TIME}, {"ops", DFN_M_OPS_PER_S},
        {"compute", DFN_M_COMPUTE_S}, {"io", DFN_M_IO_BUSY_S}, {"exposed", DFN_M_EXPOSED_S},
        {"overlap", DFN_M_OVERLAP_PCT}, {"self", DFN_M_SELF_S}, {"seq", DFN_M_SEQ_PCT},
        {"shared", DFN_M_SHARED_FILES}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strlen(alias[i].n) == len && memcmp(alias[i].n, s, len) == 0) return alias[i].m;
    return -1;
}

void dfn_ctrs_free(dfn_ctrs *c)
{
    for (size_t k = 0; k < c->n; k++) free(c->series[k]);
    c->n = 0;
}

const char *dfn_result_metric_name(const dfn_result *r, int m)
{
    if (m < DFN_M_COUNT_) return dfn_metric_name((dfn_metric)m);
    return (size_t)m - DFN_M_COUNT_ < r->nctrs ? r->ctr_names[m - DFN_M_COUNT_] : "?";
}

/* ctr.SERIES of a metric list into ctrs, once each. */
static bool ctr_add(dfn_ctrs *ctrs, const char *p, size_t len, char *err, size_t errlen)
{
    if (!ctrs) { snprintf(err, errlen, "counter metrics (%.*s) are for report", (int)(len > 40 ? 40 : len), p); return false; }
    for (size_t k = 0; k < ctrs->n; k++)
        if (strlen(ctrs->series[k]) == len - 4 && memcmp(ctrs->series[k], p + 4, len - 4) == 0) return true;
    if (ctrs->n == DFN_MAX_CTRS) { snprintf(err, errlen, "at most %d counter metrics", DFN_MAX_CTRS); return false; }
    ctrs->series[ctrs->n++] = dfn_xstrndup(p + 4, len - 4);
    return true;
}

bool dfn_metrics_parse(const char *text, uint64_t *out, dfn_ctrs *ctrs, char *err, size_t errlen)
{
    static const struct { const char *n; uint64_t bits; } groups[] = {
        {"basic", DFN_M_BASIC}, {"overlap", DFN_M_OVERLAP},
        {"analysis", ~DFN_M_BASIC & (DFN_M_BIT(DFN_M_COUNT_) - 1)}, {"all", DFN_M_BIT(DFN_M_COUNT_) - 1}};
    const char *p = text;
    while (*p == ' ') p++;
    uint64_t m = *p == '+' ? DFN_M_BASIC : 0;
    if (*p == '+') p++;
    while (*p) {
        while (*p == ',' || *p == ' ') p++;
        if (!*p) break;
        bool minus = *p == '-';
        if (minus) p++;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ') e++;
        size_t len = (size_t)(e - p);
        if (!minus && len > 4 && memcmp(p, "ctr.", 4) == 0) {
            if (!ctr_add(ctrs, p, len, err, errlen)) return false;
            p = e;
            continue;
        }
        uint64_t bits = 0;
        for (size_t g = 0; g < sizeof groups / sizeof groups[0] && !bits; g++)
            if (strlen(groups[g].n) == len && memcmp(groups[g].n, p, len) == 0) bits = groups[g].bits;
        /* a group name wins over a metric alias of the same spelling */
        int k = bits ? -1 : dfn_metric_parse(p, len);
        if (k >= 0) bits = DFN_M_BIT(k);
        if (!bits) {
            snprintf(err, errlen, "unknown metric '%.*s' (see dfnav(1), METRICS)", (int)(len > 40 ? 40 : len), p);
            return false;
        }
        m = minus ? m & ~bits : m | bits;
        p = e;
    }
    if (!m && !(ctrs && ctrs->n)) { snprintf(err, errlen, "no metrics left"); return false; }
    *out = m ? m : DFN_M_BIT(DFN_M_COUNT);   /* counters alone: with the calls they are of */
    return true;
}

const char *dfn_dim_name(const dfn_dim *d, char *buf, size_t cap)
{
    if (d->kind == DFN_DIM_ARG) { snprintf(buf, cap, "%s.%s", d->own ? "own" : "arg", d->arg ? d->arg : ""); return buf; }
    return d->kind < DFN_DIM_COUNT ? dim_names[d->kind] : "?";
}

bool dfn_dim_numbered(dfn_dimkind k)
{
    return k == DFN_DIM_LAYER || k == DFN_DIM_CLASS || k == DFN_DIM_OP || k == DFN_DIM_SIZEBIN || k == DFN_DIM_TIME;
}

dfn_key dfn_dim_key(dfn_dimkind k)
{
    static const dfn_key keys[DFN_DIM_COUNT] = {
        [DFN_DIM_TIME] = DFN_KEY_COUNT, [DFN_DIM_HOST] = DFN_KEY_HOST, [DFN_DIM_PID] = DFN_KEY_PID,
        [DFN_DIM_TID] = DFN_KEY_TID, [DFN_DIM_PROC] = DFN_KEY_PROC, [DFN_DIM_CAT] = DFN_KEY_CAT,
        [DFN_DIM_FUNC] = DFN_KEY_FUNC, [DFN_DIM_CLASS] = DFN_KEY_CLASS, [DFN_DIM_OP] = DFN_KEY_OP,
        [DFN_DIM_LAYER] = DFN_KEY_LAYER, [DFN_DIM_FILE] = DFN_KEY_FILE, [DFN_DIM_PATTERN] = DFN_KEY_PATTERN,
        [DFN_DIM_DIR] = DFN_KEY_DIR, [DFN_DIM_FS] = DFN_KEY_FS, [DFN_DIM_SIZEBIN] = DFN_KEY_SIZEBIN,
        [DFN_DIM_ARG] = DFN_KEY_ARG, [DFN_DIM_EVENT] = DFN_KEY_COUNT, [DFN_DIM_TYPE] = DFN_KEY_TYPE,
        [DFN_DIM_RANK] = DFN_KEY_RANK, [DFN_DIM_PART] = DFN_KEY_PART, [DFN_DIM_SIZE] = DFN_KEY_COUNT,
        [DFN_DIM_PATH] = DFN_KEY_PATH };
    return k < DFN_DIM_COUNT ? keys[k] : DFN_KEY_COUNT;
}

bool dfn_dim_term_add(dfn_filter *f, const dfn_dim *d, const char *key, size_t len)
{
    dfn_key k = dfn_dim_key(d->kind);
    if (k == DFN_KEY_COUNT) return false;
    dfn_filter_add(f, k, d->arg, DFN_EQ, key, len);
    f->terms[f->n - 1].own = d->own;   /* the row's own values, or inherited ones */
    return true;
}

bool dfn_dims_parse(const char *text, dfn_dim *dims, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ',' || *p == ' ') p++;
        if (!*p) break;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ') e++;
        size_t len = (size_t)(e - p);
        if (*n == DFN_MAX_DIMS) { snprintf(err, errlen, "at most %d dimensions", DFN_MAX_DIMS); goto fail; }
        dfn_dim d = {0};
        bool ok = false;
        if (len > 4 && (memcmp(p, "arg.", 4) == 0 || memcmp(p, "own.", 4) == 0)) {
            d.kind = DFN_DIM_ARG;
            d.arg = dfn_xstrndup(p + 4, len - 4);
            d.own = p[0] == 'o';
            ok = true;
        }
        for (int k = 0; k < DFN_DIM_COUNT && !ok; k++)
            if (k != DFN_DIM_ARG && strlen(dim_names[k]) == len && memcmp(dim_names[k], p, len) == 0) { d.kind = (dfn_dimkind)k; ok = true; }
        if (!ok && len == 7 && memcmp(p, "process", 7) == 0) { d.kind = DFN_DIM_PROC; ok = true; }
        if (!ok && len == 8 && memcmp(p, "function", 8) == 0) { d.kind = DFN_DIM_FUNC; ok = true; }
        if (!ok) {
            snprintf(err, errlen, "unknown dimension '%.*s' (time host pid tid proc rank cat func type class op layer file pattern part dir fs sizebin size path arg.NAME own.NAME event)",
                     (int)(len > 40 ? 40 : len), p);
            goto fail;
        }
        dims[(*n)++] = d;
        p = e;
    }
    return true;
fail:
    dfn_dims_free(dims, *n);
    *n = 0;
    return false;
}

void dfn_dims_copy(dfn_dim *to, const dfn_dim *from, size_t n)
{
    for (size_t d = 0; d < n; d++) {
        to[d] = from[d];
        to[d].arg = from[d].arg ? dfn_xstrdup(from[d].arg) : NULL;
    }
}

void dfn_dims_free(dfn_dim *dims, size_t n)
{
    for (size_t i = 0; i < n; i++) { free(dims[i].arg); dims[i].arg = NULL; }
}

double dfn_bin_fit(double span_s, uint64_t max_bins)
{
    /* in whole µs, as windows are: a span of 60 µs read as 60.000000000000007
     * bins of 1 µs took bins of 2 */
    static const uint64_t steps[] = { 1, 2, 5 };
    if (!(span_s < 1e12)) return 1e9;   /* past every step below */
    uint64_t span_us = span_s > 0 ? (uint64_t)llround(span_s * 1e6) : 0, n = max_bins ? max_bins : 1;
    uint64_t least = span_us / n + (span_us % n != 0);   /* span_us <= n * step, without overflow */
    for (uint64_t mag = 1; mag < 1000000000000000ull; mag *= 10)
        for (int i = 0; i < 3; i++)
            if (steps[i] * mag >= least) return (double)(steps[i] * mag) / 1e6;
    return 1e9;
}

double dfn_auto_bin(double span_s)
{
    return span_s > 0 ? dfn_bin_fit(span_s, 60) : 1;
}

/* ---- histogram buckets: exact below 64 µs, then 64 per power of two
 * (relative error of the midpoint under 0.8%) ---- */

#define HIST_OCTAVES 41                      /* up to 2^47 µs, four years */
#define HIST_BUCKETS (64 + HIST_OCTAVES * 64)
#define DENSE_ROWS 4096                      /* rows with dense accumulators */

static inline uint32_t hist_bucket(uint64_t v)
{
    if (v < 64) return (uint32_t)v;
    int e = 63 - __builtin_clzll(v);
    if (e >= 6 + HIST_OCTAVES) return HIST_BUCKETS - 1;
    return (uint32_t)(64 + (e - 6) * 64 + ((v >> (e - 6)) & 63));
}

/* n calls into bucket b of a dense histogram. Its 32-bit buckets hold
 * any set of single calls, but aggregated records stand for billions: a
 * bucket saturates rather than wraps, and a row of over 2^32 calls, the
 * only one that can fill a bucket, shows no percentile (part_finish). */
static inline void hist_add(uint32_t *hist, uint32_t b, uint64_t n)
{
    hist[b] = n > UINT32_MAX - hist[b] ? UINT32_MAX : hist[b] + (uint32_t)n;
}

static double hist_value(uint32_t b)
{
    if (b < 64) return b;
    int e = (int)(b - 64) / 64 + 6;
    double width = ldexp(1.0, e - 6);
    double lo = ldexp(1.0, e) + (double)((b - 64) % 64) * width;
    return lo + (width - 1) / 2;   /* middle of the integers in the bucket */
}

/* One row's accumulators. The first DENSE_ROWS rows keep histogram,
 * per-process sums and the file set in arrays; later rows (a grouping by
 * event, say) fall back to the part's sparse maps. */
#define PREFIX_SEGS 32
typedef struct {
    uint64_t count, dur, bytes, maxdur, busy, cur_s, cur_e;
    bool started, overflow;
    uint8_t full;             /* DFN_OVF_*: a sum passed 2^64 and stays there, flagged */
    uint8_t nsegs, ntail, tailpos;
    uint64_t *segs;           /* first closed segments of the union (parts after the first) */
    uint64_t *tail;           /* and the last ones, a ring */
    struct acc_arrays *x;     /* a dense row's arrays (see AX); NULL for the rest */
    struct acc_more *more;    /* see AM; NULL until an event adds to it */
} acc;

/* What only some events add up, out of the accumulator that a million
 * rows each carry (96 bytes a row that a grouping by file of whole
 * calls without aggregated records never uses). */
typedef struct acc_more {
    uint64_t agg;             /* calls from aggregated records */
    /* pieces of calls that started before the row (its window or time
     * bin): their calls (active is count + out_calls) and time; and the
     * time of the row's own calls that lies past it (for mean_us) */
    uint64_t out_calls, out_us, cut_us;
    /* reads and writes: calls, bytes, least and largest bytes per call */
    uint64_t szn, szsum;
    double szmin, szmax;      /* an aggregated record's calls at their mean, fractions kept */
    /* analysis metrics */
    uint64_t self, seq, rnd;
    uint64_t share_key;       /* last (file, process) seen: most events repeat it */
} acc_more;

static const acc_more more_none;
/* An accumulator's sizes and analysis sums, zeros when it has none: read, never set. */
#define AM(a) ((a)->more ? (const acc_more *)(a)->more : &more_none)

/* The arrays of a dense row (or a layer mask): out of the accumulator,
 * which a million sparse rows would otherwise each carry, empty. */
typedef struct acc_arrays {
    uint32_t *hist;
    uint64_t *procsum;
    uint64_t *procbytes;      /* per process: bytes (max_proc_bytes only) */
    uint64_t *procseen;       /* bitset: a process with events here, even of 0 µs */
    uint64_t *files;          /* bitset */
    uint64_t *spark;          /* µs per sparkline bin */
    uint64_t *sizes;          /* calls per size bin */
    uint64_t *spk_io;         /* the row's I/O per sparkline bin (its compute comes from the overlap) */
    uint32_t *psw;            /* per (process, io|compute): sweep index + 1 (few processes) */
} acc_arrays;

static const acc_arrays acc_none;
/* An accumulator's arrays, all NULL for a sparse row: read, never set. */
#define AX(a) ((a)->x ? (const acc_arrays *)(a)->x : &acc_none)

/* The union of one row's I/O (or compute) intervals within one process,
 * swept like busy time, with the part of it not covered by the process's
 * compute; the later parts of a split scan keep their first segment (and
 * where the second starts) for the merge. */
typedef struct {
    uint64_t s, e, len, exposed;
    uint64_t f_s, f_e, second;
    uint32_t proc, row;
    uint64_t gap_lo, gap_hi;  /* a stretch without compute around the last segment */
    uint8_t kind;             /* 0 I/O, 1 compute */
    bool started, closed_one;
} psweep;

/* A sparse row's first latency bucket, process and file. Most rows of a
 * grouping with many (by file, by event) hold one of each, and in the
 * part's maps each would take a slot of 16 bytes at under half load
 * (about 100 bytes a row at a million rows); the maps hold only the
 * others, so a key is in one place. */
typedef struct {
    uint64_t pdur, pbytes;    /* the first process's time and bytes */
    uint32_t proc, file;      /* + 1; 0: none yet */
    uint32_t hn;              /* calls in the first bucket, saturating as a dense one */
    uint16_t hb;              /* + 1 */
} acc_one;

/* What every thread of one query reads. */
typedef struct {
    const dfn_store *s;
    const dfn_query *q;
    dfn_result *r;
    const dfn_match *m;
    uint32_t *lane_tab[DFN_MAX_DIMS], *kind_tab[DFN_MAX_DIMS], *file_tab[DFN_MAX_DIMS];
    uint32_t argkey[DFN_MAX_DIMS];
    const char *argpath[DFN_MAX_DIMS];   /* a value nested in the argument's object, or NULL */
    int16_t *argpos[DFN_MAX_DIMS];   /* by schema: index among valued args (a DFN_ARG_SAME: its value's), -1 valueless, -2 absent */
    uint8_t *argtype[DFN_MAX_DIMS];
    int layer_dim;
    bool has_arg;
    uint64_t win_lo_us, bin_us;
    /* Calls count their part inside the window [clip_lo, clip_hi) (µs
     * from the store's start; clip: the filter bounds the time) and, by
     * time, inside each bin (time_dim >= 0). strad: the matched calls
     * that start before the window and run into it, in start order. */
    bool clip;
    uint64_t clip_lo, clip_hi;
    int time_dim;
    const size_t *strad;
    size_t nstrad;
    uint32_t *proc_of_lane;   /* process (host, pid) of each lane */
    size_t nprocs;
    bool need_hist, need_procs, need_files;
    bool need_busy;           /* busy_s or idle_s: each row's union of its calls */
    bool need_any;            /* any of busy, histogram, processes, files, sums, extra: one test a call when none */
    const dfn_tiles *tiles;   /* the query's tiles, when its filter and sums let lean_loop take them (query_tiles) */
    uint8_t tile_sums;        /* ... the sums it needs (TILE_BY_*) */
    bool need_procbytes;      /* per-process bytes too (max_proc_bytes) */
    size_t dense_proc_rows;   /* rows (and masks) that keep per-process sums in arrays */
    size_t dense_file_rows;   /* rows that keep their files in a bitset of all files */
    size_t dense_hist_rows;   /* rows that keep their histogram in an array */
    bool need_spread;         /* min, mean, std of per-process time; bytes */
    bool need_size;           /* size_mean ... size_max */
    size_t direct_n;
    bool one_table;           /* one dimension read from a table: an event is in one row */
    size_t spark_bins;
    uint64_t spark_lo_us, spark_span_us;
    double spark_dinv;        /* bins / span */
    /* analysis metrics */
    bool need_extra, need_overlap, need_share, need_sizes, spark_split, dense_psw;
    bool has_agg;             /* the store has aggregated records */
    bool need_sums, need_cmp_sweep;
    const dfn_calltree *self_tree;   /* when self_s is asked for */
    const uint64_t *cmp_bits, *judged, *seqbits;
    const uint64_t *io_bits;  /* --io, or NULL: the kinds' POSIX/STDIO flag */
    const uint32_t *ov_proc;  /* the overlap's process (or host) of each lane */
    size_t ov_nprocs;
    const dfn_ctrindex *cix;  /* counter metrics, or NULL */
    size_t nctr;
    bool partial;             /* a partial result: every part logs every segment of its unions */
} qctx;

/* One thread's share: a contiguous range of events, so in time order.
 * Aligned so that two threads never write to one cache line. */
typedef struct {
    _Alignas(128) const qctx *c;
    size_t lo, hi;
    bool record;              /* keep the first and last segments of each union */
    dfn_strtab *rowkeys;      /* composite keys of three or more dimensions */
    dfn_map64 rows2;          /* two dimensions: (id0 << 32 | id1) -> row + 1, no text to hash */
    uint32_t last_ids[DFN_MAX_DIMS];   /* the last event's key and row: runs of one row skip the lookup */
    size_t last_row;
    bool have_last;
    uint32_t *direct;         /* row + 1 by id, one dimension */
    dfn_map64 far;            /* row + 1 by id, for ids past direct */
    acc *acc; size_t nacc, acccap;
    /* the rows past DENSE_ROWS were freed and their pages given back (a
     * merge or the finish): never read again, since on a kernel without
     * the shared zero page a read takes each page back (a million rows by
     * file peaked 90 MB higher for part_free's walk over them) */
    bool sparse_gone;
    uint32_t *keys; size_t keycap;
    dfn_strtab *vals;         /* arg.NAME values by text */
    uint32_t empty_val;       /* id of "", the value of a missing argument */
    dfn_map64 valmap[DFN_ARG_RAW + 1];
    dfn_map64 inherited[DFN_MAX_DIMS];   /* arg.NAME: parent event -> value id + 1 */
    dfn_map64 hist, procs, files;   /* past each sparse row's first (one) */
    acc_one *one; size_t onecap;    /* by row, when a query needs any of the three */
    dfn_map64 procb;          /* (row, process) -> bytes, beside procs */
    dfn_map64 szh;            /* (row, size bucket) -> read and write calls: size_p50 */
    uint64_t szh_key, szh_n;  /* the last key's calls not yet in szh: runs of one size (see szh_add) */
    uint64_t total, matched;
    uint64_t matched_calls;   /* calls of the matched events (aggregated records count theirs) */
    size_t tiles_taken;       /* tiles lean_loop added whole */
    const uint8_t *rec; size_t rec_i;   /* argument record cursor */
    uint64_t *spark_total;
    uint32_t *events; size_t nevents, eventcap;   /* grouping by event */
    uint32_t **slabs; size_t nslabs;   /* histograms, HIST_SLAB rows at a time */
    psweep *psw; size_t npsw, pswcap;
    dfn_map64 pswmap;         /* (row, process, kind) -> sweep index + 1, many processes */
    /* counter metrics: the union of a row's calls per sample key (a
     * process, or a host), with the samples inside it per series */
    psweep *csw; size_t ncsw, cswcap;
    dfn_map64 cswmap;         /* (row, key) -> index + 1 */
    uint64_t *ccnt; size_t ccntcap;     /* ncsw * nctr */
    dfn_ctrsum *csum; size_t csumcap;
    dfn_map64 share;          /* (row, file) -> process + 1, or SHARE_MANY */
    dfn_map64 sizes;          /* (row, bin) -> calls, sparse rows */
    dfn_map64 spk[2];         /* (row << 16 | bin) -> µs of rows past DENSE_ROWS: spark, spk_io */
    dfn_seglog seglog;        /* partial: (row, start, end) of each closed segment */
} part;

#define SHARE_MANY (1ull << 63)

static acc_more *acc_more_own(acc *a)
{
    if (!a->more) a->more = dfn_xcalloc(1, sizeof *a->more);
    return a->more;
}

/* The row's count, agg calls, time and bytes from one event or another row:
 * sums that pass 2^64 (three reads of 2^63 - 1 bytes, durations near 2^62)
 * stay at UINT64_MAX, flagged (DFN_OVF_*). */
static inline void acc_sums(acc *a, uint64_t count, uint64_t agg, uint64_t dur, uint64_t bytes, uint8_t full)
{
    a->full |= full;
    dfn_sat_add_flag(&a->count, count, &a->full, DFN_OVF_COUNT);
    if (agg) dfn_sat_add_flag(&acc_more_own(a)->agg, agg, &a->full, DFN_OVF_AGG);
    dfn_sat_add_flag(&a->dur, dur, &a->full, DFN_OVF_DUR);
    dfn_sat_add_flag(&a->bytes, bytes, &a->full, DFN_OVF_BYTES);
}

/* acc_sums with no flag to keep: the usual case in three adds, without
 * branches between them (a bitwise or of ints); a carry out of any, or
 * calls of aggregated records, redo them saturating. */
static inline void acc_sums_fast(acc *a, uint64_t count, uint64_t agg, uint64_t dur, uint64_t bytes)
{
    uint64_t nc, nd, nb;
    int over = (int)__builtin_add_overflow(a->count, count, &nc) | (int)__builtin_add_overflow(a->dur, dur, &nd) |
               (int)__builtin_add_overflow(a->bytes, bytes, &nb);
    if (__builtin_expect(over || agg, 0)) {
        acc_sums(a, count, agg, dur, bytes, 0);
    } else {
        a->count = nc;
        a->dur = nd;
        a->bytes = nb;
    }
}

/* Per-process sums of a row kept densely: the sums, and which processes
 * have events at all (calls of 0 µs count a process too, as the sparse
 * maps' slots do). */
static void procs_alloc(acc_arrays *w, size_t nprocs, bool bytes)
{
    w->procsum = dfn_xcalloc(nprocs ? nprocs : 1, sizeof *w->procsum);
    w->procseen = dfn_xcalloc(nprocs / 64 + 1, sizeof *w->procseen);
    if (bytes) w->procbytes = dfn_xcalloc(nprocs ? nprocs : 1, sizeof *w->procbytes);
}

/* The arrays of a dense row or a mask, made on first use. */
static acc_arrays *acc_own(acc *a)
{
    if (!a->x) a->x = dfn_xcalloc(1, sizeof *a->x);
    return a->x;
}

static inline void proc_add(acc *a, uint64_t pr, uint64_t us, uint64_t bytes)
{
    const acc_arrays *x = a->x;   /* a row with its sums in arrays has them */
    x->procsum[pr] += us;
    if (x->procbytes) x->procbytes[pr] += bytes;
    x->procseen[pr >> 6] |= 1ull << (pr & 63);
}

/* What a row keeps of latency buckets, processes and files goes where
 * the row keeps it: its arrays (a dense row), else its first entry
 * (p->one), else the part's maps. */

/* n calls into latency bucket b of row. */
static inline void row_hist(part *p, size_t row, uint32_t b, uint64_t n)
{
    uint32_t *hist = AX(&p->acc[row])->hist;
    if (hist) { hist_add(hist, b, n); return; }
    acc_one *o = &p->one[row];
    if (!o->hb) o->hb = (uint16_t)(b + 1);
    if (o->hb == b + 1) hist_add(&o->hn, 0, n);
    else *dfn_map64_slot(&p->hist, (uint64_t)row << 16 | b) += n;
}

/* Time and bytes of process pr into row (a call of 0 µs counts its
 * process too, as a map slot does; bytes only when asked, as a dense
 * row has them). */
static inline void row_proc(part *p, size_t row, uint32_t pr, uint64_t us, uint64_t bytes)
{
    acc *a = &p->acc[row];
    if (a->x && a->x->procsum) { proc_add(a, pr, us, bytes); return; }
    acc_one *o = &p->one[row];
    if (!o->proc) o->proc = pr + 1;
    if (o->proc == pr + 1) {
        o->pdur += us;
        if (p->c->need_procbytes) o->pbytes += bytes;
        return;
    }
    *dfn_map64_slot(&p->procs, (uint64_t)row << 32 | pr) += us;
    if (p->c->need_procbytes) *dfn_map64_slot(&p->procb, (uint64_t)row << 32 | pr) += bytes;
}

/* File f into row: only which, not how often. */
static inline void row_file(part *p, size_t row, uint32_t f)
{
    uint64_t *files = AX(&p->acc[row])->files;
    if (files) { files[f >> 6] |= 1ull << (f & 63); return; }
    acc_one *o = &p->one[row];
    if (!o->file) o->file = f + 1;
    if (o->file != f + 1) (*dfn_map64_slot(&p->files, (uint64_t)row << 32 | f))++;
}

/* Per part, the bytes of per-process sums that rows keep in arrays;
 * beyond, rows keep them in the sparse maps. */
#define PROC_ARRAYS ((size_t)16 << 20)
/* Dense histograms (10.5 KiB a row) and file bitsets take at most this
 * much a part: past it, rows keep theirs in the part's sparse maps, which
 * cost a row what it holds. 4,096 dense histograms were 44 MiB a part,
 * whatever the rows held (a grouping of 200,000 files took 88 MiB of
 * them for rows of one call each). */
#define HIST_ARRAYS ((size_t)16 << 20)
#define FILE_ARRAYS ((size_t)4 << 20)

/* Histograms come from slabs large enough for calloc to map fresh zero
 * pages: a row's buckets cost nothing until its events touch them. */
#define HIST_SLAB 64

/* The index of pid or tid value v in r->ints, added when new; seen maps
 * the values' bytes to their index (a linear search was quadratic in the
 * lanes). */
static uint32_t int_index(dfn_result *r, dfn_strtab **seenp, size_t *cap, int64_t v)
{
    if (!*seenp) *seenp = dfn_strtab_new();   /* only queries by pid or tid need it */
    dfn_strtab *seen = *seenp;
    uint32_t before = dfn_strtab_count(seen), id = dfn_strtab_intern(seen, (const char *)&v, sizeof v);
    if (id == before) {
        dfn_grow((void **)&r->ints, cap, (size_t)id + 1, sizeof *r->ints);
        r->ints[id] = v;
    }
    return id;
}

static void ctx_prepare(qctx *c)
{
    const dfn_store *s = c->s;
    dfn_result *r = c->r;
    size_t intcap = 0;
    dfn_strtab *ints = NULL;
    c->layer_dim = -1;
    for (size_t d = 0; d < r->ndims; d++) {
        dfn_dimkind k = r->dims[d].kind;
        c->argkey[d] = DFN_NOID;
        switch (k) {
        case DFN_DIM_HOST: case DFN_DIM_PID: case DFN_DIM_TID: case DFN_DIM_PROC: case DFN_DIM_RANK:
            c->lane_tab[d] = dfn_xmalloc((s->nlanes ? s->nlanes : 1) * sizeof(uint32_t));
            for (size_t i = 0; i < s->nlanes; i++) {
                const dfn_lane *l = &s->lanes[i];
                c->lane_tab[d][i] = k == DFN_DIM_HOST ? l->host : k == DFN_DIM_RANK ? l->rank : k == DFN_DIM_PROC ? (uint32_t)i :
                                    int_index(r, &ints, &intcap, k == DFN_DIM_PID ? l->pid : l->tid);
            }
            break;
        case DFN_DIM_CAT: case DFN_DIM_FUNC: case DFN_DIM_CLASS: case DFN_DIM_OP: case DFN_DIM_TYPE:
            c->kind_tab[d] = dfn_xmalloc((s->nkinds ? s->nkinds : 1) * sizeof(uint32_t));
            for (size_t i = 0; i < s->nkinds; i++) {
                const dfn_kind *kd = &s->kinds[i];
                c->kind_tab[d][i] = k == DFN_DIM_CAT ? kd->cat : k == DFN_DIM_FUNC ? kd->func : k == DFN_DIM_TYPE ? kd->type_name :
                                    k == DFN_DIM_CLASS ? kd->cls : kd->op;
            }
            break;
        case DFN_DIM_FILE: case DFN_DIM_PATTERN: case DFN_DIM_DIR: case DFN_DIM_FS: case DFN_DIM_PART:
            c->file_tab[d] = dfn_xmalloc(s->nfiles * sizeof(uint32_t));
            for (size_t i = 0; i < s->nfiles; i++) {
                const dfn_file *f = &s->files[i];
                c->file_tab[d][i] = k == DFN_DIM_FILE ? (uint32_t)i : k == DFN_DIM_PATTERN ? f->pattern :
                                    k == DFN_DIM_PART ? f->part : k == DFN_DIM_DIR ? f->dir : f->fs;
            }
            break;
        case DFN_DIM_LAYER: c->layer_dim = (int)d; break;
        case DFN_DIM_ARG:
            dfn_arg_resolve(s, r->dims[d].arg, &c->argkey[d], &c->argpath[d]);
            c->has_arg = true;
            c->argpos[d] = dfn_xmalloc((s->nschemas ? s->nschemas : 1) * sizeof *c->argpos[d]);
            c->argtype[d] = dfn_xcalloc(s->nschemas ? s->nschemas : 1, 1);
            for (size_t sc = 0; sc < s->nschemas; sc++) {
                int16_t pos = -2, valued = 0;
                uint8_t last = DFN_ARG_NULL;   /* the type of the last valued argument */
                for (uint16_t j = 0; j < s->schema_len[sc]; j++) {
                    uint8_t ty = s->schema_types[sc][j];
                    bool has_val = dfn_argtype_valued(ty);
                    if (s->schema_keys[sc][j] == c->argkey[d]) {
                        /* DFN_ARG_SAME: the value of the last valued argument (its type) */
                        pos = has_val ? valued : ty == DFN_ARG_SAME ? (int16_t)(valued - 1) : -1;
                        c->argtype[d][sc] = ty == DFN_ARG_SAME ? last : ty;
                        break;
                    }
                    if (has_val) last = ty;
                    valued += has_val;
                }
                c->argpos[d][sc] = pos;
            }
            break;
        default: break;
        }
    }
    dfn_strtab_free(ints);
    c->nprocs = dfn_store_procs(s, &c->proc_of_lane);
    uint64_t want = r->metrics;
    c->need_hist = want & (DFN_M_BIT(DFN_M_P50_US) | DFN_M_BIT(DFN_M_P90_US) | DFN_M_BIT(DFN_M_P99_US));
    c->has_agg = s->cnt.v != NULL;
    uint64_t spread = DFN_M_BIT(DFN_M_MIN_PROC_S) | DFN_M_BIT(DFN_M_MEAN_PROC_S) | DFN_M_BIT(DFN_M_STD_PROC_S) |
                      DFN_M_BIT(DFN_M_MAX_PROC_BYTES) | DFN_M_BIT(DFN_M_MEAN_PROC_BYTES);
    c->need_spread = want & spread;
    c->need_procbytes = want & DFN_M_BIT(DFN_M_MAX_PROC_BYTES);
    c->need_size = want & (DFN_M_BIT(DFN_M_SIZE_MEAN) | DFN_M_BIT(DFN_M_SIZE_P50) | DFN_M_BIT(DFN_M_SIZE_MIN) |
                           DFN_M_BIT(DFN_M_SIZE_MAX));
    c->need_procs = (want & (DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_PROCS) | DFN_M_BIT(DFN_M_MAX_PROC))) || c->need_spread;
    c->need_files = want & (DFN_M_BIT(DFN_M_FILES) | DFN_M_BIT(DFN_M_SHARED_FILES));
    /* the union is a compare and a store per call and row, a tenth of a
     * scan, and a layer's for every layer of the call: only when asked */
    c->need_busy = want & (DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S));
    /* Per-process sums in arrays are fast for the few processes of most
     * sets; with many, they would cost the rows memory for processes they
     * do not have: a budget of PROC_ARRAYS bytes a part, past which rows
     * keep them in the sparse map. */
    size_t per_row = c->nprocs * (c->need_procbytes ? 16 : 8) + c->nprocs / 8 + 16;
    c->dense_proc_rows = PROC_ARRAYS / per_row < DENSE_ROWS ? PROC_ARRAYS / per_row : DENSE_ROWS;
    /* the same for the files' bitsets: 1M files made each of 4,096 rows
     * take 125 KiB (a GiB by file) */
    size_t per_files = (c->s->nfiles + 63) / 64 * 8;
    c->dense_file_rows = FILE_ARRAYS / per_files < DENSE_ROWS ? FILE_ARRAYS / per_files : DENSE_ROWS;
    size_t per_hist = (size_t)HIST_BUCKETS * sizeof(uint32_t);
    c->dense_hist_rows = HIST_ARRAYS / per_hist < DENSE_ROWS ? HIST_ARRAYS / per_hist : DENSE_ROWS;
    c->spark_split = dfn_query_spark_split(c->q) && c->q->overlap;
    c->need_overlap = (want & DFN_M_OVERLAP) || c->spark_split;
    c->need_share = want & DFN_M_BIT(DFN_M_SHARED_FILES);
    c->need_sizes = c->q->sizes;
    if (c->need_overlap) {
        c->cmp_bits = dfn_overlap_bits(c->q->overlap);
        c->io_bits = dfn_overlap_io_bits(c->q->overlap);
        c->ov_proc = dfn_overlap_procs(c->q->overlap, &c->ov_nprocs);
        c->dense_psw = c->ov_nprocs <= 256;
    }
    if ((want & DFN_M_BIT(DFN_M_SEQ_PCT)) && c->q->access) dfn_access_bits(c->q->access, &c->judged, &c->seqbits);
    if (want & DFN_M_BIT(DFN_M_SELF_S)) c->self_tree = c->q->tree;
    c->need_cmp_sweep = (want & DFN_M_BIT(DFN_M_COMPUTE_S)) || c->spark_split;
    c->need_sums = c->need_sizes || c->judged || c->self_tree;
    c->need_extra = c->need_overlap || c->need_share;
    /* direct row lookup for one dimension with a small id space */
    if (r->ndims == 1) {
        dfn_dimkind k = r->dims[0].kind;
        c->direct_n = k == DFN_DIM_FILE ? s->nfiles : k == DFN_DIM_PROC ? s->nlanes :
                      k == DFN_DIM_CLASS ? DFN_CLASS_COUNT : k == DFN_DIM_OP ? DFN_OP_COUNT :
                      k == DFN_DIM_SIZEBIN ? DFN_SIZEBIN_COUNT + 1 : k == DFN_DIM_LAYER ? 64 :
                      k == DFN_DIM_TIME ? (size_t)((r->win_hi_s - r->bin0_s) / r->bin_s) + 2 :
                      (k == DFN_DIM_PID || k == DFN_DIM_TID) ? s->nlanes :
                      k == DFN_DIM_EVENT ? 0 : k == DFN_DIM_ARG || k == DFN_DIM_SIZE ? 1u << 16 :
                      k == DFN_DIM_PATH ? dfn_calltree_npaths(c->q->tree) : dfn_strtab_count(s->strs);
        if (c->direct_n > (1u << 24)) c->direct_n = 0;
    }
}

static void ctx_free(qctx *c)
{
    for (size_t d = 0; d < DFN_MAX_DIMS; d++) {
        free(c->lane_tab[d]); free(c->kind_tab[d]); free(c->file_tab[d]);
        free(c->argpos[d]); free(c->argtype[d]);
    }
    free(c->proc_of_lane);
}

static void part_init(part *p, const qctx *c, size_t lo, size_t hi, bool record)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->lo = lo;
    p->hi = hi;
    p->record = record;
    p->rowkeys = dfn_strtab_new();
    dfn_map64_init(&p->rows2);
    p->direct = dfn_xcalloc(c->direct_n ? c->direct_n : 1, sizeof *p->direct);
    p->vals = dfn_strtab_new();
    p->empty_val = dfn_strtab_intern(p->vals, "", 0);
    for (int k = 0; k <= DFN_ARG_RAW; k++) dfn_map64_init(&p->valmap[k]);
    for (int k = 0; k < DFN_MAX_DIMS; k++) dfn_map64_init(&p->inherited[k]);
    dfn_map64_init(&p->hist);
    dfn_map64_init(&p->procs);
    dfn_map64_init(&p->procb);
    dfn_map64_init(&p->szh);
    dfn_map64_init(&p->files);
    dfn_map64_init(&p->pswmap);
    dfn_map64_init(&p->cswmap);
    dfn_map64_init(&p->far);
    dfn_map64_init(&p->share);
    dfn_map64_init(&p->sizes);
    for (int k = 0; k < 2; k++) dfn_map64_init(&p->spk[k]);
    if (c->spark_bins) p->spark_total = dfn_xcalloc(c->spark_bins, sizeof *p->spark_total);
}

/* The arrays an accumulator owns (a row's histogram lives in a slab),
 * freed and forgotten: a row done with early is freed again, harmlessly,
 * with its part. */
static void acc_free(acc *a)
{
    /* written only when it owns something: the rows given back to the
     * system read as zeros, and a write would take their pages again
     * (61 MB at a million rows, freeing what was already freed) */
    if (a->segs || a->tail) {
        free(a->segs); free(a->tail);
        a->segs = a->tail = NULL;
    }
    if (a->more) {
        free(a->more);
        a->more = NULL;
    }
    if (!a->x) return;
    free(a->x->procsum); free(a->x->procbytes); free(a->x->procseen); free(a->x->files); free(a->x->spark);
    free(a->x->sizes); free(a->x->spk_io); free(a->x->psw);
    free(a->x);
    a->x = NULL;
}

/* The rows that still own what acc_free frees. */
static size_t part_live_rows(const part *p)
{
    return p->sparse_gone && p->nacc > DENSE_ROWS ? DENSE_ROWS : p->nacc;
}

static void part_free(part *p)
{
    for (size_t k = 0; k < part_live_rows(p); k++) acc_free(&p->acc[k]);
    free(p->psw);
    free(p->csw); free(p->ccnt); free(p->csum);
    dfn_map64_free(&p->cswmap);
    dfn_map64_free(&p->far);
    dfn_map64_free(&p->pswmap); dfn_map64_free(&p->share); dfn_map64_free(&p->sizes);
    for (int k = 0; k < 2; k++) dfn_map64_free(&p->spk[k]);
    free(p->spark_total);
    free(p->events);
    for (size_t k = 0; k < p->nslabs; k++) free(p->slabs[k]);
    free(p->slabs);
    free(p->acc);
    free(p->keys);
    free(p->direct);
    dfn_strtab_free(p->rowkeys);
    dfn_map64_free(&p->rows2);
    dfn_strtab_free(p->vals);
    for (int k = 0; k <= DFN_ARG_RAW; k++) dfn_map64_free(&p->valmap[k]);
    for (int k = 0; k < DFN_MAX_DIMS; k++) dfn_map64_free(&p->inherited[k]);
    dfn_map64_free(&p->hist); dfn_map64_free(&p->procs); dfn_map64_free(&p->procb); dfn_map64_free(&p->szh); dfn_map64_free(&p->files);
    free(p->one);
    dfn_seglog_free(&p->seglog);
}

/* Reads and writes: the calls that have a transfer size. */
static inline bool event_is_rw(const dfn_store *s, size_t i)
{
    uint8_t cls = s->kinds[dfn_store_kind(s, i)].cls;
    return cls == DFN_CLASS_READ || cls == DFN_CLASS_WRITE;
}

/* The transfer size of event i as an id in the part's value table, its
 * bytes in decimal: reads and writes only (other calls have none, ""); an
 * aggregated record gives the mean size of the calls it folds, to six
 * decimals at most (4096.5, not 4096). */
static uint32_t part_size_id(part *p, size_t i, uint64_t bytes)
{
    const dfn_store *s = p->c->s;
    if (!event_is_rw(s, i)) return p->empty_val;
    uint64_t calls = dfn_store_calls(s, i);
    char t[48];
    int n = bytes % calls == 0 ? snprintf(t, sizeof t, "%" PRIu64, bytes / calls)
                               : snprintf(t, sizeof t, "%.6f", dfn_store_mean(bytes, calls));
    if (bytes % calls != 0) {
        while (n > 1 && t[n - 1] == '0') n--;
        if (t[n - 1] == '.') n--;   /* a fraction under 0.0000005 */
    }
    return dfn_strtab_intern(p->vals, t, (size_t)n);
}

#define ARG_ABSENT UINT32_MAX

/* The value of dimension d's argument in the argument record at rp, as an
 * id in the part's value table; ARG_ABSENT when the record has none. */
static uint32_t part_arg_rec(part *p, size_t d, const uint8_t *rp)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    /* the schema says where the value sits: no decoding of other arguments */
    const uint8_t *end = s->args + s->args_len;
    uint64_t sid;
    size_t k = dfn_varint_get(rp, end, &sid);
    if (!k || sid >= s->nschemas || c->argpos[d][sid] == -2) return ARG_ABSENT;
    dfn_arg a = { .key = c->argkey[d], .type = (dfn_argtype)c->argtype[d][sid] };
    uint64_t raw = 0;         /* the record's value: the key of valmap */
    if (c->argpos[d][sid] >= 0) {
        rp += k;
        for (int16_t j = 0; j < c->argpos[d][sid]; j++) rp = dfn_varint_skip(rp, end);
        uint64_t v;
        if (rp >= end || !dfn_varint_get(rp, end, &v)) return p->empty_val;
        raw = v;
        if (a.type == DFN_ARG_INT) a.i = dfn_unzigzag(v);
        else if (a.type == DFN_ARG_UINT) a.u = v;
        else a.str = (uint32_t)v;
    }
    /* the cache is by value alone, shared by the dimensions: a nested
     * value depends on the dimension's path too, and is read each time */
    uint64_t *slot = raw != DFN_MAP64_EMPTY && !c->argpath[d] ? dfn_map64_slot(&p->valmap[a.type], raw) : NULL;
    if (slot && *slot) return (uint32_t)(*slot - 1);
    uint32_t id;
    if (c->argpath[d]) {
        /* one path per dimension: the object's text names the value */
        const char *v;
        size_t vl;
        bool in = a.type == DFN_ARG_RAW && dfn_arg_nested_text(s, a.str, c->argpath[d], &v, &vl);
        id = in ? dfn_strtab_intern(p->vals, v, vl) : p->empty_val;
    } else if (a.type == DFN_ARG_STR || a.type == DFN_ARG_RAW) {
        id = dfn_strtab_intern(p->vals, dfn_store_str(s, a.str), dfn_strtab_len(s->strs, a.str));
    } else {
        char buf[64];
        size_t n = dfn_arg_text(s, &a, buf, sizeof buf);
        id = dfn_strtab_intern(p->vals, buf, n);
    }
    if (slot) *slot = (uint64_t)id + 1;
    return id;
}

/* The value of arg.NAME for event i, as an id in the part's value table:
 * the call's own, else (arg.NAME, not own.NAME) the innermost enclosing
 * call's that has it, remembered per parent, which many calls share.
 * Records are decoded from a cursor: scans go forward. */
static uint32_t part_arg_id(part *p, size_t d, size_t i)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    if (c->argkey[d] == DFN_NOID) return p->empty_val;
    dfn_store_args_seek(s, &p->rec, &p->rec_i, i);
    uint32_t id = part_arg_rec(p, d, p->rec);
    if (id != ARG_ABSENT) return id;
    const dfn_calltree *t = c->r->dims[d].own ? NULL : c->q->tree;
    uint32_t parent = t ? dfn_calltree_parent(t, i) : DFN_NOID;
    if (parent == DFN_NOID) return p->empty_val;
    const uint64_t *known = dfn_map64_get(&p->inherited[d], parent);
    if (known) return (uint32_t)(*known - 1);
    id = p->empty_val;
    for (uint32_t j = parent; j != DFN_NOID; j = dfn_calltree_parent(t, j)) {
        uint32_t v = part_arg_rec(p, d, dfn_store_args_at(s, j));
        if (v != ARG_ABSENT) { id = v; break; }
    }
    *dfn_map64_slot(&p->inherited[d], parent) = (uint64_t)id + 1;
    return id;
}

/* The index of the time bin holding ts (bin 0 holds what comes before). */
static inline uint64_t time_bin_index(const qctx *c, uint64_t ts)
{
    return ts >= c->win_lo_us ? (ts - c->win_lo_us) / c->bin_us : 0;
}

static inline uint32_t time_bin(const qctx *c, uint64_t ts)
{
    uint64_t b = time_bin_index(c, ts);
    return b > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)b;
}

/* Where the time bin holding ts ends. */
static inline uint64_t time_bin_end(const qctx *c, uint64_t ts)
{
    return dfn_sat_add(c->win_lo_us, dfn_sat_mul(time_bin_index(c, ts) + 1, c->bin_us));
}

/* The last time bin looked up, as the range of starts it holds: a scan
 * meets calls in start order, so nearly every call falls in the bin of
 * the one before, and two 64-bit divisions a call (its bin, and where the
 * bin ends) were a fifth of the time level's query. */
typedef struct {
    uint64_t lo, hi;          /* starts in [lo, hi) have this bin; hi 0: none */
    uint64_t end;             /* time_bin_end of them */
    uint32_t id;              /* time_bin of them */
} bin_memo;

static inline void bin_memo_get(const qctx *c, bin_memo *m, uint64_t ts)
{
    if (ts >= m->lo && ts < m->hi) return;
    uint64_t b = time_bin_index(c, ts);
    m->id = time_bin(c, ts);
    m->end = time_bin_end(c, ts);
    /* the starts with bin b, where no sum saturates (else: no range, and
     * every call divides) */
    uint64_t lo = 0, hi = 0;
    if (!__builtin_mul_overflow(b, c->bin_us, &lo) && !__builtin_add_overflow(lo, c->win_lo_us, &lo) &&
        !__builtin_add_overflow(lo, c->bin_us, &hi) && ts >= c->win_lo_us) {
        m->lo = lo;
    } else if (ts < c->win_lo_us && !__builtin_add_overflow(c->win_lo_us, c->bin_us, &hi)) {
        m->lo = 0;            /* before the window: bin 0, as the window's first */
    } else {
        hi = 0;
    }
    m->hi = hi;
}

/* call_whole for a scan by time: the bin's end through m, which keeps
 * the bin of ts for the caller too */
static inline bool call_whole_memo(const qctx *c, bin_memo *m, uint64_t ts, uint64_t dur)
{
    bin_memo_get(c, m, ts);
    uint64_t end = dfn_sat_add(ts, dur);
    return (!c->clip || end <= c->clip_hi) && (!dur || end <= m->end);
}

/* ts: where the call (or its piece) starts; bytes: the call's */
static inline uint32_t part_dim_id(part *p, size_t d, size_t i, uint64_t ts, uint64_t bytes)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    switch (c->r->dims[d].kind) {
    case DFN_DIM_TIME: return time_bin(c, ts);
    case DFN_DIM_HOST: case DFN_DIM_PID: case DFN_DIM_TID: case DFN_DIM_PROC: case DFN_DIM_RANK:
        return c->lane_tab[d][dfn_store_lane(s, i)];
    case DFN_DIM_CAT: case DFN_DIM_FUNC: case DFN_DIM_CLASS: case DFN_DIM_OP: case DFN_DIM_TYPE:
        return c->kind_tab[d][dfn_store_kind(s, i)];
    case DFN_DIM_FILE: case DFN_DIM_PATTERN: case DFN_DIM_DIR: case DFN_DIM_FS: case DFN_DIM_PART:
        return c->file_tab[d][dfn_store_file(s, i)];
    case DFN_DIM_SIZEBIN: return bytes ? (uint32_t)dfn_sizebin_mean(bytes, dfn_store_calls(s, i)) : DFN_SIZEBIN_COUNT;
    case DFN_DIM_ARG: return part_arg_id(p, d, i);
    case DFN_DIM_SIZE: return part_size_id(p, i, bytes);
    case DFN_DIM_EVENT: return (uint32_t)i;
    case DFN_DIM_PATH: return dfn_calltree_path(c->q->tree, i);
    default: return 0;
    }
}

static size_t part_row(part *p, const uint32_t *ids)
{
    const qctx *c = p->c;
    size_t nd = c->r->ndims, row;
    if (nd == 1 && ids[0] < c->direct_n) {
        if (p->direct[ids[0]]) return p->direct[ids[0]] - 1;
        row = p->nacc;
        p->direct[ids[0]] = (uint32_t)row + 1;
    } else if (nd == 1 && c->direct_n) {
        /* an id past the direct table (a time bin past the window, the
         * 65537th argument value): numbered with the direct rows, not
         * apart from them */
        uint64_t *slot = dfn_map64_slot(&p->far, ids[0]);
        if (*slot) return *slot - 1;
        row = p->nacc;
        *slot = row + 1;
    } else if (nd == 0) {
        if (p->nacc) return 0;
        row = 0;
    } else {
        /* a group's events come in runs (one file's reads, one time bin) */
        if (p->have_last && memcmp(ids, p->last_ids, nd * sizeof *ids) == 0) return p->last_row;
        if (nd == 2) {
            uint64_t *slot = dfn_map64_slot(&p->rows2, (uint64_t)ids[0] << 32 | ids[1]);
            if (*slot) row = *slot - 1;
            else *slot = (row = p->nacc) + 1;
        } else {
            row = dfn_strtab_intern(p->rowkeys, (const char *)ids, nd * 4);
        }
        memcpy(p->last_ids, ids, nd * sizeof *ids);
        p->last_row = row;
        p->have_last = true;
        if (row < p->nacc) return row;
    }
    dfn_grow((void **)&p->acc, &p->acccap, row + 1, sizeof *p->acc);
    acc *a = &p->acc[row];
    memset(a, 0, sizeof *a);
    if (c->need_hist || c->need_procs || c->need_files) {
        dfn_grow((void **)&p->one, &p->onecap, row + 1, sizeof *p->one);
        memset(&p->one[row], 0, sizeof *p->one);
    }
    if (row < DENSE_ROWS) {
        if (c->need_hist && row < c->dense_hist_rows) {
            if (row % HIST_SLAB == 0) {
                p->slabs = dfn_xreallocarray(p->slabs, p->nslabs + 1, sizeof *p->slabs);
                p->slabs[p->nslabs++] = dfn_xcalloc((size_t)HIST_SLAB * HIST_BUCKETS, sizeof **p->slabs);
            }
            acc_own(a)->hist = p->slabs[row / HIST_SLAB] + (row % HIST_SLAB) * HIST_BUCKETS;
        }
        if (c->need_procs && row < c->dense_proc_rows) procs_alloc(acc_own(a), c->nprocs, c->need_procbytes);
        if (c->need_files && row < c->dense_file_rows) acc_own(a)->files = dfn_xcalloc((c->s->nfiles + 63) / 64, 8);
        if (c->spark_bins) acc_own(a)->spark = dfn_xcalloc(c->spark_bins, sizeof *a->x->spark);
        if (c->need_sizes) acc_own(a)->sizes = dfn_xcalloc(DFN_SIZEBIN_COUNT, sizeof *a->x->sizes);
        if (c->spark_split) acc_own(a)->spk_io = dfn_xcalloc(c->spark_bins, sizeof *a->x->spk_io);
        if (c->need_overlap && c->dense_psw) acc_own(a)->psw = dfn_xcalloc(2 * (c->ov_nprocs ? c->ov_nprocs : 1), sizeof *a->x->psw);
    }
    dfn_grow((void **)&p->keys, &p->keycap, (row + 1) * nd + 1, sizeof *p->keys);
    memcpy(&p->keys[row * nd], ids, nd * sizeof *ids);
    p->nacc = row + 1;
    return row;
}

/* Where an event falls on the sparkline: its span clipped to the window,
 * and the first and last bin. Computed once per event, applied to the
 * row's bins and to the total. */
typedef struct { uint64_t s, e; uint32_t b0, b1; bool on, one; } spark_pos;   /* one: on, and b0 == b1 */

static inline uint32_t spark_bin(const qctx *c, uint64_t x)
{
    /* floor(x * w / span) without a 64-bit division per event: a double
     * estimate is off by at most one, and one integer step corrects it */
    uint64_t w = c->spark_bins, span = c->spark_span_us, xw = x * w;
    uint64_t b = (uint64_t)((double)x * c->spark_dinv);
    if (b >= w) b = w - 1;
    if ((b + 1) * span <= xw && b + 1 < w) b++;
    else if (b * span > xw) b--;
    return (uint32_t)b;
}

static inline spark_pos spark_where(const qctx *c, uint64_t ts, uint64_t dur)
{
    spark_pos p = { .on = false };
    uint64_t lo = c->spark_lo_us, span = c->spark_span_us;
    uint64_t s = ts > lo ? ts - lo : 0, e = ts + dur > lo ? ts + dur - lo : 0;
    if (dur == 0 || s >= span || e <= s) return p;
    if (e > span) e = span;
    p.s = s;
    p.e = e;
    p.b0 = spark_bin(c, s);
    p.b1 = spark_bin(c, e - 1);
    p.on = true;
    p.one = p.b0 == p.b1;
    return p;
}

/* The last sparkline bin a call fell in whole, as the range of times it
 * holds: calls come in start order, so most lie in the bin of the call
 * before, and such a call needs two compares instead of two bin look-ups
 * (a double estimate, its integer check and two conversions each: a
 * fifth of the time level's query). hi 0: none. */
typedef struct { uint64_t lo, hi; uint32_t b; } spark_memo;

/* Where sparkline bin b starts, from the window's start: bins of whole µs
 * that tile the span (their ends are the next bins' starts). */
static inline uint64_t spark_edge(const qctx *c, uint64_t b)
{
    return (b * c->spark_span_us + c->spark_bins - 1) / c->spark_bins;
}

/* Whether a sparkline bin's edges are exact from spark_edge: span *
 * bins + bins and lo + span fit 64 bits (past that, every call looks its
 * bins up). */
static inline bool spark_bins_exact(const qctx *c)
{
    uint64_t end;
    return c->spark_span_us < UINT64_MAX / c->spark_bins - 1 && !__builtin_add_overflow(c->spark_lo_us, c->spark_span_us, &end);
}

/* spark_where, through m */
static inline __attribute__((always_inline)) spark_pos spark_where_memo(const qctx *c, spark_memo *m, uint64_t ts,
                                                                        uint64_t dur)
{
    uint64_t lo = c->spark_lo_us;
    /* Each scan keeps its own memo and meets its calls in start order,
     * all at or past the window's start, so ts >= m->lo holds: it set m
     * from a call of this bin at or before ts */
    if (dur && ts < m->hi && dur <= m->hi - ts)
        return (spark_pos){ .s = ts - lo, .e = ts - lo + dur, .b0 = m->b, .b1 = m->b, .on = true, .one = true };
    spark_pos p = spark_where(c, ts, dur);
    /* spark_bin is floor(x * bins / span) exactly, and bin b holds
     * [edge(b), edge(b + 1)) from lo, while span * bins + bins and lo +
     * span fit 64 bits (past that, every call looks its bins up) */
    if (p.on && p.b0 == p.b1 && spark_bins_exact(c)) {
        m->lo = lo + spark_edge(c, p.b0);
        m->hi = lo + spark_edge(c, (uint64_t)p.b0 + 1);
        m->b = p.b0;
    }
    return p;
}

static inline void spark_put(uint64_t *bins, dfn_map64 *sparse, uint64_t row, uint64_t b, uint64_t us)
{
    if (bins) bins[b] += us;
    else *dfn_map64_slot(sparse, row << 16 | b) += us;
}

/* Adds an event's time to the bins it spans, so a long call shows over
 * its whole length rather than as one spike at its start: into bins, or
 * (a row without dense bins) into sparse under row. */
static void spark_add(const qctx *c, uint64_t *bins, dfn_map64 *sparse, uint64_t row, const spark_pos *p)
{
    if (!p->on) return;
    if (p->b0 == p->b1) { spark_put(bins, sparse, row, p->b0, p->e - p->s); return; }
    for (uint64_t b = p->b0; b <= p->b1; b++) {
        uint64_t bs = spark_edge(c, b), be = spark_edge(c, b + 1);
        uint64_t from = p->s > bs ? p->s : bs, to = p->e < be ? p->e : be;
        if (to > from) spark_put(bins, sparse, row, b, to - from);
    }
}

/* spark_add, with a call inside one bin of a row with its bins (most
 * calls) added in place: no call */
static inline __attribute__((always_inline)) void spark_add_one(const qctx *c, uint64_t *bins, dfn_map64 *sparse,
                                                                uint64_t row, const spark_pos *p)
{
    if (p->one && bins) bins[p->b0] += p->e - p->s;
    else spark_add(c, bins, sparse, row, p);
}

/* ---- the part of a call inside a window or a time bin ---- */

/* A piece of a call: the call clipped to the query's window and, grouped
 * by time, cut at the bins' edges. Time, busy time and overlap go to each
 * piece by its length, bytes in proportion to it (cut where the running
 * share reaches a whole byte, so the pieces add up to the call); the call
 * itself (count, latency, sizes) only to the piece that holds its start.
 * A call of zero length is one piece where it starts. Pieces of one row
 * come in start order, as whole calls do: a piece starts at
 * max(call start, row start), which only grows with the call's start. */
typedef struct {
    uint64_t ts, dur, bytes;
    bool counted;             /* holds the call's start */
} piece;

typedef struct {
    uint64_t ts, dur, bytes;  /* the call */
    uint64_t at, end;         /* where the next piece starts; where the last ends */
    uint64_t cut;             /* the call's bytes before at */
    bool done;
} piece_it;

/* floor(bytes * off / dur): the bytes of a call's first off µs. */
static inline uint64_t bytes_before(uint64_t bytes, uint64_t dur, uint64_t off)
{
    return off >= dur ? bytes : (uint64_t)((unsigned __int128)bytes * off / dur);
}

static inline void pieces_start(const qctx *c, piece_it *it, uint64_t ts, uint64_t dur, uint64_t bytes)
{
    uint64_t end = dfn_sat_add(ts, dur);
    it->ts = ts;
    it->dur = dur;
    it->bytes = bytes;
    it->at = ts > c->clip_lo ? ts : c->clip_lo;
    it->end = end < c->clip_hi ? end : c->clip_hi;
    it->done = dur ? it->at >= it->end : ts < c->clip_lo || ts >= c->clip_hi;
    it->cut = dur ? bytes_before(bytes, dur, it->at - ts) : 0;
}

static inline bool pieces_next(const qctx *c, piece_it *it, piece *out)
{
    if (it->done) return false;
    if (!it->dur) {
        *out = (piece){ it->ts, 0, it->bytes, true };
        it->done = true;
        return true;
    }
    uint64_t e = it->end;
    if (c->time_dim >= 0) {
        uint64_t be = time_bin_end(c, it->at);
        if (be < e) e = be;
    }
    uint64_t cut = bytes_before(it->bytes, it->dur, e - it->ts);
    *out = (piece){ it->at, e - it->at, cut - it->cut, it->at == it->ts };
    it->cut = cut;
    it->at = e;
    it->done = e >= it->end;
    return true;
}

/* Whether a matched call (starting in the window) is one piece: it ends
 * in the window and, by time, in its bin. */
static inline bool call_whole(const qctx *c, uint64_t ts, uint64_t dur)
{
    uint64_t end = dfn_sat_add(ts, dur);
    return (!c->clip || end <= c->clip_hi) && (c->time_dim < 0 || !dur || end <= time_bin_end(c, ts));
}

/* The union of a row's intervals, swept in start order; the later parts
 * of a split scan keep their first and last segments for the merge. */
static inline __attribute__((always_inline))
void acc_busy(part *p, acc *a, uint64_t ts, uint64_t end)
{
    if (!a->started) { a->cur_s = ts; a->cur_e = end; a->started = true; }
    else if (ts >= a->cur_e) {
        /* a partial logs each closed segment: other shares' may fill its gaps */
        if (p->c->partial) dfn_seglog_add(&p->seglog, (size_t)(a - p->acc), a->cur_s, a->cur_e);
        if (p->record) {
            if (a->nsegs < PREFIX_SEGS) {
                if (!a->segs) a->segs = dfn_xmalloc(2 * PREFIX_SEGS * sizeof *a->segs);
                a->segs[2 * a->nsegs] = a->cur_s;
                a->segs[2 * a->nsegs + 1] = a->cur_e;
                a->nsegs++;
            } else {
                if (!a->tail) a->tail = dfn_xmalloc(2 * PREFIX_SEGS * sizeof *a->tail);
                if (a->ntail == PREFIX_SEGS) a->overflow = true;   /* the ring dropped one */
                a->tail[2 * a->tailpos] = a->cur_s;
                a->tail[2 * a->tailpos + 1] = a->cur_e;
                a->tailpos = (uint8_t)((a->tailpos + 1) % PREFIX_SEGS);
                if (a->ntail < PREFIX_SEGS) a->ntail++;
            }
        }
        a->busy += a->cur_e - a->cur_s; a->cur_s = ts; a->cur_e = end;
    }
    else if (end > a->cur_e) a->cur_e = end;
}

/* A sparse row's sweep of (process, kind) in the part's map. */
static inline uint64_t psw_key(size_t row, uint32_t proc, int kind)
{
    return (uint64_t)row << 33 | (uint64_t)proc << 1 | (uint64_t)kind;
}

/* The sweep of (row, process, kind), created on first use. */
static inline __attribute__((always_inline)) psweep *psw_get(part *p, size_t row, uint32_t proc, int kind)
{
    acc *a = &p->acc[row];
    uint32_t *slot32 = NULL;
    uint64_t *slot64 = NULL;
    uint32_t *psw = AX(a)->psw;
    if (psw) {
        slot32 = &psw[2 * (size_t)proc + (size_t)kind];
        if (*slot32) return &p->psw[*slot32 - 1];
    } else {
        slot64 = dfn_map64_slot(&p->pswmap, psw_key(row, proc, kind));
        if (*slot64) return &p->psw[*slot64 - 1];
    }
    dfn_grow((void **)&p->psw, &p->pswcap, p->npsw + 1, sizeof *p->psw);
    psweep *w = &p->psw[p->npsw++];
    memset(w, 0, sizeof *w);
    w->proc = proc;
    w->row = (uint32_t)row;
    w->kind = (uint8_t)kind;
    if (slot32) *slot32 = (uint32_t)p->npsw; else *slot64 = p->npsw;
    return w;
}

/* The sweep of (row, process, kind) if there is one, not made. */
static psweep *psw_peek(part *p, size_t row, uint32_t proc, int kind)
{
    const uint32_t *psw = AX(&p->acc[row])->psw;
    if (psw) {
        uint32_t k = psw[2 * (size_t)proc + (size_t)kind];
        return k ? &p->psw[k - 1] : NULL;
    }
    const uint64_t *k = dfn_map64_get(&p->pswmap, psw_key(row, proc, kind));
    return k && *k ? &p->psw[*k - 1] : NULL;
}

/* The compute under [w->s, w->e), and the stretch without compute
 * around its end for the segments after it. */
static __attribute__((noinline)) uint64_t psw_cover(const qctx *c, psweep *w)
{
    uint64_t cov = dfn_overlap_covered(c->q->overlap, w->proc, w->s, w->e);
    dfn_overlap_gap(c->q->overlap, w->proc, w->e, &w->gap_lo, &w->gap_hi);
    return cov;
}

/* Closes the segment [w->s, w->e) into the sweep's sums: in the scan's
 * loop, as nearly every I/O call closes the one before it on its thread. */
static inline __attribute__((always_inline)) void psw_close(const qctx *c, psweep *w, uint64_t next_start)
{
    uint64_t len = w->e - w->s;
    w->len += len;
    if (w->kind == 0) {
        /* most calls fall between two stretches of compute: no search */
        uint64_t cov = w->s < w->gap_lo || w->e > w->gap_hi ? psw_cover(c, w) : 0;
        w->exposed += len - cov;
    }
    if (__builtin_expect(!w->closed_one, 0)) { w->f_e = w->e; w->second = next_start; w->closed_one = true; }
}

/* [ts, end) into the sweep of (row, proc, kind), which it returns. */
static inline __attribute__((always_inline))
psweep *psw_add(part *p, size_t row, uint32_t proc, int kind, uint64_t ts, uint64_t end)
{
    psweep *w = psw_get(p, row, proc, kind);
    if (!w->started) { w->s = w->f_s = ts; w->e = end; w->started = true; }
    else if (ts > w->e) { psw_close(p->c, w, ts); w->s = ts; w->e = end; }
    else if (end > w->e) w->e = end;
    return w;
}

/* Row's process proc among those whose compute the row measures at the
 * end: made once per row and process, started then (the slot of a dense
 * row says whether it was). */
static inline __attribute__((always_inline)) void psw_mark_compute(part *p, size_t row, uint32_t proc)
{
    const uint32_t *slots = AX(&p->acc[row])->psw;
    if (!slots || !slots[2 * (size_t)proc + 1]) psw_get(p, row, proc, 1)->started = true;
}

/* ---- counter metrics: the samples taken while a row's calls ran ---- */

static psweep *csw_get(part *p, size_t row, uint32_t key)
{
    uint64_t *slot = dfn_map64_slot(&p->cswmap, (uint64_t)row << 32 | key);
    if (*slot) return &p->csw[*slot - 1];
    size_t nc = p->c->nctr, k = p->ncsw++;
    dfn_grow((void **)&p->csw, &p->cswcap, k + 1, sizeof *p->csw);
    dfn_grow((void **)&p->ccnt, &p->ccntcap, (k + 1) * nc, sizeof *p->ccnt);
    dfn_grow((void **)&p->csum, &p->csumcap, (k + 1) * nc, sizeof *p->csum);
    memset(&p->csw[k], 0, sizeof *p->csw);
    memset(&p->ccnt[k * nc], 0, nc * sizeof *p->ccnt);
    memset(&p->csum[k * nc], 0, nc * sizeof *p->csum);
    p->csw[k].row = (uint32_t)row;
    p->csw[k].proc = key;
    p->csw[k].kind = 2;
    *slot = k + 1;
    return &p->csw[k];
}

/* The samples of [cs, ce) below x at key into n and sum, per series. */
static void ctr_below(const qctx *c, uint32_t key, uint64_t cs, uint64_t ce, uint64_t x, uint64_t *n, dfn_ctrsum *sum)
{
    uint64_t b = ce < x ? ce : x;
    for (size_t k = 0; k < c->nctr; k++) dfn_ctrindex_stretch(c->cix, k, key, cs, b, &n[k], &sum[k]);
}

static void csw_close(part *p, psweep *w, uint64_t next_start)
{
    size_t i = (size_t)(w - p->csw), nc = p->c->nctr;
    ctr_below(p->c, w->proc, w->s, w->e, UINT64_MAX, &p->ccnt[i * nc], &p->csum[i * nc]);
    if (!w->closed_one) { w->f_e = w->e; w->second = next_start; w->closed_one = true; }
}

static void csw_add(part *p, size_t row, uint32_t key, uint64_t ts, uint64_t end)
{
    psweep *w = csw_get(p, row, key);
    if (!w->started) { w->s = w->f_s = ts; w->e = end; w->started = true; }
    else if (ts > w->e) { csw_close(p, w, ts); w->s = ts; w->e = end; }
    else if (end > w->e) w->e = end;
}

/* The analysis metrics of one event in one row. */
/* Calls into the size histogram: a run of one key (the same transfer size
 * in one row, as a reader's calls are) is added once, when the key changes
 * and at the end of the scan (szh_flush), not looked up per call. */
static inline void szh_add(part *p, uint64_t key, uint64_t calls)
{
    if (key == p->szh_key && p->szh_n) { p->szh_n += calls; return; }
    if (p->szh_n) *dfn_map64_slot(&p->szh, p->szh_key) += p->szh_n;
    p->szh_key = key;
    p->szh_n = calls;
}

static void szh_flush(part *p)
{
    if (p->szh_n) *dfn_map64_slot(&p->szh, p->szh_key) += p->szh_n;
    p->szh_n = 0;
}

/* A read's or write's bytes per call into a row's size statistics: an
 * aggregated record's calls at their mean size. hist: also into the part's
 * size histogram under row. */
static inline void acc_size(part *p, acc *a, size_t row, bool hist, uint64_t calls, uint64_t bytes)
{
    uint64_t per = bytes / calls;
    double mean = dfn_store_mean(bytes, calls);
    acc_more *am = acc_more_own(a);
    if (!am->szn || mean < am->szmin) am->szmin = mean;
    if (!am->szn || mean > am->szmax) am->szmax = mean;
    uint8_t ignore = 0;
    dfn_sat_add_flag(&am->szn, calls, &ignore, 1);
    dfn_sat_add_flag(&am->szsum, bytes, &a->full, DFN_OVF_BYTES);
    if (hist) szh_add(p, (uint64_t)row << 16 | hist_bucket(per), calls);
}

/* Whether event i is I/O for overlap: --io's events, else POSIX and STDIO. */
static inline bool query_is_io(const qctx *c, size_t i)
{
    return c->io_bits ? dfn_overlap_is_compute(c->io_bits, i) : c->s->kinds[dfn_store_kind(c->s, i)].io;
}

static inline __attribute__((always_inline))
void part_acc_extra(part *p, size_t row, size_t i, uint64_t ts, uint64_t dur, const spark_pos *sp)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    acc *a = &p->acc[row];
    if (c->need_share && dfn_store_file(s, i)) {
        uint32_t proc = c->proc_of_lane[dfn_store_lane(s, i)];
        uint64_t key = (uint64_t)dfn_store_file(s, i) << 32 | (proc + 1u);
        acc_more *am = acc_more_own(a);
        if (key != am->share_key) {
            am->share_key = key;
            uint64_t *v = dfn_map64_slot(&p->share, (uint64_t)row << 32 | dfn_store_file(s, i));
            if (!*v) *v = proc + 1u;
            else if (*v != proc + 1u) *v = SHARE_MANY;
        }
    }
    if (c->cix) {
        csw_add(p, row, dfn_ctrindex_proc_key(c->cix, dfn_store_lane(s, i)), ts, ts + dur);
        csw_add(p, row, dfn_ctrindex_host_key(c->cix, dfn_store_lane(s, i)), ts, ts + dur);
    }
    if (c->need_overlap) {
        uint32_t op = c->ov_proc[dfn_store_lane(s, i)];
        if (c->need_cmp_sweep) psw_mark_compute(p, row, op);   /* the row's processes */
        if (!query_is_io(c, i)) return;
        psw_add(p, row, op, 0, ts, ts + dur);
        if (c->spark_split) spark_add_one(c, AX(a)->spk_io, &p->spk[1], row, sp);
    }
}

/* A call's calls into its transfer-size bin (q->sizes). Per row, or per
 * mask in the layer scan. */
static inline __attribute__((always_inline))
void acc_add_sizes(part *p, acc *a, size_t row, size_t i, uint64_t bytes)
{
    const qctx *c = p->c;
    if (c->need_sizes && bytes) {
        /* an aggregated record's calls at their mean size */
        uint64_t n = dfn_store_calls(c->s, i);
        int b = dfn_sizebin_mean(bytes, n);
        if (AX(a)->sizes) AX(a)->sizes[b] += n;
        else *dfn_map64_slot(&p->sizes, (uint64_t)row << 8 | (uint64_t)b) += n;
    }
}

/* What adds up of the analysis metrics: self time, sequential and random
 * calls, calls per size bin. Per row, or per mask in the layer scan.
 * plain: the query has only the size bins to add (query_plain). */
static inline __attribute__((always_inline))
void acc_add_event_sums(part *p, acc *a, size_t row, size_t i, uint64_t bytes, bool plain)
{
    const qctx *c = p->c;
    if (!plain && c->self_tree) acc_more_own(a)->self += dfn_calltree_self(c->self_tree, i);
    if (!plain && c->judged && (c->judged[i >> 6] >> (i & 63) & 1)) {
        if (c->seqbits[i >> 6] >> (i & 63) & 1) acc_more_own(a)->seq++; else acc_more_own(a)->rnd++;
    }
    acc_add_sizes(p, a, row, i, bytes);
}

/* What an aggregated record's calls count as: how many, the longest, and
 * the mean (where the latency histogram puts them all: an estimate). */
static void agg_calls(const dfn_store *s, size_t i, uint64_t dur, uint64_t *calls, uint64_t *longest, uint64_t *typical)
{
    *calls = dfn_store_calls(s, i);
    *longest = dfn_col32_get(&s->durmax, i);
    *typical = dur / *calls;
}

/* A piece of call i (ts, dur, bytes) into row: counted when it holds the
 * call's start, whose whole length and bytes are fdur and fbytes. The
 * scans pass a whole call as (ts, dur, bytes, true, dur, bytes), which
 * the inlining folds to the plain sums. Runs once per event and row.
 * plain (a constant where it is true): the query is query_plain's, so
 * the inlining drops what such a query never adds. */
static inline __attribute__((always_inline))
void part_acc_in(part *p, size_t row, size_t i, uint64_t ts, uint64_t dur, uint64_t bytes, const spark_pos *sp,
                 bool counted, uint64_t fdur, uint64_t fbytes, bool plain)
{
    const qctx *c = p->c;
    acc *a = &p->acc[row];
    uint64_t calls = 1, longest = fdur, typical = fdur, agg = 0;
    if (!plain && c->has_agg && dfn_store_is_agg(c->s, i)) agg_calls(c->s, i, fdur, &calls, &longest, &typical), agg = calls;
    uint64_t ncalls = counted ? calls : 0, nagg = counted ? agg : 0;
    acc_sums_fast(a, ncalls, nagg, dur, bytes);
    if (!counted) {
        acc_more *am = acc_more_own(a);
        am->out_calls = dfn_sat_add(am->out_calls, calls);
        am->out_us = dfn_sat_add(am->out_us, dur);
    } else if (fdur > dur) {
        acc_more *am = acc_more_own(a);
        am->cut_us = dfn_sat_add(am->cut_us, fdur - dur);
    }
    if (counted && longest > a->maxdur) a->maxdur = longest;
    if (!plain && counted && c->need_size && event_is_rw(c->s, i)) acc_size(p, a, row, true, calls, fbytes);
    if (c->spark_bins) spark_add_one(c, AX(a)->spark, &p->spk[0], row, sp);
    /* the explorer's own columns need none of these (a tenth of its scan
     * was testing for them) */
    if (!c->need_any) return;
    if (c->need_busy) acc_busy(p, a, ts, ts + dur);
    if (!plain && counted && c->need_hist) row_hist(p, row, hist_bucket(typical), calls);
    if (c->need_procs) row_proc(p, row, c->proc_of_lane[dfn_store_lane(c->s, i)], dur, bytes);
    if (!plain && c->need_files) row_file(p, row, dfn_store_file(c->s, i));
    if (counted && c->need_sums) acc_add_event_sums(p, a, row, i, fbytes, plain);
    if (c->need_extra) part_acc_extra(p, row, i, ts, dur, sp);
}

static inline __attribute__((always_inline))
void part_acc(part *p, size_t row, size_t i, uint64_t ts, uint64_t dur, uint64_t bytes, const spark_pos *sp,
              bool counted, uint64_t fdur, uint64_t fbytes)
{
    part_acc_in(p, row, i, ts, dur, bytes, sp, counted, fdur, fbytes, false);
}

/* Whether a query's filter passes every call (scan_filter_pass holds). */
static bool query_nofilter(const qctx *c)
{
    dfn_match_tabs t;
    dfn_match_tables(c->m, &t);
    return !t.kind_ok && !t.file_ok && !t.lane_ok && !t.mask_ok && !t.path_ok && !t.per_event;
}

/* Whether a query adds only what part_acc_in adds when plain: no
 * aggregated records, latencies, files, size statistics, self time or
 * access patterns; transfer-size bins (the explorer's status line facts)
 * and what part_acc_extra adds (overlap, shared files, counters) it adds. (A
 * window is no matter: the calls it cuts take part_event, and the scans
 * check for them in every instance.) */
static bool query_plain(const qctx *c)
{
    return !c->has_agg && !c->need_size && !c->need_hist && !c->need_files && !c->self_tree && !c->judged;
}

/* One matched call into its rows, cut into the pieces the window and the
 * time bins hold: the calls that are not one piece, and those that run
 * into the window from before. Grouping by event lists calls, not pieces:
 * it never comes here. The matched calls are counted by the caller. */
static void part_event(part *p, size_t i, uint64_t ts, uint64_t dur, uint64_t bytes)
{
    const qctx *c = p->c;
    size_t nd = c->r->ndims;
    uint32_t ids[DFN_MAX_DIMS];
    for (size_t d = 0; d < nd; d++)
        if ((int)d != c->layer_dim && (int)d != c->time_dim) ids[d] = part_dim_id(p, d, i, ts, bytes);
    uint64_t mask = c->layer_dim >= 0 ? dfn_layerset_mask(c->q->layers, i) : 0;
    piece_it it;
    piece pc;
    pieces_start(c, &it, ts, dur, bytes);
    while (pieces_next(c, &it, &pc)) {
        if (c->time_dim >= 0) ids[c->time_dim] = time_bin(c, pc.ts);
        p->total = dfn_sat_add(p->total, pc.dur);
        spark_pos sp = { .on = false };
        if (p->spark_total) {
            sp = spark_where(c, pc.ts, pc.dur);
            /* one table: the total is the rows' sum, added up at the end */
            if (!c->one_table) spark_add(c, p->spark_total, NULL, 0, &sp);
        }
        if (c->layer_dim < 0) {
            part_acc(p, part_row(p, ids), i, pc.ts, pc.dur, pc.bytes, &sp, pc.counted, dur, bytes);
            continue;
        }
        for (uint64_t m = mask; m; m &= m - 1) {
            ids[c->layer_dim] = (uint32_t)__builtin_ctzll(m);
            part_acc(p, part_row(p, ids), i, pc.ts, pc.dur, pc.bytes, &sp, pc.counted, dur, bytes);
        }
    }
}

/* The calls that start before the window and run into it: before the
 * first part's own, as they start before them. */
static void part_straddlers(part *p)
{
    const qctx *c = p->c;
    for (size_t k = 0; k < c->nstrad; k++) {
        size_t i = c->strad[k];
        part_event(p, i, dfn_store_ts(c->s, i), dfn_store_dur(c->s, i), dfn_store_bytes(c->s, i));
    }
}

/* Adds what sums up of src (count, time, bytes, max, latency buckets,
 * per-process time, files, sparkline) into row of p, whose arrays may be
 * dense or in the part's sparse maps. Busy time is not a sum: callers
 * handle it. */
static void acc_add_sums(part *p, size_t row, const acc *src)
{
    const qctx *c = p->c;
    acc *a = &p->acc[row];
    const acc_more *sm = AM(src);
    acc_sums(a, src->count, sm->agg, src->dur, src->bytes, src->full);
    if (sm->out_calls || sm->out_us || sm->cut_us) {
        acc_more *am = acc_more_own(a);
        am->out_calls = dfn_sat_add(am->out_calls, sm->out_calls);
        am->out_us = dfn_sat_add(am->out_us, sm->out_us);
        am->cut_us = dfn_sat_add(am->cut_us, sm->cut_us);
    }
    if (sm->szn) {
        acc_more *am = acc_more_own(a);
        if (!am->szn || sm->szmin < am->szmin) am->szmin = sm->szmin;
        if (!am->szn || sm->szmax > am->szmax) am->szmax = sm->szmax;
        uint8_t ignore = 0;
        dfn_sat_add_flag(&am->szn, sm->szn, &ignore, 1);
        dfn_sat_add_flag(&am->szsum, sm->szsum, &a->full, DFN_OVF_BYTES);
    }
    if (src->maxdur > a->maxdur) a->maxdur = src->maxdur;
    const acc_arrays *ax = AX(a), *sx = AX(src);
    for (uint32_t b = 0; sx->hist && b < HIST_BUCKETS; b++)
        if (sx->hist[b]) row_hist(p, row, b, sx->hist[b]);
    for (size_t pr = 0; sx->procsum && pr < c->nprocs; pr++)
        if (sx->procseen[pr >> 6] >> (pr & 63) & 1)
            row_proc(p, row, (uint32_t)pr, sx->procsum[pr], sx->procbytes ? sx->procbytes[pr] : 0);
    for (size_t w = 0; sx->files && w < (c->s->nfiles + 63) / 64; w++) {
        if (!sx->files[w]) continue;
        if (ax->files) { ax->files[w] |= sx->files[w]; continue; }   /* a word at a time */
        for (int bit = 0; bit < 64; bit++)
            if (sx->files[w] >> bit & 1) row_file(p, row, (uint32_t)(w * 64 + (size_t)bit));
    }
    uint64_t *sp[2][2] = { { ax->spark, sx->spark }, { ax->spk_io, sx->spk_io } };
    for (int k = 0; k < 2; k++)
        for (size_t b = 0; sp[k][1] && b < c->spark_bins; b++)
            if (sp[k][1][b]) spark_put(sp[k][0], &p->spk[k], row, b, sp[k][1][b]);
    if (sm->self || sm->seq || sm->rnd) {
        acc_more *am = acc_more_own(a);
        am->self += sm->self;
        am->seq += sm->seq;
        am->rnd += sm->rnd;
    }
    for (int b = 0; sx->sizes && b < DFN_SIZEBIN_COUNT; b++) {
        if (!sx->sizes[b]) continue;
        if (ax->sizes) ax->sizes[b] += sx->sizes[b];
        else *dfn_map64_slot(&p->sizes, (uint64_t)row << 8 | (uint64_t)b) += sx->sizes[b];
    }
}

/* The filter as the scans test it: its lookup tables inline, the call
 * only for terms that need the event itself. */
typedef struct {
    const dfn_match *m;
    dfn_match_tabs t;
    const dfn_ids *kindc, *filec, *lanec;
} scan_filter;

static void scan_filter_init(scan_filter *f, const qctx *c)
{
    f->m = c->m;
    dfn_match_tables(c->m, &f->t);
    f->kindc = &c->s->kind;
    f->filec = &c->s->file;
    f->lanec = &c->s->lane;
}

static inline __attribute__((always_inline)) bool scan_filter_pass(const scan_filter *f, size_t i)
{
    const dfn_match_tabs *t = &f->t;
    if (t->kind_ok && !t->kind_ok[dfn_ids_get(f->kindc, i)]) return false;
    if (t->file_ok && !t->file_ok[dfn_ids_get(f->filec, i)]) return false;
    if (t->lane_ok && !t->lane_ok[dfn_ids_get(f->lanec, i)]) return false;
    if (t->mask_ok && !dfn_match_tabs_mask(t, i)) return false;
    if (t->path_ok && !dfn_match_tabs_path(t, i)) return false;
    return !t->per_event || dfn_match_event(f->m, i);
}

/* The explorer's most frequent scan, one dimension read through a table
 * (function, file, process ...) with rows indexed directly, written out
 * with every invariant in a local: no switch or call per event. plain
 * (query_plain) and nofilter are constants in each of its instances:
 * the explorer's own columns take a fifth fewer instructions a call. */
static inline __attribute__((always_inline)) void table_loop(part *p, const uint32_t *tab, const dfn_ids *col,
                                                             bool plain, bool nofilter)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    scan_filter sf;
    scan_filter_init(&sf, c);
    spark_memo sm = { 0, 0, 0 };
    const uint32_t *tsv = s->ts.v, *durv = s->dur.v, *bytesv = s->bytes.v;
    const uint64_t *base = s->ts_base;
    uint32_t *direct = p->direct;
    size_t direct_n = c->direct_n;
    bool spark = p->spark_total != NULL;
    uint64_t matched = 0, total = 0, calls_in = 0;
    bool has_agg = !plain && c->has_agg, clip = c->clip;
    uint64_t clip_hi = c->clip_hi;
    for (size_t i = p->lo; i < p->hi; i++) {
        if (!nofilter && !scan_filter_pass(&sf, i)) continue;
        uint32_t t32 = tsv[i], d32 = durv[i], b32 = bytesv[i];
        uint64_t ts = base[i >> DFN_TS_BLOCK_SHIFT] + (t32 != UINT32_MAX ? t32 : dfn_col32_escaped(&s->ts, i));
        uint64_t dur = d32 != UINT32_MAX ? d32 : dfn_col32_escaped(&s->dur, i);
        uint64_t bytes = b32 != UINT32_MAX ? b32 : dfn_col32_escaped(&s->bytes, i);
        matched++;
        calls_in += has_agg ? dfn_store_calls(s, i) : 1;
        if (__builtin_expect(clip, 0) && dur > clip_hi - ts) {
            part_event(p, i, ts, dur, bytes);   /* runs past the window */
            direct = p->direct;
            continue;
        }
        total = dfn_sat_add(total, dur);
        uint32_t id = tab[dfn_ids_get(col, i)];
        size_t row;
        if (id < direct_n && direct[id]) row = direct[id] - 1;
        else { row = part_row(p, &id); direct = p->direct; }
        spark_pos sp = { .on = false };
        if (spark) sp = spark_where_memo(c, &sm, ts, dur);
        part_acc_in(p, row, i, ts, dur, bytes, &sp, true, dur, bytes, plain);
    }
    p->matched = matched;
    p->matched_calls = calls_in;
    p->total = dfn_sat_add(p->total, total);
}

/* The layer rows of a mask (bits) first met in a scan by layer, in
 * layer order, into rows (n of them), and the arrays of its sums m. */
static void mask_rows(part *p, uint64_t bits, size_t mi, acc *m, int32_t *rows, uint8_t *n)
{
    const qctx *c = p->c;
    while (bits) {
        uint32_t b = (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
        rows[(*n)++] = (int32_t)part_row(p, &b);
    }
    if (c->need_hist) acc_own(m)->hist = dfn_xcalloc(HIST_BUCKETS, sizeof *m->x->hist);
    if (c->need_procs && mi < c->dense_proc_rows) procs_alloc(acc_own(m), c->nprocs, c->need_procbytes);
    if (c->need_files && mi < c->dense_file_rows) acc_own(m)->files = dfn_xcalloc((c->s->nfiles + 63) / 64, 8);
    if (p->spark_total) acc_own(m)->spark = dfn_xcalloc(c->spark_bins, sizeof *m->x->spark);
    if (c->need_sizes) acc_own(m)->sizes = dfn_xcalloc(DFN_SIZEBIN_COUNT, sizeof *m->x->sizes);
}

/* Each mask's sums spread to its layers' rows, and freed with the masks'
 * tables; the masks partition the calls, so their sparklines add up to
 * the total. */
static void masks_spread(part *p, acc *macc, int32_t (*rows)[64], uint8_t *nrow, size_t nm)
{
    const qctx *c = p->c;
    for (size_t mi = 0; mi < nm; mi++) {
        acc *m = &macc[mi];
        for (uint8_t k = 0; k < nrow[mi] && m->count; k++) acc_add_sums(p, (size_t)rows[mi][k], m);
        const acc_arrays *mx = AX(m);
        if (mx->spark) for (size_t b = 0; b < c->spark_bins; b++) p->spark_total[b] += mx->spark[b];
        free(mx->hist);   /* a mask's own, not from a slab */
        acc_free(m);
    }
    free(macc);
    free(rows);
    free(nrow);
}

#define LEAN_BLOCK 256   /* calls a pass of lean_loop */

/* What lean_loop adds up for a row, apart from its accumulator: small
 * and side by side, so that a block's adds stay in a few cache lines.
 * snap and corr make the row's sparkline (see lean_loop). */
typedef struct {
    uint64_t count, dur, bytes, maxdur;
    uint64_t snap;            /* dur when the row's time was last put in a sparkline bin */
    uint64_t corr;            /* of dur since, the calls put in their bins one by one */
    uint64_t seen;            /* the sparkline bin's turn in which the row last had a call */
    uint64_t self;            /* the calls' self time, when the query asks for it (the call paths' level) */
} __attribute__((aligned(64))) lean_sums;

/* Where a call falls on the sparkline, as lean_loop's first pass sees
 * it: in the bin of the calls before (nothing to do), the start of a
 * bin the calls after it may share, or a call put in its bins alone. */
enum { LEAN_INBIN, LEAN_NEWBIN, LEAN_ALONE, LEAN_PIECE /* a call the window cuts: part_event's, in its turn */ };

/* The sparkline bin lean_loop's first pass is in: [lo, hi), b. */
typedef struct { uint64_t lo, hi; uint32_t b; bool ok; } lean_bin;

static inline uint8_t lean_where(const qctx *c, lean_bin *lb, uint64_t ts, uint64_t dur)
{
    /* calls come in start order: one that starts at or past lo and ends
     * by hi is in the bin (one of 0 µs is on no bin, and adds nothing) */
    if (!dur || (ts >= lb->lo && ts < lb->hi && dur <= lb->hi - ts)) return LEAN_INBIN;
    spark_pos sp = spark_where(c, ts, dur);
    if (!lb->ok || !sp.one) return LEAN_ALONE;
    uint64_t lo = c->spark_lo_us + spark_edge(c, sp.b0), hi = c->spark_lo_us + spark_edge(c, (uint64_t)sp.b0 + 1);
    /* one cut to the sparkline's ends is in one bin but not whole */
    if (ts < lo || ts >= hi || dur > hi - ts) return LEAN_ALONE;
    lb->lo = lo;
    lb->hi = hi;
    lb->b = sp.b0;
    return LEAN_NEWBIN;
}

/* lean_loop's state: the rows' sums and where their sparklines are, and
 * a block's calls as the first pass found them. */
/* A row's I/O time in the sparkline bin of the moment, for the
 * sparkline's I/O part (spark_split), as lean_sums' dur and snap are for
 * its time. */
typedef struct { uint64_t io, snap; } lean_io;   /* the calls put alone are not in io */

typedef struct {
    lean_sums *ls;
    lean_io *io;              /* with a split sparkline, else NULL */
    bool spark, split;
    uint64_t **bins;          /* each row's sparkline bins (NULL: sparse, or not looked up yet) */
    uint32_t *dirty;          /* the rows with calls in this sparkline bin */
    size_t nls, ndirty;
    uint64_t turn;            /* the sparkline bin's turn */
    uint32_t cur_b;           /* the sparkline bin of the moment */
    lean_bin lb;              /* and the first pass's */
    /* a block's calls the second pass takes: n of them, at[k] from the
     * block's start, with their rows and places on the sparkline */
    size_t n;
    uint16_t at[LEAN_BLOCK];
    uint32_t rows[LEAN_BLOCK];
    uint32_t newbin[LEAN_BLOCK];
    uint8_t where[LEAN_BLOCK];
    uint16_t sel[LEAN_BLOCK];     /* the calls the filter passes (lean_select) */
} lean;

static void lean_init(lean *L, const qctx *c, bool spark)
{
    memset(L, 0, offsetof(lean, at));
    L->turn = 1;
    L->spark = spark;
    L->split = spark && c->spark_split;
    L->lb = (lean_bin){ 1, 0, 0, spark && spark_bins_exact(c) };
}

/* Room for n rows. */
static void lean_grow(lean *L, size_t n)
{
    if (n <= L->nls) return;
    n = n < 16 ? 16 : n * 2;
    lean_sums *more = aligned_alloc(64, n * sizeof *more);
    if (!more) dfn_out_of_memory("scanning", n * sizeof *more);
    if (L->nls) memcpy(more, L->ls, L->nls * sizeof *more);
    memset(more + L->nls, 0, (n - L->nls) * sizeof *more);
    free(L->ls);
    L->ls = more;
    if (L->spark) {   /* only a sparkline needs them: a million rows by file need 12 MB */
        L->bins = dfn_xreallocarray(L->bins, n, sizeof *L->bins);
        memset(L->bins + L->nls, 0, (n - L->nls) * sizeof *L->bins);
        L->dirty = dfn_xreallocarray(L->dirty, n, sizeof *L->dirty);
    }
    if (L->split) {
        L->io = dfn_xreallocarray(L->io, n, sizeof *L->io);
        memset(L->io + L->nls, 0, (n - L->nls) * sizeof *L->io);
    }
    L->nls = n;
}

/* The rows in dirty (their calls since the last time) put their time
 * in the sparkline bin of the moment: what their dur grew by, less the
 * calls put in their bins one by one. accs: the rows' accumulators. */
static void lean_spark_flush(part *p, lean *L, acc *accs)
{
    for (size_t k = 0; k < L->ndirty; k++) {
        uint32_t row = L->dirty[k];
        lean_sums *h = &L->ls[row];
        if (L->io) {
            lean_io *o = &L->io[row];
            uint64_t io = o->io - o->snap;
            o->snap = o->io;
            if (io) spark_put(AX(&accs[row])->spk_io, &p->spk[1], row, L->cur_b, io);
        }
        uint64_t us = h->dur - h->snap - h->corr;
        h->snap = h->dur;
        h->corr = 0;
        if (!us) continue;
        if (!L->bins[row]) L->bins[row] = AX(&accs[row])->spark;
        spark_put(L->bins[row], &p->spk[0], row, L->cur_b, us);
    }
    L->ndirty = 0;
}

/* The calls of [b0, b1) the filter passes into L->sel, as offsets from
 * b0 (with nofilter, all, and sel is not written); how many. Without a term to test per call, with no branch on
 * whether each passes: a drill's filter passes calls at random, and a
 * misread branch each time cost a third of the scan. */
static inline __attribute__((always_inline)) size_t lean_select(lean *L, const scan_filter *sf, size_t b0, size_t b1,
                                                                bool nofilter)
{
    size_t n = 0;
    const dfn_match_tabs *t = &sf->t;
    if (nofilter) {
        n = b1 - b0;   /* every call: the scans take b0 + k, not sel */
    } else if (!t->per_event) {
        const uint8_t *ko = t->kind_ok, *fo = t->file_ok, *lo = t->lane_ok;
        const dfn_ids *kc = sf->kindc, *fc = sf->filec, *lc = sf->lanec;
        uint16_t *sel = L->sel;
        if (ko && !fo && !lo && !t->mask_ok && !t->path_ok) {   /* a drill into a function or a category */
            if (kc->v16) {   /* the width once a block, not a call */
                for (size_t i = b0; i < b1; i++) {
                    sel[n] = (uint16_t)(i - b0);
                    n += ko[kc->v16[i]] != 0;
                }
            } else {
                for (size_t i = b0; i < b1; i++) {
                    sel[n] = (uint16_t)(i - b0);
                    n += ko[kc->v32[i]] != 0;
                }
            }
            return n;
        }
        for (size_t i = b0; i < b1; i++) {
            unsigned ok = 1;
            if (ko) ok &= ko[dfn_ids_get(kc, i)] != 0;
            if (fo) ok &= fo[dfn_ids_get(fc, i)] != 0;
            if (lo) ok &= lo[dfn_ids_get(lc, i)] != 0;
            if (t->mask_ok) ok &= dfn_match_tabs_mask(t, i);
            if (t->path_ok) ok &= dfn_match_tabs_path(t, i);
            sel[n] = (uint16_t)(i - b0);
            n += ok;
        }
    } else {
        for (size_t i = b0; i < b1; i++)
            if (scan_filter_pass(sf, i)) L->sel[n++] = (uint16_t)(i - b0);
    }
    return n;
}

/* The block of calls from b0 (before hi): the ones the filter passes
 * (lean_select's), none taken yet. */
static inline __attribute__((always_inline)) size_t lean_block(lean *L, const scan_filter *sf, size_t b0, size_t hi,
                                                               bool nofilter)
{
    L->n = 0;
    return lean_select(L, sf, b0, hi - b0 < LEAN_BLOCK ? hi : b0 + LEAN_BLOCK, nofilter);
}

/* The first pass takes call b0 + at, in row, with its place on the
 * sparkline (spark) from ts and dur; or, cut by the window, for part_event in its
 * turn among the others (the overlap's sweeps meet calls in start order). */
static inline __attribute__((always_inline)) void lean_take(const qctx *c, lean *L, uint16_t at, uint32_t row,
                                                            bool spark, bool cut, uint64_t ts, uint64_t dur)
{
    L->at[L->n] = at;
    L->rows[L->n] = row;
    /* (read by the overlap's pass for LEAN_PIECE with no sparkline too) */
    L->where[L->n] = cut ? LEAN_PIECE : spark ? lean_where(c, &L->lb, ts, dur) : LEAN_INBIN;
    if (spark) L->newbin[L->n] = L->lb.b;
    L->n++;
}

/* What the overlap columns add of a whole call i of row (lean_add's,
 * with ov): its process's compute sweep marked, and an I/O call into the
 * row's I/O sweep of that process and the sparkline's I/O part (alone:
 * put in its bins by itself, at sp). part_acc_extra's. */
static inline __attribute__((always_inline)) void lean_overlap(part *p, lean *L, acc *accs, uint32_t row, size_t i,
                                                               uint64_t dur, bool alone, const spark_pos *sp)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    uint32_t op = c->ov_proc[dfn_store_lane(s, i)];
    if (c->need_cmp_sweep) psw_mark_compute(p, row, op);   /* accs: the part's, with ov */
    if (!query_is_io(c, i)) return;
    uint64_t ts = dfn_store_ts(s, i);
    psw_add(p, row, op, 0, ts, ts + dur);
    if (!L->io) return;
    /* in the bin of the moment: put there with the others when the calls
     * move on; else into its bins now */
    if (!alone) L->io[row].io += dur;
    else spark_add(c, AX(&accs[row])->spk_io, &p->spk[1], row, sp);
}

/* The second pass over the calls the first took from the block at b0,
 * into the sums and sparklines of accs' rows. */
static inline __attribute__((always_inline)) void lean_add(part *p, lean *L, acc *accs, size_t b0, bool spark, bool ov)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    const uint32_t *durv = s->dur.v, *bytesv = s->bytes.v;
    size_t nself = 0;   /* query_lean: every call of the store's */
    const dfn_col32 *selfc = c->self_tree ? dfn_calltree_selfs(c->self_tree, &nself) : NULL;
    /* in locals: the sums' stores might be to L's counters, as far as the
     * compiler knows, which would then be read again for every call */
    lean_sums *ls = L->ls;
    uint32_t *dirty = L->dirty;
    size_t ndirty = L->ndirty;
    uint64_t turn = L->turn;
    for (size_t k = 0; k < L->n; k++) {
        size_t i = b0 + L->at[k];
        uint32_t row = L->rows[k];
        uint32_t d32 = durv[i], b32 = bytesv[i];
        uint64_t dur = d32 != UINT32_MAX ? d32 : dfn_col32_escaped(&s->dur, i);
        uint64_t bytes = b32 != UINT32_MAX ? b32 : dfn_col32_escaped(&s->bytes, i);
        lean_sums *h = &ls[row];
        uint8_t w = spark || ov ? L->where[k] : LEAN_INBIN;
        if (ov && w == LEAN_PIECE) {
            part_event(p, i, dfn_store_ts(s, i), dur, bytes);
            continue;
        }
        if (w == LEAN_NEWBIN) {
            L->ndirty = ndirty;
            lean_spark_flush(p, L, accs);
            ndirty = 0;
            turn++;
            L->cur_b = L->newbin[k];
        }
        uint64_t nd, nb;
        bool apart = (int)__builtin_add_overflow(h->dur, dur, &nd) | (int)__builtin_add_overflow(h->bytes, bytes, &nb);
        if (__builtin_expect(apart, 0)) {
            acc *a = &accs[row];   /* the sums would wrap: the row's own saturate, flagged */
            acc_sums(a, 1, 0, dur, bytes, 0);
            if (dur > a->maxdur) a->maxdur = dur;
            if (selfc) acc_more_own(a)->self += dfn_col32_get(selfc, i);
        } else {
            h->count++;
            h->dur = nd;
            h->bytes = nb;
            if (dur > h->maxdur) h->maxdur = dur;
            if (selfc) h->self += dfn_col32_get(selfc, i);
        }
        spark_pos sp = { .on = false };
        bool alone = spark && (w == LEAN_ALONE || apart);
        if (spark) {
            if (h->seen != turn) h->seen = turn, dirty[ndirty++] = row;
            if (alone) {
                if (!apart) h->corr += dur;
                sp = w == LEAN_ALONE ? spark_where(c, dfn_store_ts(s, i), dur)
                                     : (spark_pos){ .e = dur, .b0 = L->cur_b, .b1 = L->cur_b, .on = dur > 0, .one = true };
                if (!L->bins[row]) L->bins[row] = AX(&accs[row])->spark;
                spark_add(c, L->bins[row], &p->spk[0], row, &sp);
            }
        }
        if (ov) lean_overlap(p, L, accs, row, i, dur, alone, &sp);
    }
    L->ndirty = ndirty;
    L->turn = turn;
}

/* The sums into the first nrows of accs, where part_event added too. */
static void lean_finish(part *p, lean *L, acc *accs, size_t nrows)
{
    lean_spark_flush(p, L, accs);
    for (size_t row = 0; row < nrows && row < L->nls; row++) {
        const lean_sums *h = &L->ls[row];
        if (!h->count) continue;
        acc_sums(&accs[row], h->count, 0, h->dur, h->bytes, 0);
        if (h->maxdur > accs[row].maxdur) accs[row].maxdur = h->maxdur;
        if (h->self) acc_more_own(&accs[row])->self += h->self;
    }
    free(L->ls);
    free(L->io);
    free(L->bins);
    free(L->dirty);
}

/* The scan of a query_plain query of one dimension that needs nothing
 * but the sums and sparklines (need_any false: the explorer's tables),
 * its rows from src (lean_rows). In
 * blocks of calls: first each call's row, then the sums, into a small
 * array of their own. A row found through three loads in a row left
 * each add waiting for its address, and the next add of the row
 * waiting for it: this takes 0.6 of table_loop's time.
 *
 * The sparkline: most calls lie in the bin of the call before, as they
 * come in start order. A row's time in that bin is what its dur grew by
 * while the calls were there, put in the bin when they move on
 * (lean_spark_flush); a call in several bins, or out of the sparkline,
 * is put in its bins alone and kept out of that growth (corr). */
/* Where lean_loop's rows come from: a table's (tab of col, NULL when
 * col holds the ids, with rowof, a column id's row + 1 once known), the
 * time bins (by_time), or the
 * masks of a layer set (by_mask: the masks' own sums macc, their layer
 * rows made on first sight, spread to the layers after). */
typedef struct {
    const uint32_t *tab;
    const uint16_t *col16;    /* the column: one of the two */
    const uint32_t *col32;
    uint32_t *rowof;
    const uint64_t *masks;
    const uint8_t *idx8;
    const uint32_t *idx32;
    size_t nm;
    acc *macc;
    int32_t (*mrows)[64];
    uint8_t *nrow;
    bool *known;
    uint8_t tiles;            /* the tiles' field the rows go by (LEAN_TILE_*), or none */
} lean_rows;

enum { LEAN_TILE_NONE, LEAN_TILE_KIND, LEAN_TILE_LANE, LEAN_TILE_FILE, LEAN_TILE_TIME, LEAN_TILE_MASK };
/* The tiles' sums a query's rows and filter need: by lane, by file, or
 * either (a tile then gives whichever it kept, by lane first). */
enum { TILE_BY_EITHER, TILE_BY_LANE, TILE_BY_FILE };

/* The row of id, made on first sight; through direct (the part's, or a
 * copy of it in the caller's register, which part_row may move) when id
 * is small. */
static inline __attribute__((always_inline)) size_t lean_id_row(part *p, uint32_t id, uint32_t **direct,
                                                                size_t direct_n)
{
    if (id < direct_n && (*direct)[id]) return (*direct)[id] - 1;
    size_t row = part_row(p, &id);
    *direct = p->direct;
    return row;
}

/* The row of column id v of a table (tab; NULL: v is the id), through
 * rowof once known. */
static inline __attribute__((always_inline)) size_t lean_col_row(part *p, const uint32_t *tab, uint32_t *rowof,
                                                                 uint32_t v, uint32_t **direct, size_t direct_n)
{
    if (rowof[v]) return rowof[v] - 1;
    size_t row = lean_id_row(p, tab ? tab[v] : v, direct, direct_n);
    rowof[v] = (uint32_t)row + 1;
    return row;
}

/* Mask mi's row, its layer rows made on first sight (by_mask). */
static inline __attribute__((always_inline)) size_t lean_mask_row(part *p, const lean_rows *src, size_t mi)
{
    if (!src->known[mi])
        mask_rows(p, src->masks[mi], mi, &src->macc[mi], src->mrows[mi], &src->nrow[mi]), src->known[mi] = true;
    return mi;
}

/* What the overlap columns take of tile t (lean_tile's, with ov, the
 * process level: a lane a row): each lane's process marked for its
 * compute, and its I/O union's segments into the lane's sweep, as
 * psw_add would take its calls one by one: the first fed as a call,
 * then closed at the second, those between closed in their sums, the
 * last left open. check: only whether that holds (a segment open from
 * before the tile that reaches into its second: the calls are scanned). */
static bool lean_tile_ov(part *p, lean *L, const lean_rows *src, const dfn_tiles *tl, const dfn_tile *t,
                         const uint32_t *rows, bool check)
{
    const qctx *c = p->c;
    for (uint32_t j = 0; j < t->nio; j++) {
        const dfn_tile_io *io = &tl->io[t->ioff + j];
        uint32_t r1 = src->rowof[io->lane];
        if (!r1) continue;   /* the lane's calls the filter leaves out */
        size_t row = r1 - 1;
        uint32_t op = c->ov_proc[io->lane];
        if (check) {
            const psweep *w = psw_peek(p, row, op, 0);
            if (w && w->started && io->nseg > 1 && io->s1 <= w->e && w->e >= io->s2) return false;
            continue;
        }
        psweep *w = psw_add(p, row, op, 0, io->s1, io->e1);   /* the first segment, as a call */
        if (io->nseg > 1) {
            psw_close(c, w, io->s2);
            w->len += io->mid_len;
            w->exposed += io->mid_exposed;
            w->s = io->sm;
            w->e = io->em;
        }
        if (L->io) L->io[row].io += io->io;
    }
    if (check || !c->need_cmp_sweep) return true;
    for (uint32_t j = 0; j < t->n; j++)
        if (rows[j] != UINT32_MAX) psw_mark_compute(p, rows[j], c->ov_proc[tl->sums[t->off + j].lane]);
    return true;
}

/* Tile k's sums (tiles.h) into lean_loop's rows, in place of its calls,
 * when they would all be taken whole, in the same time bin and the same
 * sparkline bin; the sums the filter passes added as lean_add would add
 * their calls. False, with nothing added, when the calls must be
 * scanned: the rows it may have made are the ones the calls make too. */
static bool lean_tile(part *p, lean *L, const lean_rows *src, const scan_filter *sf, size_t k, bool spark, bool ov,
                      bin_memo *bm, uint64_t *matched, uint64_t *total)
{
    const qctx *c = p->c;
    const dfn_tiles *tl = c->tiles;
    const dfn_tile *t = &tl->tiles[k];
    bool files = c->tile_sums == TILE_BY_FILE || (c->tile_sums == TILE_BY_EITHER && !t->ok);
    if (!(files ? t->fok : t->ok) || (c->clip && t->end > c->clip_hi)) return false;
    if (src->tiles == LEAN_TILE_TIME) {
        /* every call starts in the bin and ends by its end (a call of 0 µs
         * at the end is in the next bin, review) */
        bin_memo_get(c, bm, t->first_ts);
        if (!bm->hi || t->last_ts >= bm->hi || t->end > bm->end) return false;
    }
    const dfn_match_tabs *mt = &sf->t;
    const dfn_tile_sum *sums = files ? tl->fsums + t->foff : tl->sums + t->off;
    uint32_t n = files ? t->nf : t->n;
    const uint8_t *who_ok = files ? mt->file_ok : mt->lane_ok;
    uint32_t *direct = p->direct;
    uint32_t rows[DFN_TILE_FSUMS_MAX];
    for (uint32_t j = 0; j < n; j++) {
        const dfn_tile_sum *e = &sums[j];
        rows[j] = UINT32_MAX;
        uint32_t who = files ? e->file : e->lane;
        if ((mt->kind_ok && !mt->kind_ok[e->kind]) || (who_ok && !who_ok[who]) ||
            (mt->mask_ok && !mt->mask_ok[e->mask]))
            continue;
        size_t row = src->tiles == LEAN_TILE_MASK ? lean_mask_row(p, src, e->mask)
                     : src->tiles == LEAN_TILE_TIME ? lean_id_row(p, bm->id, &direct, c->direct_n)
                     : lean_col_row(p, src->tab, src->rowof, src->tiles == LEAN_TILE_KIND ? e->kind : who, &direct,
                                    c->direct_n);
        rows[j] = (uint32_t)row;
    }
    if (src->tiles != LEAN_TILE_MASK) lean_grow(L, p->nacc);
    for (uint32_t j = 0; j < n; j++) {   /* no row's sums may wrap, whichever sums it takes */
        const lean_sums *h = rows[j] != UINT32_MAX ? &L->ls[rows[j]] : NULL;
        if (h && (h->dur > UINT64_MAX - t->dur || h->bytes > UINT64_MAX - t->bytes)) return false;
    }
    if (ov && !lean_tile_ov(p, L, src, tl, t, rows, true)) return false;
    acc *accs = src->tiles == LEAN_TILE_MASK ? src->macc : p->acc;
    if (spark) {
        uint8_t w = lean_where(c, &L->lb, t->first_ts, t->end - t->first_ts);
        if (w == LEAN_ALONE) return false;
        if (w == LEAN_NEWBIN) {
            lean_spark_flush(p, L, accs);
            L->turn++;
            L->cur_b = L->lb.b;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        if (rows[j] == UINT32_MAX) continue;
        const dfn_tile_sum *e = &sums[j];
        lean_sums *h = &L->ls[rows[j]];
        h->count += e->count;
        h->dur += e->dur;
        h->bytes += e->bytes;
        if (e->maxdur > h->maxdur) h->maxdur = e->maxdur;
        if (spark && h->seen != L->turn) h->seen = L->turn, L->dirty[L->ndirty++] = rows[j];
        *matched += e->count;
        *total = dfn_sat_add(*total, e->dur);
    }
    if (ov) lean_tile_ov(p, L, src, tl, t, rows, false);
    return true;
}

static inline __attribute__((always_inline)) void lean_loop(part *p, const lean_rows *src, bool nofilter, bool by_time,
                                                            bool by_mask, bool spark, bool ov)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    scan_filter sf;
    scan_filter_init(&sf, c);
    bin_memo bm = { 0, 0, 0, 0 };
    uint32_t *direct = p->direct;
    size_t direct_n = c->direct_n;
    bool clip = c->clip;
    uint64_t matched = 0, total = 0, clip_hi = c->clip_hi;
    /* src's in locals: stores through pointers of the same type as its
     * members' targets would have them read again for every call */
    const uint32_t *tab = src->tab, *col32 = src->col32, *idx32 = src->idx32;
    const uint16_t *col16 = src->col16;
    const uint8_t *idx8 = src->idx8;
    uint32_t *rowof = src->rowof;
    lean L;
    lean_init(&L, c, spark);
    if (by_mask) lean_grow(&L, src->nm);
    /* the tiles, where the rows go by a field of theirs */
    const dfn_tiles *tl = !src->tiles ? NULL : c->tiles;   /* with ov: query_tiles took the process level's */
    if (tl && src->tiles == LEAN_TILE_MASK && tl->ls != c->q->layers) tl = NULL;
    for (size_t b0 = p->lo, hi; b0 < p->hi; b0 = hi) {
        hi = p->hi;
        if (tl) {
            size_t k = b0 >> tl->shift, size = (size_t)1 << tl->shift;
            if (!(b0 & (size - 1)) && k < tl->ntiles && b0 + size <= p->hi &&
                lean_tile(p, &L, src, &sf, k, spark, ov, &bm, &matched, &total)) {
                p->tiles_taken++;
                direct = p->direct;
                hi = b0 + size;
                continue;
            }
            direct = p->direct;
            size_t next = (b0 | (size - 1)) + 1;   /* blocks stop at the next tile */
            if (next < hi) hi = next;
        }
        if (hi - b0 > LEAN_BLOCK) hi = b0 + LEAN_BLOCK;
        size_t nsel = lean_block(&L, &sf, b0, hi, nofilter);
        matched += nsel;
        for (size_t k = 0; k < nsel; k++) {
            size_t i = b0 + (nofilter ? k : L.sel[k]);
            uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i);
            bool whole = by_time ? call_whole_memo(c, &bm, ts, dur) : !(__builtin_expect(clip, 0) && dur > clip_hi - ts);
            if (!whole && !ov) {
                part_event(p, i, ts, dur, dfn_store_bytes(s, i));   /* runs past the window or its bin */
                direct = p->direct;
                continue;
            }
            if (whole) total = dfn_sat_add(total, dur);
            /* col[i] is below ncol, as tab's index */
            size_t row = by_mask ? lean_mask_row(p, src, idx8 ? idx8[i] : idx32[i])
                         : by_time ? lean_id_row(p, bm.id, &direct, direct_n)
                         : lean_col_row(p, tab, rowof, col16 ? col16[i] : col32[i], &direct, direct_n);
            lean_take(c, &L, (uint16_t)(i - b0), (uint32_t)row, spark, ov && !whole, ts, dur);
        }
        if (!by_mask) lean_grow(&L, p->nacc);
        lean_add(p, &L, by_mask ? src->macc : p->acc, b0, spark, ov);
    }
    lean_finish(p, &L, by_mask ? src->macc : p->acc, by_mask ? src->nm : p->nacc);
    p->matched = matched;
    p->matched_calls = matched;
    p->total = dfn_sat_add(p->total, total);
}

/* Whether a scan can take lean_loop: a plain query adding nothing but
 * sums and sparklines, and perhaps self time (lean_sums' self: the call
 * paths' level asks for it). */
static bool query_lean(const qctx *c)
{
    size_t nself = 0;
    bool self_only = c->self_tree && !c->need_sizes && !c->judged && dfn_calltree_selfs(c->self_tree, &nself) &&
                     nself >= c->s->n;
    bool sums = c->need_sums && !self_only;
    return !c->has_agg && !c->need_size && !c->need_hist && !c->need_files && !c->judged && !c->need_busy &&
           !c->need_procs && !sums && !c->need_extra;
}

/* Or lean_loop with the overlap columns (ov): a plain query adding sums,
 * sparklines and the overlap's sweeps, nothing else (the process
 * levels and the lanes). */
static bool query_lean_ov(const qctx *c)
{
    return query_plain(c) && c->need_overlap && !c->need_share && !c->cix && !c->need_busy && !c->need_hist &&
           !c->need_procs && !c->need_files && !c->need_sums;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether the query's one dimension gives each lane a row of its own
 * (processes; threads, pids, hosts or ranks when no two lanes share
 * one): a row's overlap sweep then takes one lane's calls. */
static bool lanes_own_rows(const qctx *c)
{
    const uint32_t *tab = c->lane_tab[0];
    size_t n = c->s->nlanes;
    if (!tab || c->r->ndims != 1) return false;
    if (c->r->dims[0].kind == DFN_DIM_PROC) return true;
    uint32_t *v = dfn_xmalloc((n ? n : 1) * sizeof *v);
    memcpy(v, tab, n * sizeof *v);
    qsort(v, n, sizeof *v, u32_cmp);
    size_t k = 1;
    while (k < n && v[k] != v[k - 1]) k++;
    free(v);
    return k >= n;
}

/* The tiles a query's lean_loop may take: built for this store, a
 * query adding only sums (not self time), and a filter decided by the
 * tiles' fields: function kinds, lanes or files and, on the tiles' layer
 * set, masks. *by: the sums it takes (TILE_BY_*), by file where its rows
 * or filter go by file, by lane where they go by lane (both: none).
 * lean_loop checks the rest (its rows, the window, the bins). */
static const dfn_tiles *query_tiles(const qctx *c, uint8_t *by)
{
    const dfn_tiles *t = c->q->tiles;
    if (!t || t->s != c->s || t->n != c->s->n) return NULL;
    dfn_match_tabs mt;
    dfn_match_tables(c->m, &mt);
    if (mt.per_event || mt.path_ok || (mt.mask_ok && t->ls != c->q->layers)) return NULL;
    bool by_file = mt.file_ok, by_lane = mt.lane_ok;
    for (size_t d = 0; d < c->r->ndims; d++) by_file |= c->file_tab[d] != NULL, by_lane |= c->lane_tab[d] != NULL;
    if (by_file && by_lane) return NULL;
    *by = by_file ? TILE_BY_FILE : by_lane ? TILE_BY_LANE : TILE_BY_EITHER;
    if (query_lean(c) && !c->self_tree) return t;
    /* the process levels and lanes with their compute and I/O columns: a
     * lane a row (so by lane), each with all its calls (a lane's I/O is
     * swept whole in a tile) */
    if (query_lean_ov(c) && t->ov && t->ov == c->q->overlap && !mt.kind_ok && !mt.mask_ok && lanes_own_rows(c))
        return t;
    return NULL;
}

static bool part_scan_table(part *p)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    const uint32_t *tab;
    const dfn_ids *col;
    size_t ncol;   /* the column's ids */
    if (c->kind_tab[0]) { tab = c->kind_tab[0]; col = &s->kind; ncol = s->nkinds; }
    else if (c->file_tab[0]) { tab = c->file_tab[0]; col = &s->file; ncol = s->nfiles; }
    else if (c->lane_tab[0]) { tab = c->lane_tab[0]; col = &s->lane; ncol = s->nlanes; }
    else return false;
    if (!p->record) part_straddlers(p);   /* the first part */
    bool plain = query_plain(c), nofilter = query_nofilter(c);
    bool sums_only = query_lean(c), ov = !sums_only && query_lean_ov(c);
    if (sums_only || ov) {
        bool spark = p->spark_total != NULL;
        /* a column id's row + 1, once known: one look-up a call, not the
         * table's and then the row's, one waiting on the other */
        lean_rows src = { .tab = tab, .col16 = col->v16, .col32 = col->v32,
                          .rowof = dfn_xcalloc(ncol ? ncol : 1, sizeof *src.rowof),
                          .tiles = col == &s->kind   ? LEAN_TILE_KIND
                                   : col == &s->lane ? LEAN_TILE_LANE
                                   : col == &s->file ? LEAN_TILE_FILE
                                                     : LEAN_TILE_NONE };
        if (ov) lean_loop(p, &src, nofilter, false, false, spark, true);
        else if (nofilter && spark) lean_loop(p, &src, true, false, false, true, false);
        else if (nofilter) lean_loop(p, &src, true, false, false, false, false);
        else lean_loop(p, &src, false, false, false, spark, false);
        free(src.rowof);
        return true;
    }
    if (plain && nofilter) table_loop(p, tab, col, true, true);
    else if (plain) table_loop(p, tab, col, true, false);
    else table_loop(p, tab, col, false, false);
    return true;
}

/* Grouping by layer alone. An event adds the same to each layer of its
 * mask, and masks are few, so everything that adds up is accumulated once
 * per mask and spread to the layers at the end; only the union of
 * intervals (busy time) is swept per layer. plain and nofilter as
 * table_loop's. */
static inline __attribute__((always_inline)) void layers_loop(part *p, bool plain, bool nofilter)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    const dfn_layerset *ls = c->q->layers;
    scan_filter sf;
    scan_filter_init(&sf, c);
    spark_memo sm = { 0, 0, 0 };
    size_t nmasks;
    const uint8_t *idx8;
    const uint32_t *idx32;
    const uint64_t *masks = dfn_layerset_masks(ls, &nmasks, &idx8, &idx32);
    size_t nm = nmasks ? nmasks : 1;
    const bool per_row = c->need_busy || c->need_extra;
    int32_t (*rows)[64] = dfn_xmalloc(nm * sizeof *rows);   /* layer rows of a mask, valid once known */
    uint8_t *nrow = dfn_xcalloc(nm, 1);
    bool *known = dfn_xcalloc(nm, sizeof *known);
    acc *macc = dfn_xcalloc(nm, sizeof *macc);               /* what adds up, per mask */
    bool spark = p->spark_total != NULL;
    uint64_t matched = 0, total = 0, calls_in = 0;
    bool has_agg = !plain && c->has_agg, clip = c->clip;
    for (size_t i = p->lo; i < p->hi; i++) {
        if (!nofilter && !scan_filter_pass(&sf, i)) continue;
        uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i), bytes = dfn_store_bytes(s, i);
        matched++;
        calls_in += has_agg ? dfn_store_calls(s, i) : 1;
        if ((!plain || clip) && !call_whole(c, ts, dur)) {
            part_event(p, i, ts, dur, bytes);   /* runs past the window: per layer row */
            continue;
        }
        total = dfn_sat_add(total, dur);
        size_t mi = idx8 ? idx8[i] : idx32[i];
        acc *m = &macc[mi];
        if (!known[mi]) mask_rows(p, masks[mi], mi, m, rows[mi], &nrow[mi]), known[mi] = true;
        if (c->need_sums) acc_add_event_sums(p, m, 0, i, bytes, plain);
        uint64_t calls = 1, longest = dur, typical = dur, agg = 0;
        if (!plain && c->has_agg && dfn_store_is_agg(s, i)) agg_calls(s, i, dur, &calls, &longest, &typical), agg = calls;
        acc_sums_fast(m, calls, agg, dur, bytes);
        if (longest > m->maxdur) m->maxdur = longest;
        if (!plain && c->need_size && event_is_rw(s, i)) {
            acc_size(p, m, 0, false, calls, bytes);   /* the layers' histograms: below, once known */
            for (uint8_t k = 0; k < nrow[mi]; k++)
                szh_add(p, (uint64_t)rows[mi][k] << 16 | hist_bucket(bytes / calls), calls);
        }
        const acc_arrays *mx = AX(m);
        if (!plain && mx->hist) hist_add(mx->hist, hist_bucket(typical), calls);
        if (mx->procsum) {
            proc_add(m, c->proc_of_lane[dfn_store_lane(s, i)], dur, bytes);
        } else if (c->need_procs) {
            /* many processes: each layer row's own sparse sums */
            uint64_t pr = c->proc_of_lane[dfn_store_lane(s, i)];
            for (uint8_t k = 0; k < nrow[mi]; k++) row_proc(p, (size_t)rows[mi][k], (uint32_t)pr, dur, bytes);
        }
        if (!plain && mx->files) {
            mx->files[dfn_store_file(s, i) >> 6] |= 1ull << (dfn_store_file(s, i) & 63);
        } else if (!plain && c->need_files) {
            /* many files: each layer row's own */
            uint32_t f = dfn_store_file(s, i);
            for (uint8_t k = 0; k < nrow[mi]; k++) row_file(p, (size_t)rows[mi][k], f);
        }
        spark_pos sp = { .on = false };
        if (spark) sp = spark_where_memo(c, &sm, ts, dur);
        if (mx->spark) spark_add_one(c, mx->spark, NULL, 0, &sp);
        if (per_row)   /* a layer's own union and sweeps: for each layer of the call */
            for (uint8_t k = 0; k < nrow[mi]; k++) {
                if (c->need_busy) acc_busy(p, &p->acc[rows[mi][k]], ts, ts + dur);
                if (c->need_extra) part_acc_extra(p, (size_t)rows[mi][k], i, ts, dur, &sp);
            }
    }
    masks_spread(p, macc, rows, nrow, nm);
    free(known);
    p->matched = matched;
    p->matched_calls = calls_in;
    p->total = dfn_sat_add(p->total, total);
}

/* layers_loop for a query lean_loop takes (query_lean): the sums and
 * sparklines per mask in lean_loop's two passes, spread as layers_loop's. */
static void layers_lean_loop(part *p, bool nofilter, bool spark)
{
    lean_rows src = { .tiles = LEAN_TILE_MASK };
    size_t nmasks;
    src.masks = dfn_layerset_masks(p->c->q->layers, &nmasks, &src.idx8, &src.idx32);
    src.nm = nmasks ? nmasks : 1;
    src.mrows = dfn_xmalloc(src.nm * sizeof *src.mrows);
    src.nrow = dfn_xcalloc(src.nm, 1);
    src.known = dfn_xcalloc(src.nm, sizeof *src.known);
    src.macc = dfn_xcalloc(src.nm, sizeof *src.macc);
    if (nofilter && spark) lean_loop(p, &src, true, false, true, true, false);
    else lean_loop(p, &src, nofilter, false, true, spark, false);
    masks_spread(p, src.macc, src.mrows, src.nrow, src.nm);
    free(src.known);
}

static void part_scan_layers(part *p)
{
    const qctx *c = p->c;
    if (!p->record) part_straddlers(p);   /* the first part */
    bool plain = query_plain(c), nofilter = query_nofilter(c);
    if (query_lean(c)) {
        bool spark = p->spark_total != NULL;
        if (nofilter && spark) layers_lean_loop(p, true, true);
        else layers_lean_loop(p, nofilter, spark);
        return;
    }
    if (plain && nofilter) layers_loop(p, true, true);
    else if (plain) layers_loop(p, true, false);
    else layers_loop(p, false, false);
}

/* part_scan_general's loop; plain and nofilter as table_loop's. */
static inline __attribute__((always_inline)) void general_loop(part *p, bool plain, bool nofilter)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    size_t nd = c->r->ndims;
    uint32_t ids[DFN_MAX_DIMS];
    bool one_table = c->one_table;
    uint64_t matched = 0, total = 0, calls_in = 0;
    bool has_agg = !plain && c->has_agg;   /* locals: the parts sit side by side in memory */
    bool by_time = c->time_dim >= 0 && !p->events;
    bin_memo bm = { 0, 0, 0, 0 };
    scan_filter sf;
    scan_filter_init(&sf, c);
    spark_memo sm = { 0, 0, 0 };
    for (size_t i = p->lo; i < p->hi; i++) {
        if (!nofilter && !scan_filter_pass(&sf, i)) continue;
        uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i), bytes = dfn_store_bytes(s, i);
        matched++;
        calls_in += has_agg ? dfn_store_calls(s, i) : 1;
        bool whole = by_time ? call_whole_memo(c, &bm, ts, dur) : p->events || call_whole(c, ts, dur);
        if (!whole) {
            part_event(p, i, ts, dur, bytes);
            continue;
        }
        total = dfn_sat_add(total, dur);
        spark_pos sp = { .on = false };
        if (p->spark_total) {
            sp = spark_where_memo(c, &sm, ts, dur);
            /* one dimension: each event is in one row, and the total is
             * the rows' sum, added up once at the end */
            if (!one_table) spark_add_one(c, p->spark_total, NULL, 0, &sp);
        }
        if (p->events) {
            /* grouping by event: the list is the result */
            dfn_grow((void **)&p->events, &p->eventcap, p->nevents + 1, sizeof *p->events);
            p->events[p->nevents++] = (uint32_t)i;
            continue;
        }
        if (one_table) {
            /* one dimension computed per event (time bin, size bin): the
             * table dimensions take part_scan_table */
            ids[0] = by_time ? bm.id : part_dim_id(p, 0, i, ts, bytes);
            size_t row = ids[0] < c->direct_n && p->direct[ids[0]] ? p->direct[ids[0]] - 1 : part_row(p, ids);
            part_acc_in(p, row, i, ts, dur, bytes, &sp, true, dur, bytes, plain);
            continue;
        }
        for (size_t d = 0; d < nd; d++)
            if ((int)d != c->layer_dim) ids[d] = by_time && (int)d == c->time_dim ? bm.id : part_dim_id(p, d, i, ts, bytes);
        if (c->layer_dim >= 0) {
            uint64_t mask = dfn_layerset_mask(c->q->layers, i);
            while (mask) {
                int b = __builtin_ctzll(mask);
                mask &= mask - 1;
                ids[c->layer_dim] = (uint32_t)b;
                part_acc(p, part_row(p, ids), i, ts, dur, bytes, &sp, true, dur, bytes);
            }
        } else {
            part_acc(p, part_row(p, ids), i, ts, dur, bytes, &sp, true, dur, bytes);
        }
    }
    p->matched = matched;
    p->matched_calls = calls_in;
    p->total = dfn_sat_add(p->total, total);
}

/* Everything else: several dimensions, arguments, events; one dimension
 * computed per call (time bin, size bin) in lean instances as the table
 * scan has (the time level: its first table). */
static void part_scan_general(part *p)
{
    const qctx *c = p->c;
    if (!p->record && !p->events) part_straddlers(p);   /* the first part; events are calls, not pieces */
    bool plain = query_plain(c) && c->one_table && !p->events, nofilter = query_nofilter(c);
    bool leanq = c->one_table && !p->events && query_lean(c), spark = p->spark_total != NULL;
    if (leanq && c->time_dim == 0) {
        lean_rows src = { .tiles = LEAN_TILE_TIME };
        if (nofilter && spark) lean_loop(p, &src, true, true, false, true, false);
        else lean_loop(p, &src, nofilter, true, false, spark, false);
        return;
    }
    size_t npaths = 0;
    const uint32_t *paths = leanq && c->r->dims[0].kind == DFN_DIM_PATH ? dfn_calltree_paths(c->q->tree, &npaths) : NULL;
    if (paths && npaths >= p->hi) {
        /* the call paths' level: rows by each call's node, a table whose
         * ids are the nodes (tab NULL) */
        size_t nn = dfn_calltree_npaths(c->q->tree);
        lean_rows src = { .col32 = paths, .rowof = dfn_xcalloc(nn ? nn : 1, sizeof *src.rowof) };
        lean_loop(p, &src, nofilter, false, false, spark, false);
        free(src.rowof);
        return;
    }
    if (plain && nofilter) general_loop(p, true, true);
    else if (plain) general_loop(p, true, false);
    else general_loop(p, false, false);
}

static void part_scan(part *p)
{
    const qctx *c = p->c;
    if (c->one_table && part_scan_table(p)) {
    } else if (c->r->ndims == 1 && c->layer_dim == 0) {
        part_scan_layers(p);
    } else {
        part_scan_general(p);
    }
    /* close the open segment into busy: from here busy is the union's
     * length and cur_e its end */
    for (size_t row = 0; row < p->nacc; row++) {
        acc *a = &p->acc[row];
        if (a->started) a->busy += a->cur_e - a->cur_s;
    }
    for (size_t k = 0; k < p->npsw; k++)
        if (p->psw[k].started && p->psw[k].kind == 0) psw_close(c, &p->psw[k], UINT64_MAX);
    for (size_t k = 0; k < p->ncsw; k++)
        if (p->csw[k].started) csw_close(p, &p->csw[k], UINT64_MAX);
}

static void *part_thread(void *arg)
{
    part *p = arg;
    part_scan(p);
    szh_flush(p);
    /* the open segment of each union is its last */
    for (size_t row = 0; p->c->partial && row < p->nacc; row++)
        if (p->acc[row].started) dfn_seglog_add(&p->seglog, row, p->acc[row].cur_s, p->acc[row].cur_e);
    return NULL;
}

/* What a rescan adds up below x besides the length: the part compute
 * does not cover (exposed), or the samples of a counter key (n, sum). */
typedef struct { uint64_t *exposed; uint64_t *n; dfn_ctrsum *sum; } below_sink;

/* The part of segment [cs, ce) below x, and into the sink what else of
 * that part is asked for. */
static uint64_t seg_below(const qctx *c, uint32_t proc, uint64_t cs, uint64_t ce, uint64_t x, const below_sink *k)
{
    uint64_t b = ce < x ? ce : x;
    if (b <= cs) return 0;
    if (k && k->exposed) *k->exposed += (b - cs) - dfn_overlap_covered(c->q->overlap, proc, cs, b);
    if (k && k->n) ctr_below(c, proc, cs, b, x, k->n, k->sum);
    return b - cs;
}

/* Whether event i is of sweep (proc, kind): kind 0 the I/O and 1 the
 * compute of overlap process proc, 2 any call gathering counter key proc. */
static bool rescan_takes(const qctx *c, size_t i, uint32_t proc, int kind)
{
    uint32_t lane = dfn_store_lane(c->s, i);
    if (kind == 2) return dfn_ctrindex_proc_key(c->cix, lane) == proc || dfn_ctrindex_host_key(c->cix, lane) == proc;
    if (c->ov_proc[lane] != proc) return false;
    return kind == 0 ? query_is_io(c, i) : dfn_overlap_is_compute(c->cmp_bits, i);
}

/* Length of part p's union of a row below x, exactly, by scanning the
 * part's events of that row again: the rare case where more of the union
 * lies below x than the recorded segments cover. With kind >= 0 only the
 * I/O (0) or compute (1) events of process proc count, and *exposed gets
 * the part of that union not covered by the process's compute. */
static uint64_t part_rescan_union(part *p, size_t row, uint32_t proc, int kind, uint64_t x, const below_sink *sink)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    size_t nd = c->r->ndims;
    const uint32_t *key = &p->keys[row * nd];
    uint64_t below = 0, cs = 0, ce = 0;
    bool started = false, past = false;
    scan_filter sf;
    scan_filter_init(&sf, c);
    p->rec = NULL;
    /* the row's pieces in start order (see piece): the first one at or
     * past x ends the scan */
    for (size_t i = p->lo; i < p->hi && !past; i++) {
        uint64_t ts = dfn_store_ts(s, i);
        if (ts >= x) break;
        if (!scan_filter_pass(&sf, i)) continue;
        if (kind >= 0 && !rescan_takes(c, i, proc, kind)) continue;
        uint64_t dur = dfn_store_dur(s, i), bytes = dfn_store_bytes(s, i);
        bool same = true;
        for (size_t d = 0; d < nd && same; d++) {
            if ((int)d == c->layer_dim) same = (dfn_layerset_mask(c->q->layers, i) >> key[d]) & 1;
            else if ((int)d != c->time_dim) same = part_dim_id(p, d, i, ts, bytes) == key[d];
        }
        if (!same) continue;
        piece_it it;
        piece pc;
        pieces_start(c, &it, ts, dur, bytes);
        while (pieces_next(c, &it, &pc)) {
            if (c->time_dim >= 0 && time_bin(c, pc.ts) != key[c->time_dim]) continue;
            if (pc.ts >= x) { past = true; break; }
            uint64_t pe = pc.ts + pc.dur;
            if (started && pc.ts <= ce) { if (pe > ce) ce = pe; continue; }
            if (started) below += seg_below(c, proc, cs, ce, x, sink);
            cs = pc.ts;
            ce = pe;
            started = true;
        }
    }
    if (started) below += seg_below(c, proc, cs, ce, x, sink);
    return below;
}

static uint64_t part_rescan_below(part *p, size_t row, uint64_t x)
{
    return part_rescan_union(p, row, UINT32_MAX, -1, x, NULL);
}

/* Part t's union of a row below x, from what the scan recorded: the first
 * and the last closed segments and the open one. Exact when x falls among
 * the first segments, or after the earliest of the last ones (then it is
 * the union less what lies above x); only in between is the part scanned
 * again. */
static uint64_t union_below(part *p, size_t row, uint64_t x)
{
    acc *a = &p->acc[row];
    /* the common long-event case: a parent in the earlier part ends after
     * everything of this part, so all of this union lies below x */
    if (x >= a->cur_e) return a->busy;
    uint64_t below = 0;
    for (uint8_t k = 0; k < a->nsegs; k++) {
        uint64_t s0 = a->segs[2 * k], e0 = a->segs[2 * k + 1];
        if (s0 >= x) return below;
        below += (e0 < x ? e0 : x) - s0;
    }
    if (a->nsegs < PREFIX_SEGS || (a->ntail == 0 && !a->overflow)) {
        /* every closed segment was recorded: add the open one */
        if (a->cur_s < x) below += (a->cur_e < x ? a->cur_e : x) - a->cur_s;
        return below;
    }
    /* x lies beyond the first segments: measure above x from the end */
    uint64_t oldest = a->tail[2 * (a->ntail < PREFIX_SEGS ? 0 : a->tailpos)];
    if (!a->overflow || x >= oldest) {
        /* nothing unrecorded lies above x: the dropped segments all end
         * before the oldest one kept */
        uint64_t above = a->cur_e > x ? a->cur_e - (a->cur_s > x ? a->cur_s : x) : 0;
        for (uint8_t k = 0; k < a->nsegs; k++) {
            uint64_t s0 = a->segs[2 * k], e0 = a->segs[2 * k + 1];
            if (e0 > x) above += e0 - (s0 > x ? s0 : x);
        }
        for (uint8_t k = 0; k < a->ntail; k++) {
            uint64_t s0 = a->tail[2 * k], e0 = a->tail[2 * k + 1];
            if (e0 > x) above += e0 - (s0 > x ? s0 : x);
        }
        return a->busy - above;
    }
    return part_rescan_below(p, row, x);
}

/* Merges t's counter sweeps into f's: the samples of t's union that lie
 * below the end of f's are inside f's last segment (t's calls start
 * after f's) and were counted there. */
static void csw_merge(part *f, part *t, const uint32_t *rowmap)
{
    const qctx *c = f->c;
    size_t nc = c->nctr;
    for (size_t k = 0; k < t->ncsw; k++) {
        const psweep *b = &t->csw[k];
        if (!b->started) continue;
        psweep *a = csw_get(f, rowmap[b->row], b->proc);
        size_t ai = (size_t)(a - f->csw);
        uint64_t n[DFN_MAX_CTRS] = { 0 };
        dfn_ctrsum sum[DFN_MAX_CTRS] = { 0 };
        if (a->started && b->f_s < a->e) {
            if (b->second >= a->e) {
                ctr_below(c, b->proc, b->f_s, b->f_e, a->e, n, sum);
            } else {
                below_sink sink = { .n = n, .sum = sum };
                part_rescan_union(t, b->row, b->proc, 2, a->e, &sink);
            }
        }
        for (size_t j = 0; j < nc; j++) {
            f->ccnt[ai * nc + j] += t->ccnt[k * nc + j] - n[j];
            f->csum[ai * nc + j] += t->csum[k * nc + j] - sum[j];
        }
        if (!a->started) { uint32_t row = a->row; *a = *b; a->row = row; continue; }
        if (b->e > a->e) { a->s = b->s; a->e = b->e; }
    }
}

/* Merges the analysis state of part t into f (rows of t mapped by
 * rowmap): per-process unions with the same exact fix-up as busy time,
 * file sharing, and the sparse size histograms. */
static void part_merge_extra(part *f, part *t, const uint32_t *rowmap)
{
    const qctx *c = f->c;
    for (size_t k = 0; k < t->npsw; k++) {
        psweep *b = &t->psw[k];
        if (!b->started) continue;
        psweep *a = psw_get(f, rowmap[b->row], b->proc, b->kind);
        if (b->kind == 1) { a->started = true; continue; }   /* a process of the row */
        if (!a->started) {
            uint32_t row = a->row;
            *a = *b;
            a->row = row;
            continue;
        }
        /* what of t's union lies below the end of f's: it is inside f's
         * last segment, as t's events start after all of f's */
        uint64_t m = a->e, below = 0, exp_below = 0;
        if (b->f_s < m) {
            if (b->second >= m) {
                uint64_t oe = b->f_e < m ? b->f_e : m;
                below = oe - b->f_s;
                if (b->kind == 0) exp_below = below - dfn_overlap_covered(c->q->overlap, b->proc, b->f_s, oe);
            } else {
                below_sink sink = { .exposed = b->kind == 0 ? &exp_below : NULL };
                below = part_rescan_union(t, b->row, b->proc, b->kind, m, &sink);
            }
        }
        a->len += b->len - below;
        a->exposed += b->exposed - exp_below;
        if (b->e > a->e) { a->s = b->s; a->e = b->e; }
    }
    csw_merge(f, t, rowmap);
    for (size_t j = 0; j < t->share.cap; j++) {
        uint64_t key = t->share.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        uint64_t *v = dfn_map64_slot(&f->share, (uint64_t)rowmap[key >> 32] << 32 | (key & 0xffffffffu));
        if (!*v) *v = t->share.v[j];
        else if (*v != t->share.v[j]) *v = SHARE_MANY;
    }
    for (size_t j = 0; j < t->sizes.cap; j++) {
        uint64_t key = t->sizes.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        const acc_arrays *x = AX(&f->acc[rowmap[key >> 8]]);
        if (x->sizes) x->sizes[key & 0xff] += t->sizes.v[j];
        else *dfn_map64_slot(&f->sizes, (uint64_t)rowmap[key >> 8] << 8 | (key & 0xff)) += t->sizes.v[j];
    }
    /* sparklines of t's rows past DENSE_ROWS, into f's row dense or sparse */
    for (int k = 0; k < 2; k++)
        for (size_t j = 0; j < t->spk[k].cap; j++) {
            uint64_t key = t->spk[k].k[j];
            if (key == DFN_MAP64_EMPTY) continue;
            uint32_t fr = rowmap[key >> 16];
            const acc *a = &f->acc[fr];
            spark_put(k == 0 ? AX(a)->spark : AX(a)->spk_io, &f->spk[k], fr, key & 0xffff, t->spk[k].v[j]);
        }
}

/* Row sparklines (spark or spk_io: k 0, 1) of the merged part
 * as the result's doubles, nrows x bins, from the dense arrays and the
 * sparse rows. */
static double *part_spark_out(const part *p, int k)
{
    size_t w = p->c->spark_bins, n = p->nacc;
    double *out = dfn_xcalloc((n ? n : 1) * w, sizeof *out);
    /* a sparse row's bins are in the map (and its memory may be gone) */
    for (size_t row = 0; row < n && row < DENSE_ROWS; row++) {
        const acc *a = &p->acc[row];
        const uint64_t *bins = k == 0 ? AX(a)->spark : AX(a)->spk_io;
        for (size_t b = 0; bins && b < w; b++) out[row * w + b] = (double)bins[b];
    }
    for (size_t j = 0; j < p->spk[k].cap; j++)
        if (p->spk[k].k[j] != DFN_MAP64_EMPTY)
            out[(p->spk[k].k[j] >> 16) * w + (p->spk[k].k[j] & 0xffff)] += (double)p->spk[k].v[j];
    return out;
}

/* A later part's row's first bucket, process and file into row fr of f. */
static void one_merge(part *f, size_t fr, const acc_one *o)
{
    if (o->hb) row_hist(f, fr, o->hb - 1u, o->hn);
    if (o->proc) row_proc(f, fr, o->proc - 1u, o->pdur, o->pbytes);
    if (o->file) row_file(f, fr, o->file - 1u);
}

/* Merges part t (later in time) into part f. */
static void part_merge(part *f, part *t)
{
    const qctx *c = f->c;
    size_t nd = c->r->ndims;
    uint32_t ids[DFN_MAX_DIMS];
    uint32_t *rowmap = dfn_xmalloc((t->nacc ? t->nacc : 1) * sizeof *rowmap);
    /* t's rows below are still whole (an address, not a pointer past a
     * short array) */
    uintptr_t kept_from = (uintptr_t)t->acc + DENSE_ROWS * sizeof *t->acc;
    for (size_t row = 0; row < t->nacc; row++) {
        memcpy(ids, &t->keys[row * nd], nd * sizeof *ids);
        for (size_t d = 0; d < nd; d++)
            if (c->r->dims[d].kind == DFN_DIM_ARG || c->r->dims[d].kind == DFN_DIM_SIZE)   /* ids of the part's values */
                ids[d] = dfn_strtab_intern(f->vals, dfn_strtab_str(t->vals, ids[d]), dfn_strtab_len(t->vals, ids[d]));
        size_t before = f->nacc;
        size_t fr = part_row(f, ids);
        rowmap[row] = (uint32_t)fr;
        acc *a = &f->acc[fr], *b = &t->acc[row];
        if (fr >= before) {
            /* new in f: take the union as it is */
            a->busy = b->busy; a->cur_s = b->cur_s; a->cur_e = b->cur_e; a->started = b->started;
        } else if (b->started) {
            uint64_t overlap = a->cur_e > b->cur_s || (b->nsegs && a->cur_e > b->segs[0])
                                   ? union_below(t, row, a->cur_e) : 0;
            a->busy = a->busy + b->busy - overlap;
            if (b->cur_e > a->cur_e) a->cur_e = b->cur_e;
        }
        acc_add_sums(f, fr, b);
        if (t->one) one_merge(f, fr, &t->one[row]);
        /* t's sparse rows are done with once merged: give their memory back
         * as f grows, so that both never hold every row */
        if (row >= DENSE_ROWS) {
            acc_free(b);
            uintptr_t ga, gb;
            if (row % 8192 == 0 && dfn_release_pages(kept_from, (uintptr_t)(b + 1), &ga, &gb)) kept_from = gb;
        }
    }
    t->sparse_gone = true;
    {
        size_t pos = 0;
        uint64_t last = 0, row, s0, e0;
        while (dfn_seglog_next(&t->seglog, &pos, &last, &row, &s0, &e0)) dfn_seglog_add(&f->seglog, rowmap[row], s0, e0);
        dfn_seglog_free(&t->seglog);
    }
    /* the sparse rows of t: past their first, in the maps (a process's
     * bytes beside its time) */
    dfn_map64 *tm[4] = { &t->hist, &t->procs, &t->files, &t->szh };
    for (int k = 0; k < 4; k++) {
        int shift = k == 0 || k == 3 ? 16 : 32;
        for (size_t j = 0; j < tm[k]->cap; j++) {
            uint64_t key = tm[k]->k[j];
            if (key == DFN_MAP64_EMPTY) continue;
            size_t fr = rowmap[key >> shift];
            uint64_t low = key & ((1ull << shift) - 1);
            if (k == 0) {
                row_hist(f, fr, (uint32_t)low, tm[k]->v[j]);
            } else if (k == 1) {
                const uint64_t *b = c->need_procbytes ? dfn_map64_get(&t->procb, key) : NULL;
                row_proc(f, fr, (uint32_t)low, tm[k]->v[j], b ? *b : 0);
            } else if (k == 2) {
                row_file(f, fr, (uint32_t)low);
            } else {
                *dfn_map64_slot(&f->szh, (uint64_t)fr << shift | low) += tm[k]->v[j];
            }
        }
        /* merged: gone before the next one grows f's */
        dfn_map64_free(tm[k]);
        if (k == 1) dfn_map64_free(&t->procb);
    }
    part_merge_extra(f, t, rowmap);
    f->total = dfn_sat_add(f->total, t->total);
    f->matched += t->matched;
    f->matched_calls += t->matched_calls;
    f->tiles_taken += t->tiles_taken;
    if (f->spark_total) for (size_t k = 0; k < c->spark_bins; k++) f->spark_total[k] += t->spark_total[k];
    if (t->nevents) {
        dfn_grow((void **)&f->events, &f->eventcap, f->nevents + t->nevents, sizeof *f->events);
        memcpy(f->events + f->nevents, t->events, t->nevents * sizeof *t->events);
        f->nevents += t->nevents;
    }
    free(rowmap);
}

typedef struct { uint64_t k, v; } kv;
static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    return x->k < y->k ? -1 : x->k > y->k;
}

static kv *map_sorted(const dfn_map64 *m)
{
    kv *out = dfn_xmalloc((m->n ? m->n : 1) * sizeof *out);
    size_t w = 0;
    for (size_t i = 0; i < m->cap; i++) if (m->k[i] != DFN_MAP64_EMPTY) out[w++] = (kv){ m->k[i], m->v[i] };
    qsort(out, w, sizeof *out, kv_cmp);
    return out;
}

/* One step of the nearest-rank walk over a row's histogram, buckets in
 * order: n more events in bucket b. */
static void pct_step(double *m, uint64_t count, uint64_t *seen, int *pi, uint32_t b, uint64_t n)
{
    static const double ps[3] = { 0.50, 0.90, 0.99 };
    static const int ms[3] = { DFN_M_P50_US, DFN_M_P90_US, DFN_M_P99_US };
    *seen += n;
    while (*pi < 3 && *seen >= (uint64_t)ceil(ps[*pi] * count)) {
        double v = hist_value(b);
        m[ms[*pi]] = v > m[DFN_M_MAX_US] ? m[DFN_M_MAX_US] : v;
        (*pi)++;
    }
}

/* ---- the result's metrics: only those the query keeps ---- */

/* Metrics kept whatever the query asks (unless asked_only): those every
 * row gets from its own sums, which any reader may take; and those kept
 * together because the passes that make one read the others. Busy and
 * idle time are not among them: their union is a pass of its own, made
 * only when asked for (the explorer queries a level again when a wider
 * screen shows a column its rows lack). */
#define KEEP_ALWAYS (DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | \
                     DFN_M_BIT(DFN_M_BYTES) | DFN_M_BIT(DFN_M_BW_MIBPS) | \
                     DFN_M_BIT(DFN_M_OPS_PER_S) | DFN_M_BIT(DFN_M_MEAN_US) | DFN_M_BIT(DFN_M_ACTIVE) | \
                     DFN_M_BIT(DFN_M_MAX_US) | DFN_M_BIT(DFN_M_AGG_CALLS) | DFN_M_BIT(DFN_M_PCT_TIME))
#define KEEP_PROCS (DFN_M_BIT(DFN_M_PROCS) | DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC))
#define KEEP_SPREAD (DFN_M_BIT(DFN_M_MIN_PROC_S) | DFN_M_BIT(DFN_M_MEAN_PROC_S) | DFN_M_BIT(DFN_M_STD_PROC_S) | \
                     DFN_M_BIT(DFN_M_MAX_PROC_BYTES) | DFN_M_BIT(DFN_M_MEAN_PROC_BYTES))
#define KEEP_OVERLAP (DFN_M_BIT(DFN_M_COMPUTE_S) | DFN_M_BIT(DFN_M_IO_BUSY_S) | DFN_M_BIT(DFN_M_EXPOSED_S) | \
                      DFN_M_BIT(DFN_M_OVERLAP_PCT))

/* The columns of r's metrics for a query of these metrics: a grouping of
 * a million rows kept 35 doubles a row whatever it showed. */
static void result_layout(dfn_result *r, uint64_t metrics, bool asked_only)
{
    uint64_t keep = asked_only ? metrics : metrics | KEEP_ALWAYS;
    if (keep & KEEP_SPREAD) keep |= KEEP_SPREAD | KEEP_PROCS;   /* proc_step reads them all */
    if (keep & KEEP_PROCS) keep |= KEEP_PROCS;
    if (keep & KEEP_OVERLAP) keep |= KEEP_OVERLAP;
    r->mw = 0;
    for (int k = 0; k < DFN_M_COUNT_; k++) r->mcol[k] = keep & DFN_M_BIT(k) ? (int8_t)r->mw++ : -1;
}

/* Where metric x of a row is, or the sink when it is not kept. */
static inline double *rm(dfn_result *r, size_t row, int x)
{
    return r->mcol[x] < 0 ? &r->msink : &r->m[row * r->mw + (size_t)r->mcol[x]];
}

/* A row's kept metrics into a full row by metric id (0 for the others)
 * and back: the passes that make several metrics at once work on one. */
static void row_get(const dfn_result *r, size_t row, double *full)
{
    for (int k = 0; k < DFN_M_COUNT_; k++) full[k] = r->mcol[k] < 0 ? 0 : r->m[row * r->mw + (size_t)r->mcol[k]];
}

static void row_put(dfn_result *r, size_t row, const double *full)
{
    for (int k = 0; k < DFN_M_COUNT_; k++) if (r->mcol[k] >= 0) r->m[row * r->mw + (size_t)r->mcol[k]] = full[k];
}

void dfn_result_row_full(const dfn_result *r, size_t row, double out[DFN_M_COUNT_])
{
    for (int k = 0; k < DFN_M_COUNT_; k++) out[k] = dfn_result_metric(r, row, (dfn_metric)k);
}

/* The sum of squares of per-process µs: 128 bits hold it exactly for any
 * real trace; past them it saturates and the spread is not given. */
typedef struct { unsigned __int128 v; bool over; } proc_sq;

static void proc_sq_add(proc_sq *q, uint64_t us)
{
    unsigned __int128 x = (unsigned __int128)us * us;
    if (q->v > ~(unsigned __int128)0 - x) q->over = true;
    else q->v += x;
}

/* Whether a partial's process goes before another among equals, as a
 * store's do (proc_before): the smaller pid (a name after the numbers,
 * by its text, which the partial's texts hold), then the host's name. */
static bool proc_order(const dfn_strtab *text, const dfn_pproc *x, const dfn_pproc *y)
{
    bool named = dfn_id_named(x->pid) && dfn_id_named(y->pid);
    int c = dfn_id_order(x->pid, named ? dfn_strtab_str(text, (uint32_t)(x->pid - DFN_ID_NAMED_BASE)) : "", y->pid,
                         named ? dfn_strtab_str(text, (uint32_t)(y->pid - DFN_ID_NAMED_BASE)) : "");
    if (c) return c < 0;
    return strcmp(dfn_strtab_str(text, x->host), dfn_strtab_str(text, y->host)) < 0;
}

/* The processes of a store's result, or of a partial's. */
typedef struct {
    const dfn_store *s;
    const dfn_result *r;
    const dfn_partial *pp;
    bool need_spread;
} proc_ctx;

static bool proc_before(const proc_ctx *pc, uint32_t a, uint32_t b)
{
    if (pc->pp) {
        return proc_order(pc->r->keytext, &pc->pp->procs[a], &pc->pp->procs[b]);
    }
    const dfn_lane *la = &pc->s->lanes[pc->r->proc_lane[a]], *lb = &pc->s->lanes[pc->r->proc_lane[b]];
    /* a pid given as a name orders by its text, not by its id in this
     * store's strings (which a store made of images numbers otherwise) */
    int c = dfn_id_cmp(pc->s, la->pid, pc->s, lb->pid);
    if (c) return c < 0;
    return strcmp(dfn_store_str(pc->s, la->host), dfn_store_str(pc->s, lb->host)) < 0;
}

/* One process's summed time and bytes, into procs, max_proc_s, max_proc,
 * and the spread: its least time, most bytes and (sq, per row) the sum of
 * squares, in whole µs, so that any order of processes gives one answer. */
static void proc_step(const proc_ctx *c, double *m, proc_sq *sq, size_t row, uint32_t proc, uint64_t sum_us, uint64_t bytes)
{
    m[DFN_M_PROCS]++;
    double t = sum_us / 1e6;
    if (c->need_spread) {
        if (m[DFN_M_PROCS] == 1 || t < m[DFN_M_MIN_PROC_S]) m[DFN_M_MIN_PROC_S] = t;
        if (m[DFN_M_PROCS] == 1 || (double)bytes > m[DFN_M_MAX_PROC_BYTES]) m[DFN_M_MAX_PROC_BYTES] = (double)bytes;
        proc_sq_add(&sq[row], sum_us);
    }
    if (isnan(m[DFN_M_MAX_PROC]) || t > m[DFN_M_MAX_PROC_S] ||
        (t == m[DFN_M_MAX_PROC_S] && proc_before(c, proc, (uint32_t)m[DFN_M_MAX_PROC]))) {
        m[DFN_M_MAX_PROC_S] = t;
        m[DFN_M_MAX_PROC] = proc;
    }
}

/* The stretch of time a row covers: the window [clip_lo, clip_hi) cut to
 * the store's span, and bin b of its time bins when grouped by time
 * (timed). The query's rows and a partial's alike. */
static void stretch_of(const dfn_stretch *w, bool timed, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    *lo = w->clip_lo;
    *hi = w->clip_hi < w->span ? w->clip_hi : w->span;
    if (*hi < *lo) *hi = *lo;   /* a window past the trace's end */
    if (!timed) return;
    uint64_t blo = dfn_sat_add(w->bin_lo, dfn_sat_mul(b, w->bin)), bhi = dfn_sat_add(blo, w->bin);
    if (blo > *lo) *lo = blo;
    if (bhi < *hi) *hi = bhi;
    if (*hi < *lo) *hi = *lo;
}

static dfn_stretch query_stretch(const qctx *c)
{
    return (dfn_stretch){ c->clip_lo, c->clip_hi, c->s->t1 - c->s->t0, c->win_lo_us, c->bin_us };
}

static void row_span(const part *p, size_t row, uint64_t *lo, uint64_t *hi)
{
    const qctx *c = p->c;
    dfn_stretch w = query_stretch(c);
    stretch_of(&w, c->time_dim >= 0, c->time_dim < 0 ? 0 : p->keys[row * c->r->ndims + (size_t)c->time_dim], lo, hi);
}

/* The compute of one of a row's processes inside the row's time (a row
 * filtered to I/O shows the compute its I/O could hide behind), in µs. */
static uint64_t row_proc_compute(const part *p, const psweep *w)
{
    uint64_t lo, hi;
    row_span(p, w->row, &lo, &hi);
    return dfn_overlap_covered(p->c->q->overlap, w->proc, lo, hi);
}

/* Each row's I/O, exposed I/O and compute in µs, its processes' summed
 * as integers: the same sums in any order, however the events were
 * divided among threads or shares (a sum of seconds would round by it). */
static void part_overlap_sums(const part *p, uint64_t *io, uint64_t *exposed, uint64_t *compute)
{
    for (size_t k = 0; k < p->npsw; k++) {
        const psweep *w = &p->psw[k];
        if (w->kind == 0) {
            io[w->row] += w->len;
            exposed[w->row] += w->exposed;
        } else if (w->started) {
            compute[w->row] += row_proc_compute(p, w);
        }
    }
}

/* With split sparklines, one of a row's processes' compute in each bin
 * of the row's compute line, in µs (0 where none). */
static void row_proc_spark(const part *p, const psweep *w, uint64_t *bins)
{
    const qctx *c = p->c;
    const dfn_overlap *o = c->q->overlap;
    uint64_t lo, hi;
    row_span(p, w->row, &lo, &hi);
    uint64_t nb = c->spark_bins;
    for (uint64_t b = 0; b < nb; b++) {
        /* the sparkline's bin edges, as spark_add cuts calls */
        uint64_t bs = c->spark_lo_us + spark_edge(c, b), be = c->spark_lo_us + spark_edge(c, b + 1);
        uint64_t from = bs > lo ? bs : lo, to = be < hi ? be : hi;
        bins[b] = to > from ? dfn_overlap_covered(o, w->proc, from, to) : 0;
    }
}

/* Each compute line of the rows' processes (row_proc_spark), handed to
 * add with its row: the query adds them into its doubles, a partial into
 * its map. */
static void part_compute_lines(const part *p, void (*add)(void *ctx, uint32_t row, const uint64_t *bins), void *ctx)
{
    uint64_t *bins = dfn_xmalloc(p->c->spark_bins * sizeof *bins);
    for (size_t k = 0; k < p->npsw; k++) {
        if (p->psw[k].kind != 1 || !p->psw[k].started) continue;
        row_proc_spark(p, &p->psw[k], bins);
        add(ctx, p->psw[k].row, bins);
    }
    free(bins);
}

/* (part_compute_lines into a result's compute lines) */
typedef struct { double *line; size_t w; } line_sink;

static void line_add(void *ctx, uint32_t row, const uint64_t *bins)
{
    line_sink *k = ctx;
    for (size_t b = 0; b < k->w; b++) k->line[row * k->w + b] += (double)bins[b];
}

/* Each row's counter means from its sweeps: a sample is in one sweep of
 * a row, by its key. */
static void ctr_finish(const part *p, dfn_result *r)
{
    const qctx *c = p->c;
    size_t n = p->nacc, nc = c->nctr;
    r->nctrs = nc;
    for (size_t k = 0; k < nc; k++) r->ctr_names[k] = dfn_xasprintf("ctr.%s", c->q->ctrs->series[k]);
    r->ctr_samples = dfn_xcalloc((n ? n : 1) * nc, sizeof *r->ctr_samples);
    dfn_ctrsum *sum = dfn_xcalloc((n ? n : 1) * nc, sizeof *sum);
    for (size_t i = 0; i < p->ncsw; i++)
        for (size_t k = 0; k < nc; k++) {
            r->ctr_samples[p->csw[i].row * nc + k] += p->ccnt[i * nc + k];
            sum[p->csw[i].row * nc + k] += p->csum[i * nc + k];
        }
    r->ctr = dfn_xmalloc((n ? n : 1) * nc * sizeof *r->ctr);
    for (size_t j = 0; j < n * nc; j++) r->ctr[j] = dfn_ctrindex_mean(sum[j], r->ctr_samples[j]);
    free(sum);
}

/* A row's overlap metrics from its I/O, exposed I/O and compute µs;
 * none: the definition matched no event anywhere. */
static void overlap_put(dfn_result *r, size_t row, uint64_t io, uint64_t exposed, uint64_t compute, bool none)
{
    *rm(r, row, DFN_M_IO_BUSY_S) = io / 1e6;
    *rm(r, row, DFN_M_EXPOSED_S) = exposed / 1e6;
    *rm(r, row, DFN_M_COMPUTE_S) = compute / 1e6;
    *rm(r, row, DFN_M_OVERLAP_PCT) = io > 0 ? 100.0 * (1 - (double)exposed / (double)io) : NAN;
    if (none) *rm(r, row, DFN_M_COMPUTE_S) = *rm(r, row, DFN_M_EXPOSED_S) = *rm(r, row, DFN_M_OVERLAP_PCT) = NAN;
}

/* The analysis metrics of the merged part's rows. */
static void part_finish_extra(part *p, dfn_result *r)
{
    const qctx *c = p->c;
    size_t n = p->nacc;
    if (c->cix) ctr_finish(p, r);
    if (c->spark_split) {
        r->spark_io = part_spark_out(p, 1);
        r->spark_cmp = dfn_xcalloc((n ? n : 1) * c->spark_bins, sizeof *r->spark_cmp);
        line_sink k = { r->spark_cmp, c->spark_bins };
        part_compute_lines(p, line_add, &k);
    }
    if (r->mcol[DFN_M_OVERLAP_PCT] >= 0) {
        uint64_t *ov = dfn_xcalloc(3 * (n ? n : 1), sizeof *ov);
        part_overlap_sums(p, ov, ov + n, ov + 2 * n);
        /* no compute event at all: nothing to hide I/O behind, nor to say it was not */
        /* (a share's rows: undefined when compute matched nothing in the set) */
        bool none = c->q->overlap &&
                    (c->q->set_compute ? c->q->set_compute < 0 : dfn_overlap_ncompute(c->q->overlap) == 0);
        for (size_t row = 0; row < n; row++) overlap_put(r, row, ov[row], ov[n + row], ov[2 * n + row], none);
        free(ov);
    }
    for (size_t k = 0; k < p->share.cap; k++)
        if (p->share.k[k] != DFN_MAP64_EMPTY && p->share.v[k] == SHARE_MANY)
            (*rm(r, p->share.k[k] >> 32, DFN_M_SHARED_FILES))++;
    if (c->need_sizes) {
        r->sizes = dfn_xcalloc((n ? n : 1) * DFN_SIZEBIN_COUNT, sizeof *r->sizes);
        for (size_t row = 0; row < part_live_rows(p); row++)   /* a sparse row's are in the map */
            if (AX(&p->acc[row])->sizes)
                memcpy(&r->sizes[row * DFN_SIZEBIN_COUNT], AX(&p->acc[row])->sizes, DFN_SIZEBIN_COUNT * sizeof *r->sizes);
        for (size_t k = 0; k < p->sizes.cap; k++)
            if (p->sizes.k[k] != DFN_MAP64_EMPTY)
                r->sizes[(p->sizes.k[k] >> 8) * DFN_SIZEBIN_COUNT + (p->sizes.k[k] & 0xff)] += p->sizes.v[k];
    }
}

/* What the passes after part_finish's row loop read of each row, kept
 * apart so that the loop can give the accumulators' memory back as it
 * goes (a grouping of a million rows held both them and the result). */
typedef struct {
    uint8_t *full;
    uint64_t *dur, *bytes;           /* need_spread */
    uint64_t *szn;                   /* need_size */
    double *szmin, *szmax;
} acc_kept;

static void kept_init(acc_kept *k, bool need_spread, bool need_size, size_t n)
{
    memset(k, 0, sizeof *k);
    n = n ? n : 1;
    k->full = dfn_xmalloc(n);
    if (need_spread) {
        k->dur = dfn_xmalloc(n * sizeof *k->dur);
        k->bytes = dfn_xmalloc(n * sizeof *k->bytes);
    }
    if (need_size) {
        k->szn = dfn_xmalloc(n * sizeof *k->szn);
        k->szmin = dfn_xmalloc(n * sizeof *k->szmin);
        k->szmax = dfn_xmalloc(n * sizeof *k->szmax);
    }
}

static void kept_take(acc_kept *k, size_t row, const dfn_rowsums *a)
{
    k->full[row] = a->full;
    if (k->dur) { k->dur[row] = a->dur; k->bytes[row] = a->bytes; }
    if (k->szn) { k->szn[row] = a->szn; k->szmin[row] = a->szmin; k->szmax[row] = a->szmax; }
}

/* A row whose sums passed 2^64: its per-process sums may have too. */
static void kept_full_rows(dfn_result *r, const acc_kept *kp, size_t n)
{
    for (size_t row = 0; row < n; row++) {
        if (!kp->full[row]) continue;
        static const int per_proc[] = { DFN_M_MAX_PROC_S, DFN_M_MAX_PROC, DFN_M_MIN_PROC_S, DFN_M_MEAN_PROC_S, DFN_M_STD_PROC_S,
                                        DFN_M_MAX_PROC_BYTES, DFN_M_MEAN_PROC_BYTES };
        for (size_t k = 0; k < sizeof per_proc / sizeof *per_proc; k++) *rm(r, row, per_proc[k]) = NAN;
    }
}

static void kept_free(acc_kept *k)
{
    free(k->full); free(k->dur); free(k->bytes); free(k->szn); free(k->szmin); free(k->szmax);
}

/* The spread across processes from what proc_step gathered: means of the
 * row's sums, and the population deviation from the exact sums of µs and
 * of their squares. */
static void spread_row(double *m, const proc_sq *sq, const acc_kept *kp, size_t row)
{
    double n = m[DFN_M_PROCS];
    uint64_t sum = kp->dur[row];
    if (n <= 0) {
        m[DFN_M_MIN_PROC_S] = m[DFN_M_MEAN_PROC_S] = m[DFN_M_STD_PROC_S] = NAN;
        m[DFN_M_MAX_PROC_BYTES] = m[DFN_M_MEAN_PROC_BYTES] = NAN;
        return;
    }
    m[DFN_M_MEAN_PROC_S] = (double)sum / n / 1e6;
    m[DFN_M_MEAN_PROC_BYTES] = (double)kp->bytes[row] / n;
    /* n * sum(x^2) - sum(x)^2 >= 0, exact while it fits 128 bits */
    unsigned __int128 s2 = (unsigned __int128)sum * sum, nq = 0;
    bool fits = !sq[row].over && sq[row].v <= ~(unsigned __int128)0 / (uint64_t)n;
    if (fits) nq = sq[row].v * (uint64_t)n;
    m[DFN_M_STD_PROC_S] = fits && nq >= s2 ? sqrtl((long double)(nq - s2)) / n / 1e6 : NAN;
}

static void spread_finish(size_t nrows, dfn_result *r, const proc_sq *sq, const acc_kept *kp)
{
    double m[DFN_M_COUNT_];
    for (size_t row = 0; row < nrows; row++) {
        row_get(r, row, m);
        spread_row(m, sq, kp, row);
        row_put(r, row, m);
    }
}

/* Sizes per call of a row's reads and writes (in the row loop). */
static void size_row(const dfn_rowsums *am, double *m)
{
    const dfn_rowsums *a = am;
    bool none = !am->szn;
    m[DFN_M_SIZE_MEAN] = none ? NAN : a->full & DFN_OVF_BYTES ? INFINITY : (double)am->szsum / (double)am->szn;
    m[DFN_M_SIZE_MIN] = none ? NAN : am->szmin;
    m[DFN_M_SIZE_MAX] = none ? NAN : am->szmax;
    m[DFN_M_SIZE_P50] = NAN;
}

/* The median size by nearest rank over each row's size buckets, kept
 * within the least and largest. */
static void size_finish(dfn_map64 *szh, dfn_result *r, const acc_kept *kp)
{
    size_t n = szh->n;
    kv *h = map_sorted(szh);
    dfn_map64_free(szh);   /* read from h now */
    for (size_t k = 0; k < n;) {
        size_t row = h[k].k >> 16, end = k;
        while (end < n && (h[end].k >> 16) == row) end++;
        uint64_t need = (kp->szn[row] + 1) / 2, seen = 0;
        for (size_t j = k; j < end; j++) {
            seen += h[j].v;
            if (seen < need) continue;
            double v = hist_value((uint32_t)(h[j].k & 0xffff));
            double lo = kp->szmin[row], hi = kp->szmax[row];
            *rm(r, row, DFN_M_SIZE_P50) = v < lo ? lo : v > hi ? hi : v;
            break;
        }
        k = end;
    }
    free(h);
}

static void row_span(const part *p, size_t row, uint64_t *lo, uint64_t *hi);

/* The metrics of a row's own sums into m (a store's rows and a partial's):
 * busy time when its union was made (need_busy), else undefined. */
static void sums_metrics(dfn_result *r, const dfn_rowsums *a, bool need_busy, uint64_t busy, double *m)
{
    /* a sum past 2^64 is inf (flagged), and what divides by it undefined */
    double t = a->full & DFN_OVF_DUR ? INFINITY : a->dur / 1e6;
    double calls = a->full & DFN_OVF_COUNT ? INFINITY : (double)a->count;
    double by = a->full & DFN_OVF_BYTES ? INFINITY : (double)a->bytes;
    if (a->full) r->overflow_rows++;
    m[DFN_M_COUNT] = calls;
    m[DFN_M_TIME_S] = t;
    /* busy and idle time: undefined unless asked for (the union was not made) */
    m[DFN_M_BUSY_S] = need_busy ? busy / 1e6 : NAN;
    m[DFN_M_IDLE_S] = NAN;
    m[DFN_M_BYTES] = by;
    /* per second of no time is undefined, never 0 (4096 B in 0 s) */
    m[DFN_M_BW_MIBPS] = a->full || !(t > 0) ? NAN : by / 1048576.0 / t;
    m[DFN_M_OPS_PER_S] = a->full || !(t > 0) ? NAN : calls / t;
    /* latency of the calls that start in the row, whole */
    m[DFN_M_MEAN_US] = a->full || !a->count ? NAN : ((double)a->dur + (double)a->cut_us - (double)a->out_us) / a->count;
    m[DFN_M_ACTIVE] = a->full & DFN_OVF_COUNT ? INFINITY : (double)a->count + (double)a->out_calls;
    m[DFN_M_MAX_US] = (double)a->maxdur;
    m[DFN_M_AGG_CALLS] = a->full & DFN_OVF_AGG ? INFINITY : (double)a->agg;
    m[DFN_M_PCT_TIME] = a->full & DFN_OVF_DUR || !(r->total_time_s > 0) ? NAN : 100.0 * t / r->total_time_s;
}

/* An accumulator's sums as a partial keeps them. */
static dfn_rowsums acc_rowsums(const acc *a)
{
    const acc_more *am = AM(a);
    return (dfn_rowsums){ .count = a->count, .dur = a->dur, .bytes = a->bytes, .maxdur = a->maxdur, .agg = am->agg,
                          .out_calls = am->out_calls, .out_us = am->out_us, .cut_us = am->cut_us, .szn = am->szn,
                          .szsum = am->szsum, .szmin = am->szmin, .szmax = am->szmax, .full = a->full,
                          .self = am->self, .seq = am->seq, .rnd = am->rnd };
}

/* Every metric of one row from its accumulator (the dense rows' arrays
 * too) into m, a full row by metric id. */
static void finish_row(const part *p, dfn_result *r, size_t row, const acc *a, double *m, proc_sq *sq)
{
    const qctx *c = p->c;
    const proc_ctx pc = { c->s, r, NULL, c->need_spread };
    dfn_rowsums sums = acc_rowsums(a);
    sums_metrics(r, &sums, c->need_busy, a->busy, m);
    uint64_t span_lo, span_hi;   /* the row's stretch, less its busy time */
    row_span(p, row, &span_lo, &span_hi);
    m[DFN_M_IDLE_S] = !c->need_busy ? NAN : span_hi - span_lo > a->busy ? (span_hi - span_lo - a->busy) / 1e6 : 0;
    const acc_arrays *x = AX(a);
    /* past 2^32 calls a dense bucket may have filled: no percentile,
     * the same for every row however the parts held it */
    if (a->count > UINT32_MAX && c->need_hist) {
        m[DFN_M_P50_US] = m[DFN_M_P90_US] = m[DFN_M_P99_US] = NAN;
    } else if (x->hist) {
        uint64_t seen = 0;
        int pi = 0;
        for (uint32_t b = 0; b < HIST_BUCKETS && pi < 3; b++)
            if (x->hist[b]) pct_step(m, a->count, &seen, &pi, b, x->hist[b]);
    }
    m[DFN_M_MAX_PROC] = NAN;
    for (size_t pr = 0; x->procsum && pr < c->nprocs; pr++)
        if (x->procseen[pr >> 6] >> (pr & 63) & 1)
            proc_step(&pc, m, sq, row, (uint32_t)pr, x->procsum[pr], x->procbytes ? x->procbytes[pr] : 0);
    const acc_more *am = AM(a);
    m[DFN_M_SELF_S] = am->self / 1e6;
    m[DFN_M_SEQ_PCT] = am->seq + am->rnd ? 100.0 * am->seq / (am->seq + am->rnd) : NAN;
    if (x->files) {
        x->files[0] &= ~1ull;   /* "no file" is not a file */
        uint64_t cnt = 0;
        for (size_t w = 0; w < (c->s->nfiles + 63) / 64; w++) cnt += (uint64_t)__builtin_popcountll(x->files[w]);
        m[DFN_M_FILES] = (double)cnt;
    }
    if (c->need_size) size_row(&sums, m);
}

/* A sparse row's percentiles (nearest rank over its histogram in bucket
 * order: its first bucket among those of the part's map, h[0..nh)), and
 * its first process and file, into m. */
static void finish_one(const part *p, dfn_result *r, size_t row, const acc *a, double *m, proc_sq *sq, const kv *h, size_t nh)
{
    const qctx *c = p->c;
    const acc_one *o = &p->one[row];
    const proc_ctx pc = { c->s, r, NULL, c->need_spread };
    if (o->proc) proc_step(&pc, m, sq, row, o->proc - 1u, o->pdur, o->pbytes);
    if (o->file > 1) m[DFN_M_FILES]++;   /* file 0: "no file" */
    if (!o->hb && !nh) return;
    uint64_t seen = 0;
    int pi = 0;
    if (a->count > UINT32_MAX) {   /* as the dense rows */
        m[DFN_M_P50_US] = m[DFN_M_P90_US] = m[DFN_M_P99_US] = NAN;
        return;
    }
    bool one_done = !o->hb;
    for (size_t j = 0; pi < 3 && (j < nh || !one_done);) {
        uint32_t b = j < nh ? (uint32_t)(h[j].k & 0xffff) : UINT32_MAX;
        if (!one_done && o->hb - 1u < b) {
            pct_step(m, a->count, &seen, &pi, o->hb - 1u, o->hn);
            one_done = true;
        } else {
            pct_step(m, a->count, &seen, &pi, b, h[j].v);
            j++;
        }
    }
}

/* The sparse rows' processes past their first, from the part's maps. */
static void finish_sparse(part *p, dfn_result *r, proc_sq *sq)
{
    const qctx *c = p->c;
    const proc_ctx pc = { c->s, r, NULL, c->need_spread };
    double m[DFN_M_COUNT_];
    for (size_t j = 0; j < p->procs.cap; j++) {
        uint64_t key = p->procs.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        const uint64_t *b = c->need_procbytes ? dfn_map64_get(&p->procb, key) : NULL;
        row_get(r, key >> 32, m);
        proc_step(&pc, m, sq, key >> 32, (uint32_t)(key & 0xffffffffu), p->procs.v[j], b ? *b : 0);
        row_put(r, key >> 32, m);
    }
}

/* The merged part becomes the result's rows and the metrics it keeps. */
static void part_finish(part *p, dfn_result *r)
{
    const qctx *c = p->c;
    size_t n = p->nacc, nd = r->ndims;
    r->nrows = n;
    r->keys = dfn_xmalloc((n * nd > 0 ? n * nd : 1) * sizeof *r->keys);
    for (size_t k = 0; k < n * nd; k++) r->keys[k].id = p->keys[k];
    r->m = dfn_xcalloc((n ? n : 1) * r->mw, sizeof *r->m);
    proc_sq *sq = c->need_spread ? dfn_xcalloc(n ? n : 1, sizeof *sq) : NULL;
    if (c->spark_bins) r->spark = part_spark_out(p, 0);
    acc_kept kp;
    kept_init(&kp, c->need_spread, c->need_size, n);
    /* last row first: the accumulators' pages past the dense rows go back
     * to the system as the result's pages fill, so that a million rows
     * never hold both at once */
    /* (no arithmetic on a NULL array: a query without rows, or without
     * the first entries) */
    uintptr_t released = p->acc ? (uintptr_t)(p->acc + n) : 0, released1 = p->one ? (uintptr_t)(p->one + n) : 0;
    size_t hk = p->hist.n;   /* the sparse histograms in row order, walked back */
    kv *h = map_sorted(&p->hist);
    dfn_map64_free(&p->hist);
    for (size_t row = n; row-- > 0;) {
        acc *a = &p->acc[row];
        double m[DFN_M_COUNT_] = { 0 };   /* every metric, then the kept ones into r->m */
        finish_row(p, r, row, a, m, sq);
        size_t hend = hk;
        while (hk > 0 && (h[hk - 1].k >> 16) == row) hk--;
        if (p->one) finish_one(p, r, row, a, m, sq, h + hk, hend - hk);
        row_put(r, row, m);
        dfn_rowsums sums = acc_rowsums(a);
        kept_take(&kp, row, &sums);
        if (row >= DENSE_ROWS) {
            acc_free(a);   /* what a sparse row owns: segments of its union */
            uintptr_t ga, gb;
            if (row % 8192 == 0 || row == DENSE_ROWS) {
                if (dfn_release_pages((uintptr_t)a, released, &ga, &gb)) released = ga;
                if (p->one && dfn_release_pages((uintptr_t)&p->one[row], released1, &ga, &gb)) released1 = ga;
            }
        }
    }
    p->sparse_gone = true;
    free(h);
    free(p->one);
    p->one = NULL;
    finish_sparse(p, r, sq);
    if (c->need_spread) spread_finish(n, r, sq, &kp);
    free(sq);
    if (c->need_size) size_finish(&p->szh, r, &kp);
    kept_full_rows(r, &kp, n);
    kept_free(&kp);
    part_finish_extra(p, r);
    for (size_t k = 0; k < p->files.cap; k++) {
        if (p->files.k[k] == DFN_MAP64_EMPTY || (p->files.k[k] & 0xffffffffu) == 0) continue;
        (*rm(r, p->files.k[k] >> 32, DFN_M_FILES))++;
    }
    /* the part's value table becomes the result's */
    dfn_strtab_free(r->vals);
    r->vals = p->vals;
    p->vals = NULL;
}

/* ---- sorting ---- */

/* A key that is a plain decimal number ("10", "-2", "0.25"): its sign and
 * the digits before and after the point, leading zeros dropped. */
typedef struct { bool neg; const char *ip, *fp; size_t il, fl; } decnum;

static bool decnum_parse(const char *t, size_t len, decnum *d)
{
    size_t i = 0;
    d->neg = len && t[0] == '-';
    i = d->neg;
    size_t i0 = i;
    while (i < len && t[i] >= '0' && t[i] <= '9') i++;
    if (i == i0) return false;
    size_t lead = i0;
    while (lead + 1 < i && t[lead] == '0') lead++;
    d->ip = t + lead;
    d->il = i - lead;
    d->fp = NULL;
    d->fl = 0;
    if (i < len && t[i] == '.') {
        size_t f0 = ++i;
        while (i < len && t[i] >= '0' && t[i] <= '9') i++;
        if (i == f0) return false;
        d->fp = t + f0;
        d->fl = i - f0;
        while (d->fl && d->fp[d->fl - 1] == '0') d->fl--;
    }
    return i == len;
}

/* Numbers by value, exactly, at any length (hashes are 20 digits). */
static int decnum_cmp(const decnum *a, const decnum *b)
{
    bool za = a->il == 1 && a->ip[0] == '0' && !a->fl, zb = b->il == 1 && b->ip[0] == '0' && !b->fl;
    bool na = a->neg && !za, nb = b->neg && !zb;
    if (na != nb) return na ? -1 : 1;
    int c = a->il != b->il ? (a->il < b->il ? -1 : 1) : memcmp(a->ip, b->ip, a->il);
    for (size_t k = 0; !c && k < (a->fl > b->fl ? a->fl : b->fl); k++) {
        char x = k < a->fl ? a->fp[k] : '0', y = k < b->fl ? b->fp[k] : '0';
        c = x < y ? -1 : x > y;
    }
    return na ? -c : c;
}

/* Text keys: the empty one first, then numbers by value (1, 2, 10), then
 * the rest by their bytes. */
static int key_text_cmp(const char *x, size_t lx, const char *y, size_t ly)
{
    if (!lx || !ly) return lx == ly ? 0 : lx ? 1 : -1;
    decnum a, b;
    bool nx = decnum_parse(x, lx, &a), ny = decnum_parse(y, ly, &b);
    if (nx != ny) return nx ? -1 : 1;
    if (nx) {
        int c = decnum_cmp(&a, &b);
        if (c) return c;   /* "1" and "01": by their bytes below */
    }
    return dfn_bytes_cmp(x, lx, y, ly);
}

/* A named pid's or tid's name: the store's, or a partial's text. */
static const char *result_id_name(const dfn_result *r, int64_t v)
{
    if (!r->keytext) return dfn_id_name(r->store, v);
    uint32_t id = (uint32_t)(v - DFN_ID_NAMED_BASE);
    return id < dfn_strtab_count(r->keytext) ? dfn_strtab_str(r->keytext, id) : "?";
}

/* dfn_id_cmp's order, of a store's or a partial's rows alike. */
static int result_id_cmp(const dfn_result *a, int64_t x, const dfn_result *b, int64_t y)
{
    bool named = dfn_id_named(x) && dfn_id_named(y);
    return dfn_id_order(x, named ? result_id_name(a, x) : "", y, named ? result_id_name(b, y) : "");
}

char *dfn_result_key_dup(const dfn_result *r, size_t row, size_t dim, size_t *len)
{
    uint32_t id = dfn_result_key(r, row, dim)->id;
    if (r->dims[dim].kind == DFN_DIM_PATH && !r->keytext) {
        /* call paths can be longer than any fixed buffer (a partial's
         * rows keep their whole text) */
        size_t need = dfn_calltree_path_len(r->tree, r->store, id) + 1;
        char *t = dfn_xmalloc(need);
        *len = dfn_calltree_path_text(r->tree, r->store, id, t, need);
        return t;
    }
    char buf[64];   /* the other keys made as text are numbers */
    const char *t = dfn_result_key_str(r->store, r, row, dim, buf, sizeof buf, len);
    return dfn_xstrndup(t, *len);
}

int dfn_result_key_cmp(const dfn_result *a, size_t ra, const dfn_result *b, size_t rb)
{
    for (size_t d = 0; d < a->ndims && d < b->ndims; d++) {
        dfn_dimkind k = a->dims[d].kind;
        uint32_t x = dfn_result_key(a, ra, d)->id, y = dfn_result_key(b, rb, d)->id;
        if (k == DFN_DIM_EVENT && a == b && a->keytext) {
            /* calls merged from shares: in the set's order, which their
             * bytes begin with */
            int c = dfn_evrow_order_cmp(a, ra, rb);
            if (c) return c;
            continue;
        }
        if (k == DFN_DIM_EVENT && (a->store != b->store || a->keytext || b->keytext)) {
            /* calls of two runs: by time from each run's start (of calls
             * merged from shares, the time their bytes begin with) */
            uint64_t tx = a->keytext ? dfn_evrow_ts(a, ra) : dfn_store_ts(a->store, x);
            uint64_t ty = b->keytext ? dfn_evrow_ts(b, rb) : dfn_store_ts(b->store, y);
            if (tx != ty) return tx < ty ? -1 : 1;
            continue;
        }
        if (x == y && a == b) continue;
        if (k == DFN_DIM_TIME || k == DFN_DIM_SIZEBIN || k == DFN_DIM_EVENT || k == DFN_DIM_LAYER) {
            if (x != y) return x < y ? -1 : 1;
            continue;
        }
        if (k == DFN_DIM_PID || k == DFN_DIM_TID) {
            int c = result_id_cmp(a, a->ints[x], b, b->ints[y]);
            if (c) return c;
            continue;
        }
        if (k == DFN_DIM_PATH && (a->keytext || b->keytext)) {   /* a partial's rows: by their whole text */
            size_t lx, ly;
            char *dx = NULL, *dy = NULL;
            const char *tx = a->keytext ? dfn_result_key_str(NULL, a, ra, d, NULL, 0, &lx) : (dx = dfn_result_key_dup(a, ra, d, &lx));
            const char *ty = b->keytext ? dfn_result_key_str(NULL, b, rb, d, NULL, 0, &ly) : (dy = dfn_result_key_dup(b, rb, d, &ly));
            int cmp = dfn_calltree_text_cmp(tx, lx, ty, ly);
            free(dx);
            free(dy);
            if (cmp) return cmp;
            continue;
        }
        if (k == DFN_DIM_PATH) {
            /* tree order, function by function: no text is built */
            int cmp = dfn_calltree_path_cmp(a->tree, a->store, x, b->tree, b->store, y);
            if (cmp) return cmp;
            continue;
        }
        char bx[64], by[64];
        size_t lx, ly;
        const char *tx = dfn_result_key_str(a->store, a, ra, d, bx, sizeof bx, &lx);
        const char *ty = dfn_result_key_str(b->store, b, rb, d, by, sizeof by, &ly);
        int cmp = key_text_cmp(tx, lx, ty, ly);
        if (cmp) return cmp;
    }
    return 0;
}

static char *proc_name_dup(const dfn_store *s, const dfn_lane *l);

/* The text max_proc shows for process number v of r ("host/pid";
 * malloc'd). */
static char *proc_text(const dfn_result *r, size_t v)
{
    if (r->keytext) return dfn_xstrdup(v < r->nproc_names ? dfn_strtab_str(r->keytext, r->proc_name[v]) : "");
    const dfn_store *s = r->store;
    return proc_name_dup(s, &s->lanes[r->proc_lane[v]]);
}

static _Thread_local char **g_proc_texts;   /* qsort has no context argument */
static int proc_text_cmp(const void *a, const void *b)
{
    const char *x = g_proc_texts[*(const uint32_t *)a], *y = g_proc_texts[*(const uint32_t *)b];
    int c = key_text_cmp(x, strlen(x), y, strlen(y));
    return c ? c : *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* r->proc_rank, once: each process number its rows name ranked by its
 * text (equal texts alike); a text each, not one a comparison. */
static void proc_ranks_make(dfn_result *r)
{
    if (r->proc_rank || r->events) return;
    size_t n = 0;
    for (size_t row = 0; row < r->nrows; row++) {
        double v = dfn_result_metric(r, row, DFN_M_MAX_PROC);
        if (!isnan(v) && v >= 0 && (size_t)v + 1 > n) n = (size_t)v + 1;
    }
    if (r->keytext && n > r->nproc_names) n = r->nproc_names;
    r->proc_rank = dfn_xmalloc((n ? n : 1) * sizeof *r->proc_rank);
    r->nproc_rank = n;
    for (size_t v = 0; v < n; v++) r->proc_rank[v] = UINT32_MAX;
    for (size_t row = 0; row < r->nrows; row++) {
        double v = dfn_result_metric(r, row, DFN_M_MAX_PROC);
        if (!isnan(v) && v >= 0 && (size_t)v < n) r->proc_rank[(size_t)v] = 0;   /* named */
    }
    uint32_t *named = dfn_xmalloc((n ? n : 1) * sizeof *named), k = 0;
    char **text = dfn_xcalloc(n ? n : 1, sizeof *text);
    for (uint32_t v = 0; v < n; v++)
        if (r->proc_rank[v] == 0) { named[k++] = v; text[v] = proc_text(r, v); }
    g_proc_texts = text;
    qsort(named, k, sizeof *named, proc_text_cmp);
    g_proc_texts = NULL;
    for (uint32_t j = 0, rank = 0; j < k; j++) {
        if (j && strcmp(text[named[j]], text[named[j - 1]])) rank = j;
        r->proc_rank[named[j]] = rank;
    }
    for (size_t v = 0; v < n; v++) free(text[v]);
    free(text);
    free(named);
}

/* Row's rank of r->proc_rank, NaN without a process. */
static double proc_rank_of(const dfn_result *r, size_t row)
{
    double v = dfn_result_metric(r, row, DFN_M_MAX_PROC);
    return isnan(v) || v < 0 || (size_t)v >= r->nproc_rank || r->proc_rank[(size_t)v] == UINT32_MAX
               ? NAN : (double)r->proc_rank[(size_t)v];
}

void dfn_result_rank_procs(dfn_result *r)
{
    proc_ranks_make(r);
}

double dfn_result_max_proc_rank(const dfn_result *r, size_t row)
{
    return r->proc_rank && row < r->nrows ? proc_rank_of(r, row) : NAN;
}

typedef struct { const dfn_result *r; int metric; bool desc; } sortctx;

static _Thread_local const sortctx *g_sort;   /* qsort has no context argument */
static int row_cmp(const void *pa, const void *pb)
{
    const sortctx *c = g_sort;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (c->metric == DFN_M_MAX_PROC && c->r->proc_rank) {   /* (calls alone have none: NaN, as merged ones) */
        int o = dfn_metric_order(proc_rank_of(c->r, a), proc_rank_of(c->r, b), c->desc);
        return o ? o : dfn_result_key_cmp(c->r, a, c->r, b);
    }
    if (c->metric >= 0) {
        double x = dfn_result_metric(c->r, a, c->metric), y = dfn_result_metric(c->r, b, c->metric);
        /* undefined values (a share of nothing) last, either way */
        int o = dfn_metric_order(x, y, c->desc);
        return o ? o : dfn_result_key_cmp(c->r, a, c->r, b);
    }
    int k = dfn_result_key_cmp(c->r, a, c->r, b);
    return c->desc ? -k : k;
}

/* Rows of width bytes become base[i] = base[order[i]] for every i, in
 * place: each cycle of the permutation moves through one spare row. seen
 * is n bits of zeros. */
static void rows_permute(void *base, size_t width, const size_t *order, size_t n, uint64_t *seen)
{
    char *b = base, *tmp = dfn_xmalloc(width);
    for (size_t i = 0; i < n; i++) {
        if (seen[i / 64] >> (i % 64) & 1 || order[i] == i) continue;
        memcpy(tmp, b + i * width, width);
        size_t j = i;
        for (;;) {
            seen[j / 64] |= 1ull << (j % 64);
            size_t k = order[j];
            if (k == i) { memcpy(b + j * width, tmp, width); break; }
            memcpy(b + j * width, b + k * width, width);
            j = k;
        }
    }
    free(tmp);
}

/* Moves row i of heap h (of hn rows, the one that sorts last on top)
 * down to where it belongs. */
static void best_down(size_t *h, size_t hn, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < hn && row_cmp(&h[l], &h[m]) > 0) m = l;
        if (l + 1 < hn && row_cmp(&h[l + 1], &h[m]) > 0) m = l + 1;
        if (m == i) return;
        size_t t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}

/* order[0..keep) becomes the first keep of the n rows in g_sort's order,
 * sorted, the others after them in no order: a heap of the best keep so
 * far (the calls a --top keeps of millions, at n log keep comparisons
 * instead of n log n; row_cmp orders every two rows, so these are the
 * very rows a whole sort puts first). */
static void rows_best(size_t *order, size_t n, size_t keep)
{
    for (size_t i = keep / 2; i-- > 0;) best_down(order, keep, i);
    for (size_t i = keep; i < n; i++) {
        if (row_cmp(&order[i], &order[0]) >= 0) continue;
        size_t t = order[0]; order[0] = order[i]; order[i] = t;
        best_down(order, keep, 0);
    }
    qsort(order, keep, sizeof *order, row_cmp);
}

/* The rows in the order of metric (-1: the key) and desc, as numbers of
 * r's rows: the first keep sorted, the rest after them in no order (all
 * n of them, malloc'd). */
static size_t *result_order(dfn_result *r, int metric, bool desc, size_t keep)
{
    size_t n = r->nrows;
    if (metric == DFN_M_MAX_PROC) proc_ranks_make(r);
    size_t *order = dfn_xmalloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n; i++) order[i] = i;
    sortctx c = { r, metric, desc };
    g_sort = &c;
    if (keep && keep < n / 16) rows_best(order, n, keep);
    else qsort(order, n, sizeof *order, row_cmp);
    g_sort = NULL;
    return order;
}

/* Reorders the rows and keeps the first keep of them. */
static void result_reorder(dfn_result *r, int metric, bool desc, size_t keep)
{
    size_t n = r->nrows, nd = r->ndims, w = r->spark_bins;
    if (keep > n) keep = n;
    size_t *order = result_order(r, metric, desc, keep);
    if (r->events) {
        uint32_t *ev = dfn_xmalloc((keep ? keep : 1) * sizeof *ev);
        for (size_t i = 0; i < keep; i++) ev[i] = r->events[order[i]];
        free(r->events);
        r->events = ev;
        r->keys = (dfn_keyval *)ev;
    } else {
        /* in place: a second copy of a million rows' metrics was the
         * peak of a large grouping */
        uint64_t *seen = dfn_xcalloc(n / 64 + 1, sizeof *seen);
        void **arr[8] = { (void **)&r->keys, (void **)&r->m, (void **)&r->spark, (void **)&r->spark_io, (void **)&r->spark_cmp,
                          (void **)&r->sizes, (void **)&r->ctr, (void **)&r->ctr_samples };
        size_t width[8] = { nd * sizeof(dfn_keyval), r->mw * sizeof(double), w * sizeof(double), w * sizeof(double),
                            w * sizeof(double), DFN_SIZEBIN_COUNT * sizeof(uint64_t), r->nctrs * sizeof(double),
                            r->nctrs * sizeof(uint64_t) };
        for (int k = 0; k < 8; k++) {
            if (!*arr[k] || !width[k]) continue;
            memset(seen, 0, (n / 64 + 1) * sizeof *seen);
            rows_permute(*arr[k], width[k], order, n, seen);
            if (keep < n) *arr[k] = dfn_xrealloc(*arr[k], keep * width[k] > 0 ? keep * width[k] : 1);
        }
        free(seen);
    }
    free(order);
    r->nrows = keep;
}

void dfn_result_sort(dfn_result *r, int metric, bool desc)
{
    dfn_result_sort_top(r, metric, desc, 0);
}

void dfn_result_sort_top(dfn_result *r, int metric, bool desc, size_t keep)
{
    if (r->nrows > 1) result_reorder(r, metric, desc, keep ? keep : r->nrows);
}

double dfn_event_metric(const dfn_result *r, uint32_t i, dfn_metric m)
{
    const dfn_store *s = r->store;
    double total_time_s = r->total_time_s;
    double dur = (double)dfn_store_dur(s, i), bytes = (double)dfn_store_bytes(s, i), t = dur / 1e6;
    double calls = (double)dfn_store_calls(s, i);
    switch (m) {
    case DFN_M_COUNT: case DFN_M_ACTIVE: return calls;
    case DFN_M_PROCS: return 1;
    case DFN_M_AGG_CALLS: return dfn_store_is_agg(s, i) ? calls : 0;
    case DFN_M_TIME_S: case DFN_M_BUSY_S: case DFN_M_MAX_PROC_S: return t;
    case DFN_M_MIN_PROC_S: case DFN_M_MEAN_PROC_S: return t;
    case DFN_M_STD_PROC_S: return 0;
    case DFN_M_BYTES: case DFN_M_MAX_PROC_BYTES: case DFN_M_MEAN_PROC_BYTES: return bytes;
    case DFN_M_SIZE_MEAN: case DFN_M_SIZE_P50: case DFN_M_SIZE_MIN: case DFN_M_SIZE_MAX:
        return event_is_rw(s, i) ? dfn_store_mean(dfn_store_bytes(s, i), dfn_store_calls(s, i)) : NAN;
    case DFN_M_BW_MIBPS: return t > 0 ? bytes / 1048576.0 / t : NAN;
    case DFN_M_OPS_PER_S: return t > 0 ? calls / t : NAN;
    case DFN_M_MEAN_US: case DFN_M_P50_US: case DFN_M_P90_US: case DFN_M_P99_US: return dur / calls;
    case DFN_M_MAX_US: return (double)dfn_store_maxdur(s, i);
    case DFN_M_FILES: return dfn_store_file(s, i) != 0;
    case DFN_M_PCT_TIME: return total_time_s > 0 ? 100.0 * t / total_time_s : NAN;
    case DFN_M_SELF_S: return r->tree ? dfn_calltree_self(r->tree, i) / 1e6 : NAN;
    case DFN_M_SEQ_PCT: {
        dfn_access_kind k = r->access ? dfn_access_of(r->access, i) : DFN_ACCESS_NONE;
        return k == DFN_ACCESS_NONE ? NAN : k == DFN_ACCESS_SEQ ? 100 : 0;
    }
    case DFN_M_COMPUTE_S: case DFN_M_IO_BUSY_S: case DFN_M_EXPOSED_S: case DFN_M_OVERLAP_PCT: {
        if (!r->overlap) return NAN;
        /* as the grouped rows: undefined when compute matched no event
         * (of the set, when the store is a share of it) */
        bool none = r->set_compute ? r->set_compute < 0 : dfn_overlap_ncompute(r->overlap) == 0;
        if (m != DFN_M_IO_BUSY_S && none) return NAN;
        bool cmp = dfn_overlap_is_compute(dfn_overlap_bits(r->overlap), i);
        const uint64_t *iob = dfn_overlap_io_bits(r->overlap);
        bool io = iob ? dfn_overlap_is_compute(iob, i) : s->kinds[dfn_store_kind(s, i)].io;
        if (m == DFN_M_COMPUTE_S) return cmp ? t : 0;
        if (m == DFN_M_IO_BUSY_S) return io ? t : 0;
        size_t np;
        uint32_t proc = dfn_overlap_procs(r->overlap, &np)[dfn_store_lane(s, i)];
        uint64_t ts = dfn_store_ts(s, i);
        double exposed = io ? (dur - (double)dfn_overlap_covered(r->overlap, proc, ts, ts + (uint64_t)dur)) / 1e6 : 0;
        if (m == DFN_M_EXPOSED_S) return exposed;
        return io && dur > 0 ? 100.0 * (1 - exposed / t) : NAN;
    }
    case DFN_M_SHARED_FILES: return 0;
    case DFN_M_MAX_PROC: return NAN;   /* text: the event's own process */
    default: return 0;
    }
}

/* A process's name as max_proc gives it: host/pid, even when the host is
 * unknown ("/1"), as --by proc's names begin: a bare "1" read as a pid of
 * some other column's kind (malloc'd: whole, however long). */
static char *proc_name_dup(const dfn_store *s, const dfn_lane *l)
{
    char *pid = dfn_id_dup(s, l->pid), *t = dfn_xasprintf("%s/%s", dfn_store_str(s, l->host), pid);
    free(pid);
    return t;
}

char *dfn_result_metric_dup(const dfn_result *r, size_t row, dfn_metric m)
{
    if (m != DFN_M_MAX_PROC) return NULL;
    if (r->keytext) {   /* a partial's rows: the name it keeps */
        double v = dfn_result_metric(r, row, m);
        if (isnan(v) || v < 0 || v >= (double)r->nproc_names) return dfn_xstrdup("");
        return dfn_xstrdup(dfn_strtab_str(r->keytext, r->proc_name[(size_t)v]));
    }
    const dfn_store *s = r->store;
    const dfn_lane *l = NULL;
    if (r->events) {
        l = &s->lanes[dfn_store_lane(s, r->events[row])];
    } else {
        double v = dfn_result_metric(r, row, m);
        if (!isnan(v)) l = &s->lanes[r->proc_lane[(size_t)v]];
    }
    return l ? proc_name_dup(s, l) : dfn_xstrdup("");
}

const char *dfn_result_metric_str(const dfn_result *r, size_t row, dfn_metric m, char *buf, size_t cap)
{
    char *t = dfn_result_metric_dup(r, row, m);
    if (!t) return NULL;
    snprintf(buf, cap, "%s", t);
    free(t);
    return buf;
}

/* ---- partial results (partial.h): a part's rows out, merged rows in ---- */

/* What part_export needs beyond the part: the partial's ids of the
 * store's processes and files, made on first use (UINT32_MAX: not yet). */
typedef struct {
    dfn_partial *out;
    const dfn_store *s;
    const dfn_result *r;
    uint32_t *proc, *file, *row;
} export_ids;

static uint32_t export_proc(export_ids *x, uint32_t pr)
{
    if (x->proc[pr] != UINT32_MAX) return x->proc[pr];
    const dfn_lane *l = &x->s->lanes[x->r->proc_lane[pr]];
    const char *host = dfn_store_str(x->s, l->host);
    char *name = proc_name_dup(x->s, l);
    size_t len = strlen(name);
    uint32_t h = dfn_partial_text(x->out, host, dfn_strtab_len(x->s->strs, l->host));
    /* a pid given as a name is an id of this store's strings: in the
     * partial, of its texts, which every merge reads by their text */
    int64_t pid = l->pid;
    if (dfn_id_named(pid)) {
        uint32_t sid = (uint32_t)(pid - DFN_ID_NAMED_BASE);
        pid = DFN_ID_NAMED_BASE + dfn_partial_text(x->out, dfn_store_str(x->s, sid), dfn_strtab_len(x->s->strs, sid));
    }
    x->proc[pr] = dfn_partial_proc(x->out, h, pid, name, len);
    free(name);
    return x->proc[pr];
}

/* File f of the store: its path's id, UINT32_MAX for "no file" (file 0). */
static uint32_t export_file(export_ids *x, uint32_t f)
{
    if (f == 0) return UINT32_MAX;
    if (x->file[f] != UINT32_MAX) return x->file[f];
    uint32_t path = x->s->files[f].path;
    return x->file[f] = dfn_partial_text(x->out, dfn_store_str(x->s, path), dfn_strtab_len(x->s->strs, path));
}

static void export_procsum(export_ids *x, size_t row, uint32_t pr, uint64_t us, uint64_t bytes)
{
    uint64_t key = (uint64_t)x->row[row] << 32 | export_proc(x, pr);
    uint64_t *v = dfn_map64_slot(&x->out->procsum, key);
    *v = dfn_sat_add(*v, us);
    v = dfn_map64_slot(&x->out->procbytes, key);
    *v = dfn_sat_add(*v, bytes);
}

static void export_file_add(export_ids *x, size_t row, uint32_t f)
{
    uint32_t id = export_file(x, f);
    if (id != UINT32_MAX) *dfn_map64_slot(&x->out->files, (uint64_t)x->row[row] << 32 | id) = 1;
}

/* A pid's or tid's key in a partial: '#' and its number, or '=' and its
 * name (a number and a name that read alike are two rows, as in a store;
 * partial_ids reads them back). */
static uint32_t export_id(export_ids *x, int64_t v)
{
    if (!dfn_id_named(v)) {
        char num[32];
        return dfn_partial_text(x->out, num, (size_t)snprintf(num, sizeof num, "#%" PRId64, v));
    }
    uint32_t sid = (uint32_t)(v - DFN_ID_NAMED_BASE);   /* (its every byte: a name may hold a NUL) */
    size_t len = dfn_strtab_len(x->s->strs, sid);
    char *t = dfn_xmalloc(len + 1);
    t[0] = '=';
    memcpy(t + 1, dfn_store_str(x->s, sid), len);
    uint32_t id = dfn_partial_text(x->out, t, len + 1);
    free(t);
    return id;
}

/* Row keys as text (numbers for the kinds every share numbers alike). */
static void export_rows(part *p, dfn_result *r, export_ids *x)
{
    size_t nd = r->ndims;
    uint32_t keys[DFN_MAX_DIMS];
    for (size_t row = 0; row < p->nacc; row++) {
        for (size_t d = 0; d < nd; d++) {
            if (dfn_dim_numbered(r->dims[d].kind)) {
                keys[d] = p->keys[row * nd + d];
                continue;
            }
            dfn_dimkind k = r->dims[d].kind;
            if (k == DFN_DIM_PID || k == DFN_DIM_TID) {
                keys[d] = export_id(x, r->ints[p->keys[row * nd + d]]);
                continue;
            }
            if (k == DFN_DIM_EVENT) {   /* a call: its order and fields (evrows.h) */
                size_t len;
                uint8_t *t = dfn_evrow_text(x->s, p->keys[row * nd + d], p->c->q->place, &len);
                keys[d] = dfn_partial_text(x->out, (const char *)t, len);
                free(t);
                continue;
            }
            char buf[64];
            size_t len;
            char *whole = k == DFN_DIM_PATH ? dfn_result_key_dup(r, row, d, &len) : NULL;   /* however long */
            const char *t = whole ? whole : dfn_result_key_str(x->s, r, row, d, buf, sizeof buf, &len);
            keys[d] = dfn_partial_text(x->out, t, len);
            free(whole);
        }
        x->row[row] = (uint32_t)dfn_partial_row(x->out, keys);
        dfn_rowsums add = acc_rowsums(&p->acc[row]);
        dfn_partial_add(x->out, x->row[row], &add);
    }
}

/* Each row's buckets, processes and files: a dense row's arrays, a sparse
 * row's first ones, then the part's maps. */
static void export_sets(part *p, export_ids *x)
{
    const qctx *c = p->c;
    for (size_t row = 0; row < p->nacc; row++) {
        const acc_arrays *ax = AX(&p->acc[row]);
        uint64_t orow = x->row[row];
        for (uint32_t b = 0; ax->hist && b < HIST_BUCKETS; b++)
            if (ax->hist[b]) *dfn_map64_slot(&x->out->hist, orow << 16 | b) += ax->hist[b];
        for (size_t pr = 0; ax->procsum && pr < c->nprocs; pr++)
            if (ax->procseen[pr >> 6] >> (pr & 63) & 1)
                export_procsum(x, row, (uint32_t)pr, ax->procsum[pr], ax->procbytes ? ax->procbytes[pr] : 0);
        for (size_t f = 1; ax->files && f < c->s->nfiles; f++)
            if (ax->files[f >> 6] >> (f & 63) & 1) export_file_add(x, row, (uint32_t)f);
        const acc_one *o = p->one ? &p->one[row] : NULL;
        if (o && o->hb) *dfn_map64_slot(&x->out->hist, orow << 16 | (o->hb - 1u)) += o->hn;
        if (o && o->proc) export_procsum(x, row, o->proc - 1u, o->pdur, o->pbytes);
        if (o && o->file) export_file_add(x, row, o->file - 1u);
    }
    dfn_map64_add_rows(&x->out->hist, &p->hist, x->row, 16, NULL);
    dfn_map64_add_rows(&x->out->szh, &p->szh, x->row, 16, NULL);
    /* transfer-size bins: a dense row's array, a sparse row's in the map */
    for (size_t row = 0; c->need_sizes && row < p->nacc; row++) {
        const uint64_t *sz = AX(&p->acc[row])->sizes;
        for (int b = 0; sz && b < DFN_SIZEBIN_COUNT; b++)
            if (sz[b]) *dfn_map64_slot(&x->out->sizebins, (uint64_t)x->row[row] << 8 | (uint64_t)b) += sz[b];
    }
    dfn_map64_add_rows(&x->out->sizebins, &p->sizes, x->row, 8, NULL);
    for (size_t j = 0; j < p->share.cap; j++) {   /* (row, file) -> its one process, or many */
        uint64_t key = p->share.k[j], v = p->share.v[j];
        if (key == DFN_MAP64_EMPTY) continue;
        uint32_t f = export_file(x, (uint32_t)key);
        if (f == UINT32_MAX) continue;
        v = v == SHARE_MANY ? DFN_PARTIAL_MANY : (uint64_t)export_proc(x, (uint32_t)(v - 1)) + 1;
        dfn_partial_share_put(&x->out->share, (uint64_t)x->row[key >> 32] << 32 | f, v);
    }
    for (size_t j = 0; j < p->procs.cap; j++) {
        uint64_t key = p->procs.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        const uint64_t *b = c->need_procbytes ? dfn_map64_get(&p->procb, key) : NULL;
        export_procsum(x, key >> 32, (uint32_t)key, p->procs.v[j], b ? *b : 0);
    }
    for (size_t j = 0; j < p->files.cap; j++)
        if (p->files.k[j] != DFN_MAP64_EMPTY) export_file_add(x, p->files.k[j] >> 32, (uint32_t)p->files.k[j]);
}

/* A sparkline of each row (spark or spk_io: k 0, 1) into the partial's
 * map out: a dense row's array, a sparse row's bins in the part's map, as
 * part_spark_out reads them. */
static void export_line(const part *p, const export_ids *x, int k, dfn_map64 *out)
{
    size_t w = p->c->spark_bins;
    for (size_t row = 0; row < p->nacc && row < DENSE_ROWS; row++) {
        const uint64_t *bins = k == 0 ? AX(&p->acc[row])->spark : AX(&p->acc[row])->spk_io;
        for (size_t b = 0; bins && b < w; b++)
            if (bins[b]) *dfn_map64_slot(out, (uint64_t)x->row[row] << 16 | b) += bins[b];
    }
    dfn_map64_add_rows(out, &p->spk[k], x->row, 16, NULL);
}

/* (part_compute_lines into the partial's compute lines) */
static void export_compute_add(void *ctx, uint32_t row, const uint64_t *bins)
{
    const export_ids *x = ctx;
    for (size_t b = 0; b < x->out->spark_bins; b++)
        if (bins[b]) *dfn_map64_slot(&x->out->spark_cmp, (uint64_t)x->row[row] << 16 | b) += bins[b];
}

/* Each row's sparkline and the total's, in µs; split, each row's I/O
 * line and the compute line of each of its processes (a share holds
 * whole processes). */
static void export_spark(part *p, export_ids *x)
{
    const qctx *c = p->c;
    if (!c->spark_bins) return;
    export_line(p, x, 0, &x->out->spark);
    memcpy(x->out->spark_total, p->spark_total, c->spark_bins * sizeof *p->spark_total);
    if (!c->spark_split) return;
    export_line(p, x, 1, &x->out->spark_io);
    part_compute_lines(p, export_compute_add, x);
}

/* The merged part as a partial result: keys, processes and files by text,
 * busy segments in absolute µs. */
static dfn_partial *part_export(part *p, dfn_result *r)
{
    const qctx *c = p->c;
    const dfn_store *s = c->s;
    size_t n = p->nacc, nd = r->ndims;
    /* the result reads the keys' text: its keys and the part's values */
    r->nrows = n;
    r->keys = dfn_xmalloc((n * nd > 0 ? n * nd : 1) * sizeof *r->keys);
    for (size_t k = 0; k < n * nd; k++) r->keys[k].id = p->keys[k];
    dfn_strtab_free(r->vals);
    r->vals = p->vals;
    p->vals = NULL;
    dfn_partial *out = dfn_partial_new(c->q);
    out->win_lo_s = r->win_lo_s;
    out->win_hi_s = r->win_hi_s;
    out->bin_s = r->bin_s;
    out->bin0_s = r->bin0_s;
    out->stretch = query_stretch(c);
    for (size_t d = 0; d < r->ndims; d++) out->timed |= r->dims[d].kind == DFN_DIM_TIME;
    /* (idle is the stretch less busy; compute_s is the compute within it) */
    out->timed |= (out->metrics & (DFN_M_BIT(DFN_M_IDLE_S) | DFN_M_OVERLAP)) != 0;
    for (size_t k = 0; c->q->filter && k < c->q->filter->n; k++) out->timed |= c->q->filter->terms[k].key == DFN_KEY_TIME;
    out->timed |= c->q->layers && dfn_layers_timed(dfn_layerset_layers(c->q->layers));
    out->timed |= c->spark_bins > 0;   /* (sparkline bins count from the window too) */
    export_ids x = { out, s, r, dfn_xmalloc((c->nprocs ? c->nprocs : 1) * sizeof *x.proc),
                     dfn_xmalloc((s->nfiles ? s->nfiles : 1) * sizeof *x.file), dfn_xmalloc((n ? n : 1) * sizeof *x.row) };
    memset(x.proc, 0xff, (c->nprocs ? c->nprocs : 1) * sizeof *x.proc);
    memset(x.file, 0xff, (s->nfiles ? s->nfiles : 1) * sizeof *x.file);
    export_rows(p, r, &x);
    export_sets(p, &x);
    export_spark(p, &x);
    if (c->q->overlap) {   /* (each process's sweeps are whole in a share of whole processes) */
        uint64_t *ov = dfn_xcalloc(3 * (n ? n : 1), sizeof *ov);
        part_overlap_sums(p, ov, ov + n, ov + 2 * n);
        for (size_t row = 0; row < n; row++) {
            dfn_rowsums *su = &out->sums[x.row[row]];
            su->io_us += ov[row];
            su->exposed_us += ov[n + row];
            su->compute_us += ov[2 * n + row];
        }
        free(ov);
        out->ncompute = dfn_overlap_ncompute(c->q->overlap);
    }
    for (size_t i = 0; i < p->ncsw; i++)   /* counters: each row's sweeps, as ctr_finish adds them */
        for (size_t k = 0; k < c->nctr; k++)
            if (p->ccnt[i * c->nctr + k] || p->csum[i * c->nctr + k])
                dfn_partial_ctr_add(out, x.row[p->csw[i].row], k, p->ccnt[i * c->nctr + k], p->csum[i * c->nctr + k]);
    /* the part's log becomes the partial's: rows as the partial's, times
     * from the epoch; expanded only once the store is gone (the caller's
     * first read of the segments) */
    {
        size_t pos = 0;
        uint64_t last = 0, row, s0, e0;
        while (dfn_seglog_next(&p->seglog, &pos, &last, &row, &s0, &e0))
            dfn_seglog_add(&out->log, x.row[row], s->t0 + s0, s->t0 + e0);
        dfn_seglog_free(&p->seglog);
    }
    out->total = p->total;
    out->matched = p->matched;
    out->matched_calls = p->matched_calls;
    free(x.proc);
    free(x.file);
    free(x.row);
    return out;
}

/* A partial's processes into its rows' metrics (procs, max_proc, spread). */
static void partial_procs(dfn_partial *p, dfn_result *r, bool need_spread, proc_sq *sq)
{
    const proc_ctx pc = { NULL, r, p, need_spread };
    double m[DFN_M_COUNT_];
    for (size_t j = 0; j < p->procsum.cap; j++) {
        uint64_t key = p->procsum.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        const uint64_t *b = dfn_map64_get(&p->procbytes, key);
        row_get(r, key >> 32, m);
        proc_step(&pc, m, sq, key >> 32, (uint32_t)key, p->procsum.v[j], b ? *b : 0);
        row_put(r, key >> 32, m);
    }
}

/* A partial's latency buckets into its rows' percentiles, nearest rank
 * in bucket order; and its files, counted. */
static void partial_hist_files(dfn_partial *p, dfn_result *r)
{
    size_t nh = p->hist.n;
    kv *h = map_sorted(&p->hist);
    double m[DFN_M_COUNT_];
    for (size_t k = 0; k < nh;) {
        size_t row = h[k].k >> 16, end = k;
        while (end < nh && (h[end].k >> 16) == row) end++;
        row_get(r, row, m);
        uint64_t seen = 0;
        int pi = 0;
        if (p->sums[row].count > UINT32_MAX)   /* as a store's rows: a bucket may have filled */
            m[DFN_M_P50_US] = m[DFN_M_P90_US] = m[DFN_M_P99_US] = NAN;
        for (size_t j = k; j < end && pi < 3 && p->sums[row].count <= UINT32_MAX; j++)
            pct_step(m, p->sums[row].count, &seen, &pi, (uint32_t)(h[j].k & 0xffff), h[j].v);
        row_put(r, row, m);
        k = end;
    }
    free(h);
    for (size_t j = 0; j < p->files.cap; j++)
        if (p->files.k[j] != DFN_MAP64_EMPTY) (*rm(r, p->files.k[j] >> 32, DFN_M_FILES))++;
}

/* A partial's counter samples and sums into its rows' means, as
 * ctr_finish makes them. */
static void partial_ctrs(const dfn_partial *p, const dfn_query *q, dfn_result *r)
{
    size_t n = p->nrows, nc = p->nctr;
    if (!nc || !q->ctrs || q->ctrs->n != nc) return;
    r->nctrs = nc;
    for (size_t k = 0; k < nc; k++) r->ctr_names[k] = dfn_xasprintf("ctr.%s", q->ctrs->series[k]);
    r->ctr_samples = dfn_xcalloc((n ? n : 1) * nc, sizeof *r->ctr_samples);
    dfn_ctrsum *sum = dfn_xcalloc((n ? n : 1) * nc, sizeof *sum);
    for (size_t j = 0; j < p->ctrn.cap; j++) {
        uint64_t key = p->ctrn.k[j];
        if (key == DFN_MAP64_EMPTY) continue;
        size_t at = (size_t)(key >> 8) * nc + (size_t)(key & 0xff);
        r->ctr_samples[at] = p->ctrn.v[j];
        sum[at] = dfn_partial_ctr_sum(p, key);
    }
    r->ctr = dfn_xmalloc((n ? n : 1) * nc * sizeof *r->ctr);
    for (size_t j = 0; j < n * nc; j++) r->ctr[j] = dfn_ctrindex_mean(sum[j], r->ctr_samples[j]);
    free(sum);
}

/* The value of a pid's or tid's key text ('#' number or '=' name, as
 * export_id makes it), a name put in text. Whatever else a rank sent is
 * a name: it shows as sent and cannot read as another row's number. */
static int64_t partial_id_value(dfn_strtab *text, uint32_t id)
{
    const char *t = dfn_strtab_str(text, id);
    size_t len = dfn_strtab_len(text, id), k = 1;
    if (len >= 2 && t[0] == '#') {
        bool neg = t[1] == '-';
        uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (k += neg; k < len && t[k] >= '0' && t[k] <= '9' && v <= (lim - (uint64_t)(t[k] - '0')) / 10; k++)
            v = v * 10 + (uint64_t)(t[k] - '0');
        int64_t x = neg ? (v ? -(int64_t)(v - 1) - 1 : 0) : (int64_t)v;
        if (k == len && len > 1u + neg && !dfn_id_named(x)) return x;
    }
    size_t skip = len && t[0] == '=';   /* (a table's strings stay where they are as it grows) */
    return DFN_ID_NAMED_BASE + dfn_strtab_intern(text, t + skip, len - skip);
}

/* A partial's pid and tid keys as a store's result keeps them: values in
 * r->ints, the keys their indexes, names in the result's text. */
static void partial_ids(dfn_result *r)
{
    size_t n = r->nrows, nd = r->ndims, k = 0;
    for (size_t d = 0; d < nd; d++) {
        if (r->dims[d].kind != DFN_DIM_PID && r->dims[d].kind != DFN_DIM_TID) continue;
        if (!r->ints) r->ints = dfn_xmalloc((n * nd > 0 ? n * nd : 1) * sizeof *r->ints);
        for (size_t row = 0; row < n; row++, k++) {
            dfn_keyval *key = &r->keys[row * nd + d];
            r->ints[k] = partial_id_value(r->keytext, key->id);
            key->id = (uint32_t)k;
        }
    }
}

/* A sparkline map of a partial (row << 16 | bin -> µs) as a result's
 * nrows x w doubles, each bin's sum over the shares converted once, as
 * the query converts its own. */
static double *partial_line(const dfn_map64 *m, size_t n, size_t w)
{
    double *out = dfn_xcalloc((n ? n : 1) * w, sizeof *out);
    for (size_t j = 0; j < m->cap; j++)
        if (m->k[j] != DFN_MAP64_EMPTY) out[(m->k[j] >> 16) * w + (m->k[j] & 0xffff)] = (double)m->v[j];
    return out;
}

/* A partial's sparklines as a result's. (The query sums its processes'
 * compute in doubles: whole µs, the same value while a bin's sum is below
 * 2^53 µs.) */
static void partial_spark(const dfn_partial *p, dfn_result *r)
{
    size_t w = p->spark_bins, n = p->nrows;
    if (!w) return;
    r->spark_bins = w;
    r->spark = partial_line(&p->spark, n, w);
    r->spark_total = dfn_xmalloc(w * sizeof *r->spark_total);
    for (size_t k = 0; k < w; k++) r->spark_total[k] = (double)p->spark_total[k];
    if (!p->spark_split) return;
    r->spark_io = partial_line(&p->spark_io, n, w);
    r->spark_cmp = partial_line(&p->spark_cmp, n, w);
}

/* The result's frame for a partial's rows: q's dimensions and metrics,
 * keys of the partial's text. */
static dfn_result *partial_result(dfn_partial *p, const dfn_query *q, const dfn_layers *layers)
{
    dfn_result *r = dfn_xcalloc(1, sizeof *r);
    r->ndims = q->ndims;
    dfn_dims_copy(r->dims, q->dims, q->ndims);
    r->metrics = q->metrics ? q->metrics : DFN_M_BASIC;
    result_layout(r, r->metrics, q->asked_only);
    r->layers = layers;
    r->keytext = p->text;
    p->text = NULL;
    r->nproc_names = p->nprocs;
    r->proc_name = dfn_xmalloc((p->nprocs ? p->nprocs : 1) * sizeof *r->proc_name);
    for (size_t k = 0; k < p->nprocs; k++) r->proc_name[k] = p->procs[k].name;
    r->total_time_s = p->total / 1e6;
    r->total_us = p->total;
    r->matched = p->matched;
    r->matched_calls = p->matched_calls;
    /* the window and its bins, the same in every share of a set rebased
     * to its span (what labels time rows) */
    r->win_lo_s = p->win_lo_s;
    r->win_hi_s = p->win_hi_s;
    r->bin_s = p->bin_s;
    r->bin0_s = p->bin0_s;
    size_t n = p->nrows, nd = r->ndims;
    r->nrows = n;
    r->keys = dfn_xmalloc((n * nd > 0 ? n * nd : 1) * sizeof *r->keys);
    for (size_t k = 0; k < n * nd; k++) r->keys[k].id = p->keys[k];
    partial_ids(r);
    r->m = dfn_xcalloc((n ? n : 1) * r->mw, sizeof *r->m);
    return r;
}

/* The rows of p (q's) as a result's, in p's order; p is spent. */
static dfn_result *partial_rows(dfn_partial *p, const dfn_query *q, const dfn_layers *layers)
{
    dfn_result *r = partial_result(p, q, layers);
    uint64_t want = r->metrics;
    bool need_busy = want & (DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S));
    bool need_spread = want & KEEP_SPREAD;
    int time_dim = -1;
    for (size_t d = 0; d < r->ndims; d++)
        if (r->dims[d].kind == DFN_DIM_TIME) time_dim = (int)d;
    bool need_size = want & (DFN_M_BIT(DFN_M_SIZE_MEAN) | DFN_M_BIT(DFN_M_SIZE_P50) | DFN_M_BIT(DFN_M_SIZE_MIN) |
                             DFN_M_BIT(DFN_M_SIZE_MAX));
    size_t n = p->nrows;
    dfn_partial_sum_busy(p);   /* each row's union, with what slices of it gave */
    proc_sq *sq = need_spread ? dfn_xcalloc(n ? n : 1, sizeof *sq) : NULL;
    acc_kept kp;
    kept_init(&kp, need_spread, need_size, n);
    for (size_t row = 0; row < n; row++) {
        double m[DFN_M_COUNT_] = { 0 };
        sums_metrics(r, &p->sums[row], need_busy, p->sums[row].busy, m);
        if (need_busy) {   /* as the query's finish_row */
            uint64_t lo, hi, busy = p->sums[row].busy;
            stretch_of(&p->stretch, time_dim >= 0, time_dim < 0 ? 0 : p->keys[row * r->ndims + (size_t)time_dim], &lo, &hi);
            m[DFN_M_IDLE_S] = hi - lo > busy ? (hi - lo - busy) / 1e6 : 0;
        }
        m[DFN_M_MAX_PROC] = NAN;
        if (need_size) size_row(&p->sums[row], m);
        const dfn_rowsums *su = &p->sums[row];   /* as finish_row and part_finish_extra */
        m[DFN_M_SELF_S] = su->self / 1e6;
        m[DFN_M_SEQ_PCT] = su->seq + su->rnd ? 100.0 * su->seq / (su->seq + su->rnd) : NAN;
        row_put(r, row, m);
        if (r->mcol[DFN_M_OVERLAP_PCT] >= 0) overlap_put(r, row, su->io_us, su->exposed_us, su->compute_us, p->ncompute == 0);
        kept_take(&kp, row, &p->sums[row]);
    }
    partial_hist_files(p, r);
    for (size_t k = 0; (want & DFN_M_BIT(DFN_M_SHARED_FILES)) && k < p->share.cap; k++)
        if (p->share.k[k] != DFN_MAP64_EMPTY && p->share.v[k] == DFN_PARTIAL_MANY)
            (*rm(r, p->share.k[k] >> 32, DFN_M_SHARED_FILES))++;
    if (p->sizes) {   /* each row's transfer-size bins */
        r->sizes = dfn_xcalloc((n ? n : 1) * DFN_SIZEBIN_COUNT, sizeof *r->sizes);
        for (size_t k = 0; k < p->sizebins.cap; k++)
            if (p->sizebins.k[k] != DFN_MAP64_EMPTY)
                r->sizes[(p->sizebins.k[k] >> 8) * DFN_SIZEBIN_COUNT + (p->sizebins.k[k] & 0xff)] += p->sizebins.v[k];
    }
    partial_procs(p, r, need_spread, sq);
    partial_ctrs(p, q, r);
    partial_spark(p, r);
    if (need_spread) spread_finish(n, r, sq, &kp);
    free(sq);
    if (need_size) size_finish(&p->szh, r, &kp);
    kept_full_rows(r, &kp, n);
    kept_free(&kp);
    dfn_partial_free(p);
    return r;
}

dfn_result *dfn_partial_finish(dfn_partial *p, const dfn_query *q, const dfn_layers *layers, char *err,
                               size_t errlen)
{
    bool ok = dfn_partial_supports(q, err, errlen);
    if (ok && !dfn_partial_is_of(p, q)) {
        snprintf(err, errlen, "a partial result of another query");
        ok = false;
    }
    if (!ok) {
        dfn_partial_free(p);
        return NULL;
    }
    dfn_result *r = partial_rows(p, q, layers);
    if (r->nrows && (r->ndims || q->top)) result_reorder(r, q->sort, q->desc, q->top ? q->top : r->nrows);
    return r;
}

dfn_partial *dfn_partial_cut(dfn_partial *p, const dfn_query *q, uint64_t set_total, uint64_t set_ncompute)
{
    if (!q->top || p->nrows <= q->top) return p;
    /* the rows' metrics as the set's (pct_time of its total; the overlap
     * metrics undefined only when no share's compute matched), from a
     * copy, whose rows are p's in p's order */
    size_t len;
    uint8_t *bytes = dfn_partial_encode(p, &len);
    char err[256];
    dfn_partial *copy = dfn_partial_decode(bytes, len, err, sizeof err);
    free(bytes);
    if (!copy) return p;   /* (never: its own bytes) */
    copy->total = set_total;
    copy->ncompute = set_ncompute;
    dfn_result *r = partial_rows(copy, q, NULL);
    size_t *order = result_order(r, q->sort, q->desc, q->top);
    uint8_t *keep = dfn_xcalloc(r->nrows, 1);
    for (size_t k = 0; k < q->top; k++) keep[order[k]] = 1;
    free(order);
    dfn_result_free(r);
    p = dfn_partial_pick(p, keep);
    free(keep);
    return p;
}

/* ---- the query ---- */

void dfn_query_window(const dfn_store *s, const dfn_filter *f, double *lo, double *hi)
{
    *lo = 0;
    *hi = (s->t1 - s->t0) / 1e6;
    dfn_filter_time_narrow(f, lo, hi);
}

void dfn_filter_time_narrow(const dfn_filter *f, double *lo, double *hi)
{
    for (size_t k = 0; f && k < f->n; k++) {
        const dfn_term *t = &f->terms[k];
        if (t->key != DFN_KEY_TIME) continue;
        if ((t->op == DFN_GE || t->op == DFN_GT) && t->num > *lo) *lo = t->num;
        if ((t->op == DFN_LT || t->op == DFN_LE) && t->num < *hi) *hi = t->num;
    }
    if (*hi < *lo) *hi = *lo;
}

/* A time bin is a row id, and a call a piece in every bin it runs
 * through. A window of more bins than ids would merge distant events into
 * one bin; and 1 µs bins over a 3-minute run made 180 M rows of one
 * 3-minute call, 9 GB before the kernel killed the process. So a window
 * of more bins than QUERY_MAX_BINS (2^22 rows of one call take about a
 * GB) is refused, with the bin it needs, when its calls' time could cut
 * them into more pieces than that; a wide window of short calls (a stray
 * ts 0 beside epoch times) makes a row for each of them at most, and
 * runs. */
#define QUERY_MAX_BINS (1u << 22)

/* Whether the calls of s, all of them (of its set, for a share), last
 * more than limit bins of bin_us (their pieces past one a call: an upper
 * bound). */
static bool calls_span_bins(const dfn_store *s, uint64_t bin_us, uint64_t limit)
{
    return (s->set_calls_us ? s->set_calls_us : dfn_store_calls_us(s)) > dfn_sat_mul(limit, bin_us);
}

static bool query_bins_fit(const dfn_store *s, const dfn_result *r, uint64_t bin_us, char *err, size_t errlen)
{
    bool timed = false;
    for (size_t d = 0; d < r->ndims; d++) timed |= r->dims[d].kind == DFN_DIM_TIME;
    double span_us = (r->win_hi_s - r->bin0_s) * 1e6, bins = span_us / (double)bin_us;
    if (!timed || bins <= (double)QUERY_MAX_BINS) return true;
    double limit = bins < (double)(UINT32_MAX - 2) ? QUERY_MAX_BINS : (double)(UINT32_MAX - 2);
    if (limit == QUERY_MAX_BINS && !calls_span_bins(s, bin_us, QUERY_MAX_BINS)) return true;
    snprintf(err, errlen, "bins of %g s cut this window of %.0f s into more than %.0f rows: --bin %g or more",
             bin_us / 1e6, span_us / 1e6, limit, ceil(span_us / limit) / 1e6);
    return false;
}

/* The matched calls that start before lo and run past it, in start
 * order; blocks of calls that all end by lo are passed over whole. */
static size_t *query_straddlers(const dfn_store *s, const dfn_match *m, uint64_t lo, size_t *n)
{
    size_t a = 0, b = s->n;   /* the first call starting at or after lo */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (dfn_store_ts(s, mid) < lo) a = mid + 1; else b = mid;
    }
    size_t *out = NULL, cap = 0, k = 0;
    for (size_t blk = 0; a && blk <= (a - 1) >> DFN_TS_BLOCK_SHIFT; blk++) {
        if (s->ts_reach[blk] <= lo) continue;
        size_t end = (blk + 1) << DFN_TS_BLOCK_SHIFT;
        for (size_t i = blk << DFN_TS_BLOCK_SHIFT; i < a && i < end; i++) {
            if (dfn_store_dur(s, i) <= lo - dfn_store_ts(s, i) || !dfn_match_event_anytime(m, i)) continue;
            dfn_grow((void **)&out, &cap, k + 1, sizeof *out);
            out[k++] = i;
        }
    }
    *n = k;
    return out;
}

bool dfn_query_inherits(const dfn_query *q)
{
    for (size_t d = 0; d < q->ndims; d++)
        if ((q->dims[d].kind == DFN_DIM_ARG && !q->dims[d].own) || q->dims[d].kind == DFN_DIM_PATH) return true;
    for (size_t k = 0; q->filter && k < q->filter->n; k++)
        if ((q->filter->terms[k].key == DFN_KEY_ARG && !q->filter->terms[k].own) || q->filter->terms[k].key == DFN_KEY_PATH)
            return true;
    return false;
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **dfn_query_arg_names(const dfn_store *s, const dfn_query *q, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    dfn_filter empty = {0};
    dfn_match *m = dfn_match_compile(s, q->layers, q->filter ? q->filter : &empty, err, errlen);
    if (!m) return NULL;
    dfn_match_set_tree(m, q->tree);
    /* the schemas of the selected events: their keys are the names */
    uint8_t *seen = dfn_xcalloc(s->nschemas ? s->nschemas : 1, 1);
    size_t lo, hi, left = s->nschemas;
    dfn_match_range(m, &lo, &hi);
    /* every event selected: every schema is some event's */
    if (!q->filter || q->filter->n == 0) {
        memset(seen, 1, s->nschemas);
        left = 0;
    }
    const uint8_t *rec = NULL, *end = s->args + s->args_len;
    for (size_t i = lo; i < hi && left; i++) {
        rec = i == lo ? dfn_store_args_at(s, i) : dfn_store_args_next(s, rec);
        if (!rec || !dfn_match_event_anytime(m, i)) continue;
        uint64_t sid;
        if (dfn_varint_get(rec, end, &sid) && sid < s->nschemas && !seen[sid]) { seen[sid] = 1; left--; }
    }
    dfn_strtab *names = dfn_strtab_new();
    for (size_t sc = 0; sc < s->nschemas; sc++)
        for (uint16_t j = 0; seen[sc] && j < s->schema_len[sc]; j++) {
            uint32_t key = s->schema_keys[sc][j];
            dfn_strtab_intern(names, dfn_store_str(s, key), dfn_strtab_len(s->strs, key));
        }
    *n = dfn_strtab_count(names);
    char **out = dfn_xmalloc((*n ? *n : 1) * sizeof *out);
    for (uint32_t k = 0; k < *n; k++) out[k] = dfn_xstrndup(dfn_strtab_str(names, k), dfn_strtab_len(names, k));
    if (*n) qsort(out, *n, sizeof *out, cmp_cstr);
    dfn_strtab_free(names);
    free(seen);
    dfn_match_free(m);
    return out;
}

/* Below this many events per thread, starting threads costs more than it saves. */
#define EVENTS_PER_THREAD 250000

/* q on s: its result, or (pout) the rows' partial, with a result frame
 * that the caller frees. */
static dfn_result *query_exec(const dfn_store *s, const dfn_query *q, dfn_partial **pout, char *err, size_t errlen)
{
    dfn_filter empty = {0};
    const dfn_filter *f = q->filter ? q->filter : &empty;
    if (dfn_query_inherits(q) && !q->tree) {
        snprintf(err, errlen, "arg.NAME (the argument of enclosing calls) and call paths come from the call tree, "
                              "which this query was not given (own.NAME reads the call's own)");
        return NULL;
    }
    dfn_match *m = dfn_match_compile(s, q->layers, f, err, errlen);
    if (!m) return NULL;
    dfn_match_set_tree(m, q->tree);
    dfn_match_set_only(m, q->only);
    dfn_result *r = dfn_xcalloc(1, sizeof *r);
    r->ndims = q->ndims;
    dfn_dims_copy(r->dims, q->dims, q->ndims);
    for (size_t d = 0; d < q->ndims; d++) {
        if (q->dims[d].kind == DFN_DIM_LAYER && !q->layers) {
            snprintf(err, errlen, "grouping by layer needs layers");
            dfn_match_free(m);
            dfn_result_free(r);
            return NULL;
        }
    }
    r->metrics = q->metrics ? q->metrics : DFN_M_BASIC;
    result_layout(r, r->metrics, q->asked_only);
    const char *missing = (r->metrics & DFN_M_OVERLAP) && !q->overlap ? "compute_s, io_busy_s, exposed_s and overlap_pct need a compute definition" :
                          (r->metrics & DFN_M_BIT(DFN_M_SELF_S)) && !q->tree ? "self_s needs the call tree" :
                          (r->metrics & DFN_M_BIT(DFN_M_SEQ_PCT)) && !q->access ? "seq_pct needs the access analysis" : NULL;
    if (missing) {
        snprintf(err, errlen, "%s", missing);
        dfn_match_free(m);
        dfn_result_free(r);
        return NULL;
    }
    r->tree = q->tree;
    r->access = q->access;
    r->overlap = q->overlap;
    r->set_compute = q->set_compute;
    r->vals = dfn_strtab_new();
    r->layers = q->layers ? dfn_layerset_layers(q->layers) : NULL;
    dfn_query_window(s, f, &r->win_lo_s, &r->win_hi_s);
    r->bin_s = q->bin_s > 0 ? q->bin_s : dfn_auto_bin(r->win_hi_s - r->win_lo_s);

    qctx c = { .s = s, .q = q, .r = r, .m = m, .time_dim = -1, .partial = pout != NULL };
    c.clip = dfn_match_window(m, &c.clip_lo, &c.clip_hi);
    if (!c.clip) c.clip_lo = 0, c.clip_hi = UINT64_MAX;
    for (size_t d = 0; d < q->ndims; d++) if (q->dims[d].kind == DFN_DIM_TIME) c.time_dim = (int)d;
    /* bins start at the window's exact edge, rounded down to their width */
    uint64_t lo_us = c.clip ? c.clip_lo : (uint64_t)llround(r->win_lo_s * 1e6);
    c.bin_us = (uint64_t)llround(r->bin_s * 1e6);
    if (c.bin_us == 0) c.bin_us = 1;
    r->bin_s = c.bin_us / 1e6;   /* the bins the events fall in, for labels and counts */
    c.win_lo_us = lo_us / c.bin_us * c.bin_us;   /* bins on multiples of their width */
    r->bin0_s = c.win_lo_us / 1e6;
    r->store = s;
    if (!query_bins_fit(s, r, c.bin_us, err, errlen)) {
        dfn_match_free(m);
        dfn_result_free(r);
        return NULL;
    }
    if (q->spark_bins) {
        c.spark_bins = dfn_query_spark_bins(q);
        c.spark_lo_us = lo_us;
        c.spark_span_us = (uint64_t)llround((r->win_hi_s - r->win_lo_s) * 1e6);
        /* the window the calls are cut to, exactly (time<=X holds X's µs) */
        if (c.clip && c.clip_hi != UINT64_MAX) c.spark_span_us = c.clip_hi > lo_us ? c.clip_hi - lo_us : 0;
        if (c.spark_span_us < c.spark_bins) c.spark_span_us = c.spark_bins;
        c.spark_dinv = (double)c.spark_bins / (double)c.spark_span_us;
        r->spark_bins = c.spark_bins;
    }
    ctx_prepare(&c);
    dfn_ctrindex *cix = NULL;
    if (q->ctrs && q->ctrs->n) {
        cix = dfn_ctrindex_build(s, q->ctrs->series, q->ctrs->n, c.proc_of_lane, c.nprocs, q->share, err, errlen);
        if (!cix) {
            ctx_free(&c);
            dfn_match_free(m);
            dfn_result_free(r);
            return NULL;
        }
        c.cix = cix;
        c.nctr = q->ctrs->n;
        c.need_extra = true;
    }
    c.need_any = c.need_busy || c.need_hist || c.need_procs || c.need_files || c.need_sums || c.need_extra;
    c.tiles = query_tiles(&c, &c.tile_sums);
    r->proc_lane = dfn_xmalloc((c.nprocs ? c.nprocs : 1) * sizeof *r->proc_lane);
    for (size_t l = s->nlanes; l-- > 0;) r->proc_lane[c.proc_of_lane[l]] = (uint32_t)l;
    bool by_event = r->ndims == 1 && r->dims[0].kind == DFN_DIM_EVENT;
    c.one_table = r->ndims == 1 && c.layer_dim < 0 && !c.has_arg && !by_event;
    size_t *strad = NULL;
    if (c.clip && c.clip_lo > 0 && !by_event) c.strad = strad = query_straddlers(s, m, c.clip_lo, &c.nstrad);

    size_t lo, hi;
    dfn_match_range(m, &lo, &hi);
    size_t span = hi - lo;
    int nt;
    if (q->threads > 0) {
        nt = (size_t)q->threads > span ? (int)span : q->threads;   /* as asked, even for few events */
    } else {
        nt = dfn_ncpus();
        if ((size_t)nt > span / EVENTS_PER_THREAD) nt = (int)(span / EVENTS_PER_THREAD);
    }
    if (nt < 1) nt = 1;
    if (nt > 64) nt = 64;
    part *parts = aligned_alloc(128, (size_t)nt * sizeof *parts);
    if (!parts) dfn_out_of_memory("allocating", (size_t)nt * sizeof *parts);
    for (int t = 0; t < nt; t++) {
        part_init(&parts[t], &c, lo + span * (size_t)t / (size_t)nt, lo + span * (size_t)(t + 1) / (size_t)nt, t > 0);
        if (by_event) parts[t].events = dfn_xmalloc(1024 * sizeof *parts[t].events), parts[t].eventcap = 1024;
    }
    dfn_parallel_each(parts, (size_t)nt, sizeof *parts, part_thread);
    /* merge in time order: the busy-time fix-up relies on it */
    for (int t = 1; t < nt; t++) {
        part_merge(&parts[0], &parts[t]);
        part_free(&parts[t]);   /* its rows are in the first part now: no two copies at the peak */
    }
    part *p = &parts[0];
    r->matched = p->matched;
    r->matched_calls = p->matched_calls;
    r->tiles_taken = p->tiles_taken;
    r->total_time_s = p->total / 1e6;
    r->total_us = p->total;
    if (p->spark_total) {
        /* one table: each event is in one row, so the rows add up to the total */
        for (size_t row = 0; c.one_table && row < p->nacc; row++)
            for (size_t k = 0; AX(&p->acc[row])->spark && k < c.spark_bins; k++) p->spark_total[k] += AX(&p->acc[row])->spark[k];
        for (size_t j = 0; c.one_table && j < p->spk[0].cap; j++)
            if (p->spk[0].k[j] != DFN_MAP64_EMPTY) p->spark_total[p->spk[0].k[j] & 0xffff] += p->spk[0].v[j];
        r->spark_total = dfn_xmalloc(c.spark_bins * sizeof *r->spark_total);
        for (size_t k = 0; k < c.spark_bins; k++) r->spark_total[k] = (double)p->spark_total[k];
    }
    if (by_event) {
        /* the events themselves are the rows: 4 bytes each, no accumulators */
        r->events = p->events;
        r->keys = (dfn_keyval *)r->events;
        r->nrows = p->nevents;
        p->events = NULL;
        free(r->spark);
        r->spark = NULL;   /* no row sparklines; spark_total stays */
    } else {
        if (r->ndims == 0 && p->nacc == 0) {   /* totals of nothing: one row of zeros */
            uint32_t none[1] = { 0 };
            part_row(p, none);
        }
        if (r->ndims == 1 && r->dims[0].kind == DFN_DIM_TIME) {
            /* a time series shows its gaps: every bin of the window is a row */
            double nb = ceil((r->win_hi_s - r->bin0_s) / r->bin_s - 1e-9);
            if (nb < 1) nb = 1;
            if (nb <= 10000)
                for (uint32_t b = 0; b < (uint32_t)nb; b++) part_row(p, &b);
        }
        if (pout) *pout = part_export(p, r);
        else part_finish(p, r);
    }
    part_free(&parts[0]);
    free(parts);
    free(strad);
    dfn_ctrindex_free(cix);
    ctx_free(&c);
    dfn_match_free(m);
    bool sorted_already = (by_event && q->sort < 0 && !q->desc) || pout;   /* events come in time order */
    if (r->nrows && (r->ndims || q->top) && !sorted_already)
        result_reorder(r, q->sort, q->desc, q->top ? q->top : r->nrows);
    else if (q->top && r->nrows > q->top)
        r->nrows = q->top;
    return r;
}

const char *dfn_result_key_str(const dfn_store *s, const dfn_result *r, size_t row, size_t dim,
                               char *buf, size_t cap, size_t *len)
{
    uint32_t id = dfn_result_key(r, row, dim)->id;
    uint32_t sid = DFN_NOID;
    const char *lit = NULL;
    int n = 0;
    dfn_dimkind kind = r->dims[dim].kind;
    if (r->keytext && !dfn_dim_numbered(kind) && kind != DFN_DIM_PID && kind != DFN_DIM_TID) {
        *len = dfn_strtab_len(r->keytext, id);   /* a partial's rows keep their text */
        return dfn_strtab_str(r->keytext, id);
    }
    switch (kind) {
    case DFN_DIM_TIME:   /* the bin's start, exactly: the bins are whole µs */
        n = (int)dfn_fmt_us_s(llround(r->bin0_s * 1e6) + (int64_t)id * llround(r->bin_s * 1e6), buf, cap);
        break;
    case DFN_DIM_PID: case DFN_DIM_TID:
        if (r->keytext && dfn_id_named(r->ints[id])) n = snprintf(buf, cap, "%s", result_id_name(r, r->ints[id]));
        else n = (int)dfn_id_text(s, r->ints[id], buf, cap);
        break;
    case DFN_DIM_EVENT: n = snprintf(buf, cap, "%u", id); break;
    case DFN_DIM_PATH: n = (int)dfn_calltree_path_text(r->tree, s, id, buf, cap); break;
    case DFN_DIM_PROC: sid = s->lanes[id].name; break;
    case DFN_DIM_FILE: sid = s->files[id].path; break;
    case DFN_DIM_CLASS: lit = dfn_class_name((dfn_class)id); break;
    case DFN_DIM_OP: lit = dfn_op_name((dfn_op)id); break;
    case DFN_DIM_LAYER: lit = r->layers ? dfn_layers_name(r->layers, id) : "?"; break;
    case DFN_DIM_SIZEBIN: lit = id < DFN_SIZEBIN_COUNT ? dfn_sizebin_name((int)id) : "-"; break;
    case DFN_DIM_ARG: case DFN_DIM_SIZE: *len = dfn_strtab_len(r->vals, id); return dfn_strtab_str(r->vals, id);
    default: sid = id; break;
    }
    if (sid != DFN_NOID) { *len = dfn_strtab_len(s->strs, sid); return dfn_store_str(s, sid); }
    if (lit) { *len = strlen(lit); return lit; }
    if (n < 0) n = 0;
    *len = (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
    return buf;
}

size_t dfn_result_key_text(const dfn_store *s, const dfn_result *r, size_t row, size_t dim, char *buf, size_t cap)
{
    size_t len;
    const char *t = dfn_result_key_str(s, r, row, dim, buf, cap, &len);
    if (t != buf && cap) {
        if (len >= cap) len = cap - 1;
        memmove(buf, t, len);
        buf[len] = 0;
    }
    return len;
}

void dfn_result_free(dfn_result *r)
{
    if (!r) return;
    if (r->events) free(r->events); else free(r->keys);
    free(r->m);
    free(r->spark);
    free(r->spark_total);
    free(r->spark_io);
    free(r->spark_cmp);
    free(r->sizes);
    free(r->ctr);
    free(r->ctr_samples);
    for (size_t k = 0; k < r->nctrs; k++) free(r->ctr_names[k]);
    free(r->proc_lane);
    free(r->proc_rank);
    free(r->ints);
    dfn_strtab_free(r->vals);
    dfn_strtab_free(r->keytext);
    dfn_evsamples_free(r->evsamples);
    dfn_evrowtab_free(r->evrowtab);
    free(r->proc_name);
    dfn_dims_free(r->dims, r->ndims);
    dfn_store_free(r->owned);
    free(r);
}

dfn_result *dfn_query_run(const dfn_store *s, const dfn_query *q, char *err, size_t errlen)
{
    return query_exec(s, q, NULL, err, errlen);
}

/* pct_time of r's rows as shares of the set's total (µs): a share's rows
 * sorted as the set's (sums_metrics' formula). */
static void rows_pct_of(dfn_result *r, uint64_t set_us)
{
    if (r->mcol[DFN_M_PCT_TIME] < 0 || r->mcol[DFN_M_TIME_S] < 0) return;
    r->total_time_s = set_us / 1e6;
    for (size_t row = 0; row < r->nrows; row++) {
        double t = *rm(r, row, DFN_M_TIME_S);
        *rm(r, row, DFN_M_PCT_TIME) = isinf(t) || !(r->total_time_s > 0) ? NAN : 100.0 * t / r->total_time_s;
    }
}

dfn_partial *dfn_query_partial_top(const dfn_store *s, const dfn_query *q, uint64_t (*total)(uint64_t own),
                                   char *err, size_t errlen)
{
    /* the share's rows whole, sorted and cut by the query itself (the
     * overlap metrics of the set's compute: q->set_compute); by
     * pct_time, once the set's total is known */
    bool pct = q->sort == DFN_M_PCT_TIME;
    dfn_query all = *q;
    if (pct) {
        all.top = 0;
        all.sort = -1;
        all.desc = false;
    }
    size_t ev = 0;   /* the calls' dimension */
    while (ev < q->ndims && q->dims[ev].kind != DFN_DIM_EVENT) ev++;
    if (ev == q->ndims) snprintf(err, errlen, "not a grouping of calls within other groups");
    dfn_result *r = ev < q->ndims && dfn_partial_supports(q, err, errlen) ? dfn_query_run(s, &all, err, errlen) : NULL;
    uint64_t set = total(r ? r->total_us : 0);
    if (!r) return NULL;
    if (pct) {
        rows_pct_of(r, set);
        dfn_result_sort_top(r, q->sort, q->desc, q->top);
    }
    uint64_t *only = dfn_xcalloc(s->n / 64 + 1, sizeof *only);
    for (size_t row = 0; row < r->nrows; row++) {
        uint32_t i = dfn_result_key(r, row, ev)->id;
        only[i >> 6] |= UINT64_C(1) << (i & 63);
    }
    /* their calls' partial: every row of those calls (a call in two
     * layers or bins is rows the set may keep too), and the share's own
     * totals, which the set's are the sum of */
    dfn_query kept = *q;
    kept.only = only;
    dfn_partial *p = dfn_query_partial(s, &kept, err, errlen);
    if (p) {
        p->total = r->total_us;
        p->matched = r->matched;
        p->matched_calls = r->matched_calls;
        /* (whole µs: the bins' sums, exact below 2^53 µs a bin) */
        for (size_t k = 0; r->spark_total && k < p->spark_bins; k++) p->spark_total[k] = (uint64_t)r->spark_total[k];
    }
    free(only);
    dfn_result_free(r);
    return p;
}

dfn_partial *dfn_query_partial(const dfn_store *s, const dfn_query *q, char *err, size_t errlen)
{
    if (!dfn_partial_supports(q, err, errlen)) return NULL;
    if (dfn_query_spark_split(q) && !q->overlap) {
        /* (a partial says it splits by what was asked: one that could not
         * would add nothing where others add compute) */
        snprintf(err, errlen, "sparklines of compute and I/O need a compute definition");
        return NULL;
    }
    for (size_t d = 0; d < q->ndims; d++)
        if (q->dims[d].kind == DFN_DIM_EVENT && (!q->place || !s->evsrc)) {
            snprintf(err, errlen, "the calls' files were not kept (a store loaded without sources)");
            return NULL;
        }
    dfn_partial *out = NULL;
    dfn_result *frame = query_exec(s, q, &out, err, errlen);
    dfn_result_free(frame);
    return out;
}
