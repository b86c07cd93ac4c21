/* `dfnav extract`: the events --where selects, written back as a DFTracer
 * trace (gzip when the name ends in .gz) that loads with the same figures
 * for the same filter. The events come from the one query path, as the
 * rows of `report --by event` do; the file is written as every export is,
 * under a temporary name renamed into place once complete. */
#include "cli.h"
#include "dfnav/extract.h"
#include "dfnav/gzwrite.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The temporary file a signal must not leave behind. */
static char *volatile extract_tmp;
/* The handlers before ours: under MPI, the one that removes the ranks'
 * images, which a signal during the save must still run. */
static struct sigaction extract_prev[3];

static void extract_signal(int sig)
{
    (void)cli_signal_first();
    char *t = extract_tmp;
    if (t) unlink(t);
    cli_signal_chain(sig, extract_prev);
}

static bool name_gz(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* The selected events, by time: a comparison of one run grouped by event. */
static dfn_compare *extract_select(const cli_opts *o, cli_run *run, dfn_filter *f)
{
    char err[2048];
    dfn_query q = { .filter = f, .sort = -1, .threads = o->threads, .ndims = 1 };
    q.dims[0].kind = DFN_DIM_EVENT;
    unsigned need = dfn_query_inherits(&q) ? DFN_NEED_TREE : 0;
    dfn_run_opts ro = cli_run_opts(o);
    if (!dfn_runset_analyse(&run->set, &ro, need, err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        return NULL;
    }
    dfn_run r = dfn_runset_run(&run->set);
    dfn_compare *c = dfn_compare_query(&r, 1, &q, 0, NULL, err, sizeof err);
    if (!c) fprintf(stderr, "dfnav: %s\n", err);
    return c;
}

/* A time window selects the calls that start in it, written whole (a
 * subset holds the trace's own records, never pieces of them), where a
 * report with the filter counts the time and bytes of those that cross
 * its edges in part: says how many do (past: those that start in it and
 * end past it; before: those that start before it and run into it), so
 * that no one takes the subset's time_s for the window's. */
void cli_extract_note(uint64_t past, uint64_t before)
{
    if (!past && !before) return;
    fprintf(stderr, "dfnav: the time window cuts %" PRIu64 " calls: %" PRIu64 " that start in it and end past it are "
            "written whole, %" PRIu64 " that start before it are not written; the subset's time and bytes differ from "
            "report --where's by their parts outside the window (EXTRACT in dfnav(1))\n", past + before, past, before);
}

uint64_t cli_extract_end_us(const dfn_store *s, dfn_filter *f)
{
    double lo, hi;
    dfn_query_window(s, f, &lo, &hi);
    return hi * 1e6 >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)(hi * 1e6 + 0.5);
}

void cli_extract_counts(const cli_opts *o, dfn_runset *set, dfn_filter *f, uint64_t *count, uint64_t *active)
{
    char err[1024];
    dfn_query q = { .filter = f, .sort = -1, .threads = o->threads,
                    .metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_ACTIVE) };
    dfn_run r = dfn_runset_run(set);
    dfn_compare *t = dfn_compare_query(&r, 1, &q, 0, NULL, err, sizeof err);
    double a = t && t->nrows ? dfn_compare_metric(t, 0, 0, DFN_M_ACTIVE) : NAN;
    double c = t && t->nrows ? dfn_compare_metric(t, 0, 0, DFN_M_COUNT) : NAN;
    dfn_compare_free(t);
    *active = a > 0 ? (uint64_t)a : 0;   /* (false for NaN too) */
    *count = c > 0 ? (uint64_t)c : 0;
}

/* The note on the window's cut calls (cli_extract_note), from the set. */
static void extract_window_note(const cli_opts *o, cli_run *run, dfn_filter *f, const dfn_compare *c)
{
    const dfn_store *s = run->set.store;
    if (o->quiet || !dfn_filter_uses(f, DFN_KEY_TIME) || !s->n) return;
    uint64_t end_us = cli_extract_end_us(s, f), past = 0, count, active;
    for (size_t k = 0; k < c->nrows; k++) {
        uint32_t i = c->res[0]->events[k];
        if (dfn_sat_add(dfn_store_ts(s, i), dfn_store_dur(s, i)) > end_us) past++;
    }
    cli_extract_counts(o, &run->set, f, &count, &active);
    cli_extract_note(past, active > count ? active - count : 0);
}

