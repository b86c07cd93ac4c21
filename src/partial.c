/* Partial results (see partial.h): building one row by row, merging two,
 * and their bytes. The query engine fills them (dfn_query_partial) and
 * makes rows of them (dfn_partial_finish), both in query.c, which owns
 * the formulas of the metrics. */
#include "dfnav/partial.h"
#include "dfnav/evrows.h"
#include "dfnav/ioclass.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "DFNP" and the layout's version: a rank of another build is refused. */
#define PARTIAL_MAGIC UINT64_C(0x504e4644)
#define PARTIAL_VERSION 9

/* a sparkline's bin is the low 16 bits of its key */
_Static_assert(DFN_SPARK_BINS_MAX <= 0x10000, "sparkline bins fit their keys");

/* Key kinds whose rows merge across shares: all but events, which are
 * calls of one share. (Time bins merge by number, from the set's start;
 * pids and tids as a number or a name, call paths by their whole text:
 * see partial.h.) */
static bool dim_mergeable(const dfn_query *q, dfn_dimkind k)
{
    /* calls alone merge as rows of calls (evrows.h); within other
     * groups, a call is a key like any other (its bytes of evrows.h) */
    return k != DFN_DIM_EVENT || q->ndims > 1;
}

bool dfn_partial_supports(const dfn_query *q, char *err, size_t errlen)
{
    /* (the analysis metrics from shares of whole processes: see partial.h) */
    static const uint64_t ok = DFN_M_BASIC | DFN_M_BIT(DFN_M_MAX_PROC) | DFN_M_BIT(DFN_M_AGG_CALLS) | DFN_M_OVERLAP |
        DFN_M_BIT(DFN_M_SELF_S) | DFN_M_BIT(DFN_M_SEQ_PCT) |
        DFN_M_BIT(DFN_M_MIN_PROC_S) | DFN_M_BIT(DFN_M_MEAN_PROC_S) | DFN_M_BIT(DFN_M_STD_PROC_S) |
        DFN_M_BIT(DFN_M_MAX_PROC_BYTES) | DFN_M_BIT(DFN_M_MEAN_PROC_BYTES) | DFN_M_BIT(DFN_M_SIZE_MEAN) |
        DFN_M_BIT(DFN_M_SIZE_P50) | DFN_M_BIT(DFN_M_SIZE_MIN) | DFN_M_BIT(DFN_M_SIZE_MAX) | DFN_M_BIT(DFN_M_ACTIVE) |
        DFN_M_BIT(DFN_M_IDLE_S) | DFN_M_BIT(DFN_M_SHARED_FILES);
    uint64_t m = q->metrics ? q->metrics : DFN_M_BASIC;
    const char *why = NULL;
    for (size_t d = 0; d < q->ndims && !why; d++)
        if (!dim_mergeable(q, q->dims[d].kind)) why = "events are not merged across shares";
    if (!why && (m & ~ok)) why = "these metrics are not merged across shares";
    if (why) snprintf(err, errlen, "%s", why);
    return !why;
}

dfn_partial *dfn_partial_new(const dfn_query *q)
{
    dfn_partial *p = dfn_xcalloc(1, sizeof *p);
    p->ndims = q->ndims;
    dfn_dims_copy(p->dims, q->dims, q->ndims);
    p->metrics = q->metrics ? q->metrics : DFN_M_BASIC;
    p->sizes = q->sizes;
    p->nctr = q->ctrs ? q->ctrs->n : 0;
    p->spark_bins = dfn_query_spark_bins(q);
    if (p->spark_bins) p->spark_total = dfn_xcalloc(p->spark_bins, sizeof *p->spark_total);
    p->spark_split = dfn_query_spark_split(q);
    p->text = dfn_strtab_new();
    p->rowkeys = dfn_strtab_new();
    p->prockeys = dfn_strtab_new();
    dfn_map64 *maps[] = { &p->hist, &p->procsum, &p->procbytes, &p->files, &p->szh, &p->sizebins, &p->share,
                          &p->ctrn, &p->ctrlo, &p->ctrhi, &p->spark, &p->spark_io, &p->spark_cmp };
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) dfn_map64_init(maps[k]);
    return p;
}

void dfn_partial_free(dfn_partial *p)
{
    if (!p) return;
    dfn_dims_free(p->dims, p->ndims);
    dfn_strtab_free(p->text);
    dfn_strtab_free(p->rowkeys);
    dfn_strtab_free(p->prockeys);
    free(p->keys);
    free(p->sums);
    free(p->procs);
    dfn_map64 *maps[] = { &p->hist, &p->procsum, &p->procbytes, &p->files, &p->szh, &p->sizebins, &p->share,
                          &p->ctrn, &p->ctrlo, &p->ctrhi, &p->spark, &p->spark_io, &p->spark_cmp };
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) dfn_map64_free(maps[k]);
    free(p->spark_total);
    dfn_seglog_free(&p->log);
    free(p);
}

