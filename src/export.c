/* Result writers: the aligned table users read, CSV through libcsv and
 * JSON for scripts, plus the temp-file-and-rename save the explorer uses.
 * Names from traces are data: the table escapes control bytes, CSV and JSON
 * quote and escape them by their own rules. */
#include "dfnav/export.h"
#include "dfnav/chrome.h"
#include "dfnav/evrows.h"
#include "dfnav/util.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Calls per transfer-size bin (--sizes), by the bin's upper bound. */
static const char *size_cols[DFN_SIZEBIN_COUNT] = {
    "n_le4KiB", "n_4_16KiB", "n_16_64KiB", "n_64_256KiB", "n_256KiB_1MiB", "n_1_4MiB", "n_4_16MiB",
    "n_16_64MiB", "n_64_256MiB", "n_256MiB_1GiB", "n_1_4GiB", "n_gt4GiB" };

/* A call's own fields; its arguments follow as arg.NAME columns. */
static const char *event_cols[] = { "start_s", "dur_us", "proc", "rank", "cat", "func", "file", "bytes" };
#define NEVENT_COLS (sizeof event_cols / sizeof event_cols[0])

bool dfn_format_parse(const char *s, dfn_format *out)
{
    if (strcmp(s, "table") == 0) *out = DFN_FMT_TABLE;
    else if (strcmp(s, "csv") == 0) *out = DFN_FMT_CSV;
    else if (strcmp(s, "json") == 0) *out = DFN_FMT_JSON;
    else if (strcmp(s, "chrome") == 0 || strcmp(s, "perfetto") == 0) *out = DFN_FMT_CHROME;
    else return false;
    return true;
}

