/* Fuzz target for the partial results MPI ranks send each other
 * (partial.h): the input is the bytes of one, as a rank reads them from
 * another. One that decodes must encode to bytes that decode again and
 * encode to as many bytes (the same entries, its maps' perhaps in another
 * order), merge with its copy (the same query and window), be cut into
 * busy-time slices and finish into rows; nothing may read past the input,
 * nor a finish index past a row or counter it was given. The same bytes
 * are tried as the counter rows of a share (report --counters) and as a
 * share's calls (report --by event), which are printed. */
#include "dfnav/counters.h"
#include "dfnav/evrows.h"
#include "dfnav/export.h"
#include "dfnav/extract.h"
#include "dfnav/jsonget.h"
#include "dfnav/partial.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The query a partial says it is of: its dimensions, metrics and counters
 * (the counters' names are the finish's, any will do). */
static void query_of(const dfn_partial *p, dfn_query *q, dfn_ctrs *ctrs)
{
    static char name[] = "x";
    memset(q, 0, sizeof *q);
    q->sort = -1;
    q->ndims = p->ndims;
    memcpy(q->dims, p->dims, sizeof q->dims);
    q->metrics = p->metrics;
    q->sizes = p->sizes;
    ctrs->n = p->nctr;
    for (size_t k = 0; k < p->nctr; k++) ctrs->series[k] = name;
    q->ctrs = p->nctr ? ctrs : NULL;
}

/* The input as the counter rows of a share (cpartial.c), merged twice
 * into rows of each grouping (the second time onto rows it made), then
 * finished and read as text; nothing may read past it. */
static void counters_of(const uint8_t *data, size_t size)
{
    static const dfn_cdim dims[][DFN_CDIMS_MAX] = {
        { DFN_CDIM_COUNTER }, { DFN_CDIM_COUNTER, DFN_CDIM_TIME, DFN_CDIM_HOST, DFN_CDIM_PID },
    };
    static const size_t nd[] = { 1, 4 };
    char err[512], buf[64];
    for (size_t g = 0; g < 2; g++) {
        dfn_cspan span = { 0, 1, 0 };
        dfn_cquery q = { .ndims = nd[g], .span = &span };
        memcpy(q.dims, dims[g], sizeof q.dims);
        dfn_cresult r;
        if (!dfn_counters_query(NULL, &q, &r, err, sizeof err)) abort();   /* (a set without samples: its window) */
        if (dfn_counters_merge(&r, data, size, err, sizeof err)) {
            if (!dfn_counters_merge(&r, data, size, err, sizeof err)) abort();   /* the same bytes again */
            dfn_counters_finish(&r);
            for (size_t i = 0; i < r.nrows; i++)
                for (size_t k = 0; k < r.ndims; k++) dfn_crow_key_text(NULL, &r, &r.rows[i], k, buf, sizeof buf);
        }
        dfn_cresult_free(&r);
    }
}

/* Every byte of a field a merged call gives is read. */
static void field_read(void *ctx, const dfn_arg *arg, const char *name, size_t nlen, const char *text, size_t len,
                       bool num)
{
    unsigned *sum = ctx;
    (void)arg;
    for (size_t k = 0; k < nlen; k++) *sum += (unsigned char)name[k];
    for (size_t k = 0; k < len; k++) *sum += (unsigned char)text[k] + num;
}

/* A subset written from merged calls (exrows.c), the input as processes
 * with calls too: whatever a rank sent, each line between the brackets
 * is one JSON object. */
static void subset_of(const dfn_result *r, const uint8_t *data, size_t size)
{
    char err[512], *text = NULL;
    size_t len = 0;
    dfn_strtab *callers = dfn_strtab_new();
    dfn_extract_stats st;
    (void)dfn_extract_callers_add(callers, data, size, err, sizeof err);
    FILE *m = open_memstream(&text, &len);
    if (!m) abort();
    (void)dfn_extract_write_rows(m, r, callers, &st);
    fclose(m);
    dfn_strtab_free(callers);
    if (len < 4 || memcmp(text, "[\n", 2) != 0 || memcmp(text + len - 2, "]\n", 2) != 0) abort();
    for (size_t at = 2; at < len - 2;) {
        const char *nl = memchr(text + at, '\n', len - 2 - at);
        if (!nl) abort();
        size_t l = (size_t)(nl - (text + at));
        if (!l || text[at] != '{' || !dfn_json_valid(text + at, l)) abort();
        at += l + 1;
    }
    free(text);
}

