/* Loading: every format era gives the same store, metadata resolution
 * (late, 64-bit, unresolved), damaged input is counted with line numbers
 * while the rest loads, gzip damage, thread-count invariance, and the real
 * traces of three eras. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dfnav/loader.h"
#include "fuzz/parsecheck.h"
#include "dfnav/query.h"
#include "dfnav/util.h"
#include "storeutil.h"
#include "testutil.h"

#define F_DATA "/p/lustre2/a/data-1.h5"
#define F_CKPT "/l/ssd/ck/model-1.pt"

/* The same three calls written by each era's writer. */
static const char *eras[][2] = {
    { "v0.0.1",
      "[\n"
      "{\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_DATA "\",\"ret\":3}}\n"
      "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_DATA "\",\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_CKPT "\",\"size\":8,\"ret\":16}}\n" },
    { "v0.0.2-v1.0.4",
      "[\n"
      " {\"id\":\"0\",\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":\"100\",\"tid\":\"101\",\"ts\":\"1700000000000010\",\"dur\":\"5\",\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"ret\":\"3\",\"fname\":\"" F_DATA "\"}},\n"
      "{\"id\":\"1\",\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":\"100\",\"tid\":\"101\",\"ts\":\"1700000000000020\",\"dur\":\"100\",\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"ret\":\"4096\",\"count\":4096,\"offset\":\"8192\",\"fname\":\"" F_DATA "\"}},\n"
      "{\"id\":\"2\",\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":\"100\",\"tid\":\"101\",\"ts\":\"1700000000000200\",\"dur\":\"50\",\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"size\":\"8\",\"ret\":16,\"fname\":\"" F_CKPT "\"}}\n"
      "]" },
    { "v1.0.5",
      "[\n"
      "{\"id\":1,\"name\":\"thread_name\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"name\":\"100\",\"value\":\"thread_name\"}}\n"
      "{\"id\":2,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_DATA "\",\"ret\":3}}\n"
      "{\"id\":3,\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_DATA "\",\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"id\":4,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":\"X\",\"args\":{\"hostname\":\"node01\",\"fname\":\"" F_CKPT "\",\"size\":8,\"ret\":16}}\n"
      "]\n" },
    { "v1.0.5-hash16",   /* FH of the checkpoint comes after its first use */
      "[\n"
      "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":7,\"name\":\"node01\",\"value\":7}}\n"
      "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":7,\"name\":\"" F_DATA "\",\"value\":513}}\n"
      "{\"id\":3,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":7,\"fhash\":513,\"ret\":3}}\n"
      "{\"id\":4,\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":7,\"fhash\":513,\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"id\":5,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":\"X\",\"args\":{\"hhash\":7,\"fhash\":65535,\"size\":8,\"ret\":16}}\n"
      "{\"id\":6,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":7,\"name\":\"" F_CKPT "\",\"value\":65535}}\n"
      "]" },
    { "v1.0.6-hex",
      "[\n"
      "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4\",\"name\":\"node01\",\"value\":\"a1b2c3d4\"}}\n"
      "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4\",\"name\":\"" F_DATA "\",\"value\":\"00ff00ff00ff00ff\"}}\n"
      "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4\",\"name\":\"" F_CKPT "\",\"value\":\"DEADBEEF\"}}\n"
      "{\"id\":4,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":\"a1b2c3d4\",\"fhash\":\"00ff00ff00ff00ff\",\"ret\":3}}\n"
      "{\"id\":5,\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":\"a1b2c3d4\",\"fhash\":\"00ff00ff00ff00ff\",\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"id\":6,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":\"X\",\"args\":{\"hhash\":\"a1b2c3d4\",\"fhash\":\"deadbeef\",\"size\":8,\"ret\":16}}\n"
      "]\n" },
    { "v1.0.7+",   /* 64-bit hashes above 2^63, never parsed as double or int64 */
      "[\n"
      "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":18446744073709551615,\"name\":\"node01\",\"value\":18446744073709551615}}\n"
      "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":18446744073709551615,\"name\":\"" F_DATA "\",\"value\":9223372036854775809}}\n"
      "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":\"M\",\"args\":{\"hhash\":18446744073709551615,\"name\":\"" F_CKPT "\",\"value\":9223372036854775808}}\n"
      "{\"id\":4,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":18446744073709551615,\"fhash\":9223372036854775809,\"ret\":3}}\n"
      "{\"id\":5,\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":\"X\",\"args\":{\"hhash\":18446744073709551615,\"fhash\":9223372036854775809,\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"id\":6,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":\"X\",\"args\":{\"hhash\":18446744073709551615,\"fhash\":9223372036854775808,\"size\":8,\"ret\":16}}\n"
      "]\n" },
    { "newest",
      "[\n"
      "{\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":4,\"args\":{\"hhash\":\"12345678901234567890\",\"name\":\"node01\",\"value\":\"12345678901234567890\"}}\n"
      "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":4,\"args\":{\"name\":\"" F_DATA "\",\"value\":11111111111111111111}}\n"
      "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":100,\"tid\":101,\"ph\":4,\"args\":{\"name\":\"" F_CKPT "\",\"value\":22222}}\n"
      "{\"id\":4,\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000010,\"dur\":5,\"ph\":1,\"type\":0,\"args\":{\"hhash\":\"12345678901234567890\",\"fhash\":11111111111111111111,\"ret\":3}}\n"
      "{\"id\":5,\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":100,\"tid\":101,\"ts\":1700000000000020,\"dur\":100,\"ph\":1,\"type\":0,\"args\":{\"hhash\":\"12345678901234567890\",\"fhash\":11111111111111111111,\"ret\":4096,\"count\":4096,\"offset\":8192}}\n"
      "{\"id\":6,\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":100,\"tid\":101,\"ts\":1700000000000200,\"dur\":50,\"ph\":1,\"type\":0,\"args\":{\"hhash\":\"12345678901234567890\",\"fhash\":22222,\"size\":8,\"ret\":16}}\n"
      "]\n" },
};

static void check_three_calls(const dfn_store *s, const char *era)
{
    cr_assert_eq(s->n, 3, "%s: %zu events", era, s->n);
    cr_assert_eq(s->t0, 1700000000000010ull, "%s", era);
    cr_assert_eq(s->t1 - s->t0, 240, "%s: span %" PRIu64, era, s->t1 - s->t0);
    cr_assert_eq(s->nlanes, 1, "%s", era);
    cr_assert_str_eq(dfn_store_str(s, s->lanes[0].name), "node01/100/101", "%s", era);
    dfn_result *r = su_query(s, "posix", "file", NULL);
    cr_assert_eq(r->nrows, 2, "%s", era);
    cr_assert_eq(su_metric(s, r, F_DATA, DFN_M_COUNT), 2, "%s", era);
    cr_assert_eq(su_metric(s, r, F_DATA, DFN_M_BYTES), 4096, "%s", era);
    cr_assert_eq(su_metric(s, r, F_DATA, DFN_M_TIME_S), 105e-6, "%s", era);
    cr_assert_eq(su_metric(s, r, F_CKPT, DFN_M_BYTES), 128, "%s: fwrite bytes = size * ret", era);
    dfn_result_free(r);
    /* the offset argument survives, as a number */
    uint32_t key = dfn_strtab_find(s->strs, "offset", 6);
    cr_assert_neq(key, DFN_NOID, "%s", era);
    dfn_arg a;
    cr_assert(dfn_store_arg(s, 1, key, &a), "%s", era);
    cr_assert_eq(a.type, DFN_ARG_INT, "%s", era);
    cr_assert_eq(a.i, 8192, "%s", era);
    cr_assert_str_eq(s->src[0].era, era);
    cr_assert_eq(s->src[0].malformed, 0, "%s", era);
    cr_assert_eq(dfn_store_status(s), 0, "%s", era);
}

Test(load, every_era_gives_the_same_store)
{
    for (size_t e = 0; e < sizeof eras / sizeof eras[0]; e++) {
        dfn_store *s = su_load_text("t.pfw", eras[e][1], 2);
        check_three_calls(s, eras[e][0]);
        dfn_store_free(s);
    }
}

