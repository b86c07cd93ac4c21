/* Query specs (see qspec.h): a query to bytes and back. */
#include "dfnav/qspec.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(DFN_M_COUNT_ < 64, "a query's metrics are below bit DFN_M_COUNT_");

/* "DFNQ" and the layout's version: a rank of another build is refused. */
#define QSPEC_MAGIC UINT64_C(0x514e4644)
#define QSPEC_VERSION 1

enum { QF_DESC = 1, QF_SPLIT = 2, QF_SIZES = 4, QF_ASKED = 8, QF_LAYERS = 16, QF_OVERLAP = 32, QF_TREE = 64,
       QF_ACCESS = 128, QF_ALL = 255 };

/* f's text, when it reads back to f's very terms (a value holding a NUL
 * ends the text early, and reads back as less); else NULL, with why. */
static char *filter_text(const dfn_filter *f, char *err, size_t errlen)
{
    char *text = dfn_filter_text(f), why[256];
    dfn_filter back;
    bool read = dfn_filter_parse(text, &back, why, sizeof why);
    bool same = read && dfn_filter_same(f, &back);
    if (read) dfn_filter_free(&back);
    if (!same) {
        if (read) snprintf(err, errlen, "a filter whose text reads back as other terms: %.200s", text);
        else snprintf(err, errlen, "a filter whose text does not read (%s): %.200s", why, text);
        free(text);
        return NULL;
    }
    return text;
}

uint8_t *dfn_qspec_encode(const dfn_query *q, size_t *len, char *err, size_t errlen)
{
    char *text = NULL;
    if (q->filter && !(text = filter_text(q->filter, err, errlen))) return NULL;
    obuf o = {0};
    put_u(&o, QSPEC_MAGIC);
    put_u(&o, QSPEC_VERSION);
    put_u(&o, q->ndims);
    for (size_t d = 0; d < q->ndims; d++) {
        put_u(&o, q->dims[d].kind);
        put_u(&o, q->dims[d].own);
        const char *a = q->dims[d].arg;
        put_u(&o, a != NULL);
        if (a) put_bytes(&o, a, strlen(a));
    }
    put_u(&o, text != NULL);
    if (text) put_bytes(&o, text, strlen(text));
    free(text);
    put_d(&o, q->bin_s);
    put_u(&o, dfn_zigzag(q->sort));
    put_u(&o, q->top);
    put_u(&o, q->metrics);
    put_u(&o, dfn_query_spark_bins(q));
    unsigned flags = (q->desc ? QF_DESC : 0) | (q->spark_split ? QF_SPLIT : 0) | (q->sizes ? QF_SIZES : 0) |
                     (q->asked_only ? QF_ASKED : 0) | (q->layers ? QF_LAYERS : 0) | (q->overlap ? QF_OVERLAP : 0) |
                     (q->tree ? QF_TREE : 0) | (q->access ? QF_ACCESS : 0);
    put_u(&o, flags);
    size_t nc = q->ctrs ? q->ctrs->n : 0;
    put_u(&o, nc);
    for (size_t k = 0; k < nc; k++) put_bytes(&o, q->ctrs->series[k], strlen(q->ctrs->series[k]));
    *len = o.n;
    return o.b;
}

/* A name of bytes without a NUL (what a C string of the query holds), or
 * NULL with in's failure. */
static char *get_name(ibuf *in, const char *what)
{
    size_t l;
    const uint8_t *b = get_bytes(in, &l, what);
    if (in->bad) return NULL;
    if (memchr(b, 0, l)) {
        in->bad = what;
        return NULL;
    }
    return dfn_xstrndup((const char *)b, l);
}

/* An argument's name as dfn_dims_parse gives one: a name, not empty,
 * without a comma or a space. */
static char *get_arg_name(ibuf *in)
{
    char *name = get_name(in, "a dimension's argument");
    if (name && (!name[0] || strpbrk(name, ", "))) {
        free(name);
        name = NULL;
        in->bad = "a dimension's argument";
    }
    return name;
}

