/* Query figures on hand-made traces whose truth is known exactly: sums,
 * busy time as the union of intervals, the slowest process, percentiles,
 * shares, time bins, layers, derived file dimensions and argument groups. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/analysis.h"
#include "dfnav/pathinfo.h"
#include "dfnav/query.h"
#include "dfnav/util.h"
#include "storeutil.h"


/* Two processes. Process 1 reads /p/lustre2/data/img_1.h5 three times, two of
 * the reads overlapping; process 2 writes checkpoints to SSD and Lustre.
 * Times in µs from 1000. */
static const char *trace =
    "[\n"
    EV("DLIOBenchmark.run", "dlio_benchmark", 1, 1, 1000, 10000, "\"epoch\":\"1\"")
    EV("pread64", "POSIX", 1, 1, 1100, 100, "\"fname\":\"/p/lustre2/data/img_1.h5\",\"ret\":4096,\"offset\":0")
    EV("pread64", "POSIX", 1, 2, 1150, 100, "\"fname\":\"/p/lustre2/data/img_1.h5\",\"ret\":8192,\"offset\":4096")
    EV("pread64", "POSIX", 1, 1, 1400, 300, "\"fname\":\"/p/lustre2/data/img_1.h5\",\"ret\":1048576,\"offset\":12288")
    EV("TorchFramework.compute", "ai_framework", 1, 1, 2000, 1000, "\"epoch\":1")
    EV("write", "POSIX", 2, 2, 3000, 400, "\"fname\":\"/l/ssd/ck/layer-0-1.pt\",\"ret\":5000000")
    EV("write", "POSIX", 2, 2, 3500, 600, "\"fname\":\"/p/lustre2/ck/layer-7-2.pt\",\"ret\":3000000")
    EV("fork", "POSIX", 2, 2, 4200, 50, "")
    EV("__xstat64", "POSIX", 2, 2, 4300, 10, "\"fname\":\"/p/lustre2/x\"")
    "]\n";

static dfn_store *st;
static void setup(void) { st = su_load_text("q.pfw", trace, 2); }
static void teardown(void) { dfn_store_free(st); }

TestSuite(query, .init = setup, .fini = teardown);

Test(query, totals)
{
    dfn_result *r = su_query(st, "dlio-legacy", NULL, NULL);
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 9);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_TIME_S), 12560e-6);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_BYTES), 4096 + 8192 + 1048576 + 5000000 + 3000000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_BUSY_S), 10000e-6, "everything inside the run event");
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_PROCS), 2, "processes 1 and 2 (threads of a pid add up)");
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_FILES), 4);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_MAX_US), 10000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_PCT_TIME), 100);
    dfn_result_free(r);
    cr_assert_eq(st->t1 - st->t0, 10000);
}

Test(query, busy_is_the_union_and_max_proc_the_slowest_lane)
{
    dfn_result *r = su_query(st, "dlio-legacy", "func", "cat=POSIX");
    /* pread64: [1100,1200) + [1150,1250) + [1400,1700) = 150 + 300 */
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_TIME_S), 500e-6);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_BUSY_S), 450e-6);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_MAX_PROC_S), 500e-6, "pid 1, both threads");
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_PROCS), 1);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_MAX_PROC_S), 1000e-6);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_FILES), 1);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_MEAN_US), 500.0 / 3);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_P50_US), 100);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_MAX_US), 300);
    double p99 = su_metric(st, r, "pread64", DFN_M_P99_US);
    cr_assert(fabs(p99 - 300) <= 3, "p99 within 1%%: %f", p99);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_BYTES), 8000000);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_BW_MIBPS), 8000000 / 1048576.0 / 1000e-6);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_OPS_PER_S), 2 / 1000e-6);
    /* shares of the filtered total (POSIX: 1560 µs) */
    cr_assert_eq(su_metric(st, r, "write", DFN_M_PCT_TIME), 100.0 * 1000 / 1560);
    /* sorted by time_s descending by default */
    char k[64];
    dfn_result_key_text(st, r, 0, 0, k, sizeof k);
    cr_assert_str_eq(k, "write");
    dfn_result_free(r);
}

/* A query keeps only the metrics it asks for (and those every row gets
 * from its sums): a million rows no longer carry 35 doubles each. What it
 * keeps is what a query of every metric gives; the rest reads NaN. */
Test(query, keeps_the_metrics_it_asks_for)
{
    dfn_layerset *ls = su_layerset(st, "dlio-legacy");
    dfn_query all = { .layers = ls, .sort = DFN_M_TIME_S, .desc = true, .metrics = DFN_M_BASIC };
    dfn_query few = all;
    few.metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_P90_US) | DFN_M_BIT(DFN_M_FILES);
    dfn_result *a = su_run(st, &all, "func"), *f = su_run(st, &few, "func");
    cr_assert_eq(a->nrows, f->nrows);
    cr_assert_lt(f->mw, a->mw, "fewer columns: %zu against %zu", f->mw, a->mw);
    cr_assert_leq(f->mw, 15, "the asked three and the row's own sums: %zu", f->mw);
    for (size_t row = 0; row < a->nrows; row++) {
        static const dfn_metric same[] = { DFN_M_COUNT, DFN_M_P90_US, DFN_M_FILES, DFN_M_TIME_S, DFN_M_BYTES, DFN_M_MAX_US };
        for (size_t k = 0; k < sizeof same / sizeof *same; k++) {
            double x = dfn_result_metric(a, row, same[k]), y = dfn_result_metric(f, row, same[k]);
            cr_assert(x == y || (isnan(x) && isnan(y)), "row %zu metric %d: %g against %g", row, same[k], x, y);
        }
        cr_assert(isnan(dfn_result_metric(f, row, DFN_M_P50_US)), "p50 was not asked for");
        cr_assert(isnan(dfn_result_metric(f, row, DFN_M_MAX_PROC_S)), "max_proc_s was not asked for");
    }
    /* the slowest process comes with its group: procs, max_proc, the spread */
    few.metrics = DFN_M_BIT(DFN_M_MAX_PROC_S);
    dfn_result *p = su_run(st, &few, "func");
    for (size_t row = 0; row < p->nrows; row++)
        cr_assert_eq(dfn_result_metric(p, row, DFN_M_MAX_PROC_S), dfn_result_metric(a, row, DFN_M_MAX_PROC_S));
    cr_assert_eq(dfn_result_metric(p, 0, DFN_M_PROCS), dfn_result_metric(a, 0, DFN_M_PROCS));
    dfn_result_free(a);
    dfn_result_free(f);
    dfn_result_free(p);
}

Test(query, file_dimensions)
{
    dfn_result *r = su_query(st, "dlio-legacy", "fs", "file!=\"\"");
    cr_assert_eq(r->nrows, 2);
    cr_assert_eq(su_metric(st, r, "/p/lustre2", DFN_M_COUNT), 5);
    cr_assert_eq(su_metric(st, r, "/l/ssd", DFN_M_BYTES), 5000000);
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "pattern", "func=write");
    cr_assert_eq(su_metric(st, r, "/l/ssd/ck/layer-#-#.pt", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "/p/lustre#/ck/layer-#-#.pt", DFN_M_COUNT), 1);
    dfn_result_free(r);
    /* the file's own name, digits as #: parts of both checkpoints line up
     * whatever their folders (issue 17) */
    r = su_query(st, "dlio-legacy", "part", "func=write");
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(su_metric(st, r, "layer-#-#.pt", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(st, r, "layer-#-#.pt", DFN_M_BYTES), 8000000);
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "fs", "part=img_#.h#");
    cr_assert_eq(su_metric(st, r, "/p/lustre2", DFN_M_COUNT), 3);
    dfn_result_free(r);
    char b[64];
    cr_assert_eq(dfn_path_part("/a/b2/ck-12.pt", 14, b), 7); cr_assert_str_eq(b, "ck-#.pt");
    dfn_path_part("/a/dir7/", 8, b); cr_assert_str_eq(b, "dir#");
    dfn_path_part("x", 1, b); cr_assert_str_eq(b, "x");
    dfn_path_part("", 0, b); cr_assert_str_eq(b, "");
    /* the exact size of reads and writes; other calls have none (issue 17) */
    r = su_query(st, "dlio-legacy", "size", NULL);
    cr_assert_eq(su_metric(st, r, "4096", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "8192", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "1048576", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "5000000", DFN_M_BYTES), 5000000);
    cr_assert_eq(su_metric(st, r, "", DFN_M_COUNT), 4, "run, compute, fork, stat");
    cr_assert_eq(r->nrows, 6);
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "dir", "class=read");
    cr_assert_eq(su_metric(st, r, "/p/lustre2/data", DFN_M_COUNT), 3);
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "sizebin", "class=read|write");
    cr_assert_eq(su_metric(st, r, "<=4KiB", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "4-16KiB", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "256KiB-1MiB", DFN_M_COUNT), 1, "1 MiB exactly is right-closed");
    cr_assert_eq(su_metric(st, r, "4-16MiB", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "1-4MiB", DFN_M_COUNT), 1);
    dfn_result_free(r);
}

Test(query, layers_of_the_dlio_preset)
{
    dfn_result *r = su_query(st, "dlio-legacy", "layer", NULL);
    cr_assert_eq(su_metric(st, r, "app", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "compute", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "reader_posix", DFN_M_COUNT), 3);
    cr_assert_eq(su_metric(st, r, "reader_posix_lustre", DFN_M_COUNT), 3);
    cr_assert_eq(su_row(st, r, "reader_posix_ssd"), -1, "no ssd reads");
    cr_assert_eq(su_metric(st, r, "data_loader_fork", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "other_posix", DFN_M_COUNT), 3, "two checkpoint writes outside /checkpoint, one stat");
    cr_assert_eq(su_row(st, r, "other"), -1, "every event is in a layer");
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "func", "layer=other_posix");
    cr_assert_eq(su_metric(st, r, "write", DFN_M_COUNT), 2);
    cr_assert_eq(su_row(st, r, "fork"), -1, "fork is counted once, in data_loader_fork");
    dfn_result_free(r);
    r = su_query(st, "posix", "layer", NULL);
    cr_assert_eq(su_metric(st, r, "posix", DFN_M_COUNT), 7);
    cr_assert_eq(su_metric(st, r, "other", DFN_M_COUNT), 2);
    dfn_result_free(r);
}

