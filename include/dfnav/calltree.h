/* dfnav call tree: within each lane (host, pid, tid), which event encloses
 * which. An event's parent is the innermost other event of its lane whose
 * interval contains it (time containment; the tracer's p_idx hint is not
 * needed), and its self time is its duration less the union of its
 * children's intervals; its call path is its ancestors' functions and its
 * own. Built once per store, read-only afterwards. */
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
/* Every event's self time, as dfn_calltree_self gives it (*n events):
 * read inline by the scans. */
const dfn_col32 *dfn_calltree_selfs(const dfn_calltree *t, size_t *n);
/* Up to max of event i's children, in start order; returns how many it
 * has (which may exceed max). */
size_t dfn_calltree_children(const dfn_calltree *t, const dfn_store *s, size_t i, uint32_t *out, size_t max);
/* Call paths: the functions from the outermost enclosing call down to an
 * event, as a node of a tree of paths (nodes numbered from 0, the same
 * path the same node). */
uint32_t dfn_calltree_path(const dfn_calltree *t, size_t i);
/* Every event's node, as dfn_calltree_path gives it (*n events). */
const uint32_t *dfn_calltree_paths(const dfn_calltree *t, size_t *n);
size_t dfn_calltree_npaths(const dfn_calltree *t);
/* DFN_NOID at the top. */
uint32_t dfn_calltree_path_parent(const dfn_calltree *t, uint32_t node);
/* The string id of the node's function. */
uint32_t dfn_calltree_path_func(const dfn_calltree *t, uint32_t node);
/* 0 at the top. */
unsigned dfn_calltree_path_depth(const dfn_calltree *t, uint32_t node);
/* "outer;inner;call" (';' between functions, as folded stacks have it; a
 * ';' or '\' in a name is escaped with '\'); returns its length (cut at
 * cap - 1). */
size_t dfn_calltree_path_text(const dfn_calltree *t, const dfn_store *s, uint32_t node, char *buf, size_t cap);
/* The length of that text, uncut. */
size_t dfn_calltree_path_len(const dfn_calltree *t, const dfn_store *s, uint32_t node);
/* Paths in tree order: function by function from the top, a caller
 * before its callees (of two trees and stores: two runs). */
int dfn_calltree_path_cmp(const dfn_calltree *ta, const dfn_store *sa, uint32_t x, const dfn_calltree *tb,
                          const dfn_store *sb, uint32_t y);
/* The same order of two paths' whole texts (dfn_calltree_path_text's):
 * what merged partials keep of a path. */
int dfn_calltree_text_cmp(const char *a, size_t la, const char *b, size_t lb);
void dfn_calltree_free(dfn_calltree *t);

#endif
