/* Chrome trace-event JSON of a selection's calls (see dfnav/chrome.h): the
 * processes and threads they ran on become named tracks, each call an
 * "X" event with its arguments, the counter samples of their hosts over
 * their time "C" events. Ids are the trace's own pids and tids when they
 * name every track apart, else numbers given in order (the trace's stay
 * in the track names): two hosts may use the same pid. The tracks are
 * found by their texts, whether the calls are a store's or came from the
 * shares of a set (evrows.h) with their parts. */
#include "dfnav/chrome.h"
#include "dfnav/evrows.h"
#include "dfnav/export.h"
#include "dfnav/jsonget.h"
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A process: (run, host, pid); a thread: (process, tid); their texts as
 * the tracks name them (malloc'd). */
typedef struct {
    size_t run;
    char *host, *pid, *rank;  /* rank NULL when none */
    size_t hostlen, pidlen;
    int64_t pidv;
    int64_t id;               /* its pid in the output */
} cproc;
typedef struct {
    uint32_t proc;
    char *tid;
    size_t tidlen;
    int64_t tidv;
    int64_t id;               /* its tid in the output */
} cthread;

struct dfn_chrome_ranks {
    dfn_strtab *procs;        /* (host, pid) -> its index */
    uint32_t *rank;           /* its rank's string id, DFN_NOID when none */
};

typedef struct {
    const dfn_compare *c;
    dfn_strtab *pkeys, *tkeys;
    cproc *procs; size_t nprocs, pcap;
    cthread *threads; size_t nthreads, tcap;
    uint32_t *ev_thread;      /* per row: its thread */
    /* per run: the hosts of its calls (their texts) and their span */
    dfn_strtab **hosts;
    uint64_t *lo, *hi;
    /* per run of a store: its processes' ranks, and the string ids of
     * "file", "bytes" and "calls" (UINT32_MAX: no argument has that
     * name), the names the export adds */
    dfn_chrome_ranks **ranks;
    uint32_t (*added)[3];
    char *kb; size_t kcap;    /* a key being made */
} tracks;

static const char *const added_names[3] = { "file", "bytes", "calls" };

dfn_chrome_ranks *dfn_chrome_ranks_new(const dfn_store *s)
{
    dfn_chrome_ranks *r = dfn_xcalloc(1, sizeof *r);
    r->procs = dfn_strtab_new();
    r->rank = dfn_xmalloc((s->nlanes ? s->nlanes : 1) * sizeof *r->rank);
    for (size_t l = 0; l < s->nlanes; l++) {
        uint64_t key[2] = { s->lanes[l].host, (uint64_t)s->lanes[l].pid };
        uint32_t p;
        if (dfn_strtab_add(r->procs, (const char *)key, sizeof key, &p)) r->rank[p] = DFN_NOID;
        if (r->rank[p] == DFN_NOID && dfn_strtab_len(s->strs, s->lanes[l].rank)) r->rank[p] = s->lanes[l].rank;
    }
    return r;
}

void dfn_chrome_ranks_free(dfn_chrome_ranks *r)
{
    if (!r) return;
    dfn_strtab_free(r->procs);
    free(r->rank);
    free(r);
}

/* A process's rank, as text ("" when none). */
static const char *rank_of(const dfn_store *s, const dfn_chrome_ranks *rk, uint32_t host, int64_t pid, size_t *len)
{
    uint64_t key[2] = { host, (uint64_t)pid };
    uint32_t p = rk ? dfn_strtab_find(rk->procs, (const char *)key, sizeof key) : DFN_NOID;
    uint32_t id = p != DFN_NOID ? rk->rank[p] : DFN_NOID;
    *len = id != DFN_NOID ? dfn_strtab_len(s->strs, id) : 0;
    return id != DFN_NOID ? dfn_store_str(s, id) : "";
}

/* An id's text: a name, whole (the tracks show it as far as a NUL, but
 * two names that differ past one are two tracks), or a number's digits
 * in buf. */
static const char *id_text(const dfn_store *s, int64_t v, char buf[32], size_t *len)
{
    if (dfn_id_named(v)) {
        uint32_t id = (uint32_t)(v - DFN_ID_NAMED_BASE);
        bool known = id < dfn_strtab_count(s->strs);
        *len = known ? dfn_strtab_len(s->strs, id) : 1;
        return known ? dfn_store_str(s, id) : "?";
    }
    *len = (size_t)snprintf(buf, 32, "%" PRId64, v);
    return buf;
}

/* A process's part of whose: its host, pid and rank (no thread). */
static void who_proc(const dfn_store *s, const dfn_chrome_ranks *rk, uint32_t host, int64_t pid, dfn_chrome_who *w,
                     char buf[32])
{
    w->host = dfn_store_str(s, host);
    w->hostlen = dfn_strtab_len(s->strs, host);
    w->pidv = w->tidv = pid;
    w->pid = id_text(s, pid, buf, &w->pidlen);
    w->tid = "";
    w->tidlen = 0;
    w->rank = rank_of(s, rk, host, pid, &w->ranklen);
}

void dfn_chrome_who_of(const dfn_store *s, const dfn_chrome_ranks *rk, uint32_t lane, dfn_chrome_who *w, char pid[32],
                       char tid[32])
{
    const dfn_lane *l = &s->lanes[lane];
    who_proc(s, rk, l->host, l->pid, w, pid);
    w->tidv = l->tid;
    w->tid = id_text(s, l->tid, tid, &w->tidlen);
}

void dfn_chrome_sample_who(const dfn_store *s, const dfn_chrome_ranks *rk, const dfn_sample *x, dfn_chrome_who *w,
                           char pid[32])
{
    who_proc(s, rk, x->host, x->pid, w, pid);
}

/* Appends a length and the bytes to the key being made; named: an id's
 * text that is a name (a name and a number may read alike). */
static void key_put(tracks *t, size_t *n, const char *p, size_t len, char named)
{
    dfn_grow((void **)&t->kb, &t->kcap, *n + len + 9, 1);
    uint64_t l = len;
    memcpy(t->kb + *n, &l, 8);
    t->kb[*n + 8] = named;
    memcpy(t->kb + *n + 9, p, len);
    *n += len + 9;
}

static uint32_t proc_of(tracks *t, size_t run, const dfn_chrome_who *w)
{
    size_t n = 0;
    uint64_t r = run;
    key_put(t, &n, (const char *)&r, sizeof r, 0);
    key_put(t, &n, w->host, w->hostlen, 0);
    key_put(t, &n, w->pid, w->pidlen, dfn_id_named(w->pidv));
    uint32_t id;
    if (dfn_strtab_add(t->pkeys, t->kb, n, &id)) {
        dfn_grow((void **)&t->procs, &t->pcap, t->nprocs + 1, sizeof *t->procs);
        t->procs[t->nprocs++] = (cproc){ run, dfn_xstrndup(w->host, w->hostlen), dfn_xstrndup(w->pid, w->pidlen),
                                         w->ranklen ? dfn_xstrndup(w->rank, w->ranklen) : NULL, w->hostlen, w->pidlen,
                                         w->pidv, 0 };
    }
    return id;
}

static uint32_t thread_of(tracks *t, size_t run, const dfn_chrome_who *w)
{
    uint32_t proc = proc_of(t, run, w);
    size_t n = 0;
    key_put(t, &n, (const char *)&proc, sizeof proc, 0);
    key_put(t, &n, w->tid, w->tidlen, dfn_id_named(w->tidv));
    uint32_t id;
    if (dfn_strtab_add(t->tkeys, t->kb, n, &id)) {
        dfn_grow((void **)&t->threads, &t->tcap, t->nthreads + 1, sizeof *t->threads);
        t->threads[t->nthreads++] = (cthread){ proc, dfn_xstrndup(w->tid, w->tidlen), w->tidlen, w->tidv, 0 };
    }
    return id;
}

static bool id_plain(int64_t v) { return !dfn_id_named(v) && v > 0 && v <= INT32_MAX; }

/* Output ids in place of the trace's: kept when they are plain numbers
 * and all different, else 1, 2, ... */
static void ids_give(int64_t *ids, size_t n)
{
    bool own = true;
    dfn_map64 seen;
    dfn_map64_init(&seen);
    for (size_t i = 0; i < n && own; i++) own = id_plain(ids[i]) && (*dfn_map64_slot(&seen, (uint64_t)ids[i]))++ == 0;
    dfn_map64_free(&seen);
    for (size_t i = 0; i < n && !own; i++) ids[i] = (int64_t)i + 1;
}

/* The trace's own ids when they tell every track apart, else 1, 2, ... */
static void tracks_number(tracks *t)
{
    size_t n = t->nprocs > t->nthreads ? t->nprocs : t->nthreads;
    int64_t *ids = dfn_xmalloc((n ? n : 1) * sizeof *ids);
    for (size_t i = 0; i < t->nprocs; i++) ids[i] = t->procs[i].pidv;
    ids_give(ids, t->nprocs);
    for (size_t i = 0; i < t->nprocs; i++) t->procs[i].id = ids[i];
    for (size_t i = 0; i < t->nthreads; i++) ids[i] = t->threads[i].tidv;
    ids_give(ids, t->nthreads);
    for (size_t i = 0; i < t->nthreads; i++) t->threads[i].id = ids[i];
    free(ids);
}

/* Whose row's call is and when it ran (absolute µs), from its store or
 * from the bytes a share sent (cc, then filled). */
static void row_who(const tracks *t, size_t run, uint32_t rrow, dfn_chrome_who *w, char pid[32], char tid[32],
                    uint64_t *ts, uint64_t *end, dfn_chrome_call *cc)
{
    const dfn_result *r = t->c->res[run];
    if (dfn_evrows_merged(r)) {
        (void)dfn_evrow_chrome(r, rrow, cc);
        *w = cc->who;
        *ts = cc->ts;
        *end = cc->ts + cc->dur;
        return;
    }
    const dfn_store *s = r->store;
    uint32_t i = r->events[rrow];
    dfn_chrome_who_of(s, t->ranks[run], dfn_store_lane(s, i), w, pid, tid);
    *ts = s->t0 + dfn_store_ts(s, i);   /* absolute, as samples are */
    *end = *ts + dfn_store_dur(s, i);
}

/* Every call's thread, and each run's hosts and span for its counters. */
static void tracks_build(tracks *t, const dfn_compare *c)
{
    memset(t, 0, sizeof *t);
    t->c = c;
    t->pkeys = dfn_strtab_new();
    t->tkeys = dfn_strtab_new();
    t->ev_thread = dfn_xmalloc((c->nrows ? c->nrows : 1) * sizeof *t->ev_thread);
    t->hosts = dfn_xcalloc(c->nruns, sizeof *t->hosts);
    t->lo = dfn_xmalloc(c->nruns * sizeof *t->lo);
    t->hi = dfn_xcalloc(c->nruns, sizeof *t->hi);
    t->ranks = dfn_xcalloc(c->nruns, sizeof *t->ranks);
    t->added = dfn_xmalloc(c->nruns * sizeof *t->added);
    for (size_t k = 0; k < c->nruns; k++) {
        t->hosts[k] = dfn_strtab_new();
        t->lo[k] = UINT64_MAX;
        const dfn_store *s = c->res[k]->store;
        if (!s) continue;   /* (calls a share sent: their parts are whole) */
        t->ranks[k] = dfn_chrome_ranks_new(s);
        dfn_chrome_added(s, t->added[k]);
    }
    for (size_t row = 0; row < c->nrows; row++) {
        size_t run;
        uint32_t rrow = dfn_compare_rep_row(c, row, &run);
        dfn_chrome_who w;
        dfn_chrome_call cc;
        char pid[32], tid[32];
        uint64_t ts, end;
        row_who(t, run, rrow, &w, pid, tid, &ts, &end, &cc);
        t->ev_thread[row] = thread_of(t, run, &w);
        dfn_strtab_intern(t->hosts[run], w.host, w.hostlen);
        if (ts < t->lo[run]) t->lo[run] = ts;
        if (end > t->hi[run]) t->hi[run] = end;
    }
}

static void tracks_free(tracks *t)
{
    dfn_strtab_free(t->pkeys);
    dfn_strtab_free(t->tkeys);
    for (size_t i = 0; i < t->nprocs; i++) { free(t->procs[i].host); free(t->procs[i].pid); free(t->procs[i].rank); }
    for (size_t i = 0; i < t->nthreads; i++) free(t->threads[i].tid);
    free(t->procs);
    free(t->threads);
    free(t->ev_thread);
    for (size_t k = 0; k < t->c->nruns; k++) {
        dfn_strtab_free(t->hosts[k]);
        dfn_chrome_ranks_free(t->ranks[k]);
    }
    free(t->hosts);
    free(t->ranks);
    free(t->lo);
    free(t->hi);
    free(t->added);
    free(t->kb);
}

/* "run: node01 pid 1234 rank 3" */
static void proc_name(FILE *out, const tracks *t, const cproc *p)
{
    char *name = dfn_xasprintf("%s%s%s%s%s %s", t->c->labels ? t->c->labels[p->run] : "", t->c->labels ? ": " : "",
                               p->host, *p->host ? " " : "", dfn_id_named(p->pidv) ? "process" : "pid", p->pid);
    char *full = p->rank ? dfn_xasprintf("%s rank %s", name, p->rank) : dfn_xstrdup(name);
    dfn_json_string(out, full, strlen(full));
    free(full);
    free(name);
}

static void write_tracks(FILE *out, const tracks *t, bool *first)
{
    for (size_t i = 0; i < t->nprocs; i++) {
        fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"tid\":0,\"args\":{\"name\":",
                *first ? "\n" : ",\n", t->procs[i].id);
        proc_name(out, t, &t->procs[i]);
        fprintf(out, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%" PRId64 ",\"tid\":0,"
                "\"args\":{\"sort_index\":%zu}}", t->procs[i].id, i);
        *first = false;
    }
    for (size_t i = 0; i < t->nthreads; i++) {
        const cthread *th = &t->threads[i];
        char *name = dfn_xasprintf("%s %s", dfn_id_named(th->tidv) ? "thread" : "tid", th->tid);
        fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"name\":",
                t->procs[th->proc].id, th->id);
        dfn_json_string(out, name, strlen(name));
        fputs("}}", out);
        free(name);
    }
}

