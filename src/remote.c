/* A set explored from here while other processes hold its events: its
 * outline's bytes (what the explorer shows of the set without a query)
 * and the store that stands for each run here. See remote.h. */
#include "dfnav/remote.h"

#include "bytebuf.h"
#include "dfnav/image.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

#define OUTLINE_MAGIC 0x44464e4fu   /* "DFNO" */
#define OUTLINE_VERSION 1
/* More runs than a comparison takes are no outline. */
#define OUTLINE_MAX_RUNS DFN_COMPARE_MAX_RUNS

static void put_text(obuf *o, const char *s)
{
    if (!s) {
        put_u(o, 0);
        return;
    }
    put_u(o, 1);
    put_bytes(o, s, strlen(s));
}

uint8_t *dfn_outline_encode(const dfn_outline *o, size_t *len)
{
    obuf b = {0};
    put_u(&b, OUTLINE_MAGIC);
    put_u(&b, OUTLINE_VERSION);
    put_u(&b, o->n);
    for (size_t k = 0; k < o->n; k++) {
        const dfn_outline_run *r = &o->run[k];
        put_text(&b, r->label);
        put_text(&b, r->preset ? r->preset : "");
        put_text(&b, r->why ? r->why : "");
        put_u(&b, r->agg);
        put_u(&b, r->t0 == UINT64_MAX);
        if (r->t0 != UINT64_MAX) {
            put_u(&b, r->t0);
            put_u(&b, r->t1 - r->t0);
        }
        put_u(&b, r->events);
        put_u(&b, r->many_hosts);
        put_u(&b, r->hosts_whole);
        put_u(&b, r->nseries);
        for (size_t i = 0; i < r->nseries; i++) put_bytes(&b, r->series[i], strlen(r->series[i]));
        /* the files' paths, then their accounts as a rank gives them */
        size_t n = r->store ? r->store->nsrc : 0;
        put_u(&b, n);
        for (size_t i = 0; i < n; i++) put_bytes(&b, r->store->src[i].path, strlen(r->store->src[i].path));
        size_t slen = 0;
        uint8_t *src = r->store ? dfn_image_sources_encode(r->store, &slen) : NULL;
        put_bytes(&b, src, slen);
        free(src);
    }
    *len = b.n;
    return b.b;
}

/* A text of put_text (malloc'd; NULL for none); its bytes must hold no NUL. */
static char *get_text(ibuf *in, const char *what)
{
    if (!get_u(in, 2, what)) return NULL;
    size_t l;
    const uint8_t *p = get_bytes(in, &l, what);
    if (!p) return NULL;
    if (memchr(p, 0, l)) {
        in->bad = what;
        return NULL;
    }
    return dfn_xstrndup((const char *)p, l);
}

/* The run's store as the explorer reads it: "" as every store's string
 * 0, its counter series, its span. */
static void outline_store_finish(dfn_outline_run *r)
{
    dfn_store *s = r->store;
    if (!s->strs) {
        s->strs = dfn_strtab_new();
        (void)dfn_strtab_intern(s->strs, "", 0);
    }
    free(s->series);
    s->series = dfn_xmalloc((r->nseries ? r->nseries : 1) * sizeof *s->series);
    for (size_t i = 0; i < r->nseries; i++) s->series[i] = dfn_strtab_intern(s->strs, r->series[i], strlen(r->series[i]));
    s->nseries = r->nseries;
    s->t0 = r->t0 == UINT64_MAX ? 0 : r->t0;
    s->t1 = r->t0 == UINT64_MAX ? 0 : r->t1;
}

