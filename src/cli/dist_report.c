/* report under MPI without the whole set on one rank: every rank loads its
 * share of the files into a store of its own and runs the query on it;
 * the partial results (partial.h) merge up a binary tree of ranks to rank
 * 0, which prints them. A rank then holds its share, never the set, and
 * the output is the single process's. Queries partials cannot answer, and
 * shares whose hashes other files define, go the images' way (cli_dist.c):
 * the whole set on rank 0. */
#include "cli.h"
#include "dfnav/callplace.h"
#include "dfnav/counters.h"
#include "dfnav/diagnose.h"
#include "dfnav/dist.h"
#include "dfnav/estimate.h"
#include "dfnav/evrows.h"
#include "dfnav/export.h"
#include "dfnav/image.h"
#include "dfnav/partial.h"
#include "dfnav/qspec.h"
#include "dfnav/remote.h"
#include "dfnav/util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What every rank knows of one run after its load and the word of the
 * others (report and overview: the set; with --compare, each run). */
typedef struct {
    dfn_runset set;           /* its share: store NULL when it has none */
    dfn_store *sources;       /* rank 0: every rank's account of its files, in the run's load order */
    int status;               /* the load's, the largest over the ranks */
    bool any;                 /* some rank loaded something */
    bool agg;                 /* some rank has aggregated records */
    int level;                /* the layers' preset level (dfn_layers_auto_level) over the ranks */
    bool unresolved;          /* some share does not span the run, or a rank has a hash of two names */
    bool conflicts;           /* some rank has a hash of two names (damage one process names by file and line) */
    uint64_t t0, t1;          /* the run's span over the ranks (t0 UINT64_MAX: no events), which every share takes */
    char why[2048];           /* why this rank's own partial failed */
    uint64_t ncompute;        /* rank 0: the events compute matched, of the last table merged (UINT64_MAX: none was) */
    uint32_t *place;          /* calls (report --by event): each of the store's files' place among the run's, or
                               * UINT32_MAX when its path is none of the share's */
} share;

/* The runs' shares and what their queries took. */
typedef struct {
    share *run;
    size_t n;
    char **labels;            /* --compare: the runs' names, on every rank; else NULL */
    bool too_big;             /* some rank's shares would not fit in its node's memory */
    bool left;                /* a file no share holds (standard input, a pipe): only rank 0's load reads it */
    double query_s, slices_s, merge_s;   /* the slowest rank's queries, then the swaps and the tree (rank 0's clock) */
} shares;

/* dfnav serve --spread: the set's shares, loaded once and kept for every
 * client's command (cli_dist_spread_load); NULL otherwise. */
static shares *g_kept;
static dfn_runspec *g_kept_specs;   /* rank 0: the set's paths as the load walked them */
static size_t g_kept_nspecs;
static int kept_report(const cli_opts *o, int word);
static int kept_answer(const cli_opts *o, int word);
/* The command a kept set answers (kept_answer), and whether what one
 * process's load says first (the damage, the layers' choice) is said. */
static const cli_opts *g_answer_o;
static int g_answer_word;
static bool g_answer_said;
static void kept_said_first(const cli_opts *o, int word);

/* What a command on kept shares (serve --spread) says where the batch
 * would load the set whole on rank 0, the images' way: the refusal
 * (rank 0), and status 2 on every rank; -1 (the images' way) otherwise. */
static int images_way(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int images_way(const char *fmt, ...)
{
    if (!g_kept) return -1;
    if (g_answer_o && !g_answer_said) kept_said_first(g_answer_o, g_answer_word);
    if (dfn_dist_rank() == 0) {
        char why[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        fprintf(stderr, "dfnav: this server holds the set in shares on its %d rank%s (serve --spread), and this needs "
                "it whole in one process: %s (dfnav serve without --spread holds it so)\n", dfn_dist_size(),
                dfn_dist_size() == 1 ? "" : "s", why);
    }
    return 2;
}

/* The metric --sort names (METRIC[@RUN][:DIR]): -1 for the key or a
 * counter (no metric to add), -2 for what is no metric (a mistake). */
static int sort_metric(const char *sort)
{
    if (!sort) return DFN_M_TIME_S;
    size_t len = strcspn(sort, "@:");
    if ((len == 3 && memcmp(sort, "key", 3) == 0) || (len == 4 && memcmp(sort, "name", 4) == 0)) return -1;
    /* a counter's: one of the metrics' ctr.SERIES (report refuses another) */
    if (len > 4 && memcmp(sort, "ctr.", 4) == 0) return -1;
    int m = dfn_metric_parse(sort, len);
    return m < 0 ? -2 : m;
}

/* What a query's partials need of the shares: nothing; whole processes
 * (its analysis metrics, arguments inherited from enclosing calls); or
 * whole hosts (compute united by host for its overlap metrics; counter
 * metrics, whose samples of a host's telemetry count for its calls). */
enum { WHOLE_NONE, WHOLE_PROCS, WHOLE_HOSTS };

/* Whether q groups calls within other groups: each row's calls lie on
 * one rank. */
static bool query_grouped_calls(const dfn_query *q)
{
    bool any = false;
    for (size_t d = 0; d < q->ndims; d++) any |= q->dims[d].kind == DFN_DIM_EVENT;
    return any && q->ndims > 1;
}

/* Calls within other groups go to the shares with a --top of at most
 * this many: rank 0 merges that many rows a rank, about a KiB each; with
 * more, or none (every call a row), it holds the set as one process
 * would rather than every rank's rows of it. */
#define GROUPED_TOP_MAX 100000

/* Whether partials answer a query of report's (by, where, sort, top) with
 * o's metrics and layers; *whole: what they need of the shares; why
 * not in why (cap bytes). */
static bool query_probe(const cli_opts *o, const char *by, const char *where, const char *sort, size_t top, int *whole,
                        char *why, size_t cap)
{
    /* the query as report makes it (a bad one goes the usual way, which
     * says what is wrong) */
    char err[256];
    dfn_query q = { .metrics = (o->metrics ? o->metrics : DFN_M_BASIC) | DFN_M_BIT(DFN_M_AGG_CALLS), .sizes = o->sizes,
                    .ctrs = o->ctrs };
    dfn_filter f;
    if ((by && !dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err)) || !dfn_filter_parse(where, &f, err, sizeof err)) {
        snprintf(why, cap, "%s", err);
        dfn_dims_free(q.dims, q.ndims);
        return false;
    }
    q.filter = &f;
    int m = sort_metric(sort);
    if (m >= 0) q.metrics |= DFN_M_BIT(m);
    /* calls alone: each share's rows merge as they are (evrows.h) */
    bool calls = q.ndims == 1 && q.dims[0].kind == DFN_DIM_EVENT, grouped = query_grouped_calls(&q);
    /* (comparing, calls within groups are refused once loaded: the
     * images' way, as one process says it) */
    bool ok = m >= -1 && !(grouped && (o->compare || !top || top > GROUPED_TOP_MAX)) &&
              (calls || dfn_partial_supports(&q, err, sizeof err));
    if (!ok && m < -1) snprintf(why, cap, "--sort names no metric");
    else if (!ok && grouped) snprintf(why, cap, "calls within other groups add up on the ranks with a --top of 1 to %d",
                                      GROUPED_TOP_MAX);
    else if (!ok) snprintf(why, cap, "%s", err);
    /* (Chrome output names a process's track by its rank, which its
     * first thread with one gives: its threads on one rank) */
    *whole = (o->overlap_host && (q.metrics & DFN_M_OVERLAP)) || (o->ctrs && o->ctrs->n) ? WHOLE_HOSTS
             : dfn_analysis_needs(q.metrics) || dfn_query_inherits(&q) || (calls && o->format == DFN_FMT_CHROME)
                 ? WHOLE_PROCS
                 : WHOLE_NONE;
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    return ok;
}

/* A query of report's or overview's: --by, --where, --sort, --top. */
typedef struct { const char *by, *where, *sort; size_t top; } qtext;

/* overview's three queries (layers, I/O classes, busiest files), as
 * cmd_overview runs them; *where is the busiest files' (freed by the
 * caller). */
static void overview_queries(const cli_opts *o, qtext qs[3], char **where)
{
    *where = cli_busiest_where(o);
    qs[0] = (qtext){ "layer", o->where, "key", 0 };
    qs[1] = (qtext){ "class", o->where, NULL, 0 };
    qs[2] = (qtext){ "file", *where, NULL, 10 };
}

/* word's queries (report's one, overview's three) into qs; how many.
 * *where: overview's busiest files' (freed by the caller), or NULL. */
static size_t word_queries(const cli_opts *o, int word, qtext qs[3], char **where)
{
    *where = NULL;
    if (word == CLI_DIST_OVERVIEW) {
        overview_queries(o, qs, where);
        return 3;
    }
    if (word == CLI_DIST_EXTRACT) {   /* (its calls: cmd_extract's selection) */
        qs[0] = (qtext){ "event", o->where, NULL, 0 };
        return 1;
    }
    qs[0] = (qtext){ o->by, o->where, o->sort, o->top };
    return 1;
}

/* Whether report --diagnose runs on the shares: one run (a comparison
 * prints each run's findings: the images' way), a --where and a --by of
 * one dimension it takes (else the images' way, whose load says what is
 * wrong after it, as one process does). Why not in why, and *own when
 * that is report's own refusal (then why is its words). */
static bool diagnose_probe(const cli_opts *o, char *why, size_t cap, bool *own)
{
    char err[2048];
    dfn_filter f;
    *own = false;
    /* (a comparison's findings are a table per run: never CSV or JSON) */
    if (o->compare && o->format != DFN_FMT_TABLE) return snprintf(why, cap, "--diagnose --compare in CSV or JSON"), false;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) return *own = true, snprintf(why, cap, "--where: %s", err), false;
    dfn_filter_free(&f);
    dfn_query q = {0};
    if (!o->by) return true;
    bool parsed = dfn_dims_parse(o->by, q.dims, &q.ndims, err, sizeof err);
    *own = !parsed || q.ndims != 1;
    if (*own) snprintf(why, cap, "--by: %s", parsed ? "--diagnose scores the rows of one dimension" : err);
    bool ok = !*own && (q.dims[0].kind == DFN_DIM_TIME || dfn_dim_key(q.dims[0].kind) != DFN_KEY_COUNT) &&
              dfn_partial_supports(&q, err, sizeof err);
    if (!ok && !*own) snprintf(why, cap, "--diagnose by %s", o->by);
    dfn_dims_free(q.dims, q.ndims);
    return ok;
}

/* Whether report --counters runs on the shares: one run, grouped and
 * filtered as counters are (else the images' way, whose load says what
 * is wrong after it, as one process does). Each refusal is report's own
 * (*own), in its words (why). */
static bool counters_probe(const cli_opts *o, char *why, size_t cap, bool *own)
{
    *own = true;
    if (o->compare || o->diagnose || o->sort || o->top || o->metrics)
        return snprintf(why, cap, "--counters reports one run, by --by and --where (and --bin)"), false;
    char err[2048];
    dfn_cquery q = { .bin_s = o->bin_s };
    dfn_filter f;
    if (!dfn_cdims_parse(o->by, q.dims, &q.ndims, err, sizeof err)) return snprintf(why, cap, "--by: %s", err), false;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) return snprintf(why, cap, "--where: %s", err), false;
    q.filter = &f;
    bool ok = dfn_counters_check(&q, err, sizeof err);
    if (!ok) snprintf(why, cap, "--where: %s", err);
    dfn_filter_free(&f);
    return ok;
}

/* Whether partials answer word's queries (query_probe), and *whole:
 * what they need of the shares (the most of them); info's need none.
 * Why not in why (cap bytes; NULL: not wanted), and *own (may be NULL)
 * when that is report's own refusal of --counters or --diagnose, in its
 * words (a query's is said by shares_check). */
static bool word_probe(const cli_opts *o, int word, int *whole, char *why, size_t cap, bool *own)
{
    char none[4096];
    bool mine = false;
    if (!why) why = none, cap = sizeof none;
    if (!own) own = &mine;
    *own = false;
    *whole = WHOLE_NONE;
    if (word == CLI_DIST_INFO) return true;
    if (word == CLI_DIST_REPORT && o->counters) return counters_probe(o, why, cap, own);   /* (samples need no whole process) */
    if (word == CLI_DIST_REPORT && o->diagnose) {   /* (its rules read the analysis metrics) */
        *whole = o->overlap_host ? WHOLE_HOSTS : WHOLE_PROCS;
        return diagnose_probe(o, why, cap, own);
    }
    qtext qs[3];
    char *where;
    size_t nq = word_queries(o, word, qs, &where);
    bool ok = true;
    for (size_t j = 0; j < nq; j++) {
        int w = WHOLE_NONE;
        ok = query_probe(o, qs[j].by, qs[j].where, qs[j].sort, qs[j].top, &w, why, cap) && ok;
        if (w > *whole) *whole = w;
    }
    free(where);
    return ok;
}

/* What calls word's rows are: none; calls alone (--by event, and
 * extract's selection: the shares' rows merge as they are, shares_calls);
 * or calls within other groups (--by func,event: a call is a key of the
 * partials). Both kinds need each call's file and its place among the
 * run's. */
enum { CALLS_NONE, CALLS_ALONE, CALLS_GROUPED };
static int word_calls(const cli_opts *o, int word)
{
    if (word == CLI_DIST_EXTRACT) return CALLS_ALONE;
    if (word != CLI_DIST_REPORT || o->counters || o->diagnose || !o->by) return CALLS_NONE;
    char err[256];
    dfn_query q = {0};
    int kind = !dfn_dims_parse(o->by, q.dims, &q.ndims, err, sizeof err)        ? CALLS_NONE
               : q.ndims == 1 && q.dims[0].kind == DFN_DIM_EVENT                 ? CALLS_ALONE
               : query_grouped_calls(&q)                                         ? CALLS_GROUPED
                                                                                 : CALLS_NONE;
    dfn_dims_free(q.dims, q.ndims);
    return kind;
}

/* What runs on the ranks' shares: a run of one set, under a launcher. */
static bool dist_wanted(const cli_opts *o)
{
    if (g_kept) return true;   /* (serve --spread: nothing else holds the set) */
    return dfn_dist_size() >= 2 && !o->serve && !o->served && o->npaths;
}

bool cli_dist_report_wanted(const cli_opts *o)
{
    int whole;
    /* (Chrome output is of calls alone: else report refuses it, the images' way) */
    return g_kept || (dist_wanted(o) && (o->format != DFN_FMT_CHROME || word_calls(o, CLI_DIST_REPORT) == CALLS_ALONE) &&
           word_probe(o, CLI_DIST_REPORT, &whole, NULL, 0, NULL));
}

bool cli_dist_info_wanted(const cli_opts *o)
{
    return g_kept || (dist_wanted(o) && !o->compare);   /* (info refuses --compare) */
}

bool cli_dist_overview_wanted(const cli_opts *o)
{
    int whole;
    return g_kept || (dist_wanted(o) && word_probe(o, CLI_DIST_OVERVIEW, &whole, NULL, 0, NULL));
}

bool cli_dist_extract_wanted(const cli_opts *o)
{
    int whole;
    return dist_wanted(o) && word_probe(o, CLI_DIST_EXTRACT, &whole, NULL, 0, NULL);
}

/* Every rank's account of its share's files (dfn_image_sources_encode),
 * gathered into rank 0's sh->sources in the run's load order (specs: the
 * run's, on rank 0): what info prints and the damage reports say. */
static void share_sources(const dfn_runspec *specs, size_t n, const dfn_store *s, share *sh)
{
    size_t len, *lens;
    uint8_t *mine = dfn_image_sources_encode(s, &len);
    char **got = dfn_dist_gather_bytes(mine, len, &lens);
    free(mine);
    if (!got) return;   /* (another rank) */
    size_t m, lost;
    const char **all = dfn_runs_paths(specs, n, &m);
    sh->sources = dfn_image_sources_store(all, m, (const uint8_t *const *)got, lens, (size_t)dfn_dist_size(), &lost);
    if (lost) dfn_warnf(stderr, "MPI: %zu ranks' accounts of their files were damaged on the way", lost);
    free(all);
    dfn_dist_gathered_free(got, lens);
}

/* Every rank's hash definitions, the first of each, on every rank (a
 * block of store.h's records; *len bytes), when some rank's files use a
 * hash they do not define; else NULL. Collective. */
