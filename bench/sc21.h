/*
 * sc21.h — Megatron-LM's SC21 tables (Narayanan et al., arXiv:2104.04473): Table 1, the weak
 * scaling (samples/published/megatron-sc21-table1.csv), and Table 2, PTD-P against DeepSpeed's
 * ZeRO-3 (megatron-sc21-table2.csv): their rows, each as an nd run file and strategy, its
 * measured step, and its price on a device. Shared by bench_fidelity (uncalibrated) and
 * bench_calibration (a device fitted elsewhere predicting it).
 */
#ifndef ND_BENCH_SC21_H
#define ND_BENCH_SC21_H

#include <stdbool.h>
#include <stddef.h>

#include "nd/costmodel/device.h"
#include "nd/costmodel/estimate.h"

/* One row of the table, with the micro-batch, chunk size and DDP of the paper's own scripts. */
typedef struct sc21_run {
    double params_b, tflops_per_gpu;
    long heads, hidden, layers, tp, pp, devices, gbs, mbs, layers_per_chunk;
    char ddp[8];  /* torch, local (Megatron's) or zero3 (DeepSpeed's ZeRO-3, no model parallelism) */
    long dp, vpp; /* derived: DP = GPUs / (TP x PP), VPP = layers / PP / layers_per_chunk */
} sc21_run;

#define SC21_ROWS 16

#define SC21_TABLE1 "megatron-sc21-table1.csv"
#define SC21_TABLE2 "megatron-sc21-table2.csv"

/* The rows of `table` (SC21_TABLE1 or SC21_TABLE2) under source tree dir: their count, or -1
 * when it cannot be read. */
int sc21_read(const char *dir, const char *table, sc21_run *rows, int cap);

/* Whether row r ran DeepSpeed's ZeRO-3 rather than Megatron's PTD-P. */
bool sc21_is_zero3(const sc21_run *r);

/* The measured step, ms: the paper's FLOP count (its eq. 3, recomputation included),
 * 96·B·s·l·h²·(1 + s/6h + V/16lh), over the GPUs at the published TFLOP/s a GPU. */
double sc21_measured_ms(const sc21_run *r);

/* Prices row r (its run file written into the temporary directory tmp) with its own strategy on
 * `device`, or on the built-in A100 when NULL; 1 on failure, the error on stderr. */
int sc21_price(const sc21_run *r, const char *tmp, const nd_device *device, nd_estimate *est);

#endif
