/* Filter evaluation against a store. String keys become byte tables over
 * the id space they depend on (kind, file, lane), decided once per id; the
 * per-event test is then a handful of array reads. Layers compile to one
 * matcher each and give every event a membership bit mask. */
#include "dfnav/match.h"
#include "dfnav/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    dfn_key key;
    dfn_cmp op;
    double num;
    uint64_t layer_bits;
    uint32_t argkey;          /* DFN_NOID when no event has that argument */
    const char *argpath;      /* a value nested in the argument's object, or NULL */
    bool inherit;             /* arg.NAME: from the enclosing calls when the call has none */
    const dfn_term *t;
    uint8_t bin_ok[DFN_SIZEBIN_COUNT + 1];
    uint8_t *path_ok;         /* path terms: per call path of the tree, decided once it is set */
    size_t npath;
} eterm;                      /* a term tested per event */

struct dfn_match {
    const dfn_store *s;
    const dfn_layerset *ls;
    uint8_t *kind_ok, *file_ok, *lane_ok;
    /* the layer terms decided per mask of ls's index (tabs.mask_ok), and
     * the path terms (npath_terms of et) per node of the tree's paths once
     * it is set (tabs.path_ok): NULL when none; the tables scans test */
    dfn_match_tabs tabs;
    size_t npath_terms;
    eterm *et; size_t net;
    size_t lo, hi;
    bool never;
    /* the window the bounds on the start make, µs from the store's start
     * [win_lo, win_hi): calls running into it count their part in it */
    uint64_t win_lo, win_hi;
    bool windowed, at_point;
    bool needs_layers;        /* a layer term: the event's mask is read */
    const dfn_calltree *tree; /* where arg.NAME terms find enclosing calls, or NULL */
    const uint64_t *only;     /* the events that may pass at all, a bit each, or NULL */
};

struct dfn_layerset {
    const dfn_store *s;
    const dfn_layers *layers;
    dfn_match **m;            /* one per layer */
    dfn_match ***alt;         /* per layer, one per alternative line */
    size_t n;
    /* every event's membership, decided once: an index into masks[] */
    uint64_t *masks; size_t nmasks;
    uint8_t *idx8;            /* when there are at most 256 distinct masks */
    uint32_t *idx32;
};

static bool has_glob(const char *v, size_t len) { return memchr(v, '*', len) || memchr(v, '?', len); }

/* Does text satisfy the term's string comparison (before negation)? */
static bool value_hit(const dfn_term *t, const char *s, size_t len, bool icase)
{
    for (size_t k = 0; k < t->nvalues; k++) {
        const char *v = t->values[k];
        size_t vl = t->value_lens[k];
        bool hit;
        if (t->op == DFN_EQ || t->op == DFN_NE)
            hit = icase ? dfn_ascii_ieq(s, len, v, vl) : (len == vl && memcmp(s, v, len) == 0);
        else if (has_glob(v, vl))
            hit = dfn_glob_match(v, vl, s, len, icase);
        else
            hit = icase ? dfn_ascii_icontains(s, len, v, vl) : (vl == 0 || (len >= vl && memmem(s, len, v, vl)));
        if (hit) return true;
    }
    return false;
}

static bool num_cmp(dfn_cmp op, double a, double b)
{
    switch (op) {
    case DFN_EQ: return a == b;
    case DFN_NE: return a != b;
    case DFN_LT: return a < b;
    case DFN_LE: return a <= b;
    case DFN_GT: return a > b;
    case DFN_GE: return a >= b;
    default: return false;
    }
}

/* The first event whose start (seconds, as the per-event test computes
 * it) makes "start OP num" hold (holds) or fail (!holds): the test is
 * monotone in the start, and events are in start order. */
static size_t time_first(const dfn_store *s, dfn_cmp op, double num, bool holds)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (num_cmp(op, dfn_store_ts(s, mid) / 1e6, num) != holds) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The window edge a bound on the start makes: the least µs whose start
 * makes "start OP num" hold (lower bounds) or fail (upper bounds), by the
 * per-event test itself, so that the window and the events agree. */
static uint64_t time_edge(dfn_cmp op, double num, bool lower)
{
    double x = floor(num * 1e6);
    if (!(x > 0)) x = 0;      /* NaN too */
    if (x >= 0x1p62) return UINT64_MAX;
    uint64_t u = (uint64_t)x;
    while (u > 0 && num_cmp(op, (double)(u - 1) / 1e6, num) == lower) u--;
    while (num_cmp(op, (double)u / 1e6, num) != lower) u++;
    return u;
}

/* A whole term against a text value, negation included. Ordered operators
 * compare numerically when the text is a number. */
