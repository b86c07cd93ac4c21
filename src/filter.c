/* Filter expression syntax: tokenizing terms, values with quotes and
 * alternatives, units on numbers, and error messages that point at the
 * offending term. Evaluation against a store lives in match.c. */
#include "dfnav/filter.h"
#include "dfnav/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *key_names[DFN_KEY_COUNT] = {
    "time", "dur", "bytes", "host", "pid", "tid", "proc", "cat", "func", "class", "op",
    "layer", "file", "pattern", "dir", "fs", "sizebin", "arg", "type", "rank", "part", "counter", "path"
};

const char *dfn_key_name(dfn_key k) { return k < DFN_KEY_COUNT ? key_names[k] : "?"; }

bool dfn_filter_uses(const dfn_filter *f, dfn_key k)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (f->terms[i].key == k) return true;
    return false;
}

const char *dfn_cmp_name(dfn_cmp c)
{
    static const char *n[] = { "=", "!=", "~", "!~", "<", "<=", ">", ">=" };
    return c <= DFN_GE ? n[c] : "?";
}

bool dfn_key_parse(const char *s, size_t len, dfn_key *k, char **arg, bool *own)
{
    if (len > 4 && (memcmp(s, "arg.", 4) == 0 || memcmp(s, "own.", 4) == 0)) {
        *k = DFN_KEY_ARG;
        if (arg) *arg = dfn_xstrndup(s + 4, len - 4);
        if (own) *own = s[0] == 'o';
        return true;
    }
    for (int i = 0; i < DFN_KEY_COUNT; i++)
        if (i != DFN_KEY_ARG && strlen(key_names[i]) == len && memcmp(key_names[i], s, len) == 0) { *k = (dfn_key)i; return true; }
    /* friendly aliases */
    if (len == 8 && memcmp(s, "function", 8) == 0) { *k = DFN_KEY_FUNC; return true; }
    if (len == 4 && memcmp(s, "name", 4) == 0) { *k = DFN_KEY_FUNC; return true; }
    if (len == 8 && memcmp(s, "category", 8) == 0) { *k = DFN_KEY_CAT; return true; }
    /* the size dimension's values are bytes of a call */
    if (len == 4 && memcmp(s, "size", 4) == 0) { *k = DFN_KEY_BYTES; return true; }
    return false;
}

static void set_err(char *err, size_t errlen, const char *text, size_t pos, size_t len, const char *msg)
{
    if (!err || !errlen) return;
    size_t tl = strlen(text);
    if (pos > tl) pos = tl;
    if (len == 0) len = 1;
    char caret[512];
    size_t c = 0;
    for (size_t i = 0; i < pos && c < sizeof caret - 2; i++) caret[c++] = text[i] == '\t' ? '\t' : ' ';
    for (size_t i = 0; i < len && c < sizeof caret - 1; i++) caret[c++] = '^';
    caret[c] = 0;
    snprintf(err, errlen, "%s\n  %s\n  %s", msg, text, caret);
}

static bool is_key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Numbers with units: durations in µs (us, ms, s, m, h), sizes in bytes
 * (k, m, g, t, with or without "ib"/"b"), time in seconds. */
static bool parse_number(dfn_key key, const char *s, size_t len, double *out)
{
    if (len == 0 || len > 63) return false;
    char buf[64];
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || !isfinite(v)) return false;
    const char *u = end;
    double mul = 1;
    if (*u) {
        char unit[16];
        size_t ul = strlen(u);
        if (ul >= sizeof unit) return false;
        for (size_t i = 0; i <= ul; i++) unit[i] = (char)(u[i] >= 'A' && u[i] <= 'Z' ? u[i] + 32 : u[i]);
        if (key == DFN_KEY_DUR || key == DFN_KEY_TIME) {
            double scale = key == DFN_KEY_DUR ? 1e6 : 1;   /* dur counts µs, time seconds */
            if (strcmp(unit, "us") == 0 || strcmp(unit, "µs") == 0) mul = scale / 1e6;
            else if (strcmp(unit, "ms") == 0) mul = scale / 1e3;
            else if (strcmp(unit, "s") == 0) mul = scale;
            else if (strcmp(unit, "m") == 0 || strcmp(unit, "min") == 0) mul = scale * 60;
            else if (strcmp(unit, "h") == 0) mul = scale * 3600;
            else return false;
        } else if (key == DFN_KEY_BYTES) {
            if (!dfn_size_unit(unit, ul, true, &mul)) return false;
        } else {
            return false;
        }
    }
    /* 1e308h is a finite number of hours and no number of seconds */
    if (!isfinite(v * mul)) return false;
    *out = v * mul;
    return true;
}

static void term_add_value(dfn_term *t, const char *v, size_t len)
{
    t->values = dfn_xreallocarray(t->values, t->nvalues + 1, sizeof *t->values);
    t->value_lens = dfn_xreallocarray(t->value_lens, t->nvalues + 1, sizeof *t->value_lens);
    t->values[t->nvalues] = dfn_xstrndup(v, len);
    t->value_lens[t->nvalues] = len;
    t->nvalues++;
}

