/* Comparing runs: each run's query result, and the table of rows matched
 * across runs by key. A row is matched by the text of its keys (string ids
 * differ between stores), except time bins and transfer sizes, which are
 * the same numbers in every run once the bins agree. */
#include "dfnav/compare.h"
#include "dfnav/util.h"
#include "dfnav/remote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a run name cannot hold: '@' and ',' separate runs and metrics in
 * --sort, ':' ends a column; control bytes would reach the terminal. */
static bool label_bad_char(unsigned char c)
{
    return c == '@' || c == ',' || c == ':' || c < 0x20 || c == 0x7f;
}

/* A run label: not empty, not "diff" or "ratio", no '@', ',', ':' or
 * control bytes. False with a message. */
static bool compare_label_ok(const char *label, char *err, size_t errlen)
{
    if (!*label) { snprintf(err, errlen, "a run needs a name"); return false; }
    if (strcmp(label, "diff") == 0 || strcmp(label, "ratio") == 0) {
        snprintf(err, errlen, "'%s' names the comparison columns; choose another run name", label);
        return false;
    }
    for (const unsigned char *p = (const unsigned char *)label; *p; p++) {
        if (label_bad_char(*p)) {
            snprintf(err, errlen, "a run name has no '@', ',', ':' or control characters");
            return false;
        }
    }
    return true;
}

size_t dfn_compare_rep(const dfn_compare *c, size_t row)
{
    for (size_t k = 0; k < c->nruns; k++)
        if (dfn_compare_has(c, row, k)) return k;
    return 0;
}

double dfn_compare_metric(const dfn_compare *c, size_t row, size_t run, dfn_metric m)
{
    uint32_t r = c->row[row * c->nruns + run];
    return r == DFN_CMP_ABSENT ? NAN : dfn_result_metric(c->res[run], r, m);
}

double dfn_compare_value(const dfn_compare *c, size_t row, int col, dfn_metric m)
{
    if (c->calls) return dfn_compare_metric(c, row, dfn_compare_rep(c, row), m);
    if (col >= 0) return (size_t)col < c->nruns ? dfn_compare_metric(c, row, (size_t)col, m) : NAN;
    if (c->nruns != 2) return NAN;
    double a = dfn_compare_metric(c, row, 0, m), b = dfn_compare_metric(c, row, 1, m);
    if (col == DFN_CMP_DIFF) return b - a;
    if (a == 0) return b == 0 || isnan(b) ? NAN : b > 0 ? INFINITY : -INFINITY;
    return b / a;
}

const char *dfn_compare_key_str(const dfn_compare *c, size_t row, size_t dim, char *buf, size_t cap, size_t *len)
{
    size_t k;
    uint32_t rr = dfn_compare_rep_row(c, row, &k);
    return dfn_result_key_str(c->res[k]->store, c->res[k], rr, dim, buf, cap, len);
}

char *dfn_compare_key_dup(const dfn_compare *c, size_t row, size_t dim, size_t *len)
{
    size_t k;
    uint32_t rr = dfn_compare_rep_row(c, row, &k);
    return dfn_result_key_dup(c->res[k], rr, dim, len);
}

/* ---- sorting ---- */

typedef struct { const dfn_compare *c; int metric, col; bool desc; } cmp_sortctx;

static _Thread_local const cmp_sortctx *g_cs;   /* qsort has no context argument */

static int key_order(const dfn_compare *c, size_t a, size_t b)
{
    size_t ka, kb;
    uint32_t ra = dfn_compare_rep_row(c, a, &ka), rb = dfn_compare_rep_row(c, b, &kb);
    int k = dfn_result_key_cmp(c->res[ka], ra, c->res[kb], rb);
    if (k) return k;
    return ka < kb ? -1 : ka > kb;   /* calls at the same moment: by run */
}

static double row_max(const dfn_compare *c, size_t row, dfn_metric m)
{
    double mx = -INFINITY;
    for (size_t k = 0; k < c->nruns; k++) {
        double v = dfn_compare_metric(c, row, k, m);
        if (v > mx) mx = v;
    }
    return mx;
}

/* What rows sort by in column col: the metric's value, but max_proc by
 * its process's rank by name among the run's rows (a store numbers its
 * processes otherwise than a merge of shares does; by name they agree),
 * none in a diff or ratio. */
static double sort_value(const dfn_compare *c, size_t row, int col, dfn_metric m)
{
    if (m != DFN_M_MAX_PROC) return dfn_compare_value(c, row, col, m);
    size_t k = c->calls ? dfn_compare_rep(c, row) : (size_t)col;
    if (!c->calls && (col < 0 || k >= c->nruns)) return NAN;
    uint32_t rr = c->row[row * c->nruns + k];
    return rr == DFN_CMP_ABSENT ? NAN : dfn_result_max_proc_rank(c->res[k], rr);
}

