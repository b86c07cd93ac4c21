/* Chrome trace-event JSON of a selection's calls (see dfnav/chrome.h): the
 * processes and threads they ran on become named tracks, each call an
 * "X" event with its arguments, the counter samples of their hosts over
 * their time "C" events. Ids are the trace's own pids and tids when they
 * name every track apart, else numbers given in order (the trace's stay
 * in the track names): two hosts may use the same pid. */
#include "dfnav/chrome.h"
#include "dfnav/export.h"
#include "dfnav/jsonget.h"
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A process: (run, host, pid); a thread: (run, lane). */
typedef struct {
    size_t run;
    uint32_t host;
    int64_t pid;
    int64_t id;               /* its pid in the output */
    uint32_t rank;            /* string id of its rank, UINT32_MAX when none */
} cproc;
typedef struct {
    size_t run;
    uint32_t lane, proc;
    int64_t id;               /* its tid in the output */
} cthread;

typedef struct {
    const dfn_compare *c;
    dfn_strtab *pkeys, *tkeys;
    cproc *procs; size_t nprocs, pcap;
    cthread *threads; size_t nthreads, tcap;
    uint32_t *ev_thread;      /* per row: its thread */
    /* per run: the hosts of its calls (host id + 1 -> 1) and their span */
    dfn_map64 *hosts;
    uint64_t *lo, *hi;
    /* per run: the string ids of "file", "bytes" and "calls" (UINT32_MAX:
     * no argument has that name), the names the export adds */
    uint32_t (*added)[3];
} tracks;

static const char *const added_names[3] = { "file", "bytes", "calls" };

static uint32_t proc_of(tracks *t, size_t run, uint32_t host, int64_t pid)
{
    uint64_t key[2] = { ((uint64_t)run << 32) | host, (uint64_t)pid };
    uint32_t n = (uint32_t)dfn_strtab_count(t->pkeys);
    uint32_t id = dfn_strtab_intern(t->pkeys, (const char *)key, sizeof key);
    if (id == n) {
        dfn_grow((void **)&t->procs, &t->pcap, t->nprocs + 1, sizeof *t->procs);
        t->procs[t->nprocs++] = (cproc){ run, host, pid, 0, UINT32_MAX };
    }
    return id;
}

