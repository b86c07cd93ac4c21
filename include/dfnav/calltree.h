/* dfnav call tree: within each lane (host, pid, tid), which event encloses
 * which. An event's parent is the innermost other event of its lane whose
 * interval contains it (time containment; the tracer's p_idx hint is not
 * needed), and its self time is its duration less the union of its
 * children's intervals. Built once per store, read-only afterwards. */
#ifndef DFNAV_CALLTREE_H
#define DFNAV_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "dfnav/store.h"

typedef struct dfn_calltree dfn_calltree;

dfn_calltree *dfn_calltree_build(const dfn_store *s);
/* DFN_NOID for an event no other event encloses. */
uint32_t dfn_calltree_parent(const dfn_calltree *t, size_t i);
uint64_t dfn_calltree_self(const dfn_calltree *t, size_t i);
/* Up to max of event i's children, in start order; returns how many it
 * has (which may exceed max). */
size_t dfn_calltree_children(const dfn_calltree *t, const dfn_store *s, size_t i, uint32_t *out, size_t max);
void dfn_calltree_free(dfn_calltree *t);

#endif
