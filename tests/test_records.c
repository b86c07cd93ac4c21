/* DFTracer 2.x record kinds on hand-written traces whose truth is known
 * exactly: every line accounted for (events, metadata, counters, other by
 * ph, malformed, skipped), aggregated records (ph 3) counted as the calls
 * they fold, time units (the end record's cfg.time_metric for its whole
 * file, --time-unit for the rest), counter samples and their queries, the
 * type and rank dimensions, and the same store for any thread count and
 * block size. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/counters.h"
#include "dfnav/filter.h"
#include "dfnav/loader.h"
#include "dfnav/query.h"
#include "storeutil.h"
#include "testutil.h"

/* ---- helpers ---- */

/* Loads files with threads, block size and a --time-unit. */
static dfn_store *load_unit(const char *const *paths, size_t n, int threads, size_t block, dfn_unit unit)
{
    dfn_load_opts o = { .threads = threads, .block_size = block, .time_unit = unit };
    dfn_store *s = dfn_load(paths, n, &o);
    cr_assert_not_null(s);
    return s;
}

/* The count of records set aside under ph label, 0 when none. */
static uint64_t other_ph(const dfn_srcinfo *si, const char *label)
{
    for (size_t k = 0; k < DFN_PH_KINDS; k++)
        if (dfn_src_more(si)->other_ph[k].n && strcmp(dfn_src_more(si)->other_ph[k].ph, label) == 0) return dfn_src_more(si)->other_ph[k].n;
    return 0;
}

static size_t other_kinds(const dfn_srcinfo *si)
{
    size_t n = 0;
    for (size_t k = 0; k < DFN_PH_KINDS; k++) n += dfn_src_more(si)->other_ph[k].n != 0;
    return n;
}

/* A row's time in whole µs (time_s is a sum of µs over 1e6). */
static long long time_us(const dfn_store *s, const dfn_result *r, const char *key)
{
    return llround(su_metric(s, r, key, DFN_M_TIME_S) * 1e6);
}

/* Asserts count, time (µs), bytes and agg_calls of a row. */
static void assert_row(const dfn_store *s, const dfn_result *r, const char *key, double count, long long us,
                       double bytes, double agg)
{
    cr_assert_eq(su_metric(s, r, key, DFN_M_COUNT), count, "%s: count %g", key, su_metric(s, r, key, DFN_M_COUNT));
    cr_assert_eq(time_us(s, r, key), us, "%s: time %lld us", key, time_us(s, r, key));
    cr_assert_eq(su_metric(s, r, key, DFN_M_BYTES), bytes, "%s: bytes %g", key, su_metric(s, r, key, DFN_M_BYTES));
    cr_assert_eq(su_metric(s, r, key, DFN_M_AGG_CALLS), agg, "%s: agg_calls %g", key,
                 su_metric(s, r, key, DFN_M_AGG_CALLS));
}

static void assert_same_samples(const dfn_store *a, const dfn_store *b, int threads);

/* ---- line accounting ---- */

#define R(...) #__VA_ARGS__ "\n"

/* 28 lines: 4 skipped, 6 events, 4 metadata, 2 counters, 8 other
 * (b twice, e, n, s, 0, 7, none), 4 malformed. */
static const char *kinds_trace =
    "[\n"
    "\n"
    R({"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":100,"dur":10,"ph":"X","args":{"ret":5}})
    R({"name":"write","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":120,"dur":20,"ph":1,"args":{"ret":7}})
    R({"name":"pread64","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":150,"ph":3,"args":{"dft_cnt":4,"dur_sum":40,"dur_max":15,"ret_sum":400}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":130,"ph":2,"args":{"user_pct":12}})
    R({"name":"gpu","pid":1,"tid":1,"ts":140,"ph":"C","args":{"util":80}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"node01","value":"77"}})
    R({"name":"thread_name","pid":1,"tid":1,"ph":"M","args":{"name":"main"}})
    R({"name":"PR","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"rank","value":0}})
    R({"name":"process_name","pid":1,"tid":1,"ph":"M","args":{"name":"trainer"}})
    R({"name":"mark","cat":"app","pid":1,"tid":1,"ts":160,"ph":"i","args":{}})
    R({"name":"mark","cat":"app","pid":1,"tid":1,"ts":170,"dur":50,"ph":"I","args":{}})
    R({"name":"a","pid":1,"tid":1,"ts":180,"ph":"b","id":1,"args":{}})
    R({"name":"a","pid":1,"tid":1,"ts":181,"ph":"n","id":1,"args":{}})
    R({"name":"a","pid":1,"tid":1,"ts":182,"ph":"e","id":1,"args":{}})
    R({"name":"f","pid":1,"tid":1,"ts":183,"ph":"s","id":2,"args":{}})
    R({"name":"a","pid":1,"tid":1,"ts":184,"ph":"b","id":3,"args":{}})
    R({"name":"u","pid":1,"tid":1,"ts":185,"ph":0,"args":{}})
    R({"name":"u","pid":1,"tid":1,"ts":186,"ph":7,"args":{}})
    R({"name":"nothing","pid":1,"tid":1,"args":{}})
    R({"name":"bad","ts":)
    "not json at all\n"
    R({"name":"read","cat":"POSIX","pid":1,"tid":1,"dur":3,"ph":"X","args":{}})
    R({"name":"cpu","cat":"sys","pid":1,"tid":1,"ph":2,"args":{"user_pct":1}})
    R({"name":"old","cat":"POSIX","pid":1,"tid":1,"ts":190,"dur":2,"args":{}})
    "\n"
    "]\n";

static void assert_kinds_info(const dfn_srcinfo *si, const char *how)
{
    cr_assert_eq(si->lines, 28, "%s: lines %" PRIu64, how, si->lines);
    cr_assert_eq(si->skipped, 4, "%s: skipped %" PRIu64, how, si->skipped);
    cr_assert_eq(si->events, 6, "%s: events %" PRIu64, how, si->events);
    cr_assert_eq(si->metadata, 4, "%s: metadata %" PRIu64, how, si->metadata);
    cr_assert_eq(dfn_src_more(si)->counters, 2, "%s: counters %" PRIu64, how, dfn_src_more(si)->counters);
    cr_assert_eq(dfn_src_more(si)->other, 8, "%s: other %" PRIu64, how, dfn_src_more(si)->other);
    cr_assert_eq(si->malformed, 4, "%s: malformed %" PRIu64, how, si->malformed);
    cr_assert_eq(si->lines, si->skipped + si->events + si->metadata + dfn_src_more(si)->counters + dfn_src_more(si)->other + si->malformed, "%s",
                 how);
    cr_assert_eq(dfn_src_more(si)->agg_records, 1, "%s", how);
    cr_assert_eq(dfn_src_more(si)->agg_calls, 4, "%s", how);
    const char *labels[] = { "b", "e", "n", "s", "0", "7", "none" };
    const uint64_t counts[] = { 2, 1, 1, 1, 1, 1, 1 };
    for (size_t k = 0; k < 7; k++)
        cr_assert_eq(other_ph(si, labels[k]), counts[k], "%s: ph %s: %" PRIu64, how, labels[k],
                     other_ph(si, labels[k]));
    cr_assert_eq(other_kinds(si), 7, "%s: %zu kinds set aside", how, other_kinds(si));
}

Test(records, every_line_is_accounted_for)
{
    dfn_store *s = su_load_text("kinds.pfw", kinds_trace, 2);
    cr_assert_eq(s->nsrc, 1);
    assert_kinds_info(&s->src[0], "one block");
    cr_assert_eq(s->n, 6);
    cr_assert_eq(s->nsamples, 2, "cpu.user_pct and gpu.util");
    /* instants are calls of 0 µs, "I" with a dur too */
    dfn_result *r = su_query(s, "posix", "func", NULL);
    assert_row(s, r, "mark", 2, 0, 0, 0);
    assert_row(s, r, "pread64", 4, 40, 400, 4);
    assert_row(s, r, "old", 1, 2, 0, 0);
    dfn_result_free(r);
    dfn_store_free(s);
}

Test(records, accounting_does_not_depend_on_blocks_or_threads)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "kinds.pfw", kinds_trace, strlen(kinds_trace));
    const char *p[1] = { path };
    const size_t blocks[] = { 64, 200, 1000, 0 };
    for (int threads = 1; threads <= 3; threads++)
        for (size_t b = 0; b < 4; b++) {
            dfn_store *s = su_load_paths(p, 1, threads, blocks[b]);
            char how[64];
            snprintf(how, sizeof how, "-j %d, block %zu", threads, blocks[b]);
            assert_kinds_info(&s->src[0], how);
            cr_assert_eq(s->n, 6, "%s", how);
            dfn_store_free(s);
        }
    free(path);
    free(dir);
}

/* ---- aggregated records ---- */

/* Two hosts, two files. pread64, write, fread, close are aggregated only;
 * read mixes an aggregated record and two single calls. */
static const char *agg_trace =
    R({"name":"HH","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"name":"node01","value":"111"}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":20,"tid":20,"ph":4,"args":{"name":"node02","value":"222"}})
    R({"name":"FH","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"name":"/data/a","value":"901"}})
    R({"name":"FH","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"name":"/data/b","value":"902"}})
    R({"name":"pread64","cat":"POSIX","type":3,"pid":10,"tid":10,"ts":1000000,"ph":3,"args":{"hhash":"111","fhash":"901","dft_cnt":1000,"dur_min":10,"dur_max":90,"dur_sum":50000,"ret_min":4096,"ret_max":4096,"ret_sum":4096000}})
    R({"name":"write","cat":"POSIX","type":3,"pid":10,"tid":10,"ts":1000000,"ph":3,"args":{"hhash":"111","fhash":"902","dft_cnt":3,"dur":2000,"ret":100}})
    R({"name":"fread","cat":"STDIO","type":3,"pid":20,"tid":20,"ts":1000000,"ph":3,"args":{"hhash":"222","fhash":"902","dft_cnt":5,"dur_min":20,"dur_max":200,"dur_sum":500,"size":8,"ret_min":1,"ret_max":3,"ret_sum":10}})
    R({"name":"close","cat":"POSIX","type":3,"pid":20,"tid":20,"ts":1000000,"ph":3,"args":{"hhash":"222","fhash":"901","dft_cnt":4,"ret":0}})
    R({"name":"read","cat":"POSIX","type":3,"pid":20,"tid":20,"ts":1000000,"ph":3,"args":{"hhash":"222","fhash":"901","dft_cnt":10,"dur_min":50,"dur_max":400,"dur_sum":1000,"ret_min":1000,"ret_max":1048,"ret_sum":10240}})
    R({"id":1,"name":"read","cat":"POSIX","type":3,"pid":20,"tid":20,"ts":1000100,"dur":500,"ph":1,"args":{"hhash":"222","fhash":"901","ret":100}})
    R({"id":2,"name":"read","cat":"POSIX","type":3,"pid":10,"tid":10,"ts":1000200,"dur":20,"ph":1,"args":{"hhash":"111","fhash":"902","ret":0}});

static dfn_store *agg_st;
static void agg_setup(void) { agg_st = su_load_text("agg.pfw", agg_trace, 2); }
static void agg_teardown(void) { dfn_store_free(agg_st); }

Test(aggregated, a_record_is_its_calls, .init = agg_setup, .fini = agg_teardown)
{
    const dfn_store *s = agg_st;
    cr_assert_eq(s->n, 7, "records, not calls, are the store's events");
    cr_assert_not_null(s->cnt.v);
    cr_assert_eq(dfn_src_more(&s->src[0])->agg_records, 5);
    cr_assert_eq(dfn_src_more(&s->src[0])->agg_calls, 1022);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(r->nrows, 5);
    assert_row(s, r, "pread64", 1000, 50000, 4096000, 1000);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_TIME_S), 0.05);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_MAX_US), 90);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_MEAN_US), 50);
    assert_row(s, r, "write", 3, 6000, 300, 3);
    cr_assert_eq(su_metric(s, r, "write", DFN_M_MAX_US), 2000, "a plain dur is every call's");
    assert_row(s, r, "fread", 5, 500, 80, 5);
    cr_assert_eq(su_metric(s, r, "fread", DFN_M_MAX_US), 200);
    assert_row(s, r, "close", 4, 0, 0, 4);
    /* 10 folded calls and 2 single ones; the longest is a single call */
    assert_row(s, r, "read", 12, 1520, 10340, 10);
    cr_assert_eq(su_metric(s, r, "read", DFN_M_MAX_US), 500);
    cr_assert_float_eq(su_metric(s, r, "read", DFN_M_MEAN_US), 1520.0 / 12, 1e-9);
    dfn_result_free(r);
    r = su_query(s, "posix", NULL, NULL);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 1024);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_AGG_CALLS), 1022);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_BYTES), 4106720);
    cr_assert_eq(llround(dfn_result_metric(r, 0, DFN_M_TIME_S) * 1e6), 58020);
    dfn_result_free(r);
}

