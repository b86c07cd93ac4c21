/* dfnav queries: filter events, group them by one or more dimensions and
 * compute the metrics of each group. The explorer and `dfnav report` both
 * answer through dfn_query_run, so they always show the same rows. */
#ifndef DFNAV_QUERY_H
#define DFNAV_QUERY_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/access.h"
#include "dfnav/calltree.h"
#include "dfnav/filter.h"
#include "dfnav/match.h"
#include "dfnav/overlap.h"
#include "dfnav/store.h"
#include "dfnav/tiles.h"

#define DFN_MAX_DIMS 6

typedef enum {
    DFN_DIM_TIME, DFN_DIM_HOST, DFN_DIM_PID, DFN_DIM_TID, DFN_DIM_PROC, DFN_DIM_CAT,
    DFN_DIM_FUNC, DFN_DIM_CLASS, DFN_DIM_OP, DFN_DIM_LAYER, DFN_DIM_FILE, DFN_DIM_PATTERN,
    DFN_DIM_DIR, DFN_DIM_FS, DFN_DIM_SIZEBIN, DFN_DIM_ARG, DFN_DIM_EVENT, DFN_DIM_TYPE, DFN_DIM_RANK, DFN_DIM_PART,
    DFN_DIM_SIZE,             /* the exact bytes of a read or write ("" for other calls) */
    DFN_DIM_PATH,             /* the call path, "outer;inner;call" (needs the call tree) */
    DFN_DIM_COUNT
} dfn_dimkind;

typedef struct {
    dfn_dimkind kind;
    char *arg;                /* NAME of arg.NAME */
    bool own;                 /* own.NAME: the call's own argument, none inherited */
} dfn_dim;

typedef enum {
    DFN_M_COUNT, DFN_M_TIME_S, DFN_M_BUSY_S, DFN_M_MAX_PROC_S, DFN_M_BYTES, DFN_M_BW_MIBPS,
    DFN_M_OPS_PER_S, DFN_M_MEAN_US, DFN_M_P50_US, DFN_M_P90_US, DFN_M_P99_US, DFN_M_MAX_US,
    DFN_M_FILES, DFN_M_PROCS, DFN_M_PCT_TIME,
    /* analysis metrics: computed only when asked for, from the indexes
     * the query is given (overlap, call tree, access) */
    DFN_M_COMPUTE_S, DFN_M_IO_BUSY_S, DFN_M_EXPOSED_S, DFN_M_OVERLAP_PCT, DFN_M_SELF_S,
    DFN_M_SEQ_PCT, DFN_M_SHARED_FILES, DFN_M_MAX_PROC,
    /* calls of the row that come from aggregated records (2.x ph 3):
     * their busy time, overlap, percentiles and access are estimates */
    DFN_M_AGG_CALLS,
    /* the spread of a row across the processes (host + pid) that have it:
     * least, mean and population standard deviation of their summed time,
     * and the largest and mean of their bytes */
    DFN_M_MIN_PROC_S, DFN_M_MEAN_PROC_S, DFN_M_STD_PROC_S, DFN_M_MAX_PROC_BYTES, DFN_M_MEAN_PROC_BYTES,
    /* bytes per call of the row's reads and writes: mean, median (from a
     * histogram, under 1% relative error), least and largest; an
     * aggregated record counts its calls at their mean size */
    DFN_M_SIZE_MEAN, DFN_M_SIZE_P50, DFN_M_SIZE_MIN, DFN_M_SIZE_MAX,
    /* calls that overlap the row's time (count: those that start in it) */
    DFN_M_ACTIVE,
    /* the row's time range (its time bin, else the window) less its busy
     * time: the gaps with none of its calls running */
    DFN_M_IDLE_S,
    DFN_M_COUNT_
} dfn_metric;

#define DFN_M_BIT(m) (UINT64_C(1) << (m))
_Static_assert(DFN_M_COUNT_ <= 64, "a query's metrics are a 64-bit mask");
/* What a query computes when it names no metrics: everything but the
 * analysis metrics. */
#define DFN_M_BASIC (DFN_M_BIT(DFN_M_COMPUTE_S) - 1)
#define DFN_M_OVERLAP (DFN_M_BIT(DFN_M_COMPUTE_S) | DFN_M_BIT(DFN_M_IO_BUSY_S) | DFN_M_BIT(DFN_M_EXPOSED_S) | \
                       DFN_M_BIT(DFN_M_OVERLAP_PCT))