static uint8_t *share_all_defs(const dfn_store *s, size_t *len)
{
    *len = 0;
    if (!dfn_dist_max_int(s && (s->unresolved_hashes || s->unresolved_other))) return NULL;
    size_t *lens;
    char **got = dfn_dist_gather_bytes(s && s->hashdefs ? (const void *)s->hashdefs : "", s ? s->hashdefs_len : 0, &lens);
    if (!got) return (uint8_t *)dfn_dist_recv_bytes(0, len);   /* (another rank: rank 0's union) */
    dfn_strtab *seen = dfn_strtab_new();
    size_t cap = 0;
    uint8_t *all = NULL;
    dfn_hashdef d;
    for (int r = 0; r < dfn_dist_size(); r++) {
        const uint8_t *p = (const uint8_t *)got[r], *end = p ? p + lens[r] : NULL;
        for (; dfn_hashdef_read(p, end, &d); p += d.len) {   /* (a cut record ends the rank's) */
            size_t before = dfn_strtab_count(seen);
            if (dfn_strtab_intern(seen, (const char *)d.key, d.keylen) == before) {
                dfn_grow((void **)&all, &cap, *len + d.len, 1);
                memcpy(all + *len, p, d.len);
                *len += d.len;
            }
        }
    }
    dfn_strtab_free(seen);
    dfn_dist_gathered_free(got, lens);
    for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, all ? all : (const uint8_t *)"", *len);
    return all ? all : dfn_xcalloc(1, 1);
}

/* The place among the run's files of each of s's files: the place of
 * the share's path it was read by (UINT32_MAX: none). */
static uint32_t *share_places(const dfn_store *s, const char *const *mine, const uint32_t *place, size_t nmine)
{
    if (!s) return NULL;
    dfn_strtab *paths = dfn_strtab_new();
    uint32_t *first = dfn_xmalloc((nmine ? nmine : 1) * sizeof *first);   /* a path's id -> its first place */
    for (size_t k = 0; k < nmine; k++) {
        uint32_t id;
        if (dfn_strtab_add(paths, mine[k], strlen(mine[k]), &id)) first[id] = place[k];
    }
    uint32_t *out = dfn_xmalloc((s->nsrc ? s->nsrc : 1) * sizeof *out);
    for (size_t f = 0; f < s->nsrc; f++) {
        const char *p = s->src[f].path;
        uint32_t id = p ? dfn_strtab_find(paths, p, strlen(p)) : DFN_NOID;
        out[f] = id != DFN_NOID ? first[id] : UINT32_MAX;
    }
    free(first);
    dfn_strtab_free(paths);
    return out;
}

/* This rank's share of one run (named run when comparing) into sh
 * (the files mine, at places place among the run's), and the ranks'
 * word on what they loaded;
 * names: with the hash names other ranks' files define; calls: each
 * call's file kept, and each file's place. Every rank takes part. */
static void share_load(const cli_opts *o, const char *run, const dfn_runspec *specs, size_t n, const char *const *mine,
                       size_t nmine, const uint32_t *place, bool names, bool calls, share *sh)
{
    memset(sh, 0, sizeof *sh);
    /* (parsed, not from an image: the store keeps the hashes its files
     * define; calls: and each call's file, which orders calls of one
     * time among the ranks) */
    dfn_load_opts lo = { .threads = o->threads, .time_unit = o->time_unit, .sources = calls };
    dfn_store *s = cli_dist_load(o, "load", "loaded", run, mine, nmine, &lo);
    /* hashes other ranks' files define: the share read again with their
     * names, as the set's load gives them (whether two ranks' files give
     * one hash two names, hashdefs_agree says: then the images' way) */
    size_t dlen;
    uint8_t *defs = names ? share_all_defs(s, &dlen) : NULL;
    bool again = defs && s && (s->unresolved_hashes || s->unresolved_other);
    uint64_t nagain = defs ? dfn_dist_sum_u64(again) : 0;   /* (defs: on every rank or none) */
    if (nagain && dfn_dist_rank() == 0 && !o->quiet)
        dfn_warnf(stderr, "MPI: %" PRIu64 " of %d ranks read their share again with the hash names other ranks' files "
                  "define", nagain, dfn_dist_size());
    if (nagain) {
        /* (every rank takes part, one that reads nothing again too) */
        lo.defs = defs;
        lo.defs_len = dlen;
        if (again) {   /* (the first store goes first: the estimate counted one) */
            dfn_store_free(s);
            s = NULL;
        }
        dfn_store *s2 = cli_dist_load(o, "read again, with the hash names other ranks' files define,", NULL, run,
                                      again ? mine : NULL, again ? nmine : 0, &lo);
        if (again) s = s2;
    }
    free(defs);
    if (calls) sh->place = share_places(s, mine, place, nmine);
    int st = s ? dfn_store_status(s) : 3;
    share_sources(specs, n, s, sh);
    if (st == 3) { dfn_store_free(s); s = NULL; }
    sh->set.store = s;
    /* every share spans the run: its time bins and time terms are the
     * run's (a share's own start was its bins' origin) */
    sh->t0 = ~dfn_dist_max_u64(s && s->n ? ~s->t0 : 0);
    sh->t1 = dfn_dist_max_u64(s && s->n ? s->t1 : 0);
    /* (a parsed store's own span always lies inside: else the images' way) */
    bool unspanned = s && sh->t0 != UINT64_MAX && !dfn_store_rebase(s, sh->t0, sh->t1);
    /* and bounds its time bins by the run's calls, as the run's are */
    uint64_t calls_us = dfn_dist_sum_u64(s ? dfn_store_calls_us(s) : 0);
    if (s) s->set_calls_us = calls_us;
    /* a share that could not be read is damage of the set, unless none could */
    sh->any = dfn_dist_max_int(s != NULL);
    sh->status = dfn_dist_max_int(st == 3 ? (nmine ? 1 : 0) : st);
    sh->agg = dfn_dist_max_int(s && s->cnt.v);
    sh->level = dfn_dist_max_int(s ? dfn_layers_auto_level(s) : 0);
    /* (a pid given as a name travels as its text, as a tid's does; a
     * hash still unresolved is one no file defines, shown as its text by
     * the set's load too) */
    sh->conflicts = dfn_dist_max_int(s && s->hash_conflicts);
    sh->unresolved = dfn_dist_max_int(s && unspanned) || sh->conflicts;
}

/* The runs' names (--compare), as rank 0 parsed them, on every rank:
 * --sort may name one. NULL without --compare. */
static char **shares_labels(const dfn_runspec *specs, size_t n, bool compare)
{
    if (!compare) return NULL;
    size_t len = 0;
    char *text = NULL;
    if (dfn_dist_rank() == 0) {
        for (size_t k = 0; k < n; k++) len += strlen(specs[k].label) + 1;
        char *w = text = dfn_xmalloc(len ? len : 1);
        for (size_t k = 0; k < n; k++) w = stpcpy(w, specs[k].label) + 1;
        for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, text, len);
    } else {
        text = dfn_dist_recv_bytes(0, &len);
    }
    char **labels = dfn_xcalloc(n ? n : 1, sizeof *labels);
    for (size_t k = 0, at = 0; k < n; k++) {
        size_t l = text && at < len ? strnlen(text + at, len - at) : 0;
        labels[k] = dfn_xstrndup(text ? text + at : "", l);
        at += l + 1;
    }
    free(text);
    return labels;
}

/* Every run's share on this rank, checked together against its node's
 * memory before any loads (one process holds every run too). specs and
 * n: rank 0's; nruns: every rank's. */
static void shares_load(const cli_opts *o, const dfn_runspec *specs, size_t n, size_t nruns, bool by_host, bool names,
                        bool calls, uint64_t per_event, shares *all)
{
    memset(all, 0, sizeof *all);
    all->n = nruns;
    all->run = dfn_xcalloc(nruns, sizeof *all->run);
    all->labels = shares_labels(specs, nruns, o->compare);
    const char ***mine = dfn_xcalloc(nruns, sizeof *mine);
    char **lists = dfn_xcalloc(nruns, sizeof *lists);
    uint32_t **places = dfn_xcalloc(nruns, sizeof *places);
    size_t *nmine = dfn_xcalloc(nruns, sizeof *nmine);
    dfn_estimate est = {0};
    size_t left = 0;
    for (size_t k = 0; k < nruns; k++) {
        size_t l, ns;
        const dfn_runspec *sp = cli_dist_run_specs(o, specs, n, k, &ns);
        mine[k] = cli_dist_files(o, sp, ns, by_host, &nmine[k], &l, &lists[k], &places[k]);
        left += l;
        dfn_estimate_add(&est, mine[k], nmine[k]);
    }
    /* a pipe gives its bytes once: read by rank 0's load of the set, the
     * images' way, before any share is read */
    all->left = dfn_dist_bcast_int(left > 0);
    char msg[512];
    uint64_t th = (uint64_t)(o->threads > 0 ? o->threads : dfn_ncpus());
    all->too_big = !all->left &&
                   dfn_dist_max_int(!o->force && !dfn_estimate_fits(&est, th, per_event, false, msg, sizeof msg));
    for (size_t k = 0; k < nruns && !all->too_big && !all->left; k++) {
        size_t ns;
        const dfn_runspec *sp = cli_dist_run_specs(o, specs, n, k, &ns);
        share_load(o, all->labels ? all->labels[k] : NULL, sp, ns, mine[k], nmine[k], places[k], names, calls,
                   &all->run[k]);
    }
    for (size_t k = 0; k < nruns; k++) {
        free(mine[k]);
        free(lists[k]);
        free(places[k]);
    }
    free(mine);
    free(lists);
    free(places);
    free(nmine);
}

/* The paths of specs that gave no file, said as one process's load says
 * them (rank 0): how many. */
static size_t specs_said(const dfn_runspec *specs, size_t n)
{
    size_t said = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < specs[k].in.nerrors; i++, said++) dfn_warnf(stderr, "%s", specs[k].in.errors[i]);
    return said;
}

/* What a share too big for its node says (rank 0, once): status 4. */
static int shares_too_big(void)
{
    if (dfn_dist_rank() == 0)
        fprintf(stderr, "dfnav: MPI: a rank's share of the files needs more memory than its node has: more ranks, "
                "a rank a node (mpirun --map-by ppr:1:node), or --force\n");
    return 4;
}

static void shares_free(shares *all)
{
    for (size_t k = 0; k < all->n; k++) {
        dfn_runset_free(&all->run[k].set);
        dfn_store_free(all->run[k].sources);
        free(all->run[k].place);
        if (all->labels) free(all->labels[k]);
    }
    free(all->run);
    free(all->labels);
}

/* Adds one rank's hash definitions (store.h's records) to defs (kind and
 * hash -> name, names pointing into rec); false when one names another
 * name than before, or the records are not whole. */
static bool hashdefs_add(dfn_strtab *defs, const char ***names, size_t **lens, size_t *cap, const uint8_t *rec,
                         size_t len)
{
    const uint8_t *p = rec, *end = rec + len;
    dfn_hashdef d;
    for (; p < end; p += d.len) {
        if (!dfn_hashdef_read(p, end, &d)) return false;
        size_t before = dfn_strtab_count(defs);
        uint32_t id = dfn_strtab_intern(defs, (const char *)d.key, d.keylen);
        if (id < before) {
            if ((*lens)[id] != d.namelen || memcmp((*names)[id], d.name, d.namelen) != 0) return false;
            continue;
        }
        size_t c = *cap;
        dfn_grow((void **)names, cap, id + 1, sizeof **names);
        dfn_grow((void **)lens, &c, id + 1, sizeof **lens);
        (*names)[id] = d.name;
        (*lens)[id] = d.namelen;
    }
    return true;
}

/* Whether every hash names one thing across the ranks' shares: rank 0
 * reads each rank's definitions and gives the word. */
static bool hashdefs_agree(const share *sh)
{
    const dfn_store *s = sh->set.store;
    size_t *glen;
    char **got = dfn_dist_gather_bytes(s && s->hashdefs ? (const void *)s->hashdefs : "", s ? s->hashdefs_len : 0, &glen);
    if (!got) return dfn_dist_bcast_int(0);   /* (another rank: rank 0's word) */
    dfn_strtab *defs = dfn_strtab_new();
    const char **names = NULL;
    size_t *lens = NULL, cap = 0;
    bool agree = true;
    for (int r = 0; r < dfn_dist_size(); r++)
        agree = agree && got[r] && hashdefs_add(defs, &names, &lens, &cap, (const uint8_t *)got[r], glen[r]);
    dfn_dist_gathered_free(got, glen);
    free(names);
    free(lens);
    dfn_strtab_free(defs);
    return dfn_dist_bcast_int(agree);
}

/* A pid or tid as text after sep, whole however long (a number, or a
 * name as far as a NUL): how ranks tell processes and threads apart. */
static void id_put(FILE *f, const char *sep, const dfn_store *s, int64_t v)
{
    char *t = dfn_id_dup(s, v);
    fputs(sep, f);
    fputs(t, f);
    free(t);
}

/* Whether every process of the run (with by_host, every host) lies in
 * one rank's share: the plan keeps them so as their files' heads say
 * (filehead.h); the loads tell. Rank 0 reads each rank's processes by
 * their text and gives the word; on rank 0, *who names one that is not. */
static bool shares_whole(const share *sh, bool by_host, bool samples, char *who, size_t cap)
{
    const dfn_store *s = sh->set.store;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) dfn_out_of_memory("listing a share's processes", BUFSIZ);
    for (size_t i = 0; s && i < s->nlanes; i++) {   /* (a process's lanes are its threads: one line each is plenty) */
        fputs(dfn_store_str(s, s->lanes[i].host), f);
        if (!by_host) id_put(f, "/", s, s->lanes[i].pid);
        fputc(0, f);
    }
    /* a host's counter samples too: a telemetry file (samples, no calls)
     * whose head named no host, or another, may lie apart from its
     * host's calls, which its samples count for (each host once) */
    dfn_map64 hosts;
    dfn_map64_init(&hosts);
    for (size_t j = 0; by_host && s && j < s->nsamples; j++) {
        uint64_t *seen = dfn_map64_slot(&hosts, s->samples[j].host);
        if (!*seen) fprintf(f, "%s%c", dfn_store_str(s, s->samples[j].host), 0), *seen = 1;
    }
    dfn_map64_free(&hosts);
    /* samples' processes (Chrome output: a process whose samples lie
     * apart from its threads would lose its rank on its track) */
    dfn_strtab *procs = dfn_strtab_new();
    for (size_t j = 0; samples && !by_host && s && j < s->nsamples; j++) {
        uint64_t key[2] = { s->samples[j].host, (uint64_t)s->samples[j].pid };
        if (!dfn_strtab_add(procs, (const char *)key, sizeof key, NULL)) continue;
        fputs(dfn_store_str(s, s->samples[j].host), f);
        id_put(f, "/", s, s->samples[j].pid);
        fputc(0, f);
    }
    dfn_strtab_free(procs);
    fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text, len, &lens);
    free(text);
    if (!got) return dfn_dist_bcast_int(0);   /* (another rank: rank 0's word) */
    dfn_strtab *seen = dfn_strtab_new();
    int *owner = NULL;
    size_t cap_owner = 0;
    bool whole = true;
    for (int r = 0; r < dfn_dist_size() && whole; r++) {
        whole = got[r] != NULL;   /* (a lost list: the images' way, which needs none) */
        for (size_t at = 0; whole && at < lens[r];) {
            size_t l = strnlen(got[r] + at, lens[r] - at), before = dfn_strtab_count(seen);
            uint32_t id = dfn_strtab_intern(seen, got[r] + at, l);
            if (id == before) {
                dfn_grow((void **)&owner, &cap_owner, id + 1, sizeof *owner);
                owner[id] = r;
            } else if (owner[id] != r) {
                (void)dfn_fmt_safe(got[r] + at, l, who, cap);
                whole = false;
            }
            at += l + 1;
        }
    }
    free(owner);
    dfn_strtab_free(seen);
    dfn_dist_gathered_free(got, lens);
    return dfn_dist_bcast_int(whole);
}

/* One rank's lanes and what metadata named them, and its metadata of
 * processes it has no event of (store.h's foreign_meta), as text: 'L',
 * then host, pid, tid, process name, thread name and rank, each ended by
 * a NUL; then 'F' and the foreign records. */
static char *meta_text(const dfn_store *s, size_t *len)
{
    char *text = NULL;
    *len = 0;
    FILE *f = open_memstream(&text, len);
    if (!f) dfn_out_of_memory("listing a share's processes", BUFSIZ);
    for (size_t i = 0; s && i < s->nlanes; i++) {
        const dfn_lane *l = &s->lanes[i];
        uint32_t pn = dfn_store_lane_pname(s, i), tn = dfn_store_lane_tname(s, i);
        fprintf(f, "L%s%c", dfn_store_str(s, l->host), 0);
        id_put(f, "", s, l->pid);
        fputc(0, f);
        id_put(f, "", s, l->tid);
        fprintf(f, "%c%s%c%s%c%s%c", 0, pn == DFN_NOID ? "" : dfn_store_str(s, pn), 0,
                tn == DFN_NOID ? "" : dfn_store_str(s, tn), 0, dfn_store_str(s, l->rank), 0);
    }
    fputc('F', f);
    if (s && s->foreign_meta_len) fwrite(s->foreign_meta, 1, s->foreign_meta_len, f);
    fclose(f);
    return text;
}