Test(load, gzip_members_load_like_plain)
{
    char *dir = tu_tmpdir();
    const char *text = eras[5][1];
    size_t half = strlen(text) / 2;
    while (text[half - 1] != '\n') half++;
    size_t l1, l2;
    unsigned char *m1 = tu_gzip(text, half, &l1), *m2 = tu_gzip(text + half, strlen(text) - half, &l2);
    unsigned char *both = malloc(l1 + l2);
    memcpy(both, m1, l1);
    memcpy(both + l1, m2, l2);
    char *path = tu_write_file(dir, "t.pfw.gz", both, l1 + l2);
    const char *p[1] = { path };
    dfn_store *s = su_load_paths(p, 1, 2, 0);
    check_three_calls(s, "v1.0.7+");
    cr_assert(s->src[0].gzip && strcmp(dfn_src_compression(&s->src[0]), "gzip") == 0);
    dfn_store_free(s);
    free(m1); free(m2); free(both); free(path); free(dir);
}

Test(load, one_hash_map_for_the_whole_set)
{
    /* the metadata sits in another file than the events that use it */
    char *dir = tu_tmpdir();
    const char *a =
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/x/y\",\"value\":99}}\n";
    const char *b =
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":10,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":99,\"ret\":7}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":11,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":12345,\"ret\":7}}\n";
    char *pa = tu_write_file(dir, "a.pfw", a, strlen(a)), *pb = tu_write_file(dir, "b.pfw", b, strlen(b));
    const char *p[2] = { pa, pb };
    dfn_store *s = su_load_paths(p, 2, 2, 0);
    dfn_result *r = su_query(s, "posix", "file", NULL);
    cr_assert_eq(su_metric(s, r, "/x/y", DFN_M_BYTES), 7);
    /* an unresolved hash is shown as the hash, never dropped */
    cr_assert_eq(su_metric(s, r, "12345", DFN_M_COUNT), 1);
    cr_assert_eq(s->unresolved_hashes, 1);
    dfn_result_free(r);
    dfn_store_free(s);
    free(pa); free(pb); free(dir);
}

/* A share of a set (an MPI rank's) takes the names of hashes its own
 * files do not define from the rest's definitions, as the set's load
 * does; its own definitions come first, a hash none defines stays the
 * hash, and cut records end the reading there. */
Test(load, definitions_from_the_rest_of_the_set)
{
    char *dir = tu_tmpdir();
    const char *a =
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/x/y\",\"value\":99}}\n"
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/mine\",\"value\":7}}\n";
    const char *b =
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":2,\"tid\":2,\"ph\":\"M\",\"args\":{\"name\":\"/own\",\"value\":7}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":10,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":99,\"ret\":7}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":11,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":7,\"ret\":3}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":12,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":12345,\"ret\":1}}\n";
    char *pa = tu_write_file(dir, "a.pfw", a, strlen(a)), *pb = tu_write_file(dir, "b.pfw", b, strlen(b));
    dfn_load_opts lo = { .threads = 1 };
    dfn_store *rest = dfn_load((const char *const *)&pa, 1, &lo);
    cr_assert(rest && rest->hashdefs_len > 0);
    /* alone, b knows 7 (its own) and neither 99 nor 12345 */
    dfn_store *alone = dfn_load((const char *const *)&pb, 1, &lo);
    cr_assert_eq(alone->unresolved_hashes, 2);
    size_t own_len = alone->hashdefs_len;
    dfn_store_free(alone);
    /* the first record (a's first definition, of 99) ends here */
    uint64_t hl = 0, nl = 0;
    const uint8_t *d = rest->hashdefs, *end = d + rest->hashdefs_len;
    size_t k1 = dfn_varint_get(d + 1, end, &hl), k2 = dfn_varint_get(d + 1 + k1 + hl, end, &nl);
    size_t first = 1 + k1 + (size_t)hl + k2 + (size_t)nl;
    cr_assert_lt(first, rest->hashdefs_len);
    for (size_t cut = 0; cut <= rest->hashdefs_len; cut++) {
        lo.defs = rest->hashdefs;
        lo.defs_len = cut;
        dfn_store *s = dfn_load((const char *const *)&pb, 1, &lo);
        dfn_result *r = su_query(s, "posix", "file", NULL);
        bool whole = cut >= first;
        cr_assert_eq(su_row(s, r, "/x/y") >= 0, whole, "cut at %zu", cut);
        cr_assert_eq(s->unresolved_hashes, whole ? 1u : 2u, "cut at %zu", cut);
        if (whole) cr_assert_eq(su_metric(s, r, "/x/y", DFN_M_BYTES), 7);
        cr_assert_eq(su_metric(s, r, "/own", DFN_M_BYTES), 3, "its own definition first");
        cr_assert_eq(su_metric(s, r, "12345", DFN_M_COUNT), 1, "a hash none defines stays the hash");
        cr_assert_eq(s->hashdefs_len, own_len, "its own definitions alone");
        dfn_result_free(r);
        dfn_store_free(s);
    }
    dfn_store_free(rest);
    free(pa); free(pb); free(dir);
}

/* Rank and name metadata of a process with no event in a load is
 * counted (an MPI share's may be another share's process), and so is
 * every record given without a host, which names its pid on every host
 * (pid 5's on another share's host too); one with its host that names a
 * process here is not. */
Test(load, metadata_of_processes_without_events_is_counted)
{
    const char *t =
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":5,\"tid\":5,\"ts\":10,\"dur\":3,\"ph\":\"X\",\"args\":{}}\n"
        "{\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":6,\"tid\":6,\"ph\":\"M\",\"args\":{\"name\":\"h\",\"value\":\"41\"}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":6,\"tid\":6,\"ts\":10,\"dur\":3,\"ph\":\"X\","
        "\"args\":{\"hhash\":\"41\"}}\n"
        "{\"name\":\"PR\",\"cat\":\"dftracer\",\"pid\":77,\"tid\":77,\"ph\":\"M\",\"args\":{\"name\":\"rank\",\"value\":9}}\n"
        "{\"name\":\"PR\",\"cat\":\"dftracer\",\"pid\":5,\"tid\":5,\"ph\":\"M\",\"args\":{\"name\":\"rank\",\"value\":1}}\n"
        "{\"name\":\"PR\",\"cat\":\"dftracer\",\"pid\":6,\"tid\":6,\"ph\":\"M\",\"args\":{\"name\":\"rank\",\"value\":2,"
        "\"hhash\":\"41\"}}\n";
    dfn_store *s = su_load_text("m.pfw", t, 1);
    const char want[] = "Ra\0" "77\0" "0\0" "Ra\0" "5\0" "0";   /* (and its NUL) */
    cr_assert_eq(s->foreign_meta_len, sizeof want, "pid 77's rank and pid 5's: %zu bytes", s->foreign_meta_len);
    cr_assert(memcmp(s->foreign_meta, want, sizeof want) == 0);
    dfn_store_free(s);
}

Test(load, conflicting_hash_keeps_the_first_definition)
{
    const char *t =
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/first\",\"value\":5}}\n"
        "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/second\",\"value\":5}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":5,\"ret\":1}}\n";
    dfn_store *s = su_load_text("c.pfw", t, 1);
    cr_assert_eq(s->hash_conflicts, 1);
    cr_assert_str_eq(dfn_store_str(s, s->files[dfn_store_file(s, 0)].path), "/first");
    dfn_store_free(s);
}

