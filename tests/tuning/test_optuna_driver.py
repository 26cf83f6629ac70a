#!/usr/bin/python3
"""Tests of scripts/optuna_tune.py (the Optuna driver of `dmlbench tune`) without the C++ binary.

A fake `dmlbench` (a Python script written into a temp dir) answers `train --config C --set k=v ... --out DIR`: it
writes DIR/metrics.json with a curve of `epochs` points (from the config) whose validation mAP@R is a deterministic
function of the params (peaked at optimizer.lr = 1e-3, rising then falling over the epochs), an `early_stopping`
block consistent with the curve, and fails with "loss is NaN" (exit 1) when optimizer.lr > 5e-3.
Checks: the exact budget with 3 concurrent workers, determinism per plan (and a seed that changes it), a failing
trial recorded with its log tail, resume after SIGKILL (and SIGTERM) of a worker, collect's refusal and output,
and a bad plan. Usage: /usr/bin/python3 tests/tuning/test_optuna_driver.py   (exit 0 = pass)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = "/usr/bin/python3"
SCRIPT = Path(__file__).resolve().parent.parent.parent / "scripts" / "optuna_tune.py"
EPOCHS, STEPS_PER_EPOCH, PATIENCE = 5, 10, 2

FAKE = r'''#!/usr/bin/python3
import json, math, os, sys, time
args = sys.argv[1:]
assert args[0] == "train", args
sets, out, config = {}, None, None
i = 1
while i < len(args):
    if args[i] == "--set":
        k, v = args[i + 1].split("=", 1); sets[k] = v; i += 2
    elif args[i] == "--out":
        out = args[i + 1]; i += 2
    elif args[i] == "--config":
        config = args[i + 1]; i += 2
    elif args[i] == "--reuse-finished":
        i += 1
    else:
        sys.exit("fake dmlbench: unknown argument " + args[i])
cfg = json.load(open(config))
with open(os.path.join(out, "fake.pid.tmp"), "w") as f:  # renamed: the test never reads a half-written pid
    f.write(str(os.getpid()))
os.replace(os.path.join(out, "fake.pid.tmp"), os.path.join(out, "fake.pid"))
time.sleep(float(os.environ.get("FAKE_SLEEP", "0.05")))
lr = float(sets.get("optimizer.lr", "0.001"))
print("fake train: lr", lr, "OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS"))
if lr > 5e-3:
    print("step 3: loss is NaN")
    sys.exit(1)
margin = float(sets.get("loss.margin", "0.2"))
per_class = int(sets.get("batch.per_class", "8"))
fold = int(sets.get("dataset.fold", "0"))
base = math.exp(-(math.log10(lr) + 3.0) ** 2) * (1.0 - abs(margin - 0.2)) + 0.001 * per_class + 0.01 * fold
peak = 1 + int(round((cfg["epochs"] - 1) * min(1.0, margin / 0.5)))
curve, best, best_epoch, since = [], None, 0, 0
for e in range(1, cfg["epochs"] + 1):
    v = base * (1.0 - 0.1 * abs(e - peak))
    curve.append({"epoch": e, "step": e * cfg["steps_per_epoch"],
                  "eval": {"validation": {"character": {"map_at_r": v, "recall_at_k": {"1": v + 0.1}}}}})
    if best is None or v > best:
        best, best_epoch, since = v, e, 0
    else:
        since += 1
        if since >= cfg["patience"]:
            break
metrics = {"sets": sets, "omp": os.environ.get("OMP_NUM_THREADS"), "curve": curve,
           "early_stopping": {"best": best, "best_epoch": best_epoch, "best_step": best_epoch * cfg["steps_per_epoch"],
                              "epochs_run": len(curve), "stopped_early": len(curve) < cfg["epochs"]}}
json.dump(metrics, open(os.path.join(out, "metrics.json"), "w"))
'''

FULL_SPACE = {"optimizer.lr": {"type": "float", "low": 1e-4, "high": 4e-3, "log": True},
              "loss.margin": {"type": "float", "low": 0.05, "high": 0.5, "log": False},
              "batch.per_class": {"type": "int", "low": 4, "high": 32, "log": True},
              "miner.name": {"type": "categorical", "choices": ["a", "b"]}}

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)
    return condition


def make_plan(root, name, arms, trials=5, seed=1, folds=2):
    """A tune folder with plan.json, the fake dmlbench and its config; arms: {name: space}."""
    folder = Path(root) / name
    folder.mkdir(parents=True)
    fake = Path(root) / "fake_dmlbench"
    if not fake.exists():
        fake.write_text(FAKE)
        fake.chmod(0o755)
    config = Path(root) / "config.json"
    config.write_text(json.dumps({"epochs": EPOCHS, "steps_per_epoch": STEPS_PER_EPOCH, "patience": PATIENCE}))
    plan = {"reproduction": "fake_repro", "reproduction_id": "fake-table", "reproduction_file": "fake.json",
            "space_hash": "abc123", "dmlbench": str(fake), "config": str(config), "git_revision": "0" * 7,
            "blas": "BLAS: fake", "seed": seed, "trials_per_arm": trials, "folds": folds, "fold_level": "alphabet",
            "threads": 1,
            "objective": {"path": "validation.character.map_at_r", "secondary": "validation.character.recall_at_k.1"},
            "budget": {"epochs": EPOCHS, "steps_per_epoch": STEPS_PER_EPOCH, "patience": PATIENCE},
            "arms": [{"name": n, "label": n.upper(), "overrides": [f"loss.name={n}", f"dataset.folds={folds}"],
                      "space": s} for n, s in arms.items()],
            "fold_overrides": [[f"dataset.fold={k}"] for k in range(folds)]}
    (folder / "plan.json").write_text(json.dumps(plan, indent=2))
    return folder


def tune(*args, env=None, **kwargs):
    return subprocess.run([PYTHON, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), **kwargs)


def start_worker(folder, env=None):
    return subprocess.Popen([PYTHON, str(SCRIPT), "work", str(folder)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, **(env or {})),
                            start_new_session=True)


def collect(folder):
    out = folder / "tuned.json"
    result = tune("collect", folder, "--out", out)
    if not check(result.returncode == 0, f"collect {folder.name} exit 0 (got {result.returncode}: {result.stderr})"):
        return None
    return json.loads(out.read_text(), parse_constant=lambda c: failures.append(f"{c} in collected JSON"))


def journal_trials(folder, arm):
    """(number, state, user_attrs, params) of an arm's trials read from the journal with Optuna itself."""
    code = ("import json, sys, warnings, optuna; warnings.simplefilter('ignore');"
            "s = optuna.storages.JournalStorage(optuna.storages.JournalFileStorage(sys.argv[1]));"
            "st = optuna.load_study(study_name=sys.argv[2], storage=s);"
            "print(json.dumps([[t.number, t.state.name, t.user_attrs, t.params] for t in st.trials]))")
    result = subprocess.run([PYTHON, "-c", code, str(folder / "study.journal"), f"fake_repro:{arm}"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def counted(trials):
    return [t for t in trials if t[1] == "COMPLETE" or (t[1] == "FAIL" and not t[2].get("interrupted"))]


def test_exact_budget_three_workers(root):
    folder = make_plan(root, "budget", {"base": FULL_SPACE, "eps": FULL_SPACE}, trials=5)
    workers = [start_worker(folder) for _ in range(3)]
    codes = [w.wait(timeout=50) for w in workers]
    check(codes == [0, 0, 0], f"3 workers exit 0 (got {codes}; {[w.stderr.read()[-400:] for w in workers]})")
    for arm in ("base", "eps"):
        trials = journal_trials(folder, arm)
        check(len(counted(trials)) == 5, f"{arm}: 5 counted trials in the journal (got {len(counted(trials))})")
        check(len(trials) == 5, f"{arm}: no extra trials in the journal (got {len(trials)})")
    data = collect(folder)
    if data:
        for arm in data["arms"]:
            check(len(arm["trials"]) == 5, f"{arm['name']}: 5 trials collected (got {len(arm['trials'])})")
        metrics = json.loads((folder / "trials" / "base" / "0000" / "fold1" / "metrics.json").read_text())
        check(metrics["omp"] == "1", f"OMP_NUM_THREADS=1 in train's environment (got {metrics['omp']})")
        check(metrics["sets"].get("dataset.fold") == "1" and metrics["sets"].get("seed") == "1"
              and metrics["sets"].get("loss.name") == "base", f"train got the overrides ({metrics['sets']})")


def params_sequence(root, name, seed):
    folder = make_plan(root, name, {"base": FULL_SPACE}, trials=12, seed=seed, folds=1)
    result = tune("work", folder)
    check(result.returncode == 0, f"{name}: worker exit 0 (got {result.returncode}: {result.stderr[-400:]})")
    return [t[3] for t in sorted(journal_trials(folder, "base"))]


def test_determinism(root):
    first = params_sequence(root, "det1", seed=7)
    second = params_sequence(root, "det2", seed=7)
    other = params_sequence(root, "det3", seed=8)
    check(len(first) == 12, f"determinism: 12 trials (got {len(first)})")
    check(first == second, "the same plan in two folders gives the same params sequence")
    check(first != other, "negative control: another plan.seed gives another params sequence")


def test_failing_trial(root):
    nan_space = {"optimizer.lr": {"type": "float", "low": 6e-3, "high": 8e-3, "log": False}}
    mixed = {"optimizer.lr": {"type": "categorical", "choices": [0.001, 0.01]}}
    folder = make_plan(root, "failing", {"nan": nan_space, "mixed": mixed}, trials=4)
    result = tune("work", folder)
    check(result.returncode == 0, f"failing: worker exit 0 (got {result.returncode}: {result.stderr[-400:]})")
    check("loss is NaN" in result.stderr, "failing: the failure and its log tail are printed on stderr")
    data = collect(folder)
    if not data:
        return
    nan, mixed_arm = data["arms"]
    check(len(nan["trials"]) == 4 and all(t["state"] == "failed" for t in nan["trials"]),
          "failing: 4 failed trials recorded in the arm whose space only fails")
    check(all("loss is NaN" in t["log_tail"] and t["failed_fold"] == 0 for t in nan["trials"]),
          "failing: each failed trial has its log tail with 'loss is NaN' and failed_fold 0")
    check(not (folder / "trials" / "nan" / "0000" / "fold1").exists(), "failing: the remaining folds are skipped")
    check(nan["best"] is None, "failing: no best in an arm without a complete trial")
    states = [t["state"] for t in mixed_arm["trials"]]
    check(len(states) == 4, f"failing: the next arm still reaches its budget ({states})")


def wait_for(path, proc, seconds=20):
    end = time.time() + seconds
    def written():
        return path.exists() and path.stat().st_size > 0
    while time.time() < end and not written() and proc.poll() is None:
        time.sleep(0.01)
    return written()


def kill_worker_at(folder, trial_folder, sig):
    """Start a slow worker, send `sig` to it (SIGKILL: to its whole session) once `trial_folder` appears."""
    worker = start_worker(folder, env={"FAKE_SLEEP": "0.4"})
    appeared = wait_for(folder / "trials" / "base" / trial_folder / "fold0" / "fake.pid", worker)
    check(appeared, f"resume: trial folder {trial_folder} appears")
    if sig == signal.SIGKILL:
        os.killpg(worker.pid, signal.SIGKILL)
    else:
        os.kill(worker.pid, sig)
    code = worker.wait(timeout=20)
    return code, worker.stderr.read()


def test_resume(root):
    folder = make_plan(root, "resume", {"base": FULL_SPACE}, trials=5)
    code, _ = kill_worker_at(folder, "0001", signal.SIGKILL)
    check(code == -signal.SIGKILL, f"resume: the worker was killed (got {code})")
    # trial 1 is interrupted and re-run as trial 2; SIGTERM the next worker in trial 3
    code, err = kill_worker_at(folder, "0003", signal.SIGTERM)
    check(code == 128 + signal.SIGTERM, f"resume: SIGTERM exits 143 (got {code}: {err[-300:]})")
    pid = int((folder / "trials" / "base" / "0003" / "fold0" / "fake.pid").read_text())
    time.sleep(0.1)
    check(not Path(f"/proc/{pid}").exists(), "resume: SIGTERM killed the running train child")
    result = tune("work", folder)
    check(result.returncode == 0, f"resume: last worker exit 0 (got {result.returncode}: {result.stderr[-400:]})")
    trials = journal_trials(folder, "base")
    check(len(counted(trials)) == 5, f"resume: 5 counted trials (got {len(counted(trials))})")
    by_number = {t[0]: t for t in trials}
    for lost, rerun in ((1, 2), (3, 4)):
        check(by_number[lost][1] == "FAIL" and by_number[lost][2].get("interrupted") is True,
              f"resume: trial {lost} is FAIL and interrupted ({by_number[lost][1]}, {by_number[lost][2]})")
        check(by_number[rerun][1] == "COMPLETE" and by_number[rerun][3] == by_number[lost][3],
              f"resume: trial {rerun} re-ran trial {lost}'s params to completion")
    data = collect(folder)
    if data:
        numbers = [t["number"] for t in data["arms"][0]["trials"]]
        check(numbers == [0, 2, 4, 5, 6], f"resume: collected trials leave the interrupted out ({numbers})")


TOP_KEYS = ["reproduction", "reproduction_id", "reproduction_file", "space_hash", "git_revision", "blas", "seed",
            "trials_per_arm", "folds", "fold_level", "threads", "objective", "budget", "sampler", "arms",
            "wall_seconds"]
ARM_KEYS = ["name", "label", "overrides", "space", "trials", "best", "wall_seconds"]
TRIAL_KEYS = ["number", "state", "params", "objective", "secondary", "epochs", "steps", "seconds", "folds"]


def test_collect(root):
    tied = {"optimizer.lr": {"type": "categorical", "choices": [0.001]}}
    folder = make_plan(root, "collect", {"base": FULL_SPACE, "tied": tied}, trials=2)
    empty = tune("collect", folder, "--out", folder / "x.json")
    check(empty.returncode == 2 and empty.stderr.startswith("optuna_tune.py: error:"),
          f"collect refuses a folder without study ({empty.returncode}: {empty.stderr})")
    check(tune("work", folder).returncode == 0, "collect: first worker exit 0")
    plan = json.loads((folder / "plan.json").read_text())
    plan["trials_per_arm"] = 4
    (folder / "plan.json").write_text(json.dumps(plan))
    refused = tune("collect", folder, "--out", folder / "x.json")
    check(refused.returncode == 2 and refused.stderr.count("\n") == 1
          and "'base' has 2 of 4" in refused.stderr and "'tied' has 2 of 4" in refused.stderr,
          f"collect refuses an incomplete study naming arms and counts ({refused.stderr!r})")
    check(not (folder / "x.json").exists(), "collect: no file written when refused")
    check(tune("work", folder).returncode == 0, "collect: second worker exit 0")
    data = collect(folder)
    if not data:
        return
    check(list(data) == TOP_KEYS, f"collect: top-level keys in order ({list(data)})")
    # the trainer code set the study searched, where the plan records it (`dmlbench tune` does), follows the header
    plan = json.loads((folder / "plan.json").read_text())
    plan["trainer_code"] = "0123abcd"
    (folder / "plan.json").write_text(json.dumps(plan))
    coded = collect(folder)
    check(coded and coded.get("trainer_code") == "0123abcd"
          and list(coded).index("trainer_code") == TOP_KEYS.index("budget") + 1,
          f"collect: the plan's trainer_code after the header ({list(coded or {})})")
    check(data["sampler"].startswith("optuna 3.") and "TPESampler" in data["sampler"], "collect: sampler line")
    check(isinstance(data["wall_seconds"], float) and data["wall_seconds"] > 0, "collect: wall_seconds")
    for arm in data["arms"]:
        check(list(arm) == ARM_KEYS, f"collect: arm keys in order ({list(arm)})")
        check([t["number"] for t in arm["trials"]] == [0, 1, 2, 3], f"collect: {arm['name']} trials in order")
        for t in arm["trials"]:
            check(list(t) == TRIAL_KEYS and t["state"] == "complete", f"collect: trial keys ({list(t)})")
            check(t["steps"] == t["epochs"] * STEPS_PER_EPOCH and len(t["folds"]) == 2, f"collect: trial {t}")
        top = max(t["objective"] for t in arm["trials"])
        expected = min(t["number"] for t in arm["trials"] if t["objective"] == top)
        check(arm["best"]["number"] == expected and arm["best"]["objective"] == top,
              f"collect: {arm['name']} best is the max objective, lowest number on ties ({arm['best']})")
    check(data["arms"][1]["best"]["number"] == 0, "collect: four tied trials -> best is trial 0")


def test_bad_plan(root):
    bad = dict(FULL_SPACE, **{"loss.margin": {"type": "floatt", "low": 0.1, "high": 0.2}})
    folder = make_plan(root, "bad", {"base": FULL_SPACE, "eps": bad})
    result = tune("work", folder)
    lines = result.stderr.splitlines()
    check(result.returncode == 2 and len(lines) == 1 and lines[0].startswith("optuna_tune.py: error:")
          and "'eps'" in lines[0] and "loss.margin" in lines[0],
          f"bad plan: exit 2, one line naming arm and key ({result.returncode}: {result.stderr!r})")
    plan = json.loads((folder / "plan.json").read_text())
    del plan["budget"]
    (folder / "plan.json").write_text(json.dumps(plan))
    result = tune("collect", folder, "--out", folder / "x.json")
    check(result.returncode == 2 and result.stderr.count("\n") == 1 and "budget" in result.stderr,
          f"bad plan: a missing key exits 2 naming it ({result.stderr!r})")


def main():
    start = time.time()
    tests = [test_exact_budget_three_workers, test_determinism, test_failing_trial, test_resume, test_collect,
             test_bad_plan]
    with tempfile.TemporaryDirectory(prefix="optuna_driver_") as root:
        for test in tests:
            before, t0 = len(failures), time.time()
            try:
                test(root)
            except Exception as e:  # a crash in one test is a failure of that test; the others still run
                check(False, f"{test.__name__} raised {type(e).__name__}: {e}")
            status = "ok" if len(failures) == before else "FAILED"
            print(f"{test.__name__}: {status} ({time.time() - t0:.1f} s)")
    print(f"{len(tests)} tests, {len(failures)} failed checks, {time.time() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
