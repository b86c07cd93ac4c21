/* Comparing runs on hand-made traces whose truth is known: rows matched by
 * key across stores, absent rows (not zeros), the difference and ratio,
 * sorting by any run's column or the difference, time bins relative to
 * each run's start, calls of both runs, the CSV and JSON columns, and the
 * run names taken from the command line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/compare.h"
#include "dfnav/export.h"
#include "dfnav/run.h"
#include "dfnav/util.h"
#include "storeutil.h"
#include "testutil.h"

/* The base run: checkpoints to Lustre, one write each, and a read that
 * found the end of its file.
 * Times in µs from its start (1000). */
static const char *base_trace =
    "[\n"
    EV("write", "POSIX", 1, 1, 1000, 400, "\"fname\":\"/p/lustre2/ck/a.pt\",\"ret\":4000")
    EV("write", "POSIX", 1, 1, 1500, 600, "\"fname\":\"/p/lustre2/ck/b.pt\",\"ret\":6000")
    EV("read", "POSIX", 2, 2, 2100, 100, "\"fname\":\"/p/lustre2/data/x\",\"ret\":0")
    EV("close", "POSIX", 2, 2, 3200, 10, "\"fname\":\"/p/lustre2/data/x\"")
    "]\n";

/* The other run: a day later; the checkpoints moved to SSD with twice the
 * write calls, the read got 100 bytes, no close. */
static const char *ssd_trace =
    "[\n"
    EV("write", "POSIX", 1, 1, 86400001000, 100, "\"fname\":\"/l/ssd/ck/a.pt\",\"ret\":2000")
    EV("write", "POSIX", 1, 1, 86400001100, 100, "\"fname\":\"/l/ssd/ck/a.pt\",\"ret\":2000")
    EV("write", "POSIX", 1, 1, 86400001500, 150, "\"fname\":\"/l/ssd/ck/b.pt\",\"ret\":3000")
    EV("write", "POSIX", 1, 1, 86400001650, 150, "\"fname\":\"/l/ssd/ck/b.pt\",\"ret\":3000")
    EV("read", "POSIX", 2, 2, 86400002100, 300, "\"fname\":\"/p/lustre2/data/x\",\"ret\":100")
    "]\n";

static dfn_store *sa, *sb;
static const char *labels[2] = { "base", "ssd" };

static void setup(void)
{
    sa = su_load_text("base.pfw", base_trace, 1);
    sb = su_load_text("ssd.pfw", ssd_trace, 2);
}
static void teardown(void)
{
    dfn_store_free(sa);
    dfn_store_free(sb);
}

TestSuite(compare, .init = setup, .fini = teardown);

/* Runs "--by BY --where WHERE -m METRICS" (0: basic) on the first nruns
 * stores, matched; names NULL for a single run without names. */
static dfn_compare *cmp_query_n(size_t nruns, const char *const *names, const char *by, const char *where,
                                uint64_t metrics, int sort, int col, bool desc, size_t top)
{
    const dfn_store *stores[2] = { sa, sb };
    dfn_query q = { .metrics = metrics, .sort = sort, .desc = desc, .top = top };
    return su_compare(stores, nruns, names, q, by, where, col);
}

static dfn_compare *cmp_query(const char *by, const char *where, int sort, int col, bool desc, size_t top)
{
    return cmp_query_n(2, labels, by, where, 0, sort, col, desc, top);
}

static long row_of(const dfn_compare *c, const char *key)
{
    char buf[4096];
    for (size_t i = 0; i < c->nrows; i++) {
        size_t len;
        const char *t = dfn_compare_key_str(c, i, 0, buf, sizeof buf, &len);
        if (len == strlen(key) && memcmp(t, key, len) == 0) return (long)i;
    }
    return -1;
}

static size_t row_req(const dfn_compare *c, const char *key)
{
    long r = row_of(c, key);
    cr_assert_geq(r, 0, "no row %s", key);
    return (size_t)r;
}

