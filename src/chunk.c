/* Chunks: a parsed block sorted by start time and packed into the store's
 * compact column form, so that the memory held between parsing and the
 * final merge is already close to the store's own. */
#include "load.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct { uint64_t ts; uint32_t i; } ts_idx;

static int ts_idx_cmp(const void *a, const void *b)
{
    const ts_idx *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

dfn_chunk *dfn_chunk_from_batch(const dfn_batch *b, uint32_t src, uint64_t seq)
{
    dfn_chunk *c = dfn_xcalloc(1, sizeof *c);
    size_t n = b->n;
    c->src = src;
    c->seq = seq;
    c->n = n;
    c->lines = b->lines;
    c->events = b->events;
    c->metadata = b->metadata;
    c->malformed = b->malformed;
    c->nbad = b->nbad;
    memcpy(c->bad, b->bad, sizeof c->bad);
    c->min_ts = b->min_ts;
    c->max_end = b->max_end;
    c->era = b->era;
    c->version = b->version;
    if (b->nmeta) {
        c->meta = dfn_xmalloc(b->nmeta * sizeof *c->meta);
        memcpy(c->meta, b->meta, b->nmeta * sizeof *c->meta);
        c->nmeta = b->nmeta;
    }
    if (n == 0) return c;

    ts_idx *order = dfn_xmalloc(n * sizeof *order);
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        order[i] = (ts_idx){ b->ts[i], (uint32_t)i };
        if (i && b->ts[i] < b->ts[i - 1]) sorted = false;
    }
    if (!sorted) qsort(order, n, sizeof *order, ts_idx_cmp);

    c->ts_base = order[0].ts;
    /* One mapping per chunk: the merge frees chunks while the store grows,
     * and munmap hands the memory back at once, where free() would keep it
     * in the heap and double the peak. */
    c->map_len = n * 6 * sizeof(uint32_t) + (b->args_len ? b->args_len : 1);
    void *m = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "dfnav: out of memory (mapping %zu bytes)\n", c->map_len);
        abort();
    }
    c->map = m;
    uint32_t *cols = m;
    c->ts.v = cols;
    c->dur.v = cols + n;
    c->bytes.v = cols + 2 * n;
    c->lane = cols + 3 * n;
    c->kind = cols + 4 * n;
    c->file = cols + 5 * n;
    c->args = (uint8_t *)(cols + 6 * n);
    size_t w = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t i = order[j].i;
        dfn_col32_set(&c->ts, j, b->ts[i] - c->ts_base);
        dfn_col32_set(&c->dur, j, b->dur[i]);
        dfn_col32_set(&c->bytes, j, b->bytes[i]);
        c->lane[j] = b->lane[i];
        c->kind[j] = b->kind[i];
        c->file[j] = b->file[i];
        size_t from = b->args_off[i];
        size_t to = i + 1 < n ? b->args_off[i + 1] : b->args_len;
        memcpy(c->args + w, b->args + from, to - from);
        w += to - from;
    }
    c->args_len = w;
    free(order);
    return c;
}

void dfn_chunk_free(dfn_chunk *c)
{
    if (!c) return;
    free(c->ts.esc);
    free(c->dur.esc);
    free(c->bytes.esc);
    if (c->map) munmap(c->map, c->map_len);
    free(c->meta);
    free(c);
}