/* One argument value: raw JSON text only when it is valid JSON. */
static void arg_value(FILE *out, const dfn_store *s, const dfn_arg *a)
{
    char buf[32];
    switch (a->type) {
    case DFN_ARG_STR: dfn_json_string(out, dfn_store_str(s, a->str), dfn_strtab_len(s->strs, a->str)); return;
    case DFN_ARG_RAW: {
        const char *t = dfn_store_str(s, a->str);
        size_t len = dfn_strtab_len(s->strs, a->str);
        if (dfn_json_valid(t, len)) fwrite(t, 1, len, out);
        else dfn_json_string(out, t, len);
        return;
    }
    default:
        fwrite(buf, 1, dfn_arg_text(s, a, buf, sizeof buf), out);
    }
}

/* The call's file, bytes and, for an aggregated record, its calls and
 * longest call, unless its own arguments use those names (added: their
 * string ids in its store); then its own. */
void dfn_chrome_call_args(FILE *out, const dfn_store *s, uint32_t i, dfn_arg *args, const uint32_t added[3])
{
    size_t n = dfn_store_args(s, i, args, DFN_ARGS_MAX);
    if (n > DFN_ARGS_MAX) n = DFN_ARGS_MAX;
    bool own[3] = { false, false, false };
    for (size_t k = 0; k < n; k++)
        for (int j = 0; j < 3; j++) own[j] |= args[k].key == added[j];
    bool sep = false;
    fputs(",\"args\":{", out);
    uint32_t path = s->files[dfn_store_file(s, i)].path;
    if (dfn_store_file(s, i) && !own[0]) {
        fputs("\"file\":", out);
        /* by its length: a name may hold a NUL (\u0000), as CSV keeps it */
        dfn_json_string(out, dfn_store_str(s, path), dfn_strtab_len(s->strs, path));
        sep = true;
    }
    if (dfn_store_bytes(s, i) && !own[1]) {
        fprintf(out, "%s\"bytes\":%" PRIu64, sep ? "," : "", dfn_store_bytes(s, i));
        sep = true;
    }
    if (dfn_store_is_agg(s, i) && !own[2]) {
        fprintf(out, "%s\"calls\":%" PRIu64 ",\"longest_us\":%" PRIu64, sep ? "," : "", dfn_store_calls(s, i),
                dfn_store_maxdur(s, i));
        sep = true;
    }
    for (size_t k = 0; k < n; k++) {
        if (sep) fputc(',', out);
        dfn_json_string(out, dfn_store_str(s, args[k].key), dfn_strtab_len(s->strs, args[k].key));
        fputc(':', out);
        arg_value(out, s, &args[k]);
        sep = true;
    }
    fputs("}}", out);
}

