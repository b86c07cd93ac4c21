/* The diagnostics: a handful of grouped queries (by operation, and the
 * analysis metrics) on the selection, by layer and by process, folded
 * into per-scope figures that DFAnalyzer's rules are tested on. */
#include "dfnav/diagnose.h"
#include "dfnav/export.h"
#include "dfnav/query.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *th_names[DFN_TH_COUNT] = { "metadata", "small_time", "small_size", "imbalance", "random", "exposed" };
static const char *rule_names[DFN_RULE_COUNT] = {
    "metadata-heavy", "small-reads", "small-writes", "rw-imbalance", "random-access", "exposed-io", "file-sharing"
};

const char *dfn_threshold_name(dfn_threshold k) { return k < DFN_TH_COUNT ? th_names[k] : "?"; }
const char *dfn_rule_name(dfn_rule r) { return r < DFN_RULE_COUNT ? rule_names[r] : "?"; }

void dfn_thresholds_default(dfn_thresholds *t)
{
    t->v[DFN_TH_METADATA] = 50;
    t->v[DFN_TH_SMALL_TIME] = 50;
    t->v[DFN_TH_SMALL_SIZE] = 1048576;
    t->v[DFN_TH_IMBALANCE] = 10;
    t->v[DFN_TH_RANDOM] = 50;
    t->v[DFN_TH_EXPOSED] = 50;
}

bool dfn_thresholds_parse(const char *text, dfn_thresholds *t, char *err, size_t errlen)
{
    const char *p = text;
    while (*p) {
        while (*p == ',' || *p == ' ') p++;
        if (!*p) break;
        const char *eq = p;
        while (*eq && *eq != '=' && *eq != ',') eq++;
        const char *e = eq;
        while (*e && *e != ',' && *e != ' ') e++;
        int k = -1;
        for (int i = 0; i < DFN_TH_COUNT; i++)
            if (strlen(th_names[i]) == (size_t)(eq - p) && memcmp(th_names[i], p, (size_t)(eq - p)) == 0) k = i;
        if (k < 0 || *eq != '=') {
            snprintf(err, errlen, "unknown threshold '%.*s' (metadata small_time small_size imbalance random exposed)",
                     (int)((eq - p) > 40 ? 40 : (eq - p)), p);
            return false;
        }
        char buf[64];
        size_t vl = (size_t)(e - eq - 1);
        if (vl == 0 || vl >= sizeof buf) { snprintf(err, errlen, "threshold %s needs a value", th_names[k]); return false; }
        memcpy(buf, eq + 1, vl);
        buf[vl] = 0;
        double v;
        if (k == DFN_TH_SMALL_SIZE) {
            /* sizes with units as the filter language takes them */
            char *end;
            double mul;
            v = strtod(buf, &end);
            if (end == buf || !isfinite(v) || !dfn_size_unit(end, strlen(end), true, &mul)) {
                snprintf(err, errlen, "threshold small_size: '%s' is not a size (e.g. 1MiB)", buf);
                return false;
            }
            v *= mul;
        } else {
            char *end;
            v = strtod(buf, &end);
            if (*end == '%') end++;
            if (*end || !(v >= 0 && v <= 100)) {
                snprintf(err, errlen, "threshold %s: '%s' is not a percentage from 0 to 100", th_names[k], buf);
                return false;
            }
        }
        t->v[k] = v;
        p = e;
    }
    return true;
}

/* What the rules read of one scope. */
typedef struct {
    double t[DFN_OP_COUNT], n[DFN_OP_COUNT], b[DFN_OP_COUNT];
    double moved[DFN_OP_COUNT];   /* bytes as the report shows them: a call's share of a time window */
    double io_busy, exposed, seq_pct, files, shared;
    bool have_analysis;
} figs;

typedef struct {
    dfn_findings *out;
    const dfn_thresholds *th;
    bool ov, ax;
    const char *key;          /* the row a row scope is of */
} dctx;

static void add(dctx *c, dfn_rule rule, dfn_scope scope, const char *where, const char *scope_filter,
                const char *filter, const char *by, double value, double threshold, bool info, char *figures)
{
    dfn_findings *o = c->out;
    o->v = dfn_xreallocarray(o->v, o->n + 1, sizeof *o->v);
    dfn_finding *f = &o->v[o->n++];
    f->rule = rule;
    f->scope = scope;
    f->where = dfn_xstrdup(where);
    f->key = dfn_xstrdup(c->key ? c->key : "");
    f->figures = figures;
    f->filter = dfn_xasprintf("%s%s%s", scope_filter, *scope_filter && *filter ? " " : "", filter);
    f->by = dfn_xstrdup(by);
    f->value = value;
    f->threshold = threshold;
    f->info = info;
}

