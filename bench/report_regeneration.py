#!/usr/bin/python3
"""What a change costs the default report: the wall seconds of `dmlbench report` (default profile) on a fresh work
folder and a copy of the committed report (its stage store holds every run), after each of these one-line changes to
a copy of the repository (DMLBENCH_SOURCE_DIR points the binary at it):

  unchanged  nothing changed: every stored stage restored
  verdict    a line added to the verdict code (experiments/src/verdicts/anytime_t_test.cpp): every training stage
             runs again and reads its runs back by key
  spending   a line added to the seed-spending rule (experiments/src/report/report_seed_spending.cpp)
  header     a new header under theory/include/ that nothing includes: no stage runs
and, for the training loop (experiments/src/engine/training_step.cpp), `report --explain` only: which stages would run
(every training stage, every run under a new key; not timed: that is the full training).

For each case: the wall seconds (medians over the repetitions, the cases interleaved), the stages that ran, were
unchanged or restored, and the runs read back and trained, from the log. Writes bench/results/report_regeneration.json
with the machine and the BLAS. The report's own target is at most 10 minutes for `verdict` and `spending` on 2 cores.

Usage: /usr/bin/python3 bench/report_regeneration.py [--build build] [--reps 2] [--cases verdict,spending] [--out FILE]
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dmlbench_blas_env import coretype_env  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EDITS = {
    "unchanged": None,
    "verdict": ("experiments/src/verdicts/anytime_t_test.cpp", "\n// a one-line change\n"),
    "spending": ("experiments/src/report/report_seed_spending.cpp", "\n// a one-line change\n"),
    "header": ("theory/include/dmlbench/theory/new_concept.hpp", "#pragma once\n// a new concept\n"),
}


def checkout(dest):
    """The committed tree (git archive HEAD) with the bundled data linked in."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "data").symlink_to(REPO / "data")


def counts(log):
    ran = len(re.findall(r"^\[report\]   runs because:", log, re.M))
    unchanged = len(re.findall(r": unchanged \(config hash", log))
    restored = len(re.findall(r": restored from ", log))
    read = sum(int(m) for m in re.findall(r"^\[reproduce\] (\d+) of \d+ runs finished before", log, re.M))
    planned = sum(int(m) for m in re.findall(r"^\[reproduce\] \d+ of (\d+) runs finished before", log, re.M))
    trained = len(re.findall(r"^\[reproduce\] .* run \d+/\d+ started", log, re.M)) + \
        len(re.findall(r"^\[reproduce\] \S+ run \d+/\d+: ", log, re.M))
    return {"stages_ran": ran, "stages_unchanged": unchanged, "stages_restored": restored,
            "runs_read_back": read, "runs_planned_at_looks": planned, "runs_trained": trained}


def one(exe, base, case, env, rep):
    """A fresh copy of the code with the case's edit, a copy of the committed report, a fresh work folder."""
    root = base / f"{case}-{rep}"
    repo = root / "repo"
    checkout(repo)
    if EDITS[case]:
        path, text = EDITS[case]
        with open(repo / path, "a") as f:
            f.write(text)
    out, work = root / "reports", root / "work"
    shutil.copytree(REPO / "reports", out)
    t0 = time.perf_counter()
    p = subprocess.run([exe, "report", "--out", str(out), "--work", str(work), "--allow-dirty"],
                       env=dict(env, DMLBENCH_SOURCE_DIR=str(repo)), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    log = p.stdout + p.stderr
    (base / f"{case}-{rep}.log").write_text(log)
    if p.returncode != 0:
        sys.exit(f"{case}: dmlbench report failed ({p.returncode}); its log: {base}/{case}-{rep}.log")
    shutil.rmtree(root)
    return wall, counts(log)


def explain_loop(exe, base, env):
    repo = base / "loop"
    checkout(repo)
    with open(repo / "experiments/src/engine/training_step.cpp", "a") as f:
        f.write("\n// a one-line change\n")
    p = subprocess.run([exe, "report", "--out", str(REPO / "reports"), "--work", str(base / "loop-work"), "--explain"],
                       env=dict(env, DMLBENCH_SOURCE_DIR=str(repo)), capture_output=True, text=True, check=True)
    lines = p.stdout.splitlines()
    runs = [l.split(":")[0] for l in lines if ": runs (config hash" in l]
    loop = [l.split(":")[0] for l in lines if "experiments/src/engine/training_step.cpp (changed)" in l]
    shutil.rmtree(repo)
    return {"stages_that_would_run": runs, "naming_the_training_loop": loop}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(REPO / "build"))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--cases", default=",".join(EDITS), help="the cases to time, comma-separated (default: all)")
    ap.add_argument("--out", default=str(REPO / "bench/results/report_regeneration.json"))
    a = ap.parse_args()
    exe = str(Path(a.build) / "apps/dmlbench")
    core, blas = coretype_env(exe)
    env = dict(os.environ, **core)
    base = Path(tempfile.mkdtemp(prefix="dmlbench-regeneration-"))
    cases = [c for c in a.cases.split(",") if c]
    unknown = [c for c in cases if c not in EDITS]
    if unknown:
        sys.exit(f"error: no case {unknown[0]} (cases: {', '.join(EDITS)})")
    seconds = {c: [] for c in cases}
    found = {}
    for rep in range(a.reps):  # the cases interleaved, so that the machine's drift falls on all of them
        for case in cases:
            wall, c = one(exe, base, case, env, rep)
            seconds[case].append(wall)
            found[case] = c
            print(f"{case} rep {rep + 1}: {wall:.0f} s {c}", flush=True)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    result = {"benchmark": "report_regeneration", "machine": model or platform.machine(),
              "cores": os.cpu_count(), "blas": blas, "reps": a.reps,
              "median_seconds": {c: statistics.median(v) for c, v in seconds.items()}, "seconds": seconds,
              "counts": found, "training_loop_explain": explain_loop(exe, base, env),
              "target_seconds": {c: 600 for c in ("verdict", "spending") if c in cases}}
    shutil.rmtree(base, ignore_errors=True)
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["median_seconds"], indent=2))


if __name__ == "__main__":
    main()