void dfn_chrome_call_head(FILE *out, const dfn_store *s, uint32_t i)
{
    const dfn_kind *k = &s->kinds[dfn_store_kind(s, i)];
    fputs("\"name\":", out);
    dfn_json_string(out, dfn_store_str(s, k->func), dfn_strtab_len(s->strs, k->func));
    fputs(",\"cat\":", out);
    dfn_json_string(out, dfn_store_str(s, k->cat), dfn_strtab_len(s->strs, k->cat));
}

void dfn_chrome_added(const dfn_store *s, uint32_t added[3])
{
    for (int j = 0; j < 3; j++) added[j] = dfn_strtab_find(s->strs, added_names[j], strlen(added_names[j]));
}

static void write_call(FILE *out, const tracks *t, size_t row, dfn_arg *args)
{
    size_t run;
    uint32_t rrow = dfn_compare_rep_row(t->c, row, &run);
    const dfn_result *r = t->c->res[run];
    const cthread *th = &t->threads[t->ev_thread[row]];
    fputs(",\n{\"ph\":\"X\",", out);
    /* an aggregated record lasts its calls' summed time from the start of
     * its interval: where in the interval they ran is not known */
    if (dfn_evrows_merged(r)) {   /* (the parts a share sent) */
        dfn_chrome_call cc;
        (void)dfn_evrow_chrome(r, rrow, &cc);
        fwrite(cc.head, 1, cc.headlen, out);
        fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64,
                t->procs[th->proc].id, th->id, cc.ts, cc.dur);
        fwrite(cc.args, 1, cc.argslen, out);
        return;
    }
    const dfn_store *s = r->store;
    uint32_t i = r->events[rrow];
    dfn_chrome_call_head(out, s, i);
    fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64, t->procs[th->proc].id,
            th->id, s->t0 + dfn_store_ts(s, i), dfn_store_dur(s, i));
    dfn_chrome_call_args(out, s, i, args, t->added[run]);
}