static void secs(double s, char *buf, size_t cap) { dfn_fmt_us(s * 1e6, buf, cap); }

static void eval_scope(dctx *c, dfn_scope scope, const char *where, const char *sf, const figs *g)
{
    const double *th = c->th->v;
    static const dfn_op meta_ops[] = { DFN_OP_OPEN, DFN_OP_CLOSE, DFN_OP_SEEK, DFN_OP_STAT, DFN_OP_METADATA };
    double meta = 0, io = g->t[DFN_OP_READ] + g->t[DFN_OP_WRITE] + g->t[DFN_OP_SYNC];
    dfn_op lead = DFN_OP_METADATA;
    for (size_t k = 0; k < sizeof meta_ops / sizeof meta_ops[0]; k++) {
        meta += g->t[meta_ops[k]];
        if (g->t[meta_ops[k]] > g->t[lead] || (lead == DFN_OP_METADATA && g->t[meta_ops[k]] >= g->t[lead])) lead = meta_ops[k];
    }
    io += meta;
    char a[32], b[32], x[32], y[32];
    if (io > 0) {
        double pct = 100 * meta / io;
        if (pct >= th[DFN_TH_METADATA]) {
            secs(meta, a, sizeof a); secs(io, b, sizeof b); secs(g->t[lead], x, sizeof x);
            add(c, DFN_RULE_METADATA, scope, where, sf, "class=metadata", "op", pct, th[DFN_TH_METADATA], false,
                dfn_xasprintf("metadata calls take %.1f%% of I/O time (%s of %s); %s leads with %s",
                        pct, a, b, dfn_op_name(lead), x));
        }
        for (int w = 0; w < 2; w++) {
            dfn_op op = w ? DFN_OP_WRITE : DFN_OP_READ;
            double share = 100 * g->t[op] / io, mean = g->n[op] > 0 ? g->b[op] / g->n[op] : 0;
            if (g->n[op] > 0 && share >= th[DFN_TH_SMALL_TIME] && mean < th[DFN_TH_SMALL_SIZE]) {
                dfn_fmt_bytes(mean, a, sizeof a);
                dfn_fmt_bytes(th[DFN_TH_SMALL_SIZE], b, sizeof b);
                add(c, w ? DFN_RULE_SMALL_WRITES : DFN_RULE_SMALL_READS, scope, where, sf,
                    w ? "class=write" : "class=read", "sizebin", share, th[DFN_TH_SMALL_TIME], false,
                    dfn_xasprintf("%s take %.1f%% of I/O time with a mean transfer of %s (under %s), %.0f calls",
                            w ? "writes" : "reads", share, a, b, g->n[op]));
            }
        }
    }
    /* the bytes the finding's report shows: in a time bin, a call's share
     * (whole bytes said 9.7 GiB where that report said 4.5) */
    double nr = g->n[DFN_OP_READ], nw = g->n[DFN_OP_WRITE], br = g->moved[DFN_OP_READ], bw = g->moved[DFN_OP_WRITE];
    if (nr > 0 && nw > 0) {
        double ci = 100 * fabs(nr - nw) / (nr + nw), bi = br + bw > 0 ? 100 * fabs(br - bw) / (br + bw) : 0;
        double v = ci > bi ? ci : bi;
        if (v > th[DFN_TH_IMBALANCE]) {
            dfn_fmt_bytes(br, a, sizeof a); dfn_fmt_bytes(bw, b, sizeof b);
            add(c, DFN_RULE_IMBALANCE, scope, where, sf, "class=read|write", "class", v, th[DFN_TH_IMBALANCE], false,
                dfn_xasprintf("%.0f reads vs %.0f writes (%.1f%% apart), %s read vs %s written (%.1f%% apart)",
                        nr, nw, ci, a, b, bi));
        }
    }
    if (c->ax && g->have_analysis && !isnan(g->seq_pct)) {
        double rnd = 100 - g->seq_pct;
        if (rnd > th[DFN_TH_RANDOM])
            add(c, DFN_RULE_RANDOM, scope, where, sf, "class=read|write", "file", rnd, th[DFN_TH_RANDOM], false,
                dfn_xasprintf("%.1f%% of reads and writes with a known offset are random", rnd));
    }
    if (c->ov && g->have_analysis && g->io_busy > 0) {
        double pct = 100 * g->exposed / g->io_busy;
        if (pct > th[DFN_TH_EXPOSED]) {
            secs(g->exposed, x, sizeof x); secs(g->io_busy, y, sizeof y);
            add(c, DFN_RULE_EXPOSED, scope, where, sf, "", scope == DFN_SCOPE_PROC ? "time" : "proc", pct,
                th[DFN_TH_EXPOSED], false,
                dfn_xasprintf("%s of %s of I/O busy time (%.1f%%) is not hidden behind compute", x, y, pct));
        }
    }
    if (scope != DFN_SCOPE_PROC && g->have_analysis && g->files > 0)
        add(c, DFN_RULE_SHARING, scope, where, sf, "", "file", g->shared, 0, true,
            dfn_xasprintf("%.0f files: %.0f accessed by one process, %.0f shared by several",
                    g->files, g->files - g->shared, g->shared));
}

