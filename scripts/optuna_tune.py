#!/usr/bin/python3
"""The Optuna driver of `dmlbench tune` (every arm tuned with the same budget).

The protocol is that of "A Metric Learning Reality Check" (Musgrave, Belongie and Lim, ECCV 2020): each arm of a
reproduction (a loss, a miner, a method added to them) gets the same number of hyperparameter trials, drawn by the
same sampler, each trial scored by the mean over cross-validation folds of its validation objective at its
early-stopping point.

`dmlbench tune` writes DIR/plan.json, starts N copies of
    /usr/bin/python3 scripts/optuna_tune.py work DIR [--worker NAME]
(locally or as a Slurm array, on one shared filesystem), then runs
    /usr/bin/python3 scripts/optuna_tune.py collect DIR --out FILE

work: one Optuna study per arm ("<reproduction>:<arm>", maximize) in DIR/study.journal (Optuna's journal file
storage, shared by the workers). Under an exclusive flock on DIR/tune.lock a worker counts the arm's trials
(COMPLETE, FAIL not interrupted, RUNNING) and asks a new one only while that count is below trials_per_arm, so
every arm ends with exactly trials_per_arm finished trials whatever the number of workers. The sampler is Optuna's
TPE with its default settings, rebuilt before each ask with the seed
    plan.seed * 1000003 + arm_index * 1009 + trials already in the study,
so that with one worker a study is a pure function of the plan. A trial runs `dmlbench train` once per fold into
DIR/trials/<arm>/<number>/fold<k>; a non-zero exit, a missing metrics.json or a non-finite objective fails the
trial (it counts: a trial that fails by itself is a result). A worker killed while running a trial leaves it
RUNNING; the next worker on that host marks it FAIL with user attr `interrupted` (not counted) and re-queues its
params. SIGTERM/SIGINT kill the train child and exit 128 + signal, leaving the trial RUNNING for that path.

collect: refuses (exit 2) while an arm has fewer than trials_per_arm finished trials; otherwise writes the
per-arm trials, the best trial (ties: lowest number) and the wall time as indented JSON.

Errors: one line "optuna_tune.py: error: ..." on stderr, exit status 2.
"""
import argparse
import contextlib
import fcntl
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

PROG = "optuna_tune.py"
SEED_STRIDE, ARM_STRIDE = 1000003, 1009
LOG_TAIL_LINES = 20
PLAN_KEYS = ("reproduction", "reproduction_id", "reproduction_file", "space_hash", "dmlbench", "config",
             "git_revision", "blas", "seed", "trials_per_arm", "folds", "fold_level", "threads", "objective",
             "budget", "arms", "fold_overrides")
ARM_KEYS = ("name", "label", "overrides", "space")
HEADER_KEYS = ("reproduction", "reproduction_id", "reproduction_file", "space_hash", "git_revision", "blas", "seed",
               "trials_per_arm", "folds", "fold_level", "threads", "objective", "budget")


class PlanError(Exception):
    """A plan.json that does not follow the contract, or a study that cannot be collected."""


