/*
 * device.c — the built-in devices and device files.
 *
 * Every figure is a public one (datasheet or paper, named beside it) or, where
 * no public measurement exists, a stated assumption that calibration corrects
 * (marked "assumed"). docs/devices.md repeats the table with the sources.
 *
 * Sources:
 *  [A100]  NVIDIA A100 Tensor Core GPU datasheet (2021): 312 TFLOP/s BF16 dense,
 *          80 GB HBM2e at 2,039 GB/s, NVLink 3 600 GB/s (300 per direction);
 *          DGX A100 user guide: 8 GPUs, 8 x 200 Gb/s HDR InfiniBand (25 GB/s per GPU),
 *          PCIe Gen4 x16.
 *  [H100]  NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5: 989 TFLOP/s BF16 dense,
 *          80 GB HBM3 at 3.35 TB/s, NVLink 4 900 GB/s (450 per direction); DGX H100:
 *          8 x 400 Gb/s NDR (50 GB/s per GPU), PCIe Gen5 x16.
 *  [H200]  NVIDIA H200 datasheet (2024): 989 TFLOP/s BF16 dense, 141 GB HBM3e at 4.8 TB/s,
 *          NVLink 900 GB/s; HGX H200 with 400 Gb/s NDR per GPU.
 *  [B200]  NVIDIA DGX B200 datasheet (2024): 72 PFLOP/s FP8 training (sparse) for 8 GPUs,
 *          i.e. 2.25 PFLOP/s BF16 dense per GPU; 1,440 GB HBM3e (180 GB per GPU) at
 *          64 TB/s (8 TB/s per GPU); NVLink 5 1.8 TB/s (900 GB/s per direction);
 *          8 x 400 Gb/s ConnectX-7.
 *  [910B]  Huawei Atlas 800T A2 / Ascend 910B2 public specifications: 376 TFLOP/s FP16,
 *          64 GB HBM2e at 1.6 TB/s; 8 NPUs per server fully meshed by HCCS (7 links of
 *          28 GB/s per direction); 8 x 200 GE RoCE per server (25 GB/s per NPU).
 *  [910C]  Zuo et al., "Serving Large Language Models on Huawei CloudMatrix384",
 *          arXiv:2506.12708 (2025), §3: Ascend 910C = two dies, 752 TFLOP/s BF16 and
 *          128 GB HBM at 3.2 TB/s per package (per die: 376, 64 GB, 1.6 TB/s), UB plane
 *          196 GB/s per die per direction, RDMA plane 200 Gb/s per die.
 *  [ND]    HyperParallel ND hardware table (reference/nd-costmodel.md §5): node sizes,
 *          host links (A3 6.92 GiB/s measured on the slowest die).
 *  [MAMF]  S. Bekman, "Machine Learning Engineering Open Book", Maximum Achievable Matmul
 *          FLOPS: A100 SXM ~87 %, H100 SXM ~80 % of peak for the best BF16 GEMM shape.
 *  [FA2]   T. Dao, "FlashAttention-2", arXiv:2307.08691 (2023): forward+backward reaches
 *          ~65 % of A100 peak at head dim 128, i.e. ~0.75 of a GEMM's efficiency;
 *          FlashAttention-3 (arXiv:2407.08608) reports a similar ratio on H100.
 *  [FRAG]  Guo et al., "GMLake: Efficient and Transparent GPU Memory Defragmentation for
 *          Large-scale DNN Training", ASPLOS 2024 (arXiv:2401.08156): the PyTorch caching
 *          allocator reserves 20-30 % more than training allocates once recompute, ZeRO or
 *          offload vary tensor sizes; nd charges 20 % of the dynamic memory.
 *  [HOST]  PyTorch eager mode issues an operator in roughly 10 us of CPU time (Python module
 *          call, dispatcher, launch; e.g. the PyTorch performance tuning guide's advice to use
 *          CUDA graphs for small batches): assumed 10 us on NVIDIA, 25 us with torch_npu.
 *  [NCCL]  nccl-tests bus bandwidth on DGX A100 / H100: ~80 % of NVLink per direction
 *          intra-node, ~90 % of the NIC line rate inter-node.
 */
#include "nd/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nd/text.h"
#include "nd/yaml_doc.h"

