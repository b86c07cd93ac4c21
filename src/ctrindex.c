/* The counter index (see dfnav/ctrindex.h): per series, samples sorted by
 * (key, time) with running fixed-point sums, and each key's range. */
#include "dfnav/ctrindex.h"
#include "dfnav/map64.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Units of 2^-24: means to 6e-8, and room in 128 bits for 2^32 samples of
 * values up to 2^70 (1.2e21: cumulative byte counters too). */
#define FIX_ONE 0x1p24

typedef struct {
    dfn_map64 range;          /* key -> first << 32 | end (indexes into ts) */
    uint64_t *ts;             /* µs from the store's start, by key then time */
    dfn_ctrsum *cum;          /* cum[j]: the fixed-point sum of the values before j */
} series_ix;

struct dfn_ctrindex {
    size_t n, nprocs;
    series_ix *sx;
    const dfn_store *s;
    const uint32_t *proc_of_lane;
};

typedef struct { uint32_t key; uint64_t ts; double v; } ksample;

static int ksample_cmp(const void *a, const void *b)
{
    const ksample *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* A value in units of 2^-24, within what 128 bits hold for any sum of
 * 2^32 samples (values past 2^70 are held at it). Rounded as a long
 * double and converted straight to 128 bits (llround's 64 bits would
 * overflow for large values). */
static dfn_ctrsum fix_of(double v)
{
    long double f = (long double)v * FIX_ONE;
    if (!(f == f)) return 0;
    if (f > 0x1p94L) f = 0x1p94L;
    if (f < -0x1p94L) f = -0x1p94L;
    return (dfn_ctrsum)roundl(f);
}

/* The series index of name, or -1. */
static long series_find(const dfn_store *s, const char *name)
{
    for (size_t k = 0; k < s->nseries; k++)
        if (strcmp(dfn_store_str(s, s->series[k]), name) == 0) return (long)k;
    return -1;
}

static void unknown_series(const dfn_store *s, const char *name, char *err, size_t errlen)
{
    int w = snprintf(err, errlen, "no counter series '%s' in this set", name);
    for (size_t k = 0; k < s->nseries && w > 0 && (size_t)w < errlen; k++)
        w += snprintf(err + w, errlen - (size_t)w, "%s%s", k ? ", " : " (series: ", dfn_store_str(s, s->series[k]));
    if (s->nseries && w > 0 && (size_t)w < errlen) snprintf(err + w, errlen - (size_t)w, ")");
}

/* The processes with calls, by (host, pid): their samples count for them. */
static dfn_strtab *procs_of(const dfn_store *s, const uint32_t *proc_of_lane, uint32_t **idx)
{
    dfn_strtab *t = dfn_strtab_new();
    *idx = dfn_xmalloc((s->nlanes ? s->nlanes : 1) * sizeof **idx);
    for (size_t l = 0; l < s->nlanes; l++) {
        char k[12];
        memcpy(k, &s->lanes[l].host, 4);
        memcpy(k + 4, &s->lanes[l].pid, 8);
        uint32_t before = dfn_strtab_count(t), id = dfn_strtab_intern(t, k, sizeof k);
        if (id == before) (*idx)[id] = proc_of_lane[l];
    }
    return t;
}

static void series_build(const dfn_ctrindex *x, series_ix *sx, long series, const dfn_strtab *procs, const uint32_t *idx)
{
    const dfn_store *s = x->s;
    ksample *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t j = 0; j < s->nsamples; j++) {
        const dfn_sample *d = &s->samples[j];
        if (d->series != (uint32_t)series || d->ts < s->t0) continue;   /* before any call: in none */
        char k[12];
        memcpy(k, &d->host, 4);
        memcpy(k + 4, &d->pid, 8);
        uint32_t p = dfn_strtab_find(procs, k, sizeof k);
        dfn_grow((void **)&v, &cap, n + 1, sizeof *v);
        v[n++] = (ksample){ p != DFN_NOID ? idx[p] : (uint32_t)(x->nprocs + d->host), d->ts - s->t0, d->value };
    }
    qsort(v, n, sizeof *v, ksample_cmp);
    dfn_map64_init(&sx->range);
    sx->ts = dfn_xmalloc((n ? n : 1) * sizeof *sx->ts);
    sx->cum = dfn_xmalloc((n + 1) * sizeof *sx->cum);
    sx->cum[0] = 0;
    for (size_t j = 0; j < n; j++) {
        sx->ts[j] = v[j].ts;
        sx->cum[j + 1] = sx->cum[j] + fix_of(v[j].v);
        uint64_t *r = dfn_map64_slot(&sx->range, v[j].key);
        if (!*r) *r = (uint64_t)j << 32;
        *r = (*r & ~0xffffffffull) | (uint64_t)(j + 1);
    }
    free(v);
}

