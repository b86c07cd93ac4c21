/* Counter queries (see dfnav/counters.h): a scan of the samples, which are
 * few next to events (one per series and interval), into rows keyed by
 * series, time bin, host and pid. Times are seconds from the store's start
 * (its first event; its first sample when it has no events). */
#include "dfnav/counters.h"
#include "dfnav/match.h"
#include "dfnav/query.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cdim_names[DFN_CDIM_COUNT] = { "counter", "time", "host", "pid" };

const char *dfn_cdim_name(dfn_cdim d) { return d < DFN_CDIM_COUNT ? cdim_names[d] : "?"; }

bool dfn_cdims_parse(const char *text, dfn_cdim *dims, size_t *n, char *err, size_t errlen)
{
    bool seen[DFN_CDIM_COUNT] = { false };
    size_t m = 0;
    dims[m++] = DFN_CDIM_COUNTER;
    seen[DFN_CDIM_COUNTER] = true;
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            int d = -1;
            for (int k = 0; k < DFN_CDIM_COUNT; k++)
                if (strlen(cdim_names[k]) == len && memcmp(cdim_names[k], p, len) == 0) d = k;
            if (d < 0) {
                snprintf(err, errlen, "counters group by counter, time, host and pid, not '%.*s'", (int)len, p);
                return false;
            }
            if (!seen[d]) dims[m++] = (dfn_cdim)d;
            seen[d] = true;
        }
        p += len;
        if (*p) p++;
    }
    *n = m;
    return true;
}

/* The store's time origin for counters, in absolute µs. */
static uint64_t counters_t0(const dfn_store *s)
{
    return s->n || !s->nsamples ? s->t0 : s->samples[0].ts;
}

static double sample_s(const dfn_store *s, const dfn_sample *x)
{
    uint64_t t0 = counters_t0(s);
    return x->ts >= t0 ? (x->ts - t0) / 1e6 : -((t0 - x->ts) / 1e6);
}

/* Whether a sample passes every term; the terms were checked to be ones
 * counters have. */
static bool sample_pass(const dfn_store *s, const dfn_filter *f, const dfn_sample *x)
{
    for (size_t k = 0; f && k < f->n; k++) {
        const dfn_term *t = &f->terms[k];
        bool ok = true;
        switch (t->key) {
        case DFN_KEY_COUNTER: {
            uint32_t id = s->series[x->series];
            ok = dfn_term_text(t, dfn_store_str(s, id), dfn_strtab_len(s->strs, id), false);
            break;
        }
        case DFN_KEY_HOST: ok = dfn_term_text(t, dfn_store_str(s, x->host), dfn_strtab_len(s->strs, x->host), false); break;
        case DFN_KEY_PID: ok = dfn_term_id(s, t, x->pid); break;
        case DFN_KEY_TIME: ok = dfn_term_num(t, sample_s(s, x)); break;
        default: break;
        }
        if (!ok) return false;
    }
    return true;
}

typedef struct { const dfn_store *s; const dfn_cresult *r; } sort_ctx;
static _Thread_local sort_ctx g_sort;

static int crow_cmp(const void *a, const void *b)
{
    const dfn_crow *x = a, *y = b;
    const dfn_store *s = g_sort.s;
    for (size_t k = 0; k < g_sort.r->ndims; k++) {
        int c = 0;
        switch (g_sort.r->dims[k]) {
        case DFN_CDIM_COUNTER: c = strcmp(dfn_store_str(s, s->series[x->key[k]]), dfn_store_str(s, s->series[y->key[k]])); break;
        case DFN_CDIM_HOST: c = strcmp(dfn_store_str(s, (uint32_t)x->key[k]), dfn_store_str(s, (uint32_t)y->key[k])); break;
        case DFN_CDIM_PID: c = (int64_t)x->key[k] < (int64_t)y->key[k] ? -1 : (int64_t)x->key[k] > (int64_t)y->key[k]; break;
        default: c = x->key[k] < y->key[k] ? -1 : x->key[k] > y->key[k]; break;
        }
        if (c) return c;
    }
    return 0;
}

