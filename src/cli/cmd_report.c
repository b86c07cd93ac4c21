/* `dfnav report` and the overview: load, query through the engine's one
 * query path, print. Also the loading shared by every command: progress on
 * a terminal, and each damaged file and line reported on stderr. */
#include "cli.h"
#include "dfnav/dist.h"
#include "dfnav/cache.h"
#include "dfnav/estimate.h"
#include "dfnav/match.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_write_status(FILE *f)
{
    if (fflush(f) == 0 && !ferror(f)) return 0;
    if (errno == EPIPE) return 0;
    fprintf(stderr, "dfnav: cannot write the output: %s\n", strerror(errno));
    return 2;
}

void cli_report_damage(const cli_opts *o, const dfn_store *s, FILE *f)
{
    char note[2048];
    if (dfn_unit_note(s, o->time_unit, note, sizeof note)) dfn_warnf(f, "%s", note);
    for (size_t i = 0; i < s->nsrc; i++) {
        const dfn_srcinfo *si = &s->src[i];
        const dfn_srcmore *m = dfn_src_more(si);
        if (m->error) dfn_warnf(f, "%s: %s", si->path, m->error);
        for (size_t k = 0; k < m->nbad; k++)
            dfn_warnf(f, "%s:%" PRIu64 ": malformed line: %s", si->path, m->bad_lines[k], m->bad_reason[k]);
        if (si->malformed > m->nbad)
            dfn_warnf(f, "%s: %" PRIu64 " malformed lines in all (the first %zu shown)", si->path, si->malformed, m->nbad);
        if (m->unit_unknown)
            dfn_warnf(f, "%s: the end record's cfg.time_metric is none of US, NS, MS and SEC: times read as %s",
                      si->path, dfn_unit_name(si->unit));
        if (m->long_lines)
            dfn_warnf(f, "%s: %" PRIu64 " lines longer than 64 MiB were cut", si->path, m->long_lines);
        char frac[160];
        if (dfn_unit_fractions(si->unit, m->frac_times, frac, sizeof frac)) dfn_warnf(f, "%s: %s", si->path, frac);
    }
    /* nanoseconds become whole µs: once for the set, info has each file */
    uint64_t zeroed = 0, moved = 0, total = 0;
    size_t nsfiles = 0;
    for (size_t i = 0; i < s->nsrc; i++) {
        const dfn_srcmore *m = dfn_src_more(&s->src[i]);
        zeroed += m->ns_zeroed;
        moved += m->ns_rounding;
        total = dfn_sat_add(total, m->ns_total);
        nsfiles += s->src[i].unit == DFN_UNIT_NS;
    }
    /* said when it shows in a figure: over 0.1% of the call time moved */
    if (zeroed && moved > total / 1000)
        dfn_warnf(f, "times kept in whole us: in %zu NS file%s, %" PRIu64 " calls under 0.5 us count 0 s, and "
                  "rounding each call to the us moved call times by %.3f ms in all (info: by file)",
                  nsfiles, nsfiles == 1 ? "" : "s", zeroed, moved / 1e6);
    if (s->hash_conflicts)
        dfn_warnf(f, "%s:%" PRIu64 ": hash defined again with another name; the first definition is used "
                  "(%" PRIu64 " such definitions in all)", s->src[s->hash_conflict_src].path, s->hash_conflict_line,
                  s->hash_conflicts);
}

/* The progress of every run on one line: "base 45%  scr 30%". */
static void progress_text(const cli_run *runs, size_t n, const dfn_progress *sum, const double *pct, char *buf,
                          size_t cap)
{
    size_t w = 0;
#define PUT(...) dfn_text_put(buf, cap, &w, __VA_ARGS__)
    PUT("%s ", sum->building ? "building" : "loading");
    if (sum->reused) PUT("(%" PRIu64 " files from the cache) ", sum->reused);
    for (size_t k = 0; k < n; k++) {
        if (runs[k].label) PUT("%s", runs[k].label);   /* names hold no control bytes */
        if (pct[k] < 0) PUT(runs[k].label ? " ?%%  " : "    ?%%  ");   /* a pipe: no end known */
        else PUT(runs[k].label ? " %.0f%%  " : "%5.1f%%  ", pct[k]);
    }
    PUT("%" PRIu64 " events  %.0f events/s   ", sum->events, sum->events_per_s);
#undef PUT
}

