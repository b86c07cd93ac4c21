/* The filter language: terms, operators, quoting, alternatives, units, the
 * canonical text, and error messages that point at the offending term. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/filter.h"

static dfn_filter parse_ok(const char *text)
{
    dfn_filter f;
    char err[1024];
    cr_assert(dfn_filter_parse(text, &f, err, sizeof err), "%s: %s", text, err);
    return f;
}

static void parse_fails(const char *text, const char *msg, const char *caret)
{
    dfn_filter f;
    char err[1024] = "";
    cr_assert_not(dfn_filter_parse(text, &f, err, sizeof err), "%s parsed", text);
    cr_assert(strstr(err, msg), "'%s' gave '%s'", text, err);
    cr_assert(strstr(err, caret), "'%s': caret '%s' not in\n%s", text, caret, err);
}

Test(filter, terms_and_operators)
{
    dfn_filter f = parse_ok("cat=POSIX func != open  file~lustre dur>=1ms bytes<4k time > 12.5 arg.epoch=3 host!~node0*");
    cr_assert_eq(f.n, 8);
    cr_assert_eq(f.terms[0].key, DFN_KEY_CAT);
    cr_assert_eq(f.terms[0].op, DFN_EQ);
    cr_assert_str_eq(f.terms[0].values[0], "POSIX");
    cr_assert_eq(f.terms[1].op, DFN_NE);
    cr_assert_eq(f.terms[2].op, DFN_MATCH);
    cr_assert_eq(f.terms[3].key, DFN_KEY_DUR);
    cr_assert_eq(f.terms[3].op, DFN_GE);
    cr_assert_eq(f.terms[3].num, 1000.0, "1ms is 1000 µs");
    cr_assert_eq(f.terms[4].num, 4096.0);
    cr_assert_eq(f.terms[4].op, DFN_LT);
    cr_assert_eq(f.terms[5].num, 12.5);
    cr_assert_eq(f.terms[6].key, DFN_KEY_ARG);
    cr_assert_str_eq(f.terms[6].arg, "epoch");
    cr_assert_eq(f.terms[7].op, DFN_NMATCH);
    dfn_filter_free(&f);
}

Test(filter, quotes_alternatives_and_units)
{
    dfn_filter f = parse_ok("file=\"/p/my dir/a b.h5\" func=open|open64|'fopen x' bytes>=1.5MiB dur<2s");
    cr_assert_str_eq(f.terms[0].values[0], "/p/my dir/a b.h5");
    cr_assert_eq(f.terms[1].nvalues, 3);
    cr_assert_str_eq(f.terms[1].values[1], "open64");
    cr_assert_str_eq(f.terms[1].values[2], "fopen x");
    cr_assert_eq(f.terms[2].num, 1.5 * 1048576);
    cr_assert_eq(f.terms[3].num, 2e6);
    dfn_filter_free(&f);
    f = parse_ok("file=\"with \\\"quote\\\"\"");
    cr_assert_str_eq(f.terms[0].values[0], "with \"quote\"");
    dfn_filter_free(&f);
    f = parse_ok("  ");
    cr_assert_eq(f.n, 0);
    dfn_filter_free(&f);
    f = parse_ok("cat=POSIX and func=read, file~x");
    cr_assert_eq(f.n, 3);
    dfn_filter_free(&f);
}

/* Sizes take their units in any case, as powers of 1024, with or without
 * B or iB; anything else after the number is refused. */