bool dfn_term_text(const dfn_term *t, const char *s, size_t len, bool icase)
{
    if (t->op >= DFN_LT) {
        double x;
        return t->has_num && dfn_parse_double(s, len, &x) && num_cmp(t->op, x, t->num);
    }
    bool hit = value_hit(t, s, len, icase);
    return (t->op == DFN_NE || t->op == DFN_NMATCH) ? !hit : hit;
}

bool dfn_term_int(const dfn_term *t, int64_t v)
{
    if (t->op >= DFN_LT) return num_cmp(t->op, (double)v, t->num);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return dfn_term_text(t, buf, (size_t)n, false);
}

bool dfn_term_id(const dfn_store *s, const dfn_term *t, int64_t v)
{
    if (!dfn_id_named(v)) return dfn_term_int(t, v);
    const char *name = dfn_id_name(s, v);   /* (whole, however long) */
    return dfn_term_text(t, name, strlen(name), false);
}

bool dfn_term_num(const dfn_term *t, double v)
{
    if (!t->has_num || t->op == DFN_MATCH || t->op == DFN_NMATCH) return false;
    return num_cmp(t->op, v, t->num);
}

static uint8_t *table_new(size_t n)
{
    uint8_t *t = dfn_xmalloc(n ? n : 1);
    memset(t, 1, n ? n : 1);
    return t;
}

static bool str_term(const dfn_store *s, const dfn_term *t, uint32_t id, bool icase)
{
    return dfn_term_text(t, dfn_store_str(s, id), dfn_strtab_len(s->strs, id), icase);
}

static bool eterm_event(const dfn_match *m, const eterm *e, size_t i, uint64_t layers);

/* The layer terms decided once per mask of the layer set's index (a
 * drill into a layer tested each call's mask against them, a call per
 * call): a table the scans test inline, as they test kinds. Only once
 * the index is made; a layer's own terms, compiled before it, stay
 * tested per event. */
static void match_layers_table(dfn_match *m)
{
    const dfn_layerset *ls = m->ls;
    uint8_t *mask_ok = dfn_xmalloc(ls->nmasks ? ls->nmasks : 1);
    for (size_t mi = 0; mi < ls->nmasks; mi++) {
        bool ok = true;
        for (size_t k = 0; k < m->net && ok; k++)
            if (m->et[k].key == DFN_KEY_LAYER) ok = eterm_event(m, &m->et[k], 0, ls->masks[mi]);
        mask_ok[mi] = ok;
    }
    m->tabs.mask_ok = mask_ok;
    m->tabs.mask_idx8 = ls->idx8;
    m->tabs.mask_idx32 = ls->idx32;
    size_t kept = 0;
    for (size_t k = 0; k < m->net; k++)
        if (m->et[k].key != DFN_KEY_LAYER) m->et[kept++] = m->et[k];
    m->net = kept;
    m->needs_layers = false;
}

