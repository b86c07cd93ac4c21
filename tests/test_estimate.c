/* The memory estimate with figures known exactly: events counted in
 * sample text, sets of plain and gzip files whose text per event and
 * compression ratio are fixed by construction, which files are sampled,
 * the bytes of a load, and what limits the memory available (meminfo,
 * cgroup v1 and v2 trees built in a scratch directory, sizes), down to the
 * sentence a refused set gets. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dfnav/estimate.h"
#include "dfnav/util.h"
#include "testutil.h"

/* One event line of exactly width bytes with its newline (padding in a
 * name argument). */
static char *event_line(int width, unsigned ts)
{
    char head[128];
    int n = snprintf(head, sizeof head, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":5,\"ph\":\"X\",\"args\":{\"p\":\"", ts);
    int pad = width - n - 4;   /* "}}\n and the closing quote */
    cr_assert_geq(pad, 0);
    char *s = dfn_xmalloc((size_t)width + 1);
    memcpy(s, head, (size_t)n);
    memset(s + n, 'x', (size_t)pad);
    memcpy(s + n + pad, "\"}}\n", 5);
    cr_assert_eq(strlen(s), (size_t)width);
    return s;
}

/* lines events of width bytes (and meta metadata lines of the same width) */
static char *trace_text(size_t lines, size_t meta, int width, size_t *len)
{
    char *buf = NULL;
    size_t l = 0;
    FILE *m = open_memstream(&buf, &l);
    for (size_t i = 0; i < meta; i++) {
        char head[128];
        int n = snprintf(head, sizeof head, "{\"id\":%zu,\"name\":\"FH\",\"cat\":\"dftracer\",\"ph\":\"M\",\"args\":{\"p\":\"", i);
        fputs(head, m);
        for (int k = 0; k < width - n - 4; k++) fputc('y', m);
        fputs("\"}}\n", m);
    }
    for (size_t i = 0; i < lines; i++) {
        char *e = event_line(width, (unsigned)i);
        fputs(e, m);
        free(e);
    }
    fclose(m);
    *len = l;
    return buf;
}

static char *write_trace(const char *dir, const char *name, size_t lines, size_t meta, int width, bool gz, uint64_t *stored)
{
    size_t len;
    char *text = trace_text(lines, meta, width, &len);
    char *path;
    if (gz) {
        size_t zl;
        unsigned char *z = tu_gzip(text, len, &zl);
        path = tu_write_file(dir, name, z, zl);
        *stored = zl;
        free(z);
    } else {
        path = tu_write_file(dir, name, text, len);
        *stored = len;
    }
    free(text);
    return path;
}

Test(estimate, counts_events_not_metadata)
{
    const char *t =
        "[\n"
        "{\"id\":1,\"name\":\"HH\",\"ph\":\"M\",\"args\":{\"name\":\"n1\"}}\n"
        "{\"id\":2,\"name\":\"FH\",\"ph\" : \"M\",\"args\":{}}\n"
        "{\"name\":\"FH\",\"ph\":4,\"args\":{}}\n"
        "{\"name\":\"read\",\"ph\":\"X\",\"ts\":1,\"dur\":2}\n"
        "{\"name\":\"read\",\"ph\":1,\"ts\":1,\"dur\":2}\n"
        "{\"name\":\"read\",\"ph\":42,\"ts\":1,\"dur\":2}\n"
        "{\"ts\":\"1712599257392616\",\"name\":\"open\"}\n"
        "{\"name\":\"tsx\",\"tsc\":3}\n"
        "garbage without quotes\n"
        "]\n"
        "{\"name\":\"last\",\"ts\":9}";
    /* the X, the numeric ph 1 and 42, the quoted ts, the last line without a newline */
    cr_assert_eq(dfn_estimate_count(t, strlen(t)), 5);
    cr_assert_eq(dfn_estimate_count("", 0), 0);
}

