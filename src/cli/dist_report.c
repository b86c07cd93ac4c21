/* report under MPI without the whole set on one rank: every rank loads its
 * share of the files into a store of its own and runs the query on it;
 * the partial results (partial.h) merge up a binary tree of ranks to rank
 * 0, which prints them. A rank then holds its share, never the set, and
 * the output is the single process's. Queries partials cannot answer, and
 * shares whose hashes other files define, go the images' way (cli_dist.c):
 * the whole set on rank 0. */
#include "cli.h"
#include "dfnav/dist.h"
#include "dfnav/estimate.h"
#include "dfnav/partial.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

/* What every rank knows after its load and the word of the others. */
typedef struct {
    dfn_runset set;           /* its share: store NULL when it has none */
    int status;               /* the load's, the largest over the ranks */
    bool any;                 /* some rank loaded something */
    bool agg;                 /* some rank has aggregated records */
    int level;                /* the layers' preset level (dfn_layers_auto_level) over the ranks */
    bool unresolved;          /* some rank has a hash no file of its share defines, two names for one, or pids by name */
    bool too_big;             /* some rank's share would not fit in its node's memory */
    double query_s, slices_s, merge_s;   /* the slowest rank's query, then the swaps and the tree (rank 0's clock) */
    size_t nfiles;            /* the trace files of this rank's share, read or not */
    char why[2048];           /* why this rank's own partial failed */
} share;

/* The metric --sort names (METRIC[@RUN][:DIR]): -1 for the key, -2 for
 * what is no metric (a counter's, or a mistake). */
static int sort_metric(const char *sort)
{
    if (!sort) return DFN_M_TIME_S;
    size_t len = strcspn(sort, "@:");
    if ((len == 3 && memcmp(sort, "key", 3) == 0) || (len == 4 && memcmp(sort, "name", 4) == 0)) return -1;
    int m = dfn_metric_parse(sort, len);
    return m < 0 ? -2 : m;
}

/* Whether partials answer a query of report's (by, where, sort) with o's
 * metrics and layers. */
static bool query_wanted(const cli_opts *o, const char *by, const char *where, const char *sort)
{
    /* the query as report makes it (a bad one goes the usual way, which
     * says what is wrong) */
    char err[256];
    dfn_query q = { .metrics = (o->metrics ? o->metrics : DFN_M_BASIC) | DFN_M_BIT(DFN_M_AGG_CALLS), .sizes = o->sizes,
                    .ctrs = o->ctrs };
    dfn_filter f;
    if (by && !dfn_dims_parse(by, q.dims, &q.ndims, err, sizeof err)) return false;
    if (!dfn_filter_parse(where, &f, err, sizeof err)) {
        dfn_dims_free(q.dims, q.ndims);
        return false;
    }
    q.filter = &f;
    int m = sort_metric(sort);
    if (m >= 0) q.metrics |= DFN_M_BIT(m);
    /* arg.NAME reads enclosing calls through the call tree of a process,
     * whose files a share may not all hold; a layer file's time terms
     * count from each share's start */
    bool ok = m >= -1 && dfn_partial_supports(&q, err, sizeof err) && !dfn_query_inherits(&q);
    dfn_layers l = {0};
    if (ok && o->layers && dfn_layers_load(o->layers, &l, err, sizeof err)) ok = !dfn_layers_timed(&l);
    dfn_layers_free(&l);
    dfn_filter_free(&f);
    dfn_dims_free(q.dims, q.ndims);
    return ok;
}

/* What runs on the ranks' shares: a run of one set, under a launcher. */
static bool dist_wanted(const cli_opts *o)
{
    return dfn_dist_size() >= 2 && !o->compare && !o->serve && !o->served && o->npaths;
}

bool cli_dist_report_wanted(const cli_opts *o)
{
    return dist_wanted(o) && !o->counters && !o->diagnose && o->format != DFN_FMT_CHROME &&
           query_wanted(o, o->by, o->where, o->sort);
}

