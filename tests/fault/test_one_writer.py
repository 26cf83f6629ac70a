"""One writer per folder, and a run that diverges says so.

  train    two `train` into one --out at once (the second started once the first holds the folder, another seed): the
           second exits 2 in one line naming the folder, the command and the first's pid; the survivor's files are
           byte for byte a lone run's (metrics.json's results, every other file but its log). A holder SIGKILLed
           after its first checkpoint: `--resume` by another process works with no clean-up, and ends identical.
  sweep    two `sweep --local` into one folder: the same; the survivor's point is the lone run's.
  report   two `report` into one work folder, and two into one output from different work folders: the second is
           refused each time; the survivor's report is the lone report's.
  tune     two `tune` into one study: the second is refused; the survivor's tuned.json is a lone study's.
  diverge  a loss that becomes non-finite stops the run in one line (step, epoch, last finite loss, the key to lower);
           the checkpoint before it is kept byte for byte; `--resume` under another config is refused naming the key
           and `--resume-changed`, which then continues and records the change; a loss grown 100-fold is noted in the
           log and in metrics.json's loss_growth (exit 0); an ordinary run's is not (the control).

Usage: test_one_writer.py train|sweep|report|tune|diverge DMLBENCH REPO WORK"""
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from dmlbench_cli import runner  # noqa: E402

import report_fixture  # noqa: E402
from report_fixture import report_result  # noqa: E402

mode, exe, repo, work = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]) / sys.argv[1]
CONFIG = repo / "experiments/configs/lcc-mnist-evenodd.json"
SETS = {"dataset.data_dir": str(repo / "data/mnist"), "seed": 1, "schedule.epochs": 2, "eval.nmi": False,
        "eval.sets": "test_digits", "eval.scatter": False}
run = runner(exe, timeout=600)
ONE_LINE = re.compile(r"dmlbench: error: [^\n]+\n\Z")
LOCK = ".dmlbench.lock"


def train_args(out, *extra, **sets):
    args = ["train", "--config", str(CONFIG), "--out", str(out)]
    for k, v in (SETS | {k.replace("__", "."): v for k, v in sets.items()}).items():
        args += ["--set", f"{k}={v if isinstance(v, str) else json.dumps(v)}"]
    return args + list(extra)


# Not compared byte for byte: the log and metrics.json (timings), the lock (its holder), and LibTorch's optimizer
# file, whose state entries are keyed by the parameters' addresses in memory (another order in every process, the same
# values), with checkpoint.json, which holds that file's hash; a sweep point's log and status (times and host). The
# model's checkpoint is compared. run_key.json holds metrics.json's hash (timings) and the work folder: its key and the
# hashes of the other files are compared.
NOT_BYTES = ("train_log.txt", LOCK, "metrics.json", "checkpoint_optim.pt", "checkpoint.json", "sweep_log.txt",
             "sweep_status.json", ".sweep.lock", "run_key.json")


def run_files(folder):
    """A run folder's files as bytes (but NOT_BYTES) and metrics.json's results: what a run leaves."""
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob("*"))
             if p.is_file() and p.name not in NOT_BYTES}
    m = json.loads((Path(folder) / "metrics.json").read_text())
    files["metrics.json"] = {k: m.get(k) for k in ("config", "eval", "curve", "steps", "first_loss", "last_loss",
                                                   "loss_growth", "seed")}
    key = json.loads((Path(folder) / "run_key.json").read_text())
    files["run_key.json"] = {k: key[k] for k in ("key", "config_hash", "code_hash", "threads", "device")} | {
        "files": {f: h for f, h in key["files"].items() if f != "metrics.json"}}
    return files


