/* dfnav distribution plan: which rank of an MPI job reads which trace
 * file. Pure arithmetic, the same on every rank, so that no message is
 * needed to agree on it. */
#include "dfnav/dist.h"

#include <stdlib.h>

#include "dfnav/map64.h"
#include "dfnav/util.h"

/* Files placed together: one, or a group's (its first file's index). */
typedef struct {
    uint64_t bytes;
    size_t index;
    int rank;
} plan_unit;

/* Largest first; equal sizes in file order, so every rank sorts alike. */
static int plan_cmp(const void *a, const void *b)
{
    const plan_unit *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The units of n files: each file's unit in unit_of (SIZE_MAX for what
 * stays on rank 0); *m of them. */
static plan_unit *plan_units(const uint64_t *bytes, const uint64_t *group, size_t n, size_t *unit_of, size_t *m)
{
    plan_unit *u = dfn_xmalloc((n ? n : 1) * sizeof *u);
    dfn_map64 first;   /* group + 1 -> its unit + 1 (a key of all ones is the map's empty one) */
    dfn_map64_init(&first);
    *m = 0;
    for (size_t i = 0; i < n; i++) {
        unit_of[i] = SIZE_MAX;
        if (bytes[i] == UINT64_MAX) continue;
        /* an empty file still costs an open: count it as a byte */
        uint64_t b = bytes[i] ? bytes[i] : 1;
        uint64_t *slot = group && group[i] && group[i] != UINT64_MAX ? dfn_map64_slot(&first, group[i] + 1) : NULL;
        if (slot && *slot) {
            unit_of[i] = (size_t)*slot - 1;
            u[unit_of[i]].bytes = dfn_sat_add(u[unit_of[i]].bytes, b);
            continue;
        }
        u[*m] = (plan_unit){ b, i, 0 };
        unit_of[i] = (*m)++;
        if (slot) *slot = *m;
    }
    dfn_map64_free(&first);
    return u;
}

void dfn_dist_plan(const uint64_t *bytes, const uint64_t *group, size_t n, int nranks, int *rank_of)
{
    if (nranks < 1) nranks = 1;
    size_t *unit_of = dfn_xmalloc((n ? n : 1) * sizeof *unit_of), m;
    plan_unit *u = plan_units(bytes, group, n, unit_of, &m);
    plan_unit *order = dfn_xmalloc((m ? m : 1) * sizeof *order);
    for (size_t k = 0; k < m; k++) order[k] = u[k];
    qsort(order, m, sizeof *order, plan_cmp);
    uint64_t *load = dfn_xcalloc((size_t)nranks, sizeof *load);
    for (size_t i = 0; i < n; i++)   /* what only rank 0 can read counts there */
        if (bytes[i] == UINT64_MAX) load[0]++;
    for (size_t k = 0; k < m; k++) {
        int best = 0;
        for (int r = 1; r < nranks; r++)
            if (load[r] < load[best]) best = r;
        u[unit_of[order[k].index]].rank = best;
        load[best] = dfn_sat_add(load[best], order[k].bytes);
    }
    for (size_t i = 0; i < n; i++) rank_of[i] = unit_of[i] == SIZE_MAX ? 0 : u[unit_of[i]].rank;
    free(load);
    free(order);
    free(u);
    free(unit_of);
}
