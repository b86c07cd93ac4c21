/* The explorer's pre-aggregated sums (tiles.h): one pass over the store,
 * a tile at a time, its calls summed per (kind, lane, mask) through a
 * small open-addressed table that is emptied slot by slot between tiles. */
#include "dfnav/tiles.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

/* Past max_sums sums (a 16th of its calls, up to DFN_TILE_SUMS_MAX) a
 * tile costs about what its calls do, and the memory would grow towards
 * a sum per call: the tile is scanned. */
#define TILE_SUMS_MAX DFN_TILE_SUMS_MAX
#define TILE_SLOTS 1024   /* a power of two, twice TILE_SUMS_MAX */

typedef struct {
    uint16_t slot[TILE_SLOTS];      /* a sum's index + 1, or 0 */
    uint16_t used[TILE_SUMS_MAX];   /* the slots taken, to empty */
    dfn_tile_sum sum[TILE_SUMS_MAX];
    size_t n, max;
} tile_build;

static inline uint32_t tile_hash(uint32_t kind, uint32_t lane, uint32_t mask)
{
    uint64_t h = ((uint64_t)kind * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)lane * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)mask * 0x165667B19E3779F9ull);
    return (uint32_t)(h >> 40) & (TILE_SLOTS - 1);
}

/* The sum of (kind, lane, mask) in b, made on first sight; NULL when the
 * tile has TILE_SUMS_MAX already. */
static dfn_tile_sum *tile_sum(tile_build *b, uint32_t kind, uint32_t lane, uint32_t mask)
{
    uint32_t h = tile_hash(kind, lane, mask);
    for (;; h = (h + 1) & (TILE_SLOTS - 1)) {
        uint16_t k = b->slot[h];
        if (!k) break;
        dfn_tile_sum *e = &b->sum[k - 1];
        if (e->kind == kind && e->lane == lane && e->mask == mask) return e;
    }
    if (b->n == b->max) return NULL;
    dfn_tile_sum *e = &b->sum[b->n];
    *e = (dfn_tile_sum){ .kind = kind, .lane = lane, .mask = mask };
    b->used[b->n] = (uint16_t)h;
    b->slot[h] = (uint16_t)++b->n;
    return e;
}

/* The calls [lo, hi) of a tile summed into b (emptied first); its span
 * and totals into *t; false when it is not worth keeping. */
static bool tile_fill(const dfn_store *s, const uint8_t *idx8, const uint32_t *idx32, size_t lo, size_t hi,
                      tile_build *b, dfn_tile *t)
{
    for (size_t k = 0; k < b->n; k++) b->slot[b->used[k]] = 0;
    b->n = 0;
    *t = (dfn_tile){ .first_ts = dfn_store_ts(s, lo), .last_ts = dfn_store_ts(s, hi - 1) };
    bool ok = true;
    for (size_t i = lo; i < hi; i++) {
        uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i), bytes = dfn_store_bytes(s, i);
        uint32_t mask = idx8 ? idx8[i] : idx32 ? idx32[i] : 0;
        dfn_tile_sum *e = tile_sum(b, s->kind[i], s->lane[i], mask);
        if (!e) return false;
        uint64_t end = dfn_sat_add(ts, dur);
        if (end > t->end) t->end = end;
        /* a tile's totals bound every row's sums from it: saturating, it is scanned */
        ok &= !__builtin_add_overflow(t->dur, dur, &t->dur) & !__builtin_add_overflow(t->bytes, bytes, &t->bytes);
        e->count++;
        e->dur += dur;      /* below t->dur, which did not wrap when ok */
        e->bytes += bytes;
        if (dur > e->maxdur) e->maxdur = dur;
    }
    return ok;
}

/* What tile_io sweeps of one lane: as the query's sweep (psw_add), a
 * call starting past the open segment's end closes it. */
typedef struct {
    dfn_tile_io io;
    uint64_t cs, ce;              /* the open segment */
} lane_sweep;

/* The I/O calls of [lo, hi) swept per lane into t->io (grown; *nio and
 * *cap its count and room), in the order of their lanes' first I/O
 * call; slot: per lane, its sweep's index + 1 in w (zero between tiles). */
