/* Test helpers over the engine: load trace text through the real loader,
 * run a query or a comparison from text, and read a result's rows by key
 * text. */
#ifndef DFNAV_STOREUTIL_H
#define DFNAV_STOREUTIL_H

#include "dfnav/compare.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/query.h"
#include "dfnav/layers.h"

/* Writes text to a fresh file NAME in a temp dir and loads it. */
dfn_store *su_load_text(const char *name, const char *text, int threads);
/* Loads files with the given threads and block size. */
dfn_store *su_load_paths(const char *const *paths, size_t n, int threads, size_t block);
/* One ph=X event line of trace text (args is the inside of "args":{}). */
#define EV(name, cat, pid, tid, ts, dur, args) \
    "{\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur ",\"ph\":\"X\",\"args\":{" args "}}\n"

/* The preset's layers compiled for s, kept until the test process ends. */
dfn_layerset *su_layerset(const dfn_store *s, const char *preset);
/* Parses BY into q's dimensions, runs q, asserts a result, frees the dims. */
dfn_result *su_run(const dfn_store *s, dfn_query *q, const char *by);
/* Runs "--by BY --where WHERE" with the preset layers; aborts on error. */
dfn_result *su_query(const dfn_store *s, const char *layers, const char *by, const char *where);
/* Row whose key text (dims joined by '|') equals key, or -1. */
long su_row(const dfn_store *s, const dfn_result *r, const char *key);
/* The same, asserting that the row exists. */
size_t su_row_req(const dfn_store *s, const dfn_result *r, const char *key);
double su_metric(const dfn_store *s, const dfn_result *r, const char *key, dfn_metric m);
/* Compares the first nruns stores (names NULL: one run, unnamed) by BY,
 * filtered by WHERE (NULL: all events), with q's metrics, sort, desc and
 * top and the posix layers; aborts on error. */
dfn_compare *su_compare(const dfn_store *const *stores, size_t nruns, const char *const *names, dfn_query q,
                        const char *by, const char *where, int col);
/* What dfn_compare_write writes in fmt, malloc'd. */
char *su_compare_text(const dfn_compare *c, dfn_format fmt);
/* The folder of real traces, or NULL (tests then skip with a message). */
const char *su_traces_dir(void);

#endif
