/* double_text.c — the shortest text that reads back to the same double, so that outputs are
 * byte-identical for identical inputs, without the C library's slow exact conversions. */
#include "nd/base/text.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^k, exact in long double (a 64-bit significand holds 5^27) for k <= 27. */
static long double pow10_exact(int k)
{
    static const long double p[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                      1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                      1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    return p[k];
}

/* x (> 0, normal) is the nearest double to the decimal value v, which a long double holds
 * to within 2^-62 of itself? 1 yes, 0 no, -1 too close to the edge to tell. The edges are
 * halfway to x's neighbours (nearer below a power of two). */
static int reads_back(long double v, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)(bits >> 52 & 0x7ff) - 1023;
    double h = 0; /* 2^(e - 53), half an ulp above x */
    uint64_t hb = (uint64_t)(e - 53 + 1023) << 52;
    memcpy(&h, &hb, sizeof h);
    long double half_up = h, half_down = (bits & ((1ull << 52) - 1)) == 0 ? half_up / 2 : half_up;
    long double d = v - (long double)x, half = d < 0 ? half_down : half_up;
    long double margin = (long double)h * (1.0L / 128); /* 2^-60 of x, and more */
    long double ad = d < 0 ? -d : d;
    if (ad < half - margin) return 1;
    if (ad > half + margin) return 0;
    return -1;
}

/* What "%.{p}g" prints for the p-digit decimal digits x 10^(exp10 - p + 1) (digits has no
 * leading zero): scientific when exp10 < -4 or >= p, trailing zeros dropped. */
static void put_g(char *buf, int negative, uint64_t digits, int p, int exp10)
{
    char d[24];
    for (int i = p - 1; i >= 0; i--) {
        d[i] = (char)('0' + digits % 10);
        digits /= 10;
    }
    int last = p - 1;
    while (last > 0 && d[last] == '0') last--;
    char *w = buf;
    if (negative) *w++ = '-';
    if (exp10 < -4 || exp10 >= p) {
        *w++ = d[0];
        if (last > 0) {
            *w++ = '.';
            memcpy(w, d + 1, (size_t)last);
            w += last;
        }
        sprintf(w, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
        return;
    }
    if (exp10 < 0) {
        *w++ = '0';
        *w++ = '.';
        for (int i = -1; i > exp10; i--) *w++ = '0';
        memcpy(w, d, (size_t)last + 1);
        w += last + 1;
    } else {
        memcpy(w, d, (size_t)exp10 + 1);
        w += exp10 + 1;
        if (last > exp10) {
            *w++ = '.';
            memcpy(w, d + exp10 + 1, (size_t)(last - exp10));
            w += last - exp10;
        }
    }
    *w = '\0';
}

/* The shortest text without the C library's exact (and slow: multi-precision) conversions,
 * for doubles in [1e-11, 1e16): the 17 digits come from long double arithmetic (11 bits
 * more than a double: x x 10^k is within an ulp of the exact value) and a rounding or a
 * read-back too close to call returns false, for the exact path to decide. tests/test_base.c
 * checks it against that path on 200,000 doubles. */
static bool shortest_fast(double x, char buf[ND_DOUBLE_TEXT_MAX])
{
    double a = fabs(x);
    if (!(a >= 1e-11 && a < 1e16)) return false;
    int e2;
    frexp(a, &e2);
    int exp10 = (int)floor((e2 - 1) * 0.30102999566398120); /* log10(2): off by at most one */
    if (exp10 < 16 && a >= (double)pow10_exact(exp10 + 1 > 0 ? exp10 + 1 : 0) && exp10 + 1 >= 0) exp10++;
    long double la = a;
    int k = 16 - exp10; /* a x 10^k has 17 digits before the point */
    if (k < 0 || k > 27) return false;
    long double t17 = la * pow10_exact(k);
    if (t17 < 1e16L) {
        t17 *= 10;
        exp10--;
        k++;
    }
    if (t17 >= 1e17L || t17 < 1e16L || k > 27) return false;
    /* how close to a half the dropped digits may come before the rounding is in doubt: a few
     * ulps of t (2^-6 at 1e17, 2^-9 at 1e16, 2^-13 at 1e15) */
    static const long double margin[3] = {1.0L / 2048, 1.0L / 128, 1.0L / 16};
    for (int p = 15; p <= 17; p++) {
        long double t = p == 17 ? t17 : t17 / pow10_exact(17 - p);
        uint64_t whole = (uint64_t)t;
        long double frac = t - (long double)whole;
        long double off = frac - 0.5L;
        if ((off < 0 ? -off : off) < margin[p - 15]) return false; /* too close to call */
        uint64_t digits = whole + (frac > 0.5L);
        int e = exp10;
        if ((long double)digits == pow10_exact(p)) {
            digits /= 10;
            e++;
        }
        if (p - 1 - e < 0 || p - 1 - e > 27) return false;
        long double v = (long double)digits / pow10_exact(p - 1 - e);
        int back = reads_back(v, a);
        if (back < 0) return false;
        if (back) {
            put_g(buf, x < 0, digits, p, e);
            return true;
        }
    }
    return false;
}

const char *nd_format_double(double x, char buf[ND_DOUBLE_TEXT_MAX])
{
    if (isnan(x)) return strcpy(buf, "nan");
    if (isinf(x)) return strcpy(buf, x > 0 ? "inf" : "-inf");
    if (x == 0) return strcpy(buf, "0"); /* also -0: no output distinguishes it */
    /* Whole numbers print whole ("100", not "1e+02"); below 2^53 that is exact. */
    if (x == floor(x) && fabs(x) < 9007199254740992.0) {
        snprintf(buf, ND_DOUBLE_TEXT_MAX, "%.0f", x);
        return buf;
    }
    /* The shortest precision that reads back. A double has 15 to 17 significant digits; when
     * the correctly rounded 15 read back, they are the shortest text (a shorter decimal that
     * reads back is within 2^-53 of x, so rounding x to 15 digits gives it, zeros dropped by
     * %g), else 16, else 17 always do. At most three conversions: nd-compare writes millions
     * of numbers for a large round. */
    if (shortest_fast(x, buf)) return buf;
    char text[320]; /* what %g may write for any precision; at most 24 bytes here */
    int precision = 15;
    if (fabs(x) < DBL_MIN) { /* subnormal: fewer digits hold; bisect (reading back is monotone) */
        int lo = 1, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(text, sizeof text, "%.*g", mid, x);
            if (strtod(text, NULL) == x)
                hi = mid;
            else
                lo = mid + 1;
        }
        precision = lo;
    }
    for (; precision < 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, x);
        if (strtod(text, NULL) == x) break;
    }
    if (precision == 17) snprintf(text, sizeof text, "%.17g", x);
    nd_text_copy(buf, text, ND_DOUBLE_TEXT_MAX);
    return buf;
}
