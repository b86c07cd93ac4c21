/* The loader: reader threads turn files into blocks of whole lines, parser
 * threads turn blocks into sorted compact chunks, and the builder merges
 * the chunks by start time into the store, resolving hashed names through
 * the metadata of the whole set. Every id the store hands out is assigned
 * in merge order, and chunks merge in (file, block) order on ties, so the
 * store is the same for any thread count. */
#include "dfnav/loader.h"
#include "dfnav/cache.h"
#include "dfnav/reader.h"
#include "dfnav/pathinfo.h"
#include "dfnav/util.h"
#include "load.h"
#include "rebuild.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The stack a thread gets (glibc's default, from ulimit -s): what a
 * thread that cannot start could not have. */
#define THREAD_STACK ((size_t)8 << 20)

typedef struct {
    uint32_t src;
    uint64_t seq;
    bool whole;               /* the file's only block */
    dfn_block blk;
} queued_block;

/* What few files have: kept apart so that a set of many small files
 * pays 24 bytes a file for its src_state, not 40. */
typedef struct {
    char *error;
    uint64_t long_lines;
} src_rare;

typedef struct {
    uint64_t size;
    src_rare *rare;           /* NULL while it has neither (see src_rare_of) */
    bool gzip;
    bool transient;           /* it could not be opened or read: no image stands for it */
    bool reused;              /* its chunk came from an image in the cache: not read */
} src_state;

/* A file's rarer state, made on first use (by the one thread reading it). */
static src_rare *src_rare_of(src_state *st)
{
    if (!st->rare) st->rare = dfn_xcalloc(1, sizeof *st->rare);
    return st->rare;
}

static void src_error(src_state *st, const char *msg)
{
    src_rare *r = src_rare_of(st);
    free(r->error);
    r->error = dfn_xstrdup(msg);
}

struct dfn_loader {
    char **files; size_t nfiles;   /* one block (dfn_strv_block) */
    bool paths_given;         /* files is the final store's (its paths) */
    dfn_load_opts opts;
    int nreaders, nparsers;
    dfn_chunkmem *mem;        /* where the parsers' chunks live (chunkmem.h) */
    pthread_t coordinator;

    pthread_mutex_t qlock;
    pthread_cond_t qnotempty, qnotfull;
    queued_block *queue; size_t qcap, qhead, qcount;
    dfn_blockpool *pool;      /* the blocks' buffers, for the next blocks (NULL: none) */
    int readers_left;

    atomic_size_t next_file;
    atomic_uint_fast64_t bytes_done, events, files_done;
    atomic_bool cancel, building, done;
    uint64_t bytes_total;
    uint64_t unsized;         /* inputs of no known size */
    double t_start, t_end;

    src_state *src;
    pthread_mutex_t clock;   /* guards chunks and pack */
    dfn_chunk **chunks; size_t nchunks, chunkcap;
    dfn_pack pack;            /* whole small files not yet in a chunk */

    dfn_loadctx ctx;
    dfn_store *store;

    /* the cache: the files as they were when the load began (ids NULL
     * when the set cannot be cached: a pipe, a missing file) */
    dfn_fileid *ids;          /* zeros for a file without one (a pipe) */
    bool all_ids;             /* every file has one: the set may have an image */
    atomic_bool cached;
    atomic_uint_fast64_t reused;   /* files given back by images of other sets */
    dfn_strtab *reasons;      /* the bad-line reasons of files given back */
    pthread_mutex_t snap_lock;   /* a snapshot reads the chunks the final build frees */
    uint8_t *prescaled;       /* files read again into µs (loader_prescale), or NULL */
};

/* What one build reads: the final one consumes the loader's chunks and
 * tables, a snapshot copies the tables and leaves the chunks alone. */
typedef struct {
    dfn_chunk **chunks;
    size_t nchunks;
    dfn_loadctx *ctx;
    bool keep;
    dfn_unit *unit;           /* per file: the unit its ts and dur are in (set by the build) */
    /* the merge's tie order, by file then block: each chunk's rank, and
     * each packed file's (see merge_ranks) */
    uint32_t *rank, *file_rank;
} build_in;

/* A value of a chunk's file in µs. */
static inline uint64_t chunk_us(const build_in *in, const dfn_chunk *c, uint64_t v)
{
    return dfn_unit_us(in->unit[c->src], v);
}

/* The start of a chunk's event j in µs. */
static inline uint64_t chunk_ts(const build_in *in, const dfn_chunk *c, size_t j)
{
    return chunk_us(in, c, c->ts_base + dfn_col32_get(&c->ts, j));
}

/* ---- reader threads ---- */

static void queue_push(dfn_loader *l, queued_block *qb)
{
    pthread_mutex_lock(&l->qlock);
    while (l->qcount == l->qcap && !atomic_load(&l->cancel)) pthread_cond_wait(&l->qnotfull, &l->qlock);
    if (atomic_load(&l->cancel)) {
        pthread_mutex_unlock(&l->qlock);
        dfn_block_free(&qb->blk);
        return;
    }
    l->queue[(l->qhead + l->qcount) % l->qcap] = *qb;
    l->qcount++;
    pthread_cond_signal(&l->qnotempty);
    pthread_mutex_unlock(&l->qlock);
}

static bool queue_pop(dfn_loader *l, queued_block *out)
{
    pthread_mutex_lock(&l->qlock);
    while (l->qcount == 0 && l->readers_left > 0 && !atomic_load(&l->cancel))
        pthread_cond_wait(&l->qnotempty, &l->qlock);
    if (l->qcount == 0 || atomic_load(&l->cancel)) {
        pthread_mutex_unlock(&l->qlock);
        return false;
    }
    *out = l->queue[l->qhead];
    l->qhead = (l->qhead + 1) % l->qcap;
    l->qcount--;
    pthread_cond_signal(&l->qnotfull);
    pthread_mutex_unlock(&l->qlock);
    return true;
}

/* A tar archive (plain or inflated from gzip) starts with a header whose
 * magic "ustar" stands at byte 257. */
static bool is_tar(const dfn_block *b)
{
    return b->len >= 262 && memcmp(b->data + 257, "ustar", 5) == 0;
}

static void *reader_main(void *arg)
{
    dfn_loader *l = arg;
    for (;;) {
        size_t f = atomic_fetch_add(&l->next_file, 1);
        if (f >= l->nfiles || atomic_load(&l->cancel)) break;
        if (l->src[f].reused) continue;   /* an image gave its chunk */
        char err[512];
        dfn_reader *r = dfn_reader_open_pooled(l->files[f], l->opts.block_size, &l->cancel, l->pool, err, sizeof err);
        if (!r) {
            /* the reader names the file; the file's report does already */
            size_t pl = strlen(l->files[f]);
            bool named = strncmp(err, l->files[f], pl) == 0 && err[pl] == ':' && err[pl + 1] == ' ';
            src_error(&l->src[f], named ? err + pl + 2 : err);
            l->src[f].transient = true;
            atomic_fetch_add(&l->bytes_done, l->src[f].size);
            atomic_fetch_add(&l->files_done, 1);
            continue;
        }
        uint64_t seq = 0, last_in = 0;
        for (;;) {
            if (atomic_load(&l->cancel)) break;
            queued_block qb = { .src = (uint32_t)f, .seq = seq };
            int rc = dfn_reader_next(r, &qb.blk);
            uint64_t in = dfn_reader_bytes_in(r);
            atomic_fetch_add(&l->bytes_done, in - last_in);
            last_in = in;
            if (rc <= 0) {
                if (rc < 0) {
                    const char *m = dfn_reader_error(r);
                    src_error(&l->src[f], m ? m : "read error");
                    l->src[f].transient = !m || dfn_reader_os_error(r);
                }
                break;
            }
            if (seq == 0 && is_tar(&qb.blk)) {
                /* its headers and members would read as damaged text */
                src_error(&l->src[f], "a tar archive, not a trace: extract it (tar xf) and give its files or folder");
                dfn_block_free(&qb.blk);
                break;
            }
            qb.whole = seq == 0 && dfn_reader_ended(r);
            seq++;
            queue_push(l, &qb);
        }
        l->src[f].gzip = dfn_reader_compression(r) == DFN_COMP_GZIP;
        uint64_t long_lines = dfn_reader_long_lines(r);
        if (long_lines) src_rare_of(&l->src[f])->long_lines = long_lines;
        if (!l->src[f].size) l->src[f].size = dfn_reader_bytes_in(r);
        /* the stored size may differ from what was read (a growing file) */
        if (last_in < l->src[f].size) atomic_fetch_add(&l->bytes_done, l->src[f].size - last_in);
        dfn_reader_close(r);
        atomic_fetch_add(&l->files_done, 1);
    }
    pthread_mutex_lock(&l->qlock);
    l->readers_left--;
    pthread_cond_broadcast(&l->qnotempty);
    pthread_mutex_unlock(&l->qlock);
    return NULL;
}

/* ---- parser threads ---- */

/* Adds a chunk for the build; the caller holds clock. */
static void loader_add_chunk(dfn_loader *l, dfn_chunk *c)
{
    dfn_grow((void **)&l->chunks, &l->chunkcap, l->nchunks + 1, sizeof *l->chunks);
    l->chunks[l->nchunks++] = c;
}

/* Adds a whole small file to the pack; a full pack is sorted into a
 * chunk outside the lock (a snapshot meanwhile lacks its events, as it
 * lacks blocks still being parsed). */
static void loader_pack(dfn_loader *l, const dfn_batch *b, uint32_t src)
{
    dfn_pack full = { 0 };
    pthread_mutex_lock(&l->clock);
    dfn_pack_add(&l->pack, b, src);
    if (dfn_pack_full(&l->pack)) {
        full = l->pack;
        memset(&l->pack, 0, sizeof l->pack);
        l->pack.unit = full.unit;
    }
    pthread_mutex_unlock(&l->clock);
    if (!full.npf) return;
    dfn_chunk *c = dfn_pack_seal(&full);
    pthread_mutex_lock(&l->clock);
    loader_add_chunk(l, c);
    pthread_mutex_unlock(&l->clock);
}

/* The pack so far becomes a chunk; the caller holds clock. */
static void loader_seal(dfn_loader *l)
{
    dfn_chunk *c = dfn_pack_seal(&l->pack);
    if (c) loader_add_chunk(l, c);
}

static void *parser_main(void *arg)
{
    dfn_loader *l = arg;
    dfn_parser *p = dfn_parser_new(&l->ctx);
    dfn_batch b = {0};
    queued_block qb;
    while (queue_pop(l, &qb)) {
        dfn_parser_block(p, qb.blk.data, qb.blk.len, &b);
        dfn_block_free(&qb.blk);
        atomic_fetch_add(&l->events, b.info.events);
        if (!l->opts.no_pack && dfn_pack_fits(&b, qb.whole)) {
            loader_pack(l, &b, qb.src);
            continue;
        }
        dfn_chunk *c = dfn_chunk_from_batch(l->mem, &b, qb.src, qb.seq);
        pthread_mutex_lock(&l->clock);
        loader_add_chunk(l, c);
        pthread_mutex_unlock(&l->clock);
    }
    dfn_batch_free(&b);
    dfn_parser_free(p);
    return NULL;
}

/* The unit of each file as its chunks declare it (an end record's), NONE
 * where none does; loader_unit gives the rest theirs. */
static dfn_unit *chunk_units(const dfn_loader *l, dfn_chunk *const *chunks, size_t n)
{
    dfn_unit *unit = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *unit);
    for (size_t k = 0; k < n; k++)
        if (chunks[k] && chunks[k]->info.unit) unit[chunks[k]->src] = (dfn_unit)chunks[k]->info.unit;
    return unit;
}

/* A file's unit: what it declares, else the one the user gave, else µs. */
static dfn_unit loader_unit(const dfn_loader *l, dfn_unit declared)
{
    return declared ? declared : l->opts.time_unit ? l->opts.time_unit : DFN_UNIT_US;
}

/* ---- times with fractions of a ms or s ---- */

