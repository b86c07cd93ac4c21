/* The analysis indexes and metrics on small traces worked out by hand:
 * exposed I/O against compute (per process and per host), the call tree
 * and self time (ties, zero-length calls, partial overlaps), sequential
 * versus random access through open, lseek, pread and STDIO, shared files,
 * the slowest process, size bins and the diagnostics. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/analysis.h"
#include "dfnav/diagnose.h"
#include "dfnav/overlap.h"
#include "dfnav/query.h"
#include "storeutil.h"

#define H "\"hostname\":\"n1\""

/* Process 1 (host n1): compute on thread 1 over [100, 200) and [300, 350);
 * reads on thread 2: [150, 250) half hidden, [260, 280) exposed, [320, 330)
 * hidden, [345, 365) 5 µs hidden. Process 2 (host n1): compute [500, 600),
 * a read [250, 300) that no compute covers. Process 3 (host n2): a read
 * [120, 140) during process 1's compute, which is on another host. */
static const char *overlap_trace =
    "[\n"
    EV("TorchFramework.compute", "ai_framework", 1, 1, 100, 100, H)
    EV("TorchFramework.compute", "ai_framework", 1, 1, 300, 50, H)
    EV("pread64", "POSIX", 1, 2, 150, 100, H ",\"fname\":\"/d/a\",\"ret\":10,\"fd\":3,\"offset\":0")
    EV("pread64", "POSIX", 1, 2, 260, 20, H ",\"fname\":\"/d/a\",\"ret\":10,\"fd\":3,\"offset\":10")
    EV("pread64", "POSIX", 1, 2, 320, 10, H ",\"fname\":\"/d/b\",\"ret\":10,\"fd\":4,\"offset\":50")
    EV("pread64", "POSIX", 1, 2, 345, 20, H ",\"fname\":\"/d/b\",\"ret\":10,\"fd\":4,\"offset\":60")
    EV("TorchFramework.compute", "ai_framework", 2, 2, 500, 100, H)
    EV("read", "POSIX", 2, 2, 250, 50, H ",\"fname\":\"/d/a\",\"ret\":4097,\"fd\":3")
    EV("read", "POSIX", 3, 3, 120, 20, "\"hostname\":\"n2\",\"fname\":\"/d/c\",\"ret\":5,\"fd\":3")
    "]\n";

static dfn_result *run(const dfn_store *s, dfn_layerset *ls, dfn_analysis *an, const char *by, const char *where,
                       uint64_t metrics)
{
    char err[512];
    dfn_filter f;
    cr_assert(dfn_filter_parse(where ? where : "", &f, err, sizeof err), "%s", err);
    dfn_query q = { .layers = ls, .filter = &f, .sort = -1, .metrics = metrics, .sizes = true };
    dfn_analysis_apply(an, &q);
    dfn_result *r = su_run(s, &q, by);
    dfn_filter_free(&f);
    return r;
}

#define ALL (DFN_M_BIT(DFN_M_COUNT_) - 1)

Test(overlap, exposed_io_from_the_intervals)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    dfn_layerset *ls = su_layerset(s, "dlio-legacy");
    char err[256];
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err));
    dfn_result *r = run(s, ls, &an, "pid", NULL, ALL);
    /* process 1: I/O union 100+20+10+20 = 150 µs; hidden 50 + 0 + 10 + 5 */
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_IO_BUSY_S), 150e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_EXPOSED_S), 85e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_COMPUTE_S), 150e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_OVERLAP_PCT), 100.0 * (1 - 85.0 / 150.0), 1e-9);
    /* process 2: its read is exposed; its compute is later */
    cr_assert_float_eq(su_metric(s, r, "2", DFN_M_EXPOSED_S), 50e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "3", DFN_M_EXPOSED_S), 20e-6, 1e-12);
    dfn_result_free(r);
    /* a row of compute only has no overlap to speak of */
    r = run(s, ls, &an, "func", NULL, ALL);
    cr_assert(isnan(su_metric(s, r, "TorchFramework.compute", DFN_M_OVERLAP_PCT)));
    dfn_result_free(r);
    dfn_analysis_free(&an);

    /* by host: process 2's read [250, 300) is still not under any compute
     * of host n1, but process 1's [260, 280) ... neither; host n2 has none */
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, true, DFN_NEED_OVERLAP, err, sizeof err));
    r = run(s, ls, &an, "host", NULL, DFN_M_OVERLAP);
    /* host n1: I/O union [150,300) + [320,330) + [345,365) = 180; hidden
     * [150,200) + [320,330) + [345,350) = 65 */
    cr_assert_float_eq(su_metric(s, r, "n1", DFN_M_IO_BUSY_S), 180e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "n1", DFN_M_EXPOSED_S), 115e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "n2", DFN_M_EXPOSED_S), 20e-6, 1e-12);
    dfn_result_free(r);
    dfn_analysis_free(&an);

    /* another compute definition: the read of process 2 as compute hides nothing of process 1 */
    cr_assert(dfn_analysis_build(&an, s, ls, "func=read", false, DFN_NEED_OVERLAP, err, sizeof err));
    r = run(s, ls, &an, "pid", NULL, DFN_M_OVERLAP);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_EXPOSED_S), 150e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "2", DFN_M_COMPUTE_S), 50e-6, 1e-12);
    dfn_result_free(r);
    dfn_analysis_free(&an);
    cr_assert_not(dfn_analysis_build(&an, s, ls, "dur>>1", false, DFN_NEED_OVERLAP, err, sizeof err));
    cr_assert(strstr(err, "compute"), "%s", err);
    dfn_store_free(s);
}