Test(aggregated, groups_and_filters_keep_the_calls, .init = agg_setup, .fini = agg_teardown)
{
    const dfn_store *s = agg_st;
    dfn_result *r = su_query(s, "posix", "file", NULL);
    assert_row(s, r, "/data/a", 1015, 51500, 4106340, 1014);
    assert_row(s, r, "/data/b", 9, 6520, 380, 8);
    dfn_result_free(r);
    r = su_query(s, "posix", "host", NULL);
    assert_row(s, r, "node01", 1004, 56020, 4096300, 1003);
    assert_row(s, r, "node02", 20, 2000, 10420, 19);
    dfn_result_free(r);
    r = su_query(s, "posix", "pid", NULL);
    assert_row(s, r, "10", 1004, 56020, 4096300, 1003);
    dfn_result_free(r);
    r = su_query(s, "posix", NULL, "func=pread64");
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 1000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_AGG_CALLS), 1000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_BYTES), 4096000);
    dfn_result_free(r);
    /* the pread64 and the aggregated read records */
    r = su_query(s, "posix", "func", "bytes>1000");
    cr_assert_eq(r->nrows, 2);
    assert_row(s, r, "pread64", 1000, 50000, 4096000, 1000);
    assert_row(s, r, "read", 10, 1000, 10240, 10);
    dfn_result_free(r);
}

/* Filters, size bins and the calls per size bin take each folded call at
 * its mean, as the size dimension and the percentiles do: dur>100 once
 * selected pread64's 1000 calls of 50 µs for their 50 ms in all, and its
 * 4 KiB calls fell in 1-4MiB, as one call of their total. */
Test(aggregated, each_call_at_its_mean, .init = agg_setup, .fini = agg_teardown)
{
    const dfn_store *s = agg_st;
    dfn_result *r = su_query(s, "posix", "func", "dur>100");
    cr_assert_eq(r->nrows, 2);
    assert_row(s, r, "write", 3, 6000, 300, 3);
    assert_row(s, r, "read", 1, 500, 100, 0);
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "dur<=100");
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_COUNT), 1000);
    cr_assert_eq(su_metric(s, r, "read", DFN_M_COUNT), 11);
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "bytes>=4096");
    cr_assert_eq(r->nrows, 1);
    assert_row(s, r, "pread64", 1000, 50000, 4096000, 1000);
    dfn_result_free(r);
    r = su_query(s, "posix", "sizebin", NULL);
    cr_assert_eq(r->nrows, 2);
    cr_assert_eq(su_metric(s, r, "<=4KiB", DFN_M_COUNT), 1019);
    cr_assert_eq(su_metric(s, r, "-", DFN_M_COUNT), 5, "close's 4 calls and a read of 0 bytes");
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "sizebin=1-4MiB");
    cr_assert_eq(r->nrows, 0);
    dfn_result_free(r);
    /* the calls per size bin: all of pread64's 1000 in <=4KiB */
    char err[256];
    dfn_filter f;
    cr_assert(dfn_filter_parse("func=pread64", &f, err, sizeof err), "%s", err);
    dfn_layerset *ls = su_layerset(s, "posix");
    dfn_query q = { .layers = ls, .filter = &f, .sort = -1, .metrics = DFN_M_BIT(DFN_M_COUNT), .sizes = true };
    r = su_run(s, &q, NULL);
    cr_assert_eq(r->sizes[0], 1000);
    for (int b = 1; b < DFN_SIZEBIN_COUNT; b++) cr_assert_eq(r->sizes[b], 0, "bin %d", b);
    dfn_result_free(r);
    dfn_filter_free(&f);
}

/* A mean with a fraction keeps it (an oracle found 8193 B in 2 calls in
 * "<=4KiB" with size_max 4096 under size_mean 4096.5, and bytes>1 and
 * dur>2 selecting nothing for means of 1.5 B and 2.5 µs). */
Test(aggregated, a_mean_keeps_its_fraction)
{
    dfn_store *s = su_load_text("frac.pfw",
        R({"name":"read","cat":"POSIX","ph":3,"ts":100,"pid":1,"tid":1,"args":{"dft_cnt":2,"dur_sum":46,"dur_max":43,"ret_sum":8193}})
        R({"name":"write","cat":"POSIX","ph":3,"ts":200,"pid":1,"tid":1,"args":{"dft_cnt":2,"dur_sum":5,"dur_max":3,"ret_sum":3}})
        R({"name":"pread","cat":"POSIX","ph":3,"ts":300,"pid":1,"tid":1,"args":{"dft_cnt":3,"dur_sum":6,"dur_max":3,"ret_sum":10}}), 1);
    dfn_result *r = su_query(s, "posix", "sizebin", NULL);
    cr_assert_eq(su_metric(s, r, "4-16KiB", DFN_M_COUNT), 2, "4096.5 is past <=4KiB");
    cr_assert_eq(su_metric(s, r, "<=4KiB", DFN_M_COUNT), 5);
    dfn_result_free(r);
    dfn_layerset *ls = su_layerset(s, "posix");
    dfn_query q = { .layers = ls, .sort = -1, .metrics = DFN_M_BIT(DFN_M_SIZE_MIN) | DFN_M_BIT(DFN_M_SIZE_MAX) |
                    DFN_M_BIT(DFN_M_SIZE_MEAN) };
    r = su_run(s, &q, "func");
    cr_assert_eq(su_metric(s, r, "read", DFN_M_SIZE_MIN), 4096.5);
    cr_assert_eq(su_metric(s, r, "read", DFN_M_SIZE_MAX), 4096.5);
    cr_assert_eq(su_metric(s, r, "read", DFN_M_SIZE_MEAN), 4096.5);
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "bytes>1");
    cr_assert_eq(su_metric(s, r, "write", DFN_M_COUNT), 2, "a mean of 1.5 B");
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "dur>2");
    cr_assert_eq(su_metric(s, r, "write", DFN_M_COUNT), 2, "a mean of 2.5 us");
    cr_assert_eq(r->nrows, 2, "and read's 23 us; pread's 2 us is not past 2");
    dfn_result_free(r);
    r = su_query(s, "posix", "size", NULL);
    cr_assert_eq(su_metric(s, r, "4096.5", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(s, r, "1.5", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(s, r, "3.333333", DFN_M_COUNT), 3);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* Rates over no time and shares of no time are undefined, never 0: 4096
 * B in 0 s is no 0 MiB/s (an oracle's finding); grouped rows and calls as
 * rows alike. */
Test(review, rates_of_no_time_are_undefined)
{
    dfn_store *s = su_load_text("zero.pfw",
        R({"name":"read","cat":"POSIX","ph":"X","ts":100,"dur":0,"pid":1,"tid":1,"args":{"ret":4096}})
        R({"name":"open","cat":"POSIX","ph":"X","ts":120,"dur":0,"pid":1,"tid":1,"args":{}}), 1);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert(isnan(su_metric(s, r, "read", DFN_M_BW_MIBPS)));
    cr_assert(isnan(su_metric(s, r, "read", DFN_M_OPS_PER_S)));
    cr_assert(isnan(su_metric(s, r, "read", DFN_M_PCT_TIME)), "a share of no time");
    cr_assert_eq(su_metric(s, r, "read", DFN_M_MEAN_US), 0, "a call of 0 us has a mean of 0");
    dfn_result_free(r);
    r = su_query(s, "posix", "event", NULL);
    cr_assert(isnan(dfn_result_metric(r, 0, DFN_M_BW_MIBPS)));
    cr_assert(isnan(dfn_result_metric(r, 0, DFN_M_PCT_TIME)));
    dfn_result_free(r);
    dfn_store_free(s);
}

/* MPI-IO, HDF5 and GPU copies count bytes (else size); one that varied
 * is written as bytes_sum or size_sum, which were not read (0 bytes). */
Test(aggregated, sums_of_bytes_and_size)
{
    dfn_store *s = su_load_text("sums.pfw",
        R({"name":"MPI_File_write_at","cat":"MPIIO","ph":3,"type":10,"ts":100,"pid":1,"tid":1,"args":{"dft_cnt":2,"dur":5,"bytes_min":1000,"bytes_max":3000,"bytes_sum":4000}})
        R({"name":"cudaMemcpy","cat":"CUDA_MEMCPY","ph":3,"type":11,"ts":200,"pid":1,"tid":1,"args":{"dft_cnt":2,"dur":5,"bytes_min":1,"bytes_max":9,"bytes_sum":10}})
        R({"name":"H5Dread","cat":"HDF5","ph":3,"type":5,"ts":300,"pid":1,"tid":1,"args":{"dft_cnt":4,"dur":5,"size_min":1,"size_max":9,"size_sum":20}})
        R({"name":"MPI_File_read_at","cat":"MPIIO","ph":3,"type":10,"ts":400,"pid":1,"tid":1,"args":{"dft_cnt":3,"dur":5,"bytes":7}}), 1);
    dfn_result *r = su_query(s, NULL, "func", NULL);
    cr_assert_eq(su_metric(s, r, "MPI_File_write_at", DFN_M_BYTES), 4000);
    cr_assert_eq(su_metric(s, r, "cudaMemcpy", DFN_M_BYTES), 10);
    cr_assert_eq(su_metric(s, r, "H5Dread", DFN_M_BYTES), 20);
    cr_assert_eq(su_metric(s, r, "MPI_File_read_at", DFN_M_BYTES), 21, "a plain value counts for every call");
    dfn_result_free(r);
    dfn_store_free(s);
}

Test(aggregated, events_as_rows_are_their_calls, .init = agg_setup, .fini = agg_teardown)
{
    const dfn_store *s = agg_st;
    dfn_result *r = su_query(s, "posix", "event", "func=pread64");
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), 1000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_AGG_CALLS), 1000);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_MAX_US), 90);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_MEAN_US), 50);
    dfn_result_free(r);
}

