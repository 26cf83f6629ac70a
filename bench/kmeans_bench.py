#!/usr/bin/python3
"""k-means for NMI at scale (issue 30 item 5): dmlbench's k-means (bench_kmeans: experiments/kmeans.hpp; k-means++
with triangle-inequality pruning up to N k d = 1e11, k-means|| above) beside faiss's k-means (random initial
centres, every row used: max_points_per_centroid set above N / k) on the same L2-normalised clustered float32 rows
(1000 classes, as bench/retrieval_metrics_bench.py makes them), the same threads and the same Lloyd iterations.
Both arms run on the OpenBLAS kernels dmlbench runs with (OPENBLAS_CORETYPE read from `dmlbench info`). Arms
alternate within a repetition; medians.

Usage: /usr/bin/python3 bench/kmeans_bench.py [--n 1000000] [--dim 128] [--k 1000] [--iterations 10] [--threads 2]
       [--reps 1] [--tmp DIR] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from dmlbench_blas_env import coretype_env  # bench/
from retrieval_metrics_bench import clustered_embeddings  # bench/: the same rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAISS_CODE = """
import sys, time, json, numpy as np, faiss
faiss.omp_set_num_threads(int(sys.argv[4]))
x = np.load(sys.argv[1]); k = int(sys.argv[2]); it = int(sys.argv[3])
faiss.normalize_L2(x)
km = faiss.Kmeans(x.shape[1], k, niter=it, seed=1, max_points_per_centroid=x.shape[0] // k + 1, verbose=False)
t0 = time.perf_counter(); km.train(x); t = time.perf_counter() - t0
s = [st["time"] for st in km.iteration_stats]  # seconds since the start of train, per iteration
print(json.dumps({"seconds": t, "iterations": it, "seconds_per_iteration": (s[-1] - s[0]) / max(1, len(s) - 1) if len(s) > 1 else t}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--tmp")
    ap.add_argument("--json")
    a = ap.parse_args()
    core, _ = coretype_env(os.path.join(a.build, "apps", "dmlbench"))
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads), **core)
    x, _ = clustered_embeddings(np.random.default_rng(0), a.n, a.dim, 1000)
    runs = {"dmlbench": [], "faiss": []}
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        path = os.path.join(tmp, "x.npy")
        np.save(path, x)
        del x
        for rep in range(a.reps):
            for arm in runs:
                cmd = ([os.path.join(a.build, "bench", "bench_kmeans"), path, str(a.k), str(a.iterations),
                        str(a.threads)] if arm == "dmlbench" else
                       ["/usr/bin/python3", "-c", FAISS_CODE, path, str(a.k), str(a.iterations), str(a.threads)])
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    sys.exit(f"error: the {arm} arm failed:\n{p.stderr[-2000:]}")
                runs[arm].append(json.loads(p.stdout.strip().splitlines()[-1]))
                print(f"rep {rep} {arm}: {json.dumps(runs[arm][-1])}", flush=True)
    med = statistics.median
    result = {"benchmark": "kmeans", "n": a.n, "dim": a.dim, "k": a.k, "iterations": a.iterations,
              "threads": a.threads, "reps": a.reps, "openblas_coretype": core.get("OPENBLAS_CORETYPE", ""), "runs": runs,
              "median": {arm: {f: med(r[f] for r in rs) for f in ("seconds", "seconds_per_iteration")}
                         for arm, rs in runs.items()}}
    result["median"]["dmlbench"]["seeding_seconds"] = med(r["seeding_seconds"] for r in runs["dmlbench"])
    print(json.dumps(result["median"], indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
