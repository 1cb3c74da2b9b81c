#include "nd/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

static bool only_space(const char *s)
{
    return *skip_space(s) == '\0';
}

int nd_parse_double(const char *s, double *out)
{
    if (!s) return -1;
    s = skip_space(s);
    if (!*s) return -1;
    /* strtod also reads hex floats, "nan" and "inf": none is a number a user means here. */
    for (const char *p = s; *p && !isspace((unsigned char)*p); p++)
        if (isalpha((unsigned char)*p) && *p != 'e' && *p != 'E') return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || !only_space(end) || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int nd_parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    double v;
    if (nd_parse_double(s, &v) != 0) return -1;
    if (v != floor(v) || v < (double)min || v > (double)max) return -1;
    if (strchr(s, 'e') || strchr(s, 'E')) return -1;
    *out = (int64_t)v;
    return 0;
}

int nd_parse_memory_mib(const char *s, double *mib)
{
    if (!s) return -1;
    s = skip_space(s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0) return -1;
    const char *unit = skip_space(end);
    char u[8] = {0};
    size_t n = 0;
    while (unit[n] && !isspace((unsigned char)unit[n])) {
        if (n + 1 >= sizeof u) return -1;
        u[n] = (char)tolower((unsigned char)unit[n]);
        n++;
    }
    if (!only_space(unit + n)) return -1;
    double scale;
    if (n == 0 || !strcmp(u, "g") || !strcmp(u, "gb") || !strcmp(u, "gib")) scale = 1024.0;
    else if (!strcmp(u, "m") || !strcmp(u, "mb") || !strcmp(u, "mib")) scale = 1.0;
    else if (!strcmp(u, "t") || !strcmp(u, "tb") || !strcmp(u, "tib")) scale = 1024.0 * 1024.0;
    else return -1;
    *mib = v * scale;
    return 0;
}

int nd_parse_bool(const char *s, bool *out)
{
    static const char *yes[] = {"true", "yes", "on", "1"};
    static const char *no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (nd_text_equal_nocase(s, yes[i])) { *out = true; return 0; }
        if (nd_text_equal_nocase(s, no[i])) { *out = false; return 0; }
    }
    return -1;
}

bool nd_text_equal_nocase(const char *a, const char *b)
{
    if (!a || !b) return false;
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++, b++;
    }
    return *a == *b;
}

size_t nd_text_copy(char *dst, const char *src, size_t size)
{
    size_t n = strlen(src);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}
