/* The event store's read side: 32-bit columns with escaped wide values,
 * decoding of argument records, and freeing. The store is built by the
 * loader (loader.c) and never changes afterwards. */
#include "dfnav/store.h"
#include "dfnav/cache.h"
#include "dfnav/jsonget.h"
#include "load.h"
#include "rebuild.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void dfn_col32_escape(dfn_col32 *c, size_t i, uint64_t v)
{
    c->v[i] = UINT32_MAX;
    dfn_grow((void **)&c->esc, &c->esccap, c->nesc + 1, sizeof *c->esc);
    c->esc[c->nesc++] = (dfn_esc){ i, v };
}

uint64_t dfn_col32_escaped(const dfn_col32 *c, size_t i)
{
    size_t lo = 0, hi = c->nesc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->esc[mid].idx < i) lo = mid + 1; else hi = mid;
    }
    return lo < c->nesc && c->esc[lo].idx == i ? c->esc[lo].val : UINT32_MAX;
}

void dfn_col32_free(dfn_col32 *c)
{
    free(c->v);
    free(c->esc);
    memset(c, 0, sizeof *c);
}

void dfn_ids_alloc(dfn_ids *c, size_t n, size_t nids)
{
    *c = (dfn_ids){ NULL, NULL };
    if (nids <= DFN_IDS16_MAX) c->v16 = dfn_xmalloc((n ? n : 1) * sizeof *c->v16);
    else c->v32 = dfn_xmalloc((n ? n : 1) * sizeof *c->v32);
}

void dfn_ids_free(dfn_ids *c)
{
    free(c->v16);
    free(c->v32);
    *c = (dfn_ids){ NULL, NULL };
}

/* ---- argument records: varint schema id, then one varint per value of a
 * type that carries one (int zigzag, uint, string id; not DFN_ARG_SAME,
 * the value before it again) ---- */

const uint8_t *dfn_store_record_end(const dfn_store *s, const uint8_t *p, const uint8_t *end)
{
    uint64_t sid;
    size_t k = dfn_varint_get(p, end, &sid);
    if (!k || sid >= s->nschemas) return end;
    p += k;
    for (uint16_t j = 0; j < s->schema_nval[sid] && p < end; j++) p = dfn_varint_skip(p, end);
    return p;
}

const uint8_t *dfn_store_args_at(const dfn_store *s, size_t i)
{
    if (i >= s->n) return NULL;
    const uint8_t *end = s->args + s->args_len;
    const uint8_t *p = s->args + s->args_idx[i >> DFN_ARGS_INDEX_SHIFT];
    for (size_t j = i & ~(((size_t)1 << DFN_ARGS_INDEX_SHIFT) - 1); j < i; j++)
        p = dfn_store_record_end(s, p, end);
    return p;
}

const uint8_t *dfn_store_args_next(const dfn_store *s, const uint8_t *rec)
{
    return dfn_store_record_end(s, rec, s->args + s->args_len);
}

void dfn_store_args_seek(const dfn_store *s, const uint8_t **rec, size_t *rec_i, size_t i)
{
    if (*rec && *rec_i <= i && i - *rec_i < 64) {
        while (*rec_i < i) { *rec = dfn_store_args_next(s, *rec); (*rec_i)++; }
    } else {
        *rec = dfn_store_args_at(s, i);
        *rec_i = i;
    }
}

static size_t store_decode(const dfn_store *s, const uint8_t *p, dfn_arg *out, size_t max, uint32_t only_key, bool *found)
{
    const uint8_t *end = s->args + s->args_len;
    uint64_t sid;
    size_t k = dfn_varint_get(p, end, &sid);
    if (!k || sid >= s->nschemas) return 0;
    p += k;
    size_t n = s->schema_len[sid], w = 0;
    dfn_arg prev = { 0 };
    for (size_t j = 0; j < n; j++) {
        dfn_arg a = { .key = s->schema_keys[sid][j], .type = (dfn_argtype)s->schema_types[sid][j] };
        if (a.type == DFN_ARG_SAME) {   /* the one before's (a schema never starts with one: image.c, loader.c) */
            a = prev;
            a.key = s->schema_keys[sid][j];
        } else if (a.type >= DFN_ARG_INT) {
            uint64_t v;
            k = dfn_varint_get(p, end, &v);
            if (!k) return w;
            p += k;
            if (a.type == DFN_ARG_INT) a.i = dfn_unzigzag(v);
            else if (a.type == DFN_ARG_UINT) a.u = v;
            else a.str = (uint32_t)v;
        }
        prev = a;
        if (only_key != DFN_NOID) {
            if (a.key == only_key) { *out = a; *found = true; return 1; }
            continue;
        }
        if (w < max) out[w] = a;
        w++;
    }
    return only_key != DFN_NOID ? 0 : w;
}