/* Counter metrics, ctr.SERIES (ctr.cpu.iowait_pct, ctr.gpu_utilization):
 * the mean of the series' samples taken while the row's calls ran, on
 * their process (samples of a process with calls) or their host (samples
 * of processes without calls, such as DFTracer's telemetry service); a
 * sample counts once per row. Counter k of a query is metric id
 * DFN_M_COUNT_ + k wherever metrics are ids (columns, sorting). */
#define DFN_MAX_CTRS 8
typedef struct {
    char *series[DFN_MAX_CTRS];
    size_t n;
} dfn_ctrs;
void dfn_ctrs_free(dfn_ctrs *c);

const char *dfn_metric_name(dfn_metric m);
int dfn_metric_parse(const char *s, size_t len);   /* -1 when unknown */
/* A list of metric names and groups (basic, overlap, analysis, all), each
 * added, or removed with a leading '-'; a list starting with '+' adds to
 * basic. ctr.SERIES go to ctrs (NULL: refused). Returns false with a
 * message. */
bool dfn_metrics_parse(const char *text, uint64_t *out, dfn_ctrs *ctrs, char *err, size_t errlen);
const char *dfn_dim_name(const dfn_dim *d, char *buf, size_t cap);
/* "file,func" or "file func"; dims get malloc'd arg names. */
bool dfn_dims_parse(const char *text, dfn_dim *dims, size_t *n, char *err, size_t errlen);
void dfn_dims_free(dfn_dim *dims, size_t n);
/* n dimensions into to, each with its own copy of its argument name. */
void dfn_dims_copy(dfn_dim *to, const dfn_dim *from, size_t n);
/* Whether rows of dimension k are keyed by a number every store gives
 * alike (a layer of one layer set, an I/O class, an op, a size bin, a
 * time bin of stores of one span), rather than by text whose ids are a
 * store's own. */
bool dfn_dim_numbered(dfn_dimkind k);
/* The filter key whose equality selects a row of dimension k, or
 * DFN_KEY_COUNT (time, event and size have none). */
dfn_key dfn_dim_key(dfn_dimkind k);
/* Adds to f the term that selects the rows of dimension d with this key
 * text, as a drill does (arg.NAME with its own flag); false, adding
 * nothing, for time, event and size, whose rows no equality selects. */
bool dfn_dim_term_add(dfn_filter *f, const dfn_dim *d, const char *key, size_t len);

/* The most sparkline bins a query makes: more are taken as this many. */
#define DFN_SPARK_BINS_MAX 4096

typedef struct {
    dfn_dim dims[DFN_MAX_DIMS];
    size_t ndims;             /* 0: one row of totals */
    const dfn_filter *filter; /* may be NULL */
    const dfn_layerset *layers;
    double bin_s;             /* time bin width; 0 = chosen from the window */
    int sort;                 /* metric, or -1 for the group key */
    bool desc;
    size_t top;               /* 0 = all rows */
    uint64_t metrics;         /* bit per dfn_metric to compute; 0 = all */
    int threads;              /* 0 = one per online core; results never depend on it */
    size_t spark_bins;        /* > 0: each row's time per bin over the window (sparklines), at most DFN_SPARK_BINS_MAX */
    bool spark_split;         /* also each row's compute and I/O time per bin (needs overlap) */
    bool sizes;               /* each row's transfer-size histogram */
    const dfn_overlap *overlap;   /* compute_s io_busy_s exposed_s overlap_pct */
    const dfn_calltree *tree;     /* self_s */
    const dfn_access *access;     /* seq_pct */
    const dfn_tiles *tiles;       /* pre-aggregated sums the scans may take (tiles.h); never changes a figure */
    const dfn_ctrs *ctrs;         /* counter metrics, or NULL */
    /* the store is a share of a set (an MPI rank's): a counter series it
     * lacks has no sample here rather than being unknown (the caller
     * checks the set has it) */
    bool share;
    /* a share's calls: whether compute matched any event of the set (1
     * yes, -1 none: the overlap metrics of a call are undefined), as the
     * set's count says; 0: this store's own count */
    int8_t set_compute;
    /* keep only the metrics asked for, not also those every row gets (a
     * result read for a few of them, such as the explorer's status line
     * facts: 80 bytes a row less) */
    bool asked_only;
    /* a share's partial of calls within other groups (dfn_query_partial
     * of --by func,event): each of the store's files' place among the
     * set's files, which orders its calls as the set's store does (the
     * store keeps its events' files) */
    const uint32_t *place;
    /* the events the query may take at all, a bit each by store index
     * (the calls of the rows a share keeps: dfn_query_partial_top); NULL:
     * every one its filter passes */
    const uint64_t *only;
} dfn_query;

