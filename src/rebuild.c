/* Rebuilding: what a load keeps for its image so that later loads can
 * take files from it (dfn_rebuild_begin/end), and giving those files back
 * as chunks in a new load's ids (dfn_rebuild_chunks). A file comes back
 * as the one chunk of all its events, in store order (which is its
 * blocks' order by start time, ties in line order): merged with the
 * other files' chunks it lands where the parse put it. A file comes back
 * only when that is exact: read in µs (the store keeps µs), without B/E
 * pairs (paired at the build), and with no lane, kind or file shared in a
 * way the store no longer tells apart; any other file is parsed. */
#include "rebuild.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

void dfn_rebuild_free(dfn_rebuild *r)
{
    if (!r) return;
    free(r->era); free(r->version); free(r->reusable);
    free(r->lanes); free(r->kinds); free(r->files);
    if (r->hashes) dfn_strtab_free(r->hashes);
    free(r->meta); free(r->meta_src);
    free(r->cs); free(r->cs_src);
    free(r->ref_src);
    free(r);
}

/* ---- capture ---- */

/* Which file each load-time lane's events come from; a file with a lane
 * of several files cannot be told apart from them in the store. */
static uint32_t *lane_sources(dfn_chunk *const *chunks, size_t nchunks, size_t nrefs, uint8_t *reusable)
{
    /* not yet seen must differ from DFN_RB_MANY: a third file on a shared
     * lane once took it for its own and was given back with the others' events */
    const uint32_t unseen = DFN_RB_MANY - 1;
    uint32_t *src = dfn_xmalloc((nrefs ? nrefs : 1) * sizeof *src);
    for (size_t r = 0; r < (nrefs ? nrefs : 1); r++) src[r] = unseen;
    for (size_t k = 0; k < nchunks; k++) {
        const dfn_chunk *c = chunks[k];
        for (size_t j = 0; c && j < c->n; j++) {
            uint32_t r = dfn_idcol_get(&c->lane, j), f = c->srcs ? c->srcs[j] : c->src;
            if (r >= nrefs || src[r] == f) continue;
            if (src[r] == unseen) { src[r] = f; continue; }
            if (src[r] != DFN_RB_MANY) reusable[src[r]] = 0;
            reusable[f] = 0;
            src[r] = DFN_RB_MANY;
        }
    }
    for (size_t r = 0; r < nrefs; r++) if (src[r] == unseen) src[r] = DFN_RB_MANY;
    return src;
}

/* Metadata and samples, with each file's line numbers counted from its
 * start (a chunk's are its block's). */
static void capture_records(dfn_rebuild *r, dfn_chunk *const *chunks, size_t nchunks)
{
    size_t nm = 0, ns = 0;
    for (size_t k = 0; k < nchunks; k++) { nm += chunks[k]->nmeta; ns += chunks[k]->ncs; }
    r->meta = dfn_xmalloc((nm ? nm : 1) * sizeof *r->meta);
    r->meta_src = dfn_xmalloc((nm ? nm : 1) * sizeof *r->meta_src);
    r->cs = dfn_xmalloc((ns ? ns : 1) * sizeof *r->cs);
    r->cs_src = dfn_xmalloc((ns ? ns : 1) * sizeof *r->cs_src);
    uint32_t src = UINT32_MAX;
    uint64_t line0 = 0;
    for (size_t k = 0; k < nchunks; k++) {
        const dfn_chunk *c = chunks[k];
        if (c->src != src) { src = c->src; line0 = 0; }
        for (size_t j = 0; j < c->nmeta; j++) {
            r->meta[r->nmeta] = c->meta[j];
            r->meta[r->nmeta].line += line0;
            r->meta_src[r->nmeta++] = c->src;
        }
        for (size_t j = 0; j < c->ncs; j++) {
            r->cs[r->ncs] = c->cs[j];
            r->cs_src[r->ncs++] = c->src;
        }
        line0 += c->info.lines;
    }
}

