/* The line parser: turns one block of DFTracer JSON lines of any format era
 * into a batch of events and metadata records. Every byte is untrusted:
 * the fast tokenizer takes the lines that are plainly valid JSON, jsmn in
 * strict mode with parent links (the reference) every other one, both into
 * a bounded token array with a bounded depth (so time stays linear in the
 * line); numbers are parsed from exact spans, and anything that is not one
 * JSON object with usable fields is counted as malformed with its line
 * number. */
#include "load.h"
#include "line.h"
#include "swar.h"
#include "dfnav/ioclass.h"
#include "dfnav/util.h"
#include "dfnav/jsonget.h"

#define JSMN_STATIC
#include "tokenize.h"      /* and jsmn, configured alike for both */

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKENS_MIN 256
#define TOKENS_MAX (1u << 20)
#define JSMN_DEPTH_MAX 64     /* nesting of [ and { a line may have beyond TOKENS_MIN tokens */
#define TOKENIZE_TOO_DEEP (-200)
#define LANE_MEMO 64
#define KIND_MEMO 256
#define HASH_MEMO 1024
#define STR_MEMO 1024
#define SCHEMA_MEMO 64

typedef struct { uint64_t h; size_t len; uint32_t id; uint8_t bytes[DFN_ARGS_MAX * 5]; } schema_memo;

struct dfn_parser {
    dfn_loadctx *ctx;
    dfn_strcache *c_strs, *c_hashes, *c_lanes, *c_kinds, *c_schemas;
    jsmntok_t *toks;
    size_t ntoks;
    char *unesc;
    size_t unesc_cap;
    uint8_t *rule_of_kind;    /* bytes rule by kind ref, 255 = not known yet */
    size_t rule_cap;
    /* Lanes and kinds repeat on nearly every line: small direct-mapped
     * caches of their ids by value spare hashing their bytes. */
    struct { uint32_t host; int64_t pid, tid; uint32_t id; } lane_memo[LANE_MEMO];
    struct { uint64_t key; uint32_t id; uint8_t type; } kind_memo[KIND_MEMO];
    struct { uint64_t value; uint32_t id; } hash_memo[HASH_MEMO];   /* decimal hashes by value */
    /* Names, categories and argument keys are short and few: their ids by
     * their bytes, compared as two words instead of hashed. */
    struct { uint64_t w0, w1; uint32_t len, id; } str_memo[STR_MEMO];
    schema_memo schema_memo[SCHEMA_MEMO];
    dfn_larg *largs;          /* the arguments of the line being read */
    size_t largs_cap;
    bool no_scan;             /* tests: every line through the token walk */
    uint64_t prescale;        /* µs in the file's unit (1000, 1000000): times read as µs; 0 none */
    dfn_scanhint hint;
};

dfn_parser *dfn_parser_new(dfn_loadctx *ctx)
{
    dfn_parser *p = dfn_xcalloc(1, sizeof *p);
    p->ctx = ctx;
    p->c_strs = dfn_strcache_new(ctx->strs, &ctx->lock);
    p->c_hashes = dfn_strcache_new(ctx->hashes, &ctx->lock);
    p->c_lanes = dfn_strcache_new(ctx->lanes, &ctx->lock);
    p->c_kinds = dfn_strcache_new(ctx->kinds, &ctx->lock);
    p->c_schemas = dfn_strcache_new(ctx->schemas, &ctx->lock);
    p->ntoks = TOKENS_MIN;
    p->toks = dfn_xmalloc(p->ntoks * sizeof *p->toks);
    for (size_t i = 0; i < LANE_MEMO; i++) p->lane_memo[i].id = DFN_REF_NONE;
    for (size_t i = 0; i < KIND_MEMO; i++) p->kind_memo[i].id = DFN_REF_NONE;
    for (size_t i = 0; i < HASH_MEMO; i++) p->hash_memo[i].id = DFN_REF_NONE;
    for (size_t i = 0; i < STR_MEMO; i++) p->str_memo[i].id = DFN_REF_NONE;
    for (size_t i = 0; i < SCHEMA_MEMO; i++) p->schema_memo[i].id = DFN_REF_NONE;
    p->largs_cap = DFN_ARGS_MAX;
    p->largs = dfn_xmalloc(p->largs_cap * sizeof *p->largs);
    return p;
}

void dfn_parser_free(dfn_parser *p)
{
    if (!p) return;
    dfn_strcache_free(p->c_strs);
    dfn_strcache_free(p->c_hashes);
    dfn_strcache_free(p->c_lanes);
    dfn_strcache_free(p->c_kinds);
    dfn_strcache_free(p->c_schemas);
    free(p->toks);
    free(p->unesc);
    free(p->rule_of_kind);
    free(p->largs);
    free(p);
}

/* The columns every event of a batch fills (cnt and durmax come and go
 * with aggregated records), for the loops that treat them alike. */
static const struct { size_t off, width; } batch_col[] = {
    { offsetof(dfn_batch, ts), sizeof(uint64_t) },    { offsetof(dfn_batch, dur), sizeof(uint64_t) },
    { offsetof(dfn_batch, bytes), sizeof(uint64_t) }, { offsetof(dfn_batch, lane), sizeof(uint32_t) },
    { offsetof(dfn_batch, kind), sizeof(uint32_t) },  { offsetof(dfn_batch, file), sizeof(uint32_t) },
    { offsetof(dfn_batch, args_off), sizeof(uint32_t) },
};
#define BATCH_COLS (sizeof batch_col / sizeof *batch_col)
/* Column k of b, as the pointer it is. */
#define BATCH_COL(b, k) (*(void **)((char *)(b) + batch_col[k].off))

dfn_batch *dfn_batch_copy(const dfn_batch *t)
{
    dfn_batch *d = dfn_xcalloc(1, sizeof *d);
    d->n = d->cap = t->n;
    for (size_t k = 0; k < BATCH_COLS; k++)
        BATCH_COL(d, k) = dfn_xmemdup(BATCH_COL(t, k), t->n, batch_col[k].width);
    d->args = dfn_xmemdup(t->args, t->args_len, 1);
    d->args_len = d->args_cap = t->args_len;
    d->min_ts = t->min_ts;
    d->max_end = t->max_end;
    return d;
}

void dfn_batch_append(dfn_batch *to, const dfn_batch *from)
{
    size_t n = to->n + from->n;
    if (n > to->cap) {
        size_t cap = to->cap ? to->cap : 4096;
        while (cap < n) cap *= 2;
        for (size_t k = 0; k < BATCH_COLS; k++) BATCH_COL(to, k) = dfn_xreallocarray(BATCH_COL(to, k), cap, batch_col[k].width);
        to->cap = cap;
    }
    for (size_t k = 0; k < BATCH_COLS; k++)
        if (from->n) memcpy((char *)BATCH_COL(to, k) + to->n * batch_col[k].width, BATCH_COL(from, k), from->n * batch_col[k].width);
    for (size_t i = to->n; i < n; i++) to->args_off[i] += (uint32_t)to->args_len;
    dfn_grow((void **)&to->args, &to->args_cap, to->args_len + from->args_len + 1, 1);
    if (from->args_len) memcpy(to->args + to->args_len, from->args, from->args_len);
    to->args_len += from->args_len;
    to->n = n;
}

void dfn_batch_free(dfn_batch *b)
{
    if (b->begins) {
        dfn_batch_free(b->begins);
        free(b->begins);
    }
    free(b->begin_line);
    free(b->ends);
    free(b->ts); free(b->dur); free(b->bytes); free(b->cnt); free(b->durmax);
    free(b->info.cfg); free(b->info.app); free(b->info.other_ph); free(b->cs);
    free(b->lane); free(b->kind); free(b->file); free(b->args_off);
    free(b->args); free(b->meta);
    memset(b, 0, sizeof *b);
}

static void batch_reset(dfn_batch *b);

/* Where a "B" record goes: a batch of its own, with its line. */
static dfn_batch *batch_begins(dfn_batch *b, uint64_t line)
{
    if (!b->begins) {
        b->begins = dfn_xcalloc(1, sizeof *b->begins);
        batch_reset(b->begins);
    }
    dfn_batch *t = b->begins;
    dfn_grow((void **)&b->begin_line, &b->begin_cap, t->n + 1, sizeof *b->begin_line);
    b->begin_line[t->n] = line;
    return t;
}

static void batch_reset(dfn_batch *b)
{
    b->n = 0;
    b->args_len = 0;
    b->nmeta = 0;
    b->nbad = 0;
    free(b->info.cfg);
    free(b->info.app);
    free(b->info.other_ph);
    memset(&b->info, 0, sizeof b->info);
    b->ncs = 0;
    b->nends = 0;
    if (b->begins) batch_reset(b->begins);
    if (b->cnt) {   /* columns of aggregated records come back only with them */
        free(b->cnt); free(b->durmax);
        b->cnt = b->durmax = NULL;
    }
    b->min_ts = UINT64_MAX;
    b->max_end = 0;
    b->era = 0;
    b->version = 0;
}

static void batch_reserve(dfn_batch *b)
{
    if (b->n < b->cap) return;
    size_t cap = b->cap ? b->cap * 2 : 4096;
    for (size_t k = 0; k < BATCH_COLS; k++) BATCH_COL(b, k) = dfn_xreallocarray(BATCH_COL(b, k), cap, batch_col[k].width);
    if (b->cnt) {
        b->cnt = dfn_xreallocarray(b->cnt, cap, sizeof *b->cnt);
        b->durmax = dfn_xreallocarray(b->durmax, cap, sizeof *b->durmax);
    }
    b->cap = cap;
}

