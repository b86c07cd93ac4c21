/* Per-process compute unions: the compute events of each process merged
 * into disjoint intervals in start order, with running sums, so the part
 * of any span covered by compute is two binary searches away. */
#include "dfnav/overlap.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t *s, *e, *cum;    /* intervals; cum[k] = length of intervals before k */
    size_t n, cap;
} ivals;

struct dfn_overlap {
    uint64_t *bits;
    uint32_t *proc_of_lane;
    size_t nprocs;
    ivals *p;
    char *text;
    uint64_t ncompute;        /* events the definition matched */
    uint64_t *iobits;         /* --io: the events that are I/O; NULL: POSIX and STDIO calls */
};

const char *dfn_overlap_default(const dfn_layers *l)
{
    return l && dfn_layers_find(l, "compute", 7) >= 0 ? "layer=compute" : NULL;
}

static void ivals_push(ivals *v, uint64_t s, uint64_t e)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->s = dfn_xreallocarray(v->s, v->cap, sizeof *v->s);
        v->e = dfn_xreallocarray(v->e, v->cap, sizeof *v->e);
    }
    v->s[v->n] = s;
    v->e[v->n] = e;
    v->n++;
}

dfn_overlap *dfn_overlap_build(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *compute,
                               bool by_host, char *err, size_t errlen)
{
    dfn_overlap *o = dfn_xcalloc(1, sizeof *o);
    if (by_host) {
        o->proc_of_lane = dfn_xmalloc((s->nlanes ? s->nlanes : 1) * sizeof *o->proc_of_lane);
        dfn_strtab *hosts = dfn_strtab_new();
        for (size_t i = 0; i < s->nlanes; i++)
            o->proc_of_lane[i] = dfn_strtab_intern(hosts, (const char *)&s->lanes[i].host, 4);
        o->nprocs = dfn_strtab_count(hosts);
        dfn_strtab_free(hosts);
    } else {
        o->nprocs = dfn_store_procs(s, &o->proc_of_lane);
    }
    o->p = dfn_xcalloc(o->nprocs ? o->nprocs : 1, sizeof *o->p);
    o->bits = dfn_xcalloc(s->n / 64 + 1, sizeof *o->bits);
    o->text = compute && compute->n ? dfn_filter_text(compute) : dfn_xstrdup("");
    /* call paths come from the call tree, which is built after (and
     * apart from) the overlap: a path term here would match nothing */
    if (dfn_filter_uses(compute, DFN_KEY_PATH)) {
        snprintf(err, errlen, "path terms need the call tree, which a compute definition does not have");
        dfn_overlap_free(o);
        return NULL;
    }
    if (compute && compute->n) {
        dfn_match *m = dfn_match_compile(s, ls, compute, err, errlen);
        if (!m) { dfn_overlap_free(o); return NULL; }
        size_t lo, hi;
        dfn_match_range(m, &lo, &hi);
        /* events come in start order: each process's open interval grows
         * until a compute event starts after its end */
        uint64_t *cs = dfn_xcalloc(o->nprocs ? o->nprocs : 1, sizeof *cs);
        uint64_t *ce = dfn_xcalloc(o->nprocs ? o->nprocs : 1, sizeof *ce);
        bool *open = dfn_xcalloc(o->nprocs ? o->nprocs : 1, sizeof *open);
        for (size_t i = lo; i < hi; i++) {
            if (!dfn_match_event(m, i)) continue;
            o->bits[i >> 6] |= 1ull << (i & 63);
            o->ncompute++;
            uint64_t ts = dfn_store_ts(s, i), end = ts + dfn_store_dur(s, i);
            if (end == ts) continue;
            uint32_t pr = o->proc_of_lane[dfn_store_lane(s, i)];
            if (!open[pr]) { cs[pr] = ts; ce[pr] = end; open[pr] = true; }
            else if (ts > ce[pr]) { ivals_push(&o->p[pr], cs[pr], ce[pr]); cs[pr] = ts; ce[pr] = end; }
            else if (end > ce[pr]) ce[pr] = end;
        }
        for (size_t pr = 0; pr < o->nprocs; pr++)
            if (open[pr]) ivals_push(&o->p[pr], cs[pr], ce[pr]);
        free(cs); free(ce); free(open);
        dfn_match_free(m);
    }
    for (size_t pr = 0; pr < o->nprocs; pr++) {
        ivals *v = &o->p[pr];
        v->cum = dfn_xmalloc((v->n + 1) * sizeof *v->cum);
        v->cum[0] = 0;
        for (size_t k = 0; k < v->n; k++) v->cum[k + 1] = v->cum[k] + (v->e[k] - v->s[k]);
    }
    return o;
}