Test(query, time_bins_and_windows)
{
    dfn_query q = { .sort = -1, .bin_s = 0.001 };
    dfn_result *r = su_run(st, &q, "time");
    /* starts relative to 1000: 0, 100, 150, 400 | 1000 | 2000 | 2500 | 3200, 3300 */
    cr_assert_eq(su_metric(st, r, "0", DFN_M_COUNT), 4);
    cr_assert_eq(su_metric(st, r, "0.001", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "0.002", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(st, r, "0.003", DFN_M_COUNT), 2);
    cr_assert_eq(r->nrows, 10, "every bin of the 10 ms window, empty ones too");
    cr_assert_eq(su_metric(st, r, "0.005", DFN_M_COUNT), 0);
    dfn_result_free(r);
    /* a window that starts between edges: bins stay on multiples of their
     * width, the first one partly before the window (issue 17) */
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse("time>=0.0015", &f, err, sizeof err), "%s", err);
    q = (dfn_query){ .sort = -1, .bin_s = 0.001, .filter = &f };
    r = su_run(st, &q, "time");
    cr_assert_float_eq(r->bin0_s, 0.001, 1e-12);
    cr_assert_float_eq(r->win_lo_s, 0.0015, 1e-12);
    cr_assert_eq(su_metric(st, r, "0.001", DFN_M_COUNT), 0);
    cr_assert_eq(su_metric(st, r, "0.002", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(st, r, "0.003", DFN_M_COUNT), 2);
    dfn_result_free(r);
    dfn_filter_free(&f);
    /* the run started before the window: its part inside, not counted */
    r = su_query(st, "dlio-legacy", "func", "time>=0.001 time<0.0025");
    cr_assert_eq(r->nrows, 3);
    cr_assert_eq(su_metric(st, r, "TorchFramework.compute", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "DLIOBenchmark.run", DFN_M_COUNT), 0);
    cr_assert_float_eq(su_metric(st, r, "DLIOBenchmark.run", DFN_M_TIME_S), 0.0015, 1e-12);
    dfn_result_free(r);
}

/* Keys tell 1 ms bins 1000 s in apart, and a stray ts 0 beside epoch
 * times keeps every key exact; a window of more bins than row ids is
 * refused with the bin it needs (issue 23), and so is one whose calls
 * would be cut into more than 2^22 pieces (a call is a piece in each bin
 * it runs through), but not a wide one of short calls. */
Test(query, time_keys_are_exact_and_bins_fit)
{
    dfn_store *s = su_load_text("tk.pfw",
        EV("read", "POSIX", 1, 1, 1744611912000000, 5, "")
        EV("read", "POSIX", 1, 1, 1744612912001000, 5, "")
        EV("read", "POSIX", 1, 1, 1744612912002500, 5, "")
        EV("read", "POSIX", 1, 1, 0, 5, ""), 1);
    dfn_query q = { .sort = -1, .bin_s = 0.001 };
    char err[256];
    q.dims[0].kind = DFN_DIM_TIME;
    q.ndims = 1;
    q.layers = su_layerset(s, "posix");
    dfn_result *r = dfn_query_run(s, &q, err, sizeof err);
    cr_assert_null(r, "1 ms bins over 55 years");
    cr_assert(strstr(err, "--bin 0.4062 or more"), "%s", err);
    dfn_store_free(s);
    /* a call of 3 minutes in 1 µs bins: 180 M rows (9 GB), refused */
    s = su_load_text("tk1.pfw", EV("read", "POSIX", 1, 1, 1000000, 180000000, ""), 1);
    q = (dfn_query){ .sort = -1, .bin_s = 0.000001, .ndims = 1 };
    q.dims[0].kind = DFN_DIM_TIME;
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    cr_assert(strstr(err, "more than 4194304 rows: --bin 4.3e-05 or more"), "%s", err);
    dfn_store_free(s);
    /* two short calls 5 minutes apart in 1 µs bins: a row a µs of theirs */
    s = su_load_text("tkwide.pfw", EV("read", "POSIX", 1, 1, 1000000, 3, "") EV("read", "POSIX", 1, 1, 301000000, 2, ""), 1);
    r = dfn_query_run(s, &q, err, sizeof err);
    cr_assert(r && r->nrows == 5, "%s %zu", r ? "rows" : err, r ? r->nrows : 0);
    dfn_result_free(r);
    dfn_store_free(s);
    s = su_load_text("tk2.pfw",
        EV("read", "POSIX", 1, 1, 1000000, 5, "")
        EV("read", "POSIX", 1, 1, 1001001000, 5, "")
        EV("read", "POSIX", 1, 1, 1001002000, 5, "")
        EV("read", "POSIX", 1, 1, 1001002999, 5, ""), 1);
    q = (dfn_query){ .sort = -1, .bin_s = 0.001 };
    r = su_run(s, &q, "time");
    cr_assert_eq(su_metric(s, r, "1000.001", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "1000.002", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(s, r, "0", DFN_M_COUNT), 1);
    dfn_result_free(r);
    char b[32];
    dfn_fmt_us_s(1000001000, b, sizeof b); cr_assert_str_eq(b, "1000.001");
    dfn_fmt_us_s(5000000, b, sizeof b); cr_assert_str_eq(b, "5");
    dfn_fmt_us_s(-250000, b, sizeof b); cr_assert_str_eq(b, "-0.25");
    dfn_fmt_us_s(1744611912000001, b, sizeof b); cr_assert_str_eq(b, "1744611912.000001");
    dfn_fmt_us_s(INT64_MIN, b, sizeof b); cr_assert_str_eq(b, "-9223372036854.775808");
    dfn_store_free(s);
}

/* The scan looks a call's time bin up once per bin (the calls come in
 * start order): a call that starts on a bin's edge is in the next bin,
 * one that ends on it is whole, one past it is split; with one and two
 * dimensions, with one thread and two. */
Test(query, calls_on_a_bin_edge)
{
    for (int threads = 1; threads <= 2; threads++) {
        /* calls of 0 µs on the edges: a longer one that starts there
         * runs past its bin and takes the exact path */
        dfn_store *s = su_load_text("edge.pfw",
            EV("read", "POSIX", 1, 1, 5000000, 10, "")
            EV("read", "POSIX", 1, 1, 5999999, 1, "")
            EV("read", "POSIX", 1, 1, 6000000, 0, "")
            EV("write", "POSIX", 1, 1, 6000001, 5, "")
            EV("read", "POSIX", 1, 1, 6999999, 2, "")
            EV("read", "POSIX", 1, 1, 7000000, 0, ""), threads);
        dfn_query q = { .sort = -1, .bin_s = 1 };
        dfn_result *r = su_run(s, &q, "time");
        cr_assert_eq(r->nrows, 3);
        cr_assert_eq(su_metric(s, r, "0", DFN_M_COUNT), 2);
        cr_assert_float_eq(su_metric(s, r, "0", DFN_M_TIME_S), 11e-6, 1e-12);
        cr_assert_eq(su_metric(s, r, "1", DFN_M_COUNT), 3);
        cr_assert_float_eq(su_metric(s, r, "1", DFN_M_TIME_S), 6e-6, 1e-12);
        cr_assert_eq(su_metric(s, r, "2", DFN_M_COUNT), 1);
        cr_assert_float_eq(su_metric(s, r, "2", DFN_M_TIME_S), 1e-6, 1e-12);
        dfn_result_free(r);
        q = (dfn_query){ .sort = -1, .bin_s = 1 };
        r = su_run(s, &q, "func,time");
        cr_assert_eq(su_metric(s, r, "read|0", DFN_M_COUNT), 2);
        cr_assert_eq(su_metric(s, r, "read|1", DFN_M_COUNT), 2);
        cr_assert_float_eq(su_metric(s, r, "read|1", DFN_M_TIME_S), 1e-6, 1e-12);
        cr_assert_eq(su_metric(s, r, "write|1", DFN_M_COUNT), 1);
        cr_assert_eq(su_metric(s, r, "read|2", DFN_M_COUNT), 1);
        cr_assert_float_eq(su_metric(s, r, "read|2", DFN_M_TIME_S), 1e-6, 1e-12);
        dfn_result_free(r);
        dfn_store_free(s);
    }
}

/* The scans look a call's sparkline bin up once per bin: a call that
 * starts on a bin's edge is in the next bin, one that ends past it is
 * split; grouped by a table (function), by time and by layer. */
Test(query, sparklines_on_a_bin_edge)
{
    dfn_store *s = su_load_text("sedge.pfw",
        EV("read", "POSIX", 1, 1, 1000000, 5, "")
        EV("read", "POSIX", 1, 1, 1000099, 1, "")
        EV("read", "POSIX", 1, 1, 1000100, 1, "")
        EV("read", "POSIX", 1, 1, 1000199, 2, "")
        EV("read", "POSIX", 1, 1, 1000999, 1, ""), 1);
    const char *by[] = { "func", "time", "layer" };
    for (size_t k = 0; k < 3; k++) {
        dfn_query q = { .sort = -1, .spark_bins = 10, .bin_s = 1 };
        if (k == 2) q.layers = su_layerset(s, "posix");
        dfn_result *r = su_run(s, &q, by[k]);
        cr_assert_eq(r->spark_bins, 10);
        const double want[10] = { 6, 2, 1, 0, 0, 0, 0, 0, 0, 1 };
        for (int b = 0; b < 10; b++)
            cr_assert_eq(r->spark_total[b], want[b], "by %s: bin %d has %g µs, not %g", by[k], b, r->spark_total[b], want[b]);
        dfn_result_free(r);
    }
    dfn_store_free(s);
}

/* A table scan, and one by time, size or layer, takes a leaner path for
 * the explorer's own columns (no latencies, files, sizes, sums,
 * aggregated records or analyses), with a filter or a window or neither:
 * each of those, asked for alone beside them, gives the same rows as the
 * full path, which a query that also asks for files (or latencies) takes. */
/* The explorer's columns: those of an 80-column screen (own_lean), and
 * with the busy column and the slowest process (own_wide). */
static const uint64_t own_lean = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_PCT_TIME) |
                                 DFN_M_BIT(DFN_M_BYTES) | DFN_M_BIT(DFN_M_BW_MIBPS) | DFN_M_BIT(DFN_M_MAX_US);
static const uint64_t own_wide = own_lean | DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC);

/* Row row of r0 and row other of r1 (key, in a failure): the same
 * metrics of mask (both undefined passes) and sparkline of bins. */
static void same_row(const dfn_result *r0, size_t row, const dfn_result *r1, size_t other, uint64_t mask, size_t bins,
                     const char *what, const char *key)
{
    for (int m = 0; m < DFN_M_COUNT_; m++) {
        double a = dfn_result_metric(r0, row, m), b = dfn_result_metric(r1, other, m);
        if (!(mask & DFN_M_BIT(m)) || (isnan(a) && isnan(b))) continue;
        cr_assert_eq(a, b, "%s, row %s, %s: %g and %g", what, key, dfn_metric_name(m), a, b);
    }
    if (bins)   /* without a sparkline, no arrays to compare */
        cr_assert_arr_eq(r0->spark + row * bins, r1->spark + other * bins, bins * sizeof *r0->spark,
                         "%s, row %s: sparkline", what, key);
}

/* Rows r1 has for each of r0's, by key (the one row of totals without
 * dimensions), with the same metrics of mask (both undefined passes: an
 * empty bin's bandwidth), sparklines of bins and size bins; what names
 * the queries in a failure. */
static void same_rows(const dfn_store *s, const dfn_result *r0, const dfn_result *r1, uint64_t mask, size_t bins,
                      const char *what)
{
    cr_assert_eq(r0->nrows, r1->nrows, "%s", what);
    for (size_t row = 0; row < r0->nrows; row++) {
        char buf[512];
        if (r0->ndims) dfn_result_key_text(s, r0, row, 0, buf, sizeof buf);
        else snprintf(buf, sizeof buf, "(totals)");
        size_t other = r0->ndims ? su_row_req(s, r1, buf) : 0;
        same_row(r0, row, r1, other, mask, bins, what, buf);
        if (r0->sizes)
            cr_assert_arr_eq(r0->sizes + row * DFN_SIZEBIN_COUNT, r1->sizes + other * DFN_SIZEBIN_COUNT,
                             DFN_SIZEBIN_COUNT * sizeof *r0->sizes, "%s, row %s: size bins", what, buf);
    }
}

static void same_as_full_path(const dfn_store *s, const dfn_layerset *ls, dfn_analysis *an, const char *by,
                              uint64_t own, uint64_t extra, bool sizes, const char *where)
{
    uint64_t full = extra == DFN_M_BIT(DFN_M_FILES) ? DFN_M_BIT(DFN_M_P50_US) : DFN_M_BIT(DFN_M_FILES);
    dfn_result *r[2];
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    for (int k = 0; k < 2; k++) {
        dfn_query q = { .sort = -1, .spark_bins = 16, .metrics = own | extra | (k ? full : 0), .sizes = sizes,
                        .filter = &f, .layers = ls };
        if (an) dfn_analysis_apply(an, &q);
        r[k] = su_run(s, &q, by);
    }
    char what[256];
    snprintf(what, sizeof what, "by %s where '%s', here and on the full path", by, where);
    same_rows(s, r[0], r[1], own | extra, 16, what);
    for (int k = 0; k < 2; k++) dfn_result_free(r[k]);
    dfn_filter_free(&f);
}

