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
print("ok")
