/* dfnav matching: a filter compiled against one store and its layers into
 * lookup tables over the store's small id spaces (kinds, files, lanes), so
 * that testing an event costs a few array reads; and the per-event layer
 * membership masks. */
#ifndef DFNAV_MATCH_H
#define DFNAV_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/calltree.h"
#include "dfnav/filter.h"
#include "dfnav/layers.h"
#include "dfnav/store.h"

typedef struct dfn_layerset dfn_layerset;
typedef struct dfn_match dfn_match;

/* Compiles the layers for s and indexes every event's layers on threads
 * threads (0: one per online core); the index does not depend on it. */
dfn_layerset *dfn_layerset_compile(const dfn_store *s, const dfn_layers *l, int threads, char *err, size_t errlen);
/* Bit k set when event i is in layer k (bit n for "other"). */
uint64_t dfn_layerset_mask(const dfn_layerset *ls, size_t i);
/* The distinct masks, and per event the index of its mask (in idx8 when
 * there are at most 256 masks, else idx32): scans that group by layer
 * work per mask, not per event. */
const uint64_t *dfn_layerset_masks(const dfn_layerset *ls, size_t *n, const uint8_t **idx8, const uint32_t **idx32);
const dfn_layers *dfn_layerset_layers(const dfn_layerset *ls);
void dfn_layerset_free(dfn_layerset *ls);

/* One term against a text, an integer or a number (negation included):
 * what a filter key of that type means anywhere. */
bool dfn_term_text(const dfn_term *t, const char *s, size_t len, bool icase);
bool dfn_term_int(const dfn_term *t, int64_t v);
bool dfn_term_num(const dfn_term *t, double v);
/* A pid or tid, number or name (see DFN_ID_NAMED_BASE). */
bool dfn_term_id(const dfn_store *s, const dfn_term *t, int64_t v);

/* ls may be NULL when the filter has no layer terms. */
dfn_match *dfn_match_compile(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *f, char *err, size_t errlen);
bool dfn_match_event(const dfn_match *m, size_t i);
/* The lookup tables a match reduces to (NULL when that id space has no
 * term), and whether any term must still be tested per event: scans test
 * the tables inline and call dfn_match_event only when per_event is set.
 * mask_ok: the layer terms, by the index of event i's mask in the layer
 * set (mask_idx8[i], or mask_idx32[i] when mask_idx8 is NULL). path_ok:
 * the path terms, by event i's node paths[i] (i < npaths; a node past
 * npath, or an event past npaths, passes none). */
typedef struct {
    const uint8_t *kind_ok, *file_ok, *lane_ok, *mask_ok, *path_ok;
    const uint8_t *mask_idx8;
    const uint32_t *mask_idx32;
    const uint32_t *paths;
    size_t npath, npaths;
    bool per_event;
} dfn_match_tabs;
void dfn_match_tables(const dfn_match *m, dfn_match_tabs *t);
/* Whether event i passes t's layer table, and its path table (each set). */
static inline bool dfn_match_tabs_mask(const dfn_match_tabs *t, size_t i)
{
    return t->mask_ok[t->mask_idx8 ? t->mask_idx8[i] : t->mask_idx32[i]] != 0;
}
static inline bool dfn_match_tabs_path(const dfn_match_tabs *t, size_t i)
{
    uint32_t node = i < t->npaths ? t->paths[i] : DFN_NOID;
    return node < t->npath && t->path_ok[node];
}
/* The window the bounds on the start (time >=, >, <, <=) make: [*lo, *hi)
 * in µs from the store's start; false when they make none (no bound, or a
 * time = x, which names starts, not a stretch of time). Calls that start
 * before it and run into it pass dfn_match_event_anytime. */
bool dfn_match_window(const dfn_match *m, uint64_t *lo, uint64_t *hi);
/* Lets arg.NAME terms take the argument of a call that has none from the
 * innermost enclosing call of its lane that has it (own.NAME terms, and
 * matches without a tree, such as layer and compute definitions, read the
 * call's own). */
void dfn_match_set_tree(dfn_match *m, const dfn_calltree *tree);
/* Events beyond the filter's: only those whose bit (by store index) is
 * set pass (NULL: no such bound); the bits outlive m. */
void dfn_match_set_only(dfn_match *m, const uint64_t *only);
/* Argument key of event i, or when it has none (and tree is given) of
 * the innermost enclosing call that has it; false when none has. */
bool dfn_arg_inherited(const dfn_store *s, const dfn_calltree *tree, size_t i, uint32_t key, dfn_arg *out);
/* Every term but the bounds on the start. */
bool dfn_match_event_anytime(const dfn_match *m, size_t i);
/* Events outside [lo, hi) cannot match (from the time terms). */
void dfn_match_range(const dfn_match *m, size_t *lo, size_t *hi);
void dfn_match_free(dfn_match *m);

#endif
