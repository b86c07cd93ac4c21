/* The store image: the layout of an image file (a header, a table of
 * sections, the sections), its checksums, writing a store into one and
 * mapping one back as a store after checking every section.
 *
 * Layout, all little-endian as written by this machine (an image of
 * another byte order reads as another version):
 *   0   "DFNAVIMG", u32 version, u32 sections, u64 total length, u64 key,
 *       u64 options, u64 events, u64 checksum of the table, u64 checksum
 *       of the 56 bytes before it
 *   64  per section: u32 id, u32 0, u64 offset, u64 length, u64 checksum
 *   ... the sections, each at a multiple of 64
 * A section's checksum is the checksum of its pieces' checksums (pieces
 * of 16 MiB), so that mapping checks pieces on every thread. */
#include "dfnav/image.h"
#include "dfnav/util.h"
#include "load.h"
#include "rebuild.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMG_MAGIC "DFNAVIMG"
#define IMG_HEADER 64
#define IMG_ENTRY 32
#define IMG_ALIGN 64
#define IMG_PIECE ((size_t)16 << 20)
#define IMG_MAX_SECTIONS 64

enum {
    S_IDENT = 1, S_PATHS, S_META, S_TS_BASE, S_TS_REACH,
    S_TS, S_DUR, S_BYTES, S_CNT, S_DURMAX,
    S_TS_ESC, S_DUR_ESC, S_BYTES_ESC, S_CNT_ESC, S_DURMAX_ESC,
    S_LANE, S_KIND, S_FILE, S_ARGS, S_ARGS_IDX,
    S_STRS, S_LANES, S_KINDS, S_FILES, S_SCHEMAS, S_SRC, S_SAMPLES, S_SERIES,
    /* what gives files back to other loads (rebuild.h); empty without */
    S_RB_SRC, S_RB_LANES, S_RB_KINDS, S_RB_FILES, S_RB_HASHES, S_RB_META, S_RB_CS,
    /* the id columns when 16 bits hold them (dfn_ids): then S_LANE and
     * the others are empty, else these are */
    S_LANE16, S_KIND16, S_FILE16,
    S_END
};

/* ---- files and keys ---- */

bool dfn_fileid_of(const char *path, dfn_fileid *out, char *err, size_t cap)
{
    struct stat st;
    if (strcmp(path, "-") == 0) { snprintf(err, cap, "standard input"); return false; }
    if (stat(path, &st) != 0) { snprintf(err, cap, "%s", strerror(errno)); return false; }
    if (!S_ISREG(st.st_mode)) { snprintf(err, cap, "not a regular file"); return false; }
    *out = (dfn_fileid){ (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                         (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec };
    return true;
}

bool dfn_fileid_eq(const dfn_fileid *a, const dfn_fileid *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

uint64_t dfn_image_opts(size_t block_size, unsigned time_unit)
{
    return (uint64_t)block_size << 8 | (time_unit & 0xff);
}

uint64_t dfn_image_key(const dfn_image_ident *id)
{
    uint64_t h = dfn_hash_u64(DFN_IMAGE_VERSION ^ dfn_hash_u64(id->opts) ^ dfn_hash_u64(id->n));
    for (size_t i = 0; i < id->n; i++)
        h = dfn_hash_u64(h ^ dfn_hash(&id->ids[i], sizeof id->ids[i]));
    return h;
}

/* ---- checksums ---- */

static inline uint64_t rotl64(uint64_t x, int r) { return x << r | x >> (64 - r); }

/* Four lanes of multiply-rotate rounds: each round is a bijection of the
 * word for a fixed state and of the state for a fixed word, so any change
 * within one 8-byte word always changes the sum. About 10 GB/s. */
static uint64_t img_sum(const uint8_t *p, size_t n)
{
    const uint64_t k1 = 0x9E3779B185EBCA87ULL, k2 = 0xC2B2AE3D27D4EB4FULL;
    uint64_t a = k1, b = k2, c = 0x165667B19E3779F9ULL, d = 0x27D4EB2F165667C5ULL;
    size_t i = 0;
    for (; p && i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        a = rotl64(a + w[0] * k2, 31) * k1;
        b = rotl64(b + w[1] * k2, 31) * k1;
        c = rotl64(c + w[2] * k2, 31) * k1;
        d = rotl64(d + w[3] * k2, 31) * k1;
    }
    uint64_t h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18);
    h = dfn_hash_u64(h ^ a) ^ dfn_hash_u64(b + 1) ^ dfn_hash_u64(c + 2) ^ dfn_hash_u64(d + 3);
    for (; i < n; i++) h = rotl64(h ^ p[i], 23) * k1 + k2;
    return dfn_hash_u64(h ^ n);
}

/* The pieces of every section, summed on threads. */
typedef struct {
    const uint8_t *base;
    size_t off, len;
    uint64_t sum;
    uint32_t max;             /* the largest id of a piece of an id column */
    unsigned width;           /* an id column's bytes an id; 0: not one */
} piece;

typedef struct {
    piece *pieces;
    size_t n;
    atomic_size_t next;
} piece_work;

static void *pieces_run(void *arg)
{
    piece_work *w = *(piece_work **)arg;
    for (;;) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n) break;
        piece *p = &w->pieces[i];
        if (!p->len) { p->sum = img_sum(NULL, 0); continue; }
        p->sum = img_sum(p->base + p->off, p->len);
        if (p->width) {
            const uint8_t *q = p->base + p->off;
            uint32_t m = 0;
            for (size_t j = 0; j + p->width <= p->len; j += p->width) {
                uint32_t v;
                if (p->width == 2) {
                    uint16_t h;
                    memcpy(&h, q + j, 2);
                    v = h;
                } else {
                    memcpy(&v, q + j, 4);
                }
                m = v > m ? v : m;
            }
            p->max = m;
        }
    }
    return NULL;
}

typedef struct {
    uint32_t id;
    const void *data;         /* writing: where the bytes are */
    uint64_t off, len, sum;
    uint32_t max;             /* id columns: the largest value */
    uint8_t *own;             /* writing: a buffer to free */
} section;

static size_t npieces(uint64_t len) { return len ? (size_t)((len + IMG_PIECE - 1) / IMG_PIECE) : 1; }

/* The bytes an id of section id take, 0 for a section of no ids. */
static unsigned id_width(uint32_t id)
{
    if (id == S_LANE || id == S_KIND || id == S_FILE) return 4;
    if (id == S_LANE16 || id == S_KIND16 || id == S_FILE16) return 2;
    return 0;
}

/* Sums each section (bases[i] holds section i's bytes) on up to threads
 * threads. */
static void sections_sum(section *sec, size_t n, const uint8_t *const *bases, int threads)
{
    size_t np = 0;
    for (size_t i = 0; i < n; i++) np += npieces(sec[i].len);
    piece *pc = dfn_xcalloc(np, sizeof *pc);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        for (uint64_t off = 0;; off += IMG_PIECE) {
            uint64_t left = sec[i].len - off;
            pc[k++] = (piece){ bases[i], off, left < IMG_PIECE ? left : IMG_PIECE, 0, 0, id_width(sec[i].id) };
            if (left <= IMG_PIECE) break;
        }
    }
    piece_work w = { pc, k, 0 };
    size_t nt = threads > 0 ? (size_t)threads : 1;
    if (nt > k) nt = k;
    piece_work **args = dfn_xmalloc(nt * sizeof *args);
    for (size_t t = 0; t < nt; t++) args[t] = &w;
    dfn_parallel_each(args, nt, sizeof *args, pieces_run);
    free(args);
    k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t cnt = npieces(sec[i].len);
        uint64_t *sums = dfn_xmalloc(cnt * sizeof *sums);
        uint32_t m = 0;
        for (size_t j = 0; j < cnt; j++) { sums[j] = pc[k + j].sum; m = pc[k + j].max > m ? pc[k + j].max : m; }
        sec[i].sum = img_sum((const uint8_t *)sums, cnt * sizeof *sums);
        sec[i].max = m;
        free(sums);
        k += cnt;
    }
    free(pc);
}

