/* Chunk memory (chunkmem.h): a file's pieces lie end to end, freed runs
 * go back a step at a time in one call each, and nothing is held past
 * the hold or after the last piece. Whether memory went back is asked of
 * the kernel: mincore fails with ENOMEM on an address no longer mapped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkmem.h"

#define KIB ((size_t)1 << 10)

static bool mapped(const void *p)
{
    unsigned char v;
    return mincore((void *)((uintptr_t)p & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1)), 1, &v) == 0 || errno != ENOMEM;
}

/* Chunk memory for n files, in a process without a limit of address
 * space (under one there is none: see the test below). */
static dfn_chunkmem *mem_new(size_t n, const uint64_t *bytes)
{
    struct rlimit as;
    cr_assert_eq(getrlimit(RLIMIT_AS, &as), 0);
    if (as.rlim_cur != RLIM_INFINITY) {
        if (as.rlim_max != RLIM_INFINITY) cr_skip_test("ulimit -v is set here and cannot be lifted");
        as.rlim_cur = RLIM_INFINITY;
        cr_assert_eq(setrlimit(RLIMIT_AS, &as), 0);
    }
    dfn_chunkmem *m = dfn_chunkmem_new(n, bytes);
    cr_assert_not_null(m);
    return m;
}

/* With 32 files or more the step is its least, 256 KiB. */
#define FILES 32
#define STEP (256 * KIB)

/* Pieces of the last file kept out, 48 MiB: the hold is a sixteenth of
 * what is out, and the tests of steps and runs must not meet it. */
#define BALLAST 24
typedef struct { dfn_chunkseg *g[BALLAST]; char *p[BALLAST]; } ballast;

static void ballast_take(dfn_chunkmem *m, ballast *b)
{
    for (int k = 0; k < BALLAST; k++) b->p[k] = dfn_chunkmem_get(m, FILES - 1, DFN_CHUNKMEM_SEGMENT / 4, &b->g[k]);
}

static void ballast_put(ballast *b)
{
    for (int k = 0; k < BALLAST; k++) dfn_chunkmem_put(b->g[k], b->p[k], DFN_CHUNKMEM_SEGMENT / 4);
}

