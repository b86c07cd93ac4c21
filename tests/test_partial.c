/* Partial results: a set split by process into shares (as MPI ranks hold
 * it), each share's partial through its bytes, merged in any grouping of
 * shares, finishes into the rows of the whole set, exactly and in the same
 * order; and bytes that are not a partial are refused. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dfnav/counters.h"
#include "dfnav/evrows.h"
#include "dfnav/extract.h"
#include "dfnav/fsum.h"
#include "dfnav/partial.h"
#include "dfnav/util.h"
#include "bytebuf.h"
#include "storeutil.h"
#include "testutil.h"

#define NPROCS 7

/* One process's calls: reads of shared and own files that overlap across
 * processes, writes, calls without a file, an aggregated record, and a
 * long application call that covers others. Seeded: the same every run. */
/* Whether the processes name hosts (1-4 on h1, 5-7 on h2), and h1's and
 * h2's telemetry services (pids 101 and 105, written with processes 1
 * and 5) sample a counter without making a call. */
static bool g_hosts;
/* Whether process 4's tids are names ("w40" and "io"; a "21" would read
 * as the number), and process 5's "io" and 21: rows of one tid, named and
 * numbered, from two shares; and processes 2 and 3 are named "w2" and
 * "a3" (by name, 3 goes first): their sums and spread travel keyed by
 * the name's text, not by an id of one share's strings. */
static bool g_named;

/* Process pid's pid and its tid pid * 10 + k as the lines give them. */
static void id_texts(int pid, char pids[16], char tids[2][16])
{
    snprintf(pids, 16, "%d", pid);
    for (int k = 0; k < 2; k++) snprintf(tids[k], 16, "%d", pid * 10 + k);
    if (g_named && (pid == 2 || pid == 3)) snprintf(pids, 16, "\"%s%d\"", pid == 2 ? "w" : "a", pid);
    if (g_named && pid == 4) snprintf(tids[0], 16, "\"w40\""), snprintf(tids[1], 16, "\"io\"");
    if (g_named && pid == 5) snprintf(tids[0], 16, "\"io\""), snprintf(tids[1], 16, "21");
}

static void proc_lines(char **text, size_t *len, size_t *cap, int pid, unsigned *seed)
{
    static const char *funcs[] = { "read", "pread64", "write", "open64", "__xstat64" };
    static const char *files[] = { "/shared/a.h5", "/shared/b.h5", "/own/c", "/own/d", "" };
    char line[512];
    const char *host = !g_hosts ? "" : pid <= 4 ? "\"hostname\":\"h1\"," : "\"hostname\":\"h2\",";
    char pids[16], tids[2][16];
    id_texts(pid, pids, tids);
    for (int k = 0; k < 40; k++) {
        const char *fn = funcs[rand_r(seed) % 5];
        int fi = rand_r(seed) % 5;
        unsigned ts = 1000 + (unsigned)(rand_r(seed) % 20000), dur = (unsigned)(rand_r(seed) % 900);
        char fname[64] = "";
        if (*files[fi]) snprintf(fname, sizeof fname, "\"fname\":\"%s%s\",", files[fi], fi >= 2 ? (pid % 2 ? "1" : "2") : "");
        int n = snprintf(line, sizeof line,
                         "{\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":%s,\"tid\":%s,\"ts\":%u,\"dur\":%u,\"ph\":\"X\","
                         "\"args\":{%s%s\"ret\":%d}}\n",
                         fn, pids, tids[k % 2], ts, dur, host, fname, (rand_r(seed) % 4) * 4096 + (k % 3));
        dfn_grow((void **)text, cap, *len + (size_t)n + 1, 1);
        memcpy(*text + *len, line, (size_t)n + 1);
        *len += (size_t)n;
    }
    /* processes 6 and 7 read thousands of files, many of them both, in
     * sizes they share: groupings by file and by size then have more rows
     * than keep dense accumulators, and the rest, with two processes,
     * files and latencies, keep theirs in the query's sparse maps */
    for (int k = 0; pid >= 6 && k < 4700; k++) {
        int n = snprintf(line, sizeof line,
                         "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\","
                         "\"args\":{%s\"fname\":\"/many/%d\",\"ret\":%d}}\n",
                         pid, pid * 10, 30000 + k * 3 + pid, 2 + rand_r(seed) % 9, host, k + (pid - 6) * 2000, k * 8 + 1);
        dfn_grow((void **)text, cap, *len + (size_t)n + 1, 1);
        memcpy(*text + *len, line, (size_t)n + 1);
        *len += (size_t)n;
    }
    /* odd processes sample a counter (2.x), between and during their
     * calls: a share of even ones has no such series */
    int own = pid % 2 ? 12 : 0, service = g_hosts && (pid == 1 || pid == 5) ? 10 : 0;
    for (int k = 0; k < own + service; k++) {
        bool tele = k >= own;   /* (the host's telemetry service's) */
        char tpid[16];
        snprintf(tpid, sizeof tpid, "%d", pid + 100);
        int n = snprintf(line, sizeof line,
                         "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":%s,\"tid\":%d,\"ts\":%d,\"ph\":2,\"type\":7,"
                         "\"args\":{%s\"user_pct\":%d.1}}\n",   /* (tenths: sums that round by order) */
                         tele ? tpid : pids, tele ? pid + 100 : pid * 10, 1000 + k * 1700 + pid * 13 + (tele ? 850 : 0),
                         host, (int)(rand_r(seed) % 90));
        dfn_grow((void **)text, cap, *len + (size_t)n + 1, 1);
        memcpy(*text + *len, line, (size_t)n + 1);
        *len += (size_t)n;
    }
    int n = snprintf(line, sizeof line,
                     "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"type\":3,\"pid\":%s,\"tid\":%s,\"ts\":%d,\"ph\":3,"
                     "\"args\":{%s\"dft_cnt\":%d,\"dur_sum\":%d,\"dur_max\":%d,\"ret_sum\":%d}}\n"
                     "{\"name\":\"TorchFramework.compute\",\"cat\":\"ai_framework\",\"pid\":%s,\"tid\":%s,\"ts\":%d,"
                     "\"dur\":%d,\"ph\":\"X\",\"args\":{%s\"epoch\":%d}}\n",
                     pids, tids[0], 5000 + pid * 100, host, 3 + pid, 400 + pid, 150, 1000 * pid,
                     pids, tids[0], 2000 + pid * 700, 3000, host, pid % 3);
    dfn_grow((void **)text, cap, *len + (size_t)n + 1, 1);
    memcpy(*text + *len, line, (size_t)n + 1);
    *len += (size_t)n;
}

/* The trace of the processes whose bit is set in mask. */
static char *trace_of(unsigned mask)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    dfn_grow((void **)&text, &cap, 2, 1);
    text[0] = 0;
    for (int pid = 1; pid <= NPROCS; pid++) {
        unsigned seed = 77u * (unsigned)pid;   /* a process's calls whatever share it is in */
        if (mask >> pid & 1) proc_lines(&text, &len, &cap, pid, &seed);
    }
    return text;
}

static dfn_store *load_share(unsigned mask, int threads)
{
    char name[32];
    snprintf(name, sizeof name, "share%x.pfw", mask);
    char *text = trace_of(mask);
    dfn_store *s = su_load_text(name, text, threads);
    free(text);
    cr_assert(s);
    return s;
}

static const uint64_t all_mergeable = DFN_M_BASIC | DFN_M_BIT(DFN_M_AGG_CALLS) | DFN_M_BIT(DFN_M_MIN_PROC_S) |
    DFN_M_BIT(DFN_M_MEAN_PROC_S) | DFN_M_BIT(DFN_M_STD_PROC_S) | DFN_M_BIT(DFN_M_MAX_PROC_BYTES) |
    DFN_M_BIT(DFN_M_MEAN_PROC_BYTES) | DFN_M_BIT(DFN_M_SIZE_MEAN) | DFN_M_BIT(DFN_M_SIZE_P50) |
    DFN_M_BIT(DFN_M_SIZE_MIN) | DFN_M_BIT(DFN_M_SIZE_MAX) | DFN_M_BIT(DFN_M_ACTIVE) | DFN_M_BIT(DFN_M_MAX_PROC) |
    DFN_M_BIT(DFN_M_IDLE_S) | DFN_M_BIT(DFN_M_SHARED_FILES);

/* Rows of the same keys, metrics and max_proc, in the same order. */
static void same_result(const dfn_store *s, const dfn_result *whole, const dfn_result *merged, const char *what)
{
    cr_assert_eq(whole->nrows, merged->nrows, "%s: %zu rows and %zu", what, whole->nrows, merged->nrows);
    cr_assert_eq(whole->matched, merged->matched, "%s", what);
    cr_assert_eq(whole->matched_calls, merged->matched_calls, "%s", what);
    cr_assert_eq(whole->total_time_s, merged->total_time_s, "%s", what);
    cr_assert_eq(whole->overflow_rows, merged->overflow_rows, "%s", what);
    for (size_t row = 0; row < whole->nrows; row++) {
        char a[256], b[256];
        for (size_t d = 0; d < whole->ndims; d++) {
            dfn_result_key_text(s, whole, row, d, a, sizeof a);
            dfn_result_key_text(NULL, merged, row, d, b, sizeof b);
            cr_assert_str_eq(a, b, "%s: row %zu, key %zu", what, row, d);
        }
        for (int m = 0; m < DFN_M_COUNT_; m++) {
            double x = dfn_result_metric(whole, row, m), y = dfn_result_metric(merged, row, m);
            if (m == DFN_M_MAX_PROC) {
                dfn_result_metric_str(whole, row, m, a, sizeof a);
                dfn_result_metric_str(merged, row, m, b, sizeof b);
                cr_assert_str_eq(a, b, "%s: row %zu, max_proc: %s and %s", what, row, a, b);
                continue;
            }
            cr_assert(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)), "%s: row %zu (%s), %s: %.17g and %.17g",
                      what, row, a, dfn_metric_name(m), x, y);
        }
        cr_assert_eq(whole->nctrs, merged->nctrs, "%s: counters", what);
        for (size_t k = 0; k < whole->nctrs; k++) {
            double x = whole->ctr[row * whole->nctrs + k], y = merged->ctr[row * merged->nctrs + k];
            cr_assert(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)), "%s: row %zu, %s: %.17g and %.17g", what,
                      row, whole->ctr_names[k], x, y);
            cr_assert_eq(whole->ctr_samples[row * whole->nctrs + k], merged->ctr_samples[row * merged->nctrs + k],
                         "%s: row %zu, samples of %s", what, row, whole->ctr_names[k]);
            cr_assert_str_eq(whole->ctr_names[k], merged->ctr_names[k]);
        }
        cr_assert_eq(whole->spark_bins, merged->spark_bins, "%s: sparkline bins", what);
        const double *lines[3][2] = { { whole->spark, merged->spark }, { whole->spark_io, merged->spark_io },
                                      { whole->spark_cmp, merged->spark_cmp } };
        for (int k = 0; k < 3; k++) {
            cr_assert_eq(!lines[k][0], !lines[k][1], "%s: sparkline %d", what, k);
            for (size_t bin = 0; lines[k][0] && bin < whole->spark_bins; bin++) {
                double x = lines[k][0][row * whole->spark_bins + bin], y = lines[k][1][row * merged->spark_bins + bin];
                cr_assert(memcmp(&x, &y, sizeof x) == 0, "%s: row %zu, sparkline %d, bin %zu: %.17g and %.17g", what,
                          row, k, bin, x, y);
            }
        }
        cr_assert_eq(!whole->sizes, !merged->sizes, "%s: size bins", what);
        for (int bin = 0; whole->sizes && bin < DFN_SIZEBIN_COUNT; bin++)
            cr_assert_eq(whole->sizes[row * DFN_SIZEBIN_COUNT + bin], merged->sizes[row * DFN_SIZEBIN_COUNT + bin],
                         "%s: row %zu, size bin %d", what, row, bin);
    }
    cr_assert_eq(!whole->spark_total, !merged->spark_total, "%s: the sparklines' total", what);
    for (size_t b = 0; whole->spark_total && b < whole->spark_bins; b++)
        cr_assert(memcmp(&whole->spark_total[b], &merged->spark_total[b], sizeof(double)) == 0,
                  "%s: total of sparkline bin %zu: %.17g and %.17g", what, b, whole->spark_total[b], merged->spark_total[b]);
}

