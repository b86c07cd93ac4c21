/* The exact sum of doubles (see fsum.h): the partials algorithm of
 * Shewchuk's "Adaptive Precision Floating-Point Arithmetic" as CPython's
 * math.fsum runs it, with its final rounding to the nearest double. */
#include "dfnav/fsum.h"
#include "dfnav/util.h"

#include <math.h>
#include <stdlib.h>

void dfn_fsum_add(dfn_fsum *s, double x)
{
    if (!isfinite(x)) {
        s->special = s->any_special ? s->special + x : x;
        s->any_special = true;
        return;
    }
    if (s->overflow) return;
    uint32_t i = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        double y = s->p[j];
        if (fabs(x) < fabs(y)) { double t = x; x = y; y = t; }
        double hi = x + y, lo = y - (hi - x);   /* hi + lo == x + y exactly */
        if (lo != 0.0) s->p[i++] = lo;
        x = hi;
    }
    if (!isfinite(x)) {   /* finite values past the largest double */
        s->overflow = x > 0 ? 1 : -1;
        s->n = 0;
        return;
    }
    s->n = i;
    if (x != 0.0) {
        if (s->n + 1 > s->cap) {
            size_t cap = s->cap;
            dfn_grow((void **)&s->p, &cap, (size_t)s->n + 1, sizeof *s->p);
            s->cap = (uint32_t)cap;
        }
        s->p[s->n++] = x;
    }
}

void dfn_fsum_merge(dfn_fsum *a, const dfn_fsum *b)
{
    for (uint32_t j = 0; j < b->n && !a->overflow; j++) dfn_fsum_add(a, b->p[j]);
    if (b->any_special) dfn_fsum_add(a, b->special);
    if (b->overflow && !a->overflow) a->overflow = b->overflow;
}

double dfn_fsum_value(const dfn_fsum *s)
{
    if (s->any_special) return s->special;
    if (s->overflow) return s->overflow * HUGE_VAL;
    uint32_t n = s->n;
    if (!n) return 0.0;
    double hi = s->p[--n], lo = 0.0;
    while (n > 0) {   /* from the largest partial down, until one is not absorbed */
        double x = hi, y = s->p[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo != 0.0) break;
    }
    /* half-way cases: the partials below decide which way to round */
    if (n > 0 && ((lo < 0 && s->p[n - 1] < 0) || (lo > 0 && s->p[n - 1] > 0))) {
        double y = lo * 2, x = hi + y;
        if (y == x - hi) hi = x;
    }
    return hi;
}

void dfn_fsum_free(dfn_fsum *s)
{
    free(s->p);
    *s = (dfn_fsum)DFN_FSUM_INIT;
}