static const nd_device builtin[] = {
    {
        .name = "A2", .description = "Ascend 910B (Atlas 800T A2)",
        .peak_tflops = 376, /* [910B] */
        .gemm_efficiency = 0.80, /* assumed, as the GPUs' [MAMF] */
        .gemm_half_dim = 128, .attention_efficiency = 0.75,
        .kernel_launch_us = 8, /* assumed: torch_npu eager dispatch is heavier than CUDA's */
        .host_dispatch_us = 25,
        .microbatch_host_ms = 0.5, .step_host_ms = 10,
        .hbm_gib = 64, .hbm_gbps = 1600, .hbm_efficiency = 0.85, /* [910B] */
        .runtime_reserve_mib = 3072, .allocator_overhead = 0.20, /* HCCL buffers, workspaces */
        .devices_per_node = 8, .intra_gbps = 196, .intra_efficiency = 0.70,
        .intra_latency_us = 3,
        .intra_link_gbps = 28, /* [910B] HCCS full mesh: 28 GB/s to each peer */
        .inter_gbps = 25, .inter_efficiency = 0.85, .inter_latency_us = 8, /* [910B] RoCE */
        .host_gbps = 17.2, /* [ND] 16 GiB/s placeholder */
    },
    {
        .name = "A3", .description = "Ascend 910C, one die (Atlas 900 A3 SuperPoD)",
        .peak_tflops = 376, /* [910C] per die */
        .gemm_efficiency = 0.80, .gemm_half_dim = 128, .attention_efficiency = 0.75,
        .kernel_launch_us = 8, .host_dispatch_us = 25, .microbatch_host_ms = 0.5, .step_host_ms = 10,
        .hbm_gib = 64, .hbm_gbps = 1600, .hbm_efficiency = 0.85, /* [910C] per die */
        .runtime_reserve_mib = 3072, .allocator_overhead = 0.20,
        .devices_per_node = 16, /* [ND]: 8 NPUs, 16 dies per server */
        .intra_gbps = 196, .intra_efficiency = 0.70, .intra_latency_us = 3, /* [910C] UB */
        .inter_gbps = 25, .inter_efficiency = 0.85, .inter_latency_us = 8,  /* [910C] RDMA */
        .host_gbps = 7.43, /* [ND] 6.92 GiB/s measured */
    },
    {
        .name = "A100", .description = "NVIDIA A100-SXM4-80GB (DGX A100)",
        .peak_tflops = 312, .gemm_efficiency = 0.87, /* [A100], [MAMF] */
        .fp8_tflops = 0, /* Ampere has no FP8 tensor cores */
        .gemm_half_dim = 96, .attention_efficiency = 0.75, /* [FA2] */
        .kernel_launch_us = 3, .host_dispatch_us = 10, .microbatch_host_ms = 0.2, .step_host_ms = 5,
        .hbm_gib = 80, .hbm_gbps = 2039, .hbm_efficiency = 0.85,
        .runtime_reserve_mib = 1536, .allocator_overhead = 0.20,
        .devices_per_node = 8, .intra_gbps = 300, .intra_efficiency = 0.80,
        .intra_latency_us = 2, /* [A100], [NCCL] */
        .inter_gbps = 25, .inter_efficiency = 0.90, .inter_latency_us = 5,
        .host_gbps = 25, /* PCIe Gen4 x16, achievable */
    },
    {
        .name = "H100", .description = "NVIDIA H100-SXM5-80GB (DGX H100)",
        .peak_tflops = 989, .gemm_efficiency = 0.80, /* [H100], [MAMF] */
        .fp8_tflops = 1979, /* [H100] dense FP8 */
        .gemm_half_dim = 128, .attention_efficiency = 0.75,
        .kernel_launch_us = 3, .host_dispatch_us = 10, .microbatch_host_ms = 0.2, .step_host_ms = 5,
        .hbm_gib = 80, .hbm_gbps = 3350, .hbm_efficiency = 0.85,
        .runtime_reserve_mib = 1536, .allocator_overhead = 0.20,
        .devices_per_node = 8, .intra_gbps = 450, .intra_efficiency = 0.80,
        .intra_latency_us = 2,
        .inter_gbps = 50, .inter_efficiency = 0.90, .inter_latency_us = 5,
        .host_gbps = 50, /* PCIe Gen5 x16, achievable */
    },
    {
        .name = "H200", .description = "NVIDIA H200-SXM-141GB (HGX H200)",
        .peak_tflops = 989, .gemm_efficiency = 0.80, /* [H200]; efficiency as H100 */
        .fp8_tflops = 1979,
        .gemm_half_dim = 128, .attention_efficiency = 0.75,
        .kernel_launch_us = 3, .host_dispatch_us = 10, .microbatch_host_ms = 0.2, .step_host_ms = 5,
        .hbm_gib = 141, .hbm_gbps = 4800, .hbm_efficiency = 0.85,
        .runtime_reserve_mib = 1536, .allocator_overhead = 0.20,
        .devices_per_node = 8, .intra_gbps = 450, .intra_efficiency = 0.80,
        .intra_latency_us = 2,
        .inter_gbps = 50, .inter_efficiency = 0.90, .inter_latency_us = 5,
        .host_gbps = 50,
    },
    {
        .name = "B200", .description = "NVIDIA B200-180GB (DGX B200)",
        .peak_tflops = 2250, .gemm_efficiency = 0.78, /* [B200]; efficiency assumed */
        .fp8_tflops = 4500, /* [B200] dense FP8 (72 PFLOP/s sparse per 8 GPUs) */
        .gemm_half_dim = 160, .attention_efficiency = 0.75,
        .kernel_launch_us = 3, .host_dispatch_us = 10, .microbatch_host_ms = 0.2, .step_host_ms = 5,
        .hbm_gib = 180, .hbm_gbps = 8000, .hbm_efficiency = 0.85,
        .runtime_reserve_mib = 2048, .allocator_overhead = 0.20,
        .devices_per_node = 8, .intra_gbps = 900, .intra_efficiency = 0.80,
        .intra_latency_us = 2,
        .inter_gbps = 50, .inter_efficiency = 0.90, .inter_latency_us = 5,
        .host_gbps = 50,
    },
};

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
static const dfield dfields[] = {
    {"description", D_TEXT, offsetof(nd_device, description), 0},
    DD(peak_tflops), DZ(fp8_tflops), DF(gemm_efficiency), DD(gemm_half_dim), DF(attention_efficiency),
    DZ(kernel_launch_us), DZ(host_dispatch_us), DZ(microbatch_host_ms), DZ(step_host_ms),
    DD(hbm_gib), DD(hbm_gbps), DF(hbm_efficiency), DZ(runtime_reserve_mib),
    DZ(allocator_overhead),
    {"devices_per_node", D_INT, offsetof(nd_device, devices_per_node), 0},
    DD(intra_gbps), DF(intra_efficiency), DZ(intra_latency_us),
    {"intra_link_gbps", D_DOUBLE, offsetof(nd_device, intra_link_gbps), F_ZERO_OK | F_OPTIONAL},
    DD(inter_gbps), DF(inter_efficiency), DZ(inter_latency_us), DD(host_gbps),
};
#define N_DFIELDS (sizeof dfields / sizeof dfields[0])