/* --io: what counts as I/O. Only the reads of /d/b: [320, 330) under
 * compute, [345, 365) 5 µs under it, so process 1 has 30 µs of I/O and 15
 * exposed, process 2 none (issue 17). */
Test(overlap, io_is_what_io_says)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    dfn_layerset *ls = su_layerset(s, "dlio-legacy");
    char err[256];
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
    cr_assert(dfn_analysis_set_io(&an, s, ls, "file=/d/b", err, sizeof err), "%s", err);
    dfn_result *r = run(s, ls, &an, "pid", NULL, DFN_M_OVERLAP);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_IO_BUSY_S), 30e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_EXPOSED_S), 15e-6, 1e-12);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_COMPUTE_S), 150e-6, 1e-12, "compute is still compute");
    cr_assert_float_eq(su_metric(s, r, "2", DFN_M_IO_BUSY_S), 0, 1e-12);
    dfn_result_free(r);
    /* a call as a row: I/O only when --io says so */
    r = run(s, ls, &an, "event", "func=read", DFN_M_OVERLAP);
    cr_assert_eq(r->nrows, 2);
    for (size_t row = 0; row < r->nrows; row++) cr_assert_eq(dfn_result_metric(r, row, DFN_M_IO_BUSY_S), 0);
    dfn_result_free(r);
    cr_assert_not(dfn_analysis_set_io(&an, s, ls, "nokey=1", err, sizeof err));
    cr_assert(strstr(err, "io: unknown key 'nokey'"), "%s", err);
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

/* Split sparklines (the explorer's by process, here by layer and by
 * function): each row's I/O per bin, and the compute of its processes in
 * the window. A call counts once in each layer it is in. Bins of 100 µs
 * from 100: the six reads put 50 + 20 (p1, p3) in the first, 50 + 20 + 50
 * in the second, 10 + 20 in the third; their processes compute 100 in the
 * first (p1), 50 in the third (p1) and 100 in the last (p2) of the
 * window, 250 µs in all. */
Test(overlap, split_sparklines_per_layer_and_function)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    dfn_layerset *ls = su_layerset(s, "dlio-legacy");
    char err[256];
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
    const double io[5] = { 70, 120, 30, 0, 0 }, cmp[5] = { 100, 0, 50, 0, 100 };
    for (int threads = 1; threads <= 2; threads++) {
        dfn_query q = { .layers = ls, .sort = -1, .threads = threads, .spark_bins = 5, .spark_split = true,
                        .metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_COMPUTE_S) };
        dfn_analysis_apply(&an, &q);
        dfn_result *r = su_run(s, &q, "layer");
        size_t reads = 0;
        for (size_t row = 0; row < r->nrows; row++) {
            if (dfn_result_metric(r, row, DFN_M_COUNT) != 6) continue;
            reads++;
            for (size_t b = 0; b < 5; b++) {
                cr_assert_eq(r->spark_io[row * 5 + b], io[b], "layer row %zu bin %zu: %g", row, b, r->spark_io[row * 5 + b]);
                cr_assert_eq(r->spark_cmp[row * 5 + b], cmp[b], "layer row %zu bin %zu: %g", row, b, r->spark_cmp[row * 5 + b]);
            }
            cr_assert_float_eq(dfn_result_metric(r, row, DFN_M_COMPUTE_S), 250e-6, 1e-12);
        }
        cr_assert_geq(reads, 1, "a layer of all the reads");
        dfn_result_free(r);
        /* by function, where each call is in one row: pread64 (process 1) */
        r = su_run(s, &q, "func");
        size_t row = su_row_req(s, r, "pread64");
        const double pio[5] = { 50, 70, 30, 0, 0 }, pcmp[5] = { 100, 0, 50, 0, 0 };
        for (size_t b = 0; b < 5; b++) {
            cr_assert_eq(r->spark_io[row * 5 + b], pio[b]);
            cr_assert_eq(r->spark_cmp[row * 5 + b], pcmp[b]);
        }
        dfn_result_free(r);
    }
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

/* A compute definition that matches no event (or none at all) leaves
 * compute, exposure and overlap undefined, never "all I/O exposed", and
 * says so; the diagnostics then do not judge exposure (issue 17). */
