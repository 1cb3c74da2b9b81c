/*
 * ratios.c — reading (and validating) ratios files.
 */
#include "nd/inputs/ratios.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nd/base/formats.h"
#include "nd/base/io.h"
#include "nd/base/json.h"
#include "nd/base/text.h"
#include "nd/base/version.h"
#include "nd/base/array.h"

/* The ratios file's keys (formats.h). */
static const nd_ratios_format *const keys = &nd_ratios_json;

/* One term of an uncertainty: an array of the key names it scales (ratio keys of time, or
 * memory ratios), or a fixed cost's name alone. */
static int read_term(const cJSON *names, const char *path, bool time, nd_spread *s, int t, nd_error *err)
{
    s->fixed[t] = -1;
    s->scales[t] = 0;
    const cJSON *name;
    if (!cJSON_IsArray(names) || cJSON_GetArraySize(names) < 1)
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s.%s': each term is an array of key names", path,
                            keys->stamp, keys->uncertainty, keys->terms);
    cJSON_ArrayForEach(name, names)
    {
        const char *n = cJSON_IsString(name) ? name->valuestring : "";
        int k = time ? nd_ratio_key_from_name(n) : nd_memory_ratio_from_name(n);
        int f = time ? nd_fixed_cost_from_name(n) : -1;
        if (f >= 0 && cJSON_GetArraySize(names) == 1) {
            s->fixed[t] = f;
            continue;
        }
        if (k < 0)
            return nd_error_set(err, ND_EINPUT, "%s: '%s.%s': '%s' is not a key this term can scale", path,
                                keys->stamp, keys->uncertainty, n);
        s->scales[t] |= 1u << k;
    }
    return ND_OK;
}

/* The smallest eigenvalue of the symmetric n x n matrix c (cyclic Jacobi rotations; n <=
 * ND_SPREAD_MAX_TERMS), and the largest |eigenvalue| in *scale. */
static double min_eigenvalue(const double c[ND_SPREAD_MAX_TERMS][ND_SPREAD_MAX_TERMS], int n, double *scale)
{
    double m[ND_SPREAD_MAX_TERMS][ND_SPREAD_MAX_TERMS];
    memcpy(m, c, sizeof m);
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) off += m[p][q] * m[p][q];
        if (off < 1e-300) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                if (m[p][q] == 0) continue;
                double theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double cs = 1 / sqrt(t * t + 1), sn = t * cs;
                for (int k = 0; k < n; k++) { /* columns p and q */
                    double kp = m[k][p], kq = m[k][q];
                    m[k][p] = cs * kp - sn * kq;
                    m[k][q] = sn * kp + cs * kq;
                }
                for (int k = 0; k < n; k++) { /* rows p and q */
                    double pk = m[p][k], qk = m[q][k];
                    m[p][k] = cs * pk - sn * qk;
                    m[q][k] = sn * pk + cs * qk;
                }
            }
    }
    double lo = n ? m[0][0] : 0, hi = 0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, m[i][i]);
        hi = fmax(hi, fabs(m[i][i]));
    }
    *scale = hi;
    return lo;
}

/* A covariance is symmetric and positive semi-definite: one that is not (a file edited by
 * hand, or broken) would give an interval of +-0 % or a negative variance, so it is refused
 * rather than repaired (docs/calibration.md §Reading it (-c, --cache_file, --ratios)). */
static int check_covariance(const nd_spread *s, int n, const char *path, bool time, nd_error *err)
{
    const char *which = time ? keys->time : keys->memory;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double x = s->cov[a][b], y = s->cov[b][a];
            if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y)) + 1e-300)
                return nd_error_set(err, ND_EINPUT,
                                    "%s: '%s.%s.%s.%s' is not symmetric (row %d column %d is %g, row %d "
                                    "column %d %g): not a fit's covariance; refit with nd-fit",
                                    path, keys->stamp, keys->uncertainty, which, keys->covariance, a + 1,
                                    b + 1, x, b + 1, a + 1, y);
        }
    double scale, lo = min_eigenvalue(s->cov, n, &scale);
    if (lo < -1e-9 * scale)
        return nd_error_set(err, ND_EINPUT,
                            "%s: '%s.%s.%s.%s' is not positive semi-definite (an eigenvalue of %g): some "
                            "combination of its terms would have a negative variance; refit with nd-fit",
                            path, keys->stamp, keys->uncertainty, which, keys->covariance, lo);
    return ND_OK;
}