class Interrupted(BaseException):
    """SIGTERM/SIGINT reached the worker; the running trial is left RUNNING."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def fail(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def say(message):
    print(f"[tune] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------- plan

def load_plan(directory):
    path = os.path.join(directory, "plan.json")
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError(f"cannot read {path}: {e}")
    validate_plan(plan)
    return plan


def validate_plan(plan):
    if not isinstance(plan, dict):
        raise PlanError("plan.json is not a JSON object")
    for key in PLAN_KEYS:
        if key not in plan:
            raise PlanError(f"plan.json has no key '{key}'")
    for key in ("seed", "trials_per_arm", "folds", "threads"):
        if not isinstance(plan[key], int) or isinstance(plan[key], bool):
            raise PlanError(f"plan.json '{key}' is not an integer")
    if plan["trials_per_arm"] < 1 or plan["folds"] < 1:
        raise PlanError("plan.json 'trials_per_arm' and 'folds' must be at least 1")
    for parent, keys in (("objective", ("path", "secondary")), ("budget", ("epochs", "steps_per_epoch", "patience"))):
        for key in keys:
            if not isinstance(plan[parent], dict) or key not in plan[parent]:
                raise PlanError(f"plan.json has no key '{parent}.{key}'")
    folds = plan["fold_overrides"]
    if not isinstance(folds, list) or len(folds) != plan["folds"] or not all(isinstance(f, list) for f in folds):
        raise PlanError(f"plan.json 'fold_overrides' is not a list of {plan['folds']} lists")
    if not isinstance(plan["arms"], list) or not plan["arms"]:
        raise PlanError("plan.json 'arms' is not a non-empty list")
    names = set()
    for index, arm in enumerate(plan["arms"]):
        validate_arm(arm, index)
        if arm["name"] in names:
            raise PlanError(f"arm '{arm['name']}' appears twice")
        names.add(arm["name"])


def validate_arm(arm, index):
    if not isinstance(arm, dict):
        raise PlanError(f"arm {index} is not a JSON object")
    for key in ARM_KEYS:
        if key not in arm:
            raise PlanError(f"arm {arm.get('name', index)!r} has no key '{key}'")
    if not isinstance(arm["name"], str) or not arm["name"] or "/" in arm["name"]:
        raise PlanError(f"arm {index}: 'name' must be a non-empty string without '/'")
    if not isinstance(arm["overrides"], list) or not isinstance(arm["space"], dict):
        raise PlanError(f"arm '{arm['name']}': 'overrides' must be a list and 'space' an object")
    for key, entry in arm["space"].items():
        try:
            distribution(entry)
        except (ValueError, TypeError, KeyError) as e:
            raise PlanError(f"arm '{arm['name']}': space '{key}': {e}")


def distribution(entry):
    """One space entry -> its Optuna distribution (ValueError for an empty, unknown or malformed one)."""
    if not isinstance(entry, dict) or not entry:
        raise ValueError("empty space entry")
    kind = entry.get("type")
    if kind == "categorical":
        choices = entry.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ValueError("'choices' must be a non-empty list")
        return CategoricalDistribution(choices)
    if kind not in ("float", "int"):
        raise ValueError(f"unknown type {kind!r} (float, int or categorical)")
    low, high, log = entry["low"], entry["high"], entry.get("log", False)
    numbers = (int,) if kind == "int" else (int, float)
    if not all(isinstance(v, numbers) and not isinstance(v, bool) for v in (low, high)):
        raise ValueError(f"'low' and 'high' must be {kind} numbers")
    if not isinstance(log, bool):
        raise ValueError("'log' must be true or false")
    if kind == "int":
        return IntDistribution(low, high, log=log)
    return FloatDistribution(float(low), float(high), log=log)


def space_distributions(arm):
    return {key: distribution(entry) for key, entry in arm["space"].items()}


# ------------------------------------------------------------------------------------------------ storage, lock

def open_storage(directory):
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    path = os.path.join(directory, "study.journal")
    return optuna.storages.JournalStorage(optuna.storages.JournalFileStorage(path))


def study_name(plan, arm):
    return f"{plan['reproduction']}:{arm['name']}"


_signals = {"child": None, "critical": 0, "pending": None}


def on_signal(signum, frame):
    child = _signals["child"]
    if child is not None and child.poll() is None:
        child.kill()
    if _signals["critical"]:
        _signals["pending"] = signum
        return
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_deferred():
    """Journal writes that belong together (ask + attrs, tell) are not cut by SIGTERM/SIGINT."""
    _signals["critical"] += 1
    try:
        yield
    finally:
        _signals["critical"] -= 1
        pending = _signals["pending"]
        if not _signals["critical"] and pending is not None:
            _signals["pending"] = None
            raise Interrupted(pending)


@contextlib.contextmanager
def tune_lock(directory):
    with signals_deferred(), open(os.path.join(directory, "tune.lock"), "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def is_interrupted(trial):
    return trial.state == TrialState.FAIL and bool(trial.user_attrs.get("interrupted"))


def counted(trial):
    """Finished trials that count toward the budget: complete, or failed by themselves."""
    return trial.state == TrialState.COMPLETE or (trial.state == TrialState.FAIL and not is_interrupted(trial))


def budget_used(trials):
    """Counted trials plus RUNNING ones (WAITING ones are re-queued interrupted trials: they take the freed slot)."""
    return sum(1 for t in trials if counted(t) or t.state == TrialState.RUNNING)


# --------------------------------------------------------------------------------------------- interrupted trials

def worker_tag():
    return f"{socket.gethostname()}:{os.getpid()}"


def pid_dead(tag):
    """True when `tag` (host:pid) names this host and a process that no longer runs (or is a zombie)."""
    host, _, pid = str(tag).rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def recover_interrupted(storage, study):
    """Under the lock: RUNNING trials of dead workers of this host -> FAIL + interrupted, their params re-queued."""
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if not pid_dead(trial.user_attrs.get("worker", "")):
            continue
        storage.set_trial_user_attr(trial._trial_id, "interrupted", True)
        storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        study.enqueue_trial(dict(trial.params), user_attrs={"requeued_from": trial.number})
        say(f"{study.study_name} trial {trial.number} was interrupted (worker {trial.user_attrs['worker']}); "
            f"its params are queued again")


def arm_seed(plan, arm_index, trials_so_far):
    return plan["seed"] * SEED_STRIDE + arm_index * ARM_STRIDE + trials_so_far


def ask_next(plan, directory, storage, arm_index, worker_name):
    """Under the lock: a new trial of the arm when its budget has room, else None."""
    arm = plan["arms"][arm_index]
    with tune_lock(directory):
        probe = optuna.load_study(study_name=study_name(plan, arm), storage=storage)
        recover_interrupted(storage, probe)
        trials = probe.get_trials(deepcopy=False)
        if budget_used(trials) >= plan["trials_per_arm"]:
            return None, None
        # TPE with Optuna's defaults: its first 10 trials (n_startup_trials) are random start-up draws.
        sampler = optuna.samplers.TPESampler(seed=arm_seed(plan, arm_index, len(trials)))
        study = optuna.load_study(study_name=study_name(plan, arm), storage=storage, sampler=sampler)
        trial = study.ask(space_distributions(arm))
        trial.set_user_attr("worker", worker_tag())
        trial.set_user_attr("started", time.time())
        if worker_name:
            trial.set_user_attr("worker_name", worker_name)
    return study, trial


# ---------------------------------------------------------------------------------------------------- one trial

def format_value(value, dist):
    if isinstance(dist, FloatDistribution):
        return repr(float(value))
    if isinstance(dist, IntDistribution):
        return str(int(value))
    return str(value)


def train_command(plan, arm, fold, params, out):
    command = [plan["dmlbench"], "train", "--config", plan["config"]]
    for override in list(arm["overrides"]) + list(plan["fold_overrides"][fold]):
        command += ["--set", override]
    dists = space_distributions(arm)
    for key in arm["space"]:
        command += ["--set", f"{key}={format_value(params[key], dists[key])}"]
    # a trial whose run (config, code, threads, device) has finished before is read back, not trained again
    return command + ["--set", f"seed={plan['seed']}", "--out", out, "--reuse-finished"]


class TrialFailed(Exception):
    def __init__(self, fold, reason, log_tail):
        super().__init__(reason)
        self.fold, self.reason, self.log_tail = fold, reason, log_tail


def log_tail(folder):
    try:
        with open(os.path.join(folder, "train_log.txt"), encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-LOG_TAIL_LINES:])
    except OSError:
        return ""


def dotted(obj, path):
    """The value at a dotted path (object keys or 0-based array indices); KeyError when absent."""
    for part in path.split("."):
        if isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            raise KeyError(path)
    return obj


def finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def read_fold(plan, folder, fold, seconds):
    try:
        with open(os.path.join(folder, "metrics.json"), encoding="utf-8") as f:
            metrics = json.load(f)
        stop = metrics["early_stopping"]
        best_epoch = int(stop["best_epoch"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise TrialFailed(fold, f"no readable metrics.json early_stopping ({e})", log_tail(folder))
    if not finite(stop.get("best")):
        raise TrialFailed(fold, f"objective {stop.get('best')!r} is not a finite number", log_tail(folder))
    try:
        secondary = dotted(metrics["curve"][best_epoch - 1]["eval"], plan["objective"]["secondary"])
    except (KeyError, IndexError, TypeError):
        say(f"warning: no '{plan['objective']['secondary']}' at epoch {best_epoch} in {folder}/metrics.json")
        secondary = None
    return {"fold": fold, "objective": float(stop["best"]),
            "secondary": float(secondary) if finite(secondary) else None,
            "best_epoch": best_epoch, "best_step": stop.get("best_step"), "epochs_run": stop.get("epochs_run"),
            "stopped_early": stop.get("stopped_early"), "seconds": seconds}


def run_fold(plan, arm, fold, params, folder):
    if os.path.isdir(folder):
        shutil.rmtree(folder)  # a re-run starts clean
    os.makedirs(folder)
    env = dict(os.environ, OMP_NUM_THREADS=str(plan["threads"]))
    start = time.monotonic()
    with open(os.path.join(folder, "train_log.txt"), "w", encoding="utf-8") as log:
        try:
            _signals["child"] = subprocess.Popen(train_command(plan, arm, fold, params, folder), stdout=log,
                                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        except OSError as e:
            log.write(f"{PROG}: cannot start {plan['dmlbench']}: {e}\n")
            log.flush()
            raise TrialFailed(fold, "train did not start", log_tail(folder))
        status = _signals["child"].wait()
        _signals["child"] = None
    seconds = time.monotonic() - start
    if status != 0:
        raise TrialFailed(fold, f"train exited with status {status}", log_tail(folder))
    return read_fold(plan, folder, fold, seconds)


def summarize(plan, folds):
    secondaries = [f["secondary"] for f in folds]
    epochs = math.floor(sum(f["best_epoch"] for f in folds) / len(folds) + 0.5)
    return {"folds": folds,
            "secondary": None if None in secondaries else sum(secondaries) / len(secondaries),
            "epochs": epochs, "steps": epochs * plan["budget"]["steps_per_epoch"],
            "seconds": sum(f["seconds"] for f in folds)}


def run_trial(plan, directory, arm, study, trial):
    params = trial.params
    base = os.path.join(directory, "trials", arm["name"], f"{trial.number:04d}")
    folds = []
    try:
        for fold in range(plan["folds"]):
            folds.append(run_fold(plan, arm, fold, params, os.path.join(base, f"fold{fold}")))
    except TrialFailed as failed:
        with signals_deferred():
            for key, value in (("folds", folds), ("failed_fold", failed.fold), ("log_tail", failed.log_tail),
                               ("seconds", sum(f["seconds"] for f in folds))):
                trial.set_user_attr(key, value)
            study.tell(trial, state=TrialState.FAIL)
        say(f"{arm['name']} trial {trial.number} FAILED in fold {failed.fold}: {failed.reason}; log tail:\n"
            + failed.log_tail.rstrip("\n"))
        return None
    summary = summarize(plan, folds)
    value = sum(f["objective"] for f in folds) / len(folds)
    with signals_deferred():
        for key, attr in summary.items():
            trial.set_user_attr(key, attr)
        study.tell(trial, value)
    return value, summary


# ------------------------------------------------------------------------------------------------------- work

def progress(plan, storage, arm, trial, result):
    trials_by_arm = [storage_trials(plan, storage, a) for a in plan["arms"]]
    done = [t for ts in trials_by_arm for t in ts if counted(t) and "seconds" in t.user_attrs]
    left = sum(max(0, plan["trials_per_arm"] - sum(map(counted, ts))) for ts in trials_by_arm)
    mean = sum(t.user_attrs["seconds"] for t in done) / len(done) if done else 0.0
    eta = mean * left / 60.0
    index = sum(map(counted, trials_by_arm[plan["arms"].index(arm)]))
    head = f"{arm['name']} trial {index}/{plan['trials_per_arm']}"
    if result is None:
        body = f"#{trial.number} failed"
    else:
        value, summary = result
        folds = ", ".join(f"{f['objective']:.2f}" for f in summary["folds"])
        body = f"objective {value:.4f} (folds {folds}), {summary['epochs']} epochs, {summary['seconds']:.0f} s"
    say(f"{head}: {body}; ETA {'<1' if 0 < eta < 1 else round(eta)} min")


def storage_trials(plan, storage, arm):
    return optuna.load_study(study_name=study_name(plan, arm), storage=storage).get_trials(deepcopy=False)


def prepare_studies(plan, directory, storage):
    with tune_lock(directory):
        for arm in plan["arms"]:
            study = optuna.create_study(storage=storage, study_name=study_name(plan, arm), direction="maximize",
                                        load_if_exists=True)
            recover_interrupted(storage, study)


def work(args):
    plan = load_plan(args.dir)
    if not (os.path.isfile(plan["dmlbench"]) and os.access(plan["dmlbench"], os.X_OK)):
        raise PlanError(f"plan.json 'dmlbench' {plan['dmlbench']!r} is not an executable file")
    storage = open_storage(args.dir)
    prepare_studies(plan, args.dir, storage)
    asked = True
    while asked:  # passes over the arms until none has room (an arm whose last trials run elsewhere is left)
        asked = False
        for arm_index, arm in enumerate(plan["arms"]):
            while True:
                study, trial = ask_next(plan, args.dir, storage, arm_index, args.worker)
                if trial is None:
                    break
                asked = True
                params = ", ".join(f"{k}={v}" for k, v in trial.params.items())
                say(f"{arm['name']} trial #{trial.number} started: {params}")
                result = run_trial(plan, args.dir, arm, study, trial)
                progress(plan, storage, arm, trial, result)
    say("nothing left to ask; worker done")
    return 0


# ---------------------------------------------------------------------------------------------------- collect

def clean(value):
    """JSON-safe: non-finite floats -> None, numpy scalars -> Python numbers."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def trial_record(arm, trial):
    attrs = trial.user_attrs
    complete = trial.state == TrialState.COMPLETE
    record = {"number": trial.number, "state": "complete" if complete else "failed",
              "params": {k: trial.params[k] for k in arm["space"] if k in trial.params},
              "objective": trial.value if complete else None,
              "secondary": attrs.get("secondary") if complete else None,
              "epochs": attrs.get("epochs") if complete else None,
              "steps": attrs.get("steps") if complete else None,
              "seconds": attrs.get("seconds"), "folds": attrs.get("folds", [])}
    if not complete:
        record["failed_fold"] = attrs.get("failed_fold")
        record["log_tail"] = attrs.get("log_tail", "")
    return record


