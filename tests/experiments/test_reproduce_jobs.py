"""`dmlbench reproduce --jobs 2` runs each (arm, seed) in its own `dmlbench train` process: the summary must equal the
one-process summary exactly (each run trains on one thread either way). Negative control: a run config changed in one
key (the learning rate) gives another summary, so the comparison can fail.
Usage: test_reproduce_jobs.py DMLBENCH REPRODUCTION_FILE DATA_DIR WORK_DIR"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

exe, repro, data, work = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
shutil.rmtree(work, ignore_errors=True)


def run(name, jobs, extra=()):
    out = work / name
    cmd = [exe, "reproduce", "--file", repro, "--profile", "quick", "--seeds", "2", "--jobs", str(jobs), "--out", str(out),
           "--set", f"dataset.data_dir={data}", "--set", "schedule.max_steps=4", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    s = json.loads((out / "summary.json").read_text())
    return out, s["variants"]


one_dir, one = run("jobs1", 1)
two_dir, two = run("jobs2", 2)
assert one == two, "the summary of --jobs 2 differs from --jobs 1"
logs = sorted(two_dir.glob("*/seed*/train_log.txt"))
assert len(logs) == 4, f"expected one train log per run, found {logs}"
assert not list(one_dir.glob("*/seed*/train_log.txt")), "--jobs 1 trains in-process and writes no train log"
_, other = run("lr", 2, ["--set", "optimizer.lr=0.01"])
assert other != two, "negative control: a changed learning rate must change the summary"
print("reproduce --jobs 2 equals --jobs 1 on", len(logs), "runs; a changed lr differs")