size_t dfn_partial_row(dfn_partial *p, const uint32_t *keys)
{
    /* (a grouping without dimensions has its one row under no bytes) */
    uint32_t id = dfn_strtab_intern(p->rowkeys, (const char *)keys, p->ndims * sizeof *keys);
    if (id < p->nrows) return id;
    dfn_grow((void **)&p->keys, &p->keycap, (size_t)(id + 1) * (p->ndims ? p->ndims : 1), sizeof *p->keys);
    dfn_grow((void **)&p->sums, &p->sumcap, id + 1, sizeof *p->sums);
    memcpy(p->keys + (size_t)id * p->ndims, keys, p->ndims * sizeof *keys);
    memset(&p->sums[id], 0, sizeof p->sums[id]);
    p->nrows = id + 1u;
    return id;
}

void dfn_partial_ctr_add(dfn_partial *p, size_t row, size_t k, uint64_t n, dfn_ctrsum sum)
{
    uint64_t key = (uint64_t)row << 8 | k;
    *dfn_map64_slot(&p->ctrn, key) += n;
    uint64_t *lo = dfn_map64_slot(&p->ctrlo, key), *hi = dfn_map64_slot(&p->ctrhi, key);
    unsigned __int128 t = ((unsigned __int128)*hi << 64 | *lo) + (unsigned __int128)sum;   /* (two's complement wraps alike) */
    *lo = (uint64_t)t;
    *hi = (uint64_t)(t >> 64);
}

dfn_ctrsum dfn_partial_ctr_sum(const dfn_partial *p, uint64_t key)
{
    const uint64_t *lo = dfn_map64_get(&p->ctrlo, key), *hi = dfn_map64_get(&p->ctrhi, key);
    return (dfn_ctrsum)((unsigned __int128)(hi ? *hi : 0) << 64 | (lo ? *lo : 0));
}

uint32_t dfn_partial_text(dfn_partial *p, const char *s, size_t len)
{
    return dfn_strtab_intern(p->text, s, len);
}

uint32_t dfn_partial_proc(dfn_partial *p, uint32_t host, int64_t pid, const char *name, size_t len)
{
    uint64_t k[2] = { host, (uint64_t)pid };
    uint32_t id = dfn_strtab_intern(p->prockeys, (const char *)k, sizeof k);
    if (id < p->nprocs) return id;
    dfn_grow((void **)&p->procs, &p->proccap, id + 1, sizeof *p->procs);
    p->procs[id] = (dfn_pproc){ host, pid, dfn_partial_text(p, name, len) };
    p->nprocs = id + 1u;
    return id;
}

/* ---- segment logs ---- */

void dfn_seglog_add(dfn_seglog *l, uint64_t row, uint64_t s, uint64_t e)
{
    l->n++;
    dfn_grow((void **)&l->b, &l->cap, l->len + 30, 1);
    l->len += dfn_varint_put(l->b + l->len, row);
    l->len += dfn_varint_put(l->b + l->len, dfn_zigzag((int64_t)(s - l->last)));
    l->len += dfn_varint_put(l->b + l->len, e - s);
    l->last = s;
}

bool dfn_seglog_next(const dfn_seglog *l, size_t *pos, uint64_t *last, uint64_t *row, uint64_t *s, uint64_t *e)
{
    uint64_t d, n;
    if (*pos >= l->len) return false;   /* (before any arithmetic on an empty log's NULL) */
    const uint8_t *p = l->b + *pos, *end = l->b + l->len;
    size_t a, b, c;
    if (!(a = dfn_varint_get(p, end, row)) || !(b = dfn_varint_get(p + a, end, &d)) ||
        !(c = dfn_varint_get(p + a + b, end, &n)))
        return false;
    *s = *last + (uint64_t)dfn_unzigzag(d);
    *e = *s + n;
    *last = *s;
    *pos += a + b + c;
    return true;
}

void dfn_seglog_free(dfn_seglog *l)
{
    free(l->b);
    memset(l, 0, sizeof *l);
}

size_t dfn_partial_starts(const dfn_partial *p, size_t max, uint64_t *at, uint64_t *weight)
{
    size_t stride = max ? p->log.n / max + 1 : p->log.n + 1, k = 0, i = 0, pos = 0;
    uint64_t last = 0, row, s, e;
    for (; dfn_seglog_next(&p->log, &pos, &last, &row, &s, &e); i++)
        if (i % stride == 0 && k < max) at[k++] = s;
    *weight = stride;
    return k;
}

static int seg_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The log's segments as (row, start, end) triples in (row, start) order,
 * *n of them: placed by row (counted first) in the log's order, which a
 * query's log holds in start order within each row; sorted only when a
 * merge's has not. */