/* Reads file f again with its times read straight into µs (see
 * dfn_parser_prescale), and puts its chunks in place of the first
 * reading's; false, leaving them, when it cannot be read as it was read
 * (standard input, a file that changed or went). */
static bool loader_reparse(dfn_loader *l, size_t f, dfn_unit unit)
{
    const char *path = l->files[f];
    char err[512];
    dfn_fileid now;
    if (strcmp(path, "-") == 0 || (l->src[f].rare && l->src[f].rare->error) || !dfn_fileid_of(path, &now, err, sizeof err) ||
        (l->ids && !dfn_fileid_eq(&l->ids[f], &now)))
        return false;
    dfn_reader *r = dfn_reader_open_cancel(path, l->opts.block_size, &l->cancel, err, sizeof err);
    if (!r) return false;
    dfn_parser *p = dfn_parser_new(&l->ctx);
    dfn_parser_prescale(p, unit);
    dfn_batch b = { 0 };
    dfn_chunk **got = NULL;
    size_t n = 0, cap = 0;
    dfn_block blk;
    int rc;
    while ((rc = dfn_reader_next(r, &blk)) > 0) {
        dfn_parser_block(p, blk.data, blk.len, &b);
        dfn_block_free(&blk);
        dfn_grow((void **)&got, &cap, n + 1, sizeof *got);
        got[n] = dfn_chunk_from_batch(l->mem, &b, (uint32_t)f, n);
        n++;
    }
    dfn_batch_free(&b);
    dfn_parser_free(p);
    dfn_reader_close(r);
    if (rc < 0 || atomic_load(&l->cancel)) {
        for (size_t k = 0; k < n; k++) dfn_chunk_free(got[k]);
        free(got);
        return false;
    }
    size_t w = 0;
    for (size_t k = 0; k < l->nchunks; k++) {
        if (l->chunks[k]->src == f && !l->chunks[k]->srcs) dfn_chunk_free(l->chunks[k]);
        else l->chunks[w++] = l->chunks[k];
    }
    l->nchunks = w;
    for (size_t k = 0; k < n; k++) loader_add_chunk(l, got[k]);
    free(got);
    return true;
}

/* A file in ms or s whose times had fractions was read to the nearest
 * whole unit of them (the unit is known only at its end record, or from
 * --time-unit, after the parse): such files, rare, are read again with
 * the fractions kept, so that 1000.5 s is not 1001 s. Before the build;
 * the caller holds clock. */
static void loader_prescale(dfn_loader *l)
{
    uint64_t *frac = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *frac);
    bool any = false;
    for (size_t k = 0; k < l->nchunks; k++) {
        const dfn_chunk *c = l->chunks[k];
        if (c->srcs) continue;   /* packs: no file with fractions joins one */
        frac[c->src] += c->info.frac_times;
        any |= c->info.frac_times != 0;
    }
    dfn_unit *declared = any ? chunk_units(l, l->chunks, l->nchunks) : NULL;
    for (size_t f = 0; any && f < l->nfiles && !atomic_load(&l->cancel); f++) {
        dfn_unit u = loader_unit(l, declared[f]);
        if (!frac[f] || (u != DFN_UNIT_MS && u != DFN_UNIT_SEC) || !loader_reparse(l, f, u)) continue;
        if (!l->prescaled) l->prescaled = dfn_xcalloc(l->nfiles, 1);
        l->prescaled[f] = 1;
    }
    free(declared);
    free(frac);
}

/* ---- building the store ---- */

/* Chunks by file and block; packs, whose files have no other chunk, after
 * them (the merge orders their events by each one's file). */
