/* dfnav fsum: the exact sum of doubles, whatever their order. A sum is
 * kept as a few non-overlapping doubles (Shewchuk's partials, as Python's
 * math.fsum keeps them) and read as the one double nearest the exact
 * total, so that the same values added in any order, on any thread or
 * rank, and sums merged in any order, give the same bits: what the mean of
 * a counter's samples needs when MPI ranks each hold some of them. */
#ifndef DFNAV_FSUM_H
#define DFNAV_FSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    double *p;                /* the partials, smallest magnitude first, none 0 */
    uint32_t n, cap;
    /* non-finite values added (their naive sum: inf, -inf or nan, the same
     * in any order), and a finite running total past the largest double
     * (its sign), which the value then is: values near 1.8e308, whose
     * sum is no figure anyway, may pass it in one order and not another */
    double special;
    bool any_special;
    int overflow;             /* 0, or the sign of a total past DBL_MAX */
} dfn_fsum;

#define DFN_FSUM_INIT { NULL, 0, 0, 0.0, false, 0 }

void dfn_fsum_add(dfn_fsum *s, double v);
/* b's values added into a (b is left as it was). */
void dfn_fsum_merge(dfn_fsum *a, const dfn_fsum *b);
/* The double nearest the exact sum (ties to even). */
double dfn_fsum_value(const dfn_fsum *s);
void dfn_fsum_free(dfn_fsum *s);

#endif