static int order_cmp(const void *pa, const void *pb)
{
    const cmp_sortctx *s = g_cs;
    const dfn_compare *c = s->c;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (s->metric < 0) {
        int k = key_order(c, a, b);
        return s->desc ? -k : k;
    }
    double x = sort_value(c, a, s->col, (dfn_metric)s->metric), y = sort_value(c, b, s->col, (dfn_metric)s->metric);
    /* a row a run lacks has no value there: last, either way */
    int o = dfn_metric_order(x, y, s->desc);
    if (o) return o;
    if (s->metric != DFN_M_MAX_PROC) {   /* (names of different runs: no larger one) */
        double mx = row_max(c, a, (dfn_metric)s->metric), my = row_max(c, b, (dfn_metric)s->metric);
        if (mx != my) return mx < my ? 1 : -1;
    }
    return key_order(c, a, b);
}

static void cmp_reorder(dfn_compare *c, size_t keep)
{
    size_t n = c->nrows, nr = c->nruns;
    size_t *order = dfn_xmalloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n; i++) order[i] = i;
    cmp_sortctx s = { c, c->sort, c->sort_col, c->desc };
    for (size_t k = 0; c->sort == DFN_M_MAX_PROC && k < nr; k++) dfn_result_rank_procs(c->res[k]);
    g_cs = &s;
    qsort(order, n, sizeof *order, order_cmp);
    g_cs = NULL;
    if (keep > n) keep = n;
    uint32_t *row = dfn_xmalloc((keep * nr > 0 ? keep * nr : 1) * sizeof *row);
    for (size_t i = 0; i < keep; i++) memcpy(&row[i * nr], &c->row[order[i] * nr], nr * sizeof *row);
    free(c->row);
    c->row = row;
    c->nrows = keep;
    free(order);
}

void dfn_compare_sort(dfn_compare *c, int metric, int col, bool desc)
{
    c->sort = metric;
    c->sort_col = col;
    c->desc = desc;
    if (c->nruns == 1) {
        /* one run: its own result in this order, so exports of it match */
        dfn_result_sort(c->res[0], metric, desc);
        return;
    }
    if (c->nrows > 1) cmp_reorder(c, c->nrows);
}

/* ---- building ---- */

/* A comparison of one run around r, taking it over. */
static dfn_compare *compare_of(dfn_result *r);

dfn_compare *dfn_compare_of(dfn_result *r, int sort, bool desc)
{
    dfn_compare *c = compare_of(r);
    c->sort = sort;
    c->desc = desc;
    return c;
}

static dfn_compare *compare_of(dfn_result *r)
{
    dfn_compare *c = dfn_xcalloc(1, sizeof *c);
    c->nruns = 1;
    c->res = dfn_xmalloc(sizeof *c->res);
    c->res[0] = r;
    c->nrows = r->nrows;
    c->row = dfn_xmalloc((r->nrows ? r->nrows : 1) * sizeof *c->row);
    for (size_t i = 0; i < r->nrows; i++) c->row[i] = (uint32_t)i;
    c->matched = r->matched;
    c->matched_calls = r->matched_calls;
    c->sort = -1;
    c->calls = r->ndims == 1 && r->dims[0].kind == DFN_DIM_EVENT;
    return c;
}

/* Appends the matching key of row i of r: time bins and sizes by number,
 * everything else by text, each part length-prefixed. */
static void match_key(const dfn_result *r, size_t i, char **buf, size_t *cap, size_t *len)
{
    *len = 0;
    char num[64];
    for (size_t d = 0; d < r->ndims; d++) {
        size_t l;
        const char *t;
        dfn_dimkind k = r->dims[d].kind;
        char *whole = NULL;   /* a call path: its whole text, not 63 bytes of it */
        if (k == DFN_DIM_TIME || k == DFN_DIM_SIZEBIN) {
            l = (size_t)snprintf(num, sizeof num, "%u", dfn_result_key(r, i, d)->id);
            t = num;
        } else if (k == DFN_DIM_PATH) {
            t = whole = dfn_result_key_dup(r, i, d, &l);
        } else {
            t = dfn_result_key_str(r->store, r, i, d, num, sizeof num, &l);
        }
        dfn_grow((void **)buf, cap, *len + l + 8, 1);
        uint32_t l32 = (uint32_t)l;
        memcpy(*buf + *len, &l32, sizeof l32);
        memcpy(*buf + *len + sizeof l32, t, l);
        *len += sizeof l32 + l;
        free(whole);
    }
}