int nd_device_table_builtin(nd_device_table *table, nd_error *err)
{
    table->count = (int)(sizeof builtin / sizeof builtin[0]);
    table->items = malloc(sizeof builtin);
    if (!table->items) {
        table->count = 0;
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    memcpy(table->items, builtin, sizeof builtin);
    return ND_OK;
}

void nd_device_table_free(nd_device_table *table)
{
    free(table->items);
    table->items = NULL;
    table->count = 0;
}

static const struct { const char *alias, *name; } aliases[] = {
    {"ascend", "A2"}, {"ascend910", "A2"}, {"ascend910b", "A2"}, {"910b", "A2"},
    {"ascend910c", "A3"}, {"ascend910_93", "A3"}, {"910c", "A3"},
    {"A100-80GB", "A100"}, {"A100-SXM", "A100"}, {"A100-SXM4-80GB", "A100"},
    {"H100-SXM", "H100"}, {"H100-SXM5", "H100"}, {"H200-SXM", "H200"},
};

const nd_device *nd_device_table_find(const nd_device_table *table, const char *name)
{
    for (int i = 0; i < table->count; i++)
        if (nd_text_equal_nocase(table->items[i].name, name)) return &table->items[i];
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (nd_text_equal_nocase(aliases[a].alias, name))
            return nd_device_table_find(table, aliases[a].name);
    return NULL;
}

void nd_device_table_names(const nd_device_table *table, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < table->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 table->items[i].name);
}

int nd_device_validate(const nd_device *d, const char *source, nd_error *err)
{
    for (size_t i = 0; i < N_DFIELDS; i++) {
        const dfield *f = &dfields[i];
        if (f->type == D_TEXT) continue;
        double v = f->type == D_INT ? (double)*(const int *)((const char *)d + f->offset)
                                    : *(const double *)((const char *)d + f->offset);
        bool zero_ok = f->flags & F_ZERO_OK, fraction = f->flags & F_FRACTION;
        if (!isfinite(v) || v < 0 || (v == 0 && !zero_ok) || (fraction && v > 1) || v > 1e9)
            return nd_error_set(err, ND_EINPUT, "%s: device %s: field '%s' = %g is out of range%s",
                                source, d->name, f->key, v,
                                fraction ? " (a fraction in (0, 1])" : zero_ok ? " (must be >= 0)" : " (must be positive)");
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
    return nd_error_set(err, ND_EINPUT, "%s: unknown device field '%s' (known: base, %s)", where,
                        key, names);
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
    if (strlen(name) >= sizeof t->items[0].name || !name[0])
        return nd_error_set(err, ND_EINPUT, "%s: device name '%s' must be 1 to 31 characters", where, name);
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
    if (!base && !existing)
        for (size_t i = 0; i < N_DFIELDS; i++)
            if (!seen[i] && dfields[i].type != D_TEXT && !(dfields[i].flags & F_OPTIONAL))
                return nd_error_set(err, ND_EINPUT,
                                    "%s:%d: new device %s: field '%s' is missing (state every field, "
                                    "or `base: A100` to start from a known device)",
                                    y->path, nd_yaml_line(map), name, dfields[i].key);
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
