/* dfnav comparison: one query on several runs of a job (each run its own
 * store, layers and indexes), its rows matched across runs by their keys,
 * so that a table shows every metric once per run and, for two runs, the
 * difference and the ratio. A single run is a comparison of one: the
 * explorer and `dfnav report` print every table through this. */
#ifndef DFNAV_COMPARE_H
#define DFNAV_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/analysis.h"
#include "dfnav/layers.h"
#include "dfnav/query.h"

#define DFN_CMP_ABSENT UINT32_MAX
/* Runs a comparison shows at most (each takes a column per metric). */
#define DFN_COMPARE_MAX_RUNS 8

/* What a compared metric column shows: a run (0, 1, ...), or for two runs
 * the second minus the first, or the second over the first. */
#define DFN_CMP_DIFF (-1)
#define DFN_CMP_RATIO (-2)

typedef struct {
    size_t nruns;
    char **labels;            /* one per run; NULL for a single run */
    dfn_result **res;         /* each run's own result */
    size_t nrows;
    uint32_t *row;            /* nrows * nruns: the row in res[k], or DFN_CMP_ABSENT */
    uint64_t matched;         /* events matched in all runs */
    uint64_t matched_calls;   /* the calls they stand for */
    bool calls;               /* rows are calls, each of one run: a column is the row's own run */
    int sort, sort_col;       /* metric (-1 key) and column (run, DIFF or RATIO) */
    bool desc;
} dfn_compare;

/* Whether runs compared side by side can take q (with why when not):
 * calls within other groups cannot, a call of one run matching none of
 * another's. What dfn_compare_run checks first; MPI's runs in shares ask
 * it before any rank queries. */
bool dfn_compare_takes(const dfn_query *q, char *err, size_t errlen);
/* Runs qs[k] on stores[k] for every run. The queries must agree on their
 * grouping and time terms (bins are numbered from the window's start);
 * their layers and indexes are each run's own. Time bins are
 * made the same for all runs (relative to each run's start), rows are
 * matched by key and sorted by (q.sort, sort_col), and q.top applies to
 * the matched rows. Rows of calls are not matched: each is a call of one
 * run. labels (copied) name the runs; NULL for a single run. */
dfn_compare *dfn_compare_run(const dfn_store *const *stores, const dfn_query *qs, size_t nruns, int sort_col,
                     const char *const *labels, char *err, size_t errlen);
/* The bin width q gives runs of these spans (µs from each run's first
 * start to its last end): its own, else when it groups by time one for
 * every run from the longest window its time terms leave (each run's bins
 * count from its start); dfn_compare_run's, and MPI's for runs it holds
 * in shares. */
double dfn_compare_bin(const dfn_query *q, const uint64_t *span_us, size_t nruns);
/* Results of one query on nruns runs (taken over; res itself the
 * caller's) matched by key and sorted as dfn_compare_run does: each
 * result whole (its query's top 0), q0's top applied to the matched
 * rows. What dfn_compare_run does once the queries ran, for results
 * made elsewhere (merged from MPI ranks' partials). */
dfn_compare *dfn_compare_results(dfn_result **res, size_t nruns, const dfn_query *q0, int sort_col,
                                 const char *const *labels);
/* One run's result (taken over) as a comparison of that run alone,
 * sorted as the query was. */
dfn_compare *dfn_compare_of(dfn_result *r, int sort, bool desc);
/* One run as a query needs it: its store, layers and built indexes. */
typedef struct {
    const dfn_store *s;
    const dfn_layerset *ls;
    const dfn_analysis *an;   /* may be NULL */
    /* a set other processes hold (remote.h): its queries go there, s
     * being its outline (no events); NULL: s holds it */
    const struct dfn_remote *remote;
    size_t remote_run;        /* which of the remote's runs */
} dfn_run;

/* base on every run: each with its own layers and indexes (row
 * sparklines split by compute only where a run has the overlap). The one
 * query path of the explorer and the command line. */
dfn_compare *dfn_compare_query(const dfn_run *runs, size_t nruns, const dfn_query *base, int sort_col,
                               const char *const *labels, char *err, size_t errlen);

static inline bool dfn_compare_has(const dfn_compare *c, size_t row, size_t run)
{
    return c->row[row * c->nruns + run] != DFN_CMP_ABSENT;
}
/* The run whose row gives the key (the first that has it). */
size_t dfn_compare_rep(const dfn_compare *c, size_t row);
/* That run in *run, and its row of that run's result. */
static inline uint32_t dfn_compare_rep_row(const dfn_compare *c, size_t row, size_t *run)
{
    *run = dfn_compare_rep(c, row);
    return c->row[row * c->nruns + *run];
}
/* A metric of a row in one run; NaN where the row is absent. */
double dfn_compare_metric(const dfn_compare *c, size_t row, size_t run, dfn_metric m);
/* A column's value: a run's metric, or (two runs) the difference and the
 * ratio, NaN where a run lacks the row; the ratio of x to 0 is +inf. */
double dfn_compare_value(const dfn_compare *c, size_t row, int col, dfn_metric m);
/* The same whole, however long (malloc'd). */
char *dfn_compare_key_dup(const dfn_compare *c, size_t row, size_t dim, size_t *len);
/* Key text of a row, from the run that has it. */
const char *dfn_compare_key_str(const dfn_compare *c, size_t row, size_t dim, char *buf, size_t cap, size_t *len);
/* Sorts again: by metric (-1 key) of a column; rows without a value go
 * last, ties by the largest value in any run, then by key. */
void dfn_compare_sort(dfn_compare *c, int metric, int col, bool desc);
void dfn_compare_free(dfn_compare *c);

/* Runs from command-line arguments: NAME=PATH, or PATH named after its
 * last component (a repeated name gets -2, -3 ...). Fills n malloc'd
 * labels and paths; false with a message (two runs given one name). */
bool dfn_compare_runs_parse(char *const *args, size_t n, char **labels, char **paths, char *err, size_t errlen);

#endif
