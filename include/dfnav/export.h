/* dfnav export: a query result as an aligned table for people, as CSV
 * (RFC 4180 through libcsv, full-precision values) or as JSON; and safe
 * saving to a file (temporary file renamed into place, never clobbering
 * an existing file unless asked). */
#ifndef DFNAV_EXPORT_H
#define DFNAV_EXPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "dfnav/compare.h"
#include "dfnav/counters.h"
#include "dfnav/query.h"
#include "dfnav/store.h"

/* chrome: Chrome trace-event JSON of calls (chrome.h), for tables of
 * calls only (grouped by event). */
typedef enum { DFN_FMT_TABLE, DFN_FMT_CSV, DFN_FMT_JSON, DFN_FMT_CHROME } dfn_format;

/* One field of a call as report --by event shows it: its text and
 * whether JSON writes it bare (a number). The call's own fields come
 * first, arg and name NULL: start_s, dur_us, proc, rank, cat, func,
 * file, bytes and, when asked, calls (the calls an aggregated record
 * stands for); then each argument by name (arg: the store's, when the
 * fields are a store's). */
typedef void (*dfn_call_field_fn)(void *ctx, const dfn_arg *arg, const char *name, size_t nlen, const char *text,
                                  size_t len, bool num);
/* The fields of call i of s, in that order. */
void dfn_call_fields(const dfn_store *s, size_t i, bool calls, dfn_call_field_fn fn, void *ctx);

/* table, csv, json, or chrome (also perfetto). */
bool dfn_format_parse(const char *s, dfn_format *out);
/* Writes a comparison (a single run's result is a comparison of one):
 * key columns, then each metric, once per run as METRIC@RUN and for two
 * runs METRIC@diff and METRIC@ratio. Returns 0, or -1 with errno set on a
 * write error. */
int dfn_compare_write(FILE *out, const dfn_compare *c, dfn_format fmt);
/* Writes counter rows: counter, the other dimensions, samples, mean, min,
 * max. Returns 0, or -1 with errno set on a write error. */
int dfn_counters_write(FILE *out, const dfn_store *s, const dfn_cresult *r, dfn_format fmt);

/* Saving to a file so that its name never holds half a file: the rows go
 * to PATH.tmp.XXXXXX in the same directory (a rename cannot cross file
 * systems), which is flushed to disk and renamed into place once complete,
 * and removed on any failure. A process killed meanwhile leaves at most
 * that temporary file, never PATH. */
typedef struct {
    char *path, *tmp;
    FILE *f;
    bool overwrite;
    atomic_bool cancel;       /* set from another thread: the write stops and fails */
} dfn_save;

/* Creates the temporary file. Fails with a message naming the file and the
 * reason when PATH exists and overwrite is false, when PATH exists and is
 * not a regular file (a device or directory is never replaced), or when
 * its directory takes no new file. */
int dfn_save_open(dfn_save *s, const char *path, bool overwrite, char *err, size_t errlen);
/* Writes c into the temporary file; 0, or -1 with a message. */
int dfn_save_write(dfn_save *s, const dfn_compare *c, dfn_format fmt, char *err, size_t errlen);
/* rc 0: flushes to disk and renames into place (without overwrite, fails
 * rather than replace a file that appeared meanwhile); otherwise removes
 * the temporary file. Frees what open allocated. 0, or -1 with a message
 * (which keeps an earlier one when rc was already -1). */
int dfn_save_close(dfn_save *s, int rc, char *err, size_t errlen);

/* One CSV text field, quoted (through libcsv) only when RFC 4180 needs
 * it. A field a spreadsheet would run as a formula (dfn_csv_formula) gets
 * a leading apostrophe, which spreadsheets show as text. */
int dfn_csv_field(FILE *out, const char *s, size_t len);
/* A number dfnav wrote itself: never guarded. */
int dfn_csv_number(FILE *out, const char *s, size_t len);
/* Whether a text cell needs the apostrophe: it begins with = + - @ TAB
 * or CR and is not a plain decimal number ("-3" stays as it is), or it
 * is apostrophes followed by one of those (one more apostrophe, so that
 * removing one leading apostrophe from a guarded cell always gives back
 * the raw value). */
bool dfn_csv_formula(const char *s, size_t len);
/* A JSON string literal; control bytes and invalid UTF-8 as \u00XX. */
void dfn_json_string(FILE *out, const char *s, size_t len);
/* A JSON string literal of the bytes as they are: control bytes escaped,
 * every other byte raw, invalid UTF-8 too, so that a reader that took
 * them from a trace reads the same bytes back (trace subsets). */
void dfn_json_bytes(FILE *out, const char *s, size_t len);

/* Human units for people: "1.5 ms", "3.2 GiB". */
void dfn_fmt_us(double us, char *buf, size_t cap);
void dfn_fmt_bytes(double b, char *buf, size_t cap);
/* Shortest text that reads back as the same double. */
void dfn_fmt_double(double v, char *buf, size_t cap);
/* What "%.6f" prints (seconds to the µs), faster for the usual values. */
void dfn_fmt_secs6(double v, char *buf, size_t cap);
/* Copies text making control bytes, DEL and invalid UTF-8 visible as \xNN
 * and characters that reorder or hide text (bidirectional controls,
 * zero-width ones, separators) as \uXXXX, so names from traces never
 * reach a terminal as escapes or read as another name. */
size_t dfn_fmt_safe(const char *s, size_t len, char *buf, size_t cap);
/* Length of the valid UTF-8 sequence at s (len bytes left) that text may
 * carry as it is; 0 for an invalid byte and for the C1 controls
 * (U+0080..U+009F), which terminals take as escapes. */
size_t dfn_utf8_len(const unsigned char *s, size_t len);
/* Columns text takes on a terminal: CJK and most emoji 2, combining marks
 * 0, the rest 1; by a fixed table, so tables line up whatever the locale. */
size_t dfn_text_width(const char *s, size_t len);
/* Writes text padded to width columns (right: spaces first). */
void dfn_write_padded(FILE *out, const char *s, size_t len, size_t width, bool right);
/* Writes "dfnav: " and the formatted message with dfn_fmt_safe's escapes
 * and a newline: paths and reasons from traces reach a terminal as text. */
void dfn_warnf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Each line of text (the last may lack its '\n') as dfn_warnf writes it. */
void dfn_warn_lines(FILE *out, const char *text);

#endif
