/* Time that means what it says (issue 17): calls count their part inside a
 * time window and inside each time bin. Exact figures on a trace whose
 * truth is worked out by hand below, for every scan (one table, layers,
 * time bins, several dimensions), any thread count, and the merge of
 * parts that cut a long call. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/overlap.h"
#include "dfnav/query.h"
#include "storeutil.h"

/* Times in µs from 1000 (the store's start), 1 ms bins:
 *   run   app   pid 1  [0, 10000)
 *   read  POSIX pid 1  [1000, 4000)  3000 bytes: 1 byte per µs
 *   read  POSIX pid 1  [2500, 3500)  1001 bytes
 *   read  POSIX pid 2  [3900, 4200)  10 bytes
 *   write POSIX pid 2  4500, 0 µs    7 bytes
 * Bytes of a piece: floor(bytes * end / dur) - floor(bytes * start / dur),
 * offsets from the call's start. */
static const char *trace =
    "[\n"
    EV("run", "app", 1, 1, 1000, 10000, "")
    EV("read", "POSIX", 1, 1, 2000, 3000, "\"fname\":\"/d/a\",\"ret\":3000")
    EV("read", "POSIX", 1, 2, 3500, 1000, "\"fname\":\"/d/a\",\"ret\":1001")
    EV("read", "POSIX", 2, 1, 4900, 300, "\"fname\":\"/d/b\",\"ret\":10")
    EV("write", "POSIX", 2, 1, 5500, 0, "\"fname\":\"/d/b\",\"ret\":7")
    "]\n";

static dfn_store *st;
static void setup(void) { st = su_load_text("w.pfw", trace, 1); }

TestSuite(window, .init = setup);

static dfn_result *run(const char *by, const char *where, int threads, double bin_s, uint64_t metrics)
{
    dfn_filter f = {0};
    char err[256];
    if (where) cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_query q = { .sort = -1, .bin_s = bin_s, .threads = threads, .filter = where ? &f : NULL,
                    .layers = su_layerset(st, "posix"), .metrics = metrics };
    dfn_result *r = su_run(st, &q, by);
    dfn_filter_free(&f);
    return r;
}

#define M(r, key, m) su_metric(st, r, key, m)

/* Each 1 ms bin holds the part of every call inside it; count goes to the
 * bin a call starts in, active to every bin it touches. */
static const struct { const char *bin; double count, active, time_us, bytes, busy_us; } bins[] = {
    { "0",     1, 1, 1000, 0,    1000 },
    { "0.001", 1, 2, 2000, 1000, 1000 },
    { "0.002", 1, 3, 2500, 1500, 1000 },   /* 1000 + 500 (floor(1001 * 500 / 1000)) */
    { "0.003", 1, 4, 2600, 1504, 1000 },   /* 1000 + 501 + 3 (floor(10 * 100 / 300)) */
    { "0.004", 1, 3, 1200, 14,   1000 },   /* 7 (the rest of 10) + 7, the 0 µs write */
    { "0.005", 0, 1, 1000, 0,    1000 },
    { "0.009", 0, 1, 1000, 0,    1000 },
};

