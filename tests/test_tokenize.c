/* Criterion suite for src/tokenize.c: on every line it accepts, the fast
 * tokenizer must give exactly jsmn's tokens (type, span, size, parent), and every
 * line that is not plainly valid JSON must be left to jsmn. Besides hand
 * picked lines, every single-byte deletion, replacement and insertion of
 * grammar bytes into valid lines is checked against jsmn. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#define JSMN_STATIC
#include "testutil.h"
#include "tokenize.h"

#define NT 512

static const char *const valid[] = {
    "{}",
    "{\"a\":1}",
    "{ \"a\" : 1 , \"b\" : [ ] , \"c\" : { } }",
    "{\"id\":46072,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1000000,\"tid\":1000001,\"ts\":1744611997457495,"
    "\"dur\":78,\"ph\":\"X\",\"args\":{\"hhash\":12970282039104182291,\"p_idx\":46061,"
    "\"fhash\":10993879687891814470,\"fd\":32,\"ret\":65536,\"count\":65536,\"level\":5}}",
    "{\"name\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\",\"cat\":\"\xc3\xa9\xff\"}",
    "{\"x\":-0,\"y\":-12.5e+3,\"z\":1E-2,\"w\":0.000,\"v\":123456789012345678901234567890}",
    "{\"t\":true,\"f\":false,\"n\":null,\"arr\":[1,\"two\",[3,[4,{}]],{\"k\":[]}]}",
    "{\"a\":\t1\r,\n\"b\":\"\"}",
    "{\"long key with spaces and more than eight bytes\":\"a value well past one word of bytes\"}",
    "{\"args\":{\"fname\":\"/p/lustre2/dfnav/data/train/img_001_of_168.hdf5\",\"size\":\"4096\"}}",
};

/* Lines that are not plainly valid JSON: jsmn decides them. */
static const char *const unsure[] = {
    "", "[1]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{\"a\" 1}", "{a:1}",
    "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":+1}", "{\"a\":-}", "{\"a\":tru}",
    "{\"a\":truex}", "{\"a\":nul}", "{\"a\":600\"}", "{\"a\":\"x\\q\"}", "{\"a\":\"\\u12g4\"}",
    "{\"a\":\"\\u12\"}", "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}", "{\"a\":1}x", "{\"a\":1}}",
    "{\"a\":[1,]}", "{\"a\":[1}", "{\"a\":{]}", "{\"a\":\"unterminated}", "{\"a\":1,\"b\"",
    "{\"a\":'x'}", "{\"a\":NaN}", "{\"a\":Infinity}",
};

static int jsmn_tokens(const char *s, size_t len, jsmntok_t *t)
{
    jsmn_parser p;
    jsmn_init(&p);
    return jsmn_parse(&p, s, len, t, NT);
}

/* Where the fast tokenizer accepts, jsmn agrees token by token. */
static bool agrees(const char *s, size_t len, int *fast_out)
{
    static jsmntok_t a[NT], b[NT];
    int fast = dfn_tokenize(s, len, a, NT);
    if (fast_out) *fast_out = fast;
    if (fast < 0) return fast == DFN_TOK_UNSURE;
    int ref = jsmn_tokens(s, len, b);
    if (ref != fast || b[0].end != (int)len) return false;
    for (int i = 0; i < fast; i++)
        if (a[i].type != b[i].type || a[i].start != b[i].start || a[i].end != b[i].end || a[i].size != b[i].size ||
            a[i].parent != b[i].parent)
            return false;
    return true;
}

Test(tokenize, valid_lines_match_jsmn)
{
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        int fast;
        cr_expect(agrees(valid[i], strlen(valid[i]), &fast), "line %zu differs from jsmn", i);
        cr_expect(fast > 0, "line %zu not accepted: %d", i, fast);
    }
}

Test(tokenize, sizes_count_keys_and_elements)
{
    jsmntok_t t[NT];
    const char *s = "{\"a\":[1,2,3],\"b\":{\"c\":1,\"d\":2}}";
    int n = dfn_tokenize(s, strlen(s), t, NT);
    cr_assert_eq(n, 12);
    cr_expect_eq(t[0].size, 2);            /* object: keys */
    cr_expect_eq(t[1].size, 1);            /* key: its value */
    cr_expect_eq(t[2].type, JSMN_ARRAY);
    cr_expect_eq(t[2].size, 3);
    cr_expect_eq(t[7].type, JSMN_OBJECT);
    cr_expect_eq(t[7].size, 2);
    cr_expect_eq(t[7].start, 17);
    cr_expect_eq(t[7].end, 30);
}

