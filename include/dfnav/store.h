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

/* A column of ids (each event's lane, kind or file): 2 bytes an event
 * while every id the set can give fits in them (the usual set: dozens of
 * functions and lanes, hundreds of files), else 4. Exactly one of v16
 * and v32 is set; the branch on it is the same for every event, so the
 * scans' predictor takes it for free, and the store is 6 bytes an event
 * smaller than three 32-bit columns. */
typedef struct {
    uint16_t *v16;
    uint32_t *v32;
} dfn_ids;
/* The most ids a 16-bit column holds: ids 0 .. DFN_IDS16_MAX - 1. */
#define DFN_IDS16_MAX 65536u

static inline uint32_t dfn_ids_get(const dfn_ids *c, size_t i) { return c->v16 ? c->v16[i] : c->v32[i]; }
static inline void dfn_ids_set(dfn_ids *c, size_t i, uint32_t v)
{
    if (c->v16) c->v16[i] = (uint16_t)v;
    else c->v32[i] = v;
}
/* The bytes an event of c takes. */
static inline size_t dfn_ids_width(const dfn_ids *c) { return c->v16 ? 2 : 4; }
/* Allocates c for n events of ids below nids (uninitialised). */
void dfn_ids_alloc(dfn_ids *c, size_t n, size_t nids);
void dfn_ids_free(dfn_ids *c);

#define DFN_TS_BLOCK_SHIFT 12
/* Argument records: one index entry every 2^DFN_ARGS_INDEX_SHIFT events. */
#define DFN_ARGS_INDEX_SHIFT 4

/* A pid or tid given as text (Chrome traces of other tools: a host or a
 * worker name) is kept as DFN_ID_NAMED_BASE + the name's string id: a
 * range no numeric pid or tid may take (such numbers are malformed). */
#define DFN_ID_NAMED_BASE INT64_MIN
#define DFN_ID_NAMED_END (INT64_MIN + ((int64_t)1 << 32))
static inline bool dfn_id_named(int64_t v) { return v < DFN_ID_NAMED_END; }

/* A (host, pid, tid): 32 bytes, ids first so that no padding is left
 * (a set of 20,000 one-process files has a lane a file). Its process and
 * thread names, rare, are in the store's lane_names. */
typedef struct {
    int64_t pid, tid;         /* numbers, or names (see DFN_ID_NAMED_BASE) */
    uint32_t host;            /* string id ("" when unknown) */
    uint32_t name;            /* "host/pid/tid", string id */
    uint32_t rank;            /* MPI rank of the process from metadata ("" when unknown) */
} dfn_lane;

typedef struct {
    uint32_t cat;             /* canonical spelling (categories compare ignoring case) */
    uint32_t func;
    uint8_t cls, op;
    bool io;                  /* a POSIX or STDIO call */
    uint8_t type;             /* DFTracer 2.x instrumentation layer, 255 when not given */
    uint32_t type_name;       /* its name ("LIBC_IO"; the number past the known ones; "" when not given) */
} dfn_kind;

/* The name of a 2.x type number ("LIBC_IO"), or NULL past the known ones. */
const char *dfn_type_name(unsigned type);

typedef struct {
    uint32_t path, pattern, dir, fs;   /* string ids; file 0 is "no file" (all "") */
    uint32_t part;            /* the file name with digit runs as #, no folders */
} dfn_file;

#define DFN_MAX_BAD_LINES 8

/* Records of kinds dfnav does not use, counted by their ph as written,
 * without quotes ("b", "7"; "none" without ph, "empty" for ""); the last
 * slot ("more") takes every kind past the others. */
#define DFN_PH_KINDS 8
#define DFN_PH_LABEL 16
typedef struct { char ph[DFN_PH_LABEL]; uint64_t n; } dfn_phcount;
/* Adds n records of the ph text t (raw JSON, len bytes) to a table. */
void dfn_phcount_add(dfn_phcount *tab, const char *t, size_t len, uint64_t n);
/* The table *tab, made (DFN_PH_KINDS empty slots) on first use: most
 * files and blocks have no such record, and carry NULL. */
dfn_phcount *dfn_phcount_room(dfn_phcount **tab);
/* How many slots of tab are used (0 for NULL): the kinds to list. */
size_t dfn_phcount_len(const dfn_phcount *tab);

