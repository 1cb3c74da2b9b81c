/* text.c — strict parsing of what users type (numbers with no trailing junk, sizes such as
 * 58GB, booleans), case-insensitive comparison and bounded copies. */
#include "nd/base/text.h"

#include "nd/base/error.h"
#include "nd/base/array.h"

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
    if (n == 0 || !strcmp(u, "g") || !strcmp(u, "gb") || !strcmp(u, "gib"))
        scale = 1024.0;
    else if (!strcmp(u, "m") || !strcmp(u, "mb") || !strcmp(u, "mib"))
        scale = 1.0;
    else if (!strcmp(u, "t") || !strcmp(u, "tb") || !strcmp(u, "tib"))
        scale = 1024.0 * 1024.0;
    else
        return -1;
    if (!(v * scale <= ND_MEMORY_MIB_MAX)) return -1;
    *mib = v * scale;
    return 0;
}

int nd_parse_bool(const char *s, bool *out)
{
    static const char *yes[] = {"true", "yes", "on", "1"};
    static const char *no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < ND_ARRAY_LEN(yes); i++) {
        if (nd_text_equal_nocase(s, yes[i])) {
            *out = true;
            return 0;
        }
        if (nd_text_equal_nocase(s, no[i])) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

bool nd_text_equal_nocase(const char *a, const char *b)
{
    if (!a || !b) return false;
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++;
        b++;
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

long nd_text_name_chars(const char *s)
{
    long chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; chars++) {
        unsigned c = *p;
        size_t n = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (n == 0 || c < 0x20 || c == 0x7f) return -1;
        unsigned cp = n == 1 ? c : c & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
            if ((p[i] & 0xc0) != 0x80) return -1;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF, and the C1 controls */
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
            return -1;
        p += n;
    }
    return chars;
}

int nd_text_check_encoding(const char *text, size_t len, const char *path, nd_error *err)
{
    const unsigned char *t = (const unsigned char *)text;
    const char *what = NULL;
    if (len >= 4 && ((t[0] == 0xff && t[1] == 0xfe && !t[2] && !t[3]) ||
                     (!t[0] && !t[1] && t[2] == 0xfe && t[3] == 0xff)))
        what = "UTF-32";
    else if (len >= 2 && ((t[0] == 0xff && t[1] == 0xfe) || (t[0] == 0xfe && t[1] == 0xff)))
        what = "UTF-16";
    else if (memchr(text, '\0', len < 64 ? len : 64))
        what = "UTF-16 without a byte order mark, or binary";
    if (!what) return ND_OK;
    return nd_error_set(err, ND_EINPUT,
                        "%s: the file is %s, not UTF-8 text; convert it "
                        "(iconv -f UTF-16 -t UTF-8 FILE > NEW)",
                        path, what);
}

size_t nd_text_cut_utf8(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) return n;
    /* Back over the continuation bytes of the character the cut falls in, then its lead. */
    size_t k = max;
    while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
    return k;
}
