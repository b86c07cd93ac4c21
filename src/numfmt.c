/* Numbers as text: the shortest decimal that reads back as the same
 * double (CSV and JSON must be exact), seconds to the microsecond, and
 * the human units of tables. printf's arbitrary-precision path was most
 * of the time of a large CSV, so the usual values take exact integer
 * paths that print what printf would, byte for byte. */
#include "dfnav/export.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The decimal digits of v at out (at least min of them, zeros leading):
 * how many. printf's parsing of a format was a fifth of a large CSV. */
static size_t num_utoa(uint64_t v, char *out, size_t min)
{
    char t[24];
    size_t n = 0;
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n < min) t[n++] = '0';
    for (size_t i = 0; i < n; i++) out[i] = t[n - 1 - i];
    return n;
}

/* out[0..n) into buf as snprintf would: cut to cap - 1 bytes, ended. */
static void num_put(const char *out, size_t n, char *buf, size_t cap)
{
    if (!cap) return;
    if (n >= cap) n = cap - 1;
    memcpy(buf, out, n);
    buf[n] = 0;
}

/* The exact paths below hold a value's digits in a fixed layout:
 * NUM_INT integer digits, zero-padded, then up to 60 fraction digits. */
#define NUM_INT 18
#define NUM_MAX (NUM_INT + 60)

/* What %.{prec}g prints for the significant digits d (nd of them, the
 * last not 0) times 10^(x10 - nd + 1). */
static void print_g(bool neg, const char *d, int nd, int x10, int prec, char *buf, size_t cap)
{
    char out[NUM_MAX + 16];
    size_t n = 0;
    if (neg) out[n++] = '-';
    if (x10 < -4 || x10 >= prec) {   /* %g's exponent form */
        out[n++] = d[0];
        if (nd > 1) { out[n++] = '.'; memcpy(out + n, d + 1, (size_t)nd - 1); n += (size_t)nd - 1; }
        out[n++] = 'e';
        out[n++] = x10 < 0 ? '-' : '+';
        n += num_utoa((uint64_t)(x10 < 0 ? -x10 : x10), out + n, 2);
    } else if (x10 < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x10 - 1; i++) out[n++] = '0';
        memcpy(out + n, d, (size_t)nd);
        n += (size_t)nd;
    } else {
        for (int i = 0; i <= x10; i++) out[n++] = i < nd ? d[i] : '0';
        if (nd > x10 + 1) {
            out[n++] = '.';
            memcpy(out + n, d + x10 + 1, (size_t)(nd - x10 - 1));
            n += (size_t)(nd - x10 - 1);
        }
    }
    num_put(out, n, buf, cap);
}

/* %.{P}g of a value that is exactly the decimal m / 10^k (m of at most 15
 * digits, k >= 1, no trailing zeros), P = max(6, digits of m): what the
 * loop below would print, without printf's arbitrary-precision path
 * (most figures are µs / 1e6 and the like; a million rows of CSV spent
 * most of their time there). */
static void fmt_decimal(bool neg, uint64_t m, int k, char *buf, size_t cap)
{
    char d[24];
    int nd = (int)num_utoa(m, d, 1);
    print_g(neg, d, nd, nd - 1 - k, nd > 6 ? nd : 6, buf, cap);
}

/* Exact decimal digits of M / 2^S (S <= 59, M < 2^55) in a fixed
 * layout: NUM_INT integer digits, zero-padded, then S fraction digits
 * (a binary fraction of S bits ends after S decimal digits). Values of one
 * S share the layout, so memcmp orders them. */
static void num_digits(uint64_t M, int S, char *out)
{
    uint64_t ip = M >> S, mask = ((uint64_t)1 << S) - 1, f = M & mask;
    num_utoa(ip, out, NUM_INT);   /* ip < 2^55: at most 17 digits */
    for (int i = 0; i < S; i++) {
        f *= 10;   /* < 10 * 2^59: no overflow */
        out[NUM_INT + i] = (char)('0' + (f >> S));
        f &= mask;
    }
}

/* Rounds the exact digits d (len of them, the first not 0 at f0) to p
 * significant digits into c as printf does (half to even on an exact
 * tie): zeros past the cut. */
static void num_round(const char *d, int len, int f0, int p, char *c)
{
    memcpy(c, d, (size_t)len);
    int cut = f0 + p;
    if (cut >= len) return;   /* fewer digits than p: exact */
    bool up = d[cut] > '5';
    if (d[cut] == '5') {
        up = ((d[cut - 1] - '0') & 1) != 0;
        for (int i = cut + 1; i < len; i++) if (d[i] != '0') { up = true; break; }
    }
    memset(c + cut, '0', (size_t)(len - cut));
    for (int i = cut - 1; up && i >= 0; i--) {
        if (c[i] == '9') c[i] = '0';
        else { c[i]++; up = false; }
    }
}

/* %.{p}g of the aligned digits c (len of them, units at NUM_INT - 1). */
static void num_print_g(bool neg, const char *c, int len, int p, char *buf, size_t cap)
{
    int f1 = 0;
    while (f1 < len - 1 && c[f1] == '0') f1++;
    int nd = p < len - f1 ? p : len - f1;
    while (nd > 1 && c[f1 + nd - 1] == '0') nd--;
    print_g(neg, c + f1, nd, NUM_INT - 1 - f1, p, buf, cap);
}