dfn_rebuild *dfn_rebuild_begin(dfn_chunk *const *chunks, size_t nchunks, size_t nsrc, const dfn_unit *unit,
                               size_t nlane_refs)
{
    dfn_rebuild *r = dfn_xcalloc(1, sizeof *r);
    r->nsrc = nsrc;
    r->era = dfn_xcalloc(nsrc ? nsrc : 1, sizeof *r->era);
    r->version = dfn_xcalloc(nsrc ? nsrc : 1, sizeof *r->version);
    r->reusable = dfn_xcalloc(nsrc ? nsrc : 1, 1);
    for (size_t f = 0; f < nsrc; f++) r->reusable[f] = unit[f] == DFN_UNIT_US;
    for (size_t k = 0; k < nchunks; k++) {
        const dfn_chunk *c = chunks[k];
        for (size_t i = 0; i < c->npf; i++) {   /* a pack's files */
            r->era[c->pf[i].src] |= c->pf[i].era;
            if (c->pf[i].version && !r->version[c->pf[i].src]) r->version[c->pf[i].src] = c->pf[i].version;
        }
        r->era[c->src] |= c->era;
        if (c->version && !r->version[c->src]) r->version[c->src] = c->version;
        if ((c->begins && c->begins->n) || c->nends) r->reusable[c->src] = 0;
    }
    r->ref_src = lane_sources(chunks, nchunks, nlane_refs, r->reusable);
    r->nref_src = nlane_refs;
    capture_records(r, chunks, nchunks);
    return r;
}

/* inv[id] = the one ref that became store id id, or collapsed. */
static void invert(const uint32_t *map, size_t nrefs, uint32_t ref_bits, uint32_t *inv, bool *collapsed, size_t nids)
{
    for (size_t ref = 0; ref < nrefs; ref++) {
        uint32_t id = map[ref];
        if (id == DFN_NOID || id >= nids) continue;
        if (inv[id] == DFN_NOID) inv[id] = (uint32_t)ref | ref_bits;
        else collapsed[id] = true;
    }
}

/* The one load-time ref of each of nids store ids (inv), collapsed when
 * several refs became one id or none did. */
static void inverse(const uint32_t *map, size_t nrefs, uint32_t *inv, bool *collapsed, size_t nids)
{
    memset(inv, 0xff, (nids ? nids : 1) * sizeof *inv);
    memset(collapsed, 0, nids ? nids : 1);
    invert(map, nrefs, 0, inv, collapsed, nids);
    for (size_t i = 0; i < nids; i++) collapsed[i] |= inv[i] == DFN_NOID;
}

static void rebuild_lanes(dfn_rebuild *r, const dfn_loadctx *ctx, const uint32_t *inv, const bool *col, size_t nl)
{
    r->nlanes = nl;
    r->lanes = dfn_xcalloc(nl ? nl : 1, sizeof *r->lanes);
    for (size_t i = 0; i < nl; i++) {
        dfn_rb_lane *x = &r->lanes[i];
        x->collapsed = col[i];
        x->src = DFN_RB_MANY;
        if (x->collapsed) continue;
        const char *key = dfn_strtab_str(ctx->lanes, inv[i]);
        memcpy(&x->host, key, 4); memcpy(&x->pid, key + 4, 8); memcpy(&x->tid, key + 12, 8);
        x->src = inv[i] < r->nref_src ? r->ref_src[inv[i]] : DFN_RB_MANY;
    }
}

static void rebuild_kinds(dfn_rebuild *r, const dfn_loadctx *ctx, const uint32_t *inv, const bool *col, size_t nk)
{
    r->nkinds = nk;
    r->kinds = dfn_xcalloc(nk ? nk : 1, sizeof *r->kinds);
    for (size_t i = 0; i < nk; i++) {
        dfn_rb_kind *x = &r->kinds[i];
        x->collapsed = col[i];
        if (x->collapsed) continue;
        const char *key = dfn_strtab_str(ctx->kinds, inv[i]);
        memcpy(&x->cat, key, 4); memcpy(&x->func, key + 4, 4);
        x->type = (uint8_t)key[8];
    }
}