/* Length of the valid UTF-8 sequence at s, 0 when invalid (see export.h). */
size_t dfn_utf8_len(const unsigned char *s, size_t len)
{
    unsigned c = s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || n > len || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4)) return 0;
    for (size_t i = 1; i < n; i++) if ((s[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0;
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
    /* C1 controls (U+0080..U+009F) act as terminal escapes too */
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) return 0;
    return n;
}

/* The code point of a valid sequence of n bytes. */
static unsigned utf8_cp(const unsigned char *p, size_t n)
{
    if (n == 1) return p[0];
    if (n == 2) return (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
    if (n == 3) return (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
    return (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
}

/* Characters that reorder or hide text: bidirectional controls make
 * "/d/<RLO>vsc.exe" read "/d/exe.csv"; zero-width ones and separators
 * make two names look alike. */
static bool cp_deceives(unsigned cp)
{
    return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

static int cp_width(unsigned cp)
{
    if ((cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x1dc0 && cp <= 0x1dff) ||
        (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe20 && cp <= 0xfe2f) || (cp >= 0xfe00 && cp <= 0xfe0f))
        return 0;
    if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
        (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
        (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
        (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
        (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
        return 2;
    return 1;
}

size_t dfn_text_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)s + i;
        size_t n = dfn_utf8_len(p, len - i);
        if (!n) { w++; i++; continue; }   /* shown as one byte of some sort */
        w += (size_t)cp_width(utf8_cp(p, n));
        i += n;
    }
    return w;
}

void dfn_write_padded(FILE *out, const char *s, size_t len, size_t width, bool right)
{
    size_t w = dfn_text_width(s, len);
    size_t pad = w < width ? width - w : 0;
    if (right) for (size_t k = 0; k < pad; k++) fputc(' ', out);
    fwrite(s, 1, len, out);
    if (!right) for (size_t k = 0; k < pad; k++) fputc(' ', out);
}

size_t dfn_fmt_safe(const char *s, size_t len, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t w = 0;
    if (!cap) return 0;
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)s + i;
        size_t n = *p >= 0x20 && *p != 0x7f ? dfn_utf8_len(p, len - i) : 0;
        if ((n == 2 || n == 3) && cp_deceives(utf8_cp(p, n))) {
            /* shown as \u202e: 6 bytes for 2 or 3, within 4 per byte */
            if (w + 6 >= cap) break;
            w += (size_t)snprintf(buf + w, cap - w, "\\u%04x", utf8_cp(p, n));
            i += n;
            continue;
        }
        if (n) {
            if (w + n >= cap) break;
            memcpy(buf + w, p, n);
            w += n;
            i += n;
        } else {
            if (w + 4 >= cap) break;
            buf[w++] = '\\'; buf[w++] = 'x'; buf[w++] = hex[*p >> 4]; buf[w++] = hex[*p & 15];
            i++;
        }
    }
    buf[w] = 0;
    return w;
}

void dfn_warnf(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = dfn_xvasprintf(fmt, ap);
    va_end(ap);
    size_t len = strlen(msg);
    char *safe = dfn_xmalloc(len * 4 + 1);
    dfn_fmt_safe(msg, len, safe, len * 4 + 1);
    fprintf(out, "dfnav: %s\n", safe);
    free(msg);
    free(safe);
}

void dfn_warn_lines(FILE *out, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, "\n");
        dfn_warnf(out, "%.*s", (int)len, text);
        text += len + (text[len] == '\n');
    }
}

/* The raw text of one cell; grows to any name length. */
typedef struct { char *text; size_t len, cap; bool is_num, inf; } cell;   /* inf: JSON has no such number */

static void cell_set(cell *c, const char *s, size_t len, bool num)
{
    dfn_grow((void **)&c->text, &c->cap, len + 1, 1);
    memcpy(c->text, s, len);
    c->text[len] = 0;
    c->len = len;
    c->is_num = num;
    c->inf = false;
}

/* The argument columns of a table of calls: every name the calls have,
 * by name, and each name's string id in each run's store. */
typedef struct {
    char **names; size_t n;
    uint32_t **key;           /* [run][column] */
    bool calls;               /* some run has aggregated records: a calls column */
} event_keys;

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A merged call's argument names (arg NULL: see dfn_evrow_fields) into
 * the set seen, and names. */
typedef struct { dfn_strtab *seen; event_keys *ek; size_t cap; } names_of;

static void name_take(void *ctx, const dfn_arg *arg, const char *name, size_t nlen, const char *text, size_t len,
                      bool num)
{
    (void)arg; (void)text; (void)len; (void)num;
    names_of *x = ctx;
    if (!name || dfn_strtab_find(x->seen, name, nlen) != DFN_NOID) return;
    dfn_strtab_intern(x->seen, name, nlen);
    dfn_grow((void **)&x->ek->names, &x->cap, x->ek->n + 1, sizeof *x->ek->names);
    x->ek->names[x->ek->n++] = dfn_xstrndup(name, nlen);
}

static void event_keys_of(const dfn_compare *c, event_keys *ek)
{
    memset(ek, 0, sizeof *ek);
    bool any = false;
    for (size_t k = 0; k < c->nruns; k++)
        for (size_t d = 0; d < c->res[k]->ndims; d++) any |= c->res[k]->dims[d].kind == DFN_DIM_EVENT;
    if (!any) return;
    names_of x = { dfn_strtab_new(), ek, 0 };
    dfn_arg args[DFN_ARGS_MAX];
    for (size_t row = 0; row < c->nrows; row++) {
        size_t rep;
        uint32_t rr = dfn_compare_rep_row(c, row, &rep);
        const dfn_result *r = c->res[rep];
        if (dfn_evrows_merged(r)) {   /* calls of shares: their names travel with them */
            ek->calls |= r->merged_agg;
            (void)dfn_evrow_fields(r, rr, false, name_take, &x);
            continue;
        }
        const dfn_store *s = r->store;
        ek->calls |= s->cnt.v != NULL;
        for (size_t d = 0; d < r->ndims; d++) {
            if (r->dims[d].kind != DFN_DIM_EVENT) continue;
            size_t na = dfn_store_args(s, dfn_result_key(r, rr, d)->id, args, DFN_ARGS_MAX);
            for (size_t a = 0; a < na && a < DFN_ARGS_MAX; a++)
                name_take(&x, NULL, dfn_store_str(s, args[a].key), dfn_strtab_len(s->strs, args[a].key), NULL, 0, false);
        }
    }
    dfn_strtab_free(x.seen);
    if (ek->n) qsort(ek->names, ek->n, sizeof *ek->names, cmp_name);
    ek->key = dfn_xcalloc(c->nruns, sizeof *ek->key);
    for (size_t k = 0; k < c->nruns; k++) {
        ek->key[k] = dfn_xcalloc(ek->n ? ek->n : 1, sizeof **ek->key);
        for (size_t j = 0; j < ek->n; j++)
            ek->key[k][j] = c->res[k]->store ? dfn_strtab_find(c->res[k]->store->strs, ek->names[j], strlen(ek->names[j]))
                                             : DFN_NOID;
    }
}

static void event_keys_free(event_keys *ek, size_t nruns)
{
    for (size_t j = 0; j < ek->n; j++) free(ek->names[j]);
    for (size_t k = 0; ek->key && k < nruns; k++) free(ek->key[k]);
    free(ek->names);
    free(ek->key);
}

void dfn_call_fields(const dfn_store *s, size_t i, bool calls, dfn_call_field_fn fn, void *ctx)
{
    char buf[4096];
    const dfn_kind *k = &s->kinds[dfn_store_kind(s, i)];
    const dfn_lane *ln = &s->lanes[dfn_store_lane(s, i)];
    int l = snprintf(buf, sizeof buf, "%.6f", dfn_store_ts(s, i) / 1e6);
    fn(ctx, NULL, NULL, 0, buf, (size_t)l, true);
    l = snprintf(buf, sizeof buf, "%" PRIu64, dfn_store_dur(s, i));
    fn(ctx, NULL, NULL, 0, buf, (size_t)l, true);
    fn(ctx, NULL, NULL, 0, dfn_store_str(s, ln->name), dfn_strtab_len(s->strs, ln->name), false);
    fn(ctx, NULL, NULL, 0, dfn_store_str(s, ln->rank), dfn_strtab_len(s->strs, ln->rank), true);
    fn(ctx, NULL, NULL, 0, dfn_store_str(s, k->cat), dfn_strtab_len(s->strs, k->cat), false);
    fn(ctx, NULL, NULL, 0, dfn_store_str(s, k->func), dfn_strtab_len(s->strs, k->func), false);
    uint32_t path = s->files[dfn_store_file(s, i)].path;
    fn(ctx, NULL, NULL, 0, dfn_store_str(s, path), dfn_strtab_len(s->strs, path), false);
    l = snprintf(buf, sizeof buf, "%" PRIu64, dfn_store_bytes(s, i));
    fn(ctx, NULL, NULL, 0, buf, (size_t)l, true);
    if (calls) {
        l = snprintf(buf, sizeof buf, "%" PRIu64, dfn_store_calls(s, i));
        fn(ctx, NULL, NULL, 0, buf, (size_t)l, true);
    }
    dfn_arg args[DFN_ARGS_MAX];
    size_t na = dfn_store_args(s, i, args, DFN_ARGS_MAX);
    for (size_t a = 0; a < na && a < DFN_ARGS_MAX; a++) {
        size_t vl = dfn_arg_text(s, &args[a], buf, sizeof buf);
        fn(ctx, &args[a], dfn_store_str(s, args[a].key), dfn_strtab_len(s->strs, args[a].key), buf, vl,
           args[a].type == DFN_ARG_INT || args[a].type == DFN_ARG_UINT);
    }
}

/* Where a call's fields go: its own in turn, each argument into its
 * column (a store's by string id, a merged call's by name); the last of
 * one name wins. */
typedef struct { cell *cells; size_t n, own; const event_keys *ek; size_t run; } placer;

static void field_place(void *ctx, const dfn_arg *arg, const char *name, size_t nlen, const char *text, size_t len,
                        bool num)
{
    placer *p = ctx;
    if (!name) {
        cell_set(&p->cells[p->n++], text, len, num);
        return;
    }
    for (size_t j = 0; j < p->ek->n; j++) {
        const char *cn = p->ek->names[j];
        if (arg ? p->ek->key[p->run][j] != arg->key : strlen(cn) != nlen || memcmp(cn, name, nlen) != 0) continue;
        cell_set(&p->cells[p->own + j], text, len, num);
        break;
    }
}

/* A call's cells: its own fields, then its arguments (ek's columns, blank
 * where it has none); row: of r, whose rows are calls. */
static size_t call_cells(const dfn_result *r, size_t row, size_t i, cell *cells, const event_keys *ek, size_t run)
{
    placer p = { cells, 0, NEVENT_COLS + (ek->calls ? 1 : 0), ek, run };
    for (size_t j = 0; j < ek->n; j++) cell_set(&cells[p.own + j], "", 0, false);
    if (dfn_evrows_merged(r)) {
        /* (bytes the merge checked: a damaged row's fields stop early) */
        if (!dfn_evrow_fields(r, row, ek->calls, field_place, &p))
            while (p.n < p.own) cell_set(&cells[p.n++], "", 0, false);
    } else {
        dfn_call_fields(r->store, i, ek->calls, field_place, &p);
    }
    return p.own + ek->n;
}

/* The key columns of row of r (an event expands to several). */
static size_t key_cells(const dfn_result *r, size_t row, cell *cells, const event_keys *ek, size_t run)
{
    const dfn_store *s = r->store;
    size_t n = 0;
    char buf[4096];
    for (size_t d = 0; d < r->ndims; d++) {
        if (r->dims[d].kind == DFN_DIM_PATH) {   /* whole, however long */
            size_t l;
            char *t = dfn_result_key_dup(r, row, d, &l);
            cell_set(&cells[n++], t, l, false);
            free(t);
            continue;
        }
        if (r->dims[d].kind != DFN_DIM_EVENT) {
            size_t l;
            const char *t = dfn_result_key_str(s, r, row, d, buf, sizeof buf, &l);
            /* a pid or tid given as a name is text: JSON quotes it */
            dfn_dimkind k = r->dims[d].kind;
            bool num = k == DFN_DIM_TIME ||
                       ((k == DFN_DIM_PID || k == DFN_DIM_TID) && !dfn_id_named(r->ints[dfn_result_key(r, row, d)->id]));
            cell_set(&cells[n++], t, l, num);
            continue;
        }
        size_t i = dfn_result_key(r, row, d)->id;
        n += call_cells(r, row, i, cells + n, ek, run);
    }
    return n;
}

static bool metric_is_secs(int m)
{
    return m == DFN_M_TIME_S || m == DFN_M_BUSY_S || m == DFN_M_MAX_PROC_S || m == DFN_M_COMPUTE_S ||
           m == DFN_M_IO_BUSY_S || m == DFN_M_EXPOSED_S || m == DFN_M_SELF_S || m == DFN_M_MIN_PROC_S ||
           m == DFN_M_MEAN_PROC_S || m == DFN_M_STD_PROC_S || m == DFN_M_IDLE_S;
}

/* A value of metric m: full precision for machines, units for people;
 * undefined (a share of nothing, a run without the row) is empty, "-" for
 * people. A ratio (col DFN_CMP_RATIO) is a plain number. */
static void value_cell(cell *c, int m, int col, double v, bool human)
{
    char buf[64];
    if (isnan(v)) snprintf(buf, sizeof buf, "%s", human ? "-" : "");
    else if (isinf(v)) snprintf(buf, sizeof buf, "%s", v > 0 ? "inf" : "-inf");
    else if (col == DFN_CMP_RATIO) {
        if (human) snprintf(buf, sizeof buf, "%.3g", v);
        else dfn_fmt_double(v, buf, sizeof buf);
    } else if (!human) {
        if (metric_is_secs(m)) dfn_fmt_secs6(v, buf, sizeof buf);
        else dfn_fmt_double(v, buf, sizeof buf);
    } else if (m == DFN_M_BYTES || m == DFN_M_MAX_PROC_BYTES || m == DFN_M_MEAN_PROC_BYTES || m == DFN_M_SIZE_MEAN ||
               m == DFN_M_SIZE_P50 || m == DFN_M_SIZE_MIN || m == DFN_M_SIZE_MAX) {
        if (v < 0) { buf[0] = '-'; dfn_fmt_bytes(-v, buf + 1, sizeof buf - 1); }
        else dfn_fmt_bytes(v, buf, sizeof buf);
    } else if (metric_is_secs(m)) {
        snprintf(buf, sizeof buf, "%.3f", v);
    } else if (m >= DFN_M_COUNT_) {
        /* a counter's mean, in its own unit: whole when large (kB of memory) */
        snprintf(buf, sizeof buf, fabs(v) >= 1e4 ? "%.0f" : "%.4g", v);
    } else if (m == DFN_M_COUNT || m == DFN_M_FILES || m == DFN_M_PROCS || m == DFN_M_MAX_US || m == DFN_M_SHARED_FILES ||
               m == DFN_M_AGG_CALLS || m == DFN_M_ACTIVE) {
        snprintf(buf, sizeof buf, "%.0f", v);
    } else {
        snprintf(buf, sizeof buf, "%.1f", v);
    }
    cell_set(c, buf, strlen(buf), true);
    c->inf = isinf(v);
}

/* Metric m of row of r (absent: row DFN_CMP_ABSENT). */
static void metric_cell(cell *c, const dfn_result *r, uint32_t row, int m, bool human)
{
    char *text = row == DFN_CMP_ABSENT ? NULL : dfn_result_metric_dup(r, row, (dfn_metric)m);
    if (text) cell_set(c, text, strlen(text), false), free(text);
    else if (m == DFN_M_MAX_PROC) cell_set(c, "", 0, true);   /* none: empty, null in JSON */
    else value_cell(c, m, 0, row == DFN_CMP_ABSENT ? NAN : dfn_result_metric(r, row, (dfn_metric)m), human);
}

static void sizes_cell(cell *c, const dfn_result *r, uint32_t row, int b)
{
    char buf[32];
    if (row == DFN_CMP_ABSENT) { cell_set(c, "", 0, true); return; }
    int l = snprintf(buf, sizeof buf, "%" PRIu64, r->events ? 0 : r->sizes[row * DFN_SIZEBIN_COUNT + (size_t)b]);
    cell_set(c, buf, (size_t)l, true);
}

/* Whether text is a plain decimal number ("-3", "+2.5e3"): a spreadsheet
 * reads it as the number it is, never as a formula. */
static bool csv_is_number(const char *s, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (!digits) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = ++i;
        if (i < len && (s[i] == '-' || s[i] == '+')) i++, e++;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e) return false;
    }
    return i == len;
}

