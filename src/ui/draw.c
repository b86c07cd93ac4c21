/* Drawing the explorer: breadcrumb, active filter, timeline, the table
 * with its sparklines, status and key hints, and the overlay screens (help,
 * pivot menu, columns, call detail, damage). Reads the app's state, never
 * changes it except for layout figures the view needs (table rows, widths).
 * Names from traces go through draw_text, which escapes control bytes. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui.h"
#include "dfnav/export.h"
#include "dfnav/ioclass.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static attr_t pair(const app *a, int p) { return a->color ? COLOR_PAIR(p) : 0; }

/* Whether a row of l has diagnostic findings (its key among l's marks). */
static bool row_marked(const level *l, size_t row)
{
    char buf[4096];
    size_t len;
    const char *k = dfn_compare_key_str(l->res, row, 0, buf, sizeof buf, &len);
    return dfn_strtab_find(l->marks, k, len) != DFN_NOID;
}

/* ---- text ---- */

int draw_text(int y, int x, int width, const char *s, size_t len, bool right, bool middle, bool ascii)
{
    if (width <= 0) return 0;
    /* escape: at most 4 bytes out for each byte in */
    char *safe = dfn_xmalloc(len * 4 + 1);
    size_t sl = dfn_fmt_safe(s, len, safe, len * 4 + 1);
    if (ascii) {
        /* in ASCII mode non-ASCII bytes are shown as escapes too */
        char *a2 = dfn_xmalloc(sl * 4 + 1);
        size_t w = 0;
        for (size_t i = 0; i < sl; i++) {
            unsigned char c = (unsigned char)safe[i];
            if (c < 0x80) { a2[w++] = (char)c; continue; }
            w += (size_t)snprintf(a2 + w, 5, "\\x%02x", c);
        }
        a2[w] = 0;
        free(safe);
        safe = a2;
        sl = w;
    }
    wchar_t *ws = dfn_xmalloc((sl + 1) * sizeof *ws);
    mbstate_t st;
    memset(&st, 0, sizeof st);
    const char *src = safe;
    size_t nw = mbsrtowcs(ws, &src, sl + 1, &st);
    if (nw == (size_t)-1) {   /* the locale cannot decode it: show bytes */
        nw = 0;
        for (size_t i = 0; i < sl; i++) ws[nw++] = (unsigned char)safe[i] < 0x80 ? (wchar_t)safe[i] : L'?';
        ws[nw] = 0;
    }
    int total = 0;
    for (size_t i = 0; i < nw; i++) { int cw = wcwidth(ws[i]); total += cw > 0 ? cw : 0; }
    wchar_t ell = ascii ? L'~' : 0x2026;
    if (total > width) {
        /* cut: in the middle for paths, at the end otherwise */
        wchar_t *out = dfn_xmalloc((nw + 2) * sizeof *out);
        size_t o = 0;
        if (middle && width >= 5) {
            /* a path keeps more of its end: the file name tells rows apart */
            int head = (width - 1) / 4, tail = width - 1 - head, used = 0;
            for (size_t i = 0; i < nw; i++) { int cw = wcwidth(ws[i]); if (cw < 0) cw = 0; if (used + cw > head) break; out[o++] = ws[i]; used += cw; }
            out[o++] = ell;
            size_t start = nw;
            used = 0;
            while (start > 0) { int cw = wcwidth(ws[start - 1]); if (cw < 0) cw = 0; if (used + cw > tail) break; used += cw; start--; }
            for (size_t i = start; i < nw; i++) out[o++] = ws[i];
        } else {
            int used = 0;
            for (size_t i = 0; i < nw; i++) { int cw = wcwidth(ws[i]); if (cw < 0) cw = 0; if (used + cw > width - 1) break; out[o++] = ws[i]; used += cw; }
            out[o++] = ell;
        }
        out[o] = 0;
        free(ws);
        ws = out;
        nw = o;
        total = 0;
        for (size_t i = 0; i < nw; i++) { int cw = wcwidth(ws[i]); total += cw > 0 ? cw : 0; }
    }
    int pad = right && total < width ? width - total : 0;
    mvaddnwstr(y, x + pad, ws, (int)nw);
    free(ws);
    free(safe);
    return total + pad;
}

static void fill(int y, int x, int width)
{
    for (int i = 0; i < width; i++) mvaddch(y, x + i, ' ');
}

/* ---- numbers for people ---- */

static void fmt_count(double v, char *b, size_t cap)
{
    if (v < 1e6) snprintf(b, cap, "%.0f", v);
    else if (v < 1e9) snprintf(b, cap, "%.1fM", v / 1e6);
    else snprintf(b, cap, "%.1fG", v / 1e9);
}