/* The NUL-ended fields of a record at *at in t (len bytes): false when
 * they are not all there. */
static bool meta_fields(const char *t, size_t len, size_t *at, const char **field, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (*at >= len) return false;
        field[k] = t + *at;
        *at += strnlen(t + *at, len - *at) + 1;
    }
    return *at <= len;
}

/* tag, then the n texts joined by NULs (malloc'd, *len bytes) */
static char *meta_key(char tag, const char *const *f, size_t n, size_t *len)
{
    *len = 1;
    for (size_t k = 0; k < n; k++) *len += strlen(f[k]) + (k > 0);
    char *key = dfn_xmalloc(*len + 1), *w = key;
    *w++ = tag;
    for (size_t k = 0; k < n; k++) {
        if (k) *w++ = 0;
        w = stpcpy(w, f[k]);
    }
    return key;
}

/* What rank 0 has seen: each key's value (key and value ids of their own
 * tables), and the keys metadata would match lanes by, with the rank
 * whose lanes they match (MANY_RANKS: lanes of two ranks). */
enum { MANY_RANKS = -1 };
typedef struct {
    dfn_strtab *keys, *vals, *match;
    uint32_t *val;
    size_t cap;
    int *owner;
    size_t ocap;
} meta_seen;

/* A key metadata would match one of rank r's lanes by. */
static void meta_match(meta_seen *m, const char *key, size_t klen, int r)
{
    uint32_t id;
    bool fresh = dfn_strtab_add(m->match, key, klen, &id);
    dfn_grow((void **)&m->owner, &m->ocap, (size_t)id + 1, sizeof *m->owner);
    if (fresh) m->owner[id] = r;
    else if (m->owner[id] != r) m->owner[id] = MANY_RANKS;
}

/* key -> v: false when the key had another value before. */
static bool meta_note(meta_seen *m, const char *key, size_t klen, const char *v, size_t vlen)
{
    uint32_t before = dfn_strtab_count(m->keys), id = dfn_strtab_intern(m->keys, key, klen);
    uint32_t vid = dfn_strtab_intern(m->vals, v, vlen);
    if (id < before) return m->val[id] == vid;
    dfn_grow((void **)&m->val, &m->cap, id + 1, sizeof *m->val);
    m->val[id] = vid;
    return true;
}

/* One rank's lanes (meta_text's, from *at to its 'F'): false when one
 * took other names or another rank than the same process or thread did
 * on a rank before, or the text is not whole. */
static bool meta_lanes(meta_seen *m, const char *t, size_t len, size_t *at, int r)
{
    while (*at < len && t[*at] == 'L') {
        const char *f[6];
        (*at)++;
        if (!meta_fields(t, len, at, f, 6)) return false;
        size_t kl, vl = strlen(f[3]) + 1 + strlen(f[5]);
        char *v = dfn_xmalloc(vl + 1);
        memcpy(v, f[3], strlen(f[3]) + 1);
        memcpy(v + strlen(f[3]) + 1, f[5], strlen(f[5]) + 1);
        char *kp = meta_key('P', f, 2, &kl);
        bool ok = meta_note(m, kp, kl, v, vl);
        free(kp);
        free(v);
        char *kt = meta_key('T', f, 3, &kl);
        ok = ok && meta_note(m, kt, kl, f[4], strlen(f[4]));
        free(kt);
        if (!ok) return false;
        /* what a record could name it by: host or any, pid, and tid */
        const char *any[] = { f[1], f[2] };
        char *k[4] = { meta_key('h', f, 2, &kl), NULL, NULL, NULL };
        size_t l[4] = { kl };
        k[1] = meta_key('a', any, 1, &l[1]);
        k[2] = meta_key('H', f, 3, &l[2]);
        k[3] = meta_key('A', any, 2, &l[3]);
        for (int j = 0; j < 4; j++) meta_match(m, k[j], l[j], r), free(k[j]);
    }
    return *at < len && t[(*at)++] == 'F';
}

/* One rank's foreign records (from at): true when none could name a lane
 * of any rank. */
static bool meta_foreign(const meta_seen *m, const char *t, size_t len, size_t at, int r)
{
    while (at < len) {
        if (len - at < 2) return false;
        char type = t[at], any = t[at + 1];
        const char *f[3];
        at += 2;
        if (!meta_fields(t, len, &at, f, 3)) return false;
        size_t kl;
        char *key = type == 'T' ? (any == 'a' ? meta_key('A', f + 1, 2, &kl) : meta_key('H', f, 3, &kl))
                                : (any == 'a' ? meta_key('a', f + 1, 1, &kl) : meta_key('h', f, 2, &kl));
        uint32_t id = dfn_strtab_find(m->match, key, kl);
        free(key);
        /* (a record without a host comes whatever it names: it names the
         * pid on every host, so on another rank's lanes too) */
        if (id != DFN_NOID && m->owner[id] != r) return false;
    }
    return true;
}

/* Whether each process's lanes took the names and rank the set's load
 * gives them: the same on every rank that has some, and no rank's
 * metadata about a process whose events another rank holds (the set's
 * load would have named them by it). Rank 0 reads every rank's
 * meta_text and gives the word. */
static bool shares_meta_agree(const share *sh)
{
    size_t len, *lens;
    char *text = meta_text(sh->set.store, &len);
    char **got = dfn_dist_gather_bytes(text, len, &lens);
    free(text);
    if (!got) return dfn_dist_bcast_int(0);   /* (another rank: rank 0's word) */
    meta_seen m = { dfn_strtab_new(), dfn_strtab_new(), dfn_strtab_new(), NULL, 0, NULL, 0 };
    size_t *from = dfn_xcalloc((size_t)dfn_dist_size(), sizeof *from);
    bool agree = true;
    for (int r = 0; r < dfn_dist_size() && agree; r++) agree = got[r] && meta_lanes(&m, got[r], lens[r], &from[r], r);
    for (int r = 0; r < dfn_dist_size() && agree; r++) agree = meta_foreign(&m, got[r], lens[r], from[r], r);
    free(from);
    free(m.val);
    free(m.owner);
    dfn_strtab_free(m.keys);
    dfn_strtab_free(m.vals);
    dfn_strtab_free(m.match);
    dfn_dist_gathered_free(got, lens);
    return dfn_dist_bcast_int(agree);
}

/* Whether every run has each counter series of ctrs in some rank's share
 * (a share may lack one the set has). Collective. */
static bool shares_series_known(const shares *all, const dfn_ctrs *ctrs)
{
    bool known = true;
    for (size_t r = 0; r < all->n; r++)
        for (size_t k = 0; k < ctrs->n; k++) {
            const dfn_store *s = all->run[r].set.store;
            bool mine = false;
            for (size_t j = 0; s && j < s->nseries && !mine; j++) mine = strcmp(dfn_store_str(s, s->series[j]), ctrs->series[k]) == 0;
            known = dfn_dist_max_int(mine) && known;
        }
    return known;
}

/* What one process says of the runs' files as it loads them, said by
 * rank 0 from the ranks' accounts: each file's damage and the notes on
 * the set (time units, ns rounding), then a run nothing of which could be
 * read. */
static void shares_damage(const cli_opts *o, const shares *all)
{
    if (dfn_dist_rank() != 0) return;
    for (size_t k = 0; k < all->n; k++) {
        const share *sh = &all->run[k];
        if (!o->quiet && sh->sources) cli_report_damage(o, sh->sources, stderr);
        if (sh->any) continue;
        if (all->labels) dfn_warnf(stderr, "%s: nothing could be read", all->labels[k]);
        else fprintf(stderr, "dfnav: nothing could be read\n");
    }
}

/* Whether a partial was lost to a rank's own failure, and which: its
 * query, or its analysis (which one process names the run of); OWN_NOT:
 * none, or MPI lost it on the way. */
enum { OWN_NOT, OWN_QUERY, OWN_ANALYSIS };

/* What a rank sends up the tree in place of a partial it does not have:
 * a NUL (no partial begins so), then 'Q' and why its own query failed or
 * 'A' why its analysis did (said in one process's words), or 'M' and what
 * was lost on the way. */
static uint8_t *reason_bytes(int own, const char *why, size_t *len)
{
    size_t l = strlen(why);
    uint8_t *b = dfn_xmalloc(l + 2);
    b[0] = 0;
    b[1] = own == OWN_ANALYSIS ? 'A' : own ? 'Q' : 'M';
    memcpy(b + 2, why, l);
    *len = l + 2;
    return b;
}

/* A partial another rank sent (bytes, len; freed here) merged into into,
 * while ok: the new ok. What was lost goes in err (what, from whom; or
 * the sender's reason, *own when its own query failed), once. */
static bool merge_sent(dfn_partial *into, char *bytes, size_t len, bool ok, const char *what, int from, char *err,
                       size_t errlen, int *own)
{
    char why[512] = "did not come";
    if (bytes && len >= 2 && bytes[0] == 0) {   /* a reason, not a partial */
        if (ok) {
            *own = bytes[1] == 'A' ? OWN_ANALYSIS : bytes[1] == 'Q' ? OWN_QUERY : OWN_NOT;
            /* (another rank's words: no byte of them reaches a terminal raw) */
            (void)dfn_fmt_safe(bytes + 2, strnlen(bytes + 2, len - 2), err, errlen);
        }
        free(bytes);
        return false;
    }
    dfn_partial *q = bytes && len ? dfn_partial_decode((const uint8_t *)bytes, len, why, sizeof why) : NULL;
    free(bytes);
    if (!q && ok) snprintf(err, errlen, "rank %d's %s: %s", from, what, why), *own = OWN_NOT;
    if (!q || !ok) {
        dfn_partial_free(q);
        return false;
    }
    if (dfn_partial_merge(into, q, err, errlen)) return true;
    *own = OWN_NOT;
    return false;
}

/* A partial's merge up the tree (dfn_dist_tree): what this rank holds;
 * cut: calls within other groups, each merge cut to the query's --top
 * as the set's rows sort (the set's total µs and compute events). */
typedef struct {
    dfn_partial *p;
    bool ok;
    char *err;
    size_t errlen;
    int *own;
    const dfn_query *cut;
    uint64_t total, ncompute;
} reduce_ctx;

static void reduce_take(void *ctx, char *bytes, size_t len, int from)
{
    reduce_ctx *x = ctx;
    x->ok = merge_sent(x->p, bytes, len, x->ok, "partial result", from, x->err, x->errlen, x->own);
    if (x->ok && x->cut) x->p = dfn_partial_cut(x->p, x->cut, x->total, x->ncompute);
}

/* (a subtree that lost a partial sends why: never a part as the whole) */
static uint8_t *reduce_give(void *ctx, size_t *len)
{
    reduce_ctx *x = ctx;
    return x->ok ? dfn_partial_encode(x->p, len) : reason_bytes(*x->own, x->err, len);
}

/* This rank's partial merged with those below it in the tree; rank 0's
 * is the set's. NULL (rank 0: why in err, *own when a rank's own query
 * failed, as one process's would) when a partial was lost. cut: see
 * reduce_ctx (NULL: none). */
static dfn_partial *share_reduce(dfn_partial *p, char *err, size_t errlen, int *own, const dfn_query *cut,
                                 uint64_t total, uint64_t ncompute)
{
    reduce_ctx x = { p, p != NULL, err, errlen, own, cut, total, ncompute };
    dfn_dist_tree(&x, reduce_take, reduce_give);
    if (dfn_dist_rank() == 0 && x.ok) return x.p;   /* (a cut gives another) */
    dfn_partial_free(x.p);
    return NULL;
}

/* The edges of the ranks' slices of time (n + 1 of them, from 0 to the
 * end of time): weighted quantiles of samples of every rank's segment
 * starts, so that each rank gathers about as many segments. */
typedef struct { uint64_t at, weight; } sample;

