/* Internal to the loader: the tables shared by parser threads while a
 * trace set loads, the per-thread parser, the batch a block parses into,
 * and the compact sorted chunk a batch becomes until the store is built. */
#ifndef DFNAV_LOAD_H
#define DFNAV_LOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "dfnav/store.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"
#include "chunkmem.h"

/* A name reference before metadata is resolved: a string id, or (top bit
 * set) an index into the hash table, or none. */
#define DFN_REF_HASH 0x80000000u
#define DFN_REF_NONE UINT32_MAX

enum { DFN_META_HH, DFN_META_FH, DFN_META_SH, DFN_META_RANK, DFN_META_PNAME, DFN_META_TNAME };

#define DFN_KIND_KEY 9        /* bytes of a kind's key: cat, func, type */

typedef struct {
    uint32_t hash_ref;        /* index in ctx->hashes; RANK: the host's name ref */
    uint32_t name;            /* string id; RANK: the rank's text */
    uint8_t type;
    uint64_t line;            /* line within its block, 1-based */
    int64_t pid, tid;         /* RANK, PNAME: the process; TNAME: and the thread */
} dfn_meta;

/* Era hints seen in a file. */
enum {
    DFN_ERA_QUOTED = 1, DFN_ERA_NO_ID = 2, DFN_ERA_INLINE = 4, DFN_ERA_HASH_SMALL = 8,
    DFN_ERA_HASH_HEX = 16, DFN_ERA_HASH_U64 = 32, DFN_ERA_PH_NUM = 64, DFN_ERA_TYPE = 128,
    DFN_ERA_HASH_STR = 256
};

typedef struct {
    pthread_mutex_t lock;     /* guards every table below */
    dfn_strtab *strs;         /* names, paths, argument keys and values */
    dfn_strtab *hashes;       /* canonical hash text */
    dfn_strtab *lanes;        /* (host ref u32, pid i64, tid i64) as bytes */
    dfn_strtab *kinds;        /* (cat u32, func u32, type u8) as bytes */
    dfn_strtab *schemas;      /* [(key u32, type u8)...] as bytes */
} dfn_loadctx;

typedef struct {
    uint64_t line;
    const char *reason;       /* static text */
} dfn_badline;

/* One counter sample: a numeric field of a counter record. */
typedef struct {
    uint64_t ts;              /* in the file's unit until the build */
    int64_t pid;
    uint32_t host;            /* a name ref (see DFN_REF_HASH) */
    uint32_t name, key;       /* string ids of the record's name and the field */
    double value;
} dfn_csample;

/* What a block holds besides events, as counts and the few records kept. */
typedef struct {
    uint64_t lines, events, metadata, malformed, counters, other;
    uint64_t skipped;         /* blank, or only [ ] { } ][ */
    uint64_t pairs_pending;   /* B and E lines, events or malformed once paired */
    uint64_t agg_records, agg_calls;
    uint64_t frac_times;      /* ts and dur written with a fraction, read to the nearest unit */
    dfn_phcount *other_ph;    /* see dfn_phcount_room; NULL without such records */
    uint8_t unit;             /* dfn_unit the block's end record declares, 0 = none */
    bool unit_unknown;        /* an end record named a time_metric that is no unit */
    char *cfg, *app;          /* its end record's cfg and app as JSON (malloc'd), or NULL */
} dfn_blockinfo;

/* The end of a call begun by a "B" record (Chrome's begin/end pairs). */
typedef struct {
    uint64_t ts;              /* in the file's unit */
    uint32_t lane;            /* load-time lane ref */
    uint64_t line;            /* within its block, 1-based */
} dfn_endmark;

typedef struct dfn_batch dfn_batch;

/* One parsed block, in wide columns, in file order. */
struct dfn_batch {
    size_t n, cap;
    uint64_t *ts, *dur, *bytes;
    uint64_t *cnt, *durmax;   /* aggregated records: calls (0 = a single call) and longest; NULL without */
    uint32_t *lane, *kind, *file, *args_off;
    uint8_t *args; size_t args_len, args_cap;
    dfn_meta *meta; size_t nmeta, metacap;
    dfn_badline bad[DFN_MAX_BAD_LINES]; size_t nbad;
    dfn_blockinfo info;
    dfn_csample *cs; size_t ncs, cscap;
    uint64_t min_ts, max_end;
    unsigned era;
    uint32_t version;         /* from the start event, 0 if none */
    /* "B" records, made as calls of 0 µs until the build pairs them with
     * their "E" (which may be in a later block), with their lines */
    dfn_batch *begins;
    uint64_t *begin_line; size_t begin_cap;
    dfn_endmark *ends; size_t nends, endcap;
};

