/* Trace subsets in DFTracer's format (see dfnav/extract.h). The events are
 * written from the store, not copied from the files: whatever era they
 * were read from, the subset is one 2.x file whose hosts and files are
 * hashes with their HH and FH records, so that the loader and DFAnalyzer
 * resolve them as they resolve the tracer's own. */
#include "dfnav/extract.h"
#include "dfnav/export.h"
#include "dfnav/jsonget.h"
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A metadata record the subset needs, in the order the calls first need
 * it: a host's HH, a file's FH, a process's PR (its rank), a process's
 * or a thread's name (process_name, thread_name), each written with the
 * pid of the call that first needed it. */
typedef struct {
    dfn_xmeta kind;
    uint32_t lane, file;
} metarec;

typedef struct {
    const dfn_store *s;
    FILE *out;
    dfn_map64 host_hash;      /* host string id + 1 -> its hash (hosts with a name) */
    dfn_map64 hosts;          /* host string id + 1 -> 1: the calls' hosts, named or not */
    dfn_map64 file_hash;      /* file id + 1 -> its hash */
    dfn_map64 taken;          /* hashes given */
    dfn_strtab *procs;        /* processes with calls in the subset */
    dfn_strtab *ranked;       /* ... and those with a PR record */
    dfn_strtab *named;        /* ... and those with a process_name record */
    dfn_map64 tnamed;         /* lanes + 1 with a thread_name record */
    metarec *meta; size_t nmeta, metacap;
    uint64_t lo, hi;          /* the calls' span */
    /* the unit of every file with aggregated records (NONE: they differ):
     * their time arguments are in it, and the subset is in µs */
    dfn_unit agg_unit;
    dfn_extract_stats *st;
} extractor;

/* Sets of processes, (host, pid), exactly: their bytes as strings. */
static void proc_key(char key[12], uint32_t host, int64_t pid)
{
    memcpy(key, &host, 4);
    memcpy(key + 4, &pid, 8);
}

static bool proc_in(const dfn_strtab *t, uint32_t host, int64_t pid)
{
    char key[12];
    proc_key(key, host, pid);
    return dfn_strtab_find(t, key, sizeof key) != UINT32_MAX;
}

/* Adds it; true when it was not there. */
static bool proc_put(dfn_strtab *t, uint32_t host, int64_t pid)
{
    char key[12];
    proc_key(key, host, pid);
    return dfn_strtab_add(t, key, sizeof key, NULL);
}

static void meta_push(extractor *x, dfn_xmeta kind, uint32_t lane, uint32_t file)
{
    dfn_grow((void **)&x->meta, &x->metacap, x->nmeta + 1, sizeof *x->meta);
    metarec *m = &x->meta[x->nmeta++];
    m->kind = kind;
    m->lane = lane;
    m->file = file;
}

/* A hash for text, unique among those given: the tracer's hashes are
 * arbitrary 64-bit numbers, and only their agreement with the records
 * matters. */
uint64_t dfn_extract_hash(dfn_map64 *taken, const char *t, size_t len)
{
    uint64_t h = dfn_hash(t, len);
    for (;;) {
        if (h == 0 || h == DFN_MAP64_EMPTY) { h = 1; continue; }
        uint64_t *used = dfn_map64_slot(taken, h);
        if (!*used) { *used = 1; return h; }
        h++;
    }
}


static void put_id(FILE *out, const dfn_store *s, int64_t v)
{
    if (!dfn_id_named(v)) { fprintf(out, "%" PRId64, v); return; }
    char *name = dfn_id_dup(s, v);
    dfn_json_bytes(out, name, strlen(name));
    free(name);
}

static void put_str(FILE *out, const dfn_store *s, uint32_t id)
{
    dfn_json_bytes(out, dfn_store_str(s, id), dfn_strtab_len(s->strs, id));
}

