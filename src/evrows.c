/* Call rows of shares (see dfnav/evrows.h): a share's rows of report
 * --by event as bytes, and their merge on rank 0 into the rows one
 * process prints. A row's key is its bytes: 16 that order it as the
 * set's store does (time from the set's start, its file's place, its
 * place in the share's store, each big-endian so that the bytes compare
 * as the numbers), then its fields: report's (dfn_call_fields), or the
 * parts Chrome output writes (chrome.h). */
#include "dfnav/evrows.h"
#include "dfnav/chrome.h"
#include "dfnav/extract.h"
#include "dfnav/jsonget.h"
#include "dfnav/util.h"
#include "bytebuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "DFNE" and the layout's version: a rank of another build is refused. */
#define EVROWS_MAGIC UINT64_C(0x454e4644)
#define EVROWS_VERSION 1
#define ORDER_BYTES 16
/* a field's flags: JSON writes it bare; it is an argument (a name first) */
enum { F_NUM = 1, F_ARG = 2 };
/* what a share's bytes hold */
enum { SHARE_ROWS, SHARE_NONE, SHARE_FAILED, SHARE_UNANALYSED };

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
    for (int k = bytes - 1; k >= 0; k--, v >>= 8) p[k] = (uint8_t)v;
}

static void field_put(void *ctx, const dfn_arg *arg, const char *name, size_t nlen, const char *text, size_t len,
                      bool num)
{
    (void)arg;
    obuf *o = ctx;
    put_u(o, (uint64_t)(num ? F_NUM : 0) | (name ? F_ARG : 0));
    if (name) put_bytes(o, name, nlen);
    put_bytes(o, text, len);
}

/* The sort's value: one of the metrics (a counter's is none of a call's). */
static bool sorts_by_value(int sort) { return sort >= 0 && sort < DFN_M_COUNT_; }

/* Where a call's record text is written: a stream onto one buffer,
 * reused call after call (a memory stream a call cost an allocation and
 * a free each). */
typedef struct { obuf text; FILE *m; } recbuf;

static ssize_t recbuf_write(void *ctx, const char *b, size_t n)
{
    put_raw(ctx, b, n);
    return (ssize_t)n;
}

static void recbuf_open(recbuf *rb)
{
    cookie_io_functions_t io = { .write = recbuf_write };
    rb->m = fopencookie(&rb->text, "w", io);
    if (!rb->m) dfn_out_of_memory("a record's stream", BUFSIZ);
}

static void recbuf_close(recbuf *rb)
{
    if (rb->m) fclose(rb->m);
    free(rb->text.b);
}

/* Call i's time since the epoch and length, then its record's head and
 * arguments as two runs of bytes, written by the output's own writers. */
static void put_record(obuf *o, recbuf *rb, const dfn_store *s, uint32_t i,
                       void (*head)(FILE *, const dfn_store *, uint32_t),
                       void (*args)(FILE *, const dfn_store *, uint32_t, const void *), const void *ctx)
{
    put_u(o, s->t0 + dfn_store_ts(s, i));
    put_u(o, dfn_store_dur(s, i));
    rb->text.n = 0;
    head(rb->m, s, i);
    fflush(rb->m);
    size_t at = rb->text.n;
    args(rb->m, s, i, ctx);
    fflush(rb->m);
    put_bytes(o, rb->text.b, at);
    put_bytes(o, rb->text.b + at, rb->text.n - at);
}

/* What Chrome output needs of a store, once (chrome.h). */
typedef struct { dfn_chrome_ranks *rk; uint32_t added[3]; dfn_arg *args; } chrome_of;

static void chrome_args(FILE *m, const dfn_store *s, uint32_t i, const void *ctx)
{
    const chrome_of *co = ctx;
    dfn_chrome_call_args(m, s, i, co->args, co->added);
}

/* Call i of s as Chrome output writes it (chrome.h): whose (texts and
 * ids), its time since the epoch and length, its name and category and
 * its arguments' members. */
