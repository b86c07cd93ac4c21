/* Chunks: a parsed block sorted by start time and packed into the store's
 * compact column form, so that the memory held between parsing and the
 * final merge is already close to the store's own. */
#include "load.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef MAP_POPULATE
#define CHUNK_POPULATE MAP_POPULATE
#else
#define CHUNK_POPULATE 0
#endif

/* Chunks under this take the heap, not a mapping of their own. */
#define CHUNK_HEAP_MAX ((size_t)64 << 10)

#define RADIX_BITS 11

/* Orders a by start time, ties in line order, and returns where the
 * result is (a or tmp). Least significant digit first and stable, over
 * only the bits the block's time span needs: a block covers a short
 * span, so two or three linear passes replace a comparison sort. */
static dfn_tsidx *chunk_sort(dfn_tsidx *a, dfn_tsidx *tmp, size_t n, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo;
    for (unsigned shift = 0; shift < 64 && (span >> shift); shift += RADIX_BITS) {
        size_t count[1u << RADIX_BITS] = { 0 };
        for (size_t i = 0; i < n; i++) count[((a[i].ts - lo) >> shift) & ((1u << RADIX_BITS) - 1)]++;
        if (count[((a[0].ts - lo) >> shift) & ((1u << RADIX_BITS) - 1)] == n) continue;   /* one digit: in order */
        size_t sum = 0;
        for (size_t d = 0; d < (1u << RADIX_BITS); d++) { size_t c = count[d]; count[d] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) tmp[count[((a[i].ts - lo) >> shift) & ((1u << RADIX_BITS) - 1)]++] = a[i];
        dfn_tsidx *t = a; a = tmp; tmp = t;
    }
    return a;
}

/* The block's "B" records and "E" marks, copied: the parser reuses its
 * batch. The begins keep the batch's wide form, as the build reads them
 * once, to pair them. */
static void chunk_take_pairs(dfn_chunk *c, const dfn_batch *b)
{
    const dfn_batch *t = b->begins;
    if (t && t->n) {
        c->begins = dfn_batch_copy(t);
        c->begin_line = dfn_xmemdup(b->begin_line, t->n, sizeof *b->begin_line);
    }
    c->ends = dfn_xmemdup(b->ends, b->nends, sizeof *b->ends);
    c->nends = b->nends;
}

/* A chunk of n events with room for args_len bytes of records; lanes,
 * kinds and files in tables of nlt, nkt and nft ids (0: one id per event). */
static dfn_chunk *chunk_alloc(dfn_chunkmem *mem, uint32_t src, uint64_t seq, size_t n, size_t args_len, bool agg,
                              size_t nlt, size_t nkt, size_t nft)
{
    dfn_chunk *c = dfn_xcalloc(1, sizeof *c);
    c->src = src;
    c->seq = seq;
    c->n = n;
    if (n == 0) return c;
    /* One mapping per chunk: the merge frees chunks while the store grows,
     * and munmap hands the memory back at once, where free() would keep it
     * in the heap and double the peak. A small chunk (a file of a few
     * lines) takes the heap instead: a mapping is at least a page, and
     * 100,000 one-line files would cost 4 KiB each. The mapping is
     * populated at once: the fill writes every page of it, and taking the
     * pages in one call instead of a fault each halved the parse's system
     * time on this VM (no shared zero page, a paravirtual fault path). */
    size_t nidx = (n >> DFN_ARGS_INDEX_SHIFT) + 1;
    size_t lw = nlt ? nlt : n, kw = nkt ? nkt : n, fw = nft ? nft : n;   /* 32-bit words: tables or ids */
    size_t bytes8 = (nlt ? n : 0) + (nkt ? n : 0) + (nft ? n : 0);
    c->map_len = nidx * sizeof(size_t) + (3 * n + lw + kw + fw) * sizeof(uint32_t) + bytes8 + n + args_len +
                 DFN_RECORD_SLACK;
    void *m;
    c->map_heap = c->map_len < CHUNK_HEAP_MAX;
    if (c->map_heap) {
        m = dfn_xmalloc(c->map_len);
    } else if (!(m = dfn_chunkmem_get(mem, src, c->map_len, &c->seg))) {
        m = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | CHUNK_POPULATE, -1, 0);
        if (m == MAP_FAILED) dfn_out_of_memory("mapping", c->map_len);
    }
    c->map = m;
    c->args_idx = m;
    uint32_t *cols = (uint32_t *)(c->args_idx + nidx);
    c->ts.v = cols;
    c->dur.v = cols + n;
    c->bytes.v = cols + 2 * n;
    c->lane.ids = cols + 3 * n;
    c->kind.ids = c->lane.ids + lw;
    c->file.ids = c->kind.ids + kw;
    uint8_t *b8 = (uint8_t *)(c->file.ids + fw);
    if (nlt) { c->lane.idx = b8; b8 += n; c->lane.ntab = (uint32_t)nlt; }
    if (nkt) { c->kind.idx = b8; b8 += n; c->kind.ntab = (uint32_t)nkt; }
    if (nft) { c->file.idx = b8; b8 += n; c->file.ntab = (uint32_t)nft; }
    /* the merge copies records in a new order: their lengths spare it
     * decoding each one to find its end */
    c->args_size = b8;
    c->args = c->args_size + n;
    if (agg) {
        c->cnt.v = dfn_xmalloc(n * sizeof *c->cnt.v);
        c->durmax.v = dfn_xmalloc(n * sizeof *c->durmax.v);
    }
    return c;
}