static int sample_cmp(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static uint64_t *slice_edges(const dfn_partial *p)
{
    enum { SAMPLES = 4096 };
    int n = dfn_dist_size();
    uint64_t *at = dfn_xmalloc(SAMPLES * sizeof *at), stride;
    size_t k = dfn_partial_starts(p, SAMPLES, at, &stride);
    sample *mine = dfn_xmalloc((k + 1) * sizeof *mine);
    for (size_t i = 0; i < k; i++) mine[i] = (sample){ at[i], stride };
    free(at);
    uint64_t *edge = dfn_xmalloc((size_t)(n + 1) * sizeof *edge);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(mine, k * sizeof *mine, &lens);
    free(mine);
    if (!got) {   /* another rank: rank 0's edges */
        size_t len;
        char *e = dfn_dist_recv_bytes(0, &len);
        if (e && len == (size_t)(n + 1) * sizeof *edge) memcpy(edge, e, len);
        else for (int r = 0; r <= n; r++) edge[r] = r == n ? UINT64_MAX : 0;   /* (never: MPI ends a job that loses a message) */
        free(e);
        return edge;
    }
    size_t total = 0;
    for (int r = 0; r < n; r++) total += got[r] ? lens[r] / sizeof *mine : 0;
    mine = dfn_xmalloc((total + 1) * sizeof *mine);
    total = 0;
    for (int r = 0; r < n; r++) {
        size_t m = got[r] ? lens[r] / sizeof *mine : 0;
        if (m) memcpy(mine + total, got[r], m * sizeof *mine);
        total += m;
    }
    dfn_dist_gathered_free(got, lens);
    qsort(mine, total, sizeof *mine, sample_cmp);
    uint64_t weight = 0, seen = 0;
    for (size_t i = 0; i < total; i++) weight += mine[i].weight;
    edge[0] = 0;
    edge[n] = UINT64_MAX;
    for (int r = 1, i = 0; r < n; r++) {
        while ((size_t)i < total && seen + mine[i].weight <= weight * (uint64_t)r / (uint64_t)n) seen += mine[i++].weight;
        edge[r] = (size_t)i < total ? mine[i].at : UINT64_MAX;
        if (edge[r] < edge[r - 1]) edge[r] = edge[r - 1];
    }
    free(mine);
    for (int r = 1; r < n; r++) (void)dfn_dist_send_bytes(r, edge, (size_t)(n + 1) * sizeof *edge);
    return edge;
}

/* Busy time without one rank holding every segment: rank k gathers the
 * segments of every rank in slice k of time, in a ring of swaps, and
 * keeps their united lengths as sums; p keeps none. False (said in err)
 * when a piece was lost: p is the caller's still, either way. */
static bool share_slices(dfn_partial *p, char *err, size_t errlen)
{
    int me = dfn_dist_rank(), n = dfn_dist_size();
    uint64_t *edge = slice_edges(p);
    dfn_partial *mine = dfn_partial_slice(p, edge[me], edge[me + 1]);
    bool ok = true;
    for (int j = 1; j < n; j++) {
        int to = (me + j) % n, from = (me - j + n) % n;
        dfn_partial *cut = dfn_partial_slice(p, edge[to], edge[to + 1]);
        size_t len, rlen;
        uint8_t *bytes = dfn_partial_encode(cut, &len);
        dfn_partial_free(cut);
        char *got = dfn_dist_swap_bytes(to, bytes, len, from, &rlen);
        free(bytes);
        int own = OWN_NOT;
        ok = merge_sent(mine, got, rlen, ok, "slice of busy time", from, err, errlen, &own);
    }
    free(edge);
    dfn_partial_drop_segs(p);
    dfn_partial_sum_busy(mine);
    if (ok) return dfn_partial_merge(p, mine, err, errlen);
    dfn_partial_free(mine);
    return false;
}

/* The queries of a table, or of overview's three, parsed once for every
 * run (with --compare the runs are matched by them). */
enum { MAXQ = 3 };
typedef struct {
    size_t n;
    dfn_query q[MAXQ];
    dfn_filter f[MAXQ];
    int col[MAXQ];            /* the sort's column: a run, or diff or ratio (--compare) */
} queries;

/* One run's partials of those queries on this rank's share. */
typedef struct {
    dfn_partial *p[MAXQ];
    int failed[MAXQ];         /* this rank's own failure (OWN_*; why in the share's why) */
} runq;

/* q's partial of this rank's share, or an empty one (it adds nothing)
 * where the share has no store or its analysis failed (why_not: why) or
 * its query did: *failed says which (OWN_*), why in sh->why. Calls within
 * other groups: only the rows that can be among the set's first --top
 * (dfn_query_partial_top), sorted with the set's total time and, for the
 * overlap metrics, whether compute matched any call of the set; every
 * rank takes part (the sums). */
static dfn_partial *share_partial(share *sh, const dfn_query *q, const char *why_not, int *failed)
{
    char err[2048];
    bool have = sh->set.store && !why_not;
    dfn_partial *p = NULL;
    if (query_grouped_calls(q)) {
        dfn_query qs = *q;
        uint64_t nc = dfn_dist_sum_u64(have && qs.overlap ? dfn_overlap_ncompute(qs.overlap) : 0);
        if (qs.overlap) qs.set_compute = nc ? 1 : -1;
        if (have) p = dfn_query_partial_top(sh->set.store, &qs, dfn_dist_sum_u64, err, sizeof err);
        else (void)dfn_dist_sum_u64(0);   /* (the set's total: every rank adds) */
    } else if (have) {
        p = dfn_query_partial(sh->set.store, q, err, sizeof err);
    }
    *failed = !sh->set.store ? OWN_NOT : why_not ? OWN_ANALYSIS : p ? OWN_NOT : OWN_QUERY;
    if (*failed) snprintf(sh->why, sizeof sh->why, "%s", why_not ? why_not : err);
    return p ? p : dfn_partial_new(q);
}

/* Comparing, one bin width for every run's time bins, as
 * dfn_compare_run gives them, from the runs' spans over the ranks. */
static void shares_common_bin(const shares *all, size_t nq, dfn_query *q)
{
    if (!all->labels) return;
    uint64_t *span = dfn_xmalloc(all->n * sizeof *span);
    for (size_t k = 0; k < all->n; k++) span[k] = all->run[k].t0 == UINT64_MAX ? 0 : all->run[k].t1 - all->run[k].t0;
    for (size_t j = 0; j < nq; j++) q[j].bin_s = dfn_compare_bin(&q[j], span, all->n);
    free(span);
}

/* The queries as report makes them, with every run's name for --sort
 * (METRIC@RUN): 0, or 2 for one report refuses (said on rank 0; every
 * rank alike, the same options). */
static int shares_queries(const cli_opts *o, const shares *all, const qtext *qs, size_t nq, queries *qq)
{
    cli_run *runs = dfn_xcalloc(all->n, sizeof *runs);
    bool agg = false;
    for (size_t k = 0; k < all->n; k++) {
        runs[k] = (cli_run){ all->labels ? all->labels[k] : NULL, all->run[k].set };
        agg |= all->run[k].agg;
    }
    int rc = 0;
    for (qq->n = 0; qq->n < nq; qq->n++) {
        const qtext *x = &qs[qq->n];
        rc = cli_report_query(o, runs, all->n, x->by, x->where, x->sort, x->top, o->metrics, agg, &qq->q[qq->n],
                              &qq->f[qq->n], &qq->col[qq->n]);
        if (rc) break;   /* (nothing made of this one) */
    }
    if (!rc) shares_common_bin(all, nq, qq->q);
    free(runs);
    return rc;
}

static void queries_free(queries *qq)
{
    for (size_t j = 0; j < qq->n; j++) {
        dfn_filter_free(&qq->f[j]);
        dfn_dims_free(qq->q[j].dims, qq->q[j].ndims);
    }
}

/* q on this rank's share: its layers, and the analysis of whole
 * processes (dist_report saw to that) as report builds it for the set,
 * applied; false, with why in err, when that failed (no store: true). */
static bool share_analyse(const cli_opts *o, share *sh, dfn_query *q, char *err, size_t errlen)
{
    q->layers = sh->set.ls;
    q->share = true;   /* (a series only other shares have: dist_report checked the set has each) */
    dfn_run_opts ro = cli_run_opts(o);
    unsigned need = dfn_analysis_needs(q->metrics) | (dfn_query_inherits(q) ? DFN_NEED_TREE : 0);
    bool built = !sh->set.store || dfn_runset_analyse(&sh->set, &ro, need, err, errlen);
    dfn_analysis_apply(&sh->set.an, q);
    return built;
}

/* The share's analysis, layer set and store go (its layers' names stay):
 * what it gives the merges is bytes now. A kept share (serve --spread)
 * keeps its store for the next command. */
static void share_done(share *sh)
{
    dfn_analysis_free(&sh->set.an);
    memset(&sh->set.an, 0, sizeof sh->set.an);
    dfn_layerset_free(sh->set.ls);
    sh->set.ls = NULL;
    if (g_kept) return;   /* (serve --spread: the next command's) */
    dfn_store_free(sh->set.store);
    sh->set.store = NULL;
}

/* The partials of queries [j0, j1) on this rank's share of a run (an
 * empty one where it has none, or its query failed). Calls within other
 * groups, whose rows each lie on one rank, go as the rows that can be
 * among the set's --top (the probe sent them here only with one); every
 * rank takes part. */
static void share_partials(const cli_opts *o, share *sh, const queries *qq, size_t j0, size_t j1, runq *rq)
{
    char err[2048];
    for (size_t j = j0; j < j1; j++) {
        dfn_query q = qq->q[j];
        q.place = sh->place;
        bool built = share_analyse(o, sh, &q, err, sizeof err);
        rq->p[j] = share_partial(sh, &q, built ? NULL : err, &rq->failed[j]);
    }
}

/* One query's partials of every rank for one run, merged on rank 0 (NULL
 * elsewhere, or with why in err: *own, in this rank's query failed, out
 * a rank's own query's failure, which one process would say so); p is
 * spent. Every rank takes part. */
static dfn_partial *share_merged(shares *all, share *sh, const dfn_query *q, dfn_partial *p, int *own, char *err,
                                 size_t errlen, double *t_merge)
{
    bool failed = *own != OWN_NOT;
    snprintf(err, errlen, "%s", failed ? sh->why : "a rank's partial result did not come");
    double t1 = dfn_now();
    /* (every rank takes part in the swaps, a failed one with nothing) */
    char serr[1024];
    bool grouped = query_grouped_calls(q), busy = q->metrics & (DFN_M_BIT(DFN_M_BUSY_S) | DFN_M_BIT(DFN_M_IDLE_S));
    if (grouped) {
        /* calls within groups: a row's busy segments are its calls', on
         * this rank, so united here; each merge up the tree keeps the
         * first --top rows of the set's order, rank 0 at most twice that */
        dfn_partial_sum_busy(p);
    } else if (busy && !share_slices(p, serr, sizeof serr) && !failed) {
        snprintf(err, errlen, "%s", serr);
        failed = true;
    }
    uint64_t total = grouped ? dfn_dist_sum_u64(p->total) : 0, nc = grouped ? dfn_dist_sum_u64(p->ncompute) : 0;
    if (grouped) p = dfn_partial_cut(p, q, total, nc);
    double t2 = dfn_now();
    if (failed) {
        dfn_partial_free(p);
        p = NULL;
    }
    p = share_reduce(p, err, errlen, own, grouped ? q : NULL, total, nc);
    all->slices_s += t2 - t1;
    *t_merge = t2;
    return p;
}

/* The same, finished into its rows on rank 0. Comparing, the rows are
 * whole: runs are cut to --top once matched. */
static dfn_result *share_combine(shares *all, share *sh, const dfn_query *q, dfn_partial *p, int *own, char *err,
                                 size_t errlen)
{
    double t2;
    p = share_merged(all, sh, q, p, own, err, errlen, &t2);
    if (dfn_dist_rank() != 0) return NULL;
    dfn_query whole = *q;
    if (all->labels) whole.top = 0;
    sh->ncompute = p ? p->ncompute : UINT64_MAX;
    dfn_result *r = p ? dfn_partial_finish(p, &whole, &sh->set.layers, err, errlen) : NULL;
    if (p && !r) *own = OWN_NOT;
    if (r) r->merged_agg = sh->agg;   /* (calls within groups: a calls column, as the set's store has) */
    all->merge_s += dfn_now() - t2;
    return r;
}

/* What report says when the compute definition matched no event of run
 * k's merged table (the runs' own words when comparing), as one process
 * says it of the set. */
static void shares_note(const cli_opts *o, const shares *all, size_t k)
{
    const share *sh = &all->run[k];
    char *text = dfn_analysis_compute_text(&sh->set.layers, o->compute), note[512];
    if (dfn_overlap_note_of(text, sh->ncompute, false, note, sizeof note)) {
        if (all->labels) dfn_warnf(stderr, "%s: %s", all->labels[k], note);
        else dfn_warnf(stderr, "%s", note);
    }
    free(text);
}

/* Query j of every run merged on rank 0, matched across the runs when
 * comparing, and printed there unless told not to; the runs' partials of
 * it are spent. 0, or 2 when a partial was lost (said). */
static int shares_table(const cli_opts *o, shares *all, const queries *qq, runq *rq, size_t j, bool print)
{
    char err[2048], first[2064] = "";
    dfn_result **res = dfn_xcalloc(all->n, sizeof *res);
    bool ok = true;
    const char *label = NULL;   /* the run whose analysis failed, comparing */
    for (size_t k = 0; k < all->n; k++) {
        int own = rq[k].failed[j];
        res[k] = share_combine(all, &all->run[k], &qq->q[j], rq[k].p[j], &own, err, sizeof err);
        /* a rank's own query's failure in one process's words (every
         * share refuses such a query alike); a partial lost on the way,
         * MPI's */
        if (dfn_dist_rank() == 0 && !res[k] && ok) {
            snprintf(first, sizeof first, "%s%s", own ? "" : "MPI: ", err);
            if (own == OWN_ANALYSIS && all->labels) label = all->labels[k];
            ok = false;
        }
    }
    int rc = 0;
    for (size_t k = 0; dfn_dist_rank() == 0 && print && !o->quiet && (qq->q[j].metrics & DFN_M_OVERLAP) && k < all->n; k++)
        shares_note(o, all, k);
    if (dfn_dist_rank() == 0 && !ok) {
        if (print && label) dfn_warnf(stderr, "%s: %s", label, first);   /* (as report says it of a run) */
        else if (print) fprintf(stderr, "dfnav: %s\n", first);
        rc = 2;
        for (size_t k = 0; k < all->n; k++) dfn_result_free(res[k]);
    } else if (dfn_dist_rank() == 0 && print) {
        const dfn_query *q = &qq->q[j];
        dfn_compare *c = all->labels ? dfn_compare_results(res, all->n, q, qq->col[j], (const char *const *)all->labels)
                                     : dfn_compare_of(res[0], q->sort, q->desc);
        rc = cli_report_write(o, c, stdout);
    } else {
        for (size_t k = 0; k < all->n; k++) dfn_result_free(res[k]);
    }
    free(res);
    return rc;
}

/* nq queries on every run's shares: partials, then each table merged and
 * printed on rank 0 in turn until one fails. The tables are collective:
 * every rank merges every one. heads: what rank 0 prints before each. */
static int shares_run(const cli_opts *o, shares *all, const qtext *qs, size_t nq, const char *const *heads,
                      size_t *tried)
{
    queries qq;
    *tried = 0;
    int rc = shares_queries(o, all, qs, nq, &qq);
    if (rc) {
        queries_free(&qq);
        return rc;
    }
    runq *rq = dfn_xcalloc(all->n, sizeof *rq);
    /* every query's partials, then the store goes (the share is its
     * partials now, before the merges hold the others'); a kept store
     * stays, and each query's partials merge before the next's are made:
     * the peak of one query's, not of all */
    size_t step = g_kept ? 1 : nq;
    for (size_t j0 = 0; j0 < nq; j0 += step) {
        double t0 = dfn_now();
        for (size_t k = 0; k < all->n; k++) share_partials(o, &all->run[k], &qq, j0, j0 + step, &rq[k]);
        for (size_t k = 0; !g_kept && k < all->n; k++) share_done(&all->run[k]);
        /* the merge's time apart from the queries': from when the
         * slowest rank's partials are ready */
        all->query_s += dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
        for (size_t j = j0; j < j0 + step; j++) {
            if (heads && heads[j] && dfn_dist_rank() == 0 && !rc) printf("%s", heads[j]);
            if (!rc) *tried = j + 1;
            int r = shares_table(o, all, &qq, rq, j, !rc);
            if (!rc) rc = r;
        }
    }
    free(rq);
    queries_free(&qq);
    return rc;
}

/* This rank's calls of query q on its share in form, as bytes for rank
 * 0 (evrows.h). The store stays until share_done (Chrome output sends its
 * counter samples after the calls). */
static uint8_t *share_calls(const cli_opts *o, share *sh, dfn_query q, dfn_evform form, dfn_unit unit, size_t *len)
{
    char err[2048] = "";
    bool built = share_analyse(o, sh, &q, err, sizeof err);
    /* the events compute matched over the set: a call's overlap metrics
     * are undefined when none did, and the note says so */
    uint64_t nc = dfn_dist_sum_u64(q.overlap ? dfn_overlap_ncompute(q.overlap) : 0);
    bool overlap = dfn_dist_max_int(q.overlap != NULL);
    sh->ncompute = overlap ? nc : UINT64_MAX;
    if (overlap) q.set_compute = nc ? 1 : -1;
    return dfn_evrows_share(sh->set.store, &q, sh->place, built ? NULL : err, dfn_dist_sum_u64, form, unit, len);
}

/* Every rank's calls merged into q's rows on rank 0, which takes them
 * a rank at a time (mine its own, then each other rank's as it comes),
 * each merged and freed before the next: it holds the merge and one
 * rank's bytes, never every rank's at once. A rank's own failure in its
 * words (*analysis: its analysis failed), else MPI's (err); the other
 * ranks' bytes are still taken (they wait to send them). */
static dfn_result *calls_merge(uint8_t *mine, size_t len, const dfn_query *q, dfn_evform form, bool agg,
                               bool *analysis, char *err, size_t errlen)
{
    dfn_evmerge *m = dfn_evmerge_new(q->sort, form);
    *analysis = false;
    for (int k = 0; k < dfn_dist_size(); k++) {
        char why[4200];
        int failed;
        size_t l = len;
        char *got = k ? dfn_dist_recv_bytes(k, &l) : (char *)mine;
        if (!m) {   /* (refused already: the rest are taken and dropped) */
            if (k) free(got);
            continue;
        }
        bool ok = dfn_evmerge_add(m, (const uint8_t *)got, got ? l : 0, &failed, why, sizeof why);
        if (k) free(got);
        if (!ok) {
            if (failed) snprintf(err, errlen, "%s", why);
            else snprintf(err, errlen, "MPI: rank %d's calls: %s", k, why);
            *analysis = failed == 2;
            dfn_evmerge_free(m);
            m = NULL;
        }
    }
    return m ? dfn_evmerge_finish(m, q, agg) : NULL;
}

/* Whether rank 0 could not hold every rank's calls (len bytes of this
 * rank's) as the text it prints, which takes them about three times
 * while they merge: then rank 0 loads the set whole, which one process
 * would (said; what the shares' way printed is not said again), or a
 * kept set refuses (images_way). Every rank takes part. */
static bool calls_too_many(const cli_opts *o, size_t len, const char *to)
{
    uint64_t bytes = dfn_dist_sum_u64(len);
    int many = 0;
    if (dfn_dist_rank() == 0) {
        const char *why;
        uint64_t avail = dfn_mem_available(&why);
        if (avail != UINT64_MAX && bytes > avail / 3) {
            if (!o->quiet && !g_kept)
                dfn_warnf(stderr, "MPI: the calls to %s take %.1f MiB as text, more than a third of the %.1f MiB "
                          "rank 0 has (%s): rank 0 loads the set whole", to, bytes / 1048576.0, avail / 1048576.0, why);
            many = 1;
        }
    }
    many = dfn_dist_bcast_int(many);
    if (many) cli_dist_load_said();
    return many != 0;
}

/* Each run's calls merged on rank 0 into res (the runs' shares' bytes
 * spent); 0, or 2 when a run's failed (said as one process says it). */
static int runs_calls(const cli_opts *o, shares *all, const dfn_query *q, dfn_evform form, uint8_t **mine,
                      const size_t *len, dfn_result **res)
{
    int rc = 0;
    for (size_t k = 0; k < all->n; k++) {
        if (dfn_dist_rank() > 0) {
            (void)dfn_dist_send_bytes(0, mine[k], len[k]);
            free(mine[k]);
            mine[k] = NULL;
            continue;
        }
        char err[4400] = "a rank's calls did not come";
        bool analysis;
        /* (after a run's failure the others' bytes are still taken) */
        res[k] = calls_merge(mine[k], len[k], q, form, all->run[k].agg, &analysis, err, sizeof err);
        free(mine[k]);
        mine[k] = NULL;
        if (rc) {
            dfn_result_free(res[k]);
            res[k] = NULL;
        } else if (!res[k]) {
            /* a comparison names the run whose analysis failed, as report does */
            if (analysis && all->labels) dfn_warnf(stderr, "%s: %s", all->labels[k], err);
            else fprintf(stderr, "dfnav: %s\n", err);
            rc = 2;
        }
    }
    return rc;
}

/* Chrome output: each run's counter samples on the hosts of the calls
 * rank 0 prints, over their span (the window rank 0 sends every rank),
 * from every rank's share, added to the run's merged calls on rank 0.
 * Every rank takes part, whatever failed (rc: 2, then nothing merges);
 * 0, or 2 (said). */
/* Rank 0's window (w, wlen; freed here) on every rank (NULL, 0 past
 * rank 0: what comes). */
static uint8_t *window_bcast(uint8_t *w, size_t *wlen)
{
    if (dfn_dist_rank() == 0) {
        for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, w, *wlen);
        return w;
    }
    free(w);
    return (uint8_t *)dfn_dist_recv_bytes(0, wlen);
}