dfn_match *dfn_match_compile(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *f, char *err, size_t errlen)
{
    dfn_match *m = dfn_xcalloc(1, sizeof *m);
    m->s = s;
    m->ls = ls;
    m->lo = 0;
    m->hi = s->n;
    m->win_hi = UINT64_MAX;
    for (size_t k = 0; k < f->n; k++) {
        const dfn_term *t = &f->terms[k];
        switch (t->key) {
        case DFN_KEY_CAT: case DFN_KEY_FUNC: case DFN_KEY_CLASS: case DFN_KEY_OP: case DFN_KEY_TYPE:
            if (!m->kind_ok) m->kind_ok = table_new(s->nkinds);
            for (size_t i = 0; i < s->nkinds; i++) {
                const dfn_kind *kd = &s->kinds[i];
                bool ok;
                if (t->key == DFN_KEY_CAT) ok = str_term(s, t, kd->cat, true);
                else if (t->key == DFN_KEY_FUNC) ok = str_term(s, t, kd->func, false);
                else if (t->key == DFN_KEY_TYPE) ok = str_term(s, t, kd->type_name, true);
                else {
                    const char *n = t->key == DFN_KEY_CLASS ? dfn_class_name((dfn_class)kd->cls) : dfn_op_name((dfn_op)kd->op);
                    ok = dfn_term_text(t, n, strlen(n), true);
                }
                m->kind_ok[i] &= ok;
            }
            break;
        case DFN_KEY_FILE: case DFN_KEY_PATTERN: case DFN_KEY_DIR: case DFN_KEY_FS: case DFN_KEY_PART:
            if (!m->file_ok) m->file_ok = table_new(s->nfiles);
            for (size_t i = 0; i < s->nfiles; i++) {
                const dfn_file *fl = &s->files[i];
                uint32_t id = t->key == DFN_KEY_FILE ? fl->path : t->key == DFN_KEY_PATTERN ? fl->pattern :
                              t->key == DFN_KEY_PART ? fl->part :
                              t->key == DFN_KEY_DIR ? fl->dir : fl->fs;
                m->file_ok[i] &= str_term(s, t, id, false);
            }
            break;
        case DFN_KEY_HOST: case DFN_KEY_PID: case DFN_KEY_TID: case DFN_KEY_PROC: case DFN_KEY_RANK:
            if (!m->lane_ok) m->lane_ok = table_new(s->nlanes);
            for (size_t i = 0; i < s->nlanes; i++) {
                const dfn_lane *ln = &s->lanes[i];
                bool ok = t->key == DFN_KEY_HOST ? str_term(s, t, ln->host, false) :
                          t->key == DFN_KEY_RANK ? str_term(s, t, ln->rank, false) :
                          t->key == DFN_KEY_PROC ? str_term(s, t, ln->name, false) :
                          dfn_term_id(s, t, t->key == DFN_KEY_PID ? ln->pid : ln->tid);
                m->lane_ok[i] &= ok;
            }
            break;
        case DFN_KEY_TIME:
            /* events are in start order, so a bound on the start is a range
             * of events, found with the per-event test itself: no test per
             * event is left, but for != */
            if (t->op != DFN_NE) {
                bool lower = t->op == DFN_GE || t->op == DFN_GT;
                if (lower || t->op == DFN_LT || t->op == DFN_LE) {
                    uint64_t e = time_edge(t->op, t->num, lower);
                    if (lower && e > m->win_lo) m->win_lo = e;
                    if (!lower && e < m->win_hi) m->win_hi = e;
                    m->windowed = true;
                }
                m->at_point |= t->op == DFN_EQ;
                if (t->op == DFN_GE || t->op == DFN_GT || t->op == DFN_EQ) {
                    size_t lo = time_first(s, t->op == DFN_EQ ? DFN_GE : t->op, t->num, true);
                    if (lo > m->lo) m->lo = lo;
                }
                if (t->op == DFN_LT || t->op == DFN_LE || t->op == DFN_EQ) {
                    size_t hi = time_first(s, t->op == DFN_EQ ? DFN_LE : t->op, t->num, false);
                    if (hi < m->hi) m->hi = hi;
                }
                break;
            }
            /* fall through */
        case DFN_KEY_DUR: case DFN_KEY_BYTES: case DFN_KEY_SIZEBIN: case DFN_KEY_ARG: case DFN_KEY_LAYER:
        case DFN_KEY_PATH: {
            eterm e = { .key = t->key, .op = t->op, .num = t->num, .t = t, .argkey = DFN_NOID };
            if (t->key == DFN_KEY_ARG) dfn_arg_resolve(s, t->arg, &e.argkey, &e.argpath), e.inherit = !t->own;
            if (t->key == DFN_KEY_SIZEBIN) {
                for (int b = 0; b <= DFN_SIZEBIN_COUNT; b++) {
                    const char *n = b < DFN_SIZEBIN_COUNT ? dfn_sizebin_name(b) : "-";
                    e.bin_ok[b] = dfn_term_text(t, n, strlen(n), true);
                }
            }
            if (t->key == DFN_KEY_LAYER) {
                if (!ls) { snprintf(err, errlen, "layer terms need layers"); dfn_match_free(m); return NULL; }
                const dfn_layers *L = ls->layers;
                for (size_t k2 = 0; k2 < t->nvalues; k2++) {
                    bool found = false;
                    for (size_t j = 0; j <= L->n; j++) {
                        const char *n = dfn_layers_name(L, j);
                        bool hit = t->op == DFN_EQ || t->op == DFN_NE
                                       ? strlen(n) == t->value_lens[k2] && memcmp(n, t->values[k2], t->value_lens[k2]) == 0
                                       : dfn_glob_match(t->values[k2], t->value_lens[k2], n, strlen(n), false) ||
                                         (!has_glob(t->values[k2], t->value_lens[k2]) && strstr(n, t->values[k2]));
                        if (hit) { e.layer_bits |= 1ull << j; found = true; }
                    }
                    if (!found && (t->op == DFN_EQ || t->op == DFN_NE)) {
                        snprintf(err, errlen, "unknown layer '%s' (layers from %s: see 'dfnav report --by layer')",
                                 t->values[k2], L->source ? L->source : "?");
                        dfn_match_free(m);
                        return NULL;
                    }
                }
            }
            m->et = dfn_xreallocarray(m->et, m->net + 1, sizeof *m->et);
            m->et[m->net++] = e;
            break;
        }
        case DFN_KEY_COUNTER:
            snprintf(err, errlen, "counter terms select counter samples: use them with --counters");
            dfn_match_free(m);
            return NULL;
        default:
            break;
        }
    }
    if (m->lo >= m->hi) m->never = true;
    for (size_t k = 0; k < m->net; k++) if (m->et[k].key == DFN_KEY_LAYER) m->needs_layers = true;
    if (m->needs_layers && ls->masks) match_layers_table(m);
    return m;
}

