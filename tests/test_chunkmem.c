/* Chunk memory (chunkmem.h): a file's pieces lie end to end, freed runs
 * go back a step at a time in one call each, and nothing is held past
 * the hold or after the last piece. Whether memory went back is asked of
 * the kernel: mincore fails with ENOMEM on an address no longer mapped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chunkmem.h"

#define KIB ((size_t)1 << 10)

static bool mapped(const void *p)
{
    unsigned char v;
    return mincore((void *)((uintptr_t)p & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)), 1, &v) == 0 || errno != ENOMEM;
}

/* With 32 files or more the step is its least, 256 KiB. */
#define FILES 32
#define STEP (256 * KIB)

Test(chunkmem, a_files_pieces_lie_end_to_end_and_are_written_through)
{
    dfn_chunkmem *m = dfn_chunkmem_new(FILES);
    dfn_chunkseg *g[3], *h;
    char *p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = dfn_chunkmem_get(m, 0, 100 * KIB + 1, &g[k]);   /* rounded up to pages */
        cr_assert_not_null(p[k]);
        memset(p[k], 'a' + k, 100 * KIB + 1);
    }
    size_t len = (100 * KIB + 1 + (size_t)sysconf(_SC_PAGESIZE) - 1) & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
    cr_assert_eq(p[1], p[0] + len, "the second piece follows the first");
    cr_assert_eq(p[2], p[1] + len);
    cr_assert_eq(g[0], g[2], "one segment");
    char *q = dfn_chunkmem_get(m, 1, 100 * KIB, &h);
    cr_assert(g[0] != h, "another file, another segment");
    cr_assert_eq(p[0][0], 'a');
    cr_assert_eq(p[2][100 * KIB], 'c');
    for (int k = 0; k < 3; k++) dfn_chunkmem_put(g[k], p[k], 100 * KIB + 1);
    dfn_chunkmem_put(h, q, 100 * KIB);
    dfn_chunkmem_release(m);
}

Test(chunkmem, a_run_goes_back_in_one_call_when_it_reaches_a_step)
{
    dfn_chunkmem *m = dfn_chunkmem_new(FILES);
    dfn_chunkseg *g[4];
    char *p[4];
    for (int k = 0; k < 4; k++) p[k] = dfn_chunkmem_get(m, 3, 128 * KIB, &g[k]);
    dfn_chunkmem_put(g[0], p[0], 128 * KIB);
    cr_assert(mapped(p[0]), "half a step is held");
    cr_assert_eq(dfn_chunkmem_stats_of(m).unmaps, 0);
    dfn_chunkmem_put(g[1], p[1], 128 * KIB);
    cr_assert(!mapped(p[0]) && !mapped(p[1]), "a step goes back");
    dfn_chunkmem_stats st = dfn_chunkmem_stats_of(m);
    cr_assert_eq(st.unmaps, 1, "in one call, not %llu", (unsigned long long)st.unmaps);
    cr_assert_eq(st.bytes_freed, STEP);
    cr_assert(mapped(p[2]), "live pieces stay");
    dfn_chunkmem_put(g[3], p[3], 128 * KIB);
    dfn_chunkmem_put(g[2], p[2], 128 * KIB);   /* out of order: joins the run above it */
    cr_assert(!mapped(p[2]) && !mapped(p[3]));
    cr_assert_eq(dfn_chunkmem_stats_of(m).unmaps, 2);
    dfn_chunkmem_release(m);
}

/* Two merge parts free one file at two places: two runs, each going back
 * at its own step, and a piece between them joins both. */
Test(chunkmem, runs_at_two_places_and_a_piece_that_joins_them)
{
    dfn_chunkmem *m = dfn_chunkmem_new(FILES);
    dfn_chunkseg *g[5];
    char *p[5];
    for (int k = 0; k < 5; k++) p[k] = dfn_chunkmem_get(m, 0, 96 * KIB, &g[k]);
    dfn_chunkmem_put(g[0], p[0], 96 * KIB);
    dfn_chunkmem_put(g[3], p[3], 96 * KIB);
    dfn_chunkmem_put(g[1], p[1], 96 * KIB);   /* run 0-1: 192 KiB */
    dfn_chunkmem_put(g[4], p[4], 96 * KIB);   /* run 3-4: 192 KiB */
    cr_assert_eq(dfn_chunkmem_stats_of(m).unmaps, 0);
    cr_assert(mapped(p[0]) && mapped(p[4]));
    dfn_chunkmem_put(g[2], p[2], 96 * KIB);   /* 0-4: 480 KiB, and the segment is done */
    dfn_chunkmem_stats st = dfn_chunkmem_stats_of(m);
    cr_assert_eq(st.unmaps, 1, "joined into one run: %llu calls", (unsigned long long)st.unmaps);
    cr_assert_eq(st.bytes_freed, 5 * 96 * KIB);
    for (int k = 0; k < 5; k++) cr_assert(!mapped(p[k]));
    dfn_chunkmem_release(m);
}

/* Short runs held up by live neighbours in many files: past the hold the
 * largest go back, so the whole never holds more than the hold. */
