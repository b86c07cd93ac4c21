/* The explorer's pre-aggregated sums (tiles.h): one pass over the store,
 * a tile at a time, its calls summed per (kind, lane, mask) and per
 * (kind, file, mask) through two small open-addressed tables that are
 * emptied slot by slot between tiles. */
#include "dfnav/tiles.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

/* Past max_sums sums (a 16th of its calls, up to DFN_TILE_SUMS_MAX) a
 * tile costs about what its calls do, and the memory would grow towards
 * a sum per call: the tile is scanned. Its file sums may be twice as
 * many (an eighth of its calls): a file level's calls read more bytes
 * each (the file as well as the function) and calls of one process
 * spread over more files than over lanes (random reads of shared HDF5
 * files: 0.1 (kind, file) a call in the benchmark's 30 M set). */
#define TILE_SLOTS 2048   /* a power of two, twice DFN_TILE_FSUMS_MAX */

typedef struct {
    uint16_t slot[TILE_SLOTS];        /* a sum's index + 1, or 0 */
    uint16_t used[DFN_TILE_FSUMS_MAX];   /* the slots taken, to empty */
    dfn_tile_sum sum[DFN_TILE_FSUMS_MAX];
    size_t n, max;
} tile_build;

static inline uint32_t tile_hash(uint32_t kind, uint32_t who, uint32_t mask)
{
    uint64_t h = ((uint64_t)kind * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)who * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)mask * 0x165667B19E3779F9ull);
    return (uint32_t)(h >> 40) & (TILE_SLOTS - 1);
}

/* The sum of (kind, who, mask) in b (who: the lane, or the file in the
 * file sums), made on first sight; NULL when the tile has b->max already. */
static dfn_tile_sum *tile_sum(tile_build *b, uint32_t kind, uint32_t who, uint32_t mask)
{
    uint32_t h = tile_hash(kind, who, mask);
    for (;; h = (h + 1) & (TILE_SLOTS - 1)) {
        uint16_t k = b->slot[h];
        if (!k) break;
        dfn_tile_sum *e = &b->sum[k - 1];
        if (e->kind == kind && e->lane == who && e->mask == mask) return e;
    }
    if (b->n == b->max) return NULL;
    dfn_tile_sum *e = &b->sum[b->n];
    *e = (dfn_tile_sum){ .kind = kind, .lane = who, .mask = mask };
    b->used[b->n] = (uint16_t)h;
    b->slot[h] = (uint16_t)++b->n;
    return e;
}

static void tile_empty(tile_build *b)
{
    for (size_t k = 0; k < b->n; k++) b->slot[b->used[k]] = 0;
    b->n = 0;
}

static inline void tile_add(dfn_tile_sum *e, uint64_t dur, uint64_t bytes)
{
    e->count++;
    e->dur += dur;      /* below the tile's dur, which did not wrap when it is kept */
    e->bytes += bytes;
    if (dur > e->maxdur) e->maxdur = dur;
}

/* The calls [lo, hi) of a tile summed by lane into b and by file into fb
 * (both emptied first); its span and totals into *t, with whether each
 * family of sums is worth keeping (t->ok, t->fok). */
static void tile_fill(const dfn_store *s, const uint8_t *idx8, const uint32_t *idx32, size_t lo, size_t hi,
                      tile_build *b, tile_build *fb, dfn_tile *t)
{
    tile_empty(b);
    tile_empty(fb);
    *t = (dfn_tile){ .first_ts = dfn_store_ts(s, lo), .last_ts = dfn_store_ts(s, hi - 1) };
    bool ok = true, fok = true, fits = true;
    for (size_t i = lo; i < hi && (ok || fok); i++) {
        uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i), bytes = dfn_store_bytes(s, i);
        uint32_t mask = idx8 ? idx8[i] : idx32 ? idx32[i] : 0;
        uint64_t end = dfn_sat_add(ts, dur);
        if (end > t->end) t->end = end;
        /* a tile's totals bound every row's sums from it: saturating, it is scanned */
        /* (both adds always: a bitwise and of ints) */
        fits &= (int)!__builtin_add_overflow(t->dur, dur, &t->dur) & (int)!__builtin_add_overflow(t->bytes, bytes, &t->bytes);
        dfn_tile_sum *e = ok ? tile_sum(b, dfn_store_kind(s, i), dfn_store_lane(s, i), mask) : NULL;
        dfn_tile_sum *f = fok ? tile_sum(fb, dfn_store_kind(s, i), dfn_store_file(s, i), mask) : NULL;
        if (e) tile_add(e, dur, bytes);
        else ok = false;
        if (f) tile_add(f, dur, bytes);
        else fok = false;
    }
    t->ok = ok && fits;
    t->fok = fok && fits;
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
        if (!(iob ? dfn_overlap_is_compute(iob, i) : s->kinds[dfn_store_kind(s, i)].io)) continue;
        uint32_t lane = dfn_store_lane(s, i);
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