static bool eterm_event(const dfn_match *m, const eterm *e, size_t i, uint64_t layers)
{
    const dfn_store *s = m->s;
    switch (e->key) {
    case DFN_KEY_TIME: return num_cmp(e->op, dfn_store_ts(s, i) / 1e6, e->num);
    /* an aggregated record's calls are each taken at their mean, as the
     * size dimension and the percentiles take them: dur>1ms selects slow
     * calls, not a thousand fast ones that add up to 1 ms */
    case DFN_KEY_DUR: return num_cmp(e->op, dfn_store_mean(dfn_store_dur(s, i), dfn_store_calls(s, i)), e->num);
    case DFN_KEY_BYTES: return num_cmp(e->op, dfn_store_mean(dfn_store_bytes(s, i), dfn_store_calls(s, i)), e->num);
    case DFN_KEY_SIZEBIN: {
        uint64_t b = dfn_store_bytes(s, i);
        return e->bin_ok[b ? dfn_sizebin_mean(b, dfn_store_calls(s, i)) : DFN_SIZEBIN_COUNT];
    }
    case DFN_KEY_LAYER: {
        bool hit = (layers & e->layer_bits) != 0;
        return (e->op == DFN_NE || e->op == DFN_NMATCH) ? !hit : hit;
    }
    case DFN_KEY_PATH: {
        /* decided per path when the tree was set; none: no path holds */
        uint32_t node = m->tree ? dfn_calltree_path(m->tree, i) : DFN_NOID;
        return node < e->npath && e->path_ok[node];
    }
    case DFN_KEY_ARG: {
        dfn_arg a;
        /* a missing argument compares as empty text, as it groups */
        if (e->argkey == DFN_NOID || !dfn_arg_inherited(s, e->inherit ? m->tree : NULL, i, e->argkey, &a))
            return dfn_term_text(e->t, "", 0, false);
        if (e->argpath) {
            const char *v;
            size_t vl;
            bool in = a.type == DFN_ARG_RAW && dfn_arg_nested_text(s, a.str, e->argpath, &v, &vl);
            return in ? dfn_term_text(e->t, v, vl, false) : dfn_term_text(e->t, "", 0, false);
        }
        char buf[64];
        if (a.type == DFN_ARG_STR || a.type == DFN_ARG_RAW)
            return dfn_term_text(e->t, dfn_store_str(s, a.str), dfn_strtab_len(s->strs, a.str), false);
        size_t n = dfn_arg_text(s, &a, buf, sizeof buf);
        return dfn_term_text(e->t, buf, n, false);
    }
    default: return true;
    }
}

static bool match_terms(const dfn_match *m, size_t i, uint64_t layers)
{
    const dfn_store *s = m->s;
    if (m->only && !(m->only[i >> 6] >> (i & 63) & 1)) return false;
    if (m->kind_ok && !m->kind_ok[dfn_store_kind(s, i)]) return false;
    if (m->file_ok && !m->file_ok[dfn_store_file(s, i)]) return false;
    if (m->lane_ok && !m->lane_ok[dfn_store_lane(s, i)]) return false;
    const dfn_match_tabs *t = &m->tabs;
    if (t->mask_ok && !dfn_match_tabs_mask(t, i)) return false;
    if (t->path_ok && !dfn_match_tabs_path(t, i)) return false;
    for (size_t k = 0; k < m->net; k++)
        if ((!t->path_ok || m->et[k].key != DFN_KEY_PATH) && !eterm_event(m, &m->et[k], i, layers)) return false;
    return true;
}

static bool match_with_layers(const dfn_match *m, size_t i, uint64_t layers)
{
    if (m->never || i < m->lo || i >= m->hi) return false;
    return match_terms(m, i, layers);
}

bool dfn_match_event(const dfn_match *m, size_t i)
{
    uint64_t layers = m->ls && m->needs_layers ? dfn_layerset_mask(m->ls, i) : 0;
    return match_with_layers(m, i, layers);
}

bool dfn_match_event_anytime(const dfn_match *m, size_t i)
{
    uint64_t layers = m->ls && m->needs_layers ? dfn_layerset_mask(m->ls, i) : 0;
    return i < m->s->n && match_terms(m, i, layers);
}

/* Appends node's function to the path text in *buf (after a ';' unless
 * at the top), escaped as dfn_calltree_path_text writes it. */