/* ---- the queries ---- */

/* q's rows where src runs queries; through a runner, the compute events
 * the set's overlap matched decide the rules it cannot judge (out's). */
static dfn_result *diag_query(const dfn_diag_src *src, dfn_query *q, dfn_findings *out, char *err, size_t errlen)
{
    if (!src->run) {
        q->threads = src->threads;
        return dfn_query_run(src->s, q, err, errlen);
    }
    uint64_t ncompute = UINT64_MAX;
    dfn_result *r = src->run(src->ctx, q, &ncompute, err, errlen);
    if (r && (q->metrics & DFN_M_OVERLAP) && ncompute != UINT64_MAX) out->no_compute = ncompute == 0;
    return r;
}

static dfn_result *run(const dfn_diag_src *src, const dfn_layerset *ls, const dfn_filter *sel, const dfn_dimkind *dims,
                       size_t nd, uint64_t metrics, const dfn_analysis *an, dfn_findings *out, char *err, size_t errlen)
{
    dfn_query q = { .ndims = nd, .filter = sel, .layers = ls, .sort = -1, .metrics = metrics };
    if (an) dfn_analysis_apply(an, &q);
    for (size_t d = 0; d < nd; d++) q.dims[d].kind = dims[d];
    return diag_query(src, &q, out, err, errlen);
}

/* Folds a result's rows into the figures of their scopes: pass 0 rows
 * end with the operation, pass 1 rows are the analysis metrics of the
 * whole scope. */
static void figs_fold(figs *g, const double *m, const dfn_result *r, size_t row, size_t nd, int pass)
{
    if (!pass) {
        uint32_t op = dfn_result_key(r, row, nd - 1)->id;
        if (op >= DFN_OP_COUNT) return;
        g->t[op] += m[DFN_M_TIME_S];
        g->n[op] += m[DFN_M_COUNT];
        /* bytes of the calls counted: in a time window a call only moves
         * part of its bytes there, but its size is whole */
        double sz = m[DFN_M_SIZE_MEAN];
        bool rw = op == DFN_OP_READ || op == DFN_OP_WRITE;
        g->b[op] += rw ? (sz == sz ? round(sz * m[DFN_M_COUNT]) : 0) : m[DFN_M_BYTES];
        g->moved[op] += m[DFN_M_BYTES];
        return;
    }
    g->have_analysis = true;
    g->io_busy = m[DFN_M_IO_BUSY_S];
    g->exposed = m[DFN_M_EXPOSED_S];
    g->seq_pct = m[DFN_M_SEQ_PCT];
    g->files = m[DFN_M_FILES];
    g->shared = m[DFN_M_SHARED_FILES];
}

/* Scope of a row: 0 for the selection, 1 + layer, or 1 + layers + process. */
typedef struct {
    const dfn_store *s;
    size_t nlayers;
    /* processes by their text: the host's length (4 bytes), the host and
     * the pid, the same in every result whatever made it (a store's rows
     * or merged partials', whose ids are each result's own) */
    dfn_strtab *procs;
} scopes;