bool cli_dist_overview_wanted(const cli_opts *o)
{
    if (!dist_wanted(o)) return false;
    char *files_where = dfn_xasprintf("%s%sfile!=\"\"", o->where ? o->where : "", o->where ? " " : "");
    bool ok = query_wanted(o, "layer", o->where, "key") && query_wanted(o, "class", o->where, NULL) &&
              query_wanted(o, "file", files_where, NULL);
    free(files_where);
    return ok;
}

/* This rank's share into sh, and the ranks' word on what they loaded. */
static void share_load(const cli_opts *o, const dfn_runspec *specs, size_t n, share *sh)
{
    memset(sh, 0, sizeof *sh);
    size_t nmine;
    char *list;
    const char **mine = cli_dist_files(specs, n, &nmine, &list);
    sh->nfiles = nmine;
    /* each share checked against its own node's memory, before it loads */
    char msg[512];
    dfn_estimate est = {0};
    dfn_estimate_add(&est, mine, nmine);
    uint64_t th = (uint64_t)(o->threads > 0 ? o->threads : dfn_ncpus());
    sh->too_big = dfn_dist_max_int(!o->force && !dfn_estimate_fits(&est, th, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    if (sh->too_big) {
        free(mine);
        free(list);
        return;
    }
    /* (parsed, not from an image: the store keeps the hashes its files define) */
    dfn_load_opts lo = { .threads = o->threads, .time_unit = o->time_unit };
    dfn_store *s = nmine ? dfn_load(mine, nmine, &lo) : NULL;
    free(mine);
    free(list);
    int st = s ? dfn_store_status(s) : 3;
    if (st == 3) { dfn_store_free(s); s = NULL; }
    sh->set.store = s;
    /* a share that could not be read is damage of the set, unless none could */
    sh->any = dfn_dist_max_int(s != NULL);
    sh->status = dfn_dist_max_int(st == 3 ? (nmine ? 1 : 0) : st);
    sh->agg = dfn_dist_max_int(s && s->cnt.v);
    sh->level = dfn_dist_max_int(s ? dfn_layers_auto_level(s) : 0);
    /* a pid given as a name is an id of its store's strings: processes
     * named alike in two shares would not be one, nor order alike */
    bool named = false;
    for (size_t i = 0; s && i < s->nlanes && !named; i++) named = dfn_id_named(s->lanes[i].pid);
    sh->unresolved = dfn_dist_max_int(s && (s->unresolved_hashes || s->hash_conflicts || named));
}

/* Adds one rank's hash definitions (store.h's records) to defs (kind and
 * hash -> name, names pointing into rec); false when one names another
 * name than before, or the records are not whole. */
static bool hashdefs_add(dfn_strtab *defs, const char ***names, size_t **lens, size_t *cap, const uint8_t *rec,
                         size_t len)
{
    const uint8_t *p = rec, *end = rec + len;
    while (p < end) {
        uint64_t hl, nl;
        const uint8_t *h = p;   /* the kind byte and the hash are the key */
        size_t k = dfn_varint_get(p + 1, end, &hl);
        if (!k || hl > (size_t)(end - p - 1 - k)) return false;
        size_t keylen = 1 + k + hl;
        p += keylen;
        k = dfn_varint_get(p, end, &nl);
        if (!k || nl > (size_t)(end - p - k)) return false;
        const char *name = (const char *)p + k;
        p += k + nl;
        size_t before = dfn_strtab_count(defs);
        uint32_t id = dfn_strtab_intern(defs, (const char *)h, keylen);
        if (id < before) {
            if ((*lens)[id] != nl || memcmp((*names)[id], name, nl) != 0) return false;
            continue;
        }
        size_t c = *cap;
        dfn_grow((void **)names, cap, id + 1, sizeof **names);
        dfn_grow((void **)lens, &c, id + 1, sizeof **lens);
        (*names)[id] = name;
        (*lens)[id] = nl;
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

/* The damage each rank found, said by rank 0 in rank order. */
static void share_damage(const cli_opts *o, const share *sh)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f && sh->set.store && !o->quiet) cli_report_damage(o, sh->set.store, f);
    if (f) fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text ? text : "", len, &lens);
    for (int r = 0; got && r < dfn_dist_size(); r++)
        if (got[r]) fwrite(got[r], 1, lens[r], stderr);
    dfn_dist_gathered_free(got, lens);
    free(text);
}

/* A partial another rank sent (bytes, len; freed here) merged into into,
 * while ok: the new ok, with err saying what was lost (what, from whom). */
static bool merge_sent(dfn_partial *into, char *bytes, size_t len, bool ok, const char *what, int from, char *err,
                       size_t errlen)
{
    char why[512] = "did not come";
    dfn_partial *q = bytes && len ? dfn_partial_decode((const uint8_t *)bytes, len, why, sizeof why) : NULL;
    free(bytes);
    if (!q && ok) snprintf(err, errlen, "rank %d's %s: %s", from, what, why);
    if (!q || !ok) {
        dfn_partial_free(q);
        return false;
    }
    return dfn_partial_merge(into, q, err, errlen);
}

/* This rank's partial merged with those below it in the tree; rank 0's
 * is the set's. NULL (rank 0: said why) when a partial was lost. */
static dfn_partial *share_reduce(dfn_partial *p, char *err, size_t errlen)
{
    int me = dfn_dist_rank(), n = dfn_dist_size();
    bool ok = p != NULL;
    for (int step = 1; step < n; step <<= 1) {
        if (me % (2 * step) == step) {
            size_t len = 0;   /* (a subtree that lost a partial sends none: never a part as the whole) */
            uint8_t *bytes = p && ok ? dfn_partial_encode(p, &len) : NULL;
            (void)dfn_dist_send_bytes(me - step, bytes ? bytes : (const uint8_t *)"", len);
            free(bytes);
            dfn_partial_free(p);
            return NULL;
        }
        if (me % (2 * step) || me + step >= n) continue;
        size_t len;
        char *bytes = dfn_dist_recv_bytes(me + step, &len);
        ok = merge_sent(p, bytes, len, ok, "partial result", me + step, err, errlen);
    }
    if (!ok) { dfn_partial_free(p); return NULL; }
    return p;
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
        ok = merge_sent(mine, got, rlen, ok, "slice of busy time", from, err, errlen);
    }
    free(edge);
    dfn_partial_drop_segs(p);
    dfn_partial_sum_busy(mine);
    if (ok) return dfn_partial_merge(p, mine, err, errlen);
    dfn_partial_free(mine);
    return false;
}

