/* Work on a worker thread, so the keys stay responsive: CSV export,
 * the diagnostics screen's findings, the time and file levels' row
 * marks, and the status line's facts of each row (slowest process,
 * calls per transfer size). Each is started and polled from the UI thread. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "app.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---- jobs on a worker thread: exports and diagnostics ---- */


void job_start(job *j, void *(*fn)(void *), void *arg)
{
    atomic_store(&j->done, false);
    atomic_store(&j->running, true);
    j->joinable = pthread_create(&j->thread, NULL, fn, arg) == 0;
    if (!j->joinable) fn(arg);
}

/* True once when the job has finished (waiting for it with wait). */
bool job_finished(job *j, bool wait)
{
    if (!atomic_load(&j->running)) return false;
    if (!wait && !atomic_load(&j->done)) return false;
    if (j->joinable) pthread_join(j->thread, NULL);
    atomic_store(&j->running, false);
    return true;
}

/* ---- export ---- */


static void *exporter_main(void *arg)
{
    exporter *x = arg;
    char err[900];
    dfn_query q = { .filter = &x->filter, .sort = x->sort, .desc = x->desc, .threads = x->v->threads,
                    .metrics = x->metrics, .ctrs = x->ctrs.n ? &x->ctrs : NULL };
    q.dims[0] = x->dim;
    q.ndims = 1;
    q.bin_s = x->bin_s;
    dfn_compare *c = dfn_compare_query(x->v->runs, x->v->nruns, &q, x->sort_col, (const char *const *)x->v->labels, err,
                                       sizeof err);
    if (c && x->flame) view_flame_rows(x->v, c, NULL);
    int rc = c ? dfn_save_write(&x->save, c, x->fmt, err, sizeof err) : -1;
    x->saved = dfn_save_close(&x->save, rc, err, sizeof err) == 0;
    if (!x->saved) snprintf(x->msg, sizeof x->msg, "not saved: %s", err);
    else if (x->fmt == DFN_FMT_CHROME) snprintf(x->msg, sizeof x->msg, "saved %zu calls to %s (Chrome trace: open it in Perfetto UI)", c->nrows, x->path);
    else snprintf(x->msg, sizeof x->msg, "saved %zu rows to %s", c->nrows, x->path);
    dfn_compare_free(c);
    atomic_store(&x->job.done, true);
    return NULL;
}

/* ---- diagnostics on a worker thread ---- */


/* Rules judge a run on its own; comparing, each finding says whose run. */
static void *diagnoser_main(void *arg)
{
    diagnoser *d = arg;
    const view *v = d->v;
    for (size_t k = 0; k < v->nruns; k++) {
        const dfn_run *run = &v->runs[k];
        dfn_diag_src src = run->remote ? dfn_remote_diag_route(run) : (dfn_diag_src){0};
        dfn_findings *f = run->remote ? dfn_diagnose_via(&src, run->ls, &d->filter, run->an, &d->th, d->err, sizeof d->err)
                                      : dfn_diagnose(run->s, run->ls, &d->filter, run->an, &d->th, 0, d->err, sizeof d->err);
        if (!f) { dfn_findings_free(d->out); d->out = NULL; break; }
        if (!v->labels) { d->out = f; break; }
        if (!d->out) d->out = dfn_xcalloc(1, sizeof *d->out);
        d->out->v = dfn_xreallocarray(d->out->v, d->out->n + f->n + 1, sizeof *d->out->v);
        for (size_t i = 0; i < f->n; i++) {
            dfn_finding *x = &d->out->v[d->out->n++];
            *x = f->v[i];
            x->where = dfn_xasprintf("%s: %s", v->labels[k], f->v[i].where);
            free(f->v[i].where);
        }
        d->out->no_compute |= f->no_compute;
        d->out->no_access |= f->no_access;
        free(f->v);
        free(f);
    }
    atomic_store(&d->job.done, true);
    return NULL;
}

/* ---- rows with findings: time and file levels, scored per row ---- */


static void *marker_main(void *arg)
{
    marker *m = arg;
    char err[256];
    /* behind the keys: on Linux a thread has its own nice value, and the
     * query threads it starts inherit it */
    (void)setpriority(PRIO_PROCESS, 0, 10);
    dfn_diag_src src = m->run->remote ? dfn_remote_diag_route(m->run) : (dfn_diag_src){0};
    dfn_findings *f = m->run->remote ? dfn_diagnose_rows_via(&src, m->run->ls, &m->filter, m->run->an, &m->th, &m->by,
                                                             m->bin_s, err, sizeof err)
                                     : dfn_diagnose_rows(m->run->s, m->run->ls, &m->filter, m->run->an, &m->th, &m->by,
                                                         m->bin_s, 0, err, sizeof err);
    m->keys = dfn_strtab_new();
    for (size_t i = 0; f && i < f->n; i++)
        if (!f->v[i].info) dfn_strtab_intern(m->keys, f->v[i].key, strlen(f->v[i].key));
    dfn_findings_free(f);
    atomic_store(&m->job.done, true);
    return NULL;
}

