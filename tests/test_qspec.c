/* Query specs (qspec.h): the explorer's queries through their bytes give
 * the very rows they give at home, with the receiver's own indexes; bytes
 * that are not a query, or whose query could not be typed, are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/analysis.h"
#include "dfnav/qspec.h"
#include "dfnav/util.h"
#include "storeutil.h"
#include "testutil.h"

/* Two processes on two threads each: reads and writes of files with
 * spaces and quotes in their names, calls within calls (the call tree),
 * compute (cat ai_framework), an aggregated record and a counter. */
static dfn_store *load_set(void)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    char line[512];
    unsigned seed = 11;
    for (int pid = 1; pid <= 2; pid++) {
        int n = snprintf(line, sizeof line,
                         "{\"name\":\"train\",\"cat\":\"ai_framework\",\"pid\":%d,\"tid\":%d,\"ts\":1000,\"dur\":30000,"
                         "\"ph\":\"X\",\"args\":{\"epoch\":%d}}\n",
                         pid, pid * 10, pid);
        dfn_grow((void **)&text, &cap, len + (size_t)n + 1, 1);
        memcpy(text + len, line, (size_t)n + 1);
        len += (size_t)n;
        for (int k = 0; k < 300; k++) {
            static const char *fn[] = { "read", "write", "open64", "pread64" };
            static const char *files[] = { "/d/a b.h5", "/d/q\\\"x", "/e/c", "/e/d" };
            unsigned ts = 1000 + (unsigned)(rand_r(&seed) % 30000), dur = 1 + (unsigned)(rand_r(&seed) % 700);
            n = snprintf(line, sizeof line,
                         "{\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%u,\"dur\":%u,\"ph\":\"X\","
                         "\"args\":{\"fname\":\"%s\",\"ret\":%d,\"fd\":%d}}\n",
                         fn[rand_r(&seed) % 4], pid, pid * 10 + k % 2, ts, dur, files[rand_r(&seed) % 4],
                         (int)(rand_r(&seed) % 8) * 512, 3 + k % 5);
            dfn_grow((void **)&text, &cap, len + (size_t)n + 1, 1);
            memcpy(text + len, line, (size_t)n + 1);
            len += (size_t)n;
        }
        n = snprintf(line, sizeof line,
                     "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"pid\":%d,\"tid\":%d,\"ts\":5000,\"ph\":3,"
                     "\"args\":{\"dft_cnt\":4,\"dur_sum\":400,\"dur_max\":150,\"ret_sum\":4096}}\n"
                     "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":%d,\"tid\":%d,\"ts\":9000,\"ph\":2,\"type\":7,"
                     "\"args\":{\"user_pct\":%d.5}}\n",
                     pid, pid * 10, pid, pid * 10, 40 + pid);
        dfn_grow((void **)&text, &cap, len + (size_t)n + 1, 1);
        memcpy(text + len, line, (size_t)n + 1);
        len += (size_t)n;
    }
    dfn_store *s = su_load_text("set.pfw", text, 1);
    free(text);
    cr_assert(s);
    return s;
}

static bool same_doubles(const double *a, const double *b, size_t n)
{
    if (!a || !b) return a == b;
    for (size_t k = 0; k < n; k++)
        if (memcmp(&a[k], &b[k], sizeof *a) != 0 && !(isnan(a[k]) && isnan(b[k]))) return false;
    return true;
}

