#!/usr/bin/python3
"""`dmlbench eval` at its default scale: N x d embeddings of a Gaussian mixture on the unit sphere (default 100,000 x
128, 1,000 classes of 100 rows), NMI (k-means with k = classes) and NMI+ (k = 10 x classes, the default factor up to
100,000 rows) on, cosine, 2 threads; this build against an earlier one (`--before`, e.g. the build of the commit
before the k-means bounds), each run its own process, repetitions interleaved. Both arms' reports (less `cost` and
`git_revision`) must be identical, else exit 1: the clusterings, and so NMI and NMI+, the same bits. An arm of this
build on other OpenBLAS kernels (--coretype) must repeat its own first report; whether it equals the first arm's, and
how far its NMIs lie from them, is recorded ("kernel_arms").

The rows: class centres uniform on the sphere, each row its centre plus isotropic Gaussian noise of norm about
--noise (default 1.0, so rows of a class have cosine about 0.5 to each other), normalised; labels its class.

Usage: /usr/bin/python3 bench/eval_scale_bench.py [--before EXE] [--coretype NAME ...] [--build build] [--n 100000]
       [--dim 128] [--classes 1000] [--noise 1.0] [--threads 2] [--reps 3] [--tmp DIR] [--json out.json]
  --coretype  an arm of this build under OPENBLAS_CORETYPE=NAME; "own": without the variable, on the kernels
              OpenBLAS (or dmlbench's restart, apps/blas_kernel_choice.cpp) picks for this CPU
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from dmlbench_blas_env import coretype_env, kernel_arm, kernel_arm_record, spread  # bench/

ROOT = Path(__file__).resolve().parent.parent


def sphere_mixture(rng, n, d, classes, noise):
    """n x d float32 unit rows around `classes` centres uniform on the sphere, and their int64 labels."""
    centres = rng.normal(size=(classes, d))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    y = rng.integers(0, classes, n)
    x = centres[y] + noise / np.sqrt(d) * rng.normal(size=(n, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32), y.astype(np.int64)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def run_eval(exe, env, emb, labels, threads, out):
    """One `eval`: wall seconds, CPU seconds (user + system) of the process, and its report."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([exe, "eval", "--embeddings", str(emb), "--labels", str(labels), "--threads", str(threads),
                        "--out", str(out)], capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"error: {exe} eval failed (exit status {p.returncode}):\n{p.stderr.strip()[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(Path(out).read_text())


def phases(wall, cpu, report):
    cost = report["cost"]
    out = {"wall": wall, "cpu": cpu, "search": cost["search_seconds"]}
    for c in cost["kmeans"]:
        out[f"kmeans_{c['k']}"] = c["seeding_seconds"] + c["iterations"] * c["seconds_per_iteration"]
        out[f"kmeans_{c['k']}_seeding"] = c["seeding_seconds"]
        out[f"kmeans_{c['k']}_iterations"] = c["iterations"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--before")
    ap.add_argument("--coretype", action="append", default=[])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--noise", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp")
    ap.add_argument("--json")
    a = ap.parse_args()
    exe = str(Path(a.build) / "apps" / "dmlbench")
    core, blas = coretype_env(exe)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    arms = {"dmlbench": (exe, env)}
    if a.before:
        plugin = Path(a.before).parent / "libdmlbench_torch_commands.so"
        arms["dmlbench-before"] = (a.before, dict(env, DMLBENCH_TORCH_PLUGIN=str(plugin)) if plugin.exists() else env)
    kernel_arms = dict(kernel_arm(c, env) for c in a.coretype)
    arms.update((name, (exe, e)) for name, e in kernel_arms.items())
    x, y = sphere_mixture(np.random.default_rng(0), a.n, a.dim, a.classes, a.noise)
    runs = {name: [] for name in arms}
    reference, own_reference = None, {}
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        tmp = Path(tmp)
        emb, labels = tmp / "x.npy", tmp / "y.npy"
        np.save(emb, x)
        np.save(labels, y)
        del x, y
        for rep in range(a.reps):
            for name, (e, env_) in arms.items():
                wall, cpu, report = run_eval(e, env_, emb, labels, a.threads, tmp / f"{name}-{rep}.json")
                kept = {k: v for k, v in report.items() if k not in ("cost", "git_revision")}
                reference = reference or kept
                own_reference.setdefault(name, kept)
                if kept != (own_reference[name] if name in kernel_arms else reference):
                    sys.exit(f"error: {name}'s report differs from " +
                             ("its own first repetition's" if name in kernel_arms else "the first arm's") +
                             f" (repetition {rep})")
                runs[name].append(phases(wall, cpu, report))
                print(f"rep {rep} {name}: {json.dumps(runs[name][-1])}", flush=True)
    levels = reference["result"]["levels"]
    median = {name: {p: statistics.median(r[p] for r in rs) for p in rs[0]} for name, rs in runs.items()}
    result = {"benchmark": "eval_scale", "machine": {"cpu": cpu_model(), "cores": os.cpu_count()}, "blas": blas,
              "openblas_coretype": core.get("OPENBLAS_CORETYPE", ""), "n": a.n, "dim": a.dim, "classes": a.classes,
              "noise": a.noise, "threads": a.threads, "reps": a.reps, "reports_identical": True,
              "nmi": [{"level": name, "nmi": l.get("nmi"), "nmi_k": l.get("nmi_k"), "nmi_plus": l.get("nmi_plus"),
                       "nmi_plus_k": l.get("nmi_plus_k")} for name, l in levels.items()],
              "median_seconds": median, "runs": runs, "target": "eval wall <= 90 s on 2 threads"}
    if a.before:
        ratios = [b["wall"] / n["wall"] for n, b in zip(runs["dmlbench"], runs["dmlbench-before"])]
        result["speedup_wall"] = spread(ratios)
    for name, e in kernel_arms.items():
        ratios = [n["wall"] / k["wall"] for n, k in zip(runs["dmlbench"], runs[name])]
        result.setdefault("kernel_arms", {})[name] = kernel_arm_record(
            exe, e, own_reference[name]["result"]["levels"], levels, own_reference[name] == reference, ratios,
            "speedup_wall")
    print(json.dumps({k: result[k] for k in ("median_seconds", "nmi", "speedup_wall", "kernel_arms") if k in result},
                     indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