/* check_split's queries ask for sparklines of this many bins too, */
static size_t g_spark;
/* split into compute and I/O (with g_compute), */
static bool g_split;
/* and keep only the metrics they ask for (the explorer's facts) */
static bool g_asked;
/* check_split's queries ask for transfer-size bins too. */
static bool g_sizes;
/* and, when set, for the analysis metrics with this compute definition */
static const char *g_compute;
/* and, when set, for these counter metrics */
static const dfn_ctrs *g_ctrs;
#define ANALYSIS_METRICS (DFN_M_OVERLAP | DFN_M_BIT(DFN_M_SELF_S) | DFN_M_BIT(DFN_M_SEQ_PCT))

/* Points q at a's analysis of s, built as report builds it. */
static void analyse(dfn_analysis *a, const dfn_store *s, dfn_query *q)
{
    char err[256];
    memset(a, 0, sizeof *a);
    unsigned need = (g_compute ? dfn_analysis_needs(q->metrics) : 0) | (dfn_query_inherits(q) ? DFN_NEED_TREE : 0);
    if (!need) return;
    cr_assert(dfn_analysis_build(a, s, q->layers, g_compute, false, need, err, sizeof err), "%s", err);
    dfn_analysis_apply(a, q);
}

/* p (spent) after a trip through its bytes. With DFN_SEED_DIR set, the
 * bytes are also written there, a file each: fuzz_partial's seeds are
 * made again so when PARTIAL_VERSION changes (tests/fuzz/seeds/). */
static dfn_partial *partial_trip(dfn_partial *p)
{
    char err[256];
    size_t len;
    uint8_t *bytes = dfn_partial_encode(p, &len);
    const char *seeds = getenv("DFN_SEED_DIR");
    if (seeds) {
        static unsigned n;
        char path[512];
        snprintf(path, sizeof path, "%s/%u-%u.bin", seeds, (unsigned)getpid(), n++);
        FILE *f = fopen(path, "wb");
        cr_assert(f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0, "%s", path);
    }
    dfn_partial_free(p);
    p = dfn_partial_decode(bytes, len, err, sizeof err);
    cr_assert(p, "%s", err);
    free(bytes);
    return p;
}

/* A share's partial after a trip through its bytes. */
static dfn_partial *partial_of(const dfn_store *s, const dfn_query *q)
{
    char err[256];
    dfn_partial *p = dfn_query_partial(s, q, err, sizeof err);
    cr_assert(p, "%s", err);
    return partial_trip(p);
}

/* The whole set against its shares (masks of processes), merged left to right. */
static void check_split(const unsigned *masks, size_t n, const char *by, const char *where, int sort, bool desc,
                        size_t top, int threads)
{
    dfn_store *whole = load_share(0xffu, 1);
    dfn_store *share[NPROCS];
    for (size_t k = 0; k < n; k++) {
        share[k] = load_share(masks[k], threads);
        /* spanning the set, as MPI's shares do: its time bins and terms */
        cr_assert(dfn_store_rebase(share[k], whole->t0, whole->t1));
    }
    dfn_filter f;
    char err[256], what[256];
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_query q = { .sort = sort, .desc = desc, .top = top, .metrics = all_mergeable, .filter = &f, .threads = 1,
                    .sizes = g_sizes, .spark_bins = g_spark, .spark_split = g_split, .asked_only = g_asked };
    if (g_compute) q.metrics |= ANALYSIS_METRICS;
    q.ctrs = g_ctrs;
    cr_assert(dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err), "%s", err);
    q.layers = su_layerset(whole, "posix");
    dfn_analysis an, san;
    analyse(&an, whole, &q);
    dfn_result *r = dfn_query_run(whole, &q, err, sizeof err);
    cr_assert(r, "%s", err);
    dfn_partial *acc = NULL;
    for (size_t k = 0; k < n; k++) {
        dfn_query qk = q;
        qk.threads = threads;
        qk.layers = su_layerset(share[k], "posix");
        qk.share = true;   /* (a share of even processes has no counter series) */
        analyse(&san, share[k], &qk);
        dfn_partial *p = partial_of(share[k], &qk);
        dfn_analysis_free(&san);
        if (!acc) acc = p;
        else cr_assert(dfn_partial_merge(acc, p, err, sizeof err), "%s", err);
    }
    dfn_result *m = dfn_partial_finish(acc, &q, dfn_layerset_layers(q.layers), err, sizeof err);
    cr_assert(m, "%s", err);
    snprintf(what, sizeof what, "by '%s' where '%s' in %zu shares, %d threads, sort %d%s top %zu", by, where, n,
             threads, sort, desc ? " desc" : "", top);
    same_result(whole, r, m, what);
    dfn_result_free(r);
    dfn_result_free(m);
    dfn_analysis_free(&an);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    for (size_t k = 0; k < n; k++) dfn_store_free(share[k]);
    dfn_store_free(whole);
}

/* Busy time through slices of time, as MPI ranks gather it: each
 * share's segments cut at the slices' edges, each slice's united, the
 * shares merged without segments. Edges at every quarter of the set's
 * span cut calls in two. */
static void check_sliced(const unsigned *masks, size_t n, const char *by, size_t nslices)
{
    dfn_store *whole = load_share(0xffu, 1);
    dfn_store *share[NPROCS];
    char err[256];
    dfn_query q = { .sort = -1, .metrics = all_mergeable, .threads = 1, .sizes = g_sizes, .ctrs = g_ctrs };
    cr_assert(dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err), "%s", err);
    dfn_result *r = dfn_query_run(whole, &q, err, sizeof err);
    cr_assert(r, "%s", err);
    q.share = true;   /* (the shares') */
    dfn_partial *p[NPROCS], *slice[8] = {0};
    uint64_t edge[9];
    edge[0] = 0;
    edge[nslices] = UINT64_MAX;
    for (size_t k = 1; k < nslices; k++) edge[k] = whole->t0 + (whole->t1 - whole->t0) * k / nslices;
    for (size_t j = 0; j < n; j++) {
        share[j] = load_share(masks[j], 1);
        cr_assert(dfn_store_rebase(share[j], whole->t0, whole->t1));   /* (as MPI's shares) */
        p[j] = partial_of(share[j], &q);
        for (size_t k = 0; k < nslices; k++) {
            dfn_partial *cut = dfn_partial_slice(p[j], edge[k], edge[k + 1]);
            if (!slice[k]) slice[k] = cut;
            else cr_assert(dfn_partial_merge(slice[k], cut, err, sizeof err), "%s", err);
        }
        dfn_partial_drop_segs(p[j]);
    }
    for (size_t k = 0; k < nslices; k++) {
        dfn_partial_sum_busy(slice[k]);
        cr_assert(dfn_partial_merge(p[0], slice[k], err, sizeof err), "%s", err);
    }
    for (size_t j = 1; j < n; j++) cr_assert(dfn_partial_merge(p[0], p[j], err, sizeof err), "%s", err);
    cr_assert(p[0]->log.n == 0, "no segment left to unite: the slices hold the busy time");
    dfn_result *m = dfn_partial_finish(p[0], &q, NULL, err, sizeof err);
    cr_assert(m, "%s", err);
    char what[128];
    snprintf(what, sizeof what, "by '%s' in %zu shares and %zu slices", by, n, nslices);
    same_result(whole, r, m, what);
    dfn_result_free(r);
    dfn_result_free(m);
    dfn_dims_free(q.dims, q.ndims);
    for (size_t j = 0; j < n; j++) dfn_store_free(share[j]);
    dfn_store_free(whole);
}

/* Processes 1-7 (bits 1-7) in two, three and seven shares, and one share of all. */
static const unsigned halves[] = { 0x2a, 0xd4 }, thirds[] = { 0x92, 0x24, 0x48 };
static const unsigned each[] = { 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80 }, one[] = { 0xfe };

Test(partial, shares_merge_into_the_whole_sets_rows)
{
    const char *bys[] = { "", "func", "file", "proc", "cat", "layer", "sizebin", "size", "class,op", "func,file",
                          "own.fname", "dir", "host" };
    const char *wheres[] = { "", "cat=POSIX", "func!=write file~shared" };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
            check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
            check_split(thirds, 3, bys[b], wheres[w], -1, false, 0, 2);
        }
    check_split(each, 7, "func", "", -1, false, 0, 1);
    check_split(each, 7, "file", "", -1, false, 0, 2);
    check_split(one, 1, "func,file", "", -1, false, 0, 1);
}

/* Pids and tids merge by their number or name (names after numbers, as
 * in the whole set), call paths by their text, in the tree's order: of
 * shares of whole processes, as MPI's plan makes them. */
Test(partial, pids_tids_and_call_paths_merge)
{
    const char *bys[] = { "pid", "tid", "path", "pid,tid", "host,pid", "path,file", "func,tid" };
    const char *wheres[] = { "", "cat=POSIX", "func!=write file~shared" };
    for (int named = 0; named < 2; named++) {
        g_named = named;
        for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
            for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
                check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
                check_split(thirds, 3, bys[b], wheres[w], DFN_M_COUNT, true, 5, 2);
            }
        check_split(each, 7, "tid", "", -1, true, 0, 1);
        check_split(each, 7, "path", "", -1, true, 0, 2);
    }
    /* the named ids were there to merge (process 4 is in halves[1]) */
    g_named = true;
    dfn_store *s = load_share(halves[1], 1);
    char err[256];
    dfn_query q = { .sort = -1, .metrics = DFN_M_BASIC };
    cr_assert(dfn_dims_parse("tid", q.dims, &q.ndims, err, sizeof err));
    dfn_result *r = dfn_query_run(s, &q, err, sizeof err);
    cr_assert(r, "%s", err);
    size_t named = 0;
    for (size_t row = 0; row < r->nrows; row++) named += dfn_id_named(r->ints[dfn_result_key(r, row, 0)->id]);
    cr_assert_eq(named, 2, "tids w40 and io of process 4");
    dfn_result_free(r);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(s);
    g_named = false;
}