/* A query of report's or overview's: --by, --where, --sort, --top. */
typedef struct { const char *by, *where, *sort; size_t top; } qspec;

/* The partials of n queries on this rank's share (an empty one where it
 * has none, or its query failed: *failed), then its store goes: the
 * share is its partials now, before the merges hold the others' (the
 * layers' names stay). 0, or 2 for a query report refuses (every rank
 * alike: the same options). */
static int share_partials(const cli_opts *o, share *sh, const qspec *qs, size_t n, dfn_query *q, dfn_filter *f,
                          dfn_partial **p, bool *failed)
{
    char err[2048];
    cli_run run = { NULL, sh->set };
    double t0 = dfn_now();
    int rc = 0;
    size_t made = 0;
    for (; made < n && !rc; made++) {
        int col;
        rc = cli_report_query(o, &run, 1, qs[made].by, qs[made].where, qs[made].sort, qs[made].top, o->metrics,
                              sh->agg, &q[made], &f[made], &col);
        if (rc) break;
        q[made].layers = sh->set.ls;
        p[made] = sh->set.store ? dfn_query_partial(sh->set.store, &q[made], err, sizeof err) : NULL;
        failed[made] = sh->set.store && !p[made];
        if (failed[made]) snprintf(sh->why, sizeof sh->why, "%s", err);
        if (!p[made]) p[made] = dfn_partial_new(&q[made]);   /* no share: it adds nothing */
        q[made].layers = NULL;
    }
    dfn_layerset_free(sh->set.ls);
    sh->set.ls = NULL;
    dfn_store_free(sh->set.store);
    sh->set.store = NULL;
    if (rc) {   /* (a bad query: every rank alike) */
        for (size_t k = 0; k < made; k++) {
            dfn_partial_free(p[k]);
            dfn_filter_free(&f[k]);
            dfn_dims_free(q[k].dims, q[k].ndims);
        }
        return rc;
    }
    /* the merge's time apart from the queries': from when the slowest
     * rank's partials are ready */
    sh->query_s = dfn_dist_max_int((int)((dfn_now() - t0) * 1000)) / 1000.0;
    return 0;
}

