/* The explorer's view model: a stack of drill levels, each a grouping of
 * the events that the levels above selected, with its own filter, time
 * window, sort, cursor and result. Every table comes from dfn_query_run,
 * the same path as `dfnav report`. No curses here. */
#include "view.h"
#include "dfnav/remote.h"
#include "dfnav/export.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const pivot_item view_pivots[] = {
    { DFN_DIM_TIME, "time", 't' }, { DFN_DIM_HOST, "host", 'h' }, { DFN_DIM_PROC, "process", 'p' },
    { DFN_DIM_TID, "thread", 'T' }, { DFN_DIM_LAYER, "layer", 'l' }, { DFN_DIM_CAT, "category", 'c' },
    { DFN_DIM_FUNC, "function", 'f' }, { DFN_DIM_CLASS, "I/O class", 'i' }, { DFN_DIM_OP, "I/O op", 'o' },
    { DFN_DIM_FILE, "file", 'F' }, { DFN_DIM_PATTERN, "file pattern", 'P' },
    { DFN_DIM_PART, "file part", 'n' }, { DFN_DIM_DIR, "directory", 'd' },
    { DFN_DIM_FS, "file system", 's' }, { DFN_DIM_SIZEBIN, "transfer size", 'z' }, { DFN_DIM_PID, "pid", 'I' },
    { DFN_DIM_ARG, "argument...", 'a' }, { DFN_DIM_EVENT, "calls", 'e' },
};
const size_t view_npivots = sizeof view_pivots / sizeof view_pivots[0];

const char *view_dim_title(const dfn_dim *d)
{
    static _Thread_local char buf[80];
    switch (d->kind) {
    case DFN_DIM_TIME: return "time range";
    case DFN_DIM_PROC: return "process";
    case DFN_DIM_TID: return "thread";
    case DFN_DIM_FUNC: return "function";
    case DFN_DIM_CAT: return "category";
    case DFN_DIM_CLASS: return "I/O class";
    case DFN_DIM_OP: return "I/O op";
    case DFN_DIM_PATTERN: return "file pattern";
    case DFN_DIM_PART: return "file part";
    case DFN_DIM_FS: return "file system";
    case DFN_DIM_SIZEBIN: return "transfer size";
    case DFN_DIM_EVENT: return "calls";
    default: return dfn_dim_name(d, buf, sizeof buf);
    }
}

bool view_is_calls(const level *l) { return l->dim.kind == DFN_DIM_EVENT; }

level *view_top(view *v) { return &v->lv[v->nlv - 1]; }

static void level_free(level *l)
{
    free(l->flame_depth);
    dfn_filter_free(&l->base);
    free(l->user);
    free(l->crumb);
    free(l->dim.arg);
    dfn_compare_free(l->res);
    dfn_cresult_free(&l->tracks);
    dfn_strtab_free(l->marks);
    dfn_result_free(l->facts);
    memset(l, 0, sizeof *l);
}

/* A run's span in seconds (a remote run's outline has its span, no events). */
static double run_span(const dfn_run *r) { return r->s->n || r->remote ? (r->s->t1 - r->s->t0) / 1e6 : 0; }

/* The longest run's span in seconds: time windows are relative to each
 * run's start. */
static double view_span(const view *v)
{
    double span = 0;
    for (size_t k = 0; k < v->nruns; k++)
        if (run_span(&v->runs[k]) > span) span = run_span(&v->runs[k]);
    return span;
}

/* Whether every run has the index (an analysis part, by offset): a
 * remote run's holders built each. */
static bool runs_have(const view *v, bool (*has)(const dfn_analysis *))
{
    for (size_t k = 0; k < v->nruns; k++)
        if (!v->runs[k].remote && (!v->runs[k].an || !has(v->runs[k].an))) return false;
    return v->nruns > 0;
}
static bool has_overlap(const dfn_analysis *an) { return an->overlap != NULL; }
static bool has_tree(const dfn_analysis *an) { return an->tree != NULL; }
static bool has_access(const dfn_analysis *an) { return an->access != NULL; }

int view_timeline_lines(const view *v) { return v->nruns <= 2 ? 2 : (int)v->nruns; }
int view_header_lines(const view *v) { return v->labels ? 2 : 1; }
/* what the breadcrumb and filter lines, the timeline, its tracks and
 * axis, the header, the status line and the key bar leave for rows */
int view_table_lines(const view *v, int rows) { return rows - 2 - view_timeline_lines(v) - view_track_lines(v) - 1 - 3; }

uint32_t view_call(const level *l, size_t row, size_t *run)
{
    uint32_t r = dfn_compare_rep_row(l->res, row, run);
    return l->res->res[*run]->events[r];
}

const dfn_store *view_call_store(const level *l, size_t run) { return l->res->res[run]->store; }

bool view_many_hosts(const view *v, size_t run)
{
    const dfn_run *r = &v->runs[run];
    if (r->remote) return r->remote->outline->run[r->remote_run].many_hosts;
    for (size_t i = 1; i < r->s->nlanes; i++)
        if (r->s->lanes[i].host != r->s->lanes[0].host) return true;
    return false;
}

static void level_default_sort(level *l)
{
    bool by_key = l->dim.kind == DFN_DIM_TIME || l->dim.kind == DFN_DIM_EVENT;
    l->sort = by_key ? -1 : DFN_M_TIME_S;
    l->sort_col = 0;
    l->desc = !by_key;
}

static level *view_push(view *v)
{
    dfn_grow((void **)&v->lv, &v->lvcap, v->nlv + 1, sizeof *v->lv);
    level *l = &v->lv[v->nlv++];
    memset(l, 0, sizeof *l);
    return l;
}

/* A new level on top of the stack; *below is the level it opens from (the
 * push may have moved the stack). */
static level *level_open(view *v, level **below)
{
    level *c = view_push(v);
    *below = &v->lv[v->nlv - 2];
    return c;
}

/* Queries the level just opened; when that fails it goes, as if never
 * opened, and the one below shows again. */
static bool level_commit(view *v, char *err, size_t errlen)
{
    if (view_refresh(v, err, errlen)) return true;
    level_free(&v->lv[--v->nlv]);
    return false;
}

dfn_run_opts view_run_opts(const ui_opts *o)
{
    return (dfn_run_opts){ .layers = o->layers, .compute = o->compute, .io = o->io, .overlap_host = o->overlap_host,
                           .threads = o->threads };
}

/* The analyses need asks for, into an; without a compute definition the
 * rest still helps. */
static bool view_analyse(dfn_analysis *an, const dfn_store *s, const dfn_layerset *ls, const ui_opts *o,
                         unsigned need, char *err, size_t cap)
{
    dfn_run_opts ro = view_run_opts(o);
    if (dfn_run_analyse(an, s, ls, &ro, need, err, cap)) return true;
    char ignore[64];
    dfn_analysis_build(an, s, ls, NULL, false, need & (DFN_NEED_TREE | DFN_NEED_ACCESS | DFN_NEED_TILES), ignore,
                       sizeof ignore);
    return false;
}

view_set *view_set_new(dfn_store *store, const ui_opts *o, const char *preset, unsigned need)
{
    view_set *vs = dfn_xcalloc(1, sizeof *vs);
    vs->full = (need & DFN_NEED_TREE) != 0;
    dfn_run_opts ro = view_run_opts(o);
    if (dfn_runset_layers(&vs->rs, store, &ro, preset, vs->err, sizeof vs->err) && need)
        view_analyse(&vs->rs.an, store, vs->rs.ls, o, need, vs->an_err, sizeof vs->an_err);
    return vs;
}

bool view_set_extra(const view_set *vs, const ui_opts *o, dfn_analysis *x, char *err, size_t cap)
{
    return view_analyse(x, vs->rs.store, vs->rs.ls, o, VIEW_NEED_ALL, err, cap);
}

void view_set_release(view_set *vs)
{
    if (!vs) return;
    dfn_runset_release(&vs->rs);
    free(vs);
}

void view_set_free(view_set *vs)
{
    if (!vs) return;
    dfn_runset_free(&vs->rs);
    free(vs);
}

