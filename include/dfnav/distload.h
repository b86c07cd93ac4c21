/* dfnav distributed load: every rank of an MPI job loads its share of a
 * set at once, and rank 0 hears how each load goes. A set too big for
 * one node loads for minutes on its ranks; a server's clients see that
 * progress (how much of the set's bytes, how many events, which rank is
 * slowest), and the server's log how long each rank took, which shows
 * a plan whose bytes balance but whose time does not. */
#ifndef DFNAV_DISTLOAD_H
#define DFNAV_DISTLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/loader.h"

/* One rank's load, as last heard. */
typedef struct {
    uint64_t bytes_done, bytes_total;   /* as stored (compressed for gzip) */
    uint64_t events;
    uint64_t unsized;                   /* files of no known size: no percent */
    double elapsed_s;
    bool heard;                         /* it has told rank 0 at least once */
    bool building, done;
} dfn_rank_load;

typedef struct {
    int nranks;
    dfn_rank_load *rank;                /* nranks of them */
} dfn_dist_progress;

/* What rank 0 is told, as often as every quarter second and once when
 * every rank is done (p->rank[r].done for all r): from rank 0's thread
 * that loads. */
typedef void (*dfn_dist_say)(void *ctx, const dfn_dist_progress *p);

/* This rank's share (n files, maybe none) loaded as dfn_load loads
 * them, while the ranks tell rank 0 how their loads go (rank 0's say,
 * which may be NULL). Every rank calls it at once. One rank: dfn_load
 * with say. */
dfn_store *dfn_dist_load(const char *const *files, size_t n, const dfn_load_opts *lo, dfn_dist_say say, void *ctx);

/* How the ranks' loads go, on one line (no end of line): "45% of 7.5GiB,
 * 12345678 events; 1 of 4 ranks done, the slowest (rank 2) at 30%", or
 * while some rank has not been heard, how many have; once every rank is
 * done, how long each took ("7.5GiB, 12345678 events in 3.2 s; the
 * slowest, rank 2, 3.2 s, the fastest, rank 0, 2.9 s"). The line's length. */
size_t dfn_dist_progress_text(const dfn_dist_progress *p, char *buf, size_t cap);

#endif