static void chrome_put(obuf *o, recbuf *rb, const dfn_store *s, const chrome_of *co, uint32_t i)
{
    const dfn_chrome_ranks *rk = co->rk;
    dfn_chrome_who w;
    char pid[32], tid[32];
    dfn_chrome_who_of(s, rk, dfn_store_lane(s, i), &w, pid, tid);
    put_bytes(o, w.host, w.hostlen);
    put_bytes(o, w.pid, w.pidlen);
    put_id(o, w.pidv);
    put_bytes(o, w.tid, w.tidlen);
    put_id(o, w.tidv);
    put_bytes(o, w.rank, w.ranklen);
    put_record(o, rb, s, i, dfn_chrome_call_head, chrome_args, co);
}

/* What extract's form needs of a store, once. */
typedef struct { dfn_unit unit; dfn_arg *args; char *pid, *tid; size_t pcap, tcap; } extract_of;

static void extract_args(FILE *m, const dfn_store *s, uint32_t i, const void *ctx)
{
    const extract_of *xo = ctx;
    dfn_extract_call_args(m, s, i, xo->unit, xo->args, false);
}

/* Text of a store's string id, or none (flag 0) for DFN_NOID. */
static void put_maybe(obuf *o, const dfn_store *s, uint32_t id)
{
    put_u(o, id != DFN_NOID);
    put_bytes(o, id != DFN_NOID ? dfn_store_str(s, id) : "", id != DFN_NOID ? dfn_strtab_len(s->strs, id) : 0);
}

/* Call i of s as a subset writes it (dfn_excall): whose, names, file,
 * time, then the record's head and arguments. */
static void extract_put(obuf *o, recbuf *rb, const dfn_store *s, extract_of *xo, uint32_t i)
{
    const dfn_lane *l = &s->lanes[dfn_store_lane(s, i)];
    put_bytes(o, dfn_store_str(s, l->host), dfn_strtab_len(s->strs, l->host));
    size_t pl = dfn_extract_id_json(s, l->pid, &xo->pid, &xo->pcap), tl = dfn_extract_id_json(s, l->tid, &xo->tid, &xo->tcap);
    put_bytes(o, xo->pid, pl);
    put_bytes(o, xo->tid, tl);
    put_bytes(o, dfn_store_str(s, l->rank), dfn_strtab_len(s->strs, l->rank));
    put_maybe(o, s, dfn_store_lane_pname(s, dfn_store_lane(s, i)));
    put_maybe(o, s, dfn_store_lane_tname(s, dfn_store_lane(s, i)));
    put_maybe(o, s, dfn_store_file(s, i) ? s->files[dfn_store_file(s, i)].path : DFN_NOID);
    put_record(o, rb, s, i, dfn_extract_call_head, extract_args, xo);
}

/* Call i's order bytes: its time from the set's start, its file's place
 * among the set's files, its place in the share's store. */
static void order_put(obuf *o, const dfn_store *s, uint32_t i, const uint32_t *place)
{
    uint8_t key[ORDER_BYTES];
    put_be(key, dfn_store_ts(s, i), 8);
    put_be(key + 8, place[s->evsrc[i]], 4);
    put_be(key + 12, i, 4);
    put_raw(o, key, sizeof key);
}

uint8_t *dfn_evrow_text(const dfn_store *s, uint32_t i, const uint32_t *place, size_t *len)
{
    obuf o = {0};
    order_put(&o, s, i, place);
    dfn_call_fields(s, i, true, field_put, &o);
    *len = o.n;
    return o.b;
}