/* Whether the export takes a sample at ts of value on host: on a host of
 * the run's calls, while they ran. */
static bool sample_in(const tracks *t, size_t run, uint64_t ts, double value, const char *host, size_t hostlen)
{
    return ts >= t->lo[run] && ts <= t->hi[run] && isfinite(value) &&
           dfn_strtab_find(t->hosts[run], host, hostlen) != DFN_NOID;
}

/* Sample j of run's (the store's, or those its shares sent) when the
 * export takes it: whose, its series, time and value. */
static bool sample_at(const tracks *t, size_t run, size_t j, dfn_chrome_sample *x, char pid[32])
{
    const dfn_result *r = t->c->res[run];
    if (dfn_evrows_merged(r)) {
        const dfn_chrome_sample *all;
        (void)dfn_evrow_samples(r, &all);
        *x = all[j];
        return sample_in(t, run, x->ts, x->value, x->who.host, x->who.hostlen);
    }
    const dfn_store *s = r->store;
    const dfn_sample *y = &s->samples[j];
    /* (the tests before any text is made) */
    if (!sample_in(t, run, y->ts, y->value, dfn_store_str(s, y->host), dfn_strtab_len(s->strs, y->host))) return false;
    dfn_chrome_sample_who(s, t->ranks[run], y, &x->who, pid);
    uint32_t series = s->series[y->series];
    x->series = dfn_store_str(s, series);
    x->serieslen = dfn_strtab_len(s->strs, series);
    x->ts = y->ts;
    x->value = y->value;
    return true;
}

