/*
 * mpt.h — llm-foundry's MPT throughput tables (samples/published/llm-foundry-mpt.csv: MPT-125M
 * to 70B under Composer's FSDP on 8-128 H100-80GB, A100-80GB and A100-40GB): their rows, each
 * as an nd run file and strategy, and its measured step. Shared by bench_fidelity
 * (uncalibrated) and bench_calibration (a device fitted on the single-node rows predicting the
 * multi-node ones).
 */
#ifndef ND_BENCH_MPT_H
#define ND_BENCH_MPT_H

#include <stddef.h>

#define MPT_TABLE "samples/published/llm-foundry-mpt.csv"

/* One row: the model, its sequence, GPUs and device, micro-batch and gradient accumulation,
 * activation checkpointing ("true"/"false") and the published tokens per second. */
typedef struct mpt_run {
    char model[16], device[16], ac[8];
    long seq, devices, mbs, accum;
    double tokens_per_s;
} mpt_run;

/* Reads one CSV line into *r: 0 for a data row, 1 for anything else (the header). */
int mpt_parse(const char *line, mpt_run *r);

/* Writes the row's run file: the MPT size at its sequence length, under FSDP with the fused
 * loss and the Triton flash attention the benchmarks name (attn_impl: triton). 1 on failure. */
int mpt_write_run(const char *path, const mpt_run *r);

/* The command line of row r's run written at run_path (-y, -A, -d, -b) and its --strategy (FSDP
 * over every GPU, its micro-batching, full recompute where it checkpointed activations):
 * *common points into *flags, which must outlive it. */
typedef struct mpt_flags {
    char devices[32], gbs[32], strategy[160];
} mpt_flags;
struct nd_cli_common;
void mpt_flags_set(const mpt_run *r, const char *run_path, mpt_flags *flags, struct nd_cli_common *common);

/* The measured step, ms: the global batch's tokens at the published tokens per second. */
double mpt_measured_ms(const mpt_run *r);

/* The global batch, sequences. */
long mpt_global_batch(const mpt_run *r);

#endif