void view_init(view *v, view_set *const *sets, size_t nruns, char *const *labels)
{
    memset(v, 0, sizeof *v);
    v->nruns = nruns;
    v->runs = dfn_xcalloc(nruns, sizeof *v->runs);
    for (size_t k = 0; k < nruns; k++) v->runs[k] = dfn_runset_run(&sets[k]->rs);
    if (labels) {
        v->labels = dfn_xcalloc(nruns, sizeof *v->labels);
        for (size_t k = 0; k < nruns; k++) v->labels[k] = dfn_xstrdup(labels[k]);
    }
    for (int c = 0; c < COL_N; c++) v->col_on[c] = true;
    /* the analysis columns cost a scan's worth each: the process levels
     * always show compute, I/O and exposed; elsewhere they, self time and
     * sequential share are there for the asking (c) */
    v->col_on[COL_COMPUTE] = v->col_on[COL_IO] = v->col_on[COL_EXPOSED] = false;
    v->col_on[COL_SELF] = v->col_on[COL_SEQ] = false;
    v->col_on[COL_ACTIVE] = false;   /* calls running in a row, not only starting: asked for with c */
    v->col_on[COL_IDLE] = false;     /* the gaps between a row's calls: asked for with c */
    v->col_on[COL_CTR] = false;      /* a counter's mean while the row's calls ran */
    v->table_rows = 16;
    v->screen_cols = 80;
    v->spark_w = 12;
    v->calls_limit = VIEW_CALLS_LIMIT;
    level *l = view_push(v);
    l->dim.kind = DFN_DIM_TIME;
    l->win_lo = 0;
    l->win_hi = view_span(v);
    l->win_cap = INFINITY;
    l->crumb = dfn_xstrdup("All");
    level_default_sort(l);
}

void view_free(view *v)
{
    for (size_t i = 0; i < v->nlv; i++) level_free(&v->lv[i]);
    free(v->lv);
    free(v->search);
    free(v->match);
    free(v->match_text);
    for (size_t k = 0; v->labels && k < v->nruns; k++) free(v->labels[k]);
    free(v->labels);
    free(v->runs);
    view_tracks_free(v);
    memset(v, 0, sizeof *v);
}

/* Appends the terms typed at level l (checked when typed). */
static void level_user_terms(const level *l, dfn_filter *out)
{
    dfn_filter uf;
    char err[256];
    if (l->user && dfn_filter_parse(l->user, &uf, err, sizeof err)) {
        dfn_filter_append(out, &uf);
        dfn_filter_free(&uf);
    }
}

/* Whether l's window, and the part of it to open (width w), hold any
 * time: in the first moments of a load the run may span none, and a
 * window of no time opened then would stay one. */
static bool window_has_time(const level *l, double w, char *err, size_t errlen)
{
    if (w > 0 && l->win_hi > l->win_lo) return true;
    snprintf(err, errlen, "no time to open yet: wait for the load");
    return false;
}

/* A level c below l starts with l's selection and window. */
static void level_inherit(const level *l, level *c)
{
    dfn_filter_append(&c->base, &l->base);
    level_user_terms(l, &c->base);
    c->win_lo = l->win_lo;
    c->win_hi = l->win_hi;
    c->win_cap = l->typed && l->typed_hi < l->win_cap ? l->typed_hi : l->win_cap;
}

/* A window edge as a filter's time: to the µs when it is one (as zooms
 * and bins make them: exact over years, short for round numbers), else
 * as typed, so that time<1.4999994 selects what report's does (rounded
 * to 1.499999 it dropped a call at 1.499999 s). */
static size_t view_time_bound(double s, char *num, size_t cap)
{
    double us = s * 1e6, r = nearbyint(us);
    if (fabs(us - r) < 1e-3) return dfn_fmt_us_s(llround(us), num, cap);
    dfn_fmt_double(s, num, cap);
    return strlen(num);
}

void view_filter(const view *v, const level *l, dfn_filter *out)
{
    memset(out, 0, sizeof *out);
    dfn_filter_append(out, &l->base);
    double span = view_span(v);
    char num[64];
    if (l->win_lo > 0) {
        size_t n = view_time_bound(l->win_lo, num, sizeof num);
        dfn_filter_add(out, DFN_KEY_TIME, NULL, DFN_GE, num, n);
    }
    if (l->win_hi < span) {
        size_t n = view_time_bound(l->win_hi, num, sizeof num);
        dfn_filter_add(out, DFN_KEY_TIME, NULL, DFN_LT, num, n);
    }
    level_user_terms(l, out);
}

/* Two sparklines a row (compute over I/O): the process levels. */
static bool view_split_spark(const level *l)
{
    dfn_dimkind k = l->dim.kind;
    return k == DFN_DIM_PROC || k == DFN_DIM_PID || k == DFN_DIM_HOST || k == DFN_DIM_TID;
}

bool view_shows_compute(const level *l) { return view_split_spark(l); }

/* Whether a column means something at level l with what is built. */
static bool view_col_applies(const view *v, const level *l, col_id c)
{
    switch (c) {
    case COL_COMPUTE: case COL_IO: case COL_EXPOSED:
        return runs_have(v, has_overlap) && !view_is_calls(l);
    case COL_SELF: return runs_have(v, has_tree);
    case COL_SEQ: return runs_have(v, has_access);
    case COL_CTR: return view_ctr_series(v) && !view_is_calls(l);
    /* comparing, rows have no room for a line per run */
    case COL_SPARK: return !v->labels;
    default: return true;
    }
}

const view_colspec view_cols[COL_N] = {
    [COL_KEY] = { "", 0, -1 },
    [COL_COUNT] = { "count", 7, DFN_M_COUNT },
    [COL_ACTIVE] = { "active", 6, DFN_M_ACTIVE },
    [COL_TIME] = { "time", 8, DFN_M_TIME_S },
    [COL_BUSY] = { "busy", 8, DFN_M_BUSY_S },
    [COL_IDLE] = { "idle", 8, DFN_M_IDLE_S },
    [COL_PCT] = { "% time", 7, DFN_M_PCT_TIME },
    [COL_BYTES] = { "bytes", 9, DFN_M_BYTES },
    [COL_BW] = { "bytes/time", 11, DFN_M_BW_MIBPS },
    [COL_P90] = { "p90", 8, DFN_M_P90_US },
    [COL_MAX] = { "max", 8, DFN_M_MAX_US },
    [COL_COMPUTE] = { "compute", 8, DFN_M_COMPUTE_S },
    [COL_IO] = { "I/O", 8, DFN_M_IO_BUSY_S },
    [COL_EXPOSED] = { "exposed", 8, DFN_M_EXPOSED_S },
    [COL_SELF] = { "self", 8, DFN_M_SELF_S },
    [COL_SEQ] = { "seq", 6, DFN_M_SEQ_PCT },
    [COL_CTR] = { "ctr", 9, DFN_M_COUNT_ },   /* the counter metric of view_ctr_series */
    [COL_SPARK] = { "activity", 10, -1 },
};

/* Whether l shows column c: chosen with c, or compute, I/O and exposed on
 * the process levels, which always show them. */
static bool view_col_wanted(const view *v, const level *l, col_id c)
{
    /* comparing, three groups more would push the time off the screen */
    bool forced = (c == COL_COMPUTE || c == COL_IO || c == COL_EXPOSED) && view_split_spark(l) && !v->labels;
    return v->col_on[c] || forced;
}

/* Which columns fit: the least useful go first when the screen is narrow.
 * COL_KEY in an order marks where the sparkline starts to narrow, rather
 * than lose more numbers. */