/* ---- a growable byte buffer for the packed tables ---- */

typedef struct { uint8_t *p; size_t len, cap; } wbuf;

static void wb_put(wbuf *b, const void *d, size_t n)
{
    dfn_grow((void **)&b->p, &b->cap, b->len + n, 1);
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
}
static void wb_u8(wbuf *b, uint8_t v) { wb_put(b, &v, 1); }
static void wb_u32(wbuf *b, uint32_t v) { wb_put(b, &v, 4); }
static void wb_u64(wbuf *b, uint64_t v) { wb_put(b, &v, 8); }
static void wb_str(wbuf *b, const char *s, size_t n) { wb_u32(b, (uint32_t)n); wb_put(b, s, n); }
static void wb_cstr(wbuf *b, const char *s) { if (s) wb_str(b, s, strlen(s)); else wb_u32(b, UINT32_MAX); }

/* A bounds-checked reader of a section: any read past its end sets bad
 * and yields zeros. */
typedef struct { const uint8_t *p, *end; bool bad; } rbuf;

static const void *rb_take(rbuf *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = true; return NULL; }
    const void *q = r->p;
    r->p += n;
    return q;
}
static uint8_t rb_u8(rbuf *r) { const uint8_t *q = rb_take(r, 1); return q ? *q : 0; }
static uint32_t rb_u32(rbuf *r) { uint32_t v = 0; const void *q = rb_take(r, 4); if (q) memcpy(&v, q, 4); return v; }
static uint64_t rb_u64(rbuf *r) { uint64_t v = 0; const void *q = rb_take(r, 8); if (q) memcpy(&v, q, 8); return v; }
/* A string as a malloc'd copy (NULL for the absent one). */
static char *rb_cstr(rbuf *r)
{
    uint32_t n = rb_u32(r);
    if (n == UINT32_MAX) return NULL;
    const char *q = rb_take(r, n);
    return q ? dfn_xstrndup(q, n) : NULL;
}

/* ---- writing ---- */

typedef struct {
    section sec[IMG_MAX_SECTIONS];
    size_t n;
} section_list;

static void add_raw(section_list *l, uint32_t id, const void *data, size_t len)
{
    l->sec[l->n++] = (section){ .id = id, .data = data, .len = len };
}

static void add_buf(section_list *l, uint32_t id, wbuf *b)
{
    l->sec[l->n++] = (section){ .id = id, .data = b->p, .len = b->len, .own = b->p };
    *b = (wbuf){ 0 };
}

static void put_meta(section_list *l, const dfn_store *s)
{
    wbuf b = { 0 };
    uint64_t v[] = { s->n, s->t0, s->t1, s->args_len, s->nlanes, s->nkinds, s->nfiles, s->nschemas,
                     s->nsrc, s->nsamples, s->nseries, s->hash_conflicts, s->hash_conflict_src,
                     s->hash_conflict_line, s->unresolved_hashes, dfn_strtab_count(s->strs),
                     s->cnt.v != NULL, s->ts.nesc, s->dur.nesc, s->bytes.nesc, s->cnt.nesc, s->durmax.nesc };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) wb_u64(&b, v[i]);
    add_buf(l, S_META, &b);
}

static void put_tables(section_list *l, const dfn_store *s)
{
    wbuf b = { 0 };
    uint32_t ns = dfn_strtab_count(s->strs);
    for (uint32_t i = 0; i < ns; i++) wb_str(&b, dfn_strtab_str(s->strs, i), dfn_strtab_len(s->strs, i));
    add_buf(l, S_STRS, &b);
    for (size_t i = 0; i < s->nlanes; i++) {
        const dfn_lane *x = &s->lanes[i];
        wb_u32(&b, x->host); wb_u64(&b, (uint64_t)x->pid); wb_u64(&b, (uint64_t)x->tid);
        wb_u32(&b, x->name); wb_u32(&b, x->rank);
        wb_u32(&b, dfn_store_lane_pname(s, i)); wb_u32(&b, dfn_store_lane_tname(s, i));   /* DFN_NOID: none */
    }
    add_buf(l, S_LANES, &b);
    for (size_t i = 0; i < s->nkinds; i++) {
        const dfn_kind *k = &s->kinds[i];
        wb_u32(&b, k->cat); wb_u32(&b, k->func); wb_u8(&b, k->cls); wb_u8(&b, k->op);
        wb_u8(&b, k->io); wb_u8(&b, k->type); wb_u32(&b, k->type_name);
    }
    add_buf(l, S_KINDS, &b);
    for (size_t i = 0; i < s->nfiles; i++) {
        const dfn_file *f = &s->files[i];
        wb_u32(&b, f->path); wb_u32(&b, f->pattern); wb_u32(&b, f->dir); wb_u32(&b, f->fs); wb_u32(&b, f->part);
    }
    add_buf(l, S_FILES, &b);
    for (size_t i = 0; i < s->nschemas; i++) {
        wb_u32(&b, s->schema_len[i]);
        for (size_t j = 0; j < s->schema_len[i]; j++) { wb_u32(&b, s->schema_keys[i][j]); wb_u8(&b, s->schema_types[i][j]); }
    }
    add_buf(l, S_SCHEMAS, &b);
    for (size_t i = 0; i < s->nsamples; i++) {
        const dfn_sample *x = &s->samples[i];
        uint64_t bits;
        memcpy(&bits, &x->value, 8);
        wb_u64(&b, x->ts); wb_u64(&b, bits); wb_u32(&b, x->series); wb_u32(&b, x->host); wb_u64(&b, (uint64_t)x->pid);
    }
    add_buf(l, S_SAMPLES, &b);
    for (size_t i = 0; i < s->nseries; i++) wb_u32(&b, s->series[i]);
    add_buf(l, S_SERIES, &b);
}

static void put_source(wbuf *b, const dfn_srcinfo *si)
{
    const dfn_srcmore *m = dfn_src_more(si);
    wb_cstr(b, si->era);
    wb_u8(b, si->gzip);
    uint64_t v[] = { si->size_bytes, si->lines, si->events, si->metadata, si->malformed, si->start_us, si->end_us,
                     m->long_lines, si->skipped, m->counters, m->other, m->agg_records, m->agg_calls,
                     si->unit, si->unit_declared, m->unit_unknown, m->ns_rounding, m->ns_zeroed, m->ns_total,
                     m->frac_times };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) wb_u64(b, v[i]);
    wb_u32(b, (uint32_t)m->nbad);
    for (size_t i = 0; i < m->nbad; i++) { wb_u64(b, m->bad_lines[i]); wb_cstr(b, m->bad_reason[i]); }
    static const dfn_phcount none[DFN_PH_KINDS];
    const dfn_phcount *ph = m->other_ph ? m->other_ph : none;
    for (size_t k = 0; k < DFN_PH_KINDS; k++) { wb_put(b, ph[k].ph, DFN_PH_LABEL); wb_u64(b, ph[k].n); }
    wb_cstr(b, m->error);
    wb_cstr(b, m->cfg);
    wb_cstr(b, m->app);
}

