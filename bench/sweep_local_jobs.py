#!/usr/bin/python3
"""Wall time of `dmlbench sweep --local` against the same points run one by one, in one script:

  one-by-one   each point's own command (`dmlbench train --config <point>/run_config.json --out ...` or
               `dmlbench sim collapse ... --out ...`, as `sweep --list` prints it), one after the other from a shell
               loop: what a user without the sweep command would do
  jobs1        dmlbench sweep --grid G --local --jobs 1 (a `sweep run-point` process per point, one at a time)
  jobsN        dmlbench sweep --grid G --local --jobs N for each N of --jobs

Each repetition runs every arm into a fresh folder, the arms' order rotating from one repetition to the next; the
report gives the median wall time per arm and per-repetition ratios to one-by-one. Every arm must finish every point,
and the sweep arms' results must equal the one-by-one results (train: the evaluation in metrics.json; sim: the
minimizers), so the arms did the same work. The machine, its cores and the BLAS `dmlbench info` reports are recorded.

Usage: /usr/bin/python3 bench/sweep_local_jobs.py --grid experiments/sweeps/lcc_table1.json [--build build]
           [--reps 3] [--jobs 2] [--work /tmp/sweep-bench] [--json out.json]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--grid", required=True)
ap.add_argument("--build", default=str(root / "build"))
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--jobs", type=int, nargs="+", default=[2])
ap.add_argument("--work", default="/tmp/dmlbench-sweep-bench")
ap.add_argument("--json")
a = ap.parse_args()
exe = str(Path(a.build) / "apps/dmlbench")
work = Path(a.work)


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout


def results(folder, plan):
    out = {}
    for p in plan["points"]:
        f = folder / p["name"] / p["result"]
        j = json.loads(f.read_text())
        out[p["name"]] = j["eval"] if "eval" in j else j["runs"]
    return out


def one_by_one(folder):
    """The points' own commands, from the plan `sweep --list` prints, with the folder swapped in."""
    sh([exe, "sweep", "--grid", a.grid, "--out", str(folder), "--prepare"])  # the plan and the points' configs
    plan = json.loads((folder / "sweep.json").read_text())
    t0 = time.perf_counter()
    for p in plan["points"]:
        sh([exe, *p["args"]])
    return time.perf_counter() - t0, plan


def sweep(folder, jobs):
    t0 = time.perf_counter()
    sh([exe, "sweep", "--grid", a.grid, "--out", str(folder), "--local", "--jobs", str(jobs)])
    return time.perf_counter() - t0, json.loads((folder / "sweep.json").read_text())


arms = ["one-by-one"] + [f"jobs{j}" for j in sorted(set([1] + a.jobs))]
times = {x: [] for x in arms}
reference = None
for rep in range(a.reps):
    order = arms[rep % len(arms):] + arms[:rep % len(arms)]
    for arm in order:
        folder = work / f"rep{rep}-{arm}"
        shutil.rmtree(folder, ignore_errors=True)
        secs, plan = one_by_one(folder) if arm == "one-by-one" else sweep(folder, int(arm[4:]))
        got = results(folder, plan)
        if reference is None:
            reference = got
        if got != reference:
            sys.exit(f"{arm} (rep {rep}) gave other results than the first arm: not the same work")
        times[arm].append(secs)
        print(f"rep {rep} {arm}: {secs:.1f} s", flush=True)
        shutil.rmtree(folder, ignore_errors=True)

base = times["one-by-one"]
report = {
    "config": {"grid": a.grid, "reps": a.reps, "jobs": a.jobs, "points": len(reference)},
    "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                "dmlbench_info": sh([exe, "info"]).strip().splitlines()},
    "arms": {x: {"seconds": t, "median_s": statistics.median(t),
                 "ratio_to_one_by_one": [b / s for b, s in zip(base, t)],
                 "median_speedup": statistics.median([b / s for b, s in zip(base, t)])} for x, t in times.items()},
}
print(f"{len(reference)} points, {a.reps} reps, {os.cpu_count()} cores")
for x in arms:
    r = report["arms"][x]
    print(f"{x:12s} median {r['median_s']:7.1f} s   speed-up vs one-by-one (median of per-rep ratios) "
          f"{r['median_speedup']:.2f}x")
if a.json:
    Path(a.json).write_text(json.dumps(report, indent=2) + "\n")
