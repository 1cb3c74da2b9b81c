/*
 * device.c — the device's fields by name (what device files and nd-fit --write_device spell),
 * their ranges, and the table of devices. The built-in devices and the sources of their
 * figures are in device_builtin.c (and docs/devices.md); files are read in nd_inputs.
 */
#include "nd/costmodel/device.h"
#include "nd/costmodel/kernel_table.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/text.h"
#include "nd/base/units.h"
#include "nd/base/array.h"

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

#define DD(f)                                                                                                \
    {                                                                                                        \
#f, D_DOUBLE, offsetof(nd_device, f), 0                                                              \
    }
#define DF(f)                                                                                                \
    {                                                                                                        \
#f, D_DOUBLE, offsetof(nd_device, f), F_FRACTION                                                     \
    }
#define DZ(f)                                                                                                \
    {                                                                                                        \
#f, D_DOUBLE, offsetof(nd_device, f), F_ZERO_OK                                                      \
    }
#define DO(f)                                                                                                \
    {                                                                                                        \
#f, D_DOUBLE, offsetof(nd_device, f), F_ZERO_OK | F_OPTIONAL                                         \
    }
#define DFO(f)                                                                                               \
    {                                                                                                        \
#f, D_DOUBLE, offsetof(nd_device, f), F_FRACTION | F_ZERO_OK | F_OPTIONAL                            \
    }
static const dfield dfields[] = {
    {"description", D_TEXT, offsetof(nd_device, description), 0},
    DD(peak_tflops),
    DO(fp8_tflops),
    DO(tf32_tflops),
    DD(fp32_tflops),
    DF(gemm_efficiency),
    DZ(gemm_half_dim),
    DO(gemm_fixed_us),
    DFO(fp8_gemm_efficiency),
    DO(fp8_gemm_half_dim),
    DO(fp8_weight_copies),
    DFO(gemm_training_share),
    DFO(grouped_gemm_efficiency),
    DFO(grouped_wgrad_efficiency),
    DF(attention_fwd_efficiency),
    DF(attention_bwd_efficiency),
    DFO(attention_training_share),
    DFO(fa2_fwd_efficiency),
    DFO(fa2_bwd_efficiency),
    DFO(cudnn_fwd_efficiency),
    DFO(cudnn_bwd_efficiency),
    DZ(attention_half_seq),
    DZ(kernel_launch_us),
    DZ(host_dispatch_us),
    DO(host_sync_us),
    DZ(microbatch_host_ms),
    DZ(step_host_ms),
    DD(hbm_gib),
    DD(hbm_gbps),
    DF(hbm_efficiency),
    DFO(norm_hbm_efficiency),
    DFO(activation_hbm_efficiency),
    DZ(runtime_reserve_mib),
    DO(comm_buffer_mib),
    {"devices_per_node", D_INT, offsetof(nd_device, devices_per_node), 0},
    {"devices_per_server", D_INT, offsetof(nd_device, devices_per_server), F_ZERO_OK | F_OPTIONAL},
    DD(intra_gbps),
    DF(intra_efficiency),
    DZ(intra_latency_us),
    DO(intra_base_us),
    DO(intra_link_gbps),
    DD(inter_gbps),
    DF(inter_efficiency),
    DZ(inter_latency_us),
    DO(inter_base_us),
    DD(host_gbps),
};
#define N_DFIELDS (ND_ARRAY_LEN(dfields))
_Static_assert(N_DFIELDS <= ND_DEVICE_FIELDS_MAX, "seen[] arrays hold every device field");

bool nd_device_field_is_rate(const char *key)
{
    static const char *const prefixes[] = {"gemm_", "fp8_gemm_", "grouped_", "attention_", "fa2_", "cudnn_"};
    /* the share of the sweeps training sustains scales the base's rates; it measures none */
    if (!strcmp(key, "gemm_training_share") || !strcmp(key, "attention_training_share")) return false;
    for (size_t i = 0; i < ND_ARRAY_LEN(prefixes); i++)
        if (!strncmp(key, prefixes[i], strlen(prefixes[i]))) return true;
    return false;
}