/* Every rank's counter samples (mine, len; freed here) added to res on
 * rank 0 in one process's order, while rc is 0; the new rc (2: said). */
static int samples_gather(dfn_result *res, uint8_t *mine, size_t len, int rc)
{
    size_t *lens;
    char **got = dfn_dist_gather_bytes(mine, len, &lens);
    free(mine);
    for (int r = 0; got && r < dfn_dist_size(); r++) {
        char err[512];
        if (!rc && res && !dfn_evsamples_add(res, (uint8_t *)got[r], got[r] ? lens[r] : 0, err, sizeof err)) {
            fprintf(stderr, "dfnav: MPI: rank %d's counter samples: %s\n", r, err);
            rc = 2;
        } else if (rc || !res) {
            free(got[r]);
        }
        got[r] = NULL;   /* (kept by the result, or freed) */
    }
    if (got && !rc && res) dfn_evsamples_finish(res);
    dfn_dist_gathered_free(got, lens);
    return rc;
}

static int runs_samples(shares *all, dfn_result **res, int rc)
{
    for (size_t k = 0; k < all->n; k++) {
        size_t wlen = 0, len;
        uint8_t *w = dfn_dist_rank() == 0 ? (res[k] ? dfn_evwindow_of(res[k], &wlen) : dfn_xcalloc(1, 1)) : NULL;
        w = window_bcast(w, &wlen);
        uint8_t *mine = dfn_evsamples_share(all->run[k].set.store, w, w ? wlen : 0, &len);
        free(w);
        rc = samples_gather(res[k], mine, len, rc);
    }
    return rc;
}

/* report --by event on the shares (of each run, comparing): each rank's
 * calls that the query matches, sorted with the run's total and cut to
 * --top, gathered on rank 0 and merged into the rows one process
 * prints. 0, 2 (said), or -1: the images' way. */
static int shares_calls(const cli_opts *o, shares *all)
{
    qtext qs = { o->by, o->where, o->sort, o->top };
    queries qq;
    int rc = shares_queries(o, all, &qs, 1, &qq);
    if (rc) {
        queries_free(&qq);
        return rc;
    }
    uint8_t **mine = dfn_xcalloc(all->n, sizeof *mine);
    size_t *len = dfn_xcalloc(all->n, sizeof *len), total = 0;
    dfn_evform form = o->format == DFN_FMT_CHROME ? DFN_EVROWS_CHROME : DFN_EVROWS_REPORT;
    double t0 = dfn_now();
    for (size_t k = 0; k < all->n; k++) {
        mine[k] = share_calls(o, &all->run[k], qq.q[0], form, DFN_UNIT_US, &len[k]);
        total += len[k];
        /* (Chrome's samples come from the store after the calls) */
        if (form == DFN_EVROWS_REPORT) share_done(&all->run[k]);
    }
    all->query_s = dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
    dfn_result **res = dfn_xcalloc(all->n, sizeof *res);
    if (calls_too_many(o, total, "print")) {
        rc = images_way("its calls take more than a third of rank 0's memory as text");
    } else {
        double t1 = dfn_now();
        rc = runs_calls(o, all, &qq.q[0], form, mine, len, res);
        if (form == DFN_EVROWS_CHROME) rc = runs_samples(all, res, rc);
        all->merge_s = dfn_now() - t1;
    }
    for (size_t k = 0; k < all->n; k++) share_done(&all->run[k]);
    if (dfn_dist_rank() == 0 && !rc) {
        const dfn_query *q = &qq.q[0];
        for (size_t k = 0; !o->quiet && (q->metrics & DFN_M_OVERLAP) && k < all->n; k++) shares_note(o, all, k);
        for (size_t k = 0; k < all->n; k++) res[k]->layers = &all->run[k].set.layers;
        dfn_compare *c = all->labels ? dfn_compare_results(res, all->n, q, qq.col[0], (const char *const *)all->labels)
                                     : dfn_compare_of(res[0], q->sort, q->desc);
        rc = cli_report_write(o, c, stdout);
    } else {
        for (size_t k = 0; k < all->n; k++) dfn_result_free(res[k]);
    }
    for (size_t k = 0; k < all->n; k++) free(mine[k]);
    free(res);
    free(mine);
    free(len);
    queries_free(&qq);
    return rc;
}

/* The set's unit of aggregated records' time arguments
 * (dfn_extract_agg_unit over every rank's share). Every rank takes part. */
static dfn_unit shares_agg_unit(const dfn_store *s)
{
    bool any;
    dfn_unit own = dfn_extract_agg_unit(s, &any);
    int code = any ? (int)own + 1 : 0;
    int hi = dfn_dist_max_int(code), lo = -dfn_dist_max_int(any ? -code : INT_MIN + 1);
    if (!hi) return DFN_UNIT_US;   /* no aggregated record anywhere */
    return hi == lo ? (dfn_unit)(hi - 1) : DFN_UNIT_NONE;
}

/* What rank 0 writes a subset from: the merged calls with their samples,
 * and every process of the set with calls. */
typedef struct { const dfn_result *r; const dfn_strtab *callers; } share_subset;

static int write_share_calls(FILE *w, void *ctx, dfn_extract_stats *st)
{
    const share_subset *x = ctx;
    return dfn_extract_write_rows(w, x->r, x->callers, st);
}

/* Every rank's processes with calls, on rank 0 (NULL elsewhere, or when
 * a rank's did not come: said). Every rank takes part. */
static dfn_strtab *shares_callers(const share *sh)
{
    size_t len, *lens;
    uint8_t *mine = dfn_extract_callers(sh->set.store, &len);
    char **got = dfn_dist_gather_bytes(mine, len, &lens);
    free(mine);
    if (!got) return NULL;
    dfn_strtab *callers = dfn_strtab_new();
    for (int r = 0; r < dfn_dist_size() && callers; r++) {
        char err[256];
        if (!dfn_extract_callers_add(callers, (const uint8_t *)got[r], got[r] ? lens[r] : 0, err, sizeof err)) {
            fprintf(stderr, "dfnav: MPI: rank %d's processes: %s\n", r, err);
            dfn_strtab_free(callers);
            callers = NULL;
        }
    }
    dfn_dist_gathered_free(got, lens);
    return callers;
}

/* What the window's note needs of the shares, while they are held: its
 * end (from the set's start) and the calls it counts, over the ranks.
 * Every rank takes part. */
typedef struct { bool timed; uint64_t events, end_us, count, active; } cut_note;

static cut_note shares_cut(const cli_opts *o, share *sh, dfn_filter *f)
{
    cut_note n = { !o->quiet && dfn_filter_uses(f, DFN_KEY_TIME), 0, 0, 0, 0 };
    if (!n.timed) return n;   /* (every rank alike: the same options) */
    const dfn_store *s = sh->set.store;
    if (s && s->n) {
        n.end_us = cli_extract_end_us(s, f);
        cli_extract_counts(o, &sh->set, f, &n.count, &n.active);
    }
    n.events = dfn_dist_sum_u64(s ? s->n : 0);
    n.end_us = dfn_dist_max_u64(n.end_us);
    n.count = dfn_dist_sum_u64(n.count);
    n.active = dfn_dist_sum_u64(n.active);
    return n;
}

/* This rank's counter samples of the window of every rank's calls (mine,
 * len: this rank's, of extract's form), which rank 0 unites from each
 * rank's own and sends back: the window of the calls it will merge.
 * Every rank takes part. */
static uint8_t *share_window_samples(const share *sh, const uint8_t *mine, size_t len, size_t *slen, uint8_t **united,
                                     size_t *ulen)
{
    size_t wlen = 0, *lens;
    uint8_t *own = dfn_evrows_window(mine, len, &wlen);
    char **got = dfn_dist_gather_bytes(own, own ? wlen : 0, &lens);
    free(own);
    uint8_t *w = NULL;
    wlen = 0;
    if (got) {   /* (a window not whole takes no sample: the merge says why) */
        w = dfn_evwindow_union(got, lens, (size_t)dfn_dist_size(), &wlen);
        if (!w) w = dfn_xcalloc(1, 1), wlen = 0;
    }
    dfn_dist_gathered_free(got, lens);
    w = window_bcast(w, &wlen);
    uint8_t *bytes = dfn_evsamples_share(sh->set.store, w, w ? wlen : 0, slen);
    *united = w;   /* (rank 0 checks the merged calls' window against it) */
    *ulen = wlen;
    return bytes;
}

/* Whether the merged calls (res, on rank 0) lie in the window the ranks'
 * own calls gave (united, ulen), whose samples they sent: else some
 * samples were never asked for (said). */
static bool window_kept(const dfn_result *res, const uint8_t *united, size_t ulen)
{
    size_t mlen;
    uint8_t *merged = dfn_evwindow_of(res, &mlen);
    bool kept = united && dfn_evwindow_within(merged, mlen, united, ulen);
    free(merged);
    if (!kept) fprintf(stderr, "dfnav: MPI: the calls merged lie outside the window of samples their ranks gave\n");
    return kept;
}

/* extract on the shares: each rank's calls that the filter selects, in
 * extract's form, merged on rank 0 in the set's order with the counter
 * samples the shares have of their hosts and span, and written as one
 * process writes the set's. 0, 2 (said), or -1: the images' way. */
static int shares_extract(const cli_opts *o, shares *all)
{
    share *sh = &all->run[0];
    char err[2048];
    dfn_filter f;
    if (!dfn_filter_parse(o->where, &f, err, sizeof err)) return 2;   /* (read before, on every rank alike) */
    dfn_query q = { .filter = &f, .sort = -1, .threads = o->threads, .ndims = 1 };
    q.dims[0].kind = DFN_DIM_EVENT;
    dfn_unit unit = shares_agg_unit(sh->set.store);
    double t0 = dfn_now();
    size_t len;
    uint8_t *mine = share_calls(o, sh, q, DFN_EVROWS_EXTRACT, unit, &len);
    all->query_s = dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
    cut_note cut = shares_cut(o, sh, &f);
    dfn_strtab *callers = shares_callers(sh);
    /* the counter samples of the calls' window, which the ranks' own
     * calls give before they merge: then every store goes, and rank 0
     * merges the calls without its share's */
    bool samples = dfn_dist_max_int(sh->set.store && sh->set.store->nsamples);
    size_t slen = 0, ulen = 0;
    uint8_t *united = NULL, *mysamples = samples ? share_window_samples(sh, mine, len, &slen, &united, &ulen) : NULL;
    share_done(sh);
    dfn_result *res = NULL;
    int rc = 0;
    /* (rank 0 holds the calls and every rank's samples at once) */
    if (calls_too_many(o, len + slen, "write")) {
        rc = images_way("its calls take more than a third of rank 0's memory as text");
        free(mysamples);
    } else {
        double t1 = dfn_now();
        rc = runs_calls(o, all, &q, DFN_EVROWS_EXTRACT, &mine, &len, &res);
        if (samples && !rc && res && !window_kept(res, united, ulen)) rc = 2;
        if (samples) rc = samples_gather(res, mysamples, slen, rc);
        if (!rc && dfn_dist_rank() == 0 && !callers) rc = 2;
        all->merge_s = dfn_now() - t1;
    }
    if (dfn_dist_rank() == 0 && !rc) {
        share_subset x = { res, callers };
        rc = cli_extract_save(o, write_share_calls, &x);
        if (!rc && cut.timed && cut.events)
            cli_extract_note(dfn_extract_rows_past(res, cut.end_us), cut.active > cut.count ? cut.active - cut.count : 0);
    }
    dfn_result_free(res);
    dfn_strtab_free(callers);
    free(united);
    free(mine);
    dfn_filter_free(&f);
    return rc;
}

/* Counter rows (bytes, len; freed here) from rank `from` merged into m,
 * while ok: the new ok, what was lost in err. */
static bool counters_sent(dfn_cresult *m, char *bytes, size_t len, bool ok, int from, char *err, size_t errlen)
{
    char why[512];
    if (ok && (!bytes || !len)) snprintf(err, errlen, "MPI: rank %d's counter rows did not come", from), ok = false;
    else if (ok && !dfn_counters_merge(m, (const uint8_t *)bytes, len, why, sizeof why))
        snprintf(err, errlen, "MPI: rank %d's counter rows: %s", from, why), ok = false;
    free(bytes);
    return ok;
}

/* Counter rows' merge up the tree (dfn_dist_tree): what this rank holds. */
typedef struct {
    dfn_cresult *m;
    bool ok;
    char *err;
    size_t errlen;
} creduce_ctx;

static void creduce_take(void *ctx, char *bytes, size_t len, int from)
{
    creduce_ctx *x = ctx;
    x->ok = counters_sent(x->m, bytes, len, x->ok, from, x->err, x->errlen);
}

/* (a subtree that lost some rows sends none: never a part as the whole) */
static uint8_t *creduce_give(void *ctx, size_t *len)
{
    creduce_ctx *x = ctx;
    return x->ok ? dfn_counters_encode(NULL, x->m, len) : NULL;
}

/* This rank's counter rows (merged, m) with those below it in the binary
 * tree of ranks, as the partials'; rank 0's are the set's. False, with
 * why in err, when some rank's were lost. */
static bool counters_reduce(dfn_cresult *m, bool ok, char *err, size_t errlen)
{
    creduce_ctx x = { m, ok, err, errlen };
    dfn_dist_tree(&x, creduce_take, creduce_give);
    return x.ok;
}

/* Counter query q (its span set here, in *span) on this rank's share,
 * merged on rank 0 into m (keys by text, not finished); false, with why
 * in err, when a rank's rows were lost. Every rank takes part. */
static bool share_cquery(shares *all, share *sh, dfn_cquery *q, dfn_cspan *span, dfn_cresult *m, char *err,
                         size_t errlen)
{
    const dfn_store *s = sh->set.store;
    bool mine = s && s->nsamples;
    uint64_t first = ~dfn_dist_max_u64(mine ? ~s->samples[0].ts : 0);
    uint64_t last = dfn_dist_max_u64(mine ? s->samples[s->nsamples - 1].ts : 0);
    /* (no samples anywhere: first is UINT64_MAX, past last) */
    *span = (dfn_cspan){ sh->t0 != UINT64_MAX ? sh->t0 : first, first, last };
    q->span = span;
    double t0 = dfn_now();
    /* this rank's rows, by their text (the others' merge into them) */
    dfn_cresult r = {0};   /* (each query clears its result first) */
    bool ok = dfn_counters_query(s, q, &r, err, errlen) && dfn_counters_query(NULL, q, m, err, errlen);
    if (ok) {
        size_t len;
        uint8_t *bytes = dfn_counters_encode(s, &r, &len);
        ok = dfn_counters_merge(m, bytes, len, err, errlen);
        free(bytes);
    }
    dfn_cresult_free(&r);
    all->query_s = dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
    double t1 = dfn_now();
    ok = counters_reduce(m, ok, err, errlen);
    all->merge_s = dfn_now() - t1;
    return ok;
}

/* report --counters on the shares: each rank's rows of its samples, in
 * the set's window (its time origin and samples over the ranks), merged
 * up the tree by their keys' text with their exact sums, and printed on
 * rank 0. 0, or 2 when a rank's rows were lost (said on rank 0). */