static size_t scope_of(scopes *sc, const dfn_result *r, size_t row, int layer_dim, int host_dim)
{
    if (layer_dim >= 0) return 1 + dfn_result_key(r, row, (size_t)layer_dim)->id;
    if (host_dim < 0) return 0;
    char hb[64], pb[64];
    size_t hl, pl;
    const char *host = dfn_result_key_str(sc->s, r, row, (size_t)host_dim, hb, sizeof hb, &hl);
    const char *pid = dfn_result_key_str(sc->s, r, row, (size_t)host_dim + 1, pb, sizeof pb, &pl);
    uint32_t h32 = (uint32_t)hl;
    char *key = dfn_xmalloc(4 + hl + pl);
    memcpy(key, &h32, 4);
    memcpy(key + 4, host, hl);
    memcpy(key + 4 + hl, pid, pl);
    size_t k = 1 + sc->nlayers + dfn_strtab_intern(sc->procs, key, 4 + hl + pl);
    free(key);
    return k;
}

static figs *figs_at(figs **all, size_t *cap, size_t k)
{
    if (k >= *cap) {
        size_t old = *cap;
        dfn_grow((void **)all, cap, k + 1, sizeof **all);
        memset(*all + old, 0, (*cap - old) * sizeof **all);
        for (size_t i = old; i < *cap; i++) (*all)[i].seq_pct = NAN;
    }
    return &(*all)[k];
}

/* A store's diagnosis: its layers and analysis say what it has. */
static dfn_diag_src diag_of_store(const dfn_store *s, const dfn_layerset *ls, const dfn_analysis *an, int threads)
{
    return (dfn_diag_src){ .s = s, .threads = threads, .layers = ls ? dfn_layerset_layers(ls) : NULL,
                           .overlap = an && an->overlap, .access = an && an->access };
}

/* What every diagnosis starts from: the findings (with the rules that
 * cannot be judged), the metrics of its two passes ([0] by operation,
 * [1] the analysis metrics of a whole scope), and the selection's POSIX
 * and STDIO calls, whose time I/O time per operation is (the MPI-IO and
 * HDF5 calls above them have classes too, and would count it twice). */
static dfn_findings *diag_begin(const dfn_diag_src *src, const dfn_analysis *an, const dfn_filter *selection,
                                uint64_t metrics[2], dfn_filter *posix)
{
    dfn_findings *out = dfn_xcalloc(1, sizeof *out);
    bool ov = src->overlap;
    /* (a runner's merged rows say whether the set's compute matched) */
    out->no_compute = !ov || (!src->run && dfn_overlap_ncompute(an->overlap) == 0);
    out->no_access = !src->access;
    metrics[0] = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_BYTES) | DFN_M_BIT(DFN_M_SIZE_MEAN);
    metrics[1] = DFN_M_BIT(DFN_M_FILES) | DFN_M_BIT(DFN_M_SHARED_FILES) | DFN_M_BIT(DFN_M_COUNT);
    if (ov) metrics[1] |= DFN_M_BIT(DFN_M_IO_BUSY_S) | DFN_M_BIT(DFN_M_EXPOSED_S);
    if (!out->no_access) metrics[1] |= DFN_M_BIT(DFN_M_SEQ_PCT);
    dfn_filter_parse("cat=POSIX|STDIO", posix, NULL, 0);
    if (selection) dfn_filter_append(posix, selection);
    return out;
}

dfn_findings *dfn_diagnose(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *selection,
                           const dfn_analysis *an, const dfn_thresholds *t, int threads, char *err, size_t errlen)
{
    dfn_diag_src src = diag_of_store(s, ls, an, threads);
    return dfn_diagnose_via(&src, ls, selection, an, t, err, errlen);
}

