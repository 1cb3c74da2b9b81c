/*
 * simumax_runs.h — SimuMax's 43 measured runs of one 8 x B200 node
 * (samples/published/simumax-b200-runs.csv: Llama 3 70B and 405B, DeepSeek-V2 and V3 with their
 * layers cut, TP, PP, EP and CP to 128k under Megatron-LM): each row as the Megatron launch
 * arguments SimuMax's launchers pass, and its measured step and peak allocated memory.
 */
#ifndef ND_BENCH_SIMUMAX_RUNS_H
#define ND_BENCH_SIMUMAX_RUNS_H

#define SIMUMAX_RUNS_TABLE "samples/published/simumax-b200-runs.csv"
#define SIMUMAX_RUNS_MAX   64

typedef struct simumax_run {
    char name[64], model[16];
    long layers, tp, pp, ep, cp, seq, mbc;
    double real_ms, simumax_ms, real_alloc_gib, simumax_alloc_gib;
} simumax_run;

/* The table's rows under dir (the source tree): how many were read, -1 when it cannot be opened. */
int simumax_runs_read(const char *dir, simumax_run *rows, int cap);

/* Writes row r as a file of Megatron arguments (its launcher's MODEL_ARGS, TRAINING_ARGS,
 * MOE_ARGS and MLA_ARGS with the row's sizes). 1 on failure. */
int simumax_runs_write_args(const char *path, const simumax_run *r);

/* The row's global batch: micro-batch 1 x its micro-batches x its data-parallel ranks. */
long simumax_runs_global_batch(const simumax_run *r);

#endif
