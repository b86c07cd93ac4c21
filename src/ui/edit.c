/* Line editing for the prompts: insert, move and delete by whole UTF-8
 * characters, so a multibyte name is never cut in two; each prompt's
 * history; and file names for the save prompt (~ and Tab completion). */
#include "app.h"
#include "dfnav/util.h"

#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void edit_set(line_edit *e, const char *s)
{
    size_t n = strlen(s);
    dfn_grow((void **)&e->buf, &e->cap, n + 1, 1);
    memcpy(e->buf, s, n + 1);
    e->len = e->cur = n;
}

void edit_insert(line_edit *e, const char *s, size_t n)
{
    dfn_grow((void **)&e->buf, &e->cap, e->len + n + 1, 1);
    memmove(e->buf + e->cur + n, e->buf + e->cur, e->len - e->cur + 1);
    memcpy(e->buf + e->cur, s, n);
    e->len += n;
    e->cur += n;
}

/* Cursor moves and deletes go by whole UTF-8 characters. */
size_t edit_prev(const line_edit *e, size_t at)
{
    if (!at) return 0;
    at--;
    while (at && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at--;
    return at;
}

size_t edit_next(const line_edit *e, size_t at)
{
    if (at >= e->len) return e->len;
    at++;
    while (at < e->len && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at++;
    return at;
}

void edit_delete(line_edit *e, size_t from, size_t to)
{
    memmove(e->buf + from, e->buf + to, e->len - to + 1);
    e->len -= to - from;
    e->cur = from;
}


/* ---- history: each prompt remembers what it was given ---- */

void edit_hist_add(edit_hist *h, const char *text)
{
    if (!*text || (h->n && strcmp(h->v[h->n - 1], text) == 0)) return;
    h->v = dfn_xreallocarray(h->v, h->n + 1, sizeof *h->v);
    h->v[h->n++] = dfn_xstrdup(text);
}

void edit_hist_move(edit_hist *h, line_edit *e, int dir)
{
    if (!h->n) return;
    if (dir < 0 && h->pos > 0) h->pos--;
    else if (dir > 0 && h->pos < h->n) h->pos++;
    else return;
    edit_set(e, h->pos < h->n ? h->v[h->pos] : "");
}

void edit_hist_free(edit_hist *h)
{
    for (size_t i = 0; i < h->n; i++) free(h->v[i]);
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* ---- completion ---- */

size_t edit_extend(line_edit *e, const char *prefix, const char *const *cands, size_t n)
{
    size_t plen = strlen(prefix), common = 0, hits = 0;
    const char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(cands[i], prefix, plen) != 0) continue;
        if (!first) { first = cands[i]; common = strlen(first); }
        else { size_t k = 0; while (k < common && cands[i][k] == first[k]) k++; common = k; }
        hits++;
    }
    /* never half a UTF-8 character (café1, cafè2: "caf") */
    while (common > plen && ((unsigned char)first[common] & 0xc0) == 0x80) common--;
    e->cur = e->len;
    if (hits && common > plen) edit_insert(e, first + plen, common - plen);
    return hits;
}

/* ---- file names: ~ and Tab ---- */

char *edit_expand_home(const char *path)
{
    const char *home = getenv("HOME");
    if (path[0] == '~' && (path[1] == '/' || path[1] == 0) && home && *home)
        return dfn_xasprintf("%s%s", home, path + 1);
    if (path[0] == '~' && path[1] && path[1] != '/') {
        /* ~user/...: the user's home from the password database */
        const char *slash = strchr(path, '/');
        size_t ul = slash ? (size_t)(slash - path - 1) : strlen(path + 1);
        char *user = dfn_xstrndup(path + 1, ul);
        struct passwd *pw = getpwnam(user);
        free(user);
        if (pw && pw->pw_dir) return dfn_xasprintf("%s%s", pw->pw_dir, slash ? slash : "");
    }
    return dfn_xstrdup(path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

size_t edit_complete_path(line_edit *e, char *list, size_t cap)
{
    if (cap) list[0] = 0;
    char *full = edit_expand_home(e->buf ? e->buf : "");
    if (e->buf && strcmp(full, e->buf) != 0) edit_set(e, full);   /* ~ shown as the path it is */
    const char *slash = strrchr(full, '/');
    char *dir = slash ? dfn_xstrndup(full, (size_t)(slash - full) + 1) : dfn_xstrdup("./");
    const char *base = slash ? slash + 1 : full;
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, ncap = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strncmp(de->d_name, base, blen) != 0 || !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (de->d_name[0] == '.' && base[0] != '.') continue;   /* hidden unless asked for */
        char *p = dfn_xasprintf("%s%s", dir, de->d_name);
        struct stat st;
        bool isdir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
        free(p);
        dfn_grow((void **)&names, &ncap, n + 1, sizeof *names);
        names[n++] = dfn_xasprintf("%s%s", de->d_name, isdir ? "/" : "");
    }
    if (d) closedir(d);
    if (n) {
        qsort(names, n, sizeof *names, cmp_str);
        edit_extend(e, base, (const char *const *)names, n);
        size_t w = 0;
        for (size_t i = 0; n > 1 && i < n && w + 1 < cap; i++) {
            int k = snprintf(list + w, cap - w, "%s%s", i ? "  " : "", names[i]);
            if (k < 0 || (size_t)k >= cap - w) break;
            w += (size_t)k;
        }
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(dir);
    free(full);
    return n;
}