size_t dfn_store_args(const dfn_store *s, size_t i, dfn_arg *out, size_t max)
{
    return dfn_store_args_in(s, dfn_store_args_at(s, i), out, max);
}

size_t dfn_store_args_in(const dfn_store *s, const uint8_t *rec, dfn_arg *out, size_t max)
{
    bool found = false;
    return rec ? store_decode(s, rec, out, max, DFN_NOID, &found) : 0;
}

bool dfn_store_arg_in(const dfn_store *s, const uint8_t *rec, uint32_t key, dfn_arg *out)
{
    bool found = false;
    store_decode(s, rec, out, 1, key, &found);
    return found;
}

bool dfn_store_arg(const dfn_store *s, size_t i, uint32_t key, dfn_arg *out)
{
    const uint8_t *p = dfn_store_args_at(s, i);
    return p && dfn_store_arg_in(s, p, key, out);
}

size_t dfn_arg_text(const dfn_store *s, const dfn_arg *a, char *buf, size_t cap)
{
    int n;
    switch (a->type) {
    case DFN_ARG_NULL: n = snprintf(buf, cap, "null"); break;
    case DFN_ARG_FALSE: n = snprintf(buf, cap, "false"); break;
    case DFN_ARG_TRUE: n = snprintf(buf, cap, "true"); break;
    case DFN_ARG_INT: n = snprintf(buf, cap, "%" PRId64, a->i); break;
    case DFN_ARG_UINT: n = snprintf(buf, cap, "%" PRIu64, a->u); break;
    default: n = snprintf(buf, cap, "%s", dfn_store_str(s, a->str)); break;
    }
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

void dfn_store_schemas_alloc(dfn_store *s, size_t n)
{
    s->nschemas = n;
    s->schema_keys = dfn_xcalloc(n ? n : 1, sizeof *s->schema_keys);
    s->schema_types = dfn_xcalloc(n ? n : 1, sizeof *s->schema_types);
    s->schema_len = dfn_xcalloc(n ? n : 1, sizeof *s->schema_len);
    s->schema_nval = dfn_xcalloc(n ? n : 1, sizeof *s->schema_nval);
}

const dfn_srcmore dfn_srcmore_none;

dfn_srcmore *dfn_srcinfo_more(dfn_srcinfo *si)
{
    if (!si->more) si->more = dfn_xcalloc(1, sizeof *si->more);
    return si->more;
}

bool dfn_srcmore_any(const dfn_srcmore *m)
{
    return m->bad_lines || m->bad_reason || m->nbad || m->error || m->long_lines || m->counters || m->other ||
           m->other_ph || m->agg_records || m->agg_calls || m->unit_unknown || m->ns_rounding || m->ns_zeroed ||
           m->ns_total || m->frac_times || m->cfg || m->app;
}

void dfn_srcinfo_bad_room(dfn_srcinfo *si)
{
    dfn_srcmore *m = dfn_srcinfo_more(si);
    if (m->bad_lines) return;
    m->bad_lines = dfn_xcalloc(DFN_MAX_BAD_LINES, sizeof *m->bad_lines);
    m->bad_reason = dfn_xcalloc(DFN_MAX_BAD_LINES, sizeof *m->bad_reason);
}

void dfn_store_paths_own(dfn_store *s, char **block)
{
    s->paths = block;
    for (size_t i = 0; i < s->nsrc; i++) s->src[i].path = s->paths[i];
}

void dfn_store_paths(dfn_store *s, const char *const *paths)
{
    dfn_store_paths_own(s, dfn_strv_block(paths, s->nsrc));
}

bool dfn_store_rebase(dfn_store *s, uint64_t t0, uint64_t t1)
{
    if (s->map || (s->n && (t0 > s->t0 || t1 < s->t1)) || t1 < t0) return false;
    if (s->n) {
        /* times are kept from t0: each block's base and reach move by
         * what the earlier start adds */
        uint64_t d = s->t0 - t0;
        size_t nblocks = (s->n >> DFN_TS_BLOCK_SHIFT) + 1;
        for (size_t b = 0; b < nblocks; b++) {
            s->ts_base[b] += d;
            s->ts_reach[b] += d;
        }
    }
    s->t0 = t0;
    s->t1 = t1;
    return true;
}

uint64_t dfn_store_calls_us(const dfn_store *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n; i++) sum = dfn_sat_add(sum, dfn_store_dur(s, i));
    return sum;
}