uint8_t *dfn_evrows_encode(const dfn_store *s, const dfn_result *r, size_t nrows, const uint32_t *place, int sort,
                           dfn_evform form, dfn_unit agg_unit, size_t *len)
{
    obuf o = {0}, row = {0};
    bool by_value = sorts_by_value(sort);
    if (nrows > r->nrows) nrows = r->nrows;
    put_u(&o, EVROWS_MAGIC);
    put_u(&o, EVROWS_VERSION);
    put_u(&o, SHARE_ROWS);
    put_u(&o, r->matched);
    put_u(&o, r->matched_calls);
    put_u(&o, form);
    put_u(&o, by_value);
    put_u(&o, nrows);
    bool chrome = form == DFN_EVROWS_CHROME;
    chrome_of co = { chrome ? dfn_chrome_ranks_new(s) : NULL, { 0, 0, 0 },
                     chrome ? dfn_xmalloc(DFN_ARGS_MAX * sizeof *co.args) : NULL };
    if (chrome) dfn_chrome_added(s, co.added);
    bool extract = form == DFN_EVROWS_EXTRACT;
    extract_of xo = { agg_unit, extract ? dfn_xmalloc(DFN_ARGS_MAX * sizeof *xo.args) : NULL, NULL, NULL, 0, 0 };
    recbuf rb = {0};
    if (chrome || extract) recbuf_open(&rb);
    for (size_t k = 0; k < nrows; k++) {
        uint32_t i = r->events[k];
        row.n = 0;
        order_put(&row, s, i, place);
        if (chrome) chrome_put(&row, &rb, s, &co, i);
        else if (extract) extract_put(&row, &rb, s, &xo, i);
        else dfn_call_fields(s, i, true, field_put, &row);
        put_bytes(&o, row.b, row.n);
        if (by_value) put_d(&o, dfn_result_metric(r, k, (dfn_metric)sort));
    }
    recbuf_close(&rb);
    dfn_chrome_ranks_free(co.rk);
    free(co.args);
    free(xo.args);
    free(xo.pid);
    free(xo.tid);
    free(row.b);
    *len = o.n;
    return o.b;
}

static uint8_t *share_word(int what, const char *why, size_t *len)
{
    obuf o = {0};
    put_u(&o, EVROWS_MAGIC);
    put_u(&o, EVROWS_VERSION);
    put_u(&o, (uint64_t)what);
    if (why) put_bytes(&o, why, strlen(why));
    *len = o.n;
    return o.b;
}

uint8_t *dfn_evrows_none(size_t *len) { return share_word(SHARE_NONE, NULL, len); }
uint8_t *dfn_evrows_failed(const char *why, bool analysis, size_t *len)
{
    return share_word(analysis ? SHARE_UNANALYSED : SHARE_FAILED, why, len);
}

/* r's rows sorted and cut as q says (calls come in the set's order). */
static void rows_cut(dfn_result *r, const dfn_query *q)
{
    if (q->sort >= 0 || q->desc) dfn_result_sort_top(r, q->sort, q->desc, q->top);
    else if (q->top && r->nrows > q->top) r->nrows = q->top;
}

uint8_t *dfn_evrows_share(const dfn_store *s, const dfn_query *q, const uint32_t *place, const char *why_not,
                          uint64_t (*total)(uint64_t own), dfn_evform form, dfn_unit agg_unit, size_t *len)
{
    char err[2048];
    /* the calls in time order, sorted and cut once the set's total is
     * known: pct_time's whole (equal shares of it may round apart) */
    dfn_query qs = *q;
    qs.top = 0;
    qs.sort = -1;
    qs.desc = false;
    bool kept = !s || s->evsrc;
    if (!kept) snprintf(err, sizeof err, "the calls' files were not kept (a store loaded without sources)");
    dfn_result *r = s && kept && !why_not ? dfn_query_run(s, &qs, err, sizeof err) : NULL;
    uint64_t set = total(r ? r->total_us : 0);
    uint8_t *bytes;
    if (r) {
        r->total_time_s = set / 1e6;
        rows_cut(r, q);
        bytes = dfn_evrows_encode(s, r, r->nrows, place, q->sort, form, agg_unit, len);
    } else {
        bytes = !s ? dfn_evrows_none(len) : dfn_evrows_failed(why_not ? why_not : err, why_not != NULL, len);
    }
    dfn_result_free(r);
    return bytes;
}

