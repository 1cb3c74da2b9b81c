/*
 * json.c — writing JSON documents the way every nd output does.
 */
#include "nd/json.h"

#include <math.h>
#include <stdlib.h>

#include "nd/io.h"

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
