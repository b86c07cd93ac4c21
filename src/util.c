/* Engine utilities: the hash used by every table, checked allocation,
 * strict number parsing of untrusted text, glob matching and clocks. */
#include "dfnav/util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <ctype.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t util_read64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* A small multiply-xorshift hash, 8 bytes per step: strings are hashed on
 * every interned name, so this sits on the load's hot path. */
uint64_t dfn_hash(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0xff51afd7ed558ccdULL);
    while (len >= 8) {
        h ^= util_read64(p) * 0x87c37b91114253d5ULL;
        h = (h << 31 | h >> 33) * 0x4cf5ad432745937fULL;
        p += 8; len -= 8;
    }
    uint64_t t = 0;
    for (size_t i = 0; i < len; i++) t |= (uint64_t)p[i] << (8 * i);
    h ^= t * 0x87c37b91114253d5ULL;
    return dfn_hash_u64(h);
}

static void (*oom_hook)(void);

void dfn_set_oom_hook(void (*hook)(void)) { oom_hook = hook; }

_Noreturn void dfn_out_of_memory(const char *what, size_t n)
{
    if (oom_hook) oom_hook();
    fprintf(stderr, "dfnav: out of memory (%s %zu bytes): the set or this query needs more than the machine gives; "
                    "see Memory in the README\n", what, n);
    fflush(stderr);
    _exit(DFN_EXIT_NOMEM);   /* now, from any thread: the others hold memory in flight */
}

static void util_oom(size_t n) { dfn_out_of_memory("allocating", n); }

void *dfn_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) util_oom(n);
    return p;
}

void *dfn_xmemdup(const void *p, size_t n, size_t size)
{
    if (!p || !n) return NULL;
    void *q = dfn_xmalloc(n * size);
    memcpy(q, p, n * size);
    return q;
}

void dfn_malloc_policy(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    /* glibc raises its threshold for mapping an allocation up to 32 MiB
     * after the first large free; a query's row arrays then grow in the
     * heap, where realloc copies (both copies resident at the peak) and
     * nothing freed goes back. Fixed at 4 MiB, they stay mappings that
     * grow in place: a grouping by file took 299 B a row at 200,000 rows
     * and 170 B with it, and the load's own peak is lower too; the
     * parse's 1 MiB blocks still come from the heap. */
    (void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
    /* and the heap's top is given back past 4 MiB free: at glibc's
     * fixed 128 KiB (and at 1 MiB) the heap shrank and grew again for
     * every small file (20,000 of them took 0.8 s of system time instead
     * of 0.4) */
    (void)mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
}

/* Not under ASan or TSan: their allocator replaces glibc's, whose arenas
 * then first come to life in malloc_trim, and two loads trimming at once
 * (compare loads its runs side by side) raced in that start, one
 * thread walking bins the other had not set up yet (a SEGV in mtrim).
 * Where glibc's malloc serves the program it is set up before any thread. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DFN_NO_TRIM 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DFN_NO_TRIM 1
#endif
#endif

void dfn_malloc_release(void)
{
#if defined(__GLIBC__) && !defined(DFN_NO_TRIM)
    (void)malloc_trim(0);
#endif
}

size_t dfn_page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

bool dfn_release_pages(uintptr_t lo, uintptr_t hi, uintptr_t *a, uintptr_t *b)
{
    uintptr_t page = dfn_page_size();
    *a = (lo + page - 1) & ~(page - 1);
    *b = hi & ~(page - 1);
    if (*b <= *a) return false;
    (void)madvise((void *)*a, *b - *a, MADV_DONTNEED);
    return true;
}

void *dfn_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) util_oom(n * size);
    return p;
}

void *dfn_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) util_oom(n);
    return q;
}

void *dfn_xreallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) util_oom(SIZE_MAX);
    return dfn_xrealloc(p, n * size);
}

char *dfn_xstrdup(const char *s) { return dfn_xstrndup(s, strlen(s)); }

char **dfn_strv_block(const char *const *v, size_t n)
{
    size_t text = 0;
    for (size_t i = 0; i < n; i++) text += strlen(v[i]) + 1;
    if (n > (SIZE_MAX - text) / sizeof(char *)) util_oom(SIZE_MAX);
    char **out = dfn_xmalloc(n * sizeof *out + (text ? text : 1));
    char *p = (char *)(out + n);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(v[i]) + 1;
        memcpy(p, v[i], len);
        out[i] = p;
        p += len;
    }
    return out;
}

char *dfn_xstrndup(const char *s, size_t n)
{
    char *p = dfn_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *dfn_xvasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    size_t len = n > 0 ? (size_t)n : 0;
    char *s = dfn_xmalloc(len + 1);
    vsnprintf(s, len + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

char *dfn_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = dfn_xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void dfn_text_put(char *buf, size_t cap, size_t *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(*w < cap ? buf + *w : NULL, *w < cap ? cap - *w : 0, fmt, ap);
    va_end(ap);
    if (k > 0) *w += (size_t)k;
}

void dfn_grow(void **buf, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2) util_oom(SIZE_MAX);
        c *= 2;
    }
    *buf = dfn_xreallocarray(*buf, c, elsize);
    *cap = c;
}

bool dfn_parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20) return false;
    /* 19 digits cannot overflow: only a 20th needs the check */
    size_t n = len < 20 ? len : 19;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9) return false;
        v = v * 10 + d;
    }
    if (len == 20) {
        unsigned d = (unsigned char)s[19] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool dfn_parse_i64(const char *s, size_t len, int64_t *out)
{
    bool neg = len > 0 && s[0] == '-';
    uint64_t u;
    if (!dfn_parse_u64(s + neg, len - neg, &u)) return false;
    if (neg) {
        if (u > (uint64_t)INT64_MAX + 1) return false;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)u;
    }
    return true;
}