static int chunk_order_cmp(const void *a, const void *b)
{
    const dfn_chunk *x = *(dfn_chunk *const *)a, *y = *(dfn_chunk *const *)b;
    if (!x->srcs != !y->srcs) return x->srcs ? 1 : -1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *era_label(dfn_store *s, unsigned era, uint32_t version)
{
    char buf[64];
    const char *fam =
        era & DFN_ERA_PH_NUM ? "newest" :
        era & DFN_ERA_HASH_HEX ? "v1.0.6-hex" :
        era & DFN_ERA_HASH_U64 ? "v1.0.7+" :
        era & DFN_ERA_HASH_SMALL ? "v1.0.5-hash16" :
        era & DFN_ERA_QUOTED ? "v0.0.2-v1.0.4" :
        (era & DFN_ERA_INLINE) && (era & DFN_ERA_NO_ID) ? "v0.0.1" :
        era & DFN_ERA_INLINE ? "v1.0.5" : "unknown";
    if (version)
        snprintf(buf, sizeof buf, "v%u.%u.%u", version / 100000, (version / 1000) % 100, version % 1000);
    else
        snprintf(buf, sizeof buf, "%s", fam);
    return dfn_store_label(s, buf);
}

/* A chunk as a merge part reads it. */
typedef struct {
    dfn_chunk *c;
    size_t pos, hi, order;
    const uint8_t *args;
} cursor;

/* The heap holds only what orders the cursors: the next start time, ties
 * by rank (file, then block), and which cursor it is. */
typedef struct {
    uint64_t ts;
    uint32_t order, cur;
} heap_key;

static inline bool key_less(const heap_key *a, const heap_key *b)
{
    return a->ts != b->ts ? a->ts < b->ts : a->order < b->order;
}

static int key_cmp(const void *a, const void *b)
{
    return key_less(a, b) ? -1 : key_less(b, a);
}

static void heap_down(heap_key *h, size_t n, size_t i)
{
    heap_key x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n) break;
        if (l + 1 < n && key_less(&h[l + 1], &h[l])) m = l + 1;
        if (!key_less(&h[m], &x)) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

static void heap_push(heap_key *h, size_t *n, heap_key x)
{
    size_t i = (*n)++;
    while (i && key_less(&x, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

/* Ids handed out in merge order; maps are indexed by the load-time refs. */
typedef struct {
    dfn_store *s;
    dfn_loadctx *ctx;
    uint32_t *hmap, *fmap;          /* hash ref -> string id */
    uint32_t *lane_map, *kind_map;  /* load ref -> store id, NOID = not yet */
    uint32_t *strfile_map, *hashfile_map;
    size_t nstr_at_load;
    /* lane_keys is NULL when no two load-time lanes can name one (host,
     * pid, tid): see lanes_distinct */
    dfn_strtab *lane_keys, *kind_keys, *catfold;
    /* the file of each load-time string naming one (DFN_NOID: none yet),
     * by a string ref or a hash's: a path interned later is a hash's own
     * text, made once per hash (hashfile_map), so it needs no entry */
    uint32_t *path_file;
    /* the files' pending ids (file_pending): by a file ref's slot (string
     * refs, then hash refs) its pending id, 0 for none; back to the ref;
     * and on to the store's file id once built, as lane_map's */
    uint32_t *pend_of, *pend_ref, *file_map;
    size_t npend;
    uint32_t *catfold_best;  size_t catfold_cap;
    dfn_meta *ranks; size_t nranks, rankcap;   /* rank and name metadata, in (file, block) order */
    /* ranks by (type, pid, tid): a chain in that order per key, made for
     * meta_n of them, so a lane finds its names without a walk of all */
    dfn_strtab *meta_keys; uint32_t *meta_head, *meta_next; size_t meta_n;
    size_t lanecap, kindcap, filecap;
    size_t namecap;           /* lanes the store's lane_names has room for */
    uint32_t empty;
} builder;

static uint32_t hash_text(builder *b, uint32_t ref)
{
    return dfn_strtab_intern(b->s->strs, dfn_strtab_str(b->ctx->hashes, ref), dfn_strtab_len(b->ctx->hashes, ref));
}

static uint32_t build_host(builder *b, uint32_t host_ref, bool count);

static size_t procmeta_key(char *k, uint8_t type, int64_t pid, int64_t tid)
{
    k[0] = (char)type;
    memcpy(k + 1, &pid, 8);
    if (type != DFN_META_TNAME) tid = 0;
    memcpy(k + 9, &tid, 8);
    return 17;
}

/* Chains every rank record onto its key, first records first. */
static void procmeta_index(builder *b)
{
    if (b->meta_keys) dfn_strtab_free(b->meta_keys);
    free(b->meta_head);
    free(b->meta_next);
    b->meta_keys = dfn_strtab_new();
    b->meta_head = dfn_xmalloc((b->nranks ? b->nranks : 1) * sizeof *b->meta_head);
    b->meta_next = dfn_xmalloc((b->nranks ? b->nranks : 1) * sizeof *b->meta_next);
    for (size_t k = b->nranks; k-- > 0;) {
        const dfn_meta *m = &b->ranks[k];
        char key[17];
        uint32_t before = dfn_strtab_count(b->meta_keys);
        uint32_t id = dfn_strtab_intern(b->meta_keys, key, procmeta_key(key, m->type, m->pid, m->tid));
        b->meta_next[k] = id == before ? DFN_NOID : b->meta_head[id];
        b->meta_head[id] = (uint32_t)k;
    }
    b->meta_n = b->nranks;
}

/* The rank metadata gives process (host, pid): the first that names the
 * pid on that host (or on no host in particular). */
static uint32_t build_procmeta(builder *b, uint8_t type, uint32_t host, int64_t pid, int64_t tid)
{
    if (!b->nranks) return DFN_NOID;
    if (!b->meta_keys || b->meta_n != b->nranks) procmeta_index(b);
    char key[17];
    uint32_t id = dfn_strtab_find(b->meta_keys, key, procmeta_key(key, type, pid, tid));
    for (uint32_t k = id == DFN_NOID ? DFN_NOID : b->meta_head[id]; k != DFN_NOID; k = b->meta_next[k]) {
        const dfn_meta *m = &b->ranks[k];
        if (m->hash_ref == DFN_REF_NONE || build_host(b, m->hash_ref, false) == host) return m->name;
    }
    return DFN_NOID;
}

static uint32_t build_rank(builder *b, uint32_t host, int64_t pid)
{
    uint32_t r = build_procmeta(b, DFN_META_RANK, host, pid, 0);
    return r != DFN_NOID ? r : b->empty;
}

/* A pid or tid as a lane shows it: "Trainer(7)" when metadata names it
 * (malloc'd: a name may be of any length). */
static char *build_id_text(builder *b, uint32_t name, int64_t id)
{
    char *num = dfn_id_dup(b->s, id);
    if (name == b->empty) return num;
    char *text = dfn_xasprintf("%s(%s)", dfn_strtab_str(b->s->strs, name), num);
    free(num);
    return text;
}

/* The name metadata gives a process or thread, or "": a name that only
 * repeats the id (as DFTracer writes them) is none, for a pid written as
 * text too ("pid":"w" named "w"), as the parser finds for numbers. */
static uint32_t build_name(builder *b, uint8_t type, uint32_t host, int64_t pid, int64_t tid)
{
    uint32_t name = build_procmeta(b, type, host, pid, tid);
    if (name == DFN_NOID) return b->empty;
    int64_t id = type == DFN_META_PNAME ? pid : tid;
    if (dfn_id_named(id)) {
        char *text = dfn_id_dup(b->s, id);
        bool same = strlen(text) == dfn_strtab_len(b->s->strs, name) &&
                    memcmp(text, dfn_strtab_str(b->s->strs, name), strlen(text)) == 0;
        free(text);
        if (same) return b->empty;
    }
    return name;
}

/* The host name a load-time ref stands for; an unresolved hash is shown
 * as the hash (and counted when count says so). */
static uint32_t build_host(builder *b, uint32_t host_ref, bool count)
{
    if (host_ref == DFN_REF_NONE) return b->empty;
    if (!(host_ref & DFN_REF_HASH)) return host_ref;
    uint32_t h = host_ref & ~DFN_REF_HASH;
    if (b->hmap[h] != DFN_NOID) return b->hmap[h];
    if (count) b->s->unresolved_hashes++;
    else b->s->unresolved_other++;
    return hash_text(b, h);
}

/* Whether the load-time lanes stay distinct as the store's: a host by
 * hash may resolve to a name another lane gives, and a lane of no host
 * shows "" as one naming "" does. Else the store's lanes need no table of
 * their keys (20,000 processes of one file each: 1.2 MB). */
static bool lanes_distinct(const builder *b)
{
    bool none = false, empty = false;
    for (uint32_t r = 0; r < dfn_strtab_count(b->ctx->lanes); r++) {
        uint32_t host_ref;
        memcpy(&host_ref, dfn_strtab_str(b->ctx->lanes, r), 4);
        if (host_ref == DFN_REF_NONE) none = true;
        else if (host_ref & DFN_REF_HASH) return false;
        else if (host_ref == b->empty) empty = true;
    }
    return !(none && empty);
}

static uint32_t build_lane(builder *b, uint32_t ref)
{
    if (b->lane_map[ref] != DFN_NOID) return b->lane_map[ref];
    const char *key = dfn_strtab_str(b->ctx->lanes, ref);
    uint32_t host_ref; int64_t pid, tid;
    memcpy(&host_ref, key, 4); memcpy(&pid, key + 4, 8); memcpy(&tid, key + 12, 8);
    uint32_t host = build_host(b, host_ref, true);
    uint8_t rk[20];
    memcpy(rk, &host, 4); memcpy(rk + 4, &pid, 8); memcpy(rk + 12, &tid, 8);
    uint32_t before = b->lane_keys ? dfn_strtab_count(b->lane_keys) : (uint32_t)b->s->nlanes;
    uint32_t id = b->lane_keys ? dfn_strtab_intern(b->lane_keys, (const char *)rk, 20) : before;
    if (id == before) {
        dfn_grow((void **)&b->s->lanes, &b->lanecap, id + 1, sizeof *b->s->lanes);
        /* "host/pid/tid", the ids as numbers or names */
        uint32_t pname = build_name(b, DFN_META_PNAME, host, pid, tid), tname = build_name(b, DFN_META_TNAME, host, pid, tid);
        char *pt = build_id_text(b, pname, pid), *tt = build_id_text(b, tname, tid);
        char *name = dfn_xasprintf("%s/%s/%s", dfn_strtab_str(b->s->strs, host), pt, tt);
        free(pt);
        free(tt);
        b->s->lanes[id] = (dfn_lane){ pid, tid, host, dfn_strtab_intern(b->s->strs, name, strlen(name)), build_rank(b, host, pid) };
        free(name);
        dfn_store_lane_names_set(b->s, id, pname == b->empty ? DFN_NOID : pname, tname == b->empty ? DFN_NOID : tname,
                                 &b->namecap);
        b->s->nlanes = id + 1;
    }
    return b->lane_map[ref] = id;
}

/* Categories compare ignoring case; the canonical spelling is the smallest
 * byte-wise, so it does not depend on which thread saw which first. */
static uint32_t canonical_cat(builder *b, uint32_t cat)
{
    const char *s = dfn_strtab_str(b->s->strs, cat);
    size_t len = dfn_strtab_len(b->s->strs, cat);
    char *low = dfn_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    uint32_t before = dfn_strtab_count(b->catfold);
    uint32_t k = dfn_strtab_intern(b->catfold, low, len);
    free(low);
    if (k == before) {
        dfn_grow((void **)&b->catfold_best, &b->catfold_cap, k + 1, sizeof *b->catfold_best);
        /* every spelling of this category, picked from the whole kind table */
        uint32_t best = cat;
        for (uint32_t r = 0; r < dfn_strtab_count(b->ctx->kinds); r++) {
            uint32_t c2;
            memcpy(&c2, dfn_strtab_str(b->ctx->kinds, r), 4);
            size_t l2 = dfn_strtab_len(b->s->strs, c2);
            if (l2 == len && dfn_ascii_ieq(dfn_strtab_str(b->s->strs, c2), l2, s, len) &&
                strcmp(dfn_strtab_str(b->s->strs, c2), dfn_strtab_str(b->s->strs, best)) < 0)
                best = c2;
        }
        b->catfold_best[k] = best;
    }
    return b->catfold_best[k];
}

static uint32_t build_kind(builder *b, uint32_t ref)
{
    if (b->kind_map[ref] != DFN_NOID) return b->kind_map[ref];
    uint32_t cat, func;
    const char *key = dfn_strtab_str(b->ctx->kinds, ref);
    memcpy(&cat, key, 4); memcpy(&func, key + 4, 4);
    uint8_t type = (uint8_t)key[8];
    cat = canonical_cat(b, cat);
    uint8_t rk[DFN_KIND_KEY];
    memcpy(rk, &cat, 4); memcpy(rk + 4, &func, 4);
    rk[8] = type;
    uint32_t before = dfn_strtab_count(b->kind_keys);
    uint32_t id = dfn_strtab_intern(b->kind_keys, (const char *)rk, DFN_KIND_KEY);
    if (id == before) {
        dfn_grow((void **)&b->s->kinds, &b->kindcap, id + 1, sizeof *b->s->kinds);
        const char *cs = dfn_strtab_str(b->s->strs, cat), *fs = dfn_strtab_str(b->s->strs, func);
        size_t cl = dfn_strtab_len(b->s->strs, cat), fl = dfn_strtab_len(b->s->strs, func);
        bool io = dfn_cat_is_io(cs, cl);
        dfn_op op = dfn_op_of_kind(cs, cl, fs, fl);
        char tn[8];
        const char *known = type == 255 ? "" : dfn_type_name(type);
        if (!known) snprintf(tn, sizeof tn, "%u", type);
        uint32_t type_name = known ? dfn_strtab_intern(b->s->strs, known, strlen(known)) : dfn_strtab_intern(b->s->strs, tn, strlen(tn));
        b->s->kinds[id] = (dfn_kind){ cat, func, (uint8_t)dfn_class_of_op(op), (uint8_t)op, io, type, type_name };
        b->s->nkinds = id + 1;
    }
    return b->kind_map[ref] = id;
}

static uint32_t build_file_for_path(builder *b, uint32_t path)
{
    bool known = path < b->nstr_at_load;
    if (known && b->path_file[path] != DFN_NOID) return b->path_file[path];
    uint32_t id = (uint32_t)b->s->nfiles;
    if (known) b->path_file[path] = id;
    dfn_grow((void **)&b->s->files, &b->filecap, id + 1, sizeof *b->s->files);
    const char *p = dfn_strtab_str(b->s->strs, path);
    size_t len = dfn_strtab_len(b->s->strs, path);
    char *tmp = dfn_xmalloc(len + 2);
    dfn_file f = { .path = path };
    f.pattern = dfn_strtab_intern(b->s->strs, tmp, dfn_path_pattern(p, len, tmp));
    f.dir = dfn_strtab_intern(b->s->strs, tmp, dfn_path_dir(p, len, tmp));
    f.fs = dfn_strtab_intern(b->s->strs, tmp, dfn_path_fs(p, len, tmp));
    f.part = dfn_strtab_intern(b->s->strs, tmp, dfn_path_part(p, len, tmp));
    free(tmp);
    b->s->files[id] = f;
    b->s->nfiles = id + 1;
    return id;
}

static uint32_t build_file(builder *b, uint32_t ref)
{
    if (ref == DFN_REF_NONE) return 0;
    if (ref & DFN_REF_HASH) {
        uint32_t h = ref & ~DFN_REF_HASH;
        if (b->hashfile_map[h] != DFN_NOID) return b->hashfile_map[h];
        uint32_t path = b->fmap[h];
        if (path == DFN_NOID) { path = hash_text(b, h); b->s->unresolved_hashes++; }
        return b->hashfile_map[h] = build_file_for_path(b, path);
    }
    if (ref >= b->nstr_at_load) return 0;
    if (b->strfile_map[ref] != DFN_NOID) return b->strfile_map[ref];
    return b->strfile_map[ref] = build_file_for_path(b, ref);
}

static uint32_t *map_new(size_t n)
{
    uint32_t *m = dfn_xmalloc((n ? n : 1) * sizeof *m);
    memset(m, 0xff, (n ? n : 1) * sizeof *m);
    return m;
}

/* Where a chunk's last call ends in µs: its start and length are rounded
 * each on its own in the store, so in other units the end is theirs. */
static uint64_t chunk_end_us(const build_in *in, const dfn_chunk *c)
{
    if (in->unit[c->src] == DFN_UNIT_US) return c->max_end;
    uint64_t end = 0;
    for (size_t j = 0; j < c->n; j++) {
        uint64_t e = chunk_ts(in, c, j) + chunk_us(in, c, dfn_col32_get(&c->dur, j));
        if (e > end) end = e;
    }
    return end;
}

/* What rounding a file's ns times to µs moved, into its rarer figures
 * (made only when there is some). */
static void source_ns_add(dfn_srcinfo *si, uint64_t moved, uint64_t total, uint64_t zeroed)
{
    if (!moved && !total && !zeroed) return;
    dfn_srcmore *m = dfn_srcinfo_more(si);
    m->ns_rounding += moved;
    m->ns_total = dfn_sat_add(m->ns_total, total);
    m->ns_zeroed += zeroed;
}

/* Nanosecond durations become whole µs one by one: how far that moved
 * the file's call time, and how many calls it made 0 s, for info to say
 * (the store keeps µs). */
static void chunk_ns_rounding(const dfn_chunk *c, dfn_srcinfo *si)
{
    uint64_t moved = 0, total = 0, zeroed = 0;
    for (size_t j = 0; j < c->n; j++) dfn_ns_rounding_add(dfn_col32_get(&c->dur, j), &moved, &total, &zeroed);
    source_ns_add(si, moved, total, zeroed);
}

/* Adds what a block held to its file's figures. */
static void source_add(dfn_srcinfo *si, const dfn_blockinfo *bi)
{
    si->lines += bi->lines;
    si->events += bi->events;
    si->metadata += bi->metadata;
    si->malformed += bi->malformed;
    si->skipped += bi->skipped;
    if (!(bi->counters || bi->other || bi->other_ph || bi->agg_records || bi->agg_calls || bi->unit_unknown ||
          bi->frac_times || bi->cfg || bi->app))
        return;   /* most blocks: nothing of the rarer figures */
    dfn_srcmore *m = dfn_srcinfo_more(si);
    m->counters += bi->counters;
    m->other += bi->other;
    m->agg_records += bi->agg_records;
    m->agg_calls += bi->agg_calls;
    m->frac_times += bi->frac_times;
    m->unit_unknown |= bi->unit_unknown;
    for (size_t k = 0; k < dfn_phcount_len(bi->other_ph); k++)
        dfn_phcount_add(dfn_phcount_room(&m->other_ph), bi->other_ph[k].ph, strlen(bi->other_ph[k].ph), bi->other_ph[k].n);
    /* the end record is once per file, at its end: the last one read wins */
    if (bi->cfg) { free(m->cfg); m->cfg = dfn_xstrdup(bi->cfg); }
    if (bi->app) { free(m->app); m->app = dfn_xstrdup(bi->app); }
}

/* The unit of each file, into the store's sources too. */
static dfn_unit *build_units(const dfn_loader *l, const build_in *in, dfn_store *s)
{
    dfn_unit *unit = chunk_units(l, in->chunks, in->nchunks);
    for (size_t f = 0; f < l->nfiles; f++) {
        s->src[f].unit_declared = unit[f] != DFN_UNIT_NONE;
        unit[f] = loader_unit(l, unit[f]);
        s->src[f].unit = unit[f];
        if (l->prescaled && l->prescaled[f]) unit[f] = DFN_UNIT_US;   /* its times are µs already */
    }
    return unit;
}

/* What the files of a pack gave (see dfn_pack_add). */
static void pack_sources(const dfn_chunk *c, dfn_store *s, unsigned *era, uint32_t *version)
{
    for (size_t k = 0; k < c->npf; k++) {
        const dfn_packfile *f = &c->pf[k];
        dfn_srcinfo *si = &s->src[f->src];
        si->lines += f->lines;
        si->events += f->events;
        si->skipped += f->skipped;
        source_ns_add(si, f->ns_rounding, f->ns_total, f->ns_zeroed);
        if (f->events) {
            if (f->start_us < si->start_us) si->start_us = f->start_us;
            if (f->end_us > si->end_us) si->end_us = f->end_us;
        }
        era[f->src] |= f->era;
        if (f->version && !version[f->src]) version[f->src] = f->version;
    }
}

static void build_sources(dfn_loader *l, build_in *in, dfn_store *s)
{
    s->nsrc = l->nfiles;
    s->src = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *s->src);
    in->unit = build_units(l, in, s);
    unsigned *era = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *era);
    uint32_t *version = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *version);
    if (in->keep) {
        dfn_store_paths(s, (const char *const *)l->files);
    } else {   /* the final store takes the loader's block of paths over */
        dfn_store_paths_own(s, l->files);
        l->paths_given = true;
    }
    for (size_t f = 0; f < l->nfiles; f++) {
        dfn_srcinfo *si = &s->src[f];
        si->start_us = UINT64_MAX;
        if (in->keep) continue;   /* reader threads still write these */
        si->gzip = l->src[f].gzip;
        si->size_bytes = l->src[f].size;
        src_rare *r = l->src[f].rare;
        if (r && (r->error || r->long_lines)) {
            dfn_srcmore *m = dfn_srcinfo_more(si);
            m->error = r->error;
            r->error = NULL;
            m->long_lines = r->long_lines;
        }
    }
    for (size_t k = 0; k < in->nchunks; k++) {
        dfn_chunk *c = in->chunks[k];
        if (c->srcs) { pack_sources(c, s, era, version); continue; }
        dfn_srcinfo *si = &s->src[c->src];
        for (size_t j = 0; j < c->nbad; j++) {
            if (dfn_src_more(si)->nbad < DFN_MAX_BAD_LINES) {
                dfn_srcinfo_bad_room(si);
                dfn_srcmore *m = si->more;
                m->bad_lines[m->nbad] = si->lines + c->bad[j].line;
                m->bad_reason[m->nbad] = dfn_xstrdup(c->bad[j].reason);
                m->nbad++;
            }
        }
        source_add(si, &c->info);
        if (in->unit[c->src] == DFN_UNIT_NS) chunk_ns_rounding(c, si);
        if (c->info.events) {
            if (chunk_us(in, c, c->min_ts) < si->start_us) si->start_us = chunk_us(in, c, c->min_ts);
            uint64_t end = chunk_end_us(in, c);
            if (end > si->end_us) si->end_us = end;
        }
        era[c->src] |= c->era;
        if (c->version && !version[c->src]) version[c->src] = c->version;
    }
    for (size_t f = 0; f < l->nfiles; f++) {
        if (s->src[f].start_us == UINT64_MAX) s->src[f].start_us = 0;
        s->src[f].era = s->src[f].lines ? era_label(s, era[f], version[f]) : dfn_store_label(s, "-");
    }
    free(era);
    free(version);
}

/* A first definition of a hash into the store's record of them. */
static void hashdef_add(dfn_store *s, char kind, const dfn_strtab *hashes, uint32_t ref, uint32_t name)
{
    const char *h = dfn_strtab_str(hashes, ref), *nm = dfn_store_str(s, name);
    size_t hl = dfn_strtab_len(hashes, ref), nl = dfn_strtab_len(s->strs, name);
    dfn_grow((void **)&s->hashdefs, &s->hashdefs_cap, s->hashdefs_len + hl + nl + 21, 1);
    uint8_t *w = s->hashdefs + s->hashdefs_len;
    *w++ = (uint8_t)kind;
    w += dfn_varint_put(w, hl);
    memcpy(w, h, hl);
    w += hl;
    w += dfn_varint_put(w, nl);
    memcpy(w, nm, nl);
    s->hashdefs_len = (size_t)(w + nl - s->hashdefs);
}

static void build_metadata(builder *b, const build_in *in)
{
    size_t nh = dfn_strtab_count(in->ctx->hashes);
    b->hmap = map_new(nh);
    b->fmap = map_new(nh);
    /* chunks are in (file, block) order: a file's line numbers add up */
    uint32_t src = UINT32_MAX;
    uint64_t line0 = 0;
    for (size_t k = 0; k < in->nchunks; k++) {
        dfn_chunk *c = in->chunks[k];
        if (c->src != src) { src = c->src; line0 = 0; }
        for (size_t j = 0; j < c->nmeta; j++) {
            dfn_meta *m = &c->meta[j];
            if (m->type == DFN_META_RANK || m->type == DFN_META_PNAME || m->type == DFN_META_TNAME) {
                dfn_grow((void **)&b->ranks, &b->rankcap, b->nranks + 1, sizeof *b->ranks);
                b->ranks[b->nranks++] = *m;
                continue;
            }
            uint32_t *map = m->type == DFN_META_HH ? b->hmap : m->type == DFN_META_FH ? b->fmap : NULL;
            if (!map || m->hash_ref >= nh) continue;
            if (map[m->hash_ref] == DFN_NOID) {
                map[m->hash_ref] = m->name;
                hashdef_add(b->s, m->type == DFN_META_HH ? 'H' : 'F', in->ctx->hashes, m->hash_ref, m->name);
            } else if (map[m->hash_ref] != m->name && b->s->hash_conflicts++ == 0) {
                b->s->hash_conflict_src = c->src;
                b->s->hash_conflict_line = line0 + m->line;
            }
        }
        line0 += c->info.lines;
    }
}

/* Definitions from the rest of the set (dfn_load_opts's defs) for the
 * hashes no file here defines, after the files' own. The records are
 * another process's bytes: read within bounds, a cut one ends them. */
static void build_extra_defs(builder *b, const build_in *in, const uint8_t *defs, size_t len)
{
    if (!defs) return;
    size_t nh = dfn_strtab_count(in->ctx->hashes);
    dfn_hashdef d;
    for (const uint8_t *p = defs; dfn_hashdef_read(p, defs + len, &d); p += d.len) {
        uint32_t *map = d.kind == 'H' ? b->hmap : d.kind == 'F' ? b->fmap : NULL;
        uint32_t ref = map ? dfn_strtab_find(in->ctx->hashes, d.hash, d.hashlen) : DFN_NOID;
        if (ref < nh && map[ref] == DFN_NOID) map[ref] = dfn_strtab_intern(b->s->strs, d.name, d.namelen);
    }
}

/* A lane key for foreign_keys: what of (host, pid, tid) a record names. */
static size_t foreign_key(char *k, bool host, uint32_t h, int64_t pid, bool tid, int64_t t)
{
    size_t n = 0;
    k[n++] = (char)(host | tid << 1);
    if (host) memcpy(k + n, &h, 4), n += 4;
    memcpy(k + n, &pid, 8), n += 8;
    if (tid) memcpy(k + n, &t, 8), n += 8;
    return n;
}

/* The rank and name records that could name no lane here (by host, or
 * any host; a thread's by its tid too), and every record given without a
 * host (it names its pid on every host, so perhaps another share's too),
 * as the store's foreign_meta: what may be a share's metadata about
 * another share's processes. */
static void build_foreign_meta(builder *b)
{
    if (!b->nranks) return;
    dfn_strtab *keys = dfn_strtab_new();
    char k[24];
    for (size_t i = 0; i < b->s->nlanes; i++) {
        const dfn_lane *l = &b->s->lanes[i];
        for (int f = 0; f < 4; f++) dfn_strtab_intern(keys, k, foreign_key(k, f & 1, l->host, l->pid, f & 2, l->tid));
    }
    FILE *out = NULL;
    for (size_t j = 0; j < b->nranks; j++) {
        const dfn_meta *m = &b->ranks[j];
        bool any = m->hash_ref == DFN_REF_NONE, thread = m->type == DFN_META_TNAME;
        uint32_t host = any ? 0 : build_host(b, m->hash_ref, false);
        if (!any && dfn_strtab_find(keys, k, foreign_key(k, true, host, m->pid, thread, m->tid)) != DFN_NOID) continue;
        if (!out) out = open_memstream(&b->s->foreign_meta, &b->s->foreign_meta_len);
        if (!out) dfn_out_of_memory("noting metadata of other processes", BUFSIZ);
        /* (whole, however long: the lanes' texts rank 0 matches are) */
        char *pid = dfn_id_dup(b->s, m->pid), *tid = dfn_id_dup(b->s, thread ? m->tid : 0);
        fprintf(out, "%c%c%s%c%s%c%s%c", m->type == DFN_META_RANK ? 'R' : m->type == DFN_META_PNAME ? 'P' : 'T',
                any ? 'a' : 'h', any ? "" : dfn_store_str(b->s, host), 0, pid, 0, tid, 0);
        free(pid);
        free(tid);
    }
    if (out) fclose(out);
    dfn_strtab_free(keys);
}

static void build_schemas(dfn_store *s, dfn_strtab *schemas)
{
    size_t n = dfn_strtab_count(schemas);
    dfn_store_schemas_alloc(s, n);
    for (size_t i = 0; i < n; i++) {
        const char *k = dfn_strtab_str(schemas, (uint32_t)i);
        size_t m = dfn_strtab_len(schemas, (uint32_t)i) / 5;
        s->schema_len[i] = (uint16_t)m;
        s->schema_keys[i] = dfn_xmalloc((m ? m : 1) * sizeof(uint32_t));
        s->schema_types[i] = dfn_xmalloc(m ? m : 1);
        for (size_t j = 0; j < m; j++) {
            memcpy(&s->schema_keys[i][j], k + j * 5, 4);
            s->schema_types[i][j] = (uint8_t)k[j * 5 + 4];
            if (dfn_argtype_valued(s->schema_types[i][j])) s->schema_nval[i]++;
        }
    }
}

/* Samples by time, series (by text: series_by_text), host name, pid and
 * value: host string ids depend on which parser thread met a name first,
 * the names do not, and the order of the sums of a row must not either. */
static _Thread_local const dfn_store *g_sample_store;

static int sample_cmp(const void *a, const void *b)
{
    const dfn_sample *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->series != y->series) return x->series < y->series ? -1 : 1;
    int c = x->host == y->host ? 0 : strcmp(dfn_store_str(g_sample_store, x->host), dfn_store_str(g_sample_store, y->host));
    if (!c && x->pid != y->pid) c = dfn_id_cmp(g_sample_store, x->pid, g_sample_store, y->pid);
    return c ? c : dfn_value_order(x->value, y->value);
}

