/*
 * json.c — writing JSON documents the way every nd output does, and parsing the ones nd
 * reads with the checks cJSON leaves out (repeated keys, NUL in strings, encodings,
 * running out of memory).
 */
#include "nd/json.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nd/io.h"
#include "nd/text.h"

cJSON *nd_json_add_number(cJSON *obj, const char *key, double value)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    if (!isfinite(value)) return cJSON_AddNullToObject(obj, key);
    return cJSON_AddRawToObject(obj, key, nd_format_double(value, buf));
}

/* cJSON prints with tabs; nd's files use two spaces, like ND's. */
int nd_json_print(FILE *fp, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    if (!text) return -1;
    for (const char *p = text; *p; p++) {
        if (*p == '\t') fputs(p > text && p[-1] == ':' ? " " : "  ", fp);
        else fputc(*p, fp);
    }
    fputc('\n', fp);
    free(text);
    return ferror(fp) ? -1 : 0;
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

int nd_json_parse(const char *text, size_t len, const char *path, cJSON **root, nd_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_hooks);
    *root = NULL;
    int rc = nd_text_check_encoding(text, len, path, err);
    if (rc) return rc;
    size_t bom = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0; /* cJSON refuses a BOM */
    const char *nul = escaped_nul(text + bom);
    if (nul)
        return nd_error_set(err, ND_EINPUT, "%s:%d: a string holds \\u0000 (a NUL character), "
                            "which would cut it short", path, line_at(text, nul));
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
                 : nd_error_set(err, ND_EINPUT, "%s: key '%s' appears twice in one object; "
                                "which one counts would be an accident", path, twice->string);
        cJSON_Delete(doc);
        return rc;
    }
    *root = doc;
    return ND_OK;
}