void dfn_rebuild_end(dfn_rebuild *r, dfn_loadctx *ctx, const dfn_rebuild_maps *m)
{
    size_t nl = m->lanes, nk = m->kinds, nf = m->files, big = nl > nk ? nl : nk;
    big = big > nf ? big : nf;
    uint32_t *inv = dfn_xmalloc((big ? big : 1) * sizeof *inv);
    bool *col = dfn_xmalloc(big ? big : 1);
    inverse(m->lane, m->nlane, inv, col, nl);
    rebuild_lanes(r, ctx, inv, col, nl);
    /* a lane several refs became (one host named two ways) belongs to no
     * file, so its events could not come back with theirs */
    for (size_t ref = 0; ref < m->nlane && ref < r->nref_src; ref++) {
        uint32_t id = m->lane[ref], f = r->ref_src[ref];
        if (id != DFN_NOID && id < nl && col[id] && f < r->nsrc) r->reusable[f] = 0;
    }
    inverse(m->kind, m->nkind, inv, col, nk);
    rebuild_kinds(r, ctx, inv, col, nk);
    /* files: string refs and hash refs both name them */
    memset(inv, 0xff, (nf ? nf : 1) * sizeof *inv);
    memset(col, 0, nf ? nf : 1);
    invert(m->strfile, m->nstr, 0, inv, col, nf);
    invert(m->hashfile, m->nhash, DFN_REF_HASH, inv, col, nf);
    r->nfiles = nf;
    r->files = dfn_xcalloc(nf ? nf : 1, sizeof *r->files);
    for (size_t i = 0; i < nf; i++) {
        /* file 0 is "no file": DFN_REF_NONE */
        r->files[i].collapsed = i > 0 && (col[i] || inv[i] == DFN_NOID);
        r->files[i].ref = i == 0 ? DFN_REF_NONE : inv[i];
    }
    free(inv);
    free(col);
    free(r->ref_src);
    r->ref_src = NULL;
    r->hashes = ctx->hashes;   /* the store's image keeps the hash texts */
    ctx->hashes = NULL;
}

/* ---- giving files back ---- */

/* Image ids to the new load's refs, made on first use. */
typedef struct {
    const dfn_store *img;
    const dfn_rebuild *rb;
    dfn_loadctx *ctx;
    uint32_t *str, *hash, *lane, *kind, *file, *schema;
    uint32_t nstr, nhash;
    bool bad;                 /* an id out of range: the file is parsed instead */
} xlate;

static uint32_t xl_str(xlate *x, uint32_t id)
{
    if (id >= x->nstr) { x->bad = true; return 0; }
    if (x->str[id] == DFN_NOID)
        x->str[id] = dfn_strtab_intern(x->ctx->strs, dfn_strtab_str(x->img->strs, id), dfn_strtab_len(x->img->strs, id));
    return x->str[id];
}

static uint32_t xl_hash(xlate *x, uint32_t h)
{
    if (h >= x->nhash) { x->bad = true; return 0; }
    if (x->hash[h] == DFN_NOID)
        x->hash[h] = dfn_strtab_intern(x->ctx->hashes, dfn_strtab_str(x->rb->hashes, h), dfn_strtab_len(x->rb->hashes, h));
    return x->hash[h];
}

/* A name ref: none, a hash, or a string. */
static uint32_t xl_ref(xlate *x, uint32_t ref)
{
    if (ref == DFN_REF_NONE) return ref;
    if (ref & DFN_REF_HASH) return DFN_REF_HASH | xl_hash(x, ref & ~DFN_REF_HASH);
    return xl_str(x, ref);
}

/* A pid or tid: a number, or a name's string id past DFN_ID_NAMED_BASE. */
static int64_t xl_id(xlate *x, int64_t v)
{
    if (!dfn_id_named(v)) return v;
    return DFN_ID_NAMED_BASE + (int64_t)xl_str(x, (uint32_t)(v - DFN_ID_NAMED_BASE));
}

static uint32_t xl_lane(xlate *x, uint32_t id)
{
    if (x->lane[id] != DFN_NOID) return x->lane[id];
    const dfn_rb_lane *l = &x->rb->lanes[id];
    uint32_t host = xl_ref(x, l->host);
    int64_t pid = xl_id(x, l->pid), tid = xl_id(x, l->tid);
    uint8_t key[20];
    memcpy(key, &host, 4); memcpy(key + 4, &pid, 8); memcpy(key + 12, &tid, 8);
    return x->lane[id] = dfn_strtab_intern(x->ctx->lanes, (const char *)key, sizeof key);
}

static uint32_t xl_kind(xlate *x, uint32_t id)
{
    if (x->kind[id] != DFN_NOID) return x->kind[id];
    const dfn_rb_kind *k = &x->rb->kinds[id];
    uint32_t cat = xl_str(x, k->cat), func = xl_str(x, k->func);
    uint8_t key[DFN_KIND_KEY];
    memcpy(key, &cat, 4); memcpy(key + 4, &func, 4);
    key[8] = k->type;
    return x->kind[id] = dfn_strtab_intern(x->ctx->kinds, (const char *)key, sizeof key);
}