static _Thread_local const dfn_store *g_series_store;

static int series_text_cmp(const void *a, const void *b)
{
    const dfn_store *s = g_series_store;
    uint32_t x = s->series[*(const uint32_t *)a], y = s->series[*(const uint32_t *)b];
    return dfn_bytes_cmp(dfn_store_str(s, x), dfn_strtab_len(s->strs, x), dfn_store_str(s, y), dfn_strtab_len(s->strs, y));
}

/* The series numbered by their text, their samples' too: samples of one
 * time then go alike in every share of a set (an MPI rank's), where the
 * order the files first name them in differs from share to share. */
static void series_by_text(dfn_store *s)
{
    size_t n = s->nseries;
    uint32_t *order = dfn_xmalloc((n ? n : 1) * sizeof *order), *now = dfn_xmalloc((n ? n : 1) * sizeof *now);
    for (size_t k = 0; k < n; k++) order[k] = (uint32_t)k;
    g_series_store = s;
    qsort(order, n, sizeof *order, series_text_cmp);
    g_series_store = NULL;
    uint32_t *text = dfn_xmalloc((n ? n : 1) * sizeof *text);
    for (size_t k = 0; k < n; k++) {
        now[order[k]] = (uint32_t)k;
        text[k] = s->series[order[k]];
    }
    memcpy(s->series, text, n * sizeof *text);
    for (size_t j = 0; j < s->nsamples; j++) s->samples[j].series = now[s->samples[j].series];
    free(text);
    free(now);
    free(order);
}

/* Counter samples into the store, series numbered by their text (so that
 * they depend neither on the thread count nor on which files a share
 * holds); before the merge, which frees the chunks. A series is its
 * joined name ("cpu" "user_pct" and "cpu.user" "pct" are both
 * "cpu.user_pct"): the text that ctr.SERIES names and that MPI ranks key
 * their rows by, so one series, as they merge it. */