Test(aggregated, no_columns_without_aggregated_records)
{
    const char *t =
        R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":100,"dur":10,"ph":1,"args":{"ret":5,"dft_cnt":9}})
        R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":100,"ph":2,"args":{"user_pct":5}})
        R({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":110,"dur":10,"ph":"X","args":{"ret":5}});
    dfn_store *s = su_load_text("plain.pfw", t, 2);
    cr_assert_eq(s->n, 2);
    cr_assert_null(s->cnt.v);
    cr_assert_null(s->durmax.v);
    cr_assert_eq(dfn_src_more(&s->src[0])->agg_records, 0);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    assert_row(s, r, "read", 1, 10, 5, 0);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* ---- time units ---- */

/* ns with an end record last: read 1000001500+2499 -> 1000002+2,
 * 1000010499+2500 -> 1000010+3; write (2 calls) 3000 ns -> 3 µs, longest
 * 2 µs; a cpu sample at 1000005 µs; the end record 1000030+1. */
static const char *ns_trace =
    R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000001500,"dur":2499,"ph":1,"args":{"ret":10}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":1000005000,"ph":2,"args":{"user_pct":5}})
    R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000010499,"dur":2500,"ph":1,"args":{"ret":10}})
    R({"name":"write","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000020000,"ph":3,"args":{"dft_cnt":2,"dur_sum":3000,"dur_max":2000,"ret_sum":20}})
    R({"name":"end","cat":"dftracer","type":1,"pid":1,"tid":1,"ts":1000030000,"dur":1000,"ph":1,"args":{"num_events":4,"cfg":{"time_metric":"NS","compression":false}}});
/* no unit of its own: 1000000 + 1500, a sample at 1000000 */
static const char *plain_trace =
    R({"name":"open","cat":"POSIX","type":3,"pid":2,"tid":2,"ts":1000000,"dur":1500,"ph":1,"args":{"ret":3}})
    R({"name":"mem","cat":"sys","type":7,"pid":2,"tid":2,"ts":1000000,"ph":2,"args":{"Dirty":9}});
/* says US: never rescaled */
static const char *us_trace =
    R({"name":"close","cat":"POSIX","type":3,"pid":3,"tid":3,"ts":1000040,"dur":4,"ph":1,"args":{"ret":0}})
    R({"name":"end","cat":"dftracer","type":1,"pid":3,"tid":3,"ts":1000050,"dur":1,"ph":1,"args":{"cfg":{"time_metric":"US"}}});

typedef struct { char *dir; char *paths[3]; } unit_set;

static void unit_set_make(unit_set *u)
{
    u->dir = tu_tmpdir();
    u->paths[0] = tu_write_file(u->dir, "a-ns.pfw", ns_trace, strlen(ns_trace));
    u->paths[1] = tu_write_file(u->dir, "b-plain.pfw", plain_trace, strlen(plain_trace));
    u->paths[2] = tu_write_file(u->dir, "c-us.pfw", us_trace, strlen(us_trace));
}

static void unit_set_free(unit_set *u)
{
    for (int k = 0; k < 3; k++) free(u->paths[k]);
    free(u->dir);
}

/* The figures of the ns and us files, whatever unit the plain one gets. */
static void assert_declared_units(const dfn_store *s)
{
    cr_assert_eq(s->src[0].unit, DFN_UNIT_NS);
    cr_assert(s->src[0].unit_declared);
    cr_assert_eq(s->src[2].unit, DFN_UNIT_US);
    cr_assert(s->src[2].unit_declared);
    cr_assert_eq(s->src[0].start_us, 1000002);
    cr_assert_eq(s->src[0].end_us, 1000031);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    assert_row(s, r, "read", 2, 5, 20, 0);
    assert_row(s, r, "write", 2, 3, 20, 2);
    cr_assert_eq(su_metric(s, r, "write", DFN_M_MAX_US), 2);
    assert_row(s, r, "end", 2, 2, 0, 0);   /* 1000 ns and 1 µs */
    assert_row(s, r, "close", 1, 4, 0, 0);
    dfn_result_free(r);
}

/* The sample of series NAME: its ts. */
static uint64_t sample_ts(const dfn_store *s, const char *name)
{
    for (size_t i = 0; i < s->nsamples; i++)
        if (strcmp(dfn_store_str(s, s->series[s->samples[i].series]), name) == 0) return s->samples[i].ts;
    cr_assert_fail("no sample of %s", name);
    return 0;
}

Test(units, the_end_record_unit_is_its_files)
{
    unit_set u;
    unit_set_make(&u);
    dfn_store *s = load_unit((const char *const *)u.paths, 3, 2, 0, DFN_UNIT_NONE);
    assert_declared_units(s);
    cr_assert_eq(s->src[1].unit, DFN_UNIT_US);
    cr_assert_not(s->src[1].unit_declared);
    cr_assert_eq(s->t0, 1000000);
    cr_assert_eq(s->t1, 1001500, "open ends last");
    cr_assert_eq(s->t0 + dfn_store_ts(s, 1), 1000002, "the ns read rounds half up");
    cr_assert_eq(sample_ts(s, "cpu.user_pct"), 1000005);
    cr_assert_eq(sample_ts(s, "mem.Dirty"), 1000000);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    assert_row(s, r, "open", 1, 1500, 0, 0);
    dfn_result_free(r);
    dfn_store_free(s);
    unit_set_free(&u);
}

Test(units, time_unit_applies_to_files_without_one)
{
    unit_set u;
    unit_set_make(&u);
    const dfn_unit units[] = { DFN_UNIT_NS, DFN_UNIT_MS, DFN_UNIT_SEC };
    const uint64_t open_ts[] = { 1000, 1000000000ull, 1000000000000ull };
    const long long open_dur[] = { 2, 1500000, 1500000000 };
    for (int k = 0; k < 3; k++) {
        dfn_store *s = load_unit((const char *const *)u.paths, 3, 2, 0, units[k]);
        assert_declared_units(s);
        cr_assert_eq(s->src[1].unit, units[k]);
        cr_assert_not(s->src[1].unit_declared);
        cr_assert_eq(s->src[1].start_us, open_ts[k], "%s", dfn_unit_name(units[k]));
        cr_assert_eq(sample_ts(s, "mem.Dirty"), open_ts[k], "%s: samples too", dfn_unit_name(units[k]));
        dfn_result *r = su_query(s, "posix", "func", NULL);
        assert_row(s, r, "open", 1, open_dur[k], 0, 0);
        dfn_result_free(r);
        dfn_store_free(s);
    }
    unit_set_free(&u);
}

/* 3000 ns events, the end record last: event i at 5e9 + 10000 i + i % 1000
 * ns (µs: 5e6 + 10 i, one more from i % 1000 >= 500) and dur i % 7 + 1 µs
 * plus 499 ns. */
static char *long_ns_trace(size_t *len)
{
    size_t cap = 3100 * 160;
    char *t = malloc(cap);
    size_t n = 0;
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(t + n, cap - n,
                              "{\"name\":\"read\",\"cat\":\"POSIX\",\"type\":3,\"pid\":1,\"tid\":%d,\"ts\":%llu,"
                              "\"dur\":%d,\"ph\":1,\"args\":{\"ret\":1}}\n",
                              i % 3, 5000000000ull + 10000ull * (unsigned)i + (unsigned)(i % 1000), (i % 7 + 1) * 1000 + 499);
    n += (size_t)snprintf(t + n, cap - n,
                          "{\"name\":\"end\",\"cat\":\"dftracer\",\"type\":1,\"pid\":1,\"tid\":0,\"ts\":5030000000,"
                          "\"dur\":0,\"ph\":1,\"args\":{\"cfg\":{\"time_metric\":\"NS\"}}}\n");
    *len = n;
    return t;
}

static void assert_long_ns(const dfn_store *s, const char *how)
{
    cr_assert_eq(s->n, 3001, "%s", how);
    cr_assert_eq(s->src[0].unit, DFN_UNIT_NS, "%s", how);
    cr_assert_eq(s->t0, 5000000, "%s: t0 %" PRIu64, how, s->t0);
    long long dur = 0;
    for (int i = 0; i < 3000; i++) {
        uint64_t want = 5000000 + 10 * (uint64_t)i + (i % 1000 >= 500);
        uint64_t got = s->t0 + dfn_store_ts(s, (size_t)i);
        cr_assert_eq(got, want, "%s: event %d at %" PRIu64, how, i, got);
        dur += i % 7 + 1;
    }
    cr_assert_eq(s->t0 + dfn_store_ts(s, 3000), 5030000, "%s", how);
    dfn_result *r = su_query(s, "posix", NULL, NULL);
    cr_assert_eq(llround(dfn_result_metric(r, 0, DFN_M_TIME_S) * 1e6), dur, "%s", how);
    dfn_result_free(r);
}

Test(units, the_last_line_applies_to_the_first_block)
{
    size_t len;
    char *t = long_ns_trace(&len);
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "long-ns.pfw", t, len);
    const char *p[1] = { path };
    const size_t blocks[] = { 256, 4096, 65536, 0 };
    for (int threads = 1; threads <= 3; threads++)
        for (size_t b = 0; b < 4; b++) {
            char how[64];
            snprintf(how, sizeof how, "-j %d, block %zu", threads, blocks[b]);
            dfn_store *s = su_load_paths(p, 1, threads, blocks[b]);
            assert_long_ns(s, how);
            dfn_store_free(s);
        }
    free(path);
    free(dir);
    free(t);
}

/* Each ts and dur rounds on its own: a call at 1000001499 ns of 1 ns is
 * at 1000001 µs and 0 µs long, so its file (and the store) ends at
 * 1000001, not at the rounded end 1000001500 ns. (Fails at c2bf0a8: the
 * file's end_us rounds the sum ts + dur of its chunk, 1000002.) */
Test(units, a_file_ends_where_its_last_call_ends)
{
    const char *t =
        R({"name":"end","cat":"dftracer","type":1,"pid":1,"tid":1,"ts":1000000000,"dur":0,"ph":1,"args":{"cfg":{"time_metric":"NS"}}})
        R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000001499,"dur":1,"ph":1,"args":{"ret":1}});
    dfn_store *s = su_load_text("ends.pfw", t, 1);
    cr_assert_eq(s->src[0].unit, DFN_UNIT_NS);
    cr_assert_eq(s->t0, 1000000);
    cr_assert_eq(s->t1, 1000001);
    cr_assert_eq(s->src[0].start_us, 1000000);
    cr_assert_eq(s->src[0].end_us, s->t1, "file end %" PRIu64 ", store end %" PRIu64, s->src[0].end_us, s->t1);
    dfn_store_free(s);
}

/* ---- counters ---- */

/* node01 (pid 1): cpu at 0 s and 0.5 s; node02 (pid 2, its HH after its
 * samples): cpu at 0.2 s, mem (Chrome "C") at 1.5 s. "77" counts, "x"
 * and "abc" do not. One event at 0 s sets the store's start. */
