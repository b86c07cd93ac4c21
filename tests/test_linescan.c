/* Criterion suite for src/linescan.c: the scanner reads usual lines field
 * by field with exact values, refuses every line whose meaning it cannot
 * be sure of, and never makes a line mean anything else than the token
 * walk does: each line and every one-byte edit of it, runs of lines whose
 * values change under the scanner's hints, and the real traces of every
 * era parse to the same batch and tables with the scanner on and off. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "dfnav/reader.h"
#include "fuzz/parsecheck.h"
#include "line.h"
#include "storeutil.h"
#include "testutil.h"

#define DLIO_LINE                                                                                        \
    "{\"id\":46072,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1000000,\"tid\":1000001,"                 \
    "\"ts\":1744611997457495,\"dur\":78,\"ph\":\"X\",\"args\":{\"hhash\":12970282039104182291,"           \
    "\"p_idx\":46061,\"fhash\":10993879687891814470,\"fd\":32,\"ret\":65536,\"count\":65536,\"level\":5}}"

static const char *const usual[] = {
    DLIO_LINE,
    "{\"id\":6,\"name\":\"start\",\"cat\":\"dftracer\",\"pid\":1000000,\"tid\":1000000,\"ts\":1744611912000189,"
    "\"dur\":0,\"ph\":\"X\",\"args\":{\"hhash\":12970282039104182291,\"p_idx\":-1,\"cmd_hash\":8821900317313303051,"
    "\"level\":1,\"version\":100008,\"date\":\"Mon Apr 14 06:25:12 2025\",\"ppid\":999998}}",
    "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":-7,\"tid\":0,\"ts\":0,\"dur\":18446744073709551615,\"ph\":\"X\","
    "\"args\":{\"fname\":\"/p/lustre2/dfnav/data/train/img_001_of_168.hdf5\",\"size\":\"4096\",\"epoch\":\"0\","
    "\"big\":9223372036854775808,\"min\":-9223372036854775808,\"t\":true,\"f\":false,\"n\":null,\"s\":\"\"}}",
    "{\"id\":1,\"name\":\"PyTorchCheckpointing.checkpoint\",\"cat\":\"checkpoint\",\"pid\":1,\"tid\":2,\"ts\":5,"
    "\"dur\":6,\"ph\":\"X\",\"args\":{}}",
    "{\"ts\":12,\"name\":\"\xc3\xa9t\xc3\xa9\",\"type\":0,\"ph\":\"i\",\"extra\":\"x\"}",
    "{\"id\":\"0\",\"name\":\"TorchFramework.__init__\",\"cat\":\"ai_framework\",\"pid\":\"0\",\"tid\":\"338684\","
    "\"ts\":\"1698352095942658\",\"dur\":\"8\",\"ph\":\"X\",\"args\":{\"hostname\":\"ruby165\",\"ret\":\"29360128\","
    "\"whence\":1,\"offset\":\"0\",\"fd\":20}}",
    "{\"id\":3,\"name\":\"fread\",\"cat\":\"STDIO\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"node01\",\"fname\":\"/a/b\",\"size\":8,\"count\":4,\"ret\":4}}",
    /* DFTracer 2.x: numeric ph and type, aggregated records, counters */
    "{\"id\":4,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"ph\":1,\"type\":3,"
    "\"args\":{\"hhash\":\"11\",\"fhash\":\"22\",\"ret\":4}}",
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5,\"ph\":3,\"type\":3,\"args\":{\"hhash\":\"11\","
    "\"dft_cnt\":10,\"dur_min\":1,\"dur_max\":9,\"dur_sum\":50,\"ret_min\":0,\"ret_max\":4096,\"ret_sum\":8192}}",
    "{\"name\":\"fread\",\"cat\":\"STDIO\",\"pid\":1,\"tid\":1,\"ts\":5,\"ph\":3,\"type\":3,\"args\":{\"dft_cnt\":3,"
    "\"dur\":4,\"size\":8,\"ret\":2}}",
    "{\"name\":\"mem\",\"cat\":\"sys\",\"pid\":1,\"tid\":1,\"ts\":9,\"ph\":2,\"type\":7,\"args\":{\"hhash\":\"11\","
    "\"Dirty\":1024,\"MemFree\":\"77\"}}",
    "{\"name\":\"flow\",\"ph\":\"s\",\"ts\":3,\"id\":7}", "{\"name\":\"n\",\"ph\":0,\"ts\":3}",
    "{\"name\":\"n\",\"ph\":42,\"ts\":3}", "{\"name\":\"b\",\"ph\":\"B\",\"ts\":3}", "{\"name\":\"mark\",\"ph\":\"I\",\"ts\":3}",
};

