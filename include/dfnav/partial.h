/* dfnav partial results: what one share of a trace set adds to each row of
 * a query, kept as the sums, latency buckets, per-process sums, files and
 * busy segments the row's metrics are made of, with keys, processes and
 * files by their text. Partials of disjoint shares of a set's events (the
 * ranks of an MPI job, each holding its own store) merge into the
 * partial of their union, which finishes into the very rows one process
 * gets from the whole set: sums add, buckets add, a process's sums add,
 * files and busy segments unite. They travel as bytes (versioned, every
 * field checked on the way in).
 *
 * The analysis metrics (self_s, seq_pct, compute_s, io_busy_s,
 * exposed_s, overlap_pct) and arguments inherited from enclosing calls
 * read each process's call tree, access patterns and compute whole: their
 * partials merge exactly only from shares that each hold whole processes
 * (with compute united by host, whole hosts), which the caller checks
 * (MPI's plan keeps a process's files on one rank, and its load says
 * whether they were). Counter metrics take the samples of a host's
 * telemetry for its processes' calls: they need whole hosts, and the
 * query's share flag (a series a share lacks is the set's to refuse).
 *
 * Call paths read each process's call tree too: whole processes.
 *
 * A call is a key within other groups (report --by func,event): its
 * bytes (dfnav/evrows.h), which order it as the set's store does and
 * carry the fields report prints; the query needs each file's place
 * (dfn_query's place) and a store that keeps its events' files.
 *
 * Sparklines add up bin by bin: a call's µs in each bin are the same in
 * any share that holds it, once shares span the set (dfn_store_rebase).
 * Split into compute and I/O (spark_split), the compute line is each of
 * a row's processes' compute in the bin: whole processes again.
 *
 * A query whose metrics or terms need more than these (calls alone,
 * which merge as rows of calls) has no partial: dfn_partial_supports
 * says why. */
#ifndef DFNAV_PARTIAL_H
#define DFNAV_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/ctrindex.h"
#include "dfnav/map64.h"
#include "dfnav/query.h"
#include "dfnav/strtab.h"

/* A log of segments (row, start, end), a few bytes each: the row, the
 * start less the last one's (zigzag) and the length, as varints. What a
 * query's scan keeps of each union while the store is there; expanded
 * into a partial's segments once it is not. */
typedef struct { uint8_t *b; size_t len, cap, n; uint64_t last; } dfn_seglog;
void dfn_seglog_add(dfn_seglog *l, uint64_t row, uint64_t s, uint64_t e);
/* The entry at *pos (from 0), read past; false at the end. *last starts
 * at 0 and follows the reads. */
bool dfn_seglog_next(const dfn_seglog *l, size_t *pos, uint64_t *last, uint64_t *row, uint64_t *s, uint64_t *e);
void dfn_seglog_free(dfn_seglog *l);

/* A row's sums that passed 2^64 and stay there, flagged, so that they
 * show as inf and never as a wrapped sum. */
enum { DFN_OVF_COUNT = 1, DFN_OVF_DUR = 2, DFN_OVF_BYTES = 4, DFN_OVF_AGG = 8 };

/* One row's sums, as the query's accumulator holds them. */
typedef struct {
    uint64_t count, dur, bytes, maxdur, agg;
    uint64_t out_calls, out_us, cut_us;   /* pieces of calls from before the row, and past it */
    uint64_t szn, szsum;                  /* reads and writes: calls and bytes */
    double szmin, szmax;                  /* their least and largest bytes a call (szn > 0) */
    uint64_t busy;                        /* busy µs already united (dfn_partial_sum_busy): it adds */
    uint8_t full;                         /* DFN_OVF_*: sums that passed 2^64 */
    /* analysis metrics: self µs; sequential and random transfers; I/O,
     * exposed I/O and compute µs, each a sum over the row's processes */
    uint64_t self, seq, rnd;
    uint64_t io_us, exposed_us, compute_us;
} dfn_rowsums;

/* A process: its host's text and pid (the order proc_before gives). */
typedef struct { uint32_t host; int64_t pid; uint32_t name; } dfn_pproc;

/* The time a query's rows cover, in µs from the store's start: its
 * window [clip_lo, clip_hi) within the store's span, and time bins of
 * bin µs from bin_lo (idle time is this less the row's busy time). */
typedef struct {
    uint64_t clip_lo, clip_hi, span, bin_lo, bin;
} dfn_stretch;

#define DFN_PARTIAL_MANY (UINT64_C(1) << 63)