/* The first aggregated record of a block adds its columns: the events
 * before it were single calls. */
static void batch_agg_start(dfn_batch *b)
{
    if (b->cnt) return;
    size_t cap = b->cap ? b->cap : 1;
    b->cnt = dfn_xcalloc(cap, sizeof *b->cnt);
    b->durmax = dfn_xcalloc(cap, sizeof *b->durmax);
}

static void batch_bad(dfn_batch *b, uint64_t line, const char *reason)
{
    b->info.malformed++;
    if (b->nbad < DFN_MAX_BAD_LINES) b->bad[b->nbad++] = (dfn_badline){ line, reason };
}

/* ---- token helpers ---- */

typedef struct {
    const char *s;     /* the line */
    jsmntok_t *t;
    int n;
    bool strict;       /* the fast tokenizer's: every primitive is valid JSON */
} toks_view;

static inline size_t tok_len(const jsmntok_t *t) { return (size_t)(t->end - t->start); }

/* Index of the token after the whole value starting at i. */
static int tok_skip(const toks_view *v, int i)
{
    int end = v->t[i].end, j = i + 1;
    while (j < v->n && v->t[j].start < end) j++;
    return j;
}

static bool tok_is(const toks_view *v, int i, const char *lit, size_t litlen)
{
    const jsmntok_t *t = &v->t[i];
    return t->type == JSMN_STRING && tok_len(t) == litlen && memcmp(v->s + t->start, lit, litlen) == 0;
}
#define TOK_IS(v, i, lit) tok_is((v), (i), lit, sizeof(lit) - 1)

/* jsmn's strict mode takes any printable run that starts like a number or
 * a literal as a primitive ("600\"", "nope", "1.2.3"); JSON allows only
 * true, false, null and numbers (leading zeros tolerated, as some writers
 * pad). Checking every token costs a tenth of the load, so a line checks
 * only the primitives no exact number parser has read. */
static bool json_primitive_ok(const char *s, size_t len)
{
    return dfn_json_primitive_end(s, 0, len, true) == len;
}

/* Every primitive of the values in tokens [from, to) is valid JSON. */
static bool toks_primitives_ok(const toks_view *v, int from, int to)
{
    if (v->strict) return true;
    for (int k = from; k < to; k++)
        if (v->t[k].type == JSMN_PRIMITIVE && !json_primitive_ok(v->s + v->t[k].start, tok_len(&v->t[k])))
            return false;
    return true;
}

/* The bound on a ts or dur (2^62), so that ts + dur and a few sums cannot
 * wrap: past it a time is damage. */
#define TIME_MAX (UINT64_MAX >> 2)

/* A number written bare or quoted ("ts":"1712599257392616"). Fractions
 * are accepted and rounded: some writers emit µs as floats. */
static bool tok_u64(const toks_view *v, int i, uint64_t *out, bool *quoted, uint8_t *frac)
{
    const jsmntok_t *t = &v->t[i];
    if (t->type != JSMN_PRIMITIVE && t->type != JSMN_STRING) return false;
    if (quoted && t->type == JSMN_STRING) *quoted = true;
    const char *s = v->s + t->start;
    size_t len = tok_len(t);
    if (dfn_parse_u64(s, len, out)) return true;
    double d;
    if (len && s[0] != '-' && (t->type == JSMN_STRING || json_primitive_ok(s, len)) &&
        dfn_parse_double(s, len, &d) && d >= 0 && d < 1.8e19) {
        *out = (uint64_t)(d + 0.5);
        if (frac && d != (double)(uint64_t)d) (*frac)++;
        return true;
    }
    return false;
}

/* A JSON number's text (no sign) times factor, exactly, rounded to the
 * nearest whole (half up): 1000.5 seconds are 1000500000 µs where a
 * double would drift. Past the parser's bound on a µs time (2^62) it stays
 * there, as the build's conversion does. False when it is no number. */
static bool dec_scaled(const char *s, size_t len, uint64_t factor, uint64_t *out)
{
    uint64_t m = 0;
    int exp10 = 0, digits = 0;
    bool any = false, dot = false;
    size_t i = 0;
    for (; i < len; i++) {
        char ch = s[i];
        if (ch == '.' && !dot) { dot = true; continue; }
        if (ch < '0' || ch > '9') break;
        any = true;
        if (m == 0 && ch == '0') { if (dot) exp10--; continue; }   /* leading zeros */
        if (digits < 19) { m = m * 10 + (uint64_t)(ch - '0'); digits++; if (dot) exp10--; }
        else if (!dot) exp10++;   /* past 19 digits: a remainder under 10^-18 of it, dropped */
    }
    if (!any) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && s[j] == '+') j++;
        int64_t e;
        if (j >= len || !dfn_parse_i64(s + j, len - j, &e) || e > 400 || e < -400) return false;
        exp10 += (int)e;
    } else if (i != len) {
        return false;
    }
    for (uint64_t f = factor; f > 1; f /= 10) exp10++;
    if (m == 0) { *out = 0; return true; }
    if (exp10 >= 0) {
        for (int k = 0; k < exp10; k++) {
            if (m > TIME_MAX / 10) { *out = TIME_MAX; return true; }
            m *= 10;
        }
        *out = m > TIME_MAX ? TIME_MAX : m;
        return true;
    }
    if (exp10 < -19) { *out = 0; return true; }
    uint64_t div = 1;
    for (int k = 0; k < -exp10; k++) div *= 10;
    uint64_t q = m / div, r = m % div;
    q += r >= div - r;   /* half up, without overflow */
    *out = q > TIME_MAX ? TIME_MAX : q;
    return true;
}

/* A ts or dur, bare or quoted, times the parser's prescale: taken and
 * refused as the first reading took and refused it (a value past the
 * parser's bound stays past it, to be damage there too), exact where
 * the text is a decimal number. */
static bool tok_scaled(const toks_view *v, int i, uint64_t factor, uint64_t *out, bool *quoted)
{
    uint64_t plain;
    if (!tok_u64(v, i, &plain, quoted, NULL)) return false;
    if (plain > TIME_MAX) { *out = plain; return true; }
    const jsmntok_t *t = &v->t[i];
    if (!dec_scaled(v->s + t->start, tok_len(t), factor, out))   /* forms only strtod reads */
        *out = plain > TIME_MAX / factor ? TIME_MAX : plain * factor;
    return true;
}

static bool tok_i64(const toks_view *v, int i, int64_t *out, bool *quoted)
{
    const jsmntok_t *t = &v->t[i];
    if (t->type != JSMN_PRIMITIVE && t->type != JSMN_STRING) return false;
    if (quoted && t->type == JSMN_STRING) *quoted = true;
    return dfn_parse_i64(v->s + t->start, tok_len(t), out);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t utf8_put(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f)); return 4;
}

static bool u4(const char *s, size_t i, size_t len, uint32_t *cp)
{
    if (i + 4 > len) return false;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        int h = hexval(s[i + k]);
        if (h < 0) return false;
        v = v << 4 | (uint32_t)h;
    }
    *cp = v;
    return true;
}

/* JSON unescape; the output is never longer than the input. */
static size_t json_unescape(const char *s, size_t len, char *o)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\' || i + 1 >= len) { o[w++] = s[i]; continue; }
        char c = s[++i];
        switch (c) {
        case 'n': o[w++] = '\n'; break;
        case 't': o[w++] = '\t'; break;
        case 'r': o[w++] = '\r'; break;
        case 'b': o[w++] = '\b'; break;
        case 'f': o[w++] = '\f'; break;
        case 'u': {
            uint32_t cp;
            if (!u4(s, i + 1, len, &cp)) { o[w++] = '\\'; o[w++] = 'u'; break; }
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00) {
                uint32_t lo;
                if (i + 2 < len && s[i + 1] == '\\' && s[i + 2] == 'u' && u4(s, i + 3, len, &lo) &&
                    lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                } else {
                    cp = 0xfffd;
                }
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                cp = 0xfffd;
            }
            w += utf8_put(o + w, cp);
            break;
        }
        default: o[w++] = c; break;   /* \" \\ \/ */
        }
    }
    return w;
}

/* Interns text read raw from a line; avail bytes from s may be read. */
static uint32_t parser_intern(dfn_parser *p, const char *s, size_t len, size_t avail)
{
    if (len > 16) return dfn_strcache_intern(p->c_strs, s, len);
    uint64_t w[2] = { 0, 0 };
#if SWAR
    if (avail >= 16) {
        /* the first len bytes as two words, zero beyond */
        memcpy(w, s, 16);
        w[0] &= swar_prefix_mask(len);
        w[1] &= len > 8 ? swar_prefix_mask(len - 8) : 0;
    } else
#endif
    {
        (void)avail;
        if (len) memcpy(w, s, len);
    }
    uint64_t h = (w[0] * 0x9e3779b97f4a7c15ULL ^ w[1] * 0xc2b2ae3d27d4eb4fULL ^ len) * 0xff51afd7ed558ccdULL;
    size_t slot = (size_t)(h >> 54) & (STR_MEMO - 1);
    if (p->str_memo[slot].id != DFN_REF_NONE && p->str_memo[slot].len == len && p->str_memo[slot].w0 == w[0] &&
        p->str_memo[slot].w1 == w[1])
        return p->str_memo[slot].id;
    uint32_t id = dfn_strcache_intern(p->c_strs, s, len);
    p->str_memo[slot].w0 = w[0];
    p->str_memo[slot].w1 = w[1];
    p->str_memo[slot].len = (uint32_t)len;
    p->str_memo[slot].id = id;
    return id;
}

