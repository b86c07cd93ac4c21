/* dfnav file heads: the process a trace file's first lines name (see
 * dfnav/filehead.h). A small read before the load, 16 KiB of text at a
 * time until a pid and a host are found (64 KiB at most; of a gzip file
 * as much as that text takes); each line looked into with jsonget. */
#include "dfnav/filehead.h"
#include "dfnav/jsonget.h"
#include "dfnav/util.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A value's text as the hash reads it: a pid of "7" and 7 are one pid. */
static uint64_t head_hash(const dfn_jsonval *v, uint64_t seed)
{
    return dfn_hash_u64(seed ^ dfn_hash(v->s, v->len)) | 1;   /* (never 0: not found) */
}

/* One line, trimmed of the array's brackets and commas: its pid and host
 * into *pid and *host where still 0. */
static void head_line(const char *s, size_t len, uint64_t *pid, uint64_t *host)
{
    while (len && (*s == ' ' || *s == '\t' || *s == '[')) s++, len--;
    while (len && (s[len - 1] == ',' || s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
                   s[len - 1] == ']'))
        len--;
    if (!len || *s != '{') return;
    dfn_jsonval v;
    if (!*pid && dfn_json_get(s, len, "pid", 3, &v) && !v.container) *pid = head_hash(&v, 0x70696400);
    if (!*host && ((dfn_json_get(s, len, "args.hostname", 13, &v) && !v.container) ||
                   (dfn_json_get(s, len, "args.hhash", 10, &v) && !v.container)))
        *host = head_hash(&v, 0x686f737400);
}

bool dfn_filehead_scan(const char *text, size_t len, dfn_filehead *out)
{
    uint64_t pid = 0, host = 0;
    for (size_t at = 0; at < len && !(pid && host);) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - (text + at)) : len - at;
        head_line(text + at, l, &pid, &host);
        at += l + 1;
    }
    out->host = host;
    out->proc = pid ? dfn_hash_u64(pid ^ (host * 31)) | 1 : 0;
    return pid != 0;
}

/* Up to cap bytes of fd; what a read error leaves is what came before. */
static size_t head_fill(int fd, unsigned char *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

/* A gzip stream's text (members one after another) as far as asked:
 * a few KiB read, not the reader's MiB (thousands of files' heads on a
 * parallel file system). */
typedef struct {
    z_stream z;
    int fd;
    unsigned char *in;
    size_t insz;
    bool ok, done;
} head_gz;

/* More text into out[*len, cap): to cap, or to the stream's end or damage
 * (the lines before it are the head). */
static void head_inflate(head_gz *g, char *out, size_t *len, size_t cap)
{
    g->z.next_out = (Bytef *)out + *len;
    g->z.avail_out = (uInt)(cap - *len);
    while (g->z.avail_out && !g->done) {
        if (!g->z.avail_in) {
            g->z.avail_in = (uInt)head_fill(g->fd, g->in, g->insz);
            g->z.next_in = g->in;
            if (!g->z.avail_in) { g->done = true; break; }
        }
        int rc = inflate(&g->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) g->done = inflateReset(&g->z) != Z_OK;   /* the next member */
        else if (rc != Z_OK) g->done = true;
    }
    *len = cap - g->z.avail_out;
}

bool dfn_filehead_read(const char *path, dfn_filehead *out)
{
    *out = (dfn_filehead){ 0, 0 };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    enum { STEP = 16384 };
    head_gz g = { .fd = fd, .in = dfn_xmalloc(STEP), .insz = STEP };
    char *text = dfn_xmalloc(DFN_FILEHEAD_BYTES);
    size_t n = head_fill(fd, g.in, STEP), len = 0;
    bool gz = n >= 2 && g.in[0] == 0x1f && g.in[1] == 0x8b, found = false;
    if (gz) {
        g.z.next_in = g.in;
        g.z.avail_in = (uInt)n;
        gz = g.ok = inflateInit2(&g.z, 15 + 16) == Z_OK;
    } else {
        memcpy(text, g.in, n);
        len = n;
    }
    /* a step of text at a time: most heads name both in their first lines */
    bool more = gz || n == STEP;
    for (size_t want = STEP;; want += STEP) {
        if (want > DFN_FILEHEAD_BYTES) want = DFN_FILEHEAD_BYTES;
        if (gz) {
            head_inflate(&g, text, &len, want);
            more = !g.done;
        } else if (more && len < want) {
            size_t got = head_fill(fd, (unsigned char *)text + len, want - len);
            more = got == want - len;
            len += got;
        }
        found = dfn_filehead_scan(text, len, out) && out->host;
        if (found || !more || want == DFN_FILEHEAD_BYTES) break;
    }
    if (g.ok) inflateEnd(&g.z);
    close(fd);
    free(g.in);
    free(text);
    return out->proc != 0;
}

/* Head readers: each takes the next file until none is left. */
typedef struct {
    const char *const *paths;
    const uint64_t *bytes;
    size_t n;
    bool by_host;
    uint64_t *g;
    _Atomic size_t next;
} heads;

static void *heads_main(void *arg)
{
    heads *h = arg;
    for (size_t i; (i = atomic_fetch_add(&h->next, 1)) < h->n;) {
        dfn_filehead fh;
        /* standard input and what is no regular file: read once, by the load */
        if (h->bytes[i] == UINT64_MAX || !dfn_filehead_read(h->paths[i], &fh)) continue;
        h->g[i] = h->by_host ? fh.host : fh.proc;
    }
    return NULL;
}

uint64_t *dfn_filehead_groups(const char *const *paths, const uint64_t *bytes, size_t n, bool by_host, int threads)
{
    heads h = { paths, bytes, n, by_host, dfn_xcalloc(n ? n : 1, sizeof *h.g), 0 };
    /* many readers: a head is one small read, whose wait on a parallel
     * file system is its latency, not the cores' (one per 32 files, at
     * most 16; this thread is one) */
    enum { READERS = 16 };
    pthread_t th[READERS - 1];
    size_t want = n / 32 < READERS ? n / 32 : READERS, started = 0;
    if (threads > 0 && want > (size_t)threads) want = (size_t)threads;   /* (the user's bound on threads) */
    for (size_t k = 1; k < want; k++)
        if (pthread_create(&th[started], NULL, heads_main, &h) == 0) started++;
    heads_main(&h);
    for (size_t k = 0; k < started; k++) pthread_join(th[k], NULL);
    return h.g;
}