static void term_free(dfn_term *t)
{
    for (size_t i = 0; i < t->nvalues; i++) free(t->values[i]);
    free(t->values);
    free(t->value_lens);
    free(t->arg);
}

static void filter_push(dfn_filter *f, const dfn_term *t)
{
    f->terms = dfn_xreallocarray(f->terms, f->n + 1, sizeof *f->terms);
    f->terms[f->n++] = *t;
}

static bool key_is_numeric(dfn_key k) { return k == DFN_KEY_TIME || k == DFN_KEY_DUR || k == DFN_KEY_BYTES; }

bool dfn_filter_parse(const char *text, dfn_filter *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text) return true;
    size_t n = strlen(text), i = 0;
    char *buf = dfn_xmalloc(n + 1);
    while (i < n) {
        while (i < n && (is_ws(text[i]) || text[i] == ',')) i++;
        if (i >= n) break;
        size_t start = i;
        /* "and" between terms reads naturally and is allowed */
        if (n - i >= 4 && memcmp(text + i, "and", 3) == 0 && is_ws(text[i + 3])) { i += 4; continue; }
        while (i < n && is_key_char(text[i])) i++;
        dfn_term t = {0};
        t.pos = start;
        if (i == start) {
            set_err(err, errlen, text, start, 1, "expected a key such as cat, func, file, dur");
            goto fail;
        }
        if (!dfn_key_parse(text + start, i - start, &t.key, &t.arg, &t.own)) {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown key '%.*s' (keys: time dur bytes host pid tid proc rank cat func type class op layer file pattern part dir fs sizebin path arg.NAME own.NAME; with --counters: counter)",
                     (int)(i - start > 40 ? 40 : i - start), text + start);
            set_err(err, errlen, text, start, i - start, msg);
            goto fail;
        }
        while (i < n && is_ws(text[i])) i++;
        size_t oppos = i;
        if (i + 1 < n && text[i] == '!' && text[i + 1] == '~') { t.op = DFN_NMATCH; i += 2; }
        else if (i + 1 < n && text[i] == '!' && text[i + 1] == '=') { t.op = DFN_NE; i += 2; }
        else if (i + 1 < n && text[i] == '<' && text[i + 1] == '=') { t.op = DFN_LE; i += 2; }
        else if (i + 1 < n && text[i] == '>' && text[i + 1] == '=') { t.op = DFN_GE; i += 2; }
        else if (i + 1 < n && text[i] == '=' && text[i + 1] == '=') { t.op = DFN_EQ; i += 2; }
        else if (i < n && text[i] == '=') { t.op = DFN_EQ; i++; }
        else if (i < n && text[i] == '~') { t.op = DFN_MATCH; i++; }
        else if (i < n && text[i] == '<') { t.op = DFN_LT; i++; }
        else if (i < n && text[i] == '>') { t.op = DFN_GT; i++; }
        else {
            set_err(err, errlen, text, oppos, 1, "expected an operator: = != ~ !~ < <= > >=");
            term_free(&t);
            goto fail;
        }
        while (i < n && is_ws(text[i])) i++;
        /* the value: quoted and bare pieces, alternatives split on bare '|' */
        size_t vstart = i, bl = 0;
        bool any = false;
        while (i < n && !is_ws(text[i])) {
            char c = text[i];
            if (c == '"' || c == '\'') {
                char q = c;
                i++;
                bool closed = false;
                while (i < n) {
                    if (text[i] == '\\' && i + 1 < n && (text[i + 1] == q || text[i + 1] == '\\')) { buf[bl++] = text[i + 1]; i += 2; continue; }
                    if (text[i] == q) { closed = true; i++; break; }
                    buf[bl++] = text[i++];
                }
                if (!closed) {
                    set_err(err, errlen, text, vstart, i - vstart, "unterminated quote");
                    term_free(&t);
                    goto fail;
                }
                any = true;
            } else if (c == '|') {
                term_add_value(&t, buf, bl);
                bl = 0;
                any = false;
                i++;
            } else {
                buf[bl++] = c;
                any = true;
                i++;
            }
        }
        if (any || bl || t.nvalues) term_add_value(&t, buf, bl);
        t.len = i - start;
        if (t.nvalues == 0 || (t.nvalues == 1 && t.value_lens[0] == 0 && i == vstart)) {
            set_err(err, errlen, text, start, i - start, "missing value after the operator");
            term_free(&t);
            goto fail;
        }
        bool ordered = t.op >= DFN_LT;
        if (key_is_numeric(t.key)) {
            if (t.op == DFN_MATCH || t.op == DFN_NMATCH || t.nvalues != 1) {
                set_err(err, errlen, text, start, t.len, "time, dur and bytes take one number with = != < <= > >=");
                term_free(&t);
                goto fail;
            }
            if (!parse_number(t.key, t.values[0], t.value_lens[0], &t.num)) {
                set_err(err, errlen, text, vstart, i - vstart,
                        t.key == DFN_KEY_DUR ? "expected a duration such as 150, 150us, 2ms, 1.5s" :
                        t.key == DFN_KEY_BYTES ? "expected a size such as 4096, 4k, 1MiB" :
                                                 "expected seconds from the trace start, such as 12.5");
                term_free(&t);
                goto fail;
            }
            t.has_num = true;
        } else if (ordered) {
            if (t.nvalues != 1) {
                set_err(err, errlen, text, start, t.len, "< <= > >= take one value");
                term_free(&t);
                goto fail;
            }
            t.has_num = parse_number(DFN_KEY_COUNT, t.values[0], t.value_lens[0], &t.num);
            if (!t.has_num && t.key != DFN_KEY_ARG) {
                set_err(err, errlen, text, vstart, i - vstart, "< <= > >= compare numbers");
                term_free(&t);
                goto fail;
            }
        }
        /* pid= and tid= take any text: a value that is not a whole number
         * is a name (pids given as text, such as 10.0.0.1 or 1st-worker) */
        filter_push(out, &t);
    }
    free(buf);
    return true;