/* The input as a share's calls (evrows.c) in each form, merged twice,
 * without and with a sort, finished, each row's fields read and the rows
 * printed as JSON, as a table and as Chrome output or written as a
 * subset (exrows.c), with the input as counter samples too (evsamples.c)
 * and as processes with calls; nothing may read past it. */
static void calls_of(const uint8_t *data, size_t size)
{
    static const int sorts[] = { -1, DFN_M_TIME_S };
    static const dfn_format fmts[] = { DFN_FMT_JSON, DFN_FMT_TABLE, DFN_FMT_CHROME, DFN_FMT_CHROME, 0, 0 };
    char err[512];
    for (size_t g = 0; g < 6; g++) {
        dfn_query q = { .ndims = 1, .sort = sorts[g & 1], .desc = g & 1, .top = g & 1 ? 3 : 0 };
        q.dims[0].kind = DFN_DIM_EVENT;
        dfn_evform form = g < 2 ? DFN_EVROWS_REPORT : g < 4 ? DFN_EVROWS_CHROME : DFN_EVROWS_EXTRACT;
        dfn_evmerge *m = dfn_evmerge_new(q.sort, form);
        int failed;
        if (dfn_evmerge_add(m, data, size, &failed, err, sizeof err) &&
            !dfn_evmerge_add(m, data, size, &failed, err, sizeof err))
            abort();   /* the same bytes again */
        dfn_result *r = dfn_evmerge_finish(m, &q, g & 1);
        unsigned sum = 0;
        for (size_t i = 0; i < r->nrows; i++) (void)dfn_evrow_fields(r, i, g & 1, field_read, &sum);
        if (form != DFN_EVROWS_REPORT) {
            size_t wlen;
            free(dfn_evwindow_of(r, &wlen));
            uint8_t *copy = malloc(size ? size : 1);
            if (!copy) abort();
            memcpy(copy, data, size);
            if (dfn_evsamples_add(r, copy, size, err, sizeof err)) dfn_evsamples_finish(r);
        }
        FILE *out = fopen("/dev/null", "w");
        if (!out) abort();
        if (form == DFN_EVROWS_EXTRACT) {
            subset_of(r, data, size);
            dfn_result_free(r);
            fclose(out);
            continue;
        }
        dfn_compare *c = dfn_compare_of(r, q.sort, q.desc);
        (void)dfn_compare_write(out, c, fmts[g]);
        dfn_compare_free(c);
        fclose(out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    counters_of(data, size);
    calls_of(data, size);
    dfn_partial *p = dfn_partial_decode(data, size, err, sizeof err);
    if (!p) return 0;
    size_t len, len2;
    uint8_t *bytes = dfn_partial_encode(p, &len);
    dfn_partial *again = dfn_partial_decode(bytes, len, err, sizeof err);
    if (!again) abort();   /* its own bytes always decode */
    /* the same entries (its maps may list them in another order) */
    uint8_t *bytes2 = dfn_partial_encode(again, &len2);
    if (len2 != len) abort();
    free(bytes2);
    dfn_partial *copy = dfn_partial_decode(bytes, len, err, sizeof err);
    free(bytes);
    if (!copy || !dfn_partial_merge(again, copy, err, sizeof err)) abort();
    dfn_partial *slice = dfn_partial_slice(p, 0, UINT64_MAX / 2);
    dfn_partial_sum_busy(slice);
    dfn_partial_drop_segs(p);
    (void)dfn_partial_merge(p, slice, err, sizeof err);   /* (its window may be another's: refused, said) */
    dfn_query q;
    dfn_ctrs ctrs;
    query_of(again, &q, &ctrs);
    dfn_result *r = dfn_partial_finish(again, &q, NULL, err, sizeof err);
    bool layers = false;   /* (rows named by layers, which rank 0 has and this has not) */
    for (size_t d = 0; d < q.ndims; d++) layers |= q.dims[d].kind == DFN_DIM_LAYER;
    if (r && !layers) {
        /* the rows printed, calls within groups from their bytes */
        r->merged_agg = true;
        static const dfn_format fmts[] = { DFN_FMT_TABLE, DFN_FMT_CSV, DFN_FMT_JSON };
        dfn_compare *c = dfn_compare_of(r, q.sort, q.desc);   /* (r is c's) */
        for (size_t g = 0; g < 3; g++) {
            FILE *out = fopen("/dev/null", "w");
            if (!out) abort();
            (void)dfn_compare_write(out, c, fmts[g]);
            fclose(out);
        }
        dfn_compare_free(c);
    } else {
        dfn_result_free(r);
    }
    dfn_partial_free(p);
    return 0;
}
