/* dfnav file heads: the process a trace file's first lines name (see
 * dfnav/filehead.h). A small read before the load, through the reader so
 * that gzip heads read alike; each line looked into with jsonget. */
#include "dfnav/filehead.h"
#include "dfnav/jsonget.h"
#include "dfnav/reader.h"
#include "dfnav/util.h"

#include <string.h>

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

bool dfn_filehead_read(const char *path, dfn_filehead *out)
{
    *out = (dfn_filehead){ 0, 0 };
    char err[256];
    dfn_reader *r = dfn_reader_open(path, DFN_FILEHEAD_BYTES, err, sizeof err);
    if (!r) return false;
    dfn_block b;
    bool ok = dfn_reader_next(r, &b) == 1;
    if (ok) {
        /* a block holds whole lines: a long first line makes it longer */
        ok = dfn_filehead_scan(b.data, b.len < DFN_FILEHEAD_BYTES ? b.len : DFN_FILEHEAD_BYTES, out);
        dfn_block_free(&b);
    }
    dfn_reader_close(r);
    return ok;
}

uint64_t *dfn_filehead_groups(const char *const *paths, const uint64_t *bytes, size_t n, bool by_host)
{
    uint64_t *g = dfn_xcalloc(n ? n : 1, sizeof *g);
    for (size_t i = 0; i < n; i++) {
        dfn_filehead h;
        /* standard input and what is no regular file: read once, by the load */
        if (bytes[i] == UINT64_MAX || !dfn_filehead_read(paths[i], &h)) continue;
        g[i] = by_host ? h.host : h.proc;
    }
    return g;
}