/* Interns the text of a string (unescaped) or of a primitive. plain says
 * a string is known to hold no escapes; end bounds what may be read. */
/* The text of a quoted string as it reads: *s and *len move to the
 * parser's unescape buffer when it has escapes. True when they moved. */
static bool parser_unescape(dfn_parser *p, const char **s, size_t *len, bool quoted, bool plain)
{
    if (!quoted || plain || !memchr(*s, '\\', *len)) return false;
    if (p->unesc_cap < *len) {
        p->unesc_cap = *len;
        p->unesc = dfn_xrealloc(p->unesc, *len);
    }
    *len = json_unescape(*s, *len, p->unesc);
    *s = p->unesc;
    return true;
}

static uint32_t parser_text(dfn_parser *p, const char *s, size_t len, bool quoted, bool plain, const char *end)
{
    if (parser_unescape(p, &s, &len, quoted, plain)) return dfn_strcache_intern(p->c_strs, s, len);
    return parser_intern(p, s, len, (size_t)(end - s));
}

static uint32_t parser_str(dfn_parser *p, const toks_view *v, int i)
{
    const jsmntok_t *t = &v->t[i];
    return parser_text(p, v->s + t->start, tok_len(t), t->type == JSMN_STRING, false, v->s + t->end);
}

/* A decimal hash that fits 64 bits: its value names its canonical text. */
static uint32_t parser_hash_u64(dfn_parser *p, uint64_t value, bool quoted, unsigned *era)
{
    if (quoted) *era |= DFN_ERA_HASH_STR;
    *era |= value > 65535 ? DFN_ERA_HASH_U64 : DFN_ERA_HASH_SMALL;
    size_t slot = dfn_hash_u64(value) & (HASH_MEMO - 1);
    if (p->hash_memo[slot].id != DFN_REF_NONE && p->hash_memo[slot].value == value) return p->hash_memo[slot].id;
    char dec[24];
    size_t w = (size_t)snprintf(dec, sizeof dec, "%" PRIu64, value);
    uint32_t id = dfn_strcache_intern(p->c_hashes, dec, w);
    id = id >= DFN_REF_HASH ? DFN_REF_NONE : (id | DFN_REF_HASH);
    p->hash_memo[slot].value = value;
    p->hash_memo[slot].id = id;
    return id;
}

/* Hash values are compared as canonical text: decimal without leading
 * zeros (bare or quoted, any width, so uint64 above 2^63 is exact) or
 * lowercase hex. container: the value is an object or array. */
static uint32_t parser_hash(dfn_parser *p, const char *s, size_t len, bool quoted, bool container, unsigned *era)
{
    if (len == 0 || len > 64 || container) return DFN_REF_NONE;
    uint64_t value;
    if (len <= 20 && dfn_parse_u64(s, len, &value)) return parser_hash_u64(p, value, quoted, era);
    char buf[64];
    bool digits = true;
    for (size_t k = 0; k < len; k++)
        if (s[k] < '0' || s[k] > '9') { digits = false; break; }
    size_t w = 0;
    if (digits) {
        size_t k = 0;
        while (k + 1 < len && s[k] == '0') k++;
        w = len - k;
        memcpy(buf, s + k, w);
        if (quoted) *era |= DFN_ERA_HASH_STR;
        *era |= (w > 5 || (w == 5 && memcmp(buf, "65535", 5) > 0)) ? DFN_ERA_HASH_U64 : DFN_ERA_HASH_SMALL;
    } else {
        for (size_t k = 0; k < len; k++) {
            char c = s[k];
            if (hexval(c) < 0) return DFN_REF_NONE;
            buf[w++] = (char)(c >= 'A' && c <= 'F' ? c + 32 : c);
        }
        *era |= DFN_ERA_HASH_HEX;
    }
    uint32_t id = dfn_strcache_intern(p->c_hashes, buf, w);
    return id >= DFN_REF_HASH ? DFN_REF_NONE : (id | DFN_REF_HASH);
}

/* What the parser made of the value hint h holds, when it has made it:
 * the scanner clears vok whenever the value's bytes change. */
static inline bool hint_made(const dfn_keyhint *h, uint32_t *id, unsigned *era)
{
    if (!h || !h->vok) return false;
    *id = h->vid;
    *era |= h->vera;
    return true;
}

static inline uint32_t hint_keep(dfn_keyhint *h, uint32_t id, unsigned era)
{
    if (h) {
        h->vok = true;
        h->vid = id;
        h->vera = era;
    }
    return id;
}

static uint32_t parser_hash_arg(dfn_parser *p, const dfn_larg *a, unsigned *era)
{
    uint32_t id;
    if (hint_made(a->hint, &id, era)) return id;
    unsigned e = 0;
    if (a->type == DFN_LV_UINT || (a->type == DFN_LV_INT && (int64_t)a->num >= 0))
        id = parser_hash_u64(p, a->num, a->quoted, &e);
    else
        id = parser_hash(p, a->val, a->val_len, a->quoted, !a->quoted && a->val_len && (a->val[0] == '{' || a->val[0] == '['), &e);
    *era |= e;
    return hint_keep(a->hint, id, e);
}

/* parser_text of a value the scanner read under hint h (or NULL). */
static uint32_t parser_text_hinted(dfn_parser *p, dfn_keyhint *h, const char *s, size_t len, bool quoted, bool plain,
                                   const char *end)
{
    uint32_t id;
    unsigned none = 0;
    if (hint_made(h, &id, &none)) return id;
    return hint_keep(h, parser_text(p, s, len, quoted, plain, end), 0);
}

/* ---- argument records ---- */

typedef struct {
    uint32_t key;
    uint8_t type;
    uint64_t val;             /* zigzag int, uint, or string id */
} enc_arg;

static void batch_args_reserve(dfn_batch *b, size_t more)
{
    if (b->args_len + more <= b->args_cap) return;
    size_t cap = b->args_cap ? b->args_cap : 1 << 16;
    while (cap < b->args_len + more) cap *= 2;
    b->args = dfn_xrealloc(b->args, cap);
    b->args_cap = cap;
}

static void parser_emit_args(dfn_parser *p, dfn_batch *b, const enc_arg *a, size_t n)
{
    /* an argument equal to the one before (type and value) is DFN_ARG_SAME
     * in the schema, its value not repeated in the record; only a value of
     * two varint bytes or more: small ones (a level, an fd) match their
     * neighbours by chance, and each such match would be a schema more */
    uint8_t ty[DFN_ARGS_MAX];
    uint8_t schema[DFN_ARGS_MAX * 5];
    for (size_t k = 0; k < n; k++) {
        bool same = k && dfn_argtype_valued(a[k].type) && a[k].type == a[k - 1].type && a[k].val == a[k - 1].val &&
                    a[k].val >= 128;
        ty[k] = same ? DFN_ARG_SAME : a[k].type;
        memcpy(schema + k * 5, &a[k].key, 4);
        schema[k * 5 + 4] = ty[k];
    }
    /* nearly every event repeats one of a few schemas: look the last one
     * of each hash slot up first */
    uint64_t h = n;
    for (size_t k = 0; k < n; k++) h = (h ^ ((uint64_t)a[k].key << 8 | ty[k])) * 0x9e3779b97f4a7c15ULL;
    schema_memo *sm = &p->schema_memo[(h >> 56) & (SCHEMA_MEMO - 1)];
    uint32_t sid;
    if (sm->id != DFN_REF_NONE && sm->h == h && sm->len == n * 5 && memcmp(sm->bytes, schema, n * 5) == 0) {
        sid = sm->id;
    } else {
        sid = dfn_strcache_intern(p->c_schemas, (const char *)schema, n * 5);
        memcpy(sm->bytes, schema, n * 5);
        sm->h = h;
        sm->len = n * 5;
        sm->id = sid;
    }
    batch_args_reserve(b, 10 + n * 10);
    b->args_off[b->n] = (uint32_t)b->args_len;
    uint8_t *o = b->args + b->args_len;
    size_t w = dfn_varint_put(o, sid);
    for (size_t k = 0; k < n; k++)
        if (dfn_argtype_valued(ty[k])) w += dfn_varint_put(o + w, a[k].val);
    b->args_len += w;
}

static uint32_t parser_lane(dfn_parser *p, uint32_t host, int64_t pid, int64_t tid)
{
    uint64_t h = dfn_hash_u64((uint64_t)pid * 31 + (uint64_t)tid * 0x9e3779b97f4a7c15ULL + host);
    size_t slot = h & (LANE_MEMO - 1);
    if (p->lane_memo[slot].id != DFN_REF_NONE && p->lane_memo[slot].host == host &&
        p->lane_memo[slot].pid == pid && p->lane_memo[slot].tid == tid)
        return p->lane_memo[slot].id;
    uint8_t key[20];
    memcpy(key, &host, 4);
    memcpy(key + 4, &pid, 8);
    memcpy(key + 12, &tid, 8);
    uint32_t id = dfn_strcache_intern(p->c_lanes, (const char *)key, 20);
    p->lane_memo[slot].host = host;
    p->lane_memo[slot].pid = pid;
    p->lane_memo[slot].tid = tid;
    p->lane_memo[slot].id = id;
    return id;
}