Test(query, lean_scans_match_the_full_path)
{
    dfn_store *agg = su_load_text("lean.pfw",
        EV("read", "POSIX", 1, 1, 100, 10, "\"fname\":\"/a\",\"size\":4096")
        EV("read", "POSIX", 2, 2, 120, 30, "\"fname\":\"/b\",\"size\":100")
        "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"pid\":1,\"tid\":1,\"ts\":150,\"ph\":3,"
        "\"args\":{\"dft_cnt\":4,\"dur_sum\":40,\"dur_max\":15,\"ret_sum\":400}}\n"
        EV("write", "POSIX", 1, 1, 300, 5, "\"fname\":\"/a\",\"size\":7"), 1);
    const dfn_store *sets[] = { st, agg };
    const char *presets[] = { "dlio-legacy", "posix" };
    const char *dims[] = { "func", "file", "proc", "time", "sizebin", "size", "layer" };
    const uint64_t extras[] = { 0, DFN_M_BIT(DFN_M_P50_US), DFN_M_BIT(DFN_M_FILES), DFN_M_BIT(DFN_M_AGG_CALLS),
                                DFN_M_BIT(DFN_M_SIZE_P50), DFN_M_BIT(DFN_M_MAX_PROC_BYTES), DFN_M_BIT(DFN_M_SELF_S),
                                DFN_M_BIT(DFN_M_SEQ_PCT), DFN_M_BIT(DFN_M_EXPOSED_S), DFN_M_BIT(DFN_M_SHARED_FILES) };
    for (size_t k = 0; k < 2; k++) {
        char err[256];
        dfn_analysis an = {0};
        dfn_layerset *ls = su_layerset(sets[k], presets[k]);
        cr_assert(dfn_analysis_build(&an, sets[k], ls, NULL, false,
                                     DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err), "%s", err);
        for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
            /* each alone beside the columns of a narrow screen too: the
             * scan tests for all such parts at once when it needs none */
            for (size_t e = 0; e < sizeof extras / sizeof *extras; e++) {
                same_as_full_path(sets[k], ls, &an, dims[d], own_wide, extras[e], false, "");
                same_as_full_path(sets[k], ls, &an, dims[d], own_lean, extras[e], false, "");
            }
            same_as_full_path(sets[k], ls, &an, dims[d], own_wide, 0, true, "");
            same_as_full_path(sets[k], ls, &an, dims[d], own_wide, 0, false, "func!=write");
            /* windows that cut calls at their end (a write, the long read) */
            const char *win[] = { "time>=0.00002 time<0.000202", "time>=0.00012 time<0.0028" };
            for (int w = 0; w < 2; w++) {
                same_as_full_path(sets[k], ls, &an, dims[d], own_wide, 0, false, win[w]);
                same_as_full_path(sets[k], ls, &an, dims[d], own_wide, DFN_M_BIT(DFN_M_P50_US), false, win[w]);
            }
        }
        dfn_analysis_free(&an);
    }
    dfn_store_free(agg);
    /* a window that cuts a call: its part inside (10 of the second read's 30 µs) */
    dfn_store *s = su_load_text("cut.pfw",
        EV("read", "POSIX", 1, 1, 100, 10, "")
        EV("read", "POSIX", 2, 2, 120, 30, "")
        EV("write", "POSIX", 1, 1, 300, 5, ""), 1);
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse("time<0.00003", &f, err, sizeof err), "%s", err);
    /* by function, by layer, and by time in one bin (the cut is not a bin's edge) */
    const char *by[] = { "func", "layer", "time" }, *key[] = { "read", "posix", "0" };
    for (int k = 0; k < 3; k++) {
        dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S), .filter = &f,
                        .bin_s = 1, .layers = su_layerset(s, "posix") };
        dfn_result *r = su_run(s, &q, by[k]);
        cr_assert_eq(su_metric(s, r, key[k], DFN_M_COUNT), 2, "by %s", by[k]);
        cr_assert_float_eq(su_metric(s, r, key[k], DFN_M_TIME_S), 20e-6, 1e-12, "by %s", by[k]);
        dfn_result_free(r);
    }
    dfn_filter_free(&f);
    dfn_store_free(s);
}

/* same_rows for results in the same order (by key): row by row, as a
 * search by key for each of thousands of rows takes minutes. */
static void same_rows_in_order(const dfn_store *s, const dfn_result *r0, const dfn_result *r1, uint64_t mask,
                               size_t bins, const char *what)
{
    cr_assert_eq(r0->nrows, r1->nrows, "%s", what);
    for (size_t row = 0; row < r0->nrows; row++) {
        char k0[512], k1[512];
        dfn_result_key_text(s, r0, row, 0, k0, sizeof k0);
        dfn_result_key_text(s, r1, row, 0, k1, sizeof k1);
        cr_assert_str_eq(k0, k1, "%s, row %zu", what, row);
        same_row(r0, row, r1, row, mask, bins, what, k0);
    }
}

/* The next of a xorshift sequence: test data that is the same each run. */
static void xorshift(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
}

/* A trace's text, written to f and read as text once f is closed. */
typedef struct {
    char *text;
    size_t len;
    FILE *f;
} memtext;

static FILE *text_open(memtext *m)
{
    m->f = open_memstream(&m->text, &m->len);   /* into m: the stream writes through these */
    cr_assert(m->f);
    return m->f;
}

/* Two results of the same query by different scans: the same rows in
 * order (metrics of mask), sparklines of bins (split: the I/O and
 * compute lines too), total and matched calls. */
static void same_results(const dfn_store *s, const dfn_result *r0, const dfn_result *r1, uint64_t mask, size_t bins,
                         bool split, const char *what)
{
    same_rows_in_order(s, r0, r1, mask, bins, what);
    size_t cells = r0->nrows * bins;
    if (split) cr_assert(r0->spark_io || !bins, "%s", what);
    if (split && cells) {
        cr_assert_arr_eq(r0->spark_io, r1->spark_io, cells * sizeof *r0->spark_io, "%s: I/O", what);
        cr_assert_arr_eq(r0->spark_cmp, r1->spark_cmp, cells * sizeof *r0->spark_cmp, "%s: compute", what);
    }
    if (bins) cr_assert_arr_eq(r0->spark_total, r1->spark_total, bins * sizeof *r0->spark_total, "%s", what);
    cr_assert_eq(r0->total_us, r1->total_us, "%s", what);
    cr_assert_eq(r0->matched, r1->matched, "%s", what);
}

/* The explorer's tables take a scan of their own (lean_loop: in blocks
 * of calls, the sparkline's time put in a bin when the calls move on).
 * On a set that its shortcuts meet in every way, the rows and sparklines
 * are the full path's: thousands of calls over many blocks; calls of
 * 0 µs; calls over several sparkline bins and past the set's end; files
 * past the rows with dense sparklines; sums that pass 2^64 (flagged,
 * saturated); with and without a filter (of tables, of layers, with a
 * term per call), in windows that cut calls, by table, by time and by
 * layer, with sparklines of several widths and 1 and 3 threads; and the
 * process levels' compute and I/O columns and split sparklines, whose
 * sweeps meet the calls the window cuts in their turn; and self time by
 * call path and by the other rows (the call paths' level). */
Test(query, lean_scan_in_blocks_matches_the_full_path)
{
    memtext mt;
    FILE *f = text_open(&mt);
    uint64_t x = 88172645463325252ull, ts = 1000;
    for (int i = 0; i < 9000; i++) {
        xorshift(&x);
        int kind = (int)(x % 100);
        uint64_t dur = kind < 5 ? 0 : kind < 15 ? 2000 + x % 40000 : 1 + x % 300;
        ts += x % 97;
        /* a file of its own for most calls from the 4000th: rows past the dense ones */
        unsigned file = i >= 4000 && kind < 80 ? (unsigned)i : (unsigned)(x >> 20) % 7;
        /* compute beside the I/O, for the overlap columns */
        const char *cat = kind >= 85 ? "compute" : "POSIX";
        fprintf(f, "{\"name\":\"f%u\",\"cat\":\"%s\",\"pid\":%u,\"tid\":1,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                   ",\"ph\":\"X\",\"args\":{\"fname\":\"/d/%u\",\"size\":%" PRIu64 "}}\n",
                (unsigned)(x >> 8) % 11, cat, (unsigned)(x >> 12) % 3, ts, dur, file, (x >> 30) % 5000);
    }
    /* five calls of the longest time a call may take (2^62 - 1 µs), and as many
     * bytes: a function's sums pass 2^64 */
    for (int i = 0; i < 5; i++)
        fprintf(f, "{\"name\":\"huge\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%" PRIu64
                   ",\"dur\":4611686018427387903,\"ph\":\"X\",\"args\":{\"fname\":\"/d/0\",\"size\":4611686018427387903}}\n",
                ts + (uint64_t)i * 10);
    fclose(f);
    dfn_store *s = su_load_text("blocks.pfw", mt.text, 2);
    free(mt.text);
    double end_s = (double)ts / 1e6;
    char w1[128], w2[128];
    snprintf(w1, sizeof w1, "time>=%.6f time<%.6f", end_s * 0.1, end_s * 0.6);
    snprintf(w2, sizeof w2, "time<%.6f func!=f3", end_s * 0.8);
    /* layers that share calls, under one another, and calls in none */
    dfn_layers l;
    char lerr[256];
    cr_assert(dfn_layers_parse("even : func=f0|f2|f4|f6|f8|f10\nlow : func=f0|f1|f2|f3\nlong < even : dur>1000\n", "t", &l,
                               lerr, sizeof lerr), "%s", lerr);
    dfn_layerset *ls = dfn_layerset_compile(s, &l, 2, lerr, sizeof lerr);
    cr_assert_not_null(ls, "%s", lerr);
    const char *wheres[] = { "", "func!=f3", "pid=1", w1, w2, "layer=low", "layer!=even pid!=2", "layer=other dur>10" };
    const char *dims[] = { "func", "file", "proc", "time", "layer", "pid", "path" };
    const size_t widths[] = { 0, 16, 37, 300 };   /* 0: report's, no sparkline */
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, "cat=compute", false, DFN_NEED_OVERLAP | DFN_NEED_TREE, lerr, sizeof lerr),
              "%s", lerr);
    /* the explorer's tiles, small to meet every case: split by the
     * layers' masks with the lanes' I/O swept (64 calls a tile), and
     * without a layer set or the I/O (128) */
    dfn_tiles *tiles[2] = { dfn_tiles_build(s, ls, an.overlap, 6), dfn_tiles_build(s, NULL, NULL, 7) };
    size_t ok = 0;
    for (size_t k = 0; k < tiles[0]->ntiles; k++) ok += tiles[0]->tiles[k].ok;
    cr_assert_gt(ok, tiles[0]->ntiles / 2, "most tiles are kept: %zu of %zu", ok, tiles[0]->ntiles);
    /* ov 1: the process levels' columns: compute, I/O and their overlap,
     * the sparklines split into I/O and compute; ov 2: self time, the
     * call paths' level's (the calls nest: most overlap the one before) */
    const uint64_t own_ov = own_lean | DFN_M_OVERLAP, own_self = own_lean | DFN_M_BIT(DFN_M_SELF_S);
    for (int ov = 0; ov < 3; ov++)
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++)
            for (size_t b = 0; b < sizeof widths / sizeof *widths; b++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    dfn_result *r[4];
                    dfn_filter flt;
                    char err[256];
                    cr_assert(dfn_filter_parse(wheres[w], &flt, err, sizeof err), "%s", err);
                    uint64_t own = ov == 1 ? own_ov : ov == 2 ? own_self : own_lean;
                    /* r[1] the full path's; r[0] the scans', r[2] and r[3] with tiles */
                    for (int k = 0; k < 4; k++) {
                        dfn_query q = { .sort = -1, .spark_bins = widths[b], .threads = threads, .filter = &flt,
                                        .layers = ls, .metrics = own | (k == 1 ? DFN_M_BIT(DFN_M_FILES) : 0),
                                        .spark_split = ov == 1 };
                        dfn_analysis_apply(&an, &q);   /* the tree for "path", the overlap's sets */
                        q.tiles = k >= 2 ? tiles[k - 2] : NULL;
                        r[k] = su_run(s, &q, dims[d]);
                    }
                    char what[256];
                    snprintf(what, sizeof what, "by %s where '%s', %zu bins, %d threads%s", dims[d], wheres[w], widths[b],
                             threads, ov == 1 ? ", with the overlap" : ov == 2 ? ", with self time" : "");
                    for (int k = 0; k < 4; k += k ? 1 : 2) {
                        char whatk[300];
                        snprintf(whatk, sizeof whatk, "%s%s", what, k == 2 ? ", tiles by mask" : k == 3 ? ", tiles" : "");
                        same_results(s, r[k], r[1], own, widths[b], ov == 1, whatk);
                    }
                    if (d == 0 && !*wheres[w]) {
                        /* the huge calls' sums saturate and show as infinite */
                        cr_assert(isinf(su_metric(s, r[0], "huge", DFN_M_TIME_S)), "%s", what);
                        cr_assert_eq(su_metric(s, r[0], "huge", DFN_M_COUNT), 5, "%s", what);
                    }
                    for (int k = 0; k < 4; k++) dfn_result_free(r[k]);
                    dfn_filter_free(&flt);
                }
    for (int k = 0; k < 2; k++) dfn_tiles_free(tiles[k]);
    dfn_analysis_free(&an);
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(s);
}

/* The explorer's tiles (tiles.h) on calls short beside the sparkline's
 * bins, so that most tiles lie in one bin and start bins of their own:
 * the rows, sparklines and totals with tiles are the scan's and the full
 * path's, by function, process, file, directory, time and layer,
 * filtered by those (lanes and files together left to the scan) and cut
 * by a window; and a function's sums close to 2^64, where a tile would
 * make them wrap, take its calls one by one (saturating, flagged). */