/* One query's partials of every rank, merged on rank 0 and printed there
 * unless told not to (p, q and f are spent). Every rank takes part. */
static int share_combine(const cli_opts *o, share *sh, dfn_query *q, dfn_filter *f, dfn_partial *p, bool failed,
                         bool print)
{
    char err[2048];
    int rc = 0;
    /* (what share_reduce says when a partial is lost: rank 0's own, why) */
    snprintf(err, sizeof err, "%s", failed ? sh->why : "a rank's partial result did not come");
    double t1 = dfn_now();
    /* (every rank takes part in the swaps, a failed one with nothing) */
    if ((q->metrics & DFN_M_BIT(DFN_M_BUSY_S)) && !share_slices(p, err, sizeof err)) failed = true;
    double t2 = dfn_now();
    if (failed) {
        dfn_partial_free(p);
        p = NULL;
    }
    p = share_reduce(p, err, sizeof err);
    if (dfn_dist_rank() == 0) {
        dfn_result *r = p ? dfn_partial_finish(p, q, &sh->set.layers, err, sizeof err) : NULL;
        sh->slices_s += t2 - t1;
        sh->merge_s += dfn_now() - t2;
        if (!r && print) { fprintf(stderr, "dfnav: MPI: %s\n", err); rc = 2; }
        else if (r && print) rc = cli_report_write(o, dfn_compare_of(r, q->sort, q->desc), stdout);
        else dfn_result_free(r);
    }
    dfn_filter_free(f);
    dfn_dims_free(q->dims, q->ndims);
    return rc;
}

/* report's query on this rank's share, merged on rank 0 and printed there. */
static int share_query(const cli_opts *o, share *sh)
{
    qspec qs = { o->by, o->where, o->sort, o->top };
    dfn_query q;
    dfn_filter f;
    dfn_partial *p;
    bool failed;
    int rc = share_partials(o, sh, &qs, 1, &q, &f, &p, &failed);
    return rc ? rc : share_combine(o, sh, &q, &f, p, failed, true);
}

/* What overview's first line counts, over every rank's share: events,
 * trace files and malformed lines add up; processes, threads and the
 * files accessed are told apart by their text; the span runs from the
 * first start to the last end. Rank 0's is the set's. */