dfn_chunk *dfn_chunk_alloc(uint32_t src, uint64_t seq, size_t n, size_t args_len, bool agg)
{
    return chunk_alloc(NULL, src, seq, n, args_len, agg, 0, 0, 0);
}

#define IDTAB_MAX 256
#define IDTAB_BITS 9   /* twice the ids a table holds: probes stay short */
#define IDTAB_SLOTS (1u << IDTAB_BITS)

/* The distinct ids of v (batch order) into tab, in the order they first
 * come, with each event's index into it; false past IDTAB_MAX of them. */
static bool idcol_table(const uint32_t *v, size_t n, uint32_t *tab, size_t *ntab, uint8_t *idx)
{
    uint32_t key[IDTAB_SLOTS];
    int16_t at[IDTAB_SLOTS];
    memset(at, -1, sizeof at);
    size_t m = 0;
    uint32_t last = 0;
    int lastx = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = v[i];
        if (id == last && lastx >= 0) { idx[i] = (uint8_t)lastx; continue; }   /* runs are common */
        size_t h = (uint32_t)(id * 0x9e3779b1u) >> (32 - IDTAB_BITS);
        while (at[h] >= 0 && key[h] != id) h = (h + 1) & (IDTAB_SLOTS - 1);
        if (at[h] < 0) {
            if (m == IDTAB_MAX) return false;
            key[h] = id;
            at[h] = (int16_t)m;
            tab[m++] = id;
        }
        idx[i] = (uint8_t)at[h];
        last = id;
        lastx = at[h];
    }
    *ntab = m;
    return true;
}

/* Sets chunk c's n events to b's events order[0..n) in that order, their
 * starts from base; li, ki and fi: each batch event's index into the
 * chunk's lane, kind and file tables (where the chunk has them). */
static void chunk_fill(dfn_chunk *c, const dfn_batch *b, const dfn_tsidx *order, uint64_t base, const uint8_t *li,
                       const uint8_t *ki, const uint8_t *fi)
{
    size_t n = c->n;
    c->ts_base = base;
    size_t w = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t i = order[j].i;
        dfn_col32_set(&c->ts, j, b->ts[i] - c->ts_base);
        dfn_col32_set(&c->dur, j, b->dur[i]);
        dfn_col32_set(&c->bytes, j, b->bytes[i]);
        if (b->cnt) {
            dfn_col32_set(&c->cnt, j, b->cnt[i]);
            dfn_col32_set(&c->durmax, j, b->durmax[i]);
        }
        if (c->lane.idx) c->lane.idx[j] = li[i]; else c->lane.ids[j] = b->lane[i];
        if (c->kind.idx) c->kind.idx[j] = ki[i]; else c->kind.ids[j] = b->kind[i];
        if (c->file.idx) c->file.idx[j] = fi[i]; else c->file.ids[j] = b->file[i];
        if ((j & ((1u << DFN_ARGS_INDEX_SHIFT) - 1)) == 0) c->args_idx[j >> DFN_ARGS_INDEX_SHIFT] = w;
        size_t from = b->args_off[i];
        size_t to = i + 1 < b->n ? b->args_off[i + 1] : b->args_len;
        memcpy(c->args + w, b->args + from, to - from);
        c->args_size[j] = to - from < 255 ? (uint8_t)(to - from) : 0;
        w += to - from;
    }
    /* the entry for position n, when n starts an index step: the merge
     * asks where a chunk's records end as often as where they start */
    if ((n & ((1u << DFN_ARGS_INDEX_SHIFT) - 1)) == 0) c->args_idx[n >> DFN_ARGS_INDEX_SHIFT] = w;
    c->args_len = w;
}