Test(query, tiles_match_the_scan)
{
    memtext mt;
    FILE *f = text_open(&mt);
    uint64_t x = 0x2545F4914F6CDD1Dull, ts = 1000;
    /* whole tiles only: a lane's calls may all be in tiles */
    for (int i = 0; i < 19968; i++) {
        xorshift(&x);
        ts += 1 + x % 20;
        uint64_t dur = (x >> 50) % 20 ? 1 + (x >> 8) % 40 : 0, size = (x >> 40) % 9000;
        const char *fn = i >= 6000 && i < 6004 ? "big" : (x >> 16) % 9 == 0 ? "big" : (x >> 20) % 2 ? "read" : "write";
        /* three calls of the longest time a call may take and one a little
         * shorter: "big" sums 2003 µs below 2^64, and the tiles after add
         * more; and so for the bytes of reads */
        if (i >= 6000 && i < 6004) dur = i < 6003 ? 4611686018427387903ull : 4611686018427387904ull - 2000;
        if (i >= 12000 && i < 12004) {
            fn = "read";
            size = i < 12003 ? 4611686018427387903ull : 4611686018427387904ull - 2000000;
        }
        /* two threads a process: by pid, two lanes share a row */
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                   ",\"ph\":\"X\",\"args\":{\"fname\":\"/d/%u\",\"size\":%" PRIu64 ",\"ret\":%" PRIu64 "}}\n",
                fn, (x >> 24) % 5 ? "POSIX" : "STDIO", (unsigned)(x >> 28) % 3, 1 + (unsigned)(x >> 36) % 2, ts, dur,
                (unsigned)(x >> 32) % 5, size, size);
    }
    fclose(f);
    dfn_store *s = su_load_text("tiles.pfw", mt.text, 2);
    free(mt.text);
    dfn_layers l;
    char err[256];
    cr_assert(dfn_layers_parse("rw : func=read|write\nstd : cat=STDIO\n", "t", &l, err, sizeof err), "%s", err);
    dfn_layerset *ls = dfn_layerset_compile(s, &l, 2, err, sizeof err);
    cr_assert_not_null(ls, "%s", err);
    dfn_tiles *tl = dfn_tiles_build(s, ls, NULL, 6);
    size_t ok = 0;
    for (size_t k = 0; k < tl->ntiles; k++) ok += tl->tiles[k].ok;
    cr_assert_eq(tl->ntiles, 19968 / 64);
    cr_assert_eq(ok, tl->ntiles, "the tile of the longest calls too (its sum is below 2^64): %zu of %zu", ok, tl->ntiles);
    for (size_t k = 0; k < tl->ntiles; k++) cr_assert(tl->tiles[k].fok, "tile %zu's sums by file", k);
    double end_s = (double)ts / 1e6;
    char w1[128];
    snprintf(w1, sizeof w1, "time>=%.6f time<%.6f func!=write", end_s * 0.25, end_s * 0.7);
    const char *wheres[] = { "", "func=big|read", "pid!=1", "layer=std", "file!=/d/2", "file=/d/1|/d/3 layer=rw", w1 };
    const char *dims[] = { "func", "cat", "proc", "file", "dir", "time", "layer" };
    const size_t widths[] = { 0, 8, 50 };
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++)
            for (size_t b = 0; b < sizeof widths / sizeof *widths; b++)
                for (int threads = 1; threads <= 2; threads++) {
                    dfn_filter flt;
                    cr_assert(dfn_filter_parse(wheres[w], &flt, err, sizeof err), "%s", err);
                    dfn_result *r[3];
                    for (int k = 0; k < 3; k++) {   /* with tiles, without, the full path */
                        dfn_query q = { .sort = -1, .spark_bins = widths[b], .threads = threads, .filter = &flt, .layers = ls,
                                        .metrics = own_lean | (k == 2 ? DFN_M_BIT(DFN_M_FILES) : 0), .tiles = k ? NULL : tl };
                        r[k] = su_run(s, &q, dims[d]);
                    }
                    char what[256];
                    snprintf(what, sizeof what, "by %s where '%s', %zu bins, %d threads", dims[d], wheres[w], widths[b], threads);
                    for (int k = 1; k < 3; k++) same_results(s, r[0], r[k], own_lean, widths[b], false, what);
                    /* rows or filters by lane and by file together are
                     * scanned; every other table takes tiles, but for
                     * sparklines over the whole span (the longest calls
                     * make it too long for exact bins: each call alone) */
                    bool lanes = d == 2 || strstr(wheres[w], "pid"), files = d == 3 || d == 4 || strstr(wheres[w], "file");
                    if (lanes && files) cr_assert_eq(r[0]->tiles_taken, 0, "%s", what);
                    else if (!widths[b] || wheres[w] == w1) cr_assert_gt(r[0]->tiles_taken, 0, "%s", what);
                    cr_assert_eq(r[1]->tiles_taken, 0, "%s", what);
                    if (d == 0 && w < 2) {   /* saturated, not wrapped */
                        cr_assert(isinf(su_metric(s, r[0], "big", DFN_M_TIME_S)), "%s", what);
                        cr_assert(isinf(su_metric(s, r[0], "read", DFN_M_BYTES)), "%s: %g", what, su_metric(s, r[0], "read", DFN_M_BYTES));
                    }
                    for (int k = 0; k < 3; k++) dfn_result_free(r[k]);
                    dfn_filter_free(&flt);
                }
    /* the process level with its compute and I/O columns, each lane's I/O
     * from the tiles' sweeps: compute the "big" calls (the longest among
     * them), I/O the POSIX and STDIO calls, then the reads alone (--io);
     * by process, and by pid and by thread (lanes share rows: not from
     * the tiles) */
    const char *ovdims[] = { "proc", "pid", "tid" };
    char w2[128];
    snprintf(w2, sizeof w2, "time>=%.6f time<%.6f", end_s * 0.25, end_s * 0.7);
    const char *ovw[] = { "", "pid!=1", w2 };
    for (int io = 0; io < 2; io++) {
        dfn_analysis an = {0};
        cr_assert(dfn_analysis_build(&an, s, ls, "func=big", false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
        if (io) cr_assert(dfn_analysis_set_io(&an, s, ls, "func=read", err, sizeof err), "%s", err);
        dfn_tiles *tov = dfn_tiles_build(s, ls, an.overlap, 6);
        size_t swept = 0;
        for (size_t k = 0; k < tov->ntiles; k++) swept += tov->tiles[k].nio > 0;
        cr_assert_eq(swept, tov->ntiles, "every tile has I/O");
        for (size_t d = 0; d < 3; d++)
        for (size_t w = 0; w < sizeof ovw / sizeof *ovw; w++)
            for (size_t b = 0; b < sizeof widths / sizeof *widths; b++)
                for (int threads = 1; threads <= 2; threads++) {
                    dfn_filter flt;
                    cr_assert(dfn_filter_parse(ovw[w], &flt, err, sizeof err), "%s", err);
                    uint64_t own = own_lean | DFN_M_OVERLAP;
                    dfn_result *r[3];
                    for (int k = 0; k < 3; k++) {
                        dfn_query q = { .sort = -1, .spark_bins = widths[b], .threads = threads, .filter = &flt, .layers = ls,
                                        .metrics = own | (k == 2 ? DFN_M_BIT(DFN_M_FILES) : 0), .spark_split = true };
                        dfn_analysis_apply(&an, &q);
                        q.tiles = k ? NULL : tov;
                        r[k] = su_run(s, &q, ovdims[d]);
                    }
                    char what[256];
                    snprintf(what, sizeof what, "by %s with the overlap%s where '%s', %zu bins, %d threads", ovdims[d],
                             io ? " (I/O: reads)" : "", ovw[w], widths[b], threads);
                    for (int k = 1; k < 3; k++) same_results(s, r[0], r[k], own, widths[b], true, what);
                    cr_assert_gt(dfn_result_metric(r[0], 0, DFN_M_IO_BUSY_S), 0, "%s", what);
                    for (int k = 0; k < 3; k++) dfn_result_free(r[k]);
                    dfn_filter_free(&flt);
                }
        dfn_tiles_free(tov);
        dfn_analysis_free(&an);
    }
    dfn_tiles_free(tl);
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(s);
}

/* A call of 0 µs starting where a time bin ends is in the next bin,
 * though it ends by the bin's end: a tile ending with one is not in one
 * bin (review). 63 calls of 1 µs in bin 0 (100 µs wide), the 64th at
 * 100 µs, and 64 more from 101 µs: 63 and 65 calls. */
Test(query, tiles_leave_a_call_at_a_bin_edge_to_its_bin)
{
    memtext mt;
    FILE *f = text_open(&mt);
    for (int i = 0; i < 128; i++) {
        uint64_t at = i < 63 ? (uint64_t)i : i == 63 ? 100 : 101 + (uint64_t)(i - 64);
        fprintf(f, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%" PRIu64 ",\"dur\":%d,\"ph\":\"X\"}\n",
                1000000 + at, i == 63 ? 0 : 1);
    }
    fclose(f);
    dfn_store *s = su_load_text("binedge.pfw", mt.text, 1);
    free(mt.text);
    dfn_tiles *tl = dfn_tiles_build(s, NULL, NULL, 6);
    cr_assert(tl->ntiles == 2 && tl->tiles[0].ok && tl->tiles[1].ok);
    for (int k = 0; k < 2; k++) {
        dfn_query q = { .sort = -1, .threads = 1, .bin_s = 0.0001, .metrics = own_lean, .tiles = k ? NULL : tl };
        dfn_result *r = su_run(s, &q, "time");
        cr_assert_eq(r->nrows, 2);
        cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 63, "%s", k ? "scan" : "tiles");
        cr_assert_eq(dfn_result_metric(r, 1, DFN_M_COUNT), 65, "%s", k ? "scan" : "tiles");
        dfn_result_free(r);
    }
    dfn_tiles_free(tl);
    dfn_store_free(s);
}

/* Tiles of 1,024 calls keep at most 64 sums by lane and 128 by file:
 * the second tile's 1,024 files, and the third's 80 lanes, are too many,
 * so each is scanned for the rows that would take those sums, and its
 * other sums serve the rest; the fourth's 100 files are not. Every count
 * is known: 4,096 reads of call N, file /f/(N % 8) but /g/(N - 1024) in
 * the second tile and /h/(N % 100) in the fourth, lane N % 4 but pid
 * 10 + N % 80 in the third. */
Test(query, tiles_scan_a_tile_of_too_many_files_or_lanes)
{
    memtext mt;
    FILE *f = text_open(&mt);
    for (int i = 0; i < 4096; i++) {
        int tile = i / 1024;
        fprintf(f, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":2,\"ph\":\"X\","
                   "\"args\":{\"fname\":\"/%c/%d\",\"size\":10}}\n",
                tile == 2 ? 10 + i % 80 : i % 4, 1000 + 3 * i, "fgfh"[tile],
                tile == 1 ? i - 1024 : tile == 3 ? i % 100 : i % 8);
    }
    fclose(f);
    dfn_store *s = su_load_text("toomany.pfw", mt.text, 1);
    free(mt.text);
    dfn_tiles *tl = dfn_tiles_build(s, NULL, NULL, 10);
    cr_assert_eq(tl->ntiles, 4);
    bool ok[4] = { true, true, false, true }, fok[4] = { true, false, true, true };
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(tl->tiles[k].ok, ok[k], "tile %d by lane", k);
        cr_assert_eq(tl->tiles[k].fok, fok[k], "tile %d by file", k);
    }
    const char *dims[] = { "file", "dir", "pid", "func" }, *wheres[] = { "", "file=/f/3|/g/7", "pid=2|17" };
    for (size_t d = 0; d < 4; d++)
        for (size_t w = 0; w < 3; w++) {
            dfn_filter flt;
            char err[256];
            cr_assert(dfn_filter_parse(wheres[w], &flt, err, sizeof err), "%s", err);
            dfn_result *r[2];
            for (int k = 0; k < 2; k++) {
                dfn_query q = { .sort = -1, .threads = 1, .spark_bins = 4, .filter = &flt, .metrics = own_lean,
                                .tiles = k ? NULL : tl };
                r[k] = su_run(s, &q, dims[d]);
            }
            char what[128];
            snprintf(what, sizeof what, "by %s where '%s'", dims[d], wheres[w]);
            same_results(s, r[0], r[1], own_lean, 4, false, what);
            /* the tiles each table took whole (a sparkline bin a tile):
             * those with the sums it needs; by function without a
             * filter of either, the third tile's by file */
            bool by_lane = d == 2 || w == 2, by_file = d < 2 || w == 1;
            size_t taken = by_lane && by_file ? 0 : by_lane || by_file ? 3 : 4;
            cr_assert_eq(r[0]->tiles_taken, taken, "%s: %zu tiles taken", what, r[0]->tiles_taken);
            if (d == 0 && w == 0) {
                cr_assert_eq(r[0]->nrows, 8 + 1024 + 100, "%s", what);
                cr_assert_eq(su_metric(s, r[0], "/g/5", DFN_M_COUNT), 1, "%s", what);
                cr_assert_eq(su_metric(s, r[0], "/h/5", DFN_M_COUNT), 10, "%s", what);   /* 3105 ... 4005 */
                cr_assert_eq(su_metric(s, r[0], "/f/5", DFN_M_COUNT), 2 * 1024 / 8, "%s", what);
            }
            if (d == 3 && w == 1) cr_assert_eq(su_metric(s, r[0], "read", DFN_M_COUNT), 2 * 1024 / 8 + 1, "%s", what);
            if (d == 3 && w == 2) cr_assert_eq(su_metric(s, r[0], "read", DFN_M_COUNT), 3 * 1024 / 4 + 1024 / 80 + 1, "%s", what);
            for (int k = 0; k < 2; k++) dfn_result_free(r[k]);
            dfn_filter_free(&flt);
        }
    dfn_tiles_free(tl);
    dfn_store_free(s);
}

