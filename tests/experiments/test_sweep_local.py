"""`dmlbench sweep --local`: a 4-point sim grid run 2 at a time merges into the summary the points' own
results give; a rerun runs nothing; other overrides into the same folder are refused; --slurm --dry-run prints the
array and writes nothing. Then a training point killed with its sweep after its first checkpoint resumes from it
when the sweep is rerun, and ends with the evaluation of an uninterrupted run of the same config.
Usage: test_sweep_local.py DMLBENCH SIM_GRID DATA_DIR WORK_DIR"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dmlbench_cli import runner  # noqa: E402

exe, sim_grid, data, work = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)


run = runner(exe, timeout=600)


# 1. the sim grid, 2 at a time
sims = work / "sims"
out = run("sweep", "--grid", sim_grid, "--out", str(sims), "--local", "--jobs", "2")
assert "4 of 4 points to run, 2 at a time" in out and "4/4 points finished" in out, out
plan = json.loads((sims / "sweep.json").read_text())
summary = json.loads((sims / "summary.json").read_text())
assert [a["arm"] for a in summary["arms"]] == ["all", "eps"]
for arm in summary["arms"]:
    res = [json.loads((sims / p["name"] / "result.json").read_text()) for p in plan["points"] if p["arm"] == arm["arm"]]
    x = [r["best_objective"] for r in res]
    assert arm["metrics"]["best objective"]["seeds"] == x and len(x) == 2
    assert abs(arm["metrics"]["best objective"]["mean"] - statistics.mean(x)) <= 1e-12
    # each point ran with its own seed, as `sim collapse --seed k` alone gives it
    assert [r["seed"] for r in res] == [1, 2]
stamps = {p["name"]: (sims / p["name"] / "result.json").stat().st_mtime_ns for p in plan["points"]}
out = run("sweep", "--grid", sim_grid, "--out", str(sims), "--local", "--jobs", "2")
assert "0 of 4 points to run" in out, out
assert stamps == {p["name"]: (sims / p["name"] / "result.json").stat().st_mtime_ns for p in plan["points"]}
out = run("sweep", "--grid", sim_grid, "--out", str(sims), "--local", "--set", "restarts=3", expect=2)
assert "holds another sweep" in out, out
fresh = work / "dry"
out = run("sweep", "--grid", sim_grid, "--out", str(fresh), "--slurm", "--dry-run", "--partition", "short")
assert "#SBATCH --array=0-3\n" in out and "#SBATCH --partition=short\n" in out and "sweep run-point" in out, out
assert not fresh.exists(), "--dry-run wrote the sweep folder"

# 2. a training point killed after its first checkpoint resumes from it
grid = work / "train_grid.json"
grid.write_text(json.dumps({
    "name": "resume", "command": "train", "config": "experiments/configs/lcc-mnist-evenodd.json",
    "set": {"dataset.data_dir": data, "schedule.epochs": 3, "eval.nmi": False, "eval.sets": ["test_digits"],
            "eval.scatter": False},
    "seeds": [3],
    "metrics": [{"label": "R@1 test digits", "path": "eval.test_digits.digit.recall_at_k.1", "scale": 100}]}))
tr = work / "train"
p = subprocess.Popen([exe, "sweep", "--grid", str(grid), "--out", str(tr), "--local"], start_new_session=True,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
ck = tr / "seed3" / "checkpoint.json"
deadline = time.time() + 300
while time.time() < deadline and p.poll() is None:
    if ck.is_file() and json.loads(ck.read_text()).get("epochs_done", 0) >= 1:
        break
    time.sleep(0.05)
assert p.poll() is None, "the training point ended before it could be killed:\n" + p.stdout.read()
os.killpg(p.pid, signal.SIGKILL)
p.wait()
for _ in range(600):  # until the whole group (the runner, the training) has gone and with it the point's lock
    try:
        os.killpg(p.pid, 0)
    except ProcessLookupError:
        break
    time.sleep(0.05)
assert not (tr / "seed3" / "metrics.json").exists()
status = run("sweep", "status", str(tr))
assert "interrupted" in status and "seed3" in status, status
out = run("sweep", "--grid", str(grid), "--out", str(tr), "--local")
log = (tr / "seed3" / "sweep_log.txt").read_text()
assert "resumed" in log and "after epoch" in log, log
ref = work / "reference"
run("train", "--config", str(tr / "seed3" / "run_config.json"), "--out", str(ref))
got = json.loads((tr / "seed3" / "metrics.json").read_text())
want = json.loads((ref / "metrics.json").read_text())
assert got["eval"] == want["eval"], "the resumed point's evaluation differs from an uninterrupted run's"
assert got["config"] == want["config"]
summary = json.loads((tr / "summary.json").read_text())
r1 = summary["arms"][0]["metrics"]["R@1 test digits"]["mean"]
assert abs(r1 - 100 * want["eval"]["test_digits"]["digit"]["recall_at_k"]["1"]) <= 1e-9, r1
print("sweep --local: merged, idempotent, refused other overrides; a killed training point resumed to the same result")