dfn_chunk *dfn_chunk_of(dfn_chunkmem *mem, const dfn_batch *b, uint32_t src, uint64_t seq, const dfn_tsidx *order,
                        size_t n, uint64_t base)
{
    if (n == 0) return chunk_alloc(mem, src, seq, 0, 0, false, 0, 0, 0);
    uint32_t ltab[IDTAB_MAX], ktab[IDTAB_MAX], ftab[IDTAB_MAX];
    size_t nl = 0, nk = 0, nf = 0;
    uint8_t *li = dfn_xmalloc(3 * b->n), *ki = li + b->n, *fi = ki + b->n;
    if (!idcol_table(b->lane, b->n, ltab, &nl, li)) nl = 0;
    if (!idcol_table(b->kind, b->n, ktab, &nk, ki)) nk = 0;
    if (!idcol_table(b->file, b->n, ftab, &nf, fi)) nf = 0;
    dfn_chunk *c = chunk_alloc(mem, src, seq, n, b->args_len, b->cnt != NULL, nl, nk, nf);
    memcpy(c->lane.ids, ltab, nl * sizeof *ltab);
    memcpy(c->kind.ids, ktab, nk * sizeof *ktab);
    memcpy(c->file.ids, ftab, nf * sizeof *ftab);
    chunk_fill(c, b, order, base, li, ki, fi);
    free(li);
    return c;
}

dfn_chunk *dfn_chunk_from_batch(dfn_chunkmem *mem, const dfn_batch *b, uint32_t src, uint64_t seq)
{
    size_t n = b->n;
    dfn_tsidx *buf = dfn_xmalloc(2 * (n ? n : 1) * sizeof *buf), *order = buf;
    bool sorted = true;
    uint64_t lo = n ? b->ts[0] : 0, hi = lo;
    for (size_t i = 0; i < n; i++) {
        order[i] = (dfn_tsidx){ b->ts[i], (uint32_t)i };
        if (i && b->ts[i] < b->ts[i - 1]) sorted = false;
        if (b->ts[i] < lo) lo = b->ts[i];
        if (b->ts[i] > hi) hi = b->ts[i];
    }
    if (n && !sorted) order = chunk_sort(buf, buf + n, n, lo, hi);
    dfn_chunk *c = dfn_chunk_of(mem, b, src, seq, order, n, n ? order[0].ts : 0);
    free(buf);
    c->info = b->info;
    c->info.cfg = b->info.cfg ? dfn_xstrdup(b->info.cfg) : NULL;
    c->info.app = b->info.app ? dfn_xstrdup(b->info.app) : NULL;
    c->cs = dfn_xmemdup(b->cs, b->ncs, sizeof *b->cs);
    c->ncs = b->ncs;
    c->nbad = b->nbad;
    c->bad = dfn_xmemdup(b->bad, b->nbad, sizeof *b->bad);
    c->info.other_ph = dfn_xmemdup(b->info.other_ph, b->info.other_ph ? DFN_PH_KINDS : 0, sizeof *b->info.other_ph);
    chunk_take_pairs(c, b);
    c->min_ts = b->min_ts;
    c->max_end = b->max_end;
    c->era = b->era;
    c->version = b->version;
    c->meta = dfn_xmemdup(b->meta, b->nmeta, sizeof *b->meta);
    c->nmeta = b->nmeta;
    return c;
}

void dfn_chunk_free(dfn_chunk *c)
{
    if (!c) return;
    free(c->ts.esc);
    free(c->dur.esc);
    free(c->bytes.esc);
    free(c->cnt.v); free(c->cnt.esc);
    free(c->durmax.v); free(c->durmax.esc);
    free(c->info.cfg); free(c->info.app); free(c->info.other_ph);
    free(c->bad);
    free(c->cs);
    if (c->begins) {
        dfn_batch_free(c->begins);
        free(c->begins);
    }
    free(c->begin_line);
    free(c->ends);
    if (c->map && c->map_heap) free(c->map);
    else if (c->seg) dfn_chunkmem_put(c->seg, c->map, c->map_len);
    else if (c->map) munmap(c->map, c->map_len);
    free(c->meta);
    free(c->args_own);
    free(c->srcs);
    free(c->pf);
    free(c);
}