int nd_device_table_adopt_tables(nd_device_table *table, nd_kernel_tables *tables, nd_error *err)
{
    nd_kernel_tables **owned =
        realloc(table->owned_tables, (size_t)(table->owned_tables_count + 1) * sizeof *owned);
    if (!owned) {
        nd_kernel_tables_free(tables);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    table->owned_tables = owned;
    table->owned_tables[table->owned_tables_count++] = tables;
    return ND_OK;
}

void nd_device_table_free(nd_device_table *table)
{
    free(table->items);
    table->items = NULL;
    table->count = 0;
    for (int i = 0; i < table->owned_tables_count; i++) nd_kernel_tables_free(table->owned_tables[i]);
    free(table->owned_tables);
    table->owned_tables = NULL;
    table->owned_tables_count = 0;
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
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", table->items[i].name);
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

const char *nd_device_field_key(size_t i)
{
    size_t seen = 0;
    for (size_t j = 0; j < N_DFIELDS; j++)
        if (dfields[j].type != D_TEXT && seen++ == i) return dfields[j].key;
    return NULL;
}

bool nd_device_same_figures(const nd_device *a, const nd_device *b)
{
    for (size_t i = 0; i < N_DFIELDS; i++)
        if (dfields[i].type != D_TEXT && field_value(a, &dfields[i]) != field_value(b, &dfields[i]))
            return false;
    return a->tables == b->tables;
}

/* Device numbers divide work (bytes over a bandwidth, FLOPs over a rate times an
 * efficiency): below these a step time is no longer finite, or no longer means anything. */
#define FRACTION_MIN 1e-3 /* an efficiency of 0.1 % */
#define POSITIVE_MIN 1e-6 /* 1 kB/s, 1 MFLOP/s, 1 ns */
#define VALUE_MAX    1e9

static int check_field(const nd_device *d, const dfield *f, const char *source, nd_error *err)
{
    if (f->type == D_TEXT) return ND_OK;
    double v = field_value(d, f);
    bool zero_ok = f->flags & F_ZERO_OK, fraction = f->flags & F_FRACTION;
    double lo = fraction ? FRACTION_MIN : POSITIVE_MIN, hi = fraction ? 1 : VALUE_MAX;
    if (!isfinite(v) || (v == 0 ? !zero_ok : v < lo || v > hi))
        return nd_error_set(err, ND_EINPUT, "%s: device %s: field '%s' = %g is out of range (%s[%g, %g])",
                            source, d->name, f->key, v, zero_ok ? "0 or " : "", lo, hi);
    return ND_OK;
}

int nd_device_validate(const nd_device *d, const char *source, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++) {
        int rc = check_field(d, &dfields[i], source, err);
        if (rc) return rc;
    }
    /* a server is a part of the node's fabric: the node is a whole number of servers */
    if (d->devices_per_server > 0 && d->devices_per_node % d->devices_per_server)
        return nd_error_set(err, ND_EINPUT,
                            "%s: device %s: field 'devices_per_server' = %d does not divide "
                            "devices_per_node = %d (a node is whole servers)",
                            source, d->name, d->devices_per_server, d->devices_per_node);
    return ND_OK;
}

int nd_device_validate_field(const nd_device *d, const char *key, const char *source, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++)
        if (!strcmp(dfields[i].key, key)) return check_field(d, &dfields[i], source, err);
    return ND_OK;
}

int nd_device_set_field(nd_device *d, const char *key, const char *value, const char *where, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++) {
        const dfield *f = &dfields[i];
        if (strcmp(f->key, key)) continue;
        char *p = (char *)d + f->offset;
        if (f->type == D_TEXT) {
            if (nd_text_name_chars(value) < 0)
                return nd_error_set(err, ND_EINPUT,
                                    "%s: device field '%s' holds a control character "
                                    "or bytes that are not UTF-8",
                                    where, key);
            nd_text_copy(p, value, sizeof d->description);
            return (int)i;
        }
        double v;
        if (nd_parse_double(value, &v))
            return nd_error_set(err, ND_EINPUT, "%s: device field '%s': '%s' is not a number", where, key,
                                value);
        if (f->type == D_INT) {
            int lowest = f->flags & F_ZERO_OK ? 0 : 1;
            if (v != floor(v) || v < lowest || v > 1 << 20)
                return nd_error_set(err, ND_EINPUT,
                                    "%s: device field '%s': '%s' is not a whole number in [%d, 1048576]",
                                    where, key, value, lowest);
            *(int *)p = (int)v;
        } else {
            *(double *)p = v;
        }
        return (int)i;
    }
    char names[1024];
    size_t used = 0;
    for (size_t i = 0; i < N_DFIELDS && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", dfields[i].key);
    char hint_buf[ND_TEXT_HINT_MAX];
    return nd_error_set(err, ND_EINPUT, "%s: unknown device field '%s' (%sknown: base, %s)", where, key,
                        nd_text_hint(key, names, hint_buf), names);
}

size_t nd_device_missing_fields(const bool seen[ND_DEVICE_FIELDS_MAX], char *buf, size_t size)
{
    size_t count = 0, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_DFIELDS; i++) {
        if (seen[i] || dfields[i].type == D_TEXT || (dfields[i].flags & F_OPTIONAL)) continue;
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", count ? ", " : "", dfields[i].key);
        count++;
    }
    return count;
}

int nd_device_table_put(nd_device_table *t, const nd_device *d, const char *where, nd_error *err)
{
    nd_device *existing = (nd_device *)nd_device_table_find(t, d->name);
    if (existing) {
        *existing = *d;
        return ND_OK;
    }
    if (t->count >= ND_DEVICE_TABLE_MAX)
        return nd_error_set(err, ND_EINPUT, "%s: device %s: more than %d devices", where, d->name,
                            ND_DEVICE_TABLE_MAX);
    nd_device *items = realloc(t->items, (size_t)(t->count + 1) * sizeof *items);
    if (!items) return nd_error_set(err, ND_ENOMEM, "out of memory");
    t->items = items;
    t->items[t->count++] = *d;
    return ND_OK;
}

double nd_device_capacity_mib(const nd_device *d)
{
    return d->hbm_gib * ND_MIB_PER_GIB;
}

double nd_device_budget_mib(const nd_device *d, double stated_mib)
{
    return stated_mib > 0 ? stated_mib : nd_device_capacity_mib(d);
}
