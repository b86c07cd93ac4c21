/* dfnav utilities shared by the engine: hashing, varints, checked
 * allocation and number parsing from untrusted text. */
#ifndef DFNAV_UTIL_H
#define DFNAV_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

uint64_t dfn_hash(const void *data, size_t len);
static inline uint64_t dfn_hash_u64(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Allocation that ends the program with a message and status
 * DFN_EXIT_NOMEM when memory runs out: out of memory is not recoverable in
 * the middle of a load or a query, and a NULL deref would be worse. */
#define DFN_EXIT_NOMEM 4
/* Ends the program as out of memory: the message, the hook, the status. */
_Noreturn void dfn_out_of_memory(const char *what, size_t n);
/* Called first by dfn_out_of_memory (the explorer gives the terminal
 * back); NULL for none. */
void dfn_set_oom_hook(void (*hook)(void));
void *dfn_xmalloc(size_t n);
void *dfn_xcalloc(size_t n, size_t size);
void *dfn_xrealloc(void *p, size_t n);
void *dfn_xreallocarray(void *p, size_t n, size_t size);
/* A malloc'd copy of the n items of size bytes at p; NULL for none. */
void *dfn_xmemdup(const void *p, size_t n, size_t size);
/* The system's page size (4096 when it does not say). */
size_t dfn_page_size(void);
/* Gives the whole pages inside [lo, hi) back to the system (they read as
 * zeros if touched again): for the part of a large array that is done
 * with while the rest is still read. False when no whole page lies
 * inside; else [*a, *b) is what went back. */
bool dfn_release_pages(uintptr_t lo, uintptr_t hi, uintptr_t *a, uintptr_t *b);
/* The allocator's policy for the programs (not the library's to set for
 * whoever links it): large arrays as mappings, whatever came before. */
void dfn_malloc_policy(void);
/* Gives the pages of freed memory back to the system. glibc keeps what
 * lies below the top of each thread's arena, and a thread cannot reuse
 * another's: 20,000 small files left 3 MB of parse buffers resident
 * through the build. Called between the load's phases. */
void dfn_malloc_release(void);
char *dfn_xstrdup(const char *s);
/* n strings copied into one allocation, the pointers first and then the
 * text, that one free() releases: a path costs its length, not a heap
 * chunk of its own (20,000 paths of 26 bytes: 0.55 MB, not 1.1). */
char **dfn_strv_block(const char *const *v, size_t n);
char *dfn_xstrndup(const char *s, size_t n);
/* Bytes as lowercase hex digits (malloc'd, NUL-ended), and back: NULL
 * unless the text is whole pairs of hex digits (*len bytes malloc'd). */
char *dfn_hex(const uint8_t *p, size_t n);
uint8_t *dfn_unhex(const char *hex, size_t *len);
/* A formatted string of any length, malloc'd. */
char *dfn_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *dfn_xvasprintf(const char *fmt, va_list ap);
/* A formatted line (malloc'd) added to lines (*n of them, room for *cap). */
void dfn_lines_add(char ***lines, size_t *n, size_t *cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Appends to a line in buf (cap bytes) at *w, which counts what would
 * have been written had all fitted: a line cut short stays NUL-ended,
 * and no pointer goes past buf. */
void dfn_text_put(char *buf, size_t cap, size_t *w, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Grows *buf (element size elsize, capacity *cap) to hold at least need. */
void dfn_grow(void **buf, size_t *cap, size_t need, size_t elsize);

/* LEB128 varints. */
static inline size_t dfn_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    p[n++] = (uint8_t)v;
    return n;
}
/* Reads a varint from [p, end); returns bytes used, 0 when malformed. */
static inline size_t dfn_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (size_t i = 0; i < 10 && p + i < end; i++) {
        r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) { *v = r; return i + 1; }
    }
    return 0;
}
/* Past the varint at p: each ends at a byte below 0x80; end when cut. */
static inline const uint8_t *dfn_varint_skip(const uint8_t *p, const uint8_t *end)
{
    while (p < end && (*p & 0x80)) p++;
    return p < end ? p + 1 : end;
}
/* A total order of doubles for sorts that must give one order: by value,
 * NaN last, then by their bits (-0 before 0, NaNs apart). */
static inline int dfn_value_order(double x, double y)
{
    bool nx = x != x, ny = y != y;
    if (nx != ny) return nx ? 1 : -1;
    if (!nx && x != y) return x < y ? -1 : 1;
    uint64_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    return (bx > by) - (bx < by);
}

/* Byte strings in the order of their bytes, a string before the longer
 * ones it begins. */
static inline int dfn_bytes_cmp(const void *a, size_t la, const void *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* a + b, or UINT64_MAX when the sum would wrap. */
static inline uint64_t dfn_sat_add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }
/* *sum + v, saturating, with flag set in *full when it did: a sum that
 * passed 2^64 stays there, flagged, and shows as inf, never wrapped. */
static inline void dfn_sat_add_flag(uint64_t *sum, uint64_t v, uint8_t *full, uint8_t flag)
{
    if (v > UINT64_MAX - *sum) *full |= flag;
    *sum = dfn_sat_add(*sum, v);
}
/* a * b, or UINT64_MAX when the product would wrap. */
static inline uint64_t dfn_sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
/* 8 bytes little-endian: the lengths and times at the head of what the
 * ranks of a spread server answer (whatever each host's byte order). */
static inline void dfn_le64_put(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint64_t dfn_le64_get(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline uint64_t dfn_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t dfn_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Parses an unsigned decimal integer occupying exactly [s, s+len).
 * Fails on empty text, non-digits and overflow. */
bool dfn_parse_u64(const char *s, size_t len, uint64_t *out);
/* Signed variant: optional leading '-'. */
bool dfn_parse_i64(const char *s, size_t len, int64_t *out);
/* An integer in canonical form only (no leading zeros, no '+', no "-0"),
 * so that "epoch":"0" and "epoch":0 from different eras group together:
 * *is_u says the value is above INT64_MAX and sits in *u, else in *i. */
bool dfn_parse_canonical_int(const char *s, size_t len, int64_t *i, uint64_t *u, bool *is_u);
/* The multiplier of the size unit in the len bytes at u: none or B (1),
 * or K, M, G, T (powers of 1024) alone or followed by B or iB. any_case
 * also takes lower case (the filter language); else only as written. */
bool dfn_size_unit(const char *u, size_t len, bool any_case, double *mul);
/* A JSON number (possibly fractional or with exponent) to double. */
bool dfn_parse_double(const char *s, size_t len, double *out);
/* Whole µs as exact seconds, without trailing zeros: 1000001000 is
 * "1000.001", 5000000 "5", -250000 "-0.25". Returns the length. */
size_t dfn_fmt_us_s(int64_t us, char *buf, size_t cap);

/* Case-insensitive ASCII comparisons. */
bool dfn_ascii_ieq(const char *a, size_t alen, const char *b, size_t blen);
bool dfn_ascii_icontains(const char *hay, size_t hlen, const char *needle, size_t nlen);

/* Glob match with * and ? (no classes), bytes compared exactly or
 * ignoring ASCII case. */
bool dfn_glob_match(const char *pat, size_t plen, const char *s, size_t slen, bool icase);

/* Monotonic clock in seconds. */
double dfn_now(void);

/* Number of online cores, at least 1. */
int dfn_ncpus(void);
/* Calls fn on each of n parts (an array of elements of size bytes), the
 * first on this thread and the others on threads of their own, and
 * returns when all are done; a part whose thread cannot start runs here. */
void dfn_parallel_each(void *parts, size_t n, size_t size, void *(*fn)(void *));

#endif
