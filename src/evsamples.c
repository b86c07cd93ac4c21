/* Counter samples of shares for Chrome output of calls merged from them
 * (see dfnav/evrows.h): rank 0 says which samples it takes (the hosts of
 * the calls it prints and their span, as one process takes them), each
 * share sends its own there with whose they are, and rank 0 puts them in
 * the order one process's store has them: time, series text, host name,
 * pid (numbers first, names by text), value. */
#include "dfnav/evrows.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "DFNS" and the layout's version: a rank of another build is refused. */
#define EVSAMPLES_MAGIC UINT64_C(0x534e4644)
#define EVSAMPLES_VERSION 1

struct dfn_evsamples {
    uint8_t **bufs;           /* the bytes the samples point into */
    size_t nbufs, bcap;
    dfn_chrome_sample *v;
    size_t n, cap;
};

void dfn_evsamples_free(struct dfn_evsamples *x)
{
    if (!x) return;
    for (size_t k = 0; k < x->nbufs; k++) free(x->bufs[k]);
    free(x->bufs);
    free(x->v);
    free(x);
}

uint8_t *dfn_evwindow_make(const dfn_strtab *hosts, uint64_t lo, uint64_t hi, size_t *len)
{
    obuf o = {0};
    put_u(&o, EVSAMPLES_MAGIC);
    put_u(&o, EVSAMPLES_VERSION);
    put_u(&o, lo);
    put_u(&o, hi);
    uint32_t n = dfn_strtab_count(hosts);
    put_u(&o, n);
    for (uint32_t k = 0; k < n; k++) put_bytes(&o, dfn_strtab_str(hosts, k), dfn_strtab_len(hosts, k));
    *len = o.n;
    return o.b;
}

uint8_t *dfn_evwindow_of(const dfn_result *r, size_t *len)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    dfn_strtab *hosts = dfn_strtab_new();
    for (size_t row = 0; row < r->nrows; row++) {
        dfn_chrome_call cc;
        dfn_excall xc;
        const char *host;
        size_t hostlen;
        uint64_t ts, dur;
        if (r->merged_form == DFN_EVROWS_EXTRACT && dfn_evrow_extract(r, row, &xc))
            host = xc.host, hostlen = xc.hostlen, ts = xc.ts, dur = xc.dur;
        else if (r->merged_form == DFN_EVROWS_CHROME && dfn_evrow_chrome(r, row, &cc))
            host = cc.who.host, hostlen = cc.who.hostlen, ts = cc.ts, dur = cc.dur;
        else
            continue;
        dfn_strtab_intern(hosts, host, hostlen);
        if (ts < lo) lo = ts;
        if (ts + dur > hi) hi = ts + dur;
    }
    uint8_t *w = dfn_evwindow_make(hosts, lo, hi, len);
    dfn_strtab_free(hosts);
    return w;
}

/* The window's span and hosts (NULL when its bytes are not whole). */
static dfn_strtab *window_read(const uint8_t *w, size_t wlen, uint64_t *lo, uint64_t *hi)
{
    char err[128];
    ibuf in = { w, w + wlen, NULL };
    if (!get_head(&in, EVSAMPLES_MAGIC, EVSAMPLES_VERSION, "a window of samples", err, sizeof err)) return NULL;
    *lo = get_any(&in, "the window's start");
    *hi = get_any(&in, "the window's end");
    size_t n = get_count(&in, 1, "the window's hosts");
    dfn_strtab *hosts = dfn_strtab_new();
    for (size_t k = 0; k < n && !in.bad; k++) {
        size_t hl;
        const uint8_t *h = get_bytes(&in, &hl, "a host");
        if (!in.bad) dfn_strtab_intern(hosts, (const char *)h, hl);
    }
    if (!in.bad && in.p == in.end) return hosts;
    dfn_strtab_free(hosts);
    return NULL;
}

uint8_t *dfn_evwindow_union(char *const *windows, const size_t *lens, size_t n, size_t *len)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    dfn_strtab *hosts = dfn_strtab_new();
    for (size_t k = 0; k < n && hosts; k++) {
        uint64_t l, h;
        dfn_strtab *one = windows[k] ? window_read((const uint8_t *)windows[k], lens[k], &l, &h) : NULL;
        if (!one) {
            dfn_strtab_free(hosts);
            hosts = NULL;
            break;
        }
        for (uint32_t j = 0; j < dfn_strtab_count(one); j++) dfn_strtab_intern(hosts, dfn_strtab_str(one, j), dfn_strtab_len(one, j));
        dfn_strtab_free(one);
        if (l < lo) lo = l;
        if (h > hi) hi = h;
    }
    if (!hosts) return NULL;
    uint8_t *w = dfn_evwindow_make(hosts, lo, hi, len);
    dfn_strtab_free(hosts);
    return w;
}

bool dfn_evwindow_within(const uint8_t *inner, size_t ilen, const uint8_t *outer, size_t olen)
{
    uint64_t ilo, ihi, olo, ohi;
    dfn_strtab *in = window_read(inner, ilen, &ilo, &ihi), *out = window_read(outer, olen, &olo, &ohi);
    bool within = in && out && (!dfn_strtab_count(in) || (ilo >= olo && ihi <= ohi));
    for (uint32_t k = 0; within && k < dfn_strtab_count(in); k++)
        within = dfn_strtab_find(out, dfn_strtab_str(in, k), dfn_strtab_len(in, k)) != DFN_NOID;
    dfn_strtab_free(in);
    dfn_strtab_free(out);
    return within;
}

