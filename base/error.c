/* error.c — filling an nd_error: one line of printable UTF-8 naming file, line and field,
 * context prefixed to a message, and the exit status an error code means. */
#include "nd/base/error.h"
#include "nd/base/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *s)
{
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* Messages quote what a file said, and a file may hold line breaks, control bytes or
 * bytes that are not UTF-8 where a value was expected; the promise is one readable line,
 * so those are written as \n, \r, \t or \xHH (C1 controls too: a terminal takes U+009B as
 * an escape). Writes whole escapes and characters only, at most size - 1 bytes; returns
 * the bytes written. */
static size_t escape_line(char *dst, size_t size, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    for (; *src; src++) {
        unsigned char c = (unsigned char)*src;
        char esc[4];
        size_t n = 0, u = c >= 0x80 ? utf8_length((const unsigned char *)src) : 0;
        if (u == 2 && c == 0xc2 && (unsigned char)src[1] < 0xa0) u = 0;
        if (u) {
            if (k + u >= size) break;
            memcpy(dst + k, src, u);
            k += u;
            src += u - 1;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) {
            esc[n++] = (char)c;
        } else {
            esc[n++] = '\\';
            if (c == '\n')
                esc[n++] = 'n';
            else if (c == '\r')
                esc[n++] = 'r';
            else if (c == '\t')
                esc[n++] = 't';
            else {
                esc[n++] = 'x';
                esc[n++] = hex[c >> 4];
                esc[n++] = hex[c & 15];
            }
        }
        if (k + n >= size) break;
        memcpy(dst + k, esc, n);
        k += n;
    }
    dst[k] = '\0';
    return k;
}

const char *nd_text_shown(const char *s, char *buf, size_t size)
{
    if (!size) return "";
    escape_line(buf, size, s);
    return buf;
}

/* src as one line in dst. A message too long for dst keeps its start (the file) and its
 * end (the reason), with " [...] " between: a 5,000-byte path must not push the reason
 * out. */
static void copy_one_line(char *dst, size_t size, const char *src)
{
    size_t cap = 4 * strlen(src) + 1;
    char *line = malloc(cap);
    if (!line) { /* keep what fits */
        escape_line(dst, size, src);
        return;
    }
    size_t n = escape_line(line, cap, src);
    if (n < size) {
        memcpy(dst, line, n + 1);
    } else {
        static const char gap[] = " [...] ";
        size_t g = sizeof gap - 1, head = (size - 1) / 4, tail = size - 1 - head - g;
        size_t from = n - tail;
        while (head > 0 && ((unsigned char)line[head] & 0xc0) == 0x80) head--;
        while (from < n && ((unsigned char)line[from] & 0xc0) == 0x80) from++;
        memcpy(dst, line, head);
        memcpy(dst + head, gap, g);
        memcpy(dst + head + g, line + from, n - from + 1);
    }
    free(line);
}

/* vsnprintf into a new string (NULL when out of memory). */
static char *format_new(const char *fmt, va_list ap) ND_PRINTF(1, 0);
static char *format_new(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

int nd_error_set(nd_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = format_new(fmt, ap);
        va_end(ap);
        copy_one_line(err->message, sizeof err->message, msg ? msg : "out of memory");
        free(msg);
        err->code = code;
    }
    return code;
}

int nd_error_prefix(nd_error *err, const char *fmt, ...)
{
    if (!err) return ND_EINPUT;
    va_list ap;
    va_start(ap, fmt);
    char *context = format_new(fmt, ap);
    va_end(ap);
    size_t a = context ? strlen(context) : 0, b = strlen(err->message);
    char *both = context ? malloc(a + b + 3) : NULL;
    if (both) {
        memcpy(both, context, a);
        memcpy(both + a, ": ", 2);
        memcpy(both + a + 2, err->message, b + 1);
        copy_one_line(err->message, sizeof err->message, both);
    }
    free(context);
    free(both);
    return err->code;
}

int nd_exit_status(int code)
{
    switch (code) {
    case ND_OK: return 0;
    case ND_EINPUT:
    case ND_EUSAGE: return 2;
    default: return 1;
    }
}
