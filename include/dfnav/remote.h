/* dfnav remote sets: a set whose events another process holds (the MPI
 * ranks of dfnav serve --spread, each with a share), explored from here.
 * What this process has of such a set is its outline: each run's span,
 * events, aggregated records, the layers' preset the ranks took, and its
 * files with their accounts (damage, units), but no event. Its queries go
 * through a hook (dfn_remote) that answers with the rows a store holding
 * the whole set gives (the ranks' partials, merged and finished).
 *
 * The outline travels as bytes from the ranks; its decoder trusts
 * nothing (every count bounded by the bytes left, every text checked). */
#ifndef DFNAV_REMOTE_H
#define DFNAV_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/compare.h"
#include "dfnav/diagnose.h"
#include "dfnav/query.h"
#include "dfnav/store.h"

/* Answers run's rows of q (the query as dfn_compare_query made it for
 * that run, its bins included), or NULL with why in err; *ncompute (when
 * not NULL) gets the compute events of the set's overlap, as
 * dfn_diag_src's runner gives them. */
typedef struct dfn_remote {
    dfn_result *(*query)(void *ctx, size_t run, const dfn_query *q, uint64_t *ncompute, char *err, size_t errlen);
    void *ctx;
} dfn_remote;

typedef struct {
    char *label;              /* comparing: the run's name; NULL for one run */
    char *preset;             /* the layers' preset the ranks took without --layers ("" with it) */
    char *why;                /* why that one ("" when none is said) */
    bool agg;                 /* some share has aggregated records */
    uint64_t t0, t1;          /* absolute µs over the shares; t0 UINT64_MAX: no events */
    uint64_t events;          /* over the shares */
    dfn_store *sources;       /* its files and their accounts, no events; malloc'd */
} dfn_outline_run;

typedef struct {
    dfn_outline_run *run;
    size_t n;
} dfn_outline;

/* The outline as bytes (malloc'd, *len); each run's sources as
 * dfn_image_sources_encode gives them. */
uint8_t *dfn_outline_encode(const dfn_outline *o, size_t *len);
/* Bytes of dfn_outline_encode into out (free with dfn_outline_free
 * either way); false with why in err when they are not one. */
bool dfn_outline_decode(const uint8_t *b, size_t len, dfn_outline *out, char *err, size_t errlen);
void dfn_outline_free(dfn_outline *o);
/* Run k's store for the explorer: its sources, span and no events (taken
 * over from the outline: its sources become NULL). */
dfn_store *dfn_outline_store(dfn_outline *o, size_t k);

/* Where the diagnosis of a remote run (run->remote set) runs its
 * queries: through its remote, whose holders have every index. */
dfn_diag_src dfn_remote_diag_src(const dfn_run *run);

#endif