/* Lines only the token walk may read. */
static const char *const refused[] = {
    "{}", "{ \"ts\":1}", "{\"ts\": 1}", "{\"ts\":1 }", "{\"ts\":1} ", "{\"ts\":1.5}", "{\"ts\":1e3}",
    "{\"ts\":\"01\"}", "{\"ts\":\"1.5\"}", "{\"ts\":\"\"}", "{\"ts\":-1}", "{\"ts\":01}", "{\"ts\":-0}", "{\"ts\":18446744073709551616}",
    "{\"ts\":123456789012345678901}", "{\"ts\":1,\"ts\":2}", "{\"name\":\"a\",\"name\":\"b\"}",
    "{\"name\":\"a\\\"b\"}", "{\"na\\u006de\":\"a\"}", "{\"name\":1}", "{\"cat\":null}", "{\"ph\":\"M\"}",
    "{\"ph\":4}", "{\"ph\":1.0}", "{\"type\":\"3\"}", "{\"type\":1.5}", "{\"pid\":9223372036854775808}", "{\"pid\":\"+1\"}", "{\"dur\":\"-5\"}", "{\"dur\":-5}",
    "{\"args\":[]}", "{\"args\":1}", "{\"args\":{\"a\":{}}}", "{\"args\":{\"a\":[1]}}", "{\"x\":[]}",
    "{\"x\":{}}", "{\"args\":{\"a\":1.5}}", "{\"args\":{\"a\":tru}}", "{\"args\":{\"a\":1,}}",
    "{\"args\":{\"a\":1}", "{\"a\":1,}", "{\"a\":1}}", "{\"a\"1}", "{\"a\":\"tab\there\"}", "{\"a\":12x}",
    "{\"args\":{},\"args\":{}}", "{\"a\":-}", "{\"a\":nul}", "{\"a\":\"unterminated}",
};

static dfn_loadctx scan_ctx, ref_ctx;
static dfn_parser *scan_p, *ref_p;
static dfn_batch scan_b, ref_b;

static void pair_open(void)
{
    pc_ctx_init(&scan_ctx);
    pc_ctx_init(&ref_ctx);
    scan_p = dfn_parser_new(&scan_ctx);
    ref_p = dfn_parser_new(&ref_ctx);
    dfn_parser_scan(ref_p, false);
    memset(&scan_b, 0, sizeof scan_b);
    memset(&ref_b, 0, sizeof ref_b);
}

static void pair_close(void)
{
    dfn_batch_free(&scan_b);
    dfn_batch_free(&ref_b);
    dfn_parser_free(scan_p);
    dfn_parser_free(ref_p);
    pc_ctx_free(&scan_ctx);
    pc_ctx_free(&ref_ctx);
}

/* Both parsers read the block; NULL when they agree. Their tables grow
 * alike through a whole test, so a memo that goes wrong shows later. */
static const char *pair_parse(const char *s, size_t len)
{
    dfn_parser_block(scan_p, s, len, &scan_b);
    dfn_parser_block(ref_p, s, len, &ref_b);
    return pc_parse_same(&scan_b, &scan_ctx, &ref_b, &ref_ctx);
}