Test(overlap, compute_that_matches_nothing_is_undefined)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    dfn_layerset *ls = su_layerset(s, "posix");
    char err[256], note[512];
    const char *defs[] = { NULL, "func=nothing" };
    for (int k = 0; k < 2; k++) {
        dfn_analysis an = {0};
        cr_assert(dfn_analysis_build(&an, s, ls, defs[k], false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
        cr_assert_eq(dfn_overlap_ncompute(an.overlap), 0);
        cr_assert(dfn_overlap_note(an.overlap, false, note, sizeof note));
        cr_assert(strstr(note, "matched no event") && strstr(note, "--compute"), "%s", note);
        dfn_result *r = run(s, ls, &an, "pid", NULL, DFN_M_OVERLAP);
        cr_assert(isnan(su_metric(s, r, "1", DFN_M_COMPUTE_S)));
        cr_assert(isnan(su_metric(s, r, "1", DFN_M_EXPOSED_S)));
        cr_assert(isnan(su_metric(s, r, "1", DFN_M_OVERLAP_PCT)));
        cr_assert_float_eq(su_metric(s, r, "1", DFN_M_IO_BUSY_S), 150e-6, 1e-12, "I/O is still I/O");
        dfn_result_free(r);
        /* the calls as rows say the same */
        r = run(s, ls, &an, "event", NULL, DFN_M_OVERLAP);
        for (size_t row = 0; row < r->nrows; row++) {
            cr_assert(isnan(dfn_result_metric(r, row, DFN_M_EXPOSED_S)) && isnan(dfn_result_metric(r, row, DFN_M_COMPUTE_S)));
            cr_assert(!isnan(dfn_result_metric(r, row, DFN_M_IO_BUSY_S)));
        }
        dfn_result_free(r);
        dfn_thresholds th;
        dfn_thresholds_default(&th);
        dfn_findings *f = dfn_diagnose(s, ls, NULL, &(dfn_analysis){ .overlap = an.overlap }, &th, 1, err, sizeof err);
        cr_assert(f->no_compute);
        for (size_t i = 0; i < f->n; i++) cr_assert(f->v[i].rule != DFN_RULE_EXPOSED, "%s", f->v[i].figures);
        dfn_findings_free(f);
        dfn_analysis_free(&an);
    }
    /* one that matches: figures, and nothing to say */
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, "cat=ai_framework", false, DFN_NEED_OVERLAP, err, sizeof err), "%s", err);
    cr_assert_eq(dfn_overlap_ncompute(an.overlap), 3);
    cr_assert_not(dfn_overlap_note(an.overlap, false, note, sizeof note));
    dfn_result *r = run(s, ls, &an, "pid", NULL, DFN_M_OVERLAP);
    cr_assert_float_eq(su_metric(s, r, "1", DFN_M_EXPOSED_S), 85e-6, 1e-12);
    dfn_result_free(r);
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

Test(overlap, metrics_without_their_index_are_refused)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    char err[256];
    dfn_query q = { .metrics = DFN_M_BIT(DFN_M_EXPOSED_S) };
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    cr_assert(strstr(err, "compute definition"), "%s", err);
    q.metrics = DFN_M_BIT(DFN_M_SELF_S);
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    q.metrics = DFN_M_BIT(DFN_M_SEQ_PCT);
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    dfn_store_free(s);
}

/* One thread: run [0, 100) and f [0, 100), identical, f later in the file;
 * a [10, 50) and b [50, 90) inside; c [20, 30) inside a, and a zero-length d
 * at 30, which c contains by the rule (start and end within c's); e
 * [95, 120) runs past every other call and has no parent. */
static const char *tree_trace =
    "[\n"
    EV("run", "app", 1, 1, 0, 100, "")
    EV("a", "app", 1, 1, 10, 40, "")
    EV("c", "app", 1, 1, 20, 10, "")
    EV("d", "app", 1, 1, 30, 0, "")
    EV("b", "app", 1, 1, 50, 40, "")
    EV("e", "app", 1, 1, 95, 25, "")
    EV("f", "app", 1, 1, 0, 100, "")
    EV("other_thread", "app", 1, 2, 20, 10, "")
    "]\n";

static uint32_t event_named(const dfn_store *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func), name) == 0) return (uint32_t)i;
    cr_assert_fail("no event %s", name);
    return 0;
}

Test(calltree, parents_children_and_self_time)
{
    dfn_store *s = su_load_text("t.pfw", tree_trace, 1);
    dfn_calltree *t = dfn_calltree_build(s);
    uint32_t run_ = event_named(s, "run"), a = event_named(s, "a"), b = event_named(s, "b"), c = event_named(s, "c");
    uint32_t d = event_named(s, "d"), e = event_named(s, "e"), f = event_named(s, "f"), o = event_named(s, "other_thread");
    cr_assert_eq(dfn_calltree_parent(t, run_), DFN_NOID);
    cr_assert_eq(dfn_calltree_parent(t, f), run_, "identical intervals: the first in order is the parent");
    cr_assert_eq(dfn_calltree_parent(t, a), f);
    cr_assert_eq(dfn_calltree_parent(t, b), f);
    cr_assert_eq(dfn_calltree_parent(t, c), a);
    cr_assert_eq(dfn_calltree_parent(t, d), c, "a zero-length call at c's end lies within c");
    cr_assert_eq(dfn_calltree_parent(t, e), DFN_NOID, "a call that outlasts every other encloses nothing");
    cr_assert_eq(dfn_calltree_parent(t, o), DFN_NOID, "other threads are other trees");
    cr_assert_eq(dfn_calltree_self(t, run_), 0);
    cr_assert_eq(dfn_calltree_self(t, f), 20);
    cr_assert_eq(dfn_calltree_self(t, a), 30);
    cr_assert_eq(dfn_calltree_self(t, b), 40);
    cr_assert_eq(dfn_calltree_self(t, c), 10);
    cr_assert_eq(dfn_calltree_self(t, d), 0);
    cr_assert_eq(dfn_calltree_self(t, e), 25);
    uint32_t kids[8];
    size_t n = dfn_calltree_children(t, s, f, kids, 8);
    cr_assert_eq(n, 2);
    cr_assert_eq(kids[0], a);
    cr_assert_eq(kids[1], b);
    cr_assert_eq(dfn_calltree_children(t, s, f, kids, 1), 2, "the count goes beyond max");
    cr_assert_eq(kids[0], a);
    dfn_calltree_free(t);
    dfn_store_free(s);
}