/* Units of ts and dur (DFTracer's DFTRACER_TIME_METRIC). */
typedef enum { DFN_UNIT_NONE, DFN_UNIT_US, DFN_UNIT_NS, DFN_UNIT_MS, DFN_UNIT_SEC } dfn_unit;
const char *dfn_unit_name(dfn_unit u);          /* "US" ... ; "" for none */
dfn_unit dfn_unit_parse(const char *s, size_t len);   /* any case; NONE when unknown */
/* A value in unit u as µs: nanoseconds rounded to the nearest µs, larger
 * units multiplied, saturating at 2^62 µs (the bound the parser sets on
 * a µs ts or dur, so that ts + dur cannot wrap). */
uint64_t dfn_unit_to_us(dfn_unit u, uint64_t v);
/* What a set's time units need said, or false: files read as µs whose
 * times cannot be µs since the epoch, or files without a unit beside
 * files that declare NS, MS or SEC (given: the --time-unit, or NONE). */
struct dfn_store;
bool dfn_unit_note(const struct dfn_store *s, dfn_unit given, char *buf, size_t cap);
/* What the fractions of a file's times cost, or false: in a ms or s file
 * that could not be read again (standard input), a ts or dur written with
 * a fraction was read to the nearest whole unit before it became µs, so it
 * moved by up to half a unit (in µs and ns files by under a µs, which
 * whole µs keep anyway). */
bool dfn_unit_fractions(dfn_unit u, uint64_t frac_times, char *buf, size_t cap);

/* What loading one input file gave that few files have: damage, kinds
 * set aside, counters, aggregated records, ns times, an end record. Kept
 * apart (see dfn_srcinfo's more), so that a set of many small files pays
 * for it only where a file has some. */
typedef struct {
    /* the first malformed lines (room for DFN_MAX_BAD_LINES, made by
     * dfn_srcinfo_bad_room; NULL while nbad is 0) */
    uint64_t *bad_lines;
    char **bad_reason;
    size_t nbad;
    char *error;              /* file-level error (open, gzip damage), or NULL */
    uint64_t long_lines;
    uint64_t counters;        /* counter records (ph 2, "C") */
    uint64_t other;           /* records of kinds not used, by kind in other_ph */
    dfn_phcount *other_ph;    /* DFN_PH_KINDS of them, or NULL when other is 0 */
    uint64_t agg_records, agg_calls;        /* aggregated records and the calls they fold */
    bool unit_unknown;        /* an end record named a time_metric that is no unit (not applied) */
    uint64_t ns_rounding;     /* NS files: ns the rounding of each dur to µs moved, in all (up or down) */
    uint64_t ns_zeroed;       /* ... and calls of under 0.5 µs it made 0 µs */
    uint64_t ns_total;        /* ... of call time in all, ns (saturating) */
    /* ts and dur written with a fraction ("ts":1000.5) and read to the
     * nearest whole unit of the file, which in ms and s files moves them
     * (said, see dfn_unit_fractions): 0 for such a file read again with
     * them kept, which all but standard input are */
    uint64_t frac_times;
    char *cfg, *app;          /* the end record's cfg and app objects as JSON, or NULL */
} dfn_srcmore;

/* What loading one input file gave. */
typedef struct {
    const char *path;         /* in the store's paths */
    const char *era;          /* detected format era, in the store's labels */
    uint64_t size_bytes, lines, events, metadata, malformed;
    uint64_t start_us, end_us;              /* absolute, 0/0 without events */
    uint64_t skipped;         /* blank lines and lines of only [ or ] */
    dfn_unit unit;            /* of the file's ts and dur as applied */
    bool unit_declared;       /* from the file's end record (else --time-unit or µs) */
    bool gzip;                /* its compression (see dfn_src_compression) */
    /* the rest, or NULL while all of it is zero: read it through
     * dfn_src_more, write it through dfn_srcinfo_more (96 bytes a file
     * instead of 216: 20,000 one-line files saved 2.2 MB) */
    dfn_srcmore *more;
} dfn_srcinfo;

