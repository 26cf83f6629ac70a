#!/usr/bin/python3
"""Retrieval metrics at scale: `dmlbench eval` (the exact kNN engine, experiments/exact_knn.hpp: Recall@{1,2,4,8},
precision@1, R-precision, MAP@R) side by side with its references, in one script, the same data, the same threads:

  check   exactness on 10,000 points with many exact ties (integer coordinates, every float32 operation exact):
          Recall@K, precision@1, R-precision and MAP@R equal a brute-force numpy ranking by (distance, gallery row)
          bit for bit; pytorch-metric-learning's AccuracyCalculator (--pml-src, ties in faiss's order) on the same
          points and, without ties, on random ones.
  speed   N x d clustered float32 embeddings, 1000 classes, cosine: seconds and peak memory (/usr/bin/time -v) of
          dmlbench eval (K up to 8 plus MAP@R), faiss's exact IndexFlatIP kNN with k = 9 (Recall@8) and with k = the
          largest class (what MAP@R needs; pytorch-metric-learning's way), and a plain PyTorch blocked
          matmul + topk (N <= 100,000); the machine's sgemm GFLOP/s measured in the same run; effective GFLOP/s of
          each arm counting 2 Q N d; with --pml-src, arm `pml`: pytorch-metric-learning's AccuracyCalculator
          (precision@1, R-precision, MAP@R; faiss kNN with k = the largest class). With --queries Q < N every arm searches the first Q rows against all N (the
          cost per query, at full gallery size and full memory; the full time is N / Q times it).

Usage: /usr/bin/python3 bench/retrieval_metrics_bench.py check [--pml-src DIR]
       /usr/bin/python3 bench/retrieval_metrics_bench.py speed --n 60000 [--dim 128] [--queries Q] [--reps 3]
       [--threads 2] [--arms dmlbench,faiss9,faissR,torch] [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from dmlbench_blas_env import coretype_env, sgemm_command  # bench/

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KS = [1, 2, 4, 8]


def run_timed(cmd, env=None):
    """Runs cmd under /usr/bin/time -v: (stdout, stderr, wall seconds, peak RSS in bytes)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:3])} ... failed:\n{p.stderr[-3000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) * 1024
    return p.stdout, p.stderr, wall, rss


# ---------------------------------------------------------------------------------------------------------- check

def brute_force(x, y, cosine, lower_row_first=True):
    """Recall@K, P@1, R-precision, MAP@R over exact distances (x integer-valued), ties by lower row, the query out;
    per-query terms summed in query order with the engine's formula (bit-equal doubles)."""
    xd = x.astype(np.float64)
    n = len(y)
    counts = np.bincount(y)
    hits_k = [0] * len(KS)
    p1 = rp = mapr = 0.0
    with_positive = 0
    sq = (xd * xd).sum(1)
    for s in range(0, n, 500):
        dot = xd[s:s + 500] @ xd.T
        d = -dot if cosine else sq[s:s + 500, None] + sq[None, :] - 2 * dot
        for r in range(d.shape[0]):
            q = s + r
            row = d[r].copy()
            row[q] = np.inf  # excluded; sorted last, and cut below
            rows = np.arange(n) if lower_row_first else -np.arange(n)
            order = np.lexsort((rows, row))[: n - 1]  # by distance, then row
            rel = y[order] == y[q]
            first = np.argmax(rel) + 1 if rel.any() else 0
            for i, k in enumerate(KS):
                hits_k[i] += 1 <= first <= k
            R = counts[y[q]] - 1
            if R <= 0:
                continue
            with_positive += 1
            p1 += first == 1
            h = 0
            ap = 0.0
            hits_in_r = 0
            for i in range(R):
                if rel[i]:
                    h += 1
                    hits_in_r = h
                    ap += h / (i + 1)
            rp += hits_in_r / R
            mapr += ap / R
    return {"recall": [h / n for h in hits_k], "precision_at_1": p1 / with_positive,
            "r_precision": rp / with_positive, "map_at_r": mapr / with_positive}


def dmlbench_eval(emb_path, lab_path, metric, threads, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [os.path.join(ARGS.build, "apps", "dmlbench"), "eval", "--embeddings", emb_path, "--labels", lab_path,
               "--no-nmi", "--metric", metric, "--threads", str(threads), "--out", out] + list(extra)
        _, err, wall, rss = run_timed(cmd)
        with open(out) as f:
            return json.load(f), wall, rss


def level_of(report):
    lv = next(iter(report["result"]["levels"].values()))
    return {"recall": [lv["recall_at_k"][str(k)] for k in KS], "precision_at_1": lv["precision_at_1"],
            "r_precision": lv["r_precision"], "map_at_r": lv["map_at_r"]}


def pml_metrics(x, y, pml_src, cosine):
    code = f"""
import sys, json, numpy as np, torch
sys.path.insert(0, {pml_src!r})
from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
x = torch.from_numpy(np.load(sys.argv[1])); y = torch.from_numpy(np.load(sys.argv[2]))
if {cosine}: x = torch.nn.functional.normalize(x, dim=1)
ac = AccuracyCalculator(include=("precision_at_1", "r_precision", "mean_average_precision_at_r"), k="max_bin_count",
                        device=torch.device("cpu"))
r = ac.get_accuracy(x, y)
print(json.dumps({{k: float(v) for k, v in r.items()}}))
"""
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        np.save(os.path.join(tmp, "y.npy"), y.astype(np.int64))
        p = subprocess.run(["/usr/bin/python3", "-c", code, os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"pytorch-metric-learning failed:\n{p.stderr[-2000:]}")
            return None
        return json.loads(p.stdout.strip().splitlines()[-1])


def check():
    rng = np.random.default_rng(0)
    n = 10000
    results = {"n": n}
    ok = True
    xi = rng.integers(-2, 3, (n, 6))
    # labels that follow the position (the first two coordinates) for 70% of the points, random for the rest
    yi = np.where(rng.random(n) < 0.7, (xi[:, 0] + 2) * 5 + (xi[:, 1] + 2), rng.integers(0, 25, n))
    with tempfile.TemporaryDirectory() as tmp:
        for name, x, y in [
            ("integer points in {-2..2}^6, 25 classes (exact ties)", xi.astype(np.float32), yi),
            ("random normal points in R^16, 100 classes (no ties)",
             rng.normal(size=(n, 16)).astype(np.float32), rng.integers(0, 100, n))]:
            integer = "integer" in name  # (cosine: zero rows have no direction, and normalised rows are not exact)
            ep, lp = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
            np.save(ep, x)
            np.save(lp, y.astype(np.int64))
            for metric in (["euclidean"] if integer else ["euclidean", "cosine"]):
                rep, _, _ = dmlbench_eval(ep, lp, metric, ARGS.threads)
                got = level_of(rep)
                ties = rep["result"]["recall_ties_at_k"]
                row = {"data": name, "metric": metric, "dmlbench": got, "recall_ties_at_k": ties}
                if integer:
                    ref = brute_force(x, y, cosine=False)
                    row["brute_force"] = ref
                    row["exact_agreement"] = ref == got
                    ok &= row["exact_agreement"]
                    # negative control: the opposite tie rule gives other numbers on these points (ties matter)
                    row["opposite_tie_rule_differs"] = brute_force(x, y, False, lower_row_first=False) != ref
                    ok &= row["opposite_tie_rule_differs"]
                if ARGS.pml_src:
                    # PML ranks by L2 (faiss IndexFlatL2); for cosine it is given the normalised rows
                    pm = pml_metrics(x, y, ARGS.pml_src, metric == "cosine")
                    if pm:
                        row["pytorch_metric_learning"] = pm
                        row["pml_max_abs_difference"] = max(
                            abs(pm["precision_at_1"] - got["precision_at_1"]),
                            abs(pm["r_precision"] - got["r_precision"]),
                            abs(pm["mean_average_precision_at_r"] - got["map_at_r"]))
                print(json.dumps(row), flush=True)
                results.setdefault("rows", []).append(row)
    results["all_exact"] = ok
    return results, ok


# ---------------------------------------------------------------------------------------------------------- speed

def clustered_embeddings(rng, n, d, classes):
    """n x d float32 rows around `classes` standard-normal centres (noise 1.5), and their int labels."""
    y = rng.integers(0, classes, n)
    centres = rng.normal(size=(classes, d)).astype(np.float32)
    x = centres[y] + 1.5 * rng.normal(size=(n, d)).astype(np.float32)
    return x.astype(np.float32), y


FAISS_CODE = """
import sys, time, json, numpy as np, faiss
faiss.omp_set_num_threads(int(sys.argv[3]))
x = np.load(sys.argv[1]); q = int(sys.argv[4]); k = int(sys.argv[5])
t0 = time.perf_counter()
faiss.normalize_L2(x)  # in place (dmlbench's time includes its normalisation too)
index = faiss.IndexFlatIP(x.shape[1]); index.add(x)
D, I = index.search(x[:q], k)
t = time.perf_counter() - t0
y = np.load(sys.argv[2])
hit = (y[I[:, 1:]] == y[:q, None]).cumsum(1) > 0  # the query itself first (no exact duplicates here)
print(json.dumps({"seconds": t, "recall": [float(hit[:, kk - 1].mean()) for kk in (1, 2, 4, 8) if kk < k]}))
"""

TORCH_CODE = """
import sys, time, json, numpy as np, torch
torch.set_num_threads(int(sys.argv[3]))
x = torch.from_numpy(np.load(sys.argv[1])); y = torch.from_numpy(np.load(sys.argv[2])); q = int(sys.argv[4])
t0 = time.perf_counter()
x = torch.nn.functional.normalize(x, dim=1)
hits = torch.zeros(4, dtype=torch.float64)
for s in range(0, q, 256):
    e = min(q, s + 256)
    sim = x[s:e] @ x.T
    sim[torch.arange(e - s), torch.arange(s, e)] = -float("inf")
    top = sim.topk(8, dim=1).indices
    first = (y[top] == y[s:e, None]).int().cumsum(1) > 0
    for i, k in enumerate((1, 2, 4, 8)):
        hits[i] += first[:, k - 1].sum()
t = time.perf_counter() - t0
print(json.dumps({"seconds": t, "recall": (hits / q).tolist()}))
"""

PML_CODE = """
import sys, time, json, numpy as np, torch
torch.set_num_threads(int(sys.argv[3]))
import faiss
faiss.omp_set_num_threads(int(sys.argv[3]))
sys.path.insert(0, sys.argv[6])
from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
x = torch.from_numpy(np.load(sys.argv[1])); y = torch.from_numpy(np.load(sys.argv[2])); q = int(sys.argv[4])
t0 = time.perf_counter()
x = torch.nn.functional.normalize(x, dim=1)
ac = AccuracyCalculator(include=("precision_at_1", "r_precision", "mean_average_precision_at_r"), k="max_bin_count",
                        device=torch.device("cpu"))
r = ac.get_accuracy(x[:q], y[:q], x, y, ref_includes_query=(q == len(y)))
t = time.perf_counter() - t0
print(json.dumps({"seconds": t, "recall": {k: float(v) for k, v in r.items()}}))
"""

def speed():
    a = ARGS
    rng = np.random.default_rng(0)
    n, d, q = a.n, a.dim, a.queries or a.n
    x, y = clustered_embeddings(rng, n, d, a.classes)
    max_r = int(np.bincount(y).max())
    arms = a.arms.split(",")
    if n > 100000 and "torch" in arms:
        arms.remove("torch")
    core, _ = coretype_env(os.path.join(a.build, "apps", "dmlbench"))  # the Python arms on dmlbench's kernels
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads), **core)
    times = {arm: [] for arm in arms}
    rss = {arm: [] for arm in arms}
    recall = {}
    sgemm = []
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        ep, lp = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
        np.save(ep, x)
        np.save(lp, y.astype(np.int64))
        extra = []
        if q < n:  # the first q rows as queries against all n (no exclusion: every query finds itself first)
            qp, qlp = os.path.join(tmp, "q.npy"), os.path.join(tmp, "ql.npy")
            np.save(qp, x[:q])
            np.save(qlp, y[:q].astype(np.int64))
            extra = ["--query-embeddings", qp, "--query-labels", qlp]
        del x
        for rep in range(a.reps):
            out, _, _, _ = run_timed(sgemm_command(a.threads), env)
            sgemm.append(json.loads(out)["gflops"])
            for arm in arms:
                if arm == "dmlbench":
                    r, wall, m = dmlbench_eval(ep, lp, "cosine", a.threads, extra)
                    times[arm].append(r["cost"]["search_seconds"])
                    recall[arm] = level_of(r)
                    blas, scan = r["cost"]["blas"], r["cost"].get("scan", "")
                else:
                    code, k = {"faiss9": (FAISS_CODE, 9), "faissR": (FAISS_CODE, max_r + 1),
                               "torch": (TORCH_CODE, 0), "pml": (PML_CODE, 0)}[arm]
                    if arm == "pml" and not a.pml_src:
                        sys.exit("error: the pml arm needs --pml-src")
                    out, _, wall, m = run_timed(["/usr/bin/python3", "-c", code, ep, lp, str(a.threads), str(q),
                                                 str(k), a.pml_src or ""], env)
                    res = json.loads(out.strip().splitlines()[-1])
                    times[arm].append(res["seconds"])
                    recall[arm] = res["recall"]
                rss[arm].append(m)
                print(f"rep {rep} {arm}: {times[arm][-1]:.2f} s, peak RSS {m / 2**20:.0f} MiB", flush=True)
    med = statistics.median
    flops = 2.0 * q * n * d
    emb_bytes = n * d * 4
    result = {"benchmark": "retrieval_metrics", "n": n, "dim": d, "queries": q, "classes": a.classes,
              "largest_class": max_r, "threads": a.threads, "reps": a.reps, "blas": blas if "dmlbench" in arms else "",
              "scan": scan if "dmlbench" in arms else "", "openblas_coretype": core.get("OPENBLAS_CORETYPE", ""),
              "sgemm_gflops_median": med(sgemm), "embeddings_bytes": emb_bytes, "arms": {}}
    for arm in arms:
        t = med(times[arm])
        result["arms"][arm] = {"seconds_median": t, "seconds": times[arm], "full_n_seconds_estimate": t * n / q,
                               "gflops": flops / t / 1e9, "share_of_sgemm_peak": flops / t / 1e9 / med(sgemm),
                               "peak_rss_bytes_median": med(rss[arm]),
                               "peak_rss_over_embeddings_bytes": med(rss[arm]) - emb_bytes, "recall": recall[arm]}
    if "dmlbench" in arms:
        for arm in arms:
            if arm != "dmlbench":
                result["arms"][arm]["time_over_dmlbench"] = med(times[arm]) / med(times["dmlbench"])
    return result


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["check", "speed"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--n", type=int, default=60000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--queries", type=int, default=0, help="search the first Q rows only (0: all)")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--arms", default="dmlbench,faiss9,faissR,torch")
    ap.add_argument("--pml-src", help="pytorch-metric-learning's src/ folder (a checkout); the check compares with it")
    ap.add_argument("--tmp", default=None, help="folder for the embedding files (default: the system's)")
    ap.add_argument("--json")
    ARGS = ap.parse_args()
    if not os.path.exists(os.path.join(ARGS.build, "apps", "dmlbench")):
        sys.exit(f"error: {ARGS.build}/apps/dmlbench not found; build first")
    if ARGS.mode == "check":
        result, ok = check()
    else:
        result, ok = speed(), True
    print(json.dumps(result, indent=2))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(result, f, indent=2)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