bool dfn_csv_formula(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i] == '\'') i++;
    if (i == len) return false;
    char c = s[i];
    if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
    /* after apostrophes always: one more keeps the escape reversible */
    return i > 0 || !csv_is_number(s, len);
}

static int csv_field_raw(FILE *out, const char *s, size_t len)
{
    bool quote = false;
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r' || (i == 0 && (s[i] == ' ' || s[i] == '\t')) ||
                (i == len - 1 && (s[i] == ' ' || s[i] == '\t'));
    if (quote) return csv_fwrite(out, s, len) == 0 ? 0 : -1;
    return fwrite(s, 1, len, out) == len || len == 0 ? 0 : -1;
}

int dfn_csv_field(FILE *out, const char *s, size_t len)
{
    if (!dfn_csv_formula(s, len)) return csv_field_raw(out, s, len);
    /* a leading apostrophe: spreadsheets show the rest as text */
    char *t = dfn_xmalloc(len + 1);
    t[0] = '\'';
    memcpy(t + 1, s, len);
    int rc = csv_field_raw(out, t, len + 1);
    free(t);
    return rc;
}

int dfn_csv_number(FILE *out, const char *s, size_t len)
{
    return csv_field_raw(out, s, len);
}

/* A cell: figures dfnav computed are numbers; only text from traces is guarded. */
static int csv_cell(FILE *out, const cell *c)
{
    return c->is_num ? dfn_csv_number(out, c->text, c->len) : dfn_csv_field(out, c->text, c->len);
}