void view_layout(const view *v, const level *l, bool *show, int *spark_w, int *key_w)
{
    /* where the analysis columns apply they matter more than most */
    static const col_id drop_order[] = { COL_BW, COL_BUSY, COL_IDLE, COL_P90, COL_IO, COL_COMPUTE, COL_KEY, COL_MAX, COL_BYTES, COL_PCT,
                                         COL_ACTIVE, COL_CTR, COL_SELF, COL_SEQ, COL_SPARK, COL_TIME, COL_EXPOSED, COL_COUNT };
    /* where rows show compute over I/O, the count goes before the lines */
    static const col_id drop_split[] = { COL_BW, COL_BUSY, COL_IDLE, COL_P90, COL_MAX, COL_BYTES, COL_PCT, COL_ACTIVE, COL_CTR, COL_SELF, COL_SEQ,
                                         COL_COUNT, COL_COMPUTE, COL_KEY, COL_SPARK, COL_TIME, COL_IO, COL_EXPOSED };
    /* comparing, a group per metric: the time first, then bytes and count */
    static const col_id drop_compare[] = { COL_BW, COL_BUSY, COL_IDLE, COL_P90, COL_MAX, COL_ACTIVE, COL_CTR, COL_PCT, COL_SELF, COL_SEQ, COL_IO,
                                           COL_COMPUTE, COL_EXPOSED, COL_COUNT, COL_BYTES, COL_TIME, COL_SPARK, COL_KEY };
    _Static_assert(sizeof drop_order == sizeof drop_split && sizeof drop_order == sizeof drop_compare,
                   "each order lists every column");
    _Static_assert(sizeof drop_order / sizeof drop_order[0] == COL_N, "each order lists every column");
    int cols = v->screen_cols;
    for (int c = 0; c < COL_N; c++) show[c] = view_col_wanted(v, l, (col_id)c) && view_col_applies(v, l, (col_id)c);
    show[COL_KEY] = true;
    int min_key = cols >= 100 ? 28 : 26;   /* room for host/pid/tid */
    if (l->dim.kind == DFN_DIM_LAYER) min_key = 24;   /* layer names are short */
    *spark_w = cols >= 140 ? 20 : cols >= 100 ? 14 : 10;
    /* compute over I/O is the point of the process levels: room for it */
    bool split = view_split_spark(l) && runs_have(v, has_overlap) && !v->labels;
    if (split) *spark_w = cols >= 140 ? 40 : cols >= 100 ? 24 : 16;
    const col_id *order = v->labels ? drop_compare : split ? drop_split : drop_order;
    size_t n = sizeof drop_order / sizeof drop_order[0], k = 0;
    for (;;) {
        int used = 0;
        for (int c = 1; c < COL_N; c++) if (show[c]) used += view_col_width(v, (col_id)c, *spark_w) + 1;
        *key_w = cols - used - 1;
        if (*key_w >= min_key) break;
        while (k < n && order[k] != COL_KEY && !show[order[k]]) k++;
        if (k == n) break;
        if (order[k] == COL_KEY) {
            /* narrowing helps only if it alone makes the key fit */
            int spare = show[COL_SPARK] ? *spark_w - (split ? 12 : 6) : 0;
            if (spare > 0 && *key_w + spare >= min_key) { *spark_w -= min_key - *key_w; continue; }
            k++;
            continue;
        }
        show[order[k]] = false;
    }
    /* the lines take what the key does not need */
    if (split && show[COL_SPARK] && *key_w > min_key) { *spark_w += *key_w - min_key; *key_w = min_key; }
}


size_t view_group(const view *v, col_id c, int *cols, int *widths)
{
    size_t n = 0;
    int w = view_cols[c].width;
    if (!v->labels) { cols[0] = 0; widths[0] = w; return 1; }
    for (size_t k = 0; k < v->nruns && n < 14; k++) { cols[n] = (int)k; widths[n++] = w; }
    if (v->nruns == 2) {
        cols[n] = DFN_CMP_DIFF; widths[n++] = w + 1;   /* room for the sign */
        cols[n] = DFN_CMP_RATIO; widths[n++] = VIEW_RATIO_W;
    }
    return n;
}

int view_col_width(const view *v, col_id c, int spark_w)
{
    if (c == COL_SPARK) return spark_w;
    if (!v->labels) return view_cols[c].width;
    int cols[16], widths[16], total = -1;
    size_t n = view_group(v, c, cols, widths);
    for (size_t i = 0; i < n; i++) total += widths[i] + 1;
    return total;
}

/* Only what the screen shows: the latency histogram behind p90, the busy
 * time's union (a layer's for every layer of a call) and the analysis
 * sweeps are the dearest parts of a scan, and narrow screens leave them
 * out. The status line's facts of the selected row come behind the keys
 * (facts_poll): the slowest process's per-process sums were a tenth to a
 * third of a scan, the transfer-size bins a fifth. */
static uint64_t view_metrics(const bool *show)
{
    uint64_t m = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_PCT_TIME) |
                 DFN_M_BIT(DFN_M_BYTES) | DFN_M_BIT(DFN_M_BW_MIBPS) | DFN_M_BIT(DFN_M_MAX_US);
    if (show[COL_BUSY]) m |= DFN_M_BIT(DFN_M_BUSY_S);
    for (int c = COL_P90; c <= COL_SEQ; c++)
        if (show[c]) m |= DFN_M_BIT(view_cols[c].metric);
    if (show[COL_ACTIVE]) m |= DFN_M_BIT(DFN_M_ACTIVE);
    if (show[COL_IDLE]) m |= DFN_M_BIT(DFN_M_IDLE_S);
    return m;
}

/* What the cursor's row is, so the cursor can follow it when the rows are
 * made again (a newer snapshot while loading, other bins after a resize):
 * a time range by its middle, any other row by its key, a call by its
 * start and function. */
typedef struct {
    bool on, time;
    double t;
    char *key;
} row_anchor;

static double bin_lo(const level *l, size_t row);
static bool view_query(view *v, char *err, size_t errlen);
static void flame_order(const view *v, level *l);
static void call_anchor_key(const view *v, const level *l, size_t row, char *buf, size_t cap);

static void anchor_take(const view *v, const level *l, row_anchor *an)
{
    memset(an, 0, sizeof *an);
    if (!l->res || l->cursor >= l->res->nrows || l->res_kind != l->dim.kind || l->dim.kind == DFN_DIM_ARG) return;
    an->on = true;
    if (l->dim.kind == DFN_DIM_TIME) {
        /* the range's start (just inside it): bins re-cut finer keep the
         * cursor on the first part, coarser on the one that holds it;
         * absolute, as a later snapshot may start earlier */
        an->time = true;
        double bin = l->res->res[0]->bin_s, lo = bin_lo(l, l->cursor);
        an->t = lo + (bin < 2e-6 ? bin / 2 : 1e-6) + v->runs[0].s->t0 / 1e6;
        return;
    }
    char key[4096];
    size_t len = 0;
    if (view_is_calls(l)) {
        call_anchor_key(v, l, l->cursor, key, sizeof key);
        an->key = dfn_xstrdup(key);
        return;
    }
    an->key = dfn_compare_key_dup(l->res, l->cursor, 0, &len);
}

/* Puts the cursor back on the anchored row if the new rows have it. */
static void anchor_find(const view *v, level *l, row_anchor *an)
{
    if (!an->on) return;
    char key[4096];
    double t0 = v->runs[0].s->t0 / 1e6;
    size_t alen = an->key ? strlen(an->key) : 0;
    /* only call paths need a whole copy: other keys are interned or short */
    bool dup = l->dim.kind == DFN_DIM_PATH;
    for (size_t row = 0; row < l->res->nrows; row++) {
        bool hit;
        if (an->time) {
            double lo = bin_lo(l, row) + t0;
            hit = an->t >= lo && an->t < lo + l->res->res[0]->bin_s;
        } else if (view_is_calls(l)) {
            call_anchor_key(v, l, row, key, sizeof key);
            hit = strcmp(key, an->key) == 0;
        } else if (dup) {
            size_t len;
            char *k = dfn_compare_key_dup(l->res, row, 0, &len);
            hit = len == alen && memcmp(k, an->key, len) == 0;
            free(k);
        } else {
            size_t len;
            const char *k = dfn_compare_key_str(l->res, row, 0, key, sizeof key, &len);
            hit = len == alen && memcmp(k, an->key, len) == 0;
        }
        if (hit) { l->cursor = row; break; }
    }
    free(an->key);
    an->key = NULL;
}

uint64_t view_shown_metrics(const view *v, const level *l, const char **ctr)
{
    bool show[COL_N];
    int sw, kw;
    view_layout(v, l, show, &sw, &kw);
    if (ctr) *ctr = show[COL_CTR] ? view_ctr_series(v) : NULL;
    return view_metrics(show);
}

/* Whether l's rows lack a metric its columns would show now: the screen
 * grew, or columns were chosen, while a level above was on top. */
static bool view_missing_metrics(const view *v, const level *l)
{
    if (!l->res || !l->res->nruns || view_is_calls(l) || l->lanes || l->flame) return false;
    return (view_shown_metrics(v, l, NULL) & ~l->res->res[0]->metrics) != 0;
}

