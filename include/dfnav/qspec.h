/* dfnav query specs: a query as bytes, for ranks that each hold a share
 * of a set and answer it there with a partial (partial.h): the
 * explorer's queries on a set held across MPI ranks.
 *
 * The bytes say what a query asks, never what one store has: dimensions
 * and arguments by name, the filter as its text (which the receiver's
 * parser reads again, checking it as it checks a typed one), metrics,
 * bins, sparklines, sort and top, counter series by name. A filter goes
 * only when its text reads back to the very terms: a drill into an
 * argument whose name holds an operator does not, and such a query does
 * not travel (said).
 *
 * Not in the bytes, as the receiver's own: the indexes a query points to
 * (layers, overlap, call tree, access, tiles), of which the bytes say
 * only which the sender's query had; what they were built from (the
 * layers' definition, the compute and I/O definitions), which every rank
 * of a set takes from one command line; and share, set_compute, place,
 * only and threads (a result never depends on threads). Decoding trusts
 * nothing: every number is bounded, every name checked. */
#ifndef DFNAV_QSPEC_H
#define DFNAV_QSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/counters.h"
#include "dfnav/filter.h"
#include "dfnav/query.h"

typedef struct {
    dfn_query q;              /* its filter and counters point into this spec */
    dfn_filter filter;
    dfn_ctrs ctrs;
    /* which indexes the sender's query had: the receiver's query needs
     * its own of each (dfn_analysis_apply, its layer set) */
    bool layers, overlap, tree, access;
} dfn_qspec;

/* Bytes of q (malloc'd, *len of them); NULL, with why, when its filter
 * cannot travel as text. */
uint8_t *dfn_qspec_encode(const dfn_query *q, size_t *len, char *err, size_t errlen);
/* The query of bytes of dfn_qspec_encode into out; false with a message
 * (naming what is wrong) when they are not one. */
bool dfn_qspec_decode(const uint8_t *buf, size_t len, dfn_qspec *out, char *err, size_t errlen);
void dfn_qspec_free(dfn_qspec *s);

/* A counter query (counters.h: an explorer's tracks) as bytes, the same
 * way: its dimensions, filter text, bins, window and whether the filter
 * is a selection of events; not its span or set-wide selection, which
 * the receiving share makes with the others. */
typedef struct {
    dfn_cquery q;             /* its filter points into this spec */
    dfn_filter filter;
} dfn_cqspec;
uint8_t *dfn_cqspec_encode(const dfn_cquery *q, size_t *len, char *err, size_t errlen);
bool dfn_cqspec_decode(const uint8_t *buf, size_t len, dfn_cqspec *out, char *err, size_t errlen);
void dfn_cqspec_free(dfn_cqspec *s);

#endif