/* A JSON string literal: quotes, backslashes and control bytes escaped;
 * checked, also DEL and every byte of invalid UTF-8 (or a C1 control),
 * which unchecked pass as they are. Runs of plain bytes go out whole. */
static void json_quoted(FILE *out, const char *s, size_t len, bool checked)
{
    static const char hex[] = "0123456789abcdef";
    fputc('"', out);
    size_t from = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t n = 1;
        bool esc = c == '"' || c == '\\' || c < 0x20;
        if (checked && !esc && (c == 0x7f || (c >= 0x80 && !(n = dfn_utf8_len((const unsigned char *)s + i, len - i)))))
            esc = true, n = 1;
        if (!esc) { i += n; continue; }
        fwrite(s + from, 1, i - from, out);
        if (c == '"' || c == '\\') { fputc('\\', out); fputc(c, out); }
        else fprintf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        from = ++i;
    }
    fwrite(s + from, 1, len - from, out);
    fputc('"', out);
}

void dfn_json_bytes(FILE *out, const char *s, size_t len) { json_quoted(out, s, len, false); }

void dfn_json_string(FILE *out, const char *s, size_t len) { json_quoted(out, s, len, true); }

/* ---- tables ---- */

static bool cancelled(atomic_bool *cancel)
{
    return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* A comparison's columns: keys (calls of several runs first say whose),
 * then each metric once per run and, for two runs, the difference and
 * ratio; then the size bins per run. One run gives plain names. */
typedef struct {
    char *name;
    bool right;               /* numbers: right-aligned in the table */
    int metric, col;          /* metric columns: which and whose; -1 for keys */
    int bin;                  /* size-bin columns: which bin, else -1 */
} column;
typedef struct {
    column *v;
    size_t n, cap, nkeys;
} columns;

static void columns_add(columns *t, char *name, bool right, int metric, int col, int bin)
{
    dfn_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v);
    t->v[t->n++] = (column){ name, right, metric, col, bin };
}