void dfn_extract_meta(FILE *out, dfn_xmeta kind, const char *pid, size_t pl, const char *tid, size_t tl,
                      const uint64_t *hh, const char *text, size_t len, uint64_t hash)
{
    static const char *const names[] = { "CM", "HH", "FH", "PR", "process_name", "thread_name" };
    fprintf(out, "{\"name\":\"%s\",\"cat\":\"dftracer\",\"type\":1,\"pid\":", names[kind]);
    fwrite(pid, 1, pl, out);
    fputs(",\"tid\":", out);
    fwrite(tid, 1, tl, out);
    fputs(",\"ph\":4,\"args\":{", out);
    if (hh) fprintf(out, "\"hhash\":\"%" PRIu64 "\",", *hh);   /* none for a host without a name */
    switch (kind) {
    case DFN_XMETA_CM:
        fputs("\"name\":\"time_metric\",\"value\":\"US\"}}\n", out);
        break;
    case DFN_XMETA_PR:
        fputs("\"name\":\"rank\",\"value\":", out);
        fwrite(text, 1, len, out);   /* a whole number */
        fputs("}}\n", out);
        break;
    case DFN_XMETA_PNAME: case DFN_XMETA_TNAME:   /* as other tools write them: the name in args.name */
        fputs("\"name\":", out);
        dfn_json_bytes(out, text, len);
        fputs("}}\n", out);
        break;
    case DFN_XMETA_HH: case DFN_XMETA_FH:
        fputs("\"name\":", out);
        dfn_json_bytes(out, text, len);
        fprintf(out, ",\"value\":\"%" PRIu64 "\"}}\n", hash);
        break;
    }
}

size_t dfn_extract_id_json(const dfn_store *s, int64_t v, char **buf, size_t *cap)
{
    if (!dfn_id_named(v)) {
        dfn_grow((void **)buf, cap, 32, 1);
        return (size_t)snprintf(*buf, 32, "%" PRId64, v);
    }
    char *t = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&t, &n);
    if (!m) dfn_out_of_memory("a memory stream", BUFSIZ);
    put_id(m, s, v);
    fclose(m);
    dfn_grow((void **)buf, cap, n + 1, 1);
    memcpy(*buf, t, n + 1);
    free(t);
    return n;
}

/* A metadata record of kind for lane (pid, and tid for a thread's name)
 * and host, with text and hash. */
static void meta_write(extractor *x, dfn_xmeta kind, const dfn_lane *l, uint32_t host, const char *text, size_t len,
                       uint64_t hash)
{
    char *p = NULL, *t = NULL;
    size_t pc = 0, tc = 0;
    size_t pl = dfn_extract_id_json(x->s, l->pid, &p, &pc);
    size_t tl = dfn_extract_id_json(x->s, kind == DFN_XMETA_TNAME ? l->tid : l->pid, &t, &tc);
    dfn_extract_meta(x->out, kind, p, pl, t, tl, dfn_map64_get(&x->host_hash, (uint64_t)host + 1), text, len, hash);
    free(p);
    free(t);
    x->st->metadata++;
}

/* The rank and names of a call's process and thread, once each. */
static void extract_names(extractor *x, uint32_t lane)
{
    const dfn_store *s = x->s;
    const dfn_lane *l = &s->lanes[lane];
    if (dfn_strtab_len(s->strs, l->rank) && proc_put(x->ranked, l->host, l->pid)) meta_push(x, DFN_XMETA_PR, lane, 0);
    if (dfn_store_lane_pname(s, lane) != DFN_NOID && proc_put(x->named, l->host, l->pid)) meta_push(x, DFN_XMETA_PNAME, lane, 0);
    if (dfn_store_lane_tname(s, lane) != DFN_NOID && !dfn_map64_get(&x->tnamed, (uint64_t)lane + 1)) {
        *dfn_map64_slot(&x->tnamed, (uint64_t)lane + 1) = 1;
        meta_push(x, DFN_XMETA_TNAME, lane, 0);
    }
}

/* Hashes for the calls' hosts and files, the metadata records they
 * need, their processes and span. */
static void extract_scan(extractor *x, const uint32_t *events, size_t n)
{
    const dfn_store *s = x->s;
    x->lo = UINT64_MAX;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = events[k];
        const dfn_lane *l = &s->lanes[dfn_store_lane(s, i)];
        size_t hl = dfn_strtab_len(s->strs, l->host);
        if (hl && !dfn_map64_get(&x->host_hash, (uint64_t)l->host + 1)) {
            *dfn_map64_slot(&x->host_hash, (uint64_t)l->host + 1) = dfn_extract_hash(&x->taken, dfn_store_str(s, l->host), hl);
            meta_push(x, DFN_XMETA_HH, dfn_store_lane(s, i), 0);
        }
        uint32_t f = dfn_store_file(s, i);
        if (f && !dfn_map64_get(&x->file_hash, (uint64_t)f + 1)) {
            uint32_t path = s->files[f].path;
            *dfn_map64_slot(&x->file_hash, (uint64_t)f + 1) = dfn_extract_hash(&x->taken, dfn_store_str(s, path), dfn_strtab_len(s->strs, path));
            meta_push(x, DFN_XMETA_FH, dfn_store_lane(s, i), f);
            x->st->files++;
        }
        *dfn_map64_slot(&x->hosts, (uint64_t)l->host + 1) = 1;
        if (proc_put(x->procs, l->host, l->pid)) x->st->processes++;
        extract_names(x, dfn_store_lane(s, i));
        uint64_t ts = s->t0 + dfn_store_ts(s, i), end = ts + dfn_store_dur(s, i);   /* absolute, as samples are */
        if (ts < x->lo) x->lo = ts;
        if (end > x->hi) x->hi = end;
    }
}

