/* The line scanner: the one pass that reads nearly every line of a trace.
 * DFTracer writes each event as compact JSON of one shape: flat fields,
 * a flat "args" object, plain integers and strings without escapes. For
 * such a line this reads fields and values, integers included, straight
 * from the bytes, with no tokens in between. It takes only text that is
 * valid JSON and whose meaning it is sure of; on anything else
 * (whitespace, escapes, fractions, nesting, repeated fields, metadata,
 * padded or fractional numbers in the fixed fields) it says no and the token walk reads
 * the line, so what a line means never depends on which reader took it.
 * Consecutive lines repeat most keys and many values at the same place:
 * the hints hold the last line's bytes there, so a repeated key or value
 * costs a compare of a few words, and what the parser made of a repeated
 * value (an interned name or hash) is kept on its hint. */
#include "line.h"
#include "load.h"
#include "swar.h"
#include "dfnav/util.h"
#include "dfnav/store.h"

#include <string.h>

#define KEYS_MAX 64   /* top-level fields; past this the token walk counts them */

#ifdef __GNUC__
#define SCAN_INLINE inline __attribute__((always_inline))
#define SCAN_UNROLL _Pragma("GCC unroll 4")   /* the word loops: two or three words */
#else
#define SCAN_INLINE inline
#define SCAN_UNROLL
#endif

enum { K_TS = 1, K_DUR = 2, K_PID = 4, K_TID = 8, K_NAME = 16, K_CAT = 32, K_PH = 64,
       K_ID = 128, K_ARGS = 256, K_TYPE = 512 };

static inline unsigned scan_top_key(const unsigned char *k, size_t kl)
{
    switch (kl) {
    case 2:
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        return 0;
    case 3:
        if (memcmp(k, "dur", 3) == 0) return K_DUR;
        if (memcmp(k, "pid", 3) == 0) return K_PID;
        if (memcmp(k, "tid", 3) == 0) return K_TID;
        if (memcmp(k, "cat", 3) == 0) return K_CAT;
        return 0;
    case 4:
        if (memcmp(k, "name", 4) == 0) return K_NAME;
        if (memcmp(k, "args", 4) == 0) return K_ARGS;
        if (memcmp(k, "type", 4) == 0) return K_TYPE;
        return 0;
    }
    return 0;
}

#if SWAR
/* The value of eight digits already less '0', the first at the lowest
 * address; a shorter run shifted up so that zeros lead works as well. */