static void put_sources(section_list *l, const dfn_store *s, const dfn_image_ident *id)
{
    wbuf b = { 0 };
    for (size_t i = 0; i < s->nsrc; i++) put_source(&b, &s->src[i]);
    add_buf(l, S_SRC, &b);
    for (size_t i = 0; i < id->n; i++) {
        wb_u64(&b, id->ids[i].dev); wb_u64(&b, id->ids[i].ino);
        wb_u64(&b, id->ids[i].size); wb_u64(&b, id->ids[i].mtime_ns);
    }
    add_buf(l, S_IDENT, &b);
    for (size_t i = 0; i < id->n; i++) wb_cstr(&b, id->paths[i]);
    add_buf(l, S_PATHS, &b);
}

static void put_col(section_list *l, uint32_t vid, uint32_t eid, const dfn_col32 *c, size_t n)
{
    add_raw(l, vid, c->v, c->v ? n * 4 : 0);
    add_raw(l, eid, c->esc, c->nesc * sizeof *c->esc);
}

/* An id column in the section of its width, the other one empty. */
static void put_ids(section_list *l, uint32_t id32, uint32_t id16, const dfn_ids *c, size_t n)
{
    add_raw(l, id32, c->v32, c->v32 ? n * 4 : 0);
    add_raw(l, id16, c->v16, c->v16 ? n * 2 : 0);
}

static void put_columns(section_list *l, const dfn_store *s)
{
    size_t nblocks = (s->n >> DFN_TS_BLOCK_SHIFT) + 1;
    add_raw(l, S_TS_BASE, s->ts_base, nblocks * 8);
    add_raw(l, S_TS_REACH, s->ts_reach, nblocks * 8);
    put_col(l, S_TS, S_TS_ESC, &s->ts, s->n);
    put_col(l, S_DUR, S_DUR_ESC, &s->dur, s->n);
    put_col(l, S_BYTES, S_BYTES_ESC, &s->bytes, s->n);
    put_col(l, S_CNT, S_CNT_ESC, &s->cnt, s->n);
    put_col(l, S_DURMAX, S_DURMAX_ESC, &s->durmax, s->n);
    put_ids(l, S_LANE, S_LANE16, &s->lane, s->n);
    put_ids(l, S_KIND, S_KIND16, &s->kind, s->n);
    put_ids(l, S_FILE, S_FILE16, &s->file, s->n);
    /* the slack the merge leaves after the records is zeroed by it too */
    add_raw(l, S_ARGS, s->args, s->args_len);
    add_raw(l, S_ARGS_IDX, s->args_idx, ((s->n >> DFN_ARGS_INDEX_SHIFT) + 1) * 8);
}