static void tile_io(dfn_tiles *t, size_t lo, size_t hi, uint32_t *slot, lane_sweep *w, size_t *nio, size_t *cap)
{
    const dfn_store *s = t->s;
    const uint64_t *iob = dfn_overlap_io_bits(t->ov);
    size_t np = 0, n = 0;
    const uint32_t *procs = dfn_overlap_procs(t->ov, &np);
    for (size_t i = lo; i < hi; i++) {
        if (!(iob ? dfn_overlap_is_compute(iob, i) : s->kinds[s->kind[i]].io)) continue;
        uint32_t lane = s->lane[i];
        uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i), end = ts + dur;   /* as the sweep takes it */
        if (!slot[lane]) {
            w[n] = (lane_sweep){ .io = { .lane = lane, .nseg = 1, .io = dur }, .cs = ts, .ce = end };
            slot[lane] = (uint32_t)++n;
            continue;
        }
        lane_sweep *l = &w[slot[lane] - 1];
        l->io.io += dur;   /* below the tile's total, which did not wrap */
        if (ts > l->ce) {
            if (l->io.nseg == 1) {
                l->io.s1 = l->cs, l->io.e1 = l->ce, l->io.s2 = ts;
            } else {
                uint64_t len = l->ce - l->cs;
                l->io.mid_len += len;
                l->io.mid_exposed += len - dfn_overlap_covered(t->ov, procs[lane], l->cs, l->ce);
            }
            l->io.nseg++;
            l->cs = ts, l->ce = end;
        } else if (end > l->ce) {
            l->ce = end;
        }
    }
    dfn_grow((void **)&t->io, cap, *nio + n, sizeof *t->io);
    for (size_t k = 0; k < n; k++) {
        lane_sweep *l = &w[k];
        if (l->io.nseg == 1) l->io.s1 = l->cs, l->io.e1 = l->ce;
        l->io.sm = l->cs, l->io.em = l->ce;
        t->io[(*nio)++] = l->io;
        slot[l->io.lane] = 0;
    }
}

dfn_tiles *dfn_tiles_build(const dfn_store *s, const dfn_layerset *ls, const dfn_overlap *ov, unsigned shift)
{
    dfn_tiles *t = dfn_xcalloc(1, sizeof *t);
    size_t size = (size_t)1 << shift;
    t->s = s;
    t->ls = ls;
    t->ov = ov;
    t->n = s->n;
    t->shift = shift;
    /* a 16th of its calls, up to TILE_SUMS_MAX; at least 64 (tests' small tiles: all their calls) */
    size_t max_sums = size / 16 > TILE_SUMS_MAX ? TILE_SUMS_MAX : size / 16;
    if (max_sums < 64) max_sums = size < 64 ? size : 64;
    t->ntiles = s->n >> shift;
    t->tiles = dfn_xcalloc(t->ntiles ? t->ntiles : 1, sizeof *t->tiles);
    const uint8_t *idx8 = NULL;
    const uint32_t *idx32 = NULL;
    size_t nmasks = 0;
    if (ls) dfn_layerset_masks(ls, &nmasks, &idx8, &idx32);
    tile_build *b = dfn_xcalloc(1, sizeof *b);
    b->max = max_sums;
    size_t nsums = 0, cap = 0, nio = 0, iocap = 0;
    /* a tile's lanes are among its sums: at most max_sums of them */
    uint32_t *slot = ov ? dfn_xcalloc(s->nlanes ? s->nlanes : 1, sizeof *slot) : NULL;
    lane_sweep *sw = ov ? dfn_xmalloc(max_sums * sizeof *sw) : NULL;
    for (size_t k = 0; k < t->ntiles; k++) {
        dfn_tile *tl = &t->tiles[k];
        tl->ok = tile_fill(s, idx8, idx32, k * size, (k + 1) * size, b, tl) && nsums + b->n <= UINT32_MAX;
        if (!tl->ok) continue;
        dfn_grow((void **)&t->sums, &cap, nsums + b->n, sizeof *t->sums);
        memcpy(t->sums + nsums, b->sum, b->n * sizeof *b->sum);
        tl->off = (uint32_t)nsums;
        tl->n = (uint32_t)b->n;
        nsums += b->n;
        if (!ov) continue;
        size_t before = nio;
        tile_io(t, k * size, (k + 1) * size, slot, sw, &nio, &iocap);
        tl->ioff = (uint32_t)before;
        tl->nio = (uint32_t)(nio - before);
    }
    free(b);
    free(slot);
    free(sw);
    if (nio) t->io = dfn_xreallocarray(t->io, nio, sizeof *t->io);
    if (nsums) t->sums = dfn_xreallocarray(t->sums, nsums, sizeof *t->sums);   /* the doubling's slack back */
    return t;
}

void dfn_tiles_free(dfn_tiles *t)
{
    if (!t) return;
    free(t->tiles);
    free(t->sums);
    free(t->io);
    free(t);
}