dfn_findings *dfn_diagnose_via(const dfn_diag_src *src, const dfn_layerset *ls, const dfn_filter *selection,
                               const dfn_analysis *an, const dfn_thresholds *t, char *err, size_t errlen)
{
    uint64_t metrics[2];
    dfn_filter posix;
    dfn_findings *out = diag_begin(src, an, selection, metrics, &posix);
    const dfn_layers *layers = src->layers;
    scopes sc = { src->s, layers ? layers->n + 1 : 0, dfn_strtab_new() };
    figs *all = NULL;
    size_t cap = 0;
    /* three groupings (selection, layer, process), each once by operation
     * and once for the analysis metrics of the whole scope */
    static const dfn_dimkind g_sel[] = { DFN_DIM_OP }, g_layer[] = { DFN_DIM_LAYER, DFN_DIM_OP },
                             g_proc[] = { DFN_DIM_HOST, DFN_DIM_PID, DFN_DIM_OP };
    const dfn_dimkind *groups[3] = { g_sel, g_layer, g_proc };
    size_t ngroup[3] = { 1, 2, 3 };
    bool ok = true;
    for (int gi = 0; gi < 3 && ok; gi++) {
        if (gi == 1 && !layers) continue;
        for (int pass = 0; pass < 2 && ok; pass++) {
            size_t nd = ngroup[gi] - (pass ? 1 : 0);   /* without the operation */
            dfn_result *r = run(src, ls, pass ? selection : &posix, groups[gi], nd, metrics[pass], an, out, err,
                                errlen);
            if (!r) { ok = false; break; }
            int layer_dim = gi == 1 ? 0 : -1, host_dim = gi == 2 ? 0 : -1;
            double m[DFN_M_COUNT_];
            for (size_t row = 0; row < r->nrows; row++) {
                dfn_result_row_full(r, row, m);
                figs_fold(figs_at(&all, &cap, scope_of(&sc, r, row, layer_dim, host_dim)), m, r, row, nd, pass);
            }
            dfn_result_free(r);
        }
    }
    if (ok) {
        dctx c = { out, t, src->overlap, src->access, NULL };
        size_t nscopes = 1 + sc.nlayers + dfn_strtab_count(sc.procs);
        for (size_t k = 0; k < nscopes && k < cap; k++) {
            char *where, *sf;
            dfn_scope scope;
            if (k == 0) {
                scope = DFN_SCOPE_SELECTION;
                where = dfn_xstrdup("selection");
                sf = dfn_xstrdup("");
            } else if (k <= sc.nlayers) {
                scope = DFN_SCOPE_LAYER;
                const char *name = dfn_layers_name(layers, k - 1);
                where = dfn_xasprintf("layer %s", name);
                dfn_filter f = {0};
                dfn_filter_add(&f, DFN_KEY_LAYER, NULL, DFN_EQ, name, strlen(name));
                sf = dfn_filter_text(&f);
                dfn_filter_free(&f);
            } else {
                scope = DFN_SCOPE_PROC;
                uint32_t id = (uint32_t)(k - 1 - sc.nlayers), hl;
                const char *key = dfn_strtab_str(sc.procs, id);
                memcpy(&hl, key, 4);
                char *hn = dfn_xstrndup(key + 4, hl), *pidtxt = dfn_xstrndup(key + 4 + hl, dfn_strtab_len(sc.procs, id) - 4 - hl);
                where = dfn_xasprintf("process %s%s%s", hn, *hn ? "/" : "", pidtxt);
                dfn_filter f = {0};
                if (*hn) dfn_filter_add(&f, DFN_KEY_HOST, NULL, DFN_EQ, hn, strlen(hn));
                dfn_filter_add(&f, DFN_KEY_PID, NULL, DFN_EQ, pidtxt, strlen(pidtxt));
                sf = dfn_filter_text(&f);
                dfn_filter_free(&f);
                free(hn);
                free(pidtxt);
            }
            eval_scope(&c, scope, where, sf, &all[k]);
            free(where);
            free(sf);
        }
    }
    free(all);
    dfn_strtab_free(sc.procs);
    dfn_filter_free(&posix);
    if (!ok) { dfn_findings_free(out); return NULL; }
    return out;
}

/* Where a row scope is and the terms that select it: a time bin is the
 * window of the bin. */
static void row_scope(const dfn_dim *by, const char *text, int64_t bin_us, char **where, char **sf)
{
    dfn_filter f = {0};
    char dn[256];
    if (by->kind == DFN_DIM_TIME) {
        double start;
        char end[64];
        dfn_parse_double(text, strlen(text), &start);
        dfn_fmt_us_s(llround(start * 1e6) + bin_us, end, sizeof end);
        *where = dfn_xasprintf("time %s-%s s", text, end);
        dfn_filter_add(&f, DFN_KEY_TIME, NULL, DFN_GE, text, strlen(text));
        dfn_filter_add(&f, DFN_KEY_TIME, NULL, DFN_LT, end, strlen(end));
    } else {
        *where = dfn_xasprintf("%s %s", dfn_dim_name(by, dn, sizeof dn), *text ? text : "(none)");
        dfn_dim_term_add(&f, by, text, strlen(text));
    }
    *sf = dfn_filter_text(&f);
    dfn_filter_free(&f);
}