static uint32_t xl_file(xlate *x, uint32_t id)
{
    if (x->file[id] == DFN_NOID) x->file[id] = xl_ref(x, x->rb->files[id].ref);
    return x->file[id];
}

static uint32_t xl_schema(xlate *x, uint32_t sid)
{
    if (x->schema[sid] != DFN_NOID) return x->schema[sid];
    size_t n = x->img->schema_len[sid];
    uint8_t bytes[DFN_ARGS_MAX * 5];
    for (size_t j = 0; j < n && j < DFN_ARGS_MAX; j++) {
        uint32_t key = xl_str(x, x->img->schema_keys[sid][j]);
        memcpy(bytes + j * 5, &key, 4);
        bytes[j * 5 + 4] = x->img->schema_types[sid][j];
    }
    return x->schema[sid] = dfn_strtab_intern(x->ctx->schemas, (const char *)bytes, n * 5);
}

/* Rewrites the argument record at rec (ending before end) into out (room
 * for its length plus 10 bytes); returns the bytes written. */
static size_t xl_record(xlate *x, const uint8_t *rec, const uint8_t *end, uint8_t *out)
{
    uint64_t sid, v;
    size_t k = dfn_varint_get(rec, end, &sid), w;
    if (!k || sid >= x->img->nschemas) { x->bad = true; return 0; }
    rec += k;
    w = dfn_varint_put(out, xl_schema(x, (uint32_t)sid));
    for (size_t j = 0; j < x->img->schema_len[sid]; j++) {
        uint8_t type = x->img->schema_types[sid][j];
        if (!dfn_argtype_valued(type)) continue;   /* none, or the one before's (DFN_ARG_SAME) */
        k = dfn_varint_get(rec, end, &v);
        if (!k) { x->bad = true; return w; }
        rec += k;
        if (type == DFN_ARG_STR || type == DFN_ARG_RAW) {
            if (v > UINT32_MAX) { x->bad = true; return w; }
            v = xl_str(x, (uint32_t)v);
        }
        w += dfn_varint_put(out + w, v);
    }
    return w;
}

/* What the file's parse counted, from its source's figures. */
static void file_info(const dfn_srcinfo *si, dfn_blockinfo *bi)
{
    const dfn_srcmore *m = dfn_src_more(si);
    *bi = (dfn_blockinfo){ .lines = si->lines, .events = si->events, .metadata = si->metadata,
                           .malformed = si->malformed, .counters = m->counters, .other = m->other,
                           .skipped = si->skipped, .agg_records = m->agg_records, .agg_calls = m->agg_calls,
                           .unit = (uint8_t)(si->unit_declared ? si->unit : 0), .unit_unknown = m->unit_unknown };
    if (m->other_ph) memcpy(dfn_phcount_room(&bi->other_ph), m->other_ph, DFN_PH_KINDS * sizeof *m->other_ph);
    bi->cfg = m->cfg ? dfn_xstrdup(m->cfg) : NULL;
    bi->app = m->app ? dfn_xstrdup(m->app) : NULL;
}

/* The file's metadata, samples and damaged lines, in the new ids. */
static void file_records(xlate *x, uint32_t k, dfn_strtab *reasons, dfn_batch *b)
{
    const dfn_rebuild *rb = x->rb;
    const dfn_srcinfo *si = &x->img->src[k];
    const dfn_srcmore *more = dfn_src_more(si);
    for (size_t j = 0; j < rb->nmeta; j++) {
        if (rb->meta_src[j] != k) continue;
        dfn_meta m = rb->meta[j];
        bool hashed = m.type == DFN_META_HH || m.type == DFN_META_FH || m.type == DFN_META_SH;
        m.hash_ref = hashed ? xl_hash(x, m.hash_ref) : xl_ref(x, m.hash_ref);
        m.name = xl_str(x, m.name);
        m.pid = xl_id(x, m.pid);
        m.tid = xl_id(x, m.tid);
        dfn_grow((void **)&b->meta, &b->metacap, b->nmeta + 1, sizeof *b->meta);
        b->meta[b->nmeta++] = m;
    }
    for (size_t j = 0; j < rb->ncs; j++) {
        if (rb->cs_src[j] != k) continue;
        dfn_csample c = rb->cs[j];
        c.host = xl_ref(x, c.host);
        c.pid = xl_id(x, c.pid);
        c.name = xl_str(x, c.name);
        c.key = xl_str(x, c.key);
        dfn_grow((void **)&b->cs, &b->cscap, b->ncs + 1, sizeof *b->cs);
        b->cs[b->ncs++] = c;
    }
    for (size_t j = 0; j < more->nbad; j++) {
        const char *r = more->bad_reason[j];
        uint32_t id = dfn_strtab_intern(reasons, r, strlen(r));
        b->bad[b->nbad++] = (dfn_badline){ more->bad_lines[j], dfn_strtab_str(reasons, id) };
    }
    file_info(si, &b->info);
    b->era = rb->era[k];
    b->version = rb->version[k];
}