static uint64_t *log_sorted(const dfn_partial *p, size_t *n)
{
    size_t *at = dfn_xcalloc(p->nrows + 1, sizeof *at), pos = 0;
    uint64_t last = 0, row, s, e;
    while (dfn_seglog_next(&p->log, &pos, &last, &row, &s, &e))
        if (row < p->nrows) at[row + 1]++;   /* (always: the rows are the partial's) */
    for (size_t r = 0; r < p->nrows; r++) at[r + 1] += at[r];
    *n = at[p->nrows];
    /* zeroed: a row's first entry is checked against the slot before it,
     * the previous row's last, which may not be placed yet (a zero row
     * orders first: no false alarm) */
    uint64_t *g = dfn_xcalloc(3 * (*n ? *n : 1), sizeof *g);
    pos = 0;
    last = 0;
    bool sorted = true;
    while (dfn_seglog_next(&p->log, &pos, &last, &row, &s, &e)) {
        if (row >= p->nrows) continue;
        uint64_t *t = &g[3 * at[row]++];
        t[0] = row, t[1] = s, t[2] = e;
        if (t != g && seg_cmp(t - 3, t) > 0) sorted = false;
    }
    free(at);
    if (!sorted) qsort(g, *n, 3 * sizeof *g, seg_cmp);
    return g;
}

/* Row sums of another share into a (as the query's thread merge adds them). */
static void sums_add(dfn_rowsums *a, const dfn_rowsums *b)
{
    a->full |= b->full;
    dfn_sat_add_flag(&a->count, b->count, &a->full, DFN_OVF_COUNT);
    dfn_sat_add_flag(&a->agg, b->agg, &a->full, DFN_OVF_AGG);
    dfn_sat_add_flag(&a->dur, b->dur, &a->full, DFN_OVF_DUR);
    dfn_sat_add_flag(&a->bytes, b->bytes, &a->full, DFN_OVF_BYTES);
    if (b->maxdur > a->maxdur) a->maxdur = b->maxdur;
    a->out_calls = dfn_sat_add(a->out_calls, b->out_calls);
    a->out_us = dfn_sat_add(a->out_us, b->out_us);
    a->cut_us = dfn_sat_add(a->cut_us, b->cut_us);
    if (b->szn) {
        if (!a->szn || b->szmin < a->szmin) a->szmin = b->szmin;
        if (!a->szn || b->szmax > a->szmax) a->szmax = b->szmax;
    }
    a->szn = dfn_sat_add(a->szn, b->szn);
    a->busy = dfn_sat_add(a->busy, b->busy);
    dfn_sat_add_flag(&a->szsum, b->szsum, &a->full, DFN_OVF_BYTES);
    /* (as the query's threads add them) */
    a->self += b->self;
    a->seq += b->seq;
    a->rnd += b->rnd;
    a->io_us += b->io_us;
    a->exposed_us += b->exposed_us;
    a->compute_us += b->compute_us;
}

void dfn_partial_add(dfn_partial *p, size_t row, const dfn_rowsums *add)
{
    sums_add(&p->sums[row], add);
}

static bool partial_same_query(const dfn_partial *a, const dfn_partial *b)
{
    if (a->ndims != b->ndims || a->metrics != b->metrics || a->sizes != b->sizes || a->nctr != b->nctr ||
        a->spark_bins != b->spark_bins || a->spark_split != b->spark_split)
        return false;
    for (size_t d = 0; d < a->ndims; d++) {
        if (a->dims[d].kind != b->dims[d].kind || a->dims[d].own != b->dims[d].own) return false;
        if (!a->dims[d].arg != !b->dims[d].arg || (a->dims[d].arg && strcmp(a->dims[d].arg, b->dims[d].arg))) return false;
    }
    return true;
}

/* Text id of b's id in a. */
static uint32_t text_in(dfn_partial *a, const dfn_partial *b, uint32_t id)
{
    return dfn_strtab_intern(a->text, dfn_strtab_str(b->text, id), dfn_strtab_len(b->text, id));
}

/* b's rows and processes as a's: maps of their ids; the rows keep does
 * not mark (when given) map to DFN_MAP64_NOROW. */
static void merge_ids(dfn_partial *a, const dfn_partial *b, const uint8_t *keep, uint32_t *rowmap, uint32_t *procmap)
{
    uint32_t keys[DFN_MAX_DIMS];
    for (size_t r = 0; r < b->nrows; r++) {
        if (keep && !keep[r]) {
            rowmap[r] = DFN_MAP64_NOROW;
            continue;
        }
        for (size_t d = 0; d < b->ndims; d++) {
            uint32_t k = b->keys[r * b->ndims + d];
            keys[d] = dfn_dim_numbered(b->dims[d].kind) ? k : text_in(a, b, k);
        }
        rowmap[r] = (uint32_t)dfn_partial_row(a, keys);
        sums_add(&a->sums[rowmap[r]], &b->sums[r]);
    }
    for (size_t k = 0; k < b->nprocs; k++) {
        const dfn_pproc *pr = &b->procs[k];
        uint32_t name = pr->name;
        int64_t pid = dfn_id_named(pr->pid) ? DFN_ID_NAMED_BASE + text_in(a, b, (uint32_t)(pr->pid - DFN_ID_NAMED_BASE))
                                            : pr->pid;   /* (a name: one of b's texts) */
        procmap[k] = dfn_partial_proc(a, text_in(a, b, pr->host), pid, dfn_strtab_str(b->text, name),
                                      dfn_strtab_len(b->text, name));
    }
}