/* _nd.uncertainty.time or .memory: terms, their covariance, the residual scatter, t95. */
static int read_spread(const cJSON *o, const char *path, bool time, nd_spread *s, nd_error *err)
{
    memset(s, 0, sizeof *s);
    if (!o) return ND_OK;
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(o, keys->terms);
    const cJSON *cov = cJSON_GetObjectItemCaseSensitive(o, keys->covariance);
    const cJSON *sd = cJSON_GetObjectItemCaseSensitive(o, keys->residual_sd);
    const cJSON *t95 = cJSON_GetObjectItemCaseSensitive(o, keys->t95);
    const cJSON *dof = cJSON_GetObjectItemCaseSensitive(o, keys->dof);
    int n = cJSON_IsArray(terms) ? cJSON_GetArraySize(terms) : -1;
    bool ok = n >= 0 && n <= ND_SPREAD_MAX_TERMS && cJSON_IsArray(cov) && cJSON_GetArraySize(cov) == n &&
              cJSON_IsNumber(sd) && isfinite(sd->valuedouble) && sd->valuedouble >= 0 &&
              cJSON_IsNumber(t95) && isfinite(t95->valuedouble) && t95->valuedouble > 0 &&
              cJSON_IsNumber(dof) && dof->valuedouble >= 1 && dof->valuedouble < 1e9;
    for (int a = 0; ok && a < n; a++) {
        const cJSON *row = cJSON_GetArrayItem(cov, a);
        ok = cJSON_IsArray(row) && cJSON_GetArraySize(row) == n;
        for (int b = 0; ok && b < n; b++) {
            const cJSON *v = cJSON_GetArrayItem(row, b);
            ok = cJSON_IsNumber(v) && isfinite(v->valuedouble);
            if (ok) s->cov[a][b] = v->valuedouble;
        }
        ok = ok && s->cov[a][a] >= 0;
    }
    if (!ok)
        return nd_error_set(err, ND_EINPUT,
                            "%s: '%s.%s.%s' must hold %s (at most %d), a square %s, %s >= 0, "
                            "%s > 0 and %s >= 1",
                            path, keys->stamp, keys->uncertainty, time ? keys->time : keys->memory,
                            keys->terms, ND_SPREAD_MAX_TERMS, keys->covariance, keys->residual_sd, keys->t95,
                            keys->dof);
    int rc = check_covariance(s, n, path, time, err);
    if (rc) return rc;
    for (int t = 0; t < n; t++) {
        rc = read_term(cJSON_GetArrayItem(terms, t), path, time, s, t, err);
        if (rc) return rc;
    }
    s->terms = n;
    s->residual_sd = sd->valuedouble;
    s->t95 = t95->valuedouble;
    s->dof = (int)dof->valuedouble;
    return ND_OK;
}

static int by_shape(const void *a, const void *b)
{
    return nd_shape_key_compare(&((const nd_shape_ratio *)a)->key, &((const nd_shape_ratio *)b)->key);
}

