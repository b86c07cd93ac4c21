/* Counter rows of a share as bytes, and merged (see counters.h): what MPI
 * ranks send rank 0 for report --counters. Keys travel by their text (a
 * series' and a host's name, a pid's number or name), each row with its
 * samples, least and largest value and the partials of its exact sum, so
 * that rank 0's rows are one process's to the bit. */
#include "dfnav/counters.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "DFNC" and the layout's version: a rank of another build is refused. */
#define CPARTIAL_MAGIC UINT64_C(0x434e4644)
#define CPARTIAL_VERSION 1

/* The text of string id of s's strings, or of r's own (merged rows). */
static void put_id_text(obuf *o, const dfn_store *s, const dfn_cresult *r, uint32_t id)
{
    if (r->keytext) put_bytes(o, dfn_strtab_str(r->keytext, id), dfn_strtab_len(r->keytext, id));
    else put_bytes(o, dfn_store_str(s, id), dfn_strtab_len(s->strs, id));
}

/* A row's key k: text for a series and a host, a tag and a number or a
 * name for a pid, a bin's signed index. */
static void put_key(obuf *o, const dfn_store *s, const dfn_cresult *r, dfn_cdim d, uint64_t key)
{
    switch (d) {
    case DFN_CDIM_COUNTER: put_id_text(o, s, r, r->keytext ? (uint32_t)key : s->series[key]); break;
    case DFN_CDIM_HOST: put_id_text(o, s, r, (uint32_t)key); break;
    case DFN_CDIM_PID:   /* (a name's value is its store's: its text follows) */
        put_id(o, (int64_t)key);
        if (dfn_id_named((int64_t)key)) put_id_text(o, s, r, (uint32_t)((int64_t)key - DFN_ID_NAMED_BASE));
        break;
    default: put_u(o, dfn_zigzag((int64_t)key)); break;
    }
}

uint8_t *dfn_counters_encode(const dfn_store *s, const dfn_cresult *r, size_t *len)
{
    obuf o = {0};
    put_u(&o, CPARTIAL_MAGIC);
    put_u(&o, CPARTIAL_VERSION);
    put_u(&o, r->ndims);
    for (size_t k = 0; k < r->ndims; k++) put_u(&o, r->dims[k]);
    put_u(&o, r->nrows);
    for (size_t i = 0; i < r->nrows; i++) {
        const dfn_crow *row = &r->rows[i];
        for (size_t k = 0; k < r->ndims; k++) put_key(&o, s, r, r->dims[k], row->key[k]);
        put_u(&o, row->samples);
        put_d(&o, row->min);
        put_d(&o, row->max);
        const dfn_fsum *x = &row->xs;
        put_u(&o, (uint64_t)x->any_special | (uint64_t)(x->overflow + 1) << 1);
        if (x->any_special) put_d(&o, x->special);
        put_u(&o, x->n);
        for (uint32_t j = 0; j < x->n; j++) put_d(&o, x->p[j]);
    }
    *len = o.n;
    return o.b;
}

/* A text of the bytes, interned into the result's own (ids of keytext). */
static uint32_t get_text(ibuf *in, dfn_strtab *text)
{
    size_t n;
    const uint8_t *t = get_bytes(in, &n, "a key's text");
    return in->bad ? 0 : dfn_strtab_intern(text, (const char *)t, n);
}

static uint64_t get_key(ibuf *in, const dfn_cresult *r, dfn_cdim d)
{
    dfn_strtab *text = r->keytext;
    switch (d) {
    case DFN_CDIM_COUNTER: case DFN_CDIM_HOST: return get_text(in, text);
    case DFN_CDIM_PID: {
        int64_t v = get_id(in);   /* (numbers never take the names' range) */
        return (uint64_t)(dfn_id_named(v) ? DFN_ID_NAMED_BASE + get_text(in, text) : v);
    }
    default: {
        /* a bin whose start in µs an int64 holds (its label's sum), as
         * every bin of a store's samples does */
        int64_t b = dfn_unzigzag(get_any(in, "a time bin")), bin_us = llround(r->bin_s * 1e6);
        double room = (double)INT64_MAX / 4 - fabs(r->win_lo_s) * 1e6;   /* (past the window's start) */
        int64_t most = room > 0 ? (int64_t)(room / (double)(bin_us > 0 ? bin_us : 1)) : 0;
        if (!in->bad && (b > most || b < -most)) in->bad = "a time bin";
        return (uint64_t)b;
    }
    }
}

/* One row of the bytes into r: its keys found or added, its figures
 * added. */
static void get_row(ibuf *in, dfn_cresult *r, dfn_strtab *rows, size_t *cap)
{
    uint64_t key[DFN_CDIMS_MAX] = { 0 };
    for (size_t k = 0; k < r->ndims; k++) key[k] = get_key(in, r, r->dims[k]);
    uint64_t samples = get_any(in, "a row's samples");
    double lo = get_d(in), hi = get_d(in);
    uint64_t flags = get_u(in, 6, "a sum's kind");
    dfn_fsum add = DFN_FSUM_INIT;
    add.any_special = flags & 1;
    add.overflow = (int)(flags >> 1) - 1;
    if (add.any_special) add.special = get_d(in);
    size_t n = get_count(in, 8, "a sum's partials");
    if (in->bad) return;
    dfn_crow *c = dfn_cresult_row(r, rows, cap, key);
    c->samples = dfn_sat_add(c->samples, samples);
    if (lo < c->min) c->min = lo;
    if (hi > c->max) c->max = hi;
    /* each partial added as a value: whatever the bytes say, the sum
     * stays a sum of the values that came */
    for (size_t j = 0; j < n && !in->bad; j++) dfn_fsum_add(&c->xs, get_d(in));
    dfn_fsum_merge(&c->xs, &add);
}

bool dfn_counters_merge(dfn_cresult *into, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    if (!into->keytext && into->nrows) {
        snprintf(err, errlen, "counter rows of a store take no other share's");
        return false;
    }
    if (!into->keytext) into->keytext = dfn_strtab_new();
    ibuf in = { buf, buf + len, NULL };
    if (!get_head(&in, CPARTIAL_MAGIC, CPARTIAL_VERSION, "counter rows", err, errlen)) return false;
    bool same = get_u(&in, DFN_CDIMS_MAX + 1, "the dimensions") == into->ndims;
    for (size_t k = 0; k < into->ndims && same && !in.bad; k++) same = get_u(&in, DFN_CDIM_COUNT, "a dimension") == into->dims[k];
    if (!in.bad && !same) {
        snprintf(err, errlen, "counter rows of another grouping");
        return false;
    }
    /* the rows there are, by their keys (the text ids: one text one id) */
    dfn_strtab *rows = dfn_strtab_new();
    for (size_t i = 0; i < into->nrows; i++) dfn_strtab_intern(rows, (const char *)into->rows[i].key, sizeof into->rows[i].key);
    size_t cap = into->nrows, n = get_count(&in, into->ndims + 11, "the rows");
    for (size_t i = 0; i < n && !in.bad; i++) get_row(&in, into, rows, &cap);
    dfn_strtab_free(rows);
    if (!in.bad && in.p != in.end) in.bad = "bytes past the rows";
    if (in.bad) snprintf(err, errlen, "counter rows cut or damaged at %s", in.bad);
    return !in.bad;
}
