/* The distribution plan (dist.h): which rank of an MPI job reads which
 * file. Every rank computes it alone, so it must be a pure function of
 * the sizes; and the ranks' bytes must come out balanced. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "dfnav/dist.h"

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
    dfn_dist_plan(bytes, 6, 3, rank_of);
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
    dfn_dist_plan(bytes, 4, 2, rank_of);
    cr_assert_eq(rank_of[0], 0, "standard input on rank 0");
    /* rank 0 counts it as one byte: 5 -> rank 1 (1 > 0), 5 -> rank 0
     * (1 < 5), the empty file -> rank 1 (5 < 6) */
    cr_assert_eq(rank_of[1], 1);
    cr_assert_eq(rank_of[2], 0);
    cr_assert_eq(rank_of[3], 1, "an empty file counts as one byte where it goes");
    dfn_dist_plan(bytes, 4, 1, rank_of);
    for (int i = 0; i < 4; i++) cr_assert_eq(rank_of[i], 0);
    const uint64_t two[] = { 3, 4 };
    int r2[2];
    dfn_dist_plan(two, 2, 8, r2);
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
    dfn_dist_plan(bytes, N, R, a);
    dfn_dist_plan(bytes, N, R, b);
    for (int i = 0; i < N; i++) cr_assert_eq(a[i], b[i]);
    for (int r = 0; r < R; r++) {
        uint64_t got = rank_bytes(bytes, a, N, r);
        cr_assert_leq(got, total / R + max, "rank %d: %llu bytes", r, (unsigned long long)got);
        cr_assert_geq(got + max, total / R, "rank %d: %llu bytes", r, (unsigned long long)got);
    }
}