/* The process level from tiles alone (two whole tiles, no window): each
 * process's compute (pid 1's "step" calls) and I/O (reads of both) come
 * from the tiles' sweeps and marks, as from the scan. */
Test(query, tiles_give_the_process_level_its_compute_and_io)
{
    memtext mt;
    FILE *f = text_open(&mt);
    for (int i = 0; i < 128; i++)
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":%d,\"ph\":\"X\"}\n",
                i % 4 == 0 ? "step" : "read", i % 4 == 0 ? "compute" : "POSIX", 1 + i % 2, 1000 + 10 * i, i % 4 == 0 ? 25 : 3);
    fclose(f);
    dfn_store *s = su_load_text("tileov.pfw", mt.text, 1);
    free(mt.text);
    char err[256];
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, NULL, "cat=compute", false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
    dfn_tiles *tl = dfn_tiles_build(s, NULL, an.overlap, 6);
    cr_assert(tl->ntiles == 2 && tl->tiles[0].ok && tl->tiles[1].ok && tl->tiles[0].nio == 2);
    dfn_result *r[2];
    for (int k = 0; k < 2; k++) {
        dfn_query q = { .sort = -1, .threads = 1, .metrics = own_lean | DFN_M_OVERLAP };
        dfn_analysis_apply(&an, &q);
        q.tiles = k ? NULL : tl;
        r[k] = su_run(s, &q, "proc");
    }
    same_results(s, r[0], r[1], own_lean | DFN_M_OVERLAP, 0, true, "the process level from tiles");
    cr_assert_gt(dfn_result_metric(r[0], 0, DFN_M_COMPUTE_S) + dfn_result_metric(r[0], 1, DFN_M_COMPUTE_S), 0);
    for (int k = 0; k < 2; k++) dfn_result_free(r[k]);
    dfn_tiles_free(tl);
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

/* Busy and idle time are made only when asked for (their union is a
 * pass of its own: a layer's for every layer of a call), undefined
 * otherwise; the explorer's rows without them and without the slowest
 * process are the rows with them, by a table, by time and by layer, whole
 * or through a filter or a window that cuts calls, on 1 and 2 threads. */
Test(query, busy_only_when_asked)
{
    /* two processes: reads [100,110) and [105,125) overlap, a write apart */
    dfn_store *s = su_load_text("busy.pfw",
        EV("read", "POSIX", 1, 1, 100, 10, "\"fname\":\"/a\",\"ret\":4096")
        EV("read", "POSIX", 2, 2, 105, 20, "\"fname\":\"/b\",\"ret\":100")
        EV("write", "POSIX", 1, 1, 300, 5, "\"fname\":\"/a\",\"ret\":7")
        EV("open", "POSIX", 2, 2, 400, 3, "\"fname\":\"/b\""), 1);
    dfn_layerset *ls = su_layerset(s, "posix");
    const uint64_t busy = DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S) | DFN_M_BIT(DFN_M_MAX_PROC_S) |
                          DFN_M_BIT(DFN_M_MAX_PROC);
    const char *dims[] = { "func", "file", "proc", "time", "sizebin", "layer", "" };
    const char *where[] = { "", "func!=write", "time>=0.000008 time<0.00012" };
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++)
        for (size_t w = 0; w < sizeof where / sizeof *where; w++)
            for (int threads = 1; threads <= 2; threads++) {
                dfn_filter f;
                char err[256], what[256];
                cr_assert(dfn_filter_parse(where[w], &f, err, sizeof err), "%s", err);
                dfn_result *r[2];
                for (int k = 0; k < 2; k++) {
                    dfn_query q = { .sort = -1, .spark_bins = 8, .sizes = true, .filter = &f, .layers = ls,
                                    .threads = threads, .bin_s = 0.0001, .metrics = own_lean | (k ? busy : 0) };
                    r[k] = su_run(s, &q, dims[d]);
                }
                snprintf(what, sizeof what, "by %s where '%s', without and with busy", dims[d], where[w]);
                same_rows(s, r[0], r[1], own_lean, 8, what);
                for (size_t row = 0; row < r[0]->nrows; row++) {
                    cr_assert(isnan(dfn_result_metric(r[0], row, DFN_M_BUSY_S)) &&
                                  isnan(dfn_result_metric(r[0], row, DFN_M_IDLE_S)),
                              "by %s: busy and idle not asked for, yet given", dims[d]);
                    cr_assert(!isnan(dfn_result_metric(r[1], row, DFN_M_BUSY_S)), "by %s: busy asked for", dims[d]);
                }
                for (int k = 0; k < 2; k++) dfn_result_free(r[k]);
                dfn_filter_free(&f);
            }
    /* asked for, exact: the reads' union is [100,125), the layer's adds
     * the write and the open; idle is the window less it */
    const char *by[] = { "func", "layer" }, *key[] = { "read", "posix" };
    const double want[] = { 25e-6, 33e-6 };
    for (int k = 0; k < 2; k++) {
        dfn_query q = { .sort = -1, .layers = ls, .metrics = DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S) };
        dfn_result *r = su_run(s, &q, by[k]);
        cr_assert_float_eq(su_metric(s, r, key[k], DFN_M_BUSY_S), want[k], 1e-12, "by %s", by[k]);
        cr_assert_float_eq(su_metric(s, r, key[k], DFN_M_IDLE_S), 303e-6 - want[k], 1e-12, "by %s", by[k]);
        dfn_result_free(r);
    }
    dfn_store_free(s);
}

/* A query that keeps only what it asks for (the explorer's status line
 * facts) has the same figures for those, the metrics every row gets
 * undefined, and a row fewer bytes. */
Test(query, asked_only_keeps_what_it_asks)
{
    const uint64_t asked = DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC);
    dfn_result *r[2];
    for (int k = 0; k < 2; k++) {
        dfn_query q = { .sort = -1, .sizes = true, .metrics = asked, .asked_only = k == 1 };
        r[k] = su_run(st, &q, "func");
    }
    cr_assert_eq(r[0]->nrows, r[1]->nrows);
    cr_assert_lt(r[1]->mw, r[0]->mw, "%zu columns kept, %zu without asked_only", r[1]->mw, r[0]->mw);
    for (size_t row = 0; row < r[0]->nrows; row++) {
        cr_assert_eq(dfn_result_key(r[0], row, 0)->id, dfn_result_key(r[1], row, 0)->id);
        cr_assert_eq(dfn_result_metric(r[0], row, DFN_M_MAX_PROC_S), dfn_result_metric(r[1], row, DFN_M_MAX_PROC_S));
        cr_assert_eq(dfn_result_metric(r[0], row, DFN_M_MAX_PROC), dfn_result_metric(r[1], row, DFN_M_MAX_PROC));
        cr_assert(!isnan(dfn_result_metric(r[0], row, DFN_M_TIME_S)) && isnan(dfn_result_metric(r[1], row, DFN_M_TIME_S)));
        cr_assert_arr_eq(r[0]->sizes + row * DFN_SIZEBIN_COUNT, r[1]->sizes + row * DFN_SIZEBIN_COUNT,
                         DFN_SIZEBIN_COUNT * sizeof *r[0]->sizes);
    }
    for (int k = 0; k < 2; k++) dfn_result_free(r[k]);
}

/* Keys that are numbers sort as numbers, at any length; the empty key
 * first, other text after them (issue 17). */
Test(query, numeric_keys_sort_as_numbers)
{
    const char *vals[] = { "10", "2", "train", "", "1", "-1", "1.5", "12970282039104182291", "9", "0.25", "-0.5", "01" };
    char t[4096];
    size_t n = 0;
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++)
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"x\",\"cat\":\"app\",\"pid\":1,\"tid\":1,\"ts\":%zu,"
                              "\"dur\":1,\"ph\":\"X\",\"args\":{\"step\":\"%s\"}}\n", k + 1, vals[k]);
    dfn_store *s = su_load_text("keys.pfw", t, 1);
    dfn_query q = { .sort = -1 };
    dfn_result *r = su_run(s, &q, "arg.step");
    char got[512] = "", key[64];
    for (size_t row = 0; row < r->nrows; row++) {
        dfn_result_key_text(s, r, row, 0, key, sizeof key);
        strcat(got, row ? "|" : "");
        strcat(got, key);
    }
    cr_assert_str_eq(got, "|-1|-0.5|0.25|01|1|1.5|2|9|10|12970282039104182291|train", "%s", got);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* The spread across processes (issue 17): three processes of one row
 * with 10, 20 and 60 µs and 100, 200 and 600 bytes (pid 3's in two calls),
 * in a dense row and, past the dense rows, in a sparse one, for any
 * thread count. */
static char *spread_trace(size_t extra_rows)
{
    size_t cap = 4096 + extra_rows * 160, n = 0;
    char *t = malloc(cap);
    const int pid[] = { 1, 2, 3, 3 }, dur[] = { 10, 20, 25, 35 }, ret[] = { 100, 200, 250, 350 };
    for (size_t k = 0; k < extra_rows; k++)
        n += (size_t)snprintf(t + n, cap - n, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":9,\"tid\":9,\"ts\":%zu,"
                              "\"dur\":1,\"ph\":\"X\",\"args\":{\"k\":\"f%zu\",\"ret\":1}}\n", 10 + k, k);
    for (int e = 0; e < 4; e++)
        n += (size_t)snprintf(t + n, cap - n, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%zu,"
                              "\"dur\":%d,\"ph\":\"X\",\"args\":{\"k\":\"row\",\"ret\":%d}}\n", pid[e], pid[e],
                              100000 + (size_t)e, dur[e], ret[e]);
    return t;
}

Test(query, spread_across_processes)
{
    for (int sparse = 0; sparse < 2; sparse++) {
        char *t = spread_trace(sparse ? 5000 : 0);
        for (int threads = 1; threads <= 3; threads += 2) {
            dfn_store *s = su_load_text("spread.pfw", t, threads);
            dfn_query q = { .sort = -1, .threads = threads, .metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_PROCS) |
                            DFN_M_BIT(DFN_M_MIN_PROC_S) | DFN_M_BIT(DFN_M_MEAN_PROC_S) | DFN_M_BIT(DFN_M_STD_PROC_S) |
                            DFN_M_BIT(DFN_M_MAX_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC_BYTES) | DFN_M_BIT(DFN_M_MEAN_PROC_BYTES) };
            dfn_result *r = su_run(s, &q, "arg.k");
            cr_assert_eq(r->nrows, sparse ? 5001 : 1);
            cr_assert_eq(su_metric(s, r, "row", DFN_M_PROCS), 3, "sparse %d -j %d", sparse, threads);
            cr_assert_float_eq(su_metric(s, r, "row", DFN_M_MIN_PROC_S), 10e-6, 1e-12);
            cr_assert_float_eq(su_metric(s, r, "row", DFN_M_MEAN_PROC_S), 30e-6, 1e-12);
            cr_assert_float_eq(su_metric(s, r, "row", DFN_M_MAX_PROC_S), 60e-6, 1e-12);
            cr_assert_float_eq(su_metric(s, r, "row", DFN_M_STD_PROC_S), sqrt(1400.0 / 3) * 1e-6, 1e-12,
                               "std %g", su_metric(s, r, "row", DFN_M_STD_PROC_S));
            cr_assert_eq(su_metric(s, r, "row", DFN_M_MAX_PROC_BYTES), 600, "sparse %d -j %d: %g", sparse, threads,
                         su_metric(s, r, "row", DFN_M_MAX_PROC_BYTES));
            cr_assert_eq(su_metric(s, r, "row", DFN_M_MEAN_PROC_BYTES), 300);
            if (sparse) cr_assert_eq(su_metric(s, r, "f4999", DFN_M_STD_PROC_S), 0);
            dfn_result_free(r);
            dfn_store_free(s);
        }
        free(t);
    }
}