bool dfn_partial_is_of(const dfn_partial *p, const dfn_query *q)
{
    dfn_partial frame = { .ndims = q->ndims, .metrics = q->metrics ? q->metrics : DFN_M_BASIC, .sizes = q->sizes,
                          .nctr = q->ctrs ? q->ctrs->n : 0, .spark_bins = dfn_query_spark_bins(q),
                          .spark_split = dfn_query_spark_split(q) };
    memcpy(frame.dims, q->dims, sizeof frame.dims);
    return partial_same_query(p, &frame);
}

/* Whether a and b have one window (or one of them none: no store), when
 * their rows count from it; a takes b's when it has none. */
static bool partial_same_window(dfn_partial *a, const dfn_partial *b)
{
    bool same = a->win_lo_s == b->win_lo_s && a->win_hi_s == b->win_hi_s && a->bin_s == b->bin_s &&
                a->bin0_s == b->bin0_s && memcmp(&a->stretch, &b->stretch, sizeof a->stretch) == 0;
    if (b->bin_s == 0) return true;
    if (a->bin_s == 0) {
        a->win_lo_s = b->win_lo_s, a->win_hi_s = b->win_hi_s, a->bin_s = b->bin_s, a->bin0_s = b->bin0_s;
        a->timed = b->timed;
        a->stretch = b->stretch;
        return true;
    }
    return same || !(a->timed || b->timed);
}

/* b's rows that keep marks (NULL: all) added into a's, which has b's
 * query and window; b's totals whole. b stays the caller's. */
static void partial_absorb(dfn_partial *a, const dfn_partial *b, const uint8_t *keep)
{
    uint32_t *rowmap = dfn_xmalloc((b->nrows ? b->nrows : 1) * sizeof *rowmap);
    uint32_t *procmap = dfn_xmalloc((b->nprocs ? b->nprocs : 1) * sizeof *procmap);
    merge_ids(a, b, keep, rowmap, procmap);
    dfn_map64_add_rows(&a->hist, &b->hist, rowmap, 16, NULL);
    dfn_map64_add_rows(&a->szh, &b->szh, rowmap, 16, NULL);
    dfn_map64_add_rows(&a->sizebins, &b->sizebins, rowmap, 8, NULL);
    /* a process's sums add: its events may lie in both */
    dfn_map64_add_rows(&a->procsum, &b->procsum, rowmap, 32, procmap);
    dfn_map64_add_rows(&a->procbytes, &b->procbytes, rowmap, 32, procmap);
    const dfn_map64 *bm = &b->files;
    for (size_t j = 0; j < bm->cap; j++)
        if (bm->k[j] != DFN_MAP64_EMPTY && rowmap[bm->k[j] >> 32] != DFN_MAP64_NOROW)
            *dfn_map64_slot(&a->files, (uint64_t)rowmap[bm->k[j] >> 32] << 32 | text_in(a, b, (uint32_t)bm->k[j])) = 1;
    /* a file two shares' processes used is shared (a process is in one
     * share's map once: its own files) */
    const dfn_map64 *sm = &b->share;
    for (size_t j = 0; j < sm->cap; j++) {
        if (sm->k[j] == DFN_MAP64_EMPTY || rowmap[sm->k[j] >> 32] == DFN_MAP64_NOROW) continue;
        uint64_t v = sm->v[j] == DFN_PARTIAL_MANY ? DFN_PARTIAL_MANY : (uint64_t)procmap[sm->v[j] - 1] + 1;
        dfn_partial_share_put(&a->share, (uint64_t)rowmap[sm->k[j] >> 32] << 32 | text_in(a, b, (uint32_t)sm->k[j]), v);
    }
    /* sparklines add bin by bin; the totals are of every call, kept or not */
    dfn_map64_add_rows(&a->spark, &b->spark, rowmap, 16, NULL);
    dfn_map64_add_rows(&a->spark_io, &b->spark_io, rowmap, 16, NULL);
    dfn_map64_add_rows(&a->spark_cmp, &b->spark_cmp, rowmap, 16, NULL);
    for (size_t k = 0; b->spark_total && k < a->spark_bins; k++)
        a->spark_total[k] = dfn_sat_add(a->spark_total[k], b->spark_total[k]);
    for (size_t j = 0; j < b->ctrn.cap; j++) {   /* counters: samples, and their sums with the carry */
        uint64_t key = b->ctrn.k[j];
        if (key == DFN_MAP64_EMPTY || rowmap[key >> 8] == DFN_MAP64_NOROW) continue;
        dfn_partial_ctr_add(a, rowmap[key >> 8], key & 0xff, b->ctrn.v[j], dfn_partial_ctr_sum(b, key));
    }
    /* b's segments join a's log: nothing is expanded before the finish */
    size_t pos = 0;
    uint64_t last = 0, row, s0, e0;
    while (dfn_seglog_next(&b->log, &pos, &last, &row, &s0, &e0))
        if (rowmap[row] != DFN_MAP64_NOROW) dfn_seglog_add(&a->log, rowmap[row], s0, e0);
    a->total = dfn_sat_add(a->total, b->total);
    a->matched += b->matched;
    a->matched_calls += b->matched_calls;
    a->ncompute = dfn_sat_add(a->ncompute, b->ncompute);
    free(rowmap);
    free(procmap);
}

