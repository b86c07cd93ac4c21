/* dfnav call rows of shares: report --by event on the shares of a set
 * (MPI ranks, each with a store of its own files) without the set on one
 * rank. A share's rows travel as bytes: each call with its place in the
 * set's order (its time from the set's start, its file's place among the
 * set's files, its place in the share's store, which orders a file's
 * calls of one time as the set's store does), the fields report shows of
 * it (dfn_call_fields) and the value it is sorted by, as the share
 * computed it with the set's total. Rank 0 merges the shares' rows into
 * one result in the set's order, sorted and cut as the query says: the
 * rows one process prints. Every byte that comes is checked. Calls
 * within other groups (--by func,event) are partial results (partial.h)
 * whose call keys are such a row's bytes (dfn_evrow_text). */
#ifndef DFNAV_EVROWS_H
#define DFNAV_EVROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/chrome.h"
#include "dfnav/export.h"
#include "dfnav/query.h"
#include "dfnav/store.h"

/* What a call row holds: the fields report prints, or the parts Chrome
 * output writes. */
typedef enum { DFN_EVROWS_REPORT, DFN_EVROWS_CHROME, DFN_EVROWS_EXTRACT } dfn_evform;

/* A call of a share as a subset writes it (extract.h): whose (the host
 * and rank as text, pid and tid as JSON texts), its process's and
 * thread's names and its file's path when it has them, its time (µs
 * since the epoch) and length, and its record less the hashes: the head
 * up to "args":{ and the arguments' members. */
typedef struct {
    const char *host, *pid, *tid, *rank, *pname, *tname, *path, *head, *args;
    size_t hostlen, pidlen, tidlen, ranklen, pnamelen, tnamelen, pathlen, headlen, argslen;
    bool has_pname, has_tname, has_file;
    uint64_t ts, dur;
} dfn_excall;

/* The first nrows rows of r (a result of s grouped by event alone,
 * already sorted and cut as the set's will be) and what r matched, as
 * bytes, *len of them (malloc'd). place[f]: the place of s's file f
 * among the set's files; sort: the query's metric (values of r's rows),
 * or none when negative or a counter's. s must keep each event's file
 * (evsrc). agg_unit: extract's form, the set's unit of aggregated
 * records' time arguments (dfn_extract_agg_unit). */
uint8_t *dfn_evrows_encode(const dfn_store *s, const dfn_result *r, size_t nrows, const uint32_t *place, int sort,
                           dfn_evform form, dfn_unit agg_unit, size_t *len);
/* Call i of share s as a key of a partial's rows (report --by func,event
 * on the shares): its order bytes and report's fields, as the rows of
 * report's form hold them (malloc'd, *len bytes). place as above. */
uint8_t *dfn_evrow_text(const dfn_store *s, uint32_t i, const uint32_t *place, size_t *len);
/* Whether bytes that came as such a key read whole. */
bool dfn_evrow_text_ok(const uint8_t *t, size_t len);
/* What share s sends for q (grouped by event alone; its analysis
 * applied, whose failure is why_not): q's calls on s, sorted with the
 * set's total time and cut to q's top, or why they are not. total gets
 * this share's total in whole µs and gives the set's; it is called once
 * whatever happens (an MPI sum every rank must join). s NULL: a share
 * without a store. */
uint8_t *dfn_evrows_share(const dfn_store *s, const dfn_query *q, const uint32_t *place, const char *why_not,
                          uint64_t (*total)(uint64_t own), dfn_evform form, dfn_unit agg_unit, size_t *len);
/* The bytes of a share without calls (no store), and of a share whose
 * query (or, analysis, the analysis it needed) failed, with why. */
uint8_t *dfn_evrows_none(size_t *len);
uint8_t *dfn_evrows_failed(const char *why, bool analysis, size_t *len);