/* A kind is (category, name, 2.x type); type 255 when the line has none. */
static uint32_t parser_kind(dfn_parser *p, uint32_t cat, uint32_t name, uint8_t type)
{
    uint64_t k = (uint64_t)cat << 32 | name;
    size_t slot = (dfn_hash_u64(k) + type) & (KIND_MEMO - 1);
    if (p->kind_memo[slot].id != DFN_REF_NONE && p->kind_memo[slot].key == k && p->kind_memo[slot].type == type)
        return p->kind_memo[slot].id;
    uint8_t key[DFN_KIND_KEY];
    memcpy(key, &cat, 4);
    memcpy(key + 4, &name, 4);
    key[8] = type;
    uint32_t id = dfn_strcache_intern(p->c_kinds, (const char *)key, DFN_KIND_KEY);
    p->kind_memo[slot].key = k;
    p->kind_memo[slot].type = type;
    p->kind_memo[slot].id = id;
    return id;
}

/* ---- one line ---- */

static bool line_is_skippable(const char *s, size_t len)
{
    if (len == 0) return true;
    if (len == 1) return s[0] == '[' || s[0] == ']' || s[0] == '{' || s[0] == '}';
    return len == 2 && s[0] == ']' && s[1] == '[';
}

static inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* Whether [ and { outside strings nest deeper than limit. */
static bool json_deeper_than(const char *s, size_t len, int limit)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return true;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return false;
}

/* jsmn with parent links closes a container by walking up from the last
 * token, which costs the square of the depth on deep nesting (minutes for
 * a 2 MB line of brackets). A line that overflows TOKENS_MIN tokens has
 * its depth checked before jsmn sees it again: the cost stays linear.
 * *strict says whether the fast tokenizer took the line. */
static int parser_tokenize(dfn_parser *p, const char *s, size_t len, bool *strict)
{
    *strict = true;
    for (;;) {
        int r = dfn_tokenize(s, len, p->toks, p->ntoks);
        if (r >= 0) return r;
        if (r != DFN_TOK_NOMEM || p->ntoks >= TOKENS_MAX) break;
        p->ntoks *= 4;
        p->toks = dfn_xreallocarray(p->toks, p->ntoks, sizeof *p->toks);
    }
    *strict = false;
    /* jsmn starts from a small array whatever a wide line grew it to, so
     * that a deep line overflows it and has its depth checked first */
    size_t cap = TOKENS_MIN;
    for (;;) {
        jsmn_parser jp;
        jsmn_init(&jp);
        int r = jsmn_parse(&jp, s, len, p->toks, (unsigned)cap);
        if (r != JSMN_ERROR_NOMEM || cap >= TOKENS_MAX) return r;
        if (cap == TOKENS_MIN && json_deeper_than(s, len, JSMN_DEPTH_MAX)) return TOKENIZE_TOO_DEEP;
        cap *= 4;
        if (cap > p->ntoks) {
            p->ntoks = cap;
            p->toks = dfn_xreallocarray(p->toks, p->ntoks, sizeof *p->toks);
        }
    }
}

/* The bytes rule of a kind, from its name as it reads once unescaped: the
 * first line of a kind may spell it "re\u0061d", and the rule must be the
 * one every thread finds for that kind whichever line it saw first. */
static uint8_t parser_rule(dfn_parser *p, uint32_t kind_ref, const dfn_line *f)
{
    if (kind_ref >= p->rule_cap) {
        size_t old = p->rule_cap, cap = old ? old : 256;
        while (cap <= kind_ref) cap *= 2;
        p->rule_of_kind = dfn_xrealloc(p->rule_of_kind, cap);
        memset(p->rule_of_kind + old, 255, cap - old);
        p->rule_cap = cap;
    }
    uint8_t r = p->rule_of_kind[kind_ref];
    if (r == 255) {
        /* the category as it reads, copied: the name's unescaping reuses the buffer */
        char cat[64];
        size_t cl = 0;
        const char *c = f->cat;
        size_t clen = f->cat_len;
        if (c) parser_unescape(p, &c, &clen, f->cat_quoted, f->plain);
        if (c && clen <= sizeof cat) memcpy(cat, c, cl = clen);
        const char *name = f->name;
        size_t len = f->name_len;
        if (name) parser_unescape(p, &name, &len, f->name_quoted, f->plain);
        r = name ? (uint8_t)dfn_bytes_rule_of_kind(cat, cl, name, len) : DFN_BYTES_NONE;
        p->rule_of_kind[kind_ref] = r;
    }
    return r;
}

/* Room for n arguments in p->largs. */
static void parser_largs_reserve(dfn_parser *p, size_t n)
{
    if (n <= p->largs_cap) return;
    size_t cap = p->largs_cap;
    while (cap < n) cap *= 2;
    p->largs = dfn_xreallocarray(p->largs, cap, sizeof *p->largs);
    p->largs_cap = cap;
}

/* Records a metadata line (HH, FH, SH: a hash and its name); false when
 * it is malformed (and counted so). */
static void batch_meta(dfn_batch *b, dfn_meta m)
{
    if (b->nmeta == b->metacap) {
        b->metacap = b->metacap ? b->metacap * 2 : 64;
        b->meta = dfn_xreallocarray(b->meta, b->metacap, sizeof *b->meta);
    }
    b->meta[b->nmeta++] = m;
}

/* The tokens of a metadata record's args.name, args.value and
 * args.hhash, or -1 for those it lacks. */
static void meta_args(const toks_view *v, int t_args, int *an, int *av, int *ah)
{
    *an = *av = *ah = -1;
    int j = t_args + 1;
    for (int k = 0; k < v->t[t_args].size && j + 1 < v->n; k++) {
        if (TOK_IS(v, j, "name")) *an = j + 1;
        else if (TOK_IS(v, j, "value")) *av = j + 1;
        else if (TOK_IS(v, j, "hhash")) *ah = j + 1;
        j = tok_skip(v, j + 1);
    }
}

/* A time unit a file declares (an end record's cfg.time_metric, a CM
 * record): one dfnav does not know declares none, neither replacing an
 * earlier declaration, in this block or another, nor counting. */
static void batch_unit(dfn_batch *b, const char *s, size_t len)
{
    dfn_unit u = dfn_unit_parse(s, len);
    if (u) b->info.unit = (uint8_t)u;
    else b->info.unit_unknown = true;
}

/* What PR, process_name and thread_name metadata say of a process or
 * thread: its MPI rank (PR "rank" R, or a process_name "Rank N") or its
 * name (a process_name or thread_name of other tools: args.name, unless
 * it is only the id again, as DFTracer writes); host from hhash. */
static void parser_procmeta(dfn_parser *p, dfn_batch *b, const toks_view *v, int t_name, int t_args, uint64_t line,
                            int64_t pid, int64_t tid)
{
    int an, av, ah;
    meta_args(v, t_args, &an, &av, &ah);
    const jsmntok_t *nt = an >= 0 ? &v->t[an] : NULL, *vt = av >= 0 ? &v->t[av] : NULL;
    if (!nt || (nt->type != JSMN_STRING && nt->type != JSMN_PRIMITIVE)) return;
    const char *text = v->s + nt->start;
    size_t len = tok_len(nt);
    uint8_t type = DFN_META_RANK;
    int64_t r;
    if (TOK_IS(v, t_name, "PR")) {
        if (len != 4 || memcmp(text, "rank", 4) != 0 || !vt) return;   /* other properties: kept as metadata */
        text = v->s + vt->start;
        len = tok_len(vt);
    } else if (len > 5 && memcmp(text, "Rank ", 5) == 0 && dfn_parse_i64(text + 5, len - 5, &r)) {
        text += 5;
        len -= 5;
    } else {
        type = TOK_IS(v, t_name, "process_name") ? DFN_META_PNAME : DFN_META_TNAME;
        int64_t same;
        if (len == 0 || (dfn_parse_i64(text, len, &same) && (same == pid || same == tid))) return;
    }
    uint32_t val;
    if (type == DFN_META_RANK) {
        char buf[24];
        if (!dfn_parse_i64(text, len, &r)) return;
        int w = snprintf(buf, sizeof buf, "%" PRId64, r);
        val = dfn_strcache_intern(p->c_strs, buf, (size_t)w);
    } else {
        val = parser_str(p, v, an);
    }
    unsigned era = 0;
    uint32_t host = DFN_REF_NONE;
    if (ah >= 0) {
        const jsmntok_t *ht = &v->t[ah];
        host = parser_hash(p, v->s + ht->start, tok_len(ht), ht->type == JSMN_STRING,
                           ht->type == JSMN_OBJECT || ht->type == JSMN_ARRAY, &era);
    }
    batch_meta(b, (dfn_meta){ host, val, type, line, pid, tid });
}

/* A CM record {"name":"time_metric","value":UNIT} declares the file's
 * unit as the end record's cfg.time_metric does: subsets dfnav extracts
 * say so in their first lines, where it does not add an event. */
static void parser_unit_meta(dfn_batch *b, const toks_view *v, int t_args)
{
    int an, av, ah;
    meta_args(v, t_args, &an, &av, &ah);
    if (an < 0 || av < 0 || !TOK_IS(v, an, "time_metric") || v->t[av].type != JSMN_STRING) return;
    batch_unit(b, v->s + v->t[av].start, tok_len(&v->t[av]));
}

static bool parser_metadata(dfn_parser *p, dfn_batch *b, const toks_view *v, int t_name, int t_args, uint64_t line,
                            int64_t pid, int64_t tid)
{
    uint8_t type;
    if (TOK_IS(v, t_name, "HH")) type = DFN_META_HH;
    else if (TOK_IS(v, t_name, "FH")) type = DFN_META_FH;
    else if (TOK_IS(v, t_name, "SH")) type = DFN_META_SH;
    else {
        if (TOK_IS(v, t_name, "PR") || TOK_IS(v, t_name, "process_name") || TOK_IS(v, t_name, "thread_name"))
            parser_procmeta(p, b, v, t_name, t_args, line, pid, tid);
        else if (TOK_IS(v, t_name, "CM"))
            parser_unit_meta(b, v, t_args);
        return true;
    }
    int an, av, ah;
    meta_args(v, t_args, &an, &av, &ah);
    if (an < 0 || av < 0) { batch_bad(b, line, "metadata without name or value"); return false; }
    const jsmntok_t *vt = &v->t[av];
    uint32_t href = parser_hash(p, v->s + vt->start, tok_len(vt), vt->type == JSMN_STRING,
                                vt->type == JSMN_OBJECT || vt->type == JSMN_ARRAY, &b->era);
    if (href == DFN_REF_NONE) { batch_bad(b, line, "metadata with a bad hash value"); return false; }
    batch_meta(b, (dfn_meta){ href & ~DFN_REF_HASH, parser_str(p, v, an), type, line, 0, 0 });
    return true;
}

/* What an argument key means to the parser. */
enum { ROLE_OTHER = 1, ROLE_HHASH, ROLE_FHASH, ROLE_HOSTNAME, ROLE_FNAME, ROLE_RET, ROLE_SIZE, ROLE_SIZE_SUM,
       ROLE_VERSION, ROLE_CNT, ROLE_DUR, ROLE_DUR_SUM, ROLE_DUR_MAX, ROLE_RET_SUM, ROLE_CFG, ROLE_APP, ROLE_BYTES,
       ROLE_BYTES_SUM, ROLE_PATHHASH };

static uint8_t key_role(const char *k, size_t kl)
{
    switch (kl) {
    case 3:
        if (memcmp(k, "ret", 3) == 0) return ROLE_RET;
        if (memcmp(k, "dur", 3) == 0) return ROLE_DUR;
        if (memcmp(k, "cfg", 3) == 0) return ROLE_CFG;
        return memcmp(k, "app", 3) == 0 ? ROLE_APP : ROLE_OTHER;
    case 4: return memcmp(k, "size", 4) == 0 ? ROLE_SIZE : ROLE_OTHER;
    case 5:
        if (memcmp(k, "bytes", 5) == 0) return ROLE_BYTES;
        if (memcmp(k, "hhash", 5) == 0) return ROLE_HHASH;
        if (memcmp(k, "fhash", 5) == 0) return ROLE_FHASH;
        return memcmp(k, "fname", 5) == 0 ? ROLE_FNAME : ROLE_OTHER;
    case 7:
        if (memcmp(k, "version", 7) == 0) return ROLE_VERSION;
        if (memcmp(k, "dft_cnt", 7) == 0) return ROLE_CNT;
        if (memcmp(k, "dur_sum", 7) == 0) return ROLE_DUR_SUM;
        if (memcmp(k, "dur_max", 7) == 0) return ROLE_DUR_MAX;
        return memcmp(k, "ret_sum", 7) == 0 ? ROLE_RET_SUM : ROLE_OTHER;
    case 8:
        if (memcmp(k, "hostname", 8) == 0) return ROLE_HOSTNAME;
        return memcmp(k, "size_sum", 8) == 0 ? ROLE_SIZE_SUM : ROLE_OTHER;
    case 9: return memcmp(k, "bytes_sum", 9) == 0 ? ROLE_BYTES_SUM : ROLE_OTHER;
    case 13: return memcmp(k, "pathname_hash", 13) == 0 ? ROLE_PATHHASH : ROLE_OTHER;
    }
    return ROLE_OTHER;
}

/* The arguments of an event from its tokens, into f->args; flags values
 * that are not valid JSON where no exact reading has vouched for them. */
static void line_args_from_tokens(dfn_parser *p, const toks_view *v, int t_args, dfn_line *f)
{
    int na = v->t[t_args].size, j = t_args + 1;
    size_t kept = 0;
    parser_largs_reserve(p, (size_t)na);
    f->args = p->largs;
    f->nargs = 0;
    for (int k = 0; k < na && j + 1 < v->n; k++) {
        int key = j, val = j + 1;
        j = tok_skip(v, val);
        const jsmntok_t *kt = &v->t[key], *vt = &v->t[val];
        dfn_larg *a = &f->args[f->nargs++];
        *a = (dfn_larg){ .key = v->s + kt->start, .key_len = (uint32_t)tok_len(kt),
                         .val = v->s + vt->start, .val_len = (uint32_t)tok_len(vt),
                         .quoted = vt->type == JSMN_STRING, .plain = false };
        const char *ks = a->key, *vs = a->val;
        size_t kl = a->key_len, vl = a->val_len;
        uint8_t role = key_role(ks, kl);
        bool hash = role == ROLE_HHASH || role == ROLE_FHASH || role == ROLE_PATHHASH;
        bool inline_name = a->quoted && (role == ROLE_HOSTNAME || role == ROLE_FNAME);
        int64_t iv = 0; uint64_t uv = 0; bool is_u = false;
        if ((vt->type == JSMN_PRIMITIVE || vt->type == JSMN_STRING) && dfn_parse_canonical_int(vs, vl, &iv, &uv, &is_u)) {
            a->type = is_u ? DFN_LV_UINT : DFN_LV_INT;
            a->num = is_u ? uv : (uint64_t)iv;
        } else if (vt->type == JSMN_STRING) a->type = DFN_LV_STR;
        else if (vt->type == JSMN_PRIMITIVE && vl == 4 && memcmp(vs, "null", 4) == 0) a->type = DFN_LV_NULL;
        else if (vt->type == JSMN_PRIMITIVE && vl == 4 && memcmp(vs, "true", 4) == 0) a->type = DFN_LV_TRUE;
        else if (vt->type == JSMN_PRIMITIVE && vl == 5 && memcmp(vs, "false", 5) == 0) a->type = DFN_LV_FALSE;
        else a->type = DFN_LV_RAW;
        if (hash) f->args_bad_json |= !toks_primitives_ok(v, val, val + 1);
        else if (inline_name) continue;
        else if (kept == DFN_ARGS_MAX || a->type == DFN_LV_RAW) f->args_bad_json |= !toks_primitives_ok(v, val, j);
        if (!hash && kept < DFN_ARGS_MAX) kept++;
    }
}

/* A pid or tid: a number, or a name (Chrome traces of other tools) kept
 * as its string id in the range numbers may not take. */
static bool tok_id(dfn_parser *p, const toks_view *v, int i, int64_t *out, bool *quoted)
{
    bool q = false;
    if (tok_i64(v, i, out, &q)) {
        *quoted |= q;   /* a quoted number is an era's mark; a name is not */
        return !dfn_id_named(*out);
    }
    if (v->t[i].type != JSMN_STRING || tok_len(&v->t[i]) == 0) return false;
    *out = DFN_ID_NAMED_BASE + (int64_t)parser_str(p, v, i);
    return true;
}

/* Reads a line the scanner did not take through its tokens into f.
 * Returns false when the line is done with: malformed (recorded), a
 * metadata record (recorded), or nothing to read. */
static bool line_from_tokens(dfn_parser *p, dfn_batch *b, const char *s, size_t len, uint64_t line, dfn_line *f)
{
    bool strict;
    int r = parser_tokenize(p, s, len, &strict);
    if (r == JSMN_ERROR_NOMEM) { batch_bad(b, line, "too many JSON values"); return false; }
    if (r == TOKENIZE_TOO_DEEP) { batch_bad(b, line, "JSON nested too deeply"); return false; }
    if (r < 1 || p->toks[0].type != JSMN_OBJECT || (size_t)p->toks[0].end != len) {
        /* jsmn stops at a NUL as at the end of the text */
        batch_bad(b, line, r != JSMN_ERROR_PART ? "invalid JSON" : memchr(s, '\0', len) ? "NUL byte" : "truncated JSON");
        return false;
    }
    toks_view v = { s, p->toks, r, strict };

    int t_name = -1, t_cat = -1, t_args = -1;
    uint64_t ts = 0, dur = 0;
    int64_t pid = 0, tid = 0;
    bool has_ts = false, has_id = false, quoted = false, bad_num = false, bad_json = false;
    uint8_t ph = DFN_PH_NONE, frac = 0;
    int ph_tok = -1;
    int16_t type = -1;
    unsigned era = 0;

    int nkeys = p->toks[0].size;
    int i = 1;
    for (int k = 0; k < nkeys && i < r; k++) {
        int key = i, val = i + 1;
        if (val >= r) break;
        int next = tok_skip(&v, val);
        const jsmntok_t *kt = &v.t[key];
        size_t kl = tok_len(kt);
        const char *ks = s + kt->start;
        bool exact = false;   /* the value was read by an exact number parser */
        if (kt->type == JSMN_STRING) {
            switch (kl) {
            case 2:
                if (memcmp(ks, "ts", 2) == 0) {
                    has_ts = p->prescale ? tok_scaled(&v, val, p->prescale, &ts, &quoted) : tok_u64(&v, val, &ts, &quoted, &frac);
                    bad_num |= !has_ts;
                    exact = true;
                }
                else if (memcmp(ks, "ph", 2) == 0) {
                    const jsmntok_t *pt = &v.t[val];
                    bool q = pt->type == JSMN_STRING;
                    ph = pt->type == JSMN_STRING || pt->type == JSMN_PRIMITIVE ? dfn_ph_code(s + pt->start, tok_len(pt), q)
                                                                             : DFN_PH_OTHER;
                    if (!q && ph != DFN_PH_OTHER) era |= DFN_ERA_PH_NUM;
                    ph_tok = val;
                }
                else if (memcmp(ks, "id", 2) == 0) has_id = true;
                break;
            case 3:
                if (memcmp(ks, "dur", 3) == 0) {
                    exact = true;
                    int64_t d;
                    bool whole = tok_i64(&v, val, &d, &quoted);
                    if (whole && d < 0) { batch_bad(b, line, "negative dur"); return false; }
                    if (p->prescale) bad_num |= !tok_scaled(&v, val, p->prescale, &dur, &quoted);
                    else if (whole) dur = (uint64_t)d;
                    else if (!tok_u64(&v, val, &dur, &quoted, &frac)) bad_num = true;
                }
                else if (memcmp(ks, "pid", 3) == 0) { bad_num |= !tok_id(p, &v, val, &pid, &quoted); exact = true; }
                else if (memcmp(ks, "tid", 3) == 0) { bad_num |= !tok_id(p, &v, val, &tid, &quoted); exact = true; }
                else if (memcmp(ks, "cat", 3) == 0) t_cat = val;
                break;
            case 4:
                if (memcmp(ks, "name", 4) == 0) t_name = val;
                else if (memcmp(ks, "args", 4) == 0 && v.t[val].type == JSMN_OBJECT) t_args = val;
                else if (memcmp(ks, "type", 4) == 0) {
                    int64_t tv;
                    era |= DFN_ERA_TYPE;
                    if (v.t[val].type == JSMN_PRIMITIVE && tok_i64(&v, val, &tv, NULL)) {
                        type = tv >= 0 && tv < 255 ? (int16_t)tv : -1;
                        exact = true;
                    }
                }
                break;
            }
        }
        if (!exact && val != t_args) bad_json |= !toks_primitives_ok(&v, val, next);
        i = next;
    }
    if (quoted) era |= DFN_ERA_QUOTED;
    if (!has_id) era |= DFN_ERA_NO_ID;
    if (bad_json || (ph == DFN_PH_M && t_args >= 0 && !toks_primitives_ok(&v, t_args, tok_skip(&v, t_args)))) {
        batch_bad(b, line, "invalid JSON");
        return false;
    }
    if (ph == DFN_PH_M) {
        b->era |= era & ~DFN_ERA_NO_ID;
        if (t_name < 0 || t_args < 0 || parser_metadata(p, b, &v, t_name, t_args, line, pid, tid)) b->info.metadata++;
        return false;
    }

    *f = (dfn_line){ .end = s + len, .ts = ts, .dur = dur, .pid = pid, .tid = tid, .has_ts = has_ts, .frac = frac,
                     .bad_num = bad_num, .ph = ph, .type = type, .era = era, .args = p->largs };
    if (ph_tok >= 0) {
        f->ph_text = s + v.t[ph_tok].start;
        f->ph_len = (uint32_t)tok_len(&v.t[ph_tok]);
    }
    if (t_name >= 0) {
        f->name = s + v.t[t_name].start;
        f->name_len = (uint32_t)tok_len(&v.t[t_name]);
        f->name_quoted = v.t[t_name].type == JSMN_STRING;
    }
    if (t_cat >= 0) {
        f->cat = s + v.t[t_cat].start;
        f->cat_len = (uint32_t)tok_len(&v.t[t_cat]);
        f->cat_quoted = v.t[t_cat].type == JSMN_STRING;
    }
    if (t_args >= 0) line_args_from_tokens(p, &v, t_args, f);
    return true;
}

/* What the arguments of a line say beyond themselves. */
typedef struct {
    uint32_t host, file;
    int64_t ret, size, size_sum, version, cnt, dur, dur_sum, dur_max, ret_sum, bytes, bytes_sum;
    uint16_t has;             /* HAS_* */
    const dfn_larg *cfg, *app;   /* nested objects of the end record */
    enc_arg args[DFN_ARGS_MAX];
    size_t nargs;
} evargs;
enum { HAS_RET = 1, HAS_SIZE = 2, HAS_SIZE_SUM = 4, HAS_CNT = 8, HAS_DUR = 16, HAS_DUR_SUM = 32, HAS_DUR_MAX = 64,
       HAS_RET_SUM = 128, HAS_BYTES = 256, HAS_BYTES_SUM = 512 };

/* An integer argument of a known role into e. */
static void evargs_number(evargs *e, uint8_t role, int64_t iv)
{
    static const struct { uint8_t role; uint16_t has; size_t off; } tab[] = {
        { ROLE_RET, HAS_RET, offsetof(evargs, ret) }, { ROLE_SIZE, HAS_SIZE, offsetof(evargs, size) },
        { ROLE_SIZE_SUM, HAS_SIZE_SUM, offsetof(evargs, size_sum) }, { ROLE_CNT, HAS_CNT, offsetof(evargs, cnt) },
        { ROLE_DUR, HAS_DUR, offsetof(evargs, dur) }, { ROLE_DUR_SUM, HAS_DUR_SUM, offsetof(evargs, dur_sum) },
        { ROLE_DUR_MAX, HAS_DUR_MAX, offsetof(evargs, dur_max) }, { ROLE_RET_SUM, HAS_RET_SUM, offsetof(evargs, ret_sum) },
        { ROLE_BYTES, HAS_BYTES, offsetof(evargs, bytes) }, { ROLE_BYTES_SUM, HAS_BYTES_SUM, offsetof(evargs, bytes_sum) },
    };
    if (role == ROLE_OTHER) return;   /* nearly every argument */
    if (role == ROLE_VERSION) { e->version = iv; return; }
    for (size_t k = 0; k < sizeof tab / sizeof *tab; k++)
        if (tab[k].role == role) {
            memcpy((char *)e + tab[k].off, &iv, sizeof iv);
            e->has |= tab[k].has;
            return;
        }
}

/* A number past INT64_MAX where a count, size or time belongs is no such
 * figure: a ret of 2^64 - 1 is a -1 (an error) written unsigned, not
 * 18 EB read. As -1 it moves no bytes and makes an aggregated record's
 * figures damage. */
#define UINT_ROLE_VALUE (-1)

/* A number of a known role written as no canonical integer ("ret":
 * 4096.0, 5e2, "5e2"): as dur and ts are read, rounded to the nearest
 * integer; past 2^63 it is no such figure, as an integer there is. It
 * counted no bytes at all before, without a word. */
static void evargs_number_text(evargs *e, uint8_t role, const dfn_larg *la)
{
    double d;
    /* a JSON number's form, quoted or not: no space, hex or "inf" */
    if (!la->val_len || !((la->val[0] >= '0' && la->val[0] <= '9') || la->val[0] == '-') ||
        !json_primitive_ok(la->val, la->val_len))
        return;
    if (!dfn_parse_double(la->val, la->val_len, &d) || d != d) return;
    if (d >= 9223372036854775807.0 || d <= -9223372036854775807.0) evargs_number(e, role, UINT_ROLE_VALUE);
    else evargs_number(e, role, (int64_t)(d < 0 ? d - 0.5 : d + 0.5));
}

/* An aggregated record's duration argument as µs (the parser's
 * prescale), where the first reading took it as a number of the file's
 * unit within the parser's bound; false leaves it to that reading (past
 * the bound, negative: damage there and here alike). */
static bool prescaled_dur(const dfn_parser *p, const dfn_larg *la, int64_t *out)
{
    double d;
    uint64_t us;
    if (la->type == DFN_LV_UINT || !la->val_len || la->val[0] < '0' || la->val[0] > '9' ||
        !json_primitive_ok(la->val, la->val_len) || !dfn_parse_double(la->val, la->val_len, &d) || !(d <= (double)TIME_MAX) ||
        !dec_scaled(la->val, la->val_len, p->prescale, &us))
        return false;
    *out = (int64_t)us;
    return true;
}

/* Reads the arguments of f: host and file names, the numbers bytes and
 * aggregated calls come from, and the rest encoded for the store. */
static void parser_args(dfn_parser *p, const dfn_line *f, evargs *e, unsigned *era)
{
    e->host = e->file = DFN_REF_NONE;
    e->has = 0;
    e->version = 0;
    e->cfg = e->app = NULL;
    e->nargs = 0;
    for (size_t k = 0; k < f->nargs; k++) {
        const dfn_larg *la = &f->args[k];
        dfn_keyhint *kh = la->hint;
        uint8_t role = kh && kh->role ? kh->role : key_role(la->key, la->key_len);
        if (kh) kh->role = role;
        if (role == ROLE_HHASH) {
            if (e->host == DFN_REF_NONE || (e->host & DFN_REF_HASH)) e->host = parser_hash_arg(p, la, era);
            continue;
        }
        if (role == ROLE_FHASH) {
            if (e->file == DFN_REF_NONE || (e->file & DFN_REF_HASH)) e->file = parser_hash_arg(p, la, era);
            continue;
        }
        /* the path of calls that name one but open no file (mkdir, unlink,
         * stat in 2.x), resolved by FH records as fhash is: their file; an
         * fhash before or after it is the file instead. It stays an
         * argument either way, so arg.pathname_hash does not depend on
         * which of the two the record names first. */
        if (role == ROLE_PATHHASH) {
            if (e->file == DFN_REF_NONE) e->file = parser_hash_arg(p, la, era);
            role = ROLE_OTHER;   /* no figure of the call to read from it below */
        }
        if ((role == ROLE_HOSTNAME || role == ROLE_FNAME) && la->quoted) {
            uint32_t id = parser_text_hinted(p, kh, la->val, la->val_len, true, la->plain, f->end);
            *(role == ROLE_HOSTNAME ? &e->host : &e->file) = id;
            *era |= DFN_ERA_INLINE;
            continue;
        }
        /* what a number says of the call counts, kept or not: a wide
         * aggregated record's dft_cnt may come past the arguments kept */
        int64_t us;
        if (p->prescale && (role == ROLE_DUR || role == ROLE_DUR_SUM || role == ROLE_DUR_MAX) && prescaled_dur(p, la, &us))
            evargs_number(e, role, us);   /* a duration in the file's unit, as µs */
        else if (la->type == DFN_LV_UINT) evargs_number(e, role, UINT_ROLE_VALUE);
        else if (la->type == DFN_LV_INT) evargs_number(e, role, (int64_t)la->num);
        else if (role != ROLE_OTHER && (la->type == DFN_LV_RAW || la->type == DFN_LV_STR)) evargs_number_text(e, role, la);
        if (e->nargs == DFN_ARGS_MAX) continue;
        enc_arg *a = &e->args[e->nargs++];
        if (kh && kh->id != DFN_REF_NONE) a->key = kh->id;
        else {
            a->key = parser_text(p, la->key, la->key_len, true, la->plain, f->end);
            if (kh) kh->id = a->key;
        }
        switch (la->type) {
        case DFN_LV_UINT: a->type = DFN_ARG_UINT; a->val = la->num; break;
        case DFN_LV_INT: a->type = DFN_ARG_INT; a->val = dfn_zigzag((int64_t)la->num); break;
        case DFN_LV_STR:
            a->type = DFN_ARG_STR;
            a->val = parser_text_hinted(p, kh, la->val, la->val_len, true, la->plain, f->end);
            break;
        case DFN_LV_NULL: a->type = DFN_ARG_NULL; break;
        case DFN_LV_TRUE: a->type = DFN_ARG_TRUE; break;
        case DFN_LV_FALSE: a->type = DFN_ARG_FALSE; break;
        default:
            a->type = DFN_ARG_RAW;
            a->val = dfn_strcache_intern(p->c_strs, la->val, la->val_len);
            if (role == ROLE_CFG) e->cfg = la;
            else if (role == ROLE_APP) e->app = la;
            break;
        }
    }
}

/* Bytes an argument names (MPI-IO, HDF5, GPU copies): bytes, else size. */
static uint64_t arg_bytes(const evargs *e)
{
    if (e->has & HAS_BYTES) return e->bytes > 0 ? (uint64_t)e->bytes : 0;
    return e->has & HAS_SIZE && e->size > 0 ? (uint64_t)e->size : 0;
}

static inline bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b && a > UINT64_MAX / b) return false;
    *out = a * b;
    return true;
}

