/* Loading the runs in the background: a loader per run, snapshots shown
 * while it reads (each indexed off the UI thread), then the final store
 * with its layers, call tree and access patterns; the progress text and
 * the damage counts the status line shows. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "app.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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
        view_set *vs = view_set_new(s, sn->opts, shared_preset(sn->opts, sn->dlio_seen, s), DFN_NEED_OVERLAP);
        double cost = dfn_now() - t0;
        view_set_free(atomic_exchange(&sn->ready, vs));   /* the UI had not taken the last */
        /* a snapshot takes a core from the load: keep them to a small
         * share of the time, and rarer as the set grows */
        wait *= 2;
        if (wait < cost * 8) wait = cost * 8;
    }
}

/* ---- the final store's layer index, built off the UI thread ---- */


/* The table comes first (layers), the analyses after (overlap, call
 * tree, access patterns): on a set from the cache the table is there at
 * once, where these take a second more. They start once the UI has the
 * table on screen (go), not while its query runs. They read the shown
 * set's store and layers, which the UI frees only after joining this
 * thread. */
static void *indexer_main(void *arg)
{
    indexer *ix = arg;
    view_set *vs = view_set_new(ix->store, ix->opts, shared_preset(ix->opts, ix->dlio_seen, ix->store), 0);
    bool more = vs->rs.ls != NULL;   /* else the UI drops the set and its store */
    atomic_store(&ix->ready, vs);
    if (!more) return NULL;
    while (!atomic_load(&ix->go)) {
        struct timespec ts = { 0, 2 * 1000000 };
        nanosleep(&ts, NULL);
    }
    /* behind the keys, as the marks are: a key pressed while these build
     * (seconds on a large set) got one core of two, and a pivot at 30 M
     * events took 570-630 ms instead of ~400 (Linux: the nice value is
     * this thread's, and threads it starts inherit it) */
    (void)setpriority(PRIO_PROCESS, 0, 10);
    dfn_analysis *x = dfn_xcalloc(1, sizeof *x);
    if (!view_set_extra(vs, ix->opts, x, ix->an_err, sizeof ix->an_err)) ix->an_err_set = true;
    atomic_store(&ix->extra, x);
    return NULL;
}

/* Hands the call tree and access patterns to the set they were built
 * for, once no job reads its analysis. False to try again later. */