bool dfn_hashdef_read(const uint8_t *p, const uint8_t *end, dfn_hashdef *d)
{
    uint64_t hl, nl;
    if (!p || p >= end) return false;
    size_t k = dfn_varint_get(p + 1, end, &hl);
    if (!k || hl > (size_t)(end - p - 1 - k)) return false;
    size_t keylen = 1 + k + (size_t)hl;
    size_t k2 = dfn_varint_get(p + keylen, end, &nl);
    if (!k2 || nl > (size_t)(end - p - keylen - k2)) return false;
    *d = (dfn_hashdef){ (char)*p, p, keylen, keylen + k2 + (size_t)nl, (const char *)p + 1 + k,
                        (const char *)p + keylen + k2, (size_t)hl, (size_t)nl };
    return true;
}

const char *dfn_store_label(dfn_store *s, const char *text)
{
    if (!s->labels) s->labels = dfn_strtab_new();
    return dfn_strtab_str(s->labels, dfn_strtab_intern(s->labels, text, strlen(text)));
}

void dfn_srcinfo_free(dfn_srcinfo *si)
{
    dfn_srcmore *m = si->more;
    if (!m) return;
    free(m->error);
    free(m->cfg);
    free(m->app);
    for (size_t k = 0; k < m->nbad; k++) free(m->bad_reason[k]);
    free(m->bad_lines);
    free(m->bad_reason);
    free(m->other_ph);
    free(m);
    si->more = NULL;
}

void dfn_store_free(dfn_store *s)
{
    if (!s) return;
    dfn_store_saved(s);   /* its image is written from it */
    free(s->save_note);
    if (s->map) {   /* the mapping's columns are not the heap's */
        s->ts_base = s->ts_reach = s->args_idx = NULL;
        s->ts.v = s->dur.v = s->bytes.v = s->cnt.v = s->durmax.v = NULL;
        s->lane = s->kind = s->file = (dfn_ids){ NULL, NULL };
        s->args = NULL;
        munmap(s->map, s->map_len);
    }
    free(s->cache_note);
    dfn_rebuild_free(s->rebuild);
    free(s->ts_base);
    free(s->ts_reach);
    dfn_col32_free(&s->ts);
    dfn_col32_free(&s->dur);
    dfn_col32_free(&s->bytes);
    dfn_col32_free(&s->cnt);
    dfn_col32_free(&s->durmax);
    free(s->samples);
    free(s->series);
    dfn_ids_free(&s->lane);
    dfn_ids_free(&s->kind);
    dfn_ids_free(&s->file);
    free(s->evsrc);
    free(s->args);
    free(s->args_idx);
    dfn_strtab_free(s->strs);
    free(s->lanes);
    free(s->lane_names);
    free(s->kinds);
    free(s->files);
    for (size_t i = 0; i < s->nschemas; i++) { free(s->schema_keys[i]); free(s->schema_types[i]); }
    free(s->schema_keys);
    free(s->schema_types);
    free(s->schema_len);
    free(s->schema_nval);
    for (size_t i = 0; i < s->nsrc; i++) dfn_srcinfo_free(&s->src[i]);
    free(s->src);
    free(s->paths);
    free(s->hashdefs);
    free(s->foreign_meta);
    dfn_strtab_free(s->labels);
    free(s);
}