static const char *ctr_trace =
    R({"name":"HH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"node01","value":"555"}})
    R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000000,"dur":10,"ph":1,"args":{"hhash":"555","ret":1}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":1000000,"ph":2,"args":{"hhash":"555","user_pct":10,"iowait_pct":2.5,"idle":"77","note":"x"}})
    R({"name":"cpu","cat":"sys","type":7,"pid":2,"tid":2,"ts":1200000,"ph":2,"args":{"hhash":"666","user_pct":30,"iowait_pct":7,"idle":"70"}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":1500000,"ph":2,"args":{"hhash":"555","user_pct":20,"iowait_pct":3.5,"idle":"80"}})
    R({"name":"mem","pid":2,"tid":2,"ts":2500000,"ph":"C","args":{"hhash":"666","Dirty":100,"MemFree":"abc"}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":2,"tid":2,"ph":4,"args":{"name":"node02","value":"666"}});

static dfn_store *ctr_st;
static void ctr_setup(void) { ctr_st = su_load_text("ctr.pfw", ctr_trace, 2); }
static void ctr_teardown(void) { dfn_store_free(ctr_st); }

/* Runs a counter query by dims with filter text (NULL: none) and bin. */
static void cquery(const dfn_store *s, const char *dims, const char *where, double bin, dfn_cresult *out)
{
    char err[512];
    dfn_cquery q = { .bin_s = bin };
    cr_assert(dfn_cdims_parse(dims, q.dims, &q.ndims, err, sizeof err), "%s", err);
    dfn_filter f = { 0 };
    if (where) cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    q.filter = where ? &f : NULL;
    cr_assert(dfn_counters_query(s, &q, out, err, sizeof err), "%s", err);
    dfn_filter_free(&f);
}

/* The row whose keys joined by '|' are key. */
static const dfn_crow *crow(const dfn_store *s, const dfn_cresult *r, const char *key)
{
    for (size_t i = 0; i < r->nrows; i++) {
        char buf[512] = "", part[128];
        for (size_t k = 0; k < r->ndims; k++) {
            dfn_crow_key_text(s, r, &r->rows[i], k, part, sizeof part);
            if (k) strcat(buf, "|");
            strcat(buf, part);
        }
        if (strcmp(buf, key) == 0) return &r->rows[i];
    }
    cr_assert_fail("no counter row '%s'", key);
    return NULL;
}

static void assert_crow(const dfn_store *s, const dfn_cresult *r, const char *key, uint64_t n, double mean, double min,
                        double max)
{
    const dfn_crow *row = crow(s, r, key);
    cr_assert_eq(row->samples, n, "%s: %" PRIu64 " samples", key, row->samples);
    cr_assert_float_eq(row->sum / (double)row->samples, mean, 1e-9, "%s: mean", key);
    cr_assert_eq(row->min, min, "%s: min %g", key, row->min);
    cr_assert_eq(row->max, max, "%s: max %g", key, row->max);
}

Test(counters, samples_per_numeric_field, .init = ctr_setup, .fini = ctr_teardown)
{
    const dfn_store *s = ctr_st;
    cr_assert_eq(s->n, 1, "counters are not events");
    cr_assert_eq(dfn_src_more(&s->src[0])->counters, 4);
    cr_assert_eq(s->nseries, 4, "cpu.user_pct, cpu.iowait_pct, cpu.idle, mem.Dirty");
    cr_assert_eq(s->nsamples, 10);
    dfn_cresult r;
    cquery(s, "counter,host", NULL, 0, &r);
    cr_assert_eq(r.nrows, 7);
    assert_crow(s, &r, "cpu.idle|node01", 2, 78.5, 77, 80);
    assert_crow(s, &r, "cpu.idle|node02", 1, 70, 70, 70);
    assert_crow(s, &r, "cpu.iowait_pct|node01", 2, 3, 2.5, 3.5);
    assert_crow(s, &r, "cpu.iowait_pct|node02", 1, 7, 7, 7);
    assert_crow(s, &r, "cpu.user_pct|node01", 2, 15, 10, 20);
    assert_crow(s, &r, "cpu.user_pct|node02", 1, 30, 30, 30);
    assert_crow(s, &r, "mem.Dirty|node02", 1, 100, 100, 100);
    /* rows in key order: series name, then host */
    char first[64];
    dfn_crow_key_text(s, &r, &r.rows[0], 0, first, sizeof first);
    cr_assert_str_eq(first, "cpu.idle");
    dfn_cresult_free(&r);
}

/* A series is its joined name: "cpu" with user.x and "cpu.user" with x
 * are one, as ctr.cpu.user.x names one and as MPI ranks key their rows,
 * for any thread count. */
Test(counters, series_of_one_name_are_one)
{
    static const char *text =
        R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":100,"ph":2,"args":{"user.x":1}})
        R({"name":"cpu.user","cat":"sys","type":7,"pid":1,"tid":1,"ts":200,"ph":2,"args":{"x":3}})
        R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":300,"ph":2,"args":{"user":8}})
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":100,"dur":300,"ph":"X","args":{}});
    for (int threads = 1; threads <= 3; threads += 2) {
        dfn_store *s = su_load_text("series.pfw", text, threads);
        cr_assert_eq(s->nsamples, 3);
        cr_assert_eq(s->nseries, 2, "%d threads: cpu.user.x and cpu.user: %zu series", threads, s->nseries);
        dfn_cresult r;
        cquery(s, "counter", NULL, 0, &r);
        cr_assert_eq(r.nrows, 2);
        assert_crow(s, &r, "cpu.user.x", 2, 2, 1, 3);
        assert_crow(s, &r, "cpu.user", 1, 8, 8, 8);
        dfn_cresult_free(&r);
        dfn_store_free(s);
    }
}

Test(counters, grouped_by_every_dimension, .init = ctr_setup, .fini = ctr_teardown)
{
    const dfn_store *s = ctr_st;
    dfn_cresult r;
    cquery(s, "counter,host,pid,time", NULL, 1, &r);
    cr_assert_eq(r.nrows, 7, "every series in one bin but mem (1.5 s)");
    assert_crow(s, &r, "cpu.user_pct|node01|1|0", 2, 15, 10, 20);
    assert_crow(s, &r, "cpu.iowait_pct|node02|2|0", 1, 7, 7, 7);
    assert_crow(s, &r, "mem.Dirty|node02|2|1", 1, 100, 100, 100);
    dfn_cresult_free(&r);
    cquery(s, "counter,time", NULL, 0.25, &r);
    assert_crow(s, &r, "cpu.user_pct|0", 2, 20, 10, 30);
    assert_crow(s, &r, "cpu.user_pct|0.5", 1, 20, 20, 20);
    dfn_cresult_free(&r);
}

Test(counters, filters_narrow_the_samples, .init = ctr_setup, .fini = ctr_teardown)
{
    const dfn_store *s = ctr_st;
    dfn_cresult r;
    cquery(s, "counter", "counter=cpu.iowait_pct host=node01 time<1", 0, &r);
    cr_assert_eq(r.nrows, 1);
    assert_crow(s, &r, "cpu.iowait_pct", 2, 3, 2.5, 3.5);
    dfn_cresult_free(&r);
    cquery(s, "counter", "counter=cpu.iowait_pct host=node01 time<0.4", 0, &r);
    assert_crow(s, &r, "cpu.iowait_pct", 1, 2.5, 2.5, 2.5);
    dfn_cresult_free(&r);
    cquery(s, "counter,pid", "pid=2", 0, &r);
    cr_assert_eq(r.nrows, 4);
    dfn_cresult_free(&r);
}

Test(counters, terms_of_the_other_side_are_errors, .init = ctr_setup, .fini = ctr_teardown)
{
    const dfn_store *s = ctr_st;
    char err[512] = "";
    dfn_filter f;
    cr_assert(dfn_filter_parse("counter=cpu.user_pct func=read", &f, err, sizeof err), "%s", err);
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER }, .ndims = 1, .filter = &f };
    dfn_cresult r;
    cr_assert_not(dfn_counters_query(s, &q, &r, err, sizeof err));
    cr_assert(strstr(err, "func"), "%s", err);
    dfn_filter_free(&f);
    err[0] = 0;
    cr_assert(dfn_filter_parse("counter=cpu.user_pct", &f, err, sizeof err), "%s", err);
    dfn_query eq = { .filter = &f, .layers = su_layerset(s, "posix") };
    cr_assert_null(dfn_query_run(s, &eq, err, sizeof err));
    cr_assert(strstr(err, "counter"), "%s", err);
    dfn_filter_free(&f);
}

/* Three hosts, one sample each at the same ts, whose sum depends on its
 * order (1e16 + -1e16 + 1 is 1, -1e16 + 1 + 1e16 is 0). Each host's
 * name comes last in its file, and the first file is long: with two
 * readers the short files name their hosts first. (Fails at c2bf0a8 with
 * -j 4: samples of one ts and series sort by the host's string id, which
 * the parser threads hand out in the order they meet the names.) */
static char *tie_set(char *paths[3])
{
    char *dir = tu_tmpdir();
    const char *vals[] = { "1e16", "-1e16", "1" };
    const int lines[] = { 20000, 50, 50 };
    for (int k = 0; k < 3; k++) {
        size_t cap = (size_t)lines[k] * 120 + 512, n = 0;
        char *t = malloc(cap);
        for (int i = 0; i < lines[k]; i++)
            n += (size_t)snprintf(t + n, cap - n, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,"
                                  "\"dur\":1,\"ph\":1,\"args\":{\"hhash\":\"%d\",\"ret\":1}}\n", k + 1, 1000 + i, 900 + k);
        n += (size_t)snprintf(t + n, cap - n, "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":%d,\"tid\":1,\"ts\":500,\"ph\":2,"
                              "\"args\":{\"hhash\":\"%d\",\"x\":%s}}\n", k + 1, 900 + k, vals[k]);
        n += (size_t)snprintf(t + n, cap - n, "{\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":%d,\"tid\":1,\"ph\":4,"
                              "\"args\":{\"name\":\"host%d\",\"value\":\"%d\"}}\n", k + 1, k, 900 + k);
        char name[16];
        snprintf(name, sizeof name, "t%d.pfw", k);
        paths[k] = tu_write_file(dir, name, t, n);
        free(t);
    }
    return dir;
}

Test(counters, rows_do_not_depend_on_the_thread_count)
{
    char *paths[3];
    char *dir = tie_set(paths);
    dfn_store *ref = su_load_paths((const char *const *)paths, 3, 1, 0);
    dfn_cresult r1;
    cquery(ref, "counter", NULL, 0, &r1);
    cr_assert_eq(r1.nrows, 1);
    for (int threads = 2; threads <= 4; threads++) {
        dfn_store *s = su_load_paths((const char *const *)paths, 3, threads, 65536);
        dfn_cresult r2;
        cquery(s, "counter", NULL, 0, &r2);
        cr_assert_eq(r2.nrows, 1);
        cr_assert_eq(r2.rows[0].samples, 3);
        cr_assert_eq(r2.rows[0].sum, r1.rows[0].sum, "-j %d: sum %g, at -j 1 %g", threads, r2.rows[0].sum,
                     r1.rows[0].sum);
        assert_same_samples(ref, s, threads);
        dfn_cresult_free(&r2);
        dfn_store_free(s);
    }
    dfn_cresult_free(&r1);
    dfn_store_free(ref);
    for (int k = 0; k < 3; k++) free(paths[k]);
    free(dir);
}

/* The explorer's tracks: node01 has processes 1 and 3 with calls and a
 * sampler, pid 9, without; node02 has process 5. Samples of cpu.x at
 * 0, 0.249999, 0.25, 0.6, 0.999999 and 1.0 s from the first call. */
static const char *track_trace =
    R({"name":"HH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"node01","value":"1"}})
    R({"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":1000000,"dur":10,"ph":1,"args":{"hhash":"1","ret":1}})
    R({"name":"write","cat":"POSIX","type":3,"pid":3,"tid":3,"ts":1000100,"dur":10,"ph":1,"args":{"hhash":"1","ret":1}})
    R({"name":"read","cat":"POSIX","type":3,"pid":5,"tid":5,"ts":1000200,"dur":10,"ph":1,"args":{"hhash":"2","ret":1}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":1000000,"ph":2,"args":{"hhash":"1","x":10}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":1249999,"ph":2,"args":{"hhash":"1","x":70}})
    R({"name":"cpu","cat":"sys","type":7,"pid":9,"tid":9,"ts":1250000,"ph":2,"args":{"hhash":"1","x":20}})
    R({"name":"cpu","cat":"sys","type":7,"pid":3,"tid":3,"ts":1600000,"ph":2,"args":{"hhash":"1","x":30}})
    R({"name":"cpu","cat":"sys","type":7,"pid":5,"tid":5,"ts":1999999,"ph":2,"args":{"hhash":"2","x":40}})
    R({"name":"cpu","cat":"sys","type":7,"pid":1,"tid":1,"ts":2000000,"ph":2,"args":{"hhash":"1","x":50}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":5,"tid":5,"ph":4,"args":{"name":"node02","value":"2"}});

/* The tracks of an event selection where over [lo, hi) in n bins, as
 * "bin:samples:mean" of each row, joined by spaces. */
static void tracks_text(const dfn_store *s, const char *where, double lo, double hi, size_t n, char *out, size_t cap)
{
    char err[512];
    dfn_filter f = { 0 };
    if (where) cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER, DFN_CDIM_TIME }, .ndims = 2, .filter = where ? &f : NULL,
                     .nbins = n, .win_lo_s = lo, .win_hi_s = hi, .selection = true };
    dfn_cresult r;
    cr_assert(dfn_counters_query(s, &q, &r, err, sizeof err), "%s: %s", where, err);
    size_t w = 0;
    out[0] = 0;
    for (size_t i = 0; i < r.nrows && w < cap; i++)
        w += (size_t)snprintf(out + w, cap - w, "%s%" PRIu64 ":%" PRIu64 ":%g", i ? " " : "", r.rows[i].key[1],
                              r.rows[i].samples, r.rows[i].sum / (double)r.rows[i].samples);
    dfn_filter_free(&f);
    dfn_cresult_free(&r);
}

Test(counters, tracks_of_a_selection)
{
    dfn_store *s = su_load_text("tracks.pfw", track_trace, 2);
    cr_assert_eq(s->nseries, 1);
    char t[512];
    /* bins of 250000 us from the first call: the edge sample goes up, the
     * window's end is out */
    tracks_text(s, NULL, 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "0:2:40 1:1:20 2:1:30 3:1:40");
    /* process 1: its own samples and its host's sampler (pid 9), not
     * process 3 of the same host nor node02; the call terms pass over */
    tracks_text(s, "pid=1 func=read dur>1", 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "0:2:40 1:1:20");
    tracks_text(s, "proc=node01/1/1", 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "0:2:40 1:1:20");
    tracks_text(s, "host=node02", 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "3:1:40");
    tracks_text(s, "host=node01 time<0.5", 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "0:2:40 1:1:20");
    /* a later window starts at its own first sample */
    tracks_text(s, NULL, 0.5, 1, 2, t, sizeof t);
    cr_assert_str_eq(t, "0:1:30 1:1:40");
    tracks_text(s, NULL, 0.5, 1.25, 3, t, sizeof t);
    cr_assert_str_eq(t, "0:1:30 1:1:40 2:1:50");
    tracks_text(s, "pid=404", 0, 1, 4, t, sizeof t);
    cr_assert_str_eq(t, "");
    dfn_store_free(s);
}

/* ---- from the review of the 2.x kinds ---- */

/* An end record with an unknown time_metric after one that says NS: the
 * NS stays, whatever block the second falls in. */
static const char *twoend_trace =
    R({"name":"read","cat":"POSIX","ph":1,"ts":1000000,"dur":3000,"pid":1,"tid":1,"args":{"ret":10}})
    R({"name":"end","cat":"dftracer","ph":1,"ts":1000001,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"NS"}}})
    R({"name":"read","cat":"POSIX","ph":1,"ts":2000000,"dur":3000,"pid":1,"tid":1,"args":{"ret":10}})
    R({"name":"end","cat":"dftracer","ph":1,"ts":2000001,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"XS"}}});

Test(review, an_unknown_unit_leaves_the_declared_one)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "twoend.pfw", twoend_trace, strlen(twoend_trace));
    const size_t blocks[] = { 0, 40, 97, 300 };
    for (size_t k = 0; k < 4; k++) {
        dfn_store *s = su_load_paths((const char *const *)&path, 1, 2, blocks[k]);
        cr_assert_eq(s->src[0].unit, DFN_UNIT_NS, "block %zu: unit %d", blocks[k], s->src[0].unit);
        cr_assert(s->src[0].unit_declared && dfn_src_more(&s->src[0])->unit_unknown, "block %zu", blocks[k]);
        cr_assert_eq(s->t0, 1000, "block %zu", blocks[k]);
        dfn_store_free(s);
    }
    free(path);
    free(dir);
}

