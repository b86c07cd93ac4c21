/* The thread-count differential: every table a set gives must be the same
 * bytes whatever the number of threads that loaded, indexed and queried
 * it. For each set it loads once per thread count, compiles the preset
 * layers, builds the analysis indexes, and writes the CSV of every
 * dimension alone and in pairs, each metric group and a set of filters,
 * through the one query path of the explorer and `dfnav report`
 * (dfn_compare_query and dfn_compare_write), with what the explorer draws
 * beside it (sparklines, split by compute, and size histograms); what one
 * thread gives is the reference. Runs of two sets side by side (compare) are checked too.
 *
 *     threads_diff [--quick|--long] DIR...
 *
 * Pairs are checked with 3 threads; --long checks them at every thread
 * pair (with every metric at 3 threads and where the load's thread count
 * differs from the query's), where 7 threads load a set that one queries
 * and query one that one loaded, rather than both; --quick (the sanitizer
 * builds) checks every dimension alone with 2 and 3 threads, every metric
 * and four filters, and no pairs. Prints each difference (set, threads,
 * query, first differing line) and closes with "N passed, N failed". */
#include "dfnav/analysis.h"
#include "dfnav/compare.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/match.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One loaded set with its layers and indexes, as a command builds it. */
typedef struct {
    dfn_store *s;
    dfn_layers layers;
    dfn_layerset *ls;
    dfn_analysis an;
} loaded;

typedef struct {
    const char *by, *where, *metrics;
    size_t top;
    bool pair;                /* checked at every thread count only when long */
    bool screen;              /* as the explorer asks: sparklines (split by compute) and sizes too */
} query_spec;

/* Threads to load and to query with, and the read block size: small
 * blocks make many chunks, so merge parts start behind chunks of every
 * length and at every offset. */
typedef struct { int load, query; size_t block; } threads_pair;

/* How much to check: quick (no pairs, 2 and 3 threads, every metric and
 * four filters), short (pairs at
 * 3 threads too), long (every pair at every thread pair, every metric). */
typedef enum { FORM_QUICK, FORM_SHORT, FORM_LONG } form;

static size_t passed, failed;

static bool set_load(loaded *l, const char *dir, int threads, size_t block)
{
    memset(l, 0, sizeof *l);
    dfn_inputs in;
    const char *args[1] = { dir };
    dfn_inputs_expand(args, 1, &in);
    if (!in.n) { fprintf(stderr, "threads_diff: %s: no trace file\n", dir); dfn_inputs_free(&in); return false; }
    dfn_load_opts lo = { .threads = threads, .block_size = block };
    l->s = dfn_load((const char *const *)in.paths, in.n, &lo);
    dfn_inputs_free(&in);
    char err[1024];
    if (!dfn_layers_load(dfn_layers_auto(l->s, NULL), &l->layers, err, sizeof err) ||
        !(l->ls = dfn_layerset_compile(l->s, &l->layers, threads, err, sizeof err))) {
        fprintf(stderr, "threads_diff: %s: layers: %s\n", dir, err);
        return false;
    }
    /* no compute layer (a POSIX-only set) leaves the overlap out, as in the CLI */
    if (!dfn_analysis_build(&l->an, l->s, l->ls, NULL, false, DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS, err,
                            sizeof err))
        dfn_analysis_build(&l->an, l->s, l->ls, NULL, false, DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err);
    return true;
}

static void set_free(loaded *l)
{
    dfn_analysis_free(&l->an);
    dfn_layerset_free(l->ls);
    dfn_layers_free(&l->layers);
    dfn_store_free(l->s);
}

/* What the explorer draws besides the table, after each compared row: the
 * row's sparkline, its I/O and compute sparklines and its size histogram
 * in every run, then the total sparkline. */