static void columns_of(const dfn_compare *c, const event_keys *ek, columns *t)
{
    memset(t, 0, sizeof *t);
    const dfn_result *r = c->res[0];
    bool events = c->calls, per_run = c->labels && !events;
    if (c->labels && events) columns_add(t, dfn_xstrdup("run"), false, -1, 0, -1);
    for (size_t d = 0; d < r->ndims; d++) {
        if (r->dims[d].kind == DFN_DIM_EVENT) {
            for (size_t k = 0; k < NEVENT_COLS; k++) columns_add(t, dfn_xstrdup(event_cols[k]), false, -1, 0, -1);
            if (ek->calls) columns_add(t, dfn_xstrdup("calls"), false, -1, 0, -1);
            for (size_t j = 0; j < ek->n; j++) columns_add(t, dfn_xasprintf("arg.%s", ek->names[j]), false, -1, 0, -1);
        } else {
            char buf[128];
            columns_add(t, dfn_xstrdup(dfn_dim_name(&r->dims[d], buf, sizeof buf)), false, -1, 0, -1);
        }
    }
    t->nkeys = t->n;
    /* a row of calls alone is one call: group figures (count, busy,
     * percentiles) would say nothing its own fields do not */
    if (r->ndims == 1 && r->dims[0].kind == DFN_DIM_EVENT) return;
    for (int m = 0; m < DFN_M_COUNT_; m++) {
        if (!(r->metrics & DFN_M_BIT(m))) continue;
        const char *name = dfn_metric_name((dfn_metric)m);
        bool num = m != DFN_M_MAX_PROC;
        if (!per_run) { columns_add(t, dfn_xstrdup(name), num, m, 0, -1); continue; }
        for (size_t k = 0; k < c->nruns; k++)
            columns_add(t, dfn_xasprintf("%s@%s", name, c->labels[k]), num, m, (int)k, -1);
        if (c->nruns == 2 && num) {
            columns_add(t, dfn_xasprintf("%s@diff", name), true, m, DFN_CMP_DIFF, -1);
            columns_add(t, dfn_xasprintf("%s@ratio", name), true, m, DFN_CMP_RATIO, -1);
        }
    }
    /* counter metrics (ctr.SERIES): ids past the metrics */
    for (size_t k = 0; k < r->nctrs; k++) {
        int m = DFN_M_COUNT_ + (int)k;
        const char *name = dfn_result_metric_name(r, m);
        if (!per_run) { columns_add(t, dfn_xstrdup(name), true, m, 0, -1); continue; }
        for (size_t j = 0; j < c->nruns; j++)
            columns_add(t, dfn_xasprintf("%s@%s", name, c->labels[j]), true, m, (int)j, -1);
        if (c->nruns == 2) {
            columns_add(t, dfn_xasprintf("%s@diff", name), true, m, DFN_CMP_DIFF, -1);
            columns_add(t, dfn_xasprintf("%s@ratio", name), true, m, DFN_CMP_RATIO, -1);
        }
    }
    for (int b = 0; r->sizes && b < DFN_SIZEBIN_COUNT; b++) {
        if (!per_run) { columns_add(t, dfn_xstrdup(size_cols[b]), true, -1, 0, b); continue; }
        for (size_t k = 0; k < c->nruns; k++)
            columns_add(t, dfn_xasprintf("%s@%s", size_cols[b], c->labels[k]), true, -1, (int)k, b);
    }
}