struct dfn_evmerge {
    int sort;
    dfn_evform form;
    bool by_value;
    uint64_t matched, matched_calls;
    obuf bytes;               /* every row's bytes, end to end */
    struct { size_t at, len; double val; } *row;   /* each row's in bytes, and its sort's value */
    size_t n, cap;
};

dfn_evmerge *dfn_evmerge_new(int sort, dfn_evform form)
{
    dfn_evmerge *m = dfn_xcalloc(1, sizeof *m);
    m->sort = sort;
    m->form = form;
    m->by_value = sorts_by_value(sort);
    return m;
}

void dfn_evmerge_free(dfn_evmerge *m)
{
    if (!m) return;
    free(m->bytes.b);
    free(m->row);
    free(m);
}

/* The end of a Chrome or extract row: the call's time and length, its
 * record's head and arguments; false when the row is not whole. */
static bool when_text_get(ibuf *in, uint64_t *ts, uint64_t *dur, const char **head, size_t *headlen, const char **args,
                          size_t *argslen)
{
    *ts = get_any(in, "a time");
    *dur = get_any(in, "a length");
    *head = (const char *)get_bytes(in, headlen, "a record");
    *args = (const char *)get_bytes(in, argslen, "the arguments");
    if (!in->bad && *dur > UINT64_MAX - *ts) in->bad = "a call's end";
    return !in->bad && in->p == in->end;
}

/* A Chrome row's parts after its order bytes (chrome_put), read from
 * in: false when they are not whole. */
static bool chrome_get(ibuf *in, dfn_chrome_call *cc)
{
    dfn_chrome_who *w = &cc->who;
    w->host = (const char *)get_bytes(in, &w->hostlen, "a host");
    w->pid = (const char *)get_bytes(in, &w->pidlen, "a pid");
    w->pidv = get_id(in);
    w->tid = (const char *)get_bytes(in, &w->tidlen, "a tid");
    w->tidv = get_id(in);
    w->rank = (const char *)get_bytes(in, &w->ranklen, "a rank");
    return when_text_get(in, &cc->ts, &cc->dur, &cc->head, &cc->headlen, &cc->args, &cc->argslen);
}

/* Whether a Chrome row's texts are what the export writes there: members
 * of a JSON object ("name":..,"cat":.. and ,"args":{..}} closing it), so
 * that no bytes a rank sent can break the output's JSON. */
static bool chrome_json(const dfn_chrome_call *cc)
{
    if (cc->argslen < 2 || cc->args[0] != ',') return false;
    char *t = dfn_xmalloc(cc->headlen + cc->argslen + 2);
    t[0] = '{';
    memcpy(t + 1, cc->head, cc->headlen);
    memcpy(t + 1 + cc->headlen, cc->args, cc->argslen);   /* (its closing brace closes the object) */
    bool ok = dfn_json_valid(t, cc->headlen + cc->argslen + 1);
    free(t);
    return ok;
}

/* An extract row's parts after its order bytes (extract_put), read
 * from in: false when they are not whole. */
static bool extract_get(ibuf *in, dfn_excall *c)
{
    c->host = (const char *)get_bytes(in, &c->hostlen, "a host");
    c->pid = (const char *)get_bytes(in, &c->pidlen, "a pid");
    c->tid = (const char *)get_bytes(in, &c->tidlen, "a tid");
    c->rank = (const char *)get_bytes(in, &c->ranklen, "a rank");
    c->has_pname = get_u(in, 2, "a process's name") != 0;
    c->pname = (const char *)get_bytes(in, &c->pnamelen, "a process's name");
    c->has_tname = get_u(in, 2, "a thread's name") != 0;
    c->tname = (const char *)get_bytes(in, &c->tnamelen, "a thread's name");
    c->has_file = get_u(in, 2, "a file") != 0;
    c->path = (const char *)get_bytes(in, &c->pathlen, "a file");
    return when_text_get(in, &c->ts, &c->dur, &c->head, &c->headlen, &c->args, &c->argslen);
}