extern const dfn_srcmore dfn_srcmore_none;
/* A source's compression as info names it: "gzip" or "none". */
static inline const char *dfn_src_compression(const dfn_srcinfo *si) { return si->gzip ? "gzip" : "none"; }
/* A source's rarer figures, all zero when it has none. */
static inline const dfn_srcmore *dfn_src_more(const dfn_srcinfo *si) { return si->more ? si->more : &dfn_srcmore_none; }
/* ... to write them: made on first use. */
dfn_srcmore *dfn_srcinfo_more(dfn_srcinfo *si);
/* Whether m holds anything: a figure, a list or a text. */
bool dfn_srcmore_any(const dfn_srcmore *m);

/* Makes room for si's list of malformed lines. */
void dfn_srcinfo_bad_room(dfn_srcinfo *si);
/* Frees what si owns (not si). */
void dfn_srcinfo_free(dfn_srcinfo *si);

/* One counter sample (ph 2, Chrome "C"): a series, where and when, and
 * its value. Counters are not events: they live beside them. */
typedef struct {
    uint64_t ts;              /* absolute µs */
    double value;
    uint32_t series;          /* index in the store's series */
    uint32_t host;            /* string id ("" when unknown) */
    int64_t pid;
} dfn_sample;

typedef struct dfn_store {
    size_t n;
    uint64_t t0, t1;          /* absolute µs: first start, last end */
    uint64_t *ts_base;        /* per block of 2^DFN_TS_BLOCK_SHIFT events, relative to t0 */
    /* per block, the latest end of its events (relative to t0): a query
     * of a window finds the calls running into it from before without
     * reading the blocks that end earlier */
    uint64_t *ts_reach;
    dfn_col32 ts, dur, bytes; /* ts relative to its block base */
    /* Aggregated records (2.x ph 3): the calls each folds (0: an event of
     * one call) and the longest of them; v NULL when the set has none. */
    dfn_col32 cnt, durmax;
    dfn_ids lane, kind, file; /* each event's lane, kind and file (file 0: none); read through dfn_store_lane ... */
    /* each event's file, an index of src, when the load was asked to keep
     * them (dfn_load_opts.sources); else NULL */
    uint32_t *evsrc;
    uint8_t *args;            /* encoded argument records, in event order */
    size_t args_len;
    uint64_t *args_idx;       /* offset of event i * 2^DFN_ARGS_INDEX_SHIFT's record */

    dfn_strtab *strs;
    dfn_lane *lanes; size_t nlanes;
    /* per lane, the process's and the thread's names from process_name
     * and thread_name metadata (2 a lane, DFN_NOID when none), kept apart
     * from the lane's name so that a subset (extract) can write them
     * back; NULL while no lane has one. Read through dfn_store_lane_pname
     * and _tname. */
    uint32_t *lane_names;
    dfn_kind *kinds; size_t nkinds;
    dfn_file *files; size_t nfiles;
    /* argument schemas: for schema s, keys[s][k] / types[s][k] */
    uint32_t **schema_keys; uint8_t **schema_types; uint16_t *schema_len; size_t nschemas;
    uint16_t *schema_nval;    /* how many of a schema's arguments carry a value */

    dfn_srcinfo *src; size_t nsrc;
    char **paths;             /* the sources' paths, one block (dfn_strv_block) */
    dfn_strtab *labels;       /* texts sources share: era labels */
    /* a share of a set (an MPI rank's): the µs of every call of the set,
     * which bound how finely a query may cut its time into bins as they
     * bound the set's (0: its own calls, summed when needed) */
    uint64_t set_calls_us;
    uint64_t hash_conflicts;  /* one hash defined with two different names */
    size_t hash_conflict_src; /* where the first such later definition stands */
    uint64_t hash_conflict_line;
    uint64_t unresolved_hashes;
    /* uses of a host hash no file here defines by rank and name metadata
     * and counter samples (not counted above: they name no event) */
    uint64_t unresolved_other;
    /* rank and name metadata of processes (threads) with no event here,
     * and all given without a host (naming a pid on every host), which in
     * a share of a set (an MPI rank's) may name another share's:
     * records of the metadata's type byte ('R' rank, 'P' process name,
     * 'T' thread name), 'h' with a host or 'a' for any, then the host,
     * pid and tid as text, each ended by a NUL */
    char *foreign_meta;
    size_t foreign_meta_len;
    /* the hash definitions of a set parsed here (not one from an image):
     * records of a kind byte ('H' host, 'F' file), then the hash's and the
     * name's text, each a varint length and bytes; the first definition of
     * each. Shares of a set (MPI ranks) compare them: a hash that means
     * one name in one share and another in another, or none, makes the
     * shares' answers differ from the set's. */
    uint8_t *hashdefs;
    size_t hashdefs_len, hashdefs_cap;

    dfn_sample *samples; size_t nsamples;   /* by time, then series, host, pid */
    uint32_t *series; size_t nseries;       /* string id of each series ("cpu.iowait_pct") */

    /* A store mapped from a cache image (image.h): the event columns,
     * their block tables and the argument records live in the mapping. */
    void *map; size_t map_len;
    int cache_from;           /* DFN_CACHE_* (cache.h): whether the cache gave it */
    struct dfn_rebuild *rebuild;   /* what its image keeps to give files back to other loads, or NULL */
    char *cache_note;         /* what the cache had to say when loading (a damaged entry), or NULL */
    struct dfn_cache_saver *saver;   /* its image being saved (cache.h), or NULL */
    char *save_note;          /* what saving it had to say (a full disk), or NULL */
} dfn_store;