/* Bytes per call of a row's reads and writes (issue 17): pread64 reads
 * 4096, 8192 and 1 MiB; the writes 5 and 3 MB; a fork has none. The
 * median is its bucket's middle, within 1%. By function, and by layer,
 * which adds up per layer mask. */
Test(query, size_statistics)
{
    dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_SIZE_MEAN) | DFN_M_BIT(DFN_M_SIZE_P50) |
                                           DFN_M_BIT(DFN_M_SIZE_MIN) | DFN_M_BIT(DFN_M_SIZE_MAX) };
    dfn_result *r = su_run(st, &q, "func");
    cr_assert_float_eq(su_metric(st, r, "pread64", DFN_M_SIZE_MEAN), (4096 + 8192 + 1048576) / 3.0, 1e-6);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_SIZE_MIN), 4096);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_SIZE_MAX), 1048576);
    double p50 = su_metric(st, r, "pread64", DFN_M_SIZE_P50);
    cr_assert(fabs(p50 - 8192) <= 8192 * 0.01, "p50 %g", p50);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_SIZE_MEAN), 4000000);
    cr_assert_eq(su_metric(st, r, "write", DFN_M_SIZE_MIN), 3000000);
    cr_assert(isnan(su_metric(st, r, "fork", DFN_M_SIZE_MEAN)) && isnan(su_metric(st, r, "fork", DFN_M_SIZE_P50)));
    dfn_result_free(r);
    q.layers = su_layerset(st, "posix");
    r = su_run(st, &q, "layer");
    cr_assert_float_eq(su_metric(st, r, "posix", DFN_M_SIZE_MEAN), (4096 + 8192 + 1048576 + 8000000) / 5.0, 1e-6);
    cr_assert_eq(su_metric(st, r, "posix", DFN_M_SIZE_MAX), 5000000);
    p50 = su_metric(st, r, "posix", DFN_M_SIZE_P50);
    cr_assert(fabs(p50 - 1048576) <= 1048576 * 0.01, "p50 %g", p50);
    dfn_result_free(r);
}

Test(query, args_group_across_eras)
{
    /* "epoch":"1" (newer writers) and "epoch":1 (2023) are one group */
    dfn_result *r = su_query(st, "dlio-legacy", "own.epoch", "own.epoch!=\"\"");
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(su_metric(st, r, "1", DFN_M_COUNT), 2);
    dfn_result_free(r);
    r = su_query(st, "dlio-legacy", "func", "arg.ret>=1000000");
    cr_assert_eq(su_metric(st, r, "write", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(st, r, "pread64", DFN_M_COUNT), 1);
    dfn_result_free(r);
}

Test(query, several_dimensions_and_top)
{
    dfn_query q = { .sort = DFN_M_BYTES, .desc = true, .top = 2 };
    dfn_result *r = su_run(st, &q, "pid,func");
    cr_assert_eq(r->nrows, 2);
    char k[64];
    dfn_result_key_text(st, r, 0, 0, k, sizeof k);
    cr_assert_str_eq(k, "2");
    dfn_result_key_text(st, r, 1, 1, k, sizeof k);
    cr_assert_str_eq(k, "pread64");
    cr_assert_eq(dfn_result_metric(r, 1, DFN_M_BYTES), 4096 + 8192 + 1048576);
    dfn_result_free(r);
}

Test(query, events_are_rows)
{
    dfn_result *r = su_query(st, "dlio-legacy", "event", "func=pread64");
    cr_assert_eq(r->nrows, 3);
    cr_assert_eq(dfn_result_metric(r, 2, DFN_M_TIME_S), 100e-6);
    dfn_result_free(r);
}

Test(query, bad_queries_say_why)
{
    char err[512];
    dfn_dim d[DFN_MAX_DIMS];
    size_t n;
    cr_assert_not(dfn_dims_parse("file,colour", d, &n, err, sizeof err));
    cr_assert(strstr(err, "unknown dimension 'colour'"));
    dfn_filter f;
    cr_assert(dfn_filter_parse("layer=nosuch", &f, err, sizeof err));
    dfn_query q = { .filter = &f, .layers = su_layerset(st, "dlio-legacy") };
    cr_assert_null(dfn_query_run(st, &q, err, sizeof err));
    cr_assert(strstr(err, "unknown layer 'nosuch'"), "%s", err);
    dfn_filter_free(&f);
}

Test(layers, file_format_and_errors)
{
    dfn_layers l;
    char err[512];
    cr_assert(dfn_layers_parse("# io\nio : cat=POSIX\nbig < io : bytes>1M\nrest:layer!=io\n", "t", &l, err, sizeof err), "%s", err);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.defs[1].parent, 0);
    cr_assert_str_eq(dfn_layers_name(&l, 3), "other");
    dfn_layers_free(&l);
    cr_assert_not(dfn_layers_parse("a : layer=b\nb : cat=x\n", "t", &l, err, sizeof err));
    cr_assert(strstr(err, "not defined above"), "%s", err);
    cr_assert_not(dfn_layers_parse("a < nope : cat=x\n", "t", &l, err, sizeof err));
    cr_assert(strstr(err, "t:1: parent layer 'nope'"), "%s", err);
    cr_assert_not(dfn_layers_parse("a : cat=x\nb : cat=y\nb < a : cat=z\n", "t", &l, err, sizeof err));
    cr_assert(strstr(err, "t:3: layer 'b' is defined again under another parent"), "%s", err);
    cr_assert_not(dfn_layers_parse("a : cat=x\nb : cat=y\na : layer=b\n", "t", &l, err, sizeof err));
    cr_assert(strstr(err, "t:3: layer 'b' is not defined above the first line of 'a'"), "%s", err);
    cr_assert_not(dfn_layers_parse("other : cat=x\n", "t", &l, err, sizeof err));
    cr_assert_not(dfn_layers_parse("a cat=x\n", "t", &l, err, sizeof err));
    cr_assert(strstr(err, "expected ':'"), "%s", err);
    cr_assert_not(dfn_layers_load("/nonexistent/x.layers", &l, err, sizeof err));
    cr_assert(strstr(err, "presets: posix, dlio, dlio-legacy"), "%s", err);
    /* a UTF-8 byte-order mark, as some editors write, starts no name (issue 23) */
    cr_assert(dfn_layers_parse("\xef\xbb\xbfio : cat=POSIX\n", "t", &l, err, sizeof err), "%s", err);
    cr_assert_str_eq(dfn_layers_name(&l, 0), "io");
    dfn_layers_free(&l);
}

/* A layer named on two lines takes the events of either, once each; the
 * lines after it see it as one layer. */
Test(layers, a_layer_named_again_takes_either_line)
{
    dfn_store *alt = su_load_text("alt.pfw",
        EV("read", "reader", 1, 1, 10, 5, "") EV("preprocess", "data", 1, 1, 20, 7, "")
        EV("item", "data", 1, 1, 30, 11, "") EV("read", "POSIX", 1, 1, 40, 13, ""), 1);
    dfn_layers l;
    char err[512];
    cr_assert(dfn_layers_parse("reader : cat=reader\nloader : cat=data\nreader : func=preprocess\n"
                               "rest : layer!=reader|loader\n", "t", &l, err, sizeof err), "%s", err);
    cr_assert_eq(l.n, 3);
    dfn_layerset *ls = dfn_layerset_compile(alt, &l, 2, err, sizeof err);
    cr_assert_not_null(ls, "%s", err);
    dfn_query q = { .layers = ls, .sort = -1 };
    dfn_result *r = su_run(alt, &q, "layer");
    cr_assert_eq(su_metric(alt, r, "reader", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(alt, r, "reader", DFN_M_TIME_S), 12e-6);
    cr_assert_eq(su_metric(alt, r, "loader", DFN_M_COUNT), 2);   /* preprocess is in both */
    cr_assert_eq(su_metric(alt, r, "rest", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(alt, r, "rest", DFN_M_TIME_S), 13e-6);
    dfn_result_free(r);
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(alt);
}

/* Layer terms of a filter are decided once per mask of the layer set's
 * index, and the scans test them inline: a call in two layers, a layer
 * named by two lines, negation, alternatives, a substring, the layer of
 * calls in none, and beside a term tested per call, on 1 and 3 threads. */
Test(layers, filters_decided_per_mask)
{
    dfn_store *alt = su_load_text("alt.pfw",
        EV("read", "reader", 1, 1, 10, 5, "") EV("preprocess", "data", 1, 1, 20, 7, "")
        EV("item", "data", 1, 1, 30, 11, "") EV("read", "POSIX", 1, 1, 40, 13, "")
        EV("close", "STDIO", 1, 1, 60, 2, ""), 1);
    dfn_layers l;
    char err[512];
    cr_assert(dfn_layers_parse("reader : cat=reader\nloader : cat=data\nreader : func=preprocess\n"
                               "rest : cat=POSIX\n", "t", &l, err, sizeof err), "%s", err);
    dfn_layerset *ls = dfn_layerset_compile(alt, &l, 2, err, sizeof err);
    cr_assert_not_null(ls, "%s", err);
    const struct { const char *where; uint64_t calls, us; } cases[] = {
        { "layer=reader", 2, 12 },            /* read, and preprocess in two layers */
        { "layer!=loader", 3, 20 },           /* read, read of POSIX, close in none */
        { "layer=reader|rest", 3, 25 },
        { "layer~load", 2, 18 },
        { "layer=other", 1, 2 },              /* in no layer */
        { "layer!=reader layer!=other", 2, 24 },
        { "layer=loader func=item", 1, 11 },
        { "layer!=reader dur>12", 1, 13 },    /* a term per call beside */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int threads = 1; threads <= 3; threads += 2) {
            dfn_filter f;
            cr_assert(dfn_filter_parse(cases[k].where, &f, err, sizeof err), "%s", err);
            dfn_query q = { .layers = ls, .sort = -1, .filter = &f, .threads = threads };
            dfn_result *r = su_run(alt, &q, "func");
            cr_assert_eq(r->matched, cases[k].calls, "%s: %" PRIu64 " calls", cases[k].where, r->matched);
            cr_assert_eq(r->total_us, cases[k].us, "%s: %" PRIu64 " µs", cases[k].where, r->total_us);
            dfn_result_free(r);
            /* the same, call by call */
            dfn_match *m = dfn_match_compile(alt, ls, &f, err, sizeof err);
            cr_assert_not_null(m, "%s", err);
            uint64_t n = 0;
            for (size_t i = 0; i < alt->n; i++) n += dfn_match_event(m, i);
            cr_assert_eq(n, cases[k].calls, "%s, call by call", cases[k].where);
            dfn_match_free(m);
            dfn_filter_free(&f);
        }
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(alt);
}

/* A layer with a time term holds the calls of its window, not every call
 * of a (function, file, process) whose first call fell in it, for any
 * number of index threads (the per-triple memo once took the first call's
 * mask for all of them). */
Test(layers, a_time_term_is_per_call)
{
    size_t cap = 20000 * 160, len = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 20000; i++)
        len += (size_t)snprintf(t + len, cap - len,
            "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10,\"ph\":\"X\","
            "\"args\":{\"fname\":\"/d/f%d\",\"ret\":1}}\n", 1000000 + i * 1000, i % 3);
    dfn_store *s = su_load_text("time.pfw", t, 1);
    free(t);
    dfn_layers l;
    char err[512];
    cr_assert(dfn_layers_parse("early : time<5\nlate < early : file~f1\n", "t", &l, err, sizeof err), "%s", err);
    for (int threads = 1; threads <= 3; threads++) {
        dfn_layerset *ls = dfn_layerset_compile(s, &l, threads, err, sizeof err);
        cr_assert_not_null(ls, "%s", err);
        dfn_query q = { .layers = ls, .sort = -1 };
        dfn_result *r = su_run(s, &q, "layer");
        /* call i at i ms from the first: 5000 start before 5 s, 1667 of them on f1 */
        cr_assert_eq(su_metric(s, r, "early", DFN_M_COUNT), 5000, "%d threads", threads);
        cr_assert_eq(su_metric(s, r, "late", DFN_M_COUNT), 1667, "%d threads", threads);
        cr_assert_eq(su_metric(s, r, "other", DFN_M_COUNT), 15000, "%d threads", threads);
        dfn_result_free(r);
        dfn_layerset_free(ls);
    }
    dfn_layers_free(&l);
    dfn_store_free(s);
}

/* Calls in layers b0..b8 by the bits of a mask: call i has arg.bk = 1
 * where bit k of mask(i) is set, and layer bk is arg.bk=1. */
enum { MASK_BITS = 9 };

static dfn_store *mask_store(const char *name, size_t n, uint64_t (*mask)(size_t), int threads)
{
    size_t cap = n * 240, len = 0;
    char *t = malloc(cap);
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(t + len, cap - len, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,"
                                "\"ts\":%zu,\"dur\":3,\"ph\":\"X\",\"args\":{", 1000 + i * 10);
        for (int k = 0; k < MASK_BITS; k++)
            len += (size_t)snprintf(t + len, cap - len, "%s\"b%d\":%d", k ? "," : "", k, (int)(mask(i) >> k & 1));
        len += (size_t)snprintf(t + len, cap - len, "}}\n");
    }
    dfn_store *s = su_load_text(name, t, threads);
    free(t);
    cr_assert_eq(s->n, n);
    return s;
}