/* Rows of the same keys, metrics, sparklines, size bins and counters. */
static void same_rows(const dfn_store *s, const dfn_result *a, const dfn_result *b, const char *what)
{
    cr_assert_eq(a->nrows, b->nrows, "%s: %zu rows and %zu", what, a->nrows, b->nrows);
    cr_assert_eq(a->matched, b->matched, "%s", what);
    cr_assert_eq(a->total_us, b->total_us, "%s", what);
    cr_assert_eq(a->spark_bins, b->spark_bins, "%s", what);
    cr_assert(same_doubles(a->spark_total, b->spark_total, a->spark_bins), "%s: the sparklines' total", what);
    for (size_t row = 0; row < a->nrows; row++) {
        for (size_t d = 0; d < a->ndims; d++) {
            char x[256], y[256];
            dfn_result_key_text(s, a, row, d, x, sizeof x);
            dfn_result_key_text(s, b, row, d, y, sizeof y);
            cr_assert_str_eq(x, y, "%s: row %zu", what, row);
        }
        for (int m = 0; m < DFN_M_COUNT_; m++) {
            double x = dfn_result_metric(a, row, m), y = dfn_result_metric(b, row, m);
            cr_assert(same_doubles(&x, &y, 1), "%s: row %zu, %s: %.17g and %.17g", what, row, dfn_metric_name(m), x, y);
        }
        size_t w = a->spark_bins;
        cr_assert(same_doubles(a->spark ? a->spark + row * w : NULL, b->spark ? b->spark + row * w : NULL, w),
                  "%s: row %zu's sparkline", what, row);
        cr_assert(same_doubles(a->spark_io ? a->spark_io + row * w : NULL, b->spark_io ? b->spark_io + row * w : NULL, w),
                  "%s: row %zu's I/O line", what, row);
        cr_assert(same_doubles(a->spark_cmp ? a->spark_cmp + row * w : NULL, b->spark_cmp ? b->spark_cmp + row * w : NULL,
                               w), "%s: row %zu's compute line", what, row);
        cr_assert_eq(a->nctrs, b->nctrs, "%s", what);
        cr_assert(same_doubles(a->ctr ? a->ctr + row * a->nctrs : NULL, b->ctr ? b->ctr + row * b->nctrs : NULL, a->nctrs),
                  "%s: row %zu's counters", what, row);
        cr_assert_eq(!a->sizes, !b->sizes, "%s", what);
        for (int k = 0; a->sizes && k < DFN_SIZEBIN_COUNT; k++)
            cr_assert_eq(a->sizes[row * DFN_SIZEBIN_COUNT + k], b->sizes[row * DFN_SIZEBIN_COUNT + k], "%s", what);
    }
}

/* The receiver's query: the spec's, with s's own indexes where the
 * sender's had them. */
static void attach(dfn_qspec *sp, const dfn_analysis *an, const dfn_layerset *ls)
{
    if (sp->layers) sp->q.layers = ls;
    if (sp->overlap) sp->q.overlap = an->overlap;
    if (sp->tree) sp->q.tree = an->tree;
    if (sp->access) sp->q.access = an->access;
}

typedef struct {
    const char *by, *where;
    uint64_t metrics;
    int sort;
    bool desc;
    size_t top, spark;
    bool split, sizes, asked, ctr;
    double bin_s;
    bool drill;               /* and terms added as a drill adds them */
} qcase;

/* The explorer's shapes: levels with their sparklines, drills, windows
 * (as the explorer writes them: seconds with six decimals), lanes with
 * compute and I/O, the call paths, status-line facts, a counter column,
 * arguments, a time level. */
static const qcase cases[] = {
    { "func", "", 0, DFN_M_TIME_S, true, 0, 60, false, false, false, false, 0, false },
    { "file", "func=read|pread64 time>=0.004000 time<0.021000", 0, DFN_M_COUNT, true, 0, 48, false, false, false, false, 0, false },
    { "proc", "", DFN_M_BASIC | DFN_M_OVERLAP, -1, false, 0, 80, true, false, false, false, 0, false },
    { "tid", "file=\"/d/a b.h5\"", DFN_M_BASIC | DFN_M_OVERLAP, DFN_M_COUNT, false, 5, 80, true, false, false, false, 0, false },
    { "path", "", DFN_M_BASIC | DFN_M_BIT(DFN_M_SELF_S), DFN_M_SELF_S, true, 0, 40, false, false, false, false, 0, false },
    { "func", "", DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC), -1, false, 0, 0, false, true, true, false, 0, false },
    { "arg.fd", "own.ret>=512 cat!=sys", 0, -1, false, 0, 20, false, false, false, false, 0, false },
    { "arg.epoch", "", 0, DFN_M_COUNT, true, 0, 0, false, false, false, false, 0, false },   /* (inherited from train) */
    { "own.epoch", "", 0, DFN_M_COUNT, true, 0, 0, false, false, false, false, 0, false },
    { "time", "time>0.002", 0, -1, false, 0, 0, false, false, false, false, 0.0025, false },
    { "layer", "", DFN_M_BASIC | DFN_M_BIT(DFN_M_SEQ_PCT), DFN_M_SEQ_PCT, true, 0, 30, false, true, false, false, 0, false },
    { "func,file", "", 0, DFN_M_COUNT_, true, 3, 12, false, false, false, true, 0, false },   /* sorted by the counter */
    { "", "dur>100", 0, -1, false, 0, 24, false, false, false, false, 0, false },
    { "func", "cat=POSIX", 0, DFN_M_TIME_S, true, 0, 30, false, false, false, false, 0, true },
    { "proc", "", DFN_M_BASIC | DFN_M_OVERLAP, DFN_M_COUNT, true, 0, 50, true, false, false, false, 0, true },
};

