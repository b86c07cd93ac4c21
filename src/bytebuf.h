/* Bytes that travel between ranks (partial results, counter rows, calls): a
 * growing buffer of varints and doubles written as their 8 bytes, and a
 * reader over untrusted bytes whose first failure sticks and says where.
 * Internal to the engine: partial.c, cpartial.c and evrows.c. */
#ifndef DFNAV_BYTEBUF_H
#define DFNAV_BYTEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dfnav/store.h"
#include "dfnav/util.h"

typedef struct { uint8_t *b; size_t n, cap; } obuf;

static inline void put_u(obuf *o, uint64_t v)
{
    dfn_grow((void **)&o->b, &o->cap, o->n + 10, 1);
    o->n += dfn_varint_put(o->b + o->n, v);
}

static inline void put_raw(obuf *o, const void *p, size_t len)
{
    dfn_grow((void **)&o->b, &o->cap, o->n + len + 1, 1);
    if (len) memcpy(o->b + o->n, p, len);
    o->n += len;
}

static inline void put_d(obuf *o, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_raw(o, &u, sizeof u);
}

/* A run of bytes after its length (what get_bytes reads). */
static inline void put_bytes(obuf *o, const void *p, size_t len)
{
    put_u(o, len);
    put_raw(o, p, len);
}

/* A reader over untrusted bytes: the first failure sticks and says where. */
typedef struct { const uint8_t *p, *end; const char *bad; } ibuf;

/* A varint below `below` (none when it is 0: an id of an empty table). */
static inline uint64_t get_lim(ibuf *in, bool any, uint64_t below, const char *what)
{
    uint64_t v = 0;
    size_t n = in->bad ? 0 : dfn_varint_get(in->p, in->end, &v);
    if (!in->bad && (!n || (!any && v >= below))) in->bad = what;
    if (in->bad) return 0;
    in->p += n;
    return v;
}

static inline uint64_t get_u(ibuf *in, uint64_t below, const char *what) { return get_lim(in, false, below, what); }
/* A varint of any value (a sum, a time). */
static inline uint64_t get_any(ibuf *in, const char *what) { return get_lim(in, true, 0, what); }

static inline double get_d(ibuf *in)
{
    uint64_t u = 0;
    if (!in->bad && (size_t)(in->end - in->p) < sizeof u) in->bad = "a size";
    if (in->bad) return 0;
    memcpy(&u, in->p, sizeof u);
    in->p += sizeof u;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The magic and the layout's version that open bytes of one kind (what:
 * "counter rows"): false, with why in err, for another version; a wrong
 * magic is the reader's failure. */
static inline bool get_head(ibuf *in, uint64_t magic, uint64_t version, const char *what, char *err, size_t errlen)
{
    uint64_t m = get_any(in, "the magic"), v = get_any(in, "the version");
    if (!in->bad && m != magic) in->bad = "the magic";
    if (!in->bad && v != version) {
        snprintf(err, errlen, "%s of version %llu (this dfnav reads %llu)", what, (unsigned long long)v,
                 (unsigned long long)version);
        return false;
    }
    return true;
}

/* A pid's or tid's value: whether it is a name (whose value is its
 * store's, the name going apart as text), else the number. */
static inline void put_id(obuf *o, int64_t v)
{
    put_u(o, dfn_id_named(v));
    if (!dfn_id_named(v)) put_u(o, dfn_zigzag(v));
}

/* ... read back: a name is any named value. */
static inline int64_t get_id(ibuf *in)
{
    if (get_u(in, 2, "an id's kind")) return DFN_ID_NAMED_BASE;
    int64_t v = dfn_unzigzag(get_any(in, "an id"));
    if (!in->bad && dfn_id_named(v)) in->bad = "an id";
    return v;
}

/* A count of items of at least min_bytes each: never more than the bytes left could hold. */
static inline size_t get_count(ibuf *in, size_t min_bytes, const char *what)
{
    size_t left = in->bad ? 0 : (size_t)(in->end - in->p);
    return (size_t)get_u(in, left / min_bytes + 1, what);
}

/* A run of bytes after its length: its start and *len, the length bounded
 * by what is left past its own varint (NULL, 0 when cut). */
static inline const uint8_t *get_bytes(ibuf *in, size_t *len, const char *what)
{
    uint64_t l = get_any(in, what);
    if (!in->bad && l > (uint64_t)(in->end - in->p)) in->bad = what;
    *len = in->bad ? 0 : (size_t)l;
    if (in->bad) return NULL;
    const uint8_t *p = in->p;
    in->p += l;
    return p;
}

#endif