static void path_append(const dfn_store *s, const dfn_calltree *t, uint32_t node, char **buf, size_t *len, size_t *cap)
{
    uint32_t f = dfn_calltree_path_func(t, node);
    const char *name = dfn_store_str(s, f);
    size_t fl = dfn_strtab_len(s->strs, f);
    dfn_grow((void **)buf, cap, *len + 2 * fl + 2, 1);
    if (dfn_calltree_path_parent(t, node) != DFN_NOID) (*buf)[(*len)++] = ';';
    for (size_t i = 0; i < fl; i++) {
        if (name[i] == ';' || name[i] == '\\') (*buf)[(*len)++] = '\\';
        (*buf)[(*len)++] = name[i];
    }
}

/* Each path of the tree judged once by its text: depth first, a path's
 * text is its caller's with one function more, so no text is built from
 * the top again. */
static void path_terms_judge(dfn_match *m, const dfn_calltree *t, eterm **pe, size_t npe)
{
    size_t np = dfn_calltree_npaths(t);
    uint32_t *nkids = dfn_xcalloc(np + 1, sizeof *nkids);
    for (uint32_t x = 0; x < np; x++) {
        uint32_t p = dfn_calltree_path_parent(t, x);
        nkids[p < np ? p : np]++;
    }
    size_t *first = dfn_xcalloc(np + 2, sizeof *first);
    for (size_t k = 0; k <= np; k++) first[k + 1] = first[k] + nkids[k];
    uint32_t *kids = dfn_xmalloc((np ? np : 1) * sizeof *kids);
    size_t *fill = dfn_xmalloc((np + 1) * sizeof *fill);
    memcpy(fill, first, (np + 1) * sizeof *fill);
    for (uint32_t x = 0; x < np; x++) {
        uint32_t p = dfn_calltree_path_parent(t, x);
        kids[fill[p < np ? p : np]++] = x;
    }
    /* a stack of (node, the text's length before it) */
    uint32_t *stack = dfn_xmalloc((np ? np : 1) * sizeof *stack);
    size_t *mark = dfn_xmalloc((np ? np : 1) * sizeof *mark);
    size_t sp = 0, len = 0, cap = 0;
    char *buf = NULL;
    for (size_t k = first[np]; k < first[np + 1]; k++) { stack[sp] = kids[k]; mark[sp++] = 0; }
    while (sp) {
        uint32_t x = stack[--sp];
        len = mark[sp];
        path_append(m->s, t, x, &buf, &len, &cap);
        for (size_t j = 0; j < npe; j++) pe[j]->path_ok[x] = dfn_term_text(pe[j]->t, buf, len, false);
        for (size_t k = first[x]; k < first[x + 1]; k++) { stack[sp] = kids[k]; mark[sp++] = len; }
    }
    free(buf); free(stack); free(mark); free(kids); free(fill); free(first); free(nkids);
}

void dfn_match_set_tree(dfn_match *m, const dfn_calltree *tree)
{
    m->tree = tree;
    size_t np = tree ? dfn_calltree_npaths(tree) : 0, npe = 0;
    eterm **pe = dfn_xmalloc((m->net ? m->net : 1) * sizeof *pe);
    for (size_t k = 0; k < m->net; k++) {
        eterm *e = &m->et[k];
        if (e->key != DFN_KEY_PATH) continue;
        free(e->path_ok);
        e->path_ok = dfn_xcalloc(np ? np : 1, 1);
        e->npath = np;
        pe[npe++] = e;
    }
    if (npe && np) path_terms_judge(m, tree, pe, npe);
    /* all of them in one table, which the scans test inline as they test
     * kinds (the calls under a path, listed, called this for each call) */
    free((uint8_t *)m->tabs.path_ok);
    m->tabs.path_ok = NULL;
    m->npath_terms = 0;
    if (npe && tree) {
        uint8_t *all = dfn_xmalloc(np ? np : 1);
        for (size_t x = 0; x < np; x++) {
            bool ok = true;
            for (size_t j = 0; j < npe && ok; j++) ok = pe[j]->path_ok[x];
            all[x] = ok;
        }
        m->tabs.path_ok = all;
        m->tabs.npath = np;
        m->tabs.paths = dfn_calltree_paths(tree, &m->tabs.npaths);
        m->npath_terms = npe;
    }
    free(pe);
}

void dfn_match_set_only(dfn_match *m, const uint64_t *only) { m->only = only; }

bool dfn_arg_inherited(const dfn_store *s, const dfn_calltree *tree, size_t i, uint32_t key, dfn_arg *out)
{
    if (dfn_store_arg(s, i, key, out)) return true;
    for (uint32_t j = tree ? dfn_calltree_parent(tree, i) : DFN_NOID; j != DFN_NOID; j = dfn_calltree_parent(tree, j))
        if (dfn_store_arg(s, j, key, out)) return true;
    return false;
}