static void get_dims(ibuf *in, dfn_query *q)
{
    size_t n = (size_t)get_u(in, DFN_MAX_DIMS + 1, "the dimensions");
    for (size_t d = 0; d < n && !in->bad; d++) {
        dfn_dim *dim = &q->dims[d];
        dim->kind = (dfn_dimkind)get_u(in, DFN_DIM_COUNT, "a dimension");
        dim->own = get_u(in, 2, "a dimension") != 0;
        bool arg = get_u(in, 2, "a dimension") != 0;
        /* arg.NAME and own.NAME alone have a name, and only they own */
        if (!in->bad && (arg != (dim->kind == DFN_DIM_ARG) || (dim->own && !arg))) in->bad = "a dimension's argument";
        if (arg && !in->bad) dim->arg = get_arg_name(in);
        if (!in->bad) q->ndims = d + 1;
    }
}

/* The filter's text, read by the parser as a typed one is. */
static void get_filter(ibuf *in, dfn_qspec *s, char *err, size_t errlen)
{
    if (!get_u(in, 2, "the filter") || in->bad) return;
    char *text = get_name(in, "the filter");
    if (!text) return;
    char why[256];
    if (dfn_filter_parse(text, &s->filter, why, sizeof why)) {
        s->q.filter = &s->filter;
    } else {
        snprintf(err, errlen, "a query whose filter does not read: %s", why);
        in->bad = "the filter";
    }
    free(text);
}

static void get_ctrs(ibuf *in, dfn_qspec *s)
{
    size_t n = (size_t)get_u(in, DFN_MAX_CTRS + 1, "the counters");
    for (size_t k = 0; k < n && !in->bad; k++) {
        char *name = get_name(in, "a counter");
        if (name) s->ctrs.series[s->ctrs.n++] = name;
    }
    if (s->ctrs.n) s->q.ctrs = &s->ctrs;
}

/* The numbers after the filter: each within what a query may hold. */
static void get_numbers(ibuf *in, dfn_qspec *s)
{
    dfn_query *q = &s->q;
    q->bin_s = get_d(in);
    /* none (from the window), or a µs to the longest span a store has */
    if (!in->bad && !(q->bin_s == 0 || (q->bin_s >= 1e-6 && q->bin_s <= 1.9e13))) in->bad = "the time bins";
    int64_t sort = dfn_unzigzag(get_any(in, "the sort"));
    q->top = (size_t)get_any(in, "the top");
    q->metrics = get_u(in, UINT64_C(1) << DFN_M_COUNT_, "the metrics");
    q->spark_bins = (size_t)get_u(in, DFN_SPARK_BINS_MAX + 1, "the sparklines");
    unsigned f = (unsigned)get_u(in, QF_ALL + 1, "the flags");
    q->desc = f & QF_DESC, q->spark_split = f & QF_SPLIT, q->sizes = f & QF_SIZES, q->asked_only = f & QF_ASKED;
    s->layers = f & QF_LAYERS, s->overlap = f & QF_OVERLAP, s->tree = f & QF_TREE, s->access = f & QF_ACCESS;
    get_ctrs(in, s);
    /* a metric, a counter of the query's, or the key (-1) */
    if (!in->bad && (sort < -1 || sort >= (int64_t)(DFN_M_COUNT_ + s->ctrs.n))) in->bad = "the sort";
    q->sort = (int)sort;
}

bool dfn_qspec_decode(const uint8_t *buf, size_t len, dfn_qspec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    ibuf in = { buf, buf + len, NULL };
    char why[320] = "";
    if (!get_head(&in, QSPEC_MAGIC, QSPEC_VERSION, "a query", err, errlen)) return false;
    get_dims(&in, &out->q);
    get_filter(&in, out, why, sizeof why);
    get_numbers(&in, out);
    if (!in.bad && in.p != in.end) in.bad = "its end";
    if (in.bad) {
        if (why[0]) snprintf(err, errlen, "%s", why);
        else snprintf(err, errlen, "a damaged query (%s, at byte %zu of %zu)", in.bad, (size_t)(in.p - buf), len);
        dfn_qspec_free(out);
        return false;
    }
    return true;
}

