"""`dmlbench tune` end to end on the bundled digits with a tiny budget: lcc_table1's tuning block (folds of
the training digits 0-5) with 2 trials per arm, 2 workers; every trial of every arm in the results file, each trial's
runs evaluating the validation fold alone; a rerun resumes the study and adds nothing; another space into the same
folder is refused; bad blocks fail before any trial with the file, arm and key named; --slurm --dry-run writes
nothing; --trials results are refused in experiments/tuned/.
Usage: test_tune_cli.py DMLBENCH REPO WORK_DIR"""
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dmlbench_cli import runner  # noqa: E402

exe, repo, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
run = runner(exe, timeout=900)

source = json.loads((repo / "experiments/reproductions/lcc_table1.json").read_text())
source["set"] = {"batch.per_class": 16}
source["tuning"]["budget"] = {"epochs": 2, "steps_per_epoch": 4, "patience": 1}


def write(name, edit=None):
    j = json.loads(json.dumps(source))
    if edit:
        edit(j["tuning"])
    path = work / f"{name}.json"
    path.write_text(json.dumps(j, indent=2))
    return str(path)


study = work / "study"
out = run("tune", "--file", write("tiny"), "--out", str(study), "--jobs", "2", "--trials", "2")
assert "2 arms x 2 trials x 2 folds" in out, out
tuned = json.loads((study / "tuned.json").read_text())
assert [a["name"] for a in tuned["arms"]] == ["random", "eps"], tuned["arms"]
assert tuned["trials_per_arm"] == 2 and tuned["folds"] == 2
assert tuned["objective"]["path"] == "validation.digit.map_at_r"
for arm in tuned["arms"]:
    assert len(arm["trials"]) == 2 and all(t["state"] == "complete" for t in arm["trials"]), arm["trials"]
    assert set(arm["best"]["params"]) == {"optimizer.lr", "loss.margin"}, arm["best"]
    assert arm["best"]["objective"] == max(t["objective"] for t in arm["trials"])
    for t in arm["trials"]:
        assert len(t["folds"]) == 2 and 1 <= t["epochs"] <= 2, t
# each run of a trial evaluated the validation fold and nothing else: no test digit was ranked
metrics = sorted(study.glob("trials/*/*/fold*/metrics.json"))
assert len(metrics) == 2 * 2 * 2, metrics
for m in metrics:
    j = json.loads(m.read_text())
    assert list(j["eval"]) == ["validation"], (m, list(j["eval"]))
    assert j["config"]["dataset"]["folds"] == 2 and "early_stopping" in j, m
before = (study / "tuned.json").read_text()

# a rerun resumes the finished study: nothing new runs, the results are the same
out = run("tune", "--file", write("tiny"), "--out", str(study), "--jobs", "2", "--trials", "2")
assert "resuming the study" in out, out
after = json.loads((study / "tuned.json").read_text())
assert [t["params"] for a in after["arms"] for t in a["trials"]] == \
    [t["params"] for a in json.loads(before)["arms"] for t in a["trials"]]

# another space into the same folder: refused, the study untouched
out = run("tune", "--file", write("wider", lambda t: t["space"]["loss.margin"].update(high=2.0)),
          "--out", str(study), "--trials", "2", expect=2)
assert "another search space" in out, out
assert json.loads((study / "tuned.json").read_text()) == after

# bad blocks: one line naming the file and the key, before any trial (no folder written)
bad = work / "bad"
for edit, words in [
        (lambda t: t["space"].update({"optimizer.lrr": {"low": 1e-4, "high": 1e-2}}), ["unknown key", "optimizer.lrr"]),
        (lambda t: t["space"].update({"loss.margin": {"low": 0.5, "high": 0.5}}), ["loss.margin", "is empty"]),
        (lambda t: t["space"].update({"optimizer.lr": {"low": -1, "high": 1e-2, "log": True}}), ["low > 0"]),
        (lambda t: t["budget"].update(patience=2), ["not below the budget"]),
        (lambda t: t.update(arms={"eps": {"space": {"loss.margin": {"low": 0.1, "high": 0.2}}}}), ["arm eps", "state why"])]:
    out = run("tune", "--file", write("bad", edit), "--out", str(bad), expect=2)
    assert "bad.json" in out and all(w in out for w in words), (words, out)
    assert not bad.exists(), "a bad tuning block wrote the study folder"

# --slurm --dry-run prints the array of workers and writes nothing
out = run("tune", "--file", write("tiny"), "--out", str(work / "dry"), "--slurm", "--dry-run", "--jobs", "3")
assert "#SBATCH --array=0-2\n" in out and "optuna_tune.py work" in out, out
assert not (work / "dry").exists(), "--dry-run wrote the study folder"

# a smoke budget's results never land in the committed folder
out = run("tune", "--file", write("tiny"), "--out", str(work / "s2"), "--trials", "1",
          "--write", str(repo / "experiments/tuned/tiny.json"), expect=2)
assert "experiments/tuned/" in out, out
assert not (repo / "experiments/tuned/tiny.json").exists()
print("ok")