/* The HH, FH, PR and name records the scan found needed. */
static void write_metadata(extractor *x)
{
    const dfn_store *s = x->s;
    for (size_t k = 0; k < x->nmeta; k++) {
        const metarec *m = &x->meta[k];
        const dfn_lane *l = &s->lanes[m->lane];
        uint32_t id = m->kind == DFN_XMETA_PR ? l->rank : m->kind == DFN_XMETA_PNAME ? dfn_store_lane_pname(s, m->lane)
                    : m->kind == DFN_XMETA_TNAME ? dfn_store_lane_tname(s, m->lane)
                    : m->kind == DFN_XMETA_HH ? l->host : s->files[m->file].path;
        const uint64_t *h = m->kind == DFN_XMETA_HH ? dfn_map64_get(&x->host_hash, (uint64_t)l->host + 1)
                          : m->kind == DFN_XMETA_FH ? dfn_map64_get(&x->file_hash, (uint64_t)m->file + 1) : NULL;
        meta_write(x, m->kind, l, l->host, dfn_store_str(s, id), dfn_strtab_len(s->strs, id), h ? *h : 0);
    }
}

/* The end record's cfg with its time_metric made US: dfnav holds µs, and
 * a subset of an NS trace that still said NS would read 1000 times off. */
static void put_cfg(FILE *out, const char *t, size_t len)
{
    dfn_jsonval v;
    if (!dfn_json_get(t, len, "time_metric", 11, &v) || !v.quoted) { fwrite(t, 1, len, out); return; }
    fwrite(t, 1, (size_t)(v.s - t), out);
    fputs("US", out);
    fwrite(v.s + v.len, 1, len - (size_t)(v.s + v.len - t), out);
}

/* Whether kind k is DFTracer's end record, whose cfg says the unit. */
static bool kind_is_end(const dfn_store *s, const dfn_kind *k)
{
    return strcmp(dfn_store_str(s, k->func), "end") == 0 &&
           dfn_ascii_ieq(dfn_store_str(s, k->cat), dfn_strtab_len(s->strs, k->cat), "dftracer", 8);
}

static void put_arg(FILE *out, const dfn_store *s, const dfn_arg *a, const dfn_kind *k)
{
    char buf[32];
    switch (a->type) {
    case DFN_ARG_STR: put_str(out, s, a->str); return;
    case DFN_ARG_RAW: {
        const char *t = dfn_store_str(s, a->str);
        size_t len = dfn_strtab_len(s->strs, a->str);
        if (strcmp(dfn_store_str(s, a->key), "cfg") == 0 && kind_is_end(s, k)) put_cfg(out, t, len);
        else fwrite(t, 1, len, out);   /* as the trace wrote it: the loader took it so */
        return;
    }
    default: fwrite(buf, 1, dfn_arg_text(s, a, buf, sizeof buf), out);
    }
}

/* An aggregated record's time argument of a file not in µs: dur, dur_sum
 * and dur_max are written from the store; dur_min in µs when the files'
 * unit is known, else left out. True when the argument is done. */
static bool agg_time_arg(FILE *out, const dfn_store *s, dfn_unit agg_unit, const dfn_arg *a, bool *sep)
{
    const char *k = dfn_store_str(s, a->key);
    if (strcmp(k, "dur") == 0 || strcmp(k, "dur_sum") == 0 || strcmp(k, "dur_max") == 0) return true;
    if (strcmp(k, "dur_min") != 0) return false;
    bool num = (a->type == DFN_ARG_INT && a->i >= 0) || a->type == DFN_ARG_UINT;
    if (agg_unit != DFN_UNIT_NONE && num) {
        uint64_t v = a->type == DFN_ARG_UINT ? a->u : (uint64_t)a->i;
        fprintf(out, "%s\"dur_min\":%" PRIu64, *sep ? "," : "", dfn_unit_to_us(agg_unit, v));
        *sep = true;
    }
    return true;
}