/* What a rank sends as a pid: '#' and a number, '=' and a name; anything
 * else (a hostile or damaged rank's) is a name shown as sent, never a
 * number it does not spell, and the rows sort numbers first. */
Test(partial, pid_texts_read_back)
{
    static const struct { const char *sent, *shown; } cases[] = {
        { "#5", "5" }, { "#-5", "-5" }, { "#9223372036854775807", "9223372036854775807" },
        { "=w1", "w1" }, { "#", "#" }, { "#-", "#-" }, { "x", "x" }, { "#12a", "#12a" },
        { "#9223372036854775808", "#9223372036854775808" },   /* past an int64 */
        { "#-9223372036854775808", "#-9223372036854775808" }, /* the names' range */
    };
    static const char *const order[] = { "-5", "5", "9223372036854775807", "#", "#-",
                                         "#-9223372036854775808", "#12a", "#9223372036854775808", "w1", "x" };
    size_t n = sizeof cases / sizeof *cases;
    char err[256];
    dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_COUNT) };
    cr_assert(dfn_dims_parse("pid", q.dims, &q.ndims, err, sizeof err));
    dfn_partial *p = dfn_partial_new(&q);
    for (size_t k = 0; k < n; k++) {
        uint32_t key = dfn_partial_text(p, cases[k].sent, strlen(cases[k].sent));
        dfn_rowsums a_call = { .count = 1 };
        dfn_partial_add(p, dfn_partial_row(p, &key), &a_call);
    }
    dfn_result *r = dfn_partial_finish(p, &q, NULL, err, sizeof err);
    cr_assert(r, "%s", err);
    cr_assert_eq(r->nrows, n);
    for (size_t row = 0; row < n; row++) {
        char buf[64];
        size_t len;
        const char *t = dfn_result_key_str(NULL, r, row, 0, buf, sizeof buf, &len);
        cr_assert_str_eq(t, order[row], "row %zu", row);
        size_t k = 0;
        while (k < n && strcmp(cases[k].shown, t) != 0) k++;
        cr_assert(k < n, "row %zu: %s was never sent", row, t);
    }
    dfn_result_free(r);
    dfn_dims_free(q.dims, q.ndims);
}

/* Call paths' texts sort as the tree does: function by function, a
 * name before the longer names it begins, a caller before its callees,
 * escapes undone. */
Test(partial, call_path_texts_sort_as_the_tree)
{
    static const struct { const char *a, *b; int order; } cases[] = {
        { "main;read", "main;read", 0 },       { "main", "main;read", -1 },
        { "main;read", "main;readv", -1 },     { "main;read;x", "main;readv", -1 },
        { "a\\;b", "a;b", 1 },                 /* "a;b" as one name, against a then b */
        { "a;b", "a!", -1 },                   /* ';' ends a name: it is no byte (0x3b > '!') */
        { "a\\\\", "a\\;", 1 },                /* names "a\\" and "a;": their bytes */
        { "", "a", -1 },                       { "\xc3\xa9", "z", 1 },   /* bytes unsigned */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int c = dfn_calltree_text_cmp(cases[k].a, strlen(cases[k].a), cases[k].b, strlen(cases[k].b));
        int r = dfn_calltree_text_cmp(cases[k].b, strlen(cases[k].b), cases[k].a, strlen(cases[k].a));
        cr_assert_eq((c > 0) - (c < 0), cases[k].order, "case %zu", k);
        cr_assert_eq((r > 0) - (r < 0), -cases[k].order, "case %zu reversed", k);
    }
}

/* Time bins and time terms of shares rebased to the set's span: the
 * set's bins, its window, its gaps (a series shows every bin), calls cut
 * at the bins' edges; partials of shares of different spans refuse to
 * merge rather than number their bins from two origins. */
Test(partial, time_bins_and_terms_of_shares_spanning_the_set)
{
    const char *bys[] = { "time", "func,time", "time,file", "func" };
    /* (time>0.009999 starts the window at 10000 µs, a bin's edge past
     * its 0.009999 s: bin0 past win_lo) */
    const char *wheres[] = { "", "time>0.004 time<0.021", "time>=0.03", "time>0.009999" };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
            check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
            check_split(each, 7, bys[b], wheres[w], -1, false, 0, 2);
        }
    check_split(thirds, 3, "time", "", DFN_M_TIME_S, true, 4, 1);
    /* not rebased: each share's bins from its own start */
    dfn_store *a = load_share(0x2, 1), *b = load_share(0x80, 1);
    cr_assert_neq(a->t0, b->t0, "two starts");
    dfn_query q = { .sort = -1, .metrics = DFN_M_BASIC, .threads = 1 };
    char err[256];
    cr_assert(dfn_dims_parse("time", q.dims, &q.ndims, err, sizeof err));
    dfn_partial *pa = partial_of(a, &q), *pb = partial_of(b, &q);
    cr_assert_not(dfn_partial_merge(pa, pb, err, sizeof err));
    cr_assert_str_eq(err, "partial results of shares of different spans");
    dfn_partial_free(pa);
    /* a window of 2e12 s (ns read as µs beside µs) travels whole when no
     * row counts from it */
    q.dims[0].kind = DFN_DIM_FUNC;
    dfn_partial *wide = dfn_query_partial(a, &q, err, sizeof err);
    cr_assert(wide, "%s", err);
    wide->win_hi_s = 2e12;
    dfn_partial_free(partial_trip(wide));
    /* a span that does not hold the store's own is refused, unchanged */
    uint64_t t0 = a->t0;
    cr_assert_not(dfn_store_rebase(a, t0 + 1, a->t1));
    cr_assert_not(dfn_store_rebase(a, t0, a->t1 - 1));
    cr_assert_eq(a->t0, t0);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(a);
    dfn_store_free(b);
}

/* Sparklines: each row's µs in each bin, and all the calls', the same
 * bits from shares of the set as from the set, whether the window cuts
 * calls or not, with rows past the query's dense ones (by file), calls
 * longer than a bin and aggregated records. */
Test(partial, sparklines_add_up_as_the_sets)
{
    const char *bys[] = { "", "func", "file", "proc", "time", "func,file", "layer" };
    const char *wheres[] = { "", "time>0.004 time<0.021", "time>=0.03" };
    const size_t bins[] = { 1, 7, 200 };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
            g_spark = bins[(b + w) % 3];
            check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
            check_split(each, 7, bys[b], wheres[w], DFN_M_TIME_S, true, 0, 2);
        }
    g_spark = DFN_SPARK_BINS_MAX + 1;   /* taken as the most there are, in both */
    check_split(thirds, 3, "func", "", DFN_M_TIME_S, true, 3, 1);
    g_spark = 0;
    /* shares not rebased have bins of their own spans: they do not merge,
     * though rows by function alone would */
    dfn_store *a = load_share(0x2, 1), *b = load_share(0x80, 1);
    char err[256];
    dfn_query q = { .sort = -1, .metrics = DFN_M_BASIC, .threads = 1, .spark_bins = 10 };
    cr_assert(dfn_dims_parse("func", q.dims, &q.ndims, err, sizeof err));
    for (int trip = 0; trip < 2; trip++) {   /* as the query makes them, and through their bytes */
        dfn_partial *pa = dfn_query_partial(a, &q, err, sizeof err), *pb = dfn_query_partial(b, &q, err, sizeof err);
        cr_assert(pa && pb, "%s", err);
        if (trip) pa = partial_trip(pa), pb = partial_trip(pb);
        cr_assert_not(dfn_partial_merge(pa, pb, err, sizeof err));
        cr_assert_str_eq(err, "partial results of shares of different spans");
        dfn_partial_free(pa);
    }
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(a);
    dfn_store_free(b);
}

/* Sparklines split into compute and I/O, as lanes and the process levels
 * show them, from shares of whole processes: the I/O line adds up as the
 * row's, the compute line is each of a row's processes' compute in the
 * bin, and a row's processes are in one share each. */
Test(partial, split_sparklines_from_shares_of_whole_processes)
{
    const char *bys[] = { "proc", "pid", "host", "func", "", "file" };   /* (by file: rows past the dense ones) */
    const char *wheres[] = { "", "time>0.004 time<0.021" };
    g_compute = "cat=ai_framework";
    g_split = true;
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
            g_spark = b % 2 ? 9 : 120;
            check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
            check_split(each, 7, bys[b], wheres[w], DFN_M_TIME_S, true, 3, 2);
        }
    g_hosts = true;   /* (by host: two of them, their processes in several shares) */
    check_split(thirds, 3, "host", "", -1, false, 0, 1);
    g_hosts = false;
    g_split = false;
    g_spark = 0;
    g_compute = NULL;
}

/* The explorer's facts (a few metrics kept, the others read as NaN), with
 * and without sparklines. */
Test(partial, metrics_asked_only_as_the_sets)
{
    g_asked = true;
    check_split(halves, 2, "func", "", DFN_M_TIME_S, true, 0, 1);
    check_split(thirds, 3, "file", "time>0.004", -1, false, 5, 2);
    g_spark = 16;
    check_split(each, 7, "proc", "", -1, false, 0, 1);
    g_spark = 0;
    g_asked = false;
}

/* The analysis metrics (overlap, self time, sequential share) from shares
 * that each hold whole processes, as MPI's plan divides a set: every
 * process's compute, call tree and access patterns are in one share. The
 * sums of seconds over processes come out the same bits whatever the
 * division. A definition that matches nothing leaves them undefined
 * (NaN) across shares as in the whole set. */
Test(partial, analysis_metrics_from_shares_of_whole_processes)
{
    const char *bys[] = { "", "func", "file", "proc", "time", "func,file", "layer" };
    const char *wheres[] = { "", "cat=POSIX", "time>0.004" };
    g_compute = "cat=ai_framework";
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++)
        for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
            check_split(halves, 2, bys[b], wheres[w], -1, false, 0, 1);
            check_split(thirds, 3, bys[b], wheres[w], DFN_M_SELF_S, true, 4, 2);
        }
    check_split(each, 7, "func", "", DFN_M_OVERLAP_PCT, true, 0, 1);
    g_compute = "func=nosuch";
    check_split(thirds, 3, "func", "", -1, false, 0, 1);
    /* compute in one share alone: the others' rows show none, not NaN */
    g_compute = "pid=1 cat=ai_framework";
    check_split(thirds, 3, "func", "", -1, false, 0, 1);
    check_split(halves, 2, "proc", "", -1, false, 0, 2);
    g_compute = NULL;
}

/* Counter metrics: each row's samples and their fixed-point sums add up
 * across shares, a share without the series adding none; the means come
 * out the same bits as the whole set's. */
