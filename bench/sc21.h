/*
 * sc21.h — Megatron-LM's weak-scaling table (Narayanan et al., SC21, arXiv:2104.04473, Table 1;
 * samples/published/megatron-sc21-table1.csv): its rows, each as an nd run file and strategy, its
 * measured step, and its price on a device. Shared by bench_fidelity (uncalibrated) and
 * bench_calibration (a device fitted elsewhere predicting it).
 */
#ifndef ND_BENCH_SC21_H
#define ND_BENCH_SC21_H

#include <stddef.h>

#include "nd/costmodel/device.h"
#include "nd/costmodel/estimate.h"

/* One row of the table, with the micro-batch, chunk size and DDP of the paper's own scripts. */
typedef struct sc21_run {
    double params_b, tflops_per_gpu;
    long heads, hidden, layers, tp, pp, devices, gbs, mbs, layers_per_chunk;
    char ddp[8];
    long dp, vpp; /* derived: DP = GPUs / (TP x PP), VPP = layers / PP / layers_per_chunk */
} sc21_run;

#define SC21_ROWS 16

/* The rows of the table under source tree dir: their count, or -1 when it cannot be read. */
int sc21_read(const char *dir, sc21_run *rows, int cap);

/* The measured step, ms: the paper's FLOP count (its eq. 3, recomputation included),
 * 96·B·s·l·h²·(1 + s/6h + V/16lh), over the GPUs at the published TFLOP/s a GPU. */
double sc21_measured_ms(const sc21_run *r);

/* Prices row r (its run file written into the temporary directory tmp) with its own strategy on
 * `device`, or on the built-in A100 when NULL; 1 on failure, the error on stderr. */
int sc21_price(const sc21_run *r, const char *tmp, const nd_device *device, nd_estimate *est);

#endif