static void share_summary(const share *sh, cli_setsum *sum)
{
    const dfn_store *s = sh->set.store;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) dfn_out_of_memory("summing up a share", BUFSIZ);
    /* events, trace files (read or not, as one store counts them),
     * malformed lines, t0, t1 (UINT64_MAX: no event to span) */
    uint64_t head[5] = { s ? s->n : 0, sh->nfiles, 0, UINT64_MAX, 0 };
    if (s && s->n) head[3] = s->t0, head[4] = s->t1;
    for (size_t i = 0; s && i < s->nsrc; i++) head[2] += s->src[i].malformed;
    fwrite(head, sizeof head, 1, f);
    char pid[128], tid[128];
    for (size_t i = 0; s && i < s->nlanes; i++) {   /* 'P' process, 'T' thread, 'F' file: each ends with NUL */
        /* a thread by its host, pid and tid, as a store tells lanes apart
         * (its display name takes process names from metadata another
         * share may hold) */
        dfn_id_text(s, s->lanes[i].pid, pid, sizeof pid);
        dfn_id_text(s, s->lanes[i].tid, tid, sizeof tid);
        fprintf(f, "P%s/%s%c", dfn_store_str(s, s->lanes[i].host), pid, 0);
        fprintf(f, "T%s/%s/%s%c", dfn_store_str(s, s->lanes[i].host), pid, tid, 0);
    }
    for (size_t i = 1; s && i < s->nfiles; i++) fprintf(f, "F%s%c", dfn_store_str(s, s->files[i].path), 0);
    fclose(f);
    size_t *lens;
    char **got = dfn_dist_gather_bytes(text, len, &lens);
    free(text);
    if (!got) return;   /* (another rank: rank 0 sums up) */
    memset(sum, 0, sizeof *sum);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    dfn_strtab *seen = dfn_strtab_new();
    for (int r = 0; r < dfn_dist_size(); r++) {
        size_t l = lens[r];
        const char *t = got[r];
        if (t && l >= sizeof head) {
            uint64_t h[5];
            memcpy(h, t, sizeof h);
            sum->events += h[0], sum->files += h[1], sum->malformed += h[2];
            if (h[3] != UINT64_MAX && h[3] < t0) t0 = h[3];
            if (h[3] != UINT64_MAX && h[4] > t1) t1 = h[4];
            for (size_t at = sizeof h; at < l;) {
                size_t n = strnlen(t + at, l - at), before = dfn_strtab_count(seen);
                if (dfn_strtab_intern(seen, t + at, n) == before)   /* new: count it */
                    *(t[at] == 'P' ? &sum->procs : t[at] == 'T' ? &sum->threads : &sum->accessed) += 1;
                at += n + 1;
            }
        }
    }
    dfn_dist_gathered_free(got, lens);
    dfn_strtab_free(seen);
    sum->span_us = t1 > t0 ? t1 - t0 : 0;
}

/* overview on the ranks' shares: its first line, then the layers, the I/O
 * classes and the busiest files as report prints them (CSV and JSON: the
 * layers alone), each merged on rank 0. */
static int share_overview(const cli_opts *o, share *sh)
{
    cli_setsum sum;
    bool table = o->format == DFN_FMT_TABLE;
    if (table) share_summary(sh, &sum);
    char *files_where = dfn_xasprintf("%s%sfile!=\"\"", o->where ? o->where : "", o->where ? " " : "");
    const qspec qs[3] = { { "layer", o->where, "key", 0 }, { "class", o->where, NULL, 0 }, { "file", files_where, NULL, 10 } };
    static const char *const heads[3] = { NULL, "\nI/O classes:\n", "\nBusiest files:\n" };
    size_t n = table ? 3 : 1;
    dfn_query q[3];
    dfn_filter f[3];
    dfn_partial *p[3];
    bool failed[3];
    int rc = share_partials(o, sh, qs, n, q, f, p, failed);
    if (rc) {   /* (a bad query: every rank alike, nothing to merge) */
        free(files_where);
        return rc;
    }
    if (table && dfn_dist_rank() == 0) {
        cli_overview_line(&sum, NULL);
        printf("\nLayers (%s):\n", sh->set.layers.source);
    }
    /* every rank merges every table (the merges are collective); rank 0
     * prints them until one fails */
    bool more = false;   /* (as one process: said once the busiest files' heading is) */
    for (size_t k = 0; k < n; k++) {
        if (heads[k] && dfn_dist_rank() == 0 && !rc) printf("%s", heads[k]), more = k == 2;
        int r = share_combine(o, sh, &q[k], &f[k], p[k], failed[k], !rc);
        if (!rc) rc = r;
    }
    if (more) printf("\nMore: dfnav report --by DIMS --where EXPR PATH... (see dfnav --help)\n");
    free(files_where);
    return rc;
}