/* The %.{6..17}g loop of dfn_fmt_double done exactly in integers for
 * v = m / 2^s (s of 1 to 58: about 0.016 to 2^52), which covers the
 * ratios and means whose shortest form needs 16 or 17 digits: each
 * precision's rounding is taken from v's exact digits, and it reads back
 * as v when it lies strictly between the midpoints to v's neighbours (on
 * a midpoint, when v's mantissa is even, as strtod rounds ties to even).
 * The lowest mantissa of a binade, whose lower neighbour is nearer, is
 * left to the loop. */
static bool fmt_exact(double v, char *buf, size_t cap)
{
    double a = fabs(v);
    int ex;
    double fr = frexp(a, &ex);
    uint64_t m = (uint64_t)ldexp(fr, 53);
    int s = 53 - ex;
    if (s < 1 || s > 58 || m == ((uint64_t)1 << 52)) return false;
    char lo[NUM_MAX], mid[NUM_MAX], hi[NUM_MAX], c[NUM_MAX];
    int S = s + 1, len = NUM_INT + S;
    num_digits(2 * m - 1, S, lo);
    num_digits(2 * m, S, mid);
    num_digits(2 * m + 1, S, hi);
    bool even = (m & 1) == 0;
    /* a rounding cut before the first digit where the midpoints differ
     * leaves zeros where lo has its digits: at or below lo, so it cannot
     * read back; start just short of there rather than at 6 */
    int f0 = 0, k0 = 0;
    while (f0 < len && mid[f0] == '0') f0++;
    while (k0 < len && lo[k0] == hi[k0]) k0++;
    int p0 = k0 - f0 - 1 > 6 ? k0 - f0 - 1 : 6;
    for (int p = p0; p <= 17; p++) {
        num_round(mid, len, f0, p, c);
        int cl = memcmp(c, lo, (size_t)len), ch = memcmp(c, hi, (size_t)len);
        if ((cl > 0 || (cl == 0 && even)) && (ch < 0 || (ch == 0 && even))) {
            num_print_g(v < 0, c, len, p, buf, cap);
            return true;
        }
    }
    return false;   /* not reached: 17 digits always read back */
}

/* Whether v is m / 10^k for an integer m under 10^15 (the smallest such
 * k, 1 to 15): then that decimal is the shortest that reads back as v,
 * since two decimals of at most 15 digits never read as one double. */
static bool fmt_short(double v, char *buf, size_t cap)
{
    static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
    double a = fabs(v);
    if (!(a >= 1e-15) || a >= 1e15) return false;
    for (int k = 1; k <= 15; k++) {
        double x = a * p10[k];
        if (x >= 1e15) return false;
        double m = floor(x + 0.5);
        if (m / p10[k] == a) {
            fmt_decimal(v < 0, (uint64_t)m, k, buf, cap);
            return true;
        }
    }
    return false;
}

void dfn_fmt_double(double v, char *buf, size_t cap)
{
    if (v == 0) { snprintf(buf, cap, "0"); return; }
    /* whole numbers as integers: printf's %.0f of a double is many times slower */
    if (v == floor(v) && fabs(v) < 1e15) {
        char out[24];
        size_t n = 0;
        if (v < 0) out[n++] = '-';
        n += num_utoa((uint64_t)fabs(v), out + n, 1);
        num_put(out, n, buf, cap);
        return;
    }
    if (fmt_short(v, buf, cap) || fmt_exact(v, buf, cap)) return;
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* %.6f, seconds to the µs: the value times 1e6 is a whole number of µs
 * far from a rounding tie (as µs / 1e6 always is) for the integer path;
 * near a tie, past 2^50 µs or a negative zero, printf rounds. */
void dfn_fmt_secs6(double v, char *buf, size_t cap)
{
    double x = v * 1e6, n = floor(x + 0.5);
    if (!(fabs(x) < 1e15) || fabs(x - n) >= 0.25 || (n == 0 && signbit(v))) {
        snprintf(buf, cap, "%.6f", v);
        return;
    }
    int64_t i = (int64_t)n;
    uint64_t a = i < 0 ? (uint64_t)-i : (uint64_t)i;
    char out[48];
    size_t k = 0;
    if (i < 0) out[k++] = '-';
    k += num_utoa(a / 1000000, out + k, 1);
    out[k++] = '.';
    k += num_utoa(a % 1000000, out + k, 6);
    num_put(out, k, buf, cap);
}

void dfn_fmt_us(double us, char *buf, size_t cap)
{
    /* a flagged sum (past 2^64) or an undefined one */
    if (!isfinite(us)) { snprintf(buf, cap, "%s", isnan(us) ? "-" : "inf"); return; }
    if (us < 1000) snprintf(buf, cap, "%.0fus", us);
    else if (us < 1e6) snprintf(buf, cap, "%.1fms", us / 1e3);
    else if (us < 1e9) snprintf(buf, cap, "%.2fs", us / 1e6);
    else snprintf(buf, cap, "%.0fs", us / 1e6);
}

void dfn_fmt_bytes(double b, char *buf, size_t cap)
{
    static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    if (!isfinite(b)) { snprintf(buf, cap, "%s", isnan(b) ? "-" : "inf"); return; }
    int k = 0;
    while (b >= 1024 && k < 5) { b /= 1024; k++; }
    if (k == 0) snprintf(buf, cap, "%.0f%s", b, u[k]);
    else snprintf(buf, cap, "%.1f%s", b, u[k]);
}