/* Descriptor lanes: read() follows the position, lseek moves it, pread
 * carries its offset; fd 3 is reused after close + open; STDIO streams are
 * (process, file). */
static const char *access_trace =
    "[\n"
    EV("open64", "POSIX", 1, 1, 1, 1, "\"fname\":\"/x\",\"ret\":3")
    EV("read", "POSIX", 1, 1, 2, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":100")        /* seq: first at 0 */
    EV("read", "POSIX", 1, 1, 3, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":100")        /* seq: 100 */
    EV("lseek64", "POSIX", 1, 1, 4, 1, "\"fname\":\"/x\",\"fd\":3,\"offset\":500,\"whence\":0,\"ret\":500")
    EV("read", "POSIX", 1, 1, 5, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":\"100\"")    /* random: 500 after 200 */
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":6,\"args\":{\"offset\":9\n"   /* cut: not loaded */
    EV("pread64", "POSIX", 1, 1, 7, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":50,\"offset\":600") /* seq: 500+100 */
    EV("read", "POSIX", 1, 1, 8, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":10")          /* random: pos 600, last end 650 */
    EV("open64", "POSIX", 1, 1, 9, 1, "\"fname\":\"/y\",\"ret\":3")
    EV("write", "POSIX", 1, 1, 10, 1, "\"fname\":\"/y\",\"fd\":3,\"ret\":10")        /* seq: reopened at 0 */
    EV("fopen", "STDIO", 1, 1, 11, 1, "\"fname\":\"/z\"")
    EV("fread", "STDIO", 1, 1, 12, 1, "\"fname\":\"/z\",\"size\":1,\"ret\":8")        /* seq */
    EV("fread", "STDIO", 1, 1, 13, 1, "\"fname\":\"/z\",\"size\":1,\"ret\":8")        /* seq */
    EV("pread64", "POSIX", 2, 2, 14, 1, "\"fname\":\"/x\",\"fd\":3,\"ret\":5,\"offset\":7") /* another process: random */
    EV("stat", "POSIX", 1, 1, 15, 1, "\"fname\":\"/x\"")
    "]\n";

Test(access, sequential_and_random_calls)
{
    dfn_store *s = su_load_text("a.pfw", access_trace, 1);
    dfn_access *ax = dfn_access_build(s);
    const char *want = "SSRSRSSSR";   /* the judged calls in order */
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        dfn_access_kind a = dfn_access_of(ax, i);
        if (a == DFN_ACCESS_NONE) continue;
        cr_assert_lt(k, strlen(want));
        cr_assert_eq(a == DFN_ACCESS_SEQ ? 'S' : 'R', want[k], "judged call %zu (%s at %.0f us)", k,
                     dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func), (double)dfn_store_ts(s, i));
        k++;
    }
    cr_assert_eq(k, strlen(want));
    dfn_access_free(ax);
    dfn_store_free(s);
}

/* Arguments far down a wide record count as well: fd and offset after
 * 40 others judge the calls as they do on their own. */
Test(access, arguments_past_the_first_few_are_read)
{
#define PAD20 "\"a0\":0,\"a1\":0,\"a2\":0,\"a3\":0,\"a4\":0,\"a5\":0,\"a6\":0,\"a7\":0,\"a8\":0,\"a9\":0," \
              "\"b0\":0,\"b1\":0,\"b2\":0,\"b3\":0,\"b4\":0,\"b5\":0,\"b6\":0,\"b7\":0,\"b8\":0,\"b9\":0,"
#define PAD40 PAD20 "\"c0\":0,\"c1\":0,\"c2\":0,\"c3\":0,\"c4\":0,\"c5\":0,\"c6\":0,\"c7\":0,\"c8\":0,\"c9\":0," \
              "\"d0\":0,\"d1\":0,\"d2\":0,\"d3\":0,\"d4\":0,\"d5\":0,\"d6\":0,\"d7\":0,\"d8\":0,\"d9\":0,"
    static const char *wide_trace =
        "[\n"
        EV("pread64", "POSIX", 1, 1, 1, 1, PAD40 "\"fname\":\"/x\",\"fd\":3,\"ret\":100,\"offset\":0")   /* seq: first */
        EV("pread64", "POSIX", 1, 1, 2, 1, PAD40 "\"fname\":\"/x\",\"fd\":3,\"ret\":100,\"offset\":100") /* seq */
        EV("pread64", "POSIX", 1, 1, 3, 1, PAD40 "\"fname\":\"/x\",\"fd\":3,\"ret\":100,\"offset\":900") /* random */
        "]\n";
#undef PAD40
#undef PAD20
    dfn_store *s = su_load_text("w.pfw", wide_trace, 1);
    cr_assert_eq(s->n, 3u);
    dfn_access *ax = dfn_access_build(s);
    cr_assert_eq(dfn_access_of(ax, 0), DFN_ACCESS_SEQ);
    cr_assert_eq(dfn_access_of(ax, 1), DFN_ACCESS_SEQ);
    cr_assert_eq(dfn_access_of(ax, 2), DFN_ACCESS_RANDOM);
    dfn_access_free(ax);
    dfn_store_free(s);
}