def start(args):
    return subprocess.Popen([exe, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_held(lock_file, proc):
    """Waits until proc holds the lock (its pid written in the lock file)."""
    for _ in range(3000):
        try:
            if json.loads(Path(lock_file).read_text()).get("pid") == proc.pid:
                return
        except (OSError, ValueError):
            pass
        assert proc.poll() is None, f"the first command ended before it held {lock_file}:\n{proc.stdout.read()}"
        time.sleep(0.01)
    raise AssertionError(f"{lock_file} never named pid {proc.pid}")


def refused_in_use(args, folder, holder, command):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    print(f"$ dmlbench {' '.join(map(str, args))}\n{out}")
    assert p.returncode == 2, f"exit status {p.returncode}, expected 2"
    assert ONE_LINE.fullmatch(out), f"not one line: {out!r}"
    want = f"{folder} is in use by `dmlbench {command} "
    assert want in out and f"(pid {holder.pid} on " in out, f"{want!r} / pid {holder.pid} not in {out!r}"


def finish(proc):
    out = proc.communicate(timeout=600)[0]
    print(out)
    assert proc.returncode == 0, f"the first command failed ({proc.returncode})"


def two_at_once(first, second, lock_file, folder, command):
    a = start(first)
    wait_held(lock_file, a)
    refused_in_use(second, folder, a, command)
    finish(a)


def train():
    lone = work / "lone"
    run(*train_args(lone))
    shared = work / "shared"
    two_at_once(train_args(shared), train_args(shared, seed=2), shared / LOCK, shared, "train")
    assert run_files(shared) == run_files(lone), "the surviving run differs from a lone run"
    # a holder SIGKILLed after its first checkpoint: another process resumes with no clean-up
    killed = work / "killed"
    p = subprocess.Popen([exe, *train_args(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None and not ((killed / "checkpoint.json").exists() and
                                    json.loads((killed / "checkpoint.json").read_text())["epochs_done"] >= 1):
        time.sleep(0.02)
    p.kill()
    p.wait()
    assert (killed / LOCK).exists()
    run(*train_args(killed, "--resume"))
    assert run_files(killed) == run_files(lone), "the run resumed after its holder's SIGKILL differs"
    print("two trains into one folder: one refused, the survivor a lone run's; SIGKILLed holder: resumed identical")


def sweep_grid():
    grid = work / "grid.json"
    grid.write_text(json.dumps({"name": "writers", "command": "train", "config": str(CONFIG),
                                "set": {k: v for k, v in SETS.items() if k != "seed"} | {"eval.sets": ["test_digits"]},
                                "seeds": [1], "metrics": [{"label": "steps", "path": "steps"}]}))
    return grid


def sweep():
    grid = sweep_grid()
    lone, shared = work / "lone", work / "shared"
    run("sweep", "--grid", str(grid), "--out", str(lone), "--local")
    args = ["sweep", "--grid", str(grid), "--out", str(shared), "--local"]
    two_at_once(args, args, shared / LOCK, shared, "sweep")
    assert run_files(shared / "seed1") == run_files(lone / "seed1"), "the surviving sweep's point differs"
    print("two sweeps into one folder: one refused, the survivor's point a lone sweep's")


def report_args(folder, out):
    return report_fixture.report_args(repo, folder, out)


def fresh_report_folder(name):
    return report_fixture.fresh_report_folder(repo, work, name)


def report():
    lone = fresh_report_folder("lone")
    run(*report_args(lone, lone / "reports"))
    want = report_result(lone, lone / "reports")
    shared = fresh_report_folder("shared")
    args = report_args(shared, shared / "reports")
    two_at_once(args, args, shared / "work" / LOCK, shared / "work", "report")
    assert report_result(shared, shared / "reports") == want, "the surviving report differs from a lone report"
    # another work folder, the same output: refused by the output's lock, which lies beside it
    other = fresh_report_folder("other")
    two_at_once(report_args(other, shared / "reports"), report_args(fresh_report_folder("third"), shared / "reports"),
                shared / ".reports.dmlbench.lock", shared / "reports", "report")
    assert report_result(other, shared / "reports") == want
    print("two reports into one work folder, and into one output: one refused each time, the survivor's report a "
          "lone one's")


def tune_file():
    source = json.loads((repo / "experiments/reproductions/lcc_table1.json").read_text())
    source["set"] = {"batch.per_class": 16}
    source["tuning"]["budget"] = {"epochs": 2, "steps_per_epoch": 3, "patience": 1}
    path = work / "tiny.json"
    path.write_text(json.dumps(source, indent=2))
    return str(path)


def tuned(study):
    t = json.loads((study / "tuned.json").read_text())
    return [(a["name"], [(x["params"], x["objective"]) for x in a["trials"]], a["best"]["params"]) for a in t["arms"]]


def tune():
    f = tune_file()
    lone, shared = work / "lone", work / "shared"
    run("tune", "--file", f, "--out", str(lone), "--jobs", "1", "--trials", "1")
    args = ["tune", "--file", f, "--out", str(shared), "--jobs", "1", "--trials", "1"]
    two_at_once(args, args, shared / LOCK, shared, "tune")
    assert tuned(shared) == tuned(lone), "the surviving study differs from a lone study"
    print("two tunes into one study: one refused, the survivor's tuned.json a lone study's")


def diverge():
    sgd = {"optimizer__name": "sgd", "optimizer__lr": 0.01, "schedule__epochs": 3}
    ordinary = work / "ordinary"
    out = run(*train_args(ordinary, **(sgd | {"schedule__epochs": 1})))
    m = json.loads((ordinary / "metrics.json").read_text())
    steps = m["steps"]  # of one epoch
    assert m["loss_growth"]["past_factor"] is False and "grew past" not in out, "an ordinary run noted as grown"
    # one full epoch checkpointed, then on with a learning rate that makes the loss non-finite; the margin keeps every
    # triplet active, so that the steps cannot fall idle on a kernel where the mined triplets all fall inside it
    folder = work / "run"
    run(*train_args(folder, "--max-steps", str(steps), **sgd))
    checkpoint = {p.name: p.read_bytes() for p in sorted(folder.glob("checkpoint*"))}
    p = subprocess.run([exe, *train_args(folder, "--resume-changed",
                                         **(sgd | {"optimizer__lr": 1000, "loss__margin": 1000}))],
                       capture_output=True, text=True, timeout=600)
    print(p.stdout + p.stderr)
    last = (p.stdout + p.stderr)[(p.stdout + p.stderr).rfind("dmlbench: error:"):]
    assert p.returncode == 2 and ONE_LINE.fullmatch(last), (p.returncode, last)
    assert re.search(r"training diverged at step \d+ \(epoch [23], step \d+ of the epoch\): the loss is [-a-z]+; the "
                     r"last finite loss was [^ ]+ at step \d+; lower optimizer\.lr \(now 1000\) and continue from the "
                     r"checkpoint of epoch 1 in ", last), last
    assert {p.name: p.read_bytes() for p in sorted(folder.glob("checkpoint*"))} == checkpoint, "the checkpoint moved"
    # a plain --resume under another lr is refused, naming the key and the flag that continues
    p = subprocess.run([exe, *train_args(folder, "--resume", **(sgd | {"optimizer__lr": 0.005}))],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 2 and "/optimizer/lr 0.01 -> 0.005" in p.stderr and "--resume-changed" in p.stderr, p.stderr
    out = run(*train_args(folder, "--resume-changed", **(sgd | {"optimizer__lr": 0.005})))
    assert "under a changed config: /optimizer/lr 0.01 -> 0.005" in out, out
    m = json.loads((folder / "metrics.json").read_text())
    assert m["resumed_with_changes"] == [{"after_epoch": 1, "changes": [{"key": "/optimizer/lr", "was": 0.01,
                                                                         "now": 0.005}]}], m["resumed_with_changes"]
    assert m["steps"] == 3 * steps
    # Adam at lr 1000 (inside the allowed range): finite but grown; noted, not an error
    grown = work / "grown"
    out = run(*train_args(grown, schedule__epochs=1, optimizer__lr=1000))
    g = json.loads((grown / "metrics.json").read_text())["loss_growth"]
    assert g["past_factor"] is True and g["max_step_loss"] > 100 * g["first_step_loss"], g
    assert "note: the loss grew past 100 x its first step's" in out, out
    print(f"non-finite loss: one line, checkpoint kept, resumed under a changed lr; Adam at lr 1000: grown, {g}")


shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
{"train": train, "sweep": sweep, "report": report, "tune": tune, "diverge": diverge}[mode]()
