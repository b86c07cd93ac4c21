/* Dotted-path lookup in a JSON text (see dfnav/jsonget.h), with jsmn in
 * strict mode: rare and small texts, so a plain token walk does. */
#include "dfnav/jsonget.h"
#include "dfnav/util.h"

#define JSMN_STATIC
#include "tokenize.h"

#include <stdlib.h>
#include <string.h>

/* The token after the whole value at i. */
static int jg_skip(const jsmntok_t *t, int n, int i)
{
    int end = t[i].end, j = i + 1;
    while (j < n && t[j].start < end) j++;
    return j;
}

/* The value of key (raw bytes) in the object at token o, or -1. */
static int jg_member(const char *s, const jsmntok_t *t, int n, int o, const char *key, size_t klen)
{
    int j = o + 1;
    for (int k = 0; k < t[o].size && j + 1 < n; k++) {
        int val = j + 1;
        if (t[j].type == JSMN_STRING && (size_t)(t[j].end - t[j].start) == klen &&
            memcmp(s + t[j].start, key, klen) == 0)
            return val;
        j = jg_skip(t, n, val);
    }
    return -1;
}

bool dfn_json_get(const char *json, size_t len, const char *path, size_t plen, dfn_jsonval *out)
{
    if (len == 0 || len > DFN_JSONGET_MAX) return false;
    jsmn_parser jp;
    jsmn_init(&jp);
    int n = jsmn_parse(&jp, json, len, NULL, 0);
    if (n < 1) return false;
    jsmntok_t *t = dfn_xmalloc((size_t)n * sizeof *t);
    jsmn_init(&jp);
    bool ok = jsmn_parse(&jp, json, len, t, (unsigned)n) == n && t[0].end <= (int)len;
    int at = 0;
    size_t p = 0;
    while (ok && p <= plen) {
        const char *dot = memchr(path + p, '.', plen - p);
        size_t clen = dot ? (size_t)(dot - (path + p)) : plen - p;
        if (t[at].type != JSMN_OBJECT || (at = jg_member(json, t, n, at, path + p, clen)) < 0) ok = false;
        p += clen + 1;
    }
    if (ok) {
        *out = (dfn_jsonval){ json + t[at].start, (size_t)(t[at].end - t[at].start), t[at].type == JSMN_STRING,
                              t[at].type == JSMN_OBJECT || t[at].type == JSMN_ARRAY };
    }
    free(t);
    return ok;
}