Test(analysis, shared_files_slowest_process_and_sizes)
{
    dfn_store *s = su_load_text("o.pfw", overlap_trace, 1);
    dfn_layerset *ls = su_layerset(s, "dlio-legacy");
    char err[256];
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, NULL, false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err));
    dfn_result *r = run(s, ls, &an, NULL, NULL, ALL);
    /* /d/a from processes 1 and 2; /d/b and /d/c from one each */
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_FILES), 3);
    cr_assert_eq(dfn_result_metric(r, 0, DFN_M_SHARED_FILES), 1);
    /* process 1: compute 150 + reads 150 = 300 µs, the slowest */
    cr_assert_float_eq(dfn_result_metric(r, 0, DFN_M_MAX_PROC_S), 300e-6, 1e-12);
    char who[64];
    cr_assert_str_eq(dfn_result_metric_str(r, 0, DFN_M_MAX_PROC, who, sizeof who), "n1/1");
    /* 4097 bytes is the first size above 4 KiB */
    cr_assert_eq(r->sizes[0], 5);
    cr_assert_eq(r->sizes[1], 1);
    dfn_result_free(r);
    /* /d/a: process 1 read it for 120 µs, process 2 for 50 */
    r = run(s, ls, &an, "file", NULL, ALL);
    cr_assert_str_eq(dfn_result_metric_str(r, su_row_req(s, r, "/d/a"), DFN_M_MAX_PROC, who, sizeof who), "n1/1");
    cr_assert_eq(su_metric(s, r, "/d/a", DFN_M_SHARED_FILES), 1);
    cr_assert_eq(su_metric(s, r, "/d/b", DFN_M_SHARED_FILES), 0);
    /* /d/a: offsets 0 and 10 on process 1's fd 3, then process 2's first
     * read at position 0: all sequential */
    cr_assert_float_eq(su_metric(s, r, "/d/a", DFN_M_SEQ_PCT), 100, 1e-9);
    /* /d/b: offset 50 first (random), 60 after 50+10 (seq) */
    cr_assert_float_eq(su_metric(s, r, "/d/b", DFN_M_SEQ_PCT), 50, 1e-9);
    dfn_result_free(r);
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