static inline uint64_t dfn_store_ts(const dfn_store *s, size_t i)
{
    return s->ts_base[i >> DFN_TS_BLOCK_SHIFT] + dfn_col32_get(&s->ts, i);
}
/* Event i's lane, function kind and file (file 0: none). */
static inline uint32_t dfn_store_lane(const dfn_store *s, size_t i) { return dfn_ids_get(&s->lane, i); }
static inline uint32_t dfn_store_kind(const dfn_store *s, size_t i) { return dfn_ids_get(&s->kind, i); }
static inline uint32_t dfn_store_file(const dfn_store *s, size_t i) { return dfn_ids_get(&s->file, i); }
/* Lane i's process and thread names (string ids), DFN_NOID when none. */
static inline uint32_t dfn_store_lane_pname(const dfn_store *s, size_t i) { return s->lane_names ? s->lane_names[2 * i] : DFN_NOID; }
static inline uint32_t dfn_store_lane_tname(const dfn_store *s, size_t i) { return s->lane_names ? s->lane_names[2 * i + 1] : DFN_NOID; }
/* Sets lane i's names (DFN_NOID for none), making the table on the first
 * name; *cap counts the lanes it has room for. */
void dfn_store_lane_names_set(dfn_store *s, size_t i, uint32_t pname, uint32_t tname, size_t *cap);
static inline uint64_t dfn_store_dur(const dfn_store *s, size_t i) { return dfn_col32_get(&s->dur, i); }
static inline uint64_t dfn_store_bytes(const dfn_store *s, size_t i) { return dfn_col32_get(&s->bytes, i); }
/* Whether event i is an aggregated record, and the calls it stands for. */
static inline bool dfn_store_is_agg(const dfn_store *s, size_t i) { return s->cnt.v && dfn_col32_get(&s->cnt, i) != 0; }
static inline uint64_t dfn_store_calls(const dfn_store *s, size_t i)
{
    uint64_t c = s->cnt.v ? dfn_col32_get(&s->cnt, i) : 0;
    return c ? c : 1;
}
/* A figure of event i as one of its calls: v (its bytes or µs) over
 * dfn_store_calls, an aggregated record's mean with its fraction kept. */
static inline double dfn_store_mean(uint64_t v, uint64_t calls)
{
    return (double)v / (double)calls;
}
/* The longest call event i stands for. */
static inline uint64_t dfn_store_maxdur(const dfn_store *s, size_t i)
{
    return dfn_store_is_agg(s, i) ? dfn_col32_get(&s->durmax, i) : dfn_store_dur(s, i);
}
/* The sources' paths, copied into s->paths, each source's pointing there. */
void dfn_store_paths(dfn_store *s, const char *const *paths);
/* ... from a block of them (dfn_strv_block) that s takes over. */
void dfn_store_paths_own(dfn_store *s, char **block);
/* Makes s span [t0, t1] (absolute µs, around its own first start and
 * last end): its times then count from t0, as those of a set whose share
 * it is (an MPI rank's), so that its time bins and time terms are the
 * set's. Every absolute time stays. False, changing nothing, for a store
 * mapped from an image or a span that does not hold its own. */
