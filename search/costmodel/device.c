/*
 * device.c — device files: reading, checking and adding devices to a table. The built-in
 * devices and the sources of their figures are in device_builtin.c (and docs/devices.md).
 */
#include "nd/device.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nd/text.h"
#include "nd/yaml_doc.h"

typedef enum { D_DOUBLE, D_INT, D_TEXT } dfield_type;
enum {
    F_FRACTION = 1, /* the value lies in (0, 1] */
    F_ZERO_OK = 2,  /* 0 is allowed (no such cost, or no such unit) */
    F_OPTIONAL = 4, /* a new device may leave it out (0) */
};
typedef struct {
    const char *key;
    dfield_type type;
    size_t offset;
    int flags;
} dfield;

#define DD(f) {#f, D_DOUBLE, offsetof(nd_device, f), 0}
#define DF(f) {#f, D_DOUBLE, offsetof(nd_device, f), F_FRACTION}
#define DZ(f) {#f, D_DOUBLE, offsetof(nd_device, f), F_ZERO_OK}
#define DO(f) {#f, D_DOUBLE, offsetof(nd_device, f), F_ZERO_OK | F_OPTIONAL}
#define DFO(f) {#f, D_DOUBLE, offsetof(nd_device, f), F_FRACTION | F_ZERO_OK | F_OPTIONAL}
static const dfield dfields[] = {
    {"description", D_TEXT, offsetof(nd_device, description), 0},
    DD(peak_tflops), DO(fp8_tflops), DO(tf32_tflops), DD(fp32_tflops),
    DF(gemm_efficiency), DZ(gemm_half_dim), DO(gemm_fixed_us), DFO(fp8_gemm_efficiency), DO(fp8_gemm_half_dim),
    DFO(grouped_gemm_efficiency), DFO(grouped_wgrad_efficiency),
    DF(attention_fwd_efficiency), DF(attention_bwd_efficiency), DZ(attention_half_seq),
    DZ(kernel_launch_us), DZ(host_dispatch_us), DO(host_sync_us), DZ(microbatch_host_ms),
    DZ(step_host_ms),
    DD(hbm_gib), DD(hbm_gbps), DF(hbm_efficiency), DZ(runtime_reserve_mib), DO(comm_buffer_mib),
    {"devices_per_node", D_INT, offsetof(nd_device, devices_per_node), 0},
    DD(intra_gbps), DF(intra_efficiency), DZ(intra_latency_us), DO(intra_base_us), DO(intra_link_gbps),
    DD(inter_gbps), DF(inter_efficiency), DZ(inter_latency_us), DO(inter_base_us), DD(host_gbps),
};
#define N_DFIELDS (sizeof dfields / sizeof dfields[0])

void nd_device_table_free(nd_device_table *table)
{
    free(table->items);
    table->items = NULL;
    table->count = 0;
}

const nd_device *nd_device_table_find(const nd_device_table *table, const char *name)
{
    for (int i = 0; i < table->count; i++)
        if (nd_text_equal_nocase(table->items[i].name, name)) return &table->items[i];
    const char *canonical = nd_device_alias(name);
    return canonical ? nd_device_table_find(table, canonical) : NULL;
}

void nd_device_table_names(const nd_device_table *table, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < table->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 table->items[i].name);
}

static double field_value(const nd_device *d, const dfield *f)
{
    const char *p = (const char *)d + f->offset;
    return f->type == D_INT ? (double)*(const int *)p : *(const double *)p;
}

int nd_device_field(const nd_device *d, const char *key, double *value)
{
    for (size_t i = 0; i < N_DFIELDS; i++)
        if (dfields[i].type != D_TEXT && !strcmp(dfields[i].key, key)) {
            *value = field_value(d, &dfields[i]);
            return 0;
        }
    return -1;
}

/* Device numbers divide work (bytes over a bandwidth, FLOPs over a rate times an
 * efficiency): below these a step time is no longer finite, or no longer means anything. */