dfn_findings *dfn_diagnose_rows(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *selection,
                                const dfn_analysis *an, const dfn_thresholds *t, const dfn_dim *by, double bin_s,
                                int threads, char *err, size_t errlen)
{
    dfn_diag_src src = diag_of_store(s, ls, an, threads);
    return dfn_diagnose_rows_via(&src, ls, selection, an, t, by, bin_s, err, errlen);
}

dfn_findings *dfn_diagnose_rows_via(const dfn_diag_src *src, const dfn_layerset *ls, const dfn_filter *selection,
                                    const dfn_analysis *an, const dfn_thresholds *t, const dfn_dim *by, double bin_s,
                                    char *err, size_t errlen)
{
    if (by->kind != DFN_DIM_TIME && dfn_dim_key(by->kind) == DFN_KEY_COUNT) {
        snprintf(err, errlen, "diagnostics per row take one dimension other than event and size");
        return NULL;
    }
    uint64_t metrics[2];
    dfn_filter posix;
    dfn_findings *out = diag_begin(src, an, selection, metrics, &posix);
    bool ov = src->overlap, ax = src->access;
    dfn_strtab *keys = dfn_strtab_new();   /* a row's key text -> its scope, in key order */
    figs *all = NULL;
    size_t cap = 0;
    int64_t bin_us = 0;
    bool ok = true;
    /* the whole row first (every row has one), then by operation */
    for (int pass = 1; pass >= 0 && ok; pass--) {
        dfn_query q = { .ndims = pass ? 1 : 2, .filter = pass ? selection : &posix, .layers = ls, .sort = -1,
                        .metrics = metrics[pass], .bin_s = bin_s };
        if (an) dfn_analysis_apply(an, &q);
        q.dims[0] = *by;
        q.dims[1].kind = DFN_DIM_OP;
        dfn_result *r = diag_query(src, &q, out, err, errlen);
        if (!r) { ok = false; break; }
        bin_us = llround(r->bin_s * 1e6);
        char buf[64];
        for (size_t row = 0; row < r->nrows; row++) {
            size_t n;   /* the whole key, however long (a call path too): the explorer matches it whole */
            char *whole = by->kind == DFN_DIM_PATH ? dfn_result_key_dup(r, row, 0, &n) : NULL;
            const char *text = whole ? whole : dfn_result_key_str(src->s, r, row, 0, buf, sizeof buf, &n);
            double m[DFN_M_COUNT_];
            dfn_result_row_full(r, row, m);
            figs_fold(figs_at(&all, &cap, dfn_strtab_intern(keys, text, n)), m, r, row, q.ndims, pass);
            free(whole);
        }
        dfn_result_free(r);
    }
    for (uint32_t k = 0; ok && k < dfn_strtab_count(keys) && k < cap; k++) {
        char *where, *sf;
        const char *text = dfn_strtab_str(keys, k);
        row_scope(by, text, bin_us, &where, &sf);
        dctx c = { out, t, ov, ax, text };
        eval_scope(&c, DFN_SCOPE_ROW, where, sf, &all[k]);
        free(where);
        free(sf);
    }
    free(all);
    dfn_strtab_free(keys);
    dfn_filter_free(&posix);
    if (!ok) { dfn_findings_free(out); return NULL; }
    return out;
}

/* Text as one shell word in single quotes. */
static void shell_quote(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", out);
        else fputc(*s, out);
    }
    fputc('\'', out);
}