bool dfn_store_rebase(dfn_store *s, uint64_t t0, uint64_t t1);
/* The µs of every call of s, summed (saturating). */
uint64_t dfn_store_calls_us(const dfn_store *s);
/* A label sources share (an era), kept once in s->labels. */
const char *dfn_store_label(dfn_store *s, const char *text);
/* One record of hashdefs (or of bytes made of them, which may come from
 * another process): kind, hash and name point into the record; key (the
 * kind byte and the hash, as the record holds them) is what tells two
 * definitions of one hash; len is the record's length. */
typedef struct {
    char kind;
    const uint8_t *key;
    size_t keylen, len;
    const char *hash, *name;
    size_t hashlen, namelen;
} dfn_hashdef;
/* The record at p (before end): false at the end, or at one cut short. */
bool dfn_hashdef_read(const uint8_t *p, const uint8_t *end, dfn_hashdef *d);
static inline const char *dfn_store_str(const dfn_store *s, uint32_t id) { return dfn_strtab_str(s->strs, id); }

/* Argument values. In a schema (never in a decoded dfn_arg), DFN_ARG_SAME
 * is an argument whose type and value are those of the argument before
 * it, which its record then does not repeat: a read's "count" and "ret"
 * are nearly always equal, a varint of several bytes each. The parser
 * marks only values of two varint bytes or more (see parser_emit_args). */
typedef enum { DFN_ARG_NULL, DFN_ARG_FALSE, DFN_ARG_TRUE, DFN_ARG_INT, DFN_ARG_UINT,
               DFN_ARG_STR, DFN_ARG_RAW, DFN_ARG_SAME } dfn_argtype;
/* Whether a schema's argument of type t has a value of its own in the
 * record (a varint). */
static inline bool dfn_argtype_valued(unsigned t) { return t >= DFN_ARG_INT && t <= DFN_ARG_RAW; }
typedef struct {
    uint32_t key;             /* string id of the name */
    dfn_argtype type;
    int64_t i;                /* DFN_ARG_INT */
    uint64_t u;               /* DFN_ARG_UINT */
    uint32_t str;             /* DFN_ARG_STR / DFN_ARG_RAW (raw JSON text) */
} dfn_arg;

/* Arguments an event keeps at most: the parser drops those past it. */
#define DFN_ARGS_MAX 64

/* Allocates the tables of n argument schemas (zeroed). */
void dfn_store_schemas_alloc(dfn_store *s, size_t n);

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
/* The argument key a name addresses: the argument of that very name when
 * one exists, else a nested value "top.rest.of.path" inside an object
 * argument (the 2.x end record's app and cfg): *key is top's string id
 * (DFN_NOID-like UINT32_MAX when none) and *path the rest (NULL when not
 * nested). */
void dfn_arg_resolve(const dfn_store *s, const char *name, uint32_t *key, const char **path);
/* The text of the nested value at path in an object argument's JSON
 * text (strings without their quotes, still escaped); false when absent. */
bool dfn_arg_nested_text(const dfn_store *s, uint32_t raw, const char *path, const char **out, size_t *len);
/* Text of an argument value (numbers in decimal, strings raw). */
size_t dfn_arg_text(const dfn_store *s, const dfn_arg *a, char *buf, size_t cap);

/* The name of a named pid or tid ("?" past the table: never from a store
 * we built). */
const char *dfn_id_name(const dfn_store *s, int64_t v);
/* The text of a pid or tid: its number, or its name. */
size_t dfn_id_text(const dfn_store *s, int64_t v, char *buf, size_t cap);
/* The same whole, however long a name (malloc'd). */
char *dfn_id_dup(const dfn_store *s, int64_t v);
/* The order of pids or tids (of stores sa and sb): numbers by value, then
 * names by their text. Never by a name's string id, which depends on the
 * parser thread that met the name first. */
int dfn_id_cmp(const dfn_store *sa, int64_t a, const dfn_store *sb, int64_t b);
/* The same order of two ids whose names (when named) the caller looked
 * up: a merged result's own text keeps them. */
int dfn_id_order(int64_t a, const char *name_a, int64_t b, const char *name_b);

/* Processes are (host, pid): *out maps each lane to its process index,
 * numbered in lane order. Returns the number of processes. */
size_t dfn_store_procs(const dfn_store *s, uint32_t **out);

void dfn_store_free(dfn_store *s);

#endif