Test(tokenize, unsure_lines_are_left_to_jsmn)
{
    for (size_t i = 0; i < sizeof unsure / sizeof *unsure; i++) {
        jsmntok_t t[NT];
        cr_expect_eq(dfn_tokenize(unsure[i], strlen(unsure[i]), t, NT), DFN_TOK_UNSURE, "accepted: %s", unsure[i]);
    }
    jsmntok_t t[NT];
    cr_expect_eq(dfn_tokenize("{\"a\":\"x\0y\"}", 11, t, NT), DFN_TOK_UNSURE, "NUL byte");
}

Test(tokenize, deep_nesting_is_left_to_jsmn)
{
    char s[256];
    size_t n = 0;
    s[n++] = '{';
    memcpy(s + n, "\"a\":", 4); n += 4;
    for (int d = 0; d < 40; d++) s[n++] = '[';
    for (int d = 0; d < 40; d++) s[n++] = ']';
    s[n++] = '}';
    jsmntok_t t[NT];
    cr_expect_eq(dfn_tokenize(s, n, t, NT), DFN_TOK_UNSURE);
    /* 30 levels fit */
    n = 5;
    for (int d = 0; d < 30; d++) s[n++] = '[';
    for (int d = 0; d < 30; d++) s[n++] = ']';
    s[n++] = '}';
    cr_expect(agrees(s, n, NULL));
}

Test(tokenize, too_few_tokens_asks_for_more)
{
    jsmntok_t t[4];
    const char *s = "{\"a\":1,\"b\":2,\"c\":3}";
    cr_expect_eq(dfn_tokenize(s, strlen(s), t, 4), DFN_TOK_NOMEM);
    cr_expect_eq(dfn_tokenize(s, strlen(s), t, 3), DFN_TOK_NOMEM);
}

/* Every one-byte edit of every valid line: deletion, and replacement or
 * insertion of each byte that matters to the grammar. */
Test(tokenize, single_byte_edits_match_jsmn)
{
    static const char edits[] = "\"{}[],: \t\\/0129-+.eEtfnux\x01\x1f\x7f\x80";
    char buf[1024];
    size_t checked = 0, accepted = 0;
    for (size_t v = 0; v < sizeof valid / sizeof *valid; v++) {
        const char *s = valid[v];
        size_t len = strlen(s);
        for (size_t pos = 0; pos < len; pos++) {
            size_t n = tu_edit_byte(s, len, pos, TU_DELETE, 0, buf, sizeof buf);
            int fast;
            cr_assert(agrees(buf, n, &fast), "line %zu without byte %zu", v, pos);
            accepted += fast >= 0;
            checked++;
            for (size_t e = 0; e < sizeof edits - 1; e++) {
                n = tu_edit_byte(s, len, pos, TU_REPLACE, edits[e], buf, sizeof buf);
                cr_assert(agrees(buf, n, &fast), "line %zu byte %zu = 0x%02x", v, pos, (unsigned char)edits[e]);
                accepted += fast >= 0;
                n = tu_edit_byte(s, len, pos, TU_INSERT, edits[e], buf, sizeof buf);
                cr_assert(agrees(buf, n, &fast), "line %zu insert 0x%02x at %zu", v, (unsigned char)edits[e], pos);
                accepted += fast >= 0;
                checked += 2;
            }
        }
    }
    /* the check means something only if many edits stay valid */
    cr_expect_gt(accepted, checked / 10, "accepted %zu of %zu", accepted, checked);
}

/* One grammar for the tokenizer and for the parser's check of what jsmn
 * let through: only the parser's check tolerates padded zeros. */
Test(tokenize, primitive_grammar)
{
    static const struct { const char *s; size_t strict, padded; } cases[] = {
        {"0", 1, 1}, {"007", 1, 3}, {"-0.5e+3", 7, 7}, {"12,", 2, 2}, {"true", 4, 4}, {"truex", 4, 4},
        {"1.", SIZE_MAX, SIZE_MAX}, {"-", SIZE_MAX, SIZE_MAX}, {"nope", SIZE_MAX, SIZE_MAX},
        {"1e", SIZE_MAX, SIZE_MAX}, {"0x10", 1, 1}, {"600\"", 3, 3}, {"", SIZE_MAX, SIZE_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = strlen(cases[i].s);
        cr_expect_eq(dfn_json_primitive_end(cases[i].s, 0, len, false), cases[i].strict, "%s", cases[i].s);
        cr_expect_eq(dfn_json_primitive_end(cases[i].s, 0, len, true), cases[i].padded, "%s", cases[i].s);
    }
}
