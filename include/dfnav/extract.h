/* dfnav extract: a subset of a trace set written back in DFTracer's own
 * format (2.x JSON lines), with the metadata its events need (host and
 * file hashes, process ranks) so that it loads in dfnav and DFAnalyzer
 * with the same figures for the same filter. */
#ifndef DFNAV_EXTRACT_H
#define DFNAV_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dfnav/map64.h"
#include "dfnav/query.h"
#include "dfnav/strtab.h"
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

/* The parts of a subset, for subsets written from calls merged from
 * shares (evrows.h) as from a store. */

/* The unit of the time arguments of s's aggregated records: that of
 * every file with some, DFN_UNIT_NONE when they differ, DFN_UNIT_US when
 * there are none (*any false). */
dfn_unit dfn_extract_agg_unit(const dfn_store *s, bool *any);
/* Call i of s as a subset writes it, less its host's and file's hashes:
 * its head, {"name":..,"cat":..,..,"args":{, and its arguments' members
 * (a comma first when sep), aggregated records' time arguments in µs
 * from agg_unit (dfn_extract_agg_unit of the set). */
void dfn_extract_call_head(FILE *out, const dfn_store *s, uint32_t i);
void dfn_extract_call_args(FILE *out, const dfn_store *s, uint32_t i, dfn_unit agg_unit, dfn_arg *args, bool sep);
/* A pid or tid as the subset writes it (a number, or a name as a JSON
 * string) into *buf (grown as needed); its length. */
size_t dfn_extract_id_json(const dfn_store *s, int64_t v, char **buf, size_t *cap);
/* A hash for text t, unique among those in taken (which it joins). */
uint64_t dfn_extract_hash(dfn_map64 *taken, const char *t, size_t len);
/* Metadata records: the unit (CM: time_metric US), a host's or file's
 * hash (HH, FH: text its name, hash its hash), a process's rank (PR:
 * text the number) and a process's or thread's name (text the name). */
typedef enum { DFN_XMETA_CM, DFN_XMETA_HH, DFN_XMETA_FH, DFN_XMETA_PR, DFN_XMETA_PNAME, DFN_XMETA_TNAME } dfn_xmeta;
/* A metadata record of kind, whose pid and tid (JSON texts; a thread's
 * name's tid is the thread's, else the pid) and host's hash (when hh). */
void dfn_extract_meta(FILE *out, dfn_xmeta kind, const char *pid, size_t pl, const char *tid, size_t tl,
                      const uint64_t *hh, const char *text, size_t len, uint64_t hash);
/* Subsets of calls merged from shares (exrows.c). A share's processes
 * with calls (host and pid), as bytes, *len of them (malloc'd; s NULL: a
 * share without a store has none); added to callers on rank 0, every
 * byte checked (false, with why in err). */
uint8_t *dfn_extract_callers(const dfn_store *s, size_t *len);
bool dfn_extract_callers_add(dfn_strtab *callers, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* A process's key among callers: its host's text and its pid's JSON
 * text (dfn_extract_id_json's); malloc'd, *len bytes. */
uint8_t *dfn_extract_proc_key(const char *host, size_t hl, const char *pid, size_t pl, size_t *len);
/* Writes calls merged from shares (r: extract's form, in the set's
 * order, with the shares' counter samples of their window added) as
 * dfn_extract_write writes them from the set's store; callers: every
 * process of the set with calls. */
int dfn_extract_write_rows(FILE *out, const dfn_result *r, const dfn_strtab *callers, dfn_extract_stats *st);
/* How many of r's calls end past end_us (µs from the set's start). */
uint64_t dfn_extract_rows_past(const dfn_result *r, uint64_t end_us);
/* A counter sample's record: series NAME.FIELD, pid a JSON text, the
 * host's hash when hh. */
void dfn_extract_sample(FILE *out, const char *series, size_t len, const char *pid, size_t pl, uint64_t ts,
                        const uint64_t *hh, double value);

#endif