Test(estimate, plain_and_gzip_sets_exactly)
{
    char *dir = tu_tmpdir();
    uint64_t sa, sb, sc;
    /* a: 1000 events of 100 bytes; b: 10 metadata lines and 1000 events of
     * 100 bytes; c (gzip): 10000 events of 100 bytes, 1 MB of text, more
     * than a sample reads */
    char *a = write_trace(dir, "a.pfw", 1000, 0, 100, false, &sa);
    char *b = write_trace(dir, "b.pfw", 1000, 10, 100, false, &sb);
    char *c = write_trace(dir, "c.pfw.gz", 10000, 0, 100, true, &sc);
    cr_assert_eq(sa, 100000);
    cr_assert_eq(sb, 101000);
    const char *files[] = { a, b, c, "-", "/nonexistent/x.pfw" };
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, files, 5);
    cr_assert_eq(e.files, 5);
    cr_assert_eq(e.unsized, 2, "standard input and a missing file");
    cr_assert_eq(e.plain_bytes, 201000);
    cr_assert_eq(e.gzip_bytes, sc);
    /* a and b whole, c's first block: whole 100-byte lines up to 512 KiB */
    uint64_t cblock = DFN_EST_SAMPLE_BYTES / 100 * 100;
    cr_assert_eq(e.sample_text, 201000 + cblock, "%" PRIu64, e.sample_text);
    cr_assert_eq(e.sample_events, 2000 + cblock / 100);
    cr_assert_gt(e.sample_gz_in, 0);
    cr_assert_leq(e.sample_gz_in, sc);
    cr_assert_geq(e.sample_gz_out, cblock);
    /* the samples' text per event is (201000 + cblock) / (2000 + cblock / 100),
     * a little over 100 for b's metadata; the gzip file counts at its ratio */
    double per = (201000.0 + (double)cblock) / (2000.0 + (double)cblock / 100);
    double text = 201000.0 + (double)sc * (double)e.sample_gz_out / (double)e.sample_gz_in;
    cr_assert_eq(dfn_estimate_events(&e), (uint64_t)llround(text / per));
    /* the ratio from the first block is that of the whole file here (the
     * same line repeated): about 12000 events in all, within 2% */
    uint64_t ev = dfn_estimate_events(&e);
    cr_assert(ev > 11760 && ev < 12240, "%" PRIu64, ev);
    free(a); free(b); free(c); free(dir);
}

Test(estimate, exact_when_every_line_is_alike)
{
    char *dir = tu_tmpdir();
    uint64_t s1, s2;
    char *p = write_trace(dir, "p.pfw", 20000, 0, 200, false, &s1);   /* 4 MB, sampled in part */
    char *z = write_trace(dir, "z.pfw.gz", 2000, 0, 200, true, &s2);  /* sampled whole */
    const char *files[] = { p, z };
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, files, 2);
    cr_assert_eq(e.sample_gz_in, s2, "the whole member consumed");
    cr_assert_eq(e.sample_gz_out, 400000);
    cr_assert_eq(dfn_estimate_events(&e), 22000);
    free(p); free(z); free(dir);
}

/* Which files are sampled: each file i holds 2^i lines, so the sampled
 * text says which. */
Test(estimate, samples_spread_over_the_set)
{
    char *dir = tu_tmpdir();
    char *files[10];
    uint64_t st;
    for (int i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%d.pfw", i);
        files[i] = write_trace(dir, name, (size_t)1 << i, 0, 100, false, &st);
    }
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, (const char *const *)files, 10);
    cr_assert_eq(e.sample_text, 100 * ((1 << 0) + (1 << 3) + (1 << 6) + (1 << 9)), "the 1st, 4th, 7th and 10th");
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, (const char *const *)files, 3);
    cr_assert_eq(e.sample_text, 100 * (1 + 2 + 4), "all of a short list");
    for (int i = 0; i < 10; i++) free(files[i]);
    free(dir);
}