/* Whether len bytes hold no raw line break: a subset is a record a line. */
static bool one_line(const char *t, size_t len)
{
    return !memchr(t, '\n', len) && !memchr(t, '\r', len);
}

/* A pid or tid as a subset writes it: one JSON number or string. */
static bool json_id(const char *t, size_t len)
{
    return len && (t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) && one_line(t, len) &&
           dfn_json_valid(t, len);
}

/* Whether the texts of an extract row are what the subset writes there,
 * so that no bytes a rank sent can break its JSON or its lines: the pid
 * and tid each one number or string, the rank a whole number (or none),
 * the head an object once closed and ending where the arguments open,
 * and the arguments members of an object on their own (rank 0 writes
 * the hashes between them). */
static bool extract_json(const dfn_excall *c)
{
    bool ok = json_id(c->pid, c->pidlen) && json_id(c->tid, c->tidlen);
    for (size_t j = 0; ok && j < c->ranklen; j++) ok = (c->rank[j] >= '0' && c->rank[j] <= '9') || (!j && c->rank[j] == '-');
    if (ok && c->ranklen) ok = dfn_json_valid(c->rank, c->ranklen);
    ok = ok && c->headlen > 8 && memcmp(c->head + c->headlen - 8, "\"args\":{", 8) == 0 &&
         one_line(c->head, c->headlen) && one_line(c->args, c->argslen);
    if (!ok) return false;
    char *t = dfn_xmalloc(c->headlen + c->argslen + 2);
    memcpy(t, c->head, c->headlen);
    memcpy(t + c->headlen, "}}", 2);
    ok = dfn_json_valid(t, c->headlen + 2);
    if (ok) {
        t[0] = '{';
        memcpy(t + 1, c->args, c->argslen);
        t[1 + c->argslen] = '}';
        ok = dfn_json_valid(t, c->argslen + 2);
    }
    free(t);
    return ok;
}

/* A call's own fields: start_s ... bytes, then calls (dfn_call_fields). */
#define OWN_FIELDS 9

/* Each field of a report row's bytes [p, end) to fn (when given; calls,
 * the last own field, only with calls); the own fields there, or -1 when
 * the bytes are not whole. */
static int fields_each(const uint8_t *p, const uint8_t *end, bool calls, dfn_call_field_fn fn, void *ctx)
{
    ibuf in = { p, end, NULL };
    int own = 0;
    while (!in.bad && in.p < in.end) {
        uint64_t f = get_u(&in, 4, "a field's kind");
        size_t nl = 0, tl;
        const uint8_t *name = f & F_ARG ? get_bytes(&in, &nl, "an argument's name") : NULL;
        const uint8_t *text = get_bytes(&in, &tl, "a field");
        if (in.bad) break;
        if (!(f & F_ARG) && ++own == OWN_FIELDS && !calls) continue;
        if (fn) fn(ctx, NULL, (const char *)name, nl, (const char *)text, tl, f & F_NUM);
    }
    return in.bad ? -1 : own;
}

/* Whether the fields after a row's order bytes read whole. */
static bool fields_whole(dfn_evform form, const uint8_t *p, const uint8_t *end)
{
    ibuf in = { p, end, NULL };
    if (form == DFN_EVROWS_CHROME) {
        dfn_chrome_call cc;
        return chrome_get(&in, &cc) && chrome_json(&cc);
    }
    if (form == DFN_EVROWS_EXTRACT) {
        dfn_excall c;
        return extract_get(&in, &c) && extract_json(&c);
    }
    return fields_each(p, end, true, NULL, NULL) == OWN_FIELDS;
}

bool dfn_evrow_text_ok(const uint8_t *t, size_t len)
{
    return len >= ORDER_BYTES && fields_whole(DFN_EVROWS_REPORT, t + ORDER_BYTES, t + len);
}

/* What a walk of a share's rows gives each row (its bytes from its
 * order bytes, and its sort's value), and what the share matched. */
typedef struct {
    void (*take)(void *ctx, const uint8_t *row, size_t len, double val);
    void *ctx;
    uint64_t matched, matched_calls;
} rows_walk;