static bool scans(const char *s, size_t len)
{
    dfn_larg args[64];
    dfn_line f = { .args = args };
    return dfn_linescan(s, len, &f, 64, NULL) == len;
}

/* Counts the lines of a block into *lines and returns how many the scanner
 * takes: whole lines, or (whole false) lines it reads an object at the
 * start of, whatever follows it. */
static size_t scan_lines(const char *block, size_t len, bool whole, size_t *lines)
{
    size_t scanned = 0;
    for (const char *s = block, *end = block + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
        dfn_larg args[64];
        dfn_line f = { .args = args };
        size_t n = dfn_linescan(s, (size_t)(le - s), &f, 64, NULL);
        (*lines)++;
        scanned += whole ? n == (size_t)(le - s) : n != 0;
        s = nl ? nl + 1 : end;
    }
    return scanned;
}

Test(linescan, reads_a_dlio_line_exactly)
{
    const char *s = DLIO_LINE;
    dfn_larg args[64];
    dfn_line f = { .args = args };
    cr_assert_eq(dfn_linescan(s, strlen(s), &f, 64, NULL), strlen(s));
    cr_assert_eq(f.ts, 1744611997457495u);
    cr_assert_eq(f.dur, 78u);
    cr_assert_eq(f.pid, 1000000);
    cr_assert_eq(f.tid, 1000001);
    cr_assert(f.has_ts && !f.bad_num && !f.args_bad_json);
    cr_assert_eq(f.ph, DFN_PH_X);
    cr_assert_eq(f.era, 0u);
    cr_assert(f.name_len == 4 && memcmp(f.name, "read", 4) == 0 && f.name_quoted);
    cr_assert(f.cat_len == 5 && memcmp(f.cat, "POSIX", 5) == 0);
    cr_assert_eq(f.nargs, 7u);
    static const char *const keys[] = { "hhash", "p_idx", "fhash", "fd", "ret", "count", "level" };
    static const uint64_t vals[] = { 12970282039104182291u, 46061, 10993879687891814470u, 32, 65536, 65536, 5 };
    for (size_t i = 0; i < 7; i++) {
        cr_assert(f.args[i].key_len == strlen(keys[i]) && memcmp(f.args[i].key, keys[i], f.args[i].key_len) == 0);
        cr_assert_eq(f.args[i].num, vals[i], "arg %zu", i);
        cr_assert_eq(f.args[i].type, vals[i] > INT64_MAX ? DFN_LV_UINT : DFN_LV_INT, "arg %zu", i);
        cr_assert(!f.args[i].quoted && f.args[i].plain);
    }
}

Test(linescan, reads_every_kind_of_value)
{
    const char *s = usual[2];
    dfn_larg args[64];
    dfn_line f = { .args = args };
    cr_assert_eq(dfn_linescan(s, strlen(s), &f, 64, NULL), strlen(s));
    cr_assert_eq(f.pid, -7);
    cr_assert_eq(f.dur, UINT64_MAX);
    cr_assert_eq(f.era, (unsigned)DFN_ERA_NO_ID);
    cr_assert_eq(f.nargs, 9u);
    cr_assert(f.args[0].type == DFN_LV_STR && f.args[0].quoted && f.args[0].val_len == 47);
    cr_assert(f.args[1].type == DFN_LV_INT && f.args[1].quoted && f.args[1].num == 4096);
    cr_assert(f.args[2].type == DFN_LV_INT && f.args[2].num == 0);
    cr_assert(f.args[3].type == DFN_LV_UINT && f.args[3].num == 9223372036854775808u);
    cr_assert(f.args[4].type == DFN_LV_INT && (int64_t)f.args[4].num == INT64_MIN);
    cr_assert_eq(f.args[5].type, DFN_LV_TRUE);
    cr_assert_eq(f.args[6].type, DFN_LV_FALSE);
    cr_assert_eq(f.args[7].type, DFN_LV_NULL);
    cr_assert(f.args[8].type == DFN_LV_STR && f.args[8].val_len == 0);
    /* eight digits and fewer read in one word: check each width */
    char line[96];
    uint64_t v = 0;
    for (int digits = 1; digits <= 20; digits++) {
        v = v * 10 + (uint64_t)(digits % 10);
        snprintf(line, sizeof line, "{\"ts\":%llu,\"args\":{\"n\":-%llu}}", (unsigned long long)v,
                 (unsigned long long)(v % 1000000000000000000u));
        cr_assert_eq(dfn_linescan(line, strlen(line), &f, 64, NULL), strlen(line), "%s", line);
        cr_assert_eq(f.ts, v, "%s", line);
        cr_assert_eq((int64_t)f.args[0].num, -(int64_t)(v % 1000000000000000000u), "%s", line);
    }
}