static inline uint64_t scan_eight_digits(uint64_t w)
{
    w = w * 10 + (w >> 8);
    return ((w & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
            ((w >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >> 32;
}
#endif

/* A JSON integer at i, -?(0|[1-9][0-9]*), that fits int64 or, when not
 * negative, uint64: the only numbers a plain line holds. */
static SCAN_INLINE bool scan_int(const unsigned char *s, size_t *ip, size_t len, dfn_larg *a)
{
    size_t i = *ip, neg = s[i] == '-';
    size_t d = i + neg, e, nd;
    uint64_t v = 0;
#if SWAR
    uint64_t x = 0, m = 0;
    if (d + 8 <= len) {
        memcpy(&x, s + d, 8);
        m = ((x - SWAR_ONES * '0') | (x + SWAR_ONES * (0x7f - '9')) | x) & SWAR_HIGHS;
    }
    if (m) {
        /* most numbers: fewer than eight digits, read in one word */
        nd = swar_first(m);
        if (nd == 0 || (s[d] == '0' && (nd > 1 || neg))) return false;
        v = scan_eight_digits((x - SWAR_ONES * '0') << (8 * (8 - nd)));
        e = d + nd;
    } else
#endif
    {
        e = swar_digits_end(s, d, len);
        nd = e - d;
        if (nd == 0 || nd > 20 || (s[d] == '0' && (nd > 1 || neg)) || (neg && nd > 19)) return false;
        size_t k = d;
#if SWAR
        for (size_t head = nd & 7; head; head--, k++) v = v * 10 + (s[k] - '0');
        for (; k < e; k += 8) {
            uint64_t w;
            memcpy(&w, s + k, 8);
            uint64_t g = scan_eight_digits(w - SWAR_ONES * '0');
            /* only a 20th digit can overflow */
            if (nd == 20 && k + 8 == e && v > (UINT64_MAX - g) / 100000000u) return false;
            v = v * 100000000u + g;
        }
#else
        for (; k < e; k++) {
            unsigned dg = s[k] - '0';
            if (nd == 20 && k + 1 == e && v > (UINT64_MAX - dg) / 10) return false;
            v = v * 10 + dg;
        }
#endif
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return false;
        a->type = DFN_LV_INT;
        a->num = (uint64_t)0 - v;   /* the int64 bits of -v, INT64_MIN included */
    } else {
        a->type = v > (uint64_t)INT64_MAX ? DFN_LV_UINT : DFN_LV_INT;
        a->num = v;
    }
    a->val = (const char *)s + i;
    a->val_len = (uint32_t)(e - i);
    a->quoted = false;
    *ip = e;
    return true;
}

/* One flat value at i: a string without escapes, an integer, true, false
 * or null. */
static SCAN_INLINE bool scan_value(const unsigned char *s, size_t *ip, size_t len, dfn_larg *a)
{
    size_t i = *ip;
    unsigned char c = s[i];
    if (c == '"') {
        size_t e = swar_string_stop(s, i + 1, len);
        if (e >= len || s[e] != '"') return false;
        a->val = (const char *)s + i + 1;
        a->val_len = (uint32_t)(e - i - 1);
        a->quoted = true;
        a->type = DFN_LV_STR;
        a->num = 0;
        unsigned char f = a->val_len ? s[i + 1] : 0;
        if ((f == '-' || (f >= '0' && f <= '9')) && a->val_len <= 20) {
            int64_t iv; uint64_t uv; bool is_u;
            if (dfn_parse_canonical_int(a->val, a->val_len, &iv, &uv, &is_u)) {
                a->type = is_u ? DFN_LV_UINT : DFN_LV_INT;
                a->num = is_u ? uv : (uint64_t)iv;
            }
        }
        *ip = e + 1;
        return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return scan_int(s, ip, len, a);
    size_t n = c == 'f' ? 5 : 4;
    if (len - i < n) return false;
    if (c == 't' && memcmp(s + i, "true", 4) == 0) a->type = DFN_LV_TRUE;
    else if (c == 'f' && memcmp(s + i, "false", 5) == 0) a->type = DFN_LV_FALSE;
    else if (c == 'n' && memcmp(s + i, "null", 4) == 0) a->type = DFN_LV_NULL;
    else return false;
    a->num = 0;
    a->val = (const char *)s + i;
    a->val_len = (uint32_t)n;
    a->quoted = false;
    *ip = i + n;
    return true;
}

/* A key and its colon at i; i < len holds. */
static SCAN_INLINE bool scan_key(const unsigned char *s, size_t *ip, size_t len, const unsigned char **k, size_t *kl)
{
    size_t i = *ip;
    if (s[i] != '"') return false;
    size_t e = swar_string_stop(s, i + 1, len);
    if (e + 1 >= len || s[e] != '"' || s[e + 1] != ':') return false;
    *k = s + i + 1;
    *kl = e - i - 1;
    *ip = e + 2;
    return *ip < len;
}

#if SWAR
/* Holds the first n bytes at s (n <= 8 * words) as masked words. */
static SCAN_INLINE void hint_hold(uint64_t *w, uint64_t *m, size_t words, const unsigned char *s, size_t n)
{
    SCAN_UNROLL
    for (size_t k = 0; k < words; k++) {
        uint64_t x;
        memcpy(&x, s + 8 * k, 8);
        m[k] = n > 8 * k ? swar_prefix_mask(n - 8 * k) : 0;
        w[k] = x & m[k];
    }
}

/* Whether the bytes at s are those held. */
static SCAN_INLINE bool hint_same(const uint64_t *w, const uint64_t *m, size_t words, const unsigned char *s)
{
    uint64_t diff = 0;
    SCAN_UNROLL
    for (size_t k = 0; k < words; k++) {
        uint64_t x;
        memcpy(&x, s + 8 * k, 8);
        diff |= (x ^ w[k]) & m[k];
    }
    return diff == 0;
}
#endif

/* scan_key, trying the key the last line had at this place (*hp) first;
 * *hp comes back NULL when the place cannot hold this key. */
static SCAN_INLINE bool scan_key_hinted(const unsigned char *s, size_t *ip, size_t len, const unsigned char **k,
                                        size_t *kl, dfn_keyhint **hp, bool *hit)
{
    size_t i = *ip;
    dfn_keyhint *h = *hp;
    *hit = false;
#if SWAR
    bool room = h && i + 16 <= len;
    if (room && h->len && hint_same(h->w, h->m, 2, s + i)) {
        /* the very bytes that scan_key took last time */
        *k = s + i + 1;
        *kl = (size_t)h->len - 3;
        *ip = i + h->len;
        *hit = true;
        return *ip < len;
    }
#endif
    if (!scan_key(s, ip, len, k, kl)) return false;
#if SWAR
    if (h) {
        /* learn this key, or forget the old one: a hint's field must be
         * the one of its bytes */
        size_t pl = *ip - i;
        h->vlen = 0;
        if (room && pl <= 16) {
            hint_hold(h->w, h->m, 2, s + i, pl);
            h->len = (uint8_t)pl;
            h->role = 0;
            h->id = UINT32_MAX;
        } else {
            h->len = 0;
            *hp = NULL;
        }
    }
#else
    *hp = NULL;
#endif
    return true;
}

/* scan_value, trying the value the key had on the last line first. The
 * end byte is compared too, so equal bytes are the whole value and read
 * as they did. */
static SCAN_INLINE bool scan_value_hinted(const unsigned char *s, size_t *ip, size_t len, dfn_larg *a, dfn_keyhint *h)
{
    size_t i = *ip;
#if SWAR
    bool room = h && i + DFN_HINT_VALUE <= len;
    if (room && h->vlen && hint_same(h->vw, h->vm, 3, s + i)) {
        a->type = h->vtype;
        a->quoted = h->vquoted;
        a->num = h->vnum;
        a->val = (const char *)s + i + h->voff;
        a->val_len = h->vval_len;
        *ip = i + h->vlen - 1;
        return true;
    }
#endif
    if (!scan_value(s, ip, len, a)) return false;
#if SWAR
    if (h) {
        /* the bytes held, if any, are not this value's */
        h->vok = false;
        h->vlen = 0;
        size_t vl = *ip - i + 1;
        if (room && vl <= DFN_HINT_VALUE) {
            hint_hold(h->vw, h->vm, 3, s + i, vl);
            h->vlen = (uint8_t)vl;
            h->vtype = a->type;
            h->vquoted = a->quoted;
            h->vnum = a->num;
            h->voff = (uint8_t)((const unsigned char *)a->val - (s + i));
            h->vval_len = a->val_len;
        }
    }
#endif
    return true;
}

/* The flat "args" object at i. */
static bool scan_args(const unsigned char *s, size_t *ip, size_t len, dfn_line *f, size_t max, dfn_scanhint *hint)
{
    size_t i = *ip, n = 0;
    if (s[i] != '{' || i + 1 >= len) return false;
    i++;
    if (s[i] == '}') {
        *ip = i + 1;
        f->nargs = 0;
        return true;
    }
    for (;;) {
        if (n == max) return false;
        dfn_larg *a = &f->args[n++];
        const unsigned char *k;
        size_t kl;
        bool hit;
        dfn_keyhint *h = hint && n <= DFN_HINT_KEYS ? &hint->args[n - 1] : NULL;
        if (!scan_key_hinted(s, &i, len, &k, &kl, &h, &hit) || !scan_value_hinted(s, &i, len, a, h) || i >= len)
            return false;
        a->hint = h;
        a->key = (const char *)k;
        a->key_len = (uint32_t)kl;
        a->plain = true;
        if (s[i] == '}') break;
        if (s[i] != ',' || ++i >= len) return false;
    }
    *ip = i + 1;
    f->nargs = n;
    return true;
}

/* An integer that is not negative, as ts and dur must be; the oldest
 * writers quote it. */
static inline bool scan_u64(const dfn_larg *a, uint64_t *out, unsigned *era)
{
    if (a->type != DFN_LV_UINT && (a->type != DFN_LV_INT || (int64_t)a->num < 0)) return false;
    if (a->quoted) *era |= DFN_ERA_QUOTED;
    *out = a->num;
    return true;
}

size_t dfn_linescan(const char *line, size_t len, dfn_line *f, size_t max, dfn_scanhint *hint)
{
    const unsigned char *s = (const unsigned char *)line;
    if (len > INT32_MAX) len = INT32_MAX;   /* longer lines are the token walk's */
    if (len < 2 || s[0] != '{') return 0;
    f->end = line + len;
    f->name = f->cat = NULL;
    f->name_len = f->cat_len = 0;
    f->name_quoted = f->cat_quoted = false;
    f->name_hint = f->cat_hint = NULL;
    f->plain = true;
    f->ts = f->dur = 0;
    f->pid = f->tid = 0;
    f->has_ts = f->bad_num = f->args_bad_json = false;
    f->frac = 0;   /* the scanner takes whole numbers only */
    f->ph = DFN_PH_NONE;
    f->type = -1;
    f->ph_text = NULL;
    f->ph_len = 0;
    f->era = 0;
    f->nargs = 0;
    unsigned seen = 0;
    size_t i = 1, nkeys = 0;
    for (;;) {
        const unsigned char *k;
        size_t kl;
        dfn_keyhint *h = hint && nkeys < DFN_HINT_KEYS ? &hint->top[nkeys] : NULL;
        bool hit;
        if (++nkeys > KEYS_MAX || !scan_key_hinted(s, &i, len, &k, &kl, &h, &hit)) return 0;
        unsigned which;
        if (hit) which = h->which;
        else {
            which = scan_top_key(k, kl);
            if (h) h->which = (uint16_t)which;
        }
        if (which & seen) return 0;
        seen |= which;
        if (which == K_ARGS) {
            if (!scan_args(s, &i, len, f, max, hint)) return 0;
        } else {
            dfn_larg v;
            if (!scan_value_hinted(s, &i, len, &v, h)) return 0;
            switch (which) {
            case K_TS:
                if (!scan_u64(&v, &f->ts, &f->era)) return 0;
                f->has_ts = true;
                break;
            case K_DUR:
                if (!scan_u64(&v, &f->dur, &f->era)) return 0;
                break;
            case K_PID: case K_TID:
                /* names, and numbers in the range kept for names, are the token walk's */
                if (v.type != DFN_LV_INT || dfn_id_named((int64_t)v.num)) return 0;
                if (v.quoted) f->era |= DFN_ERA_QUOTED;
                *(which == K_PID ? &f->pid : &f->tid) = (int64_t)v.num;
                break;
            case K_PH:
                if (!v.quoted && v.type != DFN_LV_INT) return 0;
                f->ph = dfn_ph_code(v.val, v.val_len, v.quoted);
                /* metadata is rare and has its own reading */
                if (f->ph == DFN_PH_M) return 0;
                if (!v.quoted) f->era |= DFN_ERA_PH_NUM;
                f->ph_text = v.val;
                f->ph_len = v.val_len;
                break;
            case K_TYPE:
                if (v.type != DFN_LV_INT || v.quoted) return 0;
                f->type = (int64_t)v.num >= 0 && v.num < 255 ? (int16_t)v.num : -1;
                break;
            case K_NAME: case K_CAT:
                if (!v.quoted) return 0;
                if (which == K_NAME) {
                    f->name = v.val; f->name_len = v.val_len; f->name_quoted = true;
                    f->name_hint = h;
                } else {
                    f->cat = v.val; f->cat_len = v.val_len; f->cat_quoted = true;
                    f->cat_hint = h;
                }
                break;
            }
        }
        if (i >= len) return 0;
        if (s[i] == '}') break;
        if (s[i] != ',' || ++i >= len) return 0;
    }
    if (!(seen & K_ID)) f->era |= DFN_ERA_NO_ID;
    if (seen & K_TYPE) f->era |= DFN_ERA_TYPE;
    return i + 1;
}