def best_of(records):
    complete = [r for r in records if r["state"] == "complete" and finite(r["objective"])]
    if not complete:
        return None
    best = min(complete, key=lambda r: (-r["objective"], r["number"]))
    return {k: best[k] for k in ("number", "params", "objective", "secondary", "epochs", "steps")}


def arm_trials(plan, storage, arm):
    try:
        return storage_trials(plan, storage, arm)
    except KeyError:
        return []


def check_complete(plan, trials_by_arm):
    short = []
    for arm, trials in zip(plan["arms"], trials_by_arm):
        n = sum(map(counted, trials))
        if n < plan["trials_per_arm"]:
            running = sum(t.state == TrialState.RUNNING for t in trials)
            waiting = sum(t.state == TrialState.WAITING for t in trials)
            short.append(f"arm '{arm['name']}' has {n} of {plan['trials_per_arm']} trials finished "
                         f"({running} running, {waiting} waiting)")
    if short:
        raise PlanError("the study is not complete: " + "; ".join(short))


def wall_seconds(trials_by_arm):
    starts = [t.user_attrs["started"] for ts in trials_by_arm for t in ts if "started" in t.user_attrs]
    ends = [t.datetime_complete.timestamp() for ts in trials_by_arm for t in ts
            if counted(t) and t.datetime_complete is not None]
    return max(ends) - min(starts) if starts and ends else None