Test(load, malformed_lines_are_counted_with_their_numbers)
{
    char *big = malloc(50u << 20);
    memset(big, 'x', 50u << 20);
    memcpy(big, "{\"name\":\"", 9);
    big[(50u << 20) - 1] = 0;
    const char *head =
        "[\n"                                                                                 /* 1 */
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"ph\":\"X\"}\n"  /* 2 */
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\n"                                     /* 3 cut */
        "\"tid\":1,\"ts\":12,\"dur\":1,\"ph\":\"X\"}\n"                                         /* 4 */
        "\x01\x02\xff garbage\n"                                                              /* 5 */
        "{\"name\":\"bad\nline\",\"ph\":\"X\"}\n";                                             /* 6, 7: raw newline */
    const char *tail =
        "\n"                                                                                  /* 8 = the big line */
        "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":-3,\"ph\":\"X\"}\n"  /* 9 */
        "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":2,\"ph\":\"X\"},\n"  /* 10 */
        "]";
    size_t n = strlen(head) + strlen(big) + strlen(tail);
    char *text = malloc(n + 1);
    strcpy(text, head); strcat(text, big); strcat(text, tail);
    dfn_store *s = su_load_text("m.pfw", text, 2);
    cr_assert_eq(s->n, 2);
    const dfn_srcinfo *si = &s->src[0];
    cr_assert_eq(si->lines, 11);
    cr_assert_eq(si->malformed, 7, "%" PRIu64, si->malformed);
    uint64_t want[] = { 3, 4, 5, 6, 7, 8, 9 };
    cr_assert_eq(dfn_src_more(si)->nbad, 7);
    for (size_t k = 0; k < 7; k++) cr_assert_eq(dfn_src_more(si)->bad_lines[k], want[k], "bad line %zu: %" PRIu64, k, dfn_src_more(si)->bad_lines[k]);
    cr_assert_str_eq(dfn_src_more(si)->bad_reason[6], "negative dur");
    cr_assert_eq(dfn_store_status(s), 1);
    dfn_store_free(s);
    free(text);
    free(big);
}

Test(load, truncated_gzip_keeps_complete_lines)
{
    char text[8192] = "";
    for (int i = 0; i < 60; i++) {
        char line[256];
        snprintf(line, sizeof line,
                 "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"ph\":\"X\",\"args\":{\"ret\":1}}\n", 100 + i);
        strcat(text, line);
    }
    size_t gl;
    unsigned char *gz = tu_gzip(text, strlen(text), &gl);
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "cut.pfw.gz", gz, gl * 2 / 3);
    const char *p[1] = { path };
    dfn_store *s = su_load_paths(p, 1, 2, 0);
    cr_assert_not_null(dfn_src_more(&s->src[0])->error);
    cr_assert(strstr(dfn_src_more(&s->src[0])->error, "byte"), "error names the offset: %s", dfn_src_more(&s->src[0])->error);
    cr_assert(s->n > 0 && s->n < 60, "%zu events before the damage", s->n);
    /* every event that loaded is whole: ts 100.. in order */
    for (size_t i = 0; i < s->n; i++) cr_assert_eq(dfn_store_ts(s, i), i);
    cr_assert_eq(dfn_store_status(s), 1);
    dfn_store_free(s);
    free(gz); free(path); free(dir);
}

Test(load, missing_file_is_status_3)
{
    const char *p[1] = { "/nonexistent/dfnav/x.pfw" };
    dfn_store *s = su_load_paths(p, 1, 1, 0);
    cr_assert_eq(s->n, 0);
    cr_assert_not_null(dfn_src_more(&s->src[0])->error);
    cr_assert_eq(dfn_store_status(s), 3);
    dfn_store_free(s);
}

Test(load, categories_compare_ignoring_case)
{
    const char *t =
        "{\"name\":\"read\",\"cat\":\"posix\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"ph\":\"X\",\"args\":{\"ret\":2}}\n"
        "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":1,\"ph\":\"X\",\"args\":{\"ret\":3}}\n";
    dfn_store *s = su_load_text("c.pfw", t, 1);
    dfn_result *r = su_query(s, "posix", "cat", NULL);
    cr_assert_eq(r->nrows, 1);
    cr_assert_eq(su_metric(s, r, "POSIX", DFN_M_BYTES), 5);
    dfn_result_free(r);
    r = su_query(s, "posix", "class", "cat=Posix");
    cr_assert_eq(su_metric(s, r, "read", DFN_M_COUNT), 2);
    dfn_result_free(r);
    dfn_store_free(s);
}

/* Writes text (freed) to file f of dir, named by fmt ("r%d.pfw"). */
static void write_numbered(const char *dir, const char *fmt, int f, char *text, size_t len)
{
    char name[32];
    snprintf(name, sizeof name, fmt, f);
    free(tu_write_file(dir, name, text, len));
    free(text);
}

/* The trace files of dir, as the command line finds them. */
static void expand_dir(const char *dir, dfn_inputs *in)
{
    const char *p[1] = { dir };
    dfn_inputs_expand(p, 1, in);
}

/* Many events across files and blocks: any thread count and block size
 * must give the identical store. */
static char *make_set(char *dir, int files, int per_file)
{
    unsigned seed = 12345;
    for (int f = 0; f < files; f++) {
        size_t cap = (size_t)per_file * 200 + 64, len = 0;
        char *t = malloc(cap);
        len += (size_t)sprintf(t + len, "[\n");
        for (int i = 0; i < per_file; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned ts = (unsigned)i * 10u + (seed >> 20) % 7u;   /* not sorted */
            len += (size_t)sprintf(t + len,
                "{\"id\":%d,\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%u,\"dur\":%u,\"ph\":\"X\",\"args\":{\"fname\":\"/d/f%u\",\"ret\":%u,\"epoch\":\"%u\"}}\n",
                i, (seed >> 8) % 3 ? "read" : "write", f, f + (i % 2), ts, (seed >> 4) % 100u, (seed >> 12) % 17u, (seed >> 3) % 5000u, (seed >> 16) % 4u);
        }
        write_numbered(dir, "r%d.pfw", f, t, len);
    }
    return dir;
}

/* s holds the events of ref in the same order: times, names and
 * arguments (key, type, value and text); with same_ids also the ids, the
 * tables and the escape counts, as a merge on one thread gives them. */
static void assert_same_store(const dfn_store *s, const dfn_store *ref, bool same_ids, int threads)
{
    cr_assert_eq(s->n, ref->n);
    if (same_ids) {
        cr_assert_eq(s->t0, ref->t0);
        cr_assert_eq(s->t1, ref->t1);
        cr_assert_eq(s->args_len, ref->args_len);
        cr_assert_eq(s->ts.nesc, ref->ts.nesc);
        cr_assert_eq(s->dur.nesc, ref->dur.nesc);
        cr_assert_eq(s->bytes.nesc, ref->bytes.nesc);
        cr_assert_eq(s->nlanes, ref->nlanes);
        cr_assert_eq(s->nkinds, ref->nkinds);
        cr_assert_eq(s->nfiles, ref->nfiles);
        for (size_t i = 0; i < s->nlanes; i++)
            cr_assert_str_eq(dfn_store_str(s, s->lanes[i].name), dfn_store_str(ref, ref->lanes[i].name));
        for (size_t i = 0; i < s->nkinds; i++) {
            cr_assert_str_eq(dfn_store_str(s, s->kinds[i].func), dfn_store_str(ref, ref->kinds[i].func));
            cr_assert_str_eq(dfn_store_str(s, s->kinds[i].cat), dfn_store_str(ref, ref->kinds[i].cat));
        }
        for (size_t i = 0; i < s->nfiles; i++)
            cr_assert_str_eq(dfn_store_str(s, s->files[i].path), dfn_store_str(ref, ref->files[i].path));
    }
    for (size_t i = 0; i < s->n; i++) {
        cr_assert_eq(dfn_store_ts(s, i), dfn_store_ts(ref, i), "event %zu, %d threads", i, threads);
        cr_assert_eq(dfn_store_dur(s, i), dfn_store_dur(ref, i));
        cr_assert_eq(dfn_store_bytes(s, i), dfn_store_bytes(ref, i));
        cr_assert_str_eq(dfn_store_str(s, s->files[dfn_store_file(s, i)].path), dfn_store_str(ref, ref->files[dfn_store_file(ref, i)].path));
        cr_assert_str_eq(dfn_store_str(s, s->lanes[dfn_store_lane(s, i)].name), dfn_store_str(ref, ref->lanes[dfn_store_lane(ref, i)].name));
        cr_assert_str_eq(dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func), dfn_store_str(ref, ref->kinds[dfn_store_kind(ref, i)].func));
        if (same_ids) {
            cr_assert_eq(dfn_store_lane(s, i), dfn_store_lane(ref, i));
            cr_assert_eq(dfn_store_kind(s, i), dfn_store_kind(ref, i));
            cr_assert_eq(dfn_store_file(s, i), dfn_store_file(ref, i));
        }
        dfn_arg a[8], b[8];
        size_t na = dfn_store_args(s, i, a, 8), nb = dfn_store_args(ref, i, b, 8);
        cr_assert_eq(na, nb);
        for (size_t j = 0; j < na && j < 8; j++) {
            cr_assert_str_eq(dfn_store_str(s, a[j].key), dfn_store_str(ref, b[j].key));
            cr_assert_eq(a[j].type, b[j].type);
            cr_assert_eq(a[j].i, b[j].i, "event %zu arg %zu", i, j);
            char va[256], vb[256];
            dfn_arg_text(s, &a[j], va, sizeof va);
            dfn_arg_text(ref, &b[j], vb, sizeof vb);
            cr_assert_str_eq(va, vb);
        }
    }
}