Test(qspec, the_explorers_queries_travel_whole)
{
    dfn_store *s = load_set();
    const dfn_layerset *ls = su_layerset(s, "posix");
    dfn_ctrs ctrs = { .series = { "cpu.user_pct" }, .n = 1 };
    char err[256];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const qcase *c = &cases[k];
        dfn_filter f;
        cr_assert(dfn_filter_parse(c->where, &f, err, sizeof err), "%s", err);
        dfn_query q = { .filter = c->where[0] ? &f : NULL, .layers = ls, .metrics = c->metrics, .sort = c->sort,
                        .desc = c->desc, .top = c->top, .spark_bins = c->spark, .spark_split = c->split,
                        .sizes = c->sizes, .asked_only = c->asked, .bin_s = c->bin_s, .ctrs = c->ctr ? &ctrs : NULL,
                        .threads = 1 };
        cr_assert(dfn_dims_parse(c->by, q.dims, &q.ndims, err, sizeof err), "%s", err);
        if (c->drill) {   /* a drill as the explorer makes it: terms, not text */
            dfn_dim d = { .kind = DFN_DIM_ARG, .arg = "ret", .own = true };
            cr_assert(dfn_dim_term_add(&f, &d, "512", 3));
            d = (dfn_dim){ .kind = DFN_DIM_FILE };
            cr_assert(dfn_dim_term_add(&f, &d, "/d/a b.h5", 9));
            dfn_filter_add(&f, DFN_KEY_TIME, NULL, DFN_LT, "0.025000", 8);
            q.filter = &f;
        }
        dfn_analysis an = {0};
        cr_assert(dfn_analysis_build(&an, s, ls, "cat=ai_framework", false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS | DFN_NEED_TILES, err, sizeof err), "%s", err);
        dfn_analysis_apply(&an, &q);
        dfn_result *home = dfn_query_run(s, &q, err, sizeof err);
        cr_assert(home, "case %zu: %s", k, err);
        cr_assert(home->nrows > 0 && home->matched > 0, "case %zu: rows to compare", k);
        cr_assert(!c->split || home->spark_cmp, "case %zu: a compute line to compare", k);
        size_t len;
        uint8_t *bytes = dfn_qspec_encode(&q, &len, err, sizeof err);
        cr_assert(bytes, "case %zu: %s", k, err);
        dfn_qspec sp;
        cr_assert(dfn_qspec_decode(bytes, len, &sp, err, sizeof err), "case %zu: %s", k, err);
        cr_assert_eq(sp.overlap, q.overlap != NULL);
        cr_assert_eq(sp.tree, q.tree != NULL);
        cr_assert(sp.layers && !sp.q.layers, "the receiver attaches its own");
        attach(&sp, &an, ls);
        sp.q.threads = 2;   /* (the receiver's own choice) */
        /* the same bytes again: nothing lost or added on the way */
        size_t len2;
        uint8_t *again = dfn_qspec_encode(&sp.q, &len2, err, sizeof err);
        cr_assert(len2 == len && memcmp(again, bytes, len) == 0, "case %zu: the bytes of what came", k);
        dfn_result *there = dfn_query_run(s, &sp.q, err, sizeof err);
        cr_assert(there, "case %zu: %s", k, err);
        char what[320];
        snprintf(what, sizeof what, "case %zu (by '%s' where '%s')", k, c->by, c->where);
        same_rows(s, home, there, what);
        dfn_result_free(home);
        dfn_result_free(there);
        free(again);
        free(bytes);
        dfn_qspec_free(&sp);
        dfn_analysis_free(&an);
        dfn_dims_free(q.dims, q.ndims);
        dfn_filter_free(&f);
    }
    dfn_store_free(s);
}