static bool install_extra(runner *r, size_t k)
{
    run_load *rl = &r->runs[k];
    if (atomic_load(&r->ex.job.running) || atomic_load(&r->dg.job.running) || atomic_load(&r->mk.job.running) ||
        atomic_load(&r->fc.job.running))
        return false;
    dfn_analysis *x = atomic_exchange(&rl->ix.extra, NULL);
    if (!x) return false;
    pthread_join(rl->ix.thread, NULL);
    rl->ix.started = false;
    view_set *cur = rl->cur;
    if (cur && cur->rs.store == rl->ix.store && !cur->rs.an.overlap && !cur->rs.an.tree && !cur->rs.an.access) {
        cur->rs.an = *x;
        cur->full = true;
        if (rl->ix.an_err_set) {
            snprintf(cur->an_err, sizeof cur->an_err, "%s", rl->ix.an_err);
            snprintf(r->a.msg, sizeof r->a.msg, "%.900s: no compute, I/O or exposed columns", cur->an_err);
        }
    } else {
        dfn_analysis_free(x);
    }
    free(x);
    return true;
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
            const dfn_srcmore *m = dfn_src_more(&s->src[i]);
            a->malformed += s->src[i].malformed;
            a->set_aside += m->other;
            for (size_t j = 0; j < dfn_phcount_len(m->other_ph); j++)
                dfn_phcount_add(a->set_aside_ph, m->other_ph[j].ph, strlen(m->other_ph[j].ph),
                                m->other_ph[j].n);
            if (m->error || s->src[i].malformed) a->bad_files++;
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
        view_set *nv = view_set_new(old->rs.store, &a->opts, dlio_flavours[atomic_load(&r->dlio_seen)], VIEW_NEED_ALL);
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
            /* --where, as if typed with f (checked before the load) */
            if (a->opts.where && !view_set_user_filter(&a->v, a->opts.where, err, sizeof err))
                snprintf(a->msg, sizeof a->msg, "--where: %s", err);
            if (!app_set_size(r, a->rows, a->cols)) view_refresh(&a->v, err, sizeof err);
        }
        free(sets);
        return;
    }
    view_set_store(&a->v, k, vs);
    if (a->v.track_on) app_set_size(r, a->rows, a->cols);   /* more series may have come */
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
        int n = each[k] < 0 ? snprintf(who + w, sizeof who - w, "%s ?%%, ", r->labels[k])
                            : snprintf(who + w, sizeof who - w, "%s %.0f%%, ", r->labels[k], each[k]);
        if (n > 0) w += (size_t)n;
    }
    free(ls);
    free(each);
    double pct = p.bytes_total ? 100.0 * p.bytes_done / p.bytes_total : 0;
    double eta = pct > 1 && p.elapsed_s > 0 ? p.elapsed_s * (100 - pct) / pct : -1;
    char etas[32] = "";
    if (eta >= 0) snprintf(etas, sizeof etas, ", ETA %.0f s", eta);
    char reused[48] = "";
    if (p.reused) snprintf(reused, sizeof reused, " (%" PRIu64 " files from the cache)", p.reused);
    if (p.unsized) {
        /* a pipe or standard input: what it sent so far, no end to count to */
        snprintf(a->progress, sizeof a->progress, "%s%s %.1f MB read so far (q cancels): %" PRIu64 " events, %.2f M/s",
                 p.building ? "building the store:" : "loading", reused, p.bytes_done / 1e6, p.events,
                 p.events_per_s / 1e6);
        return;
    }
    /* many long run names may not fit: the line is cut, as the screen would */
    snprintf(a->progress, sizeof a->progress, "%s%s %s%.1f%% of %.1f MB (q cancels): %" PRIu64 " events, %.2f M/s%s",
             p.building ? "building the store" : "loading", reused, who, pct, p.bytes_total / 1e6, p.events,
             p.events_per_s / 1e6, p.building ? "" : etas);
}

static void poll_run(runner *r, size_t k)
{
    app *a = &r->a;
    run_load *rl = &r->runs[k];
    if (rl->ix.started && rl->ix.shown) {
        char err[256];
        /* columns such as self time apply now */
        if (install_extra(r, k) && r->a.have_view) view_refresh(&r->a.v, err, sizeof err);
        return;
    }
    if (rl->ix.started) {
        view_set *vs = atomic_exchange(&rl->ix.ready, NULL);
        if (!vs) return;
        rl->ix.shown = true;
        if (!vs->rs.ls) {   /* no layers: nothing more comes */
            pthread_join(rl->ix.thread, NULL);
            rl->ix.started = false;
        }
        show_set(r, k, vs);
        atomic_store(&rl->ix.go, true);   /* its table is drawn: the analyses may start */
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
    /* a set from the cache says nothing: the status line matters more */
    if (final->cache_note) snprintf(a->msg, sizeof a->msg, "cache: %.900s", final->cache_note);
    char note[900];
    if (dfn_unit_note(final, a->opts.time_unit, note, sizeof note)) snprintf(a->msg, sizeof a->msg, "%s", note);
    if (st == 3) {
        if (r->labels) snprintf(a->msg, sizeof a->msg, "%.200s: nothing could be read (! lists the errors)", r->labels[k]);
        else snprintf(a->msg, sizeof a->msg, "nothing could be read (! lists the errors)");
    }
    rl->ix.store = final;
    rl->ix.shown = false;
    rl->ix.an_err_set = false;
    atomic_store(&rl->ix.go, false);
    rl->ix.opts = &a->opts;
    rl->ix.dlio_seen = r->labels ? &r->dlio_seen : NULL;
    if (r->headless || pthread_create(&rl->ix.thread, NULL, indexer_main, &rl->ix) != 0) {
        show_set(r, k, view_set_new(final, &a->opts, shared_preset(&a->opts, r->labels ? &r->dlio_seen : NULL, final), VIEW_NEED_ALL));
        return;
    }
    rl->ix.started = true;
}

/* Every run loads at once, each with its own loader and snapshots. */
void load_start(runner *r)
{
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        /* a served explorer reads the server's image and writes none there */
        dfn_load_opts lo = { .threads = r->a.opts.threads, .time_unit = r->a.opts.time_unit, .cache_dir = r->a.opts.cache_dir,
                             .no_save = r->a.opts.served };
        rl->loader = dfn_loader_start((const char *const *)rl->in->paths, rl->in->n, &lo);
        rl->sn.l = rl->loader;
        rl->sn.opts = &r->a.opts;
        rl->sn.dlio_seen = r->labels ? &r->dlio_seen : NULL;
        if (!r->headless) rl->sn.started = pthread_create(&rl->sn.thread, NULL, snapper_main, &rl->sn) == 0;
    }
    r->a.loading = true;
}