bool dfn_partial_merge(dfn_partial *a, dfn_partial *b, char *err, size_t errlen)
{
    if (!partial_same_query(a, b) || !partial_same_window(a, b)) {
        snprintf(err, errlen, partial_same_query(a, b) ? "partial results of shares of different spans"
                                                       : "partial results of different queries");
        dfn_partial_free(b);
        return false;
    }
    partial_absorb(a, b, NULL);
    dfn_partial_free(b);
    return true;
}

/* An empty partial of p's query and window. */
static dfn_partial *partial_frame(const dfn_partial *p)
{
    dfn_query q = { .ndims = p->ndims, .metrics = p->metrics, .sizes = p->sizes, .spark_bins = p->spark_bins,
                    .spark_split = p->spark_split };
    memcpy(q.dims, p->dims, sizeof q.dims);
    dfn_partial *out = dfn_partial_new(&q);
    out->nctr = p->nctr;
    out->win_lo_s = p->win_lo_s, out->win_hi_s = p->win_hi_s, out->bin_s = p->bin_s, out->bin0_s = p->bin0_s;
    out->timed = p->timed;
    out->stretch = p->stretch;
    return out;
}

dfn_partial *dfn_partial_pick(dfn_partial *p, const uint8_t *keep)
{
    dfn_partial *out = partial_frame(p);
    partial_absorb(out, p, keep);
    dfn_partial_free(p);
    return out;
}

/* ---- busy time by slices of time ---- */

dfn_partial *dfn_partial_slice(dfn_partial *p, uint64_t lo, uint64_t hi)
{
    dfn_partial *out = partial_frame(p);   /* (the same query's: its counters stay with p) */
    uint32_t keys[DFN_MAX_DIMS];
    uint32_t *orow = dfn_xmalloc((p->nrows ? p->nrows : 1) * sizeof *orow);   /* + 1; 0: not in out yet */
    memset(orow, 0, (p->nrows ? p->nrows : 1) * sizeof *orow);
    size_t pos = 0;
    uint64_t last = 0, row, s0, e0;
    while (dfn_seglog_next(&p->log, &pos, &last, &row, &s0, &e0)) {
        uint64_t s = s0 > lo ? s0 : lo, e = e0 < hi ? e0 : hi;
        if (s >= e) continue;
        if (!orow[row]) {   /* the row in out, its keys as text there */
            for (size_t d = 0; d < p->ndims; d++) {
                uint32_t id = p->keys[row * p->ndims + d];
                keys[d] = dfn_dim_numbered(p->dims[d].kind) ? id : text_in(out, p, id);
            }
            orow[row] = (uint32_t)dfn_partial_row(out, keys) + 1;
        }
        dfn_seglog_add(&out->log, orow[row] - 1, s, e);
    }
    free(orow);
    return out;
}

void dfn_partial_sum_busy(dfn_partial *p)
{
    size_t n;
    uint64_t *g = log_sorted(p, &n);
    /* each row's union: segments that overlap or touch are one */
    for (size_t k = 0; k < n;) {
        uint64_t row = g[3 * k], cs = g[3 * k + 1], ce = g[3 * k + 2];
        for (k++; k < n && g[3 * k] == row && g[3 * k + 1] <= ce; k++)
            if (g[3 * k + 2] > ce) ce = g[3 * k + 2];
        p->sums[row].busy = dfn_sat_add(p->sums[row].busy, ce - cs);
    }
    free(g);
    dfn_partial_drop_segs(p);
}

void dfn_partial_drop_segs(dfn_partial *p)
{
    dfn_seglog_free(&p->log);
}

/* ---- bytes (bytebuf.h) ---- */

static void put_map(obuf *o, const dfn_map64 *m)
{
    put_u(o, m->n);
    for (size_t j = 0; j < m->cap; j++)
        if (m->k[j] != DFN_MAP64_EMPTY) { put_u(o, m->k[j]); put_u(o, m->v[j]); }
}

static void put_sums(obuf *o, const dfn_rowsums *s)
{
    const uint64_t u[] = { s->count, s->dur, s->bytes, s->maxdur, s->agg, s->out_calls, s->out_us, s->cut_us,
                           s->szn, s->szsum, s->busy, s->full, s->self, s->seq, s->rnd, s->io_us,
                           s->exposed_us, s->compute_us };
    for (size_t k = 0; k < sizeof u / sizeof *u; k++) put_u(o, u[k]);
    put_d(o, s->szmin);
    put_d(o, s->szmax);
}