dfn_run_opts cli_run_opts(const cli_opts *o)
{
    return (dfn_run_opts){ .layers = o->layers, .compute = o->compute, .io = o->io, .overlap_host = o->overlap_host,
                           .threads = o->threads };
}

bool cli_runs_parse(const cli_opts *o, dfn_runspec **specs, size_t *n)
{
    char msg[512];
    if (dfn_runs_parse(o->paths, o->npaths, o->compare, specs, n, msg, sizeof msg)) return true;
    fprintf(stderr, "dfnav: %s\n", msg);
    return false;
}

void cli_run_empty_said(const char *label, size_t nruns)
{
    if (nruns > 1) dfn_warnf(stderr, "%s: no trace file to read", label);
    else fprintf(stderr, "dfnav: no trace file to read\n");
}

int cli_load(const cli_opts *o, cli_run **out, size_t *nout)
{
    char msg[512];
    dfn_runspec *specs;
    size_t n;
    *out = NULL;
    *nout = 0;
    if (!cli_runs_parse(o, &specs, &n)) return 2;
    cli_run *runs = dfn_xcalloc(n, sizeof *runs);
    dfn_loader **ls = dfn_xcalloc(n, sizeof *ls);
    double *pct = dfn_xcalloc(n, sizeof *pct);
    int status = 0;
    for (size_t k = 0; k < n; k++) {
        runs[k].label = specs[k].label;
        specs[k].label = NULL;
        const dfn_inputs *in = &specs[k].in;
        for (size_t i = 0; i < in->nerrors && !cli_dist_inputs_were_said(); i++) dfn_warnf(stderr, "%s", in->errors[i]);
        if (in->n == 0) {
            cli_run_empty_said(runs[k].label, n);
            status = 3;
        }
    }
    /* a set that would not fit is said before it fills the memory and
     * the machine swaps, not after */
    dfn_estimate est;
    if (status != 3 && !o->force && !dfn_runs_fit(specs, n, o->threads, DFN_EST_CLI_PER_EVENT, &est, msg, sizeof msg)) {
        fprintf(stderr, "dfnav: %s\n", msg);
        fprintf(stderr, "dfnav: --force loads it anyway; fewer files need less\n");
        char *advice = dfn_runs_advice(specs, n, &est, o->threads, o->serve ? DFN_ADVICE_SERVE : DFN_ADVICE_REPORT,
                                       o->npaths ? o->paths[0] : NULL, o->npaths > 1, o->compare);
        dfn_warn_lines(stderr, advice);
        free(advice);
        status = 4;
    }
    /* under MPI the ranks first parse shares of the files into images,
     * which this load takes the files from; the user's cache is not
     * involved then */
    const char *dist_dir = cli_dist_share(o, specs, n, status < 3);
    uint64_t nfiles = 0;   /* (the loaders take the paths over) */
    for (size_t k = 0; k < n; k++) nfiles += specs[k].in.n;
    /* every run loads at once, each on its own loader; none when a run
     * has nothing to read (the report needs them all) or would not fit */
    for (size_t k = 0; k < n && status < 3; k++) {
        if (specs[k].in.n == 0) continue;
        /* a server keeps the set's image whatever its size: each client's
         * command reopens the set from it */
        dfn_load_opts lo = { .threads = o->threads, .time_unit = o->time_unit,
                             .cache_dir = dist_dir ? dist_dir : o->cache,
                             .no_save = (dist_dir && !o->serve) || o->served,
                             .cache_limit = o->serve ? UINT64_MAX : 0 };
        ls[k] = dfn_loader_start((const char *const *)specs[k].in.paths, specs[k].in.n, &lo);
        dfn_inputs_drop_paths(&specs[k].in);   /* the loader has its own copy */
    }
    /* (under MPI a rank's stderr is a terminal Open MPI makes, whatever
     * mpirun's own is: a batch job's log would fill with progress) */
    bool tty = !o->quiet && isatty(STDERR_FILENO) && dfn_dist_size() < 2, shown = false;
    double t0 = dfn_now();
    uint64_t from_images = 0;
    /* without a progress line, finishing below waits for the loaders
     * without the polling interval's lag (under MPI it counts the files
     * the ranks' images gave) */
    while (tty || (dist_dir && !o->quiet) || o->progress) {
        dfn_progress sum;
        dfn_loaders_progress(ls, n, &sum, pct);
        from_images = sum.reused;
        if (sum.done) break;
        char line[512];
        progress_text(runs, n, &sum, pct, line, sizeof line);
        if (o->progress) o->progress(line);
        if (tty && dfn_now() - t0 > 0.3) {
            fprintf(stderr, "\rdfnav: %s", line);
            shown = true;
        }
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
    }
    if (shown) fprintf(stderr, "\r\033[K");
    if (dist_dir && !o->quiet) cli_dist_note(nfiles, from_images);
    for (size_t k = 0; k < n; k++) {
        if (!ls[k]) continue;
        dfn_store *s = dfn_loader_finish(ls[k]);
        int st = dfn_store_status(s);
        if (specs[k].in.nerrors && st == 0) st = 1;
        if (!o->quiet && !cli_dist_load_was_said()) cli_report_damage(o, s, stderr);
        if (!o->quiet && s && s->cache_note) dfn_warnf(stderr, "cache: %s", s->cache_note);
        if (st == 3) {
            if (n > 1) dfn_warnf(stderr, "%s: nothing could be read", runs[k].label);
            else fprintf(stderr, "dfnav: nothing could be read\n");
            dfn_store_free(s);
            s = NULL;
        }
        runs[k].set.store = s;
        if (st > status) status = st;
    }
    dfn_runs_free(specs, n);
    free(ls);
    free(pct);
    *out = runs;
    *nout = n;
    return status;
}