static void write_table(FILE *out, const dfn_findings *f, const dfn_thresholds *t, const char *compute, const char *where)
{
    char sz[32];
    dfn_fmt_bytes(t->v[DFN_TH_SMALL_SIZE], sz, sizeof sz);
    fprintf(out, "Diagnostics (thresholds: metadata>=%g%% small_time>=%g%% small_size<%s imbalance>%g%% random>%g%% exposed>%g%%)\n",
            t->v[DFN_TH_METADATA], t->v[DFN_TH_SMALL_TIME], sz, t->v[DFN_TH_IMBALANCE], t->v[DFN_TH_RANDOM],
            t->v[DFN_TH_EXPOSED]);
    fprintf(out, "compute: %s\n", compute && *compute ? compute : "none (every I/O is exposed)");
    if (f->no_compute)
        fprintf(out, "exposed I/O: not evaluated (%s)\n", compute && *compute ? "compute matched no event" : "no compute definition");
    size_t problems = 0;
    for (size_t i = 0; i < f->n; i++) problems += !f->v[i].info;
    fprintf(out, "%zu finding%s\n", problems, problems == 1 ? "" : "s");
    for (size_t i = 0; i < f->n; i++) {
        const dfn_finding *x = &f->v[i];
        char safe[1024];
        dfn_fmt_safe(x->where, strlen(x->where), safe, sizeof safe);
        if (x->info) fprintf(out, "\n%s: %s\n", safe, dfn_rule_name(x->rule));
        else if (x->rule == DFN_RULE_METADATA || x->rule == DFN_RULE_SMALL_READS || x->rule == DFN_RULE_SMALL_WRITES)
            fprintf(out, "\n%s: %s (%.1f%% >= %g%%)\n", safe, dfn_rule_name(x->rule), x->value, x->threshold);
        else fprintf(out, "\n%s: %s (%.1f%% > %g%%)\n", safe, dfn_rule_name(x->rule), x->value, x->threshold);
        size_t fl = strlen(x->figures);
        char *fs = dfn_xmalloc(fl * 4 + 1);
        dfn_fmt_safe(x->figures, fl, fs, fl * 4 + 1);
        fprintf(out, "    %s\n    evidence: dfnav report", fs);
        free(fs);
        char *w = dfn_xasprintf("%s%s%s", where ? where : "", where && *where && *x->filter ? " " : "", x->filter);
        if (*w) { fputs(" --where ", out); shell_quote(out, w); }
        free(w);
        fprintf(out, " --by %s PATH...\n", x->by);
    }
}

int dfn_findings_write(FILE *out, const dfn_findings *f, const dfn_thresholds *t, const char *compute,
                       const char *where, int fmt)
{
    static const char *cols[] = { "scope", "where", "rule", "value_pct", "threshold", "info", "figures", "filter", "by" };
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    if (fmt == DFN_FMT_TABLE) {
        write_table(out, f, t, compute, where);
    } else if (fmt == DFN_FMT_CSV) {
        for (size_t c = 0; c < NCOLS; c++) {
            if (c) fputc(',', out);
            fputs(cols[c], out);
        }
        fputs("\r\n", out);
    } else {
        fputs("[", out);
    }
    for (size_t i = 0; fmt != DFN_FMT_TABLE && i < f->n; i++) {
        const dfn_finding *x = &f->v[i];
        static const char *scope_names[] = { "selection", "layer", "process", "row" };
        char v[32], th[32];
        dfn_fmt_double(x->value, v, sizeof v);
        dfn_fmt_double(x->threshold, th, sizeof th);
        const char *info = fmt == DFN_FMT_CSV ? (x->info ? "1" : "0") : (x->info ? "true" : "false");
        const char *cells[NCOLS] = { scope_names[x->scope], x->where, dfn_rule_name(x->rule), v, th, info,
                                     x->figures, x->filter, x->by };
        if (fmt == DFN_FMT_JSON) fputs(i ? ",\n {" : "\n {", out);
        for (size_t c = 0; c < NCOLS; c++) {
            if (fmt == DFN_FMT_CSV) {
                if (c) fputc(',', out);
                dfn_csv_field(out, cells[c], strlen(cells[c]));
                continue;
            }
            if (c) fputs(", ", out);
            dfn_json_string(out, cols[c], strlen(cols[c]));
            fputs(": ", out);
            if (c >= 3 && c <= 5) fputs(cells[c], out);   /* numbers and the flag */
            else dfn_json_string(out, cells[c], strlen(cells[c]));
        }
        fputs(fmt == DFN_FMT_CSV ? "\r\n" : "}", out);
    }
    if (fmt == DFN_FMT_JSON) fputs(f->n ? "\n]\n" : "]\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}

void dfn_findings_free(dfn_findings *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].where);
        free(f->v[i].key);
        free(f->v[i].figures);
        free(f->v[i].filter);
        free(f->v[i].by);
    }
    free(f->v);
    free(f);
}