Test(filter, size_units_in_any_case)
{
    static const struct { const char *text; double num; } ok[] = {
        { "bytes<4", 4 }, { "bytes<4b", 4 }, { "bytes<4B", 4 }, { "bytes<1k", 1024 }, { "bytes<1KB", 1024 },
        { "bytes<1kib", 1024 }, { "bytes<1KIB", 1024 }, { "bytes<2m", 2097152 }, { "bytes<1.5G", 1.5 * 1073741824.0 },
        { "bytes<1TiB", 1099511627776.0 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        dfn_filter f = parse_ok(ok[i].text);
        cr_assert_eq(f.terms[0].num, ok[i].num, "%s", ok[i].text);
        dfn_filter_free(&f);
    }
    /* and no bound past what a double holds once in seconds or bytes (an
     * infinite window reached the explorer's zoom as NaN) */
    static const char *const bad[] = { "bytes<1ki", "bytes<1kibb", "bytes<1x", "bytes<1bb", "bytes<1p",
                                       "time>=1e308h", "dur<1e305s", "bytes>1e306TiB" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dfn_filter f;
        char err[1024];
        cr_assert_not(dfn_filter_parse(bad[i], &f, err, sizeof err), "%s parsed", bad[i]);
    }
}

Test(filter, canonical_text_round_trips)
{
    dfn_filter f = parse_ok("file=\"/a b\" func=open|read arg.step>=3 cat~post");
    char *t = dfn_filter_text(&f);
    cr_assert_str_eq(t, "file=\"/a b\" func=open|read arg.step>=3 cat~post");
    dfn_filter g = parse_ok(t);
    char *t2 = dfn_filter_text(&g);
    cr_assert_str_eq(t, t2);
    free(t); free(t2);
    dfn_filter_free(&f); dfn_filter_free(&g);
}

Test(filter, add_and_append)
{
    dfn_filter f = parse_ok("cat=POSIX");
    dfn_filter_add(&f, DFN_KEY_FILE, NULL, DFN_EQ, "/x|y z", 6);
    char *t = dfn_filter_text(&f);
    cr_assert_str_eq(t, "cat=POSIX file=\"/x|y z\"", "a literal '|' is quoted, not an alternative: %s", t);
    dfn_filter g = parse_ok(t);
    cr_assert_eq(g.terms[1].nvalues, 1);
    dfn_filter h = {0};
    dfn_filter_append(&h, &g);
    cr_assert_eq(h.n, 2);
    cr_assert_str_eq(h.terms[1].values[0], "/x|y z");
    free(t);
    dfn_filter_free(&f); dfn_filter_free(&g); dfn_filter_free(&h);
    /* a value starting with '=' is quoted: file==x would read back as == */
    dfn_filter e = {0};
    dfn_filter_add(&e, DFN_KEY_FILE, NULL, DFN_EQ, "=x", 2);
    t = dfn_filter_text(&e);
    cr_assert_str_eq(t, "file=\"=x\"");
    g = parse_ok(t);
    cr_assert_eq(g.terms[0].op, DFN_EQ);
    cr_assert_str_eq(g.terms[0].values[0], "=x");
    free(t);
    dfn_filter_free(&e); dfn_filter_free(&g);
}

Test(filter, errors_point_at_the_term)
{
    parse_fails("cat=POSIX colour=red", "unknown key 'colour'", "            ^^^^^^");
    parse_fails("cat POSIX", "expected an operator", "      ^");
    parse_fails("dur>fast", "expected a duration", "      ^^^^");
    parse_fails("bytes>4 parsecs", "unknown key 'parsecs'", "        ^^^^^^^");
    parse_fails("file=\"open", "unterminated quote", "^");
    parse_fails("func=", "missing value", "^");
    parse_fails("dur~5", "one number", "^^^^^");
    /* Chrome traces name them, IP addresses and "1st-worker" too */
    dfn_filter sz = parse_ok("size=4096");   /* the size dimension's key is the bytes of a call */
    cr_assert_eq(sz.terms[0].key, DFN_KEY_BYTES);
    dfn_filter_free(&sz);
    dfn_filter named = parse_ok("pid=worker-1 tid=main pid=10.0.0.1 tid=12a");
    cr_assert_str_eq(named.terms[0].values[0], "worker-1");
    cr_assert_str_eq(named.terms[2].values[0], "10.0.0.1");
    cr_assert_str_eq(named.terms[3].values[0], "12a");
    dfn_filter_free(&named);
    parse_fails("cat>x", "compare numbers", "^");
}