Test(load, same_store_for_any_thread_count_and_block_size)
{
    char *dir = make_set(tu_tmpdir(), 4, 5000);
    dfn_inputs in;
    expand_dir(dir, &in);
    cr_assert_eq(in.n, 4);
    dfn_store *ref = su_load_paths((const char *const *)in.paths, in.n, 1, 0);
    cr_assert_eq(ref->n, 20000);
    int threads[] = { 2, 3, 8 };
    size_t blocks[] = { 4096, 65536, 0 };
    for (int k = 0; k < 3; k++) {
        dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, threads[k], blocks[k]);
        assert_same_store(s, ref, false, threads[k]);
        /* and the same rows out of a query */
        dfn_result *r1 = su_query(s, "posix", "arg.epoch,func", NULL), *r2 = su_query(ref, "posix", "arg.epoch,func", NULL);
        cr_assert_eq(r1->nrows, r2->nrows);
        for (size_t row = 0; row < r1->nrows; row++)
            for (int m = 0; m < DFN_M_COUNT_; m++)
                if (r1->metrics & DFN_M_BIT(m))
                    cr_assert_eq(dfn_result_metric(r1, row, m), dfn_result_metric(r2, row, m));
        dfn_result_free(r1); dfn_result_free(r2);
        dfn_store_free(s);
    }
    dfn_store_free(ref);
    dfn_inputs_free(&in);
    free(dir);
}

/* A block's lanes, kinds and files sit in tables of a byte per call when
 * it has at most 256 of each, else as ids: a file whose one block has 300
 * threads, 290 functions and 270 files (ids), the same in 2 KiB blocks
 * (tables), and one of exactly 256 of each, give every call its own
 * thread, function and file, and the same store either way. */
Test(load, chunks_of_many_threads_and_functions)
{
    char *dir = tu_tmpdir();
    int lanes[] = { 300, 256 }, funcs[] = { 290, 256 }, files[] = { 270, 256 };
    for (int v = 0; v < 2; v++) {
        size_t cap = 1200 * 200, len = 0;
        char *t = malloc(cap);
        for (int i = 0; i < 1200; i++)
            len += (size_t)snprintf(t + len, cap - len,
                "{\"name\":\"f%d\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":%d,\"ts\":%d,\"dur\":3,\"ph\":\"X\","
                "\"args\":{\"fname\":\"/p/%d\"}}\n",
                (i * 7) % funcs[v], 1000 + i % lanes[v], 100 + i * 5, (i / 2) % files[v]);
        char name[32];
        snprintf(name, sizeof name, "many%d.pfw", v);
        char *path = tu_write_file(dir, name, t, len), *t0 = t;
        const char *paths[] = { path };
        dfn_store *whole = su_load_paths(paths, 1, 2, 0), *small = su_load_paths(paths, 1, 2, 2048);
        cr_assert_eq(whole->n, 1200);
        cr_assert_eq(whole->nlanes, (size_t)lanes[v]);
        cr_assert_eq(whole->nkinds, (size_t)funcs[v]);
        for (size_t i = 0; i < whole->n; i++) {
            char want[32];
            snprintf(want, sizeof want, "f%d", (int)(i * 7) % funcs[v]);
            cr_assert_str_eq(dfn_store_str(whole, whole->kinds[dfn_store_kind(whole, i)].func), want, "call %zu", i);
            cr_assert_eq(whole->lanes[dfn_store_lane(whole, i)].tid, 1000 + (int64_t)(i % (size_t)lanes[v]), "call %zu", i);
            snprintf(want, sizeof want, "/p/%d", (int)(i / 2) % files[v]);
            cr_assert_str_eq(dfn_store_str(whole, whole->files[dfn_store_file(whole, i)].path), want, "call %zu", i);
        }
        assert_same_store(small, whole, false, 2);
        /* the chunk itself: a byte a call past 256 ids would not fit */
        dfn_loadctx ctx;
        pc_ctx_init(&ctx);
        dfn_parser *pr = dfn_parser_new(&ctx);
        dfn_batch b = { 0 };
        dfn_parser_block(pr, t0, len, &b);
        cr_assert_eq(b.n, 1200);
        dfn_chunk *c = dfn_chunk_from_batch(NULL, &b, 0, 0);
        cr_assert_eq(c->lane.idx == NULL, lanes[v] > 256, "%d lanes", lanes[v]);
        cr_assert_eq(c->kind.idx == NULL, funcs[v] > 256, "%d functions", funcs[v]);
        cr_assert_eq(c->file.idx == NULL, files[v] > 256, "%d files", files[v]);
        for (size_t j = 0; j < c->n; j++) {
            cr_assert_eq(dfn_idcol_get(&c->lane, j), b.lane[j], "call %zu", j);   /* in time order already */
            cr_assert_eq(dfn_idcol_get(&c->kind, j), b.kind[j], "call %zu", j);
            cr_assert_eq(dfn_idcol_get(&c->file, j), b.file[j], "call %zu", j);
        }
        dfn_chunk_free(c);
        dfn_batch_free(&b);
        dfn_parser_free(pr);
        pc_ctx_free(&ctx);
        free(t0);
        dfn_store_free(whole);
        dfn_store_free(small);
        unlink(path);
        free(path);
    }
    rmdir(dir);
    free(dir);
}

/* Sets big enough that the merge runs in parts (2^16 events and more per
 * part): many events share a ts across files, so part boundaries fall
 * inside runs of ties; some ts jump past 32 bits inside a ts block and
 * some dur and bytes need 64 bits, so every column has escapes in every
 * part. The store must be the one merge on one thread gives, ids and all. */
Test(load, merge_in_parts_gives_the_one_merge_store)
{
    char *dir = tu_tmpdir();
    const int files = 4, per_file = 52000;
    unsigned seed = 777;
    for (int f = 0; f < files; f++) {
        size_t cap = (size_t)per_file * 260, len = 0;
        char *t = malloc(cap);
        for (int i = 0; i < per_file; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned long long ts = (unsigned long long)(i / 7) * 3 + (seed >> 30);
            if (i % 9973 == 0) ts += 1ull << 33;   /* far ahead: an escape where it lands */
            unsigned long long dur = i % 7919 == 0 ? (1ull << 34) + i : (seed >> 8) % 100u;
            unsigned long long ret = i % 6007 == 0 ? (1ull << 35) + 3 : (seed >> 3) % 5000u;
            len += (size_t)sprintf(t + len,
                "{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":%llu,\"dur\":%llu,\"ph\":\"X\","
                "\"args\":{\"fname\":\"/d%d/f%u\",\"ret\":%llu,\"step\":%d}}\n",
                i, (seed >> 8) % 5 ? "read" : (seed >> 9) % 3 ? "write" : "open", (seed >> 12) % 11 ? "POSIX" : "STDIO",
                f, (seed >> 14) % 3u, ts, dur, f, (seed >> 16) % 97u, ret, i);
        }
        write_numbered(dir, "p%d.pfw", f, t, len);
    }
    dfn_inputs in;
    expand_dir(dir, &in);
    dfn_store *ref = su_load_paths((const char *const *)in.paths, in.n, 1, 0);
    cr_assert_eq(ref->n, (size_t)files * per_file);
    cr_assert_gt(ref->ts.nesc + ref->dur.nesc + ref->bytes.nesc, 30u);
    int threads[] = { 2, 3, 8 };
    size_t blocks[] = { 0, 1 << 20, 300000 };
    for (int k = 0; k < 3; k++) {
        dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, threads[k], blocks[k]);
        assert_same_store(s, ref, true, threads[k]);
        dfn_store_free(s);
    }
    dfn_store_free(ref);
    dfn_inputs_free(&in);
    free(dir);
}

