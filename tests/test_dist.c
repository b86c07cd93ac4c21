/* The distribution plan (dist.h): which rank of an MPI job reads which
 * file. Every rank computes it alone, so it must be a pure function of
 * the sizes; and the ranks' bytes must come out balanced. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dfnav/dist.h"
#include "dfnav/distload.h"
#include "dfnav/filehead.h"

static uint64_t rank_bytes(const uint64_t *bytes, const int *rank_of, size_t n, int r)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (rank_of[i] == r && bytes[i] != UINT64_MAX) sum += bytes[i];
    return sum;
}

/* Largest first onto the least loaded rank, the lowest on a tie. */
Test(dist, largest_first_onto_the_least_loaded)
{
    const uint64_t bytes[] = { 10, 70, 30, 30, 50, 20 };
    int rank_of[6];
    dfn_dist_plan(bytes, NULL, 6, 3, rank_of);
    /* 70 -> 0; 50 -> 1 (0 and 0: the lower); 30 (file 2) -> 2; 30 (file
     * 3) -> 2 (loads 70, 50, 30); 20 -> 1 (70, 50, 60); 10 -> 2 (70, 70,
     * 60): 70 bytes each */
    const int want[] = { 2, 0, 2, 2, 1, 1 };
    for (int i = 0; i < 6; i++) cr_assert_eq(rank_of[i], want[i], "file %d on rank %d", i, rank_of[i]);
    cr_assert_eq(rank_bytes(bytes, rank_of, 6, 0), 70);
    cr_assert_eq(rank_bytes(bytes, rank_of, 6, 1), 70);
    cr_assert_eq(rank_bytes(bytes, rank_of, 6, 2), 70);
}

/* What only rank 0 can read (standard input) stays there; one rank
 * reads everything; more ranks than files leave some idle. */
Test(dist, edges)
{
    const uint64_t bytes[] = { UINT64_MAX, 5, 5, 0 };
    int rank_of[4];
    dfn_dist_plan(bytes, NULL, 4, 2, rank_of);
    cr_assert_eq(rank_of[0], 0, "standard input on rank 0");
    /* rank 0 counts it as one byte: 5 -> rank 1 (1 > 0), 5 -> rank 0
     * (1 < 5), the empty file -> rank 1 (5 < 6) */
    cr_assert_eq(rank_of[1], 1);
    cr_assert_eq(rank_of[2], 0);
    cr_assert_eq(rank_of[3], 1, "an empty file counts as one byte where it goes");
    dfn_dist_plan(bytes, NULL, 4, 1, rank_of);
    for (int i = 0; i < 4; i++) cr_assert_eq(rank_of[i], 0);
    const uint64_t two[] = { 3, 4 };
    int r2[2];
    dfn_dist_plan(two, NULL, 2, 8, r2);
    cr_assert_eq(r2[1], 0);
    cr_assert_eq(r2[0], 1);
}

/* Many files of random sizes: no rank ends more than the largest file
 * above the mean (the greedy bound), and the same plan twice. */
Test(dist, balanced_and_repeatable)
{
    enum { N = 1000, R = 7 };
    uint64_t bytes[N], max = 0, total = 0, x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        bytes[i] = x % 100000000;
        total += bytes[i];
        if (bytes[i] > max) max = bytes[i];
    }
    int a[N], b[N];
    dfn_dist_plan(bytes, NULL, N, R, a);
    dfn_dist_plan(bytes, NULL, N, R, b);
    for (int i = 0; i < N; i++) cr_assert_eq(a[i], b[i]);
    for (int r = 0; r < R; r++) {
        uint64_t got = rank_bytes(bytes, a, N, r);
        cr_assert_leq(got, total / R + max, "rank %d: %llu bytes", r, (unsigned long long)got);
        cr_assert_geq(got + max, total / R, "rank %d: %llu bytes", r, (unsigned long long)got);
    }
}

/* The files of one group (one traced process) go together, as one of
 * their summed size, onto one rank; files of group 0 go alone. */
