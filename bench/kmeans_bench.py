#!/usr/bin/python3
"""k-means for NMI at scale: dmlbench's k-means (bench_kmeans: experiments/kmeans.hpp; k-means++ up to N k d = 1e11,
k-means|| above; Lloyd's steps with Yinyang bounds), an earlier build's bench_kmeans (`--before`, e.g. the commit
before the bounds), this build's plain loop (`--plain`: the loop before the bounds, on one thread) and faiss's k-means (random initial centres, every row used: max_points_per_centroid set above
N / k) on the same L2-normalised float32 rows, the same threads. dmlbench runs Lloyd's loop until no assignment
changes (at most --iterations); faiss runs as many iterations as dmlbench's first run took. The dmlbench arms must
take the same iterations and give the same assignment hash (where an arm prints one), else exit 1. Every arm runs on the OpenBLAS kernels dmlbench runs
with (OPENBLAS_CORETYPE read from `dmlbench info`). Arms alternate within a repetition; medians and ratios.

The rows: --data sphere (default; eval_scale_bench.py's Gaussian mixture on the unit sphere, --classes classes) or
clustered (retrieval_metrics_bench.py's rows around standard-normal centres, noise 1.5, 1,000 classes).

Usage: /usr/bin/python3 bench/kmeans_bench.py [--n 100000] [--dim 128] [--k 10000] [--classes 1000] [--data sphere]
       [--iterations 100] [--threads 2] [--reps 3] [--before EXE] [--plain] [--no-faiss] [--tmp DIR] [--json out.json]
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
from eval_scale_bench import cpu_model, sphere_mixture  # bench/: the same rows as the eval benchmark
from retrieval_metrics_bench import clustered_embeddings  # bench/

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAISS_CODE = """
import sys, time, json, numpy as np, faiss
faiss.omp_set_num_threads(int(sys.argv[4]))
x = np.load(sys.argv[1]); k = int(sys.argv[2]); it = int(sys.argv[3])
faiss.normalize_L2(x)
km = faiss.Kmeans(x.shape[1], k, niter=it, seed=1, max_points_per_centroid=x.shape[0] // k + 1, verbose=False)
t0 = time.perf_counter(); km.train(x); t = time.perf_counter() - t0
print(json.dumps({"seconds": t, "iterations": it, "seconds_per_iteration": t / it}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--before", help="an earlier build's bench_kmeans")
    ap.add_argument("--plain", action="store_true",
                    help="add this build's plain loop (bench_kmeans MODE plain: every row every iteration, "
                         "torch::multinomial's draws, the loop before the bounds) as an arm")
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--k", type=int, default=10000)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--data", choices=("sphere", "clustered"), default="sphere")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-faiss", action="store_true")
    ap.add_argument("--tmp")
    ap.add_argument("--json")
    a = ap.parse_args()
    core, blas = coretype_env(os.path.join(a.build, "apps", "dmlbench"))
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads), **core)
    rng = np.random.default_rng(0)
    if a.data == "sphere":
        x, _ = sphere_mixture(rng, a.n, a.dim, a.classes, 1.0)
    else:
        x, _ = clustered_embeddings(rng, a.n, a.dim, 1000)
    arms = {"dmlbench": os.path.join(a.build, "bench", "bench_kmeans")}
    if a.before:
        arms["dmlbench-before"] = a.before
    if a.plain:
        arms["dmlbench-plain"] = arms["dmlbench"]
    if not a.no_faiss:
        arms["faiss"] = None
    runs = {arm: [] for arm in arms}
    faiss_iterations = None
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        path = os.path.join(tmp, "x.npy")
        np.save(path, x)
        del x
        for rep in range(a.reps):
            for arm, exe in arms.items():
                if arm == "faiss":
                    cmd = ["/usr/bin/python3", "-c", FAISS_CODE, path, str(a.k), str(faiss_iterations), str(a.threads)]
                else:
                    cmd = [exe, path, str(a.k), str(a.iterations), str(a.threads)] + (["plain"] if arm == "dmlbench-plain" else [])
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    sys.exit(f"error: the {arm} arm failed:\n{p.stderr[-2000:]}")
                r = json.loads(p.stdout.strip().splitlines()[-1])
                if arm != "faiss":
                    r.setdefault("lloyd_seconds", r["seconds_per_iteration"] * r["iterations"])
                    faiss_iterations = faiss_iterations or r["iterations"]
                runs[arm].append(r)
                print(f"rep {rep} {arm}: {json.dumps({k: v for k, v in r.items() if k != 'blas'})}", flush=True)
    hashes = {r["assignment_hash"] for arm in runs if arm != "faiss" for r in runs[arm] if "assignment_hash" in r}
    iterations = {r["iterations"] for arm in runs if arm != "faiss" for r in runs[arm]}
    if len(hashes) > 1 or len(iterations) > 1:
        sys.exit(f"error: the dmlbench arms clustered otherwise (assignment hashes {hashes}, iterations {iterations})")
    med = statistics.median
    fields = ("seconds", "seeding_seconds", "lloyd_seconds", "seconds_per_iteration")
    median = {arm: {f: med(r[f] for r in rs) for f in fields if f in rs[0]} for arm, rs in runs.items()}
    mine = runs["dmlbench"][0]
    result = {"benchmark": "kmeans", "machine": {"cpu": cpu_model(), "cores": os.cpu_count()}, "blas": blas,
              "openblas_coretype": core.get("OPENBLAS_CORETYPE", ""), "data": a.data, "n": a.n, "dim": a.dim,
              "k": a.k, "classes": a.classes, "threads": a.threads, "reps": a.reps,
              "iterations": mine["iterations"], "seeding": mine["seeding"], "groups": mine.get("groups"),
              "rows_skipped_fraction": mine.get("rows_skipped_fraction"), "rows_replayed": mine.get("rows_replayed"),
              "same_bits": mine.get("same_bits"), "same_clustering": True, "median": median, "runs": runs}
    ratios = {}
    for other in ("dmlbench-before", "dmlbench-plain", "faiss"):
        if other in runs:
            per = [o["seconds"] / m["seconds"] for m, o in zip(runs["dmlbench"], runs[other])]
            ratios[f"{other} / dmlbench seconds"] = {"median": med(per), "min": min(per), "max": max(per)}
    for other in ("dmlbench-before", "dmlbench-plain"):
        if other in runs:
            per = [o["lloyd_seconds"] / m["lloyd_seconds"] for m, o in zip(runs["dmlbench"], runs[other])]
            ratios[f"{other} / dmlbench Lloyd seconds"] = {"median": med(per), "min": min(per), "max": max(per)}
    result["ratios"] = ratios
    print(json.dumps({"median": median, "ratios": ratios}, indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