void dfn_extract_call_head(FILE *out, const dfn_store *s, uint32_t i)
{
    const dfn_kind *k = &s->kinds[dfn_store_kind(s, i)];
    const dfn_lane *l = &s->lanes[dfn_store_lane(s, i)];
    bool agg = dfn_store_is_agg(s, i);
    fputs("{\"name\":", out);
    put_str(out, s, k->func);
    fputs(",\"cat\":", out);
    put_str(out, s, k->cat);
    fputs(",\"pid\":", out);
    put_id(out, s, l->pid);
    fputs(",\"tid\":", out);
    put_id(out, s, l->tid);
    fprintf(out, ",\"ts\":%" PRIu64, s->t0 + dfn_store_ts(s, i));
    /* an aggregated record's time is in its arguments (dur or dur_sum) */
    if (!agg) fprintf(out, ",\"dur\":%" PRIu64, dfn_store_dur(s, i));
    fprintf(out, ",\"ph\":%d", agg ? 3 : 1);
    if (k->type != 255) fprintf(out, ",\"type\":%u", k->type);
    fputs(",\"args\":{", out);
}

void dfn_extract_call_args(FILE *out, const dfn_store *s, uint32_t i, dfn_unit agg_unit, dfn_arg *args, bool sep)
{
    const dfn_kind *k = &s->kinds[dfn_store_kind(s, i)];
    /* an aggregated record of a file in another unit: its time as the
     * store has it, in µs (copied, dur_sum in ns read as µs 1000 times) */
    bool convert = dfn_store_is_agg(s, i) && agg_unit != DFN_UNIT_US;
    if (convert) {
        fprintf(out, "%s\"dur_sum\":%" PRIu64 ",\"dur_max\":%" PRIu64, sep ? "," : "", dfn_store_dur(s, i),
                dfn_store_maxdur(s, i));
        sep = true;
    }
    size_t n = dfn_store_args(s, i, args, DFN_ARGS_MAX);
    if (n > DFN_ARGS_MAX) n = DFN_ARGS_MAX;
    for (size_t a = 0; a < n; a++) {
        if (convert && agg_time_arg(out, s, agg_unit, &args[a], &sep)) continue;
        if (sep) fputc(',', out);
        put_str(out, s, args[a].key);
        fputc(':', out);
        put_arg(out, s, &args[a], k);
        sep = true;
    }
}

static void write_event(extractor *x, uint32_t i, dfn_arg *args)
{
    const dfn_store *s = x->s;
    FILE *out = x->out;
    dfn_extract_call_head(out, s, i);
    bool sep = false;
    const uint64_t *h = dfn_map64_get(&x->host_hash, (uint64_t)s->lanes[dfn_store_lane(s, i)].host + 1);
    if (h) { fprintf(out, "\"hhash\":\"%" PRIu64 "\"", *h); sep = true; }
    if (dfn_store_file(s, i)) {
        fprintf(out, "%s\"fhash\":\"%" PRIu64 "\"", sep ? "," : "", *dfn_map64_get(&x->file_hash, (uint64_t)dfn_store_file(s, i) + 1));
        sep = true;
    }
    dfn_extract_call_args(out, s, i, x->agg_unit, args, sep);
    fputs("}}\n", out);
    x->st->events++;
}

void dfn_extract_sample(FILE *out, const char *series, size_t len, const char *pid, size_t pl, uint64_t ts,
                        const uint64_t *hh, double value)
{
    /* the series is NAME.FIELD: the last dot splits it the same way every time */
    const char *dot = memrchr(series, '.', len);
    size_t nl = dot ? (size_t)(dot - series) : len;
    fputs("{\"name\":", out);
    dfn_json_bytes(out, series, nl);
    fputs(",\"cat\":\"sys\",\"pid\":", out);
    fwrite(pid, 1, pl, out);
    fputs(",\"tid\":", out);
    fwrite(pid, 1, pl, out);
    fprintf(out, ",\"ts\":%" PRIu64 ",\"ph\":2,\"type\":7,\"args\":{", ts);
    if (hh) fprintf(out, "\"hhash\":\"%" PRIu64 "\",", *hh);
    char v[64];
    dfn_fmt_double(value, v, sizeof v);
    dfn_json_bytes(out, dot ? dot + 1 : "value", dot ? len - nl - 1 : 5);
    fprintf(out, ":%s}}\n", v);
}

