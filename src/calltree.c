/* The call tree by time containment: each lane's events are walked in
 * start order (longer first at equal starts) with a stack of the events
 * still open; a new event's parent is the nearest open one that contains
 * it. Children arrive in start order, so each parent's covered time is a
 * running union. A parent is placed before its children, so each event's
 * call path (its parent's path, then its function) is made as it comes. */
#include "dfnav/calltree.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dfn_calltree {
    uint32_t *parent;
    dfn_col32 self;
    size_t n;
    /* call paths: path[i] is event i's node; a node is its parent node
     * (DFN_NOID at the top) and a function, interned by that pair */
    uint32_t *path;
    dfn_strtab *nodes;
    uint32_t *node_parent, *node_func;
    uint16_t *node_depth;
    size_t nnodes, nodecap;
    uint32_t last_parent, last_func, last_node;   /* the node path_node gave last */
};

static uint32_t path_intern(dfn_calltree *t, uint32_t parent, uint32_t func);

static uint32_t path_node(dfn_calltree *t, uint32_t parent, uint32_t func)
{
    /* a run of like calls under one caller (reads in a loop) skips the
     * hash lookup */
    if (t->nnodes && parent == t->last_parent && func == t->last_func) return t->last_node;
    t->last_parent = parent;
    t->last_func = func;
    t->last_node = path_intern(t, parent, func);
    return t->last_node;
}

static uint32_t path_intern(dfn_calltree *t, uint32_t parent, uint32_t func)
{
    uint32_t key[2] = { parent, func };
    uint32_t before = dfn_strtab_count(t->nodes), id = dfn_strtab_intern(t->nodes, (const char *)key, sizeof key);
    if (id < before) return id;
    size_t cap = t->nodecap;
    dfn_grow((void **)&t->node_parent, &cap, (size_t)id + 1, sizeof *t->node_parent);
    cap = t->nodecap;
    dfn_grow((void **)&t->node_func, &cap, (size_t)id + 1, sizeof *t->node_func);
    dfn_grow((void **)&t->node_depth, &t->nodecap, (size_t)id + 1, sizeof *t->node_depth);
    t->node_parent[id] = parent;
    t->node_func[id] = func;
    uint16_t d = parent == DFN_NOID ? 0 : t->node_depth[parent];
    t->node_depth[id] = d < UINT16_MAX ? (uint16_t)(d + (parent != DFN_NOID)) : d;
    t->nnodes = (size_t)id + 1;
    return id;
}

/* How far down the stack a new event looks for its parent: only lanes
 * with many partly overlapping (not nested) events reach it. */
#define MAX_WALK 64

typedef struct {
    uint32_t ev;
    uint64_t s, e;
    uint64_t cov_end, covered;   /* union of the children so far */
} frame;

static void frame_close(dfn_calltree *t, const frame *f)
{
    dfn_col32_set(&t->self, f->ev, (f->e - f->s) - f->covered);
}

static void lane_walk(dfn_calltree *t, const dfn_store *s, const uint32_t *ev, size_t n,
                      frame **stack, size_t *cap)
{
    size_t depth = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ev[k];
        uint64_t ts = dfn_store_ts(s, i), end = ts + dfn_store_dur(s, i);
        /* frames that ended before this start can hold nothing later;
         * one ending exactly here can still hold a zero-length event */
        while (depth && (stack[0][depth - 1].e < ts || (stack[0][depth - 1].e == ts && end > ts)))
            frame_close(t, &stack[0][--depth]);
        size_t p = depth;
        for (size_t w = 0; w < MAX_WALK && p > 0; w++, p--)
            if (stack[0][p - 1].e >= end) break;
        uint32_t up = DFN_NOID;
        if (p > 0 && stack[0][p - 1].e >= end) {
            frame *f = &stack[0][p - 1];
            t->parent[i] = f->ev;
            up = t->path[f->ev];
            uint64_t from = ts > f->cov_end ? ts : f->cov_end;
            if (end > from) f->covered += end - from;
            if (end > f->cov_end) f->cov_end = end;
        }
        t->path[i] = path_node(t, up, s->kinds[dfn_store_kind(s, i)].func);
        dfn_grow((void **)stack, cap, depth + 1, sizeof **stack);
        stack[0][depth++] = (frame){ i, ts, end, 0, 0 };
    }
    while (depth) frame_close(t, &stack[0][--depth]);
}

/* Events of one lane in store order are in start order; at equal starts
 * the longer must come first so that it becomes the parent. */