fail:
    free(buf);
    dfn_filter_free(out);
    return false;
}

void dfn_filter_add(dfn_filter *f, dfn_key key, const char *arg, dfn_cmp op, const char *value, size_t vlen)
{
    dfn_term t = { .key = key, .op = op };
    if (arg) t.arg = dfn_xstrdup(arg);
    term_add_value(&t, value, vlen);
    if (key_is_numeric(key) || op >= DFN_LT)
        t.has_num = parse_number(key_is_numeric(key) ? key : DFN_KEY_COUNT, value, vlen, &t.num);
    filter_push(f, &t);
}

void dfn_filter_append(dfn_filter *dst, const dfn_filter *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const dfn_term *s = &src->terms[i];
        dfn_term t = *s;
        t.arg = s->arg ? dfn_xstrdup(s->arg) : NULL;
        t.values = NULL; t.value_lens = NULL; t.nvalues = 0;
        for (size_t k = 0; k < s->nvalues; k++) term_add_value(&t, s->values[k], s->value_lens[k]);
        filter_push(dst, &t);
    }
}

static void sb_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    dfn_grow((void **)buf, cap, *len + n + 1, 1);
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
}

char *dfn_filter_text(const dfn_filter *f)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    sb_put(&b, &len, &cap, "", 0);
    for (size_t i = 0; i < f->n; i++) {
        const dfn_term *t = &f->terms[i];
        if (i) sb_put(&b, &len, &cap, " ", 1);
        const char *k = t->key == DFN_KEY_ARG && t->own ? "own" : dfn_key_name(t->key);
        sb_put(&b, &len, &cap, k, strlen(k));
        if (t->key == DFN_KEY_ARG) { sb_put(&b, &len, &cap, ".", 1); sb_put(&b, &len, &cap, t->arg, strlen(t->arg)); }
        const char *op = dfn_cmp_name(t->op);
        sb_put(&b, &len, &cap, op, strlen(op));
        for (size_t v = 0; v < t->nvalues; v++) {
            if (v) sb_put(&b, &len, &cap, "|", 1);
            const char *s = t->values[v];
            size_t sl = t->value_lens[v];
            bool quote = sl == 0 || s[0] == '=';   /* "file==x" would read back as == */
            for (size_t j = 0; j < sl && !quote; j++)
                quote = is_ws(s[j]) || s[j] == '"' || s[j] == '\'' || s[j] == '|' || s[j] == ',' || (unsigned char)s[j] < 0x20;
            if (!quote) { sb_put(&b, &len, &cap, s, sl); continue; }
            sb_put(&b, &len, &cap, "\"", 1);
            for (size_t j = 0; j < sl; j++) {
                if (s[j] == '"' || s[j] == '\\') sb_put(&b, &len, &cap, "\\", 1);
                sb_put(&b, &len, &cap, s + j, 1);
            }
            sb_put(&b, &len, &cap, "\"", 1);
        }
    }
    return b;
}

static bool term_same(const dfn_term *a, const dfn_term *b)
{
    if (a->key != b->key || a->op != b->op || a->own != b->own || a->nvalues != b->nvalues || a->has_num != b->has_num ||
        memcmp(&a->num, &b->num, sizeof a->num) != 0 || !a->arg != !b->arg || (a->arg && strcmp(a->arg, b->arg) != 0))
        return false;
    for (size_t v = 0; v < a->nvalues; v++)
        if (a->value_lens[v] != b->value_lens[v] || memcmp(a->values[v], b->values[v], a->value_lens[v]) != 0) return false;
    return true;
}

bool dfn_filter_same(const dfn_filter *a, const dfn_filter *b)
{
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
        if (!term_same(&a->terms[i], &b->terms[i])) return false;
    return true;
}

void dfn_filter_free(dfn_filter *f)
{
    for (size_t i = 0; i < f->n; i++) term_free(&f->terms[i]);
    free(f->terms);
    f->terms = NULL;
    f->n = 0;
}