bool dfn_match_window(const dfn_match *m, uint64_t *lo, uint64_t *hi)
{
    *lo = m->win_lo;
    *hi = m->win_hi < m->win_lo ? m->win_lo : m->win_hi;
    return m->windowed && !m->at_point;
}

void dfn_match_tables(const dfn_match *m, dfn_match_tabs *t)
{
    *t = m->tabs;
    t->kind_ok = m->kind_ok;
    t->file_ok = m->file_ok;
    t->lane_ok = m->lane_ok;
    t->per_event = m->net > (t->path_ok ? m->npath_terms : 0) || m->never || m->only;
}

void dfn_match_range(const dfn_match *m, size_t *lo, size_t *hi)
{
    *lo = m->never ? 0 : m->lo;
    *hi = m->never ? 0 : m->hi;
}

void dfn_match_free(dfn_match *m)
{
    if (!m) return;
    free(m->kind_ok);
    free(m->file_ok);
    free(m->lane_ok);
    free((uint8_t *)m->tabs.mask_ok);
    free((uint8_t *)m->tabs.path_ok);
    for (size_t k = 0; k < m->net; k++) free(m->et[k].path_ok);
    free(m->et);
    free(m);
}

/* ---- layers ---- */

static void layerset_index(dfn_layerset *ls, int threads);

dfn_layerset *dfn_layerset_compile(const dfn_store *s, const dfn_layers *l, int threads, char *err, size_t errlen)
{
    dfn_layerset *ls = dfn_xcalloc(1, sizeof *ls);
    ls->s = s;
    ls->layers = l;
    ls->n = l->n;
    ls->m = dfn_xcalloc(l->n ? l->n : 1, sizeof *ls->m);
    ls->alt = dfn_xcalloc(l->n ? l->n : 1, sizeof *ls->alt);
    for (size_t k = 0; k < l->n; k++) {
        char e2[512];
        const dfn_layer_def *d = &l->defs[k];
        bool ok = !dfn_filter_uses(&d->filter, DFN_KEY_PATH);
        for (size_t a = 0; ok && a < d->nalts; a++) ok = !dfn_filter_uses(&d->alts[a], DFN_KEY_PATH);
        /* layers index every event before any call tree exists */
        if (!ok) snprintf(e2, sizeof e2, "path terms need the call tree, which layers do not have");
        ok = ok && (ls->m[k] = dfn_match_compile(s, ls, &d->filter, e2, sizeof e2)) != NULL;
        if (d->nalts) ls->alt[k] = dfn_xcalloc(d->nalts, sizeof *ls->alt[k]);
        for (size_t a = 0; ok && a < d->nalts; a++)
            ok = (ls->alt[k][a] = dfn_match_compile(s, ls, &d->alts[a], e2, sizeof e2)) != NULL;
        if (!ok) {
            snprintf(err, errlen, "layer %s: %s", d->name, e2);
            dfn_layerset_free(ls);
            return NULL;
        }
    }
    layerset_index(ls, threads);
    return ls;
}

static uint64_t layerset_eval(const dfn_layerset *ls, size_t i)
{
    uint64_t mask = 0;
    const dfn_layers *l = ls->layers;
    for (size_t k = 0; k < ls->n; k++) {
        int p = l->defs[k].parent;
        if (p >= 0 && !(mask & (1ull << p))) continue;
        /* a layer's own "layer=" terms see only the layers defined above it */
        bool in = match_with_layers(ls->m[k], i, mask);
        for (size_t a = 0; !in && a < l->defs[k].nalts; a++) in = match_with_layers(ls->alt[k][a], i, mask);
        if (in) mask |= 1ull << k;
    }
    return mask ? mask : 1ull << ls->n;
}

uint64_t dfn_layerset_mask(const dfn_layerset *ls, size_t i)
{
    return ls->masks[ls->idx8 ? ls->idx8[i] : ls->idx32[i]];
}

/* Layers that test only kinds, files and lanes give the same mask for the
 * same (kind, file, lane): those are evaluated once per triple. A time
 * term is a range of events, not a per-event term, and a layer that has
 * one gives one triple two masks (one that never matches gives none). */
static bool layerset_table_only(const dfn_layerset *ls)
{
    for (size_t k = 0; k < ls->n; k++) {
        for (size_t a = 0; a <= ls->layers->defs[k].nalts; a++) {
            const dfn_match *m = a ? ls->alt[k][a - 1] : ls->m[k];
            if (!m->never && (m->lo != 0 || m->hi != ls->s->n)) return false;
            for (size_t t = 0; t < m->net; t++)
                if (m->et[t].key != DFN_KEY_LAYER) return false;
        }
    }
    return true;
}

typedef struct { uint32_t kind, file, lane, idx; } triple_slot;