bool dfn_parse_canonical_int(const char *s, size_t len, int64_t *i, uint64_t *u, bool *is_u)
{
    if (len == 0 || len > 20) return false;
    size_t k = s[0] == '-';
    if (k == len) return false;
    if (s[k] == '0' && len - k > 1) return false;
    if (k && len == 2 && s[1] == '0') return false;   /* "-0" */
    if (!k && dfn_parse_u64(s, len, u)) {
        if (*u > (uint64_t)INT64_MAX) { *is_u = true; return true; }
        *i = (int64_t)*u; *is_u = false; return true;
    }
    if (k && dfn_parse_i64(s, len, i)) { *is_u = false; return true; }
    return false;
}

bool dfn_size_unit(const char *u, size_t len, bool any_case, double *mul)
{
    if (len > 3) return false;
    char c[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < len; i++) {
        c[i] = u[i];
        /* upper case but for the i of KiB */
        if (any_case) c[i] = i == 1 && len == 3 && (u[i] == 'I' || u[i] == 'i') ? 'i' : (char)toupper((unsigned char)u[i]);
    }
    *mul = 1;
    if (len == 0 || (len == 1 && c[0] == 'B')) return true;
    static const char units[] = "KMGT";
    const char *x = strchr(units, c[0]);
    if (!c[0] || !x) return false;
    if (!(len == 1 || (len == 2 && c[1] == 'B') || (len == 3 && c[1] == 'i' && c[2] == 'B'))) return false;
    for (const char *k = units; k <= x; k++) *mul *= 1024;
    return true;
}

bool dfn_parse_double(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (end != buf + len || !isfinite(d)) return false;
    *out = d;
    return true;
}

static inline unsigned char util_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

bool dfn_ascii_ieq(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen) return false;
    for (size_t i = 0; i < alen; i++)
        if (util_lower((unsigned char)a[i]) != util_lower((unsigned char)b[i])) return false;
    return true;
}

bool dfn_ascii_icontains(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0) return true;
    if (nlen > hlen) return false;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (dfn_ascii_ieq(hay + i, nlen, needle, nlen)) return true;
    return false;
}

/* Iterative glob with single-star backtracking: linear in practice and no
 * recursion depth that a hostile pattern could blow up. */
bool dfn_glob_match(const char *pat, size_t plen, const char *s, size_t slen, bool icase)
{
    size_t p = 0, i = 0, star = SIZE_MAX, mark = 0;
    while (i < slen) {
        if (p < plen && (pat[p] == '?' ||
                         (icase ? util_lower((unsigned char)pat[p]) == util_lower((unsigned char)s[i])
                                : pat[p] == s[i]) ) && pat[p] != '*') {
            p++; i++;
        } else if (p < plen && pat[p] == '*') {
            star = p++;
            mark = i;
        } else if (star != SIZE_MAX) {
            p = star + 1;
            i = ++mark;
        } else {
            return false;
        }
    }
    while (p < plen && pat[p] == '*') p++;
    return p == plen;
}

double dfn_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void dfn_parallel_each(void *parts, size_t n, size_t size, void *(*fn)(void *))
{
    char *base = parts;
    pthread_t *th = dfn_xmalloc((n ? n : 1) * sizeof *th);
    bool *started = dfn_xcalloc(n ? n : 1, sizeof *started);
    for (size_t i = 1; i < n; i++) started[i] = pthread_create(&th[i], NULL, fn, base + i * size) == 0;
    if (n) fn(base);
    for (size_t i = 1; i < n; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else fn(base + i * size);
    }
    free(started);
    free(th);
}

int dfn_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

size_t dfn_fmt_us_s(int64_t us, char *buf, size_t cap)
{
    /* time keys must tell 1000.001 s from 1000.002 s, which %g does not */
    uint64_t a = us < 0 ? (uint64_t)-(us + 1) + 1 : (uint64_t)us;
    unsigned frac = (unsigned)(a % 1000000);
    int digits = 6;
    while (digits && frac % 10 == 0) { frac /= 10; digits--; }
    int n = digits ? snprintf(buf, cap, "%s%" PRIu64 ".%0*u", us < 0 ? "-" : "", a / 1000000, digits, frac)
                   : snprintf(buf, cap, "%s%" PRIu64, us < 0 ? "-" : "", a / 1000000);
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

char *dfn_hex(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *h = dfn_xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = digits[p[i] >> 4];
        h[2 * i + 1] = digits[p[i] & 15];
    }
    h[2 * n] = 0;
    return h;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

uint8_t *dfn_unhex(const char *hex, size_t *len)
{
    size_t l = strlen(hex);
    if (l % 2) return NULL;
    uint8_t *b = dfn_xmalloc(l / 2 + 1);
    for (size_t i = 0; i < l / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return NULL;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = l / 2;
    return b;
}

void dfn_lines_add(char ***lines, size_t *n, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = dfn_xvasprintf(fmt, ap);
    va_end(ap);
    dfn_grow((void **)lines, cap, *n + 1, sizeof **lines);
    (*lines)[(*n)++] = s;
}
