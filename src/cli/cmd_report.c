/* `dfnav report` and the overview: load, query through the engine's one
 * query path, print. Also the loading shared by every command: progress on
 * a terminal, and each damaged file and line reported on stderr. */
#include "cli.h"
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
    fprintf(stderr, "dfnav: write error: %s\n", strerror(errno));
    return 2;
}

static void report_damage(const dfn_store *s)
{
    for (size_t i = 0; i < s->nsrc; i++) {
        const dfn_srcinfo *si = &s->src[i];
        if (si->error) dfn_warnf(stderr, "%s: %s", si->path, si->error);
        for (size_t k = 0; k < si->nbad; k++)
            dfn_warnf(stderr, "%s:%" PRIu64 ": malformed line: %s", si->path, si->bad_lines[k], si->bad_reason[k]);
        if (si->malformed > si->nbad)
            dfn_warnf(stderr, "%s: %" PRIu64 " malformed lines in all (the first %zu shown)", si->path, si->malformed, si->nbad);
        if (si->long_lines)
            dfn_warnf(stderr, "%s: %" PRIu64 " lines longer than 64 MiB were cut", si->path, si->long_lines);
    }
    if (s->hash_conflicts)
        fprintf(stderr, "dfnav: %" PRIu64 " hashes are defined with two different names; the first definition is used\n",
                s->hash_conflicts);
}

dfn_store *cli_load(const cli_opts *o, int *status)
{
    dfn_inputs in;
    dfn_inputs_expand((const char *const *)o->paths, o->npaths, &in);
    for (size_t i = 0; i < in.nerrors; i++) dfn_warnf(stderr, "%s", in.errors[i]);
    if (in.n == 0) {
        fprintf(stderr, "dfnav: no trace file to read\n");
        dfn_inputs_free(&in);
        *status = 3;
        return NULL;
    }
    dfn_load_opts lo = { .threads = o->threads };
    dfn_loader *l = dfn_loader_start((const char *const *)in.paths, in.n, &lo);
    bool tty = !o->quiet && isatty(STDERR_FILENO);
    bool shown = false;
    for (;;) {
        dfn_progress p;
        dfn_loader_progress(l, &p);
        if (p.done) break;
        if (tty && p.elapsed_s > 0.3) {
            double pct = p.bytes_total ? 100.0 * p.bytes_done / p.bytes_total : 0;
            fprintf(stderr, "\rdfnav: %s %5.1f%%  %" PRIu64 " events  %.0f events/s   ",
                    p.building ? "building" : "loading", pct, p.events, p.events_per_s);
            shown = true;
        }
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
    }
    if (shown) fprintf(stderr, "\r\033[K");
    dfn_store *s = dfn_loader_finish(l);
    int st = dfn_store_status(s);
    if (in.nerrors && st == 0) st = 1;
    if (!o->quiet) report_damage(s);
    dfn_inputs_free(&in);
    *status = st;
    if (st == 3) {
        fprintf(stderr, "dfnav: nothing could be read\n");
        dfn_store_free(s);
        return NULL;
    }
    return s;
}

bool cli_layers(const cli_opts *o, const dfn_store *s, dfn_layers *out)
{
    char err[1024];
    const char *name = o->layers ? o->layers : dfn_layers_auto(s);
    if (!dfn_layers_load(name, out, err, sizeof err)) {
        fprintf(stderr, "dfnav: layers: %s\n", err);
        return false;
    }
    return true;
}

static bool parse_sort(const char *text, dfn_query *q)
{
    q->sort = DFN_M_TIME_S;
    q->desc = true;
    if (q->ndims && (q->dims[0].kind == DFN_DIM_TIME || q->dims[0].kind == DFN_DIM_EVENT)) {
        q->sort = -1;
        q->desc = false;
    }
    if (!text) return true;
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if ((len == 3 && memcmp(text, "key", 3) == 0) || (len == 4 && memcmp(text, "name", 4) == 0)) {
        q->sort = -1;
        q->desc = false;
    } else {
        int m = dfn_metric_parse(text, len);
        if (m < 0) {
            fprintf(stderr, "dfnav: --sort: unknown metric '%.*s' (see dfnav --help, or key)\n", (int)len, text);
            return false;
        }
        q->sort = m;
        q->desc = true;
    }
    if (colon) {
        if (strcmp(colon + 1, "asc") == 0) q->desc = false;
        else if (strcmp(colon + 1, "desc") == 0) q->desc = true;
        else { fprintf(stderr, "dfnav: --sort: direction is asc or desc, not '%s'\n", colon + 1); return false; }
    }
    return true;
}

/* A loaded trace set and what queries on it need. */
typedef struct {
    dfn_store *s;
    dfn_layers layers;
    dfn_layerset *ls;
    dfn_analysis an;
} cli_set;

