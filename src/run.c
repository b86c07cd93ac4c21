/* Runs: from PATH arguments to trace sets ready for queries, shared by the
 * command line and the explorer so that both load, check and index a set
 * the same way (see dfnav/run.h). */
#include "dfnav/run.h"
#include "dfnav/dist.h"
#include "dfnav/estimate.h"
#include "dfnav/export.h"
#include "dfnav/filehead.h"
#include "dfnav/image.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dfn_runs_parse(char *const *paths, size_t n, bool compare, dfn_runspec **out, size_t *nruns, char *err,
                    size_t errlen)
{
    *out = NULL;
    *nruns = 0;
    if (!compare) {
        dfn_runspec *r = dfn_xcalloc(1, sizeof *r);
        dfn_inputs_expand((const char *const *)paths, n, &r->in);
        *out = r;
        *nruns = 1;
        return true;
    }
    char **labels = dfn_xcalloc(n ? n : 1, sizeof *labels), **runpaths = dfn_xcalloc(n ? n : 1, sizeof *runpaths);
    bool ok = dfn_compare_runs_parse(paths, n, labels, runpaths, err, errlen);
    if (ok) {
        dfn_runspec *r = dfn_xcalloc(n ? n : 1, sizeof *r);
        for (size_t k = 0; k < n; k++) {
            r[k].label = labels[k];
            dfn_inputs_expand((const char *const *)&runpaths[k], 1, &r[k].in);
            free(runpaths[k]);
        }
        *out = r;
        *nruns = n;
    }
    free(labels);
    free(runpaths);
    return ok;
}

void dfn_runs_free(dfn_runspec *runs, size_t n)
{
    for (size_t k = 0; runs && k < n; k++) {
        free(runs[k].label);
        dfn_inputs_free(&runs[k].in);
    }
    free(runs);
}

/* Loader threads of n runs loaded at once, each with its own. */
static uint64_t runs_threads(size_t n, int threads)
{
    return (uint64_t)(threads > 0 ? threads : dfn_ncpus()) * n;
}

bool dfn_runs_fit(const dfn_runspec *runs, size_t n, int threads, uint64_t per_event, dfn_estimate *est, char *msg,
                  size_t cap)
{
    dfn_estimate own = {0}, *e = est ? est : &own;
    memset(e, 0, sizeof *e);
    for (size_t k = 0; k < n; k++) dfn_estimate_add(e, (const char *const *)runs[k].in.paths, runs[k].in.n);
    return dfn_estimate_fits(e, runs_threads(n, threads), per_event, n > 1, msg, cap);
}

/* Whether, with the files divided among nodes ranks as MPI divides them,
 * the largest share fits in this machine's memory. */
static bool share_fits(const char **files, const uint64_t *bytes, const uint64_t *group, size_t m, int nodes,
                       int *rank_of, uint64_t threads, uint64_t per_event)
{
    dfn_dist_plan(bytes, group, m, nodes, rank_of);
    uint64_t *load = dfn_xcalloc((size_t)nodes, sizeof *load);
    int big = 0;
    for (size_t i = 0; i < m; i++) {
        load[rank_of[i]] += bytes[i] == UINT64_MAX ? 0 : bytes[i];
        if (load[rank_of[i]] > load[big]) big = rank_of[i];
    }
    free(load);
    const char **mine = dfn_xmalloc((m ? m : 1) * sizeof *mine);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) if (rank_of[i] == big) mine[k++] = files[i];
    dfn_estimate est = {0};
    dfn_estimate_add(&est, mine, k);
    free(mine);
    char msg[256];
    return dfn_estimate_fits(&est, threads, per_event, false, msg, sizeof msg);
}

const char **dfn_runs_paths(const dfn_runspec *runs, size_t n, size_t *m)
{
    *m = 0;
    for (size_t k = 0; k < n; k++) *m += runs[k].in.n;
    const char **paths = dfn_xmalloc((*m ? *m : 1) * sizeof *paths);
    for (size_t k = 0, j = 0; k < n; k++)
        for (size_t i = 0; i < runs[k].in.n; i++) paths[j++] = runs[k].in.paths[i];
    return paths;
}

