/* Chrome's begin/end pairs: a "B" record begins a call on its thread and
 * the next unmatched "E" on that thread ends it, maybe blocks later. The
 * parser keeps the begins and end marks of each block aside; this pairs
 * them per file in line order, once every block is parsed, into chunks of
 * calls that merge like the others. An end without a begin, a begin never
 * ended and an end before its begin are malformed lines. */
#include "load.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* A begin awaiting its end: where it is kept, its line, the one begun
 * before it on its thread. */
typedef struct { const dfn_chunk *c; uint32_t j, prev; uint64_t line; uint64_t dur; int state; } open_call;
enum { OPEN, PAIRED, DROPPED };

typedef struct {
    open_call *calls; size_t ncalls, cap;
    uint32_t *top;            /* per lane ref: the last open call, NONE */
    size_t nlanes;
    uint32_t *touched; size_t ntouched, tcap;   /* lanes to reset for the next file */
} pairing;

static void bad_line(dfn_srcinfo *si, uint64_t line, const char *why)
{
    si->malformed++;
    /* the first lines by number: this list already holds the parser's */
    const dfn_srcmore *had = dfn_src_more(si);
    size_t n = had->nbad, at = n;
    while (at > 0 && had->bad_lines[at - 1] > line) at--;
    if (at >= DFN_MAX_BAD_LINES) return;
    dfn_srcinfo_bad_room(si);
    dfn_srcmore *m = si->more;
    if (n == DFN_MAX_BAD_LINES) free(m->bad_reason[--n]);
    memmove(&m->bad_lines[at + 1], &m->bad_lines[at], (n - at) * sizeof *m->bad_lines);
    memmove(&m->bad_reason[at + 1], &m->bad_reason[at], (n - at) * sizeof *m->bad_reason);
    m->bad_lines[at] = line;
    m->bad_reason[at] = dfn_xstrdup(why);
    m->nbad = n + 1;
}

static void pair_begin(pairing *pg, const dfn_chunk *c, uint32_t j, uint64_t line)
{
    uint32_t lane = c->begins->lane[j];
    if (lane >= pg->nlanes) return;   /* cannot happen: the lane table holds every ref */
    dfn_grow((void **)&pg->calls, &pg->cap, pg->ncalls + 1, sizeof *pg->calls);
    if (pg->top[lane] == NONE) {
        dfn_grow((void **)&pg->touched, &pg->tcap, pg->ntouched + 1, sizeof *pg->touched);
        pg->touched[pg->ntouched++] = lane;
    }
    pg->calls[pg->ncalls] = (open_call){ c, j, pg->top[lane], line, 0, OPEN };
    pg->top[lane] = (uint32_t)pg->ncalls++;
}

static void pair_end(pairing *pg, dfn_srcinfo *si, const dfn_endmark *e, uint64_t line)
{
    uint32_t k = e->lane < pg->nlanes ? pg->top[e->lane] : NONE;
    if (k == NONE) { bad_line(si, line, "end of a call that did not begin on its thread"); return; }
    open_call *oc = &pg->calls[k];
    pg->top[e->lane] = oc->prev;
    uint64_t ts = oc->c->begins->ts[oc->j];
    if (e->ts < ts) {
        oc->state = DROPPED;
        bad_line(si, oc->line, "call that ends before it begins");
        bad_line(si, line, "call that ends before it begins");
        return;
    }
    oc->dur = e->ts - ts;
    oc->state = PAIRED;
    si->events += 2;
}

/* One file's begins and ends, chunk by chunk, in line order. */
static void pair_file(pairing *pg, dfn_chunk *const *chunks, size_t n, dfn_srcinfo *si)
{
    uint64_t line0 = 0;
    for (size_t k = 0; k < n; k++) {
        const dfn_chunk *c = chunks[k];
        size_t nb = c->begins ? c->begins->n : 0, b = 0, e = 0;
        while (b < nb || e < c->nends) {
            bool begin = e == c->nends || (b < nb && c->begin_line[b] < c->ends[e].line);
            if (begin) { pair_begin(pg, c, (uint32_t)b, line0 + c->begin_line[b]); b++; }
            else { pair_end(pg, si, &c->ends[e], line0 + c->ends[e].line); e++; }
        }
        line0 += c->info.lines;
    }
    for (size_t k = 0; k < pg->ncalls; k++)
        if (pg->calls[k].state == OPEN) bad_line(si, pg->calls[k].line, "call that began and never ended");
}