def collect(args):
    plan = load_plan(args.dir)
    if not os.path.exists(os.path.join(args.dir, "study.journal")):
        raise PlanError(f"no study in {args.dir} (no study.journal): run the workers first")
    storage = open_storage(args.dir)
    trials_by_arm = [arm_trials(plan, storage, arm) for arm in plan["arms"]]
    check_complete(plan, trials_by_arm)
    out = {key: plan[key] for key in HEADER_KEYS}
    if "trainer_code" in plan:  # the trainer code set the study searched (`dmlbench tune` records it)
        out["trainer_code"] = plan["trainer_code"]
    out["sampler"] = (f"optuna {optuna.__version__} TPESampler, default settings, seeded per trial "
                      f"(seed * {SEED_STRIDE} + arm * {ARM_STRIDE} + trials so far)")
    out["arms"] = []
    for arm, trials in zip(plan["arms"], trials_by_arm):
        records = [trial_record(arm, t) for t in sorted(trials, key=lambda t: t.number) if counted(t)]
        out["arms"].append({"name": arm["name"], "label": arm["label"], "overrides": arm["overrides"],
                            "space": arm["space"], "trials": records, "best": best_of(records),
                            "wall_seconds": sum(r["seconds"] or 0.0 for r in records)})
    out["wall_seconds"] = wall_seconds(trials_by_arm)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(clean(out), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, args.out)
    say(f"collected {len(plan['arms'])} arms x {plan['trials_per_arm']} trials into {args.out}")
    return 0


# ------------------------------------------------------------------------------------------------------- main

def parse_args(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="The Optuna driver of `dmlbench tune`.")
    commands = parser.add_subparsers(dest="command", required=True)
    w = commands.add_parser("work", help="run trials until no arm has room left")
    w.add_argument("dir", help="the tune folder (plan.json, study.journal, trials/)")
    w.add_argument("--worker", default=None, help="a name for this worker (recorded with its trials)")
    c = commands.add_parser("collect", help="write the finished study as JSON")
    c.add_argument("dir", help="the tune folder")
    c.add_argument("--out", required=True, help="the JSON file to write")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        return work(args) if args.command == "work" else collect(args)
    except PlanError as e:
        fail(str(e))
    except Interrupted as e:
        say(f"stopped by signal {e.signum}; the running trial stays RUNNING and is queued again on the next start")
        return 128 + e.signum


if __name__ == "__main__":
    sys.exit(main())