size_t dfn_runs_files(const dfn_runspec *runs, size_t n, const char ***files, uint64_t **bytes)
{
    size_t m;
    *files = dfn_runs_paths(runs, n, &m);
    *bytes = dfn_xmalloc((m ? m : 1) * sizeof **bytes);
    for (size_t i = 0; i < m; i++) {
        dfn_fileid id;
        char err[128];
        (*bytes)[i] = dfn_fileid_of((*files)[i], &id, err, sizeof err) ? id.size : UINT64_MAX;
    }
    return m;
}

uint64_t dfn_runs_nodes(const dfn_runspec *runs, size_t n, int threads, uint64_t per_event)
{
    const char **files;
    uint64_t *bytes;
    size_t m = dfn_runs_files(runs, n, &files, &bytes);
    /* (the plan MPI makes: a process's files on one node) */
    uint64_t *group = dfn_filehead_groups(files, bytes, m, false, threads);
    int *rank_of = dfn_xmalloc((m ? m : 1) * sizeof *rank_of);
    uint64_t th = (uint64_t)(threads > 0 ? threads : dfn_ncpus());
    /* the fewest nodes whose largest share fits: more never hurt, so a
     * binary search over 1 to a node a file (0 when even that fails) */
    int lo = 1, hi = m > 4096 ? 4096 : (int)(m ? m : 1), found = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (share_fits(files, bytes, group, m, mid, rank_of, th, per_event)) { found = mid; hi = mid - 1; }
        else lo = mid + 1;
    }
    free(files);
    free(bytes);
    free(group);
    free(rank_of);
    return (uint64_t)found;
}

char *dfn_runs_advice(const dfn_runspec *runs, size_t n, const dfn_estimate *est, int threads, dfn_advice what,
                      const char *path, bool more, bool compare)
{
    /* (a path's control bytes would end a line of the advice early) */
    const char *raw = path ? path : "PATH";
    size_t rl = strlen(raw);
    char *p = dfn_xmalloc(4 * rl + 1);
    dfn_fmt_safe(raw, rl, p, 4 * rl + 1);
    const char *etc = more ? " ..." : "", *cmp = compare ? "--compare " : "";
    char *one;
    if (what == DFN_ADVICE_REPORT) {
        one = dfn_xstrdup("");
    } else {
        /* the explorer, and a server's clients' explorers, hold the set in
         * one process whatever the ranks: a larger node, not more of them */
        char need[32];
        dfn_estimate_size_text(dfn_estimate_need(est, runs_threads(n, threads), DFN_EST_EXPLORER_PER_EVENT), need,
                               sizeof need);
        one = what == DFN_ADVICE_SERVE
                  ? dfn_xasprintf("dfnav serve holds a set in one process (rank 0 under MPI) and each client's explorer "
                                  "needs about %s: start it on a node with that much available (srun -N 1, flux run "
                                  "-N 1; under mpirun its ranks share the parse) (dfnav(1), SERVING)\n", need)
                  : dfn_xasprintf("the explorer holds a set in one process: on a node with about %s available, start "
                                  "dfnav serve %s%s%s (srun -N 1, flux run -N 1; under mpirun its ranks share the parse) "
                                  "and run dfnav --connect HOST:PORT here (dfnav(1), SERVING)\n", need, cmp, p, etc);
    }
    uint64_t nodes = dfn_runs_nodes(runs, n, threads, DFN_EST_CLI_PER_EVENT);
    char *two = nodes == 0 ? dfn_xstrdup("under MPI too: the files of one traced process alone need more than this memory\n")
                : nodes == 1 ? dfn_xstrdup("")
                : dfn_xasprintf("about %" PRIu64 " nodes of this memory hold it for report under MPI, a rank each "
                                "(dfnav(1), MPI): mpirun -n %" PRIu64 " --map-by ppr:1:node dfnav report %s--by func %s%s "
                                "(srun -N %" PRIu64 " -n %" PRIu64 ", flux run -N %" PRIu64 " -n %" PRIu64 ")\n",
                                nodes, nodes, cmp, p, etc, nodes, nodes, nodes, nodes);
    /* a server's set in shares answers its clients' commands and
     * explorers; a served rank keeps its share while a command runs, so
     * it counts its own nodes */
    uint64_t served = what != DFN_ADVICE_REPORT && !compare ? dfn_runs_nodes(runs, n, threads, DFN_EST_SERVED_PER_EVENT)
                                                            : 0;
    char *three = served < 2 ? dfn_xstrdup("")
                  : what == DFN_ADVICE_SERVE
                      ? dfn_xasprintf("about %" PRIu64 " nodes of this memory hold it in shares for clients' commands "
                                      "and explorers (dfnav(1), SERVING): mpirun -n %" PRIu64 " --map-by ppr:1:node dfnav "
                                      "serve --spread %s%s\n", served, served, p, etc)
                      : dfn_xasprintf("or about %" PRIu64 " nodes of this memory hold it in shares: mpirun -n %" PRIu64
                                      " --map-by ppr:1:node dfnav serve --spread %s%s there, and dfnav --connect "
                                      "HOST:PORT here (dfnav(1), SERVING)\n", served, served, p, etc);
    char *all = dfn_xasprintf("%s%s%s", one, two, three);
    free(one);
    free(two);
    free(three);
    free(p);
    return all;
}

