/*
 * fit_history.c — the nightly job's record (docs/calibration.md §The nightly job): what the
 * file a new fit replaces said, so that the new file carries the history of earlier fits
 * and a term the new fit moves beyond its previous 95 % interval is reported as drift.
 *
 * A ratios file keeps them under `_nd` (`history`, `drift`, `rounds`); a fitted device file
 * under `fit:` (`history`, `drift`). A previous file that is missing, unreadable or not nd's
 * simply has no history: the first fit of a nightly job starts one.
 */
#include "fit_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/text.h"
#include "nd/base/yaml_doc.h"

static const nd_ratios_format *const keys = &nd_ratios_json;

void nd_fit_previous_free(nd_fit_previous *p)
{
    cJSON_Delete(p->history);
    memset(p, 0, sizeof *p);
}

static void add_term(nd_fit_previous *p, const char *name, double value, double lo, double hi)
{
    if (p->terms >= ND_HISTORY_TERMS) return;
    nd_text_copy(p->name[p->terms], name, sizeof p->name[0]);
    p->value[p->terms] = value;
    p->lo[p->terms] = lo;
    p->hi[p->terms] = hi;
    p->terms++;
}

/* ---- an earlier fit, as the history keeps it --------------------------------------------
 *
 * The history is rebuilt from what nd itself records, never copied: each entry keeps at most
 * HISTORY_ROUNDS rounds (csv cut to HISTORY_CSV_BYTES, rows, fnv1a64), rows, and at most
 * ND_HISTORY_TERMS values under names of at most 31 letters, digits or '_'. With
 * ND_HISTORY_MAX entries that bounds the history far below the 4 MiB `-c` reads, whatever an
 * earlier file held, and every name can be written unquoted in YAML. Numbers are real JSON
 * numbers (the device writer reads them back as such). */
#define HISTORY_ROUNDS    32  /* nd-fit's most rounds in one fit (ND_FIT_MAX_ROUNDS) */
#define HISTORY_CSV_BYTES 255 /* a file name's length; a longer path keeps its first bytes */

static bool history_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= sizeof((nd_fit_previous *)0)->name[0]) return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z')))
            return false;
    return true;
}

/* A finite number as a JSON number, anything else as null. */
static void add_real(cJSON *obj, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}