/* Each row of a share's bytes (rows of form, with values when by_value)
 * to w->take, checked whole before it is given; false, with why in err,
 * when they are a failed share's (*failed 1, or 2 when its analysis
 * failed: its own words) or not rows of this form and build (*failed 0:
 * rows given before the damage were given). */
static bool rows_each(const uint8_t *buf, size_t len, dfn_evform form, bool by_value, rows_walk *w, int *failed,
                      char *err, size_t errlen)
{
    *failed = 0;
    if (!buf) {
        snprintf(err, errlen, "no call rows came");
        return false;
    }
    ibuf in = { buf, buf + len, NULL };
    if (!get_head(&in, EVROWS_MAGIC, EVROWS_VERSION, "call rows", err, errlen)) return false;
    uint64_t what = get_u(&in, 4, "what the share sent");
    if (!in.bad && what == SHARE_NONE && in.p == in.end) return true;
    if (!in.bad && (what == SHARE_FAILED || what == SHARE_UNANALYSED)) {
        size_t wl;
        const uint8_t *why = get_bytes(&in, &wl, "the share's failure");
        if (!in.bad && in.p == in.end) {
            snprintf(err, errlen, "%.*s", (int)(wl > 4096 ? 4096 : wl), (const char *)why);
            *failed = what == SHARE_FAILED ? 1 : 2;
            return false;
        }
        if (!in.bad) in.bad = "bytes past the share's failure";
    }
    if (!in.bad && what != SHARE_ROWS) in.bad = "what the share sent";
    w->matched = get_any(&in, "the calls matched");
    w->matched_calls = get_any(&in, "their calls");
    uint64_t f = get_u(&in, DFN_EVROWS_EXTRACT + 1, "the rows' form");
    if (!in.bad && f != form) in.bad = "the rows' form";
    if (!in.bad && (get_u(&in, 2, "the sort") != 0) != by_value) in.bad = "the sort";
    size_t nrows = get_count(&in, 1 + ORDER_BYTES, "the rows");
    for (size_t k = 0; k < nrows && !in.bad; k++) {
        size_t rl;
        const uint8_t *row = get_bytes(&in, &rl, "a row");
        double v = by_value ? get_d(&in) : NAN;
        if (!in.bad && (rl < ORDER_BYTES || !fields_whole(form, row + ORDER_BYTES, row + rl))) in.bad = "a row's fields";
        if (!in.bad) w->take(w->ctx, row, rl, v);
    }
    if (!in.bad && in.p != in.end) in.bad = "bytes past the rows";
    if (in.bad) snprintf(err, errlen, "damaged call rows (%s)", in.bad);
    return !in.bad;
}

static void merge_take(void *ctx, const uint8_t *row, size_t len, double val)
{
    dfn_evmerge *m = ctx;
    dfn_grow((void **)&m->row, &m->cap, m->n + 1, sizeof *m->row);
    m->row[m->n].at = m->bytes.n;
    m->row[m->n].len = len;
    m->row[m->n++].val = val;
    put_raw(&m->bytes, row, len);
}

bool dfn_evmerge_add(dfn_evmerge *m, const uint8_t *buf, size_t len, int *failed, char *err, size_t errlen)
{
    size_t n0 = m->n, b0 = m->bytes.n;
    rows_walk w = { merge_take, m, 0, 0 };
    if (!rows_each(buf, len, m->form, m->by_value, &w, failed, err, errlen)) {
        m->n = n0;   /* (nothing of them is kept) */
        m->bytes.n = b0;
        return false;
    }
    m->matched = dfn_sat_add(m->matched, w.matched);
    m->matched_calls = dfn_sat_add(m->matched_calls, w.matched_calls);
    return true;
}

/* A window's hosts and span, as rows of extract's form give them. */
typedef struct { dfn_strtab *hosts; uint64_t lo, hi; } window_acc;

