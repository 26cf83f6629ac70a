"""A report stage reuses its finished runs by key (experiments/run_key.hpp), on a small fixture report whose code is a
copy of the repository's (DMLBENCH_SOURCE_DIR points the binary at it):
  - a one-line change to the verdict code reruns the training stage, which reads every run back and trains none;
  - a new header under theory/include/ that nothing includes reruns no stage;
  - a one-line change to the training loop retrains every run (`report --explain` names the file first);
  - negative control: a run whose config changed trains again while the others are read back.
Usage: test_report_run_cache.py DMLBENCH SOURCE_DIR WORK_DIR"""
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/, which holds dmlbench_cli.py
from dmlbench_cli import runner  # noqa: E402

exe, src, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)

# the code the runs' keys and the stages' hashes read: a copy, edited below; the bundled digits shared
repo = work / "repo"
for part in ["CMakeLists.txt", "theory", "sims", "experiments/src", "experiments/include", "experiments/configs",
             "experiments/CMakeLists.txt", "apps"]:
    (repo / part).parent.mkdir(parents=True, exist_ok=True)
    (shutil.copytree if (src / part).is_dir() else shutil.copy)(src / part, repo / part)
(repo / "data").symlink_to(src / "data")
shutil.copytree(src / "tests/fixtures/report/work", work / "work")

# a reproduction of two arms and two seeds, three steps a run
reproductions = work / "reproductions"
reproductions.mkdir()
fixture = json.loads((src / "tests/fixtures/sweep/reproductions/fx_sweep.json").read_text())
fixture.update(id="fx-cache", stage="fx-cache", title="FIXTURE-CACHE-STAGE: [LCC] Table 1's arms, 3 steps each")
fixture["metrics"][0]["claim"] = "fx-cache-r1"
(reproductions / "fx_cache.json").write_text(json.dumps(fixture, indent=2))

run = runner(exe, env=dict(os.environ, DMLBENCH_SOURCE_DIR=str(repo)), timeout=600)
report = ["report", "--profile", "quick", "--reproductions", str(reproductions), "--work", str(work / "work"),
          "--out", str(work / "reports"), "--notebooks", str(src / "tests/fixtures/report/notebooks_ok"),
          "--stages", "fx-cache,figures", "--store-from", "100000"]
runs = [work / "work/fx-cache" / arm / f"seed{k}" for arm in ("random", "eps") for k in (1, 2)]


def keys():
    return {str(r): json.loads((r / "run_key.json").read_text())["key"] for r in runs}


def metrics():
    return {str(r): (r / "metrics.json").read_text() for r in runs}


def append(path, text):
    with open(repo / path, "a") as f:
        f.write(text)


out = run(*report)
assert "0 of 4 runs finished before under the same run key" in out, out
first_keys, first_metrics = keys(), metrics()
assert len(set(first_keys.values())) == 4

# a one-line change to the verdict code: the stage runs again, says why, and reads its four runs back
append("experiments/src/verdicts/anytime_t_test.cpp", "\n// a one-line change\n")
out = run(*report)
assert "runs because: experiments/src/verdicts/anytime_t_test.cpp (changed)" in out, out
assert "4 of 4 runs finished before under the same run key" in out and "runs trained" not in out, out
assert keys() == first_keys and metrics() == first_metrics, "a run was trained again"
assert not (work / "work/.previous/fx-cache").exists(), "the stage's previous outputs were not removed"

# a new header under theory/include/ that nothing includes: no stage runs
(repo / "theory/include/dmlbench/theory/new_concept.hpp").write_text("#pragma once\n// a new concept\n")
out = run(*report)
assert "fx-cache: unchanged (config hash" in out, out

# a one-line change to the training loop: --explain names it, then every run trains again under a new key
append("experiments/src/engine/training_step.cpp", "\n// a one-line change\n")
out = run(*report, "--explain")
assert "fx-cache: runs" in out and "experiments/src/engine/training_step.cpp (changed)" in out, out
assert keys() == first_keys, "--explain ran something"
out = run(*report)
assert "0 of 4 runs finished before under the same run key" in out, out
assert all(keys()[r] != first_keys[r] for r in first_keys), "a run kept its key across a change to the training loop"
loop_keys = keys()

# negative control: one arm's config changed; its runs train, the other arm's are read back
fixture["arms"][1]["set"]["optimizer.lr"] = 0.002
(reproductions / "fx_cache.json").write_text(json.dumps(fixture, indent=2))
out = run(*report)
assert "runs because: its inputs changed" in out, out
assert "2 of 4 runs finished before under the same run key" in out, out
now = keys()
assert [now[str(r)] == loop_keys[str(r)] for r in runs] == [True, True, False, False], now

# an arm that starts from another's weights (init_from), after its source runs were read back from the report's
# stage store, whose copies hold no weights: the source runs train anew and the dependant trains from them (without
# it the dependant failed: "not a finished run (no metrics.json and checkpoint_model.pt there)")
fixture["arms"].append({"name": "later", "label": "triplet, from random's weights", "init_from": "random",
                        "set": {"miner.name": "trip-sh"}})
# the source arm runs one whole epoch of 3 steps (a run stopped by max_steps inside an epoch leaves no weights)
fixture["arms"][0]["set"].update({"schedule.max_steps": -1, "schedule.epochs": 1, "schedule.steps_per_epoch": 3})
(reproductions / "fx_cache.json").write_text(json.dumps(fixture, indent=2))
stored = [a if a != "--store-from" else a for a in report]
stored[stored.index("--store-from") + 1] = "0"
out = run(*stored)  # every run of the stage lands in reports/stages/fx-cache
assert (work / "reports/stages/fx-cache/random/seed1/metrics.json").exists(), out
assert not (work / "reports/stages/fx-cache/random/seed1/checkpoint_model.pt").exists(), "a stored copy holds weights"
shutil.rmtree(work / "work/fx-cache")  # a fresh machine: only the store holds the runs
fixture["arms"][2]["set"]["optimizer.lr"] = 0.003  # the dependant's config moves: it must train
(reproductions / "fx_cache.json").write_text(json.dumps(fixture, indent=2))
out = run(*stored)
assert "trains again: " in out and "starts from its weights, which its stored copy does not hold" in out, out
assert "2 of 6 runs finished before under the same run key" in out, out  # eps read back; random trains anew
for k in (1, 2):
    assert (work / f"work/fx-cache/later/seed{k}/metrics.json").exists(), out
    assert (work / f"work/fx-cache/random/seed{k}/run_key.json").exists(), out

# the store keeps a stage whose runs were read back: after a one-line change to the verdict code the stage reruns in
# seconds (below --store-from), yet its stored copy is replaced, not dropped (its runs cost what they took to train)
append("experiments/src/verdicts/anytime_t_test.cpp", "\n// another one-line change\n")
stored_record = json.loads((work / "reports/stages/fx-cache/stage.json").read_text())
threshold = 0.9 * stored_record["seconds"]  # the trained stage is worth storing at it, a read-back one is not
stored[stored.index("--store-from") + 1] = str(threshold)
out = run(*stored)
assert "6 of 6 runs finished before under the same run key" in out, out
kept = json.loads((work / "reports/stages/fx-cache/stage.json").read_text())
assert kept["seconds"] < threshold, ("the read-back stage took as long as training: the check proves nothing", kept)
assert kept["config_hash"] != stored_record["config_hash"], "the store dropped or kept the stage's old record"
assert kept["cost_seconds"] >= stored_record["seconds"], kept
print("ok")
