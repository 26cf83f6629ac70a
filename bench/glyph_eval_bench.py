#!/usr/bin/python3
"""The evaluation of a glyph-proxy run (issue 30 item 3): the 11,680 test glyphs of `lcc-omniglot-proxy`, both levels,
Recall@{1,2,4,8}, precision@1, R-precision, MAP@R, NMI (k = classes) and NMI+ as the run computes it (k = 30 x
classes where that is at most the rows: the 20 alphabets' k = 600; the 584 characters' 17,520 is over 11,680, null).

Each repetition runs, per arm, `dmlbench eval` on the run's `embeddings/test.npy`:
  1. both levels, `--nmi-plus-factor 0`: the search and the k-means of k = 20 and k = 584;
  2. `--level alphabet --nmi-plus-factor 30`: its k-means of k = 600 (NMI+) is counted.
"in process" adds the search and the three k-means as `cost` reports them (what a training run's final evaluation
spends); "wall" is process 1 with its start (LibTorch's loading). Arms alternate within a repetition; every arm's
reports (less `cost` and `git_revision`) must be identical to the first arm's, else exit 1.

Usage: /usr/bin/python3 bench/glyph_eval_bench.py [--run DIR] [--build build] [--before EXE] [--threads 2]
       [--reps 5] [--json out.json]
  --run     a glyph-proxy run folder (default: one is trained with the config's defaults into a temporary folder)
  --before  another dmlbench executable (an earlier build; its torch plugin where it lies beside it)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "experiments/configs/lcc-omniglot-proxy.json"


def run(args, env):
    t0 = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed (exit status {p.returncode}):\n{p.stderr.strip()}")
    return time.perf_counter() - t0


def kmeans_seconds(cost, ks):
    return sum(c["seeding_seconds"] + c["iterations"] * c["seconds_per_iteration"] for c in cost["kmeans"] if c["k"] in ks)


def one_arm(exe, env, emb, threads, out):
    base = [exe, "eval", "--embeddings", str(emb / "test.npy"), "--labels", str(emb / "test_labels.csv"),
            "--threads", str(threads)]
    wall = run(base + ["--nmi-plus-factor", "0", "--out", str(out / "both.json")], env)
    run(base + ["--level", "alphabet", "--nmi-plus-factor", "30", "--out", str(out / "alphabet.json")], env)
    both = json.loads((out / "both.json").read_text())
    alpha = json.loads((out / "alphabet.json").read_text())
    cost = both.pop("cost")
    acost = alpha.pop("cost")
    for r in (both, alpha):  # the build, not the result
        r.pop("git_revision", None)
    phases = {"search": cost["search_seconds"], "selection": cost["select_seconds"], "gemm": cost["gemm_seconds"],
              "nmi": kmeans_seconds(cost, {20, 584}), "nmi_plus": kmeans_seconds(acost, {600})}
    phases["in_process"] = phases["search"] + phases["nmi"] + phases["nmi_plus"]
    phases["wall"] = wall
    return phases, [both, alpha]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--before")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    exe = str(Path(a.build) / "apps" / "dmlbench")
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    arms = {"dmlbench": (exe, env)}
    if a.before:
        plugin = Path(a.before).parent / "libdmlbench_torch_commands.so"
        arms["dmlbench-before"] = (a.before, dict(env, DMLBENCH_TORCH_PLUGIN=str(plugin)) if plugin.exists() else env)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rundir = Path(a.run) if a.run else tmp / "run"
        if not a.run:
            print("training a glyph-proxy run for its embeddings ...", file=sys.stderr, flush=True)
            run([exe, "train", "--config", str(CONFIG), "--out", str(rundir), "--device", "cpu"], env)
        emb = rundir / "embeddings"
        if not (emb / "test.npy").exists():
            sys.exit(f"error: {emb / 'test.npy'} not found (--run takes a glyph-proxy run folder)")
        times = {name: [] for name in arms}
        reference = None
        for r in range(a.reps):
            for name, (x, e) in arms.items():
                out = tmp / f"{name}-{r}"
                out.mkdir()
                phases, reports = one_arm(x, e, emb, a.threads, out)
                reference = reference or reports
                if reports != reference:
                    sys.exit(f"error: {name}'s reports differ from the first arm's (repetition {r})")
                times[name].append(phases)
            print(f"rep {r}: " + ", ".join(f"{k} {v[-1]['in_process']:.2f} s in process, {v[-1]['wall']:.2f} s wall"
                                         for k, v in times.items()), flush=True)
    median = {k: {p: statistics.median(t[p] for t in v) for p in v[0]} for k, v in times.items()}
    result = {"benchmark": "glyph_eval", "config": str(CONFIG.relative_to(ROOT)), "threads": a.threads,
              "reps": a.reps, "reports_identical": True, "median_seconds": median, "seconds": times,
              "target": "in process <= 2 s on 2 threads"}
    if a.before:
        ratios = [b["in_process"] / n["in_process"] for n, b in zip(times["dmlbench"], times["dmlbench-before"])]
        result["speedup_in_process"] = {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}
    print(json.dumps(result, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