void dfn_qspec_free(dfn_qspec *s)
{
    dfn_dims_free(s->q.dims, s->q.ndims);
    dfn_filter_free(&s->filter);
    dfn_ctrs_free(&s->ctrs);
    memset(s, 0, sizeof *s);
}

/* ---- counter queries (an explorer's tracks) ---- */

#define CQSPEC_MAGIC UINT64_C(0x434e4644)
#define CQSPEC_VERSION 1

uint8_t *dfn_cqspec_encode(const dfn_cquery *q, size_t *len, char *err, size_t errlen)
{
    char *text = NULL;
    if (q->filter && !(text = filter_text(q->filter, err, errlen))) return NULL;
    obuf o = {0};
    put_u(&o, CQSPEC_MAGIC);
    put_u(&o, CQSPEC_VERSION);
    put_u(&o, q->ndims);
    for (size_t d = 0; d < q->ndims; d++) put_u(&o, q->dims[d]);
    put_u(&o, text != NULL);
    if (text) put_bytes(&o, text, strlen(text));
    free(text);
    put_d(&o, q->bin_s);
    put_u(&o, q->nbins);
    put_d(&o, q->win_lo_s);
    put_d(&o, q->win_hi_s);
    put_u(&o, q->selection);
    *len = o.n;
    return o.b;
}

/* A window's edge or a bin's width: finite, within what a query holds. */
static bool time_ok(double v) { return v >= -1.9e13 && v <= 1.9e13; }

bool dfn_cqspec_decode(const uint8_t *buf, size_t len, dfn_cqspec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    ibuf in = { buf, buf + len, NULL };
    char why[320] = "";
    if (!get_head(&in, CQSPEC_MAGIC, CQSPEC_VERSION, "a counter query", err, errlen)) return false;
    size_t n = (size_t)get_u(&in, DFN_CDIMS_MAX + 1, "the dimensions");
    for (size_t d = 0; d < n && !in.bad; d++) out->q.dims[d] = (dfn_cdim)get_u(&in, DFN_CDIM_COUNT, "a dimension");
    /* the series first, each dimension once, as dfn_cdims_parse gives them */
    for (size_t d = 0; d < n && !in.bad; d++)
        for (size_t e = 0; e < d; e++)
            if (out->q.dims[e] == out->q.dims[d]) in.bad = "a dimension twice";
    if (!in.bad && (n == 0 || out->q.dims[0] != DFN_CDIM_COUNTER)) in.bad = "the dimensions";
    if (!in.bad) out->q.ndims = n;
    if (get_u(&in, 2, "the filter") && !in.bad) {
        char *text = get_name(&in, "the filter");
        if (text && dfn_filter_parse(text, &out->filter, why, sizeof why)) out->q.filter = &out->filter;
        else if (text) in.bad = "the filter";
        free(text);
    }
    out->q.bin_s = get_d(&in);
    out->q.nbins = (size_t)get_u(&in, DFN_SPARK_BINS_MAX + 1, "the bins");
    out->q.win_lo_s = get_d(&in);
    out->q.win_hi_s = get_d(&in);
    out->q.selection = get_u(&in, 2, "the selection") != 0;
    if (!in.bad && (!(out->q.bin_s >= 0 && time_ok(out->q.bin_s)) || !time_ok(out->q.win_lo_s) ||
                    !time_ok(out->q.win_hi_s) || out->q.win_lo_s > out->q.win_hi_s))
        in.bad = "the window";
    if (!in.bad && in.p != in.end) in.bad = "its end";
    if (in.bad) {
        if (why[0]) snprintf(err, errlen, "a counter query whose filter does not read: %s", why);
        else snprintf(err, errlen, "a damaged counter query (%s, at byte %zu of %zu)", in.bad, (size_t)(in.p - buf), len);
        dfn_cqspec_free(out);
        return false;
    }
    return true;
}

void dfn_cqspec_free(dfn_cqspec *s)
{
    if (s->q.filter) dfn_filter_free(&s->filter);
    memset(s, 0, sizeof *s);
}