/* Layers for a run: o->layers, else preset, else the store's own. A
 * DLIO preset chosen for the user is named, so a wrong guess shows. */
static bool run_layers(const cli_opts *o, cli_run *r, const char *preset)
{
    char err[1024];
    const char *why = NULL;
    const char *name = o->layers ? o->layers : preset ? preset : dfn_layers_auto(r->set.store, &why);
    if (!o->layers && !o->quiet && dfn_preset_is_dlio(name) && !cli_dist_load_was_said())
        fprintf(stderr, "dfnav: layers: %s (%s; --layers chooses)\n", name, why ? why : "as for the other runs");
    dfn_run_opts ro = cli_run_opts(o);
    if (!dfn_runset_layers(&r->set, r->set.store, &ro, o->layers ? NULL : name, err, sizeof err)) {
        fprintf(stderr, "dfnav: layers: %s\n", err);
        return false;
    }
    return true;
}

/* --sort METRIC[@RUN|@diff|@ratio][:asc|desc] or key. */
static bool parse_sort(const char *text, const cli_run *runs, size_t nruns, dfn_query *q, int *col)
{
    q->sort = DFN_M_TIME_S;
    q->desc = true;
    *col = 0;
    if (q->ndims && (q->dims[0].kind == DFN_DIM_TIME || q->dims[0].kind == DFN_DIM_EVENT)) {
        q->sort = -1;
        q->desc = false;
    }
    if (!text) return true;
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    const char *at = memchr(text, '@', len);
    size_t mlen = at ? (size_t)(at - text) : len;
    if ((mlen == 3 && memcmp(text, "key", 3) == 0) || (mlen == 4 && memcmp(text, "name", 4) == 0)) {
        q->sort = -1;
        q->desc = false;
    } else if (mlen > 4 && memcmp(text, "ctr.", 4) == 0) {
        /* a counter metric: one of --metrics */
        q->sort = -1;
        for (size_t k = 0; q->ctrs && k < q->ctrs->n; k++)
            if (strlen(q->ctrs->series[k]) == mlen - 4 && memcmp(q->ctrs->series[k], text + 4, mlen - 4) == 0)
                q->sort = DFN_M_COUNT_ + (int)k;
        if (q->sort < 0) {
            fprintf(stderr, "dfnav: --sort: %.*s is not among --metrics\n", (int)mlen, text);
            return false;
        }
        q->desc = true;
    } else {
        int m = dfn_metric_parse(text, mlen);
        if (m < 0) {
            fprintf(stderr, "dfnav: --sort: unknown metric '%.*s' (see dfnav --help, or key)\n", (int)mlen, text);
            return false;
        }
        q->sort = m;
        q->desc = true;
    }
    if (at) {
        const char *who = at + 1;
        size_t wl = len - mlen - 1;
        bool found = false;
        if (runs[0].label && q->sort >= 0) {
            if (nruns == 2 && wl == 4 && memcmp(who, "diff", 4) == 0) *col = DFN_CMP_DIFF, found = true;
            else if (nruns == 2 && wl == 5 && memcmp(who, "ratio", 5) == 0) *col = DFN_CMP_RATIO, found = true;
            for (size_t k = 0; k < nruns && !found; k++)
                if (strlen(runs[k].label) == wl && memcmp(runs[k].label, who, wl) == 0) *col = (int)k, found = true;
        }
        if (found && q->ndims == 1 && q->dims[0].kind == DFN_DIM_EVENT) {
            /* a call is of one run: there is no other run's column */
            fprintf(stderr, "dfnav: --sort: calls sort by their own run's values; drop '@%.*s'\n", (int)wl, who);
            return false;
        }
        if (!found) {
            fprintf(stderr, "dfnav: --sort: '%.*s' is not %s\n", (int)wl, who,
                    !runs[0].label ? "needed without --compare" : q->sort < 0 ? "needed to sort by key" :
                    nruns == 2 ? "a run name, diff or ratio" : "a run name");
            return false;
        }
    }
    if (colon) {
        if (strcmp(colon + 1, "asc") == 0) q->desc = false;
        else if (strcmp(colon + 1, "desc") == 0) q->desc = true;
        else { fprintf(stderr, "dfnav: --sort: direction is asc or desc, not '%s'\n", colon + 1); return false; }
    }
    return true;
}

