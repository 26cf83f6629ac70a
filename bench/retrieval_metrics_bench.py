#!/usr/bin/python3
"""Recall@K (query excluded) and k-means NMI time on 10,000 x 128 embeddings: the C++ metrics
(experiments/retrieval_metrics.hpp, bench_retrieval_metrics) against a plain PyTorch reference in one run, the same
embeddings, the same thread count. Recall values must agree exactly; NMI is reported (k-means seeds differ).

Usage: /usr/bin/python3 bench/retrieval_metrics_bench.py [--build build] [--n 10000] [--dim 128] [--reps 3]
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


def recall_at_k(x, y, ks, block=1024):
    x = torch.nn.functional.normalize(x, dim=1)
    hits = torch.zeros(len(ks), dtype=torch.float64)
    for s in range(0, x.shape[0], block):
        sim = x[s:s + block] @ x.T
        sim[torch.arange(sim.shape[0]), torch.arange(s, s + sim.shape[0])] = -1e9
        top = sim.topk(max(ks), dim=1).indices
        first = (y[top] == y[s:s + block, None]).int().cumsum(1) > 0
        for i, k in enumerate(ks):
            hits[i] += first[:, k - 1].sum()
    return (hits / x.shape[0]).tolist()


def kmeans_nmi(x, y, k, iterations=100, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = x.double()
    centres = [x[torch.randint(x.shape[0], (1,), generator=g)].squeeze(0)]
    d2 = ((x - centres[0]) ** 2).sum(1)
    for _ in range(1, k):
        c = torch.multinomial(d2 + 1e-300, 1, generator=g).item()
        centres.append(x[c])
        d2 = torch.minimum(d2, ((x - x[c]) ** 2).sum(1))
    centres = torch.stack(centres)
    assign = None
    for _ in range(iterations):
        a = torch.cdist(x, centres).argmin(1)
        if assign is not None and torch.equal(a, assign):
            break
        assign = a
        for c in range(k):
            m = assign == c
            if m.any():
                centres[c] = x[m].mean(0)
    # NMI, arithmetic normalisation
    n = len(y)
    cont = torch.zeros(k, int(y.max()) + 1, dtype=torch.float64)
    cont.index_put_((assign, y), torch.ones(n, dtype=torch.float64), accumulate=True)
    p = cont / n
    pc, py = p.sum(1), p.sum(0)
    nz = p > 0
    mi = (p[nz] * torch.log(p[nz] / (pc[:, None] * py[None, :])[nz])).sum()
    h = lambda q: -(q[q > 0] * torch.log(q[q > 0])).sum()
    return float(2 * mi / (h(pc) + h(py)))


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    exe = os.path.join(a.build, "bench", "bench_retrieval_metrics")
    if not os.path.exists(exe):
        sys.exit(f"error: {exe} not found; build first")
    rng = np.random.default_rng(0)
    y = rng.integers(0, a.classes, a.n)
    centres = rng.normal(size=(a.classes, a.dim))
    emb = (centres[y] + 1.5 * rng.normal(size=(a.n, a.dim))).astype(np.float32)  # clustered, overlapping classes
    with tempfile.TemporaryDirectory() as tmp:
        ef, lf = os.path.join(tmp, "e.f32"), os.path.join(tmp, "l.i64")
        emb.tofile(ef)
        y.astype(np.int64).tofile(lf)
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads))
        cpp, ref = [], []
        x, yt = torch.from_numpy(emb), torch.from_numpy(y.astype(np.int64))
        for r in range(a.reps):
            out = subprocess.run([exe, ef, lf, str(a.n), str(a.dim), str(a.classes), "1"], check=True,
                                 capture_output=True, text=True, env=env)
            c = json.loads(out.stdout.strip().splitlines()[-1])
            t0 = time.perf_counter()
            rk = recall_at_k(x, yt, [1, 2, 4, 8])
            t_recall = time.perf_counter() - t0
            t0 = time.perf_counter()
            nmi = kmeans_nmi(x, yt, a.classes)
            t_nmi = time.perf_counter() - t0
            if max(abs(u - v) for u, v in zip(rk, c["recall"])) > 1e-9:
                sys.exit(f"error: Recall@K disagree: C++ {c['recall']} vs PyTorch {rk}")
            cpp.append(c)
            ref.append({"recall_seconds": t_recall, "nmi_seconds": t_nmi, "nmi": nmi})
            print(f"rep {r}: recall C++ {c['recall_seconds']:.3f} s / torch {t_recall:.3f} s; k-means NMI C++ "
                  f"{c['nmi_seconds']:.2f} s ({c['nmi']:.3f}) / torch {t_nmi:.2f} s ({nmi:.3f})", flush=True)
    med = lambda v: statistics.median(v)
    result = {"benchmark": "retrieval_metrics", "n": a.n, "dim": a.dim, "classes": a.classes, "threads": a.threads,
              "reps": a.reps, "recall": rk,
              "recall_ratio_median": med([r["recall_seconds"] / c["recall_seconds"] for c, r in zip(cpp, ref)]),
              "nmi_ratio_median": med([r["nmi_seconds"] / c["nmi_seconds"] for c, r in zip(cpp, ref)]),
              "cpp_recall_seconds": med([c["recall_seconds"] for c in cpp]),
              "torch_recall_seconds": med([r["recall_seconds"] for r in ref]),
              "cpp_nmi_seconds": med([c["nmi_seconds"] for c in cpp]),
              "torch_nmi_seconds": med([r["nmi_seconds"] for r in ref])}
    print(json.dumps(result, indent=2))
    if a.json:
        json.dump(result, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
