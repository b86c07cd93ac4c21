/* Packs: whole small files' events gathered as they arrive, so that a set
 * of many tiny files holds one growing batch and a few figures a file
 * until the build, not a chunk a file (see dfn_pack in load.h). */
#include "load.h"

#include <stdlib.h>
#include <string.h>

/* A file joins a pack when it is this small: a chunk of its own costs
 * about 0.7 KB, and an event in the open pack about 20 B more than in a
 * chunk (wide columns, room to grow), so only tiny files gain (5,000
 * files of 250 events peaked at 117 MB packed, 79 MB as chunks). */
#define PACK_FILE_EVENTS 32
#define PACK_FILE_ARGS ((size_t)4 << 10)
/* A pack is sealed at this size, which bounds its wide columns (a few
 * MB) and the sort when it is sealed. */
#define PACK_EVENTS ((size_t)1 << 16)
#define PACK_ARGS ((size_t)4 << 20)

bool dfn_pack_fits(const dfn_batch *b, bool whole)
{
    const dfn_blockinfo *i = &b->info;
    return whole && b->n <= PACK_FILE_EVENTS && b->args_len <= PACK_FILE_ARGS && !b->cnt && !b->nmeta &&
           !b->nbad && !b->ncs && !(b->begins && b->begins->n) && !b->nends && !i->cfg && !i->app &&
           !i->other_ph && !i->unit && !i->unit_unknown && !i->metadata && !i->malformed && !i->counters &&
           !i->other && !i->agg_records && !i->pairs_pending && !i->frac_times && i->lines <= UINT32_MAX;
}

/* The figures build_sources would take from the file's chunk. */
static dfn_packfile pack_fold(const dfn_pack *p, const dfn_batch *b, uint32_t src)
{
    dfn_packfile f = { .src = src, .era = b->era, .version = b->version, .lines = (uint32_t)b->info.lines,
                       .events = (uint32_t)b->info.events, .skipped = (uint32_t)b->info.skipped };
    if (b->info.events && b->n) {
        f.start_us = dfn_unit_us(p->unit, b->min_ts);
        if (p->unit == DFN_UNIT_US) {
            f.end_us = b->max_end;
        } else {
            /* a start and a length are rounded each on its own in the store */
            for (size_t i = 0; i < b->n; i++) {
                uint64_t e = dfn_unit_us(p->unit, b->ts[i]) + dfn_unit_us(p->unit, b->dur[i]);
                if (e > f.end_us) f.end_us = e;
            }
        }
    }
    if (p->unit == DFN_UNIT_NS)
        for (size_t i = 0; i < b->n; i++) dfn_ns_rounding_add(b->dur[i], &f.ns_rounding, &f.ns_total, &f.ns_zeroed);
    return f;
}

void dfn_pack_add(dfn_pack *p, const dfn_batch *b, uint32_t src)
{
    size_t n0 = p->b.n;
    dfn_batch_append(&p->b, b);
    dfn_grow((void **)&p->srcs, &p->srccap, p->b.n, sizeof *p->srcs);
    for (size_t i = n0; i < p->b.n; i++) p->srcs[i] = src;
    dfn_grow((void **)&p->pf, &p->pfcap, p->npf + 1, sizeof *p->pf);
    p->pf[p->npf++] = pack_fold(p, b, src);
}

bool dfn_pack_full(const dfn_pack *p)
{
    return p->b.n >= PACK_EVENTS || p->b.args_len >= PACK_ARGS;
}

typedef struct { uint64_t us, ts; uint32_t src, i; } pack_key;

/* The merge orders events by start in µs, ties by file; a file's own
 * chunk is in its unit's order, ties by line. */
static int pack_key_cmp(const void *a, const void *b)
{
    const pack_key *x = a, *y = b;
    if (x->us != y->us) return x->us < y->us ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

dfn_chunk *dfn_pack_seal(dfn_pack *p)
{
    if (!p->npf) return NULL;
    size_t n = p->b.n;
    /* the pack's first file stands for its unit, which all share */
    uint32_t first = UINT32_MAX;
    for (size_t k = 0; k < p->npf; k++) if (p->pf[k].src < first) first = p->pf[k].src;
    dfn_chunk *c;
    if (n) {
        /* ties by file, then line: the order the files' own chunks would merge in */
        pack_key *key = dfn_xmalloc(n * sizeof *key);
        uint64_t base = p->b.ts[0];
        for (size_t i = 0; i < n; i++) {
            key[i] = (pack_key){ dfn_unit_us(p->unit, p->b.ts[i]), p->b.ts[i], p->srcs[i], (uint32_t)i };
            if (p->b.ts[i] < base) base = p->b.ts[i];
        }
        qsort(key, n, sizeof *key, pack_key_cmp);
        dfn_tsidx *order = dfn_xmalloc(n * sizeof *order);
        uint32_t *srcs = dfn_xmalloc(n * sizeof *srcs);
        for (size_t j = 0; j < n; j++) {
            order[j] = (dfn_tsidx){ key[j].ts, key[j].i };
            srcs[j] = key[j].src;
        }
        free(key);
        /* in other units than µs the order may step back within a µs */
        c = dfn_chunk_of(NULL, &p->b, first, 0, order, n, base);
        free(order);
        c->srcs = srcs;
        c->min_ts = base;
    } else {
        c = dfn_chunk_alloc(first, 0, 0, 0, false);
        c->srcs = dfn_xmalloc(sizeof *c->srcs);   /* marks the chunk a pack */
    }
    c->pf = dfn_xreallocarray(p->pf, p->npf, sizeof *p->pf);
    c->npf = p->npf;
    p->pf = NULL;
    p->npf = p->pfcap = 0;
    dfn_unit unit = p->unit;
    dfn_pack_free(p);
    p->unit = unit;
    return c;
}

void dfn_pack_free(dfn_pack *p)
{
    dfn_batch_free(&p->b);
    free(p->srcs);
    free(p->pf);
    memset(p, 0, sizeof *p);
}
