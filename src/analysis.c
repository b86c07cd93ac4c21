/* Building the analysis indexes on demand, with the compute definition
 * defaulting from the layers. */
#include "dfnav/analysis.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned dfn_analysis_needs(uint64_t metrics)
{
    unsigned need = 0;
    if (metrics & DFN_M_OVERLAP) need |= DFN_NEED_OVERLAP;
    if (metrics & DFN_M_BIT(DFN_M_SELF_S)) need |= DFN_NEED_TREE;
    if (metrics & DFN_M_BIT(DFN_M_SEQ_PCT)) need |= DFN_NEED_ACCESS;
    return need;
}

bool dfn_analysis_build(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const char *compute,
                        bool by_host, unsigned need, char *err, size_t errlen)
{
    if ((need & DFN_NEED_OVERLAP) && !a->overlap) {
        const char *text = compute ? compute : dfn_overlap_default(ls ? dfn_layerset_layers(ls) : NULL);
        dfn_filter f = {0};
        char ferr[1024];
        if (text && !dfn_filter_parse(text, &f, ferr, sizeof ferr)) {
            snprintf(err, errlen, "compute: %s", ferr);
            return false;
        }
        a->overlap = dfn_overlap_build(s, ls, text ? &f : NULL, by_host, ferr, sizeof ferr);
        if (text) dfn_filter_free(&f);
        if (!a->overlap) { snprintf(err, errlen, "compute: %s", ferr); return false; }
    }
    if ((need & DFN_NEED_TREE) && !a->tree) a->tree = dfn_calltree_build(s);
    if ((need & DFN_NEED_ACCESS) && !a->access) a->access = dfn_access_build(s);
    if ((need & DFN_NEED_TILES) && !a->tiles) a->tiles = dfn_tiles_build(s, ls, a->overlap, DFN_TILE_SHIFT);
    return true;
}

char *dfn_analysis_compute_text(const dfn_layers *l, const char *compute)
{
    const char *text = compute ? compute : dfn_overlap_default(l);
    dfn_filter f = {0};
    char ferr[256];
    if (!text || !dfn_filter_parse(text, &f, ferr, sizeof ferr)) return dfn_xstrdup("");
    char *t = f.n ? dfn_filter_text(&f) : dfn_xstrdup("");
    dfn_filter_free(&f);
    return t;
}

bool dfn_analysis_set_io(dfn_analysis *a, const dfn_store *s, const dfn_layerset *ls, const char *io, char *err,
                         size_t errlen)
{
    if (!io || !a->overlap) return true;
    /* the tiles swept the I/O as it was: built again when asked */
    dfn_tiles_free(a->tiles);
    a->tiles = NULL;
    dfn_filter f;
    char ferr[1024];
    if (!dfn_filter_parse(io, &f, ferr, sizeof ferr) ||
        !dfn_overlap_set_io(a->overlap, s, ls, &f, ferr, sizeof ferr)) {
        snprintf(err, errlen, "io: %s", ferr);
        if (f.terms) dfn_filter_free(&f);
        return false;
    }
    dfn_filter_free(&f);
    return true;
}

void dfn_analysis_apply(const dfn_analysis *a, dfn_query *q)
{
    q->overlap = a->overlap;
    q->tree = a->tree;
    q->access = a->access;
    q->tiles = a->tiles;
}

void dfn_analysis_free(dfn_analysis *a)
{
    dfn_overlap_free(a->overlap);
    dfn_calltree_free(a->tree);
    dfn_access_free(a->access);
    dfn_tiles_free(a->tiles);
    memset(a, 0, sizeof *a);
}