#define AGG_RANGE "aggregated figures out of range"

/* The calls an aggregated record folds (DFTracer 2.x, ph 3): dft_cnt of
 * them, their time dur_sum (or a plain dur times the count), their
 * longest dur_max, and their bytes from ret_sum (or a plain ret times the
 * count). NULL, or why the record is damaged: no count of calls, or
 * figures that overflow. */
static const char *parser_agg(const evargs *e, uint64_t top_dur, uint8_t rule, uint64_t *cnt, uint64_t *dur,
                              uint64_t *durmax, uint64_t *bytes)
{
    /* a record of no calls, or of a number of them not given, is damage
     * to count, not one call to guess */
    if (!(e->has & HAS_CNT) || e->cnt <= 0) return "aggregated record without a whole dft_cnt above 0";
    uint64_t n = (uint64_t)e->cnt;
    *cnt = n;
    if (e->has & HAS_DUR_SUM) {
        if (e->dur_sum < 0) return AGG_RANGE;
        *dur = (uint64_t)e->dur_sum;
    } else if (!mul_ok((e->has & HAS_DUR) && e->dur >= 0 ? (uint64_t)e->dur : top_dur, n, dur)) {
        return AGG_RANGE;
    }
    if (e->has & HAS_DUR_MAX && e->dur_max >= 0) *durmax = (uint64_t)e->dur_max;
    else *durmax = (e->has & HAS_DUR) && e->dur >= 0 ? (uint64_t)e->dur : top_dur ? top_dur : *dur / n;
    uint64_t rets = 0;
    if (e->has & HAS_RET_SUM) rets = e->ret_sum > 0 ? (uint64_t)e->ret_sum : 0;
    else if (e->has & HAS_RET && e->ret > 0 && !mul_ok((uint64_t)e->ret, n, &rets)) return AGG_RANGE;
    *bytes = 0;
    if (rule == DFN_BYTES_ARG) {
        /* bytes, else size; one that varied is written as its _sum */
        if (e->has & HAS_BYTES_SUM) *bytes = e->bytes_sum > 0 ? (uint64_t)e->bytes_sum : 0;
        else if (!(e->has & HAS_BYTES) && e->has & HAS_SIZE_SUM) *bytes = e->size_sum > 0 ? (uint64_t)e->size_sum : 0;
        else return mul_ok(arg_bytes(e), n, bytes) ? NULL : AGG_RANGE;
        return NULL;
    }
    if (rule == DFN_BYTES_RET) {
        *bytes = rets;
    } else if (rule == DFN_BYTES_SIZE_X_RET && rets) {
        /* items of a size that did not vary; a varying one with a fixed
         * count; both varying: the product of means, the row says so */
        if (e->has & HAS_SIZE && e->size > 0) return mul_ok((uint64_t)e->size, rets, bytes) ? NULL : AGG_RANGE;
        if (e->has & HAS_SIZE_SUM && e->size_sum > 0) {
            if (e->has & HAS_RET) return mul_ok((uint64_t)e->size_sum, (uint64_t)e->ret, bytes) ? NULL : AGG_RANGE;
            *bytes = (uint64_t)((double)e->size_sum * (double)rets / (double)n);
        }
    }
    return NULL;
}