static void columns_free(columns *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i].name);
    free(t->v);
}

static void row_cells(const dfn_compare *c, const columns *t, size_t row, cell *cells, bool human, const event_keys *ek)
{
    size_t rep, n = 0;
    uint32_t rrow = dfn_compare_rep_row(c, row, &rep);
    const dfn_result *rr = c->res[rep];
    if (c->labels && c->calls) cell_set(&cells[n++], c->labels[rep], strlen(c->labels[rep]), false);
    n += key_cells(rr, rrow, cells + n, ek, rep);
    bool per_run = c->labels && !c->calls;
    for (size_t i = t->nkeys; i < t->n; i++) {
        const column *tc = &t->v[i];
        int col = per_run ? tc->col : (int)rep;
        if (tc->bin >= 0) {
            sizes_cell(&cells[i], c->res[col], c->row[row * c->nruns + (size_t)col], tc->bin);
        } else if (col < 0) {
            value_cell(&cells[i], tc->metric, col, dfn_compare_value(c, row, col, (dfn_metric)tc->metric), human);
        } else {
            metric_cell(&cells[i], c->res[col], c->row[row * c->nruns + (size_t)col], tc->metric, human);
        }
    }
}

/* Stops between rows once *cancel is set (NULL: never), failing with
 * ECANCELED. */
static int compare_write(FILE *out, const dfn_compare *c, dfn_format fmt, atomic_bool *cancel)
{
    if (fmt == DFN_FMT_CHROME) {
        if (c->calls) return dfn_chrome_write(out, c, cancel);
        errno = EINVAL;   /* a trace holds calls, not grouped rows */
        return -1;
    }
    bool stopped = false;
    columns t;
    event_keys eks;
    event_keys_of(c, &eks);
    const event_keys *ek = &eks;
    columns_of(c, ek, &t);
    size_t ncol = t.n;
    cell *cells = dfn_xcalloc(ncol ? ncol : 1, sizeof *cells);
    if (fmt == DFN_FMT_CSV) {
        for (size_t i = 0; i < ncol; i++) {
            if (i) fputc(',', out);
            dfn_csv_field(out, t.v[i].name, strlen(t.v[i].name));
        }
        fputs("\r\n", out);
        for (size_t row = 0; row < c->nrows; row++) {
            row_cells(c, &t, row, cells, false, ek);
            for (size_t i = 0; i < ncol; i++) {
                if (i) fputc(',', out);
                csv_cell(out, &cells[i]);
            }
            fputs("\r\n", out);
            if (ferror(out) || (stopped = cancelled(cancel))) break;
        }
    } else if (fmt == DFN_FMT_JSON) {
        fputs("[", out);
        for (size_t row = 0; row < c->nrows; row++) {
            row_cells(c, &t, row, cells, false, ek);
            fputs(row ? ",\n {" : "\n {", out);
            for (size_t i = 0; i < ncol; i++) {
                if (i) fputs(", ", out);
                dfn_json_string(out, t.v[i].name, strlen(t.v[i].name));
                fputs(": ", out);
                /* JSON has no infinity: an unbounded ratio is null too */
                bool bad = cells[i].is_num && (!cells[i].len || cells[i].inf);
                if (bad) fputs("null", out);
                else if (cells[i].is_num) fwrite(cells[i].text, 1, cells[i].len, out);
                else dfn_json_string(out, cells[i].text, cells[i].len);
            }
            fputs("}", out);
            if (ferror(out) || (stopped = cancelled(cancel))) break;
        }
        fputs(c->nrows ? "\n]\n" : "]\n", out);
    } else {
        /* two passes: widths, then rows; names escaped for the terminal */
        size_t *w = dfn_xcalloc(ncol ? ncol : 1, sizeof *w);
        char *safe = NULL;
        size_t safecap = 0;
        for (size_t i = 0; i < ncol; i++) w[i] = strlen(t.v[i].name);
        for (size_t row = 0; row < c->nrows; row++) {
            row_cells(c, &t, row, cells, true, ek);
            for (size_t i = 0; i < ncol; i++) {
                dfn_grow((void **)&safe, &safecap, cells[i].len * 4 + 1, 1);
                size_t l = dfn_text_width(safe, dfn_fmt_safe(cells[i].text, cells[i].len, safe, safecap));
                if (l > w[i]) w[i] = l;
            }
        }
        for (size_t i = 0; i < ncol; i++)
            fprintf(out, i ? "  %*s" : "%*s", t.v[i].right ? (int)w[i] : -(int)w[i], t.v[i].name);
        fputc('\n', out);
        for (size_t row = 0; row < c->nrows; row++) {
            row_cells(c, &t, row, cells, true, ek);
            for (size_t i = 0; i < ncol; i++) {
                dfn_grow((void **)&safe, &safecap, cells[i].len * 4 + 1, 1);
                size_t l = dfn_fmt_safe(cells[i].text, cells[i].len, safe, safecap);
                if (i) fputs("  ", out);
                dfn_write_padded(out, safe, l, w[i], cells[i].is_num);
            }
            fputc('\n', out);
            if (ferror(out) || (stopped = cancelled(cancel))) break;
        }
        free(w);
        free(safe);
    }
    for (size_t i = 0; i < ncol; i++) free(cells[i].text);
    free(cells);
    event_keys_free(&eks, c->nruns);
    columns_free(&t);
    fflush(out);
    if (stopped) {
        errno = ECANCELED;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}

int dfn_compare_write(FILE *out, const dfn_compare *c, dfn_format fmt)
{
    return compare_write(out, c, fmt, NULL);
}

/* The directory part of path, for messages: "." for a bare name. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return dfn_xstrdup(".");
    if (slash == path) return dfn_xstrdup("/");
    return dfn_xstrndup(path, (size_t)(slash - path));
}

int dfn_save_open(dfn_save *s, const char *path, bool overwrite, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    atomic_init(&s->cancel, false);
    struct stat st;
    /* the name itself: a symbolic link, dangling or not, is a name that
     * exists, and rename replaces the link rather than write through it */
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s is %s", path, S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
            return -1;
        }
        if (!overwrite) {
            snprintf(err, errlen, "%s exists", path);
            return -1;
        }
    }
    s->tmp = dfn_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(s->tmp);
    if (fd < 0) {
        char *dir = dir_of(path);
        snprintf(err, errlen, "%s: cannot create a file in %s: %s", path, dir, strerror(errno));
        free(dir);
        free(s->tmp);
        s->tmp = NULL;
        return -1;
    }
    fchmod(fd, 0644);   /* mkstemp's 0600 would hide an export from its readers */
    s->f = fdopen(fd, "w");
    if (!s->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(s->tmp);
        free(s->tmp);
        s->tmp = NULL;
        return -1;
    }
    s->path = dfn_xstrdup(path);
    s->overwrite = overwrite;
    return 0;
}

