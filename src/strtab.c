/* The string table: an open-addressing hash index over an append-only
 * arena of length-prefixed strings, and the lock-free per-thread cache that
 * parser threads use in front of the shared table. */
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (1u << 20)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    char data[];
} arena_chunk;

struct dfn_strtab {
    arena_chunk *chunks;
    const char **strs;      /* id -> text; the length sits in the 4 bytes before */
    size_t count, cap;
    uint32_t *slots;        /* id + 1, 0 = empty */
    uint32_t *slot_hash;    /* low 32 bits of the hash, to skip most compares */
    size_t nslots;
};

dfn_strtab *dfn_strtab_new(void)
{
    dfn_strtab *t = dfn_xcalloc(1, sizeof *t);
    t->nslots = DFN_STRTAB_SLOTS0;
    t->slots = dfn_xcalloc(t->nslots, sizeof *t->slots);
    t->slot_hash = dfn_xcalloc(t->nslots, sizeof *t->slot_hash);
    return t;
}

void dfn_strtab_free(dfn_strtab *t)
{
    if (!t) return;
    for (arena_chunk *c = t->chunks, *n; c; c = n) { n = c->next; free(c); }
    free(t->strs);
    free(t->slots);
    free(t->slot_hash);
    free(t);
}

static const char *strtab_store(dfn_strtab *t, const char *s, size_t len)
{
    size_t need = 4 + len + 1;
    need = (need + 3) & ~(size_t)3;
    arena_chunk *c = t->chunks;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        c = dfn_xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        c->next = t->chunks;
        t->chunks = c;
    }
    char *p = c->data + c->used;
    uint32_t l32 = (uint32_t)len;
    memcpy(p, &l32, 4);
    memcpy(p + 4, s, len);
    p[4 + len] = 0;
    c->used += need;
    return p + 4;
}

static void strtab_rehash(dfn_strtab *t)
{
    size_t n = t->nslots * 2;
    uint32_t *slots = dfn_xcalloc(n, sizeof *slots);
    uint32_t *hashes = dfn_xcalloc(n, sizeof *hashes);
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i]) continue;
        uint32_t id = t->slots[i] - 1;
        const char *s = t->strs[id];
        uint64_t h = dfn_hash(s, dfn_strtab_len(t, id));
        size_t j = h & (n - 1);
        while (slots[j]) j = (j + 1) & (n - 1);
        slots[j] = t->slots[i];
        hashes[j] = (uint32_t)h;
    }
    free(t->slots);
    free(t->slot_hash);
    t->slots = slots;
    t->slot_hash = hashes;
    t->nslots = n;
}

static uint32_t strtab_lookup(const dfn_strtab *t, const char *s, size_t len, uint64_t h, size_t *slot)
{
    size_t mask = t->nslots - 1, j = h & mask;
    for (;;) {
        uint32_t v = t->slots[j];
        if (!v) { *slot = j; return DFN_NOID; }
        if (t->slot_hash[j] == (uint32_t)h) {
            uint32_t id = v - 1;
            if (dfn_strtab_len(t, id) == len && memcmp(t->strs[id], s, len) == 0) return id;
        }
        j = (j + 1) & mask;
    }
}

uint32_t dfn_strtab_find(const dfn_strtab *t, const char *s, size_t len)
{
    size_t slot;
    return strtab_lookup(t, s, len, dfn_hash(s, len), &slot);
}

static uint32_t strtab_intern_hashed(dfn_strtab *t, const char *s, size_t len, uint64_t h)
{
    if (len > UINT32_MAX - 16) len = UINT32_MAX - 16;
    size_t slot;
    uint32_t id = strtab_lookup(t, s, len, h, &slot);
    if (id != DFN_NOID) return id;
    if (t->count >= UINT32_MAX - 2) abort();   /* 4 billion distinct strings */
    dfn_grow((void **)&t->strs, &t->cap, t->count + 1, sizeof *t->strs);
    id = (uint32_t)t->count++;
    t->strs[id] = strtab_store(t, s, len);
    t->slots[slot] = id + 1;
    t->slot_hash[slot] = (uint32_t)h;
    /* at most three slots in four used: the slot hashes keep a longer
     * probe cheap, and at half, 20,000 one-line files took 58 bytes a
     * file more (memory.sh) and 1.28 M distinct strings 23 MB more, with
     * no gain in load time */
    if (t->count * DFN_STRTAB_FILL_DEN > t->nslots * DFN_STRTAB_FILL_NUM) strtab_rehash(t);
    return id;
}