/* _nd.shapes: the per-shape corrections, each keyed by its layer sharding. */
static int read_shapes(const cJSON *o, const char *path, nd_ratios *r, nd_error *err)
{
    const cJSON *table = cJSON_GetObjectItemCaseSensitive(o, keys->table);
    const cJSON *spread = cJSON_GetObjectItemCaseSensitive(o, keys->spread);
    int n = cJSON_IsArray(table) ? cJSON_GetArraySize(table) : -1;
    if (n < 0 || n > ND_MAX_SHAPES || !cJSON_IsNumber(spread) || !(spread->valuedouble >= 0) ||
        !isfinite(spread->valuedouble))
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' must hold a %s of at most %d shapes and a %s >= 0",
                            path, keys->stamp, keys->shapes, keys->table, ND_MAX_SHAPES, keys->spread);
    const nd_dim dims[] = {ND_DIM_MP, ND_DIM_CP, ND_DIM_EP, ND_DIM_ETP, ND_DIM_MBS};
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(table, i);
        nd_shape_ratio *sh = &r->shape[i];
        int64_t *field[] = {&sh->key.tp, &sh->key.cp, &sh->key.ep, &sh->key.etp, &sh->key.mbs};
        bool ok = cJSON_IsObject(e);
        for (size_t d = 0; ok && d < ND_ARRAY_LEN(dims); d++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, nd_dim_name(dims[d]));
            ok = cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= (1 << 20) &&
                 v->valuedouble == floor(v->valuedouble);
            if (ok) *field[d] = (int64_t)v->valuedouble;
        }
        const cJSON *sp = ok ? cJSON_GetObjectItemCaseSensitive(e, nd_dim_name(ND_DIM_SP)) : NULL;
        const cJSON *delta = ok ? cJSON_GetObjectItemCaseSensitive(e, keys->delta) : NULL;
        const cJSON *se = ok ? cJSON_GetObjectItemCaseSensitive(e, keys->se) : NULL;
        ok = ok && cJSON_IsBool(sp) && cJSON_IsNumber(delta) && isfinite(delta->valuedouble) &&
             delta->valuedouble > -1 && delta->valuedouble < 1e3 && cJSON_IsNumber(se) &&
             isfinite(se->valuedouble) && se->valuedouble >= 0;
        if (!ok)
            return nd_error_set(err, ND_EINPUT,
                                "%s: '%s.%s.%s' entry %d: MP, CP, EP, ETP, MBS (whole numbers), SP "
                                "(true/false), %s (> -1) and %s (>= 0)",
                                path, keys->stamp, keys->shapes, keys->table, i + 1, keys->delta, keys->se);
        sh->key.sp = cJSON_IsTrue(sp);
        sh->delta = delta->valuedouble;
        sh->se = se->valuedouble;
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(e, keys->rows);
        sh->rows = cJSON_IsNumber(rows) && rows->valuedouble >= 0 && rows->valuedouble < 1e9
                       ? (int)rows->valuedouble
                       : 0;
    }
    qsort(r->shape, (size_t)n, sizeof r->shape[0], by_shape);
    for (int i = 1; i < n; i++)
        if (!by_shape(&r->shape[i - 1], &r->shape[i]))
            return nd_error_set(err, ND_EINPUT, "%s: '%s.%s': a shape is stated twice", path, keys->stamp,
                                keys->shapes);
    r->shapes = n;
    r->shape_spread = spread->valuedouble;
    return ND_OK;
}

