/* dfnav Chrome trace export: the calls of a selection as Chrome trace-event
 * JSON (the JSON object format), which Perfetto UI and chrome://tracing
 * open: a track per process and thread with their names, each call with
 * its arguments, and the counter samples of the selection's hosts and time
 * as counter tracks, all in the trace's own clock (µs since the epoch).
 * The calls are a store's, or merged from the shares of a set (MPI ranks,
 * evrows.h), which send them in the parts below. */
#ifndef DFNAV_CHROME_H
#define DFNAV_CHROME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dfnav/compare.h"
#include "dfnav/store.h"

/* Writes the calls of c (a comparison whose rows are calls: grouped by
 * event) with their tracks and counters. Several runs get tracks of their
 * own, their process names prefixed with the run's name. Stops between
 * calls once *cancel is set (NULL: never), failing with ECANCELED.
 * Returns 0, or -1 with errno set. */
int dfn_chrome_write(FILE *out, const dfn_compare *c, atomic_bool *cancel);

/* Whose a call or a counter sample is, as the tracks name it: its
 * process's host, pid and rank ("" when none) and, for a call, its
 * thread's tid, as text (a number's digits, or the name), with the
 * values (a named one: dfn_id_named) that say whether the trace's own
 * ids can be the tracks'. */
typedef struct {
    const char *host, *pid, *tid, *rank;
    size_t hostlen, pidlen, tidlen, ranklen;
    int64_t pidv, tidv;
} dfn_chrome_who;

/* A call of a share: whose, when (µs since the epoch) and its text: the
 * name and category members and the arguments' member as the export
 * writes them. */
typedef struct {
    dfn_chrome_who who;
    uint64_t ts, dur;
    const char *head, *args;
    size_t headlen, argslen;
} dfn_chrome_call;

/* A counter sample of a share: whose (no thread), its series, time and value. */
typedef struct {
    dfn_chrome_who who;
    const char *series;
    size_t serieslen;
    uint64_t ts;
    double value;
} dfn_chrome_sample;

/* Each process's rank in a store: that of its first thread (in the
 * store's order) with one. */
typedef struct dfn_chrome_ranks dfn_chrome_ranks;
dfn_chrome_ranks *dfn_chrome_ranks_new(const dfn_store *s);
void dfn_chrome_ranks_free(dfn_chrome_ranks *r);

/* Whose thread lane of s is (texts in s's strings, or in pid and tid). */
void dfn_chrome_who_of(const dfn_store *s, const dfn_chrome_ranks *rk, uint32_t lane, dfn_chrome_who *w, char pid[32],
                       char tid[32]);
/* Whose sample x of s is. */
void dfn_chrome_sample_who(const dfn_store *s, const dfn_chrome_ranks *rk, const dfn_sample *x, dfn_chrome_who *w,
                           char pid[32]);
/* Call i of s's name and category members, and its arguments' member
 * (args: room for DFN_ARGS_MAX; added: the string ids in s of the
 * names the export adds, "file", "bytes" and "calls", which
 * dfn_chrome_added gives once a store). */
void dfn_chrome_call_head(FILE *out, const dfn_store *s, uint32_t i);
void dfn_chrome_call_args(FILE *out, const dfn_store *s, uint32_t i, dfn_arg *args, const uint32_t added[3]);
void dfn_chrome_added(const dfn_store *s, uint32_t added[3]);

#endif
