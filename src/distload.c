/* dfnav distributed load (distload.h): each rank's loader in the
 * background, its progress told to rank 0 as notes (dist.h) while it
 * runs, and rank 0's account of them. What it owns: the note's words and
 * the line that says the ranks' progress. */
#include "dfnav/distload.h"
#include "dfnav/dist.h"
#include "dfnav/export.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A note's words: what the line says of a rank's dfn_progress, its
 * time in ms, and flags. */
enum { NOTE_BYTES_DONE, NOTE_BYTES_TOTAL, NOTE_EVENTS, NOTE_UNSIZED, NOTE_MS, NOTE_FLAGS, NOTE_N };
enum { NOTE_BUILDING = 1, NOTE_DONE = 2 };
/* how often a rank tells rank 0, and rank 0 says it */
#define DISTLOAD_EVERY_S 0.25

static dfn_rank_load load_read(dfn_loader *l)
{
    dfn_progress p = { .done = true };
    if (l) dfn_loader_progress(l, &p);
    return (dfn_rank_load){ .bytes_done = p.bytes_done, .bytes_total = p.bytes_total, .events = p.events,
                            .unsized = p.unsized,
                            .elapsed_s = p.elapsed_s, .heard = true, .building = p.building, .done = p.done };
}

static void note_encode(const dfn_rank_load *r, uint64_t *w)
{
    w[NOTE_BYTES_DONE] = r->bytes_done;
    w[NOTE_BYTES_TOTAL] = r->bytes_total;
    w[NOTE_EVENTS] = r->events;
    w[NOTE_UNSIZED] = r->unsized;
    w[NOTE_MS] = r->elapsed_s > 0 ? (uint64_t)(r->elapsed_s * 1000) : 0;
    w[NOTE_FLAGS] = (r->building ? NOTE_BUILDING : 0) | (r->done ? NOTE_DONE : 0);
}

static dfn_rank_load note_decode(const uint64_t *w)
{
    return (dfn_rank_load){ .bytes_done = w[NOTE_BYTES_DONE], .bytes_total = w[NOTE_BYTES_TOTAL],
                            .events = w[NOTE_EVENTS], .unsized = w[NOTE_UNSIZED],
                            .elapsed_s = w[NOTE_MS] / 1000.0, .heard = true,
                            .building = (w[NOTE_FLAGS] & NOTE_BUILDING) != 0,
                            .done = (w[NOTE_FLAGS] & NOTE_DONE) != 0 };
}

static void load_rest(void)
{
    struct timespec ts = { 0, 20 * 1000000 };
    nanosleep(&ts, NULL);
}

/* Rank 0: the notes that came, into p; whether every rank is done. */
static bool load_hear(dfn_dist_progress *p)
{
    uint64_t w[NOTE_N];
    int from;
    while (dfn_dist_note_take(w, NOTE_N, &from))
        if (from > 0 && from < p->nranks) p->rank[from] = note_decode(w);
    for (int r = 0; r < p->nranks; r++)
        if (!p->rank[r].done) return false;
    return true;
}

dfn_store *dfn_dist_load(const char *const *files, size_t n, const dfn_load_opts *lo, dfn_dist_say say, void *ctx)
{
    int nranks = dfn_dist_size(), me = dfn_dist_rank();
    if (nranks < 2 && !say) return n ? dfn_load(files, n, lo) : NULL;
    dfn_loader *l = n ? dfn_loader_start(files, n, lo) : NULL;
    dfn_dist_progress p = { .nranks = nranks, .rank = dfn_xcalloc((size_t)nranks, sizeof *p.rank) };
    double last = -1;
    for (;;) {
        dfn_rank_load mine = load_read(l);
        double now = dfn_now();
        bool due = last < 0 || now - last >= DISTLOAD_EVERY_S;
        if (me != 0) {
            /* (the last note says done: rank 0 waits for it, so none is
             * left behind for a later load to take) */
            if (due || mine.done) {
                uint64_t w[NOTE_N];
                note_encode(&mine, w);
                (void)dfn_dist_note_send(w, NOTE_N);
                last = now;
            }
            if (mine.done) break;
        } else {
            p.rank[0] = mine;
            bool all = load_hear(&p);
            if (say && (due || all)) {
                say(ctx, &p);
                last = now;
            }
            if (all) break;
        }
        load_rest();
    }
    free(p.rank);
    return dfn_loader_finish(l);
}

/* A rank's percent; -1 when a file of its has no known size. */
static double rank_pct(const dfn_rank_load *r)
{
    if (r->done || r->building) return 100;
    if (r->unsized) return -1;
    return r->bytes_total ? 100.0 * (double)r->bytes_done / (double)r->bytes_total : 0;
}

/* The rank that is furthest behind (the least percent, the longest
 * time when done), or the fastest when fast. */
static int rank_pick(const dfn_dist_progress *p, bool done, bool fast)
{
    int pick = -1;
    for (int r = 0; r < p->nranks; r++) {
        const dfn_rank_load *x = &p->rank[r];
        if (!done && x->done) continue;
        if (pick < 0) { pick = r; continue; }
        const dfn_rank_load *y = &p->rank[pick];
        double a = done ? x->elapsed_s : -rank_pct(x), b = done ? y->elapsed_s : -rank_pct(y);
        if (fast ? a < b : a > b) pick = r;
    }
    return pick;
}

size_t dfn_dist_progress_text(const dfn_dist_progress *p, char *buf, size_t cap)
{
    size_t w = 0;
#define PUT(...) dfn_text_put(buf, cap, &w, __VA_ARGS__)
    if (cap) buf[0] = 0;
    if (p->nranks < 1) return 0;
    dfn_rank_load sum = { 0 };   /* (its sums only) */
    int heard = 0, done = 0;
    for (int r = 0; r < p->nranks; r++) {
        const dfn_rank_load *x = &p->rank[r];
        heard += x->heard;
        done += x->done;
        sum.bytes_done += x->bytes_done;
        sum.bytes_total += x->bytes_total;
        sum.events += x->events;
        sum.unsized += x->unsized;
    }
    char total[32];
    dfn_fmt_bytes((double)sum.bytes_total, total, sizeof total);
    if (heard < p->nranks) {
        PUT("%d of %d ranks started, %" PRIu64 " events", heard, p->nranks, sum.events);
    } else if (done == p->nranks) {
        int slow = rank_pick(p, true, false), fast = rank_pick(p, true, true);
        PUT("%s, %" PRIu64 " events in %.1f s", total, sum.events, p->rank[slow].elapsed_s);
        if (p->nranks > 1)
            PUT("; the slowest, rank %d, %.1f s, the fastest, rank %d, %.1f s", slow, p->rank[slow].elapsed_s, fast,
                p->rank[fast].elapsed_s);
    } else {
        if (sum.unsized) PUT("?%% of %s", total);
        else PUT("%.0f%% of %s",   /* (floored: 100% only once done) */
                 floor(sum.bytes_total ? 100.0 * (double)sum.bytes_done / (double)sum.bytes_total : 0.0), total);
        int slow = rank_pick(p, false, false);
        const dfn_rank_load *s = &p->rank[slow];
        PUT(", %" PRIu64 " events; %d of %d ranks done, the slowest (rank %d) ", sum.events, done, p->nranks, slow);
        if (s->building) PUT("building its store");
        else if (rank_pct(s) < 0) PUT("at ?%%");
        else PUT("at %.0f%%", floor(rank_pct(s)));
    }
#undef PUT
    return w < cap ? w : cap ? cap - 1 : 0;
}