Test(linescan, usual_lines_are_scanned)
{
    for (size_t i = 0; i < sizeof usual / sizeof *usual; i++)
        cr_assert(scans(usual[i], strlen(usual[i])), "line %zu", i);
}

Test(linescan, lines_it_cannot_be_sure_of_are_refused)
{
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        cr_assert(!scans(refused[i], strlen(refused[i])), "%s", refused[i]);
    /* more fields or arguments than it keeps */
    char line[4096];
    size_t len = (size_t)sprintf(line, "{\"ts\":1,\"args\":{");
    for (int i = 0; i < 65; i++) len += (size_t)sprintf(line + len, "%s\"k%d\":%d", i ? "," : "", i, i);
    len += (size_t)sprintf(line + len, "}}");
    cr_assert(!scans(line, len));
    len = (size_t)sprintf(line, "{\"ts\":1");
    for (int i = 0; i < 70; i++) len += (size_t)sprintf(line + len, ",\"k%d\":%d", i, i);
    len += (size_t)sprintf(line + len, "}");
    cr_assert(!scans(line, len));
}

Test(linescan, both_readers_agree_on_every_line, .init = pair_open, .fini = pair_close)
{
    for (size_t i = 0; i < sizeof usual / sizeof *usual; i++) {
        const char *why = pair_parse(usual[i], strlen(usual[i]));
        cr_assert_null(why, "line %zu: %s", i, why);
    }
    cr_assert_gt(scan_ctx.schemas ? dfn_strtab_count(scan_ctx.schemas) : 0, 0u);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        const char *why = pair_parse(refused[i], strlen(refused[i]));
        cr_assert_null(why, "%s: %s", refused[i], why);
    }
}

/* A line with more arguments than the scanner keeps goes to the token
 * walk, which grows the parser's argument room; the usual lines after it
 * in the same block must be read into the new room (the sanitizer build
 * sees a use of the old one). */
Test(linescan, usual_lines_after_a_wide_one_in_a_block, .init = pair_open, .fini = pair_close)
{
    char block[16384];
    size_t len = 0;
    for (int round = 0; round < 3; round++) {
        len += (size_t)snprintf(block + len, sizeof block - len, "%s\n", DLIO_LINE);
        len += (size_t)snprintf(block + len, sizeof block - len, "{\"ts\":%d,\"ph\":\"X\",\"args\":{", round);
        for (int k = 0; k < 100 + 50 * round; k++)
            len += (size_t)snprintf(block + len, sizeof block - len, "%s\"a%d\":%d", k ? "," : "", k, k);
        len += (size_t)snprintf(block + len, sizeof block - len, "}}\n%s\n%s\n", DLIO_LINE, usual[2]);
    }
    cr_assert_lt(len, sizeof block);
    const char *why = pair_parse(block, len);
    cr_assert_null(why, "%s", why);
    /* usual[2] has a dur out of range */
    cr_assert_eq(scan_b.n, 9u);
    cr_assert_eq(scan_b.info.malformed, 3u);
}