static bool outline_run_decode(ibuf *in, dfn_outline_run *r)
{
    r->label = get_text(in, "a run's name");
    r->preset = get_text(in, "a run's preset");
    r->why = get_text(in, "why its preset");
    if (!in->bad && (!r->preset || !r->why)) in->bad = "a run's preset";
    r->agg = get_u(in, 2, "a run's aggregated records");
    r->t0 = UINT64_MAX;
    r->t1 = 0;
    if (!get_u(in, 2, "whether a run has events")) {
        r->t0 = get_any(in, "a run's start");
        uint64_t w = get_any(in, "a run's span");
        if (!in->bad && (r->t0 == UINT64_MAX || w > UINT64_MAX - r->t0)) in->bad = "a run's span";
        r->t1 = r->t0 + w;
    }
    r->events = get_any(in, "a run's events");
    r->many_hosts = get_u(in, 2, "a run's hosts") != 0;
    r->hosts_whole = get_u(in, 2, "a run's hosts") != 0;
    size_t ns = get_count(in, 1, "a run's counter series");
    r->series = in->bad ? NULL : dfn_xcalloc(ns ? ns : 1, sizeof *r->series);
    /* (nseries counts those read: the outline frees them, cut or whole) */
    for (size_t i = 0; i < ns && !in->bad; i++) {
        size_t l;
        const uint8_t *p = get_bytes(in, &l, "a counter series");
        if (p && memchr(p, 0, l)) in->bad = "a counter series";
        if (!in->bad) r->series[r->nseries++] = dfn_xstrndup((const char *)p, l);
    }
    size_t n = get_count(in, 1, "a run's files");
    if (in->bad) return false;
    char **paths = dfn_xcalloc(n ? n : 1, sizeof *paths);
    for (size_t i = 0; i < n && !in->bad; i++) {
        size_t l;
        const uint8_t *p = get_bytes(in, &l, "a file's path");
        if (p && memchr(p, 0, l)) in->bad = "a file's path";
        if (!in->bad) paths[i] = dfn_xstrndup((const char *)p, l);
    }
    size_t slen = 0;
    const uint8_t *src = in->bad ? NULL : get_bytes(in, &slen, "the files' accounts");
    size_t lost = 0;
    if (!in->bad) {
        /* (no accounts at all: a run of no files, none to read) */
        const uint8_t *parts[1] = { slen ? src : NULL };
        r->store = dfn_image_sources_store((const char *const *)paths, n, parts, &slen, 1, &lost);
        if (lost) in->bad = "the files' accounts";
        else outline_store_finish(r);
    }
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    return !in->bad;
}

bool dfn_outline_decode(const uint8_t *b, size_t len, dfn_outline *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    ibuf in = { b, b + len, NULL };
    if (!get_head(&in, OUTLINE_MAGIC, OUTLINE_VERSION, "a set's outline", err, errlen)) return false;
    size_t n = (size_t)get_u(&in, OUTLINE_MAX_RUNS + 1, "the runs");
    if (!in.bad && n == 0) in.bad = "the runs";
    if (!in.bad) out->run = dfn_xcalloc(n, sizeof *out->run);
    for (size_t k = 0; k < n && !in.bad; k++) {
        out->n = k + 1;
        outline_run_decode(&in, &out->run[k]);
        /* runs side by side are named, each; one run is not */
        if (!in.bad && (n > 1) != (out->run[k].label != NULL)) in.bad = "a run's name";
    }
    if (!in.bad && in.p != in.end) in.bad = "bytes past its end";
    if (in.bad) snprintf(err, errlen, "a set's outline, damaged at %s", in.bad);
    return !in.bad;
}

void dfn_outline_free(dfn_outline *o)
{
    for (size_t k = 0; k < o->n; k++) {
        free(o->run[k].label);
        free(o->run[k].preset);
        free(o->run[k].why);
        for (size_t i = 0; o->run[k].series && i < o->run[k].nseries; i++) free(o->run[k].series[i]);
        free(o->run[k].series);
        dfn_store_free(o->run[k].store);
    }
    free(o->run);
    memset(o, 0, sizeof *o);
}


static dfn_result *remote_diag_run(void *ctx, dfn_query *q, uint64_t *ncompute, char *err, size_t errlen)
{
    const dfn_run *run = ctx;
    return run->remote->query(run->remote->ctx, run->remote_run, q, ncompute, err, errlen);
}

dfn_diag_src dfn_remote_diag_route(const dfn_run *run)
{
    return (dfn_diag_src){ .s = NULL, .run = remote_diag_run, .ctx = (void *)run,
                           .layers = run->ls ? dfn_layerset_layers(run->ls) : NULL, .overlap = true, .access = true };
}

bool dfn_remote_relabel_counters(const dfn_store *s, dfn_cresult *r, char *err, size_t errlen)
{
    if (!r->keytext) return true;
    /* (a host's key is an id of keytext too, which goes: no such rows here) */
    for (size_t d = 0; d < r->ndims; d++)
        if (r->dims[d] == DFN_CDIM_HOST || (d == 0) != (r->dims[d] == DFN_CDIM_COUNTER)) {
            snprintf(err, errlen, "counter rows by host, or not by series first, are not an explorer's");
            return false;
        }
    /* the outline's series by name (few: a linear look-up per row's is
     * cheap next to the network) */
    for (size_t i = 0; i < r->nrows; i++) {
        uint64_t id = r->rows[i].key[0];
        const char *name = id < dfn_strtab_count(r->keytext) ? dfn_strtab_str(r->keytext, (uint32_t)id) : NULL;
        size_t k = 0;
        while (name && k < s->nseries && strcmp(dfn_store_str(s, s->series[k]), name) != 0) k++;
        if (!name || k == s->nseries) {
            snprintf(err, errlen, "a counter series the set's outline does not name: %.200s", name ? name : "?");
            return false;
        }
        r->rows[i].key[0] = k;
    }
    dfn_strtab_free(r->keytext);
    r->keytext = NULL;
    return true;
}