level *view_level_of(view *v, unsigned gen)
{
    for (size_t k = v->nlv; gen && k-- > 0;)
        if (v->lv[k].res && v->lv[k].res_gen == gen) return &v->lv[k];
    return NULL;
}

bool view_row_is_process(const level *l) { return l->dim.kind == DFN_DIM_PROC || l->dim.kind == DFN_DIM_PID; }

size_t view_facts_row(const level *l, size_t row)
{
    const dfn_result *s = l->facts;
    if (!s || !l->res || !l->res->nruns || row >= l->res->res[0]->nrows) return SIZE_MAX;
    const dfn_result *r = l->res->res[0];
    size_t lo = 0, hi = s->nrows;
    while (lo < hi) {   /* s is in key order */
        size_t mid = lo + (hi - lo) / 2;
        int c = dfn_result_key_cmp(s, mid, r, row);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return SIZE_MAX;
}

bool view_refresh(view *v, char *err, size_t errlen)
{
    row_anchor an;
    anchor_take(v, view_top(v), &an);
    bool ok = view_query(v, err, errlen);
    if (ok) anchor_find(v, view_top(v), &an);
    free(an.key);
    return ok;
}

/* Queries the top level's rows again (its cursor kept by number). */
static bool view_query(view *v, char *err, size_t errlen)
{
    level *l = view_top(v);
    dfn_filter f;
    view_filter(v, l, &f);
    bool show[COL_N];   /* the columns that fit: what to compute */
    int sw, kw;
    view_layout(v, l, show, &sw, &kw);
    dfn_query q = { .filter = &f, .desc = l->desc, .metrics = view_metrics(show), .threads = v->threads };
    /* the ctr column: the counter metric of the series it shows */
    dfn_ctrs ctrs = { .n = 0 };
    const char *series = show[COL_CTR] ? view_ctr_series(v) : NULL;
    if (series) { ctrs.series[0] = (char *)series; ctrs.n = 1; q.ctrs = &ctrs; }
    bool have = l->sort < DFN_M_COUNT_ ? l->sort < 0 || (q.metrics & DFN_M_BIT(l->sort)) : series != NULL;
    if (!have) l->sort = DFN_M_TIME_S, l->sort_col = 0;   /* its column went */
    q.sort = l->sort;
    q.spark_split = view_split_spark(l) && !v->labels;
    q.dims[0].kind = l->dim.kind;
    q.dims[0].arg = l->dim.arg;
    q.dims[0].own = l->dim.own;
    q.ndims = 1;
    if (l->dim.kind == DFN_DIM_TIME) {
        /* bins sized to the screen: about one row each */
        int rows = v->table_rows > 1 ? v->table_rows : 1;
        q.bin_s = dfn_bin_fit(l->win_hi - l->win_lo, (uint64_t)rows);
    }
    if (view_is_calls(l)) q.top = v->calls_limit;
    if (v->spark_w > 0) q.spark_bins = (size_t)v->spark_w;
    if (l->lanes) {
        /* a cell per column: each process's I/O, compute and call time in
         * it (its sparklines: no busy union, which no cell shows) */
        q.spark_bins = (size_t)view_lanes_width(v);
        q.spark_split = runs_have(v, has_overlap) && !v->labels;
        q.metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | (q.spark_split ? DFN_M_OVERLAP : 0);
    }
    if (l->flame) {
        /* total and self time per path; the tree gives the order */
        q.metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_SELF_S) | DFN_M_BIT(DFN_M_PCT_TIME);
        q.spark_split = false;
    }
    dfn_compare *r = dfn_compare_query(v->runs, v->nruns, &q, l->sort_col, (const char *const *)v->labels, err, errlen);
    if (!r) { dfn_filter_free(&f); return false; }
    dfn_compare_free(l->res);
    l->res = r;
    dfn_strtab_free(l->marks);   /* of the rows before */
    l->marks = NULL;
    dfn_result_free(l->facts);
    l->facts = NULL;
    l->res_gen = ++v->res_gen;
    l->res_at = dfn_now();
    l->res_kind = l->dim.kind;
    if (l->flame) flame_order(v, l);
    if (l->lanes && l->lane_col >= r->res[0]->spark_bins) l->lane_col = r->res[0]->spark_bins ? r->res[0]->spark_bins - 1 : 0;
    if (l->cursor >= r->nrows) l->cursor = r->nrows ? r->nrows - 1 : 0;
    view_tracks_query(v, l, &f);
    dfn_filter_free(&f);
    return true;
}

/* The start of a time level's row: its bin's lower edge (the same bins in
 * every run). */
static double bin_lo(const level *l, size_t row)
{
    const dfn_compare *c = l->res;
    size_t k;
    uint32_t rr = dfn_compare_rep_row(c, row, &k);
    const dfn_result *r = c->res[k];
    return r->bin0_s + dfn_result_key(r, rr, 0)->id * r->bin_s;
}

int view_range_decimals(double w) { return w >= 1 ? 1 : w >= 0.1 ? 2 : w >= 0.001 ? 3 : 6; }
int view_cell_decimals(double w) { return w >= 1 ? 1 : w >= 0.01 ? 3 : 6; }

size_t view_key_text(const view *v, const level *l, size_t row, char *buf, size_t cap)
{
    if (!l->res || row >= l->res->nrows) { if (cap) buf[0] = 0; return 0; }
    double bin = l->res->res[0]->bin_s;
    if (l->dim.kind == DFN_DIM_TIME) {
        double lo = bin_lo(l, row), hi = lo + bin;
        if (hi > l->win_hi) hi = l->win_hi;
        if (lo < l->win_lo) lo = l->win_lo;   /* bins sit on round edges, the window need not */
        char a[32], b[32];
        int dec = view_range_decimals(bin);   /* as many decimals as the bin width needs */
        snprintf(a, sizeof a, "%.*f", dec, lo);
        snprintf(b, sizeof b, "%.*f", dec, hi);
        int n = snprintf(buf, cap, "%s-%s s", a, b);
        return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
    }
    if (view_is_calls(l)) {
        size_t run;
        uint32_t i = view_call(l, row, &run);
        int n = snprintf(buf, cap, "%.6f", dfn_store_ts(view_call_store(l, run), i) / 1e6);
        return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
    }
    const dfn_compare *c = l->res;
    size_t k;
    uint32_t rr = dfn_compare_rep_row(c, row, &k);
    return dfn_result_key_text(c->res[k]->store, c->res[k], rr, 0, buf, cap);
}

int view_lanes_width(const view *v)
{
    int w = v->screen_cols - LANE_LABEL_W - 1;
    return w < 8 ? 8 : w;
}

static bool lane_dim(dfn_dimkind k)
{
    return k == DFN_DIM_PROC || k == DFN_DIM_TID || k == DFN_DIM_HOST || k == DFN_DIM_RANK || k == DFN_DIM_PID;
}

bool view_lanes_open(view *v, char *err, size_t errlen)
{
    level *l = view_top(v);
    if (l->lanes) { view_back(v); return true; }   /* L again: back to the table */
    if (v->labels) {
        snprintf(err, errlen, "lanes show one run: open a run on its own (dfnav PATH) for its lanes");
        return false;
    }
    dfn_dimkind k = lane_dim(l->dim.kind) ? l->dim.kind : DFN_DIM_PROC;
    level *c = level_open(v, &l);
    level_inherit(l, c);
    c->dim.kind = k;
    c->lanes = true;
    c->shade = LANE_IO;
    c->sort = -1;   /* lanes in name order (ranks in number order) */
    c->desc = false;
    c->crumb = dfn_xstrdup("lanes");
    return level_commit(v, err, errlen);
}

void view_lane_cell(const level *l, size_t col, double *lo, double *hi)
{
    const dfn_result *r = l->res->res[0];
    uint64_t nb = r->spark_bins ? r->spark_bins : 1;
    uint64_t span = (uint64_t)llround((r->win_hi_s - r->win_lo_s) * 1e6);
    if (span < nb) span = nb;
    /* as the engine cuts its sparkline bins */
    *lo = r->win_lo_s + (double)((col * span + nb - 1) / nb) / 1e6;
    *hi = r->win_lo_s + (double)(((col + 1) * span + nb - 1) / nb) / 1e6;
    if (*hi > r->win_hi_s) *hi = r->win_hi_s;
    if (*lo > *hi) *lo = *hi;   /* a cell past the last: empty, never inverted */
}