/* Bytes a single call moved. */
static uint64_t parser_bytes(const evargs *e, uint8_t rule)
{
    if (rule == DFN_BYTES_ARG) return arg_bytes(e);
    if (e->has & HAS_SIZE_SUM) return e->size_sum >= 0 ? (uint64_t)e->size_sum : 0;
    if (!(e->has & HAS_RET) || e->ret <= 0) return 0;
    if (rule == DFN_BYTES_RET) return (uint64_t)e->ret;
    if (rule == DFN_BYTES_SIZE_X_RET && e->has & HAS_SIZE && e->size > 0 &&
        (uint64_t)e->size <= UINT64_MAX / (uint64_t)e->ret)
        return (uint64_t)e->size * (uint64_t)e->ret;
    return 0;
}

/* The end record's cfg and app, kept as JSON for info, and the time unit
 * cfg declares: it applies to the whole file although it comes last. */
static void parser_end_record(dfn_batch *b, const evargs *e)
{
    if (e->cfg && e->cfg->val_len <= DFN_JSONGET_MAX) {
        free(b->info.cfg);
        b->info.cfg = dfn_xstrndup(e->cfg->val, e->cfg->val_len);
        dfn_jsonval v;
        if (dfn_json_get(e->cfg->val, e->cfg->val_len, "time_metric", 11, &v) && v.quoted) batch_unit(b, v.s, v.len);
    }
    if (e->app && e->app->val_len <= DFN_JSONGET_MAX) {
        free(b->info.app);
        b->info.app = dfn_xstrndup(e->app->val, e->app->val_len);
    }
}