Test(analysis, size_bins_are_right_closed)
{
    static const struct { uint64_t bytes; int bin; } cases[] = {
        {1, 0}, {4096, 0}, {4097, 1}, {16384, 1}, {16385, 2}, {65536, 2}, {1048576, 4}, {1048577, 5},
        {4ull << 30, 10}, {(4ull << 30) + 1, 11}, {UINT64_MAX, 11}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(dfn_sizebin(cases[i].bytes), cases[i].bin, "%llu bytes", (unsigned long long)cases[i].bytes);
}

Test(diagnose, rules_fire_with_their_figures)
{
    /* process 1 is all metadata (stat) with one tiny read; process 2 reads
     * small blocks randomly, none of it hidden */
    static const char *t =
        "[\n"
        EV("stat", "POSIX", 1, 1, 0, 900, "\"fname\":\"/m\"")
        EV("read", "POSIX", 1, 1, 1000, 100, "\"fname\":\"/m\",\"fd\":3,\"ret\":10")
        EV("pread64", "POSIX", 2, 2, 0, 400, "\"fname\":\"/r\",\"fd\":3,\"ret\":4096,\"offset\":8192")
        EV("pread64", "POSIX", 2, 2, 500, 400, "\"fname\":\"/r\",\"fd\":3,\"ret\":4096,\"offset\":0")
        EV("pwrite64", "POSIX", 2, 2, 1000, 10, "\"fname\":\"/w\",\"fd\":4,\"ret\":4096,\"offset\":0")
        "]\n";
    dfn_store *s = su_load_text("d.pfw", t, 1);
    char err[256];
    dfn_layerset *ls = su_layerset(s, "posix");
    dfn_analysis an = {0};
    /* compute that hides none of the reads (a definition that matched no
     * event would leave exposure undefined, not 100%) */
    cr_assert(dfn_analysis_build(&an, s, ls, "func=pwrite64", false, DFN_NEED_OVERLAP | DFN_NEED_ACCESS, err, sizeof err));
    dfn_thresholds th;
    dfn_thresholds_default(&th);
    dfn_findings *f = dfn_diagnose(s, ls, NULL, &an, &th, 1, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    bool meta_p1 = false, small_p2 = false, random_p2 = false, exposed_sel = false, imbalance_sel = false;
    for (size_t i = 0; i < f->n; i++) {
        const dfn_finding *x = &f->v[i];
        if (x->rule == DFN_RULE_METADATA && strcmp(x->where, "process 1") == 0) {
            meta_p1 = true;
            cr_assert_float_eq(x->value, 90, 1e-9);
            cr_assert(strstr(x->figures, "stat leads"), "%s", x->figures);
            cr_assert_str_eq(x->filter, "pid=1 class=metadata");
            cr_assert_str_eq(x->by, "op");
        }
        if (x->rule == DFN_RULE_SMALL_READS && strcmp(x->where, "process 2") == 0) {
            small_p2 = true;
            cr_assert_float_eq(x->value, 100.0 * 800 / 810, 1e-9);
        }
        if (x->rule == DFN_RULE_RANDOM && strcmp(x->where, "process 2") == 0) {
            random_p2 = true;   /* 8192 first (random), 0 after 12288 (random), write at 0 first (seq) */
            cr_assert_float_eq(x->value, 100.0 * 2 / 3, 1e-9);
        }
        if (x->rule == DFN_RULE_EXPOSED && x->scope == DFN_SCOPE_SELECTION) exposed_sel = true;
        if (x->rule == DFN_RULE_IMBALANCE && x->scope == DFN_SCOPE_SELECTION) {
            imbalance_sel = true;   /* 3 reads vs 1 write: 50% apart */
            cr_assert_float_eq(x->value, 50, 1e-9);
        }
    }
    cr_assert(meta_p1 && small_p2 && random_p2 && exposed_sel && imbalance_sel,
              "meta %d small %d random %d exposed %d imbalance %d", meta_p1, small_p2, random_p2, exposed_sel, imbalance_sel);
    dfn_findings_free(f);
    /* limits move the findings */
    cr_assert(dfn_thresholds_parse("metadata=95,random=70,small_size=1KiB", &th, err, sizeof err), "%s", err);
    cr_assert_float_eq(th.v[DFN_TH_SMALL_SIZE], 1024, 1e-9);
    f = dfn_diagnose(s, ls, NULL, &an, &th, 1, err, sizeof err);
    for (size_t i = 0; i < f->n; i++)
        cr_assert(f->v[i].rule != DFN_RULE_METADATA && f->v[i].rule != DFN_RULE_RANDOM &&
                  f->v[i].rule != DFN_RULE_SMALL_READS, "%s %s", f->v[i].where, dfn_rule_name(f->v[i].rule));
    dfn_findings_free(f);
    cr_assert_not(dfn_thresholds_parse("metadata=150", &th, err, sizeof err));
    cr_assert_not(dfn_thresholds_parse("nope=1", &th, err, sizeof err));
    cr_assert_not(dfn_thresholds_parse("small_size=big", &th, err, sizeof err));
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

/* The rules per row (issue 17): per time bin and per file, as DFAnalyzer
 * scores every view, each finding with the row's key and the terms that
 * select it; a small read cut by a window still counts its whole size. */
Test(diagnose, rules_per_time_range_and_file)
{
    /* µs from 0: bin 0 (1 ms) small reads of /s; bin 1 a 64 MiB read of /b
     * and stats of /m */
    static const char *t =
        "[\n"
        EV("read", "POSIX", 1, 1, 0, 300, "\"fname\":\"/s\",\"ret\":4096")
        EV("read", "POSIX", 1, 1, 400, 300, "\"fname\":\"/s\",\"ret\":4096")
        EV("read", "POSIX", 1, 1, 1000, 500, "\"fname\":\"/b\",\"ret\":67108864")
        EV("stat", "POSIX", 1, 1, 1600, 300, "\"fname\":\"/m\"")
        "]\n";
    dfn_store *s = su_load_text("rows.pfw", t, 1);
    char err[256];
    dfn_layerset *ls = su_layerset(s, "posix");
    dfn_analysis an = {0};
    cr_assert(dfn_analysis_build(&an, s, ls, "func=nothing", false, DFN_NEED_OVERLAP | DFN_NEED_ACCESS, err, sizeof err));
    dfn_thresholds th;
    dfn_thresholds_default(&th);
    for (int threads = 1; threads <= 2; threads++) {
        dfn_dim by = { .kind = DFN_DIM_TIME };
        dfn_findings *f = dfn_diagnose_rows(s, ls, NULL, &an, &th, &by, 0.001, threads, err, sizeof err);
        cr_assert_not_null(f, "%s", err);
        bool small0 = false, small1 = false, meta1 = false;
        for (size_t i = 0; i < f->n; i++) {
            const dfn_finding *x = &f->v[i];
            cr_assert_eq(x->scope, DFN_SCOPE_ROW);
            if (x->rule == DFN_RULE_SMALL_READS && strcmp(x->key, "0") == 0) {
                small0 = true;
                cr_assert_str_eq(x->where, "time 0-0.001 s");
                cr_assert_str_eq(x->filter, "time>=0 time<0.001 class=read");
            }
            small1 |= x->rule == DFN_RULE_SMALL_READS && strcmp(x->key, "0.001") == 0;
            if (x->rule == DFN_RULE_METADATA && strcmp(x->key, "0.001") == 0) {
                meta1 = true;   /* 300 of 800 µs: under 50%, so not */
            }
        }
        cr_assert(small0 && !small1 && !meta1, "small0 %d small1 %d meta1 %d", small0, small1, meta1);
        dfn_findings_free(f);
        by.kind = DFN_DIM_FILE;
        f = dfn_diagnose_rows(s, ls, NULL, &an, &th, &by, 0, threads, err, sizeof err);
        cr_assert_not_null(f, "%s", err);
        bool meta_m = false, small_s = false, small_b = false;
        for (size_t i = 0; i < f->n; i++) {
            const dfn_finding *x = &f->v[i];
            if (x->rule == DFN_RULE_METADATA && strcmp(x->key, "/m") == 0) {
                meta_m = true;
                cr_assert_str_eq(x->filter, "file=/m class=metadata");
                cr_assert_str_eq(x->where, "file /m");
            }
            small_s |= x->rule == DFN_RULE_SMALL_READS && strcmp(x->key, "/s") == 0;
            small_b |= x->rule == DFN_RULE_SMALL_READS && strcmp(x->key, "/b") == 0;
        }
        cr_assert(meta_m && small_s && !small_b, "meta /m %d small /s %d small /b %d", meta_m, small_s, small_b);
        dfn_findings_free(f);
    }
    /* a window that holds only the start of the big read: its size is whole */
    dfn_filter w;
    cr_assert(dfn_filter_parse("time>=0.001 time<0.001005", &w, err, sizeof err), "%s", err);   /* 5 µs: 0.64 MiB of it */
    dfn_findings *f = dfn_diagnose(s, ls, &w, &an, &th, 1, err, sizeof err);
    for (size_t i = 0; i < f->n; i++) cr_assert_neq(f->v[i].rule, DFN_RULE_SMALL_READS, "%s", f->v[i].figures);
    dfn_findings_free(f);
    dfn_filter_free(&w);
    dfn_dim ev = { .kind = DFN_DIM_EVENT };
    cr_assert_null(dfn_diagnose_rows(s, ls, NULL, &an, &th, &ev, 0, 1, err, sizeof err));
    dfn_analysis_free(&an);
    dfn_store_free(s);
}

/* Bytes read against written in a time bin are the call's share there,
 * as the finding's report shows them: the first 1 s bin holds a read of
 * 1,000 B and a quarter of a 2 s write of 10,000 B, so 1,000 against
 * 2,500 (42.9% apart), not against the write's whole 10,000 (81.8%). */
Test(diagnose, imbalance_of_a_time_bin_counts_the_bytes_in_it)
{
    static const char *t =
        "[\n"
        EV("read", "POSIX", 1, 1, 1000000, 100000, "\"fname\":\"/a\",\"ret\":1000")
        EV("write", "POSIX", 1, 1, 1500000, 2000000, "\"fname\":\"/b\",\"ret\":10000")
        "]\n";
    dfn_store *s = su_load_text("imb.pfw", t, 1);
    char err[256];
    dfn_layerset *ls = su_layerset(s, "posix");
    dfn_analysis an = {0};
    dfn_thresholds th;
    dfn_thresholds_default(&th);
    dfn_dim by = { .kind = DFN_DIM_TIME };
    dfn_findings *f = dfn_diagnose_rows(s, ls, NULL, &an, &th, &by, 1, 1, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    bool seen = false;
    for (size_t i = 0; i < f->n; i++) {
        const dfn_finding *x = &f->v[i];
        if (x->rule != DFN_RULE_IMBALANCE) continue;
        seen = true;
        cr_assert_float_eq(x->value, 100.0 * 1500 / 3500, 1e-9, "%s", x->figures);
        cr_assert(strstr(x->figures, "1000B read vs 2.4KiB written"), "%s", x->figures);
    }
    cr_assert(seen, "an imbalance in the first bin");
    dfn_findings_free(f);
    dfn_store_free(s);
}

/* Call paths: A [0,100) holds B [10,30) holding C [12,14), and B [40,60);
 * C [200,210) stands alone; thread 2 has its own A [0,5). Grouped by path,
 * filtered by a path exactly and by a glob, at 1 and 3 threads. */
Test(calltree, call_paths_group_and_filter)
{
    const char *text = EV("A", "app", 1, 1, 1000, 100, "") EV("B", "app", 1, 1, 1010, 20, "")
                       EV("C", "app", 1, 1, 1012, 2, "") EV("B", "app", 1, 1, 1040, 20, "")
                       EV("C", "app", 1, 1, 1200, 10, "") EV("A", "app", 1, 2, 1000, 5, "");
    dfn_store *s = su_load_text("paths.pfw", text, 1);
    dfn_calltree *t = dfn_calltree_build(s);
    cr_assert_eq(dfn_calltree_npaths(t), 4, "A, A;B, A;B;C and C");
    char buf[64];
    for (int threads = 1; threads <= 3; threads += 2) {
        dfn_query q = { .metrics = DFN_M_BIT(DFN_M_COUNT) | DFN_M_BIT(DFN_M_TIME_S) | DFN_M_BIT(DFN_M_SELF_S),
                        .tree = t, .threads = threads, .sort = -1 };
        dfn_result *r = su_run(s, &q, "path");
        cr_assert_eq(r->nrows, 4);
        cr_assert_eq(su_metric(s, r, "A", DFN_M_COUNT), 2, "both threads' A");
        cr_assert_float_eq(su_metric(s, r, "A", DFN_M_TIME_S), 105e-6, 1e-12);
        cr_assert_float_eq(su_metric(s, r, "A", DFN_M_SELF_S), 65e-6, 1e-12, "100 - 40 of B, and 5");
        cr_assert_eq(su_metric(s, r, "A;B", DFN_M_COUNT), 2);
        cr_assert_float_eq(su_metric(s, r, "A;B", DFN_M_TIME_S), 40e-6, 1e-12);
        cr_assert_eq(su_metric(s, r, "A;B;C", DFN_M_COUNT), 1);
        cr_assert_eq(su_metric(s, r, "C", DFN_M_COUNT), 1, "a C no call encloses is a path of its own");
        dfn_result_free(r);
        dfn_filter f;
        char err[256];
        cr_assert(dfn_filter_parse("path=A;B", &f, err, sizeof err), "%s", err);
        q.filter = &f;
        r = su_run(s, &q, "func");
        cr_assert_eq(r->nrows, 1);
        cr_assert_eq(su_metric(s, r, "B", DFN_M_COUNT), 2, "the calls of exactly that path");
        dfn_result_free(r);
        dfn_filter_free(&f);
        cr_assert(dfn_filter_parse("path~*;C", &f, err, sizeof err), "%s", err);
        r = su_run(s, &q, "path");
        cr_assert_eq(r->nrows, 1);
        cr_assert_eq(su_metric(s, r, "A;B;C", DFN_M_COUNT), 1, "the lone C's path has no ';'");
        dfn_result_free(r);
        dfn_filter_free(&f);
        /* path terms are tested together, through one table of the tree's
         * paths: with each other, beside a term of each call, listing the
         * calls; a call passes the scans as it passes the match */
        const struct { const char *where; size_t a, b, c, calls; } both[] = {
            { "path~A* path!=A", 0, 2, 1, 3 },
            { "path~A* dur>15", 1, 2, 0, 3 },
            { "path!=C func!=A", 0, 2, 1, 3 },
        };
        for (size_t k = 0; k < sizeof both / sizeof *both; k++) {
            cr_assert(dfn_filter_parse(both[k].where, &f, err, sizeof err), "%s", err);
            r = su_run(s, &q, "func");
            const char *fn[] = { "A", "B", "C" };
            size_t want[] = { both[k].a, both[k].b, both[k].c };
            for (int j = 0; j < 3; j++) {
                size_t row = 0;
                while (row < r->nrows && (dfn_result_key_text(s, r, row, 0, buf, sizeof buf), strcmp(buf, fn[j]))) row++;
                double got = row < r->nrows ? dfn_result_metric(r, row, DFN_M_COUNT) : 0;
                cr_assert_eq(got, (double)want[j], "%s: %s", both[k].where, fn[j]);
            }
            dfn_result_free(r);
            r = su_run(s, &q, "event");
            cr_assert_eq(r->nrows, both[k].calls, "%s: the calls listed", both[k].where);
            dfn_result_free(r);
            dfn_match *m = dfn_match_compile(s, NULL, &f, err, sizeof err);
            cr_assert_not_null(m, "%s", err);
            dfn_match_set_tree(m, t);
            size_t n = 0;
            for (size_t i = 0; i < s->n; i++) n += dfn_match_event(m, i);
            cr_assert_eq(n, both[k].calls, "%s, call by call", both[k].where);
            dfn_match_free(m);
            dfn_filter_free(&f);
        }
    }
    /* without the tree a path query is refused, not answered empty */
    dfn_query q = { .tree = NULL };
    dfn_filter f;
    char err[256];
    cr_assert(dfn_dims_parse("path", q.dims, &q.ndims, err, sizeof err));
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    cr_assert(strstr(err, "call tree"), "%s", err);
    dfn_dims_free(q.dims, q.ndims);
    cr_assert(dfn_filter_parse("path=A", &f, err, sizeof err));
    q.ndims = 0;
    q.filter = &f;
    cr_assert_null(dfn_query_run(s, &q, err, sizeof err));
    dfn_filter_free(&f);
    size_t c = 0;   /* the C that B holds: the 2 µs call */
    while (c < s->n && dfn_store_dur(s, c) != 2) c++;
    cr_assert_eq(dfn_calltree_path_text(t, s, dfn_calltree_path(t, c), buf, sizeof buf), 5);
    cr_assert_str_eq(buf, "A;B;C");
    cr_assert_eq(dfn_calltree_path_text(t, s, dfn_calltree_path(t, c), buf, 4), 3, "cut to the room");
    cr_assert_str_eq(buf, "A;B");
    dfn_calltree_free(t);
    dfn_store_free(s);
}

/* A ';' or '\' in a function's name is escaped in its path, so a function
 * named "a;b" is not the call b made by a. */
Test(calltree, path_names_with_separators_are_escaped)
{
    const char *text = EV("a;b", "app", 1, 1, 1000, 10, "") EV("a", "app", 1, 2, 1000, 10, "")
                       EV("b", "app", 1, 2, 1001, 2, "") EV("c\\\\d", "app", 1, 3, 1000, 1, "");
    dfn_store *s = su_load_text("semi.pfw", text, 1);
    dfn_calltree *t = dfn_calltree_build(s);
    dfn_query q = { .metrics = DFN_M_BIT(DFN_M_COUNT), .tree = t, .sort = -1 };
    dfn_result *r = su_run(s, &q, "path");
    cr_assert_eq(r->nrows, 4);
    cr_assert_eq(su_metric(s, r, "a\\;b", DFN_M_COUNT), 1);
    cr_assert_eq(su_metric(s, r, "a;b", DFN_M_COUNT), 1, "the call b in a");
    cr_assert_eq(su_metric(s, r, "c\\\\d", DFN_M_COUNT), 1);
    dfn_result_free(r);
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse("path='a\\;b'", &f, err, sizeof err), "%s", err);
    q.filter = &f;
    r = su_run(s, &q, "func");
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(su_metric(s, r, "a;b", DFN_M_COUNT), 1, "the function named a;b alone");
    dfn_result_free(r);
    dfn_filter_free(&f);
    dfn_calltree_free(t);
    dfn_store_free(s);
}