static int shares_counters(const cli_opts *o, shares *all)
{
    share *sh = &all->run[0];
    char err[2048];
    dfn_cquery q = { .bin_s = o->bin_s };
    dfn_filter f;
    (void)dfn_cdims_parse(o->by, q.dims, &q.ndims, err, sizeof err);   /* (counters_probe read them) */
    (void)dfn_filter_parse(o->where, &f, err, sizeof err);
    q.filter = &f;
    dfn_cspan span;
    dfn_cresult m = {0};
    bool ok = share_cquery(all, sh, &q, &span, &m, err, sizeof err);
    int rc = 0;
    if (dfn_dist_rank() == 0 && ok) {
        dfn_counters_finish(&m);
        dfn_counters_write(stdout, NULL, &m, o->format);
    } else if (dfn_dist_rank() == 0) {
        fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    dfn_cresult_free(&m);
    dfn_filter_free(&f);
    return rc;
}

/* report --diagnose on the shares: dfn_diag_src's runner. */
typedef struct {
    const cli_opts *o;
    shares *all;
    size_t run;               /* the run diagnosed (--compare: each in turn) */
} diag_ctx;

/* q on this rank's share (an empty partial without one), merged on rank
 * 0, whose rows it gives (the other ranks get rows of nothing); a query
 * that fails on rank 0 fails on every rank, so that all stop there. */
static dfn_result *share_diag_query(void *ctx, dfn_query *q, uint64_t *ncompute, char *err, size_t errlen)
{
    diag_ctx *x = ctx;
    share *sh = &x->all->run[x->run];
    q->share = true;
    q->threads = x->o->threads;
    q->layers = sh->set.ls;
    double t0 = dfn_now();
    int own;
    dfn_partial *p = share_partial(sh, q, NULL, &own);
    /* (the slowest rank's query, as the note says of a report's) */
    x->all->query_s += dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
    char cerr[2048];
    dfn_result *r = share_combine(x->all, sh, q, p, &own, cerr, sizeof cerr);
    if (dfn_dist_bcast_int(dfn_dist_rank() == 0 && !r)) {   /* (rank 0's outcome, on every rank) */
        snprintf(err, errlen, "%s%s", own ? "" : "MPI: ", dfn_dist_rank() == 0 ? cerr : "rank 0's query failed");
        dfn_result_free(r);
        return NULL;
    }
    *ncompute = sh->ncompute;
    /* the other ranks: rows of nothing, which cannot fail (a rank that
     * left the diagnosis here would leave the others waiting) */
    return dfn_dist_rank() == 0 ? r : dfn_xcalloc(1, sizeof *r);
}

/* report --diagnose of run k, its queries on the shares (each rank's
 * analysis of its whole processes, as for the analysis metrics): the
 * findings one process prints, on rank 0. 0, or 2 (said on rank 0). */
static int share_diagnose(const cli_opts *o, shares *all, size_t k)
{
    share *sh = &all->run[k];
    char err[2048];
    dfn_filter f;
    dfn_query sel = {0};
    (void)dfn_filter_parse(o->where, &f, err, sizeof err);   /* (diagnose_probe read them) */
    sel.filter = &f;   /* (its arg.NAME and path terms read the call tree too) */
    if (o->by) (void)dfn_dims_parse(o->by, sel.dims, &sel.ndims, err, sizeof err);
    unsigned need = DFN_NEED_OVERLAP | DFN_NEED_ACCESS | (dfn_query_inherits(&sel) ? DFN_NEED_TREE : 0);
    dfn_run_opts ro = cli_run_opts(o);
    int mine = sh->set.store && !dfn_runset_analyse(&sh->set, &ro, need, err, sizeof err) ? 2 : 0;
    int rc = dfn_dist_max_int(mine);
    if (rc && dfn_dist_rank() == 0)
        fprintf(stderr, "dfnav: %s\n", mine ? err : "MPI: the analysis failed on another rank's share (one process says why)");
    diag_ctx x = { o, all, k };
    dfn_diag_src src = { .s = sh->set.store, .run = share_diag_query, .ctx = &x, .layers = &sh->set.layers,
                         .overlap = true, .access = true };
    const dfn_analysis *an = sh->set.store ? &sh->set.an : NULL;
    dfn_findings *fs = rc ? NULL
                       : sel.ndims ? dfn_diagnose_rows_via(&src, sh->set.ls, &f, an, &o->thresholds, &sel.dims[0], o->bin_s,
                                                           err, sizeof err)
                                   : dfn_diagnose_via(&src, sh->set.ls, &f, an, &o->thresholds, err, sizeof err);
    if (!rc && !fs) {
        if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    if (fs && dfn_dist_rank() == 0) {
        char *compute = dfn_analysis_compute_text(&sh->set.layers, o->compute);
        dfn_findings_write(stdout, fs, &o->thresholds, compute, o->where, o->format);
        free(compute);
    }
    dfn_findings_free(fs);
    dfn_dims_free(sel.dims, sel.ndims);
    dfn_filter_free(&f);
    return rc;
}

/* report --diagnose on the shares: each run's findings in turn, under its
 * name when comparing, as one process prints them; stops at a failure. */
static int shares_diagnose(const cli_opts *o, shares *all)
{
    int rc = 0;
    for (size_t k = 0; k < all->n && !rc; k++) {
        if (all->labels && dfn_dist_rank() == 0) printf("%s== %s ==\n", k ? "\n" : "", all->labels[k]);
        rc = share_diagnose(o, all, k);
    }
    return rc;
}

/* What overview's first line counts of one run, over every rank's share:
 * events add up; processes, threads and the files accessed are told
 * apart by their text; the span is the run's (share_load's); the trace
 * files and malformed lines are the ranks' accounts'. Rank 0's is the
 * run's. */
static void share_summary(const share *sh, cli_setsum *sum)
{
    const dfn_store *s = sh->set.store;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) dfn_out_of_memory("summing up a share", BUFSIZ);
    uint64_t events = s ? s->n : 0;
    fwrite(&events, sizeof events, 1, f);
    for (size_t i = 0; s && i < s->nlanes; i++) {   /* 'P' process, 'T' thread, 'F' file: each ends with NUL */
        /* a thread by its host, pid and tid, as a store tells lanes apart
         * (its display name takes process names from metadata another
         * share may hold) */
        const dfn_lane *l = &s->lanes[i];
        fprintf(f, "P%s", dfn_store_str(s, l->host));
        id_put(f, "/", s, l->pid);
        fprintf(f, "%cT%s", 0, dfn_store_str(s, l->host));
        id_put(f, "/", s, l->pid);
        id_put(f, "/", s, l->tid);
        fputc(0, f);
    }
    for (size_t i = 1; s && i < s->nfiles; i++) fprintf(f, "F%s%c", dfn_store_str(s, s->files[i].path), 0);
    fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text, len, &lens);
    free(text);
    if (!got) return;   /* (another rank: rank 0 sums up) */
    memset(sum, 0, sizeof *sum);
    dfn_strtab *seen = dfn_strtab_new();
    for (int r = 0; r < dfn_dist_size(); r++) {
        size_t l = lens[r];
        const char *t = got[r];
        if (t && l >= sizeof events) {
            memcpy(&events, t, sizeof events);
            sum->events += events;
            for (size_t at = sizeof events; at < l;) {
                size_t n = strnlen(t + at, l - at), before = dfn_strtab_count(seen);
                if (dfn_strtab_intern(seen, t + at, n) == before)   /* new: count it */
                    *(t[at] == 'P' ? &sum->procs : t[at] == 'T' ? &sum->threads : &sum->accessed) += 1;
                at += n + 1;
            }
        }
    }
    dfn_dist_gathered_free(got, lens);
    dfn_strtab_free(seen);
    sum->span_us = sh->t0 == UINT64_MAX ? 0 : sh->t1 - sh->t0;
    sum->files = sh->sources->nsrc;
    for (size_t i = 0; i < sh->sources->nsrc; i++) sum->malformed += sh->sources->src[i].malformed;
}

/* overview on the ranks' shares: each run's first line, then the layers,
 * the I/O classes and the busiest files as report prints them (CSV and
 * JSON: the layers alone), each merged on rank 0. */
static int shares_overview(const cli_opts *o, shares *all)
{
    bool table = o->format == DFN_FMT_TABLE;
    cli_setsum *sum = dfn_xcalloc(all->n, sizeof *sum);
    for (size_t k = 0; table && k < all->n; k++) share_summary(&all->run[k], &sum[k]);
    if (table && dfn_dist_rank() == 0) {
        for (size_t k = 0; k < all->n; k++) cli_overview_line(&sum[k], all->labels ? all->labels[k] : NULL);
        printf("\nLayers (%s):\n", all->run[0].set.layers.source);
    }
    free(sum);
    qtext qs[3];
    char *files_where;
    overview_queries(o, qs, &files_where);
    static const char *const heads[3] = { NULL, "\nI/O classes:\n", "\nBusiest files:\n" };
    size_t tried;
    int rc = shares_run(o, all, qs, table ? 3 : 1, heads, &tried);
    /* (as one process: said once the busiest files' table was tried) */
    if (tried == 3 && dfn_dist_rank() == 0) printf("\nMore: dfnav report --by DIMS --where EXPR PATH... (see dfnav --help)\n");
    free(files_where);
    return rc;
}

/* Each run's layers, as one process chooses them: the preset of the
 * run's level over the ranks; comparing, DLIO's for all when any run has
 * DLIO names. A rank that fails them fails them all (the same file for
 * every rank). 0 or 2. */
/* The layers chosen for the user, said (rank 0) when a DLIO preset was,
 * so that a wrong guess shows, as one process says it. */
static void layers_choice_said(const cli_opts *o, const char *preset, const char *why)
{
    if (!o->layers && !o->quiet && dfn_dist_rank() == 0 && dfn_preset_is_dlio(preset))
        fprintf(stderr, "dfnav: layers: %s (%s; --layers chooses)\n", preset, why);
}

/* Run k's preset, as one process chooses it (comparing, one DLIO
 * flavour for every run once any run shows DLIO names), and why. */
static const char *share_preset(const shares *all, size_t k, const char **why)
{
    const char *dlio = NULL;
    for (size_t j = 0; all->labels && j < all->n && !dlio; j++) {
        const char *w, *own = dfn_layers_auto_name(all->run[j].level, &w);
        if (dfn_preset_is_dlio(own)) dlio = own;
    }
    const char *preset = dfn_layers_auto_name(all->run[k].level, why);
    if (dlio && !dfn_preset_is_dlio(preset)) preset = dlio;
    if (dlio) *why = "as for the other runs";
    return preset;
}

static int shares_layers(const cli_opts *o, shares *all)
{
    int rc = 0;
    for (size_t k = 0; k < all->n && !rc; k++) {
        share *sh = &all->run[k];
        char err[1024];
        const char *why, *preset = share_preset(all, k, &why);
        layers_choice_said(o, preset, why);
        dfn_run_opts ro = cli_run_opts(o);
        dfn_store *s = sh->set.store;
        sh->set.store = NULL;
        /* a rank without a share still names the layers' rows */
        bool ok = s ? dfn_runset_layers(&sh->set, s, &ro, o->layers ? NULL : preset, err, sizeof err)
                    : dfn_layers_load(o->layers ? o->layers : preset, &sh->set.layers, err, sizeof err);
        if (!ok && dfn_dist_rank() == 0) fprintf(stderr, "dfnav: layers: %s\n", err);
        int mine = ok ? 0 : 2;
        rc = dfn_dist_max_int(mine);
        if (rc && !mine && dfn_dist_rank() == 0)
            fprintf(stderr, "dfnav: MPI: the layers failed on another rank's share (one process says why)\n");
    }
    return rc;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Every rank's names (n of them, or why it has none: failed), united and
 * sorted on rank 0 (*m of them, malloc'd, each malloc'd); NULL there,
 * with why in err, when a rank failed (its own words) or its names were
 * lost (MPI's), and NULL on the other ranks. Every rank takes part. */
static char **names_gather(char *const *names, size_t n, const char *failed, size_t *m, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) dfn_out_of_memory("listing a share's names", BUFSIZ);
    fputc(failed ? 'E' : 'N', f);   /* (E: the rest is why) */
    if (failed) fputs(failed, f);
    for (size_t i = 0; !failed && i < n; i++) fprintf(f, "%s%c", names[i], 0);
    fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text, len, &lens);
    free(text);
    *m = 0;
    if (!got) return NULL;   /* (another rank) */
    bool ok = true;
    dfn_strtab *seen = dfn_strtab_new();
    for (int r = 0; r < dfn_dist_size() && ok; r++) {
        const char *t = got[r];
        if (!t || !lens[r]) snprintf(err, errlen, "MPI: rank %d's names did not come", r), ok = false;
        else if (t[0] == 'E') snprintf(err, errlen, "%.*s", (int)(lens[r] - 1), t + 1), ok = false;
        for (size_t at = 1; ok && at < lens[r]; at += strnlen(t + at, lens[r] - at) + 1)
            dfn_strtab_intern(seen, t + at, strnlen(t + at, lens[r] - at));
    }
    dfn_dist_gathered_free(got, lens);
    size_t k = ok ? dfn_strtab_count(seen) : 0;
    char **all = ok ? dfn_xmalloc((k ? k : 1) * sizeof *all) : NULL;
    for (size_t i = 0; i < k; i++) all[i] = dfn_xstrdup(dfn_strtab_str(seen, (uint32_t)i));
    if (k) qsort(all, k, sizeof *all, name_cmp);   /* (as one store sorts them) */
    dfn_strtab_free(seen);
    *m = k;
    return all;
}

static void names_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

/* The names of the arguments of the set's events (info --list args): each
 * rank's, united and sorted on rank 0. 0, or 2 when a share's failed. */
static int share_arg_names(const share *sh)
{
    char err[1024] = "";
    size_t n = 0, m;
    dfn_query q = {0};
    char **names = sh->set.store ? dfn_query_arg_names(sh->set.store, &q, &n, err, sizeof err) : NULL;
    bool failed = sh->set.store && !names;
    char gerr[1100];
    char **all = names_gather(names, n, failed ? err : NULL, &m, gerr, sizeof gerr);
    names_free(names, n);
    int rc = 0;
    if (dfn_dist_rank() == 0 && !all) fprintf(stderr, "dfnav: %s\n", gerr), rc = 2;
    if (all) cli_info_names(stdout, (const char *const *)all, m);
    names_free(all, m);
    return dfn_dist_bcast_int(rc);
}

/* info on the ranks' shares: rank 0 prints the ranks' accounts of their
 * files, or the set's names of arguments or layers (--list). */
static int shares_info(const cli_opts *o, const share *sh)
{
    if (o->list && strcmp(o->list, "args") == 0) return share_arg_names(sh);
    if (dfn_dist_rank() != 0) return 0;
    if (o->list) {
        const char *why;
        return cli_info_layers(o->layers ? o->layers : dfn_layers_auto_name(sh->level, &why));
    }
    cli_info_print(o, sh->sources);
    return 0;
}

/* The command (word) on the loaded shares, every rank: they agree on
 * the set's names, hold what the queries need whole, and report damage
 * as one process does. -1 when the set must go the images' way. */
static int dist_answer(const cli_opts *o, shares *all, int word)
{
    int whole;
    (void)word_probe(o, word, &whole, NULL, 0, NULL);
    int kind = word_calls(o, word);
    bool calls = kind == CALLS_ALONE, placed_calls = kind != CALLS_NONE;
    /* a hash another rank's file defines: only the whole set names it
     * (info's figures are each file's own, but a hash of two names is
     * damage only the whole set finds, as one process reports it) */
    bool agree = true;
    for (size_t k = 0; k < all->n; k++) {
        /* (both collective: every rank asks both, whatever the first said) */
        bool defs = hashdefs_agree(&all->run[k]), meta = word == CLI_DIST_INFO || shares_meta_agree(&all->run[k]);
        agree = defs && meta && !(word == CLI_DIST_INFO ? all->run[k].conflicts : all->run[k].unresolved) && agree;
    }
    if (!agree) return images_way("two ranks' files give one hash two names, or a process's metadata differs between them");
    /* calls: each file's place among the run's, or the images' way */
    bool placed = true;
    for (size_t k = 0; placed_calls && k < all->n; k++)
        for (size_t f = 0; all->run[k].set.store && f < all->run[k].set.store->nsrc; f++)
            placed &= all->run[k].place && all->run[k].place[f] != UINT32_MAX;
    if (placed_calls && dfn_dist_max_int(!placed)) return images_way("a file of calls has no place among the set's");
    /* the analysis metrics need each process whole on one rank: else the
     * set goes to rank 0 whole, as one process holds it */
    /* a counter series no share has: the images' way, whose load of the
     * set says so as one process does */
    if (word != CLI_DIST_INFO && o->ctrs && o->ctrs->n && !shares_series_known(all, o->ctrs))
        return images_way("a counter series no share has");
    if (whole != WHOLE_NONE) {
        bool hosts = whole == WHOLE_HOSTS, all_whole = true;
        char who[256] = "";
        bool samples = calls && o->format == DFN_FMT_CHROME;
        for (size_t k = 0; k < all->n; k++)
            all_whole = shares_whole(&all->run[k], hosts, samples, who, sizeof who) && all_whole;
        if (!all_whole && g_kept)
            return images_way("the events of %s %s lie in files on two ranks, and %s", hosts ? "host" : "process",
                              *who ? who : "(lost)", hosts ? "compute united by host needs each host whole" :
                              "the analysis metrics need each process whole");
        if (!all_whole) {
            if (dfn_dist_rank() == 0 && !o->quiet)
                dfn_warnf(stderr, "MPI: the events of %s %s lie in files that went to two ranks: rank 0 loads the set "
                          "whole for the analysis metrics", hosts ? "host" : "process", *who ? who : "(lost)");
            return -1;
        }
    }
    shares_damage(o, all);
    g_answer_said = true;   /* (and the layers' choice, next) */
    int rc = 0, status = 0;
    for (size_t k = 0; k < all->n; k++) {
        if (!all->run[k].any) rc = 3;
        if (all->run[k].status > status) status = all->run[k].status;
    }
    if (!rc && word == CLI_DIST_INFO) rc = shares_info(o, &all->run[0]);
    else if (!rc) rc = shares_layers(o, all);
    if (!rc && word == CLI_DIST_OVERVIEW) rc = shares_overview(o, all);
    else if (!rc && word == CLI_DIST_EXTRACT) rc = shares_extract(o, all);
    else if (!rc && word == CLI_DIST_REPORT && o->diagnose) rc = shares_diagnose(o, all);
    else if (!rc && word == CLI_DIST_REPORT && o->counters) rc = shares_counters(o, all);
    else if (!rc && calls) rc = shares_calls(o, all);
    else if (!rc && word == CLI_DIST_REPORT) {
        qtext qs = { o->by, o->where, o->sort, o->top };
        size_t tried;
        rc = shares_run(o, all, &qs, 1, NULL, &tried);
    }
    int wr = dfn_dist_rank() == 0 ? cli_write_status(stdout) : 0;
    return rc ? rc : wr ? wr : status;
}

