/* Headless replay helpers: the key script, the screen as text, and the
 * latency of each action. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "replay.h"
#include "dfnav/util.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static const struct { const char *name; int key; } named[] = {
    {"Enter", '\n'}, {"Esc", 27}, {"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT},
    {"Right", KEY_RIGHT}, {"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE}, {"Home", KEY_HOME},
    {"End", KEY_END}, {"BS", KEY_BACKSPACE}, {"Del", KEY_DC}, {"Tab", '\t'}, {"Space", ' '},
    {"C-c", 3}, {"C-l", 12}, {"C-t", 20}, {"C-u", 21},
};

static void push(replay_key **keys, size_t *n, size_t *cap, replay_key k)
{
    dfn_grow((void **)keys, cap, *n + 1, sizeof **keys);
    (*keys)[(*n)++] = k;
}

bool replay_parse(const char *script, replay_key **keys, size_t *n, char *err, size_t errlen)
{
    *keys = NULL;
    *n = 0;
    size_t cap = 0;
    const char *p = script;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n') e++;
        size_t len = (size_t)(e - p);
        if (len > 2 && p[0] == '<' && p[len - 1] == '>') {
            replay_key k = {0};
            k.label = dfn_xstrndup(p, len);
            int cols, rows;
            if (sscanf(p, "<Resize:%dx%d>", &cols, &rows) == 2 && cols > 0 && rows > 0 && cols < 10000 && rows < 10000) {
                k.rows = rows;
                k.cols = cols;
                push(keys, n, &cap, k);
                p = e;
                continue;
            }
            bool found = false;
            for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
                if (strlen(named[i].name) == len - 2 && memcmp(named[i].name, p + 1, len - 2) == 0) {
                    k.key = named[i].key;
                    found = true;
                }
            if (!found) {
                snprintf(err, errlen, "unknown key %.*s", (int)(len > 40 ? 40 : len), p);
                free(k.label);
                replay_free(*keys, *n);
                return false;
            }
            if (k.key == ' ') { k.utf8[0] = ' '; k.ulen = 1; }
            push(keys, n, &cap, k);
            p = e;
            continue;
        }
        /* typed text: one key per UTF-8 character */
        while (p < e) {
            replay_key k = {0};
            size_t cl = 1;
            while (p + cl < e && ((unsigned char)p[cl] & 0xc0) == 0x80 && cl < 4) cl++;
            memcpy(k.utf8, p, cl);
            k.ulen = cl;
            k.key = (unsigned char)p[0] < 0x80 ? p[0] : 0x100;
            k.label = dfn_xstrndup(p, cl);
            push(keys, n, &cap, k);
            p += cl;
        }
    }
    return true;
}

void replay_free(replay_key *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) free(keys[i].label);
    free(keys);
}

void replay_dump(FILE *out, const char *label, int rows, int cols)
{
    fprintf(out, "--- %s\n", label);
    char *line = dfn_xmalloc((size_t)cols * MB_LEN_MAX + 1);
    for (int y = 0; y < rows; y++) {
        size_t w = 0, last = 0;
        for (int x = 0; x < cols; x++) {
            cchar_t cc;
            wchar_t wc[CCHARW_MAX + 1] = { 0 };
            attr_t at;
            short pair;
            if (mvwin_wch(stdscr, y, x, &cc) == ERR) break;
            getcchar(&cc, wc, &at, &pair, NULL);
            for (int k = 0; k < CCHARW_MAX && wc[k]; k++) {
                char mb[MB_LEN_MAX];
                mbstate_t st;
                memset(&st, 0, sizeof st);
                size_t m = wcrtomb(mb, wc[k], &st);
                if (m == (size_t)-1) { mb[0] = '?'; m = 1; }
                memcpy(line + w, mb, m);
                w += m;
            }
            if (!wc[0]) line[w++] = ' ';   /* the second cell of a wide character */
            if (wc[0] != L' ') last = w;
            /* ncurses may repeat a wide character in its second cell: one
             * character, as the terminal shows it */
            int cw = wc[0] ? wcwidth(wc[0]) : 1;
            if (cw > 1) x += cw - 1;
        }
        line[last] = 0;
        fprintf(out, "%s\n", line);
    }
    free(line);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void replay_latency(FILE *out, const double *ms, size_t n)
{
    if (!n) { fprintf(out, "latency: 0 actions\n"); return; }
    double *s = dfn_xmalloc(n * sizeof *s);
    memcpy(s, ms, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    size_t p50 = (n - 1) / 2, p95 = (size_t)((double)(n - 1) * 0.95 + 0.5);
    fprintf(out, "latency: %zu actions, p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", n, s[p50], s[p95], s[n - 1]);
    free(s);
}