/* Takes finished marks to their level (if it still shows the rows they
 * were made for) and starts them for a time or file level that has none;
 * wait: until they are there (replays draw the same screens every time). */
void marks_poll(app *a, marker *m, bool wait)
{
    if (!a->have_view) return;
    level *l = view_top(&a->v);
    if (job_finished(&m->job, wait)) {
        level *to = view_level_of(&a->v, m->gen);   /* as facts_poll's */
        if (to) { dfn_strtab_free(to->marks); to->marks = m->keys; }
        else dfn_strtab_free(m->keys);
        m->keys = NULL;
        dfn_filter_free(&m->filter);
    }
    if (atomic_load(&m->job.running) || a->loading || a->v.labels || !l->res || l->marks_gen == l->res_gen) return;
    if (l->dim.kind != DFN_DIM_TIME && l->dim.kind != DFN_DIM_FILE) return;
    l->marks_gen = l->res_gen;
    view_filter(&a->v, l, &m->filter);
    m->run = &a->v.runs[0];
    m->by = (dfn_dim){ .kind = l->dim.kind };
    m->bin_s = l->res->res[0]->bin_s;
    m->th = a->opts.thresholds;
    m->gen = l->res_gen;
    job_start(&m->job, marker_main, m);
    if (wait) marks_poll(a, m, true);
}

/* ---- the status line's facts of each row: slowest process, sizes ---- */


static void *facts_main(void *arg)
{
    facter *w = arg;
    char err[256];
    (void)setpriority(PRIO_PROCESS, 0, 10);   /* behind the keys, as the marks */
    dfn_query q = { .filter = &w->filter, .sort = -1, .threads = w->threads, .bin_s = w->bin_s, .sizes = true, .asked_only = true,
                    .metrics = w->slowest ? DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC) : DFN_M_BIT(DFN_M_COUNT),
                    .layers = w->run->ls };
    if (w->run->an) dfn_analysis_apply(w->run->an, &q);   /* arg.NAME inherits through the call tree */
    q.dims[0] = w->by;
    q.ndims = 1;
    /* none: the status line says nothing */
    const dfn_remote *rem = w->run->remote;
    w->res = rem ? rem->query(rem->ctx, w->run->remote_run, &q, NULL, err, sizeof err) : dfn_query_run(w->run->s, &q, err, sizeof err);
    atomic_store(&w->job.done, true);
    return NULL;
}

/* The rows of a level whose status line has facts of its own: grouped
 * rows of one run (not lanes or a flame graph). */
static bool facts_wanted(const app *a, const level *l)
{
    return l->res && (!a->loading || a->settled) && !a->v.labels && !view_is_calls(l) && !l->lanes && !l->flame;
}

void facts_poll(app *a, facter *w, bool wait)
{
    if (!a->have_view) return;
    level *l = view_top(&a->v);
    if (job_finished(&w->job, wait)) {
        /* to the level it was made for, on top or not (a key pressed
         * meanwhile: Backspace brings it back) */
        level *to = view_level_of(&a->v, w->gen);
        if (to && !to->facts) to->facts = w->res;
        else dfn_result_free(w->res);
        w->res = NULL;
        dfn_filter_free(&w->filter);
        free(w->by.arg);
        w->by.arg = NULL;
    }
    if (atomic_load(&w->job.running) || !facts_wanted(a, l) || l->facts_gen == l->res_gen) return;
    /* keys typed in a row would each start a scan that the next one's
     * query shares the cores with: only once they rest */
    if (!wait && dfn_now() - l->res_at < FACTS_REST) return;
    l->facts_gen = l->res_gen;
    view_filter(&a->v, l, &w->filter);
    w->run = &a->v.runs[0];
    w->by = (dfn_dim){ .kind = l->dim.kind, .arg = l->dim.arg ? dfn_xstrdup(l->dim.arg) : NULL, .own = l->dim.own };
    /* the bins on screen (the same edges: the rows' keys match) */
    w->bin_s = l->dim.kind == DFN_DIM_TIME ? l->res->res[0]->bin_s : 0;
    w->threads = a->v.threads;
    w->gen = l->res_gen;
    w->slowest = !view_row_is_process(l);
    job_start(&w->job, facts_main, w);
    if (wait) facts_poll(a, w, true);
}