Test(partial, counter_means_from_shares)
{
    dfn_ctrs ctrs = { .series = { "cpu.user_pct" }, .n = 1 };
    g_ctrs = &ctrs;
    const char *bys[] = { "", "func", "proc", "time", "func,file" };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++) {
        check_split(halves, 2, bys[b], "", -1, false, 0, 1);
        check_split(thirds, 3, bys[b], "cat=POSIX", DFN_M_COUNT_, true, 3, 2);   /* (sorted by the counter) */
        check_sliced(thirds, 3, bys[b], 3);
    }
    check_split(each, 7, "func", "", -1, false, 0, 1);
    /* processes on two hosts, each with a telemetry service whose samples
     * count for its host's calls: shares of whole hosts */
    static const unsigned hosts[] = { 0x1e, 0xe0 };
    g_hosts = true;
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++) check_split(hosts, 2, bys[b], "", -1, false, 0, 1);
    check_split(hosts, 2, "host", "cat=POSIX", DFN_M_COUNT_, true, 0, 2);
    check_sliced(hosts, 2, "host", 2);
    g_hosts = false;
    g_ctrs = NULL;
}

/* Transfer-size bins add up across shares: dense rows' arrays and sparse
 * rows' maps alike (by file, most rows are sparse). */
Test(partial, size_bins_add_up)
{
    g_sizes = true;
    const char *bys[] = { "", "func", "file", "time", "func,file" };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++) {
        check_split(halves, 2, bys[b], "", -1, false, 0, 1);
        check_split(each, 7, bys[b], "cat=POSIX", DFN_M_COUNT, true, 5, 2);
        check_sliced(thirds, 3, bys[b], 4);   /* (slices of busy time keep the query's bins) */
    }
    g_sizes = false;
}

Test(partial, busy_time_through_slices_of_time)
{
    const char *bys[] = { "", "func", "file", "proc", "func,file" };
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++) {
        check_sliced(thirds, 3, bys[b], 4);
        check_sliced(halves, 2, bys[b], 2);
        check_sliced(each, 7, bys[b], 7);
    }
}

Test(partial, sorting_and_top_as_the_whole_set)
{
    check_split(thirds, 3, "file", "", DFN_M_TIME_S, true, 3, 1);
    check_split(thirds, 3, "func,file", "", DFN_M_BUSY_S, false, 0, 2);
    check_split(halves, 2, "proc", "", DFN_M_MAX_US, true, 0, 1);
    check_split(halves, 2, "func", "", -1, true, 2, 1);
    /* by the slowest process's name, which merged rows number otherwise */
    check_split(each, 7, "func", "", DFN_M_MAX_PROC, true, 0, 1);
    check_split(thirds, 3, "file", "", DFN_M_MAX_PROC, false, 5, 2);
}

/* The union across shares is not the sum of the shares' unions: the
 * shared files' reads of different processes overlap in time. */
Test(partial, busy_time_unites_the_shares)
{
    dfn_store *a = load_share(halves[0], 1), *b = load_share(halves[1], 1), *whole = load_share(0xffu, 1);
    char err[256];
    dfn_query q = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_BUSY_S) };
    double sum = 0;
    dfn_store *parts[] = { a, b };
    for (int k = 0; k < 2; k++) {
        dfn_result *r = dfn_query_run(parts[k], &q, err, sizeof err);
        sum += dfn_result_metric(r, 0, DFN_M_BUSY_S);
        dfn_result_free(r);
    }
    dfn_partial *pa = partial_of(a, &q), *pb = partial_of(b, &q);
    cr_assert(dfn_partial_merge(pa, pb, err, sizeof err));
    dfn_result *m = dfn_partial_finish(pa, &q, NULL, err, sizeof err), *w = dfn_query_run(whole, &q, err, sizeof err);
    cr_assert_eq(dfn_result_metric(m, 0, DFN_M_BUSY_S), dfn_result_metric(w, 0, DFN_M_BUSY_S));
    cr_assert_lt(dfn_result_metric(m, 0, DFN_M_BUSY_S), sum, "the shares overlap");
    dfn_result_free(m);
    dfn_result_free(w);
    dfn_store_free(a);
    dfn_store_free(b);
    dfn_store_free(whole);
}

Test(partial, queries_without_a_partial_say_why)
{
    char err[256];
    struct { const char *by; uint64_t metrics; size_t spark; const char *says; } cases[] = {
        { "event", 0, 0, "events" },
        { "event", 0, 16, "events" },   /* (calls alone: rows of calls, sparklines or not) */
        { "func,event", 0, 0, "files were not kept" },   /* (calls within groups: their files' places) */
        { "func", UINT64_C(1) << 63, 0, "metrics" },   /* (none such) */
    };
    dfn_store *s = load_share(halves[0], 1);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        dfn_query q = { .sort = -1, .metrics = cases[k].metrics, .spark_bins = cases[k].spark };
        cr_assert(dfn_dims_parse(cases[k].by, q.dims, &q.ndims, err, sizeof err));
        err[0] = 0;
        cr_assert_null(dfn_query_partial(s, &q, err, sizeof err), "case %zu", k);
        cr_assert(strstr(err, cases[k].says), "case %zu: %s", k, err);
        dfn_dims_free(q.dims, q.ndims);
    }
    dfn_store_free(s);
}

/* Exact sums: the same bits in any order and merged any way, the double
 * nearest the exact total (ties to even), non-finite values and totals
 * past the largest double as such. */
Test(partial, exact_sums_in_any_order)
{
    static const struct { double v[4]; size_t n; double want; } cases[] = {
        { { 1e16, 1.0, -1e16 }, 3, 1.0 },                      /* naive: 0 or 2 by order */
        { { 0.1, 0.2, 0.3 }, 3, 0.6 },                         /* naive: 0.6000000000000001 */
        { { 1.0, 0x1p-53, 0x1p-106 }, 3, 1.0 + 0x1p-52 },     /* above half: up */
        { { 1.0, 0x1p-53 }, 2, 1.0 },                          /* half: to even */
        { { 1.0 + 0x1p-52, 0x1p-53 }, 2, 1.0 + 0x1p-51 },      /* half: to even, up */
        { { -0.5, 0.25, 0.25 }, 3, 0.0 },
        { { 1e308, 1e308, 1e308, -1e308 }, 4, HUGE_VAL },      /* past the largest double */
        { { 1.0, HUGE_VAL, -HUGE_VAL }, 3, NAN },
        { { 5.0, -HUGE_VAL }, 2, -HUGE_VAL },
    };
    static const size_t perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t n = cases[k].n;
        for (size_t p = 0; p < (n == 4 ? 1 : n == 3 ? 6 : 2); p++) {
            dfn_fsum a = DFN_FSUM_INIT, b = DFN_FSUM_INIT, m = DFN_FSUM_INIT;
            for (size_t j = 0; j < n; j++) {
                size_t at = n == 3 ? perm[p][j] : n == 2 ? (j + p) % 2 : j;
                dfn_fsum_add(j % 2 ? &b : &a, cases[k].v[at]);   /* two shares, merged */
                dfn_fsum_add(&m, cases[k].v[at]);
            }
            dfn_fsum_merge(&a, &b);
            double x = dfn_fsum_value(&a), y = dfn_fsum_value(&m), w = cases[k].want;
            cr_assert(memcmp(&x, &w, sizeof x) == 0 || (isnan(x) && isnan(w)), "case %zu order %zu: %.17g", k, p, x);
            cr_assert(memcmp(&y, &w, sizeof y) == 0 || (isnan(y) && isnan(w)), "case %zu order %zu, one sum: %.17g", k, p, y);
            dfn_fsum_free(&a);
            dfn_fsum_free(&b);
            dfn_fsum_free(&m);
        }
    }
}

/* The set's counter rows against its shares': each share's rows in the
 * set's window (its span), through their bytes, merged into rows kept by
 * their text, the same keys, samples and bits of sum, min and max in the
 * same order; bytes cut anywhere refused. */
static void check_counter_split(const unsigned *masks, size_t n, const char *by, const char *where)
{
    dfn_store *whole = load_share(0xffu, 1);
    char err[256];
    dfn_filter f;
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_cquery q = { .filter = &f };
    cr_assert(dfn_cdims_parse(by, q.dims, &q.ndims, err, sizeof err), "%s", err);
    dfn_cresult w;
    cr_assert(dfn_counters_query(whole, &q, &w, err, sizeof err), "%s", err);
    cr_assert(whole->nsamples > 0);
    dfn_cspan span = { whole->n ? whole->t0 : whole->samples[0].ts, whole->samples[0].ts,
                       whole->samples[whole->nsamples - 1].ts };
    q.span = &span;
    dfn_cresult m;
    cr_assert(dfn_counters_query(NULL, &q, &m, err, sizeof err), "%s", err);
    for (size_t k = 0; k < n; k++) {
        dfn_store *s = load_share(masks[k], 1);
        dfn_cresult r;
        cr_assert(dfn_counters_query(s, &q, &r, err, sizeof err), "%s", err);
        size_t len;
        uint8_t *bytes = dfn_counters_encode(s, &r, &len);
        for (size_t cut = 0; k == 0 && cut < len; cut += 1 + len / 97) {
            dfn_cresult junk;
            cr_assert(dfn_counters_query(NULL, &q, &junk, err, sizeof err));
            cr_assert_not(dfn_counters_merge(&junk, bytes, cut, err, sizeof err), "cut at %zu of %zu", cut, len);
            dfn_cresult_free(&junk);
        }
        cr_assert(dfn_counters_merge(&m, bytes, len, err, sizeof err), "%s", err);
        free(bytes);
        dfn_cresult_free(&r);
        dfn_store_free(s);
    }
    /* and the merged rows through their own bytes once more, as a rank
     * up the tree sends its subtree's */
    dfn_cresult up;
    cr_assert(dfn_counters_query(NULL, &q, &up, err, sizeof err), "%s", err);
    size_t ulen;
    uint8_t *ubytes = dfn_counters_encode(NULL, &m, &ulen);
    cr_assert(dfn_counters_merge(&up, ubytes, ulen, err, sizeof err), "%s", err);
    free(ubytes);
    dfn_cresult *merged[] = { &m, &up };
    for (size_t j = 0; j < 2; j++) {
        dfn_cresult *g = merged[j];
        dfn_counters_finish(g);
        cr_assert_eq(g->nrows, w.nrows, "by %s where '%s': %zu rows and %zu", by, where, g->nrows, w.nrows);
        cr_assert(g->win_lo_s == w.win_lo_s && g->bin_s == w.bin_s, "by %s: the window", by);
        for (size_t i = 0; i < w.nrows; i++) {
            const dfn_crow *a = &w.rows[i], *b = &g->rows[i];
            for (size_t k = 0; k < w.ndims; k++) {
                char x[128], y[128];
                dfn_crow_key_text(whole, &w, a, k, x, sizeof x);
                dfn_crow_key_text(NULL, g, b, k, y, sizeof y);
                cr_assert_str_eq(x, y, "by %s, row %zu, key %zu (%zu)", by, i, k, j);
            }
            cr_assert_eq(a->samples, b->samples, "by %s, row %zu", by, i);
            cr_assert(memcmp(&a->sum, &b->sum, sizeof a->sum) == 0 && a->min == b->min && a->max == b->max,
                      "by %s, row %zu (%zu): %.17g %.17g", by, i, j, a->sum, b->sum);
        }
    }
    dfn_cresult_free(&w);
    dfn_cresult_free(&m);
    dfn_cresult_free(&up);
    dfn_filter_free(&f);
    dfn_store_free(whole);
}

/* Counter rows whose bytes name a time bin no store's samples can have
 * (its start past an int64 of µs) are refused, not labelled. */