static void order_ties(const dfn_store *s, uint32_t *ev, size_t n)
{
    for (size_t k = 1; k < n; k++) {
        uint32_t x = ev[k];
        uint64_t ts = dfn_store_ts(s, x), dur = dfn_store_dur(s, x);
        size_t j = k;
        while (j > 0 && dfn_store_ts(s, ev[j - 1]) == ts && dfn_store_dur(s, ev[j - 1]) < dur) {
            ev[j] = ev[j - 1];
            j--;
        }
        ev[j] = x;
    }
}

static int esc_cmp(const void *a, const void *b)
{
    const dfn_esc *x = a, *y = b;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

dfn_calltree *dfn_calltree_build(const dfn_store *s)
{
    dfn_calltree *t = dfn_xcalloc(1, sizeof *t);
    t->n = s->n;
    t->parent = dfn_xmalloc((s->n ? s->n : 1) * sizeof *t->parent);
    memset(t->parent, 0xff, (s->n ? s->n : 1) * sizeof *t->parent);
    t->self.v = dfn_xcalloc(s->n ? s->n : 1, sizeof *t->self.v);
    t->path = dfn_xmalloc((s->n ? s->n : 1) * sizeof *t->path);
    t->nodes = dfn_strtab_new();
    /* events grouped by lane, in store order within each (counting sort) */
    size_t nl = s->nlanes ? s->nlanes : 1;
    size_t *start = dfn_xcalloc(nl + 1, sizeof *start);
    for (size_t i = 0; i < s->n; i++) start[dfn_store_lane(s, i) + 1]++;
    for (size_t l = 0; l < nl; l++) start[l + 1] += start[l];
    uint32_t *ev = dfn_xmalloc((s->n ? s->n : 1) * sizeof *ev);
    size_t *fill = dfn_xmalloc(nl * sizeof *fill);
    memcpy(fill, start, nl * sizeof *fill);
    for (size_t i = 0; i < s->n; i++) ev[fill[dfn_store_lane(s, i)]++] = (uint32_t)i;
    frame *stack = NULL;
    size_t cap = 0;
    for (size_t l = 0; l < nl; l++) {
        order_ties(s, ev + start[l], start[l + 1] - start[l]);
        lane_walk(t, s, ev + start[l], start[l + 1] - start[l], &stack, &cap);
    }
    /* lanes close their frames out of index order: the escapes of long
     * self times must be sorted for lookup */
    if (t->self.nesc > 1) qsort(t->self.esc, t->self.nesc, sizeof *t->self.esc, esc_cmp);
    free(stack);
    free(fill);
    free(ev);
    free(start);
    return t;
}

uint32_t dfn_calltree_parent(const dfn_calltree *t, size_t i) { return i < t->n ? t->parent[i] : DFN_NOID; }

uint64_t dfn_calltree_self(const dfn_calltree *t, size_t i) { return i < t->n ? dfn_col32_get(&t->self, i) : 0; }
const dfn_col32 *dfn_calltree_selfs(const dfn_calltree *t, size_t *n) { *n = t->n; return &t->self; }

size_t dfn_calltree_children(const dfn_calltree *t, const dfn_store *s, size_t i, uint32_t *out, size_t max)
{
    if (i >= t->n) return 0;
    /* children start inside the parent: scan forward from it */
    uint64_t end = dfn_store_ts(s, i) + dfn_store_dur(s, i);
    size_t n = 0;
    /* events at the parent's start may precede it in store order */
    size_t from = i;
    uint64_t ts = dfn_store_ts(s, i);
    while (from > 0 && dfn_store_ts(s, from - 1) == ts) from--;
    for (size_t j = from; j < s->n && dfn_store_ts(s, j) <= end; j++) {
        if (t->parent[j] != i) continue;
        if (n < max) out[n] = (uint32_t)j;
        n++;
    }
    return n;
}

uint32_t dfn_calltree_path(const dfn_calltree *t, size_t i) { return i < t->n ? t->path[i] : DFN_NOID; }
const uint32_t *dfn_calltree_paths(const dfn_calltree *t, size_t *n) { *n = t->n; return t->path; }
size_t dfn_calltree_npaths(const dfn_calltree *t) { return t->nnodes; }
uint32_t dfn_calltree_path_parent(const dfn_calltree *t, uint32_t node) { return node < t->nnodes ? t->node_parent[node] : DFN_NOID; }
uint32_t dfn_calltree_path_func(const dfn_calltree *t, uint32_t node) { return node < t->nnodes ? t->node_func[node] : DFN_NOID; }
unsigned dfn_calltree_path_depth(const dfn_calltree *t, uint32_t node) { return node < t->nnodes ? t->node_depth[node] : 0; }

/* The nodes from the top down to node; returns how many (malloc'd). */
static size_t path_chain(const dfn_calltree *t, uint32_t node, uint32_t **out)
{
    size_t n = 0;
    for (uint32_t x = node; x < t->nnodes; x = t->node_parent[x]) n++;
    uint32_t *c = dfn_xmalloc((n ? n : 1) * sizeof *c);
    size_t k = n;
    for (uint32_t x = node; x < t->nnodes; x = t->node_parent[x]) c[--k] = x;
    *out = c;
    return n;
}

size_t dfn_calltree_path_len(const dfn_calltree *t, const dfn_store *s, uint32_t node)
{
    size_t len = 0;
    for (uint32_t x = node; x < t->nnodes; x = t->node_parent[x]) {
        const char *f = dfn_store_str(s, t->node_func[x]);
        size_t fl = dfn_strtab_len(s->strs, t->node_func[x]);
        len += fl + (x != node);
        for (size_t i = 0; i < fl; i++) len += f[i] == ';' || f[i] == '\\';   /* escaped */
        if (t->node_parent[x] == DFN_NOID) break;
    }
    return len;
}

size_t dfn_calltree_path_text(const dfn_calltree *t, const dfn_store *s, uint32_t node, char *buf, size_t cap)
{
    if (!cap) return 0;
    buf[0] = 0;
    if (node >= t->nnodes) return 0;
    uint32_t *chain;
    size_t n = path_chain(t, node, &chain), len = 0;
    /* ';' between functions; one in a name is written \;, a \ as \\ */
    for (size_t j = 0; j < n && len + 1 < cap; j++) {
        if (j) buf[len++] = ';';
        const char *f = dfn_store_str(s, t->node_func[chain[j]]);
        size_t fl = dfn_strtab_len(s->strs, t->node_func[chain[j]]);
        for (size_t i = 0; i < fl && len + 1 < cap; i++) {
            if (f[i] == ';' || f[i] == '\\') {
                if (len + 2 >= cap) break;
                buf[len++] = '\\';
            }
            buf[len++] = f[i];
        }
    }
    buf[len] = 0;
    free(chain);
    return len;
}

int dfn_calltree_path_cmp(const dfn_calltree *ta, const dfn_store *sa, uint32_t x, const dfn_calltree *tb,
                          const dfn_store *sb, uint32_t y)
{
    uint32_t *cx, *cy;
    size_t nx = path_chain(ta, x, &cx), ny = path_chain(tb, y, &cy);
    int c = 0;
    for (size_t j = 0; j < nx && j < ny && !c; j++) {
        if (ta == tb && cx[j] == cy[j]) continue;   /* a shared caller */
        uint32_t fa = ta->node_func[cx[j]], fb = tb->node_func[cy[j]];
        size_t la = dfn_strtab_len(sa->strs, fa), lb = dfn_strtab_len(sb->strs, fb);
        c = dfn_bytes_cmp(dfn_store_str(sa, fa), la, dfn_store_str(sb, fb), lb);
    }
    if (!c && nx != ny) c = nx < ny ? -1 : 1;   /* a caller before its callees */
    free(cx);
    free(cy);
    return c;
}

/* The next unit of a path's text at *at: a byte of a function's name
 * (its escape undone), ';' between functions (-1), or the end (-2). */
static int text_unit(const char *t, size_t len, size_t *at)
{
    if (*at >= len) return -2;
    char c = t[(*at)++];
    if (c == ';') return -1;
    if (c == '\\' && *at < len) c = t[(*at)++];
    return (unsigned char)c;
}

int dfn_calltree_text_cmp(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = 0, j = 0;
    for (;;) {
        int x = text_unit(a, la, &i), y = text_unit(b, lb, &j);
        if (x >= 0 && y >= 0) {
            if (x != y) return x < y ? -1 : 1;   /* a function's bytes, as memcmp */
            continue;
        }
        if (x >= 0 || y >= 0) return x >= 0 ? 1 : -1;   /* a name before the longer one it begins */
        if (x != y) return x == -2 ? -1 : 1;            /* a caller before its callees */
        if (x == -2) return 0;
    }
}

void dfn_calltree_free(dfn_calltree *t)
{
    if (!t) return;
    free(t->path);
    dfn_strtab_free(t->nodes);
    free(t->node_parent);
    free(t->node_func);
    free(t->node_depth);
    free(t->parent);
    dfn_col32_free(&t->self);
    free(t);
}
