/* The explorer of a client of dfnav serve --spread: the set stays in
 * shares on the server's MPI ranks, and the explorer runs here (a
 * process the server's handler started for the client) on the set's
 * outline, each of its queries asked of the ranks on the server's
 * private socket (serve_ranks.c): the query's bytes (qspec.h) go, the
 * ranks' merged partial (partial.h) comes back as a file, and here it is
 * finished into rows with the run's layers, as report does on rank 0.
 *
 * What this file owns: the outline's request, the remote query function
 * (dfn_remote, remote.h) and the layers it finishes rows with. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "serve.h"
#include "../ui/ui.h"
#include "dfnav/callplace.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/partial.h"
#include "dfnav/qspec.h"
#include "dfnav/remote.h"
#include "dfnav/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    const char *sock;         /* the ranks' socket */
    size_t argc;              /* the explorer's command line, which every query carries */
    char **argv;
    dfn_layers *layers;       /* each run's, as the ranks took them */
    bool *agg;                /* each run's: some share has aggregated records */
    const dfn_store **stores; /* each run's outline store, whose series name counter rows */
    const ui_opts *ui;        /* the explorer's options (threads) */
    size_t nruns;
} remote_ctx;

/* All of the file at fd from its start (malloc'd, *len); NULL when it
 * cannot be read. */