double view_lane_value(const level *l, int shade, size_t row, size_t col)
{
    const dfn_result *r = l->res->res[0];
    const double *a = shade == LANE_IO ? r->spark_io : shade == LANE_COMPUTE ? r->spark_cmp : r->spark;
    if (!a || row >= r->nrows || col >= r->spark_bins) return NAN;
    double lo, hi;
    view_lane_cell(l, col, &lo, &hi);
    return hi > lo ? a[row * r->spark_bins + col] / 1e6 / (hi - lo) : 0;
}

const char *view_shade_name(int shade)
{
    return shade == LANE_IO ? "I/O busy" : shade == LANE_COMPUTE ? "compute" : "call time";
}

bool view_lanes_drill(view *v, char *err, size_t errlen)
{
    level *l = view_top(v);
    if (!l->res || !l->res->nrows) { snprintf(err, errlen, "no lane to open"); return false; }
    double lo, hi;
    view_lane_cell(l, l->lane_col, &lo, &hi);
    if (!window_has_time(l, hi - lo, err, errlen)) return false;
    char key[4096];
    if (!view_key_text(v, l, l->cursor, key, sizeof key)) snprintf(key, sizeof key, "(none)");
    level *c = level_open(v, &l);
    view_select_row(v, l, l->cursor, c);
    c->win_lo = lo > l->win_lo ? lo : l->win_lo;
    c->win_hi = hi < l->win_hi ? hi : l->win_hi;
    if (hi < c->win_cap) c->win_cap = hi;
    c->dim.kind = DFN_DIM_LAYER;
    double cw = c->win_hi - c->win_lo;
    int dec = view_cell_decimals(cw);   /* as the status line gave the cell */
    c->crumb = dfn_xasprintf("%s %.*f-%.*f s", key, dec, c->win_lo, dec, c->win_hi);
    c->crumb_window = true;
    c->crumb_at = strlen(key) + 1;
    level_default_sort(c);
    return level_commit(v, err, errlen);
}

/* The flame level's rows in tree order: each path under its nearest
 * caller among the rows, a caller's children by total time (largest
 * first), depth first. */
static _Thread_local const dfn_result *flame_res;
static int flame_cmp(const void *a, const void *b)
{
    double x = dfn_result_metric(flame_res, *(const uint32_t *)a, DFN_M_TIME_S);
    double y = dfn_result_metric(flame_res, *(const uint32_t *)b, DFN_M_TIME_S);
    if (x != y) return x > y ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void flame_order(const view *v, level *l)
{
    free(l->flame_depth);
    l->flame_depth = NULL;
    view_flame_rows(v, l->res, &l->flame_depth);
}

/* Each result row's nearest caller among the shown rows (up[rr], r->nrows
 * for none), by the run's call tree. */
static void flame_up_tree(const dfn_calltree *t, const dfn_compare *c, uint32_t *up)
{
    const dfn_result *r = c->res[0];
    size_t n = c->nrows, np = dfn_calltree_npaths(t), nr = r->nrows;
    uint32_t *row_of = dfn_xmalloc((np ? np : 1) * sizeof *row_of);   /* node -> result row */
    memset(row_of, 0xff, (np ? np : 1) * sizeof *row_of);
    for (size_t k = 0; k < n; k++) {
        uint32_t node = dfn_result_key(r, c->row[k], 0)->id;
        if (node < np) row_of[node] = c->row[k];
    }
    for (size_t rr = 0; rr < nr; rr++) {
        uint32_t x = dfn_calltree_path_parent(t, dfn_result_key(r, rr, 0)->id);
        while (x != DFN_NOID && x < np && row_of[x] == UINT32_MAX) x = dfn_calltree_path_parent(t, x);
        up[rr] = x == DFN_NOID || x >= np ? (uint32_t)nr : row_of[x];   /* nr: the top */
    }
    free(row_of);
}

/* A call path's caller in its text ("f;g;h": "f;g"), *len cut to it;
 * false for a top one (a ';' in a name is escaped, \; ). */
static bool path_text_parent(const char *t, size_t *len)
{
    size_t cut = 0;
    bool any = false;
    for (size_t i = 0; i < *len; i++) {
        if (t[i] == '\\') { i++; continue; }
        if (t[i] == ';') cut = i, any = true;
    }
    if (any) *len = cut;
    return any;
}

unsigned view_path_split(const char *t, size_t len, char **name)
{
    size_t from = 0;
    unsigned depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '\\') { i++; continue; }
        if (t[i] == ';') from = i + 1, depth++;
    }
    char *n = dfn_xmalloc(len - from + 1);
    size_t w = 0;
    for (size_t i = from; i < len; i++) {
        if (t[i] == '\\' && i + 1 < len) i++;
        n[w++] = t[i];
    }
    n[w] = 0;
    *name = n;
    return depth;
}

/* The same by the rows' texts: a remote run's rows (merged partials) keep
 * their paths as text, and the call tree is its holders'. */
static void flame_up_text(const dfn_compare *c, uint32_t *up)
{
    const dfn_result *r = c->res[0];
    size_t nr = r->nrows;
    dfn_strtab *shown = dfn_strtab_new();
    uint32_t *row_of = dfn_xmalloc((c->nrows ? c->nrows : 1) * sizeof *row_of);
    for (size_t k = 0; k < c->nrows; k++) {
        size_t l;
        const char *t = dfn_result_key_str(NULL, r, c->row[k], 0, NULL, 0, &l);
        uint32_t before = dfn_strtab_count(shown), id = dfn_strtab_intern(shown, t, l);
        if (id == before) row_of[id] = c->row[k];   /* (each path's first row) */
    }
    for (size_t rr = 0; rr < nr; rr++) {
        size_t l;
        const char *t = dfn_result_key_str(NULL, r, rr, 0, NULL, 0, &l);
        uint32_t id = DFN_NOID;
        while (id == DFN_NOID && path_text_parent(t, &l)) id = dfn_strtab_find(shown, t, l);
        up[rr] = id == DFN_NOID ? (uint32_t)nr : row_of[id];
    }
    free(row_of);
    dfn_strtab_free(shown);
}

void view_flame_rows(const view *v, dfn_compare *c, uint16_t **depth)
{
    const dfn_calltree *t = v->runs[0].an ? v->runs[0].an->tree : NULL;
    if ((!t && !c->res[0]->keytext) || c->nruns != 1) return;
    const dfn_result *r = c->res[0];
    size_t n = c->nrows;
    /* each result row's caller among the rows, and its children */
    size_t nr = r->nrows;
    uint32_t *up = dfn_xmalloc((nr ? nr : 1) * sizeof *up), *nkids = dfn_xcalloc(nr + 1, sizeof *nkids);
    if (r->keytext) flame_up_text(c, up);
    else flame_up_tree(t, c, up);
    for (size_t rr = 0; rr < nr; rr++) nkids[up[rr]]++;
    size_t *first = dfn_xcalloc(nr + 2, sizeof *first);
    for (size_t k = 0; k <= nr; k++) first[k + 1] = first[k] + nkids[k];
    uint32_t *kids = dfn_xmalloc((nr ? nr : 1) * sizeof *kids);
    size_t *fill = dfn_xmalloc((nr + 1) * sizeof *fill);
    memcpy(fill, first, (nr + 1) * sizeof *fill);
    for (size_t rr = 0; rr < nr; rr++) kids[fill[up[rr]]++] = (uint32_t)rr;
    flame_res = r;
    for (size_t k = 0; k <= nr; k++) qsort(kids + first[k], first[k + 1] - first[k], sizeof *kids, flame_cmp);
    /* depth first from the top, children largest first */
    uint32_t *order = dfn_xmalloc((nr ? nr : 1) * sizeof *order);
    uint16_t *dep = dfn_xmalloc((nr ? nr : 1) * sizeof *dep);
    uint32_t *stack = dfn_xmalloc((nr + 1) * sizeof *stack), *sdepth = dfn_xmalloc((nr + 1) * sizeof *sdepth);
    size_t sp = 0, out = 0;
    for (size_t k = first[nr + 1]; k > first[nr]; k--) { stack[sp] = kids[k - 1]; sdepth[sp++] = 0; }
    while (sp) {
        uint32_t rr = stack[--sp], d = sdepth[sp];
        order[out] = rr;
        dep[out++] = d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
        for (size_t k = first[rr + 1]; k > first[rr]; k--) { stack[sp] = kids[k - 1]; sdepth[sp++] = d + 1; }
    }
    /* the compare's rows follow (one run: its row is the result row) */
    for (size_t k = 0; k < out && k < n; k++) c->row[k] = order[k];
    if (depth) *depth = dep;
    else free(dep);
    free(order); free(stack); free(sdepth); free(kids); free(fill); free(first); free(nkids); free(up);
}