static bool cquery_check(const dfn_filter *f, char *err, size_t errlen)
{
    for (size_t k = 0; f && k < f->n; k++) {
        dfn_key key = f->terms[k].key;
        if (key != DFN_KEY_COUNTER && key != DFN_KEY_HOST && key != DFN_KEY_PID && key != DFN_KEY_TIME) {
            snprintf(err, errlen, "counters have counter, host, pid and time, not %s", dfn_key_name(key));
            return false;
        }
    }
    return true;
}

/* The window: the samples' span, narrowed by time terms. */
static void cquery_window(const dfn_store *s, const dfn_filter *f, double *lo, double *hi)
{
    /* bins count from the trace start, as the events' do */
    *lo = s->nsamples && sample_s(s, &s->samples[0]) < 0 ? sample_s(s, &s->samples[0]) : 0;
    *hi = s->nsamples ? sample_s(s, &s->samples[s->nsamples - 1]) : 0;
    dfn_filter_time_narrow(f, lo, hi);
}

bool dfn_counters_query(const dfn_store *s, const dfn_cquery *q, dfn_cresult *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!cquery_check(q->filter, err, errlen)) return false;
    out->ndims = q->ndims;
    memcpy(out->dims, q->dims, q->ndims * sizeof *q->dims);
    cquery_window(s, q->filter, &out->win_lo_s, &out->win_hi_s);
    out->bin_s = q->bin_s > 0 ? q->bin_s : dfn_auto_bin(out->win_hi_s - out->win_lo_s);
    dfn_strtab *keys = dfn_strtab_new();
    size_t cap = 0;
    for (size_t i = 0; i < s->nsamples; i++) {
        const dfn_sample *x = &s->samples[i];
        if (!sample_pass(s, q->filter, x)) continue;
        uint64_t key[DFN_CDIMS_MAX] = { 0 };
        for (size_t k = 0; k < q->ndims; k++) {
            switch (q->dims[k]) {
            case DFN_CDIM_COUNTER: key[k] = x->series; break;
            case DFN_CDIM_HOST: key[k] = x->host; break;
            case DFN_CDIM_PID: key[k] = (uint64_t)x->pid; break;
            default: {
                double b = floor((sample_s(s, x) - out->win_lo_s) / out->bin_s);
                key[k] = b > 0 ? (uint64_t)b : 0;
                break;
            }
            }
        }
        uint32_t before = dfn_strtab_count(keys), row = dfn_strtab_intern(keys, (const char *)key, sizeof key);
        if (row == before) {
            dfn_grow((void **)&out->rows, &cap, row + 1, sizeof *out->rows);
            out->rows[row] = (dfn_crow){ .samples = 0, .sum = 0, .min = INFINITY, .max = -INFINITY };
            memcpy(out->rows[row].key, key, sizeof key);
            out->nrows = row + 1;
        }
        dfn_crow *r = &out->rows[row];
        r->samples++;
        r->sum += x->value;
        if (x->value < r->min) r->min = x->value;
        if (x->value > r->max) r->max = x->value;
    }
    dfn_strtab_free(keys);
    g_sort = (sort_ctx){ s, out };
    if (out->nrows) qsort(out->rows, out->nrows, sizeof *out->rows, crow_cmp);
    return true;
}

size_t dfn_crow_key_text(const dfn_store *s, const dfn_cresult *r, const dfn_crow *row, size_t k, char *buf, size_t cap)
{
    int n = 0;
    switch (r->dims[k]) {
    case DFN_CDIM_COUNTER: n = snprintf(buf, cap, "%s", dfn_store_str(s, s->series[row->key[k]])); break;
    case DFN_CDIM_HOST: n = snprintf(buf, cap, "%s", dfn_store_str(s, (uint32_t)row->key[k])); break;
    case DFN_CDIM_PID: n = (int)dfn_id_text(s, (int64_t)row->key[k], buf, cap); break;
    default: n = snprintf(buf, cap, "%.6g", r->win_lo_s + (double)row->key[k] * r->bin_s); break;
    }
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

void dfn_cresult_free(dfn_cresult *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}
