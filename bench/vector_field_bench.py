#!/usr/bin/python3
"""Vector-field sweep benchmark: the C++ sweep (bench_vector_field) against a numpy implementation of the same
closed forms ([XHN] eqs 7-12, 20-27, 35-39), in one run, interleaved repetitions, median ratio.

Usage: /usr/bin/python3 bench/vector_field_bench.py [--build build] [--grid 400] [--reps 7] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def delta_s(loss, sap, san, gamma, lr):
    """Delta S of one step from the printed closed forms, vectorised over the grid (same equations as
    theory/include/dmlbench/theory/entanglement.hpp)."""
    sin_ap = np.sqrt((1 - sap) * (1 + sap))
    sin_an = np.sqrt((1 - san) * (1 + san))
    spn = sap * san + gamma * sin_ap * sin_an
    sin_g = np.sqrt((1 - gamma) * (1 + gamma))
    if loss == "vanilla":
        b = 2.0 * lr
        sap_new = (1 - b + b * b) * sap + 2 * b - b * b - b * (1 - b) * spn - b * b * san
        san_new = (1 + b + b * b) * san - 2 * b - b * b + b * (1 + b) * spn - b * b * sap
        np2 = (1 - b + b * sap) ** 2 + b * b * (1 - sap * sap)
        nn2 = (1 + b - b * san) ** 2 + b * b * (1 - san * san)
        bx = by = b
    else:
        if loss == "l1st":
            b = lr / (1 + np.exp(sap - san))
            x = y = 1.0
        else:
            b = lr / (1 + np.exp(sap - 0.5 * sap * sap - 0.5 * san * san))
            x, y = 1 - sap, san
        bx, by = b * x, b * y
        sap_new = (1 + bx * bx) * sap + 2 * bx - by * spn - bx * by * san
        san_new = (1 + by * by) * san - 2 * by + bx * spn - bx * by * sap
        np2 = (1 + bx * sap) ** 2 + bx * bx * (1 - sap * sap)
        nn2 = (1 - by * san) ** 2 + by * by * (1 - san * san)
    na2 = (1 + bx * sap - by * san) ** 2 + (bx * sin_ap - gamma * by * sin_an) ** 2 + (by * sin_g * sin_an) ** 2
    return sap_new / np.sqrt(na2 * np2) - sap, san_new / np.sqrt(na2 * nn2) - san


def numpy_sweep(grid, gamma=0.5, p=0.4, lr=0.1):
    s = (np.arange(grid) + 0.5) / grid
    sap, san = np.meshgrid(s, s)  # rows: S_an, columns: S_ap, as the C++ sweep
    checksum, points = 0.0, 0
    for loss in ("l1st", "vanilla", "l2nd"):
        dap, dan = delta_s(loss, sap, san, gamma, lr)
        pq = p * np.sqrt(sap * san)
        checksum += float(np.sum(dap + pq * dan) + np.sum(dan + pq * dap))
        points += sap.size
    return points, checksum


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--grid", type=int, default=400)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench", "bench_vector_field")
    if not os.path.exists(exe):
        sys.exit(f"error: {exe} not found; build first (bash scripts/build.sh)")
    cpp, ref, sums = [], [], []
    for r in range(a.reps):  # interleaved so that machine noise hits both sides alike
        out = subprocess.run([exe, "--grid", str(a.grid), "--reps", "1"], check=True, capture_output=True, text=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        cpp.append(row["points_per_second"])
        t0 = time.perf_counter()
        points, checksum = numpy_sweep(a.grid)
        ref.append(points / (time.perf_counter() - t0))
        sums.append((row["checksum"], checksum))
        print(f"rep {r}: C++ {cpp[-1]:.3e} points/s, numpy {ref[-1]:.3e} points/s", flush=True)
    worst = max(abs(c - n) / max(1.0, abs(n)) for c, n in sums)
    if worst > 1e-9:
        sys.exit(f"error: C++ and numpy fields disagree (relative checksum difference {worst:.2e})")
    ratios = [c / n for c, n in zip(cpp, ref)]
    result = {
        "benchmark": "vector_field_sweep", "grid": a.grid, "points_per_rep": points, "reps": a.reps,
        "cpp_points_per_second_median": statistics.median(cpp),
        "numpy_points_per_second_median": statistics.median(ref),
        "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
        "checksum_relative_difference": worst, "numpy": np.__version__,
    }
    print(json.dumps(result, indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