/* The sparkline bins q makes. */
static inline size_t dfn_query_spark_bins(const dfn_query *q)
{
    return q->spark_bins > DFN_SPARK_BINS_MAX ? DFN_SPARK_BINS_MAX : q->spark_bins;
}
/* Whether q asks for its sparklines split into compute and I/O (which
 * a query makes only with the overlap). */
static inline bool dfn_query_spark_split(const dfn_query *q)
{
    return q->spark_split && q->spark_bins;
}

typedef struct {
    uint32_t id;              /* string id, value index, bin, layer or event index */
} dfn_keyval;

typedef struct {
    size_t nrows, ndims;
    dfn_dim dims[DFN_MAX_DIMS];
    dfn_keyval *keys;         /* nrows * ndims */
    /* nrows * mw: of each row, the metrics the query kept (mcol[m], -1
     * for those it did not: read as NaN); NULL for events */
    double *m;
    size_t mw;
    int8_t mcol[DFN_M_COUNT_];
    double msink;             /* where the query's passes drop a metric not kept */
    uint32_t *events;         /* grouping by event: the events, no other row data */
    const dfn_store *store;
    size_t spark_bins;
    double *spark;            /* nrows * spark_bins: µs of each row in each bin */
    double *spark_total;      /* spark_bins: µs of all matched events in each bin */
    double bin_s, win_lo_s, win_hi_s;   /* time bins and the window they cover */
    /* Where bin 0 starts: the window's start rounded down to a multiple of
     * bin_s from the trace start, so that edges stay round (3.0, 3.5, ...)
     * whatever the window; the first bin may begin before the window. */
    double bin0_s;
    double total_time_s;      /* sum of durations of all matched events */
    uint64_t total_us;        /* the same in whole µs (saturating) */
    size_t overflow_rows;     /* rows with a sum past 2^64: shown as inf */
    uint64_t matched;
    uint64_t matched_calls;   /* the calls they stand for (aggregated records count theirs) */
    size_t tiles_taken;       /* tiles (tiles.h) whose sums stood for their calls: what tests check, not shown */
    int64_t *ints;            /* pid / tid values by index */
    struct dfn_strtab *vals;  /* arg.NAME values */
    const dfn_layers *layers;
    uint64_t metrics;         /* which metrics were computed */
    double *spark_io, *spark_cmp;   /* nrows * spark_bins, with spark_split */
    uint64_t *sizes;          /* nrows * DFN_SIZEBIN_COUNT calls, with sizes */
    uint32_t *proc_lane;      /* a lane of each process index (max_proc) */
    /* max_proc's order, made when rows are first sorted by it: the rank
     * of each process number rows name by its text, as text keys sort
     * (a store's numbers and a merge's differ; their texts do not) */
    uint32_t *proc_rank;
    size_t nproc_rank;
    const dfn_calltree *tree;
    const dfn_access *access;
    const dfn_overlap *overlap;
    int8_t set_compute;       /* the query's (dfn_query) */
    /* counter metrics: nrows * nctrs means (NaN: no sample in the row's
     * calls), with their names and the samples each mean is of */
    size_t nctrs;
    char *ctr_names[DFN_MAX_CTRS];
    double *ctr;
    uint64_t *ctr_samples;
    /* the rows of merged partial results (partial.h): every key but a
     * layer, class, op or size bin is an id of this text, and max_proc an
     * index of proc_name (text ids); store is NULL */
    struct dfn_strtab *keytext;
    uint32_t *proc_name;
    size_t nproc_names;
    /* calls merged from shares (evrows.h): the set has aggregated
     * records, so its calls show the calls each stands for; their form
     * (dfn_evform); the counter samples the shares sent with them, for
     * Chrome output (evsamples.c) */
    bool merged_agg;
    int merged_form;
    struct dfn_evsamples *evsamples;
    /* extract's form: the rows' bytes as the merge holds them, in order
     * (no key texts: they are never sorted) */
    struct dfn_evrowtab *evrowtab;
    /* a store the result holds and frees (store is it): a remote run's
     * calls, loaded here from what its holders sent (remote.h) */
    dfn_store *owned;
} dfn_result;

dfn_result *dfn_query_run(const dfn_store *s, const dfn_query *q, char *err, size_t errlen);
/* Whether q has arg.NAME in its dimensions or filter, which needs the
 * call tree: a call without the argument takes it from the innermost
 * enclosing call of its lane that has it (own.NAME does not). */
bool dfn_query_inherits(const dfn_query *q);
/* A row's key text whole (malloc'd, *len its length): for call paths,
 * which can be longer than any buffer; others as dfn_result_key_str. */
