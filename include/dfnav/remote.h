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
#include "dfnav/counters.h"
#include "dfnav/diagnose.h"
#include "dfnav/query.h"
#include "dfnav/store.h"

/* Answers run's rows of q (the query as dfn_compare_query made it for
 * that run, its bins included), or NULL with why in err; *ncompute (when
 * not NULL) gets the compute events of the set's overlap, as
 * dfn_diag_src's runner gives them. */
/* A query of calls (grouped by event alone) gives rows of a store of its
 * own (the result's owned): the calls, sent by the holders, loaded here
 * with the run's span; its matched and sparklines are the set's.
 * call_place: the call detail's lines (callplace.h) of call i of s (a
 * store of the run's calls), made where its process is held; NULL with
 * why.
 * arg_names: the names of the arguments of run's calls that q's filter
 * selects, sorted (malloc'd, each malloc'd; *n), or NULL with why.
 * counters: run's counter rows of q into out, as a store of the run's
 * outline gives them (a series is its index in the outline store's
 * series), finished; false with why in err. */
typedef struct dfn_remote {
    dfn_result *(*query)(void *ctx, size_t run, const dfn_query *q, uint64_t *ncompute, char *err, size_t errlen);
    bool (*counters)(void *ctx, size_t run, const dfn_cquery *q, dfn_cresult *out, char *err, size_t errlen);
    char **(*arg_names)(void *ctx, size_t run, const dfn_query *q, size_t *n, char *err, size_t errlen);
    char **(*call_place)(void *ctx, size_t run, const dfn_store *s, uint32_t i, size_t *n, char *err, size_t errlen);
    void *ctx;
    const struct dfn_outline *outline;   /* what the runs are (their stores are the view's) */
} dfn_remote;

typedef struct {
    char *label;              /* comparing: the run's name; NULL for one run */
    char *preset;             /* the layers' preset the set takes without --layers (its own choice) */
    char *why;                /* why that one ("" when none is said) */
    bool agg;                 /* some share has aggregated records */
    uint64_t t0, t1;          /* absolute µs over the shares; t0 UINT64_MAX: no events */
    uint64_t events;          /* over the shares */
    char **series;            /* the counter series some share has samples of, by name */
    bool many_hosts;          /* its processes run on more than one host */
    /* each host's files lie on one rank: counter metrics of rows (ctr.*),
     * whose host-wide samples may be in another process's files, need it */
    bool hosts_whole;
    size_t nseries;
    /* the store that stands for the run here: its files and their
     * accounts, span and counter series, no events (the ranks': rank 0's
     * account of the files alone); malloc'd */
    dfn_store *store;
} dfn_outline_run;

typedef struct dfn_outline {
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

/* Where the diagnosis of a remote run (run->remote set) runs its
 * queries: through its remote, whose holders have every index. */
dfn_diag_src dfn_remote_diag_route(const dfn_run *run);

/* Merged counter rows (keys by text) in the form of outline store s's
 * own rows: each series its index in s's series; false with why when a
 * row's series is none of s's. */
bool dfn_remote_relabel_counters(const dfn_store *s, dfn_cresult *r, char *err, size_t errlen);

#endif