/* A file's chunk while the events are written into it. */
typedef struct {
    dfn_chunk *c;
    size_t j;                 /* events written */
    size_t args_cap;
    uint64_t max_end;
    bool failed;              /* an event the store cannot give back as parsed */
} out_file;

/* Event i of the image as event o->j of its file's chunk; rec is its
 * argument record (ending before end). */
static void put_event(xlate *x, out_file *o, size_t i, const uint8_t *rec, const uint8_t *end)
{
    const dfn_store *s = x->img;
    dfn_chunk *c = o->c;
    size_t j = o->j++;
    uint64_t ts = s->t0 + dfn_store_ts(s, i), dur = dfn_store_dur(s, i);
    if (j == 0) c->ts_base = c->min_ts = ts;   /* the store is in start order */
    dfn_col32_set(&c->ts, j, ts - c->ts_base);
    dfn_col32_set(&c->dur, j, dur);
    dfn_col32_set(&c->bytes, j, dfn_store_bytes(s, i));
    if (c->cnt.v) {
        dfn_col32_set(&c->cnt, j, s->cnt.v ? dfn_col32_get(&s->cnt, i) : 0);
        dfn_col32_set(&c->durmax, j, s->durmax.v ? dfn_col32_get(&s->durmax, i) : 0);
    }
    if (ts + dur > o->max_end) o->max_end = ts + dur;
    c->lane.ids[j] = xl_lane(x, dfn_store_lane(s, i));   /* dfn_chunk_alloc's: an id per event */
    c->kind.ids[j] = xl_kind(x, dfn_store_kind(s, i));
    c->file.ids[j] = xl_file(x, dfn_store_file(s, i));
    uint64_t sid;
    size_t room = dfn_varint_get(rec, end, &sid) && sid < s->nschemas ? 10 * (1 + (size_t)s->schema_len[sid]) : 10;
    dfn_grow((void **)&c->args_own, &o->args_cap, c->args_len + room + DFN_RECORD_SLACK, 1);
    if ((j & ((1u << DFN_ARGS_INDEX_SHIFT) - 1)) == 0) c->args_idx[j >> DFN_ARGS_INDEX_SHIFT] = c->args_len;
    size_t w = xl_record(x, rec, end, c->args_own + c->args_len);
    c->args_size[j] = w < 255 ? (uint8_t)w : 0;
    c->args_len += w;
}

/* The wanted files' events, in store order (which is each file's
 * blocks' order by start time): one pass over the image. */
static void put_events(xlate *x, const dfn_rebuild *rb, out_file *out)
{
    const dfn_store *s = x->img;
    const uint8_t *p = s->args, *end = s->args + s->args_len;
    for (size_t i = 0; i < s->n; i++) {
        const uint8_t *rec = p;
        p = dfn_store_record_end(s, p, end);
        uint32_t k = rb->lanes[dfn_store_lane(s, i)].src;
        if (k >= rb->nsrc || !out[k].c || out[k].failed) continue;
        x->bad = false;
        put_event(x, &out[k], i, rec, end);
        out[k].failed = x->bad;
    }
}

/* Sets each wanted file's chunk up for its events; a file with an event
 * of a lane, kind or file the store folded is not taken. */
