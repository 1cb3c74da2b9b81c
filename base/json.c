/*
 * json.c — writing JSON documents the way every nd output does, and parsing the ones nd
 * reads with the checks cJSON leaves out (repeated keys, NUL in strings, encodings,
 * running out of memory).
 */
#include "nd/base/json.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"

cJSON *nd_json_add_number(cJSON *obj, const char *key, double value)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    if (!isfinite(value)) return cJSON_AddNullToObject(obj, key);
    return cJSON_AddRawToObject(obj, key, nd_format_double(value, buf));
}

/* cJSON prints with tabs; nd's files use two spaces, like ND's. extra_tabs indents every
 * line after the first by that many more levels (an item printed alone, put in an array). */
static void put_spaced(FILE *fp, const char *text, size_t len, int extra_tabs)
{
    /* converted in memory and written at once: a report of 100,000 rows has millions of
     * lines, and a stdio call per tab costs more than the rest of the printing */
    size_t cap = 2 * len + 1, lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    cap += lines * 2 * (size_t)extra_tabs;
    char *out = malloc(cap), *w = out;
    if (!out) { /* keep going, slowly */
        for (size_t i = 0; i < len; i++) {
            if (text[i] == '\t')
                fputs(i > 0 && text[i - 1] == ':' ? " " : "  ", fp);
            else
                fputc(text[i], fp);
            if (text[i] == '\n')
                for (int t = 0; t < extra_tabs; t++) fputs("  ", fp);
        }
        return;
    }
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\t') {
            *w++ = ' ';
            if (!(i > 0 && text[i - 1] == ':')) *w++ = ' ';
            continue;
        }
        *w++ = c;
        if (c == '\n')
            for (int t = 0; t < extra_tabs; t++) {
                *w++ = ' ';
                *w++ = ' ';
            }
    }
    fwrite(out, 1, (size_t)(w - out), fp);
    free(out);
}

int nd_json_print(FILE *fp, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    if (!text) return -1;
    put_spaced(fp, text, strlen(text), 0);
    fputc('\n', fp);
    free(text);
    return ferror(fp) ? -1 : 0;
}

int nd_json_print_streamed(FILE *fp, const cJSON *doc, const char *array_key, size_t n,
                           cJSON *(*make_item)(size_t i, const void *ctx), const void *ctx)
{
    char *text = cJSON_Print(doc);
    char *marker = text ? nd_path_printf("\n\t\"%s\":\t[]", array_key) : NULL;
    char *at = marker ? strstr(text, marker) : NULL;
    int rc = at ? 0 : -1;
    if (at) {
        size_t head = (size_t)(at - text) + strlen(marker) - 1; /* up to and with the '[' */
        put_spaced(fp, text, head, 0);
        for (size_t i = 0; i < n && !rc; i++) {
            cJSON *item = make_item(i, ctx);
            char *one = item ? cJSON_Print(item) : NULL;
            if (!one)
                rc = -1;
            else {
                if (i) fputs(", ", fp);
                put_spaced(fp, one, strlen(one), 2); /* items of a member of the document */
            }
            free(one);
            cJSON_Delete(item);
        }
        put_spaced(fp, text + head, strlen(text + head), 0);
        fputc('\n', fp);
    }
    free(marker);
    free(text);
    return rc || ferror(fp) ? -1 : 0;
}

int nd_json_write_file(const char *path, const cJSON *doc, nd_error *err)
{
    nd_outfile out;
    int rc = nd_outfile_open(&out, path, err);
    if (rc) return rc;
    if (nd_json_print(out.fp, doc)) {
        nd_outfile_discard(&out);
        return nd_error_set(err, ND_EIO, "%s: cannot write", path);
    }
    return nd_outfile_commit(&out, err);
}

/* cJSON returns NULL for bad JSON and for a failed malloc alike; its allocator is wrapped
 * so the reader can tell which (per thread: parses may run on several). */
static _Thread_local bool allocation_failed;

static void *json_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p) allocation_failed = true;
    return p;
}

static void install_hooks(void)
{
    cJSON_Hooks hooks = {json_malloc, free};
    cJSON_InitHooks(&hooks);
}

