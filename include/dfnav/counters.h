/* dfnav counter queries: the samples of time series kept beside the events
 * (CPU, memory, disk, network, GPU use: DFTracer 2.x ph 2, Chrome "C"),
 * filtered and grouped by series, time bin, host and pid into samples,
 * mean, min and max per row. `report --counters` and the explorer's
 * counter tracks read them through here. */
#ifndef DFNAV_COUNTERS_H
#define DFNAV_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/filter.h"
#include "dfnav/fsum.h"
#include "dfnav/store.h"
#include "dfnav/strtab.h"

typedef enum { DFN_CDIM_COUNTER, DFN_CDIM_TIME, DFN_CDIM_HOST, DFN_CDIM_PID, DFN_CDIM_COUNT } dfn_cdim;

#define DFN_CDIMS_MAX 4

typedef struct {
    dfn_cdim dims[DFN_CDIMS_MAX];
    size_t ndims;             /* the series is always the first key of a row */
    const dfn_filter *filter; /* terms on counter, host, pid, time; may be NULL */
    double bin_s;             /* time bins; 0 = chosen from the window */
    /* The explorer's tracks: nbins bins over [win_lo_s, win_hi_s), seconds
     * from the store's start, the same whole-µs bins as the events'
     * sparkline of that window (dfn_query's spark_bins); 0 = bins of
     * bin_s from the trace start, as the events' (see dfn_cresult). */
    size_t nbins;
    double win_lo_s, win_hi_s;
    /* The filter selects events, not samples (an explorer level): its
     * process terms (host, pid, tid, proc, rank) keep the samples of the
     * processes they select and the host-wide ones of those processes'
     * hosts (samples of processes that made no calls, such as DFTracer's
     * telemetry service); its time terms bound the samples; terms about
     * calls (cat, func, file, dur, ...) say nothing of counters and are
     * passed over. */
    bool selection;
    /* A share of a set (MPI), or NULL: the set's time origin and the
     * first and last of its samples, absolute µs (no samples: lo > hi),
     * so that the share's times, window and bins are the set's. The share
     * may have no store then (dfn_counters_query's s NULL: no rows). */
    const struct dfn_cspan *span;
    /* A share's selection (MPI): the set's hosts whose processes the
     * filter's process terms keep, and the set's processes with calls
     * (dfn_extract_callers' keys), which a share's own lanes do not all
     * know: a host-wide sampler of one rank belongs to a process another
     * rank holds. NULL: the store's own lanes. */
    const struct dfn_csel *set_sel;
} dfn_cquery;

typedef struct dfn_csel { struct dfn_strtab *hosts, *callers; } dfn_csel;
/* The hosts of s's processes that filter f's process terms keep, by
 * their text, as bytes (malloc'd, *len; none when f has no process
 * term): each rank's part of a dfn_csel, which dfn_csel_hosts_add unites
 * (false with why for bytes that are not such). */
uint8_t *dfn_counters_select_hosts(const dfn_store *s, const dfn_filter *f, size_t *len);
bool dfn_csel_hosts_add(dfn_csel *c, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Whether f has terms on processes (host, pid, tid, proc, rank). */
bool dfn_counters_sel_wanted(const dfn_filter *f);

typedef struct dfn_cspan { uint64_t t0, lo, hi; } dfn_cspan;

typedef struct {
    uint64_t key[DFN_CDIMS_MAX];   /* series index, bin (an int64: negative before the start), host string id, pid */
    uint64_t samples;
    double sum, min, max;     /* sum: xs's value, the double nearest the exact sum, in any order */
    dfn_fsum xs;              /* the exact sum, which merges */
} dfn_crow;

typedef struct {
    dfn_cdim dims[DFN_CDIMS_MAX];
    size_t ndims;
    dfn_crow *rows;
    size_t nrows;
    /* Bin k starts at win_lo_s + k * bin_s, seconds from the store's start:
     * win_lo_s is 0 (or where time terms narrow the window to), where the
     * events' bins start too, and a sample before it is in a bin k < 0. */
    double bin_s, win_lo_s, win_hi_s;
    size_t nbins;             /* the query's nbins: a time key is a bin index of those */
    /* merged rows of shares (dfn_counters_merge): keys by text, the
     * series' and hosts' ids of keytext, a pid a number or a named id of
     * keytext (DFN_ID_NAMED_BASE + id); NULL for a store's rows */
    dfn_strtab *keytext;
} dfn_cresult;

/* "counter,time,host,pid" (any order, each once; counter is added first
 * when missing). False with a message. */
bool dfn_cdims_parse(const char *text, dfn_cdim *dims, size_t *n, char *err, size_t errlen);
const char *dfn_cdim_name(dfn_cdim d);
/* Rows in key order (series name, time, host, pid: numbers before names,
 * names by their text, whatever the thread count). False with a message
 * for filter terms counters do not have. */
bool dfn_counters_query(const dfn_store *s, const dfn_cquery *q, dfn_cresult *out, char *err, size_t errlen);
/* Whether the terms of q are ones counters have; false with a message. */
bool dfn_counters_check(const dfn_cquery *q, char *err, size_t errlen);
/* The rows of a share as bytes (keys by their text, exact sums): what an
 * MPI rank sends up the tree to rank 0; s is NULL for merged rows. */
uint8_t *dfn_counters_encode(const dfn_store *s, const dfn_cresult *r, size_t *len);
/* The rows in bytes from a share added into into, a result of the same
 * query (its window from the same span) that keeps its keys by text:
 * started empty by dfn_counters_query with a span and no store, as rank 0
 * may have none. False with a message for bytes that are not such rows;
 * into may then hold some of them. */
bool dfn_counters_merge(dfn_cresult *into, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* The row of key (DFN_CDIMS_MAX of them) in r, added empty when new; keys
 * holds the rows' keys as bytes, row k's the k-th, and *cap r's room. */
dfn_crow *dfn_cresult_row(dfn_cresult *r, dfn_strtab *keys, size_t *cap, const uint64_t *key);
/* Merged rows in key order, their sums their exact sums' values. */
void dfn_counters_finish(dfn_cresult *r);
/* The text of key k of a row (series name, bin start in seconds, host, pid). */
size_t dfn_crow_key_text(const dfn_store *s, const dfn_cresult *r, const dfn_crow *row, size_t k, char *buf, size_t cap);
void dfn_cresult_free(dfn_cresult *r);

#endif