Test(window, bins_hold_the_part_of_each_call_inside_them)
{
    for (int threads = 1; threads <= 5; threads++) {
        dfn_result *r = run("time", NULL, threads, 0.001, DFN_M_BASIC | DFN_M_BIT(DFN_M_ACTIVE));
        cr_assert_eq(r->nrows, 10);
        for (size_t k = 0; k < sizeof bins / sizeof *bins; k++) {
            cr_expect_eq(M(r, bins[k].bin, DFN_M_COUNT), bins[k].count, "%s, %d threads", bins[k].bin, threads);
            cr_expect_eq(M(r, bins[k].bin, DFN_M_ACTIVE), bins[k].active, "%s, %d threads", bins[k].bin, threads);
            cr_expect_float_eq(M(r, bins[k].bin, DFN_M_TIME_S), bins[k].time_us / 1e6, 1e-12, "%s", bins[k].bin);
            cr_expect_eq(M(r, bins[k].bin, DFN_M_BYTES), bins[k].bytes, "%s, %d threads", bins[k].bin, threads);
            cr_expect_float_eq(M(r, bins[k].bin, DFN_M_BUSY_S), bins[k].busy_us / 1e6, 1e-12, "%s", bins[k].bin);
        }
        /* the bins add up to the whole: 5 calls, 14300 µs, 4018 bytes */
        double count = 0, t = 0, by = 0;
        for (size_t row = 0; row < r->nrows; row++) {
            count += dfn_result_metric(r, row, DFN_M_COUNT);
            t += dfn_result_metric(r, row, DFN_M_TIME_S);
            by += dfn_result_metric(r, row, DFN_M_BYTES);
        }
        cr_expect_eq(count, 5);
        cr_expect_float_eq(t, 0.0143, 1e-12);
        cr_expect_eq(by, 4018);
        cr_expect_float_eq(r->total_time_s, 0.0143, 1e-12);
        /* latency stays the call's own: the 3 ms read starts in bin 1 */
        cr_expect_float_eq(M(r, "0.001", DFN_M_MEAN_US), 3000, 1e-9);
        cr_expect_float_eq(M(r, "0.001", DFN_M_MAX_US), 3000, 1e-9);
        cr_expect(isnan(M(r, "0.005", DFN_M_MEAN_US)), "no call starts there: no mean");
        dfn_result_free(r);
    }
}

/* A window counts the part of each call inside it, calls that started
 * before it included; only those that start in it are counted. */
Test(window, a_window_clips_calls_at_both_edges)
{
    for (int threads = 1; threads <= 4; threads++) {
        dfn_result *r = run("", "time>=0.0025 time<0.0042", threads, 0, DFN_M_BASIC | DFN_M_BIT(DFN_M_ACTIVE));
        cr_assert_eq(r->nrows, 1);
        cr_expect_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 2, "%d threads", threads);
        cr_expect_eq(dfn_result_metric(r, 0, DFN_M_ACTIVE), 4);
        /* run 1700 + read 1500 + read 1000 + read 300 */
        cr_expect_float_eq(dfn_result_metric(r, 0, DFN_M_TIME_S), 0.0045, 1e-12);
        cr_expect_eq(dfn_result_metric(r, 0, DFN_M_BYTES), 1500 + 1001 + 10);
        cr_expect_float_eq(dfn_result_metric(r, 0, DFN_M_BUSY_S), 0.0017, 1e-12);
        cr_expect_float_eq(dfn_result_metric(r, 0, DFN_M_MEAN_US), 650, 1e-9);
        cr_expect_float_eq(r->total_time_s, 0.0045, 1e-12);
        dfn_result_free(r);

        r = run("func", "time>=0.0025 time<0.0042", threads, 0, DFN_M_BASIC | DFN_M_BIT(DFN_M_ACTIVE));
        cr_assert_eq(r->nrows, 2);
        cr_expect_eq(M(r, "run", DFN_M_COUNT), 0);
        cr_expect_eq(M(r, "run", DFN_M_ACTIVE), 1);
        cr_expect_float_eq(M(r, "run", DFN_M_TIME_S), 0.0017, 1e-12);
        cr_expect_eq(M(r, "read", DFN_M_COUNT), 2);
        cr_expect_eq(M(r, "read", DFN_M_ACTIVE), 3);
        cr_expect_float_eq(M(r, "read", DFN_M_TIME_S), 0.0028, 1e-12);
        cr_expect_float_eq(M(r, "read", DFN_M_BUSY_S), 0.0017, 1e-12);
        cr_expect_float_eq(M(r, "read", DFN_M_MAX_PROC_S), 0.0025, 1e-12, "pid 1: 1500 + 1000");
        cr_expect_eq(M(r, "read", DFN_M_BYTES), 2511);
        dfn_result_free(r);

        /* the window's end cuts a call: its time inside, its latency whole */
        r = run("func", "time<0.002", threads, 0, 0);
        cr_expect_eq(M(r, "read", DFN_M_COUNT), 1);
        cr_expect_float_eq(M(r, "read", DFN_M_TIME_S), 0.001, 1e-12);
        cr_expect_eq(M(r, "read", DFN_M_BYTES), 1000);
        cr_expect_float_eq(M(r, "read", DFN_M_MEAN_US), 3000, 1e-9);
        cr_expect_float_eq(M(r, "run", DFN_M_TIME_S), 0.002, 1e-12);
        dfn_result_free(r);
    }
}