uint8_t *dfn_partial_encode(const dfn_partial *p, size_t *len)
{
    obuf o = {0};
    put_u(&o, PARTIAL_MAGIC);
    put_u(&o, PARTIAL_VERSION);
    put_u(&o, p->ndims);
    for (size_t d = 0; d < p->ndims; d++) {
        size_t al = p->dims[d].arg ? strlen(p->dims[d].arg) : 0;
        put_u(&o, p->dims[d].kind);
        put_u(&o, p->dims[d].own);
        put_u(&o, p->dims[d].arg ? al + 1 : 0);
        put_raw(&o, p->dims[d].arg, al);
    }
    const uint64_t head[] = { p->metrics, p->sizes, p->nctr, p->spark_bins, p->spark_split, p->total, p->matched,
                              p->matched_calls, p->ncompute };
    for (size_t k = 0; k < sizeof head / sizeof *head; k++) put_u(&o, head[k]);
    const double win[] = { p->win_lo_s, p->win_hi_s, p->bin_s, p->bin0_s };
    for (size_t k = 0; k < sizeof win / sizeof *win; k++) put_d(&o, win[k]);
    put_u(&o, p->timed);
    const uint64_t st[] = { p->stretch.clip_lo, p->stretch.clip_hi, p->stretch.span, p->stretch.bin_lo, p->stretch.bin };
    for (size_t k = 0; k < sizeof st / sizeof *st; k++) put_u(&o, st[k]);
    uint32_t nt = dfn_strtab_count(p->text);
    put_u(&o, nt);
    for (uint32_t k = 0; k < nt; k++) put_bytes(&o, dfn_strtab_str(p->text, k), dfn_strtab_len(p->text, k));
    put_u(&o, p->nprocs);
    for (size_t k = 0; k < p->nprocs; k++) {
        put_u(&o, p->procs[k].host);
        put_u(&o, dfn_zigzag(p->procs[k].pid));
        put_u(&o, p->procs[k].name);
    }
    put_u(&o, p->nrows);
    for (size_t r = 0; r < p->nrows; r++) {
        for (size_t d = 0; d < p->ndims; d++) put_u(&o, p->keys[r * p->ndims + d]);
        put_sums(&o, &p->sums[r]);
    }
    const dfn_map64 *maps[] = { &p->hist, &p->procsum, &p->procbytes, &p->files, &p->szh, &p->sizebins, &p->share,
                                &p->ctrn, &p->ctrlo, &p->ctrhi, &p->spark, &p->spark_io, &p->spark_cmp };
    for (size_t k = 0; k < sizeof maps / sizeof *maps; k++) put_map(&o, maps[k]);
    for (size_t k = 0; k < p->spark_bins; k++) put_u(&o, p->spark_total[k]);
    /* as a log's entries (a few bytes each), in any order: nothing
     * expanded to send them */
    put_u(&o, p->log.n);
    put_raw(&o, p->log.b, p->log.len);   /* (a log's entries start from 0, as the reader's) */
    *len = o.n;
    return o.b ? o.b : dfn_xmalloc(1);
}

static bool get_dims(ibuf *in, dfn_query *q)
{
    q->ndims = (size_t)get_u(in, DFN_MAX_DIMS + 1, "the dimensions");
    for (size_t d = 0; d < q->ndims && !in->bad; d++) {
        q->dims[d].kind = (dfn_dimkind)get_u(in, DFN_DIM_COUNT, "a dimension");
        if (!in->bad && !dim_mergeable(q, q->dims[d].kind)) in->bad = "a dimension";
        q->dims[d].own = get_u(in, 2, "a dimension");
        uint64_t al = get_any(in, "an argument name");   /* (its length + 1, bounded past its own varint) */
        if (!in->bad && al > (uint64_t)(in->end - in->p) + 1) in->bad = "an argument name";
        if (al && !in->bad) {
            q->dims[d].arg = dfn_xstrndup((const char *)in->p, al - 1);
            in->p += al - 1;
        }
    }
    return !in->bad;
}

static void get_map(ibuf *in, dfn_map64 *m, int shift, uint64_t rows, uint64_t lows, const char *what)
{
    size_t n = get_count(in, 2, what);
    for (size_t j = 0; j < n && !in->bad; j++) {
        uint64_t k = get_any(in, what), v = get_any(in, what);
        if ((k >> shift) >= rows || (k & ((UINT64_C(1) << shift) - 1)) >= lows) in->bad = what;
        if (!in->bad) *dfn_map64_slot(m, k) = v;
    }
}