/* Takes snapshots until the load is done: each is a store like any
 * other (its events add up), of at most max events, and they only grow.
 * Returns how many were taken. */
static size_t snapshots_until_done(dfn_loader *l, size_t max)
{
    size_t snaps = 0, last = 0;
    for (;;) {
        dfn_progress pr;
        dfn_loader_progress(l, &pr);
        if (pr.done) break;
        dfn_store *s = dfn_loader_snapshot(l);
        if (!s) continue;
        snaps++;
        cr_assert_leq(s->n, max);
        dfn_result *r = su_query(s, "posix", NULL, NULL);
        cr_assert_eq(dfn_result_metric(r, 0, DFN_M_COUNT), s->n);
        dfn_result_free(r);
        cr_assert_geq(s->n, last);
        last = s->n;
        dfn_store_free(s);
    }
    return snaps;
}

/* Many small files, each read whole in one block, go into packs (more
 * than one, as a pack is sealed when full and at each snapshot): the
 * store must be the one a chunk a file gives, ties and all. Their events
 * share six start times with two large files (so the merge runs in parts
 * whose bounds fall inside runs of ties across packs and chunks); some
 * small files share a process, some are empty or blank, one has a bad
 * line and one metadata (those two are not packed). In ns too, where a µs
 * holds starts in another order than the file's. */
static char *make_small_files(void)
{
    char *dir = tu_tmpdir();
    unsigned seed = 4242;
    /* about 70,000 events in small files: more than one pack's worth */
    for (int f = 0; f < 4200; f++) {
        char *t = malloc(8192);
        size_t len = 0;
        int n = f % 400 == 7 ? 0 : 1 + f % 32;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            len += (size_t)sprintf(t + len,
                "{\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":%d,\"ts\":%u,\"dur\":%u,\"ph\":\"X\",\"args\":{\"fname\":\"/s/f%d\",\"ret\":%u}}\n",
                i % 2 ? "read" : "write", f % 9 == 0 ? 1 : f, 1 + i % 2, 1000 + (seed >> 20) % 6u, (seed >> 8) % 3000u, f % 13, (seed >> 3) % 9000u);
        }
        if (f % 500 == 3) len += (size_t)sprintf(t + len, "\n\n");
        if (f == 17) len += (size_t)sprintf(t + len, "{bad\n");
        if (f == 18) len += (size_t)sprintf(t + len, "{\"ph\":\"M\",\"name\":\"FH\",\"args\":{\"name\":\"/m/x\",\"value\":\"5\"}}\n");
        write_numbered(dir, "s%04d.pfw", f, t, len);
    }
    for (int f = 0; f < 2; f++) {
        size_t per_file = 70000, cap = per_file * 160, len = 0;
        char *t = malloc(cap);
        for (size_t i = 0; i < per_file; i++) {
            seed = seed * 1103515245u + 12345u;
            len += (size_t)sprintf(t + len,
                "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%u,\"dur\":%u,\"ph\":\"X\",\"args\":{\"fname\":\"/b/f%zu\",\"ret\":%zu}}\n",
                90000 + f, 1000 + (seed >> 20) % 6u, (seed >> 8) % 50u, i % 5, i);
        }
        write_numbered(dir, "z%d.pfw", f, t, len);   /* after the small files: their ties come first */
    }
    return dir;
}

/* The figures of each file that its events give, in the store's units. */
static const struct { size_t off; const char *name; } src_figures[] = {
    { offsetof(dfn_srcinfo, lines), "lines" },       { offsetof(dfn_srcinfo, events), "events" },
    { offsetof(dfn_srcinfo, skipped), "skipped" },   { offsetof(dfn_srcinfo, malformed), "malformed" },
    { offsetof(dfn_srcinfo, metadata), "metadata" }, { offsetof(dfn_srcinfo, start_us), "start_us" },
    { offsetof(dfn_srcinfo, end_us), "end_us" },
};

static void assert_same_sources(const dfn_store *s, const dfn_store *ref)
{
    cr_assert_eq(s->nsrc, ref->nsrc);
    for (size_t f = 0; f < s->nsrc; f++) {
        const dfn_srcinfo *a = &s->src[f], *b = &ref->src[f];
        for (size_t k = 0; k < sizeof src_figures / sizeof *src_figures; k++)
            cr_assert_eq(*(const uint64_t *)((const char *)a + src_figures[k].off),
                         *(const uint64_t *)((const char *)b + src_figures[k].off), "%s: %s", a->path, src_figures[k].name);
        const dfn_srcmore *ma = dfn_src_more(a), *mb = dfn_src_more(b);
        cr_assert_eq(ma->ns_rounding, mb->ns_rounding, "%s", a->path);
        cr_assert_eq(ma->ns_zeroed, mb->ns_zeroed, "%s", a->path);
        cr_assert_eq(ma->ns_total, mb->ns_total, "%s", a->path);
        cr_assert_eq(!a->more, !b->more, "%s: rarer figures", a->path);
        cr_assert_eq(a->unit, b->unit, "%s", a->path);
        cr_assert_str_eq(a->era, b->era, "%s", a->path);
    }
}

/* (600 s: eight loads of 4,202 files take 85 s under AddressSanitizer on a
 * kernel without the shared zero page, where each file's 1 MiB read
 * buffer is a fresh mapping whose shadow is cleared page by page) */
Test(load, packed_small_files_give_the_store_of_a_chunk_a_file, .timeout = 600)
{
    char *dir = make_small_files();
    dfn_inputs in;
    expand_dir(dir, &in);
    cr_assert_eq(in.n, 4202);
    dfn_unit units[] = { DFN_UNIT_NONE, DFN_UNIT_NS };
    for (int u = 0; u < 2; u++) {
        dfn_load_opts ro = { .threads = 1, .time_unit = units[u], .no_pack = true };
        dfn_store *ref = dfn_load((const char *const *)in.paths, in.n, &ro);
        cr_assert_gt(ref->n, 1u << 17);
        int threads[] = { 1, 2, 3 };
        for (int k = 0; k < 3; k++) {
            dfn_load_opts o = { .threads = threads[k], .time_unit = units[u] };
            dfn_store *s = dfn_load((const char *const *)in.paths, in.n, &o);
            assert_same_store(s, ref, true, threads[k]);
            assert_same_sources(s, ref);
            dfn_store_free(s);
        }
        dfn_store_free(ref);
    }
    dfn_inputs_free(&in);
    free(dir);
}

/* A snapshot seals the pack so far and later files start another: the
 * snapshots add up, and the store after many of them is the one a chunk a
 * file gives. */
Test(load, snapshots_of_packed_files, .timeout = 600)
{
    char *dir = make_small_files();
    dfn_inputs in;
    expand_dir(dir, &in);
    dfn_load_opts ro = { .threads = 1, .no_pack = true };
    dfn_store *ref = dfn_load((const char *const *)in.paths, in.n, &ro);
    dfn_load_opts o = { .threads = 2 };
    dfn_loader *l = dfn_loader_start((const char *const *)in.paths, in.n, &o);
    size_t snaps = snapshots_until_done(l, ref->n);
    dfn_store *s = dfn_loader_finish(l);
    cr_assert_gt(snaps, 0, "at least one snapshot while loading");
    assert_same_store(s, ref, true, 2);
    assert_same_sources(s, ref);
    dfn_store_free(s);
    dfn_store_free(ref);
    dfn_inputs_free(&in);
    free(dir);
}

/* Files one after another in time, each one chunk of a multiple of 16
 * events: every merge part after the first starts behind chunks that
 * wholly precede it, whose records must end where the chunk's index says
 * (an index without its end entry put every later part's records at the
 * wrong place, and arg.NAME grouped wrongly with more than one thread).
 * Odd sizes beside them keep both kinds of chunk end in one set. */
/* Event i of file f starts at f * 100000 + 5i and has epoch f * 100000 + i:
 * each event's own arguments, whatever merge part it fell in. */
