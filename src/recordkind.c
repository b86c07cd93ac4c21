/* The vocabulary of record kinds: DFTracer 2.x instrumentation types by
 * number, time units, and the tally of records of kinds dfnav sets aside
 * (by their ph as written), so that every line is accounted for. */
#include "dfnav/store.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {
    "UNKNOWN", "DFTRACER", "C_APP", "LIBC_IO", "HIP", "HDF5", "PYTHON", "PSUTIL", "FINSTRUMENT", "CPP_APP",
    "MPI", "CUDA"
};

const char *dfn_type_name(unsigned type)
{
    return type < sizeof type_names / sizeof *type_names ? type_names[type] : NULL;
}

static const char *const unit_names[] = { "", "US", "NS", "MS", "SEC" };

const char *dfn_unit_name(dfn_unit u)
{
    return (unsigned)u < sizeof unit_names / sizeof *unit_names ? unit_names[u] : "";
}

dfn_unit dfn_unit_parse(const char *s, size_t len)
{
    for (unsigned u = DFN_UNIT_US; u <= DFN_UNIT_SEC; u++) {
        const char *n = unit_names[u];
        size_t k = 0;
        if (strlen(n) != len) continue;
        while (k < len && (s[k] == n[k] || s[k] == n[k] + 32)) k++;
        if (k == len) return (dfn_unit)u;
    }
    return DFN_UNIT_NONE;
}

/* The parser's bound on a ts or dur in µs (UINT64_MAX >> 2), so that ts +
 * dur and a few sums cannot wrap: larger units saturate at it. */
#define UNIT_US_MAX (UINT64_MAX >> 2)

uint64_t dfn_unit_to_us(dfn_unit u, uint64_t v)
{
    switch (u) {
    case DFN_UNIT_NS: return v / 1000 + (v % 1000 >= 500);
    case DFN_UNIT_MS: return v > UNIT_US_MAX / 1000 ? UNIT_US_MAX : v * 1000;
    case DFN_UNIT_SEC: return v > UNIT_US_MAX / 1000000 ? UNIT_US_MAX : v * 1000000;
    default: return v;
    }
}

bool dfn_unit_fractions(dfn_unit u, uint64_t frac_times, char *buf, size_t cap)
{
    if (!frac_times || (u != DFN_UNIT_MS && u != DFN_UNIT_SEC)) return false;
    bool ms = u == DFN_UNIT_MS;
    snprintf(buf, cap, "%" PRIu64 " ts or dur with a fraction of a%s read to the nearest %s: each is off by up to %s",
             frac_times, ms ? " ms" : " second", ms ? "ms" : "second", ms ? "0.5 ms" : "0.5 s");
    return true;
}

/* Labels keep printable ASCII only: a trace's bytes never reach a
 * terminal raw. */
static void phcount_label(char *out, const char *t, size_t len)
{
    size_t w = 0;
    memset(out, 0, DFN_PH_LABEL);
    if (len == 0) { memcpy(out, "empty", 5); return; }
    for (size_t i = 0; i < len && w + 1 < DFN_PH_LABEL; i++)
        out[w++] = t[i] >= 0x20 && t[i] < 0x7f ? t[i] : '?';
}

dfn_phcount *dfn_phcount_room(dfn_phcount **tab)
{
    if (!*tab) *tab = dfn_xcalloc(DFN_PH_KINDS, sizeof **tab);
    return *tab;
}

size_t dfn_phcount_len(const dfn_phcount *tab)
{
    size_t n = 0;
    while (tab && n < DFN_PH_KINDS && tab[n].n) n++;
    return n;
}

void dfn_phcount_add(dfn_phcount *tab, const char *t, size_t len, uint64_t n)
{
    char label[DFN_PH_LABEL];
    phcount_label(label, t, len);
    for (size_t k = 0; k < DFN_PH_KINDS - 1; k++) {
        if (tab[k].n && strcmp(tab[k].ph, label) == 0) { tab[k].n += n; return; }
        if (!tab[k].n) {
            memcpy(tab[k].ph, label, sizeof label);
            tab[k].n = n;
            return;
        }
    }
    /* the last slot: every further kind */
    phcount_label(tab[DFN_PH_KINDS - 1].ph, "more", 4);
    tab[DFN_PH_KINDS - 1].n += n;
}

/* µs since the epoch past which a time read as µs is not one: the year
 * 5138. DFTracer's ns times since the epoch are a thousand times that. */
#define UNIT_PLAUSIBLE_US 100000000000000000ull

bool dfn_unit_note(const dfn_store *s, dfn_unit given, char *buf, size_t cap)
{
    size_t declared[DFN_UNIT_SEC + 1] = { 0 }, bare = 0, far = 0, far_at = 0;
    for (size_t f = 0; f < s->nsrc; f++) {
        const dfn_srcinfo *si = &s->src[f];
        if (!si->events && !dfn_src_more(si)->counters) continue;
        if (si->unit_declared && (unsigned)si->unit <= DFN_UNIT_SEC) declared[si->unit]++;
        if (si->unit_declared) continue;
        bare++;
        if (si->unit == DFN_UNIT_US && si->start_us > UNIT_PLAUSIBLE_US && !far++) far_at = f;
    }
    dfn_unit other = DFN_UNIT_NONE;
    for (unsigned u = DFN_UNIT_NS; u <= DFN_UNIT_SEC; u++)
        if (declared[u] && (!other || declared[u] > declared[other])) other = (dfn_unit)u;
    if (far) {
        snprintf(buf, cap, "%s: times read as microseconds fall after the year 5000 (%zu file%s so): "
                 "nanoseconds without an end record to say so? --time-unit ns reads them so", s->src[far_at].path, far,
                 far == 1 ? "" : "s");
        return true;
    }
    if (other && bare && !given) {
        /* a process killed before its end record leaves its file without one */
        snprintf(buf, cap, "%zu files declare their times in %s, %zu name no unit and are read as microseconds "
                 "(a process that ended early writes no end record): --time-unit %s reads those as %s too",
                 declared[other], dfn_unit_name(other), bare, other == DFN_UNIT_NS ? "ns" : other == DFN_UNIT_MS ? "ms" : "sec",
                 dfn_unit_name(other));
        return true;
    }
    return false;
}

