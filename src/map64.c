/* The u64 -> u64 open-addressing map (linear probing, load under 1/2). */
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

void dfn_map64_init(dfn_map64 *m)
{
    m->cap = 1024;
    m->n = 0;
    m->k = dfn_xmalloc(m->cap * 8);
    m->v = dfn_xcalloc(m->cap, 8);
    memset(m->k, 0xff, m->cap * 8);
}

void dfn_map64_free(dfn_map64 *m)
{
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof *m);
}

uint64_t *dfn_map64_slot(dfn_map64 *m, uint64_t key)
{
    if ((m->n + 1) * 2 > m->cap) {
        dfn_map64 g = { dfn_xmalloc(m->cap * 16), dfn_xcalloc(m->cap * 2, 8), m->cap * 2, 0 };
        memset(g.k, 0xff, g.cap * 8);
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