uint8_t *dfn_evsamples_share(const dfn_store *s, const uint8_t *window, size_t wlen, size_t *len)
{
    obuf o = {0}, rows = {0};
    uint64_t lo = 0, hi = 0, n = 0;
    dfn_strtab *hosts = s && s->nsamples ? window_read(window, wlen, &lo, &hi) : NULL;
    dfn_chrome_ranks *rk = hosts ? dfn_chrome_ranks_new(s) : NULL;
    for (size_t j = 0; hosts && j < s->nsamples; j++) {
        const dfn_sample *x = &s->samples[j];
        if (x->ts < lo || x->ts > hi || !isfinite(x->value) ||
            dfn_strtab_find(hosts, dfn_store_str(s, x->host), dfn_strtab_len(s->strs, x->host)) == DFN_NOID)
            continue;
        dfn_chrome_who w;
        char pid[32];
        dfn_chrome_sample_who(s, rk, x, &w, pid);
        uint32_t series = s->series[x->series];
        put_bytes(&rows, w.host, w.hostlen);
        put_bytes(&rows, w.pid, w.pidlen);
        put_id(&rows, w.pidv);
        put_bytes(&rows, w.rank, w.ranklen);
        put_bytes(&rows, dfn_store_str(s, series), dfn_strtab_len(s->strs, series));
        put_u(&rows, x->ts);
        put_d(&rows, x->value);
        n++;
    }
    dfn_chrome_ranks_free(rk);
    dfn_strtab_free(hosts);
    put_u(&o, EVSAMPLES_MAGIC);
    put_u(&o, EVSAMPLES_VERSION);
    put_u(&o, n);
    put_raw(&o, rows.b, rows.n);
    free(rows.b);
    *len = o.n;
    return o.b;
}

bool dfn_evsamples_add(dfn_result *r, uint8_t *buf, size_t len, char *err, size_t errlen)
{
    if (!buf) {
        snprintf(err, errlen, "no counter samples came");
        return false;
    }
    struct dfn_evsamples *x = r->evsamples;
    if (!x) x = r->evsamples = dfn_xcalloc(1, sizeof *x);
    ibuf in = { buf, buf + len, NULL };
    size_t n0 = x->n;
    if (!get_head(&in, EVSAMPLES_MAGIC, EVSAMPLES_VERSION, "counter samples", err, errlen)) {
        free(buf);
        return false;
    }
    size_t n = get_count(&in, 14, "the samples");
    for (size_t k = 0; k < n && !in.bad; k++) {
        dfn_chrome_sample y;
        memset(&y, 0, sizeof y);
        y.who.host = (const char *)get_bytes(&in, &y.who.hostlen, "a host");
        y.who.pid = (const char *)get_bytes(&in, &y.who.pidlen, "a pid");
        y.who.pidv = y.who.tidv = get_id(&in);
        y.who.tid = "";
        y.who.rank = (const char *)get_bytes(&in, &y.who.ranklen, "a rank");
        y.series = (const char *)get_bytes(&in, &y.serieslen, "a series");
        y.ts = get_any(&in, "a time");
        y.value = get_d(&in);
        if (in.bad) break;
        dfn_grow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v);
        x->v[x->n++] = y;
    }
    if (!in.bad && in.p != in.end) in.bad = "bytes past the samples";
    if (in.bad) {
        x->n = n0;
        snprintf(err, errlen, "damaged counter samples (%s)", in.bad);
        free(buf);
        return false;
    }
    dfn_grow((void **)&x->bufs, &x->bcap, x->nbufs + 1, sizeof *x->bufs);
    x->bufs[x->nbufs++] = buf;
    return true;
}

/* Texts as strcmp orders them: as far as a NUL. */
static int cstr_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    return dfn_bytes_cmp(a, strnlen(a, al), b, strnlen(b, bl));
}

/* One process's store order of samples (the loader's sample_cmp). */
static int sample_order(const void *pa, const void *pb)
{
    const dfn_chrome_sample *x = pa, *y = pb;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int c = dfn_bytes_cmp(x->series, x->serieslen, y->series, y->serieslen);
    if (c) return c;
    if ((c = cstr_cmp(x->who.host, x->who.hostlen, y->who.host, y->who.hostlen)) != 0) return c;
    bool nx = dfn_id_named(x->who.pidv), ny = dfn_id_named(y->who.pidv);
    if (nx != ny) return nx ? 1 : -1;
    if (!nx && x->who.pidv != y->who.pidv) return x->who.pidv < y->who.pidv ? -1 : 1;
    if (nx && (c = cstr_cmp(x->who.pid, x->who.pidlen, y->who.pid, y->who.pidlen)) != 0) return c;
    return dfn_value_order(x->value, y->value);
}

void dfn_evsamples_finish(dfn_result *r)
{
    if (r->evsamples && r->evsamples->n > 1) qsort(r->evsamples->v, r->evsamples->n, sizeof *r->evsamples->v, sample_order);
}

size_t dfn_evrow_samples(const dfn_result *r, const dfn_chrome_sample **out)
{
    *out = r->evsamples ? r->evsamples->v : NULL;
    return r->evsamples ? r->evsamples->n : 0;
}