static bool write_all(int fd, const void *data, size_t len, uint64_t off)
{
    const uint8_t *p = data;
    while (len) {
        size_t step = len < ((size_t)1 << 30) ? len : (size_t)1 << 30;
        ssize_t w = pwrite(fd, p, step, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { if (w == 0) errno = ENOSPC; return false; }
        p += w;
        off += (uint64_t)w;
        len -= (size_t)w;
    }
    return true;
}

static void header_bytes(uint8_t *h, const section_list *l, uint64_t total, const dfn_image_ident *id,
                         const dfn_store *s, const uint8_t *table)
{
    memset(h, 0, IMG_HEADER);
    memcpy(h, IMG_MAGIC, 8);
    uint32_t version = DFN_IMAGE_VERSION, nsect = (uint32_t)l->n;
    uint64_t key = dfn_image_key(id), events = s->n, tsum = img_sum(table, l->n * IMG_ENTRY);
    memcpy(h + 8, &version, 4);
    memcpy(h + 12, &nsect, 4);
    memcpy(h + 16, &total, 8);
    memcpy(h + 24, &key, 8);
    memcpy(h + 32, &id->opts, 8);
    memcpy(h + 40, &events, 8);
    memcpy(h + 48, &tsum, 8);
    uint64_t hsum = img_sum(h, 56);
    memcpy(h + 56, &hsum, 8);
}

static void put_rebuild(section_list *l, const dfn_rebuild *r)
{
    wbuf b = { 0 };
    for (size_t i = 0; r && i < r->nsrc; i++) { wb_u32(&b, r->era[i]); wb_u32(&b, r->version[i]); wb_u8(&b, r->reusable[i]); }
    add_buf(l, S_RB_SRC, &b);
    for (size_t i = 0; r && i < r->nlanes; i++) {
        const dfn_rb_lane *x = &r->lanes[i];
        wb_u32(&b, x->src); wb_u32(&b, x->host); wb_u64(&b, (uint64_t)x->pid); wb_u64(&b, (uint64_t)x->tid);
        wb_u8(&b, x->collapsed);
    }
    add_buf(l, S_RB_LANES, &b);
    for (size_t i = 0; r && i < r->nkinds; i++) {
        const dfn_rb_kind *k = &r->kinds[i];
        wb_u32(&b, k->cat); wb_u32(&b, k->func); wb_u8(&b, k->type); wb_u8(&b, k->collapsed);
    }
    add_buf(l, S_RB_KINDS, &b);
    for (size_t i = 0; r && i < r->nfiles; i++) { wb_u32(&b, r->files[i].ref); wb_u8(&b, r->files[i].collapsed); }
    add_buf(l, S_RB_FILES, &b);
    uint32_t nh = r ? dfn_strtab_count(r->hashes) : 0;
    wb_u32(&b, nh);
    for (uint32_t i = 0; i < nh; i++) wb_str(&b, dfn_strtab_str(r->hashes, i), dfn_strtab_len(r->hashes, i));
    add_buf(l, S_RB_HASHES, &b);
    for (size_t i = 0; r && i < r->nmeta; i++) {
        const dfn_meta *m = &r->meta[i];
        wb_u32(&b, r->meta_src[i]); wb_u8(&b, m->type); wb_u32(&b, m->hash_ref); wb_u32(&b, m->name);
        wb_u64(&b, m->line); wb_u64(&b, (uint64_t)m->pid); wb_u64(&b, (uint64_t)m->tid);
    }
    add_buf(l, S_RB_META, &b);
    for (size_t i = 0; r && i < r->ncs; i++) {
        const dfn_csample *c = &r->cs[i];
        uint64_t bits;
        memcpy(&bits, &c->value, 8);
        wb_u32(&b, r->cs_src[i]); wb_u64(&b, c->ts); wb_u64(&b, (uint64_t)c->pid); wb_u32(&b, c->host);
        wb_u32(&b, c->name); wb_u32(&b, c->key); wb_u64(&b, bits);
    }
    add_buf(l, S_RB_CS, &b);
}

bool dfn_image_write(int fd, const dfn_store *s, const dfn_image_ident *id)
{
    section_list l = { .n = 0 };
    put_meta(&l, s);
    put_sources(&l, s, id);
    put_tables(&l, s);
    put_rebuild(&l, s->rebuild);
    put_columns(&l, s);
    uint64_t off = IMG_HEADER + l.n * IMG_ENTRY;
    const uint8_t *bases[IMG_MAX_SECTIONS];
    for (size_t i = 0; i < l.n; i++) {
        off = (off + IMG_ALIGN - 1) / IMG_ALIGN * IMG_ALIGN;
        l.sec[i].off = off;
        off += l.sec[i].len;
        bases[i] = l.sec[i].data;
    }
    uint64_t total = (off + IMG_ALIGN - 1) / IMG_ALIGN * IMG_ALIGN;
    sections_sum(l.sec, l.n, bases, dfn_ncpus());
    uint8_t *table = dfn_xcalloc(l.n, IMG_ENTRY), head[IMG_HEADER];
    for (size_t i = 0; i < l.n; i++) {
        uint8_t *e = table + i * IMG_ENTRY;
        memcpy(e, &l.sec[i].id, 4);
        memcpy(e + 8, &l.sec[i].off, 8);
        memcpy(e + 16, &l.sec[i].len, 8);
        memcpy(e + 24, &l.sec[i].sum, 8);
    }
    header_bytes(head, &l, total, id, s, table);
    /* blocks reserved at once, not page by page as the writes come; a
     * file system without fallocate gets a sparse file */
    int fa = posix_fallocate(fd, 0, (off_t)total);
    if (fa) errno = fa;
    bool ok = (fa == 0 || (fa != ENOSPC && fa != EFBIG && ftruncate(fd, (off_t)total) == 0)) &&
              write_all(fd, head, IMG_HEADER, 0) &&
              write_all(fd, table, l.n * IMG_ENTRY, IMG_HEADER);
    for (size_t i = 0; i < l.n && ok; i++) ok = write_all(fd, l.sec[i].data, l.sec[i].len, l.sec[i].off);
    int saved = errno;
    free(table);
    for (size_t i = 0; i < l.n; i++) free(l.sec[i].own);
    errno = saved;
    return ok;
}

/* ---- reading ---- */

/* A mapped image: its bytes and where each section lies. */
typedef struct {
    const uint8_t *p;
    size_t len;
    section sec[S_END];       /* by id; len of an absent section is 0, off 0 */
    bool have[S_END];
    uint64_t key, opts, events;
    uint32_t version;
} image;

static bool fail(char *err, size_t cap, const char *why)
{
    snprintf(err, cap, "%s", why);
    return false;
}

static int by_offset(const void *a, const void *b)
{
    const section *x = *(section *const *)a, *y = *(section *const *)b;
    /* an empty section may stand where the next one starts: it goes first */
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* The bytes no section holds are zeros, and sections do not overlap the
 * table or each other: then every byte of an image is checked. */
static bool gaps_zero(const image *im, uint64_t from)
{
    const section *order[S_END];
    size_t n = 0;
    for (uint32_t id = 1; id < S_END; id++) order[n++] = &im->sec[id];
    qsort(order, n, sizeof *order, by_offset);
    uint64_t at = from;
    for (size_t i = 0; i <= n; i++) {
        uint64_t next = i < n ? order[i]->off : im->len;
        if (next < at) return false;
        for (uint64_t b = at; b < next; b++)
            if (im->p[b]) return false;
        if (i < n && order[i]->off + order[i]->len > at) at = order[i]->off + order[i]->len;
    }
    return true;
}

/* Checks the header and the section table (not the sections' sums). */
static bool image_parse(image *im, char *err, size_t cap)
{
    const uint8_t *h = im->p;
    if (im->len < IMG_HEADER || memcmp(h, IMG_MAGIC, 8) != 0) return fail(err, cap, "not a dfnav image");
    uint64_t hsum, tsum, total;
    uint32_t nsect;
    memcpy(&im->version, h + 8, 4);
    memcpy(&hsum, h + 56, 8);
    if (img_sum(h, 56) != hsum) return fail(err, cap, "damaged header");
    if (im->version != DFN_IMAGE_VERSION) return fail(err, cap, "made by another version of dfnav");
    memcpy(&nsect, h + 12, 4);
    memcpy(&total, h + 16, 8);
    memcpy(&im->key, h + 24, 8);
    memcpy(&im->opts, h + 32, 8);
    memcpy(&im->events, h + 40, 8);
    memcpy(&tsum, h + 48, 8);
    if (total != im->len) return fail(err, cap, "cut short or grown");
    if (nsect > IMG_MAX_SECTIONS || IMG_HEADER + (size_t)nsect * IMG_ENTRY > im->len)
        return fail(err, cap, "damaged section table");
    if (img_sum(h + IMG_HEADER, (size_t)nsect * IMG_ENTRY) != tsum) return fail(err, cap, "damaged section table");
    for (uint32_t i = 0; i < nsect; i++) {
        const uint8_t *e = h + IMG_HEADER + (size_t)i * IMG_ENTRY;
        section s = { 0 };
        memcpy(&s.id, e, 4);
        memcpy(&s.off, e + 8, 8);
        memcpy(&s.len, e + 16, 8);
        memcpy(&s.sum, e + 24, 8);
        if (s.id == 0 || s.id >= S_END || im->have[s.id] || s.off > im->len || s.len > im->len - s.off ||
            s.off % IMG_ALIGN)
            return fail(err, cap, "damaged section table");
        im->sec[s.id] = s;
        im->have[s.id] = true;
    }
    for (uint32_t id = 1; id < S_END; id++)
        if (!im->have[id]) return fail(err, cap, "a section is missing");
    return gaps_zero(im, IMG_HEADER + (size_t)nsect * IMG_ENTRY) || fail(err, cap, "damaged (between sections)");
}

/* Checks every section's sum; the id columns' largest values land in
 * their sections' max. */
static bool image_verify(image *im, int threads, char *err, size_t cap)
{
    section sec[S_END];
    const uint8_t *bases[S_END];
    size_t n = 0;
    for (uint32_t id = 1; id < S_END; id++) {
        sec[n] = im->sec[id];
        bases[n] = im->p + im->sec[id].off;
        n++;
    }
    uint64_t want[S_END];
    for (size_t i = 0; i < n; i++) want[i] = sec[i].sum;
    sections_sum(sec, n, bases, threads);
    for (size_t i = 0; i < n; i++) {
        if (sec[i].sum != want[i]) return fail(err, cap, "damaged (a checksum does not match)");
        im->sec[sec[i].id].max = sec[i].max;
    }
    return true;
}

static rbuf sect(const image *im, uint32_t id)
{
    const uint8_t *p = im->p + im->sec[id].off;
    return (rbuf){ p, p + im->sec[id].len, false };
}

static const void *sect_ptr(const image *im, uint32_t id) { return im->p + im->sec[id].off; }

/* An id column from the section that holds it (ids_sized checked which). */
static void ids_map(const image *im, uint32_t id32, uint32_t id16, dfn_ids *c)
{
    *c = (dfn_ids){ NULL, NULL };
    if (im->sec[id16].len) c->v16 = (uint16_t *)sect_ptr(im, id16);
    else c->v32 = (uint32_t *)sect_ptr(im, id32);
}

/* The scalars of S_META, in the order put_meta writes them. */
enum { M_N, M_T0, M_T1, M_ARGS_LEN, M_NLANES, M_NKINDS, M_NFILES, M_NSCHEMAS, M_NSRC, M_NSAMPLES,
       M_NSERIES, M_CONFLICTS, M_CONFLICT_SRC, M_CONFLICT_LINE, M_UNRESOLVED, M_NSTRS, M_HAS_CNT,
       M_ESC_TS, M_ESC_DUR, M_ESC_BYTES, M_ESC_CNT, M_ESC_DURMAX, M_COUNT };

/* Whether a section holds exactly count records of size bytes. */
static bool sized(const image *im, uint32_t id, uint64_t count, uint64_t size)
{
    return count <= im->len / (size ? size : 1) && im->sec[id].len == count * size;
}

/* Whether an id column holds n ids in one of its two sections, the
 * other empty. */
static bool ids_sized(const image *im, uint32_t id32, uint32_t id16, uint64_t n)
{
    return (sized(im, id32, n, 4) && sized(im, id16, 0, 2)) || (sized(im, id32, 0, 4) && sized(im, id16, n, 2));
}

/* An id column's largest id (an empty section's is 0). */
static uint32_t ids_max(const image *im, uint32_t id32, uint32_t id16)
{
    return im->sec[id32].max > im->sec[id16].max ? im->sec[id32].max : im->sec[id16].max;
}

static bool meta_read(const image *im, uint64_t *m)
{
    rbuf r = sect(im, S_META);
    for (size_t i = 0; i < M_COUNT; i++) m[i] = rb_u64(&r);
    if (r.bad || r.p != r.end || m[M_HAS_CNT] > 1) return false;
    uint64_t n = m[M_N], nb = (n >> DFN_TS_BLOCK_SHIFT) + 1;
    if (n >= UINT32_MAX * (uint64_t)256 || m[M_NSTRS] >= UINT32_MAX || m[M_NLANES] >= UINT32_MAX ||
        m[M_NKINDS] >= UINT32_MAX || m[M_NFILES] >= UINT32_MAX || m[M_NSERIES] >= UINT32_MAX)
        return false;
    bool ok = sized(im, S_TS_BASE, nb, 8) && sized(im, S_TS_REACH, nb, 8) &&
              sized(im, S_TS, n, 4) && sized(im, S_DUR, n, 4) && sized(im, S_BYTES, n, 4) &&
              sized(im, S_CNT, m[M_HAS_CNT] ? n : 0, 4) && sized(im, S_DURMAX, m[M_HAS_CNT] ? n : 0, 4) &&
              ids_sized(im, S_LANE, S_LANE16, n) && ids_sized(im, S_KIND, S_KIND16, n) &&
              ids_sized(im, S_FILE, S_FILE16, n) &&
              sized(im, S_ARGS, m[M_ARGS_LEN], 1) && sized(im, S_ARGS_IDX, (n >> DFN_ARGS_INDEX_SHIFT) + 1, 8) &&
              sized(im, S_TS_ESC, m[M_ESC_TS], 16) && sized(im, S_DUR_ESC, m[M_ESC_DUR], 16) &&
              sized(im, S_BYTES_ESC, m[M_ESC_BYTES], 16) && sized(im, S_CNT_ESC, m[M_ESC_CNT], 16) &&
              sized(im, S_DURMAX_ESC, m[M_ESC_DURMAX], 16) &&
              sized(im, S_LANES, m[M_NLANES], 36) && sized(im, S_KINDS, m[M_NKINDS], 16) &&
              sized(im, S_FILES, m[M_NFILES], 20) && sized(im, S_SAMPLES, m[M_NSAMPLES], 32) &&
              sized(im, S_SERIES, m[M_NSERIES], 4);
    /* ids in the columns name rows of the tables; file 0 is "no file" */
    if (n && (ids_max(im, S_LANE, S_LANE16) >= m[M_NLANES] || ids_max(im, S_KIND, S_KIND16) >= m[M_NKINDS] ||
              ids_max(im, S_FILE, S_FILE16) >= m[M_NFILES]))
        return false;
    return ok && m[M_NFILES] >= 1 && (m[M_CONFLICTS] == 0 || m[M_CONFLICT_SRC] < m[M_NSRC]);
}

static bool strs_read(const image *im, dfn_store *s, uint64_t nstrs)
{
    rbuf r = sect(im, S_STRS);
    s->strs = dfn_strtab_new();
    for (uint64_t i = 0; i < nstrs; i++) {
        uint32_t len = rb_u32(&r);
        const char *p = rb_take(&r, len);
        if (!p || dfn_strtab_intern(s->strs, p, len) != i) return false;
    }
    return !r.bad && r.p == r.end;
}

static bool tables_read(const image *im, dfn_store *s, const uint64_t *m)
{
    uint32_t ns = dfn_strtab_count(s->strs);
    rbuf r = sect(im, S_LANES);
    size_t namecap = 0;
    s->nlanes = m[M_NLANES];
    s->lanes = dfn_xcalloc(s->nlanes ? s->nlanes : 1, sizeof *s->lanes);
    bool ok = true;
    for (size_t i = 0; i < s->nlanes; i++) {
        dfn_lane *x = &s->lanes[i];
        x->host = rb_u32(&r); x->pid = (int64_t)rb_u64(&r); x->tid = (int64_t)rb_u64(&r);
        x->name = rb_u32(&r); x->rank = rb_u32(&r);
        uint32_t pname = rb_u32(&r), tname = rb_u32(&r);
        ok &= x->host < ns && x->name < ns && x->rank < ns && (pname < ns || pname == DFN_NOID) && (tname < ns || tname == DFN_NOID);
        dfn_store_lane_names_set(s, i, pname, tname, &namecap);
    }
    r = sect(im, S_KINDS);
    s->nkinds = m[M_NKINDS];
    s->kinds = dfn_xcalloc(s->nkinds ? s->nkinds : 1, sizeof *s->kinds);
    for (size_t i = 0; i < s->nkinds; i++) {
        dfn_kind *k = &s->kinds[i];
        k->cat = rb_u32(&r); k->func = rb_u32(&r); k->cls = rb_u8(&r); k->op = rb_u8(&r);
        uint8_t io = rb_u8(&r);
        k->io = io == 1; k->type = rb_u8(&r); k->type_name = rb_u32(&r);
        ok &= k->cat < ns && k->func < ns && k->type_name < ns && k->cls < DFN_CLASS_COUNT && k->op < DFN_OP_COUNT && io <= 1;
    }
    r = sect(im, S_FILES);
    s->nfiles = m[M_NFILES];
    s->files = dfn_xcalloc(s->nfiles, sizeof *s->files);
    for (size_t i = 0; i < s->nfiles; i++) {
        dfn_file *f = &s->files[i];
        f->path = rb_u32(&r); f->pattern = rb_u32(&r); f->dir = rb_u32(&r); f->fs = rb_u32(&r); f->part = rb_u32(&r);
        ok &= f->path < ns && f->pattern < ns && f->dir < ns && f->fs < ns && f->part < ns;
    }
    return ok;
}

static bool schemas_read(const image *im, dfn_store *s, uint64_t nschemas)
{
    rbuf r = sect(im, S_SCHEMAS);
    uint32_t ns = dfn_strtab_count(s->strs);
    if (nschemas > im->sec[S_SCHEMAS].len / 4) return false;
    dfn_store_schemas_alloc(s, nschemas);
    for (size_t i = 0; i < nschemas; i++) {
        uint32_t len = rb_u32(&r);
        if (r.bad || len > DFN_ARGS_MAX) return false;
        s->schema_len[i] = (uint16_t)len;
        s->schema_keys[i] = dfn_xmalloc((len ? len : 1) * sizeof(uint32_t));
        s->schema_types[i] = dfn_xmalloc(len ? len : 1);
        for (uint32_t j = 0; j < len; j++) {
            s->schema_keys[i][j] = rb_u32(&r);
            s->schema_types[i][j] = rb_u8(&r);
            uint8_t ty = s->schema_types[i][j];
            /* DFN_ARG_SAME repeats a value: one must come before it */
            bool after_value = j && (dfn_argtype_valued(s->schema_types[i][j - 1]) ||
                                     s->schema_types[i][j - 1] == DFN_ARG_SAME);
            if (s->schema_keys[i][j] >= ns || ty > DFN_ARG_SAME || (ty == DFN_ARG_SAME && !after_value)) return false;
            if (dfn_argtype_valued(ty)) s->schema_nval[i]++;
        }
    }
    return !r.bad && r.p == r.end;
}

static bool samples_read(const image *im, dfn_store *s, const uint64_t *m)
{
    uint32_t ns = dfn_strtab_count(s->strs);
    rbuf r = sect(im, S_SERIES);
    s->nseries = m[M_NSERIES];
    s->series = s->nseries ? dfn_xmalloc(s->nseries * sizeof *s->series) : NULL;
    bool ok = true;
    for (size_t i = 0; i < s->nseries; i++) { s->series[i] = rb_u32(&r); ok &= s->series[i] < ns; }
    r = sect(im, S_SAMPLES);
    s->nsamples = m[M_NSAMPLES];
    s->samples = s->nsamples ? dfn_xmalloc(s->nsamples * sizeof *s->samples) : NULL;
    for (size_t i = 0; i < s->nsamples; i++) {
        dfn_sample *x = &s->samples[i];
        x->ts = rb_u64(&r);
        uint64_t bits = rb_u64(&r);
        memcpy(&x->value, &bits, 8);
        x->series = rb_u32(&r); x->host = rb_u32(&r); x->pid = (int64_t)rb_u64(&r);
        ok &= x->series < s->nseries && x->host < ns;
    }
    return ok;
}

static bool source_read(rbuf *r, dfn_store *s, dfn_srcinfo *si)
{
    char *era = rb_cstr(r);
    si->era = era ? dfn_store_label(s, era) : NULL;
    free(era);
    si->gzip = rb_u8(r) != 0;
    /* the rarer figures are read aside and kept only when there are some */
    dfn_srcmore m;
    memset(&m, 0, sizeof m);
    uint64_t *v[] = { &si->size_bytes, &si->lines, &si->events, &si->metadata, &si->malformed, &si->start_us,
                      &si->end_us, &m.long_lines, &si->skipped, &m.counters, &m.other, &m.agg_records,
                      &m.agg_calls };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) *v[i] = rb_u64(r);
    uint64_t unit = rb_u64(r), declared = rb_u64(r), unknown = rb_u64(r);
    m.ns_rounding = rb_u64(r);
    m.ns_zeroed = rb_u64(r);
    m.ns_total = rb_u64(r);
    m.frac_times = rb_u64(r);
    if (unit > DFN_UNIT_SEC || declared > 1 || unknown > 1) r->bad = true;
    si->unit = (dfn_unit)unit;
    si->unit_declared = declared;
    m.unit_unknown = unknown;
    uint32_t nbad = rb_u32(r);
    if (nbad > DFN_MAX_BAD_LINES) r->bad = true;
    if (nbad && !r->bad) {
        m.bad_lines = dfn_xcalloc(DFN_MAX_BAD_LINES, sizeof *m.bad_lines);
        m.bad_reason = dfn_xcalloc(DFN_MAX_BAD_LINES, sizeof *m.bad_reason);
    }
    for (uint32_t i = 0; i < nbad && !r->bad; i++) {
        m.bad_lines[i] = rb_u64(r);
        m.bad_reason[i] = rb_cstr(r);
        m.nbad = i + 1;
        if (!m.bad_reason[i]) r->bad = true;
    }
    dfn_phcount ph[DFN_PH_KINDS];
    bool any = false;
    for (size_t k = 0; k < DFN_PH_KINDS; k++) {
        const char *t = rb_take(r, DFN_PH_LABEL);
        memset(ph[k].ph, 0, DFN_PH_LABEL);
        if (t) memcpy(ph[k].ph, t, DFN_PH_LABEL - 1);
        ph[k].n = rb_u64(r);
        any |= ph[k].n != 0;
    }
    if (any) memcpy(dfn_phcount_room(&m.other_ph), ph, sizeof ph);
    m.error = rb_cstr(r);
    m.cfg = rb_cstr(r);
    m.app = rb_cstr(r);
    /* owned by si from here, freed with it even when the image is bad */
    if (dfn_srcmore_any(&m)) *dfn_srcinfo_more(si) = m;
    return !r->bad && si->era;
}

static bool sources_read(const image *im, dfn_store *s, const dfn_image_ident *id)
{
    rbuf r = sect(im, S_SRC);
    s->nsrc = id->n;
    s->src = dfn_xcalloc(id->n ? id->n : 1, sizeof *s->src);
    dfn_store_paths(s, id->paths);
    for (size_t i = 0; i < id->n; i++)
        if (!source_read(&r, s, &s->src[i])) return false;
    return r.p == r.end;
}

/* A column's escapes, copied: sorted by index, each below n. */
static bool esc_read(const image *im, uint32_t id, uint64_t nesc, uint64_t n, dfn_col32 *c)
{
    c->nesc = c->esccap = nesc;
    c->esc = nesc ? dfn_xmalloc(nesc * sizeof *c->esc) : NULL;
    if (nesc) memcpy(c->esc, sect_ptr(im, id), nesc * sizeof *c->esc);
    for (size_t i = 0; i < nesc; i++)
        if (c->esc[i].idx >= n || (i && c->esc[i].idx <= c->esc[i - 1].idx)) return false;
    return true;
}

static bool columns_read(const image *im, dfn_store *s, const uint64_t *m)
{
    s->n = m[M_N];
    s->t0 = m[M_T0];
    s->t1 = m[M_T1];
    s->ts_base = (uint64_t *)sect_ptr(im, S_TS_BASE);
    s->ts_reach = (uint64_t *)sect_ptr(im, S_TS_REACH);
    s->ts.v = (uint32_t *)sect_ptr(im, S_TS);
    s->dur.v = (uint32_t *)sect_ptr(im, S_DUR);
    s->bytes.v = (uint32_t *)sect_ptr(im, S_BYTES);
    if (m[M_HAS_CNT]) {
        s->cnt.v = (uint32_t *)sect_ptr(im, S_CNT);
        s->durmax.v = (uint32_t *)sect_ptr(im, S_DURMAX);
    }
    ids_map(im, S_LANE, S_LANE16, &s->lane);
    ids_map(im, S_KIND, S_KIND16, &s->kind);
    ids_map(im, S_FILE, S_FILE16, &s->file);
    s->args = (uint8_t *)sect_ptr(im, S_ARGS);
    s->args_len = m[M_ARGS_LEN];
    s->args_idx = (uint64_t *)sect_ptr(im, S_ARGS_IDX);
    bool ok = esc_read(im, S_TS_ESC, m[M_ESC_TS], s->n, &s->ts) && esc_read(im, S_DUR_ESC, m[M_ESC_DUR], s->n, &s->dur) &&
              esc_read(im, S_BYTES_ESC, m[M_ESC_BYTES], s->n, &s->bytes) &&
              esc_read(im, S_CNT_ESC, m[M_ESC_CNT], s->n, &s->cnt) &&
              esc_read(im, S_DURMAX_ESC, m[M_ESC_DURMAX], s->n, &s->durmax);
    /* a record is read from its index entry on: never past the records */
    for (size_t i = 0, nidx = (s->n >> DFN_ARGS_INDEX_SHIFT) + 1; ok && i < nidx; i++)
        ok = s->args_idx[i] <= s->args_len && (!i || s->args_idx[i] >= s->args_idx[i - 1]);
    return ok;
}

/* Whether the image was built from exactly these files and options. */
static bool ident_match(const image *im, const dfn_image_ident *id)
{
    if (im->opts != id->opts || !sized(im, S_IDENT, id->n, 32)) return false;
    rbuf r = sect(im, S_IDENT);
    for (size_t i = 0; i < id->n; i++) {
        dfn_fileid f = { rb_u64(&r), rb_u64(&r), rb_u64(&r), rb_u64(&r) };
        if (!dfn_fileid_eq(&f, &id->ids[i])) return false;
    }
    return true;
}

/* Maps a whole file read-only; NULL with err set otherwise, and *bad set
 * when the file cannot be an image at all (too short, not a file). */
static const uint8_t *map_file(const char *path, size_t *len, bool populate, char *err, size_t cap, bool *bad)
{
    *bad = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { snprintf(err, cap, "%s", strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < IMG_HEADER) {
        close(fd);
        snprintf(err, cap, "not a dfnav image (cut short?)");
        *bad = true;
        return NULL;
    }
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (populate) flags |= MAP_POPULATE;    /* the checksums read every page at once */
#else
    (void)populate;
#endif
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    close(fd);
    if (p == MAP_FAILED) { snprintf(err, cap, "%s", strerror(errno)); return NULL; }
    *len = (size_t)st.st_size;
    return p;
}

static bool rb_src_read(const image *im, dfn_rebuild *r, size_t nsrc)
{
    if (!sized(im, S_RB_SRC, nsrc, 9)) return false;
    rbuf b = sect(im, S_RB_SRC);
    r->nsrc = nsrc;
    r->era = dfn_xcalloc(nsrc ? nsrc : 1, sizeof *r->era);
    r->version = dfn_xcalloc(nsrc ? nsrc : 1, sizeof *r->version);
    r->reusable = dfn_xcalloc(nsrc ? nsrc : 1, 1);
    for (size_t i = 0; i < nsrc; i++) { r->era[i] = rb_u32(&b); r->version[i] = rb_u32(&b); r->reusable[i] = rb_u8(&b) == 1; }
    return !b.bad;
}

/* The tables that name the store's lanes, kinds and files as parsed; the
 * ids in them are checked as they are used (rebuild.c). */
static bool rb_tables_read(const image *im, dfn_rebuild *r, const dfn_store *s)
{
    if (!sized(im, S_RB_LANES, s->nlanes, 25) || !sized(im, S_RB_KINDS, s->nkinds, 10) ||
        !sized(im, S_RB_FILES, s->nfiles, 5))
        return false;
    rbuf b = sect(im, S_RB_LANES);
    r->nlanes = s->nlanes;
    r->lanes = dfn_xcalloc(r->nlanes ? r->nlanes : 1, sizeof *r->lanes);
    for (size_t i = 0; i < r->nlanes; i++) {
        dfn_rb_lane *x = &r->lanes[i];
        x->src = rb_u32(&b); x->host = rb_u32(&b); x->pid = (int64_t)rb_u64(&b); x->tid = (int64_t)rb_u64(&b);
        x->collapsed = rb_u8(&b) != 0;
        if (x->src >= r->nsrc) x->src = DFN_RB_MANY;
    }
    b = sect(im, S_RB_KINDS);
    r->nkinds = s->nkinds;
    r->kinds = dfn_xcalloc(r->nkinds ? r->nkinds : 1, sizeof *r->kinds);
    for (size_t i = 0; i < r->nkinds; i++) {
        dfn_rb_kind *k = &r->kinds[i];
        k->cat = rb_u32(&b); k->func = rb_u32(&b); k->type = rb_u8(&b); k->collapsed = rb_u8(&b) != 0;
    }
    b = sect(im, S_RB_FILES);
    r->nfiles = s->nfiles;
    r->files = dfn_xcalloc(r->nfiles ? r->nfiles : 1, sizeof *r->files);
    for (size_t i = 0; i < r->nfiles; i++) { r->files[i].ref = rb_u32(&b); r->files[i].collapsed = rb_u8(&b) != 0; }
    b = sect(im, S_RB_HASHES);
    uint32_t nh = rb_u32(&b);
    r->hashes = dfn_strtab_new();
    for (uint32_t i = 0; i < nh && !b.bad; i++) {
        uint32_t len = rb_u32(&b);
        const char *p = rb_take(&b, len);
        if (!p || dfn_strtab_intern(r->hashes, p, len) != i) return false;
    }
    return !b.bad && b.p == b.end;
}

static bool rb_records_read(const image *im, dfn_rebuild *r)
{
    if (im->sec[S_RB_META].len % 37 || im->sec[S_RB_CS].len % 40) return false;
    rbuf b = sect(im, S_RB_META);
    r->nmeta = im->sec[S_RB_META].len / 37;
    r->meta = dfn_xcalloc(r->nmeta ? r->nmeta : 1, sizeof *r->meta);
    r->meta_src = dfn_xcalloc(r->nmeta ? r->nmeta : 1, sizeof *r->meta_src);
    for (size_t i = 0; i < r->nmeta; i++) {
        dfn_meta *m = &r->meta[i];
        r->meta_src[i] = rb_u32(&b);
        m->type = rb_u8(&b); m->hash_ref = rb_u32(&b); m->name = rb_u32(&b);
        m->line = rb_u64(&b); m->pid = (int64_t)rb_u64(&b); m->tid = (int64_t)rb_u64(&b);
    }
    b = sect(im, S_RB_CS);
    r->ncs = im->sec[S_RB_CS].len / 40;
    r->cs = dfn_xcalloc(r->ncs ? r->ncs : 1, sizeof *r->cs);
    r->cs_src = dfn_xcalloc(r->ncs ? r->ncs : 1, sizeof *r->cs_src);
    for (size_t i = 0; i < r->ncs; i++) {
        dfn_csample *c = &r->cs[i];
        r->cs_src[i] = rb_u32(&b);
        c->ts = rb_u64(&b); c->pid = (int64_t)rb_u64(&b); c->host = rb_u32(&b);
        c->name = rb_u32(&b); c->key = rb_u32(&b);
        uint64_t bits = rb_u64(&b);
        memcpy(&c->value, &bits, 8);
    }
    return !b.bad;
}

/* The store of a checked image: the columns in the mapping, the tables
 * copied out; sources named by paths. NULL when its contents do not hold
 * together. */
static dfn_store *image_store(image *im, const char *const *paths, size_t npaths, char *err, size_t cap)
{
    uint64_t m[M_COUNT];
    dfn_store *s = dfn_xcalloc(1, sizeof *s);
    s->map = (void *)im->p;
    s->map_len = im->len;
    dfn_image_ident id = { NULL, paths, npaths, 0 };
    if (!meta_read(im, m) || m[M_NSRC] != npaths || !strs_read(im, s, m[M_NSTRS]) || !tables_read(im, s, m) ||
        !schemas_read(im, s, m[M_NSCHEMAS]) || !samples_read(im, s, m) || !sources_read(im, s, &id) ||
        !columns_read(im, s, m)) {
        fail(err, cap, "damaged (its contents do not hold together)");
        dfn_store_free(s);
        return NULL;
    }
    s->hash_conflicts = m[M_CONFLICTS];
    s->hash_conflict_src = m[M_CONFLICT_SRC];
    s->hash_conflict_line = m[M_CONFLICT_LINE];
    s->unresolved_hashes = m[M_UNRESOLVED];
    return s;
}

dfn_store *dfn_image_map_reuse(const char *path, int threads, dfn_rebuild **rb, char *err, size_t cap)
{
    image im = { 0 };
    *rb = NULL;
    bool bad;
    im.p = map_file(path, &im.len, true, err, cap, &bad);
    if (!im.p) return NULL;
    if (!image_parse(&im, err, cap) || !image_verify(&im, threads, err, cap)) {
        munmap((void *)im.p, im.len);
        return NULL;
    }
    rbuf r = sect(&im, S_PATHS);
    size_t n = im.sec[S_IDENT].len / 32;
    char **paths = dfn_xcalloc(n ? n : 1, sizeof *paths);
    for (size_t i = 0; i < n; i++) {
        paths[i] = rb_cstr(&r);
        if (!paths[i]) paths[i] = dfn_xstrdup("?");
    }
    dfn_store *s = image_store(&im, (const char *const *)paths, n, err, cap);
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    if (!s) return NULL;
    dfn_rebuild *x = dfn_xcalloc(1, sizeof *x);
    if (im.sec[S_RB_SRC].len == 0 || !rb_src_read(&im, x, s->nsrc) || !rb_tables_read(&im, x, s) ||
        !rb_records_read(&im, x)) {
        fail(err, cap, im.sec[S_RB_SRC].len ? "damaged (its contents do not hold together)" : "keeps no files to reuse");
        dfn_rebuild_free(x);
        dfn_store_free(s);
        return NULL;
    }
    *rb = x;
    return s;
}

dfn_store *dfn_image_map(const char *path, const dfn_image_ident *id, int threads, char *err, size_t cap, bool *bad)
{
    image im = { 0 };
    im.p = map_file(path, &im.len, true, err, cap, bad);
    if (!im.p) return NULL;
    *bad = true;
    if (!image_parse(&im, err, cap)) goto bad;
    if (!ident_match(&im, id)) { fail(err, cap, "made from other files"); goto bad; }
    if (!image_verify(&im, threads, err, cap)) goto bad;
    return image_store(&im, id->paths, id->n, err, cap);
bad:
    munmap((void *)im.p, im.len);
    return NULL;
}

bool dfn_image_info_read(const char *path, dfn_image_info *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    image im = { 0 };
    bool bad;
    im.p = map_file(path, &im.len, false, err, cap, &bad);
    if (!im.p) return false;
    bool ok = image_parse(&im, err, cap);
    if (ok) {
        out->version = im.version;
        out->key = im.key;
        out->opts = im.opts;
        out->events = im.events;
        out->total_len = im.len;
        rbuf r = sect(&im, S_IDENT), rp = sect(&im, S_PATHS);
        size_t n = im.sec[S_IDENT].len / 32;
        out->ids = dfn_xcalloc(n ? n : 1, sizeof *out->ids);
        out->paths = dfn_xcalloc(n ? n : 1, sizeof *out->paths);
        for (size_t i = 0; i < n; i++) {
            out->ids[i] = (dfn_fileid){ rb_u64(&r), rb_u64(&r), rb_u64(&r), rb_u64(&r) };
            out->paths[i] = rb_cstr(&rp);
            if (!out->paths[i]) out->paths[i] = dfn_xstrdup("?");
        }
        out->nfiles = n;
    }
    munmap((void *)im.p, im.len);
    return ok;
}

void dfn_image_info_free(dfn_image_info *info)
{
    for (size_t i = 0; i < info->nfiles; i++) free(info->paths[i]);
    free(info->paths);
    free(info->ids);
    memset(info, 0, sizeof *info);
}

/* ---- a share's sources, for another process of the set ---- */

uint8_t *dfn_image_sources_encode(const dfn_store *s, size_t *len)
{
    wbuf b = { 0 };
    for (size_t i = 0; s && i < s->nsrc; i++) {
        wb_cstr(&b, s->src[i].path);
        put_source(&b, &s->src[i]);
    }
    *len = b.len;
    return b.p ? b.p : dfn_xcalloc(1, 1);
}

/* The set's paths (each once, in at, ids below distinct) and, by id,
 * the first of its sources; next[] chains a path given twice. */
typedef struct {
    dfn_strtab *at;
    size_t distinct;
    size_t *first, *next;
    bool *given;
} source_slots;

/* The index of the first source of path not yet given, or SIZE_MAX: a
 * path not in the set (interned now, or by an earlier part naming it
 * too: its id is past the set's) or none left of it. */
static size_t sources_slot(const source_slots *x, const char *path)
{
    uint32_t id = dfn_strtab_intern(x->at, path, strlen(path));
    if (id >= x->distinct) return SIZE_MAX;
    size_t i = x->first[id];
    while (i != SIZE_MAX && x->given[i]) i = x->next[i];
    return i;
}

/* One part's sources into s where their paths say; false when the part
 * is not whole or names a file the set has not (or has no more of). */
static bool sources_part(dfn_store *s, const uint8_t *p, size_t len, source_slots *x)
{
    rbuf r = { p, p + len, false };
    while (r.p < r.end) {
        char *path = rb_cstr(&r);
        size_t i = path ? sources_slot(x, path) : SIZE_MAX;
        free(path);
        if (i == SIZE_MAX) return false;
        dfn_srcinfo si = { 0 };
        bool ok = source_read(&r, s, &si);
        si.path = s->src[i].path;
        if (!ok) { dfn_srcinfo_free(&si); return false; }
        s->src[i] = si;
        x->given[i] = true;
    }
    return true;
}

dfn_store *dfn_image_sources_store(const char *const *paths, size_t n, const uint8_t *const *parts, const size_t *lens,
                                   size_t nparts, size_t *lost)
{
    dfn_store *s = dfn_xcalloc(1, sizeof *s);
    s->nsrc = n;
    s->src = dfn_xcalloc(n ? n : 1, sizeof *s->src);
    dfn_store_paths(s, paths);
    /* each path's sources in set order: a path given twice is two */
    source_slots x = { dfn_strtab_new(), 0, dfn_xmalloc((n ? n : 1) * sizeof *x.first),
                       dfn_xmalloc((n ? n : 1) * sizeof *x.next), dfn_xcalloc(n ? n : 1, sizeof *x.given) };
    size_t *last = dfn_xmalloc((n ? n : 1) * sizeof *last);
    for (size_t i = 0; i < n; i++) {
        size_t before = dfn_strtab_count(x.at);
        uint32_t id = dfn_strtab_intern(x.at, paths[i], strlen(paths[i]));
        x.next[i] = SIZE_MAX;
        if (id >= before) x.first[id] = last[id] = i;
        else x.next[last[id]] = i, last[id] = i;
    }
    x.distinct = dfn_strtab_count(x.at);
    *lost = 0;
    for (size_t k = 0; k < nparts; k++)
        if (parts[k] && !sources_part(s, parts[k], lens[k], &x)) (*lost)++;
    /* a file no part gave is still one of the set's: said, never dropped */
    for (size_t i = 0; i < n; i++) {
        if (x.given[i]) continue;
        s->src[i].era = dfn_store_label(s, "-");
        dfn_srcinfo_more(&s->src[i])->error = dfn_xstrdup("no account of this file came from the rank that read it");
    }
    free(x.given);
    free(x.first);
    free(x.next);
    free(last);
    dfn_strtab_free(x.at);
    return s;
}
