/* The explorer program: curses set-up and teardown, the main loop that
 * polls the background loader (showing snapshots as they come), key
 * handling for every screen, prompts with line editing and history, and
 * CSV export on a worker thread. Signals only set flags; the loop restores
 * the terminal. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui.h"
#include "replay.h"
#include "dfnav/estimate.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Signals only set these; the loop acts on them between screens, where
 * curses is in a known state (drawing from a handler would interleave with
 * the loop's own output). */
static volatile sig_atomic_t got_signal;   /* INT TERM HUP QUIT: restore the terminal, die of the signal */
static volatile sig_atomic_t got_stop;     /* TSTP: restore the terminal, then stop */
static volatile sig_atomic_t got_cont;     /* CONT: take the terminal back, redraw */

static void on_signal(int sig) { got_signal = sig; }
static void on_stop(int sig) { (void)sig; got_stop = 1; }
static void on_cont(int sig) { (void)sig; got_cont = 1; }

/* ---- line editing ---- */

static void edit_set(line_edit *e, const char *s)
{
    size_t n = strlen(s);
    dfn_grow((void **)&e->buf, &e->cap, n + 1, 1);
    memcpy(e->buf, s, n + 1);
    e->len = e->cur = n;
}

static void edit_insert(line_edit *e, const char *s, size_t n)
{
    dfn_grow((void **)&e->buf, &e->cap, e->len + n + 1, 1);
    memmove(e->buf + e->cur + n, e->buf + e->cur, e->len - e->cur + 1);
    memcpy(e->buf + e->cur, s, n);
    e->len += n;
    e->cur += n;
}

