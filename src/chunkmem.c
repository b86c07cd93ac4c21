/* Chunk memory (see chunkmem.h): per file, reserved segments of address
 * space that chunks fill end to end, and the runs of freed chunks given
 * back a step at a time. */
#include "chunkmem.h"
#include "dfnav/util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifdef MAP_POPULATE
#define CHUNKMEM_POPULATE MAP_POPULATE
#else
#define CHUNKMEM_POPULATE 0
#endif
#ifdef MAP_NORESERVE
#define CHUNKMEM_NORESERVE MAP_NORESERVE
#else
#define CHUNKMEM_NORESERVE 0
#endif

/* A step gives back at least this much (about two chunks of a 1 MiB
 * block) and at most this much at once. */
#define STEP_MIN ((size_t)256 << 10)
#define STEP_MAX ((size_t)4 << 20)
/* Segments at once, at most: a segment is two mappings (pieces and the
 * reserved rest), and a set of many mid-sized files must not take the
 * process's mappings (vm.max_map_count, 65,530 by default); past this,
 * pieces are mapped alone as before. */
#define SEGMENTS_MAX 1024
/* The least a file reserves at a time. */
#define SEGMENT_MIN ((size_t)256 << 10)

typedef struct { uintptr_t lo, hi; } span;

static size_t clamp_size(uint64_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : (size_t)v;
}

struct dfn_chunkseg {
    dfn_chunkmem *m;
    uintptr_t base, end;      /* reserved; end drops to bump when closed */
    uintptr_t bump;           /* where the next piece goes */
    /* runs of adjoining freed pieces not yet given back, in no order: two
     * merge parts free one file's chunks at two places at once */
    span *runs;
    size_t nruns, runcap;
    size_t live;              /* pieces not yet put */
    bool closed;
    dfn_chunkseg *prev, *next;
};

struct dfn_chunkmem {
    pthread_mutex_t lock;
    dfn_chunkseg **cur;       /* each file's open segment, or NULL */
    size_t *segsize;          /* each file's segment size */
    size_t nsrcs;
    dfn_chunkseg *segs;       /* every segment not yet given back whole */
    size_t step, page;
    size_t pending;           /* bytes of all runs */
    size_t live_bytes;        /* of the pieces out (each a page or more) */
    size_t nsegs;             /* segments not yet given back whole */
    bool released;
    dfn_chunkmem_stats st;
};

/* Ranges to give back once the lock is let go: a call may finish one
 * segment's run and drop another's unused tail. */
typedef struct { span *v; size_t n, cap; } spans;

static void spans_add(spans *o, uintptr_t lo, uintptr_t hi)
{
    if (hi <= lo) return;
    dfn_grow((void **)&o->v, &o->cap, o->n + 1, sizeof *o->v);
    o->v[o->n++] = (span){ lo, hi };
}

static void spans_unmap(spans *o)
{
    for (size_t k = 0; k < o->n; k++) (void)munmap((void *)o->v[k].lo, o->v[k].hi - o->v[k].lo);
    free(o->v);
}

dfn_chunkmem *dfn_chunkmem_new(size_t nsrcs, const uint64_t *bytes)
{
    /* reserved address space counts against ulimit -v like memory does:
     * under a limit the chunks are mapped alone, as the memory check
     * (estimate.c) counts them */
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) return NULL;
    dfn_chunkmem *m = dfn_xcalloc(1, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    m->nsrcs = nsrcs;
    m->cur = dfn_xcalloc(nsrcs ? nsrcs : 1, sizeof *m->cur);
    m->segsize = dfn_xmalloc((nsrcs ? nsrcs : 1) * sizeof *m->segsize);
    for (size_t i = 0; i < nsrcs; i++) {
        /* a plain file's chunks take about an eighth of its bytes, a gzip
         * file's about twice: a quarter, and a further segment when
         * that is not enough */
        m->segsize[i] = clamp_size(bytes && bytes[i] ? bytes[i] / 4 : DFN_CHUNKMEM_SEGMENT, SEGMENT_MIN, DFN_CHUNKMEM_SEGMENT);
    }
    m->page = dfn_page_size();
    m->step = clamp_size(DFN_CHUNKMEM_HOLD / (nsrcs ? nsrcs : 1), STEP_MIN, STEP_MAX);
    return m;
}