#define FRACTION_MIN 1e-3 /* an efficiency of 0.1 % */
#define POSITIVE_MIN 1e-6 /* 1 kB/s, 1 MFLOP/s, 1 ns */
#define VALUE_MAX 1e9

int nd_device_validate(const nd_device *d, const char *source, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++) {
        const dfield *f = &dfields[i];
        if (f->type == D_TEXT) continue;
        double v = field_value(d, f);
        bool zero_ok = f->flags & F_ZERO_OK, fraction = f->flags & F_FRACTION;
        double lo = fraction ? FRACTION_MIN : POSITIVE_MIN, hi = fraction ? 1 : VALUE_MAX;
        if (!isfinite(v) || (v == 0 ? !zero_ok : v < lo || v > hi))
            return nd_error_set(err, ND_EINPUT, "%s: device %s: field '%s' = %g is out of range "
                                "(%s[%g, %g])", source, d->name, f->key, v, zero_ok ? "0 or " : "", lo, hi);
    }
    return ND_OK;
}

static int set_device_field(nd_device *d, const char *key, const char *value, const char *where,
                            bool *seen, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++) {
        const dfield *f = &dfields[i];
        if (strcmp(f->key, key)) continue;
        seen[i] = true;
        char *p = (char *)d + f->offset;
        if (f->type == D_TEXT) {
            if (nd_text_name_chars(value) < 0)
                return nd_error_set(err, ND_EINPUT, "%s: device field '%s' holds a control character "
                                    "or bytes that are not UTF-8", where, key);
            nd_text_copy(p, value, sizeof d->description);
            return ND_OK;
        }
        double v;
        if (nd_parse_double(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: device field '%s': '%s' is not a number",
                                where, key, value);
        if (f->type == D_INT) {
            if (v != floor(v) || v < 1 || v > 1 << 20)
                return nd_error_set(err, ND_EINPUT,
                                    "%s: device field '%s': '%s' is not a whole number in [1, 1048576]",
                                    where, key, value);
            *(int *)p = (int)v;
        } else {
            *(double *)p = v;
        }
        return ND_OK;
    }
    char names[1024];
    size_t used = 0;
    for (size_t i = 0; i < N_DFIELDS && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 dfields[i].key);
    char hint_buf[ND_TEXT_HINT_MAX];
    return nd_error_set(err, ND_EINPUT, "%s: unknown device field '%s' (%sknown: base, %s)", where,
                        key, nd_text_hint(key, names, hint_buf), names);
}

/* A new device without a base states every field: the missing ones are listed together. */
static int need_every_field(nd_yaml *y, yaml_node_t *map, const char *name, const bool *seen, nd_error *err)
{
    char missing[768] = "";
    size_t count = 0, used = 0;
    for (size_t i = 0; i < N_DFIELDS; i++) {
        if (seen[i] || dfields[i].type == D_TEXT || (dfields[i].flags & F_OPTIONAL)) continue;
        if (used < sizeof missing)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", count ? ", " : "",
                                     dfields[i].key);
        count++;
    }
    if (!count) return ND_OK;
    return nd_error_set(err, ND_EINPUT,
                        "%s:%d: new device %s: %zu field%s missing: %s (state every field, or "
                        "`base: A100` to start from a known device)",
                        y->path, nd_yaml_line(map), name, count, count > 1 ? "s" : "", missing);
}

static int add_device(nd_device_table *t, const nd_device *d, nd_error *err)
{
    nd_device *items = realloc(t->items, (size_t)(t->count + 1) * sizeof *items);
    if (!items) return nd_error_set(err, ND_ENOMEM, "out of memory");
    t->items = items;
    t->items[t->count++] = *d;
    return ND_OK;
}