/* The highest number a row of dimension kind k may keep. */
static uint64_t dim_limit(const dfn_partial *p, dfn_dimkind k, uint64_t ntext)
{
    /* a time bin of the window, or the one past it a call may reach */
    double bins = p->bin_s > 0 ? (p->win_hi_s - p->bin0_s) / p->bin_s + 2 : 0;
    switch (k) {
    case DFN_DIM_LAYER: return 64;
    case DFN_DIM_CLASS: return DFN_CLASS_COUNT;
    case DFN_DIM_OP: return DFN_OP_COUNT;
    case DFN_DIM_SIZEBIN: return DFN_SIZEBIN_COUNT + 1;   /* and "-", a call without a size */
    case DFN_DIM_TIME: return bins < UINT32_MAX - 1 ? (uint64_t)bins + 1 : UINT32_MAX - 1;
    default: return ntext;
    }
}

static void get_rows(ibuf *in, dfn_partial *p, uint64_t nt)
{
    size_t nrows = get_count(in, p->ndims + 19, "the rows");
    uint32_t keys[DFN_MAX_DIMS];
    for (size_t r = 0; r < nrows && !in->bad; r++) {
        for (size_t d = 0; d < p->ndims; d++) {
            keys[d] = (uint32_t)get_u(in, dim_limit(p, p->dims[d].kind, nt), "a row's key");
            /* a call's bytes, read when printed: whole */
            if (!in->bad && p->dims[d].kind == DFN_DIM_EVENT &&
                !dfn_evrow_text_ok((const uint8_t *)dfn_strtab_str(p->text, keys[d]), dfn_strtab_len(p->text, keys[d])))
                in->bad = "a call's key";
        }
        if (in->bad) break;
        size_t row = dfn_partial_row(p, keys);
        if (row != r) { in->bad = "a row given twice"; break; }
        dfn_rowsums *s = &p->sums[row];
        uint64_t *u[] = { &s->count, &s->dur, &s->bytes, &s->maxdur, &s->agg, &s->out_calls, &s->out_us, &s->cut_us,
                          &s->szn, &s->szsum, &s->busy };
        for (size_t k = 0; k < sizeof u / sizeof *u; k++) *u[k] = get_any(in, "a row's sums");
        s->full = (uint8_t)get_u(in, 16, "a row's sums");
        uint64_t *an[] = { &s->self, &s->seq, &s->rnd, &s->io_us, &s->exposed_us, &s->compute_us };
        for (size_t k = 0; k < sizeof an / sizeof *an; k++) *an[k] = get_any(in, "a row's sums");
        s->szmin = get_d(in);
        s->szmax = get_d(in);
    }
}

/* The maps of p's rows, processes and texts (nt of them), and its
 * sparklines' totals. */
static void get_maps(ibuf *in, dfn_partial *p, size_t nt)
{
    get_map(in, &p->hist, 16, p->nrows, 0x10000, "a latency bucket");
    get_map(in, &p->procsum, 32, p->nrows, p->nprocs, "a process's time");
    get_map(in, &p->procbytes, 32, p->nrows, p->nprocs, "a process's bytes");
    get_map(in, &p->files, 32, p->nrows, nt, "a file");
    get_map(in, &p->szh, 16, p->nrows, 0x10000, "a size bucket");
    get_map(in, &p->sizebins, 8, p->nrows, DFN_SIZEBIN_COUNT, "a size bin");
    get_map(in, &p->share, 32, p->nrows, nt, "a shared file");
    get_map(in, &p->ctrn, 8, p->nrows, p->nctr, "a counter");
    get_map(in, &p->ctrlo, 8, p->nrows, p->nctr, "a counter");
    get_map(in, &p->ctrhi, 8, p->nrows, p->nctr, "a counter");
    get_map(in, &p->spark, 16, p->nrows, p->spark_bins, "a sparkline bin");
    get_map(in, &p->spark_io, 16, p->nrows, p->spark_split ? p->spark_bins : 0, "a sparkline bin");
    get_map(in, &p->spark_cmp, 16, p->nrows, p->spark_split ? p->spark_bins : 0, "a sparkline bin");
    for (size_t k = 0; k < p->spark_bins && !in->bad; k++) p->spark_total[k] = get_any(in, "the sparklines' totals");
    for (size_t j = 0; j < p->share.cap && !in->bad; j++)   /* a process of the partial's, or many */
        if (p->share.k[j] != DFN_MAP64_EMPTY && p->share.v[j] != DFN_PARTIAL_MANY &&
            (p->share.v[j] == 0 || p->share.v[j] > p->nprocs))
            in->bad = "a shared file";
}