static uint32_t thread_of(tracks *t, size_t run, uint32_t lane)
{
    const dfn_lane *l = &t->c->res[run]->store->lanes[lane];
    uint32_t proc = proc_of(t, run, l->host, l->pid);
    uint64_t key = ((uint64_t)run << 32) | lane;
    uint32_t n = (uint32_t)dfn_strtab_count(t->tkeys);
    uint32_t id = dfn_strtab_intern(t->tkeys, (const char *)&key, sizeof key);
    if (id == n) {
        dfn_grow((void **)&t->threads, &t->tcap, t->nthreads + 1, sizeof *t->threads);
        t->threads[t->nthreads++] = (cthread){ run, lane, proc, 0 };
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
    for (size_t i = 0; i < t->nprocs; i++) ids[i] = t->procs[i].pid;
    ids_give(ids, t->nprocs);
    for (size_t i = 0; i < t->nprocs; i++) t->procs[i].id = ids[i];
    for (size_t i = 0; i < t->nthreads; i++) ids[i] = t->c->res[t->threads[i].run]->store->lanes[t->threads[i].lane].tid;
    ids_give(ids, t->nthreads);
    for (size_t i = 0; i < t->nthreads; i++) t->threads[i].id = ids[i];
    free(ids);
}

/* Each process's rank: that of its first thread with one, in one pass
 * over each run's threads. */
static void tracks_ranks(tracks *t)
{
    for (size_t run = 0; run < t->c->nruns; run++) {
        const dfn_store *s = t->c->res[run]->store;
        for (size_t l = 0; l < s->nlanes; l++) {
            uint64_t key[2] = { ((uint64_t)run << 32) | s->lanes[l].host, (uint64_t)s->lanes[l].pid };
            uint32_t p = dfn_strtab_find(t->pkeys, (const char *)key, sizeof key);
            if (p != UINT32_MAX && t->procs[p].rank == UINT32_MAX && dfn_strtab_len(s->strs, s->lanes[l].rank))
                t->procs[p].rank = s->lanes[l].rank;
        }
    }
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
    t->added = dfn_xmalloc(c->nruns * sizeof *t->added);
    for (size_t k = 0; k < c->nruns; k++) {
        dfn_map64_init(&t->hosts[k]);
        t->lo[k] = UINT64_MAX;
        for (int j = 0; j < 3; j++)
            t->added[k][j] = dfn_strtab_find(c->res[k]->store->strs, added_names[j], strlen(added_names[j]));
    }
    for (size_t row = 0; row < c->nrows; row++) {
        size_t run;
        uint32_t rrow = dfn_compare_rep_row(c, row, &run);
        const dfn_store *s = c->res[run]->store;
        uint32_t i = c->res[run]->events[rrow];
        t->ev_thread[row] = thread_of(t, run, s->lane[i]);
        *dfn_map64_slot(&t->hosts[run], (uint64_t)s->lanes[s->lane[i]].host + 1) = 1;
        uint64_t ts = s->t0 + dfn_store_ts(s, i), end = ts + dfn_store_dur(s, i);   /* absolute, as samples are */
        if (ts < t->lo[run]) t->lo[run] = ts;
        if (end > t->hi[run]) t->hi[run] = end;
    }
}

static void tracks_free(tracks *t)
{
    dfn_strtab_free(t->pkeys);
    dfn_strtab_free(t->tkeys);
    free(t->procs);
    free(t->threads);
    free(t->ev_thread);
    for (size_t k = 0; k < t->c->nruns; k++) dfn_map64_free(&t->hosts[k]);
    free(t->hosts);
    free(t->lo);
    free(t->hi);
    free(t->added);
}

/* A counter sample the export takes: on a host of the run's calls, while
 * they ran. */
static bool sample_taken(const tracks *t, size_t run, const dfn_sample *x)
{
    return x->ts >= t->lo[run] && x->ts <= t->hi[run] && isfinite(x->value) &&
           dfn_map64_get(&t->hosts[run], (uint64_t)x->host + 1);
}

/* "run: node01 pid 1234 rank 3" */
static void proc_name(FILE *out, const tracks *t, const cproc *p)
{
    const dfn_store *s = t->c->res[p->run]->store;
    char *id = dfn_id_dup(s, p->pid);
    const char *host = dfn_store_str(s, p->host);
    char *name = dfn_xasprintf("%s%s%s%s%s %s", t->c->labels ? t->c->labels[p->run] : "", t->c->labels ? ": " : "",
                               host, *host ? " " : "", dfn_id_named(p->pid) ? "process" : "pid", id);
    char *full = p->rank != UINT32_MAX ? dfn_xasprintf("%s rank %s", name, dfn_store_str(s, p->rank)) : dfn_xstrdup(name);
    dfn_json_string(out, full, strlen(full));
    free(full);
    free(name);
    free(id);
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
        const dfn_store *s = t->c->res[th->run]->store;
        char *id = dfn_id_dup(s, s->lanes[th->lane].tid);
        char *name = dfn_xasprintf("%s %s", dfn_id_named(s->lanes[th->lane].tid) ? "thread" : "tid", id);
        free(id);
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
static void call_args(FILE *out, const dfn_store *s, uint32_t i, dfn_arg *args, const uint32_t added[3])
{
    size_t n = dfn_store_args(s, i, args, DFN_ARGS_MAX);
    if (n > DFN_ARGS_MAX) n = DFN_ARGS_MAX;
    bool own[3] = { false, false, false };
    for (size_t k = 0; k < n; k++)
        for (int j = 0; j < 3; j++) own[j] |= args[k].key == added[j];
    bool sep = false;
    fputs(",\"args\":{", out);
    uint32_t path = s->files[s->file[i]].path;
    if (s->file[i] && !own[0]) {
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

static void write_call(FILE *out, const tracks *t, size_t row, dfn_arg *args)
{
    size_t run;
    uint32_t rrow = dfn_compare_rep_row(t->c, row, &run);
    const dfn_store *s = t->c->res[run]->store;
    uint32_t i = t->c->res[run]->events[rrow];
    const dfn_kind *k = &s->kinds[s->kind[i]];
    const cthread *th = &t->threads[t->ev_thread[row]];
    fputs(",\n{\"ph\":\"X\",\"name\":", out);
    const char *f = dfn_store_str(s, k->func), *cat = dfn_store_str(s, k->cat);
    dfn_json_string(out, f, dfn_strtab_len(s->strs, k->func));
    fputs(",\"cat\":", out);
    dfn_json_string(out, cat, dfn_strtab_len(s->strs, k->cat));
    /* an aggregated record lasts its calls' summed time from the start of
     * its interval: where in the interval they ran is not known */
    fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64, t->procs[th->proc].id,
            th->id, s->t0 + dfn_store_ts(s, i), dfn_store_dur(s, i));
    call_args(out, s, i, args, t->added[run]);
}

static int write_counters(FILE *out, tracks *t, atomic_bool *cancel)
{
    for (size_t run = 0; run < t->c->nruns; run++) {
        const dfn_store *s = t->c->res[run]->store;
        for (size_t j = 0; j < s->nsamples; j++) {
            const dfn_sample *x = &s->samples[j];
            if (!sample_taken(t, run, x)) continue;
            const cproc *p = &t->procs[proc_of(t, run, x->host, x->pid)];
            char v[64];
            dfn_fmt_double(x->value, v, sizeof v);
            fputs(",\n{\"ph\":\"C\",\"name\":", out);
            uint32_t series = s->series[x->series];
            dfn_json_string(out, dfn_store_str(s, series), dfn_strtab_len(s->strs, series));
            fprintf(out, ",\"pid\":%" PRId64 ",\"ts\":%" PRIu64 ",\"args\":{\"value\":%s}}", p->id, x->ts, v);
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
    for (size_t run = 0; run < c->nruns; run++) {
        const dfn_store *s = c->res[run]->store;
        for (size_t j = 0; j < s->nsamples; j++)
            if (sample_taken(&t, run, &s->samples[j])) proc_of(&t, run, s->samples[j].host, s->samples[j].pid);
    }
    tracks_number(&t);
    tracks_ranks(&t);
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
