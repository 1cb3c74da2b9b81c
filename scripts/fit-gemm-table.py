#!/usr/bin/env python3
"""fit-gemm-table.py TABLE.csv PEAK_TFLOPS HBM_GBPS HBM_EFFICIENCY [PRECISION]

Fits nd's GEMM curve to a measured GEMM table (samples/devices/gemm/*.csv: precision, m, n,
k, tflops, source; an optional batch) and prints the device-file fields it gives. The curve is the one
search/costmodel/kernels.c prices (docs/cost-model.md, Compute kernels):

    t = gemm_fixed_us + max( 2mnk / (peak x e x m/(m+d) x n/(n+d) x k/(k+d)) ,
                             bytes / (hbm_gbps x hbm_efficiency) )

with bytes = (mk + kn) x input bytes + mn x 2. It minimises the squared log error of the
time over a grid (e in steps of 0.01, d in steps of 16, the fixed time in steps of 0.5 us)
and reports the fit's mean absolute error. Every measured point weighs alike. Rows whose
source is MAMF (the best shape an isolated search finds) are upper bounds, not points: they
are left out of the fit and the curve is checked not to exceed them; synthetic plateau rows
(MAMF-plateau) are left out altogether. A table measured inside training runs (source
SimuMax-training) is what the built-in device is fitted to where one exists: training runs
reach lower rates than isolated sweeps (clocks and power under sustained load, real data).
gemm_fixed_us printed here includes the launch every kernel pays; the device field is this
minus kernel_launch_us.

Used to derive the built-in devices' GEMM fields (search/costmodel/device_builtin.c); the
test test_kernels checks the fields still reproduce the tables.
"""
import csv
import math
import sys

INPUT_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "tf32": 4, "fp32": 4}


def predict_us(m, n, k, prec, peak, bw, e, d, t0):
    flops = 2.0 * m * n * k
    sat = (m / (m + d)) * (n / (n + d)) * (k / (k + d))
    compute = flops / (peak * 1e12 * e * sat)
    moved = (m * k + k * n) * INPUT_BYTES[prec] + m * n * 2
    memory = moved / (bw * 1e9)
    return t0 + max(compute, memory) * 1e6


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    path, peak, hbm, eff = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    want = sys.argv[5] if len(sys.argv) > 5 else "bf16"
    points, ceilings = [], []
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["precision"] != want:
                continue
            # a batched GEMM is priced as one of batch x m rows (nd's kernel-table reader)
            m, n, k, tf = int(row["m"]) * int(row.get("batch") or 1), int(row["n"]), int(row["k"]), float(row["tflops"])
            point = (m, n, k, 2.0 * m * n * k / (tf * 1e12) * 1e6, 1.0)
            if row["source"] == "MAMF-plateau":
                continue
            (ceilings if row["source"].startswith("MAMF") else points).append(point)
    if not points:
        print(f"{path}: no {want} rows", file=sys.stderr)
        return 2
    bw = hbm * eff
    best = None
    for e100 in range(40, 100):
        e = e100 / 100
        for d in range(0, 769, 16):
            for t2 in range(0, 21):
                t0 = t2 / 2
                # no shape beyond the measured best: neither the MAMF shape itself nor, at
                # large shapes, the curve's ceiling e x peak
                if any(predict_us(m, n, k, want, peak, bw, e, d, t0) < t for m, n, k, t, _ in ceilings) or \
                        any(e * peak > 2 * m * n * k / t / 1e6 for m, n, k, t, _ in ceilings):
                    continue
                err = sum(w * math.log(predict_us(m, n, k, want, peak, bw, e, d, t0) / t) ** 2
                          for m, n, k, t, w in points)
                if best is None or err < best[0]:
                    best = (err, e, d, t0)
    _, e, d, t0 = best
    mape = sum(abs(predict_us(m, n, k, want, peak, bw, e, d, t0) / t - 1) for m, n, k, t, _ in points)
    mape /= len(points)
    print(f"{path} {want}: {len(points)} points  efficiency {e:.2f}  half_dim {d}  "
          f"fixed {t0:.1f} us  MAPE {100 * mape:.1f} %")
    for m, n, k, t, _ in ceilings:
        got = predict_us(m, n, k, want, peak, bw, e, d, t0)
        print(f"  MAMF {m}x{n}x{k}: {2 * m * n * k / t / 1e6:.1f} TFLOP/s measured best, curve "
              f"{2 * m * n * k / got / 1e6:.1f}{'  ABOVE THE CEILING' if got < t else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
