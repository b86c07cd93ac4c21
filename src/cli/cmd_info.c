/* `dfnav info`: per input file, what was read (format era, compression,
 * lines, events, metadata, malformed lines, time range, counters, records
 * set aside, aggregated records, time unit), then totals; every record
 * line is one of events, metadata, counters, other or malformed. In text,
 * what needs words follows the table: kinds set aside, the unit's source,
 * the end record's cfg and app. */
#include "cli.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Columns keep their places across versions (scripts read them by
 * position): new ones go last. */
static const char *cols[] = { "path", "format", "compression", "size_bytes", "lines", "events",
                              "metadata", "malformed", "start_us", "end_us", "counters", "other",
                              "agg_records", "agg_calls", "time_unit" };
#define NCOLS 15
#define COL_UNIT 14

static void row_values(const dfn_srcinfo *si, char v[NCOLS][32])
{
    const dfn_srcmore *m = dfn_src_more(si);
    const uint64_t n[] = { si->size_bytes, si->lines - si->skipped, si->events, si->metadata, si->malformed,
                           si->start_us, si->end_us, m->counters, m->other, m->agg_records, m->agg_calls };
    for (int c = 3; c < COL_UNIT; c++) snprintf(v[c], 32, "%" PRIu64, n[c - 3]);
    snprintf(v[COL_UNIT], 32, "%s", dfn_unit_name(si->unit));
}

/* What a file's row cannot say: the kinds set aside, where its time unit
 * came from, its end record's cfg and app. */
static void info_notes(FILE *out, const dfn_srcinfo *si)
{
    char safe[1024];
    const dfn_srcmore *m = dfn_src_more(si);
    dfn_fmt_safe(si->path, strlen(si->path), safe, sizeof safe);
    if (m->other) {
        fprintf(out, "%s: %" PRIu64 " records of kinds not used, by ph:", safe, m->other);
        for (size_t k = 0; k < dfn_phcount_len(m->other_ph); k++)
            fprintf(out, "%s %s: %" PRIu64, k ? "," : "", m->other_ph[k].ph, m->other_ph[k].n);
        fputc('\n', out);
    }
    if (m->agg_records)
        fprintf(out, "%s: %" PRIu64 " aggregated records fold %" PRIu64 " calls\n", safe, m->agg_records, m->agg_calls);
    if (si->unit != DFN_UNIT_US || si->unit_declared)
        fprintf(out, "%s: ts and dur in %s (%s)\n", safe, dfn_unit_name(si->unit),
                si->unit_declared ? "the end record's cfg.time_metric" : "--time-unit");
    if (m->unit_unknown)
        fprintf(out, "%s: an end record's cfg.time_metric is none of US, NS, MS and SEC (not applied)\n", safe);
    char frac[160];
    if (dfn_unit_fractions(si->unit, m->frac_times, frac, sizeof frac)) fprintf(out, "%s: %s\n", safe, frac);
    if (si->unit == DFN_UNIT_NS)
        fprintf(out, "%s: times kept in whole us: rounding each call moved call times by %.3f ms in all, "
                "%" PRIu64 " calls under 0.5 us count 0 s\n", safe, m->ns_rounding / 1e6, m->ns_zeroed);
    const char *obj[] = { m->cfg, m->app }, *what[] = { "cfg", "app" };
    for (int k = 0; k < 2; k++) {
        if (!obj[k]) continue;
        char *t = dfn_xmalloc(strlen(obj[k]) * 4 + 1);
        dfn_fmt_safe(obj[k], strlen(obj[k]), t, strlen(obj[k]) * 4 + 1);
        fprintf(out, "%s: end record %s %s\n", safe, what[k], t);
        free(t);
    }
}

/* Writes the JSON text of an end record's cfg or app object. The parser
 * takes control bytes inside strings as they are, which JSON forbids and a
 * terminal would obey: inside strings they go out as \u00XX (a C1 control
 * as its code point; invalid UTF-8 byte by byte as U+0080..U+00FF, as
 * dfn_json_string does); outside them, such a byte is white space. */
static void info_json_object(FILE *out, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    bool in_str = false, esc = false;
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        size_t n = c < 0x80 ? (c >= 0x20 && c != 0x7f) : dfn_utf8_len(p + i, len - i);
        if (!in_str && !(c < 0x80 && n)) {
            fputc(' ', out);
            i++;
            continue;
        }
        if (!n && c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] < 0xa0) {
            fprintf(out, "\\u00%c%c", hex[p[i + 1] >> 4], hex[p[i + 1] & 15]);
            i += 2;
        } else if (!n) {
            fprintf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            i++;
        } else {
            if (c == '"' && !esc) in_str = !in_str;
            esc = in_str && c == '\\' && !esc;
            fwrite(p + i, 1, n, out);
            i += n;
        }
        if (!n) esc = false;
    }
}