typedef struct dfn_partial {
    size_t ndims;
    dfn_dim dims[DFN_MAX_DIMS];
    uint64_t metrics;         /* what the query asked for */
    dfn_strtab *text;         /* key texts, hosts, process names ("host/pid"), file paths */
    /* rows: ndims key ids each (text ids; layer, class, op and size bin
     * rows keep their number, the same in every share), found by the
     * bytes of those ids. A pid's or tid's text is '#' and its number or
     * '=' and its name (a store keeps either); a call path's its whole
     * text, escaped (dfn_calltree_path_text), which sorts as the tree */
    dfn_strtab *rowkeys;
    uint32_t *keys;
    dfn_rowsums *sums;
    size_t nrows, keycap, sumcap;
    /* processes, found by host id and pid */
    dfn_strtab *prockeys;
    dfn_pproc *procs;
    size_t nprocs, proccap;
    dfn_map64 hist;           /* row << 16 | latency bucket -> calls */
    dfn_map64 procsum;        /* row << 32 | process -> µs */
    dfn_map64 procbytes;      /* row << 32 | process -> bytes */
    dfn_map64 files;          /* row << 32 | path text id -> 1 */
    dfn_map64 szh;            /* row << 16 | size bucket -> read and write calls */
    /* row << 32 | path text id -> the one process + 1 that used the file
     * in the row, or DFN_PARTIAL_MANY: more than one (shared_files) */
    dfn_map64 share;
    bool sizes;               /* the query's transfer-size histograms (dfn_query's sizes): */
    dfn_map64 sizebins;       /* row << 8 | size bin -> calls */
    /* busy segments [s, e) in absolute µs, by row, as the query, a
     * merge, a slice and the bytes give them: united only by the finish
     * (dfn_partial_sum_busy), which alone expands them */
    dfn_seglog log;
    uint64_t total;           /* µs of every matched call (saturating) */
    uint64_t matched, matched_calls;
    /* the query's window and bins in seconds from the store's start (as
     * dfn_result's): rows of time bins are numbered from them, so shares
     * merge only with the same ones (bin_s 0: a share without a store,
     * which takes the others'); timed: the query has time bins or terms,
     * its own or its layers' (its rows count from the store's start), or
     * metrics of the window (idle_s, compute_s) */
    double win_lo_s, win_hi_s, bin_s, bin0_s;
    bool timed;
    dfn_stretch stretch;      /* the same window in µs, for idle time and compute */
    /* events the compute definition matched, over the shares: none
     * leaves compute_s, exposed_s and overlap_pct undefined */
    uint64_t ncompute;
    /* counter metrics (the query's ctrs, nctr of them): row << 8 | series
     * -> samples, and the fixed-point sum of their values (ctrindex.h) as
     * its low and high 64 bits, which add exactly in any order */
    size_t nctr;
    dfn_map64 ctrn, ctrlo, ctrhi;
    /* sparklines (the query's spark_bins, as the query takes them): row
     * << 16 | bin -> µs of the row's calls in the bin, and spark_total,
     * of every matched call (spark_bins of them; NULL without). Bins
     * count from the window, so shares merge only with the same one. */
    size_t spark_bins;
    dfn_map64 spark;
    uint64_t *spark_total;
    /* split sparklines (dfn_query_spark_split), keyed as spark: each
     * row's I/O µs, and its processes' compute µs, in each bin */
    bool spark_split;
    dfn_map64 spark_io, spark_cmp;
} dfn_partial;

/* Notes that process proc + 1 (or DFN_PARTIAL_MANY) used the file of key
 * in a share map: more than one process makes it DFN_PARTIAL_MANY. */
static inline void dfn_partial_share_put(dfn_map64 *m, uint64_t key, uint64_t v)
{
    uint64_t *slot = dfn_map64_slot(m, key);
    if (!*slot) *slot = v;
    else if (*slot != v) *slot = DFN_PARTIAL_MANY;
}
/* Whether q has a partial; false with why (a caller runs the query whole).
 * Time bins and time terms count from each store's start: shares of a
 * set answer them as the set does once each is rebased to the set's span
 * (dfn_store_rebase), and partials of different windows do not merge. */
bool dfn_partial_supports(const dfn_query *q, char *err, size_t errlen);
/* q's partial of store s; NULL with a message. */
dfn_partial *dfn_query_partial(const dfn_store *s, const dfn_query *q, char *err, size_t errlen);
/* The rows of a merged partial as q's result, sorted and cut to q->top
 * as dfn_query_run does; p is spent. The result's keys and max_proc are
 * text of its own (r->keytext), not of a store; layer rows are named by
 * layers (which must outlive the result; NULL without layer rows), so no
 * store nor its layers' index need stay. */
