/* What other tools read from dfnav: the JSON validity check that decides
 * whether an argument's raw text may pass into a Chrome trace, the CSV
 * cells a spreadsheet would run as formulas, JSON strings that keep a
 * trace's bytes for subsets, and gzip streams that gzip reads back. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dfnav/export.h"
#include "dfnav/gzwrite.h"
#include "dfnav/jsonget.h"
#include "testutil.h"

static bool valid(const char *s) { return dfn_json_valid(s, strlen(s)); }

Test(interop, json_valid_accepts_values)
{
    const char *ok[] = { "0", "-1.5e-3", "1E+9", "true", "false", "null", "\"a\\u00e9\\n\"", "[]", "{}",
                         " {\"k\": [1, 2.5, \"x\", {\"n\": null}]} ", "[[[[1]]]]" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) cr_expect(valid(ok[i]), "%s", ok[i]);
}

Test(interop, json_valid_refuses_the_rest)
{
    const char *bad[] = { "", "1.5.5", "01", "-", "1.", ".5", "1e", "tru", "nulls", "NaN", "Infinity", "\"a",
                          "\"\\x\"", "\"\\u12\"", "\"tab\there\"", "[1,]", "{\"k\":}", "{k:1}", "[1 2]", "1 2",
                          "{\"a\":1,}", "[" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) cr_expect(!valid(bad[i]), "%s", bad[i]);
    /* nesting past 256 is refused rather than recursed into */
    char deep[1200];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    cr_expect(!dfn_json_valid(deep, sizeof deep));
    cr_expect(dfn_json_valid(deep + 400, 400));   /* 200 deep */
}

Test(interop, csv_formula_cells)
{
    const char *formula[] = { "=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx", "'=x", "''+x", "-", "+", "-inf",
                              "=", "-1e", "--1" };
    for (size_t i = 0; i < sizeof formula / sizeof formula[0]; i++)
        cr_expect(dfn_csv_formula(formula[i], strlen(formula[i])), "%s", formula[i]);
    const char *text[] = { "", "read", "-5", "+3", "-2.5e-3", "1e9", "'", "''", "'x", "a=b", " =x", "/p/-x" };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        cr_expect(!dfn_csv_formula(text[i], strlen(text[i])), "%s", text[i]);
}

static char *written(void (*fn)(FILE *, const char *, size_t), const char *s, size_t len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fn(f, s, len);
    fclose(f);
    return buf;
}

static void csv_field(FILE *f, const char *s, size_t len) { dfn_csv_field(f, s, len); }

Test(interop, csv_field_guards_and_quotes)
{
    char *t = written(csv_field, "=HYPERLINK(\"x\")", 15);
    cr_expect_str_eq(t, "\"'=HYPERLINK(\"\"x\"\")\"");
    free(t);
    t = written(csv_field, "''=x", 4);
    cr_expect_str_eq(t, "'''=x");
    free(t);
    t = written(csv_field, "-5", 2);
    cr_expect_str_eq(t, "-5");
    free(t);
}

Test(interop, json_bytes_keep_the_trace_bytes)
{
    const char in[] = "a\"b\\c\x01\xff\xc3\xa9";
    char *t = written(dfn_json_bytes, in, sizeof in - 1);
    cr_expect_str_eq(t, "\"a\\\"b\\\\c\\u0001\xff\xc3\xa9\"");
    free(t);
    /* the checked form makes the invalid byte visible instead */
    t = written(dfn_json_string, in, sizeof in - 1);
    cr_expect_str_eq(t, "\"a\\\"b\\\\c\\u0001\\u00ff\xc3\xa9\"");
    free(t);
}

Test(interop, gzip_stream_reads_back)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "out.gz", "", 0);
    int fd = open(path, O_WRONLY | O_TRUNC);
    cr_assert(fd >= 0);
    FILE *raw = fdopen(fd, "w");
    FILE *gz = dfn_gzwrite_open(raw);
    cr_assert(gz);
    /* more than the writer's buffers, in pieces of every size */
    size_t total = 0;
    for (int i = 0; i < 20000; i++) total += (size_t)fprintf(gz, "{\"line\":%d,\"pad\":\"%*s\"}\n", i, i % 97, "");
    cr_assert_eq(fclose(gz), 0);
    cr_assert_eq(fclose(raw), 0);
    gzFile in = gzopen(path, "rb");
    cr_assert(in);
    char *back = malloc(total + 16);
    int got = gzread(in, back, (unsigned)total + 16);
    gzclose(in);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    cr_assert_eq((size_t)got, total);
    char line[256];
    size_t at = 0;
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(line, sizeof line, "{\"line\":%d,\"pad\":\"%*s\"}\n", i, i % 97, "");
        cr_assert_eq(memcmp(back + at, line, (size_t)n), 0, "line %d", i);
        at += (size_t)n;
    }
    free(back);
    cr_expect(strcmp(dfn_gzwrite_backend(), "ISA-L") == 0 || strcmp(dfn_gzwrite_backend(), "zlib") == 0);
}
