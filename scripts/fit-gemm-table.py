#!/usr/bin/env python3
"""fit-gemm-table.py TABLE.csv PEAK_TFLOPS HBM_GBPS HBM_EFFICIENCY [PRECISION]

Fits nd's GEMM curve to a measured GEMM table (samples/devices/gemm/*.csv: precision, m, n,
k, tflops, source) and prints the device-file fields it gives. The curve is the one
search/costmodel/kernels.c prices (docs/cost-model.md, Compute kernels):

    t = gemm_fixed_us + max( 2mnk / (peak x e x m/(m+d) x n/(n+d) x k/(k+d)) ,
                             bytes / (hbm_gbps x hbm_efficiency) )

with bytes = (mk + kn) x input bytes + mn x 2. It minimises the squared log error of the
time over a grid (e in steps of 0.01, d in steps of 16, the fixed time in steps of 0.5 us)
and reports the fit's mean absolute error. Rows whose source is MAMF (the best achievable
shape, or its plateau at large shapes) weigh ten times a sweep point. gemm_fixed_us printed here includes the launch
every kernel pays; the device field is this minus kernel_launch_us.

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
    points = []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["precision"] != want:
                continue
            m, n, k, tf = int(row["m"]), int(row["n"]), int(row["k"]), float(row["tflops"])
            # The achievable ceiling (MAMF, its plateau) weighs as much as ten sweep points:
            # a sweep of mid-size shapes alone would let the curve climb past it.
            weight = 10.0 if row["source"].startswith("MAMF") else 1.0
            points.append((m, n, k, 2.0 * m * n * k / (tf * 1e12) * 1e6, weight))
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
                err = sum(w * math.log(predict_us(m, n, k, want, peak, bw, e, d, t0) / t) ** 2
                          for m, n, k, t, w in points)
                if best is None or err < best[0]:
                    best = (err, e, d, t0)
    _, e, d, t0 = best
    mape = sum(abs(predict_us(m, n, k, want, peak, bw, e, d, t0) / t - 1) for m, n, k, t, _ in points)
    mape /= len(points)
    print(f"{path} {want}: {len(points)} points  efficiency {e:.2f}  half_dim {d}  "
          f"fixed {t0:.1f} us  MAPE {100 * mape:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