double dfn_compare_bin(const dfn_query *q, const uint64_t *span_us, size_t nruns)
{
    bool has_time = false;
    for (size_t d = 0; d < q->ndims; d++) has_time |= q->dims[d].kind == DFN_DIM_TIME;
    if (q->bin_s > 0 || !has_time) return q->bin_s;
    double span = 0;
    for (size_t k = 0; k < nruns; k++) {
        double lo = 0, hi = span_us[k] / 1e6;   /* (as dfn_query_window) */
        dfn_filter_time_narrow(q->filter, &lo, &hi);
        if (hi - lo > span) span = hi - lo;
    }
    return dfn_auto_bin(span);
}

bool dfn_compare_takes(const dfn_query *q, char *err, size_t errlen)
{
    bool by_event = q->ndims == 1 && q->dims[0].kind == DFN_DIM_EVENT;
    for (size_t d = 0; d < q->ndims; d++) {
        if (q->dims[d].kind == DFN_DIM_EVENT && !by_event) {
            /* a call of one run matches no call of another */
            snprintf(err, errlen, "comparing runs, calls (event) are a grouping of their own");
            return false;
        }
    }
    return true;
}

/* Run k's rows of q: its store's, or those of the processes that hold
 * it (runs NULL: stores only). */
static dfn_result *compare_one(const dfn_run *runs, const dfn_store *const *stores, size_t k, const dfn_query *q,
                               char *err, size_t errlen)
{
    if (runs && runs[k].remote) return runs[k].remote->query(runs[k].remote->ctx, runs[k].remote_run, q, NULL, err, errlen);
    return dfn_query_run(stores[k], q, err, errlen);
}

static dfn_compare *compare_core(const dfn_run *runs, const dfn_store *const *stores, const dfn_query *qs,
                                 size_t nruns, int sort_col, const char *const *labels, char *err, size_t errlen)
{
    if (nruns == 0) { snprintf(err, errlen, "no run to compare"); return NULL; }
    if (nruns == 1 && !labels) {
        dfn_result *r = compare_one(runs, stores, 0, &qs[0], err, errlen);
        if (!r) return NULL;
        return dfn_compare_of(r, qs[0].sort, qs[0].desc);
    }
    const dfn_query *q0 = &qs[0];
    if (!dfn_compare_takes(q0, err, errlen)) return NULL;
    bool by_event = q0->ndims == 1 && q0->dims[0].kind == DFN_DIM_EVENT;
    uint64_t *span = dfn_xmalloc(nruns * sizeof *span);
    for (size_t k = 0; k < nruns; k++) span[k] = stores[k]->t1 - stores[k]->t0;
    double bin = dfn_compare_bin(q0, span, nruns);
    free(span);
    dfn_result **res = dfn_xcalloc(nruns, sizeof *res);
    for (size_t k = 0; k < nruns; k++) {
        dfn_query q = qs[k];
        q.bin_s = bin;
        /* calls: each run's first top is enough; groups are cut once matched */
        if (!by_event) q.top = 0;
        res[k] = compare_one(runs, stores, k, &q, err, errlen);
        if (!res[k]) {
            for (size_t j = 0; j < k; j++) dfn_result_free(res[j]);
            free(res);
            return NULL;
        }
    }
    dfn_compare *c = dfn_compare_results(res, nruns, q0, sort_col, labels);
    free(res);
    return c;
}

dfn_compare *dfn_compare_run(const dfn_store *const *stores, const dfn_query *qs, size_t nruns, int sort_col,
                     const char *const *labels, char *err, size_t errlen)
{
    return compare_core(NULL, stores, qs, nruns, sort_col, labels, err, errlen);
}

dfn_compare *dfn_compare_results(dfn_result **res, size_t nruns, const dfn_query *q0, int sort_col,
                                 const char *const *labels)
{
    bool by_event = q0->ndims == 1 && q0->dims[0].kind == DFN_DIM_EVENT;
    dfn_compare *c = dfn_xcalloc(1, sizeof *c);
    c->nruns = nruns;
    c->res = dfn_xcalloc(nruns, sizeof *c->res);
    c->sort = q0->sort;
    c->sort_col = sort_col;
    c->desc = q0->desc;
    c->calls = by_event;
    if (labels) {
        c->labels = dfn_xcalloc(nruns, sizeof *c->labels);
        for (size_t k = 0; k < nruns; k++) c->labels[k] = dfn_xstrdup(labels[k]);
    }
    for (size_t k = 0; k < nruns; k++) {
        c->res[k] = res[k];
        c->matched += res[k]->matched;
    }

    dfn_strtab *keys = dfn_strtab_new();
    size_t cap = 0, rowcap = 0;
    char *kb = NULL;
    for (size_t k = 0; k < nruns; k++) {
        const dfn_result *r = c->res[k];
        for (size_t i = 0; i < r->nrows; i++) {
            size_t row;
            if (by_event) {
                row = c->nrows;
            } else {
                size_t klen;
                match_key(r, i, &kb, &cap, &klen);
                row = dfn_strtab_intern(keys, kb ? kb : "", klen);
            }
            if (row == c->nrows) {
                c->nrows++;
                dfn_grow((void **)&c->row, &rowcap, c->nrows * nruns, sizeof *c->row);
                for (size_t j = 0; j < nruns; j++) c->row[row * nruns + j] = DFN_CMP_ABSENT;
            }
            c->row[row * nruns + k] = (uint32_t)i;
        }
    }
    free(kb);
    dfn_strtab_free(keys);
    if (!c->row) c->row = dfn_xmalloc(sizeof *c->row);
    cmp_reorder(c, q0->top ? q0->top : c->nrows);
    return c;
}

