/* Counter queries (see dfnav/counters.h): a scan of the samples, which are
 * few next to events (one per series and interval), into rows keyed by
 * series, time bin, host and pid. Times are seconds from the store's start
 * (its first event; its first sample when it has no events). */
#include "dfnav/counters.h"

#include "bytebuf.h"
#include "dfnav/extract.h"
#include "dfnav/match.h"
#include "dfnav/query.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cdim_names[DFN_CDIM_COUNT] = { "counter", "time", "host", "pid" };

const char *dfn_cdim_name(dfn_cdim d) { return d < DFN_CDIM_COUNT ? cdim_names[d] : "?"; }

bool dfn_cdims_parse(const char *text, dfn_cdim *dims, size_t *n, char *err, size_t errlen)
{
    bool seen[DFN_CDIM_COUNT] = { false };
    size_t m = 0;
    dims[m++] = DFN_CDIM_COUNTER;
    seen[DFN_CDIM_COUNTER] = true;
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            int d = -1;
            for (int k = 0; k < DFN_CDIM_COUNT; k++)
                if (strlen(cdim_names[k]) == len && memcmp(cdim_names[k], p, len) == 0) d = k;
            if (d < 0) {
                snprintf(err, errlen, "counters group by counter, time, host and pid, not '%.*s'", (int)len, p);
                return false;
            }
            if (!seen[d]) dims[m++] = (dfn_cdim)d;
            seen[d] = true;
        }
        p += len;
        if (*p) p++;
    }
    *n = m;
    return true;
}

/* The time origin of q's counters, in absolute µs: the store's (a share's
 * set's, when q names its span). */
static uint64_t counters_t0(const dfn_store *s, const dfn_cquery *q)
{
    if (q->span) return q->span->t0;
    return s->n || !s->nsamples ? s->t0 : s->samples[0].ts;
}

/* Seconds of absolute µs ts from t0 (negative before it). */
static double ts_s(uint64_t t0, uint64_t ts)
{
    return ts >= t0 ? (ts - t0) / 1e6 : -((t0 - ts) / 1e6);
}

static bool lane_key(dfn_key k)
{
    return k == DFN_KEY_HOST || k == DFN_KEY_PID || k == DFN_KEY_TID || k == DFN_KEY_PROC || k == DFN_KEY_RANK;
}

/* The processes an event selection keeps (dfn_cquery.selection), as
 * (host, pid) keys: those a lane passing every process term has, their
 * hosts, and every process that made calls. NULL sets: no process term.
 * set: the set's hosts and callers by text (a share's), else NULL. */
typedef struct { dfn_strtab *sel, *hosts, *all; const dfn_csel *set; } procsel;

static uint32_t hp_find(const dfn_strtab *t, uint32_t host, int64_t pid)
{
    char k[12];
    memcpy(k, &host, 4);
    memcpy(k + 4, &pid, 8);
    return dfn_strtab_find(t, k, sizeof k);
}

static void hp_add(dfn_strtab *t, uint32_t host, int64_t pid)
{
    char k[12];
    memcpy(k, &host, 4);
    memcpy(k + 4, &pid, 8);
    dfn_strtab_intern(t, k, sizeof k);
}

/* The lanes f's process terms keep, as the event filter decides them (a
 * table by lane), or NULL when f has none. */
static uint8_t *procsel_lanes(const dfn_store *s, const dfn_filter *f)
{
    dfn_filter lanes = { dfn_xmalloc((f && f->n ? f->n : 1) * sizeof *lanes.terms), 0 };
    for (size_t k = 0; f && k < f->n; k++)
        if (lane_key(f->terms[k].key)) lanes.terms[lanes.n++] = f->terms[k];   /* borrowed */
    uint8_t *ok = NULL;
    char err[256];
    dfn_match *m = lanes.n ? dfn_match_compile(s, NULL, &lanes, err, sizeof err) : NULL;
    free(lanes.terms);
    if (!m) return NULL;
    dfn_match_tabs t;
    dfn_match_tables(m, &t);
    if (t.lane_ok) {
        ok = dfn_xmalloc(s->nlanes ? s->nlanes : 1);
        memcpy(ok, t.lane_ok, s->nlanes);
    }
    dfn_match_free(m);
    return ok;
}

