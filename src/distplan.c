/* dfnav distribution plan: which rank of an MPI job reads which trace
 * file. Pure arithmetic, the same on every rank, so that no message is
 * needed to agree on it. */
#include "dfnav/dist.h"

#include <stdlib.h>

#include "dfnav/util.h"

typedef struct {
    uint64_t bytes;
    size_t index;
} plan_file;

/* Largest first; equal sizes in file order, so every rank sorts alike. */
static int plan_cmp(const void *a, const void *b)
{
    const plan_file *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

void dfn_dist_plan(const uint64_t *bytes, size_t n, int nranks, int *rank_of)
{
    if (nranks < 1) nranks = 1;
    plan_file *f = dfn_xmalloc((n ? n : 1) * sizeof *f);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        rank_of[i] = 0;
        if (bytes[i] != UINT64_MAX) f[m++] = (plan_file){ bytes[i], i };
    }
    qsort(f, m, sizeof *f, plan_cmp);
    uint64_t *load = dfn_xcalloc((size_t)nranks, sizeof *load);
    for (size_t i = 0; i < n; i++)   /* what only rank 0 can read counts there */
        if (bytes[i] == UINT64_MAX) load[0]++;
    for (size_t k = 0; k < m; k++) {
        int best = 0;
        for (int r = 1; r < nranks; r++)
            if (load[r] < load[best]) best = r;
        rank_of[f[k].index] = best;
        /* an empty file still costs an open: count it as a byte */
        load[best] = dfn_sat_add(load[best], f[k].bytes ? f[k].bytes : 1);
    }
    free(load);
    free(f);
}
