/* dfnav map64: an open-addressing map from 64-bit keys to 64-bit values,
 * for the sparse accumulators of queries and the per-descriptor state of
 * the access analysis. A slot's value starts at 0 the first time its key
 * is seen. UINT64_MAX is not a valid key. */
#ifndef DFNAV_MAP64_H
#define DFNAV_MAP64_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t *k, *v; size_t cap, n; } dfn_map64;
#define DFN_MAP64_EMPTY UINT64_MAX

void dfn_map64_init(dfn_map64 *m);
/* Frees the map's memory and leaves it empty, ready for use again. */
void dfn_map64_free(dfn_map64 *m);
/* The value slot of key, created (as 0) when missing. */
uint64_t *dfn_map64_slot(dfn_map64 *m, uint64_t key);
/* The value of key, or NULL: a lookup that never writes, for maps that
 * several threads read. */
const uint64_t *dfn_map64_get(const dfn_map64 *m, uint64_t key);

/* The entries of src, keyed row << shift | low, added into dst (saturating)
 * with each row as rowmap[row] and each low as lowmap[low] (NULL: as it
 * is): one grouping's per-row maps into another's. A row mapped to
 * DFN_MAP64_NOROW is left out. */
#define DFN_MAP64_NOROW UINT32_MAX
void dfn_map64_add_rows(dfn_map64 *dst, const dfn_map64 *src, const uint32_t *rowmap, int shift, const uint32_t *lowmap);

#endif