Test(chunkmem, a_files_pieces_lie_end_to_end_and_are_written_through)
{
    dfn_chunkmem *m = mem_new(FILES, NULL);
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

/* One file's pieces, all of len, beside the ballast. */
typedef struct {
    dfn_chunkmem *m;
    ballast bl;
    dfn_chunkseg *g[8];
    char *p[8];
    size_t len;
} one_file;

static void one_file_take(one_file *f, int n, size_t len)
{
    f->m = mem_new(FILES, NULL);
    ballast_take(f->m, &f->bl);
    f->len = len;
    for (int k = 0; k < n; k++) f->p[k] = dfn_chunkmem_get(f->m, 0, len, &f->g[k]);
}

static void one_file_put(one_file *f, const int *order, int n)
{
    for (int k = 0; k < n; k++) dfn_chunkmem_put(f->g[order[k]], f->p[order[k]], f->len);
}

static void one_file_end(one_file *f)
{
    ballast_put(&f->bl);
    dfn_chunkmem_release(f->m);
}

static uint64_t unmaps(const one_file *f) { return dfn_chunkmem_stats_of(f->m).unmaps; }
static uint64_t freed(const one_file *f) { return dfn_chunkmem_stats_of(f->m).bytes_freed; }

Test(chunkmem, a_run_goes_back_in_one_call_when_it_reaches_a_step)
{
    one_file f;
    one_file_take(&f, 4, 128 * KIB);
    one_file_put(&f, (const int[]){ 0 }, 1);
    cr_assert(mapped(f.p[0]), "half a step is held");
    cr_assert_eq(unmaps(&f), 0);
    one_file_put(&f, (const int[]){ 1 }, 1);
    cr_assert(!mapped(f.p[0]) && !mapped(f.p[1]), "a step goes back");
    cr_assert_eq(unmaps(&f), 1, "in one call, not %llu", (unsigned long long)unmaps(&f));
    cr_assert_eq(freed(&f), STEP);
    cr_assert(mapped(f.p[2]), "live pieces stay");
    one_file_put(&f, (const int[]){ 3, 2 }, 2);   /* out of order: 2 joins the run above it */
    cr_assert(!mapped(f.p[2]) && !mapped(f.p[3]));
    cr_assert_eq(unmaps(&f), 2);
    one_file_end(&f);
}

/* Two merge parts free one file at two places: two runs, and a piece
 * between them that joins both past a step. */
Test(chunkmem, runs_at_two_places_and_a_piece_that_joins_them)
{
    one_file f;
    one_file_take(&f, 5, 96 * KIB);
    one_file_put(&f, (const int[]){ 0, 3, 1, 4 }, 4);   /* runs 0-1 and 3-4: 192 KiB each */
    cr_assert_eq(unmaps(&f), 0);
    cr_assert(mapped(f.p[0]) && mapped(f.p[4]));
    one_file_put(&f, (const int[]){ 2 }, 1);   /* 0-4: 480 KiB */
    cr_assert_eq(unmaps(&f), 1, "joined into one run: %llu calls", (unsigned long long)unmaps(&f));
    cr_assert_eq(freed(&f), 5 * 96 * KIB);
    for (int k = 0; k < 5; k++) cr_assert(!mapped(f.p[k]));
    one_file_end(&f);
}

/* A piece that joins the run above it (first in the list) to the run
 * below it (last in the list): the joined run moves, and goes back once,
 * whole. */
Test(chunkmem, joining_the_last_run_of_the_list)
{
    one_file f;
    one_file_take(&f, 7, 64 * KIB);
    one_file_put(&f, (const int[]){ 3, 4, 6, 0, 1 }, 5);   /* runs: 3-4, 6, 0-1 */
    cr_assert_eq(unmaps(&f), 0);
    one_file_put(&f, (const int[]){ 2 }, 1);   /* 0-4: 320 KiB, a step */
    cr_assert_eq(unmaps(&f), 1);
    cr_assert_eq(freed(&f), 5 * 64 * KIB);
    for (int k = 0; k < 5; k++) cr_assert(!mapped(f.p[k]));
    cr_assert(mapped(f.p[6]));
    one_file_put(&f, (const int[]){ 5 }, 1);   /* 5-6: under a step */
    dfn_chunkmem_close(f.m);                   /* the segment is done: the rest of it goes, once */
    cr_assert_eq(freed(&f), DFN_CHUNKMEM_SEGMENT);
    cr_assert(!mapped(f.p[6]));
    one_file_end(&f);
}

/* Short runs held up by live neighbours in many files: past the hold the
 * largest go back, so the whole never holds more than the hold, and the
 * hold is a sixteenth of what is still out (the peak comes at the end of
 * the merge, with few chunks left). */
static void hold_case(int N, size_t piece)
{
    dfn_chunkmem *m = mem_new((size_t)N, NULL);
    dfn_chunkseg *(*g)[3] = calloc((size_t)N, sizeof *g);
    char *(*p)[3] = calloc((size_t)N, sizeof *p);
    for (int f = 0; f < N; f++)
        for (int k = 0; k < 3; k++) p[f][k] = dfn_chunkmem_get(m, (uint32_t)f, piece, &g[f][k]);
    for (int f = 0; f < N; f++) dfn_chunkmem_put(g[f][1], p[f][1], piece);   /* each under a step */
    size_t out = (size_t)N * 2 * piece, limit = out / 16 < DFN_CHUNKMEM_HOLD ? out / 16 : DFN_CHUNKMEM_HOLD;
    size_t held = 0;
    for (int f = 0; f < N; f++) held += mapped(p[f][1]) ? piece : 0;
    cr_assert_leq(held, limit, "holds %zu bytes, %zu at most", held, limit);
    cr_assert_gt(held + piece, limit, "gives back no more than it must: holds %zu of %zu", held, limit);
    cr_assert_eq(dfn_chunkmem_stats_of(m).bytes_freed, (size_t)N * piece - held);
    for (int f = 0; f < N; f++)
        for (int k = 0; k < 3; k += 2) dfn_chunkmem_put(g[f][k], p[f][k], piece);
    dfn_chunkmem_release(m);
    free(g);
    free(p);
}

Test(chunkmem, never_more_than_the_hold)
{
    hold_case(80, 128 * KIB);    /* 20 MB out: a sixteenth is 1.25 MB */
    hold_case(600, 128 * KIB);   /* 150 MB out: the hold's 8 MiB */
}

/* Closing gives back each segment's unused reserve at once, and a
 * segment whose pieces are all freed whole. */
Test(chunkmem, close_gives_back_what_no_piece_will_use)
{
    dfn_chunkmem *m = mem_new(FILES, NULL);
    ballast bl;
    ballast_take(m, &bl);
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
    cr_assert_eq(st.segments, 2 + BALLAST / 4);
    /* a piece made after closing starts a segment of its own */
    dfn_chunkseg *c;
    char *r = dfn_chunkmem_get(m, 1, 64 * KIB, &c);
    cr_assert(c != b && r != q + 64 * KIB);
    ballast_put(&bl);
    dfn_chunkmem_release(m);   /* the owner goes first: the last put frees m */
    dfn_chunkmem_put(b, q, 64 * KIB);
    dfn_chunkmem_put(c, r, 64 * KIB);
    cr_assert(!mapped(q) && !mapped(r));
}

/* A new segment when a piece no longer fits; what does not suit a
 * segment is left to the caller. */
Test(chunkmem, segments_fill_and_what_does_not_suit)
{
    dfn_chunkmem *m = mem_new(FILES, NULL);
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
    for (int k = 0; k < 5; k++) cr_assert(!mapped(p[k]), "piece %d given back", k);
}

/* A file's segments are a quarter of its size (at least 256 KiB and
 * what the piece needs): 300 files of 600 KB reserve 45 MB, not 2.4 GB. */
Test(chunkmem, segments_sized_by_the_file)
{
    const uint64_t bytes[3] = { 2 << 20, 0, 100 << 10 };
    dfn_chunkmem *m = mem_new(3, bytes);
    dfn_chunkseg *g[3], *h, *t;
    char *p[3];
    for (int k = 0; k < 3; k++) p[k] = dfn_chunkmem_get(m, 0, 200 * KIB, &g[k]);
    cr_assert_eq(g[0], g[1], "two pieces of 200 KiB in 512 KiB");
    cr_assert(g[2] != g[1], "the third starts another");
    cr_assert(!mapped(p[1] + 200 * KIB), "the first segment's reserve went when it closed");
    char *q = dfn_chunkmem_get(m, 2, 300 * KIB, &h);   /* past the file's 256 KiB: a segment of 300 */
    char *r = dfn_chunkmem_get(m, 1, 300 * KIB, &t);   /* size not known: the whole 8 MiB */
    cr_assert_not_null(q);
    cr_assert_not_null(r);
    dfn_chunkmem_close(m);
    cr_assert_eq(dfn_chunkmem_stats_of(m).bytes_freed, (512 - 400 + 512 - 200) * KIB + (DFN_CHUNKMEM_SEGMENT - 300 * KIB),
                 "the reserves past the pieces: %llu", (unsigned long long)dfn_chunkmem_stats_of(m).bytes_freed);
    dfn_chunkmem_release(m);
    for (int k = 0; k < 3; k++) dfn_chunkmem_put(g[k], p[k], 200 * KIB);
    dfn_chunkmem_put(h, q, 300 * KIB);
    dfn_chunkmem_put(t, r, 300 * KIB);
}

/* Under ulimit -v reserved address space would count as memory (and a
 * set that fits would be refused): no chunk memory, chunks map alone. */
Test(chunkmem, none_under_a_limit_of_address_space)
{
    /* in a child that only exits: a sanitizer's shadow is past any limit
     * this could set, and nothing may map after it */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit as = { (rlim_t)64 << 30, (rlim_t)64 << 30 }, now;
        if (getrlimit(RLIMIT_AS, &now) == 0 && now.rlim_max != RLIM_INFINITY && now.rlim_max < as.rlim_max)
            as.rlim_cur = as.rlim_max = now.rlim_max;
        if (setrlimit(RLIMIT_AS, &as) != 0) _exit(2);
        _exit(dfn_chunkmem_new(8, NULL) == NULL ? 0 : 1);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "chunk memory under ulimit -v: status %d", st);
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
    dfn_chunkmem *m = mem_new(4, NULL);
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