/* A filter whose text would read back as other terms (an argument whose
 * name holds an operator, a value holding a NUL) does not travel: a
 * receiver would answer another query. */
Test(qspec, filters_that_do_not_read_back_stay_home)
{
    char err[256];
    static const struct { const char *arg, *value; size_t vlen; } terms[] = {
        { "a<b", "x", 1 },          /* arg.a<b=x would read as arg.a < "b=x" */
        { "fd", "4\0002", 3 },     /* (a NUL ends the text) */
        { "x y", "1", 1 },
    };
    for (size_t k = 0; k < sizeof terms / sizeof *terms; k++) {
        dfn_filter f = {0};
        dfn_filter_add(&f, DFN_KEY_ARG, terms[k].arg, DFN_EQ, terms[k].value, terms[k].vlen);
        dfn_query q = { .filter = &f, .sort = -1 };
        size_t len;
        err[0] = 0;
        cr_assert_null(dfn_qspec_encode(&q, &len, err, sizeof err), "term %zu", k);
        cr_assert(strstr(err, "a filter whose text"), "term %zu: %s", k, err);
        dfn_filter_free(&f);
    }
    /* the same names in dimensions: refused on the way in (dfn_dims_parse
     * never makes one with a space) */
    dfn_query q = { .sort = -1, .ndims = 1 };
    q.dims[0] = (dfn_dim){ .kind = DFN_DIM_ARG, .arg = "x y" };
    size_t len;
    uint8_t *bytes = dfn_qspec_encode(&q, &len, err, sizeof err);
    cr_assert(bytes);
    dfn_qspec sp;
    cr_assert_not(dfn_qspec_decode(bytes, len, &sp, err, sizeof err));
    cr_assert(strstr(err, "a dimension's argument"), "%s", err);
    free(bytes);
}

/* Bytes cut anywhere or changed anywhere: refused with what is wrong, or
 * a query the receiver runs as any other (the sanitizers watch). */
Test(qspec, bytes_that_are_not_a_query_are_refused)
{
    dfn_store *s = load_set();
    const dfn_layerset *ls = su_layerset(s, "posix");
    char err[256];
    dfn_filter f;
    cr_assert(dfn_filter_parse("func=read|write own.fd>=4 file~\"a b\" time<0.02", &f, err, sizeof err));
    dfn_ctrs ctrs = { .series = { "cpu.user_pct" }, .n = 1 };
    dfn_query q = { .filter = &f, .layers = ls, .sort = DFN_M_COUNT_, .desc = true, .top = 4, .spark_bins = 9,
                    .ctrs = &ctrs, .metrics = DFN_M_BASIC, .threads = 1 };
    cr_assert(dfn_dims_parse("arg.ret,func", q.dims, &q.ndims, err, sizeof err));
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, "cat=ai_framework", false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS,
                                 err, sizeof err), "%s", err);
    dfn_analysis_apply(&an, &q);
    size_t len;
    uint8_t *bytes = dfn_qspec_encode(&q, &len, err, sizeof err);
    cr_assert(bytes, "%s", err);
    dfn_qspec sp;
    for (size_t cut = 0; cut < len; cut++) {
        cr_assert_not(dfn_qspec_decode(bytes, cut, &sp, err, sizeof err), "cut at %zu of %zu", cut, len);
        cr_assert(strstr(err, "query"), "cut at %zu: %s", cut, err);
    }
    for (size_t k = 0; k < len; k++) {
        uint8_t keep = bytes[k];
        for (int v = 0; v < 256; v += 17) {
            bytes[k] = (uint8_t)v;
            if (!dfn_qspec_decode(bytes, len, &sp, err, sizeof err)) {
                cr_assert(strstr(err, "query"), "%s", err);
                continue;
            }
            attach(&sp, &an, ls);
            dfn_result *r = dfn_query_run(s, &sp.q, err, sizeof err);   /* (or a message: a layer it lacks) */
            dfn_result_free(r);
            dfn_qspec_free(&sp);
        }
        bytes[k] = keep;
    }
    free(bytes);
    dfn_analysis_free(&an);
    dfn_dims_free(q.dims, q.ndims);
    dfn_filter_free(&f);
    dfn_store_free(s);
}