bool view_flame_open(view *v, char *err, size_t errlen)
{
    level *l = view_top(v);
    if (l->flame) { view_back(v); return true; }   /* F again: back */
    if (v->labels) { snprintf(err, errlen, "the flame view shows one run: open a run on its own for its call paths"); return false; }
    if (!runs_have(v, has_tree)) { snprintf(err, errlen, "call paths need the call tree, built when the load finishes"); return false; }
    level *c = level_open(v, &l);
    level_inherit(l, c);
    c->dim.kind = DFN_DIM_PATH;
    c->flame = true;
    c->sort = DFN_M_TIME_S;   /* the order is the tree's; within it, by total time */
    c->desc = true;
    c->crumb = dfn_xstrdup("call paths");
    return level_commit(v, err, errlen);
}

bool view_lanes_pivot(view *v, char *err, size_t errlen)
{
    static const dfn_dimkind order[] = { DFN_DIM_PROC, DFN_DIM_TID, DFN_DIM_HOST, DFN_DIM_RANK };
    level *l = view_top(v);
    size_t i = 0;
    while (i < 4 && order[i] != l->dim.kind) i++;
    dfn_dim d = { .kind = order[(i + 1) % 4] };
    return view_pivot(v, &d, err, errlen);
}

/* A call as its start, process and function (event numbers differ
 * between snapshots). */
static void call_anchor_key(const view *v, const level *l, size_t row, char *buf, size_t cap)
{
    size_t run;
    uint32_t i = view_call(l, row, &run);
    const dfn_store *s = view_call_store(l, run);
    /* absolute: a later snapshot may start earlier */
    snprintf(buf, cap, "%zu %" PRIu64 " %s %s", run, s->t0 + dfn_store_ts(s, i), dfn_store_str(s, s->lanes[dfn_store_lane(s, i)].name),
             dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func));
}

/* The level that follows a grouping when the user presses Enter: the
 * default path is time, process, layer, file, calls. */
static dfn_dimkind next_dim(dfn_dimkind k)
{
    switch (k) {
    case DFN_DIM_TIME: return DFN_DIM_PROC;
    case DFN_DIM_HOST: case DFN_DIM_PID: return DFN_DIM_PROC;
    case DFN_DIM_PROC: case DFN_DIM_TID: case DFN_DIM_ARG: return DFN_DIM_LAYER;
    case DFN_DIM_LAYER: case DFN_DIM_FUNC: case DFN_DIM_OP: case DFN_DIM_PATTERN: case DFN_DIM_PART:
    case DFN_DIM_DIR: case DFN_DIM_FS: return DFN_DIM_FILE;
    case DFN_DIM_CAT: case DFN_DIM_CLASS: return DFN_DIM_FUNC;
    default: return DFN_DIM_EVENT;
    }
}

void view_select_row(const view *v, const level *l, size_t row, level *out)
{
    level_inherit(l, out);
    if (l->dim.kind == DFN_DIM_TIME) {
        /* a time row narrows the window rather than adding a term */
        out->win_lo = bin_lo(l, row);
        out->win_hi = out->win_lo + l->res->res[0]->bin_s;
        if (out->win_hi < out->win_cap) out->win_cap = out->win_hi;   /* the bin, past the run so far */
        if (out->win_hi > l->win_hi) out->win_hi = l->win_hi;
        if (out->win_lo < l->win_lo) out->win_lo = l->win_lo;
    } else {
        size_t klen;   /* whole: a call path can be longer than any buffer */
        char *kt = dfn_compare_key_dup(l->res, row, 0, &klen);
        dfn_dim_term_add(&out->base, &l->dim, kt, klen);
        free(kt);
    }
}

bool view_drill(view *v, char *err, size_t errlen)
{
    level *l = view_top(v);
    if (!l->res || l->res->nrows == 0) { snprintf(err, errlen, "no row to open"); return false; }
    if (view_is_calls(l)) { snprintf(err, errlen, "this is a single call"); return false; }
    size_t row = l->cursor;
    if (l->dim.kind == DFN_DIM_TIME && !window_has_time(l, l->win_hi - l->win_lo, err, errlen)) return false;
    char label[4096];
    if (!view_key_text(v, l, row, label, sizeof label)) snprintf(label, sizeof label, "(none)");

    level *c = level_open(v, &l);
    view_select_row(v, l, row, c);
    c->dim.kind = next_dim(l->dim.kind);
    c->crumb = dfn_xstrdup(label);
    c->crumb_window = l->dim.kind == DFN_DIM_TIME;   /* "0.0-20.0 s" names the window */
    level_default_sort(c);
    return level_commit(v, err, errlen);
}

bool view_back(view *v)
{
    if (v->nlv <= 1) return false;
    level_free(&v->lv[--v->nlv]);
    /* the level below kept its rows, cursor, sort and scroll */
    level *l = view_top(v);
    if (!l->res || l->track_gen != v->track_gen || view_missing_metrics(v, l)) {
        /* C pressed above this level changed the timeline's width too;
         * a wider screen may show a column its rows were not made with */
        char err[256];
        view_refresh(v, err, sizeof err);
    }
    return true;
}

bool view_pivot(view *v, const dfn_dim *d, char *err, size_t errlen)
{
    level *l = view_top(v);
    dfn_dim old = l->dim;
    int osort = l->sort;
    bool odesc = l->desc;
    size_t ocur = l->cursor, otop = l->top;
    l->dim.kind = d->kind;
    l->dim.arg = d->arg ? dfn_xstrdup(d->arg) : NULL;
    l->dim.own = d->own;
    level_default_sort(l);
    if (l->lanes) l->sort = -1, l->desc = false;   /* lanes stay in name order */
    l->cursor = l->top = 0;
    if (!view_refresh(v, err, errlen)) {
        free(l->dim.arg);
        l->dim = old;
        l->sort = osort; l->desc = odesc; l->cursor = ocur; l->top = otop;
        return false;
    }
    free(old.arg);
    return true;
}

/* The sortable columns in screen order: the key, then the visible metrics
 * (the calls level sorts by start, duration or bytes). */
static size_t sort_columns(const view *v, const level *l, int *out, int *whose)
{
    size_t n = 0;
    whose[n] = 0;
    out[n++] = -1;
    if (view_is_calls(l)) {
        whose[n] = 0;
        out[n++] = DFN_M_TIME_S;
        whose[n] = 0;
        out[n++] = DFN_M_BYTES;
        return n;
    }
    bool show[COL_N];
    int spark_w, key_w;
    view_layout(v, l, show, &spark_w, &key_w);
    /* comparing, each run's column of a metric, its difference and ratio */
    for (int c = COL_COUNT; c < COL_SPARK; c++) {
        if (!show[c]) continue;
        int sub[16], widths[16];
        size_t ns = view_group(v, (col_id)c, sub, widths);
        for (size_t i = 0; i < ns; i++) { out[n] = view_cols[c].metric; whose[n++] = sub[i]; }
    }
    return n;
}

void view_sort_move(view *v, int step)
{
    level *l = view_top(v);
    int cols[COL_N * 16], whose[COL_N * 16];
    size_t n = sort_columns(v, l, cols, whose), at = 0;
    for (size_t i = 0; i < n; i++) if (cols[i] == l->sort && (cols[i] < 0 || whose[i] == l->sort_col)) at = i;
    at = (at + n + (size_t)(step > 0 ? 1 : n - 1)) % n;
    l->sort = cols[at];
    l->sort_col = whose[at];
    l->desc = l->sort >= 0;   /* biggest first; keys in order */
    if (l->res) dfn_compare_sort(l->res, l->sort, l->sort_col, l->desc);
    l->cursor = l->top = 0;
}