/* Counter samples a query of the subset sees as the set's did: on the
 * calls' hosts while they ran, from their processes or from processes
 * without calls (a host's telemetry), never from a process whose calls
 * were all left out (its samples would become the host's). */
static int write_samples(extractor *x)
{
    const dfn_store *s = x->s;
    dfn_strtab *callers = dfn_strtab_new();
    for (size_t l = 0; l < s->nlanes; l++) proc_put(callers, s->lanes[l].host, s->lanes[l].pid);
    int rc = 0;
    char *pid = NULL;
    size_t pcap = 0;
    for (size_t j = 0; j < s->nsamples && !rc; j++) {
        const dfn_sample *c = &s->samples[j];
        if (c->ts < x->lo || c->ts > x->hi || !isfinite(c->value) || !dfn_map64_get(&x->hosts, (uint64_t)c->host + 1))
            continue;
        if (!proc_in(x->procs, c->host, c->pid) && proc_in(callers, c->host, c->pid)) continue;
        uint32_t sid = s->series[c->series];
        size_t pl = dfn_extract_id_json(s, c->pid, &pid, &pcap);
        dfn_extract_sample(x->out, dfn_store_str(s, sid), dfn_strtab_len(s->strs, sid), pid, pl, c->ts,
                           dfn_map64_get(&x->host_hash, (uint64_t)c->host + 1), c->value);
        x->st->samples++;
        if ((j & 4095) == 0 && ferror(x->out)) rc = -1;
    }
    free(pid);
    dfn_strtab_free(callers);
    return rc;
}

dfn_unit dfn_extract_agg_unit(const dfn_store *s, bool *any)
{
    dfn_unit unit = DFN_UNIT_US;
    *any = false;
    for (size_t f = 0; s && f < s->nsrc; f++) {
        if (!dfn_src_more(&s->src[f])->agg_records) continue;
        if (!*any) unit = s->src[f].unit;
        else if (s->src[f].unit != unit) unit = DFN_UNIT_NONE;
        *any = true;
    }
    return unit;
}

int dfn_extract_write(FILE *out, const dfn_store *s, const uint32_t *events, size_t n, dfn_extract_stats *st)
{
    memset(st, 0, sizeof *st);
    bool any;
    extractor x = { .s = s, .out = out, .st = st, .agg_unit = dfn_extract_agg_unit(s, &any) };
    dfn_map64_init(&x.host_hash);
    dfn_map64_init(&x.hosts);
    dfn_map64_init(&x.file_hash);
    dfn_map64_init(&x.taken);
    dfn_map64_init(&x.tnamed);
    x.procs = dfn_strtab_new();
    x.ranked = dfn_strtab_new();
    x.named = dfn_strtab_new();
    extract_scan(&x, events, n);
    fputs("[\n", out);
    /* the unit first: dfnav holds whole µs, whatever the traces said, and
     * a --time-unit given when the subset is loaded must not apply */
    dfn_lane none = {0};
    const dfn_lane *l0 = n ? &s->lanes[dfn_store_lane(s, events[0])] : &none;
    meta_write(&x, DFN_XMETA_CM, l0, l0->host, "", 0, 0);
    write_metadata(&x);
    dfn_arg *args = dfn_xmalloc(DFN_ARGS_MAX * sizeof *args);
    bool stopped = false;
    for (size_t k = 0; k < n && !stopped; k++) {
        write_event(&x, events[k], args);
        if ((k & 4095) == 0 && ferror(out)) stopped = true;
    }
    free(args);
    if (!stopped && n && write_samples(&x) != 0) stopped = true;
    fputs("]\n", out);
    dfn_map64_free(&x.host_hash);
    dfn_map64_free(&x.hosts);
    dfn_map64_free(&x.file_hash);
    dfn_map64_free(&x.taken);
    dfn_strtab_free(x.procs);
    dfn_strtab_free(x.ranked);
    dfn_strtab_free(x.named);
    dfn_map64_free(&x.tnamed);
    free(x.meta);
    return ferror(out) || stopped ? -1 : 0;
}