void dfn_store_lane_names_set(dfn_store *s, size_t i, uint32_t pname, uint32_t tname, size_t *cap)
{
    if (!s->lane_names && pname == DFN_NOID && tname == DFN_NOID) return;
    size_t was = *cap;   /* 0 while there is no table */
    dfn_grow((void **)&s->lane_names, cap, i + 1, 2 * sizeof *s->lane_names);
    for (size_t k = 2 * was; k < 2 * *cap; k++) s->lane_names[k] = DFN_NOID;
    s->lane_names[2 * i] = pname;
    s->lane_names[2 * i + 1] = tname;
}

size_t dfn_store_procs(const dfn_store *s, uint32_t **out)
{
    /* threads of one (host, pid) are one process: a forked worker's time
     * belongs to the process whose pid it writes under */
    uint32_t *map = dfn_xmalloc((s->nlanes ? s->nlanes : 1) * sizeof *map);
    dfn_strtab *procs = dfn_strtab_new();
    for (size_t i = 0; i < s->nlanes; i++) {
        char key[12];
        memcpy(key, &s->lanes[i].host, 4);
        memcpy(key + 4, &s->lanes[i].pid, 8);
        map[i] = dfn_strtab_intern(procs, key, 12);
    }
    size_t n = dfn_strtab_count(procs);
    dfn_strtab_free(procs);
    *out = map;
    return n;
}

void dfn_arg_resolve(const dfn_store *s, const char *name, uint32_t *key, const char **path)
{
    *path = NULL;
    *key = dfn_strtab_find(s->strs, name, strlen(name));
    if (*key != UINT32_MAX) return;
    /* the longest top-level name that is an argument, then the path in it */
    for (const char *dot = strrchr(name, '.'); dot && dot > name; ) {
        uint32_t k = dfn_strtab_find(s->strs, name, (size_t)(dot - name));
        if (k != UINT32_MAX && dot[1]) { *key = k; *path = dot + 1; return; }
        const char *prev = dot - 1;
        while (prev > name && *prev != '.') prev--;
        dot = *prev == '.' ? prev : NULL;
    }
}

bool dfn_arg_nested_text(const dfn_store *s, uint32_t raw, const char *path, const char **out, size_t *len)
{
    dfn_jsonval v;
    if (!dfn_json_get(dfn_store_str(s, raw), dfn_strtab_len(s->strs, raw), path, strlen(path), &v)) return false;
    *out = v.s;
    *len = v.len;
    return true;
}

const char *dfn_id_name(const dfn_store *s, int64_t v)
{
    uint32_t id = (uint32_t)(v - DFN_ID_NAMED_BASE);
    return id < dfn_strtab_count(s->strs) ? dfn_store_str(s, id) : "?";
}

size_t dfn_id_text(const dfn_store *s, int64_t v, char *buf, size_t cap)
{
    int n = dfn_id_named(v) ? snprintf(buf, cap, "%s", dfn_id_name(s, v)) : snprintf(buf, cap, "%" PRId64, v);
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

char *dfn_id_dup(const dfn_store *s, int64_t v)
{
    return dfn_id_named(v) ? dfn_xstrdup(dfn_id_name(s, v)) : dfn_xasprintf("%" PRId64, v);
}

int dfn_id_order(int64_t a, const char *name_a, int64_t b, const char *name_b)
{
    bool na = dfn_id_named(a), nb = dfn_id_named(b);
    if (na != nb) return na ? 1 : -1;
    if (!na) return a < b ? -1 : a > b;
    return strcmp(name_a, name_b);
}

int dfn_id_cmp(const dfn_store *sa, int64_t a, const dfn_store *sb, int64_t b)
{
    if (!dfn_id_named(a) || !dfn_id_named(b) || (a == b && sa == sb)) return dfn_id_order(a, "", b, "");
    return dfn_id_order(a, dfn_id_name(sa, a), b, dfn_id_name(sb, b));
}

