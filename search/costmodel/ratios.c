/*
 * ratios.c — reading (and validating) ratios files.
 */
#include "nd/ratios.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/formats.h"
#include "nd/io.h"
#include "nd/json.h"
#include "nd/text.h"
#include "nd/version.h"

/* The ratios file's keys (formats.h). */
static const nd_ratios_format *const keys = &nd_ratios_json;

static int read_stamp(const cJSON *nd, const char *path, nd_ratios_file *out, nd_error *err)
{
    const char *stamp = keys->stamp;
    if (!cJSON_IsObject(nd))
        return nd_error_set(err, ND_EINPUT, "%s: key '%s' must be an object", path, stamp);
    const cJSON *v;
    /* printed in warnings: a newline or an ESC sequence must not reach the terminal */
    const char *names[2] = {keys->device, keys->model};
    for (int i = 0; i < 2; i++)
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, names[i])) &&
            nd_text_name_chars(v->valuestring) < 0)
            return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' holds a control character or bytes "
                                "that are not UTF-8", path, stamp, names[i]);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(nd, keys->format);
    if (!cJSON_IsNumber(format) || format->valuedouble != ND_RATIOS_FORMAT)
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' must be %d (this nd reads format %d)",
                            path, stamp, keys->format, ND_RATIOS_FORMAT, ND_RATIOS_FORMAT);
    const cJSON *cm = cJSON_GetObjectItemCaseSensitive(nd, keys->cost_model);
    if (!cJSON_IsString(cm))
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' is missing", path, stamp, keys->cost_model);
    if (strcmp(cm->valuestring, ND_COST_MODEL_VERSION))
        return nd_error_set(err, ND_EINPUT,
                            "%s: fitted for cost model '%s', but this nd prices with '%s': its "
                            "ratios correct different estimates; refit with nd-fit",
                            path, cm->valuestring, ND_COST_MODEL_VERSION);
    const cJSON *units = cJSON_GetObjectItemCaseSensitive(nd, keys->units);
    if (cJSON_IsString(units) && strcmp(units->valuestring, keys->units_ms))
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' is '%s'; nd's ratios are dimensionless "
                            "corrections of millisecond estimates ('%s')", path, stamp, keys->units,
                            units->valuestring, keys->units_ms);
    out->stamped = true;
    nd_text_copy(out->cost_model, cm->valuestring, sizeof out->cost_model);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, keys->device)))
        nd_text_copy(out->device, v->valuestring, sizeof out->device);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, keys->model)))
        nd_text_copy(out->model, v->valuestring, sizeof out->model);
    if ((v = cJSON_GetObjectItemCaseSensitive(nd, keys->seq_len))) {
        /* checked before the cast: a double beyond int64 has no defined conversion */
        double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
        if (!(d >= 1 && d <= (1 << 24) && d == floor(d)))
            return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' is not a whole number of tokens "
                                "in [1, 16777216]", path, stamp, keys->seq_len);
        out->seq_len = (int64_t)d;
    }
    return ND_OK;
}

/* No stamp: ND's own file, or one written by hand. ND's ratios turn its abstract units into
 * ms (COMPUTE ~ 7e-11); nd's correct estimates already in ms, and a hand-written file
 * states nothing of what it corrects. Neither is applied: the message says how to refit. */
static int refuse_unstamped(const cJSON *root, const char *path, const nd_ratios_file *r, nd_error *err)
{
    const cJSON *fitted = cJSON_GetObjectItemCaseSensitive(root, "_fitted_on");
    const cJSON *csv = cJSON_GetObjectItemCaseSensitive(fitted, "csv");
    char value[64] = "";
    if (r->ratios.stated[ND_RATIO_COMPUTE])
        snprintf(value, sizeof value, " (COMPUTE = %g)", r->ratios.value[ND_RATIO_COMPUTE]);
    return nd_error_set(err, ND_EINPUT,
                        "%s: no '%s' stamp, so not nd's: ND's ratios%s are ms per ND unit, nd's correct "
                        "ms estimates; refit the round: nd-fit -y RUN --real_csv %s --mode sums "
                        "--write_ratios %s (ND's ratio of sums)", path, keys->stamp, value,
                        cJSON_IsString(csv) ? csv->valuestring : "ROUND.csv", path);
}