Test(chunkmem, never_more_than_the_hold)
{
    enum { N = 80 };
    dfn_chunkmem *m = dfn_chunkmem_new(N);
    dfn_chunkseg *g[N][2];
    char *p[N][2];
    for (int f = 0; f < N; f++)
        for (int k = 0; k < 2; k++) p[f][k] = dfn_chunkmem_get(m, (uint32_t)f, 128 * KIB, &g[f][k]);
    for (int f = 0; f < N; f++) dfn_chunkmem_put(g[f][0], p[f][0], 128 * KIB);   /* each under a step */
    dfn_chunkmem_stats st = dfn_chunkmem_stats_of(m);
    size_t held = 0;
    for (int f = 0; f < N; f++) held += mapped(p[f][0]) ? 128 * KIB : 0;
    cr_assert_leq(held, DFN_CHUNKMEM_HOLD, "holds %zu bytes", held);
    cr_assert_geq(held, DFN_CHUNKMEM_HOLD - 128 * KIB, "gives back no more than it must: holds %zu", held);
    cr_assert_eq(st.bytes_freed, (size_t)N * 128 * KIB - held);
    for (int f = 0; f < N; f++) dfn_chunkmem_put(g[f][1], p[f][1], 128 * KIB);
    dfn_chunkmem_release(m);
}

/* Closing gives back each segment's unused reserve at once, and a
 * segment whose pieces are all freed whole. */
Test(chunkmem, close_gives_back_what_no_piece_will_use)
{
    dfn_chunkmem *m = dfn_chunkmem_new(FILES);
    dfn_chunkseg *a, *b;
    char *p = dfn_chunkmem_get(m, 0, 64 * KIB, &a);
    char *q = dfn_chunkmem_get(m, 1, 64 * KIB, &b);
    dfn_chunkmem_put(a, p, 64 * KIB);   /* under a step: held */
    cr_assert(mapped(p));
    dfn_chunkmem_close(m);
    cr_assert(!mapped(p), "a finished segment goes back whole");
    cr_assert(!mapped(q + 64 * KIB), "the reserve past the last piece goes");
    cr_assert(mapped(q), "a live piece stays");
    dfn_chunkmem_stats st = dfn_chunkmem_stats_of(m);
    cr_assert_eq(st.bytes_freed, 2 * DFN_CHUNKMEM_SEGMENT - 64 * KIB);
    cr_assert_eq(st.segments, 2);
    /* a piece made after closing starts a segment of its own */
    dfn_chunkseg *c;
    char *r = dfn_chunkmem_get(m, 1, 64 * KIB, &c);
    cr_assert(c != b && r != q + 64 * KIB);
    dfn_chunkmem_release(m);   /* the owner goes first: the last put frees m */
    dfn_chunkmem_put(b, q, 64 * KIB);
    dfn_chunkmem_put(c, r, 64 * KIB);
    cr_assert(!mapped(q) && !mapped(r));
}

/* A new segment when a piece no longer fits; what does not suit a
 * segment is left to the caller. */
Test(chunkmem, segments_fill_and_what_does_not_suit)
{
    dfn_chunkmem *m = dfn_chunkmem_new(FILES);
    dfn_chunkseg *g, *first = NULL, *second = NULL;
    size_t piece = DFN_CHUNKMEM_SEGMENT / 4, n = 0;
    char *p[5];
    for (int k = 0; k < 5; k++) {
        p[k] = dfn_chunkmem_get(m, 2, piece, &g);
        if (!first) first = g;
        if (g != first) { second = g; break; }
        n++;
    }
    cr_assert_eq(n, 4, "four quarters fill a segment");
    cr_assert_not_null(second, "the fifth starts another");
    cr_assert_eq(dfn_chunkmem_stats_of(m).segments, 2);
    cr_assert_null(dfn_chunkmem_get(m, 2, piece + 1, &g), "more than a quarter: mapped alone");
    cr_assert_null(g);
    cr_assert_null(dfn_chunkmem_get(m, FILES, 4 * KIB, &g), "a file past the count");
    cr_assert_null(dfn_chunkmem_get(NULL, 0, 4 * KIB, &g), "no chunk memory");
    dfn_chunkmem_release(m);
    for (int k = 0; k < 4; k++) dfn_chunkmem_put(first, p[k], piece);
    dfn_chunkmem_put(second, p[4], piece);
}

/* Parsers make pieces and merge parts free them at once (TSan's pass
 * runs this): every byte written stays as written until freed. */
typedef struct { dfn_chunkmem *m; uint32_t src; } worker;

static void *work(void *arg)
{
    worker *w = arg;
    enum { PIECES = 200 };
    static _Thread_local char *p[PIECES];
    static _Thread_local dfn_chunkseg *g[PIECES];
    for (int k = 0; k < PIECES; k++) {
        p[k] = dfn_chunkmem_get(w->m, w->src, 72 * KIB, &g[k]);
        memset(p[k], (int)(w->src * 7 + (unsigned)k) & 0xff, 72 * KIB);
    }
    for (int k = 0; k < PIECES; k++) {
        unsigned char want = (unsigned char)((w->src * 7 + (unsigned)k) & 0xff);
        if ((unsigned char)p[k][0] != want || (unsigned char)p[k][72 * KIB - 1] != want) return (void *)1;
        dfn_chunkmem_put(g[k], p[k], 72 * KIB);
    }
    return NULL;
}

Test(chunkmem, threads)
{
    dfn_chunkmem *m = dfn_chunkmem_new(4);
    pthread_t t[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ m, (uint32_t)(i % 2) };   /* two threads a file */
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        cr_assert_null(bad, "thread %d read back what it did not write", i);
    }
    /* how many calls depends on how the threads interleave: the runs are
     * the tests above */
    cr_assert_eq(dfn_chunkmem_stats_of(m).pieces, 800);
    dfn_chunkmem_release(m);
}