void load_remote(runner *r, dfn_outline *ol, const dfn_remote *rem)
{
    app *a = &r->a;
    view_set **sets = dfn_xcalloc(r->nruns, sizeof *sets);
    for (size_t k = 0; k < r->nruns; k++) {
        dfn_store *s = ol->run[k].store;
        ol->run[k].store = NULL;   /* (the view's set has it now) */
        /* the layers the ranks took: --layers, else their preset */
        sets[k] = view_set_new(s, &a->opts, a->opts.layers || !*ol->run[k].preset ? NULL : ol->run[k].preset, 0);
        sets[k]->rs.remote = rem;
        sets[k]->rs.remote_run = k;
        sets[k]->full = true;   /* (its holders built every analysis) */
        r->runs[k].final = s;
        int st = dfn_store_status(s);
        if (st > r->status) r->status = st;
    }
    count_damage(r);
    for (size_t k = 0; k < r->nruns; k++) show_set(r, k, sets[k]);
    free(sets);
    if (!r->labels && ol->run[0].nseries && !ol->run[0].hosts_whole)
        snprintf(a->msg, sizeof a->msg, "no ctr column: a host's samples may lie on another rank than its calls "
                 "(serve --spread --overlap-by host keeps them whole)");
    a->loading = false;
    a->settled = true;
}

void load_poll(runner *r)
{
    app *a = &r->a;
    bool any = false, settled = true;
    for (size_t k = 0; k < r->nruns; k++) {
        poll_run(r, k);
        any |= run_loading(&r->runs[k]);
        settled &= !r->runs[k].loader && (!r->runs[k].ix.started || r->runs[k].ix.shown);
    }
    a->loading = any;
    a->settled = settled;
    if (!any) { load_compute_note(r); return; }
    bool indexing = true;
    size_t events = 0;
    for (size_t k = 0; k < r->nruns; k++) {
        indexing &= !r->runs[k].loader;
        if (r->runs[k].final) events += r->runs[k].final->n;
    }
    if (indexing) snprintf(a->progress, sizeof a->progress, "indexing the layers, call tree and access patterns of %zu events ...", events);
    else loading_text(r);
}

/* Once, where it matters: that the compute definition matched nothing,
 * so compute and exposed say "-". At once when nothing else needs the
 * status line (damage, records set aside), else on the first process level,
 * whose columns they are. */
void load_compute_note(runner *r)
{
    app *a = &r->a;
    if (r->compute_noted || !a->have_view || a->msg[0] || a->loading) return;
    const view_set *vs = r->runs[0].cur;
    if (!vs || !vs->full || r->labels) return;
    bool quiet = !a->malformed && !a->bad_files && !a->set_aside;
    if (!quiet && !view_shows_compute(view_top(&a->v))) return;
    r->compute_noted = true;
    const dfn_remote *rem = vs->rs.remote;
    if (rem) {   /* (its overlap is its holders': they count what compute matched) */
        dfn_query q = { .sort = -1, .metrics = DFN_M_OVERLAP, .threads = a->opts.threads };
        uint64_t nc = UINT64_MAX;
        char err[256];
        dfn_result *t = rem->query(rem->ctx, vs->rs.remote_run, &q, &nc, err, sizeof err);
        if (t && nc != UINT64_MAX) (void)dfn_overlap_note_of("", nc, true, a->msg, sizeof a->msg);
        dfn_result_free(t);
        return;
    }
    dfn_overlap_note(vs->rs.an.overlap, true, a->msg, sizeof a->msg);
}