static void screen_write(FILE *out, const dfn_compare *c)
{
    for (size_t row = 0; row < c->nrows; row++)
        for (size_t k = 0; k < c->nruns; k++) {
            uint32_t rr = c->row[row * c->nruns + k];
            const dfn_result *r = c->res[k];
            if (rr == DFN_CMP_ABSENT || r->events) continue;
            fprintf(out, "row %zu run %zu:", row, k);
            const double *arr[3] = { r->spark, r->spark_io, r->spark_cmp };
            for (int a = 0; a < 3; a++)
                for (size_t b = 0; arr[a] && b < r->spark_bins; b++) fprintf(out, " %.17g", arr[a][rr * r->spark_bins + b]);
            for (size_t b = 0; r->sizes && b < DFN_SIZEBIN_COUNT; b++) fprintf(out, " %" PRIu64, r->sizes[rr * DFN_SIZEBIN_COUNT + b]);
            fputc('\n', out);
        }
    for (size_t k = 0; k < c->nruns; k++)
        for (size_t b = 0; c->res[k]->spark_total && b < c->res[k]->spark_bins; b++)
            fprintf(out, " %.17g", c->res[k]->spark_total[b]);
    fputc('\n', out);
}

/* The CSV of one query over runs (one, or two side by side), as `dfnav
 * report` sorts it by default; NULL with a message in err when the query
 * is refused (refused the same way for every thread count). */
static char *query_csv(loaded *const *runs, size_t nruns, const query_spec *qs, int threads, char *err, size_t errlen)
{
    dfn_query q = { .top = qs->top, .threads = threads, .sort = DFN_M_TIME_S, .desc = true };
    if (qs->screen) q.spark_bins = 37, q.spark_split = true, q.sizes = true;
    if (!dfn_dims_parse(qs->by, q.dims, &q.ndims, err, errlen)) return NULL;
    if (q.ndims && (q.dims[0].kind == DFN_DIM_TIME || q.dims[0].kind == DFN_DIM_EVENT)) q.sort = -1, q.desc = false;
    dfn_filter f;
    if (!dfn_filter_parse(qs->where, &f, err, errlen)) { dfn_dims_free(q.dims, q.ndims); return NULL; }
    q.filter = &f;
    bool ok = dfn_metrics_parse(qs->metrics, &q.metrics, NULL, err, errlen);
    q.metrics |= DFN_M_BIT(DFN_M_TIME_S);
    dfn_run rs[2];
    const char *labels[2] = { "a", "b" };
    for (size_t k = 0; k < nruns; k++) rs[k] = (dfn_run){ .s = runs[k]->s, .ls = runs[k]->ls, .an = &runs[k]->an };
    dfn_compare *c = ok ? dfn_compare_query(rs, nruns, &q, 0, nruns > 1 ? labels : NULL, err, errlen) : NULL;
    char *text = NULL;
    size_t len = 0;
    if (c) {
        FILE *out = open_memstream(&text, &len);
        if (!out) { perror("open_memstream"); exit(2); }
        dfn_compare_write(out, c, DFN_FMT_CSV);
        if (qs->screen) screen_write(out, c);
        fclose(out);
        dfn_compare_free(c);
    }
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    return text;
}

/* Line number and text of the first line where a and b differ. */
static void first_difference(const char *a, const char *b)
{
    size_t line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') { line++; la = a + 1; lb = b + 1; }
        a++, b++;
    }
    fprintf(stderr, "  line %zu:\n    1 thread: %.*s\n    now:      %.*s\n", line, (int)strcspn(la, "\n"), la,
            (int)strcspn(lb, "\n"), lb);
}

static void check(const char *set, threads_pair t, const query_spec *qs, const char *ref, const char *got,
                  const char *ref_err, const char *got_err)
{
    bool same = ref ? got && strcmp(ref, got) == 0 : !got && strcmp(ref_err, got_err) == 0;
    if (same) { passed++; return; }
    failed++;
    fprintf(stderr, "FAIL: %s: --by %s --where '%s' -m %s -n %zu: load -j %d (blocks of %zu), query -j %d differs from -j 1\n",
            set, qs->by, qs->where ? qs->where : "", qs->metrics, qs->top, t.load, t.block, t.query);
    if (ref && got) first_difference(ref, got);
    else fprintf(stderr, "  1 thread: %s\n  now:      %s\n", ref ? "a table" : ref_err, got ? "a table" : got_err);
}