/* Every rank: load, then the command on the shares. -1 when the set must
 * go the images' way. specs and n: rank 0's; nruns: every rank's. */
static int dist_report(const cli_opts *o, const dfn_runspec *specs, size_t n, size_t nruns, shares *all, int word)
{
    /* a process's files together on one rank; a host's only when compute
     * united by host is asked for (a job of one host would be one rank) */
    int whole;
    (void)word_probe(o, word, &whole, NULL, 0, NULL);
    /* (info's accounts of the files name no hash) */
    int kind = word_calls(o, word);
    shares_load(o, specs, n, nruns, whole == WHOLE_HOSTS, word != CLI_DIST_INFO, kind != CALLS_NONE, DFN_EST_CLI_PER_EVENT,
                all);
    if (all->left) return -1;
    if (all->too_big) return shares_too_big();
    return dist_answer(o, all, word);
}

/* Whether report takes the queries of word (report's, or overview's
 * three) with these runs' names: 0, or 2 (said). */
static int shares_check(const cli_opts *o, const dfn_runspec *specs, size_t n, int word)
{
    /* (report's probes read theirs; extract's filter was read before) */
    if ((word == CLI_DIST_REPORT && (o->counters || o->diagnose)) || word == CLI_DIST_EXTRACT) return 0;
    cli_run *runs = dfn_xcalloc(n, sizeof *runs);
    for (size_t k = 0; k < n; k++) runs[k].label = specs[k].label;
    qtext qs[3];
    char *files_where;
    size_t nq = word_queries(o, word, qs, &files_where);
    int rc = 0;
    for (size_t j = 0; j < nq && !rc; j++) {
        dfn_query q;
        dfn_filter f;
        int col;
        rc = cli_report_query(o, runs, o->compare ? n : 1, qs[j].by, qs[j].where, qs[j].sort, qs[j].top, o->metrics,
                              false, &q, &f, &col);
        if (rc) break;
        char err[256];
        if (o->compare && !dfn_compare_takes(&q, err, sizeof err)) {   /* (report says it once the runs loaded) */
            fprintf(stderr, "dfnav: %s\n", err);
            rc = 2;
        }
        dfn_filter_free(&f);
        dfn_dims_free(q.dims, q.ndims);
    }
    free(files_where);
    free(runs);
    return rc;
}

/* shares_check with this rank's stderr muted: a query report refuses
 * goes the images' way, whose load says it where one process does (after
 * the load's damage, with its status). */
static int shares_check_quietly(const cli_opts *o, const dfn_runspec *specs, size_t n, int word)
{
    fflush(stderr);
    int keep = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (keep < 0 || null < 0) {   /* (no descriptor to spare: not the shares' way) */
        if (keep >= 0) close(keep);
        if (null >= 0) close(null);
        return 2;
    }
    dup2(null, STDERR_FILENO);
    close(null);
    int rc = shares_check(o, specs, n, word);
    fflush(stderr);
    dup2(keep, STDERR_FILENO);
    close(keep);
    return rc;
}

int cli_dist_report(const cli_opts *o, int word)
{
    if (g_kept) return kept_report(o, word);
    dfn_runspec *specs;
    size_t n;
    if (!cli_runs_parse(o, &specs, &n)) return 2;
    size_t files = 0;
    bool empty_run = false, stdin_too = false;
    for (size_t k = 0; k < n; k++) {
        files += specs[k].in.n;
        empty_run |= specs[k].in.n == 0;
        for (size_t i = 0; i < specs[k].in.n; i++) stdin_too |= strcmp(specs[k].in.paths[i], "-") == 0;
    }
    /* the images' way: a run without files (one process says which),
     * standard input (rank 0's load reads it, once), a query report
     * refuses (said after the load, as one process does) */
    if ((o->compare && empty_run) || stdin_too || (word != CLI_DIST_INFO && shares_check_quietly(o, specs, n, word))) {
        dfn_runs_free(specs, n);
        return -1;
    }
    size_t input_errors = specs_said(specs, n);
    cli_dist_inputs_said();
    if (!files) {
        fprintf(stderr, "dfnav: no trace file to read\n");
        dfn_runs_free(specs, n);
        cli_dist_tell(CLI_DIST_STOP);
        return 3;
    }
    cli_dist_tell(word);
    size_t nruns = o->compare ? n : 1;
    (void)dfn_dist_bcast_int((int)nruns);
    shares all;
    int rc = dist_report(o, specs, n, nruns, &all, word);
    shares_free(&all);
    dfn_runs_free(specs, n);
    if ((rc == 0 || rc == 1) && !o->quiet && word == CLI_DIST_INFO)
        dfn_warnf(stderr, "MPI: %d ranks: each read its share of the files; rank 0 gathered their accounts",
                  dfn_dist_size());
    else if ((rc == 0 || rc == 1) && !o->quiet)   /* (the query ran) */
        dfn_warnf(stderr, "MPI: %d ranks: each queried its share of the files; rank 0 merged the results (queries "
                  "%.2f s, busy slices %.2f s, merge %.2f s)", dfn_dist_size(), all.query_s, all.slices_s, all.merge_s);
    if (rc == 0 && input_errors) rc = 1;
    /* every rank ends with rank 0's status: the launcher gives the first
     * rank's that fails, which must be one process's */
    rc = dfn_dist_bcast_int(rc);
    if (rc < 0) cli_dist_reopen();   /* the images' way gives the next word, or the exit does */
    return rc;
}

int cli_dist_report_worker(const cli_opts *o, int word)
{
    if (g_kept) return dfn_dist_bcast_int(kept_answer(o, word));
    size_t nruns = (size_t)dfn_dist_bcast_int(1);
    shares all;
    int rc = dist_report(o, NULL, 0, nruns, &all, word);
    shares_free(&all);
    rc = dfn_dist_bcast_int(rc);   /* (rank 0's) */
    if (rc >= 0) return rc;
    /* the images' way: rank 0's load gives the word again */
    return cli_dist_worker(o);
}

static void session_end(void);

/* A command on the kept shares, every rank: it builds its own layers and
 * analyses, as one process does, and they go with it. */
static int kept_answer(const cli_opts *o, int word)
{
    session_end();   /* (a command builds its own layers, as one process does) */
    for (size_t k = 0; k < g_kept->n; k++) {
        g_kept->run[k].why[0] = 0;
        g_kept->run[k].ncompute = 0;
    }
    g_kept->query_s = g_kept->slices_s = g_kept->merge_s = 0;
    g_answer_o = o;
    g_answer_word = word;
    g_answer_said = false;
    int rc = dist_answer(o, g_kept, word);
    g_answer_o = NULL;
    /* (the server idles long between commands) */
    for (size_t k = 0; k < g_kept->n; k++) dfn_runset_release(&g_kept->run[k].set);
    return rc;
}

/* What one process's load says before a refusal (rank 0): the damage
 * and, but for info, the layers' choice. */
static void kept_said_first(const cli_opts *o, int word)
{
    g_answer_said = true;
    shares_damage(o, g_kept);
    for (size_t k = 0; word != CLI_DIST_INFO && k < g_kept->n; k++) {
        const char *why, *preset = share_preset(g_kept, k, &why);
        layers_choice_said(o, preset, why);
    }
}

/* cli_dist_report on the kept shares (rank 0): a query partials cannot
 * answer is refused, in report's words when report refuses it; the
 * others answer with every rank. */
static int kept_report(const cli_opts *o, int word)
{
    int whole;
    char why[4096] = "";
    size_t input_errors = specs_said(g_kept_specs, g_kept_nspecs);   /* (first, as a load says them) */
    bool own;
    if (word != CLI_DIST_INFO && !word_probe(o, word, &whole, why, sizeof why, &own)) {
        cli_dist_tell(CLI_DIST_STOP);
        kept_said_first(o, word);
        if (own) fprintf(stderr, "dfnav: %s\n", why);
        int rc = own ? 2 : shares_check(o, g_kept_specs, g_kept_nspecs, word);
        return rc ? rc : images_way("%s", why);
    }
    cli_dist_tell(word);
    int rc = dfn_dist_bcast_int(kept_answer(o, word));
    return rc == 0 && input_errors ? 1 : rc;
}

/* ---- the explorer on the kept shares (serve --spread) ---- */

/* The layers and analyses an explorer's queries built stay between them
 * (a keypress cannot wait for a set's overlap to be built again): those
 * of the options g_session names (session_key), until another command,
 * or another explorer's options, asks for its own, or the explorer ends. */
static char *g_session;

/* A session's analyses, built at its start as one process's explorer
 * builds them after its load (overlap, call tree, access patterns and
 * the tables' tiles): its keys then wait for none (the first flame view
 * took 209-353 ms for the call tree on 4 ranks of 7.5 M events). One
 * that fails is left to the queries that need it, which say why. */
static void session_analyse(const cli_opts *o)
{
    dfn_run_opts ro = cli_run_opts(o);
    char err[1024];
    for (size_t k = 0; k < g_kept->n; k++)
        if (g_kept->run[k].set.store)
            (void)dfn_runset_analyse(&g_kept->run[k].set, &ro,
                                     DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS | DFN_NEED_TILES, err, sizeof err);
}

/* What the layers and analyses are built from, as one text (each part
 * after its length: two are one only when their parts are). */
static char *session_key(const cli_opts *o)
{
    const char *l = o->layers ? o->layers : "", *c = o->compute ? o->compute : "", *i = o->io ? o->io : "";
    return dfn_xasprintf("%zu:%s%c%zu:%s%c%zu:%s%c%d", strlen(l), l, o->layers ? 'L' : '-', strlen(c), c,
                         o->compute ? 'C' : '-', strlen(i), i, o->io ? 'I' : '-', o->overlap_host);
}

static void session_end(void)
{
    if (!g_session) return;
    for (size_t k = 0; k < g_kept->n; k++) dfn_runset_release(&g_kept->run[k].set);
    free(g_session);
    g_session = NULL;
}

/* The counter series of every rank's share, by name, sorted, on rank 0
 * (*n of them, malloc'd; NULL elsewhere, or when a rank's were lost,
 * why in err). */
static char **share_series_union(const share *sh, size_t *n, char *err, size_t errlen)
{
    const dfn_store *s = sh->set.store;
    size_t k = s ? s->nseries : 0;
    char **mine = dfn_xmalloc((k ? k : 1) * sizeof *mine);
    for (size_t i = 0; i < k; i++) mine[i] = (char *)dfn_store_str(s, s->series[i]);
    char **all = names_gather(mine, k, NULL, n, err, errlen);
    free(mine);
    return all;
}

/* Whether the explorer's analysis can be the set's on these shares: each
 * process whole on one rank, and each host with --overlap-by host (rank 0
 * says why not); *hosts: every host is whole. Every rank takes part. */
static bool kept_whole(const cli_opts *o, bool *hosts)
{
    bool procs = true;
    char who[256] = "", hwho[256] = "";
    *hosts = true;
    for (size_t k = 0; k < g_kept->n; k++) {
        procs = shares_whole(&g_kept->run[k], false, false, who, sizeof who) && procs;
        *hosts = shares_whole(&g_kept->run[k], true, false, hwho, sizeof hwho) && *hosts;
    }
    if (dfn_dist_rank() == 0 && !procs)
        fprintf(stderr, "dfnav: the events of process %s lie in files on two ranks, and the analysis needs each process "
                "whole: serve this set without --spread\n", *who ? who : "(lost)");
    else if (dfn_dist_rank() == 0 && o->overlap_host && !*hosts)
        fprintf(stderr, "dfnav: the events of host %s lie in files on two ranks, and compute united by host needs each "
                "host whole: serve it with --spread --overlap-by host\n", *hwho ? hwho : "(lost)");
    return procs && (*hosts || !o->overlap_host);
}

/* The set's outline (remote.h) on stdout (rank 0; every rank takes
 * part). */
static int kept_outline(const cli_opts *o)
{
    bool hosts_whole;
    if (!kept_whole(o, &hosts_whole)) return 2;
    dfn_outline ol = { dfn_xcalloc(g_kept->n, sizeof *ol.run), g_kept->n };
    bool lost = false;
    char err[1024] = "";
    for (size_t k = 0; k < g_kept->n; k++) {
        share *sh = &g_kept->run[k];
        const char *why, *preset = share_preset(g_kept, k, &why);
        uint64_t events = 0;
        for (size_t i = 0; sh->sources && i < sh->sources->nsrc; i++) events += sh->sources->src[i].events;
        ol.run[k] = (dfn_outline_run){ .label = g_kept->labels ? g_kept->labels[k] : NULL, .preset = (char *)preset,
                                       .why = (char *)why, .agg = sh->agg, .t0 = sh->t0, .t1 = sh->t1, .events = events,
                                       .hosts_whole = hosts_whole, .store = sh->sources };   /* (rank 0's accounts) */
        ol.run[k].series = share_series_union(sh, &ol.run[k].nseries, err, sizeof err);
        lost |= dfn_dist_rank() == 0 && !ol.run[k].series;
        /* (the calls level names a call's host when the set has several) */
        const dfn_store *s = sh->set.store;
        size_t nh = 0, m = 0;
        char **hosts = dfn_xmalloc((s && s->nlanes ? s->nlanes : 1) * sizeof *hosts);
        for (size_t i = 0; s && i < s->nlanes; i++) hosts[nh++] = (char *)dfn_store_str(s, s->lanes[i].host);
        char **all = names_gather(hosts, nh, NULL, &m, err, sizeof err);
        free(hosts);
        lost |= dfn_dist_rank() == 0 && !all;
        ol.run[k].many_hosts = m > 1;
        names_free(all, m);
    }
    int rc = 0;
    if (dfn_dist_rank() == 0 && lost) {
        fprintf(stderr, "dfnav: the ranks' counter series or hosts: %s\n", err);
        rc = 2;
    } else if (dfn_dist_rank() == 0) {
        size_t len;
        uint8_t *b = dfn_outline_encode(&ol, &len);
        rc = fwrite(b, 1, len, stdout) == len ? 0 : 2;
        free(b);
    }
    for (size_t k = 0; k < ol.n; k++) names_free(ol.run[k].series, ol.run[k].nseries);
    free(ol.run);
    return rc;
}

/* The query of spec (qspec.h) on run's share into qs and *q, with this
 * rank's threads; NULL, said on rank 0, when the bytes are none or the
 * run is not the set's (every rank decodes the same bytes: each refuses
 * them alike). */
static share *kept_spec(const cli_opts *o, size_t run, const uint8_t *spec, size_t len, dfn_qspec *qs, dfn_query *q)
{
    char err[2048];
    if (!dfn_qspec_decode(spec, len, qs, err, sizeof err) || run >= g_kept->n) {
        if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: %s\n", run >= g_kept->n ? "no such run" : err);
        dfn_qspec_free(qs);
        return NULL;
    }
    *q = qs->q;
    q->threads = o->threads;
    return &g_kept->run[run];
}