/* Whether some layer tests the lane (host, process, thread): else an
 * event's mask depends on its kind and file alone. */
static bool layerset_uses_lanes(const dfn_layerset *ls)
{
    for (size_t k = 0; k < ls->n; k++)
        for (size_t a = 0; a <= ls->layers->defs[k].nalts; a++) {
            const dfn_match *m = a ? ls->alt[k][a - 1] : ls->m[k];
            if (m->lane_ok) return true;
        }
    return false;
}

/* (kind, file) pairs a dense table of masks may index: 4 M of them, 16 MB. */
#define PAIR_TABLE_MAX ((size_t)1 << 22)

/* Runs once per event: a multiply, not a general byte hash. */
static inline size_t triple_hash(const uint32_t k[3])
{
    uint64_t h = ((uint64_t)k[0] * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)k[1] * 0xc2b2ae3d27d4eb4fULL) ^
                 ((uint64_t)k[2] * 0x165667b19e3779f9ULL);
    return (size_t)(h ^ (h >> 29));
}

/* One range of events: each event's mask as an index into the part's
 * own list of masks, in order of first appearance; a byte each (idx8)
 * until the part meets a 257th mask (over), else 32 bits (idx32). */
typedef struct {
    const dfn_layerset *ls;
    size_t from, to;
    uint8_t *idx8;
    uint32_t *idx32;
    bool over;
    uint64_t *masks;
    size_t nmasks, cap;
} layer_part;

static inline void layer_put(layer_part *lp, size_t i, uint32_t m)
{
    if (lp->idx8) lp->idx8[i] = (uint8_t)m;
    else lp->idx32[i] = m;
}

static void *layerset_index_part(void *arg)
{
    layer_part *lp = arg;
    const dfn_layerset *ls = lp->ls;
    const dfn_store *s = ls->s;
    size_t tcap = 1024, tn = 0;
    lp->cap = 256;
    lp->masks = dfn_xmalloc(lp->cap * sizeof *lp->masks);
    triple_slot *tab = dfn_xcalloc(tcap, sizeof *tab);   /* idx 0 = empty */
    bool memo = layerset_table_only(ls);
    /* masks by (kind, file) in a dense table when lanes do not matter: an
     * index per event, where the triples take a hash probe */
    uint32_t *pairs = memo && !layerset_uses_lanes(ls) && s->nkinds && s->nfiles <= PAIR_TABLE_MAX / s->nkinds
                      ? dfn_xcalloc(s->nkinds * s->nfiles, sizeof *pairs) : NULL;
    uint32_t last[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX }, last_m = 0;
    for (size_t i = lp->from; i < lp->to; i++) {
        uint32_t kf[3] = { dfn_store_kind(s, i), dfn_store_file(s, i), dfn_store_lane(s, i) };
        size_t j = 0, pj = 0;
        if (pairs) {
            pj = (size_t)kf[0] * s->nfiles + kf[1];
            if (pairs[pj]) { layer_put(lp, i, pairs[pj] - 1); continue; }
        } else if (memo) {
            /* runs of one call on one file are common: the last triple first */
            if (kf[0] == last[0] && kf[1] == last[1] && kf[2] == last[2]) { layer_put(lp, i, last_m); continue; }
            j = triple_hash(kf) & (tcap - 1);
            while (tab[j].idx && (tab[j].kind != kf[0] || tab[j].file != kf[1] || tab[j].lane != kf[2]))
                j = (j + 1) & (tcap - 1);
            if (tab[j].idx) {
                layer_put(lp, i, last_m = tab[j].idx - 1);
                memcpy(last, kf, sizeof last);
                continue;
            }
        }
        uint64_t mask = layerset_eval(ls, i);
        size_t m = 0;
        while (m < lp->nmasks && lp->masks[m] != mask) m++;
        if (m == lp->nmasks) {
            if (lp->idx8 && m == 256) { lp->over = true; break; }   /* the index starts again, wide */
            dfn_grow((void **)&lp->masks, &lp->cap, lp->nmasks + 1, sizeof *lp->masks);
            lp->masks[lp->nmasks++] = mask;
        }
        layer_put(lp, i, (uint32_t)m);
        if (pairs) {
            pairs[pj] = (uint32_t)m + 1;
        } else if (memo) {
            tab[j] = (triple_slot){ kf[0], kf[1], kf[2], (uint32_t)m + 1 };
            if (++tn * 2 > tcap) {
                size_t ncap = tcap * 2;
                triple_slot *nt = dfn_xcalloc(ncap, sizeof *nt);
                for (size_t k = 0; k < tcap; k++) {
                    if (!tab[k].idx) continue;
                    uint32_t key[3] = { tab[k].kind, tab[k].file, tab[k].lane };
                    size_t h = triple_hash(key) & (ncap - 1);
                    while (nt[h].idx) h = (h + 1) & (ncap - 1);
                    nt[h] = tab[k];
                }
                free(tab);
                tab = nt;
                tcap = ncap;
            }
        }
    }
    free(tab);
    free(pairs);
    return NULL;
}