Test(dist, a_group_goes_together)
{
    const uint64_t bytes[] = { 40, 10, 30, 10, 25, 5 };
    const uint64_t group[] = { 0, 7, 0, 7, 9, 9 };
    int rank_of[6];
    dfn_dist_plan(bytes, group, 6, 2, rank_of);
    /* units: file 0 (40), group 7 (20, first file 1), file 2 (30), group
     * 9 (30, first file 4): 40 -> 0; 30 (file 2) -> 1; 30 (group 9) -> 1
     * (30 < 40); 20 (group 7) -> 0 (40 < 60) */
    const int want[] = { 0, 0, 1, 0, 1, 1 };
    for (int i = 0; i < 6; i++) cr_assert_eq(rank_of[i], want[i], "file %d on rank %d", i, rank_of[i]);
    /* a group's key of all ones is a group like any other */
    const uint64_t ones[] = { UINT64_MAX - 1, UINT64_MAX - 1, 3, 3 };
    const uint64_t b4[] = { 10, 10, 10, 10 };
    int r4[4];
    dfn_dist_plan(b4, NULL, 4, 2, r4);
    cr_assert_neq(r4[0], r4[1], "without groups equal files alternate");
    dfn_dist_plan(b4, ones, 4, 2, r4);
    cr_assert_eq(r4[0], r4[1]);
    cr_assert_eq(r4[2], r4[3]);
    cr_assert_neq(r4[0], r4[2]);
}

/* A head names its process by host and pid in any era's spelling: quoted
 * or not, inline hostname or a hash; pid alone without a host. */
Test(dist, file_heads)
{
    dfn_filehead a, b, c, d;
    const char *v0 = "[\n {\"id\":\"0\",\"name\":\"open\",\"pid\":\"12\",\"tid\":\"3\",\"ph\":\"X\","
                     "\"args\":{\"hostname\":\"n1\"}},\n";
    const char *v1 = "{\"name\":\"read\",\"pid\":12,\"tid\":4,\"ph\":\"X\",\"args\":{\"hostname\":\"n1\"}}\n";
    const char *other = "{\"name\":\"read\",\"pid\":12,\"args\":{\"hostname\":\"n2\"}}\n";
    cr_assert(dfn_filehead_scan(v0, strlen(v0), &a));
    cr_assert(dfn_filehead_scan(v1, strlen(v1), &b));
    cr_assert(dfn_filehead_scan(other, strlen(other), &c));
    cr_assert_eq(a.proc, b.proc, "pid \"12\" and 12 on n1 are one process");
    cr_assert_eq(a.host, b.host);
    cr_assert_neq(a.proc, c.proc, "pid 12 on another host is another process");
    cr_assert_neq(a.host, c.host);
    /* a hash for the host; the pid on a later line than the host */
    const char *h = "{\"name\":\"HH\",\"ph\":\"M\",\"args\":{\"hhash\":\"ab\"}}\n{\"pid\":5,\"name\":\"x\"}\n";
    cr_assert(dfn_filehead_scan(h, strlen(h), &d));
    cr_assert_neq(d.host, 0);
    cr_assert_neq(d.proc, 0);
    /* no pid: no head; a cut last line is not read */
    const char *none = "[\n{\"name\":\"x\",\"args\":{\"hostname\":\"n1\"}}\n{\"pid\":";
    cr_assert_not(dfn_filehead_scan(none, strlen(none), &d));
    cr_assert_eq(d.proc, 0);
    cr_assert_not(dfn_filehead_read("/nonexistent/dfnav-head.pfw", &d));
}

/* Writes text to path, as gzip members split at each cut when gz. */
static void write_head(const char *path, const char *text, bool gz, const size_t *cuts, size_t ncuts)
{
    if (!gz) {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(text, f);
        fclose(f);
        return;
    }
    size_t at = 0, len = strlen(text);
    for (size_t k = 0; k <= ncuts; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        gzFile g = gzopen(path, k ? "ab" : "wb");
        cr_assert(g);
        if (end > at) cr_assert_eq(gzwrite(g, text + at, (unsigned)(end - at)), (int)(end - at));
        gzclose(g);
        at = end;
    }
}

/* A file's head read plain, gzip and gzip of several members (the pid in
 * the second) alike; a head past 64 KiB of text is not read. */