/* The argument to group by: the first of the usual ones the set has. */
static const char *set_arg(const dfn_store *s)
{
    static const char *names[] = { "arg.epoch", "arg.step", "arg.fd", "arg.ret" };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (dfn_strtab_find(s->strs, names[k] + 4, strlen(names[k] + 4)) != DFN_NOID) return names[k];
    return "arg.level";
}

static const char *dims[] = { "time", "host", "pid", "tid", "proc", "cat", "func", "class", "op", "layer",
                              "file", "pattern", "dir", "fs", "sizebin", NULL /* arg */, "event" };
#define NDIMS (sizeof dims / sizeof *dims)

/* Pairs make many rows: the sums, unions and per-process and per-file
 * sets, without the histograms that the single dimensions check. */
#define PAIR_METRICS "count,time_s,busy_s,max_proc_s,bytes,files,procs"

/* The queries of one set: every dimension with each metric group and
 * filter; every pair with PAIR_METRICS (and with all metrics when long). */
static query_spec *make_queries(const dfn_store *s, form fm, size_t *n, char ***owned, size_t *nowned)
{
    const char *arg = set_arg(s);
    char *argwhere = dfn_xasprintf("%s=2", arg);
    const char *wheres[] = { NULL, "class=read|write", argwhere, "time>=0.5 time<2.5", "dur>50 cat!=POSIX" };
    const char *groups[] = { "basic", "all" };
    size_t cap = NDIMS * 11 + NDIMS * NDIMS * 2 + 8;
    query_spec *q = dfn_xcalloc(cap, sizeof *q);
    *owned = dfn_xcalloc(NDIMS * NDIMS + 2, sizeof **owned);
    (*owned)[(*nowned)++] = argwhere;
    size_t k = 0;
    for (size_t d = 0; d < NDIMS; d++) {
        const char *dim = dims[d] ? dims[d] : arg;
        size_t top = dims[d] && strcmp(dims[d], "event") == 0 ? 400 : 0;
        /* quick (the sanitizers): every metric, and the filters that take
         * their own paths (per event, by argument, a window), not also
         * the kind table's and the basic group's subset of the metrics */
        for (size_t g = fm == FORM_QUICK; g < 2; g++)
            for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++)
                if (fm != FORM_QUICK || w != 1) q[k++] = (query_spec){ dim, wheres[w], groups[g], top, false, false };
        q[k++] = (query_spec){ dim, NULL, "basic", top, false, true };
    }
    for (size_t a = 0; a < NDIMS && fm != FORM_QUICK; a++)
        for (size_t b = a + 1; b < NDIMS; b++) {
            char *by = dfn_xasprintf("%s,%s", dims[a] ? dims[a] : arg, dims[b] ? dims[b] : arg);
            (*owned)[(*nowned)++] = by;
            /* a row per call: the first second of the set is enough */
            bool calls = dims[b] && strcmp(dims[b], "event") == 0;
            q[k++] = (query_spec){ by, calls ? "time<1" : NULL, PAIR_METRICS, calls ? 400 : 0, true, false };
            if (fm == FORM_LONG) q[k++] = (query_spec){ by, calls ? "time<1" : NULL, "all", calls ? 400 : 0, true, false };
        }
    *n = k;
    return q;
}

/* Every query of set dir (and of dir beside other, compared) at each
 * thread pair against one thread. */