static void procsel_build(const dfn_store *s, const dfn_filter *f, const dfn_csel *set, procsel *ps)
{
    memset(ps, 0, sizeof *ps);
    ps->set = set;
    uint8_t *ok = procsel_lanes(s, f);
    if (!ok) return;
    ps->sel = dfn_strtab_new();
    ps->hosts = dfn_strtab_new();
    ps->all = dfn_strtab_new();
    for (size_t i = 0; i < s->nlanes; i++) {
        const dfn_lane *ln = &s->lanes[i];
        hp_add(ps->all, ln->host, ln->pid);
        if (!ok[i]) continue;
        hp_add(ps->sel, ln->host, ln->pid);
        dfn_strtab_intern(ps->hosts, (const char *)&ln->host, sizeof ln->host);
    }
    free(ok);
}

/* A share's sample's process as the set knows it: whether the set's
 * selection has its host, and whether it made calls on some share. */
static bool procsel_set_pass(const dfn_store *s, const dfn_csel *set, const dfn_sample *x)
{
    if (dfn_strtab_find(set->hosts, dfn_store_str(s, x->host), dfn_strtab_len(s->strs, x->host)) == DFN_NOID)
        return false;
    char *pid = NULL;
    size_t cap = 0, pl = dfn_extract_id_json(s, x->pid, &pid, &cap);
    size_t klen;
    uint8_t *key = dfn_extract_proc_key(dfn_store_str(s, x->host), dfn_strtab_len(s->strs, x->host), pid, pl, &klen);
    bool caller = dfn_strtab_find(set->callers, (const char *)key, klen) != DFN_NOID;
    free(key);
    free(pid);
    return !caller;
}

static bool procsel_pass(const dfn_store *s, const procsel *ps, const dfn_sample *x)
{
    if (!ps->sel || hp_find(ps->sel, x->host, x->pid) != DFN_NOID) return true;
    /* a host-wide sampler: no calls of its own, on a selected host */
    if (ps->set) return procsel_set_pass(s, ps->set, x);
    return dfn_strtab_find(ps->hosts, (const char *)&x->host, sizeof x->host) != DFN_NOID &&
           hp_find(ps->all, x->host, x->pid) == DFN_NOID;
}

bool dfn_counters_sel_wanted(const dfn_filter *f)
{
    for (size_t k = 0; f && k < f->n; k++)
        if (lane_key(f->terms[k].key)) return true;
    return false;
}

uint8_t *dfn_counters_select_hosts(const dfn_store *s, const dfn_filter *f, size_t *len)
{
    uint8_t *ok = s && s->nlanes ? procsel_lanes(s, f) : NULL;
    dfn_strtab *seen = dfn_strtab_new();
    obuf o = {0}, keys = {0};
    for (size_t i = 0; ok && i < s->nlanes; i++) {
        const dfn_lane *ln = &s->lanes[i];
        if (ok[i] && dfn_strtab_add(seen, dfn_store_str(s, ln->host), dfn_strtab_len(s->strs, ln->host), NULL))
            put_bytes(&keys, dfn_store_str(s, ln->host), dfn_strtab_len(s->strs, ln->host));
    }
    put_u(&o, dfn_strtab_count(seen));
    put_raw(&o, keys.b, keys.n);
    free(keys.b);
    free(ok);
    dfn_strtab_free(seen);
    *len = o.n;
    return o.b;
}

bool dfn_csel_hosts_add(dfn_csel *c, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    ibuf in = { buf, buf ? buf + len : NULL, NULL };
    if (!buf) in.bad = "none came";
    size_t n = get_count(&in, 1, "the hosts");
    for (size_t k = 0; k < n && !in.bad; k++) {
        size_t l;
        const uint8_t *h = get_bytes(&in, &l, "a host");
        if (h) dfn_strtab_intern(c->hosts, (const char *)h, l);
    }
    if (!in.bad && in.p != in.end) in.bad = "bytes past the hosts";
    if (in.bad) snprintf(err, errlen, "a rank's selected hosts: %s", in.bad);
    return !in.bad;
}

static void procsel_free(procsel *ps)
{
    if (ps->sel) dfn_strtab_free(ps->sel);
    if (ps->hosts) dfn_strtab_free(ps->hosts);
    if (ps->all) dfn_strtab_free(ps->all);
}

/* Whether a sample passes every term (times from t0); the terms were
 * checked to be ones counters have, or (a selection) the process terms
 * are in ps. */