dfn_ctrindex *dfn_ctrindex_build(const dfn_store *s, char *const *names, size_t n, const uint32_t *proc_of_lane,
                                 size_t nprocs, bool lenient, char *err, size_t errlen)
{
    long ids[64];
    if (n > 64) n = 64;
    for (size_t k = 0; k < n; k++) {
        ids[k] = series_find(s, names[k]);
        if (ids[k] < 0 && !lenient) { unknown_series(s, names[k], err, errlen); return NULL; }
    }
    if (s->nsamples > UINT32_MAX) { snprintf(err, errlen, "more than 2^32 counter samples"); return NULL; }
    dfn_ctrindex *x = dfn_xcalloc(1, sizeof *x);
    x->n = n;
    x->nprocs = nprocs;
    x->s = s;
    x->proc_of_lane = proc_of_lane;
    x->sx = dfn_xcalloc(n ? n : 1, sizeof *x->sx);
    uint32_t *idx;
    dfn_strtab *procs = procs_of(s, proc_of_lane, &idx);
    for (size_t k = 0; k < n; k++)   /* (an unknown one stays empty: no key, no sample) */
        if (ids[k] >= 0) series_build(x, &x->sx[k], ids[k], procs, idx);
    dfn_strtab_free(procs);
    free(idx);
    return x;
}

uint32_t dfn_ctrindex_proc_key(const dfn_ctrindex *x, uint32_t lane) { return x->proc_of_lane[lane]; }
uint32_t dfn_ctrindex_host_key(const dfn_ctrindex *x, uint32_t lane)
{
    return (uint32_t)(x->nprocs + x->s->lanes[lane].host);
}

static size_t lower_bound(const uint64_t *v, size_t lo, size_t hi, uint64_t t)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

void dfn_ctrindex_stretch(const dfn_ctrindex *x, size_t k, uint32_t key, uint64_t a, uint64_t b, uint64_t *n,
                          dfn_ctrsum *sum)
{
    const series_ix *sx = &x->sx[k];
    if (b <= a || !sx->range.n) return;
    const uint64_t *r = dfn_map64_get(&sx->range, key);
    if (!r) return;
    size_t lo = (size_t)(*r >> 32), hi = (size_t)(*r & 0xffffffffu);
    size_t j0 = lower_bound(sx->ts, lo, hi, a), j1 = lower_bound(sx->ts, j0, hi, b);
    *n += j1 - j0;
    *sum += sx->cum[j1] - sx->cum[j0];
}

double dfn_ctrindex_mean(dfn_ctrsum sum, uint64_t n)
{
    return n ? (double)((long double)sum / (long double)n / (long double)FIX_ONE) : NAN;
}

void dfn_ctrindex_free(dfn_ctrindex *x)
{
    if (!x) return;
    for (size_t k = 0; k < x->n; k++) {
        dfn_map64_free(&x->sx[k].range);
        free(x->sx[k].ts);
        free(x->sx[k].cum);
    }
    free(x->sx);
    free(x);
}
