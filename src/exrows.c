/* Subsets of a set no rank holds (see dfnav/extract.h): rank 0 writes
 * extract's output from the calls merged from the ranks' shares
 * (evrows.h, extract's form) as dfn_extract_write does from one store:
 * hashes given in the order the calls first need them, the metadata
 * records they need in that order, the calls, then the counter samples
 * the shares sent for the calls' hosts and span (evsamples.c), less
 * those of processes whose calls were all left out. Processes, threads,
 * hosts and files are told apart by their text, as one store tells its
 * ids apart. */
#include "dfnav/evrows.h"
#include "dfnav/extract.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "DFNX" and the layout's version of a share's processes with calls. */
#define CALLERS_MAGIC UINT64_C(0x584e4644)
#define CALLERS_VERSION 1

/* A process's key: its host's text and its pid's JSON text, each after
 * its length (no text can end one key inside another's). */
static size_t proc_key(obuf *k, const char *host, size_t hl, const char *pid, size_t pl)
{
    k->n = 0;
    put_bytes(k, host, hl);
    put_bytes(k, pid, pl);
    return k->n;
}

uint8_t *dfn_extract_proc_key(const char *host, size_t hl, const char *pid, size_t pl, size_t *len)
{
    obuf k = {0};
    proc_key(&k, host, hl, pid, pl);
    *len = k.n;
    return k.b;
}

uint8_t *dfn_extract_callers(const dfn_store *s, size_t *len)
{
    obuf o = {0}, k = {0}, keys = {0};
    dfn_strtab *seen = dfn_strtab_new();
    char *pid = NULL;
    size_t pcap = 0;
    for (size_t l = 0; s && l < s->nlanes; l++) {
        const dfn_lane *ln = &s->lanes[l];
        size_t pl = dfn_extract_id_json(s, ln->pid, &pid, &pcap);
        proc_key(&k, dfn_store_str(s, ln->host), dfn_strtab_len(s->strs, ln->host), pid, pl);
        if (dfn_strtab_add(seen, (const char *)k.b, k.n, NULL)) put_bytes(&keys, k.b, k.n);
    }
    put_u(&o, CALLERS_MAGIC);
    put_u(&o, CALLERS_VERSION);
    put_u(&o, dfn_strtab_count(seen));
    put_raw(&o, keys.b, keys.n);
    free(pid);
    free(k.b);
    free(keys.b);
    dfn_strtab_free(seen);
    *len = o.n;
    return o.b;
}

bool dfn_extract_callers_add(dfn_strtab *callers, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    ibuf in = { buf, buf ? buf + len : NULL, NULL };
    if (!buf) {
        snprintf(err, errlen, "no processes came");
        return false;
    }
    if (!get_head(&in, CALLERS_MAGIC, CALLERS_VERSION, "processes", err, errlen)) return false;
    size_t n = get_count(&in, 3, "the processes");
    for (size_t k = 0; k < n && !in.bad; k++) {
        size_t kl;
        const uint8_t *key = get_bytes(&in, &kl, "a process");
        if (!in.bad) dfn_strtab_intern(callers, (const char *)key, kl);
    }
    if (!in.bad && in.p != in.end) in.bad = "bytes past the processes";
    if (in.bad) snprintf(err, errlen, "damaged processes (%s)", in.bad);
    return !in.bad;
}

/* A text's hash, given once: ids of tab, hashes in v. */
typedef struct { dfn_strtab *tab; uint64_t *v; size_t cap; } hashes;

static const uint64_t *hash_of(const hashes *h, const char *t, size_t len)
{
    uint32_t id = dfn_strtab_find(h->tab, t, len);
    return id != DFN_NOID ? &h->v[id] : NULL;
}

/* Gives t a hash when it has none: true when it was given now. */
static bool hash_take(hashes *h, dfn_map64 *taken, const char *t, size_t len)
{
    uint32_t id;
    if (!dfn_strtab_add(h->tab, t, len, &id)) return false;
    dfn_grow((void **)&h->v, &h->cap, (size_t)id + 1, sizeof *h->v);
    h->v[id] = dfn_extract_hash(taken, t, len);
    return true;
}

typedef struct {
    const dfn_result *r;
    FILE *out;
    dfn_extract_stats *st;
    dfn_map64 taken;          /* hashes given */
    hashes host, file;        /* by text: hosts with a name, files' paths */
    dfn_strtab *hosts;        /* every call's host, named or not: its samples are the subset's */
    dfn_strtab *procs, *ranked, *named, *tnamed;   /* processes (threads) with calls, a PR, a name */
    struct { dfn_xmeta kind; size_t row; } *meta;
    size_t nmeta, metacap;
    obuf key;
    uint64_t lo, hi;
} rows_x;