/* The paired calls of one file as a batch, in line order. */
static dfn_chunk *paired_chunk(const pairing *pg, uint32_t src, uint64_t seq)
{
    dfn_batch nb = { .min_ts = UINT64_MAX };
    size_t n = 0, args = 0;
    for (size_t k = 0; k < pg->ncalls; k++) {
        const open_call *oc = &pg->calls[k];
        if (oc->state != PAIRED) continue;
        const dfn_batch *t = oc->c->begins;
        size_t to = oc->j + 1 < t->n ? t->args_off[oc->j + 1] : t->args_len;
        args += to - t->args_off[oc->j];
        n++;
    }
    if (!n) return NULL;
    nb.cap = n;
    nb.ts = dfn_xmalloc(n * sizeof *nb.ts); nb.dur = dfn_xmalloc(n * sizeof *nb.dur);
    nb.bytes = dfn_xmalloc(n * sizeof *nb.bytes); nb.lane = dfn_xmalloc(n * sizeof *nb.lane);
    nb.kind = dfn_xmalloc(n * sizeof *nb.kind); nb.file = dfn_xmalloc(n * sizeof *nb.file);
    nb.args_off = dfn_xmalloc(n * sizeof *nb.args_off);
    nb.args = dfn_xmalloc(args ? args : 1);
    for (size_t k = 0; k < pg->ncalls; k++) {
        const open_call *oc = &pg->calls[k];
        if (oc->state != PAIRED) continue;
        const dfn_batch *t = oc->c->begins;
        uint32_t j = oc->j;
        size_t from = t->args_off[j], to = j + 1 < t->n ? t->args_off[j + 1] : t->args_len, i = nb.n++;
        nb.ts[i] = t->ts[j];
        nb.dur[i] = oc->dur;
        nb.bytes[i] = t->bytes[j];
        nb.lane[i] = t->lane[j];
        nb.kind[i] = t->kind[j];
        nb.file[i] = t->file[j];
        nb.args_off[i] = (uint32_t)nb.args_len;
        memcpy(nb.args + nb.args_len, t->args + from, to - from);
        nb.args_len += to - from;
        if (nb.ts[i] < nb.min_ts) nb.min_ts = nb.ts[i];
        if (nb.ts[i] + oc->dur > nb.max_end) nb.max_end = nb.ts[i] + oc->dur;
    }
    dfn_chunk *c = dfn_chunk_from_batch(NULL, &nb, src, seq);
    dfn_batch_free(&nb);
    return c;
}

dfn_chunk **dfn_pairs_build(dfn_chunk *const *chunks, size_t nchunks, size_t nlanes, dfn_srcinfo *src, size_t *nout)
{
    dfn_chunk **out = NULL;
    size_t nc = 0, cap = 0;
    pairing pg = { .nlanes = nlanes };
    pg.top = dfn_xmalloc((nlanes ? nlanes : 1) * sizeof *pg.top);
    memset(pg.top, 0xff, (nlanes ? nlanes : 1) * sizeof *pg.top);
    for (size_t k = 0; k < nchunks;) {
        size_t end = k;
        bool any = false;
        while (end < nchunks && chunks[end]->src == chunks[k]->src) {
            any |= chunks[end]->begins || chunks[end]->nends;
            end++;
        }
        if (any) {
            pair_file(&pg, chunks + k, end - k, &src[chunks[k]->src]);
            dfn_chunk *c = paired_chunk(&pg, chunks[k]->src, chunks[end - 1]->seq + 1);
            if (c) {
                dfn_grow((void **)&out, &cap, nc + 1, sizeof *out);
                out[nc++] = c;
            }
            for (size_t t = 0; t < pg.ntouched; t++) pg.top[pg.touched[t]] = NONE;
            pg.ntouched = 0;
            pg.ncalls = 0;
        }
        k = end;
    }
    free(pg.calls);
    free(pg.top);
    free(pg.touched);
    *nout = nc;
    return out;
}