static void assert_epoch_follows_ts(const dfn_store *s, int threads)
{
    uint32_t key = dfn_strtab_find(s->strs, "epoch", 5);
    cr_assert_neq(key, DFN_NOID);
    for (size_t e = 0; e < s->n; e++) {
        dfn_arg a;
        cr_assert(dfn_store_arg(s, e, key, &a), "event %zu, %d threads", e, threads);
        uint64_t ts = dfn_store_ts(s, e) + s->t0;
        cr_assert_eq((uint64_t)a.i, ts / 100000 * 100000 + ts % 100000 / 5, "event %zu, %d threads", e, threads);
    }
}

Test(load, parts_start_after_whole_chunks_of_any_size)
{
    char *dir = tu_tmpdir();
    const int files = 12;
    size_t total = 0;
    for (int f = 0; f < files; f++) {
        int per_file = 16384 + (f % 3 == 2 ? 7 : 0);
        size_t cap = (size_t)per_file * 160, len = 0;
        char *t = malloc(cap);
        for (int i = 0; i < per_file; i++)
            len += (size_t)sprintf(t + len,
                "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":3,\"ph\":\"X\","
                "\"args\":{\"ret\":%d,\"epoch\":%d%s}}\n",
                f, f * 100000 + i * 5, i % 7, f * 100000 + i, i % 5 ? "" : ",\"x\":\"y\"");
        total += (size_t)per_file;
        write_numbered(dir, "c%02d.pfw", f, t, len);
    }
    dfn_inputs in;
    expand_dir(dir, &in);
    dfn_store *ref = su_load_paths((const char *const *)in.paths, in.n, 1, 64 << 20);
    cr_assert_eq(ref->n, total);
    assert_epoch_follows_ts(ref, 1);
    int threads[] = { 2, 3, 7 };
    for (int k = 0; k < 3; k++) {
        dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, threads[k], 64 << 20);
        assert_same_store(s, ref, true, threads[k]);
        assert_epoch_follows_ts(s, threads[k]);
        dfn_store_free(s);
    }
    dfn_store_free(ref);
    dfn_inputs_free(&in);
    free(dir);
}

/* Records of 255 bytes and more have no length in their chunk: the
 * merge must find their ends itself, and the events after them keep
 * their own arguments. */
Test(load, long_argument_records_survive_the_merge)
{
    char *dir = tu_tmpdir();
    const int files = 2, per_file = 3000, wide = 40;
    for (int f = 0; f < files; f++) {
        size_t cap = (size_t)per_file * 1200, len = 0;
        char *t = malloc(cap);
        for (int i = 0; i < per_file; i++) {
            int step = f * per_file + i;
            /* the files interleave in time, so records of both meet in the merge */
            len += (size_t)sprintf(t + len,
                "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":1,\"ph\":\"X\",\"args\":{\"step\":%d",
                f, 2 * i + f, step);
            if (i % 3 == 0)
                for (int k = 0; k < wide; k++)
                    len += (size_t)sprintf(t + len, ",\"a%d\":%llu", k, 18000000000000000000ull + (unsigned long long)step * 64 + (unsigned)k);
            len += (size_t)sprintf(t + len, "}}\n");
        }
        write_numbered(dir, "w%d.pfw", f, t, len);
    }
    dfn_inputs in;
    expand_dir(dir, &in);
    uint32_t akey[64];
    for (int threads = 1; threads <= 3; threads += 2) {
        dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, threads, 1 << 16);
        cr_assert_eq(s->n, (size_t)files * per_file);
        uint32_t step_key = dfn_strtab_find(s->strs, "step", 4);
        cr_assert_neq(step_key, DFN_NOID);
        for (int k = 0; k < wide; k++) {
            char kn[8];
            int kl = snprintf(kn, sizeof kn, "a%d", k);
            akey[k] = dfn_strtab_find(s->strs, kn, (size_t)kl);
        }
        for (size_t e = 0; e < s->n; e++) {
            /* ts 2i+f puts event i of file f at position 2i+f */
            int f = (int)(e % 2), i = (int)(e / 2), step = f * per_file + i;
            dfn_arg a;
            cr_assert(dfn_store_arg(s, e, step_key, &a), "event %zu", e);
            cr_assert_eq(a.i, step, "event %zu, %d threads", e, threads);
            cr_assert_eq(dfn_store_args(s, e, NULL, 0), i % 3 == 0 ? (size_t)wide + 1 : 1u, "event %zu", e);
            for (int k = 0; i % 3 == 0 && k < wide; k++) {
                cr_assert(dfn_store_arg(s, e, akey[k], &a), "event %zu a%d", e, k);
                cr_assert_eq(a.type, DFN_ARG_UINT);
                cr_assert_eq(a.u, 18000000000000000000ull + (unsigned long long)step * 64 + (unsigned)k, "event %zu a%d", e, k);
            }
        }
        dfn_store_free(s);
    }
    dfn_inputs_free(&in);
    free(dir);
}

/* An argument equal to the one before it (type and value), of two varint
 * bytes or more, is kept once in the record (DFN_ARG_SAME): every
 * argument still reads back exactly, as numbers, negatives, numbers past
 * 2^63, strings, runs of four (the fourth a quoted "70000", which reads as
 * the number, as quoted eras write numbers), neighbours that only look
 * alike (-500 and 500, equal values not side by side), and small equal
 * values (5 and 5), which are written twice; a read's equal ret and count
 * take 4 bytes less than unequal ones; and tables and filters by either
 * argument see both. */
Test(load, equal_neighbour_arguments_are_kept_once)
{
    char *same = NULL, *differ = NULL;
    size_t ls = 0, ld = 0;
    FILE *fs = open_memstream(&same, &ls), *fd = open_memstream(&differ, &ld);
    for (int i = 0; i < 100; i++) {
        fprintf(fs, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"ph\":\"X\","
                    "\"args\":{\"ret\":4194304,\"count\":4194304,\"a\":-500,\"b\":-500,\"c\":500,\"s\":\"x\",\"t\":\"x\","
                    "\"u\":70000,\"v\":70000,\"w\":70000,\"y\":\"70000\",\"z\":5,\"z2\":5,\"n\":null,\"o\":null,\"big\":18446744073709551615,\"big2\":18446744073709551615}}\n", 10 + 3 * i);
        fprintf(fd, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"ph\":\"X\","
                    "\"args\":{\"ret\":4194304,\"count\":4194305,\"a\":-500,\"b\":-500,\"c\":500,\"s\":\"x\",\"t\":\"x\","
                    "\"u\":70000,\"v\":70000,\"w\":70000,\"y\":\"70000\",\"z\":5,\"z2\":6,\"n\":null,\"o\":null,\"big\":18446744073709551615,\"big2\":18446744073709551615}}\n", 10 + 3 * i);
    }
    fclose(fs);
    fclose(fd);
    dfn_store *s = su_load_text("same.pfw", same, 2), *d = su_load_text("differ.pfw", differ, 2);
    free(same);
    free(differ);
    cr_assert_eq(s->n, 100);
    cr_assert_eq(d->n, 100);
    /* count 4194305 (4 bytes) instead of the same as ret; z2 6 instead of 5, both a byte */
    cr_assert_eq(d->args_len - s->args_len, 4 * 100, "%zu and %zu bytes", s->args_len, d->args_len);
    struct { const char *key; dfn_argtype type; int64_t v; } want[] = {
        { "ret", DFN_ARG_INT, 4194304 }, { "count", DFN_ARG_INT, 4194304 }, { "a", DFN_ARG_INT, -500 },
        { "b", DFN_ARG_INT, -500 }, { "c", DFN_ARG_INT, 500 }, { "s", DFN_ARG_STR, 0 }, { "t", DFN_ARG_STR, 0 },
        { "u", DFN_ARG_INT, 70000 }, { "v", DFN_ARG_INT, 70000 }, { "w", DFN_ARG_INT, 70000 },
        { "y", DFN_ARG_INT, 70000 }, { "z", DFN_ARG_INT, 5 }, { "z2", DFN_ARG_INT, 5 }, { "n", DFN_ARG_NULL, 0 },
        { "o", DFN_ARG_NULL, 0 },
        { "big", DFN_ARG_UINT, 0 }, { "big2", DFN_ARG_UINT, 0 },
    };
    size_t nw = sizeof want / sizeof *want;
    for (size_t i = 0; i < s->n; i += 33) {
        dfn_arg a[DFN_ARGS_MAX];
        cr_assert_eq(dfn_store_args(s, i, a, DFN_ARGS_MAX), nw, "event %zu", i);
        for (size_t k = 0; k < nw; k++) {
            cr_assert_str_eq(dfn_store_str(s, a[k].key), want[k].key, "event %zu arg %zu", i, k);
            cr_assert_eq(a[k].type, want[k].type, "%s: type %d", want[k].key, (int)a[k].type);
            if (want[k].type == DFN_ARG_UINT) cr_assert_eq(a[k].u, UINT64_MAX, "%s", want[k].key);
            if (want[k].type == DFN_ARG_INT) cr_assert_eq(a[k].i, want[k].v, "%s", want[k].key);
            if (want[k].type == DFN_ARG_STR)
                cr_assert_str_eq(dfn_store_str(s, a[k].str), "x", "%s", want[k].key);
            dfn_arg one;   /* the look-up of one argument agrees */
            cr_assert(dfn_store_arg(s, i, a[k].key, &one), "%s", want[k].key);
            cr_assert(one.type == a[k].type && one.u == a[k].u && one.i == a[k].i && one.str == a[k].str, "%s", want[k].key);
        }
    }
    /* tables by each argument, and filters on them, through the query's
     * own reading of a record (argpos) */
    const char *bys[] = { "arg.count", "arg.ret", "arg.b", "arg.t", "arg.w", "arg.o", "arg.big2" };
    const char *keys[] = { "4194304", "4194304", "-500", "x", "70000", "null", "18446744073709551615" };
    for (size_t k = 0; k < sizeof bys / sizeof *bys; k++) {
        dfn_result *r = su_query(s, NULL, bys[k], NULL);
        cr_assert_eq(r->nrows, 1, "by %s", bys[k]);
        cr_assert_eq(su_metric(s, r, keys[k], DFN_M_COUNT), 100, "by %s", bys[k]);
        dfn_result_free(r);
    }
    dfn_result *r = su_query(s, NULL, "func", "arg.count=4194304 arg.v=70000 arg.b<0 arg.z2=5");
    cr_assert_eq(su_metric(s, r, "read", DFN_M_COUNT), 100);
    dfn_result_free(r);
    dfn_store_free(s);
    dfn_store_free(d);
}