Test(compare, rows_match_by_key_and_absent_is_not_zero)
{
    dfn_compare *c = cmp_query("func", NULL, DFN_M_TIME_S, 0, true, 0);
    cr_assert_eq(c->nrows, 3, "write, read and close");
    cr_assert_eq(c->matched, 4 + 5);
    size_t w = row_req(c, "write"), r = row_req(c, "read"), cl = row_req(c, "close");
    cr_assert_eq(dfn_compare_metric(c, w, 0, DFN_M_COUNT), 2);
    cr_assert_eq(dfn_compare_metric(c, w, 1, DFN_M_COUNT), 4, "twice the write calls");
    cr_assert_eq(dfn_compare_value(c, w, DFN_CMP_DIFF, DFN_M_COUNT), 2);
    cr_assert_eq(dfn_compare_value(c, w, DFN_CMP_RATIO, DFN_M_COUNT), 2);
    cr_assert_eq(dfn_compare_metric(c, w, 0, DFN_M_BYTES), 10000);
    cr_assert_eq(dfn_compare_metric(c, w, 1, DFN_M_BYTES), 10000, "same bytes in more calls");
    cr_assert_float_eq(dfn_compare_value(c, w, DFN_CMP_DIFF, DFN_M_TIME_S), 500e-6 - 1000e-6, 1e-12);
    cr_assert_float_eq(dfn_compare_value(c, w, DFN_CMP_RATIO, DFN_M_TIME_S), 0.5, 1e-12);
    cr_assert_float_eq(dfn_compare_value(c, r, DFN_CMP_RATIO, DFN_M_TIME_S), 3, 1e-12);
    /* close only in the base run: absent in the other, with no difference */
    cr_assert(dfn_compare_has(c, cl, 0));
    cr_assert_not(dfn_compare_has(c, cl, 1));
    cr_assert(isnan(dfn_compare_metric(c, cl, 1, DFN_M_COUNT)));
    cr_assert(isnan(dfn_compare_value(c, cl, DFN_CMP_DIFF, DFN_M_COUNT)));
    cr_assert(isnan(dfn_compare_value(c, cl, DFN_CMP_RATIO, DFN_M_COUNT)));
    cr_assert_eq(dfn_compare_rep(c, cl), 0);
    dfn_compare_free(c);
}

Test(compare, ratio_of_zero)
{
    dfn_compare *c = cmp_query("func", NULL, -1, 0, false, 0);
    size_t cl = row_req(c, "close"), r = row_req(c, "read");
    /* 0 -> 100 bytes is an unbounded ratio; the close moved no bytes */
    cr_assert_eq(dfn_compare_metric(c, cl, 0, DFN_M_BYTES), 0);
    cr_assert_eq(dfn_compare_value(c, r, DFN_CMP_RATIO, DFN_M_BYTES), INFINITY);
    cr_assert_eq(dfn_compare_value(c, r, DFN_CMP_DIFF, DFN_M_BYTES), 100);
    dfn_compare_free(c);
    /* 0 -> 0 has no ratio */
    c = cmp_query("func", "func=read bytes=0", -1, 0, false, 0);
    cr_assert_eq(c->nrows, 1);
    cr_assert_not(dfn_compare_has(c, 0, 1), "the other run's read moved bytes");
    dfn_compare_free(c);
    c = cmp_query("fs", "func=write|read", -1, 0, false, 0);
    size_t ssd = row_req(c, "/l/ssd");
    cr_assert_not(dfn_compare_has(c, ssd, 0), "no SSD in the base run");
    dfn_compare_free(c);
    c = cmp_query("class", "func=write", -1, 0, false, 0);
    size_t wr = row_req(c, "write");
    cr_assert_eq(dfn_compare_value(c, wr, DFN_CMP_RATIO, DFN_M_COUNT), 2);
    dfn_compare_free(c);
}

Test(compare, files_differ_between_runs)
{
    dfn_compare *c = cmp_query("file", "func=write", DFN_M_BYTES, 0, true, 0);
    cr_assert_eq(c->nrows, 4, "two Lustre files, two SSD files");
    size_t la = row_req(c, "/p/lustre2/ck/a.pt"), sa_ = row_req(c, "/l/ssd/ck/a.pt");
    cr_assert(dfn_compare_has(c, la, 0) && !dfn_compare_has(c, la, 1));
    cr_assert(!dfn_compare_has(c, sa_, 0) && dfn_compare_has(c, sa_, 1));
    /* sorted by the base run's bytes: its rows first, then those it lacks
     * by their largest value in any run */
    cr_assert_eq(row_req(c, "/p/lustre2/ck/b.pt"), 0);
    cr_assert_eq(la, 1);
    cr_assert_eq(row_req(c, "/l/ssd/ck/b.pt"), 2);
    cr_assert_eq(sa_, 3);
    dfn_compare_free(c);
}