/* pids given as names, in several files: rows in name order for any
 * thread count and block size (their string ids are not). */
Test(review, named_pids_sort_by_name_for_any_thread_count)
{
    char *dir = tu_tmpdir(), *paths[4];
    const char *names[] = { "w9", "w1", "alpha", "w10", "zeta", "mid", "7", "beta" };
    for (int f = 0; f < 4; f++) {
        char t[4096];
        size_t n = 0;
        for (int i = 0; i < 24; i++)
            n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"t\",\"cat\":\"app\",\"ph\":\"X\",\"ts\":%d,\"dur\":5,"
                                  "\"pid\":\"%s\",\"tid\":\"x\"}\n", 100 + i, names[(f * 3 + i) % 8]);
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"t\",\"cat\":\"app\",\"ph\":\"X\",\"ts\":1,\"dur\":5,"
                              "\"pid\":%d,\"tid\":1}\n", 40 - f);
        char name[16];
        snprintf(name, sizeof name, "n%d.pfw", f);
        paths[f] = tu_write_file(dir, name, t, n);
    }
    const char *want = "7|37|38|39|40|alpha|beta|mid|w1|w10|w9|zeta";   /* "7" is a number */
    for (int threads = 1; threads <= 4; threads++) {
        dfn_store *s = su_load_paths((const char *const *)paths, 4, threads, threads == 1 ? 0 : 200);
        dfn_query q = { .layers = su_layerset(s, "posix"), .sort = -1 };
        dfn_result *r = su_run(s, &q, "pid");
        char got[512] = "", k[64];
        for (size_t row = 0; row < r->nrows; row++) {
            dfn_result_key_text(s, r, row, 0, k, sizeof k);
            if (row) strcat(got, "|");
            strcat(got, k);
        }
        cr_assert_str_eq(got, want, "-j %d: %s", threads, got);
        dfn_result_free(r);
        dfn_store_free(s);
    }
    for (int f = 0; f < 4; f++) free(paths[f]);
    free(dir);
}

/* Five records of a billion calls of 2 µs: more than a 32-bit bucket
 * holds, so no percentile rather than a wrapped one. */
Test(review, percentiles_of_billions_of_folded_calls)
{
    char t[2048];
    size_t n = 0;
    for (int i = 0; i < 5; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"ph\":3,\"ts\":%d,"
                              "\"pid\":1,\"tid\":1,\"args\":{\"dft_cnt\":1000000000,\"dur_sum\":2000000000}}\n", 1000 + i);
    snprintf(t + n, sizeof t - n, "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"ph\":3,\"ts\":9000,\"pid\":1,"
             "\"tid\":1,\"args\":{\"dft_cnt\":10,\"dur_sum\":100000,\"dur_max\":10000}}\n");
    dfn_store *s = su_load_text("big.pfw", t, 2);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_COUNT), 5000000010.0);
    cr_assert(isnan(su_metric(s, r, "pread64", DFN_M_P50_US)), "p50 %g", su_metric(s, r, "pread64", DFN_M_P50_US));
    cr_assert(isnan(su_metric(s, r, "pread64", DFN_M_P99_US)));
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_MAX_US), 10000);
    dfn_result_free(r);
    dfn_store_free(s);
    /* one record of a billion: the percentiles are its mean */
    s = su_load_text("one.pfw", R({"name":"pread64","cat":"POSIX","type":3,"ph":3,"ts":1,"pid":1,"tid":1,"args":{"dft_cnt":1000000000,"dur_sum":2000000000}}), 1);
    r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_P50_US), 2);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* An aggregated record wider than the 64 arguments kept, whose count,
 * time and bytes come last; records without a count of calls. */
Test(review, wide_and_countless_aggregated_records)
{
    char t[8192];
    size_t n = (size_t)snprintf(t, sizeof t, "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"ph\":3,\"ts\":1,\"pid\":1,"
                                "\"tid\":1,\"args\":{");
    for (int k = 0; k < 70; k++) n += (size_t)snprintf(t + n, sizeof t - n, "\"x%d_sum\":%d,", k, k);
    n += (size_t)snprintf(t + n, sizeof t - n, "\"dft_cnt\":100,\"dur_sum\":5000,\"dur_max\":90,\"ret_sum\":409600}}\n");
    n += (size_t)snprintf(t + n, sizeof t - n, "%s", R({"name":"pread64","cat":"POSIX","ph":3,"ts":2,"pid":1,"tid":1,"args":{"dur_sum":40}}));
    n += (size_t)snprintf(t + n, sizeof t - n, "%s", R({"name":"pread64","cat":"POSIX","ph":3,"ts":3,"pid":1,"tid":1,"args":{"dft_cnt":0,"dur_sum":7}}));
    snprintf(t + n, sizeof t - n, "%s", R({"name":"pread64","cat":"POSIX","ph":3,"ts":4,"pid":1,"tid":1,"args":{"dft_cnt":-3,"dur_sum":7}}));
    dfn_store *s = su_load_text("wide.pfw", t, 1);
    cr_assert_eq(s->src[0].malformed, 3);
    cr_assert_str_eq(dfn_src_more(&s->src[0])->bad_reason[0], "aggregated record without a whole dft_cnt above 0");
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_COUNT), 100);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_TIME_S), 0.005);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_BYTES), 409600);
    dfn_result_free(r);
    /* the size of the calls it folds: their mean */
    r = su_query(s, "posix", "size", NULL);
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(su_metric(s, r, "4096", DFN_M_COUNT), 100);
    dfn_result_free(r);
    dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_SIZE_MEAN) | DFN_M_BIT(DFN_M_SIZE_P50) | DFN_M_BIT(DFN_M_SIZE_MAX) };
    r = su_run(s, &q, "func");
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_SIZE_MEAN), 4096);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_SIZE_MAX), 4096);
    cr_assert_eq(su_metric(s, r, "pread64", DFN_M_SIZE_P50), 4096, "the median kept within least and largest");
    dfn_result_free(r);
    dfn_store_free(s);
}

/* MS and SEC times past 2^62 µs saturate there, so ends and sums of a
 * few cannot wrap; ns rounding is counted for info to say. */
Test(review, unit_conversions_saturate_and_rounding_is_counted)
{
    cr_assert_eq(dfn_unit_to_us(DFN_UNIT_MS, UINT64_MAX / 2), UINT64_MAX >> 2);
    cr_assert_eq(dfn_unit_to_us(DFN_UNIT_SEC, (UINT64_MAX >> 2) / 1000000 + 1), UINT64_MAX >> 2);
    cr_assert_eq(dfn_unit_to_us(DFN_UNIT_MS, 7), 7000);
    dfn_store *s = su_load_text("ms.pfw",
        R({"name":"read","cat":"POSIX","ph":1,"ts":1700000000000,"dur":5,"pid":1,"tid":1,"args":{"ret":10}})
        R({"name":"read","cat":"POSIX","ph":1,"ts":4000000000000000000,"dur":4000000000000000000,"pid":1,"tid":1,"args":{"ret":10}})
        R({"name":"end","cat":"dftracer","ph":1,"ts":1700000000002,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"MS"}}}), 2);
    cr_assert_eq(s->src[0].end_us, (UINT64_MAX >> 2) * 2, "end %" PRIu64, s->src[0].end_us);
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_float_eq(su_metric(s, r, "read", DFN_M_TIME_S), ((UINT64_MAX >> 2) + 5000) / 1e6, 1);
    dfn_result_free(r);
    dfn_store_free(s);
    char t[65536];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"%s\",\"cat\":\"POSIX\",\"ph\":1,\"ts\":%d,\"dur\":%d,\"pid\":1,"
                              "\"tid\":1,\"args\":{}}\n", i % 2 ? "read" : "lseek", 1000000 + i * 1000, i % 2 ? 600 : 400);
    snprintf(t + n, sizeof t - n, "%s", R({"name":"end","cat":"dftracer","ph":1,"ts":2000000,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"NS"}}}));
    s = su_load_text("ns.pfw", t, 2);
    cr_assert_eq(dfn_src_more(&s->src[0])->ns_zeroed, 50);
    cr_assert_eq(dfn_src_more(&s->src[0])->ns_rounding, 100 * 400 + 0, "%" PRIu64, dfn_src_more(&s->src[0])->ns_rounding);
    cr_assert_eq(dfn_src_more(&s->src[0])->ns_total, 50 * 600 + 50 * 400);
    dfn_store_free(s);
}