Test(linescan, both_readers_agree_on_every_one_byte_edit, .init = pair_open, .fini = pair_close)
{
    static const char edits[] = "\"{}[],: \t\r\n\\/0129-+.eEtfnuxM\x01\x1f\x7f\x80";
    char buf[1024];
    size_t checked = 0, scanned = 0;
    for (size_t v = 0; v < sizeof usual / sizeof *usual; v++) {
        const char *s = usual[v];
        size_t len = strlen(s);
        for (size_t pos = 0; pos < len; pos++) {
            for (size_t e = 0; e <= sizeof edits - 1; e++) {
                /* deletion last; replacement and insertion by turns */
                int kind = e == sizeof edits - 1 ? TU_DELETE : checked & 1 ? TU_REPLACE : TU_INSERT;
                size_t n = tu_edit_byte(s, len, pos, kind, edits[e], buf, sizeof buf);
                const char *why = pair_parse(buf, n);
                cr_assert_null(why, "line %zu, edit %zu at %zu: %s: %.*s", v, e, pos, why, (int)n, buf);
                scanned += scans(buf, n);
                checked++;
            }
        }
    }
    /* the comparison means something only if the scanner took many edits */
    cr_expect_gt(scanned, checked / 10, "scanned %zu of %zu", scanned, checked);
}

/* Both readers on the first blocks of every real trace; returns the share
 * of lines the scanner took in dir. */
static double real_traces_agree(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", su_traces_dir(), dir);
    const char *p[1] = { path };
    dfn_inputs in;
    dfn_inputs_expand(p, 1, &in);
    cr_assert_gt(in.n, 0u, "%s", path);
    size_t lines = 0, scanned = 0;
    for (size_t f = 0; f < in.n; f++) {
        char err[512];
        dfn_reader *r = dfn_reader_open(in.paths[f], 1 << 20, err, sizeof err);
        cr_assert_not_null(r, "%s", err);
        dfn_block blk;
        for (int k = 0; k < 4 && dfn_reader_next(r, &blk) > 0; k++) {
            const char *why = pair_parse(blk.data, blk.len);
            cr_assert_null(why, "%s block %d: %s", in.paths[f], k, why);
            scanned += scan_lines(blk.data, blk.len, true, &lines);
            dfn_block_free(&blk);
        }
        dfn_reader_close(r);
    }
    dfn_inputs_free(&in);
    return lines ? (double)scanned / (double)lines : 0;
}

Test(linescan, real_traces_read_alike, .init = pair_open, .fini = pair_close)
{
    if (!su_traces_dir()) cr_skip_test("no ../shared/traces");
    /* the DLIO traces are the usual shape: nearly every line is scanned */
    cr_expect_gt(real_traces_agree("dlio-unet3d"), 0.95);
    cr_expect_gt(real_traces_agree("dlio-2023"), 0.95);
    /* older eras quote their numbers */
    cr_expect_gt(real_traces_agree("v0-quoted"), 0.95);
}

/* Values the scanner may take from its hints: within a pool each differs
 * from others in its last byte, its end, its quotes or its length, or
 * runs past what a hint holds. */
static const char *const hinted_ints[] = {
    "12", "123", "1", "0", "\"12\"", "\"123\"", "9223372036854775807", "1234567890123456789", "\"1234567890123456789\"",
};
static const char *const hinted_strs[] = {
    "\"abc\"", "\"abd\"", "\"ab\"", "\"\"", "\"POSIX\"", "\"pread64\"", "\"pread\"", "\"12\"",
    "\"a value longer than the twenty-four bytes a hint holds\"", "\"a value longer than the twenty-four bytes\"",
};
static const char *const hinted_any[] = {
    "12", "123", "1", "-1", "0", "\"12\"", "\"123\"", "12345678901234567890", "18446744073709551615",
    "12970282039104182291", "1297028203910418229", "\"abc\"", "\"abd\"", "\"ab\"", "\"\"", "true", "false",
    "null", "\"a value longer than the twenty-four bytes a hint holds\"", "\"a value longer than the twenty-four bytes\"",
    "\"POSIX\"", "\"pread64\"", "\"ff00ab\"", "\"0012\"",
    /* refused, rarely */
    "18446744073709551616", "1.5", "[1]", "\"12",
};