/* A window no call starts in still holds the calls running through it. */
Test(window, a_window_inside_one_call)
{
    dfn_result *r = run("func", "time>=0.006 time<0.007", 0, 0, DFN_M_BASIC | DFN_M_BIT(DFN_M_ACTIVE));
    cr_assert_eq(r->nrows, 1);
    cr_expect_eq(M(r, "run", DFN_M_COUNT), 0);
    cr_expect_eq(M(r, "run", DFN_M_ACTIVE), 1);
    cr_expect_float_eq(M(r, "run", DFN_M_TIME_S), 0.001, 1e-12);
    cr_expect_float_eq(M(r, "run", DFN_M_BUSY_S), 0.001, 1e-12);
    cr_expect_float_eq(M(r, "run", DFN_M_PCT_TIME), 100, 1e-9);
    dfn_result_free(r);
    /* other terms still apply to the calls from before */
    r = run("func", "time>=0.006 time<0.007 cat=POSIX", 0, 0, 0);
    cr_expect_eq(r->nrows, 0);
    dfn_result_free(r);
}

/* Every scan agrees: layers (per mask), time with another dimension, and
 * files; bins of a window add up to the window. */
Test(window, every_grouping_adds_up_to_the_window)
{
    const char *w = "time>=0.0015 time<0.0045";
    const char *bys[] = { "layer", "time,func", "file", "proc", "time,layer", "arg.fname" };
    dfn_result *tot = run("", w, 1, 0.001, 0);
    double t = dfn_result_metric(tot, 0, DFN_M_TIME_S), by = dfn_result_metric(tot, 0, DFN_M_BYTES);
    /* run 3000, read 2500 + 1000 + 300 */
    cr_expect_float_eq(t, 0.0068, 1e-12);
    cr_expect_eq(by, 2500 + 1001 + 10);
    dfn_result_free(tot);
    for (size_t k = 0; k < sizeof bys / sizeof *bys; k++)
        for (int threads = 1; threads <= 3; threads++) {
            dfn_result *r = run(bys[k], w, threads, 0.001, 0);
            double st_ = 0, sb = 0;
            bool layered = strstr(bys[k], "layer") != NULL;
            for (size_t row = 0; row < r->nrows; row++) {
                /* posix layers: a call is in one layer, or in "other" */
                st_ += dfn_result_metric(r, row, DFN_M_TIME_S);
                sb += dfn_result_metric(r, row, DFN_M_BYTES);
            }
            cr_expect_float_eq(st_, t, 1e-12, "--by %s, %d threads%s", bys[k], threads, layered ? " (layers)" : "");
            cr_expect_eq(sb, by, "--by %s, %d threads", bys[k], threads);
            if (strcmp(bys[k], "time,func") == 0) {
                /* the read from 1.0 ms: 500 µs in bin 1, 1000 in bin 2 and 3 */
                cr_expect_float_eq(M(r, "0.001|read", DFN_M_TIME_S), 0.0005, 1e-12);
                cr_expect_eq(M(r, "0.001|read", DFN_M_COUNT), 0);
                cr_expect_float_eq(M(r, "0.002|read", DFN_M_TIME_S), 0.0015, 1e-12);
                cr_expect_eq(M(r, "0.002|read", DFN_M_COUNT), 1);
                cr_expect_float_eq(M(r, "0.004|run", DFN_M_TIME_S), 0.0005, 1e-12);
            }
            dfn_result_free(r);
        }
}

/* Overlap and exposure of a window: I/O is clipped before it is set
 * against compute, and a row's compute is that of its processes inside
 * the row's time. The run span is compute here. */
