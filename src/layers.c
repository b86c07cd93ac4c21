/* Layer definitions: parsing the layer file format, the compiled-in
 * presets, and choosing a preset for a trace set. */
#include "dfnav/layers.h"
#include "dfnav/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

int dfn_layers_find(const dfn_layers *l, const char *name, size_t len)
{
    for (size_t k = 0; k <= l->n; k++) {
        const char *n = dfn_layers_name(l, k);
        if (strlen(n) == len && memcmp(n, name, len) == 0) return (int)k;
    }
    return -1;
}

const char *dfn_layers_name(const dfn_layers *l, size_t k)
{
    return k < l->n ? l->defs[k].name : "other";
}

/* Layer terms may only name layers above, so membership can be decided in
 * one pass in definition order. */
static bool check_layer_refs(const dfn_layers *l, const dfn_filter *f, char *err, size_t errlen, size_t lineno)
{
    for (size_t t = 0; t < f->n; t++) {
        if (f->terms[t].key != DFN_KEY_LAYER) continue;
        for (size_t v = 0; v < f->terms[t].nvalues; v++) {
            if (f->terms[t].op != DFN_EQ && f->terms[t].op != DFN_NE) continue;
            /* "other" (index n) is not defined above anything */
            int k = dfn_layers_find(l, f->terms[t].values[v], f->terms[t].value_lens[v]);
            if (k < 0 || (size_t)k == l->n) {
                snprintf(err, errlen, "line %zu: layer '%s' is not defined above this line", lineno, f->terms[t].values[v]);
                return false;
            }
        }
    }
    return true;
}

bool dfn_layers_parse(const char *text, const char *source, dfn_layers *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->source = dfn_xstrdup(source ? source : "layers");
    size_t lineno = 0;
    const char *p = text;
    /* editors on some systems start a UTF-8 file with a byte-order mark */
    if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf) p += 3;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = dfn_xstrndup(p, len);
        p = nl ? nl + 1 : p + len;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (!*s) { free(line); continue; }
        char *name = s;
        while (name_char(*s)) s++;
        size_t nlen = (size_t)(s - name);
        while (*s == ' ' || *s == '\t') s++;
        int parent = -1;
        char msg[600];
        if (nlen == 0) {
            snprintf(err, errlen, "%s:%zu: expected a layer name", out->source, lineno);
            goto fail_line;
        }
        if (*s == '<') {
            s++;
            while (*s == ' ' || *s == '\t') s++;
            char *pn = s;
            while (name_char(*s)) s++;
            size_t pl = (size_t)(s - pn);
            parent = dfn_layers_find(out, pn, pl);
            if (parent < 0 || (size_t)parent == out->n) {
                snprintf(err, errlen, "%s:%zu: parent layer '%.*s' is not defined above", out->source, lineno, (int)pl, pn);
                goto fail_line;
            }
            while (*s == ' ' || *s == '\t') s++;
        }
        if (*s != ':') {
            snprintf(err, errlen, "%s:%zu: expected ':' then a filter (NAME [< PARENT] : FILTER)", out->source, lineno);
            goto fail_line;
        }
        s++;
        if (out->n >= DFN_LAYERS_MAX) {
            snprintf(err, errlen, "%s:%zu: at most %d layers", out->source, lineno, DFN_LAYERS_MAX);
            goto fail_line;
        }
        int again = dfn_layers_find(out, name, nlen);
        if ((nlen == 5 && memcmp(name, "other", 5) == 0) || (again >= 0 && out->defs[again].parent != parent)) {
            snprintf(err, errlen, "%s:%zu: layer '%.*s' is defined again under another parent (\"other\" is implicit)",
                     out->source, lineno, (int)nlen, name);
            goto fail_line;
        }
        dfn_filter f;
        if (!dfn_filter_parse(s, &f, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%zu: %s", out->source, lineno, msg);
            goto fail_line;
        }
        if (!check_layer_refs(out, &f, msg, sizeof msg, lineno)) {
            snprintf(err, errlen, "%s:%s", out->source, msg);
            dfn_filter_free(&f);
            goto fail_line;
        }
        if (again >= 0) {
            /* an alternative: its layer terms see the layers above the first line */
            for (size_t t = 0; t < f.n; t++)
                for (size_t v = 0; f.terms[t].key == DFN_KEY_LAYER && v < f.terms[t].nvalues; v++)
                    if (dfn_layers_find(out, f.terms[t].values[v], f.terms[t].value_lens[v]) >= again) {
                        snprintf(err, errlen, "%s:%zu: layer '%s' is not defined above the first line of '%.*s'",
                                 out->source, lineno, f.terms[t].values[v], (int)nlen, name);
                        dfn_filter_free(&f);
                        goto fail_line;
                    }
            dfn_layer_def *d = &out->defs[again];
            d->alts = dfn_xreallocarray(d->alts, d->nalts + 1, sizeof *d->alts);
            d->alts[d->nalts++] = f;
            free(line);
            continue;
        }
        out->defs = dfn_xreallocarray(out->defs, out->n + 1, sizeof *out->defs);
        out->defs[out->n++] = (dfn_layer_def){ dfn_xstrndup(name, nlen), parent, f, NULL, 0 };
        free(line);
        continue;
    fail_line:
        free(line);
        dfn_layers_free(out);
        return false;
    }
    return true;
}