Test(estimate, gzip_sampled_even_when_the_spread_misses_it)
{
    char *dir = tu_tmpdir();
    char *files[6];
    uint64_t st;
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%d.pfw%s", i, i == 2 ? ".gz" : "");
        files[i] = write_trace(dir, name, 100, 0, 100, i == 2, &st);
    }
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, (const char *const *)files, 6);
    cr_assert_eq(e.sample_gz_out, 10000, "f2.pfw.gz, outside 0 1 3 5, sampled too");
    cr_assert_eq(e.sample_text, 5 * 10000);
    cr_assert_eq(dfn_estimate_events(&e), 600);
    for (int i = 0; i < 6; i++) free(files[i]);
    free(dir);
}

Test(estimate, nothing_to_go_by)
{
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    const char *files[] = { "-" };
    dfn_estimate_add(&e, files, 1);
    cr_assert_eq(dfn_estimate_events(&e), 0);
    char msg[256] = "";
    cr_assert(dfn_estimate_fits(&e, 2, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg), "nothing known: it loads");
}

Test(estimate, bytes_of_a_load)
{
    cr_assert_eq(dfn_estimate_bytes(0, 0, 40), (uint64_t)8 << 20);
    cr_assert_eq(dfn_estimate_bytes(1000000, 2, 40), ((uint64_t)8 << 20) + ((uint64_t)24 << 20) + 40000000);
    cr_assert_eq(dfn_estimate_bytes(150000000, 64, 64), ((uint64_t)8 << 20) + ((uint64_t)768 << 20) + 9600000000ull);
    cr_assert_eq(dfn_estimate_bytes(UINT64_MAX / 8, 2, 40), UINT64_MAX, "saturates, never wraps to a small figure");
    cr_assert_eq(dfn_estimate_bytes(1, UINT64_MAX, 40), UINT64_MAX);
}