/* A chunk's column of ids few of its events differ in (a block is one
 * process's few threads and few dozen functions): a byte per event into
 * the chunk's table of the distinct ids, or the ids themselves where
 * there are more than 256 (a pack of many small files may have) and in
 * the chunks an image gives back (dfn_chunk_alloc's). 9 bytes a call
 * less for lanes, kinds and files, where all chunks at once are the
 * parse's peak. */
typedef struct {
    uint8_t *idx;             /* per event, into ids; NULL: ids holds one per event */
    uint32_t *ids;
    uint32_t ntab;            /* the table's ids (with idx) */
} dfn_idcol;

static inline uint32_t dfn_idcol_get(const dfn_idcol *c, size_t j)
{
    return c->idx ? c->ids[c->idx[j]] : c->ids[j];
}

/* A batch sorted by start time in compact columns. */
typedef struct {
    uint32_t src;             /* input file index */
    uint64_t seq;             /* block number within the file */
    size_t n;
    uint64_t ts_base;         /* absolute µs */
    dfn_col32 ts, dur, bytes;
    dfn_col32 cnt, durmax;    /* aggregated records (see dfn_batch); v NULL without */
    dfn_idcol lane, kind, file;   /* file: its DFN_REF_* ref */
    uint8_t *args; size_t args_len;
    size_t *args_idx;         /* offset in args of every 2^DFN_ARGS_INDEX_SHIFT-th event */
    uint8_t *args_size;       /* each event's record length; 0 = 255 or more */
    dfn_meta *meta; size_t nmeta;
    dfn_badline *bad; size_t nbad;   /* NULL without damage: a one-line file's chunk stays small */
    dfn_blockinfo info;
    dfn_csample *cs; size_t ncs;
    uint64_t min_ts, max_end;
    unsigned era;
    uint32_t version;
    dfn_batch *begins;        /* the block's B records and E marks (see dfn_batch) */
    uint64_t *begin_line;
    dfn_endmark *ends; size_t nends;
    void *map;                /* the columns and args live in one mapping */
    size_t map_len;
    bool map_heap;            /* a small chunk's: from the heap */
    dfn_chunkseg *seg;        /* where map lies in the load's chunk memory, or NULL: a mapping of its own */
    uint8_t *args_own;        /* records kept apart from the mapping (a chunk an image gave back), or NULL */
    /* a pack (see dfn_pack): the events of whole small files, each with its
     * file, and those files' figures; src is the first file's (for its
     * unit, which every file of a pack shares); NULL in other chunks */
    uint32_t *srcs;
    struct dfn_packfile *pf; size_t npf;
} dfn_chunk;

/* What a file packed whole gave, folded when it arrives (see
 * dfn_pack_add): its block is gone by the build. */
typedef struct dfn_packfile {
    uint32_t src;
    uint32_t era, version;
    uint32_t lines, events, skipped;
    uint64_t start_us, end_us;        /* 0/0 without events */
    uint64_t ns_rounding, ns_total, ns_zeroed;   /* as dfn_srcinfo's */
} dfn_packfile;

/* Whole files of one block and plain events (no metadata, damage,
 * counters, pairs, aggregated records or declared unit) gathered into one
 * growing batch: 20,000 one-line files would otherwise each hold a chunk
 * and its cursors in the merge (about 0.7 KB a file). Sealed into one
 * chunk, its events sorted by start time, ties by file and line, which is
 * the order their own chunks would have merged in. */
typedef struct {
    dfn_batch b;              /* the events in arrival order; b.args_off into b.args */
    uint32_t *srcs; size_t srccap;
    dfn_packfile *pf; size_t npf, pfcap;
    dfn_unit unit;            /* of every file packed: none declares one */
} dfn_pack;

/* Whether block b (its file's only block when whole) may join a pack. */
bool dfn_pack_fits(const dfn_batch *b, bool whole);
/* Adds b, file src's whole content, to the pack. */
void dfn_pack_add(dfn_pack *p, const dfn_batch *b, uint32_t src);
/* Whether the pack should be sealed before it grows further. */
bool dfn_pack_full(const dfn_pack *p);
/* The pack's events as a chunk, or NULL when it has none; the pack is
 * left empty for more. */
