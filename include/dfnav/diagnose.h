/* dfnav diagnostics: DFAnalyzer's rules (metadata-heavy, small reads,
 * small writes, read/write imbalance, random access, exposed I/O, file
 * sharing) evaluated on a selection and on each of its layers and
 * processes. Each finding carries the figures that triggered it and the
 * filter and grouping that show the evidence, so the explorer can drill
 * there and the command line can print the report that shows it. */
#ifndef DFNAV_DIAGNOSE_H
#define DFNAV_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dfnav/access.h"
#include "dfnav/analysis.h"
#include "dfnav/filter.h"
#include "dfnav/match.h"
#include "dfnav/overlap.h"
#include "dfnav/query.h"
#include "dfnav/store.h"

typedef enum {
    DFN_TH_METADATA,          /* % of I/O time in metadata calls (50) */
    DFN_TH_SMALL_TIME,        /* % of I/O time in reads (or writes) (50) ... */
    DFN_TH_SMALL_SIZE,        /* ... with a mean transfer below this many bytes (1 MiB) */
    DFN_TH_IMBALANCE,         /* % difference of read and write counts or bytes (10) */
    DFN_TH_RANDOM,            /* % of judged reads and writes that are random (50) */
    DFN_TH_EXPOSED,           /* % of I/O busy time not hidden by compute (50) */
    DFN_TH_COUNT
} dfn_threshold;

typedef struct { double v[DFN_TH_COUNT]; } dfn_thresholds;

void dfn_thresholds_default(dfn_thresholds *t);
/* "metadata=40,small_size=512KiB": names as in dfn_threshold_name. */
bool dfn_thresholds_parse(const char *text, dfn_thresholds *t, char *err, size_t errlen);
const char *dfn_threshold_name(dfn_threshold k);

typedef enum {
    DFN_RULE_METADATA, DFN_RULE_SMALL_READS, DFN_RULE_SMALL_WRITES, DFN_RULE_IMBALANCE,
    DFN_RULE_RANDOM, DFN_RULE_EXPOSED, DFN_RULE_SHARING, DFN_RULE_COUNT
} dfn_rule;

typedef enum { DFN_SCOPE_SELECTION, DFN_SCOPE_LAYER, DFN_SCOPE_PROC, DFN_SCOPE_ROW } dfn_scope;

typedef struct {
    dfn_rule rule;
    dfn_scope scope;
    char *where;              /* the scope: "selection", "layer reader_posix", "process node01/1234", "time 3-3.5 s" */
    char *key;                /* a row scope's key, as dfn_result_key_text writes it ("" otherwise) */
    char *figures;            /* what triggered it, in words and numbers */
    char *filter;             /* the evidence: filter text to add to the selection */
    char *by;                 /* ... and the grouping that shows it */
    double value, threshold;  /* the rule's figure and its limit (same unit) */
    bool info;                /* a fact reported for every scope, not a problem */
} dfn_finding;

typedef struct {
    dfn_finding *v;
    size_t n;
    bool no_compute, no_access;   /* rules that could not be evaluated */
} dfn_findings;

const char *dfn_rule_name(dfn_rule r);
/* Evaluates the rules on the events that match selection (may be NULL),
 * its layers (ls may be NULL) and its processes, with the indexes of an
 * (may be NULL): without an overlap or access index the exposed-I/O and
 * random-access rules are skipped; a selection with arg.NAME terms needs
 * its call tree. */
dfn_findings *dfn_diagnose(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *selection,
                           const dfn_analysis *an, const dfn_thresholds *t, int threads, char *err, size_t errlen);
/* Where a diagnosis's queries run: on store s with threads, or, when run
 * is set, through it (MPI: on every rank's share, merged on rank 0; the
 * other ranks get rows of nothing, and every rank stops where rank 0
 * does), which gives in *ncompute the compute events of the set's
 * overlap (UINT64_MAX: not known): those decide whether the exposed-I/O
 * rule can be judged. layers are the set's (NULL: no layer scopes);
 * overlap and access say whether its analysis has those indexes
 * (dfn_diagnose fills all three from its layerset and analysis; a
 * runner's rank without a share has neither of its own). With a runner s
 * may be NULL (a merged partial's rows keep their text). */
typedef struct {
    const dfn_store *s;
    int threads;
    dfn_result *(*run)(void *ctx, dfn_query *q, uint64_t *ncompute, char *err, size_t errlen);
    void *ctx;
    const dfn_layers *layers;
    bool overlap, access;
} dfn_diag_src;
dfn_findings *dfn_diagnose_via(const dfn_diag_src *src, const dfn_layerset *ls, const dfn_filter *selection,
                               const dfn_analysis *an, const dfn_thresholds *t, char *err, size_t errlen);
/* The rules scored on each row of the selection grouped by one dimension
 * (time in bins of bin_s, 0 = as a query chooses; file; func; any but
 * event and size), as DFAnalyzer scores every view: findings of scope
 * DFN_SCOPE_ROW, in key order. */
dfn_findings *dfn_diagnose_rows(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *selection,
                                const dfn_analysis *an, const dfn_thresholds *t, const dfn_dim *by, double bin_s,
                                int threads, char *err, size_t errlen);
dfn_findings *dfn_diagnose_rows_via(const dfn_diag_src *src, const dfn_layerset *ls, const dfn_filter *selection,
                                    const dfn_analysis *an, const dfn_thresholds *t, const dfn_dim *by, double bin_s,
                                    char *err, size_t errlen);
/* Writes the findings: a list for people (each with the report that shows
 * its evidence), CSV or JSON. compute is the compute definition's text and
 * where the selection's filter (either may be NULL or ""). */
int dfn_findings_write(FILE *out, const dfn_findings *f, const dfn_thresholds *t, const char *compute,
                       const char *where, int fmt);
void dfn_findings_free(dfn_findings *f);

#endif