Test(partial, counter_rows_of_impossible_bins_are_refused)
{
    dfn_cspan span = { 0, 1, 0 };
    dfn_cquery q = { .span = &span, .bin_s = 0.5 };
    char err[256];
    cr_assert(dfn_cdims_parse("time", q.dims, &q.ndims, err, sizeof err));
    for (int big = 0; big < 2; big++) {
        uint8_t b[128];
        size_t n = 0;
        int64_t bin = big ? INT64_C(1) << 61 : -3;
        const uint64_t head[] = { 0x434e4644, 1, 2, 0, 1, 1 };   /* DFNC, version, dims counter and time, a row */
        for (size_t k = 0; k < sizeof head / sizeof *head; k++) n += dfn_varint_put(b + n, head[k]);
        b[n++] = 1, b[n++] = 'x';                                /* the series "x" */
        n += dfn_varint_put(b + n, ((uint64_t)bin << 1) ^ (uint64_t)(bin >> 63));
        n += dfn_varint_put(b + n, 1);                           /* a sample */
        double v = 2.5;
        for (int k = 0; k < 2; k++) memcpy(b + n, &v, 8), n += 8;   /* its min and max */
        n += dfn_varint_put(b + n, 2);                           /* a finite sum ... */
        n += dfn_varint_put(b + n, 1);                           /* ... of one partial */
        memcpy(b + n, &v, 8), n += 8;
        dfn_cresult r;
        cr_assert(dfn_counters_query(NULL, &q, &r, err, sizeof err), "%s", err);
        bool ok = dfn_counters_merge(&r, b, n, err, sizeof err);
        cr_assert_eq(ok, !big, "bin %" PRId64 ": %s", bin, err);
        if (ok) {
            dfn_counters_finish(&r);
            char t[64];
            dfn_crow_key_text(NULL, &r, &r.rows[0], 1, t, sizeof t);
            cr_assert_str_eq(t, "-1.5", "three half-second bins before the start: %s", t);
            cr_assert(r.rows[0].sum == 2.5 && r.rows[0].samples == 1);
        }
        dfn_cresult_free(&r);
    }
}

Test(partial, counter_rows_merge_across_shares)
{
    static const unsigned hosts[] = { 0x1e, 0xe0 };
    const char *bys[] = { "", "host", "pid", "time", "time,host,pid", "pid,counter" };
    g_hosts = true;
    for (size_t b = 0; b < sizeof bys / sizeof *bys; b++) {
        check_counter_split(halves, 2, bys[b], "");
        check_counter_split(each, 7, bys[b], "time>0.004");
    }
    check_counter_split(hosts, 2, "host,pid", "host=h2");
    g_hosts = false;
}

Test(partial, bytes_that_are_not_a_partial_are_refused)
{
    dfn_store *s = load_share(0x0a, 1);   /* two small processes: every cut and byte is tried */
    char err[256];
    /* (with the analysis sums and counters: every field of a row) */
    dfn_ctrs ctrs = { .series = { "cpu.user_pct" }, .n = 1 };
    dfn_query q = { .sort = -1, .metrics = all_mergeable | ANALYSIS_METRICS, .ctrs = &ctrs, .spark_bins = 5 };
    cr_assert(dfn_dims_parse("func,file", q.dims, &q.ndims, err, sizeof err));
    dfn_analysis an;
    g_compute = "cat=ai_framework";
    analyse(&an, s, &q);
    g_compute = NULL;
    dfn_partial *p = dfn_query_partial(s, &q, err, sizeof err);
    cr_assert(p, "%s", err);
    cr_assert(p->ctrn.n > 0 && p->ncompute > 0 && p->spark.n > 0, "counters, compute and sparklines in the bytes tried");
    size_t len;
    uint8_t *bytes = dfn_partial_encode(p, &len);
    dfn_partial_free(p);
    /* cut anywhere: refused, saying so */
    for (size_t cut = 0; cut < len; cut++) {
        err[0] = 0;
        cr_assert_null(dfn_partial_decode(bytes, cut, err, sizeof err), "cut at %zu of %zu", cut, len);
        cr_assert(strstr(err, "partial result"), "cut at %zu: %s", cut, err);
    }
    /* a byte past the end */
    uint8_t *longer = dfn_xmalloc(len + 1);
    memcpy(longer, bytes, len);
    longer[len] = 0;
    cr_assert_null(dfn_partial_decode(longer, len + 1, err, sizeof err));
    free(longer);
    /* any byte changed: refused or read within bounds (ASan watches) */
    for (size_t k = 0; k < len; k++) {
        uint8_t keep = bytes[k];
        for (int v = 0; v < 256; v += 37) {
            bytes[k] = (uint8_t)v;
            dfn_partial *d = dfn_partial_decode(bytes, len, err, sizeof err);
            if (d) {   /* (what changed may be its query: then it says so) */
                dfn_result *r = dfn_partial_finish(d, &q, NULL, err, sizeof err);
                cr_assert(r || strstr(err, "another query"), "%s", err);
                dfn_result_free(r);
            }
        }
        bytes[k] = keep;
    }
    /* a busy segment of a row that is not there (no rows at all: an id
     * below zero rows is none) */
    dfn_query none = { .sort = -1, .metrics = DFN_M_BIT(DFN_M_BUSY_S) };
    dfn_filter nothing;
    cr_assert(dfn_filter_parse("func=nosuch", &nothing, err, sizeof err));
    none.filter = &nothing;
    cr_assert(dfn_dims_parse("func", none.dims, &none.ndims, err, sizeof err));
    dfn_partial *empty = dfn_query_partial(s, &none, err, sizeof err);
    cr_assert(empty && empty->nrows == 0, "%s", err);
    size_t elen;
    uint8_t *eb = dfn_partial_encode(empty, &elen);
    dfn_partial_free(empty);
    cr_assert_eq(eb[elen - 1], 0, "the count of segments ends it");
    eb = dfn_xrealloc(eb, elen + 3);
    eb[elen - 1] = 1;   /* one segment: row 5, from 0, 1 µs long */
    eb[elen] = 5, eb[elen + 1] = 0, eb[elen + 2] = 1;
    cr_assert_null(dfn_partial_decode(eb, elen + 2 + 1, err, sizeof err));
    cr_assert(strstr(err, "a busy segment"), "%s", err);
    free(eb);
    dfn_filter_free(&nothing);
    dfn_dims_free(none.dims, none.ndims);
    /* another version */
    uint8_t *v2 = dfn_xmalloc(len);
    memcpy(v2, bytes, len);
    size_t at = 0;
    while (v2[at] & 0x80) at++;   /* past the magic: the version */
    v2[at + 1] = 1;
    cr_assert_null(dfn_partial_decode(v2, len, err, sizeof err));
    cr_assert(strstr(err, "version 1 (this dfnav reads "), "%s", err);
    free(v2);
    free(bytes);
    dfn_analysis_free(&an);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(s);
}

/* fuzz_partial's committed seeds of partials (the other seeds are other
 * bytes ranks send) decode in this version: a seed of another version is
 * refused at its first bytes and tests nothing. When PARTIAL_VERSION
 * changes, DFN_SEED_DIR (partial_trip) makes them again. */
Test(partial, fuzz_seeds_are_partials_of_this_version)
{
    const char *src = getenv("SRCDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/seeds/fuzz_partial", src ? src : ".");
    DIR *d = opendir(dir);
    cr_assert(d, "%s", dir);
    size_t partials = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[8192], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert(f, "%s", path);
        static char bytes[1 << 20];   /* (seeds are small: libFuzzer's inputs here are at most 64 KiB) */
        size_t len = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        dfn_partial *p = dfn_partial_decode((const uint8_t *)bytes, len, err, sizeof err);
        if (!p && strcmp(err, "not a partial result") == 0) continue;   /* counter rows, calls */
        cr_assert(p, "%s: %s", e->d_name, err);
        dfn_partial_free(p);
        partials++;
    }
    closedir(d);
    cr_assert_geq(partials, 8, "%zu seeds of partials", partials);
}

Test(partial, partials_of_different_queries_do_not_merge)
{
    dfn_store *s = load_share(halves[0], 1);
    char err[256];
    dfn_query a = { .sort = -1 }, b = { .sort = -1 };
    cr_assert(dfn_dims_parse("func", a.dims, &a.ndims, err, sizeof err));
    cr_assert(dfn_dims_parse("file", b.dims, &b.ndims, err, sizeof err));
    dfn_partial *pa = dfn_query_partial(s, &a, err, sizeof err), *pb = dfn_query_partial(s, &b, err, sizeof err);
    cr_assert(pa && pb);
    cr_assert_not(dfn_partial_merge(pa, pb, err, sizeof err));
    cr_assert(strstr(err, "different queries"), "%s", err);
    dfn_partial_free(pa);
    /* split sparklines asked without a compute definition: none to split */
    dfn_query split = a;
    split.spark_bins = 10;
    split.spark_split = true;
    cr_assert_null(dfn_query_partial(s, &split, err, sizeof err));
    cr_assert(strstr(err, "compute definition"), "%s", err);
    /* partials of shares with and without split sparklines (a share with
     * no store makes its own partial): another query */
    dfn_partial *plain10 = dfn_partial_new(&(dfn_query){ .ndims = 1, .dims = { { .kind = DFN_DIM_FUNC } }, .spark_bins = 10 });
    dfn_partial *split10 = dfn_partial_new(&split);
    cr_assert(dfn_partial_is_of(split10, &split), "split as asked, overlap or not");
    cr_assert_not(dfn_partial_merge(plain10, split10, err, sizeof err));
    cr_assert(strstr(err, "different queries"), "%s", err);
    dfn_partial_free(plain10);
    /* sparklines of other bins: another query */
    b = a;
    b.spark_bins = 10;
    pa = dfn_query_partial(s, &a, err, sizeof err), pb = dfn_query_partial(s, &b, err, sizeof err);
    cr_assert(pa && pb);
    cr_assert_not(dfn_partial_is_of(pb, &a));
    cr_assert_not(dfn_partial_merge(pa, pb, err, sizeof err));
    cr_assert(strstr(err, "different queries"), "%s", err);
    dfn_partial_free(pa);
    dfn_dims_free(a.dims, a.ndims);
    dfn_dims_free(b.dims, b.ndims);
    dfn_store_free(s);
}

/* ---- calls (report --by event): each share's rows, merged ---- */

/* Each process's calls as a file of its own, in a new folder: the set's
 * files in pid order, as MPI's plan numbers them. */
static void proc_files(char *paths[NPROCS])
{
    char *dir = tu_tmpdir();
    for (int pid = 1; pid <= NPROCS; pid++) {
        char *text = trace_of(1u << pid), name[32];
        snprintf(name, sizeof name, "p%d.pfw", pid);
        paths[pid - 1] = tu_write_file(dir, name, text, strlen(text));
        free(text);
    }
    free(dir);
}

/* The set's total time, as an MPI sum over the shares gives it. */
static uint64_t g_set_total;
static uint64_t set_total(uint64_t own) { (void)own; return g_set_total; }

/* The bytes of a share of processes mask (their files, each event's
 * file kept) for q, as a rank sends them. */