static void meta_push(rows_x *x, dfn_xmeta kind, size_t row)
{
    dfn_grow((void **)&x->meta, &x->metacap, x->nmeta + 1, sizeof *x->meta);
    x->meta[x->nmeta].kind = kind;
    x->meta[x->nmeta++].row = row;
}

/* Adds the key in x->key to t: true when it was not there. */
static bool key_put(rows_x *x, dfn_strtab *t)
{
    return dfn_strtab_add(t, (const char *)x->key.b, x->key.n, NULL);
}

/* The hashes, metadata records, processes and span that call row `row`
 * (c) needs, in the order dfn_extract_write's scan finds them. */
static void rows_scan_one(rows_x *x, size_t row, const dfn_excall *c)
{
    if (c->hostlen && hash_take(&x->host, &x->taken, c->host, c->hostlen)) meta_push(x, DFN_XMETA_HH, row);
    if (c->has_file && hash_take(&x->file, &x->taken, c->path, c->pathlen)) {
        meta_push(x, DFN_XMETA_FH, row);
        x->st->files++;
    }
    dfn_strtab_intern(x->hosts, c->host, c->hostlen);
    proc_key(&x->key, c->host, c->hostlen, c->pid, c->pidlen);
    if (key_put(x, x->procs)) x->st->processes++;
    if (c->ranklen && key_put(x, x->ranked)) meta_push(x, DFN_XMETA_PR, row);
    if (c->has_pname && key_put(x, x->named)) meta_push(x, DFN_XMETA_PNAME, row);
    put_bytes(&x->key, c->tid, c->tidlen);
    if (c->has_tname && key_put(x, x->tnamed)) meta_push(x, DFN_XMETA_TNAME, row);
    if (c->ts < x->lo) x->lo = c->ts;
    if (c->ts + c->dur > x->hi) x->hi = c->ts + c->dur;
}

static void rows_meta(rows_x *x, dfn_xmeta kind, const dfn_excall *c)
{
    const char *text = kind == DFN_XMETA_PR ? c->rank : kind == DFN_XMETA_PNAME ? c->pname
                     : kind == DFN_XMETA_TNAME ? c->tname : kind == DFN_XMETA_HH ? c->host : c->path;
    size_t len = kind == DFN_XMETA_PR ? c->ranklen : kind == DFN_XMETA_PNAME ? c->pnamelen
               : kind == DFN_XMETA_TNAME ? c->tnamelen : kind == DFN_XMETA_HH ? c->hostlen : c->pathlen;
    const uint64_t *h = kind == DFN_XMETA_HH ? hash_of(&x->host, c->host, c->hostlen)
                      : kind == DFN_XMETA_FH ? hash_of(&x->file, c->path, c->pathlen) : NULL;
    const char *tid = kind == DFN_XMETA_TNAME ? c->tid : c->pid;
    size_t tl = kind == DFN_XMETA_TNAME ? c->tidlen : c->pidlen;
    dfn_extract_meta(x->out, kind, c->pid, c->pidlen, tid, tl, hash_of(&x->host, c->host, c->hostlen), text, len,
                     h ? *h : 0);
    x->st->metadata++;
}

static void rows_event(rows_x *x, const dfn_excall *c)
{
    FILE *out = x->out;
    fwrite(c->head, 1, c->headlen, out);
    bool sep = false;
    const uint64_t *h = hash_of(&x->host, c->host, c->hostlen);
    if (h) { fprintf(out, "\"hhash\":\"%" PRIu64 "\"", *h); sep = true; }
    if (c->has_file) {
        fprintf(out, "%s\"fhash\":\"%" PRIu64 "\"", sep ? "," : "", *hash_of(&x->file, c->path, c->pathlen));
        sep = true;
    }
    if (sep && c->argslen) fputc(',', out);
    fwrite(c->args, 1, c->argslen, out);
    fputs("}}\n", out);
    x->st->events++;
}

/* The shares' samples (already of the calls' hosts and span, in one
 * store's order) less those of a process whose calls were all left out
 * (callers: every process of the set with calls). */