char *dfn_result_key_dup(const dfn_result *r, size_t row, size_t dim, size_t *len);
/* The names of the arguments the events q's filter selects have, sorted
 * (malloc'd, each malloc'd; *n of them), or NULL with a message. */
char **dfn_query_arg_names(const dfn_store *s, const dfn_query *q, size_t *n, char *err, size_t errlen);
/* A metric of one event as a row of its own. */
double dfn_event_metric(const dfn_result *r, uint32_t event, dfn_metric m);
static inline double dfn_result_metric(const dfn_result *r, size_t row, dfn_metric m)
{
    if ((int)m >= DFN_M_COUNT_)   /* a counter metric; calls have none */
        return r->events || (size_t)m - DFN_M_COUNT_ >= r->nctrs ? NAN : r->ctr[row * r->nctrs + ((size_t)m - DFN_M_COUNT_)];
    if (r->events) return dfn_event_metric(r, r->events[row], m);
    return r->mcol[m] < 0 ? NAN : r->m[row * r->mw + (size_t)r->mcol[m]];
}
/* Every metric of a row, by metric id (NaN for those not kept). */
void dfn_result_row_full(const dfn_result *r, size_t row, double out[DFN_M_COUNT_]);
/* The name of metric m in r's columns: counter metrics are ctr.SERIES. */
const char *dfn_result_metric_name(const dfn_result *r, int m);
/* r->proc_rank, made once (before rows are sorted by max_proc). */
void dfn_result_rank_procs(dfn_result *r);
/* Where row's max_proc sorts among r's rows' (its rank by text), NaN
 * without one or before dfn_result_rank_procs: what a sort by max_proc
 * compares. */
double dfn_result_max_proc_rank(const dfn_result *r, size_t row);
/* Text of a metric that is not a number (max_proc: "host/pid"); NULL for
 * numeric metrics. Undefined values (NaN: overlap without I/O, a share of
 * nothing) are written "" by the caller's rules. */
const char *dfn_result_metric_str(const dfn_result *r, size_t row, dfn_metric m, char *buf, size_t cap);
/* ... whole, however long (malloc'd), or NULL as above. */
char *dfn_result_metric_dup(const dfn_result *r, size_t row, dfn_metric m);
/* The order of two metric values in a sort: undefined values (NaN) last
 * either way; 0 when equal or both undefined, for the caller's ties. */
static inline int dfn_metric_order(double x, double y, bool desc)
{
    bool nx = x != x, ny = y != y;
    if (nx != ny) return nx ? 1 : -1;
    if (nx || x == y) return 0;
    return (x < y) == desc ? 1 : -1;
}
/* Sorts the rows again (metric, or -1 for the key); ties go by key. */
void dfn_result_sort(dfn_result *r, int metric, bool desc);
/* ... and keeps the first keep of them (0: all). */
void dfn_result_sort_top(dfn_result *r, int metric, bool desc, size_t keep);
static inline const dfn_keyval *dfn_result_key(const dfn_result *r, size_t row, size_t dim) { return &r->keys[row * r->ndims + dim]; }
/* Text of one key: file path, "host/pid/tid", bin start seconds ...
 * key_str returns the stored string itself (any length) or formats a
 * number into buf; key_text always copies into buf, truncating. */
const char *dfn_result_key_str(const dfn_store *s, const dfn_result *r, size_t row, size_t dim,
                               char *buf, size_t cap, size_t *len);
size_t dfn_result_key_text(const dfn_store *s, const dfn_result *r, size_t row, size_t dim, char *buf, size_t cap);
void dfn_result_free(dfn_result *r);

/* Orders the keys of row ra of a and row rb of b, which may be results of
 * different stores (calls then go by time from each store's start). */
int dfn_result_key_cmp(const dfn_result *a, size_t ra, const dfn_result *b, size_t rb);
/* The window a query covers on s: seconds from the store's start, from
 * the filter's time terms. */
void dfn_query_window(const dfn_store *s, const dfn_filter *f, double *lo, double *hi);
/* Narrows [*lo, *hi] (seconds from the start) by f's time terms. */
void dfn_filter_time_narrow(const dfn_filter *f, double *lo, double *hi);

/* The least time bin of 1, 2 or 5 x 10^k µs (up to 10^9 s) that cuts a
 * window of span_s seconds into at most max_bins, decided in whole µs as
 * windows are: the query's default (60 bins), the explorer's (a row each). */
double dfn_bin_fit(double span_s, uint64_t max_bins);
/* The time bin the query would choose for a window of span_s seconds: at
 * most 60 bins; 1 s for an empty window. */
double dfn_auto_bin(double span_s);

#endif
