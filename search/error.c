#include "nd/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int nd_error_set(nd_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int nd_error_prefix(nd_error *err, const char *fmt, ...)
{
    if (!err) return ND_EINPUT;
    char context[ND_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
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

void nd_error_clear(nd_error *err)
{
    if (!err) return;
    err->code = ND_OK;
    err->message[0] = '\0';
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