/* The first line of a kind may escape its name ("re\\u0061d"): the bytes
 * rule is the name's as it reads, the same on every parser thread, so
 * reads count ret and freads size x ret on every line whatever thread
 * and block saw that line first. */
Test(load, escaped_first_name_keeps_the_bytes_rule)
{
    char *dir = tu_tmpdir();
    const int files = 3, per_file = 3000;
    for (int f = 0; f < files; f++) {
        size_t cap = (size_t)per_file * 200, len = 0;
        char *t = malloc(cap);
        for (int i = 0; i < per_file; i++) {
            bool fr = i % 2;
            /* every block's first read or fread of a file is escaped */
            bool esc = i % 50 < 2;
            len += (size_t)sprintf(t + len,
                "{\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":2,\"ph\":\"X\","
                "\"args\":{\"ret\":%d%s}}\n",
                fr ? (esc ? "fre\\u0061d" : "fread") : (esc ? "re\\u0061d" : "read"), fr ? "STDIO" : "POSIX", f, i * 3,
                100 + i % 7, fr ? ",\"size\":3" : "");
        }
        write_numbered(dir, "e%d.pfw", f, t, len);
    }
    uint64_t want_read = 0, want_fread = 0;
    for (int i = 0; i < per_file; i++) *(i % 2 ? &want_fread : &want_read) += (uint64_t)(100 + i % 7) * (i % 2 ? 3 : 1);
    dfn_inputs in;
    expand_dir(dir, &in);
    for (int threads = 1; threads <= 3; threads++) {
        dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, threads, 4096);
        dfn_result *r = su_query(s, "posix", "func", NULL);
        cr_assert_eq(r->nrows, 2);
        cr_assert_eq(su_metric(s, r, "read", DFN_M_BYTES), (double)(files * want_read), "%d threads", threads);
        cr_assert_eq(su_metric(s, r, "fread", DFN_M_BYTES), (double)(files * want_fread), "%d threads", threads);
        dfn_result_free(r);
        dfn_store_free(s);
    }
    dfn_inputs_free(&in);
    free(dir);
}

Test(load, directories_and_globs_expand_sorted)
{
    char *dir = tu_tmpdir();
    free(tu_write_file(dir, "b.pfw", "", 0));
    free(tu_write_file(dir, "a.pfw.gz", "", 0));
    free(tu_write_file(dir, "a.pfw.gz.zindex", "x", 1));
    free(tu_write_file(dir, "notes.txt", "x", 1));
    char glob[4096];
    snprintf(glob, sizeof glob, "%s/*.pfw", dir);
    const char *args[3] = { dir, glob, "/nonexistent/dfnav" };
    dfn_inputs in;
    dfn_inputs_expand(args, 3, &in);
    cr_assert_eq(in.n, 2, "the glob names b.pfw again: loaded once");
    cr_assert(strstr(in.paths[0], "/a.pfw.gz") != NULL);
    cr_assert(strstr(in.paths[1], "/b.pfw") != NULL);
    cr_assert_eq(in.nerrors, 1);
    dfn_inputs_free(&in);
    free(dir);
}

/* Each file once, by whatever path reached it: a link beside its target
 * (latest -> run1), links back to the folder itself and to its parent,
 * the folder and a file in it both named, the folder named twice; walks
 * through those loops end. Hidden folders (.dftindex/) are side files of
 * other tools and are not walked. */