static int read_ratios(const cJSON *root, const char *text, const char *path, nd_ratios_file *out,
                       nd_error *err)
{
    const cJSON *item;
    (void)text;
    cJSON_ArrayForEach(item, root) {
        const char *key = item->string;
        if (key[0] == '_') continue;
        int k = nd_ratio_key_from_name(key);
        if (k < 0) {
            char names[256];
            size_t used = 0;
            for (int i = 0; i < ND_RATIO_KEYS; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                         nd_ratio_key_name((nd_ratio_key)i));
            char hint_buf[ND_TEXT_HINT_MAX];
            return nd_error_set(err, ND_EINPUT, "%s: unknown ratio key '%s' (%sknown: %s)", path, key,
                                nd_text_hint(key, names, hint_buf), names);
        }
        if (out->ratios.stated[k]) /* cJSON keeps both; which one would apply is not obvious */
            return nd_error_set(err, ND_EINPUT, "%s: ratio '%s' is stated twice", path, key);
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble <= 0)
            return nd_error_set(err, ND_EINPUT, "%s: ratio '%s' must be a positive finite number", path, key);
        out->ratios.value[k] = item->valuedouble;
        out->ratios.stated[k] = true;
    }
    return ND_OK;
}

int nd_ratios_load(const char *path, nd_ratios_file *out, nd_error *err)
{
    memset(out, 0, sizeof *out);
    nd_ratios_init(&out->ratios);
    char *text;
    size_t len;
    int rc = nd_read_file(path, 4u << 20, &text, &len, err);
    if (rc) return rc;
    cJSON *root = NULL;
    if ((rc = nd_json_parse(text, len, path, &root, err))) goto done;
    if (!cJSON_IsObject(root)) {
        rc = nd_error_set(err, ND_EINPUT, "%s: a ratios file is a JSON object of KEY: ratio", path);
        goto done;
    }
    if ((rc = read_ratios(root, text, path, out, err))) goto done;
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(root, keys->stamp);
    if (!nd) {
        rc = refuse_unstamped(root, path, out, err);
        goto done;
    }
    /* A fitted ratio corrects an estimate in ms: far from 1 it means a broken fit, and 1e308
     * or 5e-324 would make the step infinite or the MFU over 100 %. */
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        double v = out->ratios.value[k];
        if (out->ratios.stated[k] && (v < ND_RATIO_MIN || v > ND_RATIO_MAX)) {
            rc = nd_error_set(err, ND_EINPUT, "%s: ratio '%s' = %g is outside [%g, %g]: a ratio "
                              "corrects a millisecond estimate and lies near 1; refit with nd-fit",
                              path, nd_ratio_key_name((nd_ratio_key)k), v, ND_RATIO_MIN, ND_RATIO_MAX);
            goto done;
        }
    }
    rc = read_stamp(nd, path, out, err);
done:
    cJSON_Delete(root);
    free(text);
    return rc;
}

void nd_ratios_mismatch(const nd_ratios_file *f, const char *device, const char *model,
                        int64_t seq_len, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!f->stamped) return;
    if (f->device[0] && device && !nd_text_equal_nocase(f->device, device))
        used += (size_t)snprintf(buf + used, size - used, "ratios fitted on device %s, used for %s\n",
                                 f->device, device);
    if (used < size && f->model[0] && model && strcmp(f->model, model))
        used += (size_t)snprintf(buf + used, size - used, "ratios fitted for model %s, used for %s\n",
                                 f->model, model);
    if (used < size && f->seq_len > 0 && seq_len > 0 && f->seq_len != seq_len)
        snprintf(buf + used, size - used,
                 "ratios fitted at sequence length %lld, used at %lld: shares of attention and "
                 "overhead differ\n", (long long)f->seq_len, (long long)seq_len);
}