static int line_at(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; p < at && *p; p++) line += *p == '\n';
    return line;
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The first key repeated in an object of node (depth first), or NULL. Each object's keys are
 * sorted, so a million keys cost n log n. *oom on a failed allocation. */
static const cJSON *repeated_key(const cJSON *node, bool *oom)
{
    size_t n = 0;
    for (const cJSON *c = node->child; c; c = c->next) {
        const cJSON *inner = c->child ? repeated_key(c, oom) : NULL;
        if (inner || *oom) return inner;
        n++;
    }
    if (!cJSON_IsObject(node) || n < 2) return NULL;
    const cJSON **keys = malloc(n * sizeof *keys);
    if (!keys) {
        *oom = true;
        return NULL;
    }
    size_t k = 0;
    for (const cJSON *c = node->child; c; c = c->next) keys[k++] = c;
    qsort(keys, n, sizeof *keys, compare_keys);
    const cJSON *found = NULL;
    for (size_t i = 1; i < n && !found; i++)
        if (!strcmp(keys[i]->string, keys[i - 1]->string)) found = keys[i];
    free(keys);
    return found;
}

/* Where text holds the escape \u0000 inside a string, or NULL. */
static const char *escaped_nul(const char *text)
{
    for (const char *p = strstr(text, "\\u0000"); p; p = strstr(p + 1, "\\u0000")) {
        size_t backslashes = 0; /* "\\u0000" is a backslash, then text: not a NUL */
        for (const char *q = p; q > text && q[-1] == '\\'; q--) backslashes++;
        if (backslashes % 2 == 0) return p;
    }
    return NULL;
}

/* A NUL byte anywhere, or a raw control byte (below 0x20) inside a string, which JSON (RFC 8259
 * §7) refuses and cJSON would take (a NUL cutting the string short): ND_EINPUT naming the line. */
static int raw_control(const char *text, size_t len, const char *path, nd_error *err)
{
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!c)
            return nd_error_set(err, ND_EINPUT, "%s:%d: holds a NUL byte%s", path, line_at(text, text + i),
                                in_string ? " inside a string, which would cut it short" : "");
        if (in_string && c < 0x20)
            return nd_error_set(err, ND_EINPUT,
                                "%s:%d: a string holds the raw control byte 0x%02x, which JSON refuses "
                                "(write it as an escape, \\u%04x)",
                                path, line_at(text, text + i), c, c);
        if (c == '"')
            in_string = !in_string;
        else if (c == '\\' && in_string && i + 1 < len)
            i++; /* the escaped byte: \" does not end the string */
    }
    return ND_OK;
}

int nd_json_parse(const char *text, size_t len, const char *path, cJSON **root, nd_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_hooks);
    *root = NULL;
    int rc = nd_text_check_encoding(text, len, path, err);
    if (rc) return rc;
    size_t bom = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0; /* cJSON refuses a BOM */
    if ((rc = raw_control(text, len, path, err))) return rc;
    const char *nul = escaped_nul(text + bom);
    if (nul)
        return nd_error_set(err, ND_EINPUT,
                            "%s:%d: a string holds \\u0000 (a NUL character), "
                            "which would cut it short",
                            path, line_at(text, nul));
    const char *end = NULL;
    allocation_failed = false;
    cJSON *doc = cJSON_ParseWithLengthOpts(text + bom, len - bom + 1, &end, 1); /* + its NUL */
    if (!doc && allocation_failed)
        return nd_error_set(err, ND_ENOMEM, "%s: out of memory reading the JSON", path);
    if (!doc)
        return nd_error_set(err, ND_EINPUT, "%s:%d: not valid JSON (near byte %zu)", path,
                            line_at(text, end ? end : text), end && end >= text ? (size_t)(end - text) : 0);
    bool oom = false;
    const cJSON *twice = repeated_key(doc, &oom);
    if (oom || twice) {
        rc = oom ? nd_error_set(err, ND_ENOMEM, "%s: out of memory reading the JSON", path)
                 : nd_error_set(err, ND_EINPUT,
                                "%s: key '%s' appears twice in one object; "
                                "which one counts would be an accident",
                                path, twice->string);
        cJSON_Delete(doc);
        return rc;
    }
    *root = doc;
    return ND_OK;
}