int dfn_save_write(dfn_save *s, const dfn_compare *c, dfn_format fmt, char *err, size_t errlen)
{
    if (compare_write(s->f, c, fmt, &s->cancel) == 0) return 0;
    snprintf(err, errlen, "%s: %s", s->path, errno == ECANCELED ? "cancelled" : strerror(errno));
    return -1;
}

int dfn_save_close(dfn_save *s, int rc, char *err, size_t errlen)
{
    int saved = 0;
    /* a full disk may only show when the last blocks reach it */
    if (rc == 0 && (fflush(s->f) != 0 || fsync(fileno(s->f)) != 0)) { rc = -1; saved = errno; }
    if (fclose(s->f) != 0 && rc == 0) { rc = -1; saved = errno; }
    s->f = NULL;
    if (rc == 0 && !s->overwrite) {
        /* link fails if the name appeared meanwhile: never clobber */
        if (link(s->tmp, s->path) != 0) { rc = -1; saved = errno; }
        unlink(s->tmp);
    } else if (rc == 0) {
        if (rename(s->tmp, s->path) != 0) { rc = -1; saved = errno; unlink(s->tmp); }
    } else {
        unlink(s->tmp);
    }
    if (saved) snprintf(err, errlen, "%s: %s", s->path, strerror(saved));
    free(s->tmp);
    free(s->path);
    s->tmp = s->path = NULL;
    return rc;
}

/* ---- counters ---- */

/* Key k of a counter row, whatever its length (key_text truncates: the
 * buffer grows until the whole name fits). A pid given as a name is text. */
static void crow_key_cell(cell *c, const dfn_store *s, const dfn_cresult *r, const dfn_crow *row, size_t k)
{
    size_t len, need = 256;
    do {
        dfn_grow((void **)&c->text, &c->cap, need, 1);
        len = dfn_crow_key_text(s, r, row, k, c->text, c->cap);
        need = c->cap * 2;
    } while (len + 1 >= c->cap);
    c->len = len;
    c->is_num = r->dims[k] == DFN_CDIM_TIME || (r->dims[k] == DFN_CDIM_PID && !dfn_id_named((int64_t)row->key[k]));
    c->inf = false;
}

/* The cells of one counter row: keys, then samples, mean, min, max; for
 * people, names with control bytes made visible and the mean rounded. */
