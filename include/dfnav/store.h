/* dfnav event store: every loaded event in compact columns sorted by start
 * time, with interned names, the lane (host, pid, tid), the kind (category,
 * function, I/O class), the resolved file and the event's other arguments
 * in a compact encoding. Read-only once built, so queries on any number of
 * threads need no locks. */
#ifndef DFNAV_STORE_H
#define DFNAV_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/ioclass.h"
#include "dfnav/strtab.h"

/* A 32-bit column with rare 64-bit values kept aside: UINT32_MAX in v[]
 * means "look in esc", sorted by event index. */
typedef struct { uint64_t idx, val; } dfn_esc;
typedef struct {
    uint32_t *v;
    dfn_esc *esc;
    size_t nesc, esccap;
} dfn_col32;

uint64_t dfn_col32_escaped(const dfn_col32 *c, size_t i);
static inline uint64_t dfn_col32_get(const dfn_col32 *c, size_t i)
{
    uint32_t x = c->v[i];
    return x != UINT32_MAX ? x : dfn_col32_escaped(c, i);
}

#define DFN_TS_BLOCK_SHIFT 12

typedef struct {
    uint32_t host;            /* string id ("" when unknown) */
    int64_t pid, tid;
    uint32_t name;            /* "host/pid/tid", string id */
} dfn_lane;

typedef struct {
    uint32_t cat;             /* canonical spelling (categories compare ignoring case) */
    uint32_t func;
    uint8_t cls, op;
    bool io;                  /* a POSIX or STDIO call */
} dfn_kind;

typedef struct {
    uint32_t path, pattern, dir, fs;   /* string ids; file 0 is "no file" (all "") */
} dfn_file;

#define DFN_MAX_BAD_LINES 8

/* What loading one input file gave. */
typedef struct {
    char *path;
    char *era;                /* detected format era */
    const char *compression;  /* "none" or "gzip" */
    uint64_t size_bytes, lines, events, metadata, malformed;
    uint64_t bad_lines[DFN_MAX_BAD_LINES];   /* first malformed line numbers */
    char *bad_reason[DFN_MAX_BAD_LINES];
    size_t nbad;
    char *error;              /* file-level error (open, gzip damage), or NULL */
    uint64_t start_us, end_us;              /* absolute, 0/0 without events */
    uint64_t long_lines;
} dfn_srcinfo;

typedef struct dfn_store {
    size_t n;
    uint64_t t0, t1;          /* absolute µs: first start, last end */
    uint64_t *ts_base;        /* per block of 2^DFN_TS_BLOCK_SHIFT events, relative to t0 */
    dfn_col32 ts, dur, bytes; /* ts relative to its block base */
    uint32_t *lane, *kind, *file;
    uint8_t *args;            /* encoded argument records, in event order */
    size_t args_len;
    uint64_t *args_idx;       /* offset of event i*16's record */

    dfn_strtab *strs;
    dfn_lane *lanes; size_t nlanes;
    dfn_kind *kinds; size_t nkinds;
    dfn_file *files; size_t nfiles;
    /* argument schemas: for schema s, keys[s][k] / types[s][k] */
    uint32_t **schema_keys; uint8_t **schema_types; uint16_t *schema_len; size_t nschemas;
    uint16_t *schema_nval;    /* how many of a schema's arguments carry a value */

    dfn_srcinfo *src; size_t nsrc;
    uint64_t hash_conflicts;  /* one hash defined with two different names */
    size_t hash_conflict_src; /* where the first such later definition stands */
    uint64_t hash_conflict_line;
    uint64_t unresolved_hashes;
} dfn_store;

static inline uint64_t dfn_store_ts(const dfn_store *s, size_t i)
{
    return s->ts_base[i >> DFN_TS_BLOCK_SHIFT] + dfn_col32_get(&s->ts, i);
}
static inline uint64_t dfn_store_dur(const dfn_store *s, size_t i) { return dfn_col32_get(&s->dur, i); }
static inline uint64_t dfn_store_bytes(const dfn_store *s, size_t i) { return dfn_col32_get(&s->bytes, i); }
static inline const char *dfn_store_str(const dfn_store *s, uint32_t id) { return dfn_strtab_str(s->strs, id); }

/* Argument values. */
typedef enum { DFN_ARG_NULL, DFN_ARG_FALSE, DFN_ARG_TRUE, DFN_ARG_INT, DFN_ARG_UINT,
               DFN_ARG_STR, DFN_ARG_RAW } dfn_argtype;
typedef struct {
    uint32_t key;             /* string id of the name */
    dfn_argtype type;
    int64_t i;                /* DFN_ARG_INT */
    uint64_t u;               /* DFN_ARG_UINT */
    uint32_t str;             /* DFN_ARG_STR / DFN_ARG_RAW (raw JSON text) */
} dfn_arg;

/* Arguments an event keeps at most: the parser drops those past it. */
#define DFN_ARGS_MAX 64

/* Decodes the arguments of event i into out (up to max); returns how many
 * the event has (which may exceed max). */
size_t dfn_store_args(const dfn_store *s, size_t i, dfn_arg *out, size_t max);
/* Looks one argument up by key string id; false when absent. */
bool dfn_store_arg(const dfn_store *s, size_t i, uint32_t key, dfn_arg *out);
/* Decodes sequentially from a known record position: used by scans. */
const uint8_t *dfn_store_args_at(const dfn_store *s, size_t i);
const uint8_t *dfn_store_args_next(const dfn_store *s, const uint8_t *rec);
/* Moves a scan's cursor (*rec, the record of event *rec_i) to event i:
 * forward record by record when near, else from the index. */
void dfn_store_args_seek(const dfn_store *s, const uint8_t **rec, size_t *rec_i, size_t i);
bool dfn_store_arg_in(const dfn_store *s, const uint8_t *rec, uint32_t key, dfn_arg *out);
size_t dfn_store_args_in(const dfn_store *s, const uint8_t *rec, dfn_arg *out, size_t max);
/* Text of an argument value (numbers in decimal, strings raw). */
size_t dfn_arg_text(const dfn_store *s, const dfn_arg *a, char *buf, size_t cap);

/* Processes are (host, pid): *out maps each lane to its process index,
 * numbered in lane order. Returns the number of processes. */
size_t dfn_store_procs(const dfn_store *s, uint32_t **out);

void dfn_store_free(dfn_store *s);

#endif