Test(estimate, sizes)
{
    uint64_t v;
    cr_assert(dfn_size_parse("100", &v)); cr_assert_eq(v, 100);
    cr_assert(dfn_size_parse("100B", &v)); cr_assert_eq(v, 100);
    cr_assert(dfn_size_parse("512M", &v)); cr_assert_eq(v, (uint64_t)512 << 20);
    cr_assert(dfn_size_parse("2GiB", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert(dfn_size_parse("2GB", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert(dfn_size_parse("1.5G", &v)); cr_assert_eq(v, (uint64_t)3 << 29);
    cr_assert(dfn_size_parse("4T", &v)); cr_assert_eq(v, (uint64_t)4 << 40);
    /* the filter's grammar (issue 23): any case, blanks around the unit */
    cr_assert(dfn_size_parse("64k", &v)); cr_assert_eq(v, (uint64_t)64 << 10);
    cr_assert(dfn_size_parse("512m", &v)); cr_assert_eq(v, (uint64_t)512 << 20);
    cr_assert(dfn_size_parse("2 g", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert(dfn_size_parse(" 2GIB ", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert(dfn_size_parse("2Gb", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert(dfn_size_parse("2G ", &v)); cr_assert_eq(v, (uint64_t)2 << 30);
    cr_assert_not(dfn_size_parse("", &v));
    cr_assert_not(dfn_size_parse("M", &v));
    cr_assert_not(dfn_size_parse("-1", &v));
    cr_assert_not(dfn_size_parse("2Gi", &v));
    cr_assert_not(dfn_size_parse("2GiBB", &v));
    cr_assert_not(dfn_size_parse("2X", &v));
    cr_assert_not(dfn_size_parse("99999999999T", &v));
    cr_assert_not(dfn_size_parse("2 G B", &v));
    cr_assert_not(dfn_size_parse("lots", &v));
}

Test(estimate, meminfo)
{
    const char *t = "MemTotal:       24576000 kB\nMemFree:        17000000 kB\nMemAvailable:   23872276 kB\nBuffers: 1 kB\n";
    uint64_t v;
    cr_assert(dfn_mem_meminfo(t, &v));
    cr_assert_eq(v, 23872276ull * 1024);
    cr_assert_not(dfn_mem_meminfo("MemTotal: 1 kB\n", &v), "old kernels lack it");
}

static void put(const char *root, const char *rel, const char *text)
{
    char *dir = dfn_xasprintf("%s/%s", root, rel);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    char *cmd = dfn_xasprintf("mkdir -p '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    free(tu_write_file(dir, slash + 1, text, strlen(text)));
    free(dir);
}

Test(estimate, cgroup_limits_v1_and_v2)
{
    char *root = tu_tmpdir();
    /* v2 at the root of the cgroup file systems: a limit on the parent
     * (1000000, 400000 used), none on the leaf */
    put(root, "job/step/memory.max", "max\n");
    put(root, "job/step/memory.current", "300000\n");
    put(root, "job/memory.max", "1000000\n");
    put(root, "job/memory.current", "400000\n");
    cr_assert_eq(dfn_mem_cgroup("0::/job/step\n", root), 600000);
    /* v1 beside it: "no limit" written as a number near 2^63, then a real one */
    put(root, "memory/slurm/uid/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "memory/slurm/uid/memory.usage_in_bytes", "100\n");
    put(root, "memory/slurm/memory.limit_in_bytes", "500000\n");
    put(root, "memory/slurm/memory.usage_in_bytes", "450000\n");
    cr_assert_eq(dfn_mem_cgroup("4:memory:/slurm/uid\n", root), 50000);
    cr_assert_eq(dfn_mem_cgroup("12:cpu,cpuacct:/slurm/uid\n4:memory:/slurm/uid\n0::/job/step\n", root), 50000,
                 "the least of all");
    /* v2 under unified/ (hybrid systems) */
    put(root, "unified/u/memory.max", "2000\n");
    put(root, "unified/u/memory.current", "3000\n");
    cr_assert_eq(dfn_mem_cgroup("0::/u\n", root), 0, "over its limit: nothing left");
    cr_assert_eq(dfn_mem_cgroup("0::/\n", root), UINT64_MAX, "the root is not limited");
    cr_assert_eq(dfn_mem_cgroup("4:memory:/nowhere\n0::/none\n", root), UINT64_MAX);
    cr_assert_eq(dfn_mem_cgroup("", root), UINT64_MAX);
    cr_assert_eq(dfn_mem_cgroup("garbage\n1:x\n", root), UINT64_MAX);
    free(root);
}

Test(estimate, the_sentence_of_a_set_that_does_not_fit)
{
    char *dir = tu_tmpdir();
    uint64_t st;
    char *a = write_trace(dir, "a.pfw", 5000, 0, 100, false, &st);
    char *b = write_trace(dir, "b.pfw", 5000, 0, 100, false, &st);
    const char *files[] = { a, b, "-" };
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, files, 3);
    cr_assert_eq(dfn_estimate_events(&e), 10000);
    /* 8 MiB + 12 MiB + 10000 * 40 B = 20.4 MiB */
    setenv("DFNAV_MEM_AVAILABLE", "10M", 1);
    char msg[512] = "";
    cr_assert_not(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    cr_assert_str_eq(msg, "this set needs about 20 MiB (3 files, ~10.0 k events estimated), only 10 MiB available (DFNAV_MEM_AVAILABLE)");
    cr_assert_not(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, true, msg, sizeof msg));
    cr_assert_eq(strncmp(msg, "these runs need about", 21), 0, "%s", msg);
    setenv("DFNAV_MEM_AVAILABLE", "1.5G", 1);
    msg[0] = 0;
    cr_assert(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    cr_assert_str_eq(msg, "", "nothing said when it fits");
    /* a large set, in GiB */
    e.plain_bytes = 100000000000ull;
    cr_assert_not(dfn_estimate_fits(&e, 8, DFN_EST_EXPLORER_PER_EVENT, false, msg, sizeof msg));
    cr_assert_str_eq(msg, "this set needs about 59.7 GiB (3 files, ~1.0 G events estimated), only 1.5 GiB available (DFNAV_MEM_AVAILABLE)");
    unsetenv("DFNAV_MEM_AVAILABLE");
    free(a); free(b); free(dir);
}

/* Many small files (issue 23): each file costs DFN_EST_PER_FILE and its
 * path's copies whatever its events, so a million tiny files are refused
 * where the same events in two files load. */
Test(estimate, files_cost_their_own_part)
{
    char *dir = tu_tmpdir();
    uint64_t st;
    char *a = write_trace(dir, "a.pfw", 5000, 0, 100, false, &st);
    char *b = write_trace(dir, "b.pfw", 5000, 0, 100, false, &st);
    const char *files[] = { a, b };
    dfn_estimate e;
    memset(&e, 0, sizeof e);
    dfn_estimate_add(&e, files, 2);
    cr_assert_eq(e.path_bytes, strlen(a) + strlen(b));
    setenv("DFNAV_MEM_AVAILABLE", "1G", 1);
    char msg[512] = "";
    cr_assert(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    /* 20.4 MiB + 10^6 * 640 B + 3 * 4 * 10^7 B = 745 MiB */
    setenv("DFNAV_MEM_AVAILABLE", "512M", 1);
    e.files = 1000000;
    e.path_bytes = 40000000;
    cr_assert_not(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    cr_assert_str_eq(msg, "this set needs about 745 MiB (1000000 files, ~10.0 k events estimated), only 512 MiB available (DFNAV_MEM_AVAILABLE)");
    e.files = 100000;
    e.path_bytes = 4000000;
    cr_assert(dfn_estimate_fits(&e, 1, DFN_EST_CLI_PER_EVENT, false, msg, sizeof msg));
    unsetenv("DFNAV_MEM_AVAILABLE");
    free(a); free(b); free(dir);
}

/* Distinct strings (issue 23): each once, quoted numbers not at all, and
 * only those first seen from the given offset. */
Test(estimate, distinct_strings_of_a_sample)
{
    const char *t = "{\"name\":\"read\",\"v\":\"aaa\",\"n\":\"123\"}\n"
                    "{\"name\":\"read\",\"v\":\"bbbb\",\"n\":\"-4.5\",\"e\":\"x\\\"y\",\"f\":\"/d/x\"}\n";
    size_t half = strchr(t, '\n') - t + 1;
    /* first line: name, read, v, aaa, n; second adds bbbb, e, x\"y, f and
     * the path /d/x */
    uint64_t n = 0;
    uint64_t all = dfn_estimate_strings(t, strlen(t), 0, &n);
    cr_assert_eq(all, 4 + 4 + 1 + 3 + 1 + 4 + 1 + 4 + 1 + 4 + 10 * DFN_EST_STRING_OWN + DFN_EST_PATH_OWN, "%" PRIu64, all);
    cr_assert_eq(n, 10);
    uint64_t second = dfn_estimate_strings(t, strlen(t), half, &n);
    cr_assert_eq(second, 4 + 1 + 4 + 1 + 4 + 5 * DFN_EST_STRING_OWN + DFN_EST_PATH_OWN, "%" PRIu64, second);
    cr_assert_eq(n, 5);
    cr_assert_eq(dfn_estimate_strings("\"cut", 4, 0, NULL), 0, "a string cut at the end is not counted");
}

/* The index of a string table, as strtab.c grows it: 1,024 slots hold 768
 * strings, the 769th doubles them, and the old slots and the new are both
 * there for a moment. */
Test(estimate, the_index_of_a_string_table)
{
    cr_assert_eq(dfn_estimate_strtab(0), 8 + 8 * 1024);
    cr_assert_eq(dfn_estimate_strtab(768), 8 * 1024 + 8 * 1024);
    /* 1,024 pointers; at the doubling, 1,024 old slots and 2,048 new */
    cr_assert_eq(dfn_estimate_strtab(769), 8 * 1024 + 8 * 1024 + 8 * 2048);
    /* 1.28 M strings (memory.sh's 20,000 lines of 64): 2^21 pointers and
     * slots at the end; at the doubling, 786,433 strings' 2^20 pointers
     * and 2^20 + 2^21 slots */
    cr_assert_eq(dfn_estimate_strtab(1280000), 8 * ((uint64_t)1 << 21) + 8 * ((uint64_t)1 << 21));
    cr_assert_eq(dfn_estimate_strtab(UINT64_MAX / 8), UINT64_MAX, "saturates");
}