const char *dfn_run_preset(const dfn_store *s, const char *dlio)
{
    const char *own = dfn_layers_auto(s, NULL);
    /* a DLIO run keeps its own flavour of the names; the layers are named alike */
    return dfn_preset_is_dlio(own) || !dlio ? own : dlio;
}

bool dfn_runset_layers(dfn_runset *rs, dfn_store *store, const dfn_run_opts *o, const char *preset, char *err,
                       size_t errlen)
{
    memset(rs, 0, sizeof *rs);
    rs->store = store;
    rs->preset = o->layers ? NULL : preset ? preset : dfn_layers_auto(store, NULL);
    if (!dfn_layers_load(o->layers ? o->layers : rs->preset, &rs->layers, err, errlen)) return false;
    rs->ls = dfn_layerset_compile(store, &rs->layers, o->threads, err, errlen);
    return rs->ls != NULL;
}

bool dfn_run_analyse(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const dfn_run_opts *o, unsigned need,
                     char *err, size_t errlen)
{
    /* the tiles sweep each lane's I/O: built once it is set */
    return dfn_analysis_build(a, s, ls, o->compute, o->overlap_host, need & ~DFN_NEED_TILES, err, errlen) &&
           dfn_analysis_set_io(a, s, ls, o->io, err, errlen) &&
           dfn_analysis_build(a, s, ls, o->compute, o->overlap_host, need & DFN_NEED_TILES, err, errlen);
}

bool dfn_runset_analyse(dfn_runset *rs, const dfn_run_opts *o, unsigned need, char *err, size_t errlen)
{
    return dfn_run_analyse(&rs->an, rs->store, rs->ls, o, need, err, errlen);
}

dfn_run dfn_runset_run(const dfn_runset *rs) { return (dfn_run){ rs->store, rs->ls, &rs->an, rs->remote, rs->remote_run }; }

void dfn_runset_release(dfn_runset *rs)
{
    dfn_analysis_free(&rs->an);
    dfn_layerset_free(rs->ls);
    dfn_layers_free(&rs->layers);
    rs->ls = NULL;
    memset(&rs->an, 0, sizeof rs->an);
    memset(&rs->layers, 0, sizeof rs->layers);
}

void dfn_runset_free(dfn_runset *rs)
{
    dfn_runset_release(rs);
    dfn_store_free(rs->store);
    rs->store = NULL;
}