void view_sort_reverse(view *v)
{
    level *l = view_top(v);
    l->desc = !l->desc;
    if (l->res) dfn_compare_sort(l->res, l->sort, l->sort_col, l->desc);
    l->cursor = l->top = 0;
}

/* l's window: the one typed bounds started from, within them. */
static void window_typed(level *l)
{
    l->win_lo = l->pre_lo > l->typed_lo ? l->pre_lo : l->typed_lo;
    l->win_hi = l->pre_hi < l->typed_hi ? l->pre_hi : l->typed_hi;
    if (l->win_hi < l->win_lo) l->win_hi = l->win_lo;
}

/* The bounds of f's time terms (>=, >, <, <=) narrow the level's window
 * from pre_lo, pre_hi: a time typed as a filter is the window, which the
 * header shows and the time level bins. Returns the text of the other terms, with *left how
 * many; NULL when f has no such bound (its text stays as typed). */
static char *take_time_terms(level *l, const dfn_filter *f, size_t *left)
{
    dfn_filter keep = { dfn_xmalloc((f->n ? f->n : 1) * sizeof *keep.terms), 0 };
    bool any = false;
    l->typed_lo = -INFINITY;
    l->typed_hi = INFINITY;
    for (size_t i = 0; i < f->n; i++) {
        const dfn_term *t = &f->terms[i];
        if (t->key != DFN_KEY_TIME || t->op == DFN_EQ || t->op == DFN_NE) {
            keep.terms[keep.n++] = *t;   /* borrowed: f still owns it */
            continue;
        }
        /* times are whole µs: > v is >= the next µs, <= v is < the next */
        double next = (floor(t->num * 1e6 + 1e-6) + 1) / 1e6;
        double lo = t->op == DFN_GE ? t->num : t->op == DFN_GT ? next : -INFINITY;
        double hi = t->op == DFN_LT ? t->num : t->op == DFN_LE ? next : INFINITY;
        if (lo > l->typed_lo) l->typed_lo = lo;
        if (hi < l->typed_hi) l->typed_hi = hi;
        any = true;
    }
    window_typed(l);
    *left = keep.n;
    char *text = any ? dfn_filter_text(&keep) : NULL;
    free(keep.terms);
    return text;
}

bool view_set_user_filter(view *v, const char *text, char *err, size_t errlen)
{
    dfn_filter f;
    if (!dfn_filter_parse(text, &f, err, errlen)) return false;
    level *l = view_top(v);
    level was = *l;
    /* typed time bounds replace those typed before: they may widen the
     * window back to where the level had it, and an empty filter clears them */
    if (l->typed) { l->win_lo = l->pre_lo; l->win_hi = l->pre_hi; }
    l->pre_lo = l->win_lo;
    l->pre_hi = l->win_hi;
    size_t left = f.n;
    char *rest = take_time_terms(l, &f, &left);
    l->typed = rest != NULL;
    dfn_filter_free(&f);
    char *old = l->user;
    l->user = left == 0 ? NULL : rest ? rest : dfn_xstrdup(text);
    if (rest && l->user != rest) free(rest);
    l->cursor = l->top = 0;
    if (!view_refresh(v, err, errlen)) {
        free(l->user);
        l->user = old;
        l->win_lo = was.win_lo;
        l->win_hi = was.win_hi;
        l->typed = was.typed;
        l->pre_lo = was.pre_lo;
        l->pre_hi = was.pre_hi;
        l->typed_lo = was.typed_lo;
        l->typed_hi = was.typed_hi;
        return false;
    }
    free(old);
    return true;
}

/* The bin a window of width w is cut into on the screen (and snapped to). */
static double window_bin(const view *v, double w)
{
    int rows = v->table_rows > 1 ? v->table_rows : 1;
    return dfn_bin_fit(w, (uint64_t)rows);
}

/* The window [a, b) set on l. A crumb that names the window (a time row
 * drilled, a lane's cell) follows it: after ] it said "0.0-20.0 s" over
 * a window of 10-30 s. */
static void crumb_rename(level *l)
{
    if (!l->crumb_window || !l->crumb || l->crumb_at > strlen(l->crumb)) return;
    /* as the crumb was first written: a lane cell's (after its key) or a time row's */
    double a = l->win_lo, b = l->win_hi;
    int dec = l->crumb_at ? view_cell_decimals(b - a) : view_range_decimals(b - a);
    char *c = dfn_xasprintf("%.*s%.*f-%.*f s", (int)l->crumb_at, l->crumb, dec, a, dec, b);
    free(l->crumb);
    l->crumb = c;
}

/* ... cap as the window's chosen end (win_cap, at least b): the whole
 * run when it shows all of it. */
static void window_put(level *l, double a, double b, double cap, double span)
{
    l->win_lo = a;
    l->win_hi = b;
    l->win_cap = a <= 0 && b >= span ? INFINITY : cap > b ? cap : b;
    l->typed = false;   /* the zoomed window is the one a filter starts from */
    l->cursor = l->top = 0;
    crumb_rename(l);
}

/* The end of the whole bins from a that hold [a, b): a window cut by the
 * run's end takes the part bin it holds whole as the run grows, and no
 * more when the run ended on a bin's edge. */
static double window_bins_end(double a, double b, double bin)
{
    return a + ceil((b - a) / bin - 1e-9) * bin;
}

/* Sets l's window to about [lo, lo + w), its edges on multiples of the
 * bins the time level gives it, so a zoom keeps round bins (3.0-3.5 s,
 * not 3.3-3.8 s), within the run's span. */
static void window_set(const view *v, level *l, double lo, double w)
{
    double span = view_span(v);
    double bin = window_bin(v, w);
    if (w > span) w = span;
    double a = floor(lo / bin + 1e-9) * bin, b = ceil((lo + w) / bin - 1e-9) * bin, cap = b;
    if (b > span) {
        /* at the end of the run: as many whole bins as the window held,
         * so that moving on against the end leaves it as it is */
        double k = floor(w / bin + 1e-9);
        if (k < 1) k = 1;
        b = span;
        a = floor((span - k * bin) / bin + 1e-9) * bin;
        cap = window_bins_end(a, span, bin);
    }
    if (a < 0) a = 0;
    if (b <= a) b = a + bin < span ? a + bin : span;
    window_put(l, a, b, cap, span);
}

void view_zoom(view *v, bool in)
{
    level *l = view_top(v);
    double center = l->win_lo + (l->win_hi - l->win_lo) / 2;
    if (in && l->dim.kind == DFN_DIM_TIME && l->res && l->res->nrows) {
        /* zoom around the bin under the cursor */
        center = bin_lo(l, l->cursor) + l->res->res[0]->bin_s / 2;
    }
    view_zoom_around(v, in, center);
}

void view_zoom_around(view *v, bool in, double center)
{
    level *l = view_top(v);
    double span = view_span(v), w = l->win_hi - l->win_lo;
    double nw = in ? w / 2 : w * 2;
    if (nw < 1e-6) nw = 1e-6;
    if (nw > span) nw = span;
    double lo = center - nw / 2;
    if (lo < 0) lo = 0;
    if (lo + nw > span) lo = span - nw;
    window_set(v, l, lo, nw);
}

/* ] and [: half the window on, in whole bins of the window's own, its
 * width kept, so that ] then [ comes back where it was. Snapping the
 * moved window again widened it by a bin at each step when half of it
 * was no whole number of bins (0-90 s, ] and [: 0-100 s). Against an end
 * of the run the window stops there, as wide as it was. */
void view_shift(view *v, int dir)
{
    level *l = view_top(v);
    double span = view_span(v), w = l->win_hi - l->win_lo;
    double bin = window_bin(v, w);
    double n = floor(w / bin + 1e-9);   /* whole bins; a window ending the run may hold a part more */
    if (n < 1) n = 1;
    double step = floor(n / 2);
    if (step < 1) step = 1;
    double a = floor(l->win_lo / bin + 0.5) * bin + dir * step * bin, b = a + n * bin, cap = b;
    if (b > span) {
        b = span;
        a = floor((span - n * bin) / bin + 1e-9) * bin;
        cap = window_bins_end(a, span, bin);
    }
    if (a < 0) {
        a = 0;
        b = w < span ? w : span;   /* the part of a bin that ends the run too, when it held it */
        cap = window_bins_end(0, b, bin);
    }
    window_put(l, a, b, cap, span);
}

