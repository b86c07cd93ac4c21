/* dfnav extract: a subset of a trace set written back in DFTracer's own
 * format (2.x JSON lines), with the metadata its events need (host and
 * file hashes, process ranks) so that it loads in dfnav and DFAnalyzer
 * with the same figures for the same filter. */
#ifndef DFNAV_EXTRACT_H
#define DFNAV_EXTRACT_H

#include <stdint.h>
#include <stdio.h>

#include "dfnav/store.h"

typedef struct {
    uint64_t events;          /* records of calls (aggregated ones among them) */
    uint64_t metadata;        /* CM (the unit), HH, FH and PR records */
    uint64_t samples;         /* counter records */
    uint64_t processes, files;
} dfn_extract_stats;

/* Writes events (indices into s, in time order) as DFTracer 2.x records:
 * first a [ line and a CM record declaring the time unit (time_metric US,
 * which dfnav reads as an end record's cfg.time_metric), then the HH and
 * FH records of their hosts and files (each given a fresh 64-bit hash,
 * unique in the output) and a PR record with the rank of each process that
 * has one, then the calls (ph 1; aggregated records ph 3 with their
 * dft_cnt and sums), then the counter samples of their hosts while they
 * ran (ph 2), and a ] line. Times are whole µs since the epoch, as dfnav
 * holds them; an end record among the events says so (its
 * cfg.time_metric is written US). Stops at a write error. Returns 0, or
 * -1 with errno set. */
int dfn_extract_write(FILE *out, const dfn_store *s, const uint32_t *events, size_t n, dfn_extract_stats *st);

#endif