static int rows_samples(rows_x *x, const dfn_strtab *callers)
{
    const dfn_chrome_sample *v;
    size_t n = dfn_evrow_samples(x->r, &v);
    int rc = 0;
    for (size_t j = 0; j < n && !rc; j++) {
        const dfn_chrome_sample *c = &v[j];
        /* (what the shares sent is checked as one store's samples are
         * taken: of the calls' hosts over their span, finite) */
        if (!isfinite(c->value) || c->ts < x->lo || c->ts > x->hi ||
            dfn_strtab_find(x->hosts, c->who.host, c->who.hostlen) == DFN_NOID)
            continue;
        /* its pid as the subset writes it: a number, or the name as a
         * JSON string (as far as a NUL, as a store's name reads) */
        char num[32], *named = NULL;
        size_t pl = 0;
        if (dfn_id_named(c->who.pidv)) {
            FILE *m = open_memstream(&named, &pl);
            if (!m) dfn_out_of_memory("a memory stream", BUFSIZ);
            dfn_json_bytes(m, c->who.pid, strnlen(c->who.pid, c->who.pidlen));
            fclose(m);
        } else {
            pl = (size_t)snprintf(num, sizeof num, "%" PRId64, c->who.pidv);
        }
        const char *pid = named ? named : num;
        proc_key(&x->key, c->who.host, c->who.hostlen, pid, pl);
        if (dfn_strtab_find(x->procs, (const char *)x->key.b, x->key.n) != DFN_NOID ||
            dfn_strtab_find(callers, (const char *)x->key.b, x->key.n) == DFN_NOID) {
            dfn_extract_sample(x->out, c->series, c->serieslen, pid, pl, c->ts,
                               hash_of(&x->host, c->who.host, c->who.hostlen), c->value);
            x->st->samples++;
        }
        free(named);
        if ((j & 4095) == 0 && ferror(x->out)) rc = -1;
    }
    return rc;
}

static void rows_free(rows_x *x)
{
    dfn_map64_free(&x->taken);
    dfn_strtab_free(x->host.tab);
    dfn_strtab_free(x->file.tab);
    free(x->host.v);
    free(x->file.v);
    dfn_strtab_free(x->hosts);
    dfn_strtab_free(x->procs);
    dfn_strtab_free(x->ranked);
    dfn_strtab_free(x->named);
    dfn_strtab_free(x->tnamed);
    free(x->meta);
    free(x->key.b);
}

int dfn_extract_write_rows(FILE *out, const dfn_result *r, const dfn_strtab *callers, dfn_extract_stats *st)
{
    memset(st, 0, sizeof *st);
    rows_x x = { .r = r, .out = out, .st = st, .host = { dfn_strtab_new(), NULL, 0 },
                 .file = { dfn_strtab_new(), NULL, 0 }, .hosts = dfn_strtab_new(), .procs = dfn_strtab_new(),
                 .ranked = dfn_strtab_new(), .named = dfn_strtab_new(), .tnamed = dfn_strtab_new(), .lo = UINT64_MAX };
    dfn_map64_init(&x.taken);
    dfn_excall c;
    bool whole = true;
    for (size_t row = 0; row < r->nrows && whole; row++)
        if ((whole = dfn_evrow_extract(r, row, &c))) rows_scan_one(&x, row, &c);
    if (!whole) {   /* (the merge checked every row: rows of another form) */
        rows_free(&x);
        errno = EINVAL;
        return -1;
    }
    fputs("[\n", out);
    if (r->nrows) {
        (void)dfn_evrow_extract(r, 0, &c);
    } else {
        memset(&c, 0, sizeof c);
        c.host = c.rank = c.pname = c.tname = c.path = c.head = c.args = "";
        c.pid = c.tid = "0";
        c.pidlen = c.tidlen = 1;
    }
    rows_meta(&x, DFN_XMETA_CM, &c);
    for (size_t k = 0; k < x.nmeta; k++) {
        (void)dfn_evrow_extract(r, x.meta[k].row, &c);
        rows_meta(&x, x.meta[k].kind, &c);
    }
    bool stopped = false;
    for (size_t row = 0; row < r->nrows && !stopped; row++) {
        (void)dfn_evrow_extract(r, row, &c);
        rows_event(&x, &c);
        if ((row & 4095) == 0 && ferror(out)) stopped = true;
    }
    if (!stopped && r->nrows && rows_samples(&x, callers) != 0) stopped = true;
    fputs("]\n", out);
    rows_free(&x);
    return ferror(out) || stopped ? -1 : 0;
}

uint64_t dfn_extract_rows_past(const dfn_result *r, uint64_t end_us)
{
    uint64_t past = 0;
    for (size_t row = 0; row < r->nrows; row++) {
        dfn_excall c;
        if (dfn_evrow_extract(r, row, &c) && dfn_sat_add(dfn_evrow_ts(r, row), c.dur) > end_us) past++;
    }
    return past;
}