Test(dist, file_heads_read)
{
    char dir[] = "/tmp/dfnav-head-XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    const char *text = "[\n{\"name\":\"open\",\"pid\":42,\"args\":{\"hostname\":\"n9\"}}\n";
    dfn_filehead want, got;
    cr_assert(dfn_filehead_scan(text, strlen(text), &want));
    const size_t cut[] = { 2 };
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/h%d.pfw", dir, k);
        write_head(path, text, k > 0, cut, k == 2 ? 1 : 0);
        cr_assert(dfn_filehead_read(path, &got), "file %d", k);
        cr_assert_eq(got.proc, want.proc, "file %d", k);
        cr_assert_eq(got.host, want.host, "file %d", k);
        unlink(path);
    }
    /* lines of blanks, then a pid: 16 KiB in, the next step finds it;
     * 70,000 bytes in, past the head, none does */
    const struct { size_t at; bool found; } pads[] = { { 30000, true }, { 70000, false } };
    for (size_t c = 0; c < 2; c++) {
        size_t len = pads[c].at;
        char *big = malloc(len + 100);
        memset(big, ' ', len);
        for (size_t at = 99; at < len; at += 100) big[at] = '\n';
        snprintf(big + len, 100, "{\"pid\":42,\"args\":{\"hostname\":\"n9\"}}\n");
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/pad%zu-%d.pfw", dir, c, k);
            write_head(path, big, k == 1, NULL, 0);
            cr_assert_eq(dfn_filehead_read(path, &got), pads[c].found, "%zu bytes in, file %d", len, k);
            if (pads[c].found) cr_assert_eq(got.proc, want.proc, "%zu bytes in, file %d", len, k);
            unlink(path);
        }
        free(big);
    }
    /* an empty file, and gzip cut short: no head, nothing read amiss */
    snprintf(path, sizeof path, "%s/empty.pfw", dir);
    write_head(path, "", false, NULL, 0);
    cr_assert_not(dfn_filehead_read(path, &got));
    write_head(path, text, true, NULL, 0);
    FILE *f = fopen(path, "r+");
    cr_assert(f);
    cr_assert_eq(ftruncate(fileno(f), 12), 0);
    fclose(f);
    cr_assert_not(dfn_filehead_read(path, &got), "a gzip file cut at 12 bytes");
    unlink(path);
    rmdir(dir);
}

/* The line a server's clients see while its ranks load: exact figures
 * from every rank's last note, the slowest rank named, and once all are
 * done, each one's time. */
Test(dist, progress_text)
{
    dfn_rank_load r[3] = {
        { .bytes_done = 512, .bytes_total = 1024, .events = 100, .heard = true },
        { .bytes_done = 1024, .bytes_total = 1024, .events = 300, .heard = true, .done = true, .elapsed_s = 1.25 },
        { .bytes_done = 0, .bytes_total = 0, .events = 0, .heard = false },
    };
    dfn_dist_progress p = { .nranks = 3, .rank = r };
    char buf[256];
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "2 of 3 ranks started, 400 events");
    r[2] = (dfn_rank_load){ .bytes_done = 256, .bytes_total = 1024, .events = 50, .heard = true };
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "58% of 3.0KiB, 450 events; 1 of 3 ranks done, the slowest (rank 2) at 25%");
    r[2].bytes_done = 1024;
    r[2].building = true;
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "83% of 3.0KiB, 450 events; 1 of 3 ranks done, the slowest (rank 0) at 50%");
    r[0].bytes_done = 1024;
    r[0].done = true;
    r[0].elapsed_s = 0.5;
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "100% of 3.0KiB, 450 events; 2 of 3 ranks done, the slowest (rank 2) building its store");
    r[2].done = true;
    r[2].building = false;
    r[2].elapsed_s = 2.0;
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "3.0KiB, 450 events in 2.0 s; the slowest, rank 2, 2.0 s, the fastest, rank 0, 0.5 s");
    /* a pipe: no percent, and the line fits any buffer */
    r[2].done = false;
    r[2].unsized = 1;
    dfn_dist_progress_text(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "?% of 3.0KiB, 450 events; 2 of 3 ranks done, the slowest (rank 2) at ?%");
    char small[8];
    size_t n = dfn_dist_progress_text(&p, small, sizeof small);
    cr_assert_eq(n, 7);
    cr_assert_str_eq(small, "?% of 3");
}

typedef struct { int calls, done_calls; uint64_t events; } said;

static void count_said(void *ctx, const dfn_dist_progress *p)
{
    said *s = ctx;
    s->calls++;
    cr_assert_eq(p->nranks, 1);
    if (p->rank[0].done) { s->done_calls++; s->events = p->rank[0].events; }
}

/* One rank: the load is dfn_load's, and it is said done exactly once,
 * with the events the store holds. */
Test(dist, load_one_rank_says_done_once)
{
    char dir[] = "/tmp/dfnav-distload-XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.pfw", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("[\n", f);
    for (int i = 0; i < 5; i++)
        fprintf(f, "{\"id\":%d,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"ph\":\"X\"}\n", i,
                10 * i);
    fclose(f);
    const char *files[] = { path };
    dfn_load_opts lo = { .threads = 1 };
    said s = { 0 };
    dfn_store *st = dfn_dist_load(files, 1, &lo, count_said, &s);
    cr_assert(st);
    cr_assert_eq(st->n, 5);
    cr_assert_eq(s.done_calls, 1);
    cr_assert_geq(s.calls, 1);
    cr_assert_eq(s.events, 5);
    dfn_store_free(st);
    /* nothing to load: NULL, still said done */
    s = (said){ 0 };
    cr_assert_null(dfn_dist_load(NULL, 0, &lo, count_said, &s));
    cr_assert_eq(s.done_calls, 1);
    unlink(path);
    rmdir(dir);
}