static void chunkmem_free(dfn_chunkmem *m)
{
    pthread_mutex_destroy(&m->lock);
    free(m->cur);
    free(m->segsize);
    free(m);
}

/* len rounded up to whole pages, as pieces are mapped. */
static size_t pages_up(const dfn_chunkmem *m, size_t len)
{
    return (len + m->page - 1) & ~(m->page - 1);
}

/* [lo, hi) goes back once the lock is let go, counted. */
static void chunkmem_give(dfn_chunkmem *m, uintptr_t lo, uintptr_t hi, spans *out)
{
    spans_add(out, lo, hi);
    m->st.unmaps++;
    m->st.bytes_freed += hi - lo;
}

/* Gives back run k of g. */
static void seg_give(dfn_chunkmem *m, dfn_chunkseg *g, size_t k, spans *out)
{
    chunkmem_give(m, g->runs[k].lo, g->runs[k].hi, out);
    m->pending -= g->runs[k].hi - g->runs[k].lo;
    g->runs[k] = g->runs[--g->nruns];
}

/* A closed segment whose every piece is freed goes back whole. */
static bool seg_finish(dfn_chunkmem *m, dfn_chunkseg *g, spans *out)
{
    if (!g->closed || g->live) return false;
    while (g->nruns) seg_give(m, g, g->nruns - 1, out);
    if (g->prev) g->prev->next = g->next;
    else m->segs = g->next;
    if (g->next) g->next->prev = g->prev;
    m->nsegs--;
    free(g->runs);
    free(g);
    return true;
}

/* No more pieces go into g: its unused reserved tail goes at once. */
static void seg_close(dfn_chunkmem *m, dfn_chunkseg *g, spans *out)
{
    g->closed = true;
    if (g->end > g->bump) {
        chunkmem_give(m, g->bump, g->end, out);
        g->end = g->bump;
    }
    seg_finish(m, g, out);
}

/* A segment of file src's size, at least len (a multiple of pages). */
static dfn_chunkseg *seg_new(dfn_chunkmem *m, uint32_t src, size_t len)
{
    if (m->nsegs >= SEGMENTS_MAX) return NULL;
    size_t size = pages_up(m, m->segsize[src]);
    if (size < len) size = len;
    void *r = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | CHUNKMEM_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return NULL;
    dfn_chunkseg *g = dfn_xcalloc(1, sizeof *g);
    g->m = m;
    g->base = g->bump = (uintptr_t)r;
    g->end = g->base + size;
    g->next = m->segs;
    if (m->segs) m->segs->prev = g;
    m->segs = g;
    m->nsegs++;
    m->st.segments++;
    return g;
}

void *dfn_chunkmem_get(dfn_chunkmem *m, uint32_t src, size_t len, dfn_chunkseg **seg)
{
    *seg = NULL;
    if (!m || src >= m->nsrcs) return NULL;
    len = pages_up(m, len);
    if (len == 0 || len > DFN_CHUNKMEM_SEGMENT / 4) return NULL;
    spans out = {0};
    pthread_mutex_lock(&m->lock);
    dfn_chunkseg *g = m->cur[src];
    if (g && g->end - g->bump < len) {
        seg_close(m, g, &out);
        g = m->cur[src] = NULL;
    }
    if (!g) g = m->cur[src] = seg_new(m, src, len);
    uintptr_t p = 0;
    if (g) {
        p = g->bump;
        g->bump += len;
        g->live++;
        m->live_bytes += len;
        m->st.pieces++;
    }
    pthread_mutex_unlock(&m->lock);
    spans_unmap(&out);
    if (!g) return NULL;
    /* the range is this piece's alone: no lock while it is populated */
    void *q = mmap((void *)p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | CHUNKMEM_POPULATE, -1, 0);
    if (q == MAP_FAILED) dfn_out_of_memory("mapping", len);
    *seg = g;
    return q;
}