static size_t samples_of(const tracks *t, size_t run)
{
    const dfn_result *r = t->c->res[run];
    const dfn_chrome_sample *all;
    return dfn_evrows_merged(r) ? dfn_evrow_samples(r, &all) : r->store->nsamples;
}

static int write_counters(FILE *out, tracks *t, atomic_bool *cancel)
{
    for (size_t run = 0; run < t->c->nruns; run++) {
        for (size_t j = 0, n = samples_of(t, run); j < n; j++) {
            dfn_chrome_sample x;
            char pid[32];
            if (!sample_at(t, run, j, &x, pid)) continue;
            const cproc *p = &t->procs[proc_of(t, run, &x.who)];
            char v[64];
            dfn_fmt_double(x.value, v, sizeof v);
            fputs(",\n{\"ph\":\"C\",\"name\":", out);
            dfn_json_string(out, x.series, x.serieslen);
            fprintf(out, ",\"pid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"args\":{\"value\":%s}}", p->id, x.ts, v);
            if ((j & 4095) == 0 && (ferror(out) || (cancel && atomic_load(cancel)))) return -1;
        }
    }
    return 0;
}

int dfn_chrome_write(FILE *out, const dfn_compare *c, atomic_bool *cancel)
{
    tracks t;
    tracks_build(&t, c);
    /* the processes that only sampled counters need tracks too, before
     * the ids are given */
    for (size_t run = 0; run < c->nruns; run++)
        for (size_t j = 0, n = samples_of(&t, run); j < n; j++) {
            dfn_chrome_sample x;
            char pid[32];
            if (sample_at(&t, run, j, &x, pid)) proc_of(&t, run, &x.who);
        }
    tracks_number(&t);
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"dfnav\",\"clock\":\"us since the epoch, "
          "as traced\"},\n\"traceEvents\":[", out);
    /* calls have tracks: they all come after the first track's record */
    bool first = true, stopped = false;
    write_tracks(out, &t, &first);
    dfn_arg *args = dfn_xmalloc(DFN_ARGS_MAX * sizeof *args);
    for (size_t row = 0; row < c->nrows && !stopped; row++) {
        write_call(out, &t, row, args);
        if ((row & 1023) == 0 && (ferror(out) || (cancel && atomic_load(cancel)))) stopped = true;
    }
    free(args);
    if (!stopped && !first && write_counters(out, &t, cancel) != 0) stopped = true;
    fputs("\n]}\n", out);
    tracks_free(&t);
    fflush(out);
    if (stopped && !ferror(out)) {
        errno = ECANCELED;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}