uint32_t dfn_strtab_intern(dfn_strtab *t, const char *s, size_t len)
{
    return strtab_intern_hashed(t, s, len, dfn_hash(s, len));
}

bool dfn_strtab_add(dfn_strtab *t, const char *s, size_t len, uint32_t *id)
{
    uint32_t had = dfn_strtab_count(t), got = dfn_strtab_intern(t, s, len);
    if (id) *id = got;
    return got == had;
}

const char *dfn_strtab_str(const dfn_strtab *t, uint32_t id)
{
    return id < t->count ? t->strs[id] : "";
}

uint32_t dfn_strtab_len(const dfn_strtab *t, uint32_t id)
{
    if (id >= t->count) return 0;
    uint32_t l;
    memcpy(&l, t->strs[id] - 4, 4);
    return l;
}

uint32_t dfn_strtab_count(const dfn_strtab *t) { return (uint32_t)t->count; }

dfn_strtab *dfn_strtab_copy(const dfn_strtab *t)
{
    dfn_strtab *c = dfn_strtab_new();
    for (size_t i = 0; i < t->count; i++) dfn_strtab_intern(c, t->strs[i], dfn_strtab_len(t, (uint32_t)i));
    return c;
}

/* ---- per-thread cache ---- */

typedef struct {
    const char *s;   /* points into the shared arena: immutable once published */
    uint32_t len, id;
    uint64_t h;
} cache_slot;

/* A cache's largest table (24 bytes a slot, half of them used): each
 * parser thread has five, and 20,000 files of a process each grew two of
 * them to 786 KB a thread, holding what the shared table holds anyway. */
#define CACHE_MAX_SLOTS (1u << 13)

struct dfn_strcache {
    dfn_strtab *t;
    pthread_mutex_t *lock;
    cache_slot *slots;
    size_t nslots, count;
};

dfn_strcache *dfn_strcache_new(dfn_strtab *t, pthread_mutex_t *lock)
{
    dfn_strcache *c = dfn_xcalloc(1, sizeof *c);
    c->t = t;
    c->lock = lock;
    c->nslots = 256;
    c->slots = dfn_xcalloc(c->nslots, sizeof *c->slots);
    return c;
}

void dfn_strcache_free(dfn_strcache *c)
{
    if (!c) return;
    free(c->slots);
    free(c);
}

static void strcache_put(dfn_strcache *c, const char *s, uint32_t len, uint32_t id, uint64_t h)
{
    size_t mask = c->nslots - 1, j = h & mask;
    while (c->slots[j].s) j = (j + 1) & mask;
    c->slots[j] = (cache_slot){ s, len, id, h };
    c->count++;
}

uint32_t dfn_strcache_intern(dfn_strcache *c, const char *s, size_t len)
{
    if (len > UINT32_MAX - 16) len = UINT32_MAX - 16;
    uint64_t h = dfn_hash(s, len);
    size_t mask = c->nslots - 1, j = h & mask;
    for (;;) {
        cache_slot *e = &c->slots[j];
        if (!e->s) break;
        if (e->h == h && e->len == len && memcmp(e->s, s, len) == 0) return e->id;
        j = (j + 1) & mask;
    }
    pthread_mutex_lock(c->lock);
    uint32_t id = strtab_intern_hashed(c->t, s, len, h);
    const char *stored = c->t->strs[id];
    pthread_mutex_unlock(c->lock);
    if ((c->count + 1) * 2 > c->nslots && c->nslots >= CACHE_MAX_SLOTS) {
        /* full: start again rather than grow, the shared table still has
         * every string; what repeats comes back in at once */
        memset(c->slots, 0, c->nslots * sizeof *c->slots);
        c->count = 0;
    } else if ((c->count + 1) * 2 > c->nslots) {
        cache_slot *old = c->slots;
        size_t oldn = c->nslots;
        c->nslots *= 2;
        c->slots = dfn_xcalloc(c->nslots, sizeof *c->slots);
        c->count = 0;
        for (size_t i = 0; i < oldn; i++)
            if (old[i].s) strcache_put(c, old[i].s, old[i].len, old[i].id, old[i].h);
        free(old);
    }
    strcache_put(c, stored, (uint32_t)len, id, h);
    return id;
}