/* Marks [lo, hi) freed: it joins the runs it adjoins. Returns its run. */
static size_t seg_mark(dfn_chunkseg *g, uintptr_t lo, uintptr_t hi)
{
    size_t below = SIZE_MAX, above = SIZE_MAX;
    for (size_t k = 0; k < g->nruns; k++) {
        if (g->runs[k].hi == lo) below = k;
        else if (g->runs[k].lo == hi) above = k;
    }
    if (below != SIZE_MAX && above != SIZE_MAX) {
        g->runs[below].hi = g->runs[above].hi;
        g->runs[above] = g->runs[--g->nruns];
        return below == g->nruns ? above : below;   /* the last run moved into above's place */
    }
    if (below != SIZE_MAX) { g->runs[below].hi = hi; return below; }
    if (above != SIZE_MAX) { g->runs[above].lo = lo; return above; }
    dfn_grow((void **)&g->runs, &g->runcap, g->nruns + 1, sizeof *g->runs);
    g->runs[g->nruns] = (span){ lo, hi };
    return g->nruns++;
}

/* Runs short of a step wait for their neighbours, which a chunk still
 * merging can hold up for long: past the hold, the largest go back. The
 * hold shrinks with the chunks still out (a sixteenth of them), because
 * the load's peak comes at the end of the merge, when the store is whole
 * and few chunks are left: what is held then would add to it. */
static void chunkmem_trim(dfn_chunkmem *m, spans *out)
{
    size_t hold = m->live_bytes / 16 < DFN_CHUNKMEM_HOLD ? m->live_bytes / 16 : DFN_CHUNKMEM_HOLD;
    while (m->pending > hold) {
        dfn_chunkseg *best = NULL;
        size_t bk = 0, blen = 0;
        for (dfn_chunkseg *g = m->segs; g; g = g->next)
            for (size_t k = 0; k < g->nruns; k++)
                if (g->runs[k].hi - g->runs[k].lo > blen) { best = g; bk = k; blen = g->runs[k].hi - g->runs[k].lo; }
        if (!best) return;
        seg_give(m, best, bk, out);
    }
}

void dfn_chunkmem_put(dfn_chunkseg *g, void *p, size_t len)
{
    dfn_chunkmem *m = g->m;
    len = pages_up(m, len);
    spans out = {0};
    pthread_mutex_lock(&m->lock);
    g->live--;
    m->live_bytes -= len;
    m->pending += len;
    size_t k = seg_mark(g, (uintptr_t)p, (uintptr_t)p + len);
    if (!seg_finish(m, g, &out) && g->runs[k].hi - g->runs[k].lo >= m->step) seg_give(m, g, k, &out);
    chunkmem_trim(m, &out);
    bool last = m->released && m->live_bytes == 0;
    pthread_mutex_unlock(&m->lock);
    spans_unmap(&out);
    if (last) chunkmem_free(m);
}

void dfn_chunkmem_close(dfn_chunkmem *m)
{
    if (!m) return;
    spans out = {0};
    pthread_mutex_lock(&m->lock);
    for (size_t s = 0; s < m->nsrcs; s++) {
        if (!m->cur[s]) continue;
        seg_close(m, m->cur[s], &out);
        m->cur[s] = NULL;
    }
    pthread_mutex_unlock(&m->lock);
    spans_unmap(&out);
}

void dfn_chunkmem_release(dfn_chunkmem *m)
{
    if (!m) return;
    dfn_chunkmem_close(m);
    pthread_mutex_lock(&m->lock);
    m->released = true;
    bool last = m->live_bytes == 0;
    pthread_mutex_unlock(&m->lock);
    if (last) chunkmem_free(m);
}

dfn_chunkmem_stats dfn_chunkmem_stats_of(dfn_chunkmem *m)
{
    pthread_mutex_lock(&m->lock);
    dfn_chunkmem_stats st = m->st;
    pthread_mutex_unlock(&m->lock);
    return st;
}