static void window_take(void *ctx, const uint8_t *row, size_t len, double val)
{
    (void)val;
    window_acc *a = ctx;
    dfn_excall c;
    ibuf in = { row + ORDER_BYTES, row + len, NULL };
    if (!extract_get(&in, &c)) return;   /* (checked whole before it came) */
    dfn_strtab_intern(a->hosts, c.host, c.hostlen);
    if (c.ts < a->lo) a->lo = c.ts;
    if (c.ts + c.dur > a->hi) a->hi = c.ts + c.dur;
}

uint8_t *dfn_evrows_window(const uint8_t *buf, size_t len, size_t *wlen)
{
    window_acc a = { dfn_strtab_new(), UINT64_MAX, 0 };
    rows_walk w = { window_take, &a, 0, 0 };
    char err[256];
    int failed;
    bool ok = rows_each(buf, len, DFN_EVROWS_EXTRACT, false, &w, &failed, err, sizeof err) || failed;
    uint8_t *window = ok ? dfn_evwindow_make(a.hosts, a.lo, a.hi, wlen) : NULL;
    dfn_strtab_free(a.hosts);
    return window;
}

static _Thread_local const dfn_evmerge *g_merge;   /* qsort has no context argument */

static int order_cmp(const void *a, const void *b)
{
    const dfn_evmerge *m = g_merge;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = memcmp(m->bytes.b + m->row[x].at, m->bytes.b + m->row[y].at, ORDER_BYTES);
    return c ? c : x < y ? -1 : x > y;
}

/* Rows of extract's form: the merge's bytes, each row's place in them. */
struct dfn_evrowtab {
    uint8_t *bytes;
    struct { size_t at, len; } *row;
};

void dfn_evrowtab_free(struct dfn_evrowtab *t)
{
    if (!t) return;
    free(t->bytes);
    free(t->row);
    free(t);
}

/* Extract's rows in the set's order (order: the merge's rows' places),
 * whose bytes r takes from the merge as they are: a subset's calls are
 * written in that order, never sorted by their text, so they need no
 * copy as key texts (rank 0 would hold them twice). */
static void rows_keep(dfn_result *r, dfn_evmerge *m, const size_t *order)
{
    struct dfn_evrowtab *t = dfn_xcalloc(1, sizeof *t);
    t->row = dfn_xmalloc((m->n ? m->n : 1) * sizeof *t->row);
    for (size_t k = 0; k < m->n; k++) {
        t->row[k].at = m->row[order[k]].at;
        t->row[k].len = m->row[order[k]].len;
    }
    t->bytes = m->bytes.b;
    m->bytes.b = NULL;
    r->evrowtab = t;
}

dfn_result *dfn_evmerge_finish(dfn_evmerge *m, const dfn_query *q, bool agg)
{
    size_t n = m->n;
    size_t *order = dfn_xmalloc((n ? n : 1) * sizeof *order);
    for (size_t k = 0; k < n; k++) order[k] = k;
    g_merge = m;
    qsort(order, n, sizeof *order, order_cmp);
    g_merge = NULL;
    dfn_result *r = dfn_xcalloc(1, sizeof *r);
    r->ndims = q->ndims;
    dfn_dims_copy(r->dims, q->dims, q->ndims);
    r->metrics = q->metrics ? q->metrics : DFN_M_BASIC;
    for (int k = 0; k < DFN_M_COUNT_; k++) r->mcol[k] = -1;
    r->nrows = n;
    r->matched = m->matched;
    r->matched_calls = m->matched_calls;
    r->merged_agg = agg;
    r->merged_form = m->form;
    if (m->form == DFN_EVROWS_EXTRACT) {   /* (a subset is never sorted: only cut) */
        rows_keep(r, m, order);
        free(order);
        if (q->top && r->nrows > q->top) r->nrows = q->top;
        dfn_evmerge_free(m);
        return r;
    }
    /* a call's text ids in the set's order: ties of the sort go by them */
    r->keytext = dfn_strtab_new();
    r->keys = dfn_xmalloc((n ? n : 1) * sizeof *r->keys);
    if (m->by_value) {
        r->mw = 1;
        r->mcol[m->sort] = 0;
        r->m = dfn_xmalloc((n ? n : 1) * sizeof *r->m);
    }
    for (size_t k = 0; k < n; k++) {
        size_t j = order[k];
        r->keys[k].id = dfn_strtab_intern(r->keytext, (const char *)m->bytes.b + m->row[j].at, m->row[j].len);
        if (m->by_value) r->m[k] = m->row[j].val;
    }
    free(order);
    rows_cut(r, q);
    dfn_evmerge_free(m);
    return r;
}

