/*
 * device.h — an accelerator and the cluster it sits in.
 *
 * Twelve devices are built in (NVIDIA V100, A100 80 and 40 GB, H100, H800, H200, B200,
 * B300, GB200 and GB300 NVL72; Ascend A2 = 910B and A3 = 910C per die); each figure
 * carries its kernel-level or datasheet source in search/costmodel/device_builtin.c and
 * docs/devices.md. A device file (YAML, --device-file) adds
 * devices or overrides fields of built-in ones.
 *
 * Bandwidths are per device and per direction, in GB/s (1e9 bytes/s), as the
 * vendors state them; each link class also has an achievable fraction (what
 * NCCL/HCCL bus bandwidth reaches on large messages) and a per-step latency.
 */
#ifndef ND_DEVICE_H
#define ND_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include "nd/base/error.h"

typedef struct nd_device {
    char name[128]; /* 1 to 31 characters of printable UTF-8 (up to 4 bytes each) */
    char description[96];

    /* compute: peaks (dense, TFLOP/s) and how close kernels get to them */
    double peak_tflops;              /* 16-bit (BF16/FP16) tensor peak */
    double fp8_tflops;               /* FP8 tensor peak (0: no FP8 tensor cores) */
    double tf32_tflops;              /* TF32 tensor peak (0: none; fp32 GEMMs then run at fp32_tflops) */
    double fp32_tflops;              /* FP32 peak without tensor cores */
    double gemm_efficiency;          /* fraction of peak the largest 16-bit GEMMs reach */
    double gemm_half_dim;            /* GEMM dimension at which efficiency along it halves */
    double gemm_fixed_us;            /* a GEMM kernel's fixed time (prologue, epilogue, tail wave) beyond
                                        the launch every kernel pays, µs */
    double fp8_gemm_efficiency;      /* the same for FP8 GEMMs (0: as 16-bit) */
    double fp8_gemm_half_dim;        /* its half dimension (used only with fp8_gemm_efficiency) */
    double fp8_weight_copies;        /* FP8 copies Transformer Engine keeps of a tensor-scaled weight:
                                        2 where FP8 GEMMs take only the TN layout (Hopper, Ada: the
                                        weight and its transpose, for the input gradient), 1 where they
                                        take any (Blackwell); 0 = 2 */
    double gemm_training_share;      /* the share of the GEMM curves' rates (isolated sweeps) a
                                        training run sustains (clocks under sustained load):
                                        0 = 1, the curves are training's own */
    double grouped_gemm_efficiency;  /* grouped (MoE expert) GEMMs, forward and input gradient,
                                        relative to dense GEMMs of the per-expert shape (0: 1) */
    double grouped_wgrad_efficiency; /* the same for the grouped weight-gradient GEMMs (0: 1) */
    double attention_fwd_efficiency; /* fused attention forward, fraction of the 16-bit peak on
                                        the FLOPs it does, at long sequences (head dim 128) */
    double attention_bwd_efficiency; /* the same for its backward */
    double attention_training_share; /* the share of the attention rates (isolated benchmarks) a
                                        training run sustains, as gemm_training_share for GEMMs:
                                        0 = 1, the rates are training's own */
    double attention_half_seq;       /* key length at which fused attention's efficiency halves */
    double fa2_fwd_efficiency;       /* FlashAttention-2 (and Triton's flash kernels), where the
                                        device's best fused kernel is another (Hopper: FA3, cuDNN);
                                        0 = the same as attention_fwd_efficiency */
    double fa2_bwd_efficiency;
    double cudnn_fwd_efficiency; /* cuDNN's fused attention (Transformer Engine's), where the
                                    device's best is another (Hopper: FA3); 0 = the same as
                                    attention_fwd_efficiency */
    double cudnn_bwd_efficiency;
    double kernel_launch_us;   /* fixed device time per kernel (launch gap, ramp, tail), µs */
    double host_dispatch_us;   /* host (framework) time to issue one operator, µs: when a
                                  micro-batch's operators take the host longer than the device
                                  needs to run them, the host sets the pace */
    double host_sync_us;       /* one device-to-host synchronisation (a D2H copy read by the
                                  host: dropless MoE token counts), µs */
    double microbatch_host_ms; /* host work per micro-batch not hidden by the device, ms */
    double step_host_ms;       /* host work per optimizer step (loss sync, logging), ms */

    /* memory */
    double hbm_gib;                   /* capacity, GiB */
    double hbm_gbps;                  /* bandwidth, GB/s */
    double hbm_efficiency;            /* fraction of hbm_gbps large memory-bound kernels reach */
    double norm_hbm_efficiency;       /* the same for normalisations, softmaxes and the loss, where a
                                   device's vector units, not its memory, bound them (Ascend's):
                                   0 = hbm_efficiency */
    double activation_hbm_efficiency; /* the same for activations and rotary embeddings; 0 =
                                         hbm_efficiency */
    double runtime_reserve_mib;       /* the runtime's own memory: CUDA/CANN context, library workspaces */
    double comm_buffer_mib;           /* buffers of one communicator (NCCL channels x peers x
                                   NCCL_BUFFSIZE; HCCL 2 x HCCL_BUFFSIZE) */

    /* interconnect */
    int devices_per_node;    /* devices sharing the fast (intra-node) fabric: a server, or a
                                rack-scale domain (NVL72, an A3 SuperPoD) */
    int devices_per_server;  /* devices a server holds, the unit a job's nodes are counted in
                                (ND's cards_per_node); 0 = devices_per_node */
    double intra_gbps;       /* per device, per direction */
    double intra_efficiency; /* bus bandwidth large messages reach, fraction of intra_gbps */
    double intra_latency_us; /* per step of a ring (or hop of a pipeline) inside a node */
    double intra_base_us;    /* per collective inside a node (launch, protocol set-up) */
    double intra_link_gbps;  /* 0: a switched fabric (NVSwitch, UB), every peer at intra_gbps.
                                > 0: a mesh (HCCS, DGX-1's NVLink) of direct links of this
                                bandwidth, so k devices of a node reach min(intra_gbps,
                                (k - 1) x intra_link_gbps) */
    double inter_gbps;       /* per device, per direction (its NIC share) */
    double inter_efficiency;
    double inter_latency_us; /* per ring step across nodes */
    double inter_base_us;    /* per collective that crosses nodes */
    double host_gbps;        /* device <-> host memory (offload), GB/s per direction */

    /* kernels measured on the machine (NULL: the curves above only); borrowed from the
       device table that loaded them (nd/costmodel/kernel_table.h) */
    const struct nd_kernel_tables *tables;

    /* What is known to be off in the kernel rates above and how far it put nd on published
       runs (NULL: nothing known), said beside every uncalibrated estimate; a device file that
       states its own rates or tables clears it (static text) */
    const char *rates_caveat;
} nd_device;

