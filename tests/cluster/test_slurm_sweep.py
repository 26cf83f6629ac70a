"""`dmlbench sweep --slurm` on a real one-node Slurm cluster on loopback (tests/cluster/slurm_loopback.sh, label
`cluster`): a 4-point array of short `sim collapse` runs, then `sweep collect`. Checks that every point ran as a task of
the submitted array, that the summary's mean and std per arm are those of the points' own result files, that a
resubmission submits only the unfinished point, and that a point that fails is reported as failed with its log tail
while the others still merge. The daemons are stopped by their pids at the end, whatever happened.
Exit 77 (skipped) only where the daemons cannot start, with the reason.
Usage: test_slurm_sweep.py DMLBENCH GRID WORK_DIR"""
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dmlbench_cli import runner  # noqa: E402

exe, grid, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])
here = Path(__file__).resolve().parent
cluster, sweep = work / "cluster", work / "sweep"
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)

start = subprocess.run(["bash", str(here / "slurm_loopback.sh"), "start", str(cluster)], capture_output=True, text=True)
print(start.stdout, start.stderr, end="")
if start.returncode == 77:
    sys.exit(77)
if start.returncode != 0:
    sys.exit(f"slurm_loopback.sh start failed with exit status {start.returncode}")
env = dict(os.environ, SLURM_CONF=str(cluster / "slurm.conf"), PATH=os.environ.get("PATH", "") + ":/usr/sbin")


run = runner(exe, env=env, timeout=240)


def check_merge(summary, points):
    """The summary's mean and std per arm and metric, recomputed from the finished points' result.json."""
    for arm in summary["arms"]:
        results = [json.loads((sweep / p["name"] / "result.json").read_text()) for p in points
                   if p["arm"] == arm["arm"] and (sweep / p["name"] / "result.json").is_file()]
        assert arm["done"] == len(results), (arm["arm"], arm["done"], len(results))
        for label, key in [("collapsed minimizers", "collapsed_runs"), ("best objective", "best_objective")]:
            x = [float(r[key]) for r in results]
            e = arm["metrics"][label]
            assert e["seeds"] == x, (label, e["seeds"], x)
            assert abs(e["mean"] - statistics.mean(x)) <= 1e-12 * max(1.0, abs(statistics.mean(x))), (label, e)
            if len(x) > 1:
                assert abs(e["std"] - statistics.stdev(x)) <= 1e-12 * max(1.0, statistics.stdev(x)), (label, e)
            else:
                assert e["std"] is None, e


try:
    # 1. the whole grid as one array, waited for; every point ran as one of its tasks
    out = run("sweep", "--grid", grid, "--out", str(sweep), "--slurm", "--wait", "--time", "0:05:00")
    assert "submitted Slurm job" in out and ": 4 array tasks" in out, out
    job = out.split("submitted Slurm job ")[1].split(":")[0]
    plan = json.loads((sweep / "sweep.json").read_text())
    points = plan["points"]
    assert len(points) == 4
    tasks = set()
    for p in points:
        st = json.loads((sweep / p["name"] / "sweep_status.json").read_text())
        assert st["ok"] and st["slurm_job"] == job, st
        tasks.add(int(st["slurm_task"]))
        assert (sweep / "slurm" / f"{job}_{st['slurm_task']}.out").is_file()
    assert tasks == {0, 1, 2, 3}, tasks
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["config"]["grid"]["name"] == "collapse4" and summary["sweep"]["done"] == 4
    check_merge(summary, points)
    out = run("sweep", "--grid", grid, "--out", str(sweep), "--slurm", "--dry-run")
    assert "nothing to submit" in out, out

    # 2. a point that fails (its result path taken by a folder) is resubmitted alone, fails, and the rest still merge
    bad = sweep / "eps" / "seed2"
    (bad / "result.json").unlink()
    (bad / "sweep_status.json").unlink()
    (bad / "result.json").mkdir()
    (bad / "result.json" / "keep").write_text("not a result\n")
    out = run("sweep", "--grid", grid, "--out", str(sweep), "--slurm", "--wait", expect=1)
    assert ": 1 array tasks" in out, out
    subs = json.loads((sweep / "slurm" / "submissions.json").read_text())
    assert len(subs) == 2 and subs[1]["points"] == [3], subs
    status = run("sweep", "status", str(sweep))
    assert "failed      eps/seed2" in status and "  | " in status and "result.json" in status, status
    assert "3 done, 1 failed" in status, status
    out = run("sweep", "collect", str(sweep))
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["sweep"]["done"] == 3 and [f["name"] for f in summary["sweep"]["failed"]] == ["eps/seed2"], summary
    assert "result.json" in summary["sweep"]["failed"][0]["log_tail"], summary["sweep"]["failed"][0]
    check_merge(summary, points)
    assert "3 of 4 points merged, 1 failed" in out and "failed: eps/seed2" in out, out
    run("sweep", "collect", str(sweep), "--require-complete", "--out", str(work / "complete.json"), expect=1)
    assert not (work / "complete.json").exists(), "--require-complete wrote a summary of an incomplete sweep"
    print("4-point array on Slurm merged; the resubmission ran only the failed point, reported with its log tail")

    # 3. `dmlbench tune --slurm`: 2 Optuna workers as one array share the study; every arm gets its trial
    repo = here.parent.parent
    source = json.loads((repo / "experiments/reproductions/lcc_table1.json").read_text())
    source["set"] = {"batch.per_class": 16}
    source["tuning"]["budget"] = {"epochs": 2, "steps_per_epoch": 3, "patience": 1}
    tiny = work / "tiny_tune.json"
    tiny.write_text(json.dumps(source))
    study = work / "tune"
    out = run("tune", "--file", str(tiny), "--out", str(study), "--jobs", "2", "--trials", "1", "--slurm", "--wait",
              "--time", "0:05:00")
    assert "submitted Slurm job" in out and "2 tuning workers" in out, out
    tuned = json.loads((study / "tuned.json").read_text())
    assert [len(a["trials"]) for a in tuned["arms"]] == [1, 1], tuned["arms"]
    assert all(a["trials"][0]["state"] == "complete" for a in tuned["arms"]), tuned["arms"]
    assert len(list((study / "slurm").glob("*_*.out"))) == 2, sorted((study / "slurm").iterdir())
    print("tune --slurm: 2 workers as one array tuned both arms")
finally:
    stop = subprocess.run(["bash", str(here / "slurm_loopback.sh"), "stop", str(cluster)], capture_output=True, text=True)
    print(stop.stdout, stop.stderr, end="")