static bool sample_pass(const dfn_store *s, const dfn_cquery *q, uint64_t t0, const procsel *ps, const dfn_sample *x)
{
    const dfn_filter *f = q->filter;
    if (q->selection && !procsel_pass(s, ps, x)) return false;
    for (size_t k = 0; f && k < f->n; k++) {
        const dfn_term *t = &f->terms[k];
        bool ok = true;
        switch (t->key) {
        case DFN_KEY_COUNTER: {
            uint32_t id = s->series[x->series];
            ok = dfn_term_text(t, dfn_store_str(s, id), dfn_strtab_len(s->strs, id), false);
            break;
        }
        case DFN_KEY_HOST:
            ok = q->selection || dfn_term_text(t, dfn_store_str(s, x->host), dfn_strtab_len(s->strs, x->host), false);
            break;
        case DFN_KEY_PID: ok = q->selection || dfn_term_id(s, t, x->pid); break;
        case DFN_KEY_TIME: ok = dfn_term_num(t, ts_s(t0, x->ts)); break;
        default: break;
        }
        if (!ok) return false;
    }
    return true;
}

typedef struct { const dfn_store *s; const dfn_cresult *r; } sort_ctx;
static _Thread_local sort_ctx g_sort;

/* The text of a row's series, host or named pid: of the store's strings,
 * or (merged rows) of the result's own. */
static const char *crow_text(const dfn_store *s, const dfn_cresult *r, dfn_cdim d, uint64_t key)
{
    if (r->keytext) return dfn_strtab_str(r->keytext, d == DFN_CDIM_PID ? (uint32_t)((int64_t)key - DFN_ID_NAMED_BASE)
                                                                         : (uint32_t)key);
    if (d == DFN_CDIM_COUNTER) return dfn_store_str(s, s->series[key]);
    if (d == DFN_CDIM_PID) return dfn_id_name(s, (int64_t)key);
    return dfn_store_str(s, (uint32_t)key);
}

static int crow_cmp(const void *a, const void *b)
{
    const dfn_crow *x = a, *y = b;
    const dfn_store *s = g_sort.s;
    const dfn_cresult *r = g_sort.r;
    for (size_t k = 0; k < r->ndims; k++) {
        int c = 0;
        dfn_cdim d = r->dims[k];
        int64_t px = (int64_t)x->key[k], py = (int64_t)y->key[k];
        switch (d) {
        case DFN_CDIM_COUNTER: case DFN_CDIM_HOST:
            c = strcmp(crow_text(s, r, d, x->key[k]), crow_text(s, r, d, y->key[k]));
            break;
        /* numbers, then names by their text: a named pid's value is a
         * string id, which depends on the parser thread that met the name
         * first (dfn_id_cmp's order) */
        case DFN_CDIM_PID: {
            bool named = dfn_id_named(px) && dfn_id_named(py);
            c = dfn_id_order(px, named ? crow_text(s, r, d, x->key[k]) : "", py, named ? crow_text(s, r, d, y->key[k]) : "");
            break;
        }
        /* time: bins before the trace start are negative */
        default: c = (int64_t)x->key[k] < (int64_t)y->key[k] ? -1 : (int64_t)x->key[k] > (int64_t)y->key[k]; break;
        }
        if (c) return c;
    }
    return 0;
}

bool dfn_counters_check(const dfn_cquery *q, char *err, size_t errlen)
{
    const dfn_filter *f = q->filter;
    for (size_t k = 0; f && !q->selection && k < f->n; k++) {
        dfn_key key = f->terms[k].key;
        if (key != DFN_KEY_COUNTER && key != DFN_KEY_HOST && key != DFN_KEY_PID && key != DFN_KEY_TIME) {
            snprintf(err, errlen, "counters have counter, host, pid and time, not %s", dfn_key_name(key));
            return false;
        }
    }
    return true;
}

/* Bins of bin_us whole µs from origin_us past the store's start, as the
 * events' bins are cut (dfn_query_run), so that the two line up. */
typedef struct { int64_t origin_us, bin_us; } cbins;

/* The window and its bins: bins count from the trace start, as the
 * events' do (from where time terms narrow it to, like theirs), and a
 * sample before it falls in a bin of negative index. The window, which
 * sets the automatic bin width, is the samples' span narrowed by time
 * terms. */
static cbins cquery_window(const dfn_store *s, const dfn_cquery *q, dfn_cresult *out)
{
    /* (the set's samples, when a share's) */
    bool any = q->span ? q->span->lo <= q->span->hi : s->nsamples > 0;
    uint64_t t0 = counters_t0(s, q), first = !any ? 0 : q->span ? q->span->lo : s->samples[0].ts;
    uint64_t last = !any ? 0 : q->span ? q->span->hi : s->samples[s->nsamples - 1].ts;
    double lo = any && ts_s(t0, first) < 0 ? ts_s(t0, first) : 0;
    double hi = any ? ts_s(t0, last) : 0;
    dfn_filter_time_narrow(q->filter, &lo, &hi);
    double bin_s = q->bin_s > 0 ? q->bin_s : dfn_auto_bin(hi - lo);
    cbins b = { .origin_us = lo > 0 ? (int64_t)llround(lo * 1e6) : 0, .bin_us = (int64_t)llround(bin_s * 1e6) };
    if (b.bin_us < 1) b.bin_us = 1;
    b.origin_us = b.origin_us / b.bin_us * b.bin_us;   /* on multiples of the width, as the events' bins */
    out->win_lo_s = (double)b.origin_us / 1e6;
    out->win_hi_s = hi;
    out->bin_s = (double)b.bin_us / 1e6;   /* the bins the samples fall in, for labels */
    return b;
}