static void build_counters(builder *b, const build_in *in)
{
    dfn_store *s = b->s;
    size_t total = 0, cap = 0, tcap = 0;
    for (size_t k = 0; k < in->nchunks; k++) total += in->chunks[k] ? in->chunks[k]->ncs : 0;
    if (!total) return;
    s->samples = dfn_xmalloc(total * sizeof *s->samples);
    /* series by their (name, key) pair, then by their text */
    dfn_strtab *pairs = dfn_strtab_new(), *texts = dfn_strtab_new();
    uint32_t *pair_series = NULL;
    size_t pcap = 0;
    char *t = NULL;
    for (size_t k = 0; k < in->nchunks; k++) {
        const dfn_chunk *c = in->chunks[k];
        for (size_t j = 0; c && j < c->ncs; j++) {
            const dfn_csample *cs = &c->cs[j];
            uint32_t pair[2] = { cs->name, cs->key };
            uint32_t before = dfn_strtab_count(pairs), p = dfn_strtab_intern(pairs, (const char *)pair, sizeof pair);
            if (p == before) {
                const char *n = dfn_strtab_str(s->strs, cs->name), *f = dfn_strtab_str(s->strs, cs->key);
                size_t nl = dfn_strtab_len(s->strs, cs->name), fl = dfn_strtab_len(s->strs, cs->key);
                dfn_grow((void **)&t, &tcap, nl + fl + 2, 1);
                memcpy(t, n, nl);
                t[nl] = '.';
                memcpy(t + nl + 1, f, fl);
                uint32_t id;
                if (dfn_strtab_add(texts, t, nl + 1 + fl, &id)) {
                    dfn_grow((void **)&s->series, &cap, id + 1, sizeof *s->series);
                    s->series[id] = dfn_strtab_intern(s->strs, t, nl + 1 + fl);
                    s->nseries = id + 1;
                }
                dfn_grow((void **)&pair_series, &pcap, p + 1, sizeof *pair_series);
                pair_series[p] = id;
            }
            s->samples[s->nsamples++] = (dfn_sample){ chunk_us(in, c, cs->ts), cs->value, pair_series[p],
                                                      build_host(b, cs->host, false), cs->pid };
        }
    }
    free(t);
    free(pair_series);
    dfn_strtab_free(texts);
    dfn_strtab_free(pairs);
    series_by_text(s);
    g_sample_store = s;
    qsort(s->samples, s->nsamples, sizeof *s->samples, sample_cmp);
}

/* ---- the merge, in parts ---- */

/* The merge runs in parts on as many threads as the load: each part owns
 * a range of store positions that starts on a ts block, takes from every
 * chunk the positions that fall there, and writes load-time refs; the
 * first use of each ref in each part is noted, and replaying those notes
 * part after part hands out the ids exactly as one merge would. */
enum { FIRST_LANE, FIRST_KIND, FIRST_FILE };

typedef struct {
    const build_in *in;
    dfn_store *s;
    size_t w0, w1, a0, a1;        /* store positions, and the args offsets of w0 and w1 */
    size_t a_lim;                 /* args bytes up to here are this part's to write */
    size_t *lo, *hi;              /* per chunk: the positions this part takes */
    uint64_t t0, t1;
    dfn_col32 ts, dur, bytes;     /* this part's escapes; values go to the store's */
    dfn_col32 cnt, durmax;        /* v NULL when no chunk has aggregated records */
    uint32_t *first;              /* (FIRST_*, ref) pairs in order of first use */
    size_t nfirst, firstcap;
    uint8_t *seen_lane, *seen_kind, *seen_file;   /* seen_file: by pending id */
    size_t nstr_at_load;
    const uint32_t *pend_of;      /* the builder's */
    atomic_int *users;            /* per chunk: parts still reading it */
    const builder *b;             /* for the remap, once ids are handed out */
} merge_part;