static void out_files(const dfn_store *s, const dfn_rebuild *rb, const uint8_t *take, const uint32_t *want, out_file *out)
{
    size_t *count = dfn_xcalloc(rb->nsrc ? rb->nsrc : 1, sizeof *count);
    bool *folded = dfn_xcalloc(rb->nsrc ? rb->nsrc : 1, sizeof *folded);
    for (size_t i = 0; i < s->n; i++) {
        uint32_t k = rb->lanes[dfn_store_lane(s, i)].src;
        if (k >= rb->nsrc || !take[k]) continue;
        count[k]++;
        folded[k] |= rb->lanes[dfn_store_lane(s, i)].collapsed || rb->kinds[dfn_store_kind(s, i)].collapsed || rb->files[dfn_store_file(s, i)].collapsed;
    }
    for (size_t k = 0; k < rb->nsrc; k++) {
        out[k] = (out_file){ 0 };
        if (take[k] && !folded[k] && count[k] <= UINT32_MAX)
            out[k].c = dfn_chunk_alloc(want[k], 0, count[k], 0, dfn_src_more(&s->src[k])->agg_records > 0);
    }
    free(count);
    free(folded);
}

/* The file's chunk made whole: its records, extent and other records. */
static void out_finish(xlate *x, uint32_t k, dfn_strtab *reasons, out_file *o)
{
    dfn_chunk *c = o->c;
    size_t n = c->n;
    if ((n & ((1u << DFN_ARGS_INDEX_SHIFT) - 1)) == 0 && n) c->args_idx[n >> DFN_ARGS_INDEX_SHIFT] = c->args_len;
    if (!c->args_own) dfn_grow((void **)&c->args_own, &o->args_cap, DFN_RECORD_SLACK, 1);
    c->args = c->args_own;
    if (!n) c->min_ts = UINT64_MAX;
    c->max_end = o->max_end;
    dfn_batch b = { 0 };
    x->bad = false;
    file_records(x, k, reasons, &b);
    o->failed |= x->bad;
    c->meta = b.meta; c->nmeta = b.nmeta;
    c->cs = b.cs; c->ncs = b.ncs;
    c->bad = dfn_xmemdup(b.bad, b.nbad, sizeof *b.bad);
    c->nbad = b.nbad;
    c->info = b.info;
    c->era = b.era;
    c->version = b.version;
    b.meta = NULL; b.cs = NULL; b.info.cfg = b.info.app = NULL; b.info.other_ph = NULL;
    dfn_batch_free(&b);
}

static uint32_t *ids_new(size_t n)
{
    uint32_t *m = dfn_xmalloc((n ? n : 1) * sizeof *m);
    memset(m, 0xff, (n ? n : 1) * sizeof *m);
    return m;
}

size_t dfn_rebuild_chunks(const dfn_store *img, const dfn_rebuild *rb, const uint32_t *want, dfn_loadctx *ctx,
                          dfn_strtab **reasons, dfn_chunk **out)
{
    uint8_t *take = dfn_xcalloc(rb->nsrc ? rb->nsrc : 1, 1);
    size_t ntake = 0, made = 0;
    for (size_t k = 0; k < rb->nsrc; k++) {
        out[k] = NULL;
        take[k] = want[k] != UINT32_MAX && rb->reusable[k];
        ntake += take[k];
    }
    if (!ntake) { free(take); return 0; }
    if (!*reasons) *reasons = dfn_strtab_new();
    xlate x = { .img = img, .rb = rb, .ctx = ctx, .nstr = dfn_strtab_count(img->strs),
                .nhash = dfn_strtab_count(rb->hashes) };
    x.str = ids_new(x.nstr); x.hash = ids_new(x.nhash); x.lane = ids_new(img->nlanes);
    x.kind = ids_new(img->nkinds); x.file = ids_new(img->nfiles); x.schema = ids_new(img->nschemas);
    out_file *of = dfn_xcalloc(rb->nsrc ? rb->nsrc : 1, sizeof *of);
    out_files(img, rb, take, want, of);
    pthread_mutex_lock(&ctx->lock);
    put_events(&x, rb, of);
    for (size_t k = 0; k < rb->nsrc; k++) {
        if (!of[k].c) continue;
        if (!of[k].failed) out_finish(&x, (uint32_t)k, *reasons, &of[k]);
        if (of[k].failed) { dfn_chunk_free(of[k].c); continue; }
        out[k] = of[k].c;
        made++;
    }
    pthread_mutex_unlock(&ctx->lock);
    free(x.str); free(x.hash); free(x.lane); free(x.kind); free(x.file); free(x.schema);
    free(of);
    free(take);
    return made;
}