static void info_total(dfn_srcinfo *total, const dfn_srcinfo *si)
{
    total->size_bytes += si->size_bytes;
    total->lines += si->lines;
    total->skipped += si->skipped;
    total->events += si->events;
    total->metadata += si->metadata;
    total->malformed += si->malformed;
    if (si->more) {
        dfn_srcmore *t = dfn_srcinfo_more(total);
        t->counters += si->more->counters;
        t->other += si->more->other;
        t->agg_records += si->more->agg_records;
        t->agg_calls += si->more->agg_calls;
    }
    if (si->events && si->start_us < total->start_us) total->start_us = si->start_us;
    if (si->end_us > total->end_us) total->end_us = si->end_us;
}

/* The names one a line. Names come from traces: made safe, as
 * everything dfnav prints of them. */
void cli_info_names(FILE *out, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        char *t = dfn_xmalloc(l * 4 + 1);
        dfn_fmt_safe(names[i], l, t, l * 4 + 1);
        fprintf(out, "%s\n", t);
        free(t);
    }
}

/* The set of all PATHs as one run, or NULL (its runs freed) with *status. */
static dfn_store *info_load(const cli_opts *o, cli_run **runs, size_t *nruns, int *status)
{
    *status = cli_load(o, runs, nruns);
    dfn_store *s = *runs ? (*runs)[0].set.store : NULL;
    if (!s) cli_runs_free(o, *runs, *nruns);
    return s;
}

int cli_info_layers(const char *layers)
{
    char err[1024];
    dfn_layers l;
    if (!dfn_layers_load(layers, &l, err, sizeof err)) {
        fprintf(stderr, "dfnav: layers: %s\n", err);
        return 2;
    }
    for (size_t k = 0; k <= l.n; k++) {
        const char *name = dfn_layers_name(&l, k);
        cli_info_names(stdout, &name, 1);
    }
    dfn_layers_free(&l);
    return 0;
}

/* info --list args|layers: the names a set has, for scripts and the
 * shell's completion. It loads as every command does, so a set read
 * before comes from the cache. The layers are only loaded, not matched
 * against the events: their names are all it needs. */
static int info_list(const cli_opts *o)
{
    cli_run *runs;
    size_t nruns;
    int status;
    dfn_store *s = info_load(o, &runs, &nruns, &status);
    if (!s) return status;
    char err[1024];
    if (strcmp(o->list, "args") == 0) {
        size_t n;
        dfn_query q = {0};
        char **names = dfn_query_arg_names(s, &q, &n, err, sizeof err);
        if (names) cli_info_names(stdout, (const char *const *)names, n);
        else { fprintf(stderr, "dfnav: %s\n", err); status = 2; }
        for (size_t i = 0; names && i < n; i++) free(names[i]);
        free(names);
    } else if (cli_info_layers(o->layers ? o->layers : dfn_layers_auto(s, NULL))) {
        status = 2;
    }
    int wr = cli_write_status(stdout);
    cli_runs_free(o, runs, nruns);
    return wr ? wr : status;
}

/* Row i's compression: the total row, the last, has none. */
static const char *info_compression(const dfn_srcinfo *const *rows, size_t i, size_t n)
{
    return i + 1 == n ? "" : dfn_src_compression(rows[i]);
}

/* The rows' figures are formatted one row at a time, twice for the table
 * (its widths, then its lines): 20,000 files held them all at 0.5 KB a
 * file, as much as the load's own figures. */
static void info_csv(FILE *out, const dfn_srcinfo *const *rows, size_t n)
{
    for (int c = 0; c < NCOLS; c++) fprintf(out, "%s%s", c ? "," : "", cols[c]);
    fputs("\r\n", out);
    for (size_t i = 0; i < n; i++) {
        char v[NCOLS][32];
        row_values(rows[i], v);
        dfn_csv_field(out, rows[i]->path, strlen(rows[i]->path)); fputc(',', out);
        dfn_csv_field(out, rows[i]->era, strlen(rows[i]->era)); fputc(',', out);
        const char *comp = info_compression(rows, i, n);
        dfn_csv_field(out, comp, strlen(comp));
        for (int c = 3; c < NCOLS; c++) fprintf(out, ",%s", v[c]);
        fputs("\r\n", out);   /* the unit's text is letters only */
    }
}