/* A sample's offset from the store's start, in µs. */
static int64_t sample_us(uint64_t t0, const dfn_sample *x)
{
    return x->ts >= t0 ? (int64_t)(x->ts - t0) : -(int64_t)(t0 - x->ts);
}

/* The bin of sample x: floor, also before the origin. */
static int64_t cbins_put(const cbins *b, uint64_t t0, const dfn_sample *x)
{
    int64_t d = sample_us(t0, x) - b->origin_us, k = d / b->bin_us;
    return d % b->bin_us && d < 0 ? k - 1 : k;
}

/* Fixed bins (dfn_cquery.nbins) in whole µs from the store's start, as
 * the query's sparkline cuts them: bin b holds [b * span / n, (b + 1) *
 * span / n) past lo. */
typedef struct { int64_t lo; uint64_t span, n; } tbins;

static tbins tbins_of(const dfn_cquery *q)
{
    tbins b = { .lo = (int64_t)llround(q->win_lo_s * 1e6), .n = q->nbins };
    double span = q->win_hi_s - q->win_lo_s;
    b.span = span > 0 ? (uint64_t)llround(span * 1e6) : 0;
    if (b.span < b.n) b.span = b.n;
    return b;
}

/* The fixed bins of an explorer's window, said in out. */
static tbins tbins_window(const dfn_cquery *q, dfn_cresult *out)
{
    tbins tb = tbins_of(q);
    out->win_lo_s = q->win_lo_s;
    out->win_hi_s = q->win_hi_s;
    out->nbins = q->nbins;
    out->bin_s = tb.span / 1e6 / (double)tb.n;
    return tb;
}

/* Where sample x falls: -1 before the window, 1 past it, else 0 with
 * its bin. */
static int tbins_put(const tbins *b, uint64_t t0, const dfn_sample *x, uint64_t *bin)
{
    int64_t rel = sample_us(t0, x);
    if (rel < b->lo) return -1;
    uint64_t d = (uint64_t)(rel - b->lo);
    if (d >= b->span) return 1;
    uint64_t k = d <= UINT64_MAX / b->n ? d * b->n / b->span : (uint64_t)((double)d / (double)b->span * (double)b->n);
    *bin = k < b->n ? k : b->n - 1;
    return 0;
}

/* A sample's key: series, time bin (its index in the fixed bins, or a
 * signed bin of cb from t0), host, pid as the query asks. */
static void cquery_key(const dfn_cquery *q, const cbins *cb, uint64_t t0, uint64_t bin, const dfn_sample *x,
                       uint64_t *key)
{
    for (size_t k = 0; k < q->ndims; k++) {
        switch (q->dims[k]) {
        case DFN_CDIM_COUNTER: key[k] = x->series; break;
        case DFN_CDIM_HOST: key[k] = x->host; break;
        case DFN_CDIM_PID: key[k] = (uint64_t)x->pid; break;
        default:
            key[k] = q->nbins ? bin : (uint64_t)cbins_put(cb, t0, x);
            break;
        }
    }
}

dfn_crow *dfn_cresult_row(dfn_cresult *r, dfn_strtab *keys, size_t *cap, const uint64_t *key)
{
    uint32_t before = dfn_strtab_count(keys), row = dfn_strtab_intern(keys, (const char *)key, DFN_CDIMS_MAX * sizeof *key);
    if (row == before) {
        dfn_grow((void **)&r->rows, cap, row + 1, sizeof *r->rows);
        r->rows[row] = (dfn_crow){ .samples = 0, .min = INFINITY, .max = -INFINITY, .xs = DFN_FSUM_INIT };
        memcpy(r->rows[row].key, key, DFN_CDIMS_MAX * sizeof *key);
        r->nrows = row + 1;
    }
    return &r->rows[row];
}