static void mask_layers(dfn_layers *l)
{
    char defs[512], err[512];
    size_t dl = 0;
    for (int k = 0; k < MASK_BITS; k++) dl += (size_t)snprintf(defs + dl, sizeof defs - dl, "b%d : arg.b%d=1\n", k, k);
    cr_assert(dfn_layers_parse(defs, "t", l, err, sizeof err), "%s", err);
}

/* ls has want distinct masks, in an index 32 bits wide. */
static void assert_wide_index(const dfn_layerset *ls, size_t want, int threads)
{
    size_t nm;
    const uint8_t *i8;
    const uint32_t *i32;
    dfn_layerset_masks(ls, &nm, &i8, &i32);
    cr_assert_eq(nm, want, "%d threads: %zu masks", threads, nm);
    cr_assert(i8 == NULL && i32 != NULL, "%d threads: the index must be 32 bits wide", threads);
}

static uint64_t mask_mod512(size_t i) { return i % 512; }

/* More than 256 distinct sets of layers in one part of the index: the
 * byte-wide event index would overflow, so it is made again 32 bits
 * wide. Call i is in layer bk when bit k of i % 512 is set: 512 distinct
 * masks (1500 calls make one part, whatever the threads). */
Test(layers, more_than_256_masks_widen_the_index)
{
    enum { N = 1500 };
    dfn_store *s = mask_store("masks.pfw", N, mask_mod512, 1);
    dfn_layers l;
    mask_layers(&l);
    char err[512];
    for (int threads = 1; threads <= 3; threads++) {
        dfn_layerset *ls = dfn_layerset_compile(s, &l, threads, err, sizeof err);
        cr_assert_not_null(ls, "%s", err);
        assert_wide_index(ls, 512, threads);
        dfn_query q = { .layers = ls, .sort = -1 };
        dfn_result *r = su_run(s, &q, "layer");
        for (int k = 0; k < MASK_BITS; k++) {
            int want = 0;
            for (int i = 0; i < N; i++) want += ((i % 512) >> k) & 1;
            char name[8];
            snprintf(name, sizeof name, "b%d", k);
            cr_assert_eq(su_metric(s, r, name, DFN_M_COUNT), want, "%d threads, %s", threads, name);
        }
        cr_assert_eq(su_metric(s, r, "other", DFN_M_COUNT), 3, "%d threads", threads);   /* 0, 512, 1024 */
        for (size_t i = 0; i < s->n; i++)   /* bit 9 is "other", the calls of no layer */
            cr_assert_eq(dfn_layerset_mask(ls, i), i % 512 ? (uint64_t)(i % 512) : 1u << MASK_BITS,
                         "%d threads, call %zu", threads, i);
        dfn_result_free(r);
        dfn_layerset_free(ls);
    }
    dfn_layers_free(&l);
    dfn_store_free(s);
}

enum { HALVES_N = 140000 };
static uint64_t mask_halves(size_t i) { return i < HALVES_N / 2 ? 1 + i % 200 : 256 + i % 200; }

/* Two parts of the index each with 200 sets of layers, 400 together:
 * each part fits a byte, their union does not, so the index is made again
 * 32 bits wide; with one thread (one part) it is 32 bits from the start.
 * The first half of the calls have masks 1..200, the second 256..455. */
Test(layers, parts_that_fit_a_byte_alone_but_not_together)
{
    dfn_store *s = mask_store("parts.pfw", HALVES_N, mask_halves, 2);
    dfn_layers l;
    mask_layers(&l);
    char err[512];
    for (int threads = 1; threads <= 2; threads++) {
        dfn_layerset *ls = dfn_layerset_compile(s, &l, threads, err, sizeof err);
        cr_assert_not_null(ls, "%s", err);
        assert_wide_index(ls, 400, threads);
        for (size_t i = 0; i < s->n; i++)
            if (dfn_layerset_mask(ls, i) != mask_halves(i))
                cr_assert_fail("%d threads, call %zu: mask %" PRIu64 ", not %" PRIu64, threads, i, dfn_layerset_mask(ls, i),
                               mask_halves(i));
        dfn_layerset_free(ls);
    }
    dfn_layers_free(&l);
    dfn_store_free(s);
}

/* A few distinct sets of layers keep a byte per call. */
Test(layers, few_masks_take_a_byte_a_call)
{
    dfn_store *s = su_load_text("few.pfw",
        EV("read", "reader", 1, 1, 10, 5, "") EV("preprocess", "data", 1, 1, 20, 7, "")
        EV("item", "data", 1, 1, 30, 11, "") EV("read", "POSIX", 1, 1, 40, 13, ""), 1);
    dfn_layers l;
    char err[512];
    cr_assert(dfn_layers_parse("reader : cat=reader\nloader : cat=data\n", "t", &l, err, sizeof err), "%s", err);
    dfn_layerset *ls = dfn_layerset_compile(s, &l, 2, err, sizeof err);
    cr_assert_not_null(ls, "%s", err);
    size_t nm;
    const uint8_t *i8;
    const uint32_t *i32;
    dfn_layerset_masks(ls, &nm, &i8, &i32);
    cr_assert(i8 != NULL && i32 == NULL);
    cr_assert_eq(nm, 3);
    cr_assert_eq(dfn_layerset_mask(ls, 0), 1);   /* reader */
    cr_assert_eq(dfn_layerset_mask(ls, 1), 2);   /* loader */
    cr_assert_eq(dfn_layerset_mask(ls, 3), 4);   /* other */
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(s);
}

/* ---- threads: a query split over any number of threads gives the same
 * rows, busy time included, as one thread ---- */

static char *nested_trace(void)
{
    size_t cap = 8 << 20, len = 0;
    char *t = malloc(cap);
    unsigned seed = 7;
    len += (size_t)sprintf(t + len, "[\n");
    for (int lane = 0; lane < 6; lane++) {
        /* a parent spanning the lane, epochs inside it, calls inside those */
        len += (size_t)sprintf(t + len, EV("DLIOBenchmark.run", "dlio_benchmark", %d, %d, %d, %d, "\"epoch\":\"0\""),
                               lane / 2, lane, 1000 + lane, 2000000);
        for (int e = 0; e < 4; e++) {
            int es = 1000 + lane + 10 + e * 490000;
            len += (size_t)sprintf(t + len, EV("DLIOBenchmark._train", "dlio_benchmark", %d, %d, %d, %d, "\"epoch\":\"%d\""),
                                   lane / 2, lane, es, 480000, e);
            for (int k = 0; k < 1200; k++) {
                seed = seed * 1103515245u + 12345u;
                int ts = es + 5 + k * 399 + (int)(seed >> 24) % 50;
                len += (size_t)sprintf(t + len,
                    EV("%s", "POSIX", %d, %d, %d, %u, "\"fname\":\"/p/lustre2/data/f%u.h5\",\"ret\":%u,\"epoch\":%d,\"fd\":%u,\"offset\":%u"),
                    (seed >> 8) % 4 ? "pread64" : "write", lane / 2, lane, ts, 20 + (seed >> 12) % 700u,
                    (seed >> 4) % 37u, (seed >> 3) % 3000000u, e, 3 + (seed >> 6) % 3u, (seed >> 9) % 2 ? k * 64u : 0u);
            }
            /* compute on one thread of each process, overlapping the I/O
             * of the other thread in part */
            if (lane % 2 == 0)
                for (int k = 0; k < 40; k++)
                    len += (size_t)sprintf(t + len, EV("TorchFramework.compute", "ai_framework", %d, %d, %d, %d, "\"epoch\":\"%d\""),
                                           lane / 2, lane, es + 7 + k * 12000, 5000 + (k % 7) * 900, e);
        }
    }
    /* one long read early and many short ones later: the second part's
     * union lies partly below the first part's end, beyond the recorded
     * segments, so the merge must rescan */
    len += (size_t)sprintf(t + len, EV("read", "POSIX", 99, 99, 0, 750000, "\"fname\":\"/x\",\"ret\":1"));
    for (int k = 0; k < 2000; k++)
        len += (size_t)sprintf(t + len, EV("read", "POSIX", 99, 99, %d, 100, "\"fname\":\"/x\",\"ret\":1"), 100 + 500 * k);
    len += (size_t)sprintf(t + len, "]\n");
    return t;
}

Test(query_threads, any_thread_count_gives_the_same_rows)
{
    char *text = nested_trace();
    dfn_store *s = su_load_text("n.pfw", text, 2);
    free(text);
    cr_assert_gt(s->n, 20000);
    char err[512];
    dfn_layerset *ls = su_layerset(s, "dlio-legacy");
    /* the analysis metrics too: their per-process unions merge across
     * threads with the same fix-up as busy time */
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err), "%s", err);
    const char *bys[] = { "func", "layer", "proc", "time", "arg.epoch", "file,func", "pid,arg.epoch,layer", "event" };
    const char *wheres[] = { "", "cat=POSIX", "time>=0.3 time<1.4", "dur>100" };
    for (size_t b = 0; b < sizeof bys / sizeof bys[0]; b++) {
        for (size_t w = 0; w < sizeof wheres / sizeof wheres[0]; w++) {
            dfn_filter f;
            cr_assert(dfn_filter_parse(wheres[w], &f, err, sizeof err));
            dfn_query q = { .layers = ls, .filter = &f, .sort = -1, .threads = 1, .sizes = true,
                            .metrics = DFN_M_BIT(DFN_M_COUNT_) - 1 };
            dfn_analysis_apply(&an, &q);
            cr_assert(dfn_dims_parse(bys[b], q.dims, &q.ndims, err, sizeof err));
            dfn_result *ref = dfn_query_run(s, &q, err, sizeof err);
            int threads[] = { 2, 3, 7 };
            for (int k = 0; k < 3; k++) {
                q.threads = threads[k];
                dfn_result *r = dfn_query_run(s, &q, err, sizeof err);
                cr_assert_eq(r->nrows, ref->nrows, "--by %s --where '%s' -j %d", bys[b], wheres[w], threads[k]);
                for (size_t row = 0; row < r->nrows; row++) {
                    for (size_t d = 0; d < r->ndims; d++) {
                        char x[256], y[256];
                        dfn_result_key_text(s, r, row, d, x, sizeof x);
                        dfn_result_key_text(s, ref, row, d, y, sizeof y);
                        cr_assert_str_eq(x, y);
                    }
                    for (int m = 0; m < DFN_M_COUNT_; m++) {
                        double x = dfn_result_metric(r, row, m), y = dfn_result_metric(ref, row, m);
                        cr_assert(x == y || (isnan(x) && isnan(y)),
                                  "--by %s --where '%s' -j %d row %zu %s: %.17g vs %.17g", bys[b], wheres[w],
                                  threads[k], row, dfn_metric_name(m), x, y);
                    }
                    if (r->events) continue;   /* calls carry no per-row arrays */
                    cr_assert_not_null(r->sizes);
                    cr_assert_not_null(ref->sizes);
                    cr_assert_arr_eq(&r->sizes[row * DFN_SIZEBIN_COUNT], &ref->sizes[row * DFN_SIZEBIN_COUNT],
                                         DFN_SIZEBIN_COUNT * sizeof *r->sizes);
                }
                dfn_result_free(r);
            }
            dfn_result_free(ref);
            dfn_dims_free(q.dims, q.ndims);
            dfn_filter_free(&f);
        }
    }
    /* the row built to need a rescan has the union's exact length */
    dfn_query q = { .layers = ls, .threads = 2, .sort = -1 };
    dfn_filter f;
    cr_assert(dfn_filter_parse("pid=99", &f, err, sizeof err));
    q.filter = &f;
    for (int t = 1; t <= 5; t++) {
        q.threads = t;
        dfn_result *r = dfn_query_run(s, &q, err, sizeof err);
        cr_assert_eq(dfn_result_metric(r, 0, DFN_M_BUSY_S), 0.8, "-j %d: %.9f", t, dfn_result_metric(r, 0, DFN_M_BUSY_S));
        dfn_result_free(r);
    }
    dfn_filter_free(&f);
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