static dfn_store *calls_share(char *const paths[NPROCS], unsigned mask, const dfn_store *whole, uint32_t place[NPROCS])
{
    const char *mine[NPROCS];
    size_t n = 0;
    for (int pid = 1; pid <= NPROCS; pid++)
        if (mask >> pid & 1) { place[n] = (uint32_t)(pid - 1); mine[n++] = paths[pid - 1]; }
    dfn_load_opts lo = { .threads = 2, .sources = true };
    dfn_store *s = dfn_load(mine, n, &lo);
    cr_assert(s && s->evsrc);
    cr_assert(dfn_store_rebase(s, whole->t0, whole->t1));
    return s;
}

static uint8_t *calls_of_share(char *const paths[NPROCS], unsigned mask, const dfn_store *whole, const dfn_query *q,
                               size_t *len)
{
    uint32_t place[NPROCS];
    dfn_store *s = calls_share(paths, mask, whole, place);
    dfn_query qk = *q;
    qk.layers = su_layerset(s, "posix");
    uint8_t *bytes = dfn_evrows_share(s, &qk, place, NULL, set_total, DFN_EVROWS_REPORT, DFN_UNIT_US, len);
    dfn_store_free(s);
    return bytes;
}

/* The whole set of the files and its calls of (where, sort, desc, top):
 * q and f the query's. */
static dfn_result *whole_calls(char *const paths[NPROCS], const char *where, int sort, bool desc, size_t top,
                               dfn_store **whole, dfn_query *q, dfn_filter *f)
{
    char err[256];
    *whole = su_load_paths((const char *const *)paths, NPROCS, 1, 0);
    cr_assert(dfn_filter_parse(where, f, err, sizeof err), "%s", err);
    *q = (dfn_query){ .sort = sort, .desc = desc, .top = top, .filter = f, .threads = 1 };
    cr_assert(dfn_dims_parse("event", q->dims, &q->ndims, err, sizeof err));
    if (sort >= 0) q->metrics = DFN_M_BASIC | DFN_M_BIT(sort);
    q->layers = su_layerset(*whole, "posix");
    dfn_result *r = dfn_query_run(*whole, q, err, sizeof err);
    cr_assert(r, "%s", err);
    return r;
}

/* Each share's calls of q in form (agg_unit: extract's) merged as rank
 * 0 merges them, with (Chrome's and extract's) the counter samples each
 * share has of the merged calls' window; callers, when given, takes every
 * share's processes with calls. */
static dfn_result *shares_merged(char *const paths[NPROCS], const unsigned *masks, size_t nshares,
                                 const dfn_store *whole, const dfn_query *q, dfn_evform form, dfn_unit agg_unit,
                                 dfn_strtab *callers)
{
    char err[256], *windows[NPROCS];
    size_t wlens[NPROCS], wlen;
    dfn_store *share[NPROCS];
    dfn_evmerge *m = dfn_evmerge_new(q->sort, form);
    for (size_t k = 0; k < nshares; k++) {
        uint32_t place[NPROCS];
        share[k] = calls_share(paths, masks[k], whole, place);
        dfn_query qk = *q;
        qk.layers = su_layerset(share[k], "posix");
        size_t len;
        uint8_t *bytes = dfn_evrows_share(share[k], &qk, place, NULL, set_total, form, agg_unit, &len);
        int failed;
        cr_assert(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err), "%s", err);
        /* extract's window: each share's own, united before the merge */
        windows[k] = form == DFN_EVROWS_EXTRACT ? (char *)dfn_evrows_window(bytes, len, &wlens[k]) : NULL;
        free(bytes);
        if (!callers) continue;
        bytes = dfn_extract_callers(share[k], &len);
        cr_assert(dfn_extract_callers_add(callers, bytes, len, err, sizeof err), "%s", err);
        free(bytes);
    }
    dfn_result *mr = dfn_evmerge_finish(m, q, whole->cnt.v != NULL);
    cr_assert(dfn_evrows_merged(mr));
    uint8_t *window = form == DFN_EVROWS_CHROME ? dfn_evwindow_of(mr, &wlen) : NULL;
    if (form == DFN_EVROWS_EXTRACT) {   /* the merged calls' window, known before they merge */
        window = dfn_evwindow_union(windows, wlens, nshares, &wlen);
        size_t mlen;
        uint8_t *merged = dfn_evwindow_of(mr, &mlen);
        cr_assert(window && dfn_evwindow_within(merged, mlen, window, wlen) &&
                  dfn_evwindow_within(window, wlen, merged, mlen));
        free(merged);
        for (size_t k = 0; k < nshares; k++) free(windows[k]);
    }
    for (size_t k = 0; k < nshares; k++) {
        size_t len;
        uint8_t *bytes = window ? dfn_evsamples_share(share[k], window, wlen, &len) : NULL;
        if (bytes) cr_assert(dfn_evsamples_add(mr, bytes, len, err, sizeof err), "%s", err);
        dfn_store_free(share[k]);
    }
    free(window);
    dfn_evsamples_finish(mr);
    return mr;
}

/* The whole set's calls of (where, sort, desc, top) printed as table,
 * CSV and JSON, or in Chrome's form, against its shares' merged; Chrome's
 * with the counter samples of the calls' hosts over their span from every
 * share (the window rank 0 sends), in one store's order. */
static void check_merged(char *const paths[NPROCS], const unsigned *masks, size_t nshares, const char *where, int sort,
                         bool desc, size_t top, dfn_evform form)
{
    dfn_store *whole;
    dfn_query q;
    dfn_filter f;
    dfn_result *r = whole_calls(paths, where, sort, desc, top, &whole, &q, &f);
    g_set_total = r->total_us;
    dfn_result *mr = shares_merged(paths, masks, nshares, whole, &q, form, DFN_UNIT_US, NULL);
    cr_assert_gt(r->nrows, 0, "where '%s': calls to print", where);
    cr_assert_eq(r->matched, mr->matched);
    cr_assert_eq(r->matched_calls, mr->matched_calls);
    dfn_compare *a = dfn_compare_of(r, sort, desc), *b = dfn_compare_of(mr, sort, desc);
    const dfn_format report[] = { DFN_FMT_TABLE, DFN_FMT_CSV, DFN_FMT_JSON }, chrome[] = { DFN_FMT_CHROME };
    const dfn_format *fmts = form == DFN_EVROWS_CHROME ? chrome : report;
    for (size_t k = 0; k < (form == DFN_EVROWS_CHROME ? 1u : 3u); k++) {
        char *x = su_compare_text(a, fmts[k]), *y = su_compare_text(b, fmts[k]);
        if (form == DFN_EVROWS_CHROME) cr_assert(strstr(x, "\"ph\":\"C\""), "where '%s': counter samples to merge", where);
        cr_assert_str_eq(x, y, "where '%s', sort %d%s top %zu, %zu shares, format %zu", where, sort, desc ? " desc" : "",
                         top, nshares, k);
        free(x);
        free(y);
    }
    dfn_compare_free(a);
    dfn_compare_free(b);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
}

static void check_calls(char *const paths[NPROCS], const unsigned *masks, size_t nshares, const char *where, int sort,
                        bool desc, size_t top)
{
    check_merged(paths, masks, nshares, where, sort, desc, top, DFN_EVROWS_REPORT);
}

static void check_chrome(char *const paths[NPROCS], const unsigned *masks, size_t nshares, const char *where, int sort,
                         bool desc, size_t top)
{
    check_merged(paths, masks, nshares, where, sort, desc, top, DFN_EVROWS_CHROME);
}

/* Calls of one time in several processes' files (the seeded times
 * repeat) go in the set's file order, then by line, whatever share
 * holds them; sorted calls as the set sorts them, cut to the top. */
Test(partial, calls_of_shares_print_as_the_sets)
{
    char *paths[NPROCS];
    proc_files(paths);
    check_calls(paths, thirds, 3, "", -1, false, 0);
    check_calls(paths, each, 7, "cat=POSIX func!=write", -1, true, 40);
    check_calls(paths, halves, 2, "", DFN_M_TIME_S, true, 25);
    check_calls(paths, thirds, 3, "file~shared", DFN_M_PCT_TIME, true, 9);
    check_calls(paths, each, 7, "", DFN_M_BYTES, false, 30);
    check_calls(paths, one, 1, "", DFN_M_MAX_US, true, 0);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
}

/* Ties that matter: the same time in every process, so that an order by
 * time alone, or by share, prints another order. */
Test(partial, calls_of_one_time_go_by_file_then_line)
{
    char *dir = tu_tmpdir(), *paths[NPROCS];
    for (int pid = 1; pid <= NPROCS; pid++) {
        char text[1024], name[32];
        int n = 0;
        for (int k = 0; k < 3; k++)
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":1,\"ph\":\"X\","
                          "\"args\":{\"ret\":%d}}\n", pid, k < 2 ? 100 : 200, pid * 10 + k);
        snprintf(name, sizeof name, "t%d.pfw", pid);
        paths[pid - 1] = tu_write_file(dir, name, text, (size_t)n);
    }
    free(dir);
    static const unsigned odd_even[] = { 0xaa, 0x54 };
    check_calls(paths, odd_even, 2, "", -1, false, 0);
    check_calls(paths, each, 7, "", -1, true, 0);
    check_calls(paths, thirds, 3, "", DFN_M_TIME_S, true, 5);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
}

/* A share's bytes cut anywhere, of another version, or a share that
 * failed: refused, said, nothing merged; the rows merged before stay. */
Test(partial, call_rows_that_are_not_whole_are_refused)
{
    char *paths[NPROCS], err[4200];
    proc_files(paths);
    dfn_store *whole = su_load_paths((const char *const *)paths, NPROCS, 1, 0);
    dfn_query q = { .sort = DFN_M_TIME_S, .desc = true, .top = 6 };
    cr_assert(dfn_dims_parse("event", q.dims, &q.ndims, err, sizeof err));
    size_t len, glen;
    g_set_total = 1000000;
    uint8_t *bytes = calls_of_share(paths, 0x06, whole, &q, &len);
    uint8_t *good = calls_of_share(paths, 0x08, whole, &q, &glen);
    int failed;
    for (size_t cut = 0; cut < len; cut++) {
        dfn_evmerge *m = dfn_evmerge_new(q.sort, DFN_EVROWS_REPORT);
        cr_assert(dfn_evmerge_add(m, good, glen, &failed, err, sizeof err), "%s", err);
        cr_assert_not(dfn_evmerge_add(m, bytes, cut, &failed, err, sizeof err), "cut at %zu of %zu", cut, len);
        cr_assert_eq(failed, 0);
        dfn_result *r = dfn_evmerge_finish(m, &q, false);
        cr_assert_eq(r->nrows, 6, "the whole share's rows stay");
        dfn_result_free(r);
    }
    dfn_evmerge *m = dfn_evmerge_new(-1, DFN_EVROWS_REPORT);   /* rows with values where none are wanted */
    cr_assert_not(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err));
    cr_assert(strstr(err, "the sort"), "%s", err);
    dfn_evmerge_free(m);
    bytes[1 + (bytes[0] & 0x80 ? 4 : 0)] = 9;   /* (past the magic's varint: the version) */
    m = dfn_evmerge_new(q.sort, DFN_EVROWS_REPORT);
    cr_assert_not(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err));
    cr_assert(strstr(err, "version 9 (this dfnav reads 1)"), "%s", err);
    free(bytes);
    bytes = dfn_evrows_failed("no layer 'x'", false, &len);
    cr_assert_not(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err));
    cr_assert_eq(failed, 1);
    cr_assert_str_eq(err, "no layer 'x'");
    free(bytes);
    bytes = dfn_evrows_failed("compute: no layer 'y'", true, &len);
    cr_assert_not(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err));
    cr_assert_eq(failed, 2, "the share's analysis failed");
    cr_assert_str_eq(err, "compute: no layer 'y'");
    cr_assert_not(dfn_evmerge_add(m, bytes, len - 1, &failed, err, sizeof err));
    cr_assert_eq(failed, 0, "a failure cut short is damage");
    free(bytes);
    bytes = dfn_evrows_none(&len);
    cr_assert(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err), "%s", err);
    free(bytes);
    dfn_evmerge_free(m);
    free(good);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
}

