/* dfnav overlap: each process's compute time as a union of intervals, so
 * that a query can tell how much of a row's I/O was hidden behind compute
 * and how much was exposed. Compute is a filter over events (by default
 * the layer named "compute"); a process is (host, pid). Built once per
 * store and compute definition, read-only afterwards. */
#ifndef DFNAV_OVERLAP_H
#define DFNAV_OVERLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/filter.h"
#include "dfnav/match.h"
#include "dfnav/store.h"

typedef struct dfn_overlap dfn_overlap;

/* The compute definition used when none is given: "layer=compute" when the
 * layers define one, else NULL (no compute: all I/O is exposed). */
const char *dfn_overlap_default(const dfn_layers *l);
/* compute may be NULL: then nothing is compute. ls is needed when the
 * filter names layers. by_host: I/O counts as hidden behind compute of
 * any process on its host (forked data-loader workers read for the main
 * process's compute), not only of its own process. */
dfn_overlap *dfn_overlap_build(const dfn_store *s, const dfn_layerset *ls, const dfn_filter *compute,
                               bool by_host, char *err, size_t errlen);
static inline bool dfn_overlap_is_compute(const uint64_t *bits, size_t i) { return bits[i >> 6] >> (i & 63) & 1; }
/* One bit per event: set for compute events. */
const uint64_t *dfn_overlap_bits(const dfn_overlap *o);
/* Process (or host) index of each lane: the unit compute is united by. */
const uint32_t *dfn_overlap_procs(const dfn_overlap *o, size_t *nprocs);
/* Length of [a, b) covered by process proc's compute. */
uint64_t dfn_overlap_covered(const dfn_overlap *o, uint32_t proc, uint64_t a, uint64_t b);
/* The stretch [*lo, *hi) around x with no compute of process proc (an
 * empty one at x when x is inside compute): spans within it are not
 * covered, which a sweep can tell without asking again. */
void dfn_overlap_gap(const dfn_overlap *o, uint32_t proc, uint64_t x, uint64_t *lo, uint64_t *hi);
/* What counts as I/O for io_busy_s and exposed_s: the events the filter
 * io matches (--io: app-level reads such as cat=IO), instead of POSIX and
 * STDIO calls. False with a message when it does not compile. */
bool dfn_overlap_set_io(dfn_overlap *o, const dfn_store *s, const dfn_layerset *ls, const dfn_filter *io, char *err,
                        size_t errlen);
/* One bit per event set by dfn_overlap_set_io, or NULL (POSIX and STDIO). */
const uint64_t *dfn_overlap_io_bits(const dfn_overlap *o);
/* Events the definition matched: none leaves compute, exposure and
 * overlap undefined rather than "all I/O exposed". */
uint64_t dfn_overlap_ncompute(const dfn_overlap *o);
/* What to tell the user when the definition matched nothing, or false;
 * brief: in a status line's 80 columns. */
bool dfn_overlap_note(const dfn_overlap *o, bool brief, char *buf, size_t cap);
/* The same of a definition's text (dfn_overlap_text) and the events it
 * matched: of shares of a set, their sum. */
bool dfn_overlap_note_of(const char *text, uint64_t ncompute, bool brief, char *buf, size_t cap);
/* The definition's text, for titles and notes ("" when none). */
const char *dfn_overlap_text(const dfn_overlap *o);
void dfn_overlap_free(dfn_overlap *o);

#endif