Test(window, exposure_is_clipped)
{
    dfn_filter cf;
    char err[256];
    cr_assert(dfn_filter_parse("cat=app", &cf, err, sizeof err), "%s", err);
    dfn_overlap *o = dfn_overlap_build(st, NULL, &cf, false, err, sizeof err);
    cr_assert_not_null(o, "%s", err);
    for (int threads = 1; threads <= 3; threads++) {
        dfn_filter f;
        cr_assert(dfn_filter_parse("time>=0.0025 time<0.0042", &f, err, sizeof err), "%s", err);
        dfn_query q = { .sort = -1, .threads = threads, .filter = &f, .overlap = o,
                        .metrics = DFN_M_OVERLAP | DFN_M_BIT(DFN_M_TIME_S) };
        dfn_result *r = su_run(st, &q, "pid");
        /* pid 1: reads [2500, 4000) under run; pid 2: [3900, 4200), no compute of its own */
        cr_expect_float_eq(M(r, "1", DFN_M_IO_BUSY_S), 0.0015, 1e-12);
        cr_expect_float_eq(M(r, "1", DFN_M_EXPOSED_S), 0, 1e-12);
        cr_expect_float_eq(M(r, "1", DFN_M_COMPUTE_S), 0.0017, 1e-12);
        cr_expect_float_eq(M(r, "2", DFN_M_IO_BUSY_S), 0.0003, 1e-12);
        cr_expect_float_eq(M(r, "2", DFN_M_EXPOSED_S), 0.0003, 1e-12);
        dfn_result_free(r);
        dfn_filter_free(&f);
        /* a row filtered to I/O shows the compute of its processes */
        cr_assert(dfn_filter_parse("time>=0.0025 time<0.0042 cat=POSIX", &f, err, sizeof err), "%s", err);
        q.filter = &f;
        r = su_run(st, &q, "pid");
        cr_expect_float_eq(M(r, "1", DFN_M_COMPUTE_S), 0.0017, 1e-12, "%d threads", threads);
        cr_expect_float_eq(M(r, "1", DFN_M_EXPOSED_S), 0, 1e-12);
        cr_expect_float_eq(M(r, "2", DFN_M_COMPUTE_S), 0, 1e-12);
        dfn_result_free(r);
        /* and by time: each bin's share of it */
        q.bin_s = 0.0005;
        r = su_run(st, &q, "time");
        cr_expect_float_eq(M(r, "0.0025", DFN_M_COMPUTE_S), 0.0005, 1e-12, "bin [2500, 3000)");
        dfn_result_free(r);
        dfn_filter_free(&f);
    }
    dfn_overlap_free(o);
    dfn_filter_free(&cf);
}

/* time = x names starts, not a stretch of time: nothing is clipped. */
Test(window, a_point_is_not_a_window)
{
    dfn_result *r = run("func", "time=0.001", 0, 0, 0);
    cr_assert_eq(r->nrows, 1);
    cr_expect_float_eq(M(r, "read", DFN_M_TIME_S), 0.003, 1e-12);
    dfn_result_free(r);
}

/* time = x is no window: the calls that start at x keep their pieces in
 * the bins after an upper bound, rows past the bins of the window, which
 * are numbered with them (they once overwrote bins 1-4, differently for
 * each thread count). µs from 1000: train [0, 9 s), read [1 s, 9 s),
 * read [1 s, 1.5 s), write [1 s, 7.5 s), 1000 bytes each. */
Test(window, bins_past_the_window_are_rows_of_their_own)
{
    dfn_store *s = su_load_text("point.pfw",
        "[\n"
        EV("train", "app", 1, 1, 1000, 9000000, "")
        EV("read", "POSIX", 1, 1, 1001000, 8000000, "\"fname\":\"/a\",\"ret\":1000")
        EV("read", "POSIX", 2, 1, 1001000, 500000, "\"fname\":\"/a\",\"ret\":1000")
        EV("write", "POSIX", 2, 1, 1001000, 6500000, "\"fname\":\"/a\",\"ret\":1000")
        "]\n", 1);
    for (int threads = 1; threads <= 3; threads++) {
        dfn_filter f;
        char err[256];
        cr_assert(dfn_filter_parse("time=1 time<3", &f, err, sizeof err), "%s", err);
        dfn_query q = { .sort = -1, .bin_s = 1, .threads = threads, .filter = &f };
        dfn_result *r = su_run(s, &q, "time");
        double count = 0, t = 0, by = 0;
        for (size_t row = 0; row < r->nrows; row++) {
            count += dfn_result_metric(r, row, DFN_M_COUNT);
            t += dfn_result_metric(r, row, DFN_M_TIME_S);
            by += dfn_result_metric(r, row, DFN_M_BYTES);
        }
        cr_expect_eq(count, 3, "%d threads", threads);
        cr_expect_float_eq(t, 15.0, 1e-9, "%d threads", threads);
        cr_expect_eq(by, 3000, "%d threads", threads);
        cr_expect_eq(su_metric(s, r, "1", DFN_M_COUNT), 3, "%d threads", threads);
        cr_expect_float_eq(su_metric(s, r, "8", DFN_M_TIME_S), 1.0, 1e-9, "the long read's last second");
        dfn_result_free(r);
        dfn_filter_free(&f);
    }
    dfn_store_free(s);
}