/* One device mapping: fields, optionally `base: NAME` to start from another device. */
static int load_one(nd_device_table *t, nd_yaml *y, const char *name, yaml_node_t *map,
                    nd_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(map));
    int rc = nd_yaml_expect_mapping(y, map, name, err);
    if (rc) return rc;
    long chars = nd_text_name_chars(name);
    if (chars < 1 || chars > ND_DEVICE_NAME_CHARS)
        return nd_error_set(err, ND_EINPUT, "%s: device name '%s' must be 1 to %d characters of printable "
                            "UTF-8", where, name, ND_DEVICE_NAME_CHARS);
    nd_device d;
    memset(&d, 0, sizeof d);
    nd_device *existing = (nd_device *)nd_device_table_find(t, name);
    const char *base = nd_yaml_text(nd_yaml_get(y, map, "base"));
    if (base) {
        const nd_device *b = nd_device_table_find(t, base);
        if (!b) {
            char names[256];
            nd_device_table_names(t, names, sizeof names);
            return nd_error_set(err, ND_EINPUT, "%s: field 'base': no device '%s' (known: %s)",
                                where, base, names);
        }
        d = *b;
    } else if (existing) {
        d = *existing;
    }
    /* An override keeps the device's own name even when the file used an alias. */
    nd_text_copy(d.name, existing ? existing->name : name, sizeof d.name);
    bool seen[N_DFIELDS] = {0};
    for (size_t i = 0; i < nd_yaml_size(map); i++) {
        yaml_node_t *k = nd_yaml_key_at(y, map, i), *v = nd_yaml_value_at(y, map, i);
        const char *key = nd_yaml_text(k), *value = nd_yaml_text(v);
        snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(k));
        if (!key || !value)
            return nd_error_set(err, ND_EINPUT, "%s: device %s: every field must be `key: value`",
                                where, name);
        if (!strcmp(key, "base") || !strcmp(key, "name")) continue;
        if ((rc = set_device_field(&d, key, value, where, seen, err))) return rc;
    }
    if (!base && !existing && (rc = need_every_field(y, map, name, seen, err))) return rc;
    snprintf(where, sizeof where, "%s:%d", y->path, nd_yaml_line(map));
    if ((rc = nd_device_validate(&d, where, err))) return rc;
    if (existing) {
        *existing = d;
        return ND_OK;
    }
    if (t->count >= ND_DEVICE_TABLE_MAX)
        return nd_error_set(err, ND_EINPUT, "%s: device %s: more than %d devices", where, name,
                            ND_DEVICE_TABLE_MAX);
    return add_device(t, &d, err);
}

int nd_device_table_load(nd_device_table *table, const char *path, nd_error *err)
{
    nd_yaml y;
    int rc = nd_yaml_load(&y, path, err);
    if (rc) return rc;
    yaml_node_t *root = nd_yaml_root(&y);
    if ((rc = nd_yaml_expect_mapping(&y, root, "the device file", err))) goto done;
    yaml_node_t *devices = nd_yaml_get(&y, root, "devices");
    if (devices) {
        if ((rc = nd_yaml_expect_mapping(&y, devices, "devices", err))) goto done;
        /* looked up without case (-A h100 finds H100): X1 and x1 would silently be one */
        if ((rc = nd_yaml_check_keys_nocase(&y, devices, err))) goto done;
        for (size_t i = 0; i < nd_yaml_size(devices) && !rc; i++) {
            const char *name = nd_yaml_text(nd_yaml_key_at(&y, devices, i));
            rc = load_one(table, &y, name ? name : "", nd_yaml_value_at(&y, devices, i), err);
        }
    } else {
        const char *name = nd_yaml_text(nd_yaml_get(&y, root, "name"));
        if (!name)
            rc = nd_error_set(err, ND_EINPUT,
                              "%s: a device file holds `devices: {NAME: {...}}` or one device with `name:`",
                              path);
        else
            rc = load_one(table, &y, name, root, err);
    }
done:
    nd_yaml_free(&y);
    return rc;
}