dfn_partial *dfn_partial_decode(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    ibuf in = { buf, buf + len, NULL };
    dfn_query q = {0};
    if (get_any(&in, "its start") != PARTIAL_MAGIC || in.bad) {
        snprintf(err, errlen, "not a partial result");
        return NULL;
    }
    uint64_t ver = get_any(&in, "its version");
    if (ver != PARTIAL_VERSION) {
        snprintf(err, errlen, "a partial result of version %llu (this dfnav reads %d)", (unsigned long long)ver,
                 PARTIAL_VERSION);
        return NULL;
    }
    get_dims(&in, &q);
    q.metrics = get_any(&in, "the metrics");
    q.sizes = get_u(&in, 2, "the size bins") != 0;
    size_t nctr = (size_t)get_u(&in, DFN_MAX_CTRS + 1, "the counters");
    q.spark_bins = (size_t)get_u(&in, DFN_SPARK_BINS_MAX + 1, "the sparklines");
    q.spark_split = get_u(&in, 2, "the sparklines") != 0;
    dfn_partial *p = dfn_partial_new(&q);
    p->nctr = nctr;
    dfn_dims_free(q.dims, q.ndims);
    p->total = get_any(&in, "the totals");
    p->matched = get_any(&in, "the totals");
    p->matched_calls = get_any(&in, "the totals");
    p->ncompute = get_any(&in, "the totals");
    double *win[] = { &p->win_lo_s, &p->win_hi_s, &p->bin_s, &p->bin0_s };
    for (size_t k = 0; k < sizeof win / sizeof *win; k++) *win[k] = get_d(&in);
    p->timed = get_u(&in, 2, "its window") != 0;
    uint64_t *st[] = { &p->stretch.clip_lo, &p->stretch.clip_hi, &p->stretch.span, &p->stretch.bin_lo, &p->stretch.bin };
    for (size_t k = 0; k < sizeof st / sizeof *st; k++) *st[k] = get_any(&in, "its window");
    /* idle time and compute_s count from the window, whatever the bytes say */
    p->timed |= (p->metrics & (DFN_M_BIT(DFN_M_IDLE_S) | DFN_M_OVERLAP)) != 0;
    /* rows of time bins count from the window, whatever the bytes say */
    bool time_rows = false;
    for (size_t d = 0; d < p->ndims; d++) time_rows |= p->dims[d].kind == DFN_DIM_TIME;
    p->timed |= time_rows;
    p->timed |= p->spark_bins > 0;   /* (and sparkline bins) */
    /* a window of seconds a bin of which is at least a µs, or none,
     * within a store's span (2^64 µs); with time rows, their bins' starts
     * count in an int64 of µs (bin0 comes from the window's exact µs,
     * which may pass win_lo by the µs a time>X bound takes) */
    double most = time_rows ? 9e12 : 1.9e13, bin_most = time_rows ? 5e10 : 1.9e13;
    if (!in.bad && !(p->bin_s == 0 || (p->bin_s >= 1e-6 && p->bin_s <= bin_most && p->win_lo_s >= 0 &&
                                       p->win_hi_s >= p->win_lo_s && p->win_hi_s <= most && p->bin0_s >= 0 &&
                                       p->bin0_s <= p->win_hi_s + p->bin_s)))
        in.bad = "its window";
    size_t nt = get_count(&in, 1, "the texts");
    for (size_t k = 0; k < nt && !in.bad; k++) {
        size_t l;
        const uint8_t *t = get_bytes(&in, &l, "a text");
        if (!in.bad && dfn_strtab_intern(p->text, (const char *)t, l) != k) in.bad = "a text given twice";
    }
    size_t np = get_count(&in, 3, "the processes");
    for (size_t k = 0; k < np && !in.bad; k++) {
        uint32_t host = (uint32_t)get_u(&in, nt, "a process");
        int64_t pid = dfn_unzigzag(get_any(&in, "a process"));
        uint32_t name = (uint32_t)get_u(&in, nt, "a process");
        if (!in.bad && dfn_id_named(pid) && (uint64_t)(pid - DFN_ID_NAMED_BASE) >= nt) in.bad = "a process's name";
        if (in.bad) break;
        if (dfn_partial_proc(p, host, pid, dfn_strtab_str(p->text, name), dfn_strtab_len(p->text, name)) != k)
            in.bad = "a process given twice";
    }
    get_rows(&in, p, nt);
    get_maps(&in, p, nt);
    size_t ns = get_count(&in, 3, "the busy segments");
    uint64_t last = 0;
    for (size_t k = 0; k < ns && !in.bad; k++) {
        uint64_t r = get_u(&in, p->nrows, "a busy segment");
        int64_t d = dfn_unzigzag(get_any(&in, "a busy segment"));
        uint64_t slen = get_any(&in, "a busy segment");
        /* a start before 0 or past 2^64, or an end past it: not a segment */
        bool wraps = d < 0 ? (uint64_t)-(d + 1) >= last : (uint64_t)d > UINT64_MAX - last;
        uint64_t s = last + (uint64_t)d;
        if (in.bad || wraps || slen > UINT64_MAX - s) {
            in.bad = "a busy segment";
            break;
        }
        dfn_seglog_add(&p->log, r, s, s + slen);
        last = s;
    }
    if (!in.bad && in.p != in.end) in.bad = "its end";
    if (in.bad) {
        snprintf(err, errlen, "a damaged partial result (%s, at byte %zu of %zu)", in.bad, (size_t)(in.p - buf), len);
        dfn_partial_free(p);
        return NULL;
    }
    return p;
}