/* A --top of many rows (the first N of thousands of files, of a million
 * calls) is what a sort of all of them puts first, ties and all: the
 * query keeps only the best N while it looks. */
Test(partial, a_top_of_many_rows_is_what_a_whole_sort_puts_first)
{
    dfn_store *s = load_share(0xffu, 2);
    char err[256];
    const char *bys[] = { "event", "file", "func,file" };
    const int sorts[] = { DFN_M_TIME_S, DFN_M_COUNT, DFN_M_MAX_US, -1 };
    for (size_t b = 0; b < 3; b++)
        for (size_t k = 0; k < 4; k++)
            for (int desc = 0; desc < 2; desc++) {
                dfn_query q = { .sort = sorts[k], .desc = desc, .threads = 1 };
                cr_assert(dfn_dims_parse(bys[b], q.dims, &q.ndims, err, sizeof err));
                dfn_result *all = dfn_query_run(s, &q, err, sizeof err);
                q.top = 17;
                dfn_result *top = dfn_query_run(s, &q, err, sizeof err);
                cr_assert(all && top, "%s", err);
                cr_assert_gt(all->nrows, 16 * 17, "by %s: rows enough for the top's own way", bys[b]);
                cr_assert_eq(top->nrows, 17);
                for (size_t row = 0; row < 17; row++) {
                    char a[256], t[256];
                    for (size_t d = 0; d < q.ndims; d++) {
                        dfn_result_key_text(s, all, row, d, a, sizeof a);
                        dfn_result_key_text(s, top, row, d, t, sizeof t);
                        cr_assert_str_eq(a, t, "by %s, sort %d%s: row %zu", bys[b], sorts[k], desc ? " desc" : "", row);
                    }
                    if (q.ndims == 1 && q.dims[0].kind == DFN_DIM_EVENT)
                        cr_assert_eq(all->events[row], top->events[row]);
                }
                dfn_result_free(all);
                dfn_result_free(top);
                dfn_dims_free(q.dims, q.ndims);
            }
    dfn_store_free(s);
}

/* Calls within other groups (report --by func,event): each share's
 * partial of only the rows that can be among the set's top (its rows
 * sorted with the set's total and compute), after a trip through its
 * bytes; merged and finished as rank 0 does: the set's table in every
 * format. */
static void check_grouped_calls(char *const paths[NPROCS], const unsigned *masks, size_t nshares, const char *by,
                                const char *where, int sort, bool desc, size_t top, uint64_t metrics)
{
    dfn_store *whole = su_load_paths((const char *const *)paths, NPROCS, 1, 0);
    char err[256];
    dfn_filter f;
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_query q = { .sort = sort, .desc = desc, .top = top, .filter = &f, .threads = 1, .metrics = metrics,
                    .spark_bins = g_spark };
    cr_assert(dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err), "%s", err);
    q.layers = su_layerset(whole, "posix");
    dfn_analysis an;
    analyse(&an, whole, &q);
    dfn_result *r = dfn_query_run(whole, &q, err, sizeof err);
    cr_assert(r, "%s", err);
    g_set_total = r->total_us;
    int8_t set_compute = q.overlap ? (dfn_overlap_ncompute(q.overlap) ? 1 : -1) : 0;
    dfn_partial *acc = NULL;
    size_t sent = 0;
    for (size_t k = 0; k < nshares; k++) {
        uint32_t place[NPROCS];
        dfn_store *share = calls_share(paths, masks[k], whole, place);
        dfn_query qk = q;
        qk.layers = su_layerset(share, "posix");
        qk.place = place;
        dfn_analysis sa;
        analyse(&sa, share, &qk);
        qk.set_compute = set_compute;
        dfn_partial *p = top ? dfn_query_partial_top(share, &qk, set_total, err, sizeof err)
                             : dfn_query_partial(share, &qk, err, sizeof err);
        cr_assert(p, "%s", err);
        p = partial_trip(p);
        if (top) cr_assert_leq(p->nrows, top * 4, "by %s: a share sends about the top", by);
        sent += p->nrows;
        /* as the tree of ranks merges them: each row's busy time united
         * on its share, each merge cut to the set's first top rows */
        dfn_partial_sum_busy(p);
        if (!acc) acc = p;
        else cr_assert(dfn_partial_merge(acc, p, err, sizeof err), "%s", err);
        if (top) {
            acc = dfn_partial_cut(acc, &q, r->total_us, set_compute > 0 ? 1 : 0);
            cr_assert_leq(acc->nrows, top, "by %s: a merge keeps the top", by);
        }
        dfn_analysis_free(&sa);
        dfn_store_free(share);
    }
    dfn_result *m = dfn_partial_finish(acc, &q, dfn_layerset_layers(q.layers), err, sizeof err);
    cr_assert(m, "%s", err);
    m->merged_agg = whole->cnt.v != NULL;
    cr_assert(dfn_evrows_merged(m));
    cr_assert_gt(r->nrows, 0, "by %s where '%s': rows to print", by, where);
    cr_assert_eq(r->matched, m->matched);
    cr_assert_eq(r->total_us, m->total_us);
    /* sparklines: every call's total (a share sends the calls of its top
     * rows alone), and each printed row's */
    cr_assert_eq(r->spark_bins, m->spark_bins);
    for (size_t b = 0; r->spark_total && b < r->spark_bins; b++)
        cr_assert_eq(r->spark_total[b], m->spark_total[b], "by %s: total of sparkline bin %zu", by, b);
    cr_assert_eq(r->nrows, m->nrows);
    for (size_t i = 0; r->spark && i < r->nrows * r->spark_bins; i++)
        cr_assert_eq(r->spark[i], m->spark[i], "by %s: row %zu's sparkline", by, i / r->spark_bins);
    dfn_compare *a = dfn_compare_of(r, sort, desc), *b = dfn_compare_of(m, sort, desc);
    const dfn_format fmts[] = { DFN_FMT_TABLE, DFN_FMT_CSV, DFN_FMT_JSON };
    for (size_t k = 0; k < 3; k++) {
        char *x = su_compare_text(a, fmts[k]), *y = su_compare_text(b, fmts[k]);
        cr_assert_str_eq(x, y, "by %s where '%s', sort %d%s top %zu, %zu shares (%zu rows sent), format %zu", by, where,
                         sort, desc ? " desc" : "", top, nshares, sent, k);
        free(x);
        free(y);
    }
    dfn_compare_free(a);
    dfn_compare_free(b);
    dfn_analysis_free(&an);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
}

/* The slowest calls of each group, by key, by a share of the set's time
 * and by the overlap metrics of compute in one share alone (undefined in
 * the others' own eyes), cut where the set's top is. */
Test(partial, calls_within_groups_merge_as_the_sets)
{
    char *paths[NPROCS];
    proc_files(paths);
    const uint64_t basic = DFN_M_BASIC;
    check_grouped_calls(paths, thirds, 3, "func,event", "", DFN_M_TIME_S, true, 10, basic);
    check_grouped_calls(paths, each, 7, "event,func", "", -1, false, 0, basic);
    check_grouped_calls(paths, halves, 2, "layer,event", "cat=POSIX", DFN_M_BYTES, true, 15, basic);
    check_grouped_calls(paths, thirds, 3, "time,event", "", DFN_M_PCT_TIME, true, 7, basic);
    check_grouped_calls(paths, each, 7, "proc,event", "file~shared", -1, true, 20, basic);
    check_grouped_calls(paths, one, 1, "func,event", "", DFN_M_MAX_US, false, 5, basic);
    g_compute = "cat=ai_framework pid=1";
    check_grouped_calls(paths, thirds, 3, "func,event", "", DFN_M_EXPOSED_S, true, 12, basic | DFN_M_OVERLAP);
    g_compute = NULL;
    g_spark = 16;   /* (with a top, a share's calls are its top rows' alone) */
    check_grouped_calls(paths, thirds, 3, "func,event", "", DFN_M_TIME_S, true, 4, basic);
    check_grouped_calls(paths, each, 7, "proc,event", "time<0.02", -1, false, 0, basic);
    g_spark = 0;
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
}

/* Chrome output of shares: tracks by their texts (two hosts, a process's
 * rank), each call's parts as its share wrote them, counter samples of
 * the calls' hosts and span from every share, a telemetry service
 * without calls its own track. */
Test(partial, chrome_output_of_shares_as_the_sets)
{
    g_hosts = true;
    char *paths[NPROCS];
    proc_files(paths);
    check_chrome(paths, thirds, 3, "", -1, false, 0);
    check_chrome(paths, each, 7, "cat=POSIX", DFN_M_TIME_S, true, 20);
    check_chrome(paths, halves, 2, "host=h2", -1, true, 0);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
    g_hosts = false;
}

/* The whole set's subset of where (dfn_extract_write) against the one
 * rank 0 writes from the shares' calls in extract's form, their samples
 * of the window it sends and every share's processes with calls: the
 * same bytes and figures. */
static void check_subset(char *const paths[NPROCS], const unsigned *masks, size_t nshares, const char *where,
                         bool samples)
{
    dfn_store *whole;
    dfn_query q;
    dfn_filter f;
    dfn_result *r = whole_calls(paths, where, -1, false, 0, &whole, &q, &f);
    bool any;
    dfn_unit unit = dfn_extract_agg_unit(whole, &any);
    cr_assert(any, "aggregated records to write");
    dfn_strtab *callers = dfn_strtab_new();
    g_set_total = r->total_us;
    dfn_result *mr = shares_merged(paths, masks, nshares, whole, &q, DFN_EVROWS_EXTRACT, unit, callers);
    char *x = NULL, *y = NULL;
    size_t xl, yl;
    dfn_extract_stats sx, sy;
    FILE *fx = open_memstream(&x, &xl), *fy = open_memstream(&y, &yl);
    cr_assert(fx && fy);
    cr_assert_eq(dfn_extract_write(fx, whole, r->events, r->nrows, &sx), 0);
    cr_assert_eq(dfn_extract_write_rows(fy, mr, callers, &sy), 0);
    fclose(fx);
    fclose(fy);
    cr_assert_gt(sx.events, 0, "where '%s': calls to write", where);
    cr_assert_eq(sx.samples > 0, samples, "where '%s': %" PRIu64 " samples", where, sx.samples);
    cr_assert_str_eq(x, y, "where '%s', %zu shares", where, nshares);
    cr_assert(memcmp(&sx, &sy, sizeof sx) == 0, "where '%s': the figures said", where);
    free(x);
    free(y);
    dfn_strtab_free(callers);
    dfn_result_free(mr);
    dfn_result_free(r);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
}