/* The parts' masks join in part order, so each mask's index is where it
 * first appears, as one pass would give; false when the byte index would
 * need a 257th mask (the index is then made again in 32 bits). */
static bool layerset_join(dfn_layerset *ls, layer_part *parts, size_t nparts)
{
    size_t cap = 256;
    ls->masks = dfn_xmalloc(cap * sizeof *ls->masks);
    ls->nmasks = 0;
    bool fits = true;
    for (size_t t = 0; t < nparts; t++) fits &= !parts[t].over;
    for (size_t t = 0; t < nparts && fits; t++) {
        layer_part *lp = &parts[t];
        uint32_t *map = dfn_xmalloc((lp->nmasks ? lp->nmasks : 1) * sizeof *map);
        bool same = true;
        for (size_t m = 0; m < lp->nmasks; m++) {
            size_t g = 0;
            while (g < ls->nmasks && ls->masks[g] != lp->masks[m]) g++;
            if (g == ls->nmasks) {
                dfn_grow((void **)&ls->masks, &cap, ls->nmasks + 1, sizeof *ls->masks);
                ls->masks[ls->nmasks++] = lp->masks[m];
            }
            map[m] = (uint32_t)g;
            same &= g == m;
        }
        fits = !lp->idx8 || ls->nmasks <= 256;
        if (!same && fits) {
            if (lp->idx8) for (size_t i = lp->from; i < lp->to; i++) lp->idx8[i] = (uint8_t)map[lp->idx8[i]];
            else for (size_t i = lp->from; i < lp->to; i++) lp->idx32[i] = map[lp->idx32[i]];
        }
        free(map);
    }
    for (size_t t = 0; t < nparts; t++) {
        free(parts[t].masks);
        parts[t].masks = NULL;
        parts[t].nmasks = parts[t].cap = 0;
        parts[t].over = false;
    }
    if (!fits) { free(ls->masks); ls->masks = NULL; ls->nmasks = 0; }
    return fits;
}

/* The events split in parts, one per thread, each event's mask index
 * written straight into a byte per event: a 32-bit index first, narrowed
 * after, took 4 bytes an event more at the load's peak (and on this VM
 * the page faults of writing them). More than 256 distinct masks (rare:
 * it takes many layers) make the index again in 32 bits. */
static void layerset_index(dfn_layerset *ls, int threads)
{
    const dfn_store *s = ls->s;
    size_t nparts = (size_t)(threads > 0 ? threads : dfn_ncpus());
    if (nparts > s->n >> 16) nparts = s->n >> 16 ? s->n >> 16 : 1;
    layer_part *parts = dfn_xcalloc(nparts, sizeof *parts);
    ls->idx8 = dfn_xmalloc(s->n ? s->n : 1);
    for (size_t t = 0; t < nparts; t++)
        parts[t] = (layer_part){ .ls = ls, .from = s->n * t / nparts, .to = s->n * (t + 1) / nparts, .idx8 = ls->idx8 };
    dfn_parallel_each(parts, nparts, sizeof *parts, layerset_index_part);
    if (!layerset_join(ls, parts, nparts)) {
        free(ls->idx8);
        ls->idx8 = NULL;
        ls->idx32 = dfn_xmalloc((s->n ? s->n : 1) * sizeof *ls->idx32);
        for (size_t t = 0; t < nparts; t++) parts[t].idx8 = NULL, parts[t].idx32 = ls->idx32;
        dfn_parallel_each(parts, nparts, sizeof *parts, layerset_index_part);
        layerset_join(ls, parts, nparts);
    }
    free(parts);
}

const uint64_t *dfn_layerset_masks(const dfn_layerset *ls, size_t *n, const uint8_t **idx8, const uint32_t **idx32)
{
    *n = ls->nmasks;
    *idx8 = ls->idx8;
    *idx32 = ls->idx32;
    return ls->masks;
}
const dfn_layers *dfn_layerset_layers(const dfn_layerset *ls) { return ls->layers; }

void dfn_layerset_free(dfn_layerset *ls)
{
    if (!ls) return;
    for (size_t k = 0; k < ls->n; k++) {
        dfn_match_free(ls->m[k]);
        for (size_t a = 0; ls->alt[k] && a < ls->layers->defs[k].nalts; a++) dfn_match_free(ls->alt[k][a]);
        free(ls->alt[k]);
    }
    free(ls->m);
    free(ls->alt);
    free(ls->masks);
    free(ls->idx8);
    free(ls->idx32);
    free(ls);
}
