#!/usr/bin/python3
"""Objective + gradient evaluations per second of E O_trip and E O_EPStrip ([LCC] Thm 1, App. B, distinct triples,
squared distances): the C++ sims/ code (bench_collapse_objective) against a PyTorch-autograd implementation of the
same exact expectations, in one run, on the same points; values and gradient norms must agree.

Usage: /usr/bin/python3 bench/collapse_objective_bench.py [--build build] [--n 32 64 128] [--reps 3] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch


def label_distributions(n, t, p):
    q = (1 - p) / (t - 1)
    cls = np.arange(n) // (n // t)
    pi = np.full((n, t), q)
    pi[np.arange(n), cls] = p
    return torch.tensor(pi, dtype=torch.float64), cls


def triplet_weights(n, t, p):
    """W[i,j,k] = P(Y_i = Y_j) - P(Y_i = Y_j = Y_k) for distinct i, j, k, else 0."""
    pi, _ = label_distributions(n, t, p)
    p2 = pi @ pi.T
    p3 = torch.einsum("ic,jc,kc->ijk", pi, pi, pi)
    w = p2[:, :, None] - p3
    idx = torch.arange(n)
    w[idx, idx, :] = 0
    w[idx, :, idx] = 0
    w[:, idx, idx] = 0
    return w


def trip_objective(x, w, alpha):
    n = x.shape[0]
    d = torch.cdist(x, x) ** 2
    z = d[:, :, None] - d[:, None, :] + alpha
    return (w * torch.relu(z)).sum() / n ** 3


def eps_weights(d, pi):
    """W[i,j,k] of E O_EPStrip for the current order of the points around each anchor (ties broken by index), as
    derived in sims/include/dmlbench/sims/easy_positive_objective.hpp. Constant in back-propagation."""
    n, t = pi.shape
    with torch.no_grad():
        key = d.clone()
        key.fill_diagonal_(-1.0)                                     # the anchor first: excluded below
        order = torch.argsort(key, dim=1, stable=True)[:, 1:]        # n x (n-1): others by distance, ties by index
        rank_full = torch.full((n, n), -1, dtype=torch.long)
        rank_full.scatter_(1, order, torch.arange(n - 1).expand(n, n - 1).contiguous())
        pis = pi[order]                                              # n x (n-1) x t
        prefix = torch.cumprod(torch.cat([torch.ones(n, 1, t, dtype=pi.dtype), 1 - pis[:, :-1]], dim=1), dim=1)
        a = pi[:, None, :] * pis * prefix                            # n x (n-1) x t
        s_before = a.sum(-1)                                         # E[Phi delta_ij]
        s_after = a @ (1 - pi).T                                     # n x (n-1) x n: k after j
        before = rank_full[:, None, :] < torch.arange(n - 1)[None, :, None]  # k before j (i itself: rank -1)
        w = torch.where(before, s_before[:, :, None], s_after)
        idx = torch.arange(n)
        w[idx, :, idx] = 0                                           # k = i
        w.scatter_(2, order[:, :, None], 0.0)                        # k = j
        wfull = torch.zeros(n, n, n, dtype=pi.dtype)
        wfull.scatter_(1, order[:, :, None].expand(n, n - 1, n), w)  # back to the index of j
    return wfull


def eps_objective(x, pi, alpha):
    n = x.shape[0]
    d = torch.cdist(x, x) ** 2
    w = eps_weights(d.detach(), pi)
    z = d[:, :, None] - d[:, None, :] + alpha
    return (w * torch.relu(z)).sum() / n ** 3


def time_torch(fn, x0, min_seconds):
    evals, t0 = 0, time.perf_counter()
    while True:
        x = x0.clone().requires_grad_(True)
        v = fn(x)
        v.backward()
        evals += 1
        s = time.perf_counter() - t0
        if s >= min_seconds:
            return evals / s, float(v), float(x.grad.norm())


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--n", type=int, nargs="+", default=[32, 64, 128])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.5)
    ap.add_argument("--json")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench", "bench_collapse_objective")
    if not os.path.exists(exe):
        sys.exit(f"error: {exe} not found; build first (bash scripts/build.sh)")
    t, p, alpha, dim = 2, 0.8, 0.2, 8
    rows = []
    for n in a.n:
        rng = np.random.default_rng(n)
        pts = rng.uniform(-0.5, 0.5, size=(n, dim))
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(" ".join(repr(v) for v in row) for row in pts))
            path = f.name
        x0 = torch.tensor(pts, dtype=torch.float64)
        w = triplet_weights(n, t, p)
        pi, _ = label_distributions(n, t, p)
        refs = {"trip": lambda x: trip_objective(x, w, alpha), "eps_trip": lambda x: eps_objective(x, pi, alpha)}
        cpp = {k: [] for k in refs}
        ref = {k: [] for k in refs}
        for r in range(a.reps):  # interleaved
            out = subprocess.run([exe, "--points", path, "--n", str(n), "--classes", str(t), "--dim", str(dim),
                                  "--p-correct", str(p), "--margin", str(alpha), "--reps", "1",
                                  "--min-seconds", str(a.min_seconds)], check=True, capture_output=True, text=True)
            for line in out.stdout.strip().splitlines():
                row = json.loads(line)
                cpp[row["objective"]].append(row)
            for k, fn in refs.items():
                eps_, v, gn = time_torch(fn, x0, a.min_seconds)
                ref[k].append({"evals_per_second": eps_, "value": v, "grad_norm": gn})
        os.unlink(path)
        for k in refs:
            c, rr = cpp[k], ref[k]
            dv = abs(c[0]["value"] - rr[0]["value"]) / max(1e-300, abs(rr[0]["value"]))
            dg = abs(c[0]["grad_norm"] - rr[0]["grad_norm"]) / max(1e-300, abs(rr[0]["grad_norm"]))
            if dv > 1e-9 or dg > 1e-9:
                sys.exit(f"error: {k} n={n}: C++ and PyTorch disagree (value {dv:.2e}, gradient norm {dg:.2e})")
            ratios = [x["evals_per_second"] / y["evals_per_second"] for x, y in zip(c, rr)]
            row = {"objective": k, "n": n,
                   "cpp_evals_per_second": statistics.median(x["evals_per_second"] for x in c),
                   "torch_evals_per_second": statistics.median(y["evals_per_second"] for y in rr),
                   "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
                   "value_rel_diff": dv, "grad_norm_rel_diff": dg}
            rows.append(row)
            print(f"{k:9s} n={n:4d}: C++ {row['cpp_evals_per_second']:9.1f}/s  torch {row['torch_evals_per_second']:9.1f}/s"
                  f"  ratio {row['ratio_median']:.2f} ({row['ratio_min']:.2f}-{row['ratio_max']:.2f})", flush=True)
    result = {"benchmark": "collapse_objective", "classes": t, "noise_p": p, "margin": alpha, "dim": dim,
              "reps": a.reps, "torch": torch.__version__, "torch_threads": torch.get_num_threads(), "rows": rows}
    print(json.dumps(result, indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