/* Times written with a fraction in ms and s files keep it: such a file,
 * read to the nearest whole unit while its unit was not known yet, is read
 * again with its times straight into µs (an oracle found dur 0.25 s read
 * as 0 and ts 1000.5 s as 1001 s): calls, counter samples, B/E pairs and
 * aggregated records' sums, bare, quoted or with an exponent. Only a file
 * that cannot be read again (standard input, tests/shell/cli.sh) keeps the
 * count of what moved, which is said. */
Test(review, fractions_of_a_ms_or_s_are_kept)
{
    dfn_store *s = su_load_text("sec.pfw",
        R({"name":"read","cat":"POSIX","ph":1,"ts":1000,"dur":0.25,"pid":1,"tid":1,"args":{"ret":10}})
        R({"name":"read","cat":"POSIX","ph":1,"ts":"1000.5","dur":"15e-1","pid":1,"tid":1,"args":{"ret":10}})
        R({"name":"cpu","ph":"C","ts":1001.5,"pid":1,"args":{"user":3}})
        R({"name":"step","ph":"B","ts":1002,"pid":1,"tid":2})
        R({"name":"step","ph":"E","ts":1002.5,"pid":1,"tid":2})
        R({"name":"read","cat":"POSIX","ph":1,"ts":1002,"dur":0.0000005,"pid":1,"tid":1,"args":{"ret":10}})
        R({"name":"end","cat":"dftracer","ph":1,"ts":1003,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"SEC"}}}), 2);
    cr_assert_eq(s->src[0].unit, DFN_UNIT_SEC, "the file's unit is still shown as declared");
    cr_assert_eq(dfn_src_more(&s->src[0])->frac_times, 0, "nothing moved");
    cr_assert_eq(s->t0, 1000000000);
    cr_assert_eq(sample_ts(s, "cpu.user"), 1001500000, "a counter sample's time");
    dfn_result *r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(llround(su_metric(s, r, "read", DFN_M_TIME_S) * 1e6), 250000 + 1500000 + 1, "0.5 us is 1 us");
    cr_assert_eq(llround(su_metric(s, r, "step", DFN_M_TIME_S) * 1e6), 500000, "a B/E pair");
    dfn_result_free(r);
    r = su_query(s, "posix", "event", "func=read");
    bool half = false;
    for (size_t k = 0; k < r->nrows; k++)
        half |= dfn_store_ts(s, r->events[k]) == 500000 && dfn_store_dur(s, r->events[k]) == 1500000;
    cr_assert(half, "1000.5 s is 0.5 s from the start, for 1.5 s");
    dfn_result_free(r);
    dfn_store_free(s);
    s = su_load_text("ms.pfw",
        R({"name":"pread","cat":"POSIX","ph":3,"ts":1000,"pid":1,"tid":1,"args":{"dft_cnt":4,"dur_sum":2.4,"dur_max":"0.9","ret_sum":400}})
        R({"name":"read","cat":"POSIX","ph":1,"ts":1000.0004,"dur":2.0,"pid":1,"tid":1,"args":{"ret":5}})
        R({"name":"end","cat":"dftracer","ph":1,"ts":1005,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"MS"}}}), 1);
    r = su_query(s, "posix", "func", NULL);
    cr_assert_eq(llround(su_metric(s, r, "pread", DFN_M_TIME_S) * 1e6), 2400, "an aggregated record's dur_sum");
    cr_assert_eq(su_metric(s, r, "pread", DFN_M_MAX_US), 900, "and its dur_max");
    cr_assert_eq(llround(su_metric(s, r, "read", DFN_M_TIME_S) * 1e6), 2000);
    dfn_result_free(r);
    dfn_store_free(s);
    char msg[160];
    cr_assert_not(dfn_unit_fractions(DFN_UNIT_US, 7, msg, sizeof msg), "µs files keep whole µs anyway");
    cr_assert_not(dfn_unit_fractions(DFN_UNIT_MS, 0, msg, sizeof msg));
    cr_assert(dfn_unit_fractions(DFN_UNIT_SEC, 5, msg, sizeof msg));
    cr_assert_str_eq(msg, "5 ts or dur with a fraction of a second read to the nearest second: each is off by up to 0.5 s");
    cr_assert(dfn_unit_fractions(DFN_UNIT_MS, 1, msg, sizeof msg));
    cr_assert_str_eq(msg, "1 ts or dur with a fraction of a ms read to the nearest ms: each is off by up to 0.5 ms");
}

/* A call that names a path by pathname_hash and opens no file (mkdir,
 * unlink, stat in 2.x) has that path as its file, resolved by FH as
 * fhash is; a call with an fhash keeps the fhash's file. */