static int read_stamp(const cJSON *nd, const char *path, nd_ratios_file *out, nd_error *err)
{
    const char *stamp = keys->stamp;
    if (!cJSON_IsObject(nd))
        return nd_error_set(err, ND_EINPUT, "%s: key '%s' must be an object", path, stamp);
    const cJSON *v;
    /* printed in warnings: a newline or an ESC sequence must not reach the terminal */
    const char *names[2] = {keys->device, keys->model};
    for (size_t i = 0; i < ND_ARRAY_LEN(names); i++)
        if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, names[i])) &&
            nd_text_name_chars(v->valuestring) < 0)
            return nd_error_set(err, ND_EINPUT,
                                "%s: '%s.%s' holds a control character or bytes "
                                "that are not UTF-8",
                                path, stamp, names[i]);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(nd, keys->format);
    if (!cJSON_IsNumber(format) || format->valuedouble != ND_RATIOS_FORMAT)
        return nd_error_set(err, ND_EINPUT, "%s: '%s.%s' must be %d (this nd reads format %d)", path, stamp,
                            keys->format, ND_RATIOS_FORMAT, ND_RATIOS_FORMAT);
    /* The shapes and the uncertainty first: a malformed one is malformed whoever fitted it. */
    const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(nd, keys->shapes);
    if (shapes) {
        int rc = read_shapes(shapes, path, &out->ratios, err);
        if (rc) return rc;
    }
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(nd, keys->uncertainty);
    if (u) {
        int rc =
            read_spread(cJSON_GetObjectItemCaseSensitive(u, keys->time), path, true, &out->ratios.time, err);
        if (!rc)
            rc = read_spread(cJSON_GetObjectItemCaseSensitive(u, keys->memory), path, false, &out->ratios.mem,
                             err);
        if (rc) return rc;
    }
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
        return nd_error_set(err, ND_EINPUT,
                            "%s: '%s.%s' is '%s'; nd's ratios are dimensionless "
                            "corrections of millisecond estimates ('%s')",
                            path, stamp, keys->units, units->valuestring, keys->units_ms);
    out->stamped = true;
    nd_text_copy(out->cost_model, cm->valuestring, sizeof out->cost_model);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, keys->mode)))
        nd_text_copy(out->mode, v->valuestring, sizeof out->mode);
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(nd, keys->rounds);
    const cJSON *first = cJSON_IsArray(rounds) ? cJSON_GetArrayItem(rounds, 0) : NULL;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(first, keys->fitted_csv)))
        nd_text_copy(out->round, v->valuestring, sizeof out->round);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, keys->device)))
        nd_text_copy(out->device, v->valuestring, sizeof out->device);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(nd, keys->model)))
        nd_text_copy(out->model, v->valuestring, sizeof out->model);
    if ((v = cJSON_GetObjectItemCaseSensitive(nd, keys->seq_len))) {
        /* checked before the cast: a double beyond int64 has no defined conversion */
        double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
        if (!(d >= 1 && d <= (1 << 24) && d == floor(d)))
            return nd_error_set(err, ND_EINPUT,
                                "%s: '%s.%s' is not a whole number of tokens "
                                "in [1, 16777216]",
                                path, stamp, keys->seq_len);
        out->seq_len = (int64_t)d;
    }
    return ND_OK;
}