static void diff_set(const char *dir, const char *other, form fm)
{
    /* long: 7 threads load (with the large block) and query each apart,
     * against one thread's query or load, rather than also together: the
     * same code at a fifth less of CI's normal pass. Quick (the
     * sanitizers, where 7 threads on this machine's 2 cores cost the
     * most): 3 threads split unevenly, as 7 do. */
    static const threads_pair quick[] = { { 2, 2, 1 << 16 }, { 3, 3, 300000 } },
                              shortf[] = { { 2, 2, 1 << 16 }, { 7, 7, 300000 }, { 3, 3, 0 } },
                              longf[] = { { 2, 2, 1 << 16 }, { 3, 3, 0 }, { 1, 7, 1 << 16 }, { 7, 1, 300000 } };
#define NPAIRS(a) (sizeof (a) / sizeof *(a))
    const threads_pair *pairs = fm == FORM_LONG ? longf : fm == FORM_SHORT ? shortf : quick;
    size_t npairs = fm == FORM_LONG ? NPAIRS(longf) : fm == FORM_SHORT ? NPAIRS(shortf) : NPAIRS(quick);
    loaded ref, ref_other;
    if (!set_load(&ref, dir, 1, 0) || (other && !set_load(&ref_other, other, 1, 0))) { failed++; return; }
    size_t nq, nowned = 0;
    char **owned;
    query_spec *qs = make_queries(ref.s, fm, &nq, &owned, &nowned);
    query_spec cmp[] = { { "func", NULL, "basic", 0, false, true }, { set_arg(ref.s), NULL, "all", 0, false, false },
                         { "time", NULL, "basic", 0, false, true }, { "proc,layer", "class=read", "basic", 0, false, false },
                         { "event", NULL, "basic", 300, false, false } };
    size_t ncmp = other ? sizeof cmp / sizeof *cmp : 0;
    char **want = dfn_xcalloc(nq + ncmp, sizeof *want), **want_err = dfn_xcalloc(nq + ncmp, sizeof *want_err);
    char err[2048];
    loaded *two[2] = { &ref, &ref_other };
    for (size_t i = 0; i < nq + ncmp; i++) {
        want[i] = i < nq ? query_csv(two, 1, &qs[i], 1, err, sizeof err) : query_csv(two, 2, &cmp[i - nq], 1, err, sizeof err);
        want_err[i] = dfn_xstrdup(want[i] ? "" : err);
    }
    for (size_t p = 0; p < npairs; p++) {
        loaded set, set_other;
        if (!set_load(&set, dir, pairs[p].load, pairs[p].block) ||
            (other && !set_load(&set_other, other, pairs[p].load, pairs[p].block))) {
            failed++;
            continue;
        }
        loaded *now[2] = { &set, &set_other };
        for (size_t i = 0; i < nq + ncmp; i++) {
            const query_spec *q = i < nq ? &qs[i] : &cmp[i - nq];
            if (q->pair && fm != FORM_LONG && pairs[p].load != 3) continue;   /* pairs at 3 threads suffice when short */
            /* long: pairs with every metric at 3 threads and where the
             * load's count differs from the query's (1 and 7 both ways);
             * at 2 alone their sums, unions and sets (PAIR_METRICS),
             * which keeps CI's normal pass within its time */
            if (q->pair && fm == FORM_LONG && strcmp(q->metrics, "all") == 0 && pairs[p].load == pairs[p].query &&
                pairs[p].load != 3)
                continue;
            char *got = query_csv(now, i < nq ? 1 : 2, q, pairs[p].query, err, sizeof err);
            check(i < nq ? dir : "compare", pairs[p], q, want[i], got, want_err[i], err);
            free(got);
        }
        set_free(&set);
        if (other) set_free(&set_other);
    }
    for (size_t i = 0; i < nq + ncmp; i++) { free(want[i]); free(want_err[i]); }
    free(want);
    free(want_err);
    for (size_t i = 0; i < nowned; i++) free(owned[i]);
    free(owned);
    free(qs);
    set_free(&ref);
    if (other) set_free(&ref_other);
}

int main(int argc, char **argv)
{
    form fm = FORM_SHORT;
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--long") == 0) fm = FORM_LONG, first = 2;
    else if (argc > 1 && strcmp(argv[1], "--quick") == 0) fm = FORM_QUICK, first = 2;
    if (first >= argc) {
        fprintf(stderr, "usage: threads_diff [--quick|--long] DIR...\n");
        return 2;
    }
    for (int k = first; k < argc; k++) {
        size_t before = failed;
        /* the first two sets are also compared side by side */
        diff_set(argv[k], k == first && k + 1 < argc ? argv[k + 1] : NULL, fm);
        fprintf(stderr, "threads_diff: %s: %s\n", argv[k], failed == before ? "same for every thread count" : "DIFFERS");
    }
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