/* Every rank: run's rows of the query of spec (qspec.h), merged; rank 0
 * writes their partial (partial.h) on stdout, or says why none. */
static int kept_rows(const cli_opts *o, size_t run, const uint8_t *spec, size_t len)
{
    char err[2048];
    dfn_qspec qs;
    dfn_query q;
    share *sh = kept_spec(o, run, spec, len, &qs, &q);
    if (!sh) return 2;
    bool built = share_analyse(o, sh, &q, err, sizeof err);
    int own;
    dfn_partial *p = share_partial(sh, &q, built ? NULL : err, &own);
    double t2;
    p = share_merged(g_kept, sh, &q, p, &own, err, sizeof err, &t2);
    int rc = 0;
    if (dfn_dist_rank() == 0 && p) {
        size_t blen;
        uint8_t *b = dfn_partial_encode(p, &blen);
        rc = fwrite(b, 1, blen, stdout) == blen ? 0 : 2;
        free(b);
    } else if (dfn_dist_rank() == 0) {
        fprintf(stderr, "dfnav: %s%s\n", own ? "" : "MPI: ", err);
        rc = 2;
    }
    dfn_partial_free(p);
    dfn_qspec_free(&qs);
    return rc;
}

/* The set's selection for counter query q (dfn_csel) into c: every
 * rank's hosts of the processes its filter keeps and its processes with
 * calls, united on rank 0 and sent to every rank. False, with why in
 * err, when a rank's did not come (on every rank: rank 0's word). */
static bool share_csel(const share *sh, const dfn_cquery *q, dfn_csel *c, char *err, size_t errlen)
{
    size_t hl, cl;
    uint8_t *hosts = dfn_counters_select_hosts(sh->set.store, q->filter, &hl);
    uint8_t *callers = dfn_extract_callers(sh->set.store, &cl);
    /* each rank's part: its hosts' bytes' length, then both */
    size_t ml = 8 + hl + cl;
    uint8_t *m = dfn_xmalloc(ml);
    dfn_le64_put(m, hl);
    memcpy(m + 8, hosts, hl);
    memcpy(m + 8 + hl, callers, cl);
    free(hosts);
    free(callers);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(m, ml, &lens);
    free(m);
    /* rank 0 hands every rank the parts as they came, one after another */
    char *all = NULL;
    size_t alen = 0;
    if (got) {
        FILE *f = open_memstream(&all, &alen);
        if (!f) dfn_out_of_memory("uniting the ranks' selections", BUFSIZ);
        for (int r = 0; r < dfn_dist_size(); r++) {
            uint8_t l[8];
            dfn_le64_put(l, got[r] ? lens[r] : 0);
            fwrite(l, sizeof l, 1, f);
            if (got[r] && lens[r]) fwrite(got[r], 1, lens[r], f);
        }
        fclose(f);
        dfn_dist_gathered_free(got, lens);
        for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, all, alen);
    } else {
        all = dfn_dist_recv_bytes(0, &alen);
    }
    c->hosts = dfn_strtab_new();
    c->callers = dfn_strtab_new();
    bool ok = all != NULL;
    snprintf(err, errlen, "MPI: a rank's selection of processes did not come");
    for (size_t at = 0, r = 0; ok && at < alen; r++) {
        uint64_t l = 0, h = 0;
        ok = alen - at >= 8;
        if (ok) l = dfn_le64_get((const uint8_t *)all + at), at += 8;
        ok = ok && l >= 8 && l <= alen - at;
        if (ok) h = dfn_le64_get((const uint8_t *)all + at);
        ok = ok && h <= l - 8;
        ok = ok && dfn_csel_hosts_add(c, (const uint8_t *)all + at + 8, (size_t)h, err, errlen) &&
             dfn_extract_callers_add(c->callers, (const uint8_t *)all + at + 8 + h, (size_t)(l - 8 - h), err, errlen);
        at += ok ? (size_t)l : 0;
        ok = ok && (at < alen || r + 1 == (size_t)dfn_dist_size());
    }
    free(all);
    return !dfn_dist_max_int(!ok);   /* (a rank whose copy did not come fails them all) */
}

static void csel_free(dfn_csel *c)
{
    if (c->hosts) dfn_strtab_free(c->hosts);
    if (c->callers) dfn_strtab_free(c->callers);
}

/* Every rank: run's counter rows of the query of spec (qspec.h); rank 0
 * writes the set's span (three µs: origin, first and last sample, each 8
 * bytes little-endian) and the merged rows (dfn_counters_encode) on
 * stdout, or says why none. */
static int kept_counters(size_t run, const uint8_t *spec, size_t len)
{
    char err[2048];
    dfn_cqspec cs;
    if (!dfn_cqspec_decode(spec, len, &cs, err, sizeof err) || run >= g_kept->n) {
        if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: %s\n", run >= g_kept->n ? "no such run" : err);
        dfn_cqspec_free(&cs);
        return 2;
    }
    share *sh = &g_kept->run[run];
    dfn_csel sel = {0};
    bool ok = true;
    if (cs.q.selection && dfn_counters_sel_wanted(cs.q.filter) && dfn_dist_size() > 1) {
        ok = share_csel(sh, &cs.q, &sel, err, sizeof err);
        cs.q.set_sel = &sel;
    }
    dfn_cspan span;
    dfn_cresult m = {0};
    ok = ok && share_cquery(g_kept, sh, &cs.q, &span, &m, err, sizeof err);
    int rc = 0;
    if (dfn_dist_rank() == 0 && ok) {
        uint8_t head[24];
        const uint64_t v[3] = { span.t0, span.lo, span.hi };
        for (int i = 0; i < 3; i++) dfn_le64_put(head + 8 * i, v[i]);
        size_t blen;
        uint8_t *b = dfn_counters_encode(NULL, &m, &blen);
        rc = fwrite(head, 1, sizeof head, stdout) == sizeof head && fwrite(b, 1, blen, stdout) == blen ? 0 : 2;
        free(b);
    } else if (dfn_dist_rank() == 0) {
        fprintf(stderr, "dfnav: %s\n", err);
        rc = 2;
    }
    dfn_cresult_free(&m);
    csel_free(&sel);
    dfn_cqspec_free(&cs);
    return rc;
}

/* Every rank: the names of the arguments of run's calls that the query of
 * spec selects (its filter); rank 0 writes them, sorted, each ended by a
 * NUL, on stdout, or says why none. */
static int kept_args(const cli_opts *o, size_t run, const uint8_t *spec, size_t len)
{
    char err[2048] = "";
    dfn_qspec qs;
    dfn_query q;
    share *sh = kept_spec(o, run, spec, len, &qs, &q);
    if (!sh) return 2;
    bool built = share_analyse(o, sh, &q, err, sizeof err);
    size_t n = 0, m;
    char **names = built && sh->set.store ? dfn_query_arg_names(sh->set.store, &q, &n, err, sizeof err) : NULL;
    bool failed = !built || (sh->set.store && !names);
    char gerr[2100];
    char **all = names_gather(names, n, failed ? err : NULL, &m, gerr, sizeof gerr);
    names_free(names, n);
    int rc = 0;
    if (dfn_dist_rank() == 0 && !all) fprintf(stderr, "dfnav: %s\n", gerr), rc = 2;
    for (size_t i = 0; all && i < m && !rc; i++) rc = fwrite(all[i], 1, strlen(all[i]) + 1, stdout) == strlen(all[i]) + 1 ? 0 : 2;
    names_free(all, m);
    dfn_qspec_free(&qs);
    return rc;
}

/* Every rank: a query of calls (an explorer's calls level) on run's
 * shares: its selection's totals as a partial (the set's matched and
 * sparklines), then the calls it shows, merged on rank 0 in the set's
 * order, sorted and cut as it says, which rank 0 writes as a subset of
 * the set; see cli_dist_query. */
static int kept_calls(const cli_opts *o, size_t run, const uint8_t *spec, size_t len)
{
    char err[4400] = "";
    dfn_qspec qs;
    dfn_query q;
    share *sh = kept_spec(o, run, spec, len, &qs, &q);
    if (!sh) return 2;
    /* (a level's calls are at most GROUPED_TOP_MAX: rank 0 holds them as text) */
    if (q.ndims != 1 || q.dims[0].kind != DFN_DIM_EVENT || q.top == 0 || q.top > GROUPED_TOP_MAX) {
        if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: no query of at most 100000 calls\n");
        dfn_qspec_free(&qs);
        return 2;
    }
    dfn_query tq = q;
    tq.ndims = 0;
    tq.sort = -1;
    tq.top = 0;
    tq.metrics = DFN_M_BASIC;
    bool built = share_analyse(o, sh, &tq, err, sizeof err);
    int own;
    dfn_partial *p = share_partial(sh, &tq, built ? NULL : err, &own);
    double t2;
    p = share_merged(g_kept, sh, &tq, p, &own, err, sizeof err, &t2);
    dfn_unit unit = shares_agg_unit(sh->set.store);
    size_t clen;
    uint8_t *mine = share_calls(o, sh, q, DFN_EVROWS_EXTRACT, unit, &clen);
    dfn_strtab *callers = shares_callers(sh);
    dfn_result *res = NULL;
    int rc = 0;
    if (dfn_dist_rank() > 0) {
        (void)dfn_dist_send_bytes(0, mine, clen);
    } else {
        bool analysis;
        char cerr[4400] = "a rank's calls did not come";
        res = calls_merge(mine, clen, &q, DFN_EVROWS_EXTRACT, sh->agg, &analysis, cerr, sizeof cerr);
        if (!p) fprintf(stderr, "dfnav: %s%s\n", own ? "" : "MPI: ", err), rc = 2;
        else if (!res) fprintf(stderr, "dfnav: %s\n", cerr), rc = 2;
        else if (!callers) rc = 2;   /* (said) */
    }
    free(mine);
    if (dfn_dist_rank() == 0 && !rc) {
        size_t plen;
        uint8_t *pb = dfn_partial_encode(p, &plen), head[8];
        dfn_le64_put(head, plen);
        dfn_extract_stats st;
        rc = fwrite(head, 1, 8, stdout) == 8 && fwrite(pb, 1, plen, stdout) == plen &&
             dfn_extract_write_rows(stdout, res, callers, &st) == 0 ? 0 : 2;
        free(pb);
    }
    dfn_result_free(res);
    dfn_strtab_free(callers);
    dfn_partial_free(p);
    dfn_qspec_free(&qs);
    return rc;
}

/* Every rank: the call detail's lines of the call spec names
 * (callplace.h), made by the rank that holds its process (its thread's
 * tree is whole there); rank 0 writes them, each ended by a NUL, on
 * stdout, or says why none. */
static int kept_place(const cli_opts *o, size_t run, const uint8_t *spec, size_t len)
{
    char err[2048] = "";
    uint32_t found = UINT32_MAX;
    share *sh = run < g_kept->n ? &g_kept->run[run] : NULL;
    dfn_run_opts ro = cli_run_opts(o);
    bool ok = sh && dfn_call_place_find(sh->set.store, spec, len, &found, err, sizeof err);
    if (!sh) snprintf(err, sizeof err, "no such run");
    if (ok && found != UINT32_MAX)
        ok = dfn_runset_analyse(&sh->set, &ro, DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err);
    /* mine: 'E' and why, 'N' (not here), or 'F' and the lines */
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f) dfn_out_of_memory("a call's place", BUFSIZ);
    if (!ok) {
        fprintf(f, "E%s", err);
    } else if (found == UINT32_MAX) {
        fputc('N', f);
    } else {
        size_t n;
        char **lines = dfn_call_place(sh->set.store, sh->set.an.tree, sh->set.an.access, found, &n);
        fputc('F', f);
        for (size_t k = 0; k < n; k++) fprintf(f, "%s%c", lines[k], 0);
        dfn_call_place_free(lines, n);
    }
    fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text, tlen, &lens);
    free(text);
    if (!got) return 0;   /* (another rank: rank 0's word) */
    int rc = 2, r = 0;
    const char *why = "MPI: a rank's answer did not come";
    for (; r < dfn_dist_size(); r++) {
        if (!got[r] || !lens[r]) break;
        if (got[r][0] == 'E') { why = got[r] + 1; break; }
        if (got[r][0] == 'F') { rc = 0; break; }
        why = "no rank holds this call (the set changed?)";
    }
    if (rc) fprintf(stderr, "dfnav: %s\n", why);
    else rc = fwrite(got[r] + 1, 1, lens[r] - 1, stdout) == lens[r] - 1 ? 0 : 2;
    dfn_dist_gathered_free(got, lens);
    return rc;
}

int cli_dist_query(const cli_opts *o, int op, size_t run, const uint8_t *spec, size_t len)
{
    int rc = 0;
    char *key = session_key(o);
    if (op == CLI_QUERY_END) {   /* (another explorer's stay) */
        if (g_session && strcmp(g_session, key) == 0) session_end();
        free(key);
        return dfn_dist_bcast_int(0);
    }
    if (!g_session || strcmp(g_session, key) != 0) {
        session_end();
        g_kept->query_s = g_kept->slices_s = g_kept->merge_s = 0;
        /* (the explorer shows the layers' choice of its outline) */
        cli_opts quiet = *o;
        quiet.quiet = true;
        rc = shares_layers(&quiet, g_kept);
        if (rc) {
            for (size_t k = 0; k < g_kept->n; k++) dfn_runset_release(&g_kept->run[k].set);
            free(key);
            return dfn_dist_bcast_int(rc);
        }
        g_session = key;
        key = NULL;
        session_analyse(o);
    }
    free(key);
    if (op == CLI_QUERY_OUTLINE) rc = kept_outline(o);
    else if (op == CLI_QUERY_COUNTERS) rc = kept_counters(run, spec, len);
    else if (op == CLI_QUERY_ARGS) rc = kept_args(o, run, spec, len);
    else if (op == CLI_QUERY_CALLS) rc = kept_calls(o, run, spec, len);
    else if (op == CLI_QUERY_PLACE) rc = kept_place(o, run, spec, len);
    else rc = kept_rows(o, run, spec, len);
    return dfn_dist_bcast_int(rc);
}

int cli_dist_spread_load(const cli_opts *o, uint64_t *events)
{
    static shares kept;
    dfn_runspec *specs = NULL;
    size_t n = 0;
    *events = 0;
    if (dfn_dist_rank() == 0) {
        if (!cli_runs_parse(o, &specs, &n)) {
            cli_dist_tell(CLI_DIST_STOP);
            return 2;
        }
        (void)specs_said(specs, n);
        cli_dist_inputs_said();
        /* a run without files: said as one process's load says it */
        size_t empty = 0;
        for (size_t k = 0; k < n; k++) {
            if (specs[k].in.n) continue;
            cli_run_empty_said(specs[k].label, n);
            empty++;
        }
        if (empty) {
            cli_dist_tell(CLI_DIST_STOP);
            dfn_runs_free(specs, n);
            return 3;
        }
        cli_dist_tell(CLI_DIST_SPREAD);
    }
    /* (comparing, a run a share of every rank's, as report holds them) */
    size_t nruns = (size_t)dfn_dist_bcast_int(o->compare ? (int)n : 1);
    /* (a process's files on one rank, a host's with compute united by
     * host; hash names shared; each call's file kept, for --by event) */
    shares_load(o, specs, n, nruns, o->overlap_host, true, true, DFN_EST_SERVED_PER_EVENT, &kept);
    int status = 0;
    bool unresolved = false;
    for (size_t k = 0; k < kept.n; k++) {
        int st = kept.run[k].any ? kept.run[k].status : 3;
        if (st > status) status = st;
        unresolved |= kept.run[k].unresolved;
    }
    if (kept.too_big) status = shares_too_big();
    if (status < 3 && unresolved) {
        /* (every query of it would go the images' way: refused at once) */
        if (dfn_dist_rank() == 0)
            fprintf(stderr, "dfnav: serve --spread: the ranks' files give a hash two names, or a share's events lie "
                    "outside the set's span: only the set whole names them (serve it without --spread)\n");
        status = 3;
    }
    uint64_t mine = 0;
    for (size_t k = 0; k < kept.n; k++) mine += kept.run[k].set.store ? kept.run[k].set.store->n : 0;
    *events = dfn_dist_sum_u64(mine);
    if (status < 3) {
        shares_damage(o, &kept);
        g_kept = &kept;
        g_kept_specs = specs;
        g_kept_nspecs = n;
    } else {
        shares_free(&kept);
        dfn_runs_free(specs, n);
    }
    return status;
}

void cli_dist_spread_free(void)
{
    if (!g_kept) return;
    session_end();
    shares_free(g_kept);
    dfn_runs_free(g_kept_specs, g_kept_nspecs);
    g_kept = NULL;
    g_kept_specs = NULL;
    g_kept_nspecs = 0;
}