bool dfn_layers_load(const char *name, dfn_layers *out, char *err, size_t errlen)
{
    if (strcmp(name, "dlio-pre-ai-logging") == 0) name = "dlio-legacy";   /* DFAnalyzer's name for it */
    const char *preset = dfn_preset_text(name);
    if (preset) return dfn_layers_parse(preset, name, out, err, errlen);
    FILE *f = fopen(name, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s (presets: posix, dlio, dlio-legacy)", name, strerror(errno));
        return false;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char tmp[4096];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + r > (1u << 20)) { fclose(f); free(buf); snprintf(err, errlen, "%s: larger than 1 MiB", name); return false; }
        dfn_grow((void **)&buf, &cap, len + r + 1, 1);
        memcpy(buf + len, tmp, r);
        len += r;
    }
    fclose(f);
    dfn_grow((void **)&buf, &cap, len + 1, 1);
    buf[len] = 0;
    if (memchr(buf, 0, len)) { free(buf); snprintf(err, errlen, "%s: not a text file", name); return false; }
    bool ok = dfn_layers_parse(buf, name, out, err, errlen);
    free(buf);
    return ok;
}

int dfn_layers_auto_level(const dfn_store *s)
{
    int level = 0;
    for (size_t k = 0; k < s->nkinds; k++) {
        const char *c = dfn_store_str(s, s->kinds[k].cat), *f = dfn_store_str(s, s->kinds[k].func);
        if (strcmp(f, "ai_root") == 0 || strcmp(f, "fetch.iter") == 0 ||
            (strcmp(c, "pipeline") == 0 && strcmp(f, "train") == 0) ||
            (strcmp(c, "compute") == 0 && strcmp(f, "compute") == 0))
            return 2;
        if (strcmp(c, "dlio_benchmark") == 0 || strcmp(c, "ai_framework") == 0) level = 1;
    }
    return level;
}

const char *dfn_layers_auto_name(int level, const char **why)
{
    static const char *const names[3] = { "posix", "dlio-legacy", "dlio" };
    static const char *const whys[3] = { "no DLIO names", "DLIO's categories before AI logging", "DLIO's AI logging names" };
    if (level < 0 || level > 2) level = 0;
    if (why) *why = whys[level];
    return names[level];
}

const char *dfn_layers_auto(const dfn_store *s, const char **why)
{
    return dfn_layers_auto_name(dfn_layers_auto_level(s), why);
}

bool dfn_layers_timed(const dfn_layers *l)
{
    for (size_t k = 0; k < l->n; k++) {
        const dfn_layer_def *d = &l->defs[k];
        for (size_t a = 0; a <= d->nalts; a++) {
            const dfn_filter *f = a ? &d->alts[a - 1] : &d->filter;
            for (size_t t = 0; t < f->n; t++) if (f->terms[t].key == DFN_KEY_TIME) return true;
        }
    }
    return false;
}

bool dfn_preset_is_dlio(const char *name)
{
    return name && (strcmp(name, "dlio") == 0 || strcmp(name, "dlio-legacy") == 0 ||
                    strcmp(name, "dlio-pre-ai-logging") == 0);
}

void dfn_layers_free(dfn_layers *l)
{
    for (size_t k = 0; k < l->n; k++) {
        free(l->defs[k].name);
        dfn_filter_free(&l->defs[k].filter);
        for (size_t a = 0; a < l->defs[k].nalts; a++) dfn_filter_free(&l->defs[k].alts[a]);
        free(l->defs[k].alts);
    }
    free(l->defs);
    free(l->source);
    memset(l, 0, sizeof *l);
}