static inline bool line_named(const dfn_line *f, const char *lit, size_t len)
{
    return f->name_quoted && f->name_len == len && memcmp(f->name, lit, len) == 0;
}

/* A record of a kind dfnav does not use: counted by its ph. */
static void batch_other(dfn_batch *b, const dfn_line *f)
{
    b->info.other++;
    if (f->ph_text) dfn_phcount_add(dfn_phcount_room(&b->info.other_ph), f->ph_text, f->ph_len, 1);
    else dfn_phcount_add(dfn_phcount_room(&b->info.other_ph), "none", 4, 1);
}

/* The host a record names in its args (hhash or hostname), as a ref. */
static uint32_t parser_line_host(dfn_parser *p, const dfn_line *f)
{
    uint32_t host = DFN_REF_NONE;
    unsigned era = 0;
    for (size_t k = 0; k < f->nargs; k++) {
        const dfn_larg *la = &f->args[k];
        uint8_t role = key_role(la->key, la->key_len);
        if (role == ROLE_HHASH) host = parser_hash_arg(p, la, &era);
        else if (role == ROLE_HOSTNAME && la->quoted) host = parser_text(p, la->val, la->val_len, true, la->plain, f->end);
    }
    return host;
}

/* A counter record's samples: every numeric field of its args but the
 * host's hash, as one series each ("cpu" + "iowait_pct"). */