dfn_chunk *dfn_pack_seal(dfn_pack *p);
void dfn_pack_free(dfn_pack *p);
/* A value of file unit u in µs. */
static inline uint64_t dfn_unit_us(dfn_unit u, uint64_t v)
{
    return u == DFN_UNIT_US ? v : dfn_unit_to_us(u, v);
}
/* Adds a nanosecond duration's rounding to µs to a file's figures (see
 * dfn_srcinfo's ns_rounding, ns_zeroed and ns_total). */
static inline void dfn_ns_rounding_add(uint64_t d, uint64_t *rounding, uint64_t *total, uint64_t *zeroed)
{
    uint64_t r = d % 1000;
    *rounding += r >= 500 ? 1000 - r : r;
    *total = dfn_sat_add(*total, d);
    *zeroed += d && d < 500;
}

typedef struct dfn_parser dfn_parser;
dfn_parser *dfn_parser_new(dfn_loadctx *ctx);
void dfn_parser_free(dfn_parser *p);
/* Parses every line of a block into b (which it resets first). */
void dfn_parser_block(dfn_parser *p, const char *data, size_t len, dfn_batch *b);
/* Whether the line scanner may take lines (the default); tests turn it
 * off to read every line through tokens and compare. */
void dfn_parser_scan(dfn_parser *p, bool on);
/* Reads ts and dur (and an aggregated record's durations) of a file in
 * ms or s straight into µs, their fractions kept (1000.5 s is
 * 1000500000 µs), where they are otherwise read to the nearest whole unit
 * and multiplied at the build; every line goes through the token walk.
 * The loader reads such a file again so when it has fractions. */
void dfn_parser_prescale(dfn_parser *p, dfn_unit u);

void dfn_batch_free(dfn_batch *b);
/* A malloc'd copy of t's events: their columns and argument records, and
 * its time span (a chunk keeps its block's "B" records so). */
dfn_batch *dfn_batch_copy(const dfn_batch *t);
/* Appends from's events (columns and records, no aggregated records) to
 * the end of to, which grows; to's records must stay under 4 GiB. */
void dfn_batch_append(dfn_batch *to, const dfn_batch *from);
/* A chunk of n events whose columns (and, after them, room for args_len
 * bytes of records) are allocated but not set, lanes and kinds one id per
 * event; with the aggregated records' columns when agg. */
dfn_chunk *dfn_chunk_alloc(uint32_t src, uint64_t seq, size_t n, size_t args_len, bool agg);
/* An event of a batch by its start time, for sorting. */
typedef struct { uint64_t ts; uint32_t i; } dfn_tsidx;
/* A chunk of b's events order[0..n) in that order, their starts from
 * base (at most each), lanes and kinds in tables where they fit. */
dfn_chunk *dfn_chunk_of(dfn_chunkmem *mem, const dfn_batch *b, uint32_t src, uint64_t seq,
                        const dfn_tsidx *order, size_t n, uint64_t base);
/* Sorts a batch by start time into a new compact chunk. Its mapping comes
 * from mem (see chunkmem.h) where mem is not NULL and it suits. */
dfn_chunk *dfn_chunk_from_batch(dfn_chunkmem *mem, const dfn_batch *b, uint32_t src, uint64_t seq);
void dfn_chunk_free(dfn_chunk *c);

/* Pairs the "B" and "E" records of chunks (sorted by file and block) per
 * file; counts the pairs as events and the rest as malformed in src (by
 * file); returns a chunk of the paired calls per file that has any. */
dfn_chunk **dfn_pairs_build(dfn_chunk *const *chunks, size_t nchunks, size_t nlanes, dfn_srcinfo *src, size_t *nout);

/* Sets v[i] (v preallocated); calls must come in increasing i. Inline:
 * the parse and the merge set three columns per event. */
void dfn_col32_escape(dfn_col32 *c, size_t i, uint64_t v);
static inline void dfn_col32_set(dfn_col32 *c, size_t i, uint64_t v)
{
    if (v < UINT32_MAX) c->v[i] = (uint32_t)v;
    else dfn_col32_escape(c, i, v);
}
void dfn_col32_free(dfn_col32 *c);

/* Bytes a chunk's and the merged store's records are followed by, so that
 * the merge copies a short record with two fixed 16-byte moves. */
#define DFN_RECORD_SLACK 32

/* End of the record at p, never past end (needs the store's schemas). */
const uint8_t *dfn_store_record_end(const dfn_store *s, const uint8_t *p, const uint8_t *end);

#endif