static void cquery_add(dfn_cresult *out, dfn_strtab *keys, size_t *cap, const uint64_t *key, double value)
{
    dfn_crow *r = dfn_cresult_row(out, keys, cap, key);
    r->samples++;
    dfn_fsum_add(&r->xs, value);
    if (value < r->min) r->min = value;
    if (value > r->max) r->max = value;
}

/* The first sample at or after ts (absolute µs): samples are in time order. */
static size_t sample_first(const dfn_store *s, uint64_t ts)
{
    size_t lo = 0, hi = s->nsamples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->samples[mid].ts < ts) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Rows' sums their exact sums' values, the rows in key order (of s's
 * strings, or a merged result's own). */
static void crows_finish(const dfn_store *s, dfn_cresult *r)
{
    for (size_t i = 0; i < r->nrows; i++) r->rows[i].sum = dfn_fsum_value(&r->rows[i].xs);
    g_sort = (sort_ctx){ s, r };
    if (r->nrows) qsort(r->rows, r->nrows, sizeof *r->rows, crow_cmp);
}

bool dfn_counters_query(const dfn_store *s, const dfn_cquery *q, dfn_cresult *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!dfn_counters_check(q, err, errlen)) return false;
    out->ndims = q->ndims;
    memcpy(out->dims, q->dims, q->ndims * sizeof *q->dims);
    if (!s) {   /* a share without a store: the set's window, no rows */
        if (q->span && q->nbins) {
            (void)tbins_window(q, out);
            return true;
        }
        if (q->span) {
            cquery_window(NULL, q, out);
            return true;
        }
        snprintf(err, errlen, "counters of no store");
        return false;
    }
    tbins tb = { 0 };
    cbins cb = { 0 };
    size_t from = 0;
    uint64_t t0 = counters_t0(s, q);
    if (q->nbins) {
        tb = tbins_window(q, out);
        /* the window's samples only: a track is drawn on every move */
        uint64_t back = tb.lo < 0 ? (uint64_t)-(tb.lo + 1) + 1 : 0;
        from = tb.lo >= 0 ? sample_first(s, t0 + (uint64_t)tb.lo) : back >= t0 ? 0 : sample_first(s, t0 - back);
    } else {
        cb = cquery_window(s, q, out);
    }
    procsel ps;
    procsel_build(s, q->selection ? q->filter : NULL, q->set_sel, &ps);
    dfn_strtab *keys = dfn_strtab_new();
    size_t cap = 0;
    for (size_t i = from; i < s->nsamples; i++) {
        const dfn_sample *x = &s->samples[i];
        uint64_t key[DFN_CDIMS_MAX] = { 0 }, bin = 0;
        if (q->nbins) {
            int where = tbins_put(&tb, t0, x, &bin);
            if (where > 0) break;   /* in time order: the rest is later still */
            if (where < 0) continue;
        }
        if (!sample_pass(s, q, t0, &ps, x)) continue;
        cquery_key(q, &cb, t0, bin, x, key);
        cquery_add(out, keys, &cap, key, x->value);
    }
    dfn_strtab_free(keys);
    procsel_free(&ps);
    crows_finish(s, out);
    return true;
}

size_t dfn_crow_key_text(const dfn_store *s, const dfn_cresult *r, const dfn_crow *row, size_t k, char *buf, size_t cap)
{
    int n = 0;
    dfn_cdim d = r->dims[k];
    switch (d) {
    case DFN_CDIM_COUNTER: case DFN_CDIM_HOST: n = snprintf(buf, cap, "%s", crow_text(s, r, d, row->key[k])); break;
    case DFN_CDIM_PID:
        if (dfn_id_named((int64_t)row->key[k])) n = snprintf(buf, cap, "%s", crow_text(s, r, d, row->key[k]));
        else n = snprintf(buf, cap, "%" PRId64, (int64_t)row->key[k]);
        break;
    default: {
        /* the bin's start to the µs: fixed bins (nbins) are span / n */
        int64_t b = (int64_t)row->key[k];
        int64_t us = r->nbins ? llround(r->win_lo_s * 1e6 + (double)b * r->bin_s * 1e6)
                              : llround(r->win_lo_s * 1e6) + b * llround(r->bin_s * 1e6);
        n = (int)dfn_fmt_us_s(us, buf, cap);
        break;
    }
    }
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

void dfn_counters_finish(dfn_cresult *r) { crows_finish(NULL, r); }

void dfn_cresult_free(dfn_cresult *r)
{
    for (size_t i = 0; i < r->nrows; i++) dfn_fsum_free(&r->rows[i].xs);
    free(r->rows);
    if (r->keytext) dfn_strtab_free(r->keytext);
    memset(r, 0, sizeof *r);
}
