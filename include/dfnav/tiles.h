/* dfnav tiles: the explorer's pre-aggregated sums. The store's calls, in
 * start order, cut into tiles of 8,192 calls; each tile keeps, per
 * (function kind, lane, layer mask) among its calls, their count and
 * summed time, bytes and longest call (up to 512 such sums), the same per
 * (function kind, file, layer mask) (up to 1,024), and the tile's span in
 * time. A table by function, category, process, file (or what a file
 * gives: directory, pattern, file system, part) or time bin, filtered by
 * those (lanes or files, not both), then adds a tile's sums rather than
 * its 8,192 calls, wherever a tile lies whole in the window, in one time
 * bin and in one sparkline bin (query.c decides, and scans the tiles it
 * cannot take). Built once per store (and layer set), read-only afterwards.
 * Memory: 40 bytes a sum and 72 a lane's I/O in a tile; about one byte a
 * call on real traces, four where each stretch of calls reads hundreds of
 * files, at most about twelve. */
#ifndef DFNAV_TILES_H
#define DFNAV_TILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/match.h"
#include "dfnav/overlap.h"
#include "dfnav/store.h"

#define DFN_TILE_SHIFT 13       /* 8,192 calls a tile */
#define DFN_TILE_SUMS_MAX 512   /* sums by lane a tile keeps at most */
#define DFN_TILE_FSUMS_MAX 1024 /* sums by file a tile keeps at most */

/* The calls of one (kind, lane, mask) in a tile, or of one (kind, file,
 * mask) among its file sums. mask: the index of their layer mask in the
 * layer set's (0 without one). */
typedef struct {
    uint32_t kind;
    union { uint32_t lane, file; };
    uint32_t mask, count;
    uint64_t dur, bytes, maxdur;
} dfn_tile_sum;

/* A lane's I/O calls in a tile (tiles built with an overlap): their
 * union, swept as the overlap columns sweep a process's I/O, kept as its
 * first segment, where its second starts, its last, and the summed
 * length and exposed part (not under the process's compute) of the
 * segments from the second to the one before the last. io: the calls'
 * summed time (the I/O part of a split sparkline). */
typedef struct {
    uint32_t lane, nseg;
    uint64_t s1, e1, s2, sm, em;
    uint64_t mid_len, mid_exposed;
    uint64_t io;
} dfn_tile_io;

typedef struct {
    uint64_t first_ts, last_ts;   /* the first and last call's start */
    uint64_t end;                 /* the latest end of its calls (saturated) */
    uint64_t dur, bytes;          /* of all its calls: a row adding any of its sums stays below 2^64 past this */
    uint32_t off, n;              /* its sums by lane: sums[off, off + n) */
    uint32_t foff, nf;            /* its sums by file: fsums[foff, foff + nf) */
    uint32_t ioff, nio;           /* its lanes' I/O: io[ioff, ioff + nio) */
    /* false: too many kinds of calls to be worth it, or sums that
     * saturate (both then): a query that would take those sums scans */
    bool ok, fok;
} dfn_tile;

typedef struct {
    const dfn_store *s;
    const dfn_layerset *ls;       /* the layer set whose masks the sums split by, or NULL */
    size_t n;                     /* the store's calls when built */
    unsigned shift;               /* 1 << shift calls a tile */
    size_t ntiles;                /* whole tiles: the calls past the last are scanned */
    dfn_tile *tiles;
    dfn_tile_sum *sums;           /* by (kind, lane, mask) */
    dfn_tile_sum *fsums;          /* by (kind, file, mask) */
    const dfn_overlap *ov;        /* the overlap (compute and I/O) the lanes' I/O was swept with, or NULL */
    dfn_tile_io *io;
} dfn_tiles;

/* The tiles of s, their sums split by the masks of ls (NULL: none), of
 * 1 << shift calls each (DFN_TILE_SHIFT; tests take small ones, 6 to
 * 13), with their lanes' I/O swept against ov's compute and I/O (NULL:
 * none; its I/O set first, dfn_overlap_set_io). */
dfn_tiles *dfn_tiles_build(const dfn_store *s, const dfn_layerset *ls, const dfn_overlap *ov, unsigned shift);
void dfn_tiles_free(dfn_tiles *t);

#endif