Test(review, pathname_hash_is_the_file_of_calls_without_fhash)
{
    dfn_store *s = su_load_text("p.pfw",
        R({"name":"FH","cat":"dftracer","ph":"M","pid":1,"tid":1,"args":{"name":"/p/ckpt/model.pt","value":"555"}})
        R({"name":"FH","cat":"dftracer","ph":"M","pid":1,"tid":1,"args":{"name":"/p/ckpt/model.pt.tmp","value":"444"}})
        R({"name":"rename","cat":"POSIX","pid":1,"tid":1,"ts":1000,"dur":10,"ph":"X","args":{"fhash":"444","newpath_hash":"555"}})
        R({"name":"mkdir","cat":"POSIX","pid":1,"tid":1,"ts":1020,"dur":10,"ph":"X","args":{"pathname_hash":"555"}})
        R({"name":"unlink","cat":"POSIX","pid":1,"tid":1,"ts":1040,"dur":10,"ph":"X","args":{"fhash":"444","pathname_hash":"555"}})
        R({"name":"rmdir","cat":"POSIX","pid":1,"tid":1,"ts":1060,"dur":10,"ph":"X","args":{"pathname_hash":"555","fhash":"444"}}), 2);
    dfn_result *r = su_query(s, "posix", "file,func", NULL);
    cr_assert_eq(r->nrows, 4);
    cr_assert_eq(su_metric(s, r, "/p/ckpt/model.pt|mkdir", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "/p/ckpt/model.pt.tmp|rename", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "/p/ckpt/model.pt.tmp|unlink", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "/p/ckpt/model.pt.tmp|rmdir", DFN_M_COUNT), 1, "an fhash after pathname_hash is the file");
    dfn_result_free(r);
    /* the argument stays, whichever of the two comes first */
    r = su_query(s, "posix", "arg.pathname_hash", NULL);
    cr_assert_eq(su_metric(s, r, "555", DFN_M_COUNT), 3);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* A UTF-8 byte order mark at a file's start is no damage, before a [
 * line or before the first record; one anywhere else is. */
Test(review, a_byte_order_mark_starts_a_file)
{
    const char *bom = "\xEF\xBB\xBF";
    char t[512];
    snprintf(t, sizeof t, "%s[\n%s%s", bom, R({"name":"read","cat":"POSIX","ph":"X","ts":1000,"dur":10,"pid":1,"tid":1,"args":{}}),
             R({"name":"read","cat":"POSIX","ph":"X","ts":1020,"dur":10,"pid":1,"tid":1,"args":{}}));
    dfn_store *s = su_load_text("bom1.pfw", t, 1);
    cr_assert_eq(s->src[0].events, 2);
    cr_assert_eq(s->src[0].malformed, 0);
    cr_assert_eq(s->src[0].skipped, 1);
    dfn_store_free(s);
    snprintf(t, sizeof t, "%s%s%s%s", bom, R({"name":"read","cat":"POSIX","ph":"X","ts":1000,"dur":10,"pid":1,"tid":1,"args":{}}), bom,
             R({"name":"read","cat":"POSIX","ph":"X","ts":1020,"dur":10,"pid":1,"tid":1,"args":{}}));
    s = su_load_text("bom2.pfw", t, 1);
    cr_assert_eq(s->src[0].events, 1);
    cr_assert_eq(s->src[0].malformed, 1, "a mark past the start is damage");
    dfn_store_free(s);
}

/* Sums past 2^64 stay there, flagged (inf), never wrap to a small figure;
 * a ret of 2^64 - 1 is a -1 written unsigned: no bytes (issue 23). */
Test(review, sums_past_2_64_are_flagged_not_wrapped)
{
    char t[4096];
    size_t n = 0;
    for (int k = 0; k < 3; k++)
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                              "\"dur\":5,\"ph\":\"X\",\"args\":{\"ret\":9223372036854775807}}\n", k + 1);
    for (int k = 0; k < 5; k++)
        n += (size_t)snprintf(t + n, sizeof t - n, "{\"name\":\"wait\",\"cat\":\"app\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
                              "\"dur\":4611686018427387000,\"ph\":\"X\",\"args\":{}}\n", k + 2, k + 10);
    snprintf(t + n, sizeof t - n, "%s", R({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X","args":{"ret":18446744073709551615}}));
    for (int threads = 1; threads <= 3; threads += 2) {
        dfn_store *s = su_load_text("ovf.pfw", t, threads);
        dfn_query q = { .sort = -1, .threads = threads };
        dfn_result *r = su_run(s, &q, "func");
        cr_assert(isinf(su_metric(s, r, "read", DFN_M_BYTES)), "-j %d: read bytes %g", threads, su_metric(s, r, "read", DFN_M_BYTES));
        cr_assert_eq(su_metric(s, r, "read", DFN_M_COUNT), 3);
        cr_assert(isnan(su_metric(s, r, "read", DFN_M_BW_MIBPS)));
        cr_assert(isinf(su_metric(s, r, "wait", DFN_M_TIME_S)), "-j %d: wait time %g", threads, su_metric(s, r, "wait", DFN_M_TIME_S));
        cr_assert_eq(su_metric(s, r, "write", DFN_M_BYTES), 0, "a -1 written unsigned moves nothing");
        cr_assert_eq(r->overflow_rows, 2);
        dfn_result_free(r);
        q = (dfn_query){ .sort = -1, .threads = threads };
        r = su_run(s, &q, "pid");   /* one row of everything */
        cr_assert(isinf(su_metric(s, r, "1", DFN_M_BYTES)) && isinf(su_metric(s, r, "1", DFN_M_TIME_S)));
        dfn_result_free(r);
        dfn_store_free(s);
    }
}

/* A count or size written as no canonical integer (4096.0, 5e2, "5e2",
 * an aggregated record's ret_sum as 4.096e6) is read as dur is, rounded;
 * it counted no bytes before. Past 2^63 or not a number: no bytes. */
Test(review, sizes_written_as_fractions_or_exponents)
{
    const char *t =
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":5,"ph":"X","args":{"ret":4096.0}})
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":2,"dur":5,"ph":"X","args":{"ret":5e2}})
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":3,"dur":5,"ph":"X","args":{"ret":"5e2"}})
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":4,"dur":5,"ph":"X","args":{"ret":10.6}})
        R({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":5,"ph":"X","args":{"ret":1e30}})
        R({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":6,"dur":5,"ph":"X","args":{"ret":"0x10"}})
        R({"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":7,"dur":5,"ph":"X","args":{"ret":-1.0}})
        R({"name":"pread64","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":8,"ph":3,"args":{"dft_cnt":4.0,"dur_sum":40,"dur_max":15,"ret_sum":4.096e4}});
    for (int threads = 1; threads <= 2; threads++) {
        dfn_store *s = su_load_text("frac.pfw", t, threads);
        dfn_query q = { .sort = -1, .threads = threads };
        dfn_result *r = su_run(s, &q, "func");
        cr_assert_eq(su_metric(s, r, "read", DFN_M_BYTES), 4096 + 500 + 500 + 11, "-j %d: %g", threads, su_metric(s, r, "read", DFN_M_BYTES));
        cr_assert_eq(su_metric(s, r, "write", DFN_M_BYTES), 0, "past 2^63, hex, -1: no bytes");
        cr_assert_eq(su_metric(s, r, "pread64", DFN_M_COUNT), 4);
        cr_assert_eq(su_metric(s, r, "pread64", DFN_M_BYTES), 40960);
        dfn_result_free(r);
        dfn_store_free(s);
    }
}

/* What a set's units need said. */
Test(review, unit_notes)
{
    char *dir = tu_tmpdir(), *p[3];
    const char *ns_end = R({"name":"end","cat":"dftracer","ph":1,"ts":1744611915154438123,"dur":0,"pid":1,"tid":1,"args":{"cfg":{"time_metric":"NS"}}});
    const char *ev_ns = R({"name":"read","cat":"POSIX","ph":1,"ts":1744611915154438123,"dur":3000,"pid":1,"tid":1,"args":{"ret":1}});
    const char *ev_us = R({"name":"read","cat":"POSIX","ph":1,"ts":1744611915154438,"dur":3,"pid":2,"tid":2,"args":{"ret":1}});
    char both[1024];
    snprintf(both, sizeof both, "%s%s", ev_ns, ns_end);
    p[0] = tu_write_file(dir, "a.pfw", both, strlen(both));
    p[1] = tu_write_file(dir, "b.pfw", ev_us, strlen(ev_us));
    p[2] = tu_write_file(dir, "c.pfw", ev_ns, strlen(ev_ns));
    char note[1024];
    dfn_store *s = su_load_paths((const char *const *)p, 2, 1, 0);
    cr_assert(dfn_unit_note(s, DFN_UNIT_NONE, note, sizeof note));
    cr_assert(strstr(note, "1 files declare their times in NS, 1 name no unit") && strstr(note, "--time-unit ns"), "%s", note);
    cr_assert_not(dfn_unit_note(s, DFN_UNIT_US, note, sizeof note), "--time-unit given: %s", note);
    dfn_store_free(s);
    s = su_load_paths((const char *const *)p, 1, 1, 0);
    cr_assert_not(dfn_unit_note(s, DFN_UNIT_NONE, note, sizeof note), "%s", note);
    dfn_store_free(s);
    /* ns times read as µs: the year 55000 */
    s = su_load_paths((const char *const *)&p[2], 1, 1, 0);
    cr_assert(dfn_unit_note(s, DFN_UNIT_NONE, note, sizeof note));
    cr_assert(strstr(note, "c.pfw: times read as microseconds fall after the year 5000 (1 file so)"), "%s", note);
    dfn_store_free(s);
    for (int k = 0; k < 3; k++) free(p[k]);
    free(dir);
}

/* ---- type and rank ---- */

/* pid 10 on node01 is rank 1 (PR), pid 10 on node02 rank 3 (PR), pid 20
 * rank 0 (process_name "Rank 0"), pid 30 has none. */
static const char *tr_trace =
    R({"name":"HH","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"name":"node01","value":"1"}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"name":"node02","value":"2"}})
    R({"name":"PR","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"hhash":"1","name":"rank","value":1}})
    R({"name":"PR","cat":"dftracer","type":1,"pid":10,"tid":10,"ph":4,"args":{"hhash":"2","name":"rank","value":"3"}})
    R({"name":"process_name","cat":"dftracer","pid":20,"tid":20,"ph":"M","args":{"hhash":"1","name":"Rank 0","value":"process_name"}})
    R({"name":"read","cat":"POSIX","type":3,"pid":10,"tid":10,"ts":100,"dur":10,"ph":1,"args":{"hhash":"1","ret":1}})
    R({"name":"read","cat":"POSIX","type":3,"pid":10,"tid":10,"ts":110,"dur":20,"ph":1,"args":{"hhash":"2","ret":1}})
    R({"name":"train","cat":"pipeline","type":6,"pid":20,"tid":20,"ts":100,"dur":40,"ph":1,"args":{"hhash":"1"}})
    R({"name":"start","cat":"dftracer","type":1,"pid":20,"tid":20,"ts":90,"dur":0,"ph":1,"args":{"hhash":"1"}})
    R({"name":"kernel","cat":"gpu","type":42,"pid":30,"tid":30,"ts":120,"dur":80,"ph":1,"args":{"hhash":"1"}})
    R({"name":"old","cat":"POSIX","pid":30,"tid":30,"ts":130,"dur":160,"ph":"X","args":{"hhash":"1"}});

Test(type_rank, type_names_and_ranks)
{
    dfn_store *s = su_load_text("tr.pfw", tr_trace, 2);
    dfn_result *r = su_query(s, "posix", "type", NULL);
    cr_assert_eq(r->nrows, 5);
    assert_row(s, r, "LIBC_IO", 2, 30, 2, 0);
    assert_row(s, r, "PYTHON", 1, 40, 0, 0);
    assert_row(s, r, "DFTRACER", 1, 0, 0, 0);
    assert_row(s, r, "42", 1, 80, 0, 0);
    assert_row(s, r, "", 1, 160, 0, 0);
    dfn_result_free(r);
    r = su_query(s, "posix", "rank", NULL);
    cr_assert_eq(r->nrows, 4);
    assert_row(s, r, "1", 1, 10, 1, 0);
    assert_row(s, r, "3", 1, 20, 1, 0);
    assert_row(s, r, "0", 2, 40, 0, 0);
    assert_row(s, r, "", 2, 240, 0, 0);
    dfn_result_free(r);
    r = su_query(s, "posix", "host", "rank=1");
    cr_assert_eq(r->nrows, 1);
    assert_row(s, r, "node01", 1, 10, 1, 0);
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "type=LIBC_IO");
    cr_assert_eq(r->nrows, 1);
    assert_row(s, r, "read", 2, 30, 2, 0);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* ---- any thread count ---- */

/* Every metric of every row of a query by `by`, in both stores, equal. */
static void assert_same_rows(const dfn_store *a, const dfn_store *b, const char *by, int threads)
{
    dfn_result *ra = su_query(a, "posix", by, NULL), *rb = su_query(b, "posix", by, NULL);
    cr_assert_eq(ra->nrows, rb->nrows, "--by %s -j %d", by, threads);
    char ka[512], kb[512];
    for (size_t row = 0; row < ra->nrows; row++) {
        dfn_result_key_text(a, ra, row, 0, ka, sizeof ka);
        dfn_result_key_text(b, rb, row, 0, kb, sizeof kb);
        cr_assert_str_eq(ka, kb, "--by %s -j %d", by, threads);
        for (int m = 0; m < DFN_M_COUNT_; m++) {
            if (!(ra->metrics & DFN_M_BIT(m))) continue;
            double x = dfn_result_metric(ra, row, m), y = dfn_result_metric(rb, row, m);
            cr_assert(x == y || (isnan(x) && isnan(y)), "--by %s -j %d: %s of %s", by, threads, dfn_metric_name(m), ka);
        }
    }
    dfn_result_free(ra);
    dfn_result_free(rb);
}

static void assert_same_samples(const dfn_store *a, const dfn_store *b, int threads)
{
    cr_assert_eq(a->nsamples, b->nsamples, "-j %d", threads);
    cr_assert_eq(a->nseries, b->nseries, "-j %d", threads);
    for (size_t i = 0; i < a->nsamples; i++) {
        const dfn_sample *x = &a->samples[i], *y = &b->samples[i];
        cr_assert_eq(x->ts, y->ts, "-j %d sample %zu", threads, i);
        cr_assert_eq(x->value, y->value, "-j %d sample %zu", threads, i);
        cr_assert_eq(x->pid, y->pid, "-j %d sample %zu", threads, i);
        cr_assert_str_eq(dfn_store_str(a, a->series[x->series]), dfn_store_str(b, b->series[y->series]));
        cr_assert_str_eq(dfn_store_str(a, x->host), dfn_store_str(b, y->host));
    }
}

Test(records_threads, the_same_store_for_any_thread_count)
{
    char *dir = tu_tmpdir();
    const char *texts[] = { kinds_trace, agg_trace, ns_trace, ctr_trace, tr_trace, plain_trace };
    char *paths[6];
    for (int k = 0; k < 6; k++) {
        char name[32];
        snprintf(name, sizeof name, "mixed-%d.pfw", k);
        paths[k] = tu_write_file(dir, name, texts[k], strlen(texts[k]));
    }
    dfn_store *ref = su_load_paths((const char *const *)paths, 6, 1, 0);
    const char *bys[] = { "func", "file", "host", "pid", "type", "rank", "cat", "event" };
    for (int threads = 2; threads <= 3; threads++) {
        dfn_store *s = su_load_paths((const char *const *)paths, 6, threads, threads == 3 ? 256 : 0);
        cr_assert_eq(s->n, ref->n);
        cr_assert_eq(s->t0, ref->t0);
        cr_assert_eq(s->t1, ref->t1);
        for (size_t k = 0; k < sizeof bys / sizeof *bys; k++) assert_same_rows(ref, s, bys[k], threads);
        assert_same_samples(ref, s, threads);
        for (int f = 0; f < 6; f++) {
            cr_assert_eq(s->src[f].lines, ref->src[f].lines);
            cr_assert_eq(dfn_src_more(&s->src[f])->other, dfn_src_more(&ref->src[f])->other);
            cr_assert_eq(dfn_src_more(&s->src[f])->agg_calls, dfn_src_more(&ref->src[f])->agg_calls);
        }
        dfn_store_free(s);
    }
    dfn_store_free(ref);
    for (int k = 0; k < 6; k++) free(paths[k]);
    free(dir);
}

/* ---- Chrome traces of neighbouring tools ---- */

/* dasf- and profiler-style lines: pids and tids as names, process_name and
 * thread_name naming numeric ones (or only repeating a pid or tid written
 * as a name: no name), instants, counters, a B/E pair with the B's
 * arguments, and DFTracer's own "Rank N" giving a rank, not a name. */
Test(chrome, names_instants_pairs_and_counters)
{
    dfn_store *s = su_load_text("chrome.json",
        "[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":7,\"args\":{\"name\":\"Trainer\"}},\n"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":7,\"tid\":9,\"args\":{\"name\":\"DataLoader\"}},\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":8,\"args\":{\"name\":\"Rank 3\"}},\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\"worker-2\",\"args\":{\"name\":\"worker-2\"}},\n"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\"worker-2\",\"tid\":\"main\",\"args\":{\"name\":\"main\"}},\n"
        "{\"name\":\"step\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":\"worker-1\",\"tid\":\"main\",\"ts\":100,\"dur\":50},\n"
        "{\"name\":\"step\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":\"worker-2\",\"tid\":\"main\",\"ts\":100,\"dur\":70},\n"
        "{\"name\":\"mark\",\"ph\":\"i\",\"pid\":\"worker-1\",\"tid\":\"main\",\"ts\":120,\"s\":\"t\"},\n"
        "{\"name\":\"gpu\",\"ph\":\"C\",\"pid\":\"worker-1\",\"ts\":100,\"args\":{\"util\":55}},\n"
        "{\"name\":\"gpu\",\"ph\":\"C\",\"pid\":\"worker-1\",\"ts\":200,\"args\":{\"util\":65}},\n"
        "{\"name\":\"load\",\"cat\":\"io\",\"ph\":\"B\",\"pid\":7,\"tid\":9,\"ts\":300,\"args\":{\"batch\":4}},\n"
        "{\"name\":\"load\",\"ph\":\"E\",\"pid\":7,\"tid\":9,\"ts\":340},\n"
        "{\"name\":\"step\",\"ph\":\"X\",\"pid\":8,\"tid\":8,\"ts\":1,\"dur\":5},\n"
        "{\"name\":\"async\",\"ph\":\"b\",\"id\":1,\"pid\":7,\"ts\":1}\n"
        "]\n", 2);
    const dfn_srcinfo *si = &s->src[0];
    cr_assert_eq(si->lines - si->skipped, 14);
    cr_assert_eq(si->events, 6);      /* two X, an instant, a B/E pair (two lines), one X */
    cr_assert_eq(si->metadata, 5);
    cr_assert_eq(dfn_src_more(si)->counters, 2);
    cr_assert_eq(dfn_src_more(si)->other, 1);
    cr_assert_eq(si->malformed, 0);
    cr_assert_eq(s->n, 5);
    dfn_result *r = su_query(s, "posix", "pid,tid", NULL);
    cr_assert_eq(su_metric(s, r, "worker-1|main", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(s, r, "worker-2|main", DFN_M_TIME_S), 70e-6);
    cr_assert_eq(su_metric(s, r, "7|9", DFN_M_TIME_S), 40e-6);
    dfn_result_free(r);
    r = su_query(s, "posix", "proc,rank", NULL);
    cr_assert_eq(su_metric(s, r, "/Trainer(7)/DataLoader(9)|", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "/8/8|3", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "/worker-1/main|", DFN_M_COUNT), 2);
    cr_assert_eq(su_metric(s, r, "/worker-2/main|", DFN_M_COUNT), 1, "a name repeating the id is none");
    dfn_result_free(r);
    r = su_query(s, "posix", "arg.batch", "pid=7");
    cr_assert_eq(su_metric(s, r, "4", DFN_M_TIME_S), 40e-6);
    dfn_result_free(r);
    r = su_query(s, "posix", "func", "pid=worker-1 tid=main");
    cr_assert_eq(su_metric(s, r, "mark", DFN_M_TIME_S), 0);
    cr_assert_eq(su_metric(s, r, "step", DFN_M_TIME_S), 50e-6);
    dfn_result_free(r);
    dfn_cquery q = { .ndims = 0 };
    char err[256];
    cr_assert(dfn_cdims_parse("pid", q.dims, &q.ndims, err, sizeof err));
    dfn_cresult cr;
    cr_assert(dfn_counters_query(s, &q, &cr, err, sizeof err), "%s", err);
    cr_assert_eq(cr.nrows, 1);
    char key[64];
    dfn_crow_key_text(s, &cr, &cr.rows[0], 1, key, sizeof key);
    cr_assert_str_eq(key, "worker-1");
    cr_assert_eq(cr.rows[0].samples, 2);
    cr_assert_eq(cr.rows[0].sum, 120);
    dfn_cresult_free(&cr);
    dfn_store_free(s);
}

/* ---- counter metrics joined to calls (issue 17) ---- */

/* node01: pid 1 calls (reads [1.0, 1.4) and [1.2, 1.6) s, compute [2, 3)),
 * pid 9 samples without calls (host-wide: 1.1, 1.3, 1.7, 2.5 s); pid 1's
 * own sample at 1.5. node02: pid 2 writes [1.0, 2.0), samples at 1.5 and
 * 2.5. Times from the first call. */
static const char *join_trace =
    R({"name":"HH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"node01","value":"555"}})
    R({"name":"HH","cat":"dftracer","type":1,"pid":2,"tid":2,"ph":4,"args":{"name":"node02","value":"666"}})
    R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":400000,"ph":"X","args":{"hhash":"555","ret":1}})
    R({"name":"read","cat":"POSIX","pid":1,"tid":2,"ts":1200000,"dur":400000,"ph":"X","args":{"hhash":"555","ret":1}})
    R({"name":"compute","cat":"ai_framework","pid":1,"tid":1,"ts":2000000,"dur":1000000,"ph":"X","args":{"hhash":"555"}})
    R({"name":"write","cat":"POSIX","pid":2,"tid":2,"ts":1000000,"dur":1000000,"ph":"X","args":{"hhash":"666","ret":1}})
    R({"name":"cpu","cat":"sys","pid":9,"tid":9,"ts":1100000,"ph":2,"args":{"hhash":"555","iowait_pct":10}})
    R({"name":"cpu","cat":"sys","pid":9,"tid":9,"ts":1300000,"ph":2,"args":{"hhash":"555","iowait_pct":20}})
    R({"name":"cpu","cat":"sys","pid":9,"tid":9,"ts":1700000,"ph":2,"args":{"hhash":"555","iowait_pct":30}})
    R({"name":"cpu","cat":"sys","pid":9,"tid":9,"ts":2500000,"ph":2,"args":{"hhash":"555","iowait_pct":40}})
    R({"name":"cpu","cat":"sys","pid":1,"tid":1,"ts":1500000,"ph":2,"args":{"hhash":"555","iowait_pct":100}})
    R({"name":"cpu","cat":"sys","pid":2,"tid":2,"ts":1500000,"ph":2,"args":{"hhash":"666","iowait_pct":6}})
    R({"name":"cpu","cat":"sys","pid":2,"tid":2,"ts":2500000,"ph":2,"args":{"hhash":"666","iowait_pct":8}});

static double ctr_of(const dfn_store *s, const char *by, const char *where, double bin, int threads, const char *key)
{
    dfn_ctrs ctrs = { 0 };
    uint64_t metrics;
    char err[512];
    cr_assert(dfn_metrics_parse("count,ctr.cpu.iowait_pct", &metrics, &ctrs, err, sizeof err), "%s", err);
    dfn_filter f = { 0 };
    if (where) cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_query q = { .sort = -1, .bin_s = bin, .threads = threads, .metrics = metrics, .ctrs = &ctrs,
                    .filter = where ? &f : NULL };
    dfn_result *r = su_run(s, &q, by);
    cr_assert_eq(r->nctrs, 1);
    cr_assert_str_eq(dfn_result_metric_name(r, DFN_M_COUNT_), "ctr.cpu.iowait_pct");
    long row = *by ? su_row(s, r, key) : 0;
    cr_assert_geq(row, 0, "no row %s", key);
    double v = dfn_result_metric(r, (size_t)row, (dfn_metric)DFN_M_COUNT_);
    dfn_result_free(r);
    dfn_filter_free(&f);
    dfn_ctrs_free(&ctrs);
    return v;
}

/* The mean of the samples taken while a row's calls ran: on the calls'
 * process, or host-wide on their host; each sample once per row. */
Test(records, counter_means_while_the_calls_ran)
{
    dfn_store *s = su_load_text("join.pfw", join_trace, 1);
    for (int threads = 1; threads <= 4; threads++) {
        /* reads: 10 and 20 of the host (20 inside both), 100 of pid 1 */
        cr_expect_float_eq(ctr_of(s, "func", NULL, 0, threads, "read"), 130.0 / 3, 1e-9, "%d threads", threads);
        cr_expect_float_eq(ctr_of(s, "func", NULL, 0, threads, "compute"), 40, 1e-9);
        /* pid 2's own sample, not pid 1's at the same time */
        cr_expect_float_eq(ctr_of(s, "func", NULL, 0, threads, "write"), 6, 1e-9);
        cr_expect_float_eq(ctr_of(s, "", NULL, 0, threads, ""), (10 + 20 + 40 + 100 + 6) / 5.0, 1e-9);
        cr_expect_float_eq(ctr_of(s, "time", NULL, 1, threads, "0"), (10 + 20 + 100 + 6) / 4.0, 1e-9);
        cr_expect_float_eq(ctr_of(s, "time", NULL, 1, threads, "1"), 40, 1e-9);
        /* a window: the calls' parts inside it */
        cr_expect_float_eq(ctr_of(s, "func", "time>=0.5 time<0.8", 0, threads, "read"), 100, 1e-9);
        cr_expect_float_eq(ctr_of(s, "pid", NULL, 0, threads, "2"), 6, 1e-9);
    }
    /* a row without samples in its calls has no mean */
    cr_expect(isnan(ctr_of(s, "func", "time>=0.6 time<0.9", 0, 0, "write")), "the write's last part has no sample");
    dfn_ctrs ctrs = { 0 };
    uint64_t m;
    char err[512];
    cr_assert(dfn_metrics_parse("ctr.nope", &m, &ctrs, err, sizeof err));
    dfn_query q = { .sort = -1, .metrics = m, .ctrs = &ctrs };
    cr_expect_null(dfn_query_run(s, &q, err, sizeof err));
    cr_expect(strstr(err, "cpu.iowait_pct") != NULL, "names the series there are: %s", err);
    dfn_ctrs_free(&ctrs);
    cr_expect_not(dfn_metrics_parse("ctr.x", &m, NULL, err, sizeof err), "refused where there are none");
    dfn_store_free(s);
}

/* Counter values past 2^23 (memory in kB, byte counters) keep their
 * value: the fixed-point sum once went through a 64-bit rounding that
 * overflowed (every MemAvailable read -8388608). */
Test(records, counter_means_of_large_values)
{
    dfn_store *s = su_load_text("big.pfw",
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":100,"ph":"X","args":{"ret":1}})
        R({"name":"mem","cat":"sys","pid":1,"tid":1,"ts":1000050,"ph":"C","args":{"MemAvailable":104284573,"Bytes":1.5e18,"Neg":-3e12}})
        R({"name":"mem","cat":"sys","pid":1,"tid":1,"ts":1000060,"ph":"C","args":{"MemAvailable":104284574,"Bytes":1.5e18,"Neg":-3e12}}), 1);
    dfn_ctrs ctrs = { 0 };
    uint64_t m;
    char err[512];
    cr_assert(dfn_metrics_parse("ctr.mem.MemAvailable,ctr.mem.Bytes,ctr.mem.Neg", &m, &ctrs, err, sizeof err), "%s", err);
    dfn_query q = { .sort = -1, .metrics = m, .ctrs = &ctrs };
    dfn_result *r = su_run(s, &q, "");
    cr_assert_float_eq(dfn_result_metric(r, 0, (dfn_metric)DFN_M_COUNT_), 104284573.5, 1e-6);
    cr_assert_float_eq(dfn_result_metric(r, 0, (dfn_metric)(DFN_M_COUNT_ + 1)), 1.5e18, 1e3);
    cr_assert_float_eq(dfn_result_metric(r, 0, (dfn_metric)(DFN_M_COUNT_ + 2)), -3e12, 1e-3);
    dfn_result_free(r);
    dfn_ctrs_free(&ctrs);
    dfn_store_free(s);
}

/* max_proc is host/pid, with the slash where the host is unknown, as
 * --by proc's names begin: a bare "1" could be read as a pid column's. */
Test(review, max_proc_keeps_its_form_without_a_host)
{
    dfn_store *s = su_load_text("mp.pfw",
        R({"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000,"dur":30,"ph":"X","args":{"ret":4}})
        R({"name":"write","cat":"POSIX","pid":2,"tid":2,"ts":1000,"dur":20,"ph":"X","args":{"ret":4,"hostname":"h1"}}), 1);
    dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_MAX_PROC) };
    dfn_result *r = su_run(s, &q, "func");
    char buf[64];
    cr_assert_str_eq(dfn_result_metric_str(r, su_row_req(s, r, "read"), DFN_M_MAX_PROC, buf, sizeof buf), "/1");
    cr_assert_str_eq(dfn_result_metric_str(r, su_row_req(s, r, "write"), DFN_M_MAX_PROC, buf, sizeof buf), "h1/2");
    dfn_result_free(r);
    dfn_store_free(s);
}
