/* dfnav analysis: the indexes behind the analysis metrics (compute
 * unions for overlap, the call tree for self time, access patterns for
 * sequential share), built on demand for one store and one compute
 * definition, the same way for the explorer and the command line. */
#ifndef DFNAV_ANALYSIS_H
#define DFNAV_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "dfnav/access.h"
#include "dfnav/calltree.h"
#include "dfnav/match.h"
#include "dfnav/overlap.h"
#include "dfnav/query.h"
#include "dfnav/tiles.h"

typedef struct {
    dfn_overlap *overlap;
    dfn_calltree *tree;
    dfn_access *access;
    dfn_tiles *tiles;
} dfn_analysis;

/* What the metrics need. */
#define DFN_NEED_OVERLAP 1u
#define DFN_NEED_TREE 2u
#define DFN_NEED_ACCESS 4u
#define DFN_NEED_TILES 8u   /* the explorer's: its tables' scans, not a metric */
unsigned dfn_analysis_needs(uint64_t metrics);

/* Builds the parts of need not built yet. compute is a filter text, or
 * NULL for the layers' default ("layer=compute" when they have one);
 * by_host unites compute per host rather than per process. */
bool dfn_analysis_build(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const char *compute,
                        bool by_host, unsigned need, char *err, size_t errlen);
/* Sets what counts as I/O (a filter text) in the built overlap (and
 * drops tiles built before: build them after). */
bool dfn_analysis_set_io(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const char *io, char *err,
                         size_t errlen);
/* The text of the compute definition dfn_analysis_build would use
 * (dfn_overlap_text's: "" for none, or one that does not parse), without
 * a store: what a note on shares of a set names. Malloc'd. */
char *dfn_analysis_compute_text(const dfn_layers *l, const char *compute);
/* Points a query at the built parts. */
void dfn_analysis_apply(const dfn_analysis *a, dfn_query *q);
void dfn_analysis_free(dfn_analysis *a);

#endif
