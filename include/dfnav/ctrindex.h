/* dfnav counter index: the samples of the counter series a query asks
 * for (ctr.SERIES metrics), by where they count and by time, so that the
 * samples inside a stretch of a row's calls are two binary searches. A
 * sample of a process that made calls counts for that process's calls;
 * one of a process without calls (DFTracer's telemetry service) for the
 * calls of its host. Sums are fixed point (2^-24), so that they add up
 * exactly in any order and a mean never depends on the thread count. */
#ifndef DFNAV_CTRINDEX_H
#define DFNAV_CTRINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/store.h"

typedef struct dfn_ctrindex dfn_ctrindex;
typedef __int128 dfn_ctrsum;

/* For the series names (n of them) of s; proc_of_lane and nprocs as
 * dfn_store_procs gives them. NULL with a message naming the series the
 * store has when one is unknown, unless lenient: then it has no sample
 * (a share of a set, which another share may have). */
dfn_ctrindex *dfn_ctrindex_build(const dfn_store *s, char *const *names, size_t n, const uint32_t *proc_of_lane,
                                 size_t nprocs, bool lenient, char *err, size_t errlen);
/* Where the calls of lane l gather samples: its process, and its host
 * (a key past the processes). */
uint32_t dfn_ctrindex_proc_key(const dfn_ctrindex *x, uint32_t lane);
uint32_t dfn_ctrindex_host_key(const dfn_ctrindex *x, uint32_t lane);
/* Adds the samples of series k at key in [a, b) (µs from the store's
 * start) to *n and *sum. */
void dfn_ctrindex_stretch(const dfn_ctrindex *x, size_t k, uint32_t key, uint64_t a, uint64_t b, uint64_t *n,
                          dfn_ctrsum *sum);
double dfn_ctrindex_mean(dfn_ctrsum sum, uint64_t n);
void dfn_ctrindex_free(dfn_ctrindex *x);

#endif