static double json_real(const cJSON *item)
{
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

/* The values of an entry (a JSON object), only well-named numbers, at most ND_HISTORY_TERMS. */
static void copy_values(cJSON *to, const cJSON *from)
{
    const cJSON *v;
    int k = 0;
    cJSON_ArrayForEach(v, from)
    {
        if (k == ND_HISTORY_TERMS) break;
        if (!history_name(v->string) || cJSON_GetObjectItemCaseSensitive(to, v->string)) continue;
        add_real(to, v->string, json_real(v));
        k++;
    }
}

/* A round's provenance: csv (cut on a UTF-8 boundary), rows, fnv1a64 (16 hex digits). */
static void copy_rounds(cJSON *entry, const cJSON *rounds)
{
    if (!cJSON_IsArray(rounds)) return;
    cJSON *to = cJSON_AddArrayToObject(entry, keys->rounds);
    const cJSON *r;
    int k = 0;
    cJSON_ArrayForEach(r, rounds)
    {
        if (k++ == HISTORY_ROUNDS) break;
        cJSON *e = cJSON_CreateObject();
        const cJSON *csv = cJSON_GetObjectItemCaseSensitive(r, keys->fitted_csv);
        const cJSON *hash = cJSON_GetObjectItemCaseSensitive(r, keys->hash);
        if (cJSON_IsString(csv)) {
            char cut[HISTORY_CSV_BYTES + 1];
            size_t n = nd_text_cut_utf8(csv->valuestring, HISTORY_CSV_BYTES);
            memcpy(cut, csv->valuestring, n);
            cut[n] = '\0';
            cJSON_AddStringToObject(e, keys->fitted_csv, cut);
        }
        add_real(e, keys->rows, json_real(cJSON_GetObjectItemCaseSensitive(r, keys->rows)));
        if (cJSON_IsString(hash) && strlen(hash->valuestring) <= 16 &&
            strspn(hash->valuestring, "0123456789abcdef") == strlen(hash->valuestring))
            cJSON_AddStringToObject(e, keys->hash, hash->valuestring);
        cJSON_AddItemToArray(to, e);
    }
}

/* Drops the oldest entries past ND_HISTORY_MAX. */
static void trim_history(cJSON *history)
{
    while (cJSON_GetArraySize(history) > ND_HISTORY_MAX) cJSON_DeleteItemFromArray(history, 0);
}

/* ---- ratios files -------------------------------------------------------------------- */

static void previous_ratios(const char *text, size_t len, const char *path, nd_fit_previous *out)
{
    nd_error quiet = {0};
    cJSON *root = NULL;
    if (!len || nd_json_parse(text, len, path, &root, &quiet) || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return;
    }
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(root, keys->stamp);
    const cJSON *ratios = cJSON_GetObjectItemCaseSensitive(nd, keys->ratios), *item;
    out->present = cJSON_IsObject(ratios);
    cJSON_ArrayForEach(item, ratios)
    {
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(item, keys->status);
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(item, keys->value);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(item, keys->ci95);
        if (!cJSON_IsString(status) || strcmp(status->valuestring, "fitted") || !cJSON_IsNumber(value) ||
            !history_name(item->string))
            continue;
        const cJSON *lo = cJSON_GetArrayItem(ci, 0), *hi = cJSON_GetArrayItem(ci, 1);
        add_term(out, item->string, value->valuedouble, json_real(lo), json_real(hi));
    }
    /* The history goes on: the earlier entries (the last ND_HISTORY_MAX), then the fit this
     * file recorded. */
    const cJSON *history = cJSON_GetObjectItemCaseSensitive(nd, keys->history), *e;
    out->history = cJSON_CreateArray();
    int skip = cJSON_IsArray(history) ? cJSON_GetArraySize(history) - ND_HISTORY_MAX : 0, at = 0;
    const cJSON *earlier = cJSON_IsArray(history) ? history : NULL;
    cJSON_ArrayForEach(e, earlier)
    {
        if (at++ < skip || !out->history || !cJSON_IsObject(e)) continue;
        cJSON *entry = cJSON_CreateObject();
        copy_rounds(entry, cJSON_GetObjectItemCaseSensitive(e, keys->rounds));
        add_real(entry, keys->rows, json_real(cJSON_GetObjectItemCaseSensitive(e, keys->rows)));
        copy_values(cJSON_AddObjectToObject(entry, keys->ratios),
                    cJSON_GetObjectItemCaseSensitive(e, keys->ratios));
        cJSON_AddItemToArray(out->history, entry);
    }
    if (out->present && out->history) {
        cJSON *entry = cJSON_CreateObject();
        copy_rounds(entry, cJSON_GetObjectItemCaseSensitive(nd, keys->rounds));
        add_real(entry, keys->rows, json_real(cJSON_GetObjectItemCaseSensitive(nd, keys->rows)));
        cJSON *values = cJSON_AddObjectToObject(entry, keys->ratios);
        for (int t = 0; t < out->terms; t++) add_real(values, out->name[t], out->value[t]);
        cJSON_AddItemToArray(out->history, entry);
    }
    trim_history(out->history);
    cJSON_Delete(root);
}

/* ---- fitted device files --------------------------------------------------------------- */

static double yaml_number(const yaml_node_t *node)
{
    const char *t = nd_yaml_text(node);
    double v;
    return t && !nd_parse_double(t, &v) ? v : NAN;
}

static void previous_device(const char *text, size_t len, const char *path, nd_fit_previous *out)
{
    nd_yaml y;
    nd_error quiet = {0};
    if (!len || nd_yaml_parse(&y, text, len, path, &quiet)) return;
    yaml_node_t *fit = nd_yaml_get(&y, nd_yaml_root(&y), "fit");
    yaml_node_t *params = nd_yaml_get(&y, fit, "parameters");
    out->present = params && params->type == YAML_MAPPING_NODE;
    for (size_t i = 0; out->present && i < nd_yaml_size(params); i++) {
        const char *name = nd_yaml_text(nd_yaml_key_at(&y, params, i));
        yaml_node_t *p = nd_yaml_value_at(&y, params, i), *ci = nd_yaml_get(&y, p, "ci95");
        if (!history_name(name) || !ci || ci->type != YAML_SEQUENCE_NODE) continue;
        add_term(out, name, yaml_number(nd_yaml_get(&y, p, "value")), yaml_number(nd_yaml_item(&y, ci, 0)),
                 yaml_number(nd_yaml_item(&y, ci, 1)));
    }
    /* The history as JSON in memory (re-emitted as YAML flow mappings): rows and values, the
     * last ND_HISTORY_MAX entries. */
    out->history = cJSON_CreateArray();
    yaml_node_t *history = nd_yaml_get(&y, fit, "history");
    size_t entries = history && history->type == YAML_SEQUENCE_NODE
                         ? (size_t)(history->data.sequence.items.top - history->data.sequence.items.start)
                         : 0;
    for (size_t i = entries > ND_HISTORY_MAX ? entries - ND_HISTORY_MAX : 0; out->history && i < entries;
         i++) {
        yaml_node_t *e = nd_yaml_item(&y, history, i), *values = nd_yaml_get(&y, e, "parameters");
        if (!e || e->type != YAML_MAPPING_NODE) continue;
        cJSON *entry = cJSON_CreateObject();
        add_real(entry, keys->rows, yaml_number(nd_yaml_get(&y, e, "rows")));
        cJSON *v = cJSON_AddObjectToObject(entry, "parameters");
        for (size_t k = 0, kept = 0; values && k < nd_yaml_size(values) && kept < ND_HISTORY_TERMS; k++) {
            const char *name = nd_yaml_text(nd_yaml_key_at(&y, values, k));
            if (!history_name(name) || cJSON_GetObjectItemCaseSensitive(v, name)) continue;
            add_real(v, name, yaml_number(nd_yaml_value_at(&y, values, k)));
            kept++;
        }
        cJSON_AddItemToArray(out->history, entry);
    }
    if (out->present && out->history) {
        cJSON *entry = cJSON_CreateObject();
        add_real(entry, keys->rows, yaml_number(nd_yaml_get(&y, fit, "rows")));
        cJSON *v = cJSON_AddObjectToObject(entry, "parameters");
        for (int t = 0; t < out->terms; t++) add_real(v, out->name[t], out->value[t]);
        cJSON_AddItemToArray(out->history, entry);
    }
    trim_history(out->history);
    nd_yaml_free(&y);
}

int nd_fit_previous_read(const char *path, bool device, nd_fit_previous *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    nd_error quiet = {0};
    (void)err; /* a file nd cannot read as its own has no history: not an error */
    if (!nd_path_lock_read(path, 16u << 20, &text, &len, &quiet) && text) {
        if (device)
            previous_device(text, len, path, out);
        else
            previous_ratios(text, len, path, out);
    }
    free(text);
    return ND_OK;
}

/* ---- drift ------------------------------------------------------------------------------ */

size_t nd_fit_drift(const nd_fit_previous *prev, const char *name, double value, nd_fit_drift_entry *out,
                    size_t n)
{
    for (int t = 0; prev && t < prev->terms; t++) {
        if (strcmp(prev->name[t], name)) continue;
        if (!isfinite(prev->lo[t]) || !isfinite(prev->hi[t]) ||
            (value >= prev->lo[t] && value <= prev->hi[t]))
            return n;
        nd_fit_drift_entry *e = &out[n];
        nd_text_copy(e->name, name, sizeof e->name);
        e->previous = prev->value[t];
        e->lo = prev->lo[t];
        e->hi = prev->hi[t];
        e->value = value;
        return n + 1;
    }
    return n;
}

void nd_fit_drift_print(FILE *fp, const char *path, const nd_fit_previous *prev, const nd_fit_drift_entry *d,
                        size_t n)
{
    if (!prev->present) return;
    if (!n) {
        fprintf(fp, "No drift: every term %s fitted before lies within its previous 95 %% interval.\n", path);
        return;
    }
    fprintf(fp, "Drift since the fit in %s (%zu term%s beyond its previous 95 %% interval):\n", path, n,
            n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "  %-16s %.4g -> %.4g   (previous 95 %% [%.4g, %.4g])\n", d[i].name, d[i].previous,
                d[i].value, d[i].lo, d[i].hi);
}

cJSON *nd_fit_drift_json(const nd_fit_drift_entry *d, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, keys->key, d[i].name);
        nd_json_add_number(e, keys->previous, d[i].previous);
        cJSON *ci = cJSON_AddArrayToObject(e, keys->ci95);
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(d[i].lo));
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(d[i].hi));
        nd_json_add_number(e, keys->value, d[i].value);
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

/* ---- provenance -------------------------------------------------------------------------- */

uint64_t nd_fit_file_hash(const char *path)
{
    char *text;
    size_t len;
    nd_error quiet = {0};
    if (nd_read_file(path, 1u << 30, &text, &len, &quiet)) return 0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    free(text);
    return h;
}