char *nd_ratios_converted_path(const char *path)
{
    size_t n = strlen(path);
    bool json = n >= 5 && !strcmp(path + n - 5, ".json");
    return nd_path_printf("%.*s.nd.json", (int)(json ? n - 5 : n), path);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file name of a path (after the last '/'). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int load(const char *path, bool convert, nd_ratios_file *out, nd_error *err);

/* No stamp: ND's own file, or one written by hand. ND's ratios turn its abstract units into
 * ms (COMPUTE ~ 7e-11); nd's correct estimates already in ms, and a hand-written file
 * states nothing of what it corrects: neither is applied as it is. ND's is converted by
 * refitting the round it names with ND's ratio of sums (nd-fit --mode sums) into a new
 * file beside it; that file, once written, is read in its place. */
static int unstamped(const cJSON *root, const char *path, bool convert, nd_ratios_file *out, nd_error *err)
{
    const cJSON *fitted = cJSON_GetObjectItemCaseSensitive(root, keys->fitted_on);
    const cJSON *csv_item = cJSON_GetObjectItemCaseSensitive(fitted, keys->fitted_csv);
    const char *csv =
        cJSON_IsString(csv_item) && csv_item->valuestring[0] && !strchr(csv_item->valuestring, '\n')
            ? csv_item->valuestring
            : NULL;
    char value[64] = "";
    const cJSON *compute = cJSON_GetObjectItemCaseSensitive(root, nd_ratio_key_name(ND_RATIO_COMPUTE));
    if (cJSON_IsNumber(compute)) snprintf(value, sizeof value, " (COMPUTE = %g)", compute->valuedouble);
    char *conv = nd_ratios_converted_path(path);
    if (!conv) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int rc;
    char stale[200] = ""; /* why a conversion that exists is not read */
    if (convert && csv && file_exists(conv)) {
        nd_error quiet = {0};
        rc = load(conv, false, out, &quiet);
        if (!rc && out->stamped && !strcmp(base_name(out->round), base_name(csv))) {
            nd_text_copy(out->converted_from, path, sizeof out->converted_from);
            free(conv);
            return ND_OK;
        }
        snprintf(stale, sizeof stale, " (the one there is %s)",
                 rc ? "not a ratios file nd reads" : "fitted on another round");
        memset(out, 0, sizeof *out);
        nd_ratios_init(&out->ratios);
    }
    /* the round as named (from where nd runs), else beside the ratios file */
    char *beside = NULL, *dir = nd_path_dir(path);
    const char *round = NULL;
    if (csv && file_exists(csv)) {
        round = csv;
    } else if (csv && dir && csv[0] != '/' && (beside = nd_path_join(dir, base_name(csv))) &&
               file_exists(beside)) {
        round = beside;
    }
    char missing[400] = "";
    if (!round)
        snprintf(missing, sizeof missing, "; the round it names, %s, is not found: give its path",
                 csv ? csv : "(none: no _fitted_on.csv)");
    rc = nd_error_set(err, ND_EINPUT,
                      "%s: no '%s' stamp, so not nd's: ND's ratios%s are ms per ND unit, nd's correct "
                      "ms estimates; refit the round: nd-fit -y RUN --real_csv %s --mode sums "
                      "--write_ratios %s%s (ND's ratio of sums, into a new file; -c %s then reads it)%s",
                      path, keys->stamp, value,
                      round ? round
                      : csv ? csv
                            : "ROUND.csv",
                      conv, stale, path, missing);
    free(beside);
    free(dir);
    free(conv);
    return rc;
}

/* A fixed cost (>= 0, ms or µs) or a memory ratio (> 0): the keys beside the ratio keys. */
static int read_other_key(const cJSON *item, const char *path, nd_ratios_file *out, nd_error *err)
{
    const char *key = item->string;
    int f = nd_fixed_cost_from_name(key), m = nd_memory_ratio_from_name(key);
    bool *stated = f >= 0 ? &out->ratios.fixed_stated[f] : &out->ratios.memory_stated[m];
    double *value = f >= 0 ? &out->ratios.fixed[f] : &out->ratios.memory[m];
    if (*stated) return nd_error_set(err, ND_EINPUT, "%s: '%s' is stated twice", path, key);
    double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (f >= 0 && !(isfinite(v) && v >= 0 && v < 1e9))
        return nd_error_set(err, ND_EINPUT, "%s: fixed cost '%s' must be a finite number >= 0", path, key);
    if (m >= 0 && !(isfinite(v) && v > 0 && v < 1e9))
        return nd_error_set(err, ND_EINPUT, "%s: memory ratio '%s' must be a positive finite number", path,
                            key);
    *value = v;
    *stated = true;
    return ND_OK;
}

static int unknown_key(const char *path, const char *key, nd_error *err)
{
    char names[512];
    size_t used = 0;
    for (int i = 0; i < ND_RATIO_KEYS; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 nd_ratio_key_name((nd_ratio_key)i));
    for (int i = 0; i < ND_FIXED_COSTS && used < sizeof names; i++)
        used +=
            (size_t)snprintf(names + used, sizeof names - used, ", %s", nd_fixed_cost_name((nd_fixed_cost)i));
    for (int i = 0; i < ND_MEM_RATIOS && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, ", %s",
                                 nd_memory_ratio_name((nd_memory_ratio)i));
    char hint_buf[ND_TEXT_HINT_MAX];
    return nd_error_set(err, ND_EINPUT, "%s: unknown ratio key '%s' (%sknown: %s)", path, key,
                        nd_text_hint(key, names, hint_buf), names);
}

static int read_ratios(const cJSON *root, const char *text, const char *path, nd_ratios_file *out,
                       nd_error *err)
{
    const cJSON *item;
    (void)text;
    cJSON_ArrayForEach(item, root)
    {
        const char *key = item->string;
        if (key[0] == '_') continue;
        int k = nd_ratio_key_from_name(key);
        if (k < 0 && (nd_fixed_cost_from_name(key) >= 0 || nd_memory_ratio_from_name(key) >= 0)) {
            int rc = read_other_key(item, path, out, err);
            if (rc) return rc;
            continue;
        }
        if (k < 0) return unknown_key(path, key, err);
        if (out->ratios.stated[k]) /* cJSON keeps both; which one would apply is not obvious */
            return nd_error_set(err, ND_EINPUT, "%s: ratio '%s' is stated twice", path, key);
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble <= 0)
            return nd_error_set(err, ND_EINPUT, "%s: ratio '%s' must be a positive finite number", path, key);
        out->ratios.value[k] = item->valuedouble;
        out->ratios.stated[k] = true;
    }
    return ND_OK;
}

