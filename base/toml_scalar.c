/* toml_scalar.c — TOML's bare scalars as text (toml.c's values): integers in decimal, hex,
 * octal and binary with '_' between digits, floats, inf and nan, booleans, and the pieces of
 * dates and times. No parser state: a scalar's bytes in, its kind and nd's text out. */
#include "toml_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits with '_' only between two of them; *n gets the digits alone. */
static bool digits(const char *s, size_t len, bool (*ok)(char), char *out, size_t size)
{
    size_t n = 0;
    if (!len) return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '_') {
            if (!i || i + 1 == len || !ok(s[i - 1]) || !ok(s[i + 1])) return false;
            continue;
        }
        if (!ok(s[i])) return false;
        if (n + 1 < size) out[n++] = s[i];
    }
    out[n] = '\0';
    return true;
}

static bool is_oct(char c)
{
    return c >= '0' && c <= '7';
}

static bool is_bin(char c)
{
    return c == '0' || c == '1';
}

/* A number, a boolean or inf/nan as TOML writes them: its type, the text nd keeps
 * (integers in decimal, '_' dropped), 0 when s is none of them. */
int toml_classify(const char *s, size_t len, char *out, size_t size, int64_t *ival, bool *int_ok)
{
    *int_ok = false;
    if ((len == 4 && !memcmp(s, "true", 4)) || (len == 5 && !memcmp(s, "false", 5))) {
        snprintf(out, size, "%.*s", (int)len, s);
        return ND_TOML_BOOL;
    }
    size_t i = 0;
    bool sign = s[0] == '+' || s[0] == '-';
    if (sign) i++;
    if ((len - i == 3) && (!memcmp(s + i, "inf", 3) || !memcmp(s + i, "nan", 3))) {
        snprintf(out, size, "%.*s", (int)len, s);
        return ND_TOML_FLOAT;
    }
    char d[80];
    if (!sign && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
        bool (*ok)(char) = s[1] == 'x' ? toml_is_hex : s[1] == 'o' ? is_oct : is_bin;
        int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
        if (!digits(s + 2, len - 2, ok, d, sizeof d)) return 0;
        uint64_t v = 0;
        *int_ok = true;
        for (const char *p = d; *p; p++) {
            unsigned dv = toml_is_digit(*p) ? (unsigned)(*p - '0') : (unsigned)((*p | 0x20) - 'a' + 10);
            if (v > ((uint64_t)INT64_MAX - dv) / (uint64_t)base) *int_ok = false;
            v = v * (uint64_t)base + dv;
        }
        *ival = (int64_t)v;
        if (*int_ok)
            snprintf(out, size, "%lld", (long long)*ival);
        else
            snprintf(out, size, "%.*s", (int)len, s);
        return ND_TOML_INTEGER;
    }
    /* dec-int: 0 or [1-9] digits, then a fraction and/or an exponent for a float */
    size_t int_end = i;
    while (int_end < len && (toml_is_digit(s[int_end]) || s[int_end] == '_')) int_end++;
    if (int_end == i || !digits(s + i, int_end - i, toml_is_digit, d, sizeof d)) return 0;
    if (d[0] == '0' && d[1]) return 0; /* a leading zero: TOML refuses 08 */
    size_t p = int_end;
    bool is_float = false;
    if (p < len && s[p] == '.') {
        size_t f = ++p;
        while (p < len && (toml_is_digit(s[p]) || s[p] == '_')) p++;
        if (!digits(s + f, p - f, toml_is_digit, d, sizeof d)) return 0;
        is_float = true;
    }
    if (p < len && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < len && (s[p] == '+' || s[p] == '-')) p++;
        size_t f = p;
        while (p < len && (toml_is_digit(s[p]) || s[p] == '_')) p++;
        if (!digits(s + f, p - f, toml_is_digit, d, sizeof d)) return 0;
        is_float = true;
    }
    if (p != len) return 0;
    size_t n = 0;
    for (size_t k = 0; k < len && n + 1 < size; k++)
        if (s[k] != '_') out[n++] = s[k];
    out[n] = '\0';
    if (is_float) return ND_TOML_FLOAT;
    /* the integer, checked against int64 */
    uint64_t v = 0;
    *int_ok = true;
    for (const char *q = out + (sign ? 1 : 0); *q; q++) {
        unsigned dv = (unsigned)(*q - '0');
        if (v > ((uint64_t)INT64_MAX + 1 - dv) / 10) *int_ok = false;
        v = v * 10 + dv;
    }
    if (*int_ok && s[0] != '-' && v > (uint64_t)INT64_MAX) *int_ok = false;
    if (*int_ok) {
        *ival = s[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
        snprintf(out, size, "%lld", (long long)*ival);
    }
    return ND_TOML_INTEGER;
}

bool toml_n_digits(const char *s, size_t len, size_t at, int n)
{
    for (int i = 0; i < n; i++)
        if (at + (size_t)i >= len || !toml_is_digit(s[at + (size_t)i])) return false;
    return true;
}

/* A time HH:MM:SS[.frac] at s + at: its end, or 0. */
size_t toml_time_end(const char *s, size_t len, size_t at)
{
    if (!toml_n_digits(s, len, at, 2) || at + 2 >= len || s[at + 2] != ':' ||
        !toml_n_digits(s, len, at + 3, 2) || at + 5 >= len || s[at + 5] != ':' ||
        !toml_n_digits(s, len, at + 6, 2))
        return 0;
    size_t p = at + 8;
    if (p < len && s[p] == '.') {
        size_t f = ++p;
        while (p < len && toml_is_digit(s[p])) p++;
        if (p == f) return 0;
    }
    return p;
}