void export_start(runner *r, const char *path, bool overwrite)
{
    app *a = &r->a;
    exporter *x = &r->ex;
    level *l = view_top(&a->v);
    memset(&x->filter, 0, sizeof x->filter);
    if (a->export_calls && !view_is_calls(l) && l->res && l->res->nrows) {
        /* the calls of the selected row, selected as a drill would */
        level sel = {0};
        view_select_row(&a->v, l, l->cursor, &sel);
        view_filter(&a->v, &sel, &x->filter);
        dfn_filter_free(&sel.base);
    } else {
        view_filter(&a->v, l, &x->filter);
    }
    x->v = &a->v;   /* exports wait for the load, so the runs cannot change meanwhile */
    x->fmt = a->export_calls && ui_export_chrome(path) ? DFN_FMT_CHROME : DFN_FMT_CSV;
    if (a->export_calls) {
        x->dim.kind = DFN_DIM_EVENT;
        x->bin_s = 0;
        x->flame = false;
        x->sort = -1;
        x->sort_col = 0;
        x->desc = false;
        x->metrics = 0;
        x->ctrs.n = 0;
    } else {
        /* what dfnav report gives, and the columns on screen (compute,
         * I/O and exposed on the process levels, those chosen with c) */
        const char *ctr;
        x->metrics = DFN_M_BASIC | view_shown_metrics(&a->v, l, &ctr);
        /* the slowest process, as the status line names it */
        if (!a->v.labels && !view_is_calls(l)) x->metrics |= DFN_M_BIT(DFN_M_MAX_PROC);
        x->ctrs.n = ctr != NULL;
        x->ctrs.series[0] = (char *)ctr;   /* the view's, which outlives the export */
        x->dim.kind = l->dim.kind;
        /* the bins on screen, not report's default */
        x->bin_s = l->dim.kind == DFN_DIM_TIME && l->res ? l->res->res[0]->bin_s : 0;
        x->flame = l->flame;
        if (l->flame) x->metrics |= DFN_M_BIT(DFN_M_SELF_S);
        x->sort = l->sort;
        x->sort_col = l->sort_col;
        x->desc = l->desc;
    }
    /* the temporary file now, on this thread: a failure shows at once, and
     * a signal during the export knows what to remove */
    char err[900];
    if (dfn_save_open(&x->save, path, overwrite, err, sizeof err) != 0) {
        snprintf(a->msg, sizeof a->msg, "not saved: %s", err);
        a->msg_middle = true;
        dfn_filter_free(&x->filter);
        return;
    }
    x->dim.arg = a->export_calls || !l->dim.arg ? NULL : dfn_xstrdup(l->dim.arg);
    x->dim.own = l->dim.own;
    x->path = dfn_xstrdup(path);
    x->tmp = dfn_xstrdup(x->save.tmp);
    a->exporting = true;
    snprintf(a->msg, sizeof a->msg, "saving %s ...", path);
    job_start(&x->job, exporter_main, x);
}

void export_poll(runner *r, bool wait)
{
    exporter *x = &r->ex;
    if (!job_finished(&x->job, wait)) return;
    r->a.exporting = false;
    snprintf(r->a.msg, sizeof r->a.msg, "%.1000s", x->msg);
    r->a.msg_middle = !x->saved;
    dfn_filter_free(&x->filter);
    free(x->dim.arg);
    x->dim.arg = NULL;
    free(x->path);
    free(x->tmp);
    x->path = x->tmp = NULL;
}

void diag_start(runner *r)
{
    app *a = &r->a;
    diagnoser *d = &r->dg;
    if (atomic_load(&d->job.running)) { snprintf(a->msg, sizeof a->msg, "diagnostics are running"); return; }
    if (a->loading) { snprintf(a->msg, sizeof a->msg, "wait for the load to finish: diagnostics need the whole trace set"); return; }
    level *l = view_top(&a->v);
    view_filter(&a->v, l, &d->filter);
    d->v = &a->v;
    d->th = a->opts.thresholds;
    d->out = NULL;
    dfn_findings_free(a->diag);
    a->diag = NULL;
    free(a->diag_where);
    a->diag_where = dfn_filter_text(&d->filter);
    a->diag_sel = 0;
    a->scroll = 0;
    a->diagnosing = true;
    a->mode = MODE_DIAG;
    job_start(&d->job, diagnoser_main, d);
}

void diag_poll(runner *r, bool wait)
{
    diagnoser *d = &r->dg;
    if (!job_finished(&d->job, wait)) return;
    r->a.diagnosing = false;
    r->a.diag = d->out;
    if (!d->out) snprintf(r->a.msg, sizeof r->a.msg, "diagnostics failed: %.900s", d->err);
    dfn_filter_free(&d->filter);
}