int cli_report_query(const cli_opts *o, const cli_run *runs, size_t nruns, const char *by, const char *where,
                     const char *sort, size_t top, uint64_t metrics, bool agg, dfn_query *q, dfn_filter *f, int *col)
{
    char err[2048];
    *q = (dfn_query){ .bin_s = o->bin_s, .top = top, .metrics = metrics ? metrics : DFN_M_BASIC, .sizes = o->sizes,
                      .threads = o->threads, .ctrs = o->ctrs };
    if (by && !dfn_dims_parse(by, q->dims, &q->ndims, err, sizeof err)) {
        fprintf(stderr, "dfnav: --by: %s\n", err);
        return 2;
    }
    if (!dfn_filter_parse(where, f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        dfn_dims_free(q->dims, q->ndims);
        return 2;
    }
    q->filter = f;
    *col = 0;
    if (!parse_sort(sort, runs, nruns, q, col)) {
        dfn_filter_free(f);
        dfn_dims_free(q->dims, q->ndims);
        return 2;
    }
    /* sorting by a metric shows it */
    if (q->sort >= 0 && q->sort < DFN_M_COUNT_) q->metrics |= DFN_M_BIT(q->sort);
    /* the default columns say when calls come from aggregated records */
    if (!metrics && agg) q->metrics |= DFN_M_BIT(DFN_M_AGG_CALLS);
    return 0;
}

int cli_report_write(const cli_opts *o, dfn_compare *c, FILE *out)
{
    size_t over = 0;
    for (size_t k = 0; k < c->nruns; k++) over += c->res[k]->overflow_rows;
    if (over && !o->quiet)
        dfn_warnf(stderr, "%zu row%s up to more than 2^64 (calls, µs or bytes): shown as inf, not as a wrapped sum; "
                  "such figures come from damaged values", over, over == 1 ? " adds" : "s add");
    dfn_compare_write(out, c, o->format);
    dfn_compare_free(c);
    return 0;
}

/* Runs one query on every run, matched across runs, and prints it;
 * returns 0, or 2 for a bad query. */
static int run_and_print(const cli_opts *o, cli_run *runs, size_t nruns, const char *by, const char *where,
                         const char *sort, size_t top, uint64_t metrics, FILE *out)
{
    char err[2048];
    bool agg = false;
    for (size_t k = 0; k < nruns; k++) agg |= runs[k].set.store->cnt.v != NULL;
    dfn_query q;
    dfn_filter f;
    int col, rc = cli_report_query(o, runs, nruns, by, where, sort, top, metrics, agg, &q, &f, &col);
    if (rc) return rc;
    dfn_run *rs = dfn_xcalloc(nruns, sizeof *rs);
    const char **labels = dfn_xcalloc(nruns, sizeof *labels);
    for (size_t k = 0; k < nruns && !rc; k++) {
        cli_run *r = &runs[k];
        unsigned need = dfn_analysis_needs(q.metrics) | (dfn_query_inherits(&q) ? DFN_NEED_TREE : 0);
        dfn_run_opts ro = cli_run_opts(o);
        if (!dfn_runset_analyse(&r->set, &ro, need, err, sizeof err)) {
            if (nruns > 1) dfn_warnf(stderr, "%s: %s", r->label, err);
            else fprintf(stderr, "dfnav: %s\n", err);
            rc = 2;
        }
        char note[512];
        if (!rc && !o->quiet && (q.metrics & DFN_M_OVERLAP) && dfn_overlap_note(r->set.an.overlap, false, note, sizeof note)) {
            if (nruns > 1) dfn_warnf(stderr, "%s: %s", r->label, note);
            else dfn_warnf(stderr, "%s", note);
        }
        rs[k] = dfn_runset_run(&r->set);
        labels[k] = r->label;
    }
    dfn_compare *c = rc ? NULL : dfn_compare_query(rs, nruns, &q, col, runs[0].label ? labels : NULL, err, sizeof err);
    if (!rc && !c) { fprintf(stderr, "dfnav: %s\n", err); rc = 2; }
    if (c) cli_report_write(o, c, out);
    free(rs);
    free(labels);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    return rc;
}

void cli_runs_free(const cli_opts *o, cli_run *runs, size_t n)
{
    for (size_t k = 0; runs && k < n; k++) {
        /* the images saved while the queries ran: what went wrong */
        const char *note = runs[k].set.store ? dfn_store_saved(runs[k].set.store) : NULL;
        if (note && !o->quiet) dfn_warnf(stderr, "cache: %s", note);
        dfn_runset_free(&runs[k].set);
        free(runs[k].label);
    }
    free(runs);
}

int cli_prepare(const cli_opts *o, cli_run **runs, size_t *n, int *status)
{
    *status = cli_load(o, runs, n);
    if (!*runs) return *status;
    if (*status == 4) { cli_runs_free(o, *runs, *n); return 4; }
    for (size_t k = 0; k < *n; k++) {
        if (!(*runs)[k].set.store) { cli_runs_free(o, *runs, *n); return 3; }
    }
    /* comparing: DLIO's layers for all when any run has DLIO names, so a
     * layer means the same phase in every run */
    const char *dlio = NULL;
    for (size_t k = 0; o->compare && k < *n && !dlio; k++) {
        const char *own = dfn_layers_auto((*runs)[k].set.store, NULL);
        if (dfn_preset_is_dlio(own)) dlio = own;
    }
    for (size_t k = 0; k < *n; k++) {
        cli_run *r = &(*runs)[k];
        if (!run_layers(o, r, dlio ? dfn_run_preset(r->set.store, dlio) : NULL)) { cli_runs_free(o, *runs, *n); return 2; }
    }
    return -1;
}

int cli_finish(const cli_opts *o, cli_run *runs, size_t n, int rc, int status)
{
    int wr = cli_write_status(stdout);
    cli_runs_free(o, runs, n);
    return rc ? rc : wr ? wr : status;
}

/* The diagnostics of the selection, its layers and processes. */
static int diagnose(const cli_opts *o, cli_run *cs)
{
    char err[2048];
    dfn_filter f;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        return 2;
    }
    int rc = 0;
    /* --by: the rules per row of one dimension */
    dfn_query sel = { .filter = &f };
    bool parsed = !o->by || dfn_dims_parse(o->by, sel.dims, &sel.ndims, err, sizeof err);
    if (o->by && (!parsed || sel.ndims != 1)) {
        fprintf(stderr, "dfnav: --by: %s\n", parsed ? "--diagnose scores the rows of one dimension" : err);
        dfn_dims_free(sel.dims, sel.ndims);
        dfn_filter_free(&f);
        return 2;
    }
    unsigned need = DFN_NEED_OVERLAP | DFN_NEED_ACCESS | (dfn_query_inherits(&sel) ? DFN_NEED_TREE : 0);
    dfn_run_opts ro = cli_run_opts(o);
    if (!dfn_runset_analyse(&cs->set, &ro, need, err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    dfn_findings *fs = rc ? NULL : sel.ndims ? dfn_diagnose_rows(cs->set.store, cs->set.ls, &f, &cs->set.an, &o->thresholds, &sel.dims[0],
                                                                 o->bin_s, o->threads, err, sizeof err)
                                  : dfn_diagnose(cs->set.store, cs->set.ls, &f, &cs->set.an, &o->thresholds,
                                                o->threads, err, sizeof err);
    if (!rc && !fs) { fprintf(stderr, "dfnav: %s\n", err); rc = 2; }
    if (fs) {
        dfn_findings_write(stdout, fs, &o->thresholds, dfn_overlap_text(cs->set.an.overlap), o->where, o->format);
        dfn_findings_free(fs);
    }
    dfn_dims_free(sel.dims, sel.ndims);
    dfn_filter_free(&f);
    return rc;
}

/* --counters: the counter samples of one run, grouped by counter and
 * the dimensions of --by. */
static int report_counters(const cli_opts *o, const cli_run *run)
{
    char err[2048];
    dfn_cquery q = { .bin_s = o->bin_s };
    if (!dfn_cdims_parse(o->by, q.dims, &q.ndims, err, sizeof err)) {
        fprintf(stderr, "dfnav: --by: %s\n", err);
        return 2;
    }
    dfn_filter f;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        return 2;
    }
    q.filter = &f;
    dfn_cresult r;
    int rc = 0;
    if (!dfn_counters_query(run->set.store, &q, &r, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        rc = 2;
    } else {
        dfn_counters_write(stdout, run->set.store, &r, o->format);
        dfn_cresult_free(&r);
    }
    dfn_filter_free(&f);
    return rc;
}

int cmd_report(const cli_opts *o)
{
    int status, rc;
    cli_run *runs;
    size_t n;
    /* under MPI, a query partial results answer runs on each rank's share */
    if (cli_dist_report_wanted(o) && (rc = cli_dist_report(o, CLI_DIST_REPORT)) >= 0) return rc;
    if ((rc = cli_prepare(o, &runs, &n, &status)) >= 0) return rc;
    rc = 0;
    if (o->counters && (n > 1 || o->diagnose || o->sort || o->top || o->metrics)) {
        fprintf(stderr, "dfnav: --counters reports one run, by --by and --where (and --bin)\n");
        rc = 2;
    } else if (o->counters) {
        rc = report_counters(o, &runs[0]);
    } else if (o->diagnose && n > 1 && o->format != DFN_FMT_TABLE) {
        /* one CSV or JSON document holds the findings of one run */
        fprintf(stderr, "dfnav: --diagnose --compare prints a table per run; for CSV or JSON diagnose each run alone\n");
        rc = 2;
    } else if (o->diagnose) {
        /* findings are judged within a run: each run's in turn */
        for (size_t k = 0; k < n && !rc; k++) {
            if (runs[k].label && o->format == DFN_FMT_TABLE) printf("%s== %s ==\n", k ? "\n" : "", runs[k].label);
            rc = diagnose(o, &runs[k]);
        }
    } else {
        rc = run_and_print(o, runs, n, o->by, o->where, o->sort, o->top, o->metrics, stdout);
    }
    return cli_finish(o, runs, n, rc, status);
}

char *cli_busiest_where(const cli_opts *o)
{
    return dfn_xasprintf("%s%sfile!=\"\"", o->where ? o->where : "", o->where ? " " : "");
}

void cli_overview_line(const cli_setsum *t, const char *label)
{
    if (label) printf("%s: ", label);
#define S(n) ((n) == 1 ? "" : "s")
    printf("%" PRIu64 " event%s in %" PRIu64 " file%s, %" PRIu64 " process%s (%" PRIu64 " thread%s), %" PRIu64
           " file%s accessed, span %.3f s, %" PRIu64 " malformed line%s\n", t->events, S(t->events), t->files,
           S(t->files), t->procs, t->procs == 1 ? "" : "es", t->threads, S(t->threads), t->accessed, S(t->accessed),
           t->span_us / 1e6, t->malformed, S(t->malformed));
#undef S
}

/* The overview: what was loaded, then time per layer, per I/O class and
 * the busiest files: the first three questions users ask of a trace set. */
int cmd_overview(const cli_opts *o)
{
    int status, rc;
    cli_run *runs;
    size_t n;
    /* under MPI, when partial results answer its tables: each rank's share */
    if (cli_dist_overview_wanted(o) && (rc = cli_dist_report(o, CLI_DIST_OVERVIEW)) >= 0) return rc;
    if ((rc = cli_prepare(o, &runs, &n, &status)) >= 0) return rc;
    if (o->format == DFN_FMT_TABLE) {
        for (size_t k = 0; k < n; k++) {
            const dfn_store *s = runs[k].set.store;
            /* processes are (host, pid), as the procs metric counts them; a
             * lane is a thread (it said 56 processes of 8) */
            uint32_t *proc;
            cli_setsum sum = { .events = s->n, .files = s->nsrc, .procs = dfn_store_procs(s, &proc),
                               .threads = s->nlanes, .accessed = s->nfiles - 1, .span_us = s->t1 - s->t0 };
            free(proc);
            for (size_t i = 0; i < s->nsrc; i++) sum.malformed += s->src[i].malformed;
            cli_overview_line(&sum, runs[k].label);
        }
        printf("\nLayers (%s):\n", runs[0].set.layers.source);
    }
    rc = run_and_print(o, runs, n, "layer", o->where, "key", 0, o->metrics, stdout);
    if (!rc && o->format == DFN_FMT_TABLE) {
        printf("\nI/O classes:\n");
        rc = run_and_print(o, runs, n, "class", o->where, NULL, 0, o->metrics, stdout);
    }
    if (!rc && o->format == DFN_FMT_TABLE) {
        printf("\nBusiest files:\n");
        char *where = cli_busiest_where(o);
        rc = run_and_print(o, runs, n, "file", where, NULL, 10, o->metrics, stdout);
        free(where);
        printf("\nMore: dfnav report --by DIMS --where EXPR PATH... (see dfnav --help)\n");
    }
    return cli_finish(o, runs, n, rc, status);
}