/* Cursor moves and deletes go by whole UTF-8 characters. */
static size_t edit_prev(const line_edit *e, size_t at)
{
    if (!at) return 0;
    at--;
    while (at && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at--;
    return at;
}

static size_t edit_next(const line_edit *e, size_t at)
{
    if (at >= e->len) return e->len;
    at++;
    while (at < e->len && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at++;
    return at;
}

static void edit_delete(line_edit *e, size_t from, size_t to)
{
    memmove(e->buf + from, e->buf + to, e->len - to + 1);
    e->len -= to - from;
    e->cur = from;
}

/* ---- background loading ---- */

/* Comparing without --layers, every run takes the DLIO preset once any
 * run shows DLIO categories, so that a layer means the same events in
 * every run (and a layer filter is known to all). NULL: not comparing,
 * or --layers: each set's own choice. */
static const char *const dlio_flavours[] = { NULL, "dlio", "dlio-legacy" };

/* *dlio_seen: 0 none yet, else the index of the first DLIO flavour seen. */
static const char *shared_preset(const ui_opts *o, atomic_int *dlio_seen, const dfn_store *s)
{
    if (o->layers || !dlio_seen) return NULL;
    const char *own = dfn_layers_auto(s, NULL);
    int none = 0;
    if (dfn_preset_is_dlio(own)) atomic_compare_exchange_strong(dlio_seen, &none, strcmp(own, "dlio") == 0 ? 1 : 2);
    return dfn_run_preset(s, dlio_flavours[atomic_load(dlio_seen)]);
}

typedef struct {
    dfn_loader *l;
    const ui_opts *opts;
    atomic_int *dlio_seen;
    pthread_t thread;
    bool started;
    _Atomic(view_set *) ready;    /* a snapshot, indexed, for the UI to take */
    atomic_bool stop;
} snapper;

/* Makes snapshots at growing intervals: the first quickly, so the screen
 * fills early; later ones rarely, as each costs a copy of what is loaded. */
static void *snapper_main(void *arg)
{
    snapper *sn = arg;
    double wait = 0.25;
    for (;;) {
        for (double t = 0; t < wait; t += 0.05) {
            if (atomic_load(&sn->stop)) return NULL;
            struct timespec ts = { 0, 50 * 1000000 };
            nanosleep(&ts, NULL);
        }
        dfn_progress p;
        dfn_loader_progress(sn->l, &p);
        if (p.done || p.building || p.cancelled) return NULL;
        double t0 = dfn_now();
        dfn_store *s = dfn_loader_snapshot(sn->l);
        if (!s) return NULL;
        view_set *vs = view_set_new(s, sn->opts, shared_preset(sn->opts, sn->dlio_seen, s), false);
        double cost = dfn_now() - t0;
        view_set_free(atomic_exchange(&sn->ready, vs));   /* the UI had not taken the last */
        /* a snapshot takes a core from the load: keep them to a small
         * share of the time, and rarer as the set grows */
        wait *= 2;
        if (wait < cost * 8) wait = cost * 8;
    }
}

/* ---- jobs on a worker thread: exports and diagnostics ---- */

typedef struct {
    pthread_t thread;
    bool joinable;            /* false when it ran inline, without a thread */
    atomic_bool running, done;
} job;

static void job_start(job *j, void *(*fn)(void *), void *arg)
{
    atomic_store(&j->done, false);
    atomic_store(&j->running, true);
    j->joinable = pthread_create(&j->thread, NULL, fn, arg) == 0;
    if (!j->joinable) fn(arg);
}

/* True once when the job has finished (waiting for it with wait). */
static bool job_finished(job *j, bool wait)
{
    if (!atomic_load(&j->running)) return false;
    if (!wait && !atomic_load(&j->done)) return false;
    if (j->joinable) pthread_join(j->thread, NULL);
    atomic_store(&j->running, false);
    return true;
}

/* ---- export ---- */

typedef struct {
    job job;
    const view *v;            /* its runs: exports wait for the load, so they cannot change */
    dfn_filter filter;
    dfn_dim dim;
    int sort, sort_col;
    bool desc;
    dfn_save save;            /* the temporary file, created before the job starts */
    char *path, *tmp;         /* the UI thread's copies: tmp is what a signal removes */
    bool saved;
    char msg[1200];
} exporter;

static void *exporter_main(void *arg)
{
    exporter *x = arg;
    char err[900];
    dfn_query q = { .filter = &x->filter, .sort = x->sort, .desc = x->desc, .threads = x->v->threads };
    q.dims[0] = x->dim;
    q.ndims = 1;
    dfn_compare *c = dfn_compare_query(x->v->runs, x->v->nruns, &q, x->sort_col, (const char *const *)x->v->labels, err,
                                       sizeof err);
    int rc = c ? dfn_save_write(&x->save, c, DFN_FMT_CSV, err, sizeof err) : -1;
    x->saved = dfn_save_close(&x->save, rc, err, sizeof err) == 0;
    if (!x->saved) snprintf(x->msg, sizeof x->msg, "not saved: %s", err);
    else snprintf(x->msg, sizeof x->msg, "saved %zu rows to %s", c->nrows, x->path);
    dfn_compare_free(c);
    atomic_store(&x->job.done, true);
    return NULL;
}

/* ---- diagnostics on a worker thread ---- */

typedef struct {
    job job;
    const view *v;            /* its runs: diagnostics wait for the load */
    dfn_thresholds th;
    dfn_filter filter;
    dfn_findings *out;
    char err[900];
} diagnoser;

/* Rules judge a run on its own; comparing, each finding says whose run. */
static void *diagnoser_main(void *arg)
{
    diagnoser *d = arg;
    const view *v = d->v;
    for (size_t k = 0; k < v->nruns; k++) {
        const dfn_run *run = &v->runs[k];
        dfn_findings *f = dfn_diagnose(run->s, run->ls, &d->filter, run->an, &d->th, 0,
                                       d->err, sizeof d->err);
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

typedef struct {
    job job;
    const dfn_run *run;       /* run 0, loaded: the runs do not change meanwhile */
    dfn_filter filter;
    dfn_dim by;
    double bin_s;
    dfn_thresholds th;
    unsigned gen;             /* the level result they are for */
    dfn_strtab *keys;         /* the rows' keys with findings */
} marker;

static void *marker_main(void *arg)
{
    marker *m = arg;
    char err[256];
    /* behind the keys: on Linux a thread has its own nice value, and the
     * query threads it starts inherit it */
    (void)setpriority(PRIO_PROCESS, 0, 10);
    dfn_findings *f = dfn_diagnose_rows(m->run->s, m->run->ls, &m->filter, m->run->an, &m->th, &m->by, m->bin_s, 0,
                                        err, sizeof err);
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
static void poll_marks(app *a, marker *m, bool wait)
{
    if (!a->have_view) return;
    level *l = view_top(&a->v);
    if (job_finished(&m->job, wait)) {
        if (l->res && l->res_gen == m->gen) { dfn_strtab_free(l->marks); l->marks = m->keys; }
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
    if (wait) poll_marks(a, m, true);
}

/* ---- the final store's layer index, built off the UI thread ---- */

typedef struct {
    pthread_t thread;
    bool started;
    dfn_store *store;
    const ui_opts *opts;
    atomic_int *dlio_seen;
    _Atomic(view_set *) ready;
} indexer;

static void *indexer_main(void *arg)
{
    indexer *ix = arg;
    atomic_store(&ix->ready, view_set_new(ix->store, ix->opts, shared_preset(ix->opts, ix->dlio_seen, ix->store), true));
    return NULL;
}

/* ---- the app ---- */

/* One run's loading: its loader, snapshots and final indexing, and the
 * set the view shows of it. */
typedef struct {
    const dfn_inputs *in;     /* the run's files (its spec's) */
    dfn_loader *loader;
    snapper sn;
    indexer ix;
    view_set *cur;            /* what the view shows, or will once every run has a set */
    const dfn_store *final;   /* the loaded store, for the damage screen */
} run_load;

typedef struct {
    app a;
    dfn_runspec *specs;       /* the runs' names and files */
    run_load *runs;
    size_t nruns;
    char **labels;            /* comparing: the runs' names (the specs'); NULL for one run */
    atomic_int dlio_seen;    /* comparing: some run has DLIO categories */
    exporter ex;
    diagnoser dg;
    marker mk;
    bool quit;
    int status;
    bool headless;
    char *pending_path;
    bool abandon_export;      /* quitting with Q: a running export is cancelled, not awaited */
    bool compute_noted;       /* the status line said compute matched nothing */
} runner;

static void compute_note(runner *r);

static long long now_seconds(void)
{
    /* reproducible names for tests and builds */
    const char *e = getenv("SOURCE_DATE_EPOCH");
    if (e && *e) return atoll(e);
    return (long long)time(NULL);
}

/* Whether the view was queried again for the new size. */
static bool set_size(runner *r, int rows, int cols)
{
    app *a = &r->a;
    a->rows = rows;
    a->cols = cols;
    if (a->have_view) {
        /* the tracks a page holds first: they take lines from the table */
        int old_max = a->v.track_max;
        a->v.track_max = rows / 8 < 1 ? 1 : rows / 8 > 8 ? 8 : rows / 8;   /* 3 at 24 rows */
        int tr = view_table_lines(&a->v, rows) - (view_header_lines(&a->v) - 1);
        if (tr < 1) tr = 1;
        int x0, sw, scale_w;
        view_timeline_geom(&a->v, cols, &x0, &sw, &scale_w);
        bool changed = tr != a->v.table_rows || sw != a->v.spark_w || cols != a->v.screen_cols ||
                       old_max != a->v.track_max;
        a->v.table_rows = tr;
        a->v.spark_w = sw;
        a->v.screen_cols = cols;
        if (changed && rows >= 24 && cols >= 80) {
            char err[256];
            view_refresh(&a->v, err, sizeof err);
            return true;
        }
    }
    return false;
}

/* Damage over every run's loaded store. */
static void count_damage(runner *r)
{
    app *a = &r->a;
    a->malformed = 0;
    a->set_aside = 0;
    memset(a->set_aside_ph, 0, sizeof a->set_aside_ph);
    a->bad_files = a->ninput_errors;
    for (size_t k = 0; k < r->nruns; k++) {
        const dfn_store *s = r->runs[k].final;
        a->damage_store[k] = s;
        for (size_t i = 0; s && i < s->nsrc; i++) {
            a->malformed += s->src[i].malformed;
            a->set_aside += s->src[i].other;
            for (size_t j = 0; j < DFN_PH_KINDS && s->src[i].other_ph[j].n; j++)
                dfn_phcount_add(a->set_aside_ph, s->src[i].other_ph[j].ph, strlen(s->src[i].other_ph[j].ph),
                                s->src[i].other_ph[j].n);
            if (s->src[i].error || s->src[i].malformed) a->bad_files++;
        }
    }
}

/* Comparing: a run whose final set took the POSIX preset before another
 * run showed DLIO categories gets the DLIO layers too (snapshots are
 * replaced by later ones anyway). */
static void same_presets(runner *r)
{
    app *a = &r->a;
    if (!r->labels || a->opts.layers || !atomic_load(&r->dlio_seen)) return;
    for (size_t j = 0; j < r->nruns; j++) {
        view_set *old = r->runs[j].cur;
        if (!old || !old->full || !old->rs.preset || dfn_preset_is_dlio(old->rs.preset)) continue;
        view_set *nv = view_set_new(old->rs.store, &a->opts, dlio_flavours[atomic_load(&r->dlio_seen)], true);
        if (!nv->rs.ls) { view_set_release(nv); continue; }
        if (a->have_view) view_set_store(&a->v, j, nv);
        r->runs[j].cur = nv;
        view_set_release(old);   /* the store stays with the new set */
    }
}

/* Shows a set of run k: once every run has one the view starts; later
 * ones replace the run's set in it. */
static void show_set(runner *r, size_t k, view_set *vs)
{
    app *a = &r->a;
    if (!vs->rs.ls) {
        snprintf(a->msg, sizeof a->msg, "layers: %.900s", vs->err);
        if (vs->rs.store == r->runs[k].final) r->runs[k].final = NULL;   /* it goes with the set */
        view_set_free(vs);
        count_damage(r);
        return;
    }
    if (vs->an_err[0]) snprintf(a->msg, sizeof a->msg, "%.900s: no compute, I/O or exposed columns", vs->an_err);
    char err[256];
    if (!a->have_view) {
        view_set_free(r->runs[k].cur);
        r->runs[k].cur = vs;
        same_presets(r);
        view_set **sets = dfn_xcalloc(r->nruns, sizeof *sets);
        bool all = true;
        for (size_t j = 0; j < r->nruns; j++) all &= (sets[j] = r->runs[j].cur) != NULL;
        if (all) {
            view_init(&a->v, sets, r->nruns, r->labels);
            a->v.threads = a->opts.threads;
            a->have_view = true;
            if (!set_size(r, a->rows, a->cols)) view_refresh(&a->v, err, sizeof err);
        }
        free(sets);
        return;
    }
    view_set_store(&a->v, k, vs);
    if (a->v.track_on) set_size(r, a->rows, a->cols);   /* more series may have come */
    view_set_free(r->runs[k].cur);   /* the view let go of it */
    r->runs[k].cur = vs;
    same_presets(r);
}

static bool run_loading(const run_load *rl) { return rl->loader || rl->ix.started; }

static void loading_text(runner *r)
{
    app *a = &r->a;
    dfn_loader **ls = dfn_xcalloc(r->nruns, sizeof *ls);
    double *each = dfn_xcalloc(r->nruns, sizeof *each);
    for (size_t k = 0; k < r->nruns; k++) ls[k] = r->runs[k].loader;
    dfn_progress p;
    dfn_loaders_progress(ls, r->nruns, &p, each);
    char who[160] = "";
    size_t w = 0;
    for (size_t k = 0; r->labels && k < r->nruns && w < sizeof who; k++) {
        int n = snprintf(who + w, sizeof who - w, "%s %.0f%%, ", r->labels[k], each[k]);
        if (n > 0) w += (size_t)n;
    }
    free(ls);
    free(each);
    double pct = p.bytes_total ? 100.0 * p.bytes_done / p.bytes_total : 0;
    double eta = pct > 1 && p.elapsed_s > 0 ? p.elapsed_s * (100 - pct) / pct : -1;
    char etas[32] = "";
    if (eta >= 0) snprintf(etas, sizeof etas, ", ETA %.0f s", eta);
    /* many long run names may not fit: the line is cut, as the screen would */
    snprintf(a->progress, sizeof a->progress, "%s %s%.1f%% of %.1f MB, %" PRIu64 " events, %.2f M events/s%s  (q cancels)",
             p.building ? "building the store:" : "loading", who, pct, p.bytes_total / 1e6, p.events,
             p.events_per_s / 1e6, p.building ? "" : etas);
}

static void poll_run(runner *r, size_t k)
{
    app *a = &r->a;
    run_load *rl = &r->runs[k];
    if (rl->ix.started) {
        view_set *vs = atomic_exchange(&rl->ix.ready, NULL);
        if (!vs) return;
        pthread_join(rl->ix.thread, NULL);
        rl->ix.started = false;
        show_set(r, k, vs);
        return;
    }
    if (!rl->loader) return;
    dfn_progress p;
    dfn_loader_progress(rl->loader, &p);
    if (!p.done) {
        view_set *vs = atomic_exchange(&rl->sn.ready, NULL);
        if (vs) show_set(r, k, vs);
        return;
    }
    /* done: the final store replaces any snapshot once its layers are indexed */
    atomic_store(&rl->sn.stop, true);
    if (rl->sn.started) pthread_join(rl->sn.thread, NULL);
    rl->sn.started = false;
    view_set_free(atomic_exchange(&rl->sn.ready, NULL));
    dfn_store *final = dfn_loader_finish(rl->loader);
    rl->loader = NULL;
    if (!final) { r->quit = true; return; }
    int st = dfn_store_status(final);
    if (st > r->status) r->status = st;
    rl->final = final;
    count_damage(r);
    char note[900];
    if (dfn_unit_note(final, a->opts.time_unit, note, sizeof note)) snprintf(a->msg, sizeof a->msg, "%s", note);
    if (st == 3) {
        if (r->labels) snprintf(a->msg, sizeof a->msg, "%.200s: nothing could be read (! lists the errors)", r->labels[k]);
        else snprintf(a->msg, sizeof a->msg, "nothing could be read (! lists the errors)");
    }
    rl->ix.store = final;
    rl->ix.opts = &a->opts;
    rl->ix.dlio_seen = r->labels ? &r->dlio_seen : NULL;
    if (r->headless || pthread_create(&rl->ix.thread, NULL, indexer_main, &rl->ix) != 0) {
        show_set(r, k, view_set_new(final, &a->opts, shared_preset(&a->opts, r->labels ? &r->dlio_seen : NULL, final), true));
        return;
    }
    rl->ix.started = true;
}

/* Every run loads at once, each with its own loader and snapshots. */
static void runs_start(runner *r)
{
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        dfn_load_opts lo = { .threads = r->a.opts.threads, .time_unit = r->a.opts.time_unit };
        rl->loader = dfn_loader_start((const char *const *)rl->in->paths, rl->in->n, &lo);
        rl->sn.l = rl->loader;
        rl->sn.opts = &r->a.opts;
        rl->sn.dlio_seen = r->labels ? &r->dlio_seen : NULL;
        if (!r->headless) rl->sn.started = pthread_create(&rl->sn.thread, NULL, snapper_main, &rl->sn) == 0;
    }
    r->a.loading = true;
}

static void poll_loader(runner *r)
{
    app *a = &r->a;
    bool any = false;
    for (size_t k = 0; k < r->nruns; k++) {
        poll_run(r, k);
        any |= run_loading(&r->runs[k]);
    }
    a->loading = any;
    if (!any) { compute_note(r); return; }
    bool indexing = true;
    size_t events = 0;
    for (size_t k = 0; k < r->nruns; k++) {
        indexing &= !r->runs[k].loader;
        if (r->runs[k].final) events += r->runs[k].final->n;
    }
    if (indexing) snprintf(a->progress, sizeof a->progress, "indexing the layers, call tree and access patterns of %zu events ...", events);
    else loading_text(r);
}

static void start_prompt(app *a, prompt_kind k, const char *init)
{
    a->mode = MODE_PROMPT;
    a->pk = k;
    a->perr[0] = 0;
    edit_set(&a->edit, init ? init : "");
    a->fhist_pos = a->nfhist;
}

static void start_export(runner *r, const char *path, bool overwrite)
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
    if (a->export_calls) {
        x->dim.kind = DFN_DIM_EVENT;
        x->sort = -1;
        x->sort_col = 0;
        x->desc = false;
    } else {
        x->dim.kind = l->dim.kind;
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

static void poll_export(runner *r, bool wait)
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

static void start_diagnose(runner *r)
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

static void poll_diagnose(runner *r, bool wait)
{
    diagnoser *d = &r->dg;
    if (!job_finished(&d->job, wait)) return;
    r->a.diagnosing = false;
    r->a.diag = d->out;
    if (!d->out) snprintf(r->a.msg, sizeof r->a.msg, "diagnostics failed: %.900s", d->err);
    dfn_filter_free(&d->filter);
}

static void key_diag(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    size_t n = a->diag ? a->diag->n : 0;
    if (key == 27 || key == 'q' || key == 'd' || key == KEY_BACKSPACE || key == 127 || key == 8 || key == KEY_LEFT || key == 'h') {
        a->mode = MODE_TABLE;
        return;
    }
    if (key == 'Q') { r->quit = true; return; }
    if ((key == KEY_UP || key == 'k') && a->diag_sel > 0) a->diag_sel--;
    if ((key == KEY_DOWN || key == 'j') && a->diag_sel + 1 < n) a->diag_sel++;
    if (key == KEY_HOME || key == 'g') a->diag_sel = 0;
    if ((key == KEY_END || key == 'G') && n) a->diag_sel = n - 1;
    if ((key == '\n' || key == '\r' || key == KEY_ENTER || key == KEY_RIGHT || key == 'l') && a->diag_sel < n) {
        a->mode = MODE_TABLE;
        if (!view_open_finding(&a->v, &a->diag->v[a->diag_sel], err, sizeof err))
            snprintf(a->msg, sizeof a->msg, "%.1000s", err);
    }
}

static void submit_prompt(runner *r)
{
    app *a = &r->a;
    char err[1024];
    const char *text = a->edit.buf ? a->edit.buf : "";
    switch (a->pk) {
    case PROMPT_FILTER:
        if (!view_set_user_filter(&a->v, text, err, sizeof err)) {
            snprintf(a->perr, sizeof a->perr, "%s", err);
            /* one line: keep the message, drop the quoted expression */
            char *nl = strchr(a->perr, '\n');
            if (nl) *nl = 0;
            return;
        }
        if (*text && (a->nfhist == 0 || strcmp(a->fhist[a->nfhist - 1], text) != 0)) {
            a->fhist = dfn_xreallocarray(a->fhist, a->nfhist + 1, sizeof *a->fhist);
            a->fhist[a->nfhist++] = dfn_xstrdup(text);
        }
        a->msg[0] = 0;
        break;
    case PROMPT_SEARCH:
        free(a->v.search);
        a->v.search = dfn_xstrdup(text);
        if (*text && !view_search(&a->v, 1)) snprintf(a->msg, sizeof a->msg, "not found: %s", text);
        else a->msg[0] = 0;
        break;
    case PROMPT_ARG: {
        if (!*text) break;
        /* "epoch" or "arg.epoch" inherits from enclosing calls; "own.epoch" does not */
        bool own = strncmp(text, "own.", 4) == 0 && text[4];
        const char *name = own || (strncmp(text, "arg.", 4) == 0 && text[4]) ? text + 4 : text;
        dfn_dim d = { .kind = DFN_DIM_ARG, .arg = (char *)name, .own = own };
        if (!view_pivot(&a->v, &d, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    }
    case PROMPT_EXPORT:
        if (!*text) { a->mode = MODE_TABLE; return; }
        struct stat st;
        /* a file, or a link (even dangling): asked; anything else fails with its reason */
        if (lstat(text, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
            free(r->pending_path);
            r->pending_path = dfn_xstrdup(text);
            a->mode = MODE_CONFIRM;
            return;
        }
        a->mode = MODE_TABLE;
        start_export(r, text, false);
        return;
    }
    a->mode = MODE_TABLE;
}

static void key_prompt(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    line_edit *e = &a->edit;
    switch (key) {
    case 27: a->mode = MODE_TABLE; a->perr[0] = 0; return;
    case '\n': case '\r': case KEY_ENTER: submit_prompt(r); return;
    case KEY_LEFT: e->cur = edit_prev(e, e->cur); return;
    case KEY_RIGHT: e->cur = edit_next(e, e->cur); return;
    case KEY_HOME: case 1: e->cur = 0; return;
    case KEY_END: case 5: e->cur = e->len; return;
    case KEY_BACKSPACE: case 127: case 8:
        if (e->cur) edit_delete(e, edit_prev(e, e->cur), e->cur);
        return;
    case KEY_DC: if (e->cur < e->len) edit_delete(e, e->cur, edit_next(e, e->cur)); return;
    case 21: edit_delete(e, 0, e->cur); return;   /* Ctrl-U */
    case KEY_UP: case KEY_DOWN:
        if (a->pk != PROMPT_FILTER || !a->nfhist) return;
        if (key == KEY_UP && a->fhist_pos > 0) a->fhist_pos--;
        else if (key == KEY_DOWN && a->fhist_pos < a->nfhist) a->fhist_pos++;
        edit_set(e, a->fhist_pos < a->nfhist ? a->fhist[a->fhist_pos] : "");
        return;
    default:
        if (utf8 && ulen) edit_insert(e, utf8, ulen);
    }
}

static void open_detail(app *a)
{
    level *l = view_top(&a->v);
    if (!l->res || !l->res->nrows) return;
    a->detail_event = view_call(l, l->cursor, &a->detail_run);
    const dfn_run *run = &a->v.runs[a->detail_run];
    /* the children once, not on every redraw: finding them scans the
     * events the call spans */
    free(a->detail_kids);
    a->detail_kids = NULL;
    a->ndetail_kids = 0;
    if (run->an && run->an->tree) {
        /* one scan fills the first DETAIL_KIDS and counts them all */
        a->detail_kids = dfn_xmalloc(DETAIL_KIDS * sizeof *a->detail_kids);
        a->ndetail_kids = dfn_calltree_children(run->an->tree, run->s, a->detail_event, a->detail_kids, DETAIL_KIDS);
    }
    a->scroll = 0;
    a->mode = MODE_DETAIL;
}

/* Once, where it matters: that the compute definition matched nothing,
 * so compute and exposed say "-". At once when nothing else needs the
 * status line (damage, records set aside), else on the first process level,
 * whose columns they are. */
static void compute_note(runner *r)
{
    app *a = &r->a;
    if (r->compute_noted || !a->have_view || a->msg[0] || a->loading) return;
    const view_set *vs = r->runs[0].cur;
    if (!vs || !vs->full || r->labels) return;
    bool quiet = !a->malformed && !a->bad_files && !a->set_aside;
    if (!quiet && !view_shows_compute(view_top(&a->v))) return;
    r->compute_noted = true;
    dfn_overlap_note(vs->rs.an.overlap, true, a->msg, sizeof a->msg);
}

static void key_table(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    a->msg[0] = 0;
    if (!a->have_view) {
        if (key == 'q' || key == 'Q') r->quit = true;
        return;
    }
    level *l = view_top(&a->v);
    long page = a->v.table_rows > 1 ? a->v.table_rows - 1 : 1;
    switch (key) {
    case KEY_UP: case 'k': view_move(&a->v, -1); break;
    case KEY_DOWN: case 'j': view_move(&a->v, 1); break;
    case KEY_PPAGE: view_move(&a->v, -page); break;
    case KEY_NPAGE: case ' ': view_move(&a->v, page); break;
    case KEY_HOME: case 'g': view_move(&a->v, -(long)l->cursor); break;
    case KEY_END: case 'G': view_move(&a->v, l->res ? (long)l->res->nrows : 0); break;
    case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: case 'l':
        if (view_is_calls(l)) { open_detail(a); break; }
        if (!view_drill(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case KEY_BACKSPACE: case 127: case 8: case KEY_LEFT: case 'h':
        view_back(&a->v);
        break;
    case 'q':
        if (view_back(&a->v)) break;
        if (a->exporting) { snprintf(a->msg, sizeof a->msg, "an export is running: q again waits for it and quits, Q quits at once"); a->exporting = false; break; }
        r->quit = true;
        break;
    case 'Q': r->quit = true; break;
    case 'p': a->mode = MODE_PIVOT; a->menu_sel = 0; break;
    case 'c': a->mode = MODE_COLUMNS; a->menu_sel = 0; break;
    case '?': a->mode = MODE_HELP; a->scroll = 0; break;
    case '!': a->mode = MODE_DAMAGE; a->scroll = 0; break;
    case 'C':
        /* the tracks take lines from the table and columns from the
         * timeline: a new size queries the level again */
        if (view_tracks_next(&a->v, a->msg, sizeof a->msg) && !set_size(r, a->rows, a->cols))
            view_tracks_refresh(&a->v, l);
        break;
    case 'd':
        if (a->diag && !a->diagnosing && a->diag_where) {
            /* the same selection shows the findings it already has */
            dfn_filter f;
            view_filter(&a->v, l, &f);
            char *w = dfn_filter_text(&f);
            dfn_filter_free(&f);
            bool same = strcmp(w, a->diag_where) == 0;
            free(w);
            if (same) { a->mode = MODE_DIAG; break; }
        }
        start_diagnose(r);
        break;
    case '<': view_sort_move(&a->v, -1); break;
    case '>': view_sort_move(&a->v, 1); break;
    case 'r': view_sort_reverse(&a->v); break;
    case 'z': case 'Z': case '[': case ']':
        if (key == 'z' || key == 'Z') view_zoom(&a->v, key == 'z');
        else view_shift(&a->v, key == ']' ? 1 : -1);
        if (!view_refresh(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case 'f': start_prompt(a, PROMPT_FILTER, l->user); break;
    case '/': start_prompt(a, PROMPT_SEARCH, a->v.search); break;
    case 'n': case 'N':
        if (!view_search(&a->v, key == 'n' ? 1 : -1))
            snprintf(a->msg, sizeof a->msg, a->v.search ? "not found: %s" : "no search yet: / searches", a->v.search ? a->v.search : "");
        break;
    case 'e': case 'E': {
        if (a->loading) { snprintf(a->msg, sizeof a->msg, "wait for the load to finish before exporting"); break; }
        if (atomic_load(&r->ex.job.running)) { snprintf(a->msg, sizeof a->msg, "an export is already running"); break; }
        a->export_calls = key == 'E';
        char name[256];
        view_export_name(&a->v, a->export_calls, now_seconds(), name, sizeof name);
        start_prompt(a, PROMPT_EXPORT, name);
        break;
    }
    case 12: clearok(curscr, TRUE); break;   /* Ctrl-L */
    default: break;
    }
}

static void key_menu(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    int n = a->mode == MODE_PIVOT ? (int)view_npivots : COL_N - 1;
    if (key == 27 || key == 'q' || (a->mode == MODE_COLUMNS && (key == '\n' || key == '\r' || key == KEY_ENTER))) {
        bool cols = a->mode == MODE_COLUMNS;
        a->mode = MODE_TABLE;
        if (cols) view_refresh(&a->v, err, sizeof err);
        return;
    }
    if (key == KEY_UP || key == 'k') { a->menu_sel = (a->menu_sel + n - 1) % n; return; }
    if (key == KEY_DOWN || key == 'j') { a->menu_sel = (a->menu_sel + 1) % n; return; }
    if (a->mode == MODE_COLUMNS) {
        if (key == ' ') a->v.col_on[a->menu_sel + 1] = !a->v.col_on[a->menu_sel + 1];
        return;
    }
    int pick = -1;
    if (key == '\n' || key == '\r' || key == KEY_ENTER) pick = a->menu_sel;
    for (size_t i = 0; i < view_npivots && pick < 0; i++) if (view_pivots[i].key == key) pick = (int)i;
    if (pick < 0) return;
    a->mode = MODE_TABLE;
    if (view_pivots[pick].kind == DFN_DIM_ARG) { start_prompt(a, PROMPT_ARG, "epoch"); return; }
    dfn_dim d = { .kind = view_pivots[pick].kind };
    if (!view_pivot(&a->v, &d, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
}

static void key_screen(runner *r, int key)
{
    app *a = &r->a;
    if (key == 27 || key == 'q' || key == KEY_BACKSPACE || key == 127 || key == 8 || key == KEY_LEFT || key == 'h' ||
        (a->mode == MODE_HELP && key == '?') || (a->mode == MODE_DAMAGE && key == '!')) {
        a->mode = MODE_TABLE;
        return;
    }
    if (key == 'Q') { r->quit = true; return; }
    if ((key == KEY_UP || key == 'k') && a->scroll) a->scroll--;
    if (key == KEY_DOWN || key == 'j') a->scroll++;
    if (key == KEY_NPAGE || key == ' ') a->scroll += (size_t)(a->rows > 4 ? a->rows - 4 : 1);
    if (key == KEY_PPAGE) a->scroll = a->scroll > (size_t)a->rows ? a->scroll - (size_t)a->rows : 0;
}

/* One key: the whole dispatch, shared by the terminal and the replay. */
static void handle_key(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    if (key == KEY_RESIZE) return;
    a->msg_middle = false;
    if (a->mode == MODE_MEMORY) {
        /* the set may not fit: y loads it anyway, anything that quits quits */
        if (key == 'y' || key == 'Y') { a->mode = MODE_TABLE; runs_start(r); }
        else if (key == 'n' || key == 'N' || key == 'q' || key == 'Q' || key == 27 || key == 3) { r->status = 4; r->quit = true; }
        return;
    }
    if (a->loading && !a->have_view && (key == 'q' || key == 'Q' || key == 3)) { r->quit = true; return; }
    if (a->loading && ((key == 'Q' && a->mode != MODE_PROMPT) || key == 3 || (key == 'q' && a->mode == MODE_TABLE && a->v.nlv <= 1))) {
        r->quit = true;   /* cancels the load */
        return;
    }
    switch (a->mode) {
    case MODE_PROMPT: key_prompt(r, key, utf8, ulen); break;
    case MODE_CONFIRM:
        if (key == 'y' || key == 'Y') { a->mode = MODE_TABLE; start_export(r, r->pending_path, true); }
        else if (key == 'n' || key == 'N' || key == 27) { a->mode = MODE_TABLE; snprintf(a->msg, sizeof a->msg, "not saved"); }
        break;
    case MODE_PIVOT: case MODE_COLUMNS: key_menu(r, key); break;
    case MODE_HELP: case MODE_DETAIL: case MODE_DAMAGE: key_screen(r, key); break;
    case MODE_DIAG: key_diag(r, key); break;
    default: key_table(r, key); break;
    }
    if (a->mode == MODE_TABLE) compute_note(r);
    if (r->quit && key == 'Q') r->abandon_export = true;   /* "quit at once" */
}

static void init_colors(app *a)
{
    a->color = false;
    if (a->opts.color == 0 || (a->opts.color < 0 && getenv("NO_COLOR") && *getenv("NO_COLOR"))) return;
    if (!has_colors() || start_color() != OK) return;
    use_default_colors();
    init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_SPARK, COLOR_GREEN, -1);
    init_pair(PAIR_WARN, COLOR_YELLOW, -1);
    init_pair(PAIR_HINT, COLOR_BLACK, COLOR_WHITE);
    init_pair(PAIR_SEL_SPARK, COLOR_CYAN, -1);
    a->color = true;
}

static void runner_free(runner *r)
{
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        if (rl->loader) {
            atomic_store(&rl->sn.stop, true);
            dfn_loader_cancel(rl->loader);
            if (rl->sn.started) pthread_join(rl->sn.thread, NULL);
            dfn_store_free(dfn_loader_finish(rl->loader));
            rl->loader = NULL;
        }
        view_set_free(atomic_exchange(&rl->sn.ready, NULL));
        if (rl->ix.started) {
            pthread_join(rl->ix.thread, NULL);
            view_set *vs = atomic_exchange(&rl->ix.ready, NULL);
            /* its store is the final one, which no set owns yet */
            if (vs) view_set_free(vs);
            rl->ix.started = false;
        }
    }
    poll_export(r, true);
    poll_diagnose(r, true);
    if (job_finished(&r->mk.job, true)) {   /* marks no level will show */
        dfn_strtab_free(r->mk.keys);
        dfn_filter_free(&r->mk.filter);
    }
    dfn_findings_free(r->a.diag);
    free(r->a.diag_where);
    free(r->a.detail_kids);
    if (r->a.have_view) view_free(&r->a.v);
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        view_set_free(rl->cur);
    }
    free(r->runs);
    dfn_runs_free(r->specs, r->nruns);
    free(r->labels);
    free(r->a.damage_store);
    free(r->a.input_errors);
    for (size_t i = 0; i < r->a.nfhist; i++) free(r->a.fhist[i]);
    free(r->a.fhist);
    free(r->a.edit.buf);
    free(r->a.mem_warning);
    free(r->pending_path);
}

/* Reads one key: a wide character or a function key. */
static int read_key(char *utf8, size_t *ulen)
{
    wint_t wc;
    int rc = get_wch(&wc);
    *ulen = 0;
    if (rc == ERR) return ERR;
    if (rc == KEY_CODE_YES) return (int)wc;
    if (wc >= 32 && wc != 127) {
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t n = wcrtomb(utf8, (wchar_t)wc, &st);
        *ulen = n == (size_t)-1 ? 0 : n;
    }
    return (int)wc;
}

/* ---- signals ---- */

/* INT, TERM, HUP and QUIT end the program and TSTP stops it, each once
 * the loop has put the terminal back. A signal the program was started
 * with ignored (nohup, a background job of a script) stays ignored. */
static void signals_install(void)
{
    static const int ends[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        sigaction(ends[i], NULL, &old);
        if (old.sa_handler != SIG_IGN) sigaction(ends[i], &sa, NULL);
    }
    /* our own TSTP and CONT handlers also keep ncurses from installing
     * its TSTP handler, which draws from inside the signal handler */
    sa.sa_handler = on_stop;
    sigaction(SIGTSTP, &sa, NULL);
    sa.sa_handler = on_cont;
    sigaction(SIGCONT, &sa, NULL);
}

/* Ctrl-Z: the shell gets the terminal back as it was, then the whole
 * process stops (a load or an export pauses with it) until SIGCONT. */
static void app_suspend(void)
{
    got_stop = 0;
    endwin();
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    sigemptyset(&dfl.sa_mask);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTSTP, &dfl, &ours);
    raise(SIGTSTP);   /* returns once continued */
    sigaction(SIGTSTP, &ours, NULL);
    got_cont = 1;
}

/* Continued (after Ctrl-Z, or a SIGSTOP that could not be caught): the
 * shell may have changed the terminal modes and the size meanwhile (a
 * stopped process gets no SIGWINCH), so both are taken again and the
 * whole screen is redrawn. */
static void app_resume(runner *r)
{
    got_cont = 0;
    reset_prog_mode();
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
        (ws.ws_row != LINES || ws.ws_col != COLS))
        resizeterm(ws.ws_row, ws.ws_col);
    set_size(r, LINES, COLS);
    clearok(curscr, TRUE);
}

/* After the screen is restored: a signal ends the program at once. An
 * export in progress loses its temporary file, never leaving part of a
 * table under its name; loader and worker threads end with the process,
 * which holds nothing that outlives it. Dies of the signal (the shell sees
 * 128 + its number). r may be NULL once freed. */
static void app_oom(void) { endwin(); }

static _Noreturn void die_of_signal(runner *r)
{
    int sig = got_signal;
    if (r && atomic_load(&r->ex.job.running) && r->ex.tmp) unlink(r->ex.tmp);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* Quitting while an export runs: q finishes it, Q cancels it. The status
 * line is gone, so its outcome goes to stderr. */
static void export_after_screen(runner *r)
{
    exporter *x = &r->ex;
    if (!atomic_load(&x->job.running)) return;
    if (r->abandon_export) atomic_store(&x->save.cancel, true);
    else dfn_warnf(stderr, "finishing the export to %s ...", x->path);
    while (!atomic_load(&x->job.done)) {
        if (got_signal) die_of_signal(r);
        struct timespec ts = { 0, 20 * 1000000 };
        nanosleep(&ts, NULL);
    }
    poll_export(r, true);
    dfn_warnf(stderr, "%s", r->a.msg);
}

/* The replay: a fixed screen size, the load finished before the first
 * screen, every key handled exactly as from a terminal, the screen written
 * as text after each, and the time each key took. */
static int run_headless(runner *r, const ui_opts *o)
{
    app *a = &r->a;
    replay_key *keys;
    size_t nkeys;
    char err[512];
    if (!replay_parse(o->replay, &keys, &nkeys, err, sizeof err)) {
        fprintf(stderr, "dfnav: --replay: %s\n", err);
        return 2;
    }
    FILE *out = stdout;
    if (o->screens && strcmp(o->screens, "-") != 0) {
        out = fopen(o->screens, "w");
        if (!out) {
            fprintf(stderr, "dfnav: %s: %s\n", o->screens, strerror(errno));
            replay_free(keys, nkeys);
            return 2;
        }
    }
    FILE *tout = fopen("/dev/null", "w"), *tin = fopen("/dev/null", "r");
    SCREEN *scr = tout && tin ? newterm("xterm-256color", tout, tin) : NULL;
    if (!scr) {
        fprintf(stderr, "dfnav: cannot set up the replay screen (terminfo for xterm-256color)\n");
        if (tout) fclose(tout);
        if (tin) fclose(tin);
        if (out != stdout) fclose(out);
        replay_free(keys, nkeys);
        return 2;
    }
    set_term(scr);
    resizeterm(o->rows, o->cols);
    init_colors(a);
    a->rows = o->rows;
    a->cols = o->cols;
    for (;;) {
        poll_loader(r);
        if (!a->loading) break;
        struct timespec ts = { 0, 5 * 1000000 };
        nanosleep(&ts, NULL);
    }
    set_size(r, o->rows, o->cols);
    double *lat = dfn_xmalloc((nkeys ? nkeys : 1) * sizeof *lat);
    size_t nlat = 0;
    poll_marks(a, &r->mk, true);
    draw_screen(a);
    wnoutrefresh(stdscr);
    doupdate();
    replay_dump(out, "start", a->rows, a->cols);
    for (size_t k = 0; k < nkeys && !r->quit; k++) {
        double t0 = dfn_now();
        if (keys[k].rows) {
            resizeterm(keys[k].rows, keys[k].cols);
            set_size(r, keys[k].rows, keys[k].cols);
        } else {
            handle_key(r, keys[k].key, keys[k].utf8, keys[k].ulen);
        }
        poll_export(r, true);
        poll_diagnose(r, true);
        /* marks come in the background: not part of the key's latency */
        double m0 = dfn_now();
        poll_marks(a, &r->mk, true);
        t0 += dfn_now() - m0;
        draw_screen(a);
        wnoutrefresh(stdscr);
        doupdate();
        lat[nlat++] = (dfn_now() - t0) * 1e3;
        fprintf(stderr, "latency %s: %.1f ms\n", keys[k].label, lat[nlat - 1]);
        replay_dump(out, keys[k].label, a->rows, a->cols);
    }
    replay_latency(stderr, lat, nlat);
    free(lat);
    endwin();
    delscreen(scr);
    fclose(tout);
    fclose(tin);
    if (out != stdout) fclose(out);
    else fflush(stdout);
    replay_free(keys, nkeys);
    return r->status;
}

int ui_run(const ui_opts *o, char **paths, size_t npaths)
{
    runner *r = dfn_xcalloc(1, sizeof *r);
    app *a = &r->a;
    a->opts = *o;
    setlocale(LC_ALL, "");
    a->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    r->headless = o->replay != NULL;

    /* comparing, each path is a run of its own; else all are one */
    char err[1024];
    if (!dfn_runs_parse(paths, npaths, o->compare, &r->specs, &r->nruns, err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        runner_free(r);
        free(r);
        return 2;
    }
    r->runs = dfn_xcalloc(r->nruns, sizeof *r->runs);
    a->damage_store = dfn_xcalloc(r->nruns, sizeof *a->damage_store);
    a->nruns = r->nruns;
    if (o->compare) r->labels = dfn_xcalloc(r->nruns, sizeof *r->labels);
    bool missing = false, empty = false;
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        rl->in = &r->specs[k].in;
        if (r->labels) r->labels[k] = r->specs[k].label;
        missing |= rl->in->nerrors > 0;
        for (size_t i = 0; i < rl->in->nerrors; i++) {
            a->input_errors = dfn_xreallocarray(a->input_errors, a->ninput_errors + 1, sizeof *a->input_errors);
            a->input_errors[a->ninput_errors++] = rl->in->errors[i];
        }
        if (rl->in->n == 0) {
            for (size_t i = 0; i < rl->in->nerrors; i++) dfn_warnf(stderr, "%s", rl->in->errors[i]);
            if (r->labels) dfn_warnf(stderr, "%s: no trace file to read", r->labels[k]);
            else fprintf(stderr, "dfnav: no trace file to read\n");
            empty = true;
        }
    }
    if (empty) {
        runner_free(r);
        free(r);
        return 3;
    }
    /* a bad layer file or compute definition is a usage error, before
     * any screen */
    const char *bad = NULL;
    dfn_layers l;
    dfn_filter f;
    if (o->layers && !dfn_layers_load(o->layers, &l, err, sizeof err)) bad = "layers";
    else if (o->layers) dfn_layers_free(&l);
    if (!bad && o->compute && !dfn_filter_parse(o->compute, &f, err, sizeof err)) bad = "--compute";
    else if (!bad && o->compute) dfn_filter_free(&f);
    if (bad) {
        fprintf(stderr, "dfnav: %s: %s\n", bad, err);
        runner_free(r);
        free(r);
        return 2;
    }
    /* a set that would not fit is said before the load fills the memory:
     * the replay gives up as the command line does, the explorer asks */
    char msg[512];
    if (!o->force && !dfn_runs_fit(r->specs, r->nruns, o->threads, DFN_EST_EXPLORER_PER_EVENT, msg, sizeof msg)) {
        if (r->headless) {
            fprintf(stderr, "dfnav: %s\ndfnav: --force loads it anyway; fewer files need less\n", msg);
            runner_free(r);
            free(r);
            return 4;
        }
        a->mem_warning = dfn_xstrdup(msg);
        a->mode = MODE_MEMORY;
    }
    if (a->mode != MODE_MEMORY) runs_start(r);

    int status;
    if (r->headless) {
        status = run_headless(r, o);
    } else {
        signals_install();
        if (!initscr()) {
            fprintf(stderr, "dfnav: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
            runner_free(r);
            free(r);
            return 2;
        }
        dfn_set_oom_hook(app_oom);   /* the message must reach a usable terminal */
        cbreak();
        noecho();
        nonl();
        keypad(stdscr, TRUE);
        set_escdelay(25);
        timeout(50);          /* the loop polls the loader between keys */
        curs_set(0);
        init_colors(a);
        set_size(r, LINES, COLS);
        while (!r->quit && !got_signal) {
            if (got_stop) app_suspend();
            if (got_cont) app_resume(r);
            poll_loader(r);
            poll_export(r, false);
            poll_diagnose(r, false);
            poll_marks(a, &r->mk, false);
            curs_set(a->mode == MODE_PROMPT ? 1 : 0);
            draw_screen(a);
            refresh();
            char u[8];
            size_t ul;
            int key = read_key(u, &ul);
            if (key == ERR || got_signal || got_stop) continue;
            if (key == KEY_RESIZE) { set_size(r, LINES, COLS); continue; }
            handle_key(r, key, u, ul);
        }
        endwin();
        if (got_signal) die_of_signal(r);
        export_after_screen(r);
        status = r->status;
    }
    if (a->loading && !r->headless) status = 0;   /* quit while loading: cancelled on purpose */
    if (status == 0 && missing) status = 1;
    runner_free(r);
    free(r);
    if (got_signal) die_of_signal(NULL);   /* one that came while cleaning up */
    return status;
}