Test(load, each_file_once_through_links_and_loops)
{
    char *dir = tu_tmpdir(), p[4096], q[4096];
    snprintf(p, sizeof p, "%s/run1", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    free(tu_write_file(p, "t.pfw", "", 0));
    snprintf(p, sizeof p, "%s/.dftindex", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    free(tu_write_file(p, "index.pfw", "", 0));
    const char *links[][2] = { { "run1", "latest" }, { ".", "run1/self" }, { "..", "run1/up" }, { ".", "again" } };
    for (size_t k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, links[k][1]);
        cr_assert_eq(symlink(links[k][0], p), 0, "%s", p);
    }
    snprintf(p, sizeof p, "%s/run1/t.pfw", dir);
    snprintf(q, sizeof q, "%s/latest", dir);
    const char *args[4] = { dir, p, q, dir };
    dfn_inputs in;
    dfn_inputs_expand(args, 4, &in);
    cr_assert_eq(in.n, 1, "one file, %zu paths", in.n);
    cr_assert_str_eq(in.paths[0], p, "named by its own path, not through latest");
    cr_assert_eq(in.nerrors, 0);
    dfn_inputs_free(&in);
    /* a link above the named folder is not followed, and says so: up ->
     * .. at the top would walk everything beside the set */
    snprintf(p, sizeof p, "%s/run1", dir);
    snprintf(q, sizeof q, "%s/run1/above", dir);
    cr_assert_eq(symlink("../..", q), 0);
    const char *one[1] = { p };
    dfn_inputs_expand(one, 1, &in);
    cr_assert_eq(in.n, 1, "%zu paths", in.n);
    cr_assert_eq(in.nerrors, 2, "up -> .. and above -> ../.. named: %zu", in.nerrors);
    cr_assert(strstr(in.errors[0], "not followed"), "%s", in.errors[0]);
    dfn_inputs_free(&in);
    /* a hidden folder named on the command line is the user's choice */
    snprintf(p, sizeof p, "%s/.dftindex", dir);
    const char *hidden[1] = { p };
    dfn_inputs_expand(hidden, 1, &in);
    cr_assert_eq(in.n, 1);
    dfn_inputs_free(&in);
    free(dir);
}

/* ---- real traces of three eras ---- */

Test(real, dlio_unet3d_counts_and_span)
{
    const char *t = su_traces_dir();
    if (!t) { cr_skip_test("../shared/traces not found: real-trace tests skipped"); }
    char p[4096];
    snprintf(p, sizeof p, "%s/dlio-unet3d", t);
    const char *args[1] = { p };
    dfn_inputs in;
    dfn_inputs_expand(args, 1, &in);
    cr_assert_eq(in.n, 8);
    dfn_store *s = su_load_paths((const char *const *)in.paths, in.n, 2, 0);
    cr_assert_eq(s->n, 18039);
    cr_assert_eq(s->t1 - s->t0, 56695354);
    cr_assert_eq(s->unresolved_hashes, 0);
    cr_assert_eq(s->hash_conflicts, 0);
    for (size_t i = 0; i < s->nsrc; i++) {
        cr_assert_str_eq(s->src[i].era, "v1.0.8");
        cr_assert_eq(s->src[i].malformed, 0);
    }
    dfn_store_free(s);
    dfn_inputs_free(&in);
}

Test(real, v0_quoted_plain_and_gzip_agree)
{
    const char *t = su_traces_dir();
    if (!t) { cr_skip_test("../shared/traces not found: real-trace tests skipped"); }
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/v0-quoted/test.pfw", t);
    snprintf(b, sizeof b, "%s/v0-quoted/test.pfw.gz", t);
    const char *pa[1] = { a }, *pb[1] = { b };
    dfn_store *s1 = su_load_paths(pa, 1, 2, 0), *s2 = su_load_paths(pb, 1, 2, 0);
    cr_assert_eq(s1->n, 1012);
    cr_assert_eq(s2->n, 1012);
    cr_assert_str_eq(s1->src[0].era, "v0.0.2-v1.0.4");
    uint64_t b1 = 0, b2 = 0;
    for (size_t i = 0; i < s1->n; i++) { b1 += dfn_store_bytes(s1, i); b2 += dfn_store_bytes(s2, i); }
    cr_assert_eq(b1, b2);
    cr_assert(b1 > 0);
    dfn_store_free(s1);
    dfn_store_free(s2);
}

Test(real, dlio_2023_gzip)
{
    const char *t = su_traces_dir();
    if (!t) { cr_skip_test("../shared/traces not found: real-trace tests skipped"); }
    char a[4096];
    snprintf(a, sizeof a, "%s/dlio-2023/test-trace.pfw.gz", t);
    const char *pa[1] = { a };
    dfn_store *s = su_load_paths(pa, 1, 2, 0);
    cr_assert_eq(s->n, 93894);
    cr_assert_eq(s->src[0].malformed, 0);
    cr_assert_null(dfn_src_more(&s->src[0])->error);
    cr_assert(s->src[0].gzip && strcmp(dfn_src_compression(&s->src[0]), "gzip") == 0);
    dfn_store_free(s);
}

Test(load, snapshots_while_loading_and_cancel)
{
    char *dir = make_set(tu_tmpdir(), 8, 20000);
    dfn_inputs in;
    expand_dir(dir, &in);
    dfn_load_opts o = { .threads = 2, .block_size = 65536 };
    dfn_loader *l = dfn_loader_start((const char *const *)in.paths, in.n, &o);
    size_t snaps = snapshots_until_done(l, 160000);
    dfn_store *s = dfn_loader_finish(l);
    cr_assert_eq(s->n, 160000);
    cr_assert_gt(snaps, 0, "at least one snapshot while loading");
    dfn_store_free(s);
    /* cancelling stops the threads and gives no store */
    l = dfn_loader_start((const char *const *)in.paths, in.n, &o);
    dfn_loader_cancel(l);
    cr_assert_null(dfn_loader_finish(l));
    dfn_inputs_free(&in);
    free(dir);
}

/* A wide line grows the parser's token array for good; a deep line after
 * it must still have its depth checked (jsmn's cost is the square of the
 * depth), not slip through on the bigger array. */
Test(load, deep_line_after_a_wide_one_is_refused)
{
    size_t cap = 1u << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "{\"name\":\"w\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":{");
    for (int k = 0; k < 3000; k++) n += (size_t)sprintf(t + n, "%s\"k%d\":%d", k ? "," : "", k, k);
    n += (size_t)sprintf(t + n, "}}\n{\"name\":\"d\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"ph\":\"X\",\"a\":");
    for (int k = 0; k < 5000; k++) t[n++] = '[';
    for (int k = 0; k < 5000; k++) t[n++] = ']';
    n += (size_t)sprintf(t + n, "}\n");
    cr_assert_lt(n, cap);
    dfn_store *s = su_load_text("deep.pfw", t, 1);
    cr_assert_eq(s->n, 1);
    const dfn_srcinfo *si = &s->src[0];
    cr_assert_eq(dfn_src_more(si)->nbad, 1);
    cr_assert_eq(dfn_src_more(si)->bad_lines[0], 2);
    cr_assert_str_eq(dfn_src_more(si)->bad_reason[0], "JSON nested too deeply");
    dfn_store_free(s);
    free(t);
}

/* Chrome begin/end pairs close across blocks: 300 threads each begin an
 * outer and an inner call, then end them in reverse order much later in
 * the file, so with 4 KiB blocks nearly every pair spans blocks. Every
 * block size and thread count gives the same calls; an end without a
 * begin, a begin never ended and an end before its begin are malformed
 * with their lines. */
Test(load, begin_end_pairs_across_blocks)
{
    size_t cap = 1 << 20, len = 0;
    char *t = malloc(cap);
    for (int k = 0; k < 300; k++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"outer\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"args\":{\"k\":%d}}\n"
                                "{\"name\":\"inner\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%d}\n", k, 1000 + k, k, k, 1001 + k);
    for (int k = 299; k >= 0; k--)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"inner\",\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%d}\n"
                                "{\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%d}\n", k, 2001 + k, k, 5000 + 2 * k);
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"name\":\"lost\",\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":1}\n"        /* 1201 */
                            "{\"name\":\"open\",\"ph\":\"B\",\"pid\":3,\"tid\":1,\"ts\":9}\n"        /* 1202 */
                            "{\"name\":\"back\",\"ph\":\"B\",\"pid\":4,\"tid\":1,\"ts\":9}\n"        /* 1203 */
                            "{\"name\":\"back\",\"ph\":\"E\",\"pid\":4,\"tid\":1,\"ts\":8}\n");      /* 1204 */
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, "pairs.json", t, len);
    const char *paths[] = { path };
    size_t blocks[] = { 0, 4096, 65536 };
    for (int k = 0; k < 3; k++) {
        for (int threads = 1; threads <= 3; threads++) {
            dfn_store *s = su_load_paths(paths, 1, threads, blocks[k]);
            const dfn_srcinfo *si = &s->src[0];
            cr_assert_eq(s->n, 600, "block %zu, -j%d", blocks[k], threads);
            cr_assert_eq(si->events, 1200);
            cr_assert_eq(si->malformed, 4);
            cr_assert_eq(si->lines, 1204);
            cr_assert_eq(dfn_src_more(si)->bad_lines[0], 1201);
            cr_assert_str_eq(dfn_src_more(si)->bad_reason[0], "end of a call that did not begin on its thread");
            cr_assert_eq(dfn_src_more(si)->bad_lines[1], 1202);
            cr_assert_str_eq(dfn_src_more(si)->bad_reason[1], "call that began and never ended");
            cr_assert_eq(dfn_src_more(si)->bad_lines[2], 1203);
            cr_assert_eq(dfn_src_more(si)->bad_lines[3], 1204);
            dfn_result *r = su_query(s, "posix", "func", NULL);
            /* outer k lasts 5000 + 2k - (1000 + k) = 4000 + k; inner 1000 */
            cr_assert_eq(su_metric(s, r, "outer", DFN_M_COUNT), 300);
            cr_assert_eq(su_metric(s, r, "outer", DFN_M_TIME_S), (300 * 4000 + 299 * 300 / 2) / 1e6);
            cr_assert_eq(su_metric(s, r, "inner", DFN_M_TIME_S), 300 * 1000 / 1e6);
            dfn_result_free(r);
            r = su_query(s, "posix", "arg.k", "func=outer tid=7");
            cr_assert_eq(su_metric(s, r, "7", DFN_M_TIME_S), 4007 / 1e6);
            dfn_result_free(r);
            dfn_store_free(s);
        }
    }
    free(path);
    free(dir);
    free(t);
}
