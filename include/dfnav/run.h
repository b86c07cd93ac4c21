/* dfnav runs: how PATH arguments become trace sets ready for queries, the
 * one way the command line and the explorer both go. A run is one trace
 * set (comparing, each NAME=PATH is a run; otherwise all paths are one).
 * Before loading: its trace files and the memory check. After: its layers
 * (comparing, one DLIO preset for every run once any run shows DLIO
 * names), their per-event index and the analyses the queries need. */
#ifndef DFNAV_RUN_H
#define DFNAV_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/analysis.h"
#include "dfnav/compare.h"
#include "dfnav/estimate.h"
#include "dfnav/layers.h"
#include "dfnav/loader.h"
#include "dfnav/store.h"

/* A run before loading. */
typedef struct {
    char *label;              /* comparing: the run's name; NULL for one run */
    dfn_inputs in;            /* its trace files, and the paths that gave none */
} dfn_runspec;

/* The runs the arguments name, each with its files expanded. False with a
 * message when run names clash (comparing). */
bool dfn_runs_parse(char *const *paths, size_t n, bool compare, dfn_runspec **out, size_t *nruns, char *err,
                    size_t errlen);
void dfn_runs_free(dfn_runspec *runs, size_t n);
/* Whether the runs, loaded side by side with threads loader threads each
 * (0: one per core), are estimated to fit in memory at per_event bytes an
 * event; msg says what they would need when not. est (when given) gets
 * the estimate, for dfn_runs_advice. */
bool dfn_runs_fit(const dfn_runspec *runs, size_t n, int threads, uint64_t per_event, dfn_estimate *est, char *msg,
                  size_t cap);
/* Every file of the runs in load order (malloc'd, pointing into them);
 * how many in *m. */
const char **dfn_runs_paths(const dfn_runspec *runs, size_t n, size_t *m);
/* Every file of the runs (pointing into them) and its size (UINT64_MAX:
 * none known, as of standard input); how many. */
size_t dfn_runs_files(const dfn_runspec *runs, size_t n, const char ***files, uint64_t **bytes);
/* How many nodes of this one's memory hold the runs, a share each, as
 * MPI plans them (a traced process's files together); 0 when one
 * process's files alone need more. */
uint64_t dfn_runs_nodes(const dfn_runspec *runs, size_t n, int threads, uint64_t per_event);
/* Where runs that do not fit here (dfn_runs_fit said no, and gave est)
 * would, for report's tables (nodes of this memory, a rank each under
 * MPI), for the explorer (one process holds the set: a node with the
 * memory it needs, running dfnav serve for dfnav --connect here), or for
 * dfnav serve itself: lines, each ended by '\n' (malloc'd; "" when
 * nothing would help). path: the first PATH argument (its control bytes
 * escaped); more: others follow it; compare: the runs are compared
 * (--compare, PATH as NAME=PATH). */
typedef enum { DFN_ADVICE_REPORT, DFN_ADVICE_EXPLORER, DFN_ADVICE_SERVE } dfn_advice;
char *dfn_runs_advice(const dfn_runspec *runs, size_t n, const dfn_estimate *est, int threads, dfn_advice what,
                      const char *path, bool more, bool compare);

/* The preset a run takes without --layers: its own choice, or, when it has
 * no DLIO names of its own but another run has, that run's DLIO flavour
 * (dlio: the first DLIO preset seen among the runs, or NULL). */
const char *dfn_run_preset(const dfn_store *s, const char *dlio);

/* What shapes a run's layers and analysis. */
typedef struct {
    const char *layers;       /* a layer file or preset; NULL: chosen per run */
    const char *compute;      /* compute definition for overlap; NULL = the layers' */
    const char *io;           /* what is I/O for overlap; NULL = POSIX and STDIO calls */
    bool overlap_host;        /* compute hides I/O of its whole host */
    int threads;
} dfn_run_opts;

/* A loaded run, ready for queries. */
typedef struct {
    dfn_store *store;
    dfn_layers layers;
    dfn_layerset *ls;         /* NULL until the layers compiled */
    dfn_analysis an;
    const char *preset;       /* the preset taken; NULL with --layers */
    /* a set other processes hold (remote.h): store is its outline, ls and
     * an stay empty, its queries go there */
    const struct dfn_remote *remote;
    size_t remote_run;
} dfn_runset;

/* Takes store, loads the layers (o->layers, else preset, else the store's
 * own choice) and indexes them. False with a message (the store is still
 * rs->store, to free with dfn_runset_free). */
bool dfn_runset_layers(dfn_runset *rs, dfn_store *store, const dfn_run_opts *o, const char *preset, char *err,
                       size_t errlen);
/* Builds into a the analyses need asks for (DFN_NEED_*) not built yet,
 * with the compute and I/O definitions of o: the I/O set on the overlap
 * before the tiles, which sweep it. */
bool dfn_run_analyse(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const dfn_run_opts *o, unsigned need,
                     char *err, size_t errlen);
/* The same into rs's own analyses. */
bool dfn_runset_analyse(dfn_runset *rs, const dfn_run_opts *o, unsigned need, char *err, size_t errlen);
/* What a query reads of it. */
dfn_run dfn_runset_run(const dfn_runset *rs);
/* Frees the layers and analyses but not the store (another set holds it). */
void dfn_runset_release(dfn_runset *rs);
void dfn_runset_free(dfn_runset *rs);

#endif