static void crow_cells(const dfn_store *s, const dfn_cresult *r, const dfn_crow *row, bool people, cell *cells)
{
    char *safe = NULL;
    size_t safecap = 0;
    for (size_t k = 0; k < r->ndims; k++) {
        crow_key_cell(&cells[k], s, r, row, k);
        if (!people) continue;
        dfn_grow((void **)&safe, &safecap, cells[k].len * 4 + 1, 1);
        size_t l = dfn_fmt_safe(cells[k].text, cells[k].len, safe, safecap);
        cell_set(&cells[k], safe, l, cells[k].is_num);
    }
    free(safe);
    char buf[64];
    int l = snprintf(buf, sizeof buf, "%" PRIu64, row->samples);
    cell_set(&cells[r->ndims], buf, (size_t)l, true);
    double v[3] = { row->samples ? row->sum / (double)row->samples : 0, row->min, row->max };
    for (size_t k = 0; k < 3; k++) {
        if (people && k == 0) snprintf(buf, sizeof buf, "%.3f", v[0]);
        else dfn_fmt_double(v[k], buf, sizeof buf);
        cell *c = &cells[r->ndims + 1 + k];
        cell_set(c, buf, strlen(buf), true);
        c->inf = !isfinite(v[k]);   /* a sum of huge samples overflows: JSON has no inf */
    }
}

static void counters_csv(FILE *out, const char *const *head, size_t nc, const cell *cells, size_t nrows)
{
    for (size_t k = 0; k < nc; k++) fprintf(out, "%s%s", k ? "," : "", head[k]);
    fputs("\r\n", out);
    for (size_t i = 0; i < nrows; i++) {
        for (size_t k = 0; k < nc; k++) {
            if (k) fputc(',', out);
            csv_cell(out, &cells[i * nc + k]);
        }
        fputs("\r\n", out);
    }
}

static void counters_json(FILE *out, const char *const *head, size_t nc, const cell *cells, size_t nrows)
{
    fputs("[", out);
    for (size_t i = 0; i < nrows; i++) {
        fputs(i ? ",\n {" : "\n {", out);
        for (size_t k = 0; k < nc; k++) {
            const cell *c = &cells[i * nc + k];
            fprintf(out, "%s\"%s\": ", k ? ", " : "", head[k]);
            if (!c->is_num) dfn_json_string(out, c->text, c->len);
            else if (c->inf) fputs("null", out);
            else fwrite(c->text, 1, c->len, out);
        }
        fputs("}", out);
    }
    fputs(nrows ? "\n]\n" : "]\n", out);
}

static void counters_table(FILE *out, const dfn_cresult *r, const char *const *head, size_t nc, const cell *cells)
{
    size_t w[DFN_CDIMS_MAX + 4];
    for (size_t k = 0; k < nc; k++) w[k] = strlen(head[k]);
    for (size_t i = 0; i < r->nrows; i++)
        for (size_t k = 0; k < nc; k++) {
            size_t cw = dfn_text_width(cells[i * nc + k].text, cells[i * nc + k].len);
            if (cw > w[k]) w[k] = cw;
        }
    for (size_t k = 0; k < nc; k++)
        fprintf(out, k ? "  %*s" : "%*s", k < r->ndims && r->dims[k] != DFN_CDIM_TIME ? -(int)w[k] : (int)w[k], head[k]);
    fputc('\n', out);
    for (size_t i = 0; i < r->nrows; i++) {
        for (size_t k = 0; k < nc; k++) {
            if (k) fputs("  ", out);
            dfn_write_padded(out, cells[i * nc + k].text, cells[i * nc + k].len, w[k],
                             !(k < r->ndims && r->dims[k] != DFN_CDIM_TIME));
        }
        fputc('\n', out);
    }
    if (!r->nrows) fputs("(no counter samples)\n", out);
}

int dfn_counters_write(FILE *out, const dfn_store *s, const dfn_cresult *r, dfn_format fmt)
{
    static const char *const tail[] = { "samples", "mean", "min", "max" };
    size_t nc = r->ndims + 4;
    const char *head[DFN_CDIMS_MAX + 4];
    for (size_t k = 0; k < nc; k++) head[k] = k < r->ndims ? dfn_cdim_name(r->dims[k]) : tail[k - r->ndims];
    cell *cells = dfn_xcalloc((r->nrows + 1) * nc, sizeof *cells);
    for (size_t i = 0; i < r->nrows; i++) crow_cells(s, r, &r->rows[i], fmt == DFN_FMT_TABLE, cells + i * nc);
    if (fmt == DFN_FMT_CSV) counters_csv(out, head, nc, cells, r->nrows);
    else if (fmt == DFN_FMT_JSON) counters_json(out, head, nc, cells, r->nrows);
    else counters_table(out, r, head, nc, cells);
    for (size_t i = 0; i < r->nrows * nc; i++) free(cells[i].text);
    free(cells);
    return ferror(out) ? -1 : 0;
}