/* Whether a device field is one of the kernel rates (GEMM, attention, grouped GEMM curves). */
bool nd_device_field_is_rate(const char *key);

/* A set of devices: the built-in ones plus any loaded from files. */
typedef struct nd_device_table {
    nd_device *items;
    int count;
    struct nd_kernel_tables **owned_tables; /* the kernel tables its devices point to */
    int owned_tables_count;
} nd_device_table;

/* Devices a table holds at most (built-in and from files): finding one is a linear search. */
#define ND_DEVICE_TABLE_MAX 1024
/* A device name: 1 to this many characters of printable UTF-8 (name[] holds 4 bytes each). */
#define ND_DEVICE_NAME_CHARS 31

/* Fills table with the built-in devices. The caller frees with nd_device_table_free; on
 * failure (ND_ENOMEM) the table is empty and freeing it is harmless. */
int nd_device_table_builtin(nd_device_table *table, nd_error *err);

/* The built-in device an alias names (ascend910b -> A2, H100-SXM5 -> H100, ...), or NULL. */
const char *nd_device_alias(const char *name);

/* Finds a device by name (case-insensitive; also accepts ND's aliases ascend910b,
 * ascend910c, ascend910_93 and suffixed names such as A100-SXM4-80GB or H100-SXM). NULL if none. */
const nd_device *nd_device_table_find(const nd_device_table *table, const char *name);

/* Writes "A2, A3, ..." into buf. */
void nd_device_table_names(const nd_device_table *table, char *buf, size_t size);

/* Checks every field is finite and positive (latencies, host times, reserve and allocator
 * overhead may be 0; fractions lie in (0, 1]). */
int nd_device_validate(const nd_device *d, const char *source, nd_error *err);

/* The same check for the one field `key` (a device file names a bad value at its own line). */
int nd_device_validate_field(const nd_device *d, const char *key, const char *source, nd_error *err);

/* A numeric field by its device-file key ("gemm_efficiency", "devices_per_node", ...):
 * 0 with *value set, or -1 for a key that is not a numeric field. */
int nd_device_field(const nd_device *d, const char *key, double *value);

/* The key of the i-th numeric field (0-based, device-file order), or NULL past the last. */
const char *nd_device_field_key(size_t i);

/* The built-in device of exactly this name, or NULL. */
const nd_device *nd_device_builtin_named(const char *name);

/* Whether a and b hold the same figures (every numeric field) and kernel tables. */
bool nd_device_same_figures(const nd_device *a, const nd_device *b);

/* Sets the field a device-file key names from its text (a number, or the description).
 * Returns the field's index (below ND_DEVICE_FIELDS_MAX), or ND_EINPUT naming `where` and
 * the key (unknown keys get the nearest known one). Ranges are nd_device_validate's. */
#define ND_DEVICE_FIELDS_MAX 64
int nd_device_set_field(nd_device *d, const char *key, const char *value, const char *where, nd_error *err);

/* The fields a new device must state that seen[] (indexed as nd_device_set_field returns)
 * does not have, as "a, b, c" into buf; returns how many. */
size_t nd_device_missing_fields(const bool seen[ND_DEVICE_FIELDS_MAX], char *buf, size_t size);

/* Adds d to the table, or replaces the device of the same name. ND_EINPUT (naming `where`)
 * past ND_DEVICE_TABLE_MAX devices, ND_ENOMEM. */
int nd_device_table_put(nd_device_table *table, const nd_device *d, const char *where, nd_error *err);

/* Takes ownership of kernel tables its devices will point to: freed with the table (also
 * on failure, ND_ENOMEM). */
int nd_device_table_adopt_tables(nd_device_table *table, struct nd_kernel_tables *tables, nd_error *err);

void nd_device_table_free(nd_device_table *table);

/* The device's memory, MiB. */
double nd_device_capacity_mib(const nd_device *d);

/* The memory a strategy may use per device: the budget stated (> 0), else the device's
 * capacity. The one home of nd's default budget. */
double nd_device_budget_mib(const nd_device *d, double stated_mib);

#endif