/* Every rank: load, agree, query. -1 when the set must go the images' way. */
static int dist_report(const cli_opts *o, const dfn_runspec *specs, size_t n, share *out, int word)
{
    share sh;
    share_load(o, specs, n, &sh);
    *out = sh;   /* (what the caller reads: the times, set below) */
    if (sh.too_big) {
        if (dfn_dist_rank() == 0)
            fprintf(stderr, "dfnav: MPI: a rank's share of the files needs more memory than its node has: more ranks, "
                    "a rank a node (mpirun --map-by ppr:1:node), or --force\n");
        return 4;
    }
    if (!hashdefs_agree(&sh) || sh.unresolved) {
        /* a hash another rank's file defines: only the whole set names it */
        dfn_store_free(sh.set.store);
        return -1;
    }
    if (!o->quiet) share_damage(o, &sh);
    int rc = 0;
    if (!sh.any) {
        if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: nothing could be read\n");
        rc = 3;
    } else {
        char err[1024];
        const char *why, *preset = dfn_layers_auto_name(sh.level, &why);
        if (!o->layers && !o->quiet && dfn_dist_rank() == 0 && dfn_preset_is_dlio(preset))
            fprintf(stderr, "dfnav: layers: %s (%s; --layers chooses)\n", preset, why);
        dfn_run_opts ro = cli_run_opts(o);
        dfn_store *s = sh.set.store;
        sh.set.store = NULL;
        /* a rank without a share still names the layers' rows */
        bool ok = s ? dfn_runset_layers(&sh.set, s, &ro, o->layers ? NULL : preset, err, sizeof err)
                    : dfn_layers_load(o->layers ? o->layers : preset, &sh.set.layers, err, sizeof err);
        if (!ok) {
            if (dfn_dist_rank() == 0) fprintf(stderr, "dfnav: layers: %s\n", err);
            rc = 2;
        }
    }
    /* a rank that failed its layers fails them all: the same file for every rank */
    int mine = rc;
    rc = dfn_dist_max_int(rc);
    if (rc && !mine && dfn_dist_rank() == 0)
        fprintf(stderr, "dfnav: MPI: the layers failed on another rank's share (one process says why)\n");
    if (!rc) rc = word == CLI_DIST_OVERVIEW ? share_overview(o, &sh) : share_query(o, &sh);
    out->query_s = sh.query_s;
    out->slices_s = sh.slices_s;
    out->merge_s = sh.merge_s;
    dfn_runset_free(&sh.set);
    int wr = dfn_dist_rank() == 0 ? cli_write_status(stdout) : 0;
    return rc ? rc : wr ? wr : sh.status;
}

int cli_dist_report(const cli_opts *o, int word)
{
    char msg[512];
    dfn_runspec *specs;
    size_t n;
    if (!dfn_runs_parse(o->paths, o->npaths, false, &specs, &n, msg, sizeof msg)) {
        fprintf(stderr, "dfnav: %s\n", msg);
        return 2;
    }
    size_t files = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < specs[k].in.nerrors; i++) dfn_warnf(stderr, "%s", specs[k].in.errors[i]);
        files += specs[k].in.n;
    }
    if (!files) {
        fprintf(stderr, "dfnav: no trace file to read\n");
        dfn_runs_free(specs, n);
        cli_dist_tell(CLI_DIST_STOP);
        return 3;
    }
    cli_dist_tell(word);
    share sh;
    int rc = dist_report(o, specs, n, &sh, word);
    bool input_errors = false;
    for (size_t k = 0; k < n; k++) input_errors |= specs[k].in.nerrors > 0;
    dfn_runs_free(specs, n);
    if ((rc == 0 || rc == 1) && !o->quiet)   /* (the query ran) */
        dfn_warnf(stderr, "MPI: %d ranks: each queried its share of the files; rank 0 merged the results (queries "
                  "%.2f s, busy slices %.2f s, merge %.2f s)", dfn_dist_size(), sh.query_s, sh.slices_s, sh.merge_s);
    if (rc < 0) cli_dist_reopen();   /* the images' way gives the next word, or the exit does */
    return rc == 0 && input_errors ? 1 : rc;
}

int cli_dist_report_worker(const cli_opts *o, int word)
{
    share sh;
    int rc = dist_report(o, NULL, 0, &sh, word);
    if (rc >= 0) return rc;
    /* the images' way: rank 0's load gives the word again */
    return cli_dist_worker(o);
}