Test(compare, sort_by_difference_and_ratio_and_top)
{
    dfn_compare *c = cmp_query("func", NULL, DFN_M_TIME_S, DFN_CMP_DIFF, true, 0);
    /* diff: read +200us, write -500us, close absent (last) */
    cr_assert_eq(row_req(c, "read"), 0);
    cr_assert_eq(row_req(c, "write"), 1);
    cr_assert_eq(row_req(c, "close"), 2);
    dfn_compare_sort(c, DFN_M_TIME_S, DFN_CMP_DIFF, false);
    cr_assert_eq(row_req(c, "write"), 0);
    cr_assert_eq(row_req(c, "read"), 1);
    cr_assert_eq(row_req(c, "close"), 2, "absent rows go last either way");
    dfn_compare_sort(c, DFN_M_COUNT, 1, true);
    cr_assert_eq(row_req(c, "write"), 0, "4 writes in the second run");
    dfn_compare_sort(c, -1, 0, false);
    cr_assert_eq(row_req(c, "close"), 0, "by key: close, read, write");
    cr_assert_eq(row_req(c, "write"), 2);
    dfn_compare_free(c);
    /* top applies to the matched rows, after sorting */
    c = cmp_query("func", NULL, DFN_M_TIME_S, DFN_CMP_RATIO, true, 1);
    cr_assert_eq(c->nrows, 1);
    cr_assert_eq(row_req(c, "read"), 0, "read took 3 times as long");
    dfn_compare_free(c);
}