/* The sums a tile of size calls keeps at most: a share of its calls, up
 * to max; at least 64 (tests' small tiles: all their calls). */
static size_t tile_cap(size_t size, size_t share, size_t max)
{
    size_t n = size / share > max ? max : size / share;
    return n >= 64 ? n : size < 64 ? size : 64;
}

/* b's sums appended to *sums (n of them, room for *cap). */
static void tiles_keep(dfn_tile_sum **sums, size_t *n, size_t *cap, const tile_build *b)
{
    dfn_grow((void **)sums, cap, *n + b->n, sizeof **sums);
    memcpy(*sums + *n, b->sum, b->n * sizeof *b->sum);
    *n += b->n;
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
    /* a 16th of its calls by lane, an eighth by file */
    size_t max_sums = tile_cap(size, 16, DFN_TILE_SUMS_MAX), max_fsums = tile_cap(size, 8, DFN_TILE_FSUMS_MAX);
    t->ntiles = s->n >> shift;
    t->tiles = dfn_xcalloc(t->ntiles ? t->ntiles : 1, sizeof *t->tiles);
    const uint8_t *idx8 = NULL;
    const uint32_t *idx32 = NULL;
    size_t nmasks = 0;
    if (ls) dfn_layerset_masks(ls, &nmasks, &idx8, &idx32);
    tile_build *b = dfn_xcalloc(1, sizeof *b), *fb = dfn_xcalloc(1, sizeof *fb);
    b->max = max_sums;
    fb->max = max_fsums;
    size_t nsums = 0, cap = 0, nfs = 0, fcap = 0, nio = 0, iocap = 0;
    /* a tile's lanes are among its sums: at most max_sums of them */
    uint32_t *slot = ov ? dfn_xcalloc(s->nlanes ? s->nlanes : 1, sizeof *slot) : NULL;
    lane_sweep *sw = ov ? dfn_xmalloc(max_sums * sizeof *sw) : NULL;
    for (size_t k = 0; k < t->ntiles; k++) {
        dfn_tile *tl = &t->tiles[k];
        tile_fill(s, idx8, idx32, k * size, (k + 1) * size, b, fb, tl);
        tl->ok &= nsums + b->n <= UINT32_MAX;
        tl->fok &= nfs + fb->n <= UINT32_MAX;
        if (tl->fok) {
            tl->foff = (uint32_t)nfs;
            tl->nf = (uint32_t)fb->n;
            tiles_keep(&t->fsums, &nfs, &fcap, fb);
        }
        if (!tl->ok) continue;
        tl->off = (uint32_t)nsums;
        tl->n = (uint32_t)b->n;
        tiles_keep(&t->sums, &nsums, &cap, b);
        if (!ov) continue;
        size_t before = nio;
        tile_io(t, k * size, (k + 1) * size, slot, sw, &nio, &iocap);
        tl->ioff = (uint32_t)before;
        tl->nio = (uint32_t)(nio - before);
    }
    free(b);
    free(fb);
    free(slot);
    free(sw);
    if (nio) t->io = dfn_xreallocarray(t->io, nio, sizeof *t->io);
    /* the doubling's slack back */
    if (nsums) t->sums = dfn_xreallocarray(t->sums, nsums, sizeof *t->sums);
    if (nfs) t->fsums = dfn_xreallocarray(t->fsums, nfs, sizeof *t->fsums);
    return t;
}

void dfn_tiles_free(dfn_tiles *t)
{
    if (!t) return;
    free(t->tiles);
    free(t->sums);
    free(t->fsums);
    free(t->io);
    free(t);
}