/* Runs one query and prints it; returns 0, or 2 for a bad query. */
static int run_and_print(const cli_opts *o, cli_set *cs, const char *by, const char *where, const char *sort,
                         size_t top, uint32_t metrics, FILE *out)
{
    char err[2048];
    const dfn_store *s = cs->s;
    dfn_query q = { .layers = cs->ls, .bin_s = o->bin_s, .top = top, .metrics = metrics ? metrics : DFN_M_BASIC,
                    .sizes = o->sizes };
    if (by && !dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err)) {
        fprintf(stderr, "dfnav: --by: %s\n", err);
        return 2;
    }
    dfn_filter f;
    if (!dfn_filter_parse(where, &f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        dfn_dims_free(q.dims, q.ndims);
        return 2;
    }
    q.filter = &f;
    int rc = 0;
    if (!parse_sort(sort, &q)) rc = 2;
    /* sorting by a metric shows it */
    if (!rc && q.sort >= 0) q.metrics |= DFN_M_BIT(q.sort);
    if (!rc && !dfn_analysis_build(&cs->an, s, cs->ls, o->compute, o->overlap_host, dfn_analysis_needs(q.metrics), err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    dfn_analysis_apply(&cs->an, &q);
    dfn_result *r = rc ? NULL : dfn_query_run(s, &q, err, sizeof err);
    if (!rc && !r) { fprintf(stderr, "dfnav: %s\n", err); rc = 2; }
    if (r) {
        dfn_export_write(out, s, r, o->format);
        dfn_result_free(r);
    }
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    return rc;
}

/* Loads and compiles the layers: what every table command starts with.
 * Returns the exit status to give up with, or -1 to go on. */
static int prepare(const cli_opts *o, cli_set *cs, int *status)
{
    memset(cs, 0, sizeof *cs);
    cs->s = cli_load(o, status);
    if (!cs->s) return *status;
    if (!cli_layers(o, cs->s, &cs->layers)) { dfn_store_free(cs->s); return 2; }
    char err[1024];
    cs->ls = dfn_layerset_compile(cs->s, &cs->layers, err, sizeof err);
    if (!cs->ls) {
        fprintf(stderr, "dfnav: layers: %s\n", err);
        dfn_layers_free(&cs->layers);
        dfn_store_free(cs->s);
        return 2;
    }
    return -1;
}

static int finish(cli_set *cs, int rc, int status)
{
    int wr = cli_write_status(stdout);
    dfn_analysis_free(&cs->an);
    dfn_layerset_free(cs->ls);
    dfn_layers_free(&cs->layers);
    dfn_store_free(cs->s);
    return rc ? rc : wr ? wr : status;
}

/* The diagnostics of the selection, its layers and processes. */
static int diagnose(const cli_opts *o, cli_set *cs)
{
    char err[2048];
    dfn_filter f;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) {
        fprintf(stderr, "dfnav: --where: %s\n", err);
        return 2;
    }
    int rc = 0;
    if (!dfn_analysis_build(&cs->an, cs->s, cs->ls, o->compute, o->overlap_host, DFN_NEED_OVERLAP | DFN_NEED_ACCESS, err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    dfn_findings *fs = rc ? NULL : dfn_diagnose(cs->s, cs->ls, &f, cs->an.overlap, cs->an.access, &o->thresholds,
                                                o->threads, err, sizeof err);
    if (!rc && !fs) { fprintf(stderr, "dfnav: %s\n", err); rc = 2; }
    if (fs) {
        dfn_findings_write(stdout, fs, &o->thresholds, dfn_overlap_text(cs->an.overlap), o->where, o->format);
        dfn_findings_free(fs);
    }
    dfn_filter_free(&f);
    return rc;
}

int cmd_report(const cli_opts *o)
{
    int status, rc;
    cli_set cs;
    if ((rc = prepare(o, &cs, &status)) >= 0) return rc;
    if (o->diagnose) rc = diagnose(o, &cs);
    else rc = run_and_print(o, &cs, o->by, o->where, o->sort, o->top, o->metrics, stdout);
    return finish(&cs, rc, status);
}

/* The overview: what was loaded, then time per layer, per I/O class and
 * the busiest files: the first three questions users ask of a trace set. */
int cmd_overview(const cli_opts *o)
{
    int status, rc;
    cli_set cs;
    if ((rc = prepare(o, &cs, &status)) >= 0) return rc;
    const dfn_store *s = cs.s;
    uint64_t malformed = 0;
    for (size_t i = 0; i < s->nsrc; i++) malformed += s->src[i].malformed;
    if (o->format == DFN_FMT_TABLE) {
        printf("%zu events in %zu files, %zu processes, %zu files accessed, span %.3f s, %" PRIu64 " malformed lines\n",
               s->n, s->nsrc, s->nlanes, s->nfiles - 1, (s->t1 - s->t0) / 1e6, malformed);
        printf("\nLayers (%s):\n", cs.layers.source);
    }
    rc = run_and_print(o, &cs, "layer", o->where, "key", 0, o->metrics, stdout);
    if (!rc && o->format == DFN_FMT_TABLE) {
        printf("\nI/O classes:\n");
        rc = run_and_print(o, &cs, "class", o->where, NULL, 0, o->metrics, stdout);
    }
    if (!rc && o->format == DFN_FMT_TABLE) {
        printf("\nBusiest files:\n");
        size_t n = (o->where ? strlen(o->where) : 0) + 16;
        char *where = dfn_xmalloc(n);
        snprintf(where, n, "%s%sfile!=\"\"", o->where ? o->where : "", o->where ? " " : "");
        rc = run_and_print(o, &cs, "file", where, NULL, 10, o->metrics, stdout);
        free(where);
        printf("\nMore: dfnav report --by DIMS --where EXPR PATH... (see dfnav --help)\n");
    }
    return finish(&cs, rc, status);
}