/* idle_s: the row's stretch (its bin, else the window) less its busy
 * time. By process over the whole set [0, 10000): pid 1 is busy
 * throughout (run), pid 2 for 300 of it; in the window [2000, 5000) pid 2
 * is busy 300 µs and idle 2700; by 1 ms bin within pid 2: the bin that
 * holds [3900, 4000) is idle 900, the next 800 (200 of the read, the 0 µs
 * write). */
Test(window, idle_is_the_stretch_without_calls)
{
    uint64_t m = DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S);
    for (int threads = 1; threads <= 3; threads++) {
        dfn_result *r = run("pid", NULL, threads, 0, m);
        cr_assert_float_eq(M(r, "1", DFN_M_IDLE_S), 0.0, 1e-12);
        cr_assert_float_eq(M(r, "2", DFN_M_IDLE_S), 9700e-6, 1e-12);
        dfn_result_free(r);
        r = run("pid", "time>=0.002 time<0.005", threads, 0, m);
        cr_assert_float_eq(M(r, "2", DFN_M_BUSY_S), 300e-6, 1e-12);
        cr_assert_float_eq(M(r, "2", DFN_M_IDLE_S), 2700e-6, 1e-12);
        cr_assert_float_eq(M(r, "1", DFN_M_IDLE_S), 0.0, 1e-12, "run covers the window");
        dfn_result_free(r);
        r = run("time", "pid=2", threads, 0.001, m);
        cr_assert_float_eq(M(r, "0.003", DFN_M_IDLE_S), 900e-6, 1e-12);
        cr_assert_float_eq(M(r, "0.004", DFN_M_IDLE_S), 800e-6, 1e-12);
        dfn_result_free(r);
    }
}

/* Bounds take whole microseconds (the man page's TIME RANGES): time<=X
 * holds the microsecond from X and time>X does not, so they part a call
 * at X + 1 µs; time<X and time>=X part it at X; either pair adds up. A
 * write from 0 to 3 s of 3000000 bytes, a call of zero length at 1 s. */
Test(window, bounds_take_whole_microseconds)
{
    dfn_store *s = su_load_text("ticks.pfw",
        EV("write", "POSIX", 1, 2, 1000000, 3000000, "\"ret\":3000000")
        EV("c", "POSIX", 1, 3, 2000000, 0, ""), 1);
    const char *where[] = { "time<=1", "time>1", "time<1", "time>=1" };
    const double want_s[] = { 1.000001, 1.999999, 1.0, 2.0 }, want_c[] = { 1, 0, 0, 1 };
    for (int k = 0; k < 4; k++) {
        dfn_result *r = su_query(s, "posix", "func", where[k]);
        cr_expect_float_eq(su_metric(s, r, "write", DFN_M_TIME_S), want_s[k], 1e-12, "%s", where[k]);
        cr_expect_eq(su_metric(s, r, "write", DFN_M_BYTES), (double)llround(want_s[k] * 1e6), "%s", where[k]);
        cr_expect_eq(su_row(s, r, "c") >= 0 ? su_metric(s, r, "c", DFN_M_COUNT) : 0, want_c[k], "%s: the call at 1 s", where[k]);
        dfn_result_free(r);
    }
    dfn_store_free(s);
}