Test(query, sparklines_split_time_over_the_bins)
{
    dfn_query q = { .sort = -1, .spark_bins = 10 };
    dfn_result *r = su_run(st, &q, "func");
    cr_assert_eq(r->spark_bins, 10);
    size_t run = su_row_req(st, r, "DLIOBenchmark.run"), rd = su_row_req(st, r, "pread64"), wr = su_row_req(st, r, "write");
    for (int b = 0; b < 10; b++) cr_assert_eq(r->spark[run * 10 + b], 1000, "the run covers every bin");
    cr_assert_eq(r->spark[rd * 10 + 0], 500);
    cr_assert_eq(r->spark[wr * 10 + 2], 400 + 500, "[2000,2400) and half of [2500,3100)");
    cr_assert_eq(r->spark[wr * 10 + 3], 100);
    cr_assert_eq(r->spark_total[0], 1500);
    dfn_result_sort(r, DFN_M_BYTES, true);
    cr_assert_eq(su_row(st, r, "write"), 0);
    cr_assert_eq(r->spark[0 * 10 + 3], 100, "sparklines move with their rows");
    dfn_result_free(r);
}

/* More rows than get dense accumulators (4096), each seen at both ends of
 * the trace: every row's sparkline holds all its time, the rows add up to
 * the total, and both are the same for any number of query threads (rows
 * past the dense ones once lost their time, or kept one part's share). */
Test(query, sparklines_of_many_rows_for_any_thread_count)
{
    const int nfiles = 6000;
    size_t cap = (size_t)nfiles * 2 * 170, len = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 2 * nfiles; i++) {
        int f = i < nfiles ? i : 2 * nfiles - 1 - i;
        len += (size_t)snprintf(t + len, cap - len,
            "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d,\"ph\":\"X\","
            "\"args\":{\"fname\":\"/data/f%05d\",\"ret\":1}}\n", i * 10, 3 + f % 5, f);
    }
    dfn_store *s = su_load_text("many.pfw", t, 1);
    free(t);
    dfn_result *ref = NULL;
    for (int threads = 1; threads <= 3; threads++) {
        dfn_query q = { .sort = -1, .spark_bins = 8, .threads = threads };
        dfn_result *r = su_run(s, &q, "file");
        cr_assert_eq(r->nrows, (size_t)nfiles);
        double all = 0;
        for (size_t row = 0; row < r->nrows; row++) {
            double sum = 0;
            for (size_t b = 0; b < 8; b++) sum += r->spark[row * 8 + b];
            cr_assert_eq(sum, dfn_result_metric(r, row, DFN_M_TIME_S) * 1e6, "row %zu, %d threads", row, threads);
            all += sum;
            if (ref) cr_assert_arr_eq(&r->spark[row * 8], &ref->spark[row * 8], 8 * sizeof *r->spark, "row %zu", row);
        }
        double total = 0;
        for (size_t b = 0; b < 8; b++) total += r->spark_total[b];
        cr_assert_eq(all, total, "%d threads", threads);
        if (ref) dfn_result_free(r);
        else ref = r;
    }
    dfn_result_free(ref);
    dfn_store_free(s);
}

Test(query, events_sort_by_any_metric)
{
    dfn_query q = { .sort = DFN_M_TIME_S, .desc = true, .top = 2 };
    dfn_result *r = su_run(st, &q, "event");
    cr_assert_eq(r->nrows, 2);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_TIME_S), 10000e-6);
    cr_assert_eq(dfn_result_metric(r, 1, DFN_M_TIME_S), 1000e-6);
    cr_assert(fabs(dfn_result_metric(r, 1, DFN_M_PCT_TIME) - 100.0 * 1000 / 12560) < 1e-9);
    dfn_result_sort(r, -1, false);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_TIME_S), 10000e-6, "key order is time order");
    dfn_result_free(r);
}

/* Among processes of equal time the slowest is the smaller pid, and
 * pids given as names compare as text: never by the order their names
 * were first seen (an id of the store's strings, which a store made of
 * the MPI ranks' images numbers otherwise). */
Test(query, slowest_process_ties_order_named_pids_by_name)
{
    dfn_store *s = su_load_text("named.pfw",
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":\"worker-3\",\"tid\":1,\"ts\":10,\"dur\":50,\"ph\":\"X\",\"args\":{}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":\"worker-1\",\"tid\":1,\"ts\":20,\"dur\":50,\"ph\":\"X\",\"args\":{}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":\"worker-2\",\"tid\":1,\"ts\":30,\"dur\":50,\"ph\":\"X\",\"args\":{}}\n", 1);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    char buf[64];
    cr_assert_str_eq(dfn_result_metric_str(r, 0, DFN_M_MAX_PROC, buf, sizeof buf), "/worker-1");
    dfn_result_free(r);
    dfn_store_free(s);
}

Test(query, processes_with_calls_of_no_duration_count)
{
    static const char *t = "[\n"
        EV("lseek64", "POSIX", 1, 1, 10, 0, "\"fname\":\"/x\"")
        EV("lseek64", "POSIX", 2, 2, 20, 5, "\"fname\":\"/x\"")
        "]\n";
    dfn_store *s = su_load_text("z.pfw", t, 1);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(su_metric(s, r, "lseek64", DFN_M_PROCS), 2, "a call of 0 us still counts its process");
    dfn_result_free(r);
    r = su_query(s, "posix", "func,tid", NULL);
    cr_assert_eq(su_metric(s, r, "lseek64|1", DFN_M_PROCS), 1);
    dfn_result_free(r);
    r = su_query(s, "posix", "layer", NULL);
    cr_assert_eq(su_metric(s, r, "posix", DFN_M_PROCS), 2, "the layer scan too");
    dfn_result_free(r);
    dfn_store_free(s);
}

Test(query, time_bins_are_whole_microseconds)
{
    /* 1.5 us bins become 2 us: the labels follow the bins events fall in */
    dfn_query q = { .sort = -1, .bin_s = 0.0000015 };
    dfn_result *r = su_run(st, &q, "time");
    cr_assert_float_eq(r->bin_s, 2e-6, 1e-15);
    cr_assert_eq(su_metric(st, r, "0", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(st, r, "0.0001", DFN_M_COUNT), 1, "the event 100 us in is in the bin labelled 100 us");
    dfn_result_free(r);
}

/* arg.NAME of a call without the argument comes from the innermost
 * enclosing call of its lane that has it (issue 17): POSIX reads group by
 * the epoch and step of the DLIO calls around them; own.NAME keeps the
 * call's own; a filter term agrees with the grouping, for any thread count. */
Test(query, arguments_inherit_from_enclosing_calls)
{
    dfn_store *s = su_load_text("inherit.pfw",
        "[\n"
        EV("train", "dlio", 1, 1, 1000, 1000, "\"epoch\":1")
        EV("step", "dlio", 1, 1, 1010, 400, "\"step\":3")
        EV("read", "POSIX", 1, 1, 1020, 10, "\"fname\":\"/d/a\",\"ret\":10")
        EV("read", "POSIX", 1, 1, 1040, 10, "\"fname\":\"/d/a\",\"ret\":10,\"step\":9")
        EV("step", "dlio", 1, 1, 1500, 400, "\"step\":4")
        EV("read", "POSIX", 1, 1, 1600, 10, "\"fname\":\"/d/a\",\"ret\":10")
        EV("read", "POSIX", 1, 1, 1950, 10, "\"fname\":\"/d/a\",\"ret\":10")
        EV("read", "POSIX", 1, 2, 1020, 10, "\"fname\":\"/d/b\",\"ret\":10")
        EV("train", "dlio", 1, 1, 3000, 1000, "\"epoch\":2")
        EV("read", "POSIX", 1, 1, 3100, 10, "\"fname\":\"/d/a\",\"ret\":10")
        "]\n", 1);
    dfn_calltree *tree = dfn_calltree_build(s);
    char err[256];
    for (int threads = 1; threads <= 4; threads++) {
        dfn_filter f;
        cr_assert(dfn_filter_parse("func=read", &f, err, sizeof err), "%s", err);
        dfn_query q = { .sort = -1, .threads = threads, .tree = tree, .filter = &f };
        dfn_result *r = su_run(s, &q, "arg.epoch,arg.step");
        /* the reads of tid 1 in epoch 1: step 3, their own 9, step 4, none
         * (after step 4 ends); tid 2 has no enclosing call */
        cr_expect_eq(su_metric(s, r, "1|3", DFN_M_COUNT), 1, "%d threads", threads);
        cr_expect_eq(su_metric(s, r, "1|9", DFN_M_COUNT), 1);
        cr_expect_eq(su_metric(s, r, "1|4", DFN_M_COUNT), 1);
        cr_expect_eq(su_metric(s, r, "1|", DFN_M_COUNT), 1);
        cr_expect_eq(su_metric(s, r, "|", DFN_M_COUNT), 1);
        cr_expect_eq(su_metric(s, r, "2|", DFN_M_COUNT), 1);
        cr_expect_eq(r->nrows, 6);
        dfn_result_free(r);
        r = su_run(s, &q, "own.epoch");
        cr_expect_eq(r->nrows, 1, "reads have no epoch of their own");
        cr_expect_eq(su_metric(s, r, "", DFN_M_COUNT), 6);
        dfn_result_free(r);
        dfn_filter_free(&f);
        /* the filter selects what the grouping's row holds */
        cr_assert(dfn_filter_parse("func=read arg.epoch=1", &f, err, sizeof err), "%s", err);
        r = su_run(s, &q, "");
        cr_expect_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 4);
        dfn_result_free(r);
        dfn_filter_free(&f);
        cr_assert(dfn_filter_parse("func=read own.epoch=1", &f, err, sizeof err), "%s", err);
        r = su_run(s, &q, "");
        cr_expect_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 0);
        dfn_result_free(r);
        dfn_filter_free(&f);
    }
    /* without the tree, arg.NAME is refused rather than read as own.NAME */
    dfn_query q = { .sort = -1, .ndims = 1 };
    q.dims[0] = (dfn_dim){ .kind = DFN_DIM_ARG, .arg = "epoch" };
    cr_expect_null(dfn_query_run(s, &q, err, sizeof err));
    cr_expect(strstr(err, "own.NAME") != NULL, "%s", err);
    q.dims[0].own = true;
    dfn_result *r = dfn_query_run(s, &q, err, sizeof err);
    cr_expect_not_null(r, "%s", err);
    dfn_result_free(r);
    dfn_calltree_free(tree);
    dfn_store_free(s);
}

/* The default bin: the least of 1, 2, 5 x 10^k µs that makes at most 60
 * bins, decided in whole µs (60 µs once took bins of 2 µs, as 60e-6 /
 * 1e-6 is a hair over 60 in doubles). */
Test(query, the_default_bin_makes_at_most_60_bins)
{
    cr_assert_eq(dfn_auto_bin(60e-6), 1e-6);
    cr_assert_eq(dfn_auto_bin(61e-6), 2e-6);
    cr_assert_eq(dfn_auto_bin(120e-6), 2e-6);
    cr_assert_eq(dfn_auto_bin(121e-6), 5e-6);
    cr_assert_eq(dfn_auto_bin(0.3), 0.005);
    cr_assert_eq(dfn_auto_bin(3000), 50);
    cr_assert_eq(dfn_auto_bin(3600), 100);
    cr_assert_eq(dfn_auto_bin(0), 1);
    cr_assert_eq(dfn_auto_bin(1e15), 1e9);
    /* the explorer's time level, a bin a row: the same rule */
    cr_assert_eq(dfn_bin_fit(60e-6, 20), 5e-6);
    cr_assert_eq(dfn_bin_fit(2.0, 20), 0.1);
    cr_assert_eq(dfn_bin_fit(2.0, 19), 0.2);
    cr_assert_eq(dfn_bin_fit(0, 20), 1e-6, "no window: the least bin");
    cr_assert_eq(dfn_bin_fit(3e-6, 0), 5e-6, "no rows: one bin");
}