/* Hashes and metadata records in the order the set's calls first need
 * them, whatever share holds those calls; names of processes and
 * threads, pids and tids given as names; samples of the calls' hosts
 * over their span, a telemetry service's (no calls) kept and those of a
 * process with calls left out dropped (process 1 alone: its host's
 * service's samples, none of process 3's). */
Test(partial, subsets_of_shares_write_as_the_sets)
{
    g_hosts = g_named = true;
    char *paths[NPROCS];
    proc_files(paths);
    check_subset(paths, thirds, 3, "", true);
    check_subset(paths, each, 7, "cat=POSIX func!=write", true);
    check_subset(paths, halves, 2, "pid=1", true);
    check_subset(paths, halves, 2, "func=__xstat64 host=h2", true);
    check_subset(paths, one, 1, "dur>800", true);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
    g_hosts = g_named = false;
}

/* The set of the files (*whole), the share of processes mask (*s) and
 * its calls (q: by event, in time order) in form, as bytes for rank 0. */
static uint8_t *share_rows(char *const paths[NPROCS], unsigned mask, dfn_evform form, dfn_store **whole,
                           dfn_store **s, dfn_query *q, size_t *len)
{
    char err[256];
    *whole = su_load_paths((const char *const *)paths, NPROCS, 1, 0);
    *q = (dfn_query){ .sort = -1 };
    cr_assert(dfn_dims_parse("event", q->dims, &q->ndims, err, sizeof err));
    uint32_t place[NPROCS];
    *s = calls_share(paths, mask, *whole, place);
    g_set_total = 1;
    q->layers = su_layerset(*s, "posix");
    return dfn_evrows_share(*s, q, place, NULL, set_total, form, DFN_UNIT_US, len);
}

/* A share's calls in extract's form, or its processes, cut anywhere:
 * refused, said, nothing merged. */
Test(partial, subset_rows_that_are_not_whole_are_refused)
{
    g_named = true;
    char *paths[NPROCS], err[4200];
    proc_files(paths);
    dfn_store *whole, *s;
    dfn_query q;
    size_t len, clen;
    uint8_t *bytes = share_rows(paths, 0x0c, DFN_EVROWS_EXTRACT, &whole, &s, &q, &len);
    uint8_t *procs = dfn_extract_callers(s, &clen);
    int failed;
    for (size_t cut = 0; cut < len; cut += 1 + cut / 64) {
        dfn_evmerge *m = dfn_evmerge_new(-1, DFN_EVROWS_EXTRACT);
        cr_assert_not(dfn_evmerge_add(m, bytes, cut, &failed, err, sizeof err), "cut at %zu of %zu", cut, len);
        dfn_result *r = dfn_evmerge_finish(m, &q, false);
        cr_assert_eq(r->nrows, 0);
        dfn_result_free(r);
    }
    for (size_t cut = 0; cut < clen; cut++) {
        dfn_strtab *t = dfn_strtab_new();
        cr_assert_not(dfn_extract_callers_add(t, procs, cut, err, sizeof err), "processes cut at %zu of %zu", cut, clen);
        dfn_strtab_free(t);
    }
    dfn_strtab *t = dfn_strtab_new();
    cr_assert(dfn_extract_callers_add(t, procs, clen, err, sizeof err), "%s", err);
    cr_assert_eq(dfn_strtab_count(t), 2, "processes 2 and 3, one each");
    dfn_strtab_free(t);
    /* rows of one form are not rows of another */
    dfn_evmerge *m = dfn_evmerge_new(-1, DFN_EVROWS_CHROME);
    cr_assert_not(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err));
    dfn_evmerge_free(m);
    free(bytes);
    free(procs);
    dfn_store_free(s);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
    g_named = false;
}

/* One call row of extract's form as a rank could forge it: whose, its
 * times and its record's texts (no names, no file). */
static void forged_row(obuf *o, const char *host, const char *pid, const char *tid, uint64_t ts, const char *head,
                       const char *args)
{
    obuf r = {0};
    uint8_t key[16] = {0};
    key[7] = (uint8_t)ts;
    put_raw(&r, key, sizeof key);
    put_bytes(&r, host, strlen(host));
    put_bytes(&r, pid, strlen(pid));
    put_bytes(&r, tid, strlen(tid));
    put_bytes(&r, "", 0);
    for (int k = 0; k < 3; k++) put_u(&r, 0), put_bytes(&r, "", 0);   /* no names, no file */
    put_u(&r, ts);
    put_u(&r, 5);
    put_bytes(&r, head, strlen(head));
    put_bytes(&r, args, strlen(args));
    put_bytes(o, r.b, r.n);
    free(r.b);
}

/* A share's bytes of one forged row, merged alone: whether taken. */
static bool forged_taken(const char *pid, const char *tid, const char *head, const char *args, dfn_result **r)
{
    obuf o = {0};
    put_u(&o, UINT64_C(0x454e4644));   /* "DFNE", version 1, rows, 1 matched of 1 call */
    put_u(&o, 1);
    put_u(&o, 0);
    put_u(&o, 1);
    put_u(&o, 1);
    put_u(&o, DFN_EVROWS_EXTRACT);
    put_u(&o, 0);
    put_u(&o, 1);
    forged_row(&o, "h", pid, tid, 100, head, args);
    dfn_evmerge *m = dfn_evmerge_new(-1, DFN_EVROWS_EXTRACT);
    int failed;
    char err[512];
    bool ok = dfn_evmerge_add(m, o.b, o.n, &failed, err, sizeof err);
    free(o.b);
    dfn_query q = { .sort = -1, .ndims = 1 };
    q.dims[0].kind = DFN_DIM_EVENT;
    *r = dfn_evmerge_finish(m, &q, false);
    return ok;
}

/* Whatever a rank sends, the subset stays a JSON record a line: a pid
 * that is two values, arguments that close the object, a line break, a
 * bare word are refused; samples outside the calls' hosts and span, or
 * not finite, are not written. */
Test(partial, subset_rows_a_rank_forged_cannot_break_the_output)
{
    static const char *const bad[][4] = {
        { "1,2", "3", "{\"name\":\"a\",\"args\":{", "\"x\":1" },
        { "1", "3", "{\"name\":\"a\",\"args\":{", "},\"x\":{" },
        { "1", "3", "{\"name\":\n\"a\",\"args\":{", "" },
        { "1", "3", "{\"name\":\"a\",\"args\":{", "\"x\":\n1" },
        { "1", "w", "{\"name\":\"a\",\"args\":{", "" },
        { "1", "3", "{\"name\":\"a\"}", "" },
        { "[1]", "3", "{\"name\":\"a\",\"args\":{", "" },
    };
    dfn_result *r;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        cr_assert_not(forged_taken(bad[k][0], bad[k][1], bad[k][2], bad[k][3], &r), "forged row %zu taken", k);
        dfn_result_free(r);
    }
    cr_assert(forged_taken("\"w\"", "3", "{\"name\":\"a\",\"args\":{", "\"x\":[1,{}]", &r));
    obuf o = {0};   /* samples: "DFNS", version 1, four of them */
    put_u(&o, UINT64_C(0x534e4644));
    put_u(&o, 1);
    put_u(&o, 4);
    static const struct { const char *host; uint64_t ts; double v; } sm[] = {
        { "h", 102, 1.5 }, { "h", 102, NAN }, { "h", 900, 2.5 }, { "other", 102, 3.5 },
    };
    for (size_t k = 0; k < 4; k++) {
        put_bytes(&o, sm[k].host, strlen(sm[k].host));
        put_bytes(&o, "9", 1);
        put_id(&o, 9);
        put_bytes(&o, "", 0);
        put_bytes(&o, "cpu.user", 8);
        put_u(&o, sm[k].ts);
        put_d(&o, sm[k].v);
    }
    char err[256];
    cr_assert(dfn_evsamples_add(r, o.b, o.n, err, sizeof err), "%s", err);
    dfn_evsamples_finish(r);
    char *text = NULL;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    dfn_strtab *callers = dfn_strtab_new();
    dfn_extract_stats st;
    cr_assert_eq(dfn_extract_write_rows(m, r, callers, &st), 0);
    fclose(m);
    cr_assert_eq(st.samples, 1, "the one finite sample of h in the span: %s", text);
    cr_assert(strstr(text, "\"user\":1.5"), "%s", text);
    cr_assert(strstr(text, "{\"name\":\"a\",\"args\":{\"hhash\":\"") && strstr(text, "\",\"x\":[1,{}]}}\n"), "%s", text);
    free(text);
    dfn_strtab_free(callers);
    dfn_result_free(r);
}

/* Samples a share sent cut anywhere: refused, said; those of the whole
 * shares before stay. */
Test(partial, counter_samples_that_are_not_whole_are_refused)
{
    g_hosts = true;
    char *paths[NPROCS], err[256];
    proc_files(paths);
    dfn_store *whole, *s;
    dfn_query q;
    size_t len, wlen, slen;
    uint8_t *bytes = share_rows(paths, 0x22, DFN_EVROWS_CHROME, &whole, &s, &q, &len);
    dfn_evmerge *m = dfn_evmerge_new(-1, DFN_EVROWS_CHROME);
    int failed;
    cr_assert(dfn_evmerge_add(m, bytes, len, &failed, err, sizeof err), "%s", err);
    free(bytes);
    dfn_result *r = dfn_evmerge_finish(m, &q, false);
    uint8_t *window = dfn_evwindow_of(r, &wlen), *samples = dfn_evsamples_share(s, window, wlen, &slen);
    cr_assert_gt(slen, 40, "samples to cut");
    for (size_t cut = 0; cut < slen; cut += 1 + cut / 16) {
        uint8_t *copy = dfn_xmalloc(cut ? cut : 1);
        memcpy(copy, samples, cut);
        cr_assert_not(dfn_evsamples_add(r, copy, cut, err, sizeof err), "cut at %zu of %zu", cut, slen);
        const dfn_chrome_sample *all;
        cr_assert_eq(dfn_evrow_samples(r, &all), 0);
    }
    cr_assert(dfn_evsamples_add(r, samples, slen, err, sizeof err), "%s", err);
    const dfn_chrome_sample *all;
    cr_assert_gt(dfn_evrow_samples(r, &all), 0);
    /* a window cut short takes no sample */
    size_t nlen;
    uint8_t *none = dfn_evsamples_share(s, window, wlen - 1, &nlen);
    cr_assert(dfn_evsamples_add(r, none, nlen, err, sizeof err), "%s", err);
    free(window);
    dfn_result_free(r);
    dfn_store_free(s);
    dfn_dims_free(q.dims, q.ndims);
    dfn_store_free(whole);
    for (int k = 0; k < NPROCS; k++) free(paths[k]);
    g_hosts = false;
}