static size_t hinted_pick(uint64_t *rng, size_t n)
{
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (size_t)(*rng >> 33) % n;
}

/* Mostly the value the field had, as in a trace; sometimes another. */
static const char *hinted_value(uint64_t *rng, const char *const *pool, size_t n, size_t field, int round)
{
    /* the refused values close hinted_any: keep them rare */
    size_t common = pool == hinted_any ? n - 4 : n;
    if (hinted_pick(rng, 4)) return pool[(field * 7 + (size_t)round / 40) % common];
    return pool[hinted_pick(rng, hinted_pick(rng, 8) ? common : n)];
}

/* Lines whose keys repeat while their values change in every way a hint
 * could be fooled by, read a few at a time: the scanner with its hints
 * and the token walk make the same batches and tables. */
Test(linescan, hints_follow_values_that_change, .init = pair_open, .fini = pair_close)
{
    static const char *const top[] = { "name", "cat", "pid", "tid", "dur", "id" };
    static const char *const args[] = { "hhash", "fhash", "fname", "hostname", "ret", "size", "size_sum", "x" };
    const size_t nint = sizeof hinted_ints / sizeof *hinted_ints, nstr = sizeof hinted_strs / sizeof *hinted_strs;
    const size_t nany = sizeof hinted_any / sizeof *hinted_any;
    uint64_t rng = 42;
    char block[8192];
    size_t scanned = 0, lines = 0;
    for (int round = 0; round < 4000; round++) {
        size_t len = 0, nlines = 1 + hinted_pick(&rng, 4);
        for (size_t l = 0; l < nlines; l++) {
            len += (size_t)snprintf(block + len, sizeof block - len, "{\"ts\":%d", round);
            for (size_t k = 0; k < sizeof top / sizeof *top; k++) {
                const char *v = k < 2 ? hinted_value(&rng, hinted_strs, nstr, k, round)
                                      : hinted_value(&rng, hinted_ints, nint, k, round);
                len += (size_t)snprintf(block + len, sizeof block - len, ",\"%s\":%s", top[k], v);
            }
            len += (size_t)snprintf(block + len, sizeof block - len, ",\"ph\":\"X\",\"args\":{");
            for (size_t k = 0; k < sizeof args / sizeof *args; k++)
                len += (size_t)snprintf(block + len, sizeof block - len, "%s\"%s\":%s", k ? "," : "", args[k],
                                        hinted_value(&rng, hinted_any, nany, k, round));
            /* how lines end, the last one of a block maybe not at all */
            static const char *const ends[] = { "}}\n", "}}\n", "}}\n", "}}\r\n", "}} \n", "}},\n", "}}\r", "}}" };
            size_t e = hinted_pick(&rng, sizeof ends / sizeof *ends);
            if (e == 7 && l + 1 < nlines) e = 0;
            len += (size_t)snprintf(block + len, sizeof block - len, "%s", ends[e]);
        }
        cr_assert_lt(len, sizeof block);
        const char *why = pair_parse(block, len);
        cr_assert_null(why, "round %d: %s: %.*s", round, why, (int)len, block);
        /* lines ending in a CR, a space or a comma count: the object is read */
        scanned += scan_lines(block, len, false, &lines);
    }
    /* the comparison means something only if most lines were scanned */
    cr_expect_gt(scanned, lines / 10 * 9, "scanned %zu of %zu", scanned, lines);
}
