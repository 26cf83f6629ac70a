#!/usr/bin/python3
"""The evaluation of a glyph-proxy run: the 11,680 test glyphs of `lcc-omniglot-proxy`, both levels,
Recall@{1,2,4,8}, precision@1, R-precision, MAP@R, NMI (k = classes) and NMI+ as the run computes it (k = 30 x
classes where that is at most the rows: the 20 alphabets' k = 600; the 584 characters' 17,520 is over 11,680, null).

Each repetition runs, per arm, `dmlbench eval` on the run's `embeddings/test.npy`:
  0. both levels with `eval`'s defaults, NMI and NMI+ (k = 10 x classes: k-means of k = 20, 200, 584 and 5,840): its
     wall seconds ("eval_wall", the target: at most 2 s on 2 threads) and CPU seconds ("eval_cpu");
  1. both levels, `--nmi-plus-factor 0`: the search and the k-means of k = 20 and k = 584;
  2. `--level alphabet --nmi-plus-factor 30`: its k-means of k = 600 (NMI+) is counted.
"in process" adds the search and the three k-means of 1 and 2 as `cost` reports them (what a training run's final
evaluation spends on one thread; at two threads the clusterings run side by side and their seconds overlap, so the
sum exceeds the time they took: "eval_wall" is the measure there); "wall" is process 1 with its start (LibTorch's
loading). Arms alternate within a repetition;
every arm's reports (less `cost` and `git_revision`) must be identical to the first arm's, else exit 1; an arm on
other BLAS kernels (--coretype) must repeat its own first reports, and how far its NMIs lie from the first arm's is
recorded ("kernel_arms").

Usage: /usr/bin/python3 bench/glyph_eval_bench.py [--run DIR] [--build build] [--before EXE] [--coretype NAME ...]
       [--threads 2] [--reps 5] [--json out.json]
  --run       a glyph-proxy run folder (default: one is trained with the config's defaults into a temporary folder)
  --before    another dmlbench executable (an earlier build; its torch plugin where it lies beside it)
  --coretype  an arm of this build under OPENBLAS_CORETYPE=NAME; "own": without the variable, on the kernels
              OpenBLAS (or dmlbench's restart, apps/blas_kernel_choice.cpp) picks for this CPU
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dmlbench_blas_env import coretype_env, kernel_arm, kernel_arm_record, spread  # bench/

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "experiments/configs/lcc-omniglot-proxy.json"


def run(args, env, cpu=False):
    """Wall seconds of the command (and its CPU seconds, user + system, with cpu=True)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed (exit status {p.returncode}):\n{p.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) if cpu else wall


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), "")
    return {"cpu": cpu, "cores": os.cpu_count()}


def kmeans_seconds(cost, ks):
    return sum(c["seeding_seconds"] + c["iterations"] * c["seconds_per_iteration"] for c in cost["kmeans"] if c["k"] in ks)


def one_arm(exe, env, emb, threads, out):
    base = [exe, "eval", "--embeddings", str(emb / "test.npy"), "--labels", str(emb / "test_labels.csv"),
            "--threads", str(threads)]
    eval_wall, eval_cpu = run(base + ["--out", str(out / "default.json")], env, cpu=True)
    default = json.loads((out / "default.json").read_text())
    dcost = default.pop("cost")
    wall = run(base + ["--nmi-plus-factor", "0", "--out", str(out / "both.json")], env)
    run(base + ["--level", "alphabet", "--nmi-plus-factor", "30", "--out", str(out / "alphabet.json")], env)
    both = json.loads((out / "both.json").read_text())
    alpha = json.loads((out / "alphabet.json").read_text())
    cost = both.pop("cost")
    acost = alpha.pop("cost")
    for r in (default, both, alpha):  # the build, not the result
        r.pop("git_revision", None)
    phases = {"search": cost["search_seconds"], "selection": cost["select_seconds"], "gemm": cost["gemm_seconds"],
              "nmi": kmeans_seconds(cost, {20, 584}), "nmi_plus": kmeans_seconds(acost, {600})}
    phases["in_process"] = phases["search"] + phases["nmi"] + phases["nmi_plus"]
    phases["wall"] = wall
    phases["eval_wall"], phases["eval_cpu"] = eval_wall, eval_cpu
    phases["eval_search"] = dcost["search_seconds"]
    phases["eval_kmeans"] = kmeans_seconds(dcost, {c["k"] for c in dcost["kmeans"]})
    for c in dcost["kmeans"]:
        phases[f"eval_kmeans_{c['k']}"] = kmeans_seconds(dcost, {c["k"]})
        phases[f"eval_kmeans_{c['k']}_iterations"] = c["iterations"]
    return phases, [default, both, alpha]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--before")
    ap.add_argument("--coretype", action="append", default=[])
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
    kernel_arms = {}
    for core in a.coretype:
        name, e = kernel_arm(core, env)
        arms[name] = kernel_arms[name] = (exe, e)
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
        reference, own_reference = None, {}
        for r in range(a.reps):
            for i, (name, (x, e)) in enumerate(arms.items()):
                out = tmp / f"arm{i}-{r}"
                out.mkdir()
                phases, reports = one_arm(x, e, emb, a.threads, out)
                reference = reference or reports
                own_reference.setdefault(name, reports)
                if reports != (own_reference[name] if name in kernel_arms else reference):
                    sys.exit(f"error: {name}'s reports differ from " +
                             ("its own first repetition's" if name in kernel_arms else "the first arm's") +
                             f" (repetition {r})")
                times[name].append(phases)
            print(f"rep {r}: " + ", ".join(f"{k} eval {v[-1]['eval_wall']:.2f} s wall ({v[-1]['eval_cpu']:.2f} s CPU), "
                                         f"{v[-1]['in_process']:.2f} s in process, {v[-1]['wall']:.2f} s wall"
                                         for k, v in times.items()), flush=True)
    median = {k: {p: statistics.median(t[p] for t in v) for p in v[0]} for k, v in times.items()}
    levels = reference[0]["result"]["levels"]
    _, blas = coretype_env(exe)
    result = {"benchmark": "glyph_eval", "config": str(CONFIG.relative_to(ROOT)), "machine": machine(), "blas": blas,
              "threads": a.threads, "reps": a.reps, "reports_identical": True,
              "nmi": [{"level": name, "nmi": l.get("nmi"), "nmi_k": l.get("nmi_k"), "nmi_plus": l.get("nmi_plus"),
                       "nmi_plus_k": l.get("nmi_plus_k")} for name, l in levels.items()],
              "median_seconds": median, "seconds": times,
              "target": "eval (both levels, NMI and NMI+ at the default factor) <= 2 s wall on 2 threads"}
    if a.before:
        for phase in ("in_process", "eval_wall"):
            ratios = [b[phase] / n[phase] for n, b in zip(times["dmlbench"], times["dmlbench-before"])]
            result[f"speedup_{phase}"] = spread(ratios)
    for name, (x, e) in kernel_arms.items():
        ratios = [n["eval_wall"] / k["eval_wall"] for n, k in zip(times["dmlbench"], times[name])]
        result.setdefault("kernel_arms", {})[name] = kernel_arm_record(
            x, e, own_reference[name][0]["result"]["levels"], levels, own_reference[name] == reference, ratios,
            "speedup_eval_wall")
    print(json.dumps(result, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
