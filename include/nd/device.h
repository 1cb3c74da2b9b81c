/*
 * device.h — an accelerator and the cluster it sits in.
 *
 * Six devices are built in (A2 = Ascend 910B, A3 = Ascend 910C per die,
 * A100-80GB, H100-SXM, H200, B200); each figure carries its public source in
 * search/device.c and docs/devices.md. A device file (YAML, --device-file) adds
 * devices or overrides fields of built-in ones.
 *
 * Bandwidths are per device and per direction, in GB/s (1e9 bytes/s), as the
 * vendors state them; each link class also has an achievable fraction (what
 * NCCL/HCCL bus bandwidth reaches on large messages) and a per-step latency.
 */
#ifndef ND_DEVICE_H
#define ND_DEVICE_H

#include <stdbool.h>
#include "nd/error.h"

typedef struct nd_device {
    char name[32];
    char description[96];

    /* compute */
    double peak_tflops;        /* dense BF16/FP16 tensor peak, TFLOP/s */
    double fp8_tflops;         /* dense FP8 tensor peak, TFLOP/s (0: no FP8 tensor cores) */
    double gemm_efficiency;    /* fraction of peak large GEMMs reach */
    double gemm_half_dim;      /* GEMM dimension at which efficiency along it halves */
    double attention_efficiency; /* fused (flash) attention relative to a GEMM of its shape */
    double kernel_launch_us;   /* fixed cost per kernel on the device timeline, µs */
    double host_dispatch_us;   /* host (framework) time to issue one kernel, µs: when a
                                  micro-batch's kernels are too short, the host sets the pace */
    double microbatch_host_ms; /* host work per micro-batch not hidden by the device, ms */
    double step_host_ms;       /* host work per optimizer step (loss sync, logging), ms */

    /* memory */
    double hbm_gib;            /* capacity, GiB */
    double hbm_gbps;           /* bandwidth, GB/s */
    double hbm_efficiency;     /* fraction of hbm_gbps memory-bound kernels reach */
    double runtime_reserve_mib;/* context, communication library buffers, workspaces */
    double allocator_overhead; /* caching allocator fragmentation, fraction of activations */

    /* interconnect */
    int devices_per_node;      /* devices sharing the fast (intra-node) fabric */
    double intra_gbps;         /* per device, per direction */
    double intra_efficiency;
    double intra_latency_us;   /* per collective step */
    double intra_link_gbps;    /* 0: a switched fabric (NVSwitch, UB), every peer at intra_gbps.
                                  > 0: a mesh (HCCS, DGX-1's NVLink) of direct links of this
                                  bandwidth, so k devices of a node reach min(intra_gbps,
                                  (k - 1) x intra_link_gbps) */
    double inter_gbps;         /* per device, per direction (its NIC share) */
    double inter_efficiency;
    double inter_latency_us;
    double host_gbps;          /* device <-> host memory (offload), GB/s per direction */
} nd_device;

/* A set of devices: the built-in ones plus any loaded from files. */
typedef struct nd_device_table {
    nd_device *items;
    int count;
} nd_device_table;

/* Devices a table holds at most (built-in and from files): finding one is a linear search. */
#define ND_DEVICE_TABLE_MAX 1024

/* Fills table with the built-in devices. The caller frees with nd_device_table_free. */
int nd_device_table_builtin(nd_device_table *table, nd_error *err);

/* Reads a device file (YAML: `devices: {NAME: {field: value, ...}}`, or a single
 * mapping with `name:`) and adds or overrides devices. An override may state only
 * some fields; a new device must state them all. Errors name file, line and field. */
int nd_device_table_load(nd_device_table *table, const char *path, nd_error *err);

/* Finds a device by name (case-insensitive; also accepts ND's aliases ascend910b,
 * ascend910c, ascend910_93 and suffixed names such as A100-SXM4-80GB or H100-SXM). NULL if none. */
const nd_device *nd_device_table_find(const nd_device_table *table, const char *name);

/* Writes "A2, A3, ..." into buf. */
void nd_device_table_names(const nd_device_table *table, char *buf, size_t size);

/* Checks every field is finite and positive (latencies, host times, reserve and allocator
 * overhead may be 0; fractions lie in (0, 1]). */
int nd_device_validate(const nd_device *d, const char *source, nd_error *err);

void nd_device_table_free(nd_device_table *table);

#endif