/* The dimension of r's calls, or -1. */
static int event_dim(const dfn_result *r)
{
    for (size_t d = 0; d < r->ndims; d++)
        if (r->dims[d].kind == DFN_DIM_EVENT) return (int)d;
    return -1;
}

bool dfn_evrows_merged(const dfn_result *r)
{
    return (r->keytext || r->evrowtab) && event_dim(r) >= 0;
}

/* A merged row's bytes, from its order bytes to *end; NULL when there
 * are not even those. */
static const uint8_t *row_bytes(const dfn_result *r, size_t row, const uint8_t **end)
{
    if (r->evrowtab) {
        const uint8_t *b = r->evrowtab->bytes + r->evrowtab->row[row].at;
        *end = b + r->evrowtab->row[row].len;
        return *end - b >= ORDER_BYTES ? b : NULL;
    }
    int d = event_dim(r);
    if (d < 0 || !r->keytext) return NULL;
    uint32_t id = dfn_result_key(r, row, (size_t)d)->id;
    const uint8_t *b = (const uint8_t *)dfn_strtab_str(r->keytext, id);
    *end = b + dfn_strtab_len(r->keytext, id);
    return *end - b >= ORDER_BYTES ? b : NULL;
}

bool dfn_evrow_chrome(const dfn_result *r, size_t row, dfn_chrome_call *cc)
{
    const uint8_t *end, *b = row_bytes(r, row, &end);
    ibuf in = { b ? b + ORDER_BYTES : NULL, end, NULL };
    if (b && chrome_get(&in, cc)) return true;   /* (the merge checked every row's parts) */
    memset(cc, 0, sizeof *cc);
    cc->who.host = cc->who.pid = cc->who.tid = cc->who.rank = cc->head = cc->args = "";
    return false;
}

bool dfn_evrow_extract(const dfn_result *r, size_t row, dfn_excall *c)
{
    const uint8_t *end = NULL, *b = r->merged_form == DFN_EVROWS_EXTRACT ? row_bytes(r, row, &end) : NULL;
    ibuf in = { b ? b + ORDER_BYTES : NULL, end, NULL };
    if (b && extract_get(&in, c)) return true;   /* (the merge checked every row's parts) */
    memset(c, 0, sizeof *c);
    c->host = c->pid = c->tid = c->rank = c->pname = c->tname = c->path = c->head = c->args = "";
    return false;
}

int dfn_evrow_order_cmp(const dfn_result *r, size_t a, size_t b)
{
    const uint8_t *ea, *eb, *x = row_bytes(r, a, &ea), *y = row_bytes(r, b, &eb);
    if (!x || !y) return !x - !y;   /* (never: the merge checked every row) */
    int c = memcmp(x, y, ORDER_BYTES);
    return c < 0 ? -1 : c > 0;
}

uint64_t dfn_evrow_ts(const dfn_result *r, size_t row)
{
    const uint8_t *end, *b = row_bytes(r, row, &end);
    uint64_t ts = 0;
    for (int k = 0; b && k < 8; k++) ts = ts << 8 | b[k];
    return ts;
}

bool dfn_evrow_fields(const dfn_result *r, size_t row, bool calls, dfn_call_field_fn fn, void *ctx)
{
    const uint8_t *end, *b = row_bytes(r, row, &end);
    return r->merged_form == DFN_EVROWS_REPORT && b && fields_each(b + ORDER_BYTES, end, calls, fn, ctx) >= 0;
}