/* Tick spacing: 1, 2 or 5 times a power of ten, at least x. */
static double tick_step(double x)
{
    double p = pow(10, floor(log10(x)));
    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* A time in seconds from the trace start with the decimals step needs. */
static int fmt_tick(double t, double step, char *b, size_t cap)
{
    int dec = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : step >= 0.001 ? 3 : 6;
    return snprintf(b, cap, "%.*f", dec, t);
}

static void fmt_pct(double v, char *b, size_t cap) { snprintf(b, cap, "%.1f%%", v); }

static void fmt_bw(double mibps, char *b, size_t cap)
{
    char t[32];
    dfn_fmt_bytes(mibps * 1048576.0, t, sizeof t);
    snprintf(b, cap, "%s/s", t);
}

/* ---- sparklines ---- */

static const wchar_t *ramp_utf8 = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
static const char *ramp_ascii = " .:-=+*#@";

/* The largest cell of bins drawn w cells wide: the top of a scale. */
static double spark_max(const double *bins, size_t nb, int w)
{
    double *cell = dfn_xcalloc((size_t)w, sizeof *cell), mx = 0;
    for (size_t b = 0; b < nb; b++) cell[b * (size_t)w / nb] += bins[b];
    for (int i = 0; i < w; i++) if (cell[i] > mx) mx = cell[i];
    free(cell);
    return mx;
}

/* One cell of the ramp at level 0 (blank) to 8 (full). */
static void ramp_put(const app *a, int y, int x, int lvl)
{
    if (lvl > 8) lvl = 8;
    if (a->utf8 && !a->opts.ascii) {
        wchar_t ch[2] = { ramp_utf8[lvl], 0 };
        mvaddnwstr(y, x, ch, 1);
    } else {
        mvaddch(y, x, (chtype)(unsigned char)ramp_ascii[lvl]);
    }
}

/* One cell of the ramp: v on a scale whose top is mx. */
static void ramp_cell(const app *a, int y, int x, double v, double mx)
{
    ramp_put(a, y, x, mx > 0 && v > 0 ? 1 + (int)(v / mx * 7.999) : 0);
}

/* Draws bins as a ramp w cells wide on a scale whose top is mx. */
static void spark_draw(const app *a, int y, int x, int w, const double *bins, size_t nb, double mx, attr_t attr)
{
    if (w <= 0 || nb == 0 || !bins) return;
    double *cell = dfn_xcalloc((size_t)w, sizeof *cell);
    for (size_t b = 0; b < nb; b++) cell[b * (size_t)w / nb] += bins[b];
    attron(attr);
    for (int i = 0; i < w; i++) ramp_cell(a, y, x + i, cell[i], mx);
    attroff(attr);
    free(cell);
}

/* scale_bins (or bins themselves when NULL) gives the top of the scale,
 * so a row can be drawn as a share of the whole. */
static void spark_scaled(const app *a, int y, int x, int w, const double *bins, size_t nb, const double *scale_bins, attr_t attr)
{
    if (w <= 0 || nb == 0 || !bins) return;
    spark_draw(a, y, x, w, bins, nb, spark_max(scale_bins ? scale_bins : bins, nb, w), attr);
}

static void spark(const app *a, int y, int x, int w, const double *bins, size_t nb, attr_t attr)
{
    spark_scaled(a, y, x, w, bins, nb, NULL, attr);
}

static const char *sort_mark(const app *a, bool desc)
{
    if (a->utf8 && !a->opts.ascii) return desc ? "\u25bc" : "\u25b2";
    return desc ? "v" : "^";
}

static void header_cell(const app *a, int y, int x, int w, const char *title, bool sorted, bool desc, bool right)
{
    char t[64];
    snprintf(t, sizeof t, "%s%s", title, sorted ? sort_mark(a, desc) : "");
    if (sorted) attron(A_BOLD);
    draw_text(y, x, w, t, strlen(t), right, false, a->opts.ascii || !a->utf8);
    if (sorted) attroff(A_BOLD);
}

static void metric_text(int c, double v, char *b, size_t cap)
{
    switch (c) {
    case COL_COUNT: case COL_ACTIVE: fmt_count(v, b, cap); break;
    case COL_TIME: case COL_BUSY: case COL_IDLE: dfn_fmt_us(v * 1e6, b, cap); break;
    case COL_PCT: fmt_pct(v, b, cap); break;
    case COL_BYTES: dfn_fmt_bytes(v, b, cap); break;
    case COL_BW: fmt_bw(v, b, cap); break;
    case COL_P90: case COL_MAX: dfn_fmt_us(v, b, cap); break;
    case COL_COMPUTE: case COL_IO: case COL_EXPOSED:
        /* blank rather than a column of zeros where a row has none; "-"
         * where it is undefined (compute matched no event) */
        if (isnan(v)) snprintf(b, cap, "-");
        else if (v > 0) dfn_fmt_us(v * 1e6, b, cap);
        else b[0] = 0;
        break;
    case COL_SELF: dfn_fmt_us(v * 1e6, b, cap); break;
    case COL_SEQ: if (isnan(v)) snprintf(b, cap, "-"); else snprintf(b, cap, "%.0f%%", v); break;
    case COL_CTR: if (isnan(v)) snprintf(b, cap, "-"); else snprintf(b, cap, fabs(v) >= 1e4 ? "%.0f" : "%.4g", v); break;
    default: b[0] = 0;
    }
}

/* A difference for people: signed, in the metric's units. */
static void diff_text(int c, double v, char *b, size_t cap)
{
    if (isnan(v)) { snprintf(b, cap, "-"); return; }
    if (v == 0) { snprintf(b, cap, "0"); return; }
    if (cap < 2) return;
    b[0] = v < 0 ? '-' : '+';
    if (c == COL_COMPUTE || c == COL_IO || c == COL_EXPOSED) dfn_fmt_us(fabs(v) * 1e6, b + 1, cap - 1);
    else metric_text(c, fabs(v), b + 1, cap - 1);
}

static void ratio_text(double v, char *b, size_t cap)
{
    if (isnan(v)) snprintf(b, cap, "-");
    else if (isinf(v)) snprintf(b, cap, "inf");
    else if (v >= 100) snprintf(b, cap, "%.0fx", v);
    else snprintf(b, cap, "%.2fx", v);
}

/* The key column's title; layers say whose they are ("layer: dlio"), as
 * the set chose its preset on its own. */
static const char *key_title(const app *a, const level *l, char *buf, size_t cap)
{
    const dfn_layerset *ls = a->v.runs[0].ls;
    if (l->dim.kind != DFN_DIM_LAYER || !ls) return view_dim_title(&l->dim);
    snprintf(buf, cap, "layer: %s", dfn_layerset_layers(ls)->source);
    return buf;
}

/* Comparing: a metric's group title over its columns, then each run's
 * name, "diff" and "ratio" on the line below. */
static void compare_header(app *a, level *l, int y0, const bool *show, int key_w)
{
    bool ascii = a->opts.ascii || !a->utf8;
    attron(A_UNDERLINE);
    fill(y0, 0, a->cols);
    fill(y0 + 1, 0, a->cols);
    char key[128];
    header_cell(a, y0 + 1, 0, key_w, key_title(a, l, key, sizeof key), l->sort < 0, l->desc, false);
    int x = key_w + 1;
    for (int c = 1; c < COL_N; c++) {
        if (!show[c]) continue;
        int sub[16], widths[16];
        size_t n = view_group(&a->v, (col_id)c, sub, widths);
        int gw = view_col_width(&a->v, (col_id)c, 0);
        char t[64];
        snprintf(t, sizeof t, "%s", view_cols[c].title);
        attron(A_BOLD);
        draw_text(y0, x + (gw > (int)strlen(t) ? (gw - (int)strlen(t)) / 2 : 0), gw, t, strlen(t), false, false, ascii);
        attroff(A_BOLD);
        for (size_t i = 0; i < n; i++) {
            const char *name = sub[i] >= 0 ? a->v.labels[sub[i]] : sub[i] == DFN_CMP_DIFF ? "diff" : "ratio";
            bool sorted = view_cols[c].metric == l->sort && sub[i] == l->sort_col;
            header_cell(a, y0 + 1, x, widths[i], name, sorted, l->desc, true);
            x += widths[i] + 1;
        }
    }
    attroff(A_UNDERLINE);
}

/* The activity column's header: its axis, the window's first and last
 * second at its ends, and the title between when there is room. */
/* A window's end for a narrow header: no trailing zeros ("0", "31.7"). */
static int fmt_end(double t, int dec, char *b, size_t cap)
{
    int n = snprintf(b, cap, "%.*f", dec, t);
    if (n <= 0 || (size_t)n >= cap || !strchr(b, '.')) return n;
    while (n > 0 && b[n - 1] == '0') b[--n] = 0;
    if (n > 0 && b[n - 1] == '.') b[--n] = 0;
    return n;
}

static void spark_header(const app *a, const level *l, int y, int x, int w, const char *title)
{
    char lo[32], hi[32];
    double span = l->win_hi - l->win_lo;
    /* the ends as they are (31.7, not a rounded 32) */
    int dec = span >= 100 ? 0 : span >= 1 ? 1 : span >= 0.01 ? 3 : 6;
    int nl = fmt_end(l->win_lo, dec, lo, sizeof lo), nh = fmt_end(l->win_hi, dec, hi, sizeof hi);
    if (nl + nh + 2 > w) { draw_text(y, x, w, title, strlen(title), false, false, true); return; }
    mvaddstr(y, x, lo);
    int tl = (int)strlen(title);
    if (nl + nh + tl + 4 <= w) draw_text(y, x + nl + (w - nl - nh - tl) / 2, tl, title, (size_t)tl, false, false, true);
    mvaddstr(y, x + w - nh - 1, hi);
    mvaddstr(y, x + w - 1, "s");
}

static void draw_groups(app *a, level *l, int y0, int nrows)
{
    bool show[COL_N];
    int spark_w, key_w;
    view_layout(&a->v, l, show, &spark_w, &key_w);
    const dfn_compare *cr = l->res;
    bool cmp = a->v.labels != NULL;
    /* one run: its own result, with sparklines and sizes */
    const dfn_result *r = cr ? cr->res[0] : NULL;
    /* the process levels give each row two lines: compute over I/O */
    bool split = !cmp && r && r->spark_io && show[COL_SPARK];
    int per = split ? 2 : 1;
    /* header */
    int x = 0;
    if (cmp) {
        compare_header(a, l, y0, show, key_w);
        y0 += 1;
    } else {
        /* underlined, the cursor row reverse: never alike, with colour or without */
        attron(A_UNDERLINE);
        fill(y0, 0, a->cols);
        char key[128];
        header_cell(a, y0, 0, key_w, key_title(a, l, key, sizeof key), l->sort < 0, l->desc, false);
        x = key_w + 1;
        for (int c = 1; c < COL_N; c++) {
            if (!show[c]) continue;
            int w = c == COL_SPARK ? spark_w : view_cols[c].width;
            /* layers nest (a call is in several): their shares of the
             * selection's time can add past 100%, and the title says so */
            const char *title = c == COL_SPARK && split ? (w >= 18 ? "compute / I/O" : "cmp/I/O") :
                                c == COL_CTR ? view_ctr_series(&a->v) :
                                c == COL_PCT && l->dim.kind == DFN_DIM_LAYER ? "% all" : view_cols[c].title;
            if (c == COL_SPARK) spark_header(a, l, y0, x, w, title);
            else header_cell(a, y0, x, w, title, view_cols[c].metric >= 0 && view_cols[c].metric == l->sort, l->desc, true);
            x += w + 1;
        }
        attroff(A_UNDERLINE);
    }
    if (!r || nrows <= 0) return;
    int items = nrows / per > 0 ? nrows / per : 1;
    if (l->cursor < l->top) l->top = l->cursor;
    if (l->cursor >= l->top + (size_t)items) l->top = l->cursor - (size_t)items + 1;
    char key[4096], num[64];
    for (int i = 0; i < items; i++) {
        size_t row = l->top + (size_t)i;
        int y = y0 + 1 + i * per;
        if (row >= cr->nrows) break;
        bool sel = row == l->cursor;
        if (sel) { attron(A_REVERSE); fill(y, 0, a->cols); }
        size_t kl = view_key_text(&a->v, l, row, key, sizeof key);
        int kx = l->marks ? 2 : 0;   /* rows with findings: '!' before the key */
        if (l->marks && row_marked(l, row)) {
            attron(A_BOLD | pair(a, PAIR_WARN));
            mvaddch(y, 0, '!');
            attroff(A_BOLD | pair(a, PAIR_WARN));
        }
        /* cut in the middle: both ends of a long name tell it apart */
        draw_text(y, kx, key_w - kx, kl ? key : "(none)", kl ? kl : 6, false, true, a->opts.ascii || !a->utf8);
        x = key_w + 1;
        for (int c = 1; c < COL_N; c++) {
            if (!show[c]) continue;
            int w = c == COL_SPARK ? spark_w : view_cols[c].width;
            if (cmp && c != COL_SPARK) {
                int sub[16], widths[16];
                size_t ns = view_group(&a->v, (col_id)c, sub, widths);
                for (size_t j = 0; j < ns; j++) {
                    double v = dfn_compare_value(cr, row, sub[j], (dfn_metric)view_cols[c].metric);
                    if (sub[j] == DFN_CMP_DIFF) diff_text(c, v, num, sizeof num);
                    else if (sub[j] == DFN_CMP_RATIO) ratio_text(v, num, sizeof num);
                    else if (!dfn_compare_has(cr, row, (size_t)sub[j])) snprintf(num, sizeof num, "-");
                    else metric_text(c, v, num, sizeof num);
                    draw_text(y, x, widths[j], num, strlen(num), true, false, true);
                    x += widths[j] + 1;
                }
                continue;
            }
            if (c == COL_SPARK && split) {
                /* one scale for both lines, so their heights compare */
                const double *cb = &r->spark_cmp[row * r->spark_bins], *ib = &r->spark_io[row * r->spark_bins];
                double *both = dfn_xmalloc(r->spark_bins * sizeof *both);
                for (size_t b = 0; b < r->spark_bins; b++) both[b] = cb[b] > ib[b] ? cb[b] : ib[b];
                spark_scaled(a, y, x, w, cb, r->spark_bins, both, sel ? 0 : pair(a, PAIR_SPARK));
                if (sel) attroff(A_REVERSE);
                spark_scaled(a, y + 1, x, w, ib, r->spark_bins, both, pair(a, PAIR_WARN));
                if (sel) attron(A_REVERSE);
                free(both);
            } else if (c == COL_SPARK) {
                if (r->spark) spark(a, y, x, w, &r->spark[row * r->spark_bins], r->spark_bins, sel ? 0 : pair(a, PAIR_SPARK));
            } else {
                metric_text(c, dfn_result_metric(r, row, (dfn_metric)view_cols[c].metric), num, sizeof num);
                draw_text(y, x, w, num, strlen(num), true, false, true);
            }
            x += w + 1;
        }
        if (sel) attroff(A_REVERSE);
        if (split && i * per + 1 < nrows) {
            attron(A_DIM);
            const char *lab = a->utf8 && !a->opts.ascii ? "I/O \u203a" : "I/O >";
            int sx = a->cols - spark_w - 1 - 6;
            if (show[COL_SPARK] && sx > 0) mvaddstr(y + 1, sx, lab);
            attroff(A_DIM);
        }
    }
}

/* The calls level; comparing, each call says whose run it is. */
/* The process of a call as the calls level shows it: its rank when the
 * trace gives one, else its pid, after its host when the set has several
 * (cut in the middle, the pid stays). */
static size_t call_proc(const dfn_store *s, uint32_t ev, bool hosts, char *b, size_t cap)
{
    const dfn_lane *ln = &s->lanes[dfn_store_lane(s, ev)];
    const char *rank = dfn_store_str(s, ln->rank), *host = hosts ? dfn_store_str(s, ln->host) : "";
    char pid[48];
    dfn_id_text(s, ln->pid, pid, sizeof pid);
    int n = *rank ? snprintf(b, cap, "rank %s", rank) : snprintf(b, cap, "%s%s%s", host, *host ? "/" : "", pid);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static void draw_calls(app *a, level *l, int y0, int nrows)
{
    const dfn_compare *r = l->res;
    int w_run = 0;
    for (size_t k = 0; a->v.labels && k < a->v.nruns; k++) {
        int n = (int)strlen(a->v.labels[k]);
        if (n > w_run) w_run = n;
    }
    if (w_run > 10) w_run = 10;
    if (w_run && w_run < 3) w_run = 3;   /* the header's "run" */
    if (r) {
        if (l->cursor < l->top) l->top = l->cursor;
        if (l->cursor >= l->top + (size_t)nrows) l->top = l->cursor - (size_t)nrows + 1;
    }
    /* the longest function and file on screen share the room */
    int max_fn = 8, max_file = 0;
    for (int i = 0; r && i < nrows && l->top + (size_t)i < r->nrows; i++) {
        size_t run;
        uint32_t ev = view_call(l, l->top + (size_t)i, &run);
        const dfn_store *s = view_call_store(l, run);
        int fl = (int)dfn_strtab_len(s->strs, s->files[dfn_store_file(s, ev)].path);
        int fn = (int)dfn_strtab_len(s->strs, s->kinds[dfn_store_kind(s, ev)].func);
        if (fl > max_file) max_file = fl;
        if (fn > max_fn) max_fn = fn;
    }
    int w_start = 11, w_dur = 8, w_bytes = 9, w_off = 12, w_ret = 9, w_proc = a->cols >= 100 ? 16 : 12;
    int rest = a->cols - (w_start + w_dur + w_bytes + w_proc + 5) - (w_run ? w_run + 1 : 0);
    bool wide = a->cols >= 120;
    if (wide) rest -= w_off + w_ret + 2;
    /* the function as long as it needs, leaving the file at least half
     * (or all it needs); a column of empty files gives it all the room */
    int file_need = max_file < rest / 2 ? max_file : rest / 2;
    int w_func = max_fn < rest - file_need - 1 ? max_fn : rest - file_need - 1;
    if (w_func < 8) w_func = 8;
    int w_file = rest - w_func - 1;
    attron(A_UNDERLINE);
    fill(y0, 0, a->cols);
    int x = 0;
    if (w_run) { header_cell(a, y0, x, w_run, "run", false, false, false); x += w_run + 1; }
    header_cell(a, y0, x, w_start, "start s", l->sort < 0, l->desc, true); x += w_start + 1;
    header_cell(a, y0, x, w_dur, "dur", l->sort == DFN_M_TIME_S, l->desc, true); x += w_dur + 1;
    header_cell(a, y0, x, w_proc, "process", false, false, false); x += w_proc + 1;
    header_cell(a, y0, x, w_func, "function", false, false, false); x += w_func + 1;
    header_cell(a, y0, x, w_file, "file", false, false, false); x += w_file + 1;
    header_cell(a, y0, x, w_bytes, "bytes", l->sort == DFN_M_BYTES, l->desc, true); x += w_bytes + 1;
    if (wide) {
        header_cell(a, y0, x, w_off, "offset", false, false, true); x += w_off + 1;
        header_cell(a, y0, x, w_ret, "ret", false, false, true);
    }
    attroff(A_UNDERLINE);
    if (!r) return;
    char b[128];
    bool ascii = a->opts.ascii || !a->utf8, hosts[DFN_COMPARE_MAX_RUNS];
    for (size_t k = 0; k < a->v.nruns && k < DFN_COMPARE_MAX_RUNS; k++) hosts[k] = view_many_hosts(&a->v, k);
    for (int i = 0; i < nrows; i++) {
        size_t row = l->top + (size_t)i;
        if (row >= r->nrows) break;
        int y = y0 + 1 + i;
        size_t run;
        uint32_t ev = view_call(l, row, &run);
        const dfn_store *s = view_call_store(l, run);
        uint32_t koff = dfn_strtab_find(s->strs, "offset", 6), kret = dfn_strtab_find(s->strs, "ret", 3);
        bool sel = row == l->cursor;
        if (sel) { attron(A_REVERSE); fill(y, 0, a->cols); }
        x = 0;
        if (w_run) {
            draw_text(y, x, w_run, a->v.labels[run], strlen(a->v.labels[run]), false, false, ascii);
            x += w_run + 1;
        }
        snprintf(b, sizeof b, "%.6f", dfn_store_ts(s, ev) / 1e6);
        draw_text(y, x, w_start, b, strlen(b), true, false, true); x += w_start + 1;
        dfn_fmt_us((double)dfn_store_dur(s, ev), b, sizeof b);
        draw_text(y, x, w_dur, b, strlen(b), true, false, true); x += w_dur + 1;
        size_t pl = call_proc(s, ev, hosts[run], b, sizeof b);
        draw_text(y, x, w_proc, b, pl, false, true, ascii); x += w_proc + 1;
        uint32_t fn = s->kinds[dfn_store_kind(s, ev)].func, fp = s->files[dfn_store_file(s, ev)].path;
        draw_text(y, x, w_func, dfn_store_str(s, fn), dfn_strtab_len(s->strs, fn), false, true, ascii); x += w_func + 1;
        draw_text(y, x, w_file, dfn_store_str(s, fp), dfn_strtab_len(s->strs, fp), false, true, ascii); x += w_file + 1;
        uint64_t by = dfn_store_bytes(s, ev);
        if (by) dfn_fmt_bytes((double)by, b, sizeof b); else b[0] = 0;
        draw_text(y, x, w_bytes, b, strlen(b), true, false, true); x += w_bytes + 1;
        if (wide) {
            dfn_arg v;
            b[0] = 0;
            if (koff != DFN_NOID && dfn_store_arg(s, ev, koff, &v)) dfn_arg_text(s, &v, b, sizeof b);
            draw_text(y, x, w_off, b, strlen(b), true, false, true); x += w_off + 1;
            b[0] = 0;
            if (kret != DFN_NOID && dfn_store_arg(s, ev, kret, &v)) dfn_arg_text(s, &v, b, sizeof b);
            draw_text(y, x, w_ret, b, strlen(b), true, false, true);
        }
        if (sel) attroff(A_REVERSE);
    }
}

/* ---- the frame around the table ---- */

static void draw_breadcrumb(app *a)
{
    attron(A_REVERSE | pair(a, PAIR_TITLE));
    fill(0, 0, a->cols);
    const char *sep = a->utf8 && !a->opts.ascii ? " \u203a " : " > ";
    /* the deepest crumbs matter most: drop from the left until it fits */
    size_t n = a->v.nlv, from = 0;
    char *line = NULL;
    for (;;) {
        size_t cap = 64;
        for (size_t i = from; i < n; i++) cap += strlen(a->v.lv[i].crumb) + 8;
        free(line);
        line = dfn_xmalloc(cap);
        strcpy(line, from ? "..." : "");
        for (size_t i = from; i < n; i++) {
            if (i > from || from) strcat(line, sep);
            strcat(line, a->v.lv[i].crumb);
        }
        if ((int)strlen(line) <= a->cols - 8 || from + 1 >= n) break;
        from++;
    }
    mvaddstr(0, 0, "dfnav ");
    draw_text(0, 6, a->cols - 6, line, strlen(line), false, true, a->opts.ascii || !a->utf8);
    free(line);
    attroff(A_REVERSE | pair(a, PAIR_TITLE));
}

static void draw_filter_line(app *a, level *l)
{
    dfn_filter f;
    view_filter(&a->v, l, &f);
    char *t = dfn_filter_text(&f);
    dfn_filter_free(&f);
    char head[96];
    snprintf(head, sizeof head, "window %.3f-%.3f s  where: ", l->win_lo, l->win_hi);
    mvaddstr(1, 0, head);
    int x = (int)strlen(head);
    if (*t) draw_text(1, x, a->cols - x, t, strlen(t), false, false, a->opts.ascii || !a->utf8);
    else { attron(A_DIM); mvaddstr(1, x, "all events"); attroff(A_DIM); }
    free(t);
}

/* Comparing: each run's activity over the window, on one time axis
 * (a shorter run ends early) and one scale, so heights compare. */
static void compare_timeline(app *a, level *l, int x0, int w)
{
    const dfn_compare *c = l->res;
    int lines = view_timeline_lines(&a->v);
    double span = l->win_hi - l->win_lo, mx = 0;
    int *cw = dfn_xcalloc(c->nruns, sizeof *cw);
    for (size_t k = 0; k < c->nruns; k++) {
        const dfn_result *r = c->res[k];
        double part = span > 0 ? (r->win_hi_s - r->win_lo_s) / span : 1;
        cw[k] = (int)(w * (part < 1 ? part : 1) + 0.5);
        if (cw[k] < 1) cw[k] = 1;
        if (r->spark_total && r->spark_bins) {
            double m = spark_max(r->spark_total, r->spark_bins, cw[k]);
            if (m > mx) mx = m;
        }
    }
    for (size_t k = 0; k < c->nruns && (int)k < lines; k++) {
        const dfn_result *r = c->res[k];
        draw_text(2 + (int)k, 0, x0 - 1, a->v.labels[k], strlen(a->v.labels[k]), false, false, a->opts.ascii || !a->utf8);
        spark_draw(a, 2 + (int)k, x0, cw[k], r->spark_total, r->spark_bins, mx, pair(a, k ? PAIR_SEL_SPARK : PAIR_SPARK));
    }
    free(cw);
}

/* A number in a few columns: 93.2, 1.5k, 12.3M. */
static void fmt_short(double v, char *b, size_t cap)
{
    static const char *const sfx[] = { "", "k", "M", "G", "T", "P", "E" };
    double m = v < 0 ? -v : v;
    size_t k = 0;
    while (m >= 999.5 && k + 1 < sizeof sfx / sizeof *sfx) { m /= 1000; v /= 1000; k++; }
    snprintf(b, cap, m >= 99.95 || m == 0 ? "%.0f%s" : m >= 9.995 ? "%.1f%s" : "%.2g%s", v, sfx[k]);
}

/* One counter track: the series' mean in each cell of the window (blank
 * where it has no sample), on a scale from 0 (or its least value, when
 * negative) to its largest, which is written at the right. */
static void draw_track(app *a, const level *l, int y, int x0, int w, uint32_t series)
{
    const dfn_store *s = a->v.runs[0].s;
    const char *name = dfn_store_str(s, s->series[series]);
    draw_text(y, 0, x0 - 1, name, strlen(name), false, true, a->opts.ascii || !a->utf8);
    const dfn_cresult *t = &l->tracks;
    if (!t->nbins || w <= 0) return;
    double *sum = dfn_xcalloc((size_t)w, sizeof *sum), lo = 0, hi = 0;
    uint32_t *n = dfn_xcalloc((size_t)w, sizeof *n);
    bool any = false;
    for (size_t i = 0; i < t->nrows; i++) {
        const dfn_crow *r = &t->rows[i];
        if (r->key[0] != series || !r->samples || r->key[1] >= t->nbins) continue;
        size_t c = (size_t)(r->key[1] * (uint64_t)w / t->nbins);
        sum[c] += r->sum / (double)r->samples;
        n[c]++;
    }
    for (int c = 0; c < w; c++) {
        if (!n[c]) continue;
        double v = sum[c] / n[c];
        if (!any || v > hi) hi = v;
        if (v < lo) lo = v;
        any = true;
    }
    attron(pair(a, PAIR_SPARK));
    for (int c = 0; c < w && any; c++) {
        if (!n[c]) continue;
        double v = sum[c] / n[c];
        /* a sample is never blank: blank means none */
        ramp_put(a, y, x0 + c, hi > lo ? 1 + (int)((v - lo) / (hi - lo) * 7.999) : 1);
    }
    attroff(pair(a, PAIR_SPARK));
    char scale[64], l0[24], l1[24];
    if (any) {
        fmt_short(lo, l0, sizeof l0);
        fmt_short(hi, l1, sizeof l1);
        snprintf(scale, sizeof scale, "%s..%s", l0, l1);
    } else {
        snprintf(scale, sizeof scale, "none here");
    }
    draw_text(y, x0 + w + 1, a->cols - (x0 + w + 1), scale, strlen(scale), false, false, true);
    free(sum);
    free(n);
}

/* The timeline's axis: round times of the window (seconds from the trace
 * start) at their columns, a label every dozen columns or so. */
static void draw_axis(app *a, const level *l, int y, int x0, int w)
{
    double lo = l->win_lo, span = l->win_hi - l->win_lo;
    attron(A_DIM);
    mvaddstr(y, 0, "time s");
    if (span <= 0 || w < 8) { attroff(A_DIM); return; }
    double step = tick_step(span * 12 / w);
    const char *tick = a->utf8 && !a->opts.ascii ? "\u2575" : "|";
    int free_x = x0;
    for (double t = ceil(lo / step) * step; t <= l->win_hi + step * 1e-9; t += step) {
        int c = x0 + (int)((t - lo) / span * w);
        char b[40];
        int n = fmt_tick(t, step, b, sizeof b);
        if (c < free_x || c + 1 + n > x0 + w + 1) continue;
        mvaddstr(y, c, tick);
        mvaddstr(y, c + 1, b);
        free_x = c + n + 3;
    }
    attroff(A_DIM);
}

static void draw_tracks(app *a, const level *l, int x0, int w)
{
    int y = 2 + view_timeline_lines(&a->v), n = view_track_lines(&a->v);
    for (int k = 0; k < n; k++) draw_track(a, l, y + k, x0, w, view_track_series(&a->v, k));
}

static void draw_timeline(app *a, level *l)
{
    int x0, w, scale_w;
    view_timeline_geom(&a->v, a->cols, &x0, &w, &scale_w);
    draw_tracks(a, l, x0, w);
    draw_axis(a, l, 2 + view_timeline_lines(&a->v) + view_track_lines(&a->v), x0, w);
    if (a->v.labels) {
        if (l->res && w > 0) compare_timeline(a, l, x0, w);
        return;
    }
    const dfn_result *r = l->res ? l->res->res[0] : NULL;
    mvaddstr(2, 0, "all");
    mvaddstr(3, 0, "selected");
    if (!r || !r->spark_total || w <= 0) return;
    spark(a, 2, x0, w, r->spark_total, r->spark_bins, pair(a, PAIR_SPARK));
    if (!r->nrows) return;
    if (view_is_calls(l)) {
        /* the selected call's place in the window */
        const dfn_store *s = view_call_store(l, 0);
        uint32_t ev = r->events[l->cursor];
        double t = dfn_store_ts(s, ev) / 1e6, d = dfn_store_dur(s, ev) / 1e6;
        double span = l->win_hi - l->win_lo;
        if (span <= 0) return;
        int c0 = (int)((t - l->win_lo) / span * w), c1 = (int)((t + d - l->win_lo) / span * w);
        if (c0 < 0) c0 = 0;
        if (c1 >= w) c1 = w - 1;
        attron(A_BOLD | pair(a, PAIR_SEL_SPARK));
        for (int c = c0; c <= c1 && c < w; c++) mvaddch(3, x0 + c, '|');
        attroff(A_BOLD | pair(a, PAIR_SEL_SPARK));
        return;
    }
    if (r->spark) {
        /* the selected row on the same scale as all rows */
        spark_scaled(a, 3, x0, w, &r->spark[l->cursor * r->spark_bins], r->spark_bins, r->spark_total,
                     A_BOLD | pair(a, PAIR_SEL_SPARK));
    }
}

/* The selected row's slowest process: the wall-clock cost of a parallel
 * phase, by the same figure as the time column (summed call time), so the
 * two compare. */
static void status_row_facts(const level *l, size_t sr, char *out, size_t cap)
{
    const dfn_result *r = l->res->res[0];
    char who[256], t[32], all[32];
    if (sr == SIZE_MAX) { out[0] = 0; return; }
    dfn_result_metric_str(l->facts, sr, DFN_M_MAX_PROC, who, sizeof who);
    if (!who[0]) { out[0] = 0; return; }
    dfn_fmt_us(dfn_result_metric(l->facts, sr, DFN_M_MAX_PROC_S) * 1e6, t, sizeof t);
    dfn_fmt_us(dfn_result_metric(r, l->cursor, DFN_M_TIME_S) * 1e6, all, sizeof all);
    snprintf(out, cap, " | slowest %s %s of %s", who, t, all);
}

/* The selected row's full name, for the status line: a group's key, a
 * call's function, file and process. */
static size_t row_title(const app *a, const level *l, char *buf, size_t cap)
{
    if (!view_is_calls(l)) return view_key_text(&a->v, l, l->cursor, buf, cap);
    size_t run;
    uint32_t ev = view_call(l, l->cursor, &run);
    const dfn_store *s = view_call_store(l, run);
    char proc[160];
    call_proc(s, ev, view_many_hosts(&a->v, run), proc, sizeof proc);
    const char *fn = dfn_store_str(s, s->kinds[dfn_store_kind(s, ev)].func), *fl = dfn_store_str(s, s->files[dfn_store_file(s, ev)].path);
    int n = snprintf(buf, cap, "%s%s%s (%s)", fn, *fl ? " " : "", fl, proc);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The selected row's calls per transfer size, as a bar row from <=4KiB to
 * >4GiB, after the status text when it fits. */
static void size_bars(const app *a, int y, int x, const uint64_t *bins)
{
    uint64_t mx = 0;
    for (int b = 0; b < DFN_SIZEBIN_COUNT; b++) if (bins[b] > mx) mx = bins[b];
    int need = 8 + DFN_SIZEBIN_COUNT + 3 + 1;
    int x0 = a->cols - need;
    if (!mx || x0 < x + 2) return;
    mvaddstr(y, x0, "sizes 4K");
    attron(pair(a, PAIR_SPARK));
    for (int b = 0; b < DFN_SIZEBIN_COUNT; b++) ramp_cell(a, y, x0 + 8 + b, (double)bins[b], (double)mx);
    attroff(pair(a, PAIR_SPARK));
    mvaddstr(y, x0 + 8 + DFN_SIZEBIN_COUNT, "4G+");
}

/* " | 3 records set aside (b 2, 7 1; ! lists)": never a quiet
 * status when lines were set aside. */
static void set_aside_status(const app *a, char *out, size_t cap)
{
    size_t w = (size_t)snprintf(out, cap, " | %" PRIu64 " records set aside (", a->set_aside);
    for (size_t k = 0; k < DFN_PH_KINDS && a->set_aside_ph[k].n && w < cap; k++)
        w += (size_t)snprintf(out + w, cap - w, "%s%s %" PRIu64, k ? ", " : "", a->set_aside_ph[k].ph, a->set_aside_ph[k].n);
    if (w < cap) snprintf(out + w, cap - w, "; ! lists)");
}

/* ---- flame ---- */

/* A bar of share (0..1) w cells wide, in eighths of a cell. */
static void share_bar(const app *a, int y, int x, int w, double share)
{
    if (!(share > 0)) return;
    if (share > 1) share = 1;
    int eighths = (int)(share * w * 8 + 0.5);
    if (eighths < 1) eighths = 1;
    bool utf8 = a->utf8 && !a->opts.ascii;
    static const wchar_t part[] = L" \u258f\u258e\u258d\u258c\u258b\u258a\u2589\u2588";
    for (int c = 0; c < w && eighths > 0; c++, eighths -= 8) {
        int e = eighths >= 8 ? 8 : eighths;
        if (utf8) { wchar_t ch[2] = { part[e], 0 }; mvaddnwstr(y, x + c, ch, 1); }
        else mvaddch(y, x + c, e >= 4 ? '#' : '+');
    }
}

/* The flame level: call paths as an indented tree (the rows' order and
 * depths come from the view), total and self time, and a bar of each
 * path's share of the top paths' total. */
static void draw_flame(app *a, level *l, int y0, int nrows)
{
    bool ascii = a->opts.ascii || !a->utf8;
    int w_cnt = 7, w_tot = 8, w_self = 8, w_bar = a->cols >= 120 ? 30 : 12;
    int name_w = a->cols - (w_cnt + w_tot + w_self + w_bar + 4);
    attron(A_UNDERLINE);
    fill(y0, 0, a->cols);
    draw_text(y0, 0, name_w, "call path (callers above, larger first)", 39, false, false, true);
    int x = name_w + 1;
    header_cell(a, y0, x, w_cnt, "count", false, false, true); x += w_cnt + 1;
    header_cell(a, y0, x, w_tot, "total", true, true, true); x += w_tot + 1;
    header_cell(a, y0, x, w_self, "self", false, false, true); x += w_self + 1;
    header_cell(a, y0, x, w_bar, "share", false, false, false);
    attroff(A_UNDERLINE);
    const dfn_compare *c = l->res;
    if (!c || !c->nrows || !l->flame_depth) return;
    const dfn_result *r = c->res[0];
    double top = 0;
    for (size_t k = 0; k < c->nrows; k++)
        if (l->flame_depth[k] == 0) top += dfn_result_metric(r, c->row[k], DFN_M_TIME_S);
    if (l->cursor < l->top) l->top = l->cursor;
    if (l->cursor >= l->top + (size_t)nrows) l->top = l->cursor - (size_t)nrows + 1;
    const dfn_calltree *t = a->v.runs[0].an ? a->v.runs[0].an->tree : NULL;
    char num[64];
    for (int i = 0; i < nrows && l->top + (size_t)i < c->nrows; i++) {
        size_t row = l->top + (size_t)i;
        uint32_t rr = c->row[row];
        int y = y0 + 1 + i;
        bool sel = row == l->cursor;
        if (sel) { attron(A_REVERSE); fill(y, 0, a->cols); }
        /* deep trees: the indent stops at a third of the name's room */
        int depth = l->flame_depth[row], indent = depth * 2 < name_w / 3 ? depth * 2 : name_w / 3;
        uint32_t node = dfn_result_key(r, rr, 0)->id;
        uint32_t fn = t && !r->keytext ? dfn_calltree_path_func(t, node) : DFN_NOID;
        /* a remote run's rows keep their paths as text, its tree is its holders' */
        char *own = NULL;
        size_t tl = 0;
        const char *text = r->keytext ? dfn_result_key_str(NULL, r, rr, 0, NULL, 0, &tl) : NULL;
        unsigned pdepth = text ? view_path_split(text, tl, &own) : t ? dfn_calltree_path_depth(t, node) : 0;
        const char *name = own ? own : fn != DFN_NOID ? dfn_store_str(r->store, fn) : "?";
        x = indent;
        if (depth * 2 > indent) {   /* say how deep it is */
            int n = snprintf(num, sizeof num, "%d> ", depth);
            draw_text(y, x, n, num, (size_t)n, false, false, true);
            x += n;
        }
        if ((t || text) && pdepth != (unsigned)depth) {
            /* callers the selection left out: the whole path says whose
             * call this is (__xstat64 under read_index, not the others) */
            size_t kl;
            char *k = dfn_result_key_dup(r, rr, 0, &kl);
            draw_text(y, x, name_w - x, k, kl, false, true, ascii);
            free(k);
        } else {
            draw_text(y, x, name_w - x, name, strlen(name), false, true, ascii);
        }
        free(own);
        x = name_w + 1;
        metric_text(COL_COUNT, dfn_result_metric(r, rr, DFN_M_COUNT), num, sizeof num);
        draw_text(y, x, w_cnt, num, strlen(num), true, false, true); x += w_cnt + 1;
        double tot = dfn_result_metric(r, rr, DFN_M_TIME_S);
        dfn_fmt_us(tot * 1e6, num, sizeof num);
        draw_text(y, x, w_tot, num, strlen(num), true, false, true); x += w_tot + 1;
        dfn_fmt_us(dfn_result_metric(r, rr, DFN_M_SELF_S) * 1e6, num, sizeof num);
        draw_text(y, x, w_self, num, strlen(num), true, false, true); x += w_self + 1;
        if (!sel) attron(pair(a, PAIR_SPARK));
        share_bar(a, y, x, w_bar, top > 0 ? tot / top : 0);
        if (!sel) attroff(pair(a, PAIR_SPARK));
        if (sel) attroff(A_REVERSE);
    }
}

/* ---- lanes ---- */

/* A lane cell's share as one of the ramp's levels: blank for none, full
 * for all of the cell (a host or rank lane can be busier than its width:
 * several processes; it shows full). */
static int lane_level(double v)
{
    if (isnan(v) || v <= 0) return 0;
    return 1 + (int)((v < 1 ? v : 1) * 7.999);
}

static void draw_lanes(app *a, level *l)
{
    int x0 = LANE_LABEL_W + 1, w = view_lanes_width(&a->v);
    bool ascii = a->opts.ascii || !a->utf8;
    const dfn_result *r = l->res ? l->res->res[0] : NULL;
    char legend[256];
    const char *dim = view_dim_title(&l->dim);
    bool have = r && (l->shade == LANE_CALLS ? r->spark != NULL : l->shade == LANE_IO ? r->spark_io != NULL : r->spark_cmp != NULL);
    snprintf(legend, sizeof legend, have ? "lanes by %s, each cell: its %s share of the cell, 0" : "lanes by %s: no %s figures (they need the overlap analysis)",
             dim, view_shade_name(l->shade));
    int lx = draw_text(2, 0, a->cols, legend, strlen(legend), false, false, true);
    if (have && lx + 14 < a->cols) {
        attron(pair(a, PAIR_SPARK));
        for (int k = 1; k <= 8; k++) ramp_put(a, 2, lx + k, k);
        attroff(pair(a, PAIR_SPARK));
        mvaddstr(2, lx + 10, "100%");
    }
    draw_axis(a, l, 3, x0, w);
    if (!r) return;
    int nrows = a->rows - 4 - 2;
    if (l->cursor < l->top) l->top = l->cursor;
    if (l->cursor >= l->top + (size_t)nrows) l->top = l->cursor - (size_t)nrows + 1;
    char key[4096];
    for (int i = 0; i < nrows && l->top + (size_t)i < r->nrows; i++) {
        size_t row = l->top + (size_t)i;
        int y = 4 + i;
        bool sel = row == l->cursor;
        size_t kl = view_key_text(&a->v, l, row, key, sizeof key);
        if (sel) attron(A_REVERSE);
        fill(y, 0, LANE_LABEL_W);
        draw_text(y, 0, LANE_LABEL_W, kl ? key : "(none)", kl ? kl : 6, false, true, ascii);
        if (sel) attroff(A_REVERSE);
        attron(pair(a, PAIR_SPARK));
        for (int c = 0; c < w && (size_t)c < r->spark_bins; c++) {
            bool here = sel && (size_t)c == l->lane_col;
            if (here) attron(A_REVERSE);
            int lvl = lane_level(view_lane_value(l, l->shade, row, (size_t)c));
            if (here && !lvl) mvaddch(y, x0 + c, ' ');
            else ramp_put(a, y, x0 + c, lvl);
            if (here) attroff(A_REVERSE);
        }
        attroff(pair(a, PAIR_SPARK));
    }
    if (!r->nrows) {
        attron(A_DIM);
        mvaddstr(5, 2, "No events here. Esc goes back; f changes the filter.");
        attroff(A_DIM);
    }
}

/* "row 3 of 16: KEY" ("lane ..." on lanes): where the cursor is and its
 * row's name whole, or cut in the middle to end by column end (12
 * columns at least). Returns the columns used. */
static int status_where(const app *a, const level *l, int y, const char *what, int end)
{
    char line[96], key[4096];
    int n = snprintf(line, sizeof line, "%s %zu of %zu: ", what, l->cursor + 1, l->res->nrows);
    int x = draw_text(y, 0, a->cols, line, (size_t)n, false, false, true);
    size_t kl = row_title(a, l, key, sizeof key);
    if (!kl) kl = (size_t)snprintf(key, sizeof key, "(none)");
    return x + draw_text(y, x, end - x > 12 ? end - x : 12, key, kl, false, true, a->opts.ascii || !a->utf8);
}

/* "lane 3 of 128: rank 3 | 12.0-13.0 s: I/O busy 45%, compute 20%, call time 61%" */
static void lanes_status(app *a, level *l, int y)
{
    const dfn_result *r = l->res->res[0];
    if (!r->nrows) { mvaddstr(y, 0, "no lanes"); return; }
    char line[512];
    int n, x = status_where(a, l, y, "lane", a->cols / 2);
    double lo, hi;
    view_lane_cell(l, l->lane_col, &lo, &hi);
    char t0[32], t1[32];
    int dec = view_cell_decimals(hi - lo);
    snprintf(t0, sizeof t0, "%.*f", dec, lo);
    snprintf(t1, sizeof t1, "%.*f", dec, hi);
    n = snprintf(line, sizeof line, " | %s-%s s:", t0, t1);
    for (int sh = 0; sh < LANE_SHADES && n < (int)sizeof line; sh++) {
        double v = view_lane_value(l, sh, l->cursor, l->lane_col);
        if (isnan(v)) continue;
        static const char *brief[LANE_SHADES] = { "I/O", "compute", "calls" };
        n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %.0f%%", sh ? "," : "", brief[sh], 100 * v);
    }
    draw_text(y, x, a->cols - x, line, strlen(line), false, false, true);
}

static void draw_status(app *a)
{
    int y = a->rows - 2;
    fill(y, 0, a->cols);
    char line[1200];
    level *l = a->have_view ? view_top(&a->v) : NULL;
    if (a->mode == MODE_PROMPT) {
        if (a->perr[0]) {
            attron(A_BOLD | pair(a, PAIR_WARN));
            draw_text(y, 0, a->cols, a->perr, strlen(a->perr), false, false, a->opts.ascii || !a->utf8);
            attroff(A_BOLD | pair(a, PAIR_WARN));
        } else if (a->pnote[0]) {
            draw_text(y, 0, a->cols, a->pnote, strlen(a->pnote), false, false, a->opts.ascii || !a->utf8);
        }
        return;
    }
    if (a->loading) {
        /* the row the cursor is on, then the progress: while the rows are
         * made again, the cursor's range is what Enter opens */
        int x = 0;
        if (l && l->res && l->res->nrows) {
            x = status_where(a, l, y, l->lanes ? "lane" : "row", a->cols / 3);
            x += draw_text(y, x, a->cols - x, " | ", 3, false, false, true);
        }
        attron(A_BOLD);
        draw_text(y, x, a->cols - x, a->progress, strlen(a->progress), false, false, true);
        attroff(A_BOLD);
        return;
    }
    if (a->msg[0]) {
        draw_text(y, 0, a->cols, a->msg, strlen(a->msg), false, a->msg_middle, a->opts.ascii || !a->utf8);
        return;
    }
    if (l && l->res && l->lanes) {
        lanes_status(a, l, y);
        return;
    }
    if (l && l->res) {
        const dfn_compare *c = l->res;
        bool ascii = a->opts.ascii || !a->utf8;
        bool damage = a->malformed || a->bad_files;
        /* damage and records set aside are never cut: they come first */
        char warn[512] = "";
        if (damage)
            snprintf(warn, sizeof warn, " | DAMAGE: %" PRIu64 " bad lines, %zu files (! lists)", a->malformed, a->bad_files);
        else if (a->set_aside)
            set_aside_status(a, warn, sizeof warn);
        /* where the cursor is, and the row's name whole (the table may
         * have cut it), cut in the middle to leave room for the rest */
        int x = 0;
        if (c->nrows) {
            int end = a->cols / 2;
            if (warn[0] && a->cols - (int)strlen(warn) < end) end = a->cols - (int)strlen(warn);
            x = status_where(a, l, y, "row", end);
        }
        if (warn[0]) {
            if (damage) attron(A_BOLD | pair(a, PAIR_WARN));
            x += draw_text(y, x, a->cols - x, warn + (c->nrows ? 0 : 3), strlen(warn + (c->nrows ? 0 : 3)), false, false, ascii);
            if (damage) attroff(A_BOLD | pair(a, PAIR_WARN));
        }
        /* the row's slowest process, then what the level selects */
        line[0] = 0;
        size_t fr = view_facts_row(l, l->cursor);   /* made behind the keys: none until then */
        bool one_proc = view_row_is_process(l);   /* its own slowest */
        if (!view_is_calls(l) && !one_proc && c->nrows && !a->v.labels)
            status_row_facts(l, fr, line, sizeof line);
        int n = (int)strlen(line);
        n += snprintf(line + n, sizeof line - (size_t)n, c->nrows || warn[0] ? " | " : "no rows, ");
        /* comparing: each run's events, and which runs have the row */
        for (size_t k = 0; a->v.labels && k < c->nruns && n < (int)sizeof line; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%s %" PRIu64, k ? ", " : "", a->v.labels[k], c->res[k]->matched);
        /* aggregated records stand for more calls than they are */
        if (!a->v.labels && c->matched_calls != c->matched)
            n += snprintf(line + n, sizeof line - (size_t)n, "%" PRIu64 " calls in %" PRIu64, c->matched_calls, c->matched);
        else if (!a->v.labels)
            n += snprintf(line + n, sizeof line - (size_t)n, "%" PRIu64, c->matched);
        if (n < (int)sizeof line) n += snprintf(line + n, sizeof line - (size_t)n, c->matched_calls != c->matched && !a->v.labels ? " records" : " events");
        if (view_is_calls(l) && c->matched > c->nrows && n < (int)sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, " (first %zu by this sort)", c->nrows);
        int used = x + (x < a->cols ? draw_text(y, x, a->cols - x, line, strlen(line), false, false, ascii) : 0);
        if (fr != SIZE_MAX && l->facts->sizes) size_bars(a, y, used, &l->facts->sizes[fr * DFN_SIZEBIN_COUNT]);
    }
}

static void draw_hints(app *a)
{
    int y = a->rows - 1;
    attron(A_REVERSE | pair(a, PAIR_HINT));
    fill(y, 0, a->cols);
    const char *h;
    if (a->mode == MODE_PROMPT) {
        static const char *names[] = { "filter: ", "search: ", "save CSV as: ", "argument name: " };
        const char *p = names[a->pk];
        /* E: the format follows the name, and the label says which */
        if (a->pk == PROMPT_EXPORT && a->export_calls)
            p = ui_export_chrome(a->edit.buf ? a->edit.buf : "") ? "save Perfetto trace (C-t: CSV) as: "
                                                                 : "save calls CSV (C-t: Perfetto) as: ";
        attroff(A_REVERSE | pair(a, PAIR_HINT));
        fill(y, 0, a->cols);
        mvaddstr(y, 0, p);
        int x = (int)strlen(p), w = a->cols - x - 1;
        /* keep the cursor visible in a long line */
        size_t from = a->edit.cur > (size_t)w - 1 ? a->edit.cur - (size_t)w + 1 : 0;
        draw_text(y, x, w, a->edit.buf + from, a->edit.len - from, false, false, a->opts.ascii || !a->utf8);
        move(y, x + (int)(a->edit.cur - from));
        return;
    }
    char bar[512];
    if (a->mode == MODE_CONFIRM) h = "The file exists. Overwrite it? y = yes, n = no";
    else if (a->mode == MODE_MEMORY) h = "y loads it anyway  n or q quits";
    else {
        unsigned km = a->mode == MODE_PIVOT || a->mode == MODE_COLUMNS ? KM_MENU : a->mode == MODE_DIAG ? KM_DIAG
                    : a->mode != MODE_TABLE ? KM_SCREEN : a->have_view && view_top(&a->v)->lanes ? KM_LANES : KM_TABLE;
        keymap_bar(km, a->cols, bar, sizeof bar);
        h = bar;
    }
    mvaddnstr(y, 0, h, a->cols);
    attroff(A_REVERSE | pair(a, PAIR_HINT));
}

/* ---- overlays ---- */

static void draw_lines(app *a, const char *title, char **lines, size_t n)
{
    erase();
    attron(A_REVERSE | A_BOLD);
    fill(0, 0, a->cols);
    mvaddstr(0, 0, title);
    attroff(A_REVERSE | A_BOLD);
    int h = a->rows - 2;
    if (a->scroll + (size_t)h > n) a->scroll = n > (size_t)h ? n - (size_t)h : 0;
    for (int i = 0; i < h && a->scroll + (size_t)i < n; i++) {
        const char *s = lines[a->scroll + (size_t)i];
        draw_text(1 + i, 1, a->cols - 2, s, strlen(s), false, false, a->opts.ascii || !a->utf8);
    }
    draw_hints(a);
}

/* After the keys: what the columns mean, as paragraphs wrapped to the
 * screen. */
static const char *help_notes[] = {
    "Columns",
    "count: calls that start in the row. time: the sum of their durations (a time range counts the part of each "
    "call inside it). busy: the union of their intervals. % time: the row's share of the level's total time (on "
    "levels whose rows nest, such as layers, the shares can add up to more than 100%). bytes, and bandwidth: bytes "
    "over the summed call time (bytes/time). p90 and max: call latency. activity: the row's time over the window, "
    "whose first and last second its header gives. On the layer level the share is titled % all: layers nest (a "
    "call can be in several), so each layer's share of the selection's call time can add up past 100%.",
    "On the process levels: compute (the compute of the row's processes), I/O (the union of I/O intervals per "
    "process) and exposed (the I/O not covered by the process's compute); process rows take two lines, compute "
    "activity above I/O activity. With c, at any level: compute, I/O, exposed, active (calls running in the row), "
    "self (time outside child calls), seq (sequential share of reads and writes) and a counter column.",
    "The status line gives the row's place and full name, the events selected, the selected row's slowest process "
    "(by its summed call time in the row) and its calls per transfer size (4KiB to 4GiB+). On the calls level Enter "
    "shows every field, the enclosing calls and the calls made.",
    "",
    "Comparing runs",
    "dfnav compare RUN RUN...: each metric is a group of columns, one per run, then diff (second - first) and ratio "
    "(second / first); < > sort by any of them. A row a run lacks shows - there, not 0. Time is from each run's "
    "start; the timeline draws each run on one axis. Calls show their run; d judges each run.",
};

static void draw_help(app *a)
{
    char **lines;
    int width = a->cols - 2;
    size_t n = keymap_help(width, &lines), cap = n;
    for (size_t i = 0; i < sizeof help_notes / sizeof help_notes[0]; i++) {
        const char *p = help_notes[i];
        dfn_grow((void **)&lines, &cap, n + 2, sizeof *lines);
        if (i == 0) lines[n++] = dfn_xstrdup("");
        if (!*p || !strchr(p, ' ')) { lines[n++] = dfn_xstrdup(p); continue; }
        /* a paragraph, cut at spaces */
        while (*p) {
            size_t len = strlen(p), take = len;
            if ((int)len > width - 2) {
                take = (size_t)(width - 2);
                while (take > 0 && p[take] != ' ') take--;
                if (take == 0) take = (size_t)(width - 2);
            }
            dfn_grow((void **)&lines, &cap, n + 1, sizeof *lines);
            lines[n++] = dfn_xasprintf("  %.*s", (int)take, p);
            p += take;
            while (*p == ' ') p++;
        }
    }
    draw_lines(a, " dfnav keys (Up/Down, PgUp/PgDn scroll; Esc or q closes)", lines, n);
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

static void draw_menu(app *a, const char *title, const char **items, const bool *checked, size_t n)
{
    int w = 34, h = (int)n + 2;
    if (h > a->rows - 2) h = a->rows - 2;
    int y0 = (a->rows - h) / 2, x0 = (a->cols - w) / 2;
    if (y0 < 1) y0 = 1;
    for (int i = 0; i < h; i++) fill(y0 + i, x0, w);
    attron(A_BOLD);
    mvaddstr(y0, x0 + 1, title);
    attroff(A_BOLD);
    int vis = h - 2;
    int first = a->menu_sel >= vis ? a->menu_sel - vis + 1 : 0;
    for (int i = 0; i < vis && first + i < (int)n; i++) {
        int k = first + i;
        char line[64];
        if (checked) snprintf(line, sizeof line, "[%c] %s", checked[k] ? 'x' : ' ', items[k]);
        else snprintf(line, sizeof line, "%s", items[k]);
        if (k == a->menu_sel) attron(A_REVERSE);
        fill(y0 + 1 + i, x0 + 1, w - 2);
        mvaddstr(y0 + 1 + i, x0 + 2, line);
        if (k == a->menu_sel) attroff(A_REVERSE);
    }
}

static void draw_pivot(app *a)
{
    const char *items[32];
    char buf[32][40];
    for (size_t i = 0; i < view_npivots; i++) {
        snprintf(buf[i], sizeof buf[i], "%c  %s", view_pivots[i].key, view_pivots[i].label);
        items[i] = buf[i];
    }
    draw_menu(a, "Group this level by", items, NULL, view_npivots);
}

static void draw_columns(app *a)
{
    const char *items[COL_N - 1];
    bool checked[COL_N - 1];
    static const char *titles[COL_N] = { [COL_COMPUTE] = "compute (processes: always)",
                                         [COL_IO] = "I/O (processes: always)", [COL_EXPOSED] = "exposed (processes: always)",
                                         [COL_SELF] = "self time", [COL_SEQ] = "seq (sequential %)",
                                         [COL_ACTIVE] = "active (calls running)",
                                         [COL_IDLE] = "idle (gaps, no call)",
                                         [COL_CTR] = "counter (C's first track)" };
    for (int c = 1; c < COL_N; c++) { items[c - 1] = titles[c] ? titles[c] : view_cols[c].title; checked[c - 1] = a->v.col_on[c]; }
    draw_menu(a, "Columns", items, checked, COL_N - 1);
}


void detail_make(app *a, const dfn_store *s, uint32_t i, char **place, size_t nplace, const char *place_err)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    if (a->v.labels) dfn_lines_add(&lines, &n, &cap, "run        %s", a->v.labels[a->detail_run]);
    const dfn_kind *k = &s->kinds[dfn_store_kind(s, i)];
    const dfn_lane *ln = &s->lanes[dfn_store_lane(s, i)];
    uint64_t ts = dfn_store_ts(s, i), dur = dfn_store_dur(s, i);
    dfn_lines_add(&lines, &n, &cap, "function   %s", dfn_store_str(s, k->func));
    dfn_lines_add(&lines, &n, &cap, "category   %s", dfn_store_str(s, k->cat));
    dfn_lines_add(&lines, &n, &cap, "I/O class  %s (%s)", dfn_class_name((dfn_class)k->cls), dfn_op_name((dfn_op)k->op));
    dfn_lines_add(&lines, &n, &cap, "start      %.6f s from the trace start (%" PRIu64 " us since the epoch)", ts / 1e6, s->t0 + ts);
    dfn_lines_add(&lines, &n, &cap, "duration   %" PRIu64 " us", dur);
    dfn_lines_add(&lines, &n, &cap, "end        %.6f s", (ts + dur) / 1e6);
    char pt[2][128];
    dfn_id_text(s, ln->pid, pt[0], sizeof pt[0]);
    dfn_id_text(s, ln->tid, pt[1], sizeof pt[1]);
    dfn_lines_add(&lines, &n, &cap, "process    %s (host %s, pid %s, tid %s)", dfn_store_str(s, ln->name),
             dfn_store_str(s, ln->host), pt[0], pt[1]);
    dfn_lines_add(&lines, &n, &cap, "file       %s", dfn_store_str(s, s->files[dfn_store_file(s, i)].path));
    dfn_lines_add(&lines, &n, &cap, "bytes      %" PRIu64, dfn_store_bytes(s, i));
    dfn_lines_add(&lines, &n, &cap, "arguments");
    dfn_arg args[64];
    size_t na = dfn_store_args(s, i, args, 64);
    char v[4096];
    for (size_t j = 0; j < na && j < 64; j++) {
        dfn_arg_text(s, &args[j], v, sizeof v);
        dfn_lines_add(&lines, &n, &cap, "  %-14s %s", dfn_store_str(s, args[j].key), v);
    }
    if (!na) dfn_lines_add(&lines, &n, &cap, "  (none)");
    /* where it sits: its self time, the calls that enclose it in its
     * thread and the calls it made (callplace.h) */
    if (!place && place_err && *place_err) dfn_lines_add(&lines, &n, &cap, "call tree  (%s)", place_err);
    else if (!place) dfn_lines_add(&lines, &n, &cap, "call tree  (once loading finishes)");
    for (size_t k2 = 0; k2 < nplace; k2++) dfn_lines_add(&lines, &n, &cap, "%s", place[k2]);
    for (size_t j = 0; j < a->ndetail_lines; j++) free(a->detail_lines[j]);
    free(a->detail_lines);
    a->detail_lines = lines;
    a->ndetail_lines = n;
}

/* The call detail, as made when it opened: the store it read may have
 * gone since (a remote run's calls go with their level's rows, a
 * snapshot with the next one). */
static void draw_detail(app *a) { draw_lines(a, " call detail", a->detail_lines, a->ndetail_lines); }

/* A file's records of kinds not used, by their ph. */
static void set_aside_line(const dfn_srcinfo *si, char ***lines, size_t *n, size_t *cap)
{
    char buf[512];
    const dfn_srcmore *m = dfn_src_more(si);
    size_t w = (size_t)snprintf(buf, sizeof buf, "    %" PRIu64 " records set aside, kinds not used, by ph:", m->other);
    for (size_t k = 0; k < dfn_phcount_len(m->other_ph) && w < sizeof buf; k++)
        w += (size_t)snprintf(buf + w, sizeof buf - w, "%s %s: %" PRIu64, k ? "," : "", m->other_ph[k].ph,
                              m->other_ph[k].n);
    dfn_lines_add(lines, n, cap, "%s", buf);
}

static void draw_damage(app *a)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < a->ninput_errors; k++) dfn_lines_add(&lines, &n, &cap, "%s", a->input_errors[k]);
    for (size_t k = 0; k < a->nruns; k++) {
    const dfn_store *s = a->damage_store[k] ? a->damage_store[k] : a->have_view ? a->v.runs[k].s : NULL;
    for (size_t f = 0; s && f < s->nsrc; f++) {
        const dfn_srcinfo *si = &s->src[f];
        const dfn_srcmore *m = dfn_src_more(si);
        if (!m->error && !si->malformed && !m->other) continue;
        dfn_lines_add(&lines, &n, &cap, "%s", si->path);
        if (m->error) dfn_lines_add(&lines, &n, &cap, "    error: %s", m->error);
        if (si->malformed) dfn_lines_add(&lines, &n, &cap, "    %" PRIu64 " malformed lines", si->malformed);
        for (size_t b = 0; b < m->nbad; b++)
            dfn_lines_add(&lines, &n, &cap, "    line %" PRIu64 ": %s", m->bad_lines[b], m->bad_reason[b]);
        if (m->other) set_aside_line(si, &lines, &n, &cap);
    }
    }
    if (!n) dfn_lines_add(&lines, &n, &cap, "No damage: every line of every file loaded.");
    draw_lines(a, " damaged input", lines, n);
    for (size_t j = 0; j < n; j++) free(lines[j]);
    free(lines);
}

/* The diagnostics: each finding as a heading, its figures and where
 * Enter leads; the selected one in reverse video, kept on screen. */
static void draw_diag(app *a)
{
    erase();
    attron(A_REVERSE | A_BOLD);
    fill(0, 0, a->cols);
    const char *w = a->diag_where && *a->diag_where ? a->diag_where : "all events";
    char title[512];
    snprintf(title, sizeof title, " diagnostics of %s", w);
    draw_text(0, 0, a->cols, title, strlen(title), false, false, a->opts.ascii || !a->utf8);
    attroff(A_REVERSE | A_BOLD);
    bool ascii = a->opts.ascii || !a->utf8;
    if (a->diagnosing || !a->diag) {
        const char *m = a->diagnosing ? "evaluating the rules on the selection, its layers and processes ..." :
                                        "no diagnostics (see the status line)";
        mvaddstr(2, 2, m);
        draw_hints(a);
        return;
    }
    const dfn_findings *f = a->diag;
    const dfn_thresholds *t = &a->opts.thresholds;
    char sz[32], head[512];
    dfn_fmt_bytes(t->v[DFN_TH_SMALL_SIZE], sz, sizeof sz);
    snprintf(head, sizeof head, "limits: metadata>=%g%% small I/O>=%g%% of time below %s, imbalance>%g%%, random>%g%%, exposed>%g%%",
             t->v[DFN_TH_METADATA], t->v[DFN_TH_SMALL_TIME], sz, t->v[DFN_TH_IMBALANCE], t->v[DFN_TH_RANDOM], t->v[DFN_TH_EXPOSED]);
    attron(A_DIM);
    draw_text(1, 1, a->cols - 2, head, strlen(head), false, false, ascii);
    attroff(A_DIM);
    if (!f->n) { mvaddstr(3, 2, "No rule fires: nothing stands out by these limits."); draw_hints(a); return; }
    int per = 3, h = (a->rows - 4) / per;
    if (h < 1) h = 1;
    if (a->diag_sel < a->scroll) a->scroll = a->diag_sel;
    if (a->diag_sel >= a->scroll + (size_t)h) a->scroll = a->diag_sel - (size_t)h + 1;
    char line[2048];
    for (int k = 0; k < h && a->scroll + (size_t)k < f->n; k++) {
        size_t i = a->scroll + (size_t)k;
        const dfn_finding *x = &f->v[i];
        int y = 2 + k * per;
        bool sel = i == a->diag_sel;
        if (x->info) snprintf(line, sizeof line, "%s: %s", x->where, dfn_rule_name(x->rule));
        else snprintf(line, sizeof line, "%s: %s  %.1f%% (limit %g%%)", x->where, dfn_rule_name(x->rule), x->value, x->threshold);
        if (sel) { attron(A_REVERSE); fill(y, 0, a->cols); }
        else if (!x->info) attron(A_BOLD | pair(a, PAIR_WARN));
        draw_text(y, 1, a->cols - 2, line, strlen(line), false, false, ascii);
        if (sel) attroff(A_REVERSE);
        else if (!x->info) attroff(A_BOLD | pair(a, PAIR_WARN));
        snprintf(line, sizeof line, "   %s", x->figures);
        draw_text(y + 1, 1, a->cols - 2, line, strlen(line), false, false, ascii);
        snprintf(line, sizeof line, "   Enter: by %s%s%s", x->by, *x->filter ? " where " : "", x->filter);
        attron(A_DIM);
        draw_text(y + 2, 1, a->cols - 2, line, strlen(line), false, false, ascii);
        attroff(A_DIM);
    }
    draw_hints(a);
}

/* A paragraph of n bytes at m, its first letter capitalised, cut at
 * spaces into lines w columns wide from row y (the first line indented
 * one more), above row last; the row after it. */
static int draw_paragraph(int y, int w, const char *m, size_t n, int last, bool ascii)
{
    char first[2] = { (char)(n && *m >= 'a' && *m <= 'z' ? *m - 'a' + 'A' : *m), 0 };
    if (n) { mvaddstr(y, 2, first); m++; n--; }
    int x = 3;
    while (n && y < last) {
        int room = w - (x - 2);
        size_t take = n;
        if ((int)n > room) {
            take = (size_t)room;
            while (take > 0 && m[take] != ' ') take--;
            if (take == 0) take = (size_t)room;
        }
        draw_text(y, x, room, m, take, false, false, ascii);
        m += take;
        n -= take;
        while (n && *m == ' ') m++, n--;
        y++;
        x = 2;
    }
    return y;
}

/* Before loading: the estimate of a set that may not fit, word-wrapped,
 * the question, and where the set would fit. */
static void draw_memory(app *a)
{
    bool ascii = a->opts.ascii || !a->utf8;
    attron(A_BOLD);
    mvaddstr(0, 0, "dfnav");
    attroff(A_BOLD);
    const char *m = a->mem_warning ? a->mem_warning : "";
    int w = a->cols - 4, y = 2, last = a->rows - 5;
    attron(A_BOLD | pair(a, PAIR_WARN));
    y = draw_paragraph(y, w, m, strlen(m), last, ascii);
    attroff(A_BOLD | pair(a, PAIR_WARN));
    static const char *rest[] = {
        "Loading it could fill the memory and make the machine swap.",
        "y loads it anyway; n or q quits (exit status 4). Fewer files need less;",
        "--force skips this question.",
    };
    y++;
    for (size_t i = 0; i < sizeof rest / sizeof rest[0] && y < a->rows - 1; i++, y++)
        draw_text(y, 2, w, rest[i], strlen(rest[i]), false, false, ascii);
    /* where it would fit: a line of dfn_runs_advice's a paragraph */
    for (const char *p = a->mem_advice ? a->mem_advice : ""; *p && y < a->rows - 2;) {
        size_t len = strcspn(p, "\n");
        y = draw_paragraph(y + 1, w, p, len, a->rows - 1, ascii);
        p += len + (p[len] == '\n');
    }
    draw_hints(a);
}

/* Whether every row of l has no call and no time (time ranges the
 * selection does not reach). */
static bool level_all_zero(const level *l)
{
    const dfn_compare *c = l->res;
    for (size_t row = 0; row < c->nrows; row++)
        for (size_t k = 0; k < c->nruns; k++) {
            if (c->row[row * c->nruns + k] == DFN_CMP_ABSENT || !c->res[k]->m) continue;
            if (dfn_compare_value(c, row, (int)k, DFN_M_COUNT) > 0 || dfn_compare_value(c, row, (int)k, DFN_M_TIME_S) > 0)
                return false;
        }
    return true;
}

void draw_screen(app *a)
{
    erase();
    if (a->rows < 24 || a->cols < 80) {
        const char *m1 = "terminal too small", *m2 = "dfnav needs at least 80x24";
        char m3[64];
        snprintf(m3, sizeof m3, "(now %dx%d; Q quits)", a->cols, a->rows);
        int y = a->rows / 2 - 1;
        if (y < 0) y = 0;
        mvaddnstr(y, 0, m1, a->cols);
        if (y + 1 < a->rows) mvaddnstr(y + 1, 0, m2, a->cols);
        if (y + 2 < a->rows) mvaddnstr(y + 2, 0, m3, a->cols);
        return;
    }
    if (a->mode == MODE_MEMORY) { draw_memory(a); return; }
    if (a->mode == MODE_HELP) { draw_help(a); return; }
    if (a->mode == MODE_DETAIL) { draw_detail(a); return; }
    if (a->mode == MODE_DAMAGE) { draw_damage(a); return; }
    if (a->mode == MODE_DIAG) { draw_diag(a); return; }
    if (!a->have_view) {
        mvaddstr(0, 0, "dfnav");
        draw_status(a);
        draw_hints(a);
        return;
    }
    level *l = view_top(&a->v);
    draw_breadcrumb(a);
    draw_filter_line(a, l);
    if (l->lanes) {
        draw_lanes(a, l);
        draw_status(a);
        draw_hints(a);
        return;
    }
    draw_timeline(a, l);
    int y0 = 2 + view_timeline_lines(&a->v) + view_track_lines(&a->v) + 1;
    int nrows = view_table_lines(&a->v, a->rows);
    /* nothing selected: say so, not a table of empty time ranges */
    bool none = l->res && (l->res->nrows == 0 || (l->res->matched == 0 && level_all_zero(l)));
    if (view_is_calls(l)) draw_calls(a, l, y0, nrows);
    else if (l->flame) draw_flame(a, l, y0, nrows);
    else draw_groups(a, l, y0, none ? 0 : nrows - (view_header_lines(&a->v) - 1));
    if (none) {
        char m[1200];
        if (l->user)
            snprintf(m, sizeof m, "No event in this window matches %.1000s (f changes the filter).", l->user);
        else
            snprintf(m, sizeof m, "No events here: Backspace goes back, Z widens the window.");
        attron(A_BOLD);
        draw_text(y0 + 2, 2, a->cols - 4, m, strlen(m), false, false, a->opts.ascii || !a->utf8);
        attroff(A_BOLD);
    }
    draw_status(a);
    if (a->mode == MODE_PIVOT) draw_pivot(a);
    if (a->mode == MODE_COLUMNS) draw_columns(a);
    draw_hints(a);
}