typedef struct dfn_evmerge dfn_evmerge;
dfn_evmerge *dfn_evmerge_new(int sort, dfn_evform form);
/* Adds a share's bytes; false, with why in err, when they are a failed
 * share's (*failed 1, or 2 when its analysis failed: its own words) or
 * not rows of this query and build (*failed 0; nothing of them is kept
 * then). */
bool dfn_evmerge_add(dfn_evmerge *m, const uint8_t *buf, size_t len, int *failed, char *err, size_t errlen);
/* The rows as q's result: keys are the calls' bytes (r->keytext) in the
 * set's order, sorted and cut as q says, matched what every share did;
 * agg: the set has aggregated records. m is spent. */
dfn_result *dfn_evmerge_finish(dfn_evmerge *m, const dfn_query *q, bool agg);
void dfn_evmerge_free(dfn_evmerge *m);

/* Whether r's rows are (or group) calls merged from shares: calls alone,
 * or calls within other groups, whose call keys are such bytes. */
bool dfn_evrows_merged(const dfn_result *r);
/* The set's order of the calls of merged rows a and b of r. */
int dfn_evrow_order_cmp(const dfn_result *r, size_t a, size_t b);
/* The start of merged call row `row` of r, in µs from its run's start. */
uint64_t dfn_evrow_ts(const dfn_result *r, size_t row);
/* The parts of merged call row `row` of r in Chrome's form; false (empty
 * texts) when it is of the other form or damaged. */
bool dfn_evrow_chrome(const dfn_result *r, size_t row, dfn_chrome_call *cc);
/* The parts of merged call row `row` of r in extract's form; false when
 * it is of another form or damaged. */
bool dfn_evrow_extract(const dfn_result *r, size_t row, dfn_excall *c);
/* The fields of merged call row `row` of r, as dfn_call_fields gives a
 * store's (arg NULL throughout; calls: with the calls field); false when
 * its bytes are damaged or of Chrome's form (the fields up to there were
 * given). */
bool dfn_evrow_fields(const dfn_result *r, size_t row, bool calls, dfn_call_field_fn fn, void *ctx);

/* Counter samples for Chrome output and subsets of calls merged from
 * shares (evsamples.c): rank 0 says which it takes, the hosts of the
 * calls it prints and their span (the window of r, merged calls of
 * Chrome's or extract's form); each share sends its samples there, whose
 * they are with them;
 * rank 0 adds each share's bytes (buf, malloc'd: kept, or freed when
 * refused, with why in err) to r and puts them in one process's store
 * order, which dfn_chrome_write then reads. */
uint8_t *dfn_evwindow_of(const dfn_result *r, size_t *len);
/* The window of hosts and span (µs since the epoch, lo to hi), as bytes;
 * the window of a share's own calls (its bytes for rank 0, of extract's
 * form; NULL when they are not whole), which rank 0 unites over the
 * shares (NULL when a window is not whole): the window of the calls
 * merged from them, known before they merge. */
uint8_t *dfn_evwindow_make(const dfn_strtab *hosts, uint64_t lo, uint64_t hi, size_t *len);
uint8_t *dfn_evrows_window(const uint8_t *buf, size_t len, size_t *wlen);
uint8_t *dfn_evwindow_union(char *const *windows, const size_t *lens, size_t n, size_t *len);
/* Whether window inner lies within outer (its hosts among outer's, its
 * span inside outer's; false when either is not whole). */
bool dfn_evwindow_within(const uint8_t *inner, size_t ilen, const uint8_t *outer, size_t olen);
uint8_t *dfn_evsamples_share(const dfn_store *s, const uint8_t *window, size_t wlen, size_t *len);
bool dfn_evsamples_add(dfn_result *r, uint8_t *buf, size_t len, char *err, size_t errlen);
void dfn_evsamples_finish(dfn_result *r);
size_t dfn_evrow_samples(const dfn_result *r, const dfn_chrome_sample **out);
void dfn_evsamples_free(struct dfn_evsamples *x);
void dfn_evrowtab_free(struct dfn_evrowtab *t);

#endif
