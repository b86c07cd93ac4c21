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

/* ---- strict validation ---- */

static size_t jv_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

static bool jv_digits(const char *s, size_t len, size_t *i)
{
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') (*i)++;
    return *i > start;
}

/* RFC 8259's number grammar. */
static bool jv_number(const char *s, size_t len, size_t *i)
{
    if (*i < len && s[*i] == '-') (*i)++;
    if (*i < len && s[*i] == '0') (*i)++;
    else if (!jv_digits(s, len, i)) return false;
    if (*i < len && s[*i] == '.' && (++(*i), !jv_digits(s, len, i))) return false;
    if (*i < len && (s[*i] == 'e' || s[*i] == 'E')) {
        (*i)++;
        if (*i < len && (s[*i] == '+' || s[*i] == '-')) (*i)++;
        if (!jv_digits(s, len, i)) return false;
    }
    return true;
}

static bool jv_string(const char *s, size_t len, size_t *i)
{
    for ((*i)++; *i < len; (*i)++) {
        unsigned char c = (unsigned char)s[*i];
        if (c == '"') { (*i)++; return true; }
        if (c < 0x20) return false;
        if (c != '\\') continue;
        if (++(*i) >= len) return false;
        if (s[*i] == 'u') {
            for (int k = 0; k < 4; k++)
                if (++(*i) >= len || !strchr("0123456789abcdefABCDEF", s[*i]) || !s[*i]) return false;
        } else if (!strchr("\"\\/bfnrt", s[*i]) || !s[*i]) {
            return false;
        }
    }
    return false;
}

static bool jv_value(const char *s, size_t len, size_t *i, int depth);

/* An object or an array at s[*i]. */
static bool jv_container(const char *s, size_t len, size_t *i, int depth)
{
    char close = s[*i] == '{' ? '}' : ']';
    bool obj = close == '}';
    *i = jv_ws(s, len, *i + 1);
    if (*i < len && s[*i] == close) { (*i)++; return true; }
    for (;;) {
        if (obj) {
            if (*i >= len || s[*i] != '"' || !jv_string(s, len, i)) return false;
            *i = jv_ws(s, len, *i);
            if (*i >= len || s[*i] != ':') return false;
            *i = jv_ws(s, len, *i + 1);
        }
        if (!jv_value(s, len, i, depth + 1)) return false;
        *i = jv_ws(s, len, *i);
        if (*i < len && s[*i] == ',') { *i = jv_ws(s, len, *i + 1); continue; }
        if (*i < len && s[*i] == close) { (*i)++; return true; }
        return false;
    }
}

static bool jv_value(const char *s, size_t len, size_t *i, int depth)
{
    if (*i >= len || depth > 256) return false;
    switch (s[*i]) {
    case '"': return jv_string(s, len, i);
    case '{': case '[': return jv_container(s, len, i, depth);
    case 't': if (len - *i >= 4 && memcmp(s + *i, "true", 4) == 0) { *i += 4; return true; } return false;
    case 'f': if (len - *i >= 5 && memcmp(s + *i, "false", 5) == 0) { *i += 5; return true; } return false;
    case 'n': if (len - *i >= 4 && memcmp(s + *i, "null", 4) == 0) { *i += 4; return true; } return false;
    default: return jv_number(s, len, i);
    }
}

bool dfn_json_valid(const char *s, size_t len)
{
    size_t i = jv_ws(s, len, 0);
    if (!jv_value(s, len, &i, 0)) return false;
    return jv_ws(s, len, i) == len;
}