dfn_result *dfn_partial_finish(dfn_partial *p, const dfn_query *q, const dfn_layers *layers, char *err,
                               size_t errlen);
/* Whether p is a partial of q (its dimensions and metrics). */
bool dfn_partial_is_of(const dfn_partial *p, const dfn_query *q);
/* Adds from into into (the same query's partials); from is spent. */
bool dfn_partial_merge(dfn_partial *into, dfn_partial *from, char *err, size_t errlen);
/* The rows of p that keep marks (a byte a row), with all they hold, and
 * p's totals (what it matched, its time, its compute); p is spent. */
dfn_partial *dfn_partial_pick(dfn_partial *p, const uint8_t *keep);
/* p (of q, whose rows each hold calls of one share, their busy time
 * united: calls within other groups) cut to its first q->top rows as
 * the set's rows sort, with the set's total µs and compute events: a
 * merge of such partials up a tree of ranks keeps no more. p is spent. */
dfn_partial *dfn_partial_cut(dfn_partial *p, const dfn_query *q, uint64_t set_total, uint64_t set_ncompute);
/* q's partial of calls within other groups (report --by func,event) on
 * share s, of only the rows that can be among the set's first q->top
 * (q->top > 0): s's rows are found, sorted and cut first, as the set's
 * would be (q->set_compute: whether compute matched any call of the set;
 * total: given this share's µs, the set's, which pct_time is of: an MPI
 * sum, called once whatever happens), then the partial made of their
 * calls alone, with s's own totals. A row's calls
 * lie in one share, so the set's first rows are among those of the
 * shares' partials. NULL with a message (total called all the same). */
dfn_partial *dfn_query_partial_top(const dfn_store *s, const dfn_query *q, uint64_t (*total)(uint64_t own),
                                   char *err, size_t errlen);

/* Bytes of p (malloc'd, *len of them). */
uint8_t *dfn_partial_encode(const dfn_partial *p, size_t *len);
/* A partial from bytes of dfn_partial_encode; NULL with a message when
 * they are not one (cut, wrong version, an id out of range). */
dfn_partial *dfn_partial_decode(const uint8_t *buf, size_t len, char *err, size_t errlen);
void dfn_partial_free(dfn_partial *p);

/* Building one (the query engine): */
dfn_partial *dfn_partial_new(const dfn_query *q);
/* The row of these key ids, added with zero sums when new. */
size_t dfn_partial_row(dfn_partial *p, const uint32_t *keys);
uint32_t dfn_partial_text(dfn_partial *p, const char *s, size_t len);
/* Adds a row's sums (saturating, as the query's merge of its threads). */
void dfn_partial_add(dfn_partial *p, size_t row, const dfn_rowsums *add);
/* Adds n samples of counter k summing sum (ctrindex.h's fixed point) to a row. */
void dfn_partial_ctr_add(dfn_partial *p, size_t row, size_t k, uint64_t n, dfn_ctrsum sum);
/* The sum kept under key (row << 8 | k) of ctrlo and ctrhi. */
dfn_ctrsum dfn_partial_ctr_sum(const dfn_partial *p, uint64_t key);
/* The process of (host text, pid) named name, added when new. */
uint32_t dfn_partial_proc(dfn_partial *p, uint32_t host, int64_t pid, const char *name, size_t len);

/* Busy time across shares without one rank holding every segment: the
 * time is cut into slices, each rank gathers every share's segments of
 * one slice (dfn_partial_slice: p's rows with their segments cut to
 * [lo, hi), and nothing else), unites them and keeps their lengths as
 * sums (dfn_partial_sum_busy), which add up across slices exactly as the
 * union of the whole would. The rows' own partials then drop their
 * segments (dfn_partial_drop_segs) and merge without them. */
dfn_partial *dfn_partial_slice(dfn_partial *p, uint64_t lo, uint64_t hi);
void dfn_partial_sum_busy(dfn_partial *p);
void dfn_partial_drop_segs(dfn_partial *p);
/* Up to max starts of p's segments, evenly spaced among them, each
 * standing for *weight segments: a sample of where they lie in time. */
size_t dfn_partial_starts(const dfn_partial *p, size_t max, uint64_t *at, uint64_t *weight);

#endif