dfn_compare *dfn_compare_query(const dfn_run *runs, size_t nruns, const dfn_query *base, int sort_col,
                               const char *const *labels, char *err, size_t errlen)
{
    dfn_query *qs = dfn_xcalloc(nruns ? nruns : 1, sizeof *qs);
    const dfn_store **stores = dfn_xcalloc(nruns ? nruns : 1, sizeof *stores);
    for (size_t k = 0; k < nruns; k++) {
        qs[k] = *base;
        qs[k].layers = runs[k].ls;
        if (runs[k].an) dfn_analysis_apply(runs[k].an, &qs[k]);
        /* (a remote set's holders have every analysis, as a loaded set) */
        qs[k].spark_split = base->spark_split && (qs[k].overlap || runs[k].remote);
        stores[k] = runs[k].s;
    }
    dfn_compare *c = compare_core(runs, stores, qs, nruns, sort_col, labels, err, errlen);
    free(qs);
    free(stores);
    return c;
}

void dfn_compare_free(dfn_compare *c)
{
    if (!c) return;
    for (size_t k = 0; k < c->nruns; k++) {
        dfn_result_free(c->res[k]);
        if (c->labels) free(c->labels[k]);
    }
    free(c->res);
    free(c->labels);
    free(c->row);
    free(c);
}

/* ---- runs from the command line ---- */

/* The default name of a run: the last part of its path, without a trace
 * suffix. */
static char *run_name(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/') start--;
    char *name = dfn_xstrndup(path + start, len - start);
    static const char *suffixes[] = { ".pfw.gz", ".pfw" };
    for (size_t i = 0; i < 2; i++) {
        size_t sl = strlen(suffixes[i]), nl = strlen(name);
        if (nl > sl && strcmp(name + nl - sl, suffixes[i]) == 0) { name[nl - sl] = 0; break; }
    }
    /* what a label cannot hold becomes '_' (':' ends a --sort column) */
    for (char *p = name; *p; p++)
        if (label_bad_char((unsigned char)*p)) *p = '_';
    if (!*name || strcmp(name, "diff") == 0 || strcmp(name, "ratio") == 0 || strcmp(name, "-") == 0) {
        free(name);
        name = dfn_xstrdup("run");
    }
    return name;
}

static bool label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

bool dfn_compare_runs_parse(char *const *args, size_t n, char **labels, char **paths, char *err, size_t errlen)
{
    bool *named = dfn_xcalloc(n ? n : 1, sizeof *named);
    for (size_t i = 0; i < n; i++) labels[i] = paths[i] = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *a = args[i], *eq = strchr(a, '=');
        named[i] = eq && eq > a && eq[1];
        for (const char *p = a; named[i] && p < eq; p++) named[i] = label_char(*p);
        if (named[i]) {
            labels[i] = dfn_xstrndup(a, (size_t)(eq - a));
            paths[i] = dfn_xstrdup(eq + 1);
            if (!compare_label_ok(labels[i], err, errlen)) goto fail;
        } else {
            labels[i] = run_name(a);
            paths[i] = dfn_xstrdup(a);
        }
    }
    /* names must tell the runs apart: a repeated default name gets -2, -3 */
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (j == i || strcmp(labels[i], labels[j]) != 0) continue;
            if (named[i] && named[j]) {
                snprintf(err, errlen, "two runs are named '%s'", labels[i]);
                goto fail;
            }
            if (named[i] || (!named[j] && j > i)) continue;   /* the other one gives way */
            for (int k = 2;; k++) {
                char *cand = dfn_xasprintf("%s-%d", labels[i], k);
                bool taken = false;
                for (size_t m = 0; m < n && !taken; m++) taken = m != i && strcmp(labels[m], cand) == 0;
                if (!taken) { free(labels[i]); labels[i] = cand; break; }
                free(cand);
            }
            j = (size_t)-1;   /* the new name may meet another: look again */
        }
    }
    free(named);
    return true;
fail:
    for (size_t i = 0; i < n; i++) { free(labels[i]); free(paths[i]); labels[i] = paths[i] = NULL; }
    free(named);
    return false;
}