int nd_ratios_missing(const char *path, bool strict, FILE *diag, nd_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT) return 0; /* any other failure: the load says why */
    if (strict)
        return nd_error_set(err, ND_EINPUT,
                            "%s: ratios file (-c) not found; --strict refuses to price uncalibrated "
                            "(ND proceeds without it)",
                            path);
    if (diag)
        fprintf(diag,
                "warning: cache file not found: %s\nwarning: Proceeding without cache file... (uncalibrated; "
                "--strict refuses)\n",
                path);
    return 1;
}

static int load(const char *path, bool convert, nd_ratios_file *out, nd_error *err)
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
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(root, keys->stamp);
    /* ND's file (its _fitted_on): its values, ms per ND unit and maybe 0, are no nd ratios
     * to check; a file with neither is checked as nd's first */
    bool nds = !nd && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, keys->fitted_on));
    if (!nds && (rc = read_ratios(root, text, path, out, err))) goto done;
    if (!nd) {
        rc = unstamped(root, path, convert, out, err);
        goto done;
    }
    /* A fitted ratio corrects an estimate in ms: far from 1 it means a broken fit, and 1e308
     * or 5e-324 would make the step infinite or the MFU over 100 %. */
    for (int k = 0; k < ND_RATIO_KEYS; k++) {
        double v = out->ratios.value[k];
        if (out->ratios.stated[k] && (v < ND_RATIO_MIN || v > ND_RATIO_MAX)) {
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: ratio '%s' = %g is outside [%g, %g]: a ratio "
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

int nd_ratios_load(const char *path, nd_ratios_file *out, nd_error *err)
{
    return load(path, true, out, err);
}

void nd_ratios_mismatch(const nd_ratios_file *f, const char *device, const char *model, int64_t seq_len,
                        char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!f->stamped) return;
    if (f->converted_from[0])
        used += (size_t)snprintf(buf, size,
                                 "%s is ND's (no _nd stamp): read as its conversion, nd's refit of its round "
                                 "%s (mode %s)\n",
                                 f->converted_from, f->round, f->mode[0] ? f->mode : "?");
    if (f->device[0] && device && !nd_text_equal_nocase(f->device, device))
        used += (size_t)snprintf(buf + used, size - used, "ratios fitted on device %s, used for %s\n",
                                 f->device, device);
    if (used < size && f->model[0] && model && strcmp(f->model, model))
        used += (size_t)snprintf(buf + used, size - used, "ratios fitted for model %s, used for %s\n",
                                 f->model, model);
    if (used < size && f->seq_len > 0 && seq_len > 0 && f->seq_len != seq_len)
        snprintf(buf + used, size - used,
                 "ratios fitted at sequence length %lld, used at %lld: shares of attention and "
                 "overhead differ\n",
                 (long long)f->seq_len, (long long)seq_len);
}