const uint64_t *dfn_overlap_bits(const dfn_overlap *o) { return o->bits; }

uint64_t dfn_overlap_ncompute(const dfn_overlap *o) { return o ? o->ncompute : 0; }

bool dfn_overlap_set_io(dfn_overlap *o, const dfn_store *s, const dfn_layerset *ls, const dfn_filter *io, char *err,
                        size_t errlen)
{
    if (dfn_filter_uses(io, DFN_KEY_PATH)) {
        snprintf(err, errlen, "path terms need the call tree, which the I/O definition does not have");
        return false;
    }
    dfn_match *m = dfn_match_compile(s, ls, io, err, errlen);
    if (!m) return false;
    uint64_t *bits = dfn_xcalloc(s->n / 64 + 1, sizeof *bits);
    size_t lo, hi;
    dfn_match_range(m, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        if (dfn_match_event(m, i)) bits[i >> 6] |= 1ull << (i & 63);
    dfn_match_free(m);
    free(o->iobits);
    o->iobits = bits;
    return true;
}

const uint64_t *dfn_overlap_io_bits(const dfn_overlap *o) { return o ? o->iobits : NULL; }

bool dfn_overlap_note(const dfn_overlap *o, bool brief, char *buf, size_t cap)
{
    return o && dfn_overlap_note_of(o->text, o->ncompute, brief, buf, cap);
}

bool dfn_overlap_note_of(const char *text, uint64_t ncompute, bool brief, char *buf, size_t cap)
{
    if (ncompute) return false;
    /* "all I/O exposed" would be a guess: there is nothing to compare with */
    if (brief)
        snprintf(buf, cap, "compute matched no event: compute, exposed are -; --compute EXPR sets it");
    else
        snprintf(buf, cap, "compute (%s) matched no event: compute_s, exposed_s and overlap_pct are left undefined; "
                 "--compute EXPR says what compute is, e.g. --compute 'cat=compute' or 'layer=training'",
                 *text ? text : "no definition");
    return true;
}

const uint32_t *dfn_overlap_procs(const dfn_overlap *o, size_t *nprocs)
{
    *nprocs = o->nprocs;
    return o->proc_of_lane;
}

/* The first interval of v starting at or after x. */
static size_t first_from(const ivals *v, uint64_t x)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->s[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Length of v's union below x. */
static uint64_t ivals_below(const ivals *v, uint64_t x)
{
    size_t k = first_from(v, x);
    if (k == 0) return 0;
    uint64_t below = v->cum[k];
    if (v->e[k - 1] > x) below -= v->e[k - 1] - x;
    return below;
}

void dfn_overlap_gap(const dfn_overlap *o, uint32_t proc, uint64_t x, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = x;
    if (proc >= o->nprocs) { *lo = 0; *hi = UINT64_MAX; return; }
    const ivals *v = &o->p[proc];
    size_t k = first_from(v, x);
    if (k > 0 && v->e[k - 1] > x) return;   /* inside compute */
    *lo = k > 0 ? v->e[k - 1] : 0;
    *hi = k < v->n ? v->s[k] : UINT64_MAX;
}

uint64_t dfn_overlap_covered(const dfn_overlap *o, uint32_t proc, uint64_t a, uint64_t b)
{
    if (proc >= o->nprocs || b <= a) return 0;
    return ivals_below(&o->p[proc], b) - ivals_below(&o->p[proc], a);
}

const char *dfn_overlap_text(const dfn_overlap *o) { return o->text; }

void dfn_overlap_free(dfn_overlap *o)
{
    if (o) free(o->iobits);
    if (!o) return;
    for (size_t pr = 0; pr < o->nprocs; pr++) { free(o->p[pr].s); free(o->p[pr].e); free(o->p[pr].cum); }
    free(o->p);
    free(o->bits);
    free(o->proc_of_lane);
    free(o->text);
    free(o);
}