/* The selected calls of one store (extract_save's writer). */
typedef struct { const dfn_store *s; const dfn_compare *c; } store_calls;

static int write_store_calls(FILE *w, void *ctx, dfn_extract_stats *st)
{
    const store_calls *sc = ctx;
    return dfn_extract_write(w, sc->s, sc->c->res[0]->events, sc->c->nrows, st);
}

int cli_extract_save(const cli_opts *o, cli_extract_fn write, void *ctx)
{
    char err[1024];
    dfn_save save;
    bool to_stdout = strcmp(o->output, "-") == 0;
    if (!to_stdout && dfn_save_open(&save, o->output, false, err, sizeof err) != 0) {
        fprintf(stderr, "dfnav: not saved: %s\n", err);
        return 2;
    }
    /* our own copy: closing the save frees its name, and a signal may
     * come between that and the end of this function */
    char *tmp = to_stdout ? NULL : dfn_xstrdup(save.tmp);
    if (!to_stdout) {
        extract_tmp = tmp;
        cli_signal_install(extract_signal, extract_prev);
    }
    FILE *raw = to_stdout ? stdout : save.f;
    FILE *w = name_gz(o->output) ? dfn_gzwrite_open(raw) : raw;
    dfn_extract_stats st;
    int rc = w ? write(w, ctx, &st) : -1;
    int saved = rc ? errno : 0;
    if (w && w != raw && fclose(w) != 0 && !rc) { rc = -1; saved = errno; }
    if (to_stdout) {
        if (rc) fprintf(stderr, "dfnav: cannot write the output: %s\n", strerror(saved));
        return rc ? 2 : cli_write_status(stdout);
    }
    if (rc) snprintf(err, sizeof err, "%s: %s", o->output, strerror(saved));
    rc = dfn_save_close(&save, rc, err, sizeof err);
    extract_tmp = NULL;
    free(tmp);
    if (rc) {
        fprintf(stderr, "dfnav: not saved: %s\n", err);
        return 2;
    }
    if (!o->quiet)
        fprintf(stderr, "dfnav: wrote %" PRIu64 " calls of %" PRIu64 " processes and %" PRIu64 " files, %" PRIu64
                " metadata records and %" PRIu64 " counter samples to %s\n", st.events, st.processes, st.files,
                st.metadata, st.samples, o->output);
    return 0;
}

int cmd_extract(const cli_opts *o)
{
    if (!o->output) {
        fprintf(stderr, "dfnav: extract needs -o FILE (NAME.pfw, NAME.pfw.gz, or - for standard output)\n");
        return 2;
    }
    if (o->compare || o->by || o->sort || o->top || o->metrics || o->counters || o->diagnose || o->format != DFN_FMT_TABLE) {
        fprintf(stderr, "dfnav: extract selects events with --where (and --layers for layer terms); it takes no "
                "--by, --sort, --top, --metrics, --counters, --diagnose, --format or --compare\n");
        return 2;
    }
    char err[2048];
    dfn_filter f;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        return 2;
    }
    int status, rc;
    /* under MPI, each rank selects from its share (dist_report.c) */
    if (cli_dist_extract_wanted(o) && (rc = cli_dist_report(o, CLI_DIST_EXTRACT)) >= 0) {
        dfn_filter_free(&f);
        return rc;
    }
    cli_run *runs;
    size_t n;
    if ((rc = cli_prepare(o, &runs, &n, &status)) >= 0) {
        dfn_filter_free(&f);
        return rc;
    }
    dfn_compare *c = extract_select(o, &runs[0], &f);
    store_calls sc = { runs[0].set.store, c };
    rc = c ? cli_extract_save(o, write_store_calls, &sc) : 2;
    if (rc == 0) extract_window_note(o, &runs[0], &f, c);
    dfn_compare_free(c);
    dfn_filter_free(&f);
    return cli_finish(o, runs, n, rc, status);
}