static void info_json(FILE *out, const dfn_srcinfo *const *rows, size_t n)
{
    fputs("[", out);
    for (size_t i = 0; i < n; i++) {
        char v[NCOLS][32];
        row_values(rows[i], v);
        fputs(i ? ",\n {" : "\n {", out);
        fputs("\"path\": ", out); dfn_json_string(out, rows[i]->path, strlen(rows[i]->path));
        fputs(", \"format\": ", out); dfn_json_string(out, rows[i]->era, strlen(rows[i]->era));
        const char *comp = info_compression(rows, i, n);
        fputs(", \"compression\": ", out); dfn_json_string(out, comp, strlen(comp));
        for (int c = 3; c < COL_UNIT; c++) fprintf(out, ", \"%s\": %s", cols[c], v[c]);
        fprintf(out, ", \"time_unit\": \"%s\", \"time_unit_declared\": %s", v[COL_UNIT],
                rows[i]->unit_declared ? "true" : "false");
        fputs(", \"other_kinds\": {", out);
        const dfn_srcmore *m = dfn_src_more(rows[i]);
        for (size_t k = 0; k < dfn_phcount_len(m->other_ph); k++) {
            fputs(k ? ", " : "", out);
            dfn_json_string(out, m->other_ph[k].ph, strlen(m->other_ph[k].ph));
            fprintf(out, ": %" PRIu64, m->other_ph[k].n);
        }
        fputs("}", out);
        /* the objects as the file gave them, their strings made safe */
        if (m->cfg) { fputs(", \"cfg\": ", out); info_json_object(out, m->cfg); }
        if (m->app) { fputs(", \"app\": ", out); info_json_object(out, m->app); }
        fputs("}", out);
    }
    fputs("\n]\n", out);
}

/* A row's path as the terminal may show it, in *buf (grown); its width. */
static size_t info_safe_path(const dfn_srcinfo *si, char **buf, size_t *cap)
{
    size_t l = strlen(si->path);
    dfn_grow((void **)buf, cap, l * 4 + 1, 1);
    return dfn_text_width(*buf, dfn_fmt_safe(si->path, l, *buf, l * 4 + 1));
}

static void info_table(FILE *out, const dfn_srcinfo *const *rows, size_t n)
{
    size_t w[NCOLS];
    char *safe = NULL, v[NCOLS][32];
    size_t cap = 0;
    for (int c = 0; c < NCOLS; c++) w[c] = strlen(cols[c]);
    for (size_t i = 0; i < n; i++) {
        size_t sl = info_safe_path(rows[i], &safe, &cap);
        if (sl > w[0]) w[0] = sl;
        if (strlen(rows[i]->era) > w[1]) w[1] = strlen(rows[i]->era);
        row_values(rows[i], v);
        for (int c = 3; c < NCOLS; c++) if (strlen(v[c]) > w[c]) w[c] = strlen(v[c]);
    }
    for (int c = 0; c < NCOLS; c++) fprintf(out, c ? "  %*s" : "%*s", c < 3 ? -(int)w[c] : (int)w[c], cols[c]);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        info_safe_path(rows[i], &safe, &cap);
        row_values(rows[i], v);
        dfn_write_padded(out, safe, strlen(safe), w[0], false);
        fprintf(out, "  %-*s  %-*s", (int)w[1], rows[i]->era, (int)w[2], info_compression(rows, i, n));
        for (int c = 3; c < NCOLS; c++) fprintf(out, "  %*s", (int)w[c], v[c]);
        fputc('\n', out);
    }
    free(safe);
    for (size_t i = 0; i + 1 < n; i++) info_notes(out, rows[i]);
}

void cli_info_print(const cli_opts *o, const dfn_store *s)
{
    size_t n = s->nsrc;
    dfn_srcinfo total = { .path = "total", .era = "", .start_us = UINT64_MAX };
    for (size_t i = 0; i < n; i++) info_total(&total, &s->src[i]);
    if (total.start_us == UINT64_MAX) total.start_us = 0;
    const dfn_srcinfo **rows = dfn_xmalloc((n + 1) * sizeof *rows);
    for (size_t i = 0; i < n; i++) rows[i] = &s->src[i];
    rows[n] = &total;
    if (o->format == DFN_FMT_CSV) info_csv(stdout, rows, n + 1);
    else if (o->format == DFN_FMT_JSON) info_json(stdout, rows, n + 1);
    else info_table(stdout, rows, n + 1);
    free(rows);
    dfn_srcinfo_free(&total);
}

int cmd_info(const cli_opts *o)
{
    if (o->compare) {
        fprintf(stderr, "dfnav: info lists the files of all PATHs; it compares nothing (drop --compare)\n");
        return 2;
    }
    int rc;
    /* under MPI each rank reads its share, and rank 0 prints their accounts */
    if (cli_dist_info_wanted(o) && (rc = cli_dist_report(o, CLI_DIST_INFO)) >= 0) return rc;
    if (o->list) return info_list(o);
    cli_run *runs;
    size_t nruns;
    int status;
    dfn_store *s = info_load(o, &runs, &nruns, &status);
    if (!s) return status;
    cli_info_print(o, s);
    int wr = cli_write_status(stdout);
    cli_runs_free(o, runs, nruns);
    return wr ? wr : status;
}
