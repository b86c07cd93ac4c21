/* `dfnav info`: per input file, what was read (format era, compression,
 * lines, events, metadata, malformed lines, time range), then totals. */
#include "cli.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *cols[] = { "path", "format", "compression", "size_bytes", "lines", "events",
                              "metadata", "malformed", "start_us", "end_us" };
#define NCOLS 10

static void row_values(const dfn_srcinfo *si, char v[NCOLS][32])
{
    snprintf(v[3], 32, "%" PRIu64, si->size_bytes);
    snprintf(v[4], 32, "%" PRIu64, si->lines);
    snprintf(v[5], 32, "%" PRIu64, si->events);
    snprintf(v[6], 32, "%" PRIu64, si->metadata);
    snprintf(v[7], 32, "%" PRIu64, si->malformed);
    snprintf(v[8], 32, "%" PRIu64, si->start_us);
    snprintf(v[9], 32, "%" PRIu64, si->end_us);
}

int cmd_info(const cli_opts *o)
{
    if (o->compare) {
        fprintf(stderr, "dfnav: info lists the files of all PATHs; it compares nothing (drop --compare)\n");
        return 2;
    }
    cli_run run = { .paths = o->paths, .npaths = o->npaths };
    int status = cli_load(o, &run, 1);
    dfn_store *s = run.s;
    if (!s) return status;
    size_t n = s->nsrc;
    dfn_srcinfo total = { .path = "total", .era = "", .compression = "", .start_us = UINT64_MAX };
    for (size_t i = 0; i < n; i++) {
        const dfn_srcinfo *si = &s->src[i];
        total.size_bytes += si->size_bytes;
        total.lines += si->lines;
        total.events += si->events;
        total.metadata += si->metadata;
        total.malformed += si->malformed;
        if (si->events && si->start_us < total.start_us) total.start_us = si->start_us;
        if (si->end_us > total.end_us) total.end_us = si->end_us;
    }
    if (total.start_us == UINT64_MAX) total.start_us = 0;
    char (*v)[NCOLS][32] = dfn_xmalloc((n + 1) * sizeof *v);
    const dfn_srcinfo **rows = dfn_xmalloc((n + 1) * sizeof *rows);
    for (size_t i = 0; i < n; i++) rows[i] = &s->src[i];
    rows[n] = &total;
    for (size_t i = 0; i <= n; i++) row_values(rows[i], v[i]);
    FILE *out = stdout;
    if (o->format == DFN_FMT_CSV) {
        for (int c = 0; c < NCOLS; c++) fprintf(out, "%s%s", c ? "," : "", cols[c]);
        fputs("\r\n", out);
        for (size_t i = 0; i <= n; i++) {
            dfn_csv_field(out, rows[i]->path, strlen(rows[i]->path)); fputc(',', out);
            dfn_csv_field(out, rows[i]->era, strlen(rows[i]->era)); fputc(',', out);
            dfn_csv_field(out, rows[i]->compression, strlen(rows[i]->compression));
            for (int c = 3; c < NCOLS; c++) fprintf(out, ",%s", v[i][c]);
            fputs("\r\n", out);
        }
    } else if (o->format == DFN_FMT_JSON) {
        fputs("[", out);
        for (size_t i = 0; i <= n; i++) {
            fputs(i ? ",\n {" : "\n {", out);
            fputs("\"path\": ", out); dfn_json_string(out, rows[i]->path, strlen(rows[i]->path));
            fputs(", \"format\": ", out); dfn_json_string(out, rows[i]->era, strlen(rows[i]->era));
            fputs(", \"compression\": ", out); dfn_json_string(out, rows[i]->compression, strlen(rows[i]->compression));
            for (int c = 3; c < NCOLS; c++) fprintf(out, ", \"%s\": %s", cols[c], v[i][c]);
            fputs("}", out);
        }
        fputs("\n]\n", out);
    } else {
        size_t w[NCOLS];
        for (int c = 0; c < NCOLS; c++) w[c] = strlen(cols[c]);
        char **safe = dfn_xmalloc((n + 1) * sizeof *safe);
        for (size_t i = 0; i <= n; i++) {
            size_t l = strlen(rows[i]->path);
            safe[i] = dfn_xmalloc(l * 4 + 1);
            size_t sl = dfn_fmt_safe(rows[i]->path, l, safe[i], l * 4 + 1);
            if (sl > w[0]) w[0] = sl;
            if (strlen(rows[i]->era) > w[1]) w[1] = strlen(rows[i]->era);
            for (int c = 3; c < NCOLS; c++) if (strlen(v[i][c]) > w[c]) w[c] = strlen(v[i][c]);
        }
        for (int c = 0; c < NCOLS; c++) fprintf(out, c ? "  %*s" : "%*s", c < 3 ? -(int)w[c] : (int)w[c], cols[c]);
        fputc('\n', out);
        for (size_t i = 0; i <= n; i++) {
            fprintf(out, "%-*s  %-*s  %-*s", (int)w[0], safe[i], (int)w[1], rows[i]->era, (int)w[2], rows[i]->compression);
            for (int c = 3; c < NCOLS; c++) fprintf(out, "  %*s", (int)w[c], v[i][c]);
            fputc('\n', out);
            free(safe[i]);
        }
        free(safe);
    }
    free(v);
    free(rows);
    int wr = cli_write_status(out);
    dfn_store_free(s);
    return wr ? wr : status;
}