static size_t chunk_bound(const build_in *in, const dfn_chunk *c, uint64_t t, bool upper)
{
    if (!c) return 0;
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = chunk_ts(in, c, mid);
        if (upper ? v <= t : v < t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The tie rank of chunk k's event j. */
static inline uint32_t event_rank(const build_in *in, size_t k, size_t j)
{
    const dfn_chunk *c = in->chunks[k];
    return c->srcs ? in->file_rank[c->srcs[j]] : in->rank[k];
}

/* Ranks in (file, block) order: a chunk's, and a packed file's, whose
 * events in the pack are ordered so among the other chunks' ties. */
static void merge_ranks(build_in *in, size_t nfiles)
{
    in->rank = dfn_xcalloc(in->nchunks ? in->nchunks : 1, sizeof *in->rank);
    in->file_rank = dfn_xcalloc(nfiles ? nfiles : 1, sizeof *in->file_rank);
    /* packed files marked first: ranks are handed out in file order */
    const uint32_t packed = UINT32_MAX;
    for (size_t k = 0; k < in->nchunks; k++)
        for (size_t i = 0; i < in->chunks[k]->npf; i++) in->file_rank[in->chunks[k]->pf[i].src] = packed;
    uint32_t r = 0;
    size_t k = 0;
    for (size_t f = 0; f < nfiles; f++) {
        for (; k < in->nchunks && !in->chunks[k]->srcs && in->chunks[k]->src == f; k++) in->rank[k] = r++;
        if (in->file_rank[f] == packed) in->file_rank[f] = r++;
    }
}

typedef struct { uint32_t rank, k; size_t n; } tie;

static int tie_cmp(const void *a, const void *b)
{
    const tie *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Where store position p falls in each chunk (0 < p < n): the merge
 * order is by ts, ties by rank, so the events at the boundary's ts go to
 * the first part from the lowest ranks. */
static void merge_split(const build_in *in, uint64_t tmin, uint64_t tmax, size_t p, size_t *out)
{
    uint64_t lo = tmin, hi = tmax;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        size_t le = 0;
        for (size_t k = 0; k < in->nchunks; k++) le += chunk_bound(in, in->chunks[k], mid, true);
        if (le > p) hi = mid; else lo = mid + 1;
    }
    size_t left = p, nt = 0, tcap = 0;
    for (size_t k = 0; k < in->nchunks; k++) { out[k] = chunk_bound(in, in->chunks[k], lo, false); left -= out[k]; }
    tie *t = NULL;
    for (size_t k = 0; k < in->nchunks && left; k++) {
        size_t eq = chunk_bound(in, in->chunks[k], lo, true) - out[k];
        if (!eq) continue;
        bool pack = in->chunks[k]->srcs != NULL;
        dfn_grow((void **)&t, &tcap, nt + (pack ? eq : 1), sizeof *t);
        if (!pack) t[nt++] = (tie){ in->rank[k], (uint32_t)k, eq };
        for (size_t j = out[k]; pack && j < out[k] + eq; j++) t[nt++] = (tie){ event_rank(in, k, j), (uint32_t)k, 1 };
    }
    /* a pack's ties are in rank order, so the lowest are its first */
    if (nt) qsort(t, nt, sizeof *t, tie_cmp);
    for (size_t i = 0; i < nt && left; i++) {
        size_t take = t[i].n < left ? t[i].n : left;
        out[t[i].k] += take;
        left -= take;
    }
    free(t);
}

/* The length of event j's record, which starts at p. */
static inline size_t chunk_record_len(const dfn_store *s, const dfn_chunk *c, size_t j, const uint8_t *p)
{
    size_t rl = c->args_size[j];
    return rl ? rl : (size_t)(dfn_store_record_end(s, p, c->args + c->args_len) - p);
}

/* Where the record of the chunk's event pos starts; pos == n is the end of
 * all its records (a part's start when the whole chunk precedes it), which
 * the index holds too. */
static const uint8_t *chunk_args_at(const dfn_store *s, const dfn_chunk *c, size_t pos)
{
    const uint8_t *p = c->args + c->args_idx[pos >> DFN_ARGS_INDEX_SHIFT];
    for (size_t j = pos & ~(((size_t)1 << DFN_ARGS_INDEX_SHIFT) - 1); j < pos; j++) p += chunk_record_len(s, c, j, p);
    return p;
}

/* A file ref's slot in pend_of: string refs of the load, then hash
 * refs; SIZE_MAX for none (no file, or a string made after the load,
 * which names none). */
static inline size_t file_slot(size_t nstr_at_load, uint32_t ref)
{
    if (ref == DFN_REF_NONE) return SIZE_MAX;
    if (ref & DFN_REF_HASH) return nstr_at_load + (ref & ~DFN_REF_HASH);
    return ref < nstr_at_load ? ref : SIZE_MAX;
}

/* Event i's pending file id until merge_part_remap: the store's file ids
 * are known only after the merge (first use in merge order), but the
 * column's width must be known before it; so each file ref an event
 * names gets a dense number first (file_pending_table), and a set of few
 * files takes 2 bytes a call however many strings and hashes it has. */
static inline uint32_t file_pending(const uint32_t *pend_of, size_t nstr_at_load, uint32_t ref)
{
    size_t slot = file_slot(nstr_at_load, ref);
    return slot == SIZE_MAX ? 0 : pend_of[slot];
}

static void part_note(merge_part *m, uint32_t what, uint32_t ref)
{
    if (m->nfirst + 2 > m->firstcap) {
        m->firstcap = m->firstcap ? m->firstcap * 2 : 256;
        m->first = dfn_xreallocarray(m->first, m->firstcap, sizeof *m->first);
    }
    m->first[m->nfirst++] = what;
    m->first[m->nfirst++] = ref;
}

static void *merge_part_run(void *arg)
{
    merge_part *m = arg;
    const build_in *in = m->in;
    dfn_store *s = m->s;
    /* the id columns in locals: the records' memcpy below may write any
     * byte, so members would be read again for every call */
    dfn_ids lane_col = s->lane, kind_col = s->kind, file_col = s->file;
    const uint32_t *pend_of = m->pend_of;
    size_t nk = in->nchunks ? in->nchunks : 1;
    cursor *cur = dfn_xmalloc(nk * sizeof *cur);
    heap_key *later = dfn_xmalloc(nk * sizeof *later), *heap = dfn_xmalloc(nk * sizeof *heap);
    size_t nc = 0, hn = 0, next = 0;
    for (size_t k = 0; k < in->nchunks; k++) {
        /* a chunk this part does not read may be freed by another meanwhile */
        if (m->lo[k] >= m->hi[k]) continue;
        dfn_chunk *c = in->chunks[k];
        if (!c) continue;
        cur[nc] = (cursor){ c, m->lo[k], m->hi[k], k, chunk_args_at(s, c, m->lo[k]) };
        later[nc] = (heap_key){ chunk_ts(in, c, m->lo[k]), event_rank(in, k, m->lo[k]), (uint32_t)nc };
        nc++;
    }
    /* Chunks join the heap only when their first event is due: at any
     * time few of them overlap, so the heap stays a few levels deep. */
    qsort(later, nc, sizeof *later, key_cmp);
    uint64_t t0 = m->t0, t1 = m->t0;
    size_t w = m->w0, aw = m->a0;
    for (;;) {
        while (next < nc && (hn == 0 || key_less(&later[next], &heap[0]))) heap_push(heap, &hn, later[next++]);
        if (!hn) break;
        cursor *cu = &cur[heap[0].cur];
        dfn_chunk *c = cu->c;
        size_t j = cu->pos;
        uint64_t ts = heap[0].ts, rel = ts - t0;
        if ((w & ((1u << DFN_TS_BLOCK_SHIFT) - 1)) == 0) s->ts_base[w >> DFN_TS_BLOCK_SHIFT] = rel;
        dfn_col32_set(&m->ts, w, rel - s->ts_base[w >> DFN_TS_BLOCK_SHIFT]);
        uint64_t dur = chunk_us(in, c, dfn_col32_get(&c->dur, j));
        if (ts + dur > t1) t1 = ts + dur;
        uint64_t *reach = &s->ts_reach[w >> DFN_TS_BLOCK_SHIFT];
        if (rel + dur > *reach) *reach = rel + dur;
        dfn_col32_set(&m->dur, w, dur);
        dfn_col32_set(&m->bytes, w, dfn_col32_get(&c->bytes, j));
        if (m->cnt.v) {
            bool agg = c->cnt.v != NULL;
            dfn_col32_set(&m->cnt, w, agg ? dfn_col32_get(&c->cnt, j) : 0);
            dfn_col32_set(&m->durmax, w, agg ? chunk_us(in, c, dfn_col32_get(&c->durmax, j)) : 0);
        }
        uint32_t lane = dfn_idcol_get(&c->lane, j), kind = dfn_idcol_get(&c->kind, j), file = dfn_idcol_get(&c->file, j);
        dfn_ids_set(&lane_col, w, lane);
        dfn_ids_set(&kind_col, w, kind);
        uint32_t pend = file_pending(pend_of, m->nstr_at_load, file);
        dfn_ids_set(&file_col, w, pend);
        if (s->evsrc) s->evsrc[w] = c->srcs ? c->srcs[j] : c->src;
        if (!m->seen_lane[lane]) { m->seen_lane[lane] = 1; part_note(m, FIRST_LANE, lane); }
        if (!m->seen_kind[kind]) { m->seen_kind[kind] = 1; part_note(m, FIRST_KIND, kind); }
        if (pend && !m->seen_file[pend]) { m->seen_file[pend] = 1; part_note(m, FIRST_FILE, pend); }
        size_t rl = chunk_record_len(s, c, j, cu->args);
        if ((w & ((1u << DFN_ARGS_INDEX_SHIFT) - 1)) == 0) s->args_idx[w >> DFN_ARGS_INDEX_SHIFT] = aw;
        if (rl <= DFN_RECORD_SLACK && aw + DFN_RECORD_SLACK <= m->a_lim) {
            memcpy(s->args + aw, cu->args, 16);
            memcpy(s->args + aw + 16, cu->args + 16, 16);
        } else {
            memcpy(s->args + aw, cu->args, rl);
        }
        aw += rl;
        cu->args += rl;
        w++;
        if (++cu->pos < cu->hi) {
            heap[0].ts = chunk_ts(in, c, cu->pos);
            if (c->srcs) heap[0].order = in->file_rank[c->srcs[cu->pos]];
        } else {
            /* the last part to leave a chunk frees it, so memory shrinks as the store grows */
            if (!in->keep && atomic_fetch_sub(&m->users[cu->order], 1) == 1) {
                dfn_chunk_free(c);
                in->chunks[cu->order] = NULL;
            }
            heap[0] = heap[--hn];
        }
        if (hn) heap_down(heap, hn, 0);
    }
    free(cur);
    free(later);
    free(heap);
    m->t1 = t1;
    m->a1 = aw;
    return NULL;
}

/* Numbers the file refs the chunks' events name, 1 up, in b's pend_of
 * and back in pend_ref: a chunk's table of files when it has one, else
 * each event's. */
static void file_pending_table(builder *b, const build_in *in, size_t nhashes)
{
    size_t nslots = b->nstr_at_load + nhashes;
    b->pend_of = dfn_xcalloc(nslots ? nslots : 1, sizeof *b->pend_of);
    size_t cap = 0;
    b->pend_ref = NULL;
    dfn_grow((void **)&b->pend_ref, &cap, 1, sizeof *b->pend_ref);
    b->pend_ref[0] = DFN_REF_NONE;
    b->npend = 1;   /* 0: no file */
    for (size_t k = 0; k < in->nchunks; k++) {
        const dfn_chunk *c = in->chunks[k];
        if (!c || !c->n) continue;
        size_t m = c->file.idx ? c->file.ntab : c->n;
        for (size_t j = 0; j < m; j++) {
            uint32_t ref = c->file.ids[j];
            size_t slot = file_slot(b->nstr_at_load, ref);
            if (slot == SIZE_MAX || b->pend_of[slot]) continue;
            dfn_grow((void **)&b->pend_ref, &cap, b->npend + 1, sizeof *b->pend_ref);
            b->pend_of[slot] = (uint32_t)b->npend;
            b->pend_ref[b->npend++] = ref;
        }
    }
    b->file_map = map_new(b->npend);
    b->file_map[0] = 0;
}

static void *merge_part_remap(void *arg)
{
    merge_part *m = arg;
    dfn_store *s = m->s;
    const builder *b = m->b;
    for (size_t w = m->w0; w < m->w1; w++) {
        dfn_ids_set(&s->lane, w, b->lane_map[dfn_store_lane(s, w)]);
        dfn_ids_set(&s->kind, w, b->kind_map[dfn_store_kind(s, w)]);
        dfn_ids_set(&s->file, w, b->file_map[dfn_store_file(s, w)]);
    }
    return NULL;
}

/* Concatenates the parts' escapes of the column at offset col of a part,
 * in position order. */
static void parts_escapes(merge_part *parts, size_t n, size_t col, dfn_col32 *out)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += ((dfn_col32 *)((char *)&parts[i] + col))->nesc;
    out->esc = total ? dfn_xmalloc(total * sizeof *out->esc) : NULL;
    out->nesc = 0;
    out->esccap = total;
    for (size_t i = 0; i < n; i++) {
        dfn_col32 *c = (dfn_col32 *)((char *)&parts[i] + col);
        if (c->nesc) memcpy(out->esc + out->nesc, c->esc, c->nesc * sizeof *c->esc);
        out->nesc += c->nesc;
        free(c->esc);
    }
}

static dfn_store *loader_build(dfn_loader *l, build_in *in)
{
    dfn_store *s = dfn_xcalloc(1, sizeof *s);
    if (in->nchunks) qsort(in->chunks, in->nchunks, sizeof *in->chunks, chunk_order_cmp);
    s->strs = in->ctx->strs;    /* the store takes the names over */
    build_sources(l, in, s);
    build_schemas(s, in->ctx->schemas);
    /* B/E pairs become chunks of calls, merged with the rest; a snapshot
     * frees them after, the final build as it merges them */
    size_t npaired = 0;
    dfn_chunk **paired = dfn_pairs_build(in->chunks, in->nchunks, dfn_strtab_count(in->ctx->lanes), s->src, &npaired);
    dfn_chunk **own = NULL;
    for (size_t k = 0; k < npaired; k++) {
        dfn_srcinfo *si = &s->src[paired[k]->src];
        uint64_t lo = chunk_us(in, paired[k], paired[k]->min_ts), hi = chunk_end_us(in, paired[k]);
        bool none = si->start_us == 0 && si->end_us == 0;
        if (none || lo < si->start_us) si->start_us = lo;
        if (hi > si->end_us) si->end_us = hi;
    }
    if (npaired) {
        own = dfn_xmalloc((in->nchunks + npaired) * sizeof *own);
        memcpy(own, in->chunks, in->nchunks * sizeof *own);
        memcpy(own + in->nchunks, paired, npaired * sizeof *own);
        in->chunks = own;
        in->nchunks += npaired;
        qsort(in->chunks, in->nchunks, sizeof *in->chunks, chunk_order_cmp);
    }
    merge_ranks(in, l->nfiles);

    /* what the image needs to give files back to other loads: the chunks
     * are freed by the merge */
    dfn_rebuild *rb = !in->keep && l->all_ids ? dfn_rebuild_begin(in->chunks, in->nchunks, l->nfiles, in->unit,
                                                              dfn_strtab_count(in->ctx->lanes)) : NULL;
    /* a pack's per-file figures are in the sources, the ranks and the
     * image's era now: 64 bytes a file, freed before the tables grow */
    for (size_t k = 0; k < in->nchunks && !in->keep; k++) {
        if (!in->chunks[k]->srcs) continue;
        free(in->chunks[k]->pf);
        in->chunks[k]->pf = NULL;
        in->chunks[k]->npf = 0;
    }
    builder b = { .s = s, .ctx = in->ctx };
    build_metadata(&b, in);
    build_extra_defs(&b, in, l->opts.defs, l->opts.defs_len);
    b.nstr_at_load = dfn_strtab_count(s->strs);
    b.empty = dfn_strtab_intern(s->strs, "", 0);
    build_counters(&b, in);
    size_t nlanes = dfn_strtab_count(in->ctx->lanes), nkinds = dfn_strtab_count(in->ctx->kinds);
    size_t nhashes = dfn_strtab_count(in->ctx->hashes);
    b.lane_map = map_new(nlanes);
    b.kind_map = map_new(nkinds);
    b.strfile_map = map_new(b.nstr_at_load);
    b.hashfile_map = map_new(nhashes);
    b.lane_keys = lanes_distinct(&b) ? NULL : dfn_strtab_new();
    /* at most one a load-time lane: grown by doubling, it held up to twice that */
    b.lanecap = nlanes ? nlanes : 1;
    s->lanes = dfn_xmalloc(b.lanecap * sizeof *s->lanes);
    b.kind_keys = dfn_strtab_new();
    b.path_file = map_new(b.nstr_at_load);
    b.catfold = dfn_strtab_new();
    dfn_grow((void **)&s->files, &b.filecap, 1, sizeof *s->files);
    s->files[0] = (dfn_file){ b.empty, b.empty, b.empty, b.empty, b.empty };
    s->nfiles = 1;

    size_t n = 0, args_total = 0;
    uint64_t tmin = UINT64_MAX, tmax = 0;
    bool any_agg = false;
    for (size_t k = 0; k < in->nchunks; k++) {
        dfn_chunk *c = in->chunks[k];
        if (!c->n) {
            if (!in->keep) { dfn_chunk_free(c); in->chunks[k] = NULL; }
            continue;
        }
        n += c->n;
        args_total += c->args_len;
        any_agg |= c->cnt.v != NULL;
        uint64_t first = chunk_ts(in, c, 0), last = chunk_ts(in, c, c->n - 1);
        if (first < tmin) tmin = first;
        if (last > tmax) tmax = last;
    }
    s->n = n;
    size_t nblocks = (n >> DFN_TS_BLOCK_SHIFT) + 1;
    s->ts_base = dfn_xcalloc(nblocks, sizeof *s->ts_base);
    s->ts_reach = dfn_xcalloc(nblocks, sizeof *s->ts_reach);
    /* Small pages, though the columns are written end to end: huge pages
     * (MADV_HUGEPAGE, until 412039a) took half the faults, but each part
     * of the merge held up to 2 MiB of each column it was still filling
     * (15 MB more at the peak of 7.46 M events), and with the kernel's
     * THP defrag on "madvise" a huge page cost more system time than its
     * 512 small ones (interleaved, 6 rounds: 0.4 s more, 12% more CPU). */
    s->ts.v = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
    s->dur.v = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
    s->bytes.v = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
    /* the store's ids are at most the load's: their widths are known now */
    dfn_ids_alloc(&s->lane, n, nlanes);
    dfn_ids_alloc(&s->kind, n, nkinds);
    file_pending_table(&b, in, nhashes);
    dfn_ids_alloc(&s->file, n, b.npend);
    if (l->opts.sources && !in->keep) s->evsrc = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
    if (any_agg) {   /* only sets with aggregated records pay for their columns */
        s->cnt.v = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
        s->durmax.v = dfn_xmalloc((n ? n : 1) * sizeof(uint32_t));
    }
    s->args = dfn_xmalloc(args_total + DFN_RECORD_SLACK);
    s->args_idx = dfn_xcalloc((n >> DFN_ARGS_INDEX_SHIFT) + 1, sizeof *s->args_idx);

    /* parts of at least 2^16 events, each starting on a ts block */
    size_t nparts = (size_t)(l->nparsers > 0 ? l->nparsers : 1);
    if (nparts > n >> 16) nparts = n >> 16 ? n >> 16 : 1;
    size_t nk = in->nchunks ? in->nchunks : 1;
    size_t *bounds = dfn_xcalloc(nparts * nk, sizeof *bounds);   /* part i starts at bounds[i * nk + k] */
    size_t *sizes = dfn_xcalloc(nk, sizeof *sizes);
    size_t *pos = dfn_xcalloc(nparts + 1, sizeof *pos);
    for (size_t k = 0; k < in->nchunks; k++) sizes[k] = in->chunks[k] ? in->chunks[k]->n : 0;
    pos[nparts] = n;
    for (size_t i = 1; i < nparts; i++) {
        pos[i] = (n * i / nparts) & ~(((size_t)1 << DFN_TS_BLOCK_SHIFT) - 1);
        if (pos[i] <= pos[i - 1]) { nparts = i; pos[nparts] = n; break; }
        merge_split(in, tmin, tmax, pos[i], &bounds[i * nk]);
    }
    atomic_int *users = dfn_xcalloc(nk, sizeof *users);
    merge_part *parts = dfn_xcalloc(nparts, sizeof *parts);
    for (size_t i = 0; i < nparts; i++) {
        merge_part *m = &parts[i];
        m->in = in;
        m->s = s;
        m->w0 = pos[i];
        m->w1 = pos[i + 1];
        m->lo = &bounds[i * nk];
        m->hi = i + 1 < nparts ? &bounds[(i + 1) * nk] : sizes;
        m->t0 = tmin == UINT64_MAX ? 0 : tmin;
        m->ts.v = s->ts.v;
        m->dur.v = s->dur.v;
        m->bytes.v = s->bytes.v;
        m->cnt.v = s->cnt.v;
        m->durmax.v = s->durmax.v;
        m->seen_lane = dfn_xcalloc(nlanes ? nlanes : 1, 1);
        m->seen_kind = dfn_xcalloc(nkinds ? nkinds : 1, 1);
        m->seen_file = dfn_xcalloc(b.npend, 1);
        m->nstr_at_load = b.nstr_at_load;
        m->pend_of = b.pend_of;
        m->users = users;
        m->b = &b;
        for (size_t k = 0; k < in->nchunks; k++) {
            if (m->lo[k] < m->hi[k]) atomic_fetch_add(&users[k], 1);
            if (i > 0 && in->chunks[k]) m->a0 += (size_t)(chunk_args_at(s, in->chunks[k], m->lo[k]) - in->chunks[k]->args);
        }
    }
    /* the next part's records start where this part's end */
    for (size_t i = 0; i < nparts; i++) parts[i].a_lim = i + 1 < nparts ? parts[i + 1].a0 : args_total + DFN_RECORD_SLACK;
    /* chunks no part reads */
    for (size_t k = 0; k < in->nchunks && !in->keep; k++)
        if (in->chunks[k] && atomic_load(&users[k]) == 0) { dfn_chunk_free(in->chunks[k]); in->chunks[k] = NULL; }
    dfn_parallel_each(parts, nparts, sizeof *parts, merge_part_run);
    if (!in->keep) dfn_malloc_release();   /* the chunks the merge freed, before the tables grow */

    uint64_t t1 = tmin == UINT64_MAX ? 0 : tmin;
    for (size_t i = 0; i < nparts; i++) {
        merge_part *m = &parts[i];
        if (m->t1 > t1) t1 = m->t1;
        for (size_t f = 0; f < m->nfirst; f += 2) {
            uint32_t ref = m->first[f + 1];
            if (m->first[f] == FIRST_LANE) build_lane(&b, ref);
            else if (m->first[f] == FIRST_KIND) build_kind(&b, ref);
            else b.file_map[ref] = build_file(&b, b.pend_ref[ref]);
        }
    }
    dfn_parallel_each(parts, nparts, sizeof *parts, merge_part_remap);
    parts_escapes(parts, nparts, offsetof(merge_part, ts), &s->ts);
    parts_escapes(parts, nparts, offsetof(merge_part, dur), &s->dur);
    parts_escapes(parts, nparts, offsetof(merge_part, bytes), &s->bytes);
    if (s->cnt.v) {
        parts_escapes(parts, nparts, offsetof(merge_part, cnt), &s->cnt);
        parts_escapes(parts, nparts, offsetof(merge_part, durmax), &s->durmax);
    }
    s->args_len = parts[nparts - 1].a1;
    /* the index's entry for position n when n starts a step, as in a
     * chunk: left 0, an image of the store read as out of order */
    if (!(n & (((size_t)1 << DFN_ARGS_INDEX_SHIFT) - 1))) s->args_idx[n >> DFN_ARGS_INDEX_SHIFT] = s->args_len;
    s->t0 = tmin == UINT64_MAX ? 0 : tmin;
    s->t1 = t1;
    if (rb) {
        dfn_rebuild_maps rm = { b.lane_map, b.kind_map, b.strfile_map, b.hashfile_map, nlanes, nkinds,
                                b.nstr_at_load, nhashes, s->nlanes, s->nkinds, s->nfiles };
        dfn_rebuild_end(rb, in->ctx, &rm);
        s->rebuild = rb;
    }

    for (size_t i = 0; i < nparts; i++) {
        free(parts[i].first);
        free(parts[i].seen_lane); free(parts[i].seen_kind);
        free(parts[i].seen_file);
    }
    free(parts);
    free(users);
    free(bounds);
    free(sizes);
    free(pos);
    free(in->unit);
    in->unit = NULL;
    free(in->rank);
    free(in->file_rank);
    in->rank = in->file_rank = NULL;
    for (size_t k = 0; in->keep && k < npaired; k++) dfn_chunk_free(paired[k]);
    free(paired);
    free(own);
    build_foreign_meta(&b);   /* (every lane built) */
    free(b.hmap); free(b.fmap); free(b.lane_map); free(b.kind_map);
    free(b.strfile_map); free(b.hashfile_map); free(b.pend_of); free(b.pend_ref); free(b.file_map); free(b.catfold_best); free(b.ranks);
    if (b.meta_keys) dfn_strtab_free(b.meta_keys);
    free(b.meta_head); free(b.meta_next);
    dfn_strtab_free(b.lane_keys); dfn_strtab_free(b.kind_keys);
    free(b.path_file); dfn_strtab_free(b.catfold);
    return s;
}

/* ---- lifecycle ---- */

/* The cache's image of exactly this set, when it has one. */
static bool loader_from_cache(dfn_loader *l, const dfn_image_ident *id, char *note, size_t cap)
{
    dfn_store *s = dfn_cache_load(l->opts.cache_dir, id, l->nparsers, note, cap);
    if (!s) return false;
    l->store = s;
    atomic_store(&l->cached, true);
    atomic_store(&l->bytes_done, l->bytes_total);
    atomic_store(&l->events, s->n);
    atomic_store(&l->files_done, l->nfiles);
    return true;
}

/* Starts saving the store's image, unless a file changed while it was
 * read (its store stands for no one state of the file) or could not be
 * opened or read (a cause outside its bytes, which may be gone next
 * time). The save runs while the first queries do. */
static void loader_to_cache(dfn_loader *l, const dfn_image_ident *id)
{
    for (size_t i = 0; i < l->nfiles; i++) {
        if (l->src[i].transient) return;   /* permissions or the disk, not the bytes */
        dfn_fileid now;
        char err[128];
        if (!dfn_fileid_of(l->files[i], &now, err, sizeof err) || !dfn_fileid_eq(&now, &l->ids[i])) return;
    }
    if (l->opts.no_save) return;
    uint64_t limit = l->opts.cache_limit ? l->opts.cache_limit : dfn_cache_limit(l->opts.cache_dir);
    l->store->saver = dfn_cache_save_start(l->opts.cache_dir, l->store, id, limit);
}

/* Takes from one image the chunks of the files it has of this load
 * (want[k]: the load's index of its file k, or UINT32_MAX). */
static void reuse_image(dfn_loader *l, const dfn_cache_entry *e, const uint32_t *want, char *note, size_t cap)
{
    char why[256];
    dfn_rebuild *rb;
    dfn_store *img = dfn_image_map_reuse(e->path, l->nparsers, &rb, why, sizeof why);
    if (!img) {
        if (!note[0] && strcmp(why, "keeps no files to reuse") != 0)
            snprintf(note, cap, "%s: %s; read the traces again", e->path, why);
        return;
    }
    dfn_chunk **out = dfn_xcalloc(img->nsrc ? img->nsrc : 1, sizeof *out);
    dfn_rebuild_chunks(img, rb, want, &l->ctx, &l->reasons, out);
    for (size_t k = 0; k < img->nsrc; k++) {
        if (!out[k]) continue;
        uint32_t f = want[k];
        const dfn_srcinfo *si = &img->src[k];
        l->src[f].reused = true;
        l->src[f].gzip = si->gzip;
        l->src[f].size = si->size_bytes;
        const dfn_srcmore *m = dfn_src_more(si);
        if (m->long_lines) src_rare_of(&l->src[f])->long_lines = m->long_lines;
        if (m->error) src_error(&l->src[f], m->error);
        pthread_mutex_lock(&l->clock);
        loader_add_chunk(l, out[k]);
        pthread_mutex_unlock(&l->clock);
        atomic_fetch_add(&l->events, si->events);
        atomic_fetch_add(&l->bytes_done, l->src[f].size);
        atomic_fetch_add(&l->files_done, 1);
        atomic_fetch_add(&l->reused, 1);
    }
    free(out);
    dfn_rebuild_free(rb);
    dfn_store_free(img);
}

/* Files of this load that images of other sets hold (the most recently
 * used image first) come back from them instead of being parsed. */
static void loader_reuse(dfn_loader *l, uint64_t opts, char *note, size_t cap)
{
    dfn_cache_entry *e;
    size_t ne = dfn_cache_list(l->opts.cache_dir, &e);
    dfn_strtab *mine = dfn_strtab_new();   /* this load's files by identity */
    uint32_t *which = dfn_xmalloc((l->nfiles ? l->nfiles : 1) * sizeof *which);
    for (size_t i = 0; i < l->nfiles; i++)
        if (l->ids[i].ino || l->ids[i].dev) which[dfn_strtab_intern(mine, (const char *)&l->ids[i], sizeof *l->ids)] = (uint32_t)i;
    bool *taken = dfn_xcalloc(l->nfiles ? l->nfiles : 1, sizeof *taken);
    for (size_t x = 0; x < ne && !atomic_load(&l->cancel); x++) {
        if (!e[x].ok || e[x].info.opts != opts) continue;
        uint32_t *want = dfn_xmalloc((e[x].info.nfiles ? e[x].info.nfiles : 1) * sizeof *want);
        size_t nwant = 0;
        for (size_t k = 0; k < e[x].info.nfiles; k++) {
            uint32_t f = dfn_strtab_find(mine, (const char *)&e[x].info.ids[k], sizeof *l->ids);
            if (f != DFN_NOID) f = which[f];
            want[k] = f != DFN_NOID && !taken[f] ? f : UINT32_MAX;
            if (want[k] != UINT32_MAX) { taken[f] = true; nwant++; }
        }
        if (nwant) reuse_image(l, &e[x], want, note, cap);
        /* files the image could not give back may come from another */
        for (size_t k = 0; k < e[x].info.nfiles; k++)
            if (want[k] != UINT32_MAX && !l->src[want[k]].reused) taken[want[k]] = false;
        free(want);
    }
    free(taken);
    free(which);
    dfn_strtab_free(mine);
    dfn_cache_entries_free(e, ne);
}

static void *coordinator_main(void *arg)
{
    /* the input walk's names and stats, freed: this thread's arena
     * cannot reuse the main one's free pages */
    dfn_malloc_release();
    dfn_loader *l = arg;
    char note[1024] = "";
    dfn_image_ident id = { l->ids, (const char *const *)l->files, l->nfiles,
                           dfn_image_opts(l->opts.block_size, l->opts.time_unit) };
    if (l->all_ids && loader_from_cache(l, &id, note, sizeof note)) {
        l->t_end = dfn_now();
        atomic_store(&l->done, true);
        return NULL;
    }
    if (l->ids) loader_reuse(l, id.opts, note + strlen(note), sizeof note - strlen(note));
    int total = l->nreaders + l->nparsers;
    pthread_t *th = dfn_xmalloc((size_t)total * sizeof *th);
    l->readers_left = l->nreaders;   /* before any reader can finish */
    for (int i = 0; i < total; i++) {
        /* a thread's stack is memory: without room for it, out of memory */
        if (pthread_create(&th[i], NULL, i < l->nreaders ? reader_main : parser_main, l) != 0)
            dfn_out_of_memory("starting a loader thread's stack of", THREAD_STACK);
    }
    for (int i = 0; i < total; i++) pthread_join(th[i], NULL);
    free(th);
    dfn_blockpool_drain(l->pool);   /* reading is over: before the build's peak */
    /* the parsers' blocks and batches, freed in their own arenas, which
     * the build (this thread) and the query (the caller) do not reuse */
    dfn_malloc_release();
    pthread_mutex_lock(&l->snap_lock);
    atomic_store(&l->building, true);
    pthread_mutex_lock(&l->clock);
    loader_seal(l);
    loader_prescale(l);
    pthread_mutex_unlock(&l->clock);
    dfn_chunkmem_close(l->mem);   /* every chunk is made: the merge gives them back */
    if (!atomic_load(&l->cancel)) {
        build_in in = { .chunks = l->chunks, .nchunks = l->nchunks, .ctx = &l->ctx, .keep = false };
        l->store = loader_build(l, &in);
        dfn_malloc_release();   /* the merge's cursors and maps */
        l->nchunks = 0;   /* the final build frees every chunk as it merges */
    }
    pthread_mutex_unlock(&l->snap_lock);
    if (l->store && note[0]) l->store->cache_note = dfn_xstrdup(note);
    if (l->store && l->all_ids) loader_to_cache(l, &id);
    l->t_end = dfn_now();
    atomic_store(&l->done, true);
    return NULL;
}

dfn_loader *dfn_loader_start(const char *const *files, size_t nfiles, const dfn_load_opts *opts)
{
    dfn_loader *l = dfn_xcalloc(1, sizeof *l);
    l->nfiles = nfiles;
    l->files = dfn_strv_block(files, nfiles);
    l->src = dfn_xcalloc(nfiles ? nfiles : 1, sizeof *l->src);
    for (size_t i = 0; i < nfiles; i++) {
        struct stat st;
        bool regular = strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0 && S_ISREG(st.st_mode);
        if (regular && st.st_size > 0) l->src[i].size = (uint64_t)st.st_size;
        l->unsized += !regular;   /* a pipe's size is what it has sent so far */
        l->bytes_total += l->src[i].size;
    }
    if (opts) l->opts = *opts;
    /* 1 MiB: the merge frees a chunk only once it has passed the chunk's
     * last event, and a set of many files, each spanning the whole run,
     * keeps one open chunk a file (64 files of 4 MiB blocks peaked at 54
     * bytes an event, 42 as 8 files; 1 MiB blocks: 41 and 41); a block
     * also stays in the cache while it is parsed */
    if (!l->opts.block_size) l->opts.block_size = DFN_BLOCK_SIZE;
    l->pack.unit = l->opts.time_unit ? l->opts.time_unit : DFN_UNIT_US;
    /* a store named by another load's definitions is no image of its files */
    if (l->opts.defs) l->opts.cache_dir = NULL;
    if (l->opts.cache_dir) {
        l->opts.cache_dir = dfn_xstrdup(l->opts.cache_dir);
        /* a set with a pipe has no image, but its files may come from others' */
        l->ids = dfn_xcalloc(nfiles ? nfiles : 1, sizeof *l->ids);
        l->all_ids = true;
        char err[128];
        for (size_t i = 0; i < nfiles; i++)
            if (!dfn_fileid_of(files[i], &l->ids[i], err, sizeof err)) {
                l->ids[i] = (dfn_fileid){ 0 };
                l->all_ids = false;
            }
    }
    int threads = l->opts.threads > 0 ? l->opts.threads : dfn_ncpus();
    if (threads > 256) threads = 256;
    l->nparsers = threads;
    /* Reading plain text is cheap next to parsing, inflating is not: one
     * reader per two parsers keeps both busy on gzip sets. */
    l->nreaders = threads / 2 > 0 ? threads / 2 : 1;
    if ((size_t)l->nreaders > nfiles) l->nreaders = nfiles > 0 ? (int)nfiles : 1;
    l->qcap = (size_t)threads + 1;   /* blocks in flight cost memory: keep few */
    l->queue = dfn_xcalloc(l->qcap, sizeof *l->queue);
    uint64_t *sizes = dfn_xmalloc((nfiles ? nfiles : 1) * sizeof *sizes);
    for (size_t i = 0; i < nfiles; i++) sizes[i] = l->src[i].size;
    l->mem = dfn_chunkmem_new(nfiles, sizes);
    free(sizes);
    /* room for every block that can be in flight: queued, parsed, and
     * two a reader (the one it waits to queue and the next it fills) */
    l->pool = dfn_blockpool_new(l->opts.block_size, l->qcap + (size_t)l->nparsers + 2 * (size_t)l->nreaders);
    pthread_mutex_init(&l->qlock, NULL);
    pthread_cond_init(&l->qnotempty, NULL);
    pthread_cond_init(&l->qnotfull, NULL);
    pthread_mutex_init(&l->clock, NULL);
    pthread_mutex_init(&l->snap_lock, NULL);
    pthread_mutex_init(&l->ctx.lock, NULL);
    l->ctx.strs = dfn_strtab_new();
    l->ctx.hashes = dfn_strtab_new();
    l->ctx.lanes = dfn_strtab_new();
    l->ctx.kinds = dfn_strtab_new();
    l->ctx.schemas = dfn_strtab_new();
    l->t_start = dfn_now();
    if (pthread_create(&l->coordinator, NULL, coordinator_main, l) != 0)
        dfn_out_of_memory("starting the loader thread's stack of", THREAD_STACK);
    return l;
}

void dfn_loader_progress(dfn_loader *l, dfn_progress *out)
{
    memset(out, 0, sizeof *out);
    out->bytes_done = atomic_load(&l->bytes_done);
    out->bytes_total = l->bytes_total;
    if (out->bytes_done > out->bytes_total) out->bytes_total = out->bytes_done;
    out->events = atomic_load(&l->events);
    out->files_done = atomic_load(&l->files_done);
    out->files_total = l->nfiles;
    out->unsized = l->unsized;
    out->done = atomic_load(&l->done);
    out->building = atomic_load(&l->building) && !out->done;
    out->cached = atomic_load(&l->cached);
    out->reused = atomic_load(&l->reused);
    out->cancelled = atomic_load(&l->cancel);
    out->elapsed_s = (out->done ? l->t_end : dfn_now()) - l->t_start;
    out->events_per_s = out->elapsed_s > 0 ? out->events / out->elapsed_s : 0;
}

void dfn_loaders_progress(dfn_loader *const *ls, size_t n, dfn_progress *sum, double *pct)
{
    memset(sum, 0, sizeof *sum);
    sum->building = sum->done = true;
    for (size_t k = 0; k < n; k++) {
        dfn_progress p = { .done = true };
        if (ls[k]) dfn_loader_progress(ls[k], &p);
        /* of a pipe nobody knows the end: no percent (-1) */
        if (pct) pct[k] = p.done ? 100 : p.unsized ? -1 : p.bytes_total ? 100.0 * p.bytes_done / p.bytes_total : 0;
        sum->unsized += p.unsized;
        sum->reused += p.reused;
        sum->cached |= p.cached;
        sum->bytes_done += p.bytes_done;
        sum->bytes_total += p.bytes_total;
        sum->events += p.events;
        sum->files_done += p.files_done;
        sum->files_total += p.files_total;
        sum->events_per_s += p.events_per_s;
        if (p.elapsed_s > sum->elapsed_s) sum->elapsed_s = p.elapsed_s;
        sum->building &= p.building || p.done;
        sum->done &= p.done;
        sum->cancelled |= p.cancelled;
    }
    sum->building &= !sum->done;
}

void dfn_loader_cancel(dfn_loader *l)
{
    atomic_store(&l->cancel, true);
    pthread_mutex_lock(&l->qlock);
    pthread_cond_broadcast(&l->qnotempty);
    pthread_cond_broadcast(&l->qnotfull);
    pthread_mutex_unlock(&l->qlock);
}

dfn_store *dfn_loader_finish(dfn_loader *l)
{
    if (!l) return NULL;
    pthread_join(l->coordinator, NULL);
    dfn_store *s = l->store;
    for (size_t i = 0; i < l->qcount; i++) dfn_block_free(&l->queue[(l->qhead + i) % l->qcap].blk);
    dfn_blockpool_free(l->pool);   /* every block is back */
    for (size_t k = 0; k < l->nchunks; k++) dfn_chunk_free(l->chunks[k]);
    dfn_chunkmem_release(l->mem);
    dfn_pack_free(&l->pack);
    for (size_t i = 0; i < l->nfiles; i++)
        if (l->src[i].rare) { free(l->src[i].rare->error); free(l->src[i].rare); }
    free(l->chunks);
    if (!l->paths_given) free(l->files);
    free(l->src);
    free(l->queue);
    if (!s || s->strs != l->ctx.strs) dfn_strtab_free(l->ctx.strs);   /* otherwise the store owns it */
    free(l->ids);
    free(l->prescaled);
    free((char *)l->opts.cache_dir);
    if (l->reasons) dfn_strtab_free(l->reasons);
    dfn_strtab_free(l->ctx.hashes);
    dfn_strtab_free(l->ctx.lanes);
    dfn_strtab_free(l->ctx.kinds);
    dfn_strtab_free(l->ctx.schemas);
    pthread_mutex_destroy(&l->qlock);
    pthread_cond_destroy(&l->qnotempty);
    pthread_cond_destroy(&l->qnotfull);
    pthread_mutex_destroy(&l->clock);
    pthread_mutex_destroy(&l->snap_lock);
    pthread_mutex_destroy(&l->ctx.lock);
    free(l);
    return s;
}

dfn_store *dfn_loader_snapshot(dfn_loader *l)
{
    pthread_mutex_lock(&l->snap_lock);
    if (atomic_load(&l->building) || atomic_load(&l->cancel)) {
        pthread_mutex_unlock(&l->snap_lock);
        return NULL;
    }
    pthread_mutex_lock(&l->clock);
    loader_seal(l);   /* later files start a new pack */
    size_t n = l->nchunks;
    dfn_chunk **chunks = dfn_xmalloc((n ? n : 1) * sizeof *chunks);
    if (n) memcpy(chunks, l->chunks, n * sizeof *chunks);
    pthread_mutex_unlock(&l->clock);
    dfn_loadctx ctx = {0};
    pthread_mutex_lock(&l->ctx.lock);
    ctx.strs = dfn_strtab_copy(l->ctx.strs);
    ctx.hashes = dfn_strtab_copy(l->ctx.hashes);
    ctx.lanes = dfn_strtab_copy(l->ctx.lanes);
    ctx.kinds = dfn_strtab_copy(l->ctx.kinds);
    ctx.schemas = dfn_strtab_copy(l->ctx.schemas);
    pthread_mutex_unlock(&l->ctx.lock);
    build_in in = { .chunks = chunks, .nchunks = n, .ctx = &ctx, .keep = true };
    dfn_store *s = loader_build(l, &in);
    pthread_mutex_unlock(&l->snap_lock);
    free(chunks);
    dfn_strtab_free(ctx.hashes);
    dfn_strtab_free(ctx.lanes);
    dfn_strtab_free(ctx.kinds);
    dfn_strtab_free(ctx.schemas);
    return s;
}

dfn_store *dfn_load(const char *const *files, size_t nfiles, const dfn_load_opts *opts)
{
    return dfn_loader_finish(dfn_loader_start(files, nfiles, opts));
}

int dfn_store_status(const dfn_store *s)
{
    if (!s) return 3;
    bool damage = false, any = false;
    for (size_t i = 0; i < s->nsrc; i++) {
        const dfn_srcinfo *si = &s->src[i];
        const char *error = dfn_src_more(si)->error;
        if (error || si->malformed) damage = true;
        if (!error || si->lines) any = true;
    }
    if (!any && s->nsrc) return 3;
    /* a hash with two names leaves some events under the wrong one */
    return damage || s->hash_conflicts ? 1 : 0;
}