static uint8_t *file_all(int fd, size_t *len)
{
    size_t cap = 0, n = 0;
    uint8_t *b = NULL;
    if (lseek(fd, 0, SEEK_SET) != 0) return NULL;
    for (;;) {
        dfn_grow((void **)&b, &cap, n + 65536, 1);
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(b);
            return NULL;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    *len = n;
    return b;
}

/* What the ranks said on stderr, its first line without "dfnav: ", as a
 * message here (its bytes made safe for a terminal). */
static void ranks_said(int fd, char *err, size_t errlen)
{
    size_t n = 0;
    char *t = (char *)file_all(fd, &n);
    size_t skip = n >= 7 && t && memcmp(t, "dfnav: ", 7) == 0 ? 7 : 0;
    const char *nl = t ? memchr(t + skip, '\n', n - skip) : NULL;
    size_t l = nl ? (size_t)(nl - t) - skip : n - skip;
    if (!t || !l) snprintf(err, errlen, "the ranks failed and said nothing");
    else (void)dfn_fmt_safe(t + skip, l, err, errlen);
    free(t);
}

/* Asks the ranks op of run with spec (len bytes) on the command line of
 * x: their answer's bytes (malloc'd, *len), or NULL with why. */
static uint8_t *remote_ask(const remote_ctx *x, int op, size_t run, const uint8_t *spec, size_t slen, size_t *len,
                           char *err, size_t errlen)
{
    char opw[8], runw[24];
    snprintf(opw, sizeof opw, "%d", op);
    snprintf(runw, sizeof runw, "%zu", run);
    char *hex = dfn_hex(spec, slen);
    char **words = dfn_xcalloc(x->argc + 4, sizeof *words);
    words[0] = opw;
    words[1] = runw;
    words[2] = hex;
    for (size_t i = 0; i < x->argc; i++) words[3 + i] = x->argv[i];
    int status = 2, fds[2];
    bool asked = serve_ranks_call(x->sock, CLI_DIST_QUERY, x->argc + 3, words, &status, fds);
    free(words);
    free(hex);
    if (!asked) {
        snprintf(err, errlen, "the server's ranks did not answer (the server is gone, or the query is too long)");
        return NULL;
    }
    uint8_t *b = NULL;
    if (status != 0) ranks_said(fds[1], err, errlen);
    else if (!(b = file_all(fds[0], len))) snprintf(err, errlen, "the ranks' answer could not be read: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return b;
}

/* The calls the ranks sent (a subset of the set in DFTracer's own form,
 * extract.h), loaded as a store of their own counting from the run's
 * start; NULL with why. */
static dfn_store *calls_store(const remote_ctx *x, size_t run, const uint8_t *b, size_t len, char *err, size_t errlen)
{
    int fd = memfd_create("dfnav-calls", MFD_CLOEXEC);
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < len;) {
        ssize_t w = write(fd, b + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    if (!ok) {
        snprintf(err, errlen, "the ranks' calls could not be held: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *files[1] = { path };
    dfn_load_opts lo = { .threads = x->ui->threads, .no_save = true };
    dfn_store *s = dfn_load(files, 1, &lo);
    close(fd);
    const dfn_store *o = x->stores[run];
    if (!s || dfn_store_status(s) >= 2 || !dfn_store_rebase(s, o->t0, o->t1)) {
        snprintf(err, errlen, "the ranks' calls did not load whole");
        dfn_store_free(s);
        return NULL;
    }
    return s;
}

/* A query of calls: the ranks' totals of its selection (matched, the
 * sparklines), then its calls, which are loaded here and queried as the
 * set's store would be (every call of them is one the filter selects,
 * and they are as many as the level shows). */
static dfn_result *remote_calls(const remote_ctx *x, size_t run, const dfn_query *q, const uint8_t *b, size_t len,
                                char *err, size_t errlen)
{
    uint64_t plen = len >= 8 ? dfn_le64_get(b) : 0;
    if (len < 8 || plen > len - 8) {
        snprintf(err, errlen, "the ranks' calls came cut short");
        return NULL;
    }
    dfn_query tq = *q;
    tq.ndims = 0;
    tq.sort = -1;
    tq.top = 0;
    tq.metrics = DFN_M_BASIC;
    dfn_partial *p = dfn_partial_decode(b + 8, (size_t)plen, err, errlen);
    dfn_result *t = p ? dfn_partial_finish(p, &tq, &x->layers[run], err, errlen) : NULL;
    dfn_store *s = t ? calls_store(x, run, b + 8 + plen, len - 8 - (size_t)plen, err, errlen) : NULL;
    dfn_query cq = *q;
    cq.filter = NULL;   /* (they are the selection's) */
    cq.layers = NULL;
    cq.overlap = NULL;
    cq.tree = NULL;
    cq.access = NULL;
    cq.tiles = NULL;
    cq.spark_bins = 0;
    cq.spark_split = false;
    dfn_result *r = s ? dfn_query_run(s, &cq, err, errlen) : NULL;
    if (r) {
        r->owned = s;
        /* the set's: what the selection matched and its time per bin */
        r->matched = t->matched;
        r->matched_calls = t->matched_calls;
        r->total_time_s = t->total_time_s;
        r->total_us = t->total_us;
        r->bin0_s = t->bin0_s;
        r->win_lo_s = t->win_lo_s;
        r->win_hi_s = t->win_hi_s;
        r->bin_s = t->bin_s;
        r->spark_bins = t->spark_bins;
        r->spark_total = t->spark_total;
        t->spark_total = NULL;
    } else {
        dfn_store_free(s);
    }
    dfn_result_free(t);
    return r;
}

/* Lines each ended by a NUL (b, len) as an array (malloc'd, *n); NULL
 * when the last is not ended. */
static char **nul_lines(const uint8_t *b, size_t len, size_t *n)
{
    *n = 0;
    if (len && b[len - 1]) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < len; i++) m += !b[i];
    char **v = dfn_xmalloc((m ? m : 1) * sizeof *v);
    for (size_t at = 0, k = 0; k < m; k++) {
        size_t l = strlen((const char *)b + at);
        v[k] = dfn_xstrndup((const char *)b + at, l);
        at += l + 1;
    }
    *n = m;
    return v;
}

static char **remote_call_place(void *ctx, size_t run, const dfn_store *s, uint32_t i, size_t *n, char *err, size_t errlen)
{
    const remote_ctx *x = ctx;
    *n = 0;
    size_t klen, len;
    uint8_t *key = dfn_call_place_key(s, i, &klen);
    uint8_t *b = remote_ask(x, CLI_QUERY_PLACE, run, key, klen, &len, err, errlen);
    free(key);
    if (!b) return NULL;
    char **v = nul_lines(b, len, n);
    free(b);
    if (!v) snprintf(err, errlen, "the ranks' lines came cut short");
    return v;
}

static dfn_result *remote_query(void *ctx, size_t run, const dfn_query *q, uint64_t *ncompute, char *err, size_t errlen)
{
    const remote_ctx *x = ctx;
    if (run >= x->nruns) {
        snprintf(err, errlen, "no such run");
        return NULL;
    }
    bool calls = q->ndims == 1 && q->dims[0].kind == DFN_DIM_EVENT;
    size_t slen, len;
    uint8_t *spec = dfn_qspec_encode(q, &slen, err, errlen);
    if (!spec) return NULL;
    uint8_t *b = remote_ask(x, calls ? CLI_QUERY_CALLS : CLI_QUERY_ROWS, run, spec, slen, &len, err, errlen);
    free(spec);
    if (!b) return NULL;
    if (calls) {
        dfn_result *r = remote_calls(x, run, q, b, len, err, errlen);
        free(b);
        return r;
    }
    dfn_partial *p = dfn_partial_decode(b, len, err, errlen);
    free(b);
    if (!p) return NULL;
    if (ncompute) *ncompute = p->ncompute;
    dfn_result *r = dfn_partial_finish(p, q, &x->layers[run], err, errlen);
    if (r) r->merged_agg = x->agg[run];   /* (a calls column, as the set's store has) */
    return r;
}

static bool remote_counters(void *ctx, size_t run, const dfn_cquery *q, dfn_cresult *out, char *err, size_t errlen)
{
    const remote_ctx *x = ctx;
    if (run >= x->nruns) {
        snprintf(err, errlen, "no such run");
        return false;
    }
    size_t slen, len;
    uint8_t *spec = dfn_cqspec_encode(q, &slen, err, errlen);
    if (!spec) return false;
    uint8_t *b = remote_ask(x, CLI_QUERY_COUNTERS, run, spec, slen, &len, err, errlen);
    free(spec);
    if (!b) return false;
    bool ok = len >= 24;
    dfn_cspan span = {0};
    if (ok) span = (dfn_cspan){ dfn_le64_get(b), dfn_le64_get(b + 8), dfn_le64_get(b + 16) };
    dfn_cquery mq = *q;
    mq.span = &span;
    if (!ok) snprintf(err, errlen, "the ranks' counter rows came cut short");
    /* (rows of a set that keep their keys by text, then as the outline's) */
    ok = ok && dfn_counters_query(NULL, &mq, out, err, errlen) && dfn_counters_merge(out, b + 24, len - 24, err, errlen);
    free(b);
    if (ok) dfn_counters_finish(out);
    ok = ok && dfn_remote_relabel_counters(x->stores[run], out, err, errlen);
    if (!ok) dfn_cresult_free(out);
    return ok;
}

static char **remote_arg_names(void *ctx, size_t run, const dfn_query *q, size_t *n, char *err, size_t errlen)
{
    const remote_ctx *x = ctx;
    *n = 0;
    size_t slen, len;
    if (run >= x->nruns) {
        snprintf(err, errlen, "no such run");
        return NULL;
    }
    uint8_t *spec = dfn_qspec_encode(q, &slen, err, errlen);
    if (!spec) return NULL;
    uint8_t *b = remote_ask(x, CLI_QUERY_ARGS, run, spec, slen, &len, err, errlen);
    free(spec);
    if (!b) return NULL;
    /* each name ended by a NUL: what follows the last is cut, and said */
    char **names = nul_lines(b, len, n);
    free(b);
    if (!names) snprintf(err, errlen, "the ranks' names of arguments came cut short");
    return names;
}

int serve_remote_explore(const cli_opts *o, const ui_opts *ui, int argc, char **argv)
{
    remote_ctx x = { .sock = o->ranks, .argc = (size_t)argc, .argv = argv, .ui = ui };
    char err[2048];
    size_t len;
    uint8_t *b = remote_ask(&x, CLI_QUERY_OUTLINE, 0, NULL, 0, &len, err, sizeof err);
    dfn_outline ol = {0};
    if (!b || !dfn_outline_decode(b, len, &ol, err, sizeof err)) {
        fprintf(stderr, "dfnav: serve: %s\n", err);
        free(b);
        dfn_outline_free(&ol);
        return 2;
    }
    free(b);
    x.nruns = ol.n;
    x.layers = dfn_xcalloc(ol.n, sizeof *x.layers);
    x.agg = dfn_xcalloc(ol.n, sizeof *x.agg);
    x.stores = dfn_xcalloc(ol.n, sizeof *x.stores);

    int rc = 0;
    for (size_t k = 0; k < ol.n && !rc; k++) {
        x.agg[k] = ol.run[k].agg;

        x.stores[k] = ol.run[k].store;   /* (the explorer's sets hold it as long as it queries) */
        const char *def = o->layers ? o->layers : *ol.run[k].preset ? ol.run[k].preset : "posix";
        if (!dfn_layers_load(def, &x.layers[k], err, sizeof err)) {
            fprintf(stderr, "dfnav: layers: %s\n", err);
            rc = 2;
        }
    }
    dfn_remote rem = { remote_query, remote_counters, remote_arg_names, remote_call_place, &x, &ol };
    if (!rc) rc = ui_run_remote(ui, &ol, &rem);
    /* the ranks let go of what this explorer's queries built (another's
     * stays: theirs is kept by its options) */
    size_t elen;
    char eerr[256];
    free(remote_ask(&x, CLI_QUERY_END, 0, NULL, 0, &elen, eerr, sizeof eerr));
    for (size_t k = 0; k < ol.n; k++) dfn_layers_free(&x.layers[k]);
    free(x.layers);
    free(x.agg);
    free(x.stores);

    dfn_outline_free(&ol);
    return rc;
}
