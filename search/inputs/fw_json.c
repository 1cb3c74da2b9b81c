/*
 * fw_json.c — what the JSON framework readers share (ND's MindSpeed json, SimuMax's model
 * and strategy files): loading a file under nd's JSON rules, a value as text for the key
 * setters, a whole number checked before it is cast.
 */
#include "fw_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"

int fw_json_load(const char *path, cJSON **root, nd_error *err)
{
    char *text;
    size_t len;
    int rc = nd_read_file(path, 16u << 20, &text, &len, err);
    if (rc) return rc;
    /* nd's JSON rules (a NUL or raw control byte in a string, a repeated key: refused) */
    rc = nd_json_parse(text, len, path, root, err);
    free(text);
    if (rc) return rc;
    if (!cJSON_IsObject(*root)) {
        cJSON_Delete(*root);
        return nd_error_set(err, ND_EINPUT, "%s: not a JSON object", path);
    }
    return ND_OK;
}

/* A JSON value as text for the key setters; NULL for null, objects and arrays. */
const char *fw_json_scalar(const cJSON *v, char *buf, size_t size)
{
    if (cJSON_IsString(v)) return v->valuestring;
    if (cJSON_IsBool(v)) return cJSON_IsTrue(v) ? "true" : "false";
    if (!cJSON_IsNumber(v)) return NULL;
    if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
        snprintf(buf, size, "%.0f", v->valuedouble);
    else
        snprintf(buf, size, "%.17g", v->valuedouble);
    return buf;
}

/* A JSON number that must be a whole number in [min, max]: 0 and *out set; 1 when the key
 * is absent (or null); an error naming the file and key for a fraction, an infinity or a
 * number out of range (a double's cast to int64 is checked, never undefined). */
int fw_json_whole(fw_reader *r, const cJSON *v, const char *key, int64_t min, int64_t max, int64_t *out)
{
    if (!v || cJSON_IsNull(v)) return 1;
    double x = v->valuedouble;
    if (!cJSON_IsNumber(v) || !isfinite(x) || x != floor(x) || x < (double)min || x > (double)max) {
        char shown[40] = "a value that is not a number";
        if (cJSON_IsNumber(v)) snprintf(shown, sizeof shown, "%.17g", x);
        return nd_error_set(r->err, ND_EINPUT, "%s: %s: %s is not a whole number from %lld to %lld", r->path,
                            key, shown, (long long)min, (long long)max);
    }
    *out = (int64_t)x;
    return 0;
}

/* The line of the first `"key":` in text (whitespace allowed before the colon), 0 if none. */
static int key_line(const char *text, const char *key, size_t k)
{
    int line = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') line++;
        if (*p != '"' || strncmp(p + 1, key, k) || p[1 + k] != '"') continue;
        const char *q = p + 2 + k;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') q++;
        if (*q == ':') return line;
    }
    return 0;
}

void fw_json_locate(const char *path, nd_error *err)
{
    size_t n = strlen(path);
    if (err->code != ND_EINPUT || strncmp(err->message, path, n) || strncmp(err->message + n, ": ", 2))
        return;
    const char *key = err->message + n + 2;
    size_t k = strcspn(key, ":[ '");
    if (k == 0 || k > 64 || (key[k] != ':' && key[k] != '[')) return;
    char *text = NULL;
    size_t len;
    nd_error quiet = {0};
    if (nd_read_file(path, 16u << 20, &text, &len, &quiet)) return;
    int line = key_line(text, key, k);
    free(text);
    if (line <= 0) return;
    memmove(err->message, err->message + n + 2, strlen(err->message + n + 2) + 1); /* "KEY: ..." */
    int code = err->code;
    nd_error_prefix(err, "%s:%d", path, line);
    err->code = code;
}