Test(compare, time_bins_are_relative_to_each_run)
{
    /* 1 ms bins from each run's start: the base run spans 2210 us (3 bins),
     * the other 1400 us (2 bins); a bin past a run's end is absent there */
    dfn_query q[2];
    memset(q, 0, sizeof q);
    q[0].dims[0].kind = DFN_DIM_TIME;
    q[0].ndims = 1;
    q[0].bin_s = 0.001;
    q[0].sort = -1;
    q[1] = q[0];
    const dfn_store *stores[2] = { sa, sb };
    char err[256];
    dfn_compare *c = dfn_compare_run(stores, q, 2, 0, labels, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(c->nrows, 3);
    cr_assert_eq(dfn_compare_metric(c, 0, 0, DFN_M_COUNT), 2, "base writes at 0 and 500 us");
    cr_assert_eq(dfn_compare_metric(c, 0, 1, DFN_M_COUNT), 4, "ssd writes at 0-650 us");
    cr_assert_eq(dfn_compare_metric(c, 1, 0, DFN_M_COUNT), 1, "base read at 1100 us");
    cr_assert_eq(dfn_compare_metric(c, 1, 1, DFN_M_COUNT), 1, "ssd read at 1100 us");
    cr_assert_eq(dfn_compare_metric(c, 2, 0, DFN_M_COUNT), 1, "base close at 2200 us");
    cr_assert_not(dfn_compare_has(c, 2, 1), "the second run ended before 2 ms");
    dfn_compare_free(c);

    /* without a bin width both runs get the one the longer span chooses */
    q[0].bin_s = q[1].bin_s = 0;
    c = dfn_compare_run(stores, q, 2, 0, labels, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(c->res[0]->bin_s, c->res[1]->bin_s);
    cr_assert_float_eq(c->res[0]->bin_s, dfn_auto_bin(2210e-6), 1e-9);
    cr_assert_lt(c->res[0]->bin_s, 2210e-6, "several bins");
    dfn_compare_free(c);
}

Test(compare, calls_of_both_runs_in_time_order)
{
    dfn_compare *c = cmp_query("event", "func=read|write", -1, 0, false, 0);
    /* by time from each run's start; the same moment goes by run */
    static const struct { size_t run; uint64_t ts; } want[] = {
        { 0, 0 }, { 1, 0 }, { 1, 100 }, { 0, 500 }, { 1, 500 }, { 1, 650 }, { 0, 1100 }, { 1, 1100 } };
    cr_assert_eq(c->nrows, 8);
    for (size_t i = 0; i < 8; i++) {
        size_t k = dfn_compare_rep(c, i);
        cr_assert_eq(k, want[i].run, "row %zu", i);
        uint32_t ev = c->res[k]->events[c->row[i * 2 + k]];
        cr_assert_eq(dfn_store_ts(c->res[k]->store, ev), want[i].ts, "row %zu", i);
    }
    dfn_compare_free(c);
    c = cmp_query("event", "func=read|write", DFN_M_TIME_S, 0, true, 3);
    cr_assert_eq(c->nrows, 3, "the top of both runs together");
    cr_assert_eq(dfn_compare_rep(c, 0), 0, "the base write of 600 us");
    cr_assert_eq(dfn_compare_rep(c, 1), 0, "then its write of 400 us");
    cr_assert_eq(dfn_compare_rep(c, 2), 1, "then the other run's read of 300 us");
    dfn_compare_free(c);
}

Test(compare, csv_and_json_columns)
{
    uint64_t m = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_BYTES);
    dfn_compare *c = cmp_query_n(2, labels, "func", NULL, m, -1, 0, false, 0);
    char *csv = su_compare_text(c, DFN_FMT_CSV);
    cr_assert_str_eq(csv,
                     "func,count@base,count@ssd,count@diff,count@ratio,bytes@base,bytes@ssd,bytes@diff,bytes@ratio\r\n"
                     "close,1,,,,0,,,\r\n"
                     "read,1,1,0,1,0,100,100,inf\r\n"
                     "write,2,4,2,2,10000,10000,0,1\r\n");
    free(csv);
    char *json = su_compare_text(c, DFN_FMT_JSON);
    cr_assert(strstr(json, "{\"func\": \"close\", \"count@base\": 1, \"count@ssd\": null, \"count@diff\": null"),
              "absent is null: %s", json);
    free(json);
    dfn_compare_free(c);

    /* one run without names: plain columns, as dfnav report always wrote */
    dfn_compare *one = cmp_query_n(1, NULL, "func", NULL, m, -1, 0, false, 0);
    csv = su_compare_text(one, DFN_FMT_CSV);
    cr_assert_str_eq(csv, "func,count,bytes\r\nclose,1,0\r\nread,1,0\r\nwrite,2,10000\r\n");
    free(csv);
    dfn_compare_free(one);
}

Test(compare, table_for_people)
{
    dfn_compare *c = cmp_query_n(2, labels, "func", NULL, DFN_M_BIT(DFN_M_BYTES), -1, 0, false, 0);
    char *t = su_compare_text(c, DFN_FMT_TABLE);
    cr_assert_str_eq(t,
                     "func   bytes@base  bytes@ssd  bytes@diff  bytes@ratio\n"
                     "close          0B          -           -            -\n"
                     "read           0B       100B        100B          inf\n"
                     "write      9.8KiB     9.8KiB          0B            1\n");
    free(t);
    char *json = su_compare_text(c, DFN_FMT_JSON);
    cr_assert(strstr(json, "{\"func\": \"read\", \"bytes@base\": 0, \"bytes@ssd\": 100, \"bytes@diff\": 100, "
                           "\"bytes@ratio\": null}"), "JSON has no infinity: %s", json);
    free(json);
    dfn_compare_free(c);
}

Test(compare, run_names_from_arguments)
{
    char *args[] = { "base=/x/run1", "/data/ssd-run/", "/other/ssd-run", "t.pfw.gz", "a=b=c" };
    char *lab[5], *paths[5];
    char err[256];
    cr_assert(dfn_compare_runs_parse(args, 5, lab, paths, err, sizeof err), "%s", err);
    cr_assert_str_eq(lab[0], "base");
    cr_assert_str_eq(paths[0], "/x/run1");
    cr_assert_str_eq(lab[1], "ssd-run");
    cr_assert_str_eq(lab[2], "ssd-run-2", "a repeated name gets a number");
    cr_assert_str_eq(paths[2], "/other/ssd-run");
    cr_assert_str_eq(lab[3], "t");
    cr_assert_str_eq(lab[4], "a");
    cr_assert_str_eq(paths[4], "b=c");
    for (int i = 0; i < 5; i++) { free(lab[i]); free(paths[i]); }

    char *dup[] = { "x=/a", "x=/b" };
    cr_assert_not(dfn_compare_runs_parse(dup, 2, lab, paths, err, sizeof err));
    cr_assert(strstr(err, "two runs are named 'x'"), "%s", err);
    char *reserved[] = { "diff=/a", "b=/b" };
    cr_assert_not(dfn_compare_runs_parse(reserved, 2, lab, paths, err, sizeof err));
    cr_assert(strstr(err, "diff"), "%s", err);
    /* a default name that meets a given one gives way */
    char *meet[] = { "/p/base", "base=/q" };
    cr_assert(dfn_compare_runs_parse(meet, 2, lab, paths, err, sizeof err), "%s", err);
    cr_assert_str_eq(lab[0], "base-2");
    cr_assert_str_eq(lab[1], "base");
    for (int i = 0; i < 2; i++) { free(lab[i]); free(paths[i]); }
}

/* The runs module: the runs PATHs make with and without comparing, their
 * files found, and the preset a run without DLIO names takes when another
 * run has them (so a layer means the same phase in every run). */
Test(compare, runs_from_paths_and_shared_presets)
{
    char *dir = tu_tmpdir();
    const char *posix = EV("read", "POSIX", 1, 1, 10, 5, "\"fname\":\"/d/a\"");
    const char *dlio = EV("compute", "compute", 1, 1, 10, 5, "") EV("fetch.iter", "dataloader", 1, 1, 20, 5, "");
    char *p1 = tu_write_file(dir, "one.pfw", posix, strlen(posix));
    char *p2 = tu_write_file(dir, "two.pfw", dlio, strlen(dlio));
    char *named = dfn_xasprintf("ai=%s", p2);
    char *args[] = { p1, named, "/nonexistent/x.pfw" };
    char err[256];
    dfn_runspec *rs;
    size_t n;
    cr_assert(dfn_runs_parse(args, 3, false, &rs, &n, err, sizeof err), "%s", err);
    cr_assert_eq(n, 1, "without comparing every path is one run");
    cr_assert_null(rs[0].label);
    cr_assert_eq(rs[0].in.n, 1, "the NAME=PATH argument is a path of its own here");
    cr_assert_eq(rs[0].in.nerrors, 2);
    dfn_runs_free(rs, n);

    char *cargs[] = { p1, named };
    cr_assert(dfn_runs_parse(cargs, 2, true, &rs, &n, err, sizeof err), "%s", err);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(rs[0].label, "one");
    cr_assert_str_eq(rs[1].label, "ai");
    cr_assert_eq(rs[0].in.n, 1);
    cr_assert_str_eq(rs[1].in.paths[0], p2);
    char msg[512];
    cr_assert(dfn_runs_fit(rs, n, 1, 64, NULL, msg, sizeof msg), "%s", msg);
    dfn_runs_free(rs, n);
    char *clash[] = { "x=/a", "x=/b" };
    cr_assert_not(dfn_runs_parse(clash, 2, true, &rs, &n, err, sizeof err));
    cr_assert_eq(n, 0);

    dfn_store *a = su_load_text("p.pfw", posix, 1), *b = su_load_text("d.pfw", dlio, 1);
    cr_assert_str_eq(dfn_run_preset(a, NULL), "posix");
    cr_assert_str_eq(dfn_run_preset(a, "dlio"), "dlio", "a POSIX run takes the DLIO layers of another run");
    cr_assert_str_eq(dfn_run_preset(b, "dlio-legacy"), "dlio", "a DLIO run keeps its own flavour");
    dfn_run_opts ro = { .threads = 1 };
    dfn_runset set;
    cr_assert(dfn_runset_layers(&set, a, &ro, dfn_run_preset(a, "dlio"), err, sizeof err), "%s", err);
    cr_assert_str_eq(set.preset, "dlio");
    cr_assert(dfn_runset_analyse(&set, &ro, DFN_NEED_OVERLAP | DFN_NEED_TREE, err, sizeof err), "%s", err);
    cr_assert_not_null(set.an.overlap);
    cr_assert_not_null(set.an.tree);
    dfn_run run = dfn_runset_run(&set);
    cr_assert_eq(run.s, a);
    cr_assert_eq(run.ls, set.ls);
    ro.layers = "/nonexistent.layers";
    dfn_runset bad;
    cr_assert_not(dfn_runset_layers(&bad, b, &ro, NULL, err, sizeof err));
    cr_assert_null(bad.preset, "--layers names no preset");
    dfn_runset_free(&bad);   /* the store goes with it */
    dfn_runset_free(&set);
    free(named);
    free(p1);
    free(p2);
    free(dir);
}
