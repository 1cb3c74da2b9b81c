#include "nd/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nd/io.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *s)
{
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* Messages quote what a file said, and a file may hold line breaks, control bytes or
 * bytes that are not UTF-8 where a value was expected; the promise is one readable line,
 * so those are written as \n, \r, \t or \xHH. Truncates (whole escapes and characters
 * only) to size - 1 bytes. */
static void copy_one_line(char *dst, size_t size, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    for (; *src; src++) {
        unsigned char c = (unsigned char)*src;
        char esc[4];
        size_t n = 0, u = c >= 0x80 ? utf8_length((const unsigned char *)src) : 0;
        if (u) {
            if (k + u >= size) break;
            memcpy(dst + k, src, u);
            k += u, src += u - 1;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) {
            esc[n++] = (char)c;
        } else {
            esc[n++] = '\\';
            if (c == '\n') esc[n++] = 'n';
            else if (c == '\r') esc[n++] = 'r';
            else if (c == '\t') esc[n++] = 't';
            else esc[n++] = 'x', esc[n++] = hex[c >> 4], esc[n++] = hex[c & 15];
        }
        if (k + n >= size) break;
        memcpy(dst + k, esc, n);
        k += n;
    }
    dst[k] = '\0';
}

int nd_error_set(nd_error *err, int code, const char *fmt, ...)
{
    if (err) {
        char msg[ND_ERROR_MESSAGE_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        copy_one_line(err->message, sizeof err->message, msg);
        err->code = code;
    }
    return code;
}

int nd_error_prefix(nd_error *err, const char *fmt, ...)
{
    if (!err) return ND_EINPUT;
    char raw[ND_ERROR_MESSAGE_MAX], context[ND_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    copy_one_line(context, sizeof context, raw);
    /* Build "<context>: <message>" in place, truncating the old message if needed. */
    size_t n = strlen(context);
    if (n > ND_ERROR_MESSAGE_MAX - 3) n = ND_ERROR_MESSAGE_MAX - 3;
    size_t old = strlen(err->message);
    if (old > ND_ERROR_MESSAGE_MAX - 3 - n) old = ND_ERROR_MESSAGE_MAX - 3 - n;
    memmove(err->message + n + 2, err->message, old);
    err->message[n + 2 + old] = '\0';
    memcpy(err->message, context, n);
    err->message[n] = ':';
    err->message[n + 1] = ' ';
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

void nd_main_start(void)
{
    nd_signals_install();
    nd_outputs_begin();
}

int nd_main_finish(const char *program, int code, const nd_error *err)
{
    if (code) {
        nd_outputs_abort();
        fprintf(stderr, "%s: %s\n", program, err->message);
        return nd_exit_status(code);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        nd_outputs_abort();
        fprintf(stderr, "%s: cannot write the output: %s\n", program, strerror(e ? e : EIO));
        return 1;
    }
    nd_error commit = {0};
    if ((code = nd_outputs_commit(&commit))) {
        fprintf(stderr, "%s: %s\n", program, commit.message);
        return nd_exit_status(code);
    }
    return 0;
}
