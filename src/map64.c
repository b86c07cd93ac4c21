/* The u64 -> u64 open-addressing map (linear probing, load under 1/2). */
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

/* A map takes no memory until its first key: a query's part sets up some
 * thirty of them, most of which a given query never fills. */
void dfn_map64_init(dfn_map64 *m)
{
    memset(m, 0, sizeof *m);
}

static void map64_alloc(dfn_map64 *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->k = dfn_xmalloc(cap * 8);
    m->v = dfn_xcalloc(cap, 8);
    memset(m->k, 0xff, cap * 8);
}

void dfn_map64_free(dfn_map64 *m)
{
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof *m);
}

uint64_t *dfn_map64_slot(dfn_map64 *m, uint64_t key)
{
    if (!m->cap) map64_alloc(m, 1024);
    if ((m->n + 1) * 2 > m->cap) {
        dfn_map64 g;
        map64_alloc(&g, m->cap * 2);
        for (size_t i = 0; i < m->cap; i++)
            if (m->k[i] != DFN_MAP64_EMPTY) *dfn_map64_slot(&g, m->k[i]) = m->v[i];
        dfn_map64_free(m);
        *m = g;
    }
    size_t mask = m->cap - 1, j = dfn_hash_u64(key) & mask;
    while (m->k[j] != DFN_MAP64_EMPTY && m->k[j] != key) j = (j + 1) & mask;
    if (m->k[j] == DFN_MAP64_EMPTY) { m->k[j] = key; m->n++; }
    return &m->v[j];
}

const uint64_t *dfn_map64_get(const dfn_map64 *m, uint64_t key)
{
    if (!m->cap || key == DFN_MAP64_EMPTY) return NULL;
    size_t mask = m->cap - 1, j = dfn_hash_u64(key) & mask;
    while (m->k[j] != DFN_MAP64_EMPTY && m->k[j] != key) j = (j + 1) & mask;
    return m->k[j] == key ? &m->v[j] : NULL;
}

void dfn_map64_add_rows(dfn_map64 *dst, const dfn_map64 *src, const uint32_t *rowmap, int shift, const uint32_t *lowmap)
{
    uint64_t low = (UINT64_C(1) << shift) - 1;
    for (size_t j = 0; j < src->cap; j++) {
        uint64_t k = src->k[j];
        if (k == DFN_MAP64_EMPTY || rowmap[k >> shift] == DFN_MAP64_NOROW) continue;
        uint64_t *v = dfn_map64_slot(dst, (uint64_t)rowmap[k >> shift] << shift | (lowmap ? lowmap[k & low] : k & low));
        *v = dfn_sat_add(*v, src->v[j]);
    }
}
