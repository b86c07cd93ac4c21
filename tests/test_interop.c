/* What other tools read from dfnav: the JSON validity check that decides
 * whether an argument's raw text may pass into a Chrome trace, the CSV
 * cells a spreadsheet would run as formulas, JSON strings that keep a
 * trace's bytes for subsets, and gzip streams that gzip reads back. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
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

/* The shortest text that reads back as v, as dfn_fmt_double printed it
 * before its decimal fast path: %.{6..17}g until strtod gives v back. */
static void fmt_reference(double v, char *buf, size_t cap)
{
    if (v == 0) { snprintf(buf, cap, "0"); return; }
    if (v == floor(v) && fabs(v) < 1e15) { snprintf(buf, cap, "%.0f", v); return; }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static void fmt_same(double v)
{
    char got[64], want[64];
    dfn_fmt_double(v, got, sizeof got);
    fmt_reference(v, want, sizeof want);
    cr_assert_str_eq(got, want, "%.17g", v);
}

Test(interop, fmt_double_as_printf_loop)
{
    static const double fixed[] = { 0.1, 0.2, 0.3, 0.1 + 0.2, 1.5, -1.5, 0.000015, 1e-5, 1.5e-5, 0.0001, 0.00012345,
                                    123456.789, 999999.5, 1234567.25, 1e14 + 0.5, 123456789012.345, 3.14159265358979,
                                    2.0 / 3.0, 16191.5, 49675.25, 7.09375, 0.614488, 1e-15, 9.999999999e-5, -0.000001 };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) fmt_same(fixed[i]);
    /* figures as queries make them: µs as seconds, ratios, means, and
     * decimals of every length and scale */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t n = x % 100000000000ull;
        int k = (int)(x >> 40) % 18;
        double p = pow(10, k);
        fmt_same((double)n / p);
        fmt_same(-(double)(n % 100000) / p);
        fmt_same((double)n / 1e6);
        fmt_same((double)(x >> 20) / (double)((x & 0xffff) + 1));
        double r;
        memcpy(&r, &x, sizeof r);
        if (isfinite(r)) fmt_same(r);
        /* every binade of the exact integer path (2^-7 to 2^53) and past
         * its ends, each mantissa's neighbours, and the binade's lowest
         * mantissa, whose lower neighbour is nearer */
        uint64_t mant = (x >> 11) | ((uint64_t)1 << 52);
        double d = ldexp((double)mant, (int)(x % 70) - 66);
        fmt_same(d);
        fmt_same(nextafter(d, 0));
        fmt_same(nextafter(d, INFINITY));
        fmt_same(ldexp(1.0, (int)(x % 70) - 66));
        /* decimals of 16 and 17 digits and halfway cases: ratios of
         * bytes to seconds as bandwidths print them */
        fmt_same((double)(x % 100000000) / 1048576.0 / ((double)((x >> 30) % 1000000 + 1) / 1e6));
        fmt_same((double)(x % 10000000) + 0.5);
        fmt_same(-((double)(x % 1000000000000) + 0.25));
    }
}

static void secs_same(double v)
{
    char got[64], want[64];
    dfn_fmt_secs6(v, got, sizeof got);
    snprintf(want, sizeof want, "%.6f", v);
    cr_assert_str_eq(got, want, "%.17g", v);
}

Test(interop, fmt_secs6_as_printf)
{
    static const double fixed[] = { 0, -0.0, 1e-9, -1e-9, 0.0000005, 0.0000015, 0.0000025, -0.0000005, 1.5, 1e9, 1e10,
                                    1.0000005, 2.0 / 3.0, -2.0 / 3.0, 1e15, 123456789.1234565, 4.5e-7 };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) secs_same(fixed[i]);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        secs_same((double)(x % 100000000000000ull) / 1e6);      /* µs as seconds */
        secs_same(-(double)(x % 1000000000ull) / 1e6);
        secs_same((double)(x % 10000000ull) / 1e7);               /* ties at the 7th decimal */
        secs_same((double)(x >> 11) / (double)((x & 0xfffff) + 1));
    }
}