void view_move(view *v, long delta)
{
    level *l = view_top(v);
    size_t n = l->res ? l->res->nrows : 0;
    if (!n) { l->cursor = 0; return; }
    long c = (long)l->cursor + delta;
    if (c < 0) c = 0;
    if (c >= (long)n) c = (long)n - 1;
    l->cursor = (size_t)c;
}

/* Whether row of l holds the search text: its key, or a call's function
 * or file (ASCII case ignored). */
static bool row_matches(const view *v, const level *l, size_t row, size_t slen)
{
    if (view_is_calls(l)) {
        size_t run;
        uint32_t i = view_call(l, row, &run);
        const dfn_store *s = view_call_store(l, run);
        const dfn_kind *kd = &s->kinds[dfn_store_kind(s, i)];
        const char *fn = dfn_store_str(s, kd->func), *fl = dfn_store_str(s, s->files[dfn_store_file(s, i)].path);
        return dfn_ascii_icontains(fn, strlen(fn), v->search, slen) || dfn_ascii_icontains(fl, strlen(fl), v->search, slen);
    }
    char key[4096];
    size_t len = view_key_text(v, l, row, key, sizeof key);
    return dfn_ascii_icontains(key, len, v->search, slen);
}

/* The rows of the top level that match, found once per result and text. */
static void search_matches(view *v, level *l)
{
    if (v->match_gen == l->res_gen && v->match_text && strcmp(v->match_text, v->search) == 0) return;
    free(v->match);
    v->match = NULL;
    v->nmatch = 0;
    size_t cap = 0, slen = strlen(v->search);
    for (size_t row = 0; l->res && row < l->res->nrows; row++) {
        if (!row_matches(v, l, row, slen)) continue;
        dfn_grow((void **)&v->match, &cap, v->nmatch + 1, sizeof *v->match);
        v->match[v->nmatch++] = row;
    }
    free(v->match_text);
    v->match_text = dfn_xstrdup(v->search);
    v->match_gen = l->res_gen;
}

/* Index of the first match at or after row (nmatch: none). */
static size_t match_at(const view *v, size_t row)
{
    size_t lo = 0, hi = v->nmatch;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->match[mid] < row) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool view_search(view *v, int dir)
{
    level *l = view_top(v);
    if (!l->res || !l->res->nrows || !v->search || !*v->search) return false;
    search_matches(v, l);
    if (!v->nmatch) return false;
    size_t k = match_at(v, l->cursor + (dir > 0));
    if (dir < 0) k = k == 0 ? v->nmatch - 1 : k - 1;   /* the last before the cursor, wrapping */
    else if (k == v->nmatch) k = 0;                     /* wraps to the first */
    l->cursor = v->match[k];
    return true;
}

void view_search_status(view *v, bool found, char *msg, size_t cap)
{
    level *l = view_top(v);
    if (!found) { snprintf(msg, cap, "not found: %s", v->search ? v->search : ""); return; }
    search_matches(v, l);
    size_t k = match_at(v, l->cursor);
    snprintf(msg, cap, "match %zu of %zu: %s   (n next, N previous)", k + 1, v->nmatch, v->search);
}

bool view_search_below(view *v, char *msg, size_t cap)
{
    level *l = view_top(v);
    if (view_is_calls(l) || !v->search || !*v->search) return false;
    /* the files of the selection, then the functions of its calls */
    static const struct { dfn_key key; dfn_dimkind dim; const char *what; } below[] = {
        { DFN_KEY_FILE, DFN_DIM_FILE, "files" }, { DFN_KEY_FUNC, DFN_DIM_FUNC, "functions" } };
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
        if (l->dim.kind == below[i].dim) continue;   /* its rows were searched */
        level *c = level_open(v, &l);
        level_inherit(l, c);   /* the selection this level shows */
        dfn_filter_add(&c->base, below[i].key, NULL, DFN_MATCH, v->search, strlen(v->search));
        c->dim.kind = below[i].dim;
        c->crumb = dfn_xasprintf("%s holding '%s'", below[i].what, v->search);
        level_default_sort(c);
        char err[256];
        if (view_refresh(v, err, sizeof err) && c->res->nrows) {
            snprintf(msg, cap, "no row here holds '%s'; %zu %s of the selection do (Bksp returns)", v->search,
                     c->res->nrows, below[i].what);
            return true;
        }
        level_free(&v->lv[--v->nlv]);
        l = view_top(v);
    }
    return false;
}

void view_set_store(view *v, size_t k, const view_set *vs)
{
    /* the cursor's row, read while the old store is still the view's */
    row_anchor an;
    anchor_take(v, view_top(v), &an);
    double old_span = view_span(v);
    v->runs[k] = dfn_runset_run(&vs->rs);
    char err[256];
    double span = view_span(v);
    for (size_t i = 0; i < v->nlv; i++) {
        level *l = &v->lv[i];
        /* a window drawn to the end of the run follows it as far as it
         * was chosen to go (all the way when it showed the whole run),
         * typed bounds hold, and a crumb that names the window says so */
        double hi = l->win_hi;
        double *end = l->typed ? &l->pre_hi : &l->win_hi, start = l->typed ? l->pre_lo : l->win_lo;
        if (*end >= old_span) *end = fmin(l->win_cap, span);
        if (*end < start) *end = start;   /* a window past the run so far */
        if (l->typed) window_typed(l);
        if (l->win_hi != hi) crumb_rename(l);
        dfn_compare_free(l->res);
        l->res = NULL;
        dfn_strtab_free(l->marks);
        l->marks = NULL;
        l->res_gen = ++v->res_gen;
        dfn_cresult_free(&l->tracks);   /* of the old store's series */
    }
    if (view_query(v, err, sizeof err)) anchor_find(v, view_top(v), &an);
    free(an.key);
    view_move(v, 0);
}

bool view_open_finding(view *v, const dfn_finding *f, char *err, size_t errlen)
{
    dfn_filter extra;
    if (!dfn_filter_parse(f->filter, &extra, err, errlen)) return false;
    dfn_dim d = {0};
    size_t nd = 0;
    if (!dfn_dims_parse(f->by, &d, &nd, err, errlen) || nd != 1) {
        dfn_filter_free(&extra);
        if (nd) dfn_dims_free(&d, nd);
        if (!nd) snprintf(err, errlen, "nothing to group by");
        return false;
    }
    level *l;
    level *c = level_open(v, &l);
    level_inherit(l, c);
    dfn_filter_append(&c->base, &extra);
    dfn_filter_free(&extra);
    c->dim = d;
    size_t n = strlen(f->where) + strlen(dfn_rule_name(f->rule)) + 4;
    c->crumb = dfn_xmalloc(n);
    snprintf(c->crumb, n, "%s: %s", dfn_rule_name(f->rule), f->where);
    level_default_sort(c);
    return level_commit(v, err, errlen);
}

char **view_arg_names(const view *v, size_t *n)
{
    *n = 0;
    const level *l = &v->lv[v->nlv - 1];
    dfn_filter f;
    view_filter(v, l, &f);
    dfn_query q = { .filter = &f };
    dfn_analysis_apply(v->runs[0].an, &q);
    q.layers = v->runs[0].ls;
    char err[256];
    const dfn_remote *rem = v->runs[0].remote;   /* (its holders': the calls are theirs) */
    char **names = rem ? rem->arg_names(rem->ctx, v->runs[0].remote_run, &q, n, err, sizeof err)
                       : dfn_query_arg_names(v->runs[0].s, &q, n, err, sizeof err);
    dfn_filter_free(&f);
    return names;
}

void view_export_name(const view *v, bool calls, long long now, char *buf, size_t cap)
{
    const level *l = &v->lv[v->nlv - 1];
    time_t t = (time_t)now;
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char dim[64];
    const char *name = calls || view_is_calls(l) ? "calls" : dfn_dim_name(&l->dim, dim, sizeof dim);
    char clean[64];
    size_t w = 0;
    for (const char *p = name; *p && w < sizeof clean - 1; p++)
        clean[w++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '-';
    clean[w] = 0;
    snprintf(buf, cap, "dfnav-%s-%s.csv", clean, stamp);
}