static void parser_counter(dfn_parser *p, dfn_batch *b, const dfn_line *f, uint64_t line)
{
    if (f->bad_num) { batch_bad(b, line, "bad number in pid, tid or ts"); return; }
    if (!f->has_ts) { batch_bad(b, line, "counter without ts"); return; }
    if (f->args_bad_json) { batch_bad(b, line, "invalid JSON"); return; }
    b->info.counters++;
    b->info.frac_times += f->frac;
    uint32_t name = f->name ? parser_text_hinted(p, f->name_hint, f->name, f->name_len, f->name_quoted, f->plain, f->end)
                            : parser_intern(p, "", 0, 0);
    uint32_t host = parser_line_host(p, f);
    for (size_t k = 0; k < f->nargs; k++) {
        const dfn_larg *la = &f->args[k];
        uint8_t role = key_role(la->key, la->key_len);
        if (role == ROLE_HHASH || role == ROLE_HOSTNAME) continue;
        double v;
        if (la->type == DFN_LV_INT) v = (double)(int64_t)la->num;
        else if (la->type == DFN_LV_UINT) v = (double)la->num;
        else if ((la->type == DFN_LV_RAW || la->type == DFN_LV_STR) && dfn_parse_double(la->val, la->val_len, &v) &&
                 v == v && v - v == 0)
            ;
        else continue;
        if (b->ncs == b->cscap) {
            b->cscap = b->cscap ? b->cscap * 2 : 256;
            b->cs = dfn_xreallocarray(b->cs, b->cscap, sizeof *b->cs);
        }
        b->cs[b->ncs++] = (dfn_csample){ f->ts, f->pid, host, name,
                                         parser_text(p, la->key, la->key_len, true, la->plain, f->end), v };
    }
}

/* An "E" record: the end of the call its thread began last, found when
 * the build pairs them across the file. */
static void parser_end_mark(dfn_parser *p, dfn_batch *b, const dfn_line *f, uint64_t line)
{
    if (f->bad_num) { batch_bad(b, line, "bad number in pid, tid or ts"); return; }
    if (!f->has_ts) { batch_bad(b, line, "end of a call without ts"); return; }
    if (f->ts > TIME_MAX) { batch_bad(b, line, "ts or dur out of range"); return; }
    uint32_t host = parser_line_host(p, f);
    dfn_grow((void **)&b->ends, &b->endcap, b->nends + 1, sizeof *b->ends);
    b->ends[b->nends++] = (dfn_endmark){ f->ts, parser_lane(p, host, f->pid, f->tid), line };
    b->info.pairs_pending++;
    b->info.frac_times += f->frac;
}

/* Makes an event of a line either reader has read, or sets it aside. */
static void parser_event(dfn_parser *p, dfn_batch *b, const dfn_line *f, uint64_t line)
{
    switch (f->ph) {
    case DFN_PH_X: case DFN_PH_AGG: case DFN_PH_I: case DFN_PH_B: break;
    case DFN_PH_E: parser_end_mark(p, b, f, line); return;
    case DFN_PH_NONE: if (f->has_ts) break; batch_other(b, f); return;
    case DFN_PH_C: parser_counter(p, b, f, line); return;
    default: batch_other(b, f); return;
    }
    if (f->bad_num) { batch_bad(b, line, "bad number in pid, tid, ts or dur"); return; }
    if (!f->has_ts) { batch_bad(b, line, "event without ts"); return; }
    if (f->ts > TIME_MAX || f->dur > TIME_MAX) { batch_bad(b, line, "ts or dur out of range"); return; }

    unsigned era = f->era;
    uint32_t name = f->name ? parser_text_hinted(p, f->name_hint, f->name, f->name_len, f->name_quoted, f->plain, f->end)
                            : parser_intern(p, "", 0, 0);
    uint32_t cat = f->cat ? parser_text_hinted(p, f->cat_hint, f->cat, f->cat_len, f->cat_quoted, f->plain, f->end)
                          : parser_intern(p, "", 0, 0);
    evargs e;
    parser_args(p, f, &e, &era);
    if (f->args_bad_json) { batch_bad(b, line, "invalid JSON"); return; }

    uint32_t kind = parser_kind(p, cat, name, f->type >= 0 ? (uint8_t)f->type : 255);
    uint64_t dur = f->ph == DFN_PH_I ? 0 : f->dur, bytes, cnt = 0, durmax = 0;
    if (f->ph == DFN_PH_AGG) {
        const char *why = parser_agg(&e, f->dur, parser_rule(p, kind, f), &cnt, &dur, &durmax, &bytes);
        if (why || dur > TIME_MAX) {
            batch_bad(b, line, why ? why : AGG_RANGE);
            return;
        }
    } else {
        bytes = parser_bytes(&e, parser_rule(p, kind, f));
    }

    /* a "B" waits in its own batch for its "E" */
    dfn_batch *tb = f->ph == DFN_PH_B ? batch_begins(b, line) : b;
    batch_reserve(tb);
    size_t n = tb->n;
    if (cnt) batch_agg_start(tb);
    if (tb->cnt) {
        tb->cnt[n] = cnt;
        tb->durmax[n] = durmax;
        b->info.agg_records += cnt != 0;
        b->info.agg_calls += cnt;
    }
    tb->ts[n] = f->ts;
    tb->dur[n] = dur;
    tb->bytes[n] = bytes;
    tb->lane[n] = parser_lane(p, e.host, f->pid, f->tid);
    tb->kind[n] = kind;
    tb->file[n] = e.file;
    parser_emit_args(p, tb, e.args, e.nargs);
    tb->n++;
    if (tb == b) b->info.events++;
    else b->info.pairs_pending++;
    b->info.frac_times += f->frac;
    b->era |= era;
    if (f->ts < tb->min_ts) tb->min_ts = f->ts;
    if (f->ts + dur > tb->max_end) tb->max_end = f->ts + dur;
    if (e.version > 0 && e.version < UINT32_MAX && line_named(f, "start", 5)) b->version = (uint32_t)e.version;
    if (line_named(f, "end", 3)) parser_end_record(b, &e);
}

/* scan: whether the scanner may still take the line; the block loop has
 * tried it on the rest of the block, and what it refused there it would
 * refuse on the line alone. */
static void parse_line(dfn_parser *p, dfn_batch *b, const char *s, size_t len, uint64_t line, bool scan)
{
    /* a UTF-8 byte order mark, as Windows editors save a file's start */
    if (line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) { s += 3; len -= 3; }
    while (len && is_space(*s)) { s++; len--; }
    while (len && is_space(s[len - 1])) len--;
    if (len && s[len - 1] == ',') {
        len--;
        while (len && is_space(s[len - 1])) len--;
    }
    if (line_is_skippable(s, len)) { b->info.skipped++; return; }
    /* A leading "[" glued to the first event, as some writers do. */
    if (len > 1 && s[0] == '[' && s[1] != ']') {
        s++; len--;
        while (len && is_space(*s)) { s++; len--; }
    }
    if (len == 0 || s[0] != '{') { batch_bad(b, line, "not a JSON object"); return; }
    if (len > INT32_MAX) { batch_bad(b, line, "line too long"); return; }

    dfn_line f;
    f.args = p->largs;
    if ((!scan || dfn_linescan(s, len, &f, DFN_ARGS_MAX, &p->hint) != len) && !line_from_tokens(p, b, s, len, line, &f))
        return;
    parser_event(p, b, &f, line);
}

void dfn_parser_scan(dfn_parser *p, bool on)
{
    p->no_scan = !on;
}

void dfn_parser_prescale(dfn_parser *p, dfn_unit u)
{
    p->prescale = u == DFN_UNIT_MS ? 1000 : u == DFN_UNIT_SEC ? 1000000 : 0;
    if (p->prescale) p->no_scan = true;   /* the scanner reads whole numbers as they are */
}

void dfn_parser_block(dfn_parser *p, const char *data, size_t len, dfn_batch *b)
{
    batch_reset(b);
    const char *s = data, *end = data + len;
    dfn_line f;
    while (s < end) {
        bool scan = !p->no_scan;
        if (scan && *s == '{') {
            /* the usual line: the scanner finds its end, so the line
             * needs no search for its newline first. The token walk
             * may have grown (moved) largs for a wide line. */
            f.args = p->largs;
            size_t n = dfn_linescan(s, (size_t)(end - s), &f, DFN_ARGS_MAX, &p->hint);
            size_t after = !n ? 0 : s + n == end ? n : s[n] == '\n' ? n + 1 : s[n] == '\r' && s + n + 1 < end && s[n + 1] == '\n' ? n + 2 : 0;
            if (after) {
                b->info.lines++;
                parser_event(p, b, &f, b->info.lines);
                s += after;
                continue;
            }
            scan = n != 0;   /* an object, but something else ends the line */
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        b->info.lines++;
        parse_line(p, b, s, (size_t)(le - s), b->info.lines, scan);
        s = nl ? nl + 1 : end;
    }
}
