"""Fault tests: what a kill, a full disk, a read-only folder or a missing data folder leaves behind.

  kills    N SIGKILLs at seeded random moments of `train` (and of `sweep --local` running the same training as its one
           point): every resume ends bit-identical (metrics.json's eval, curve, steps and losses) to an uninterrupted
           run, and no temporary file is left behind; a SIGTERM to `sweep --local` alone ends its point with it, and
           the rerun ends identical; a missing data folder is one clear error.
  report   N SIGKILLs at seeded random moments of `report` (a fixture reproduction of 4 runs of 3 steps and the figures
           stage): each rerun ends with the uninterrupted report's stage summary and claims, and a reports folder that
           is either absent or whole; a full disk while the report is written (tmpfs, as below) is one clear error and
           the previous report is left as it was.
  disk     a small tmpfs under the build folder (root; exit 77, skipped, where mount fails): a full disk while a
           checkpoint is written and while a finished run's outputs (metrics.json) are written is one clear error,
           the previous checkpoint and metrics.json are left byte for byte, and a resume on free space ends
           bit-identical to the uninterrupted run; the same for `sweep --local` whose point resumes on a full disk (its
           checkpoint and its status find no room); a read-only output folder is one clear error.

Usage: test_faults.py kills|report|disk DMLBENCH REPO WORK"""
import json
import os
import random
import re
import shutil
import signal
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
DATA = repo / "data/mnist"
# 4 epochs of 12 steps of the bundled digits (a third of an epoch of them), with a checkpoint after each; the
# evaluation of the test digits only
SETS = {"dataset.data_dir": str(DATA), "seed": 1, "schedule.epochs": 4, "schedule.steps_per_epoch": 12,
        "eval.nmi": False, "eval.sets": "test_digits", "eval.scatter": False}
run = runner(exe, timeout=600)
ONE_LINE = re.compile(r"dmlbench: error: [^\n]+\n\Z")


def train_args(out, *extra):
    args = ["train", "--config", str(CONFIG), "--out", str(out)]
    for k, v in SETS.items():
        args += ["--set", f"{k}={v if isinstance(v, str) else json.dumps(v)}"]
    return args + list(extra)


def result(folder):
    m = json.loads((Path(folder) / "metrics.json").read_text())
    return {k: m.get(k) for k in ("config", "eval", "curve", "steps", "first_loss", "last_loss")}


def temporaries(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*.tmp"))


def checkpoint_bytes(folder):
    """The complete checkpoint's files: a kill may also leave the next one's temporary files, which a resume drops."""
    return {p.name: p.read_bytes() for p in sorted(Path(folder).glob("checkpoint*")) if p.suffix != ".tmp"}


def kill_at(args, seconds):
    """Starts dmlbench args in its own process group and SIGKILLs the group after `seconds`; True if it was still
    running then."""
    p = subprocess.Popen([exe, *args], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        for _ in range(600):  # the whole group gone (a sweep's point runner and its training), and with it any lock
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        return True


def refused(args, pattern):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    print(f"$ dmlbench {' '.join(map(str, args))}\n{out}")
    assert p.returncode == 2, f"exit status {p.returncode}, expected 2"
    last = out[out.rfind("dmlbench: error:"):] if "dmlbench: error:" in out else out
    assert ONE_LINE.match(last), f"not one line ending the output: {last!r}"
    assert re.search(pattern, last), f"{pattern!r} not in {last!r}"
    return last


def reference():
    ref = work / "reference"
    started = time.time()
    run(*train_args(ref))
    return result(ref), time.time() - started


def kills():
    want, seconds = reference()
    rng = random.Random(29)
    outcomes = []
    for i in range(6):
        out, at = work / f"train-kill{i}", rng.uniform(0.2, seconds)
        killed = kill_at(train_args(out), at)
        had = json.loads((out / "checkpoint.json").read_text())["epochs_done"] if (out / "checkpoint.json").exists() else 0
        run(*train_args(out, "--resume"))
        assert result(out) == want, f"train killed at {at:.2f} s: the resumed run differs from an uninterrupted one"
        assert not temporaries(out), temporaries(out)
        outcomes.append(f"train killed at {at:.1f} s ({'running' if killed else 'already done'}, "
                        f"{had} epochs checkpointed): resumed identical")
    grid = work / "grid.json"
    grid.write_text(json.dumps({"name": "faults", "command": "train", "config": str(CONFIG),
                                "set": {k: v for k, v in SETS.items() if k != "seed"} | {"eval.sets": ["test_digits"]},
                                "seeds": [1], "metrics": [{"label": "steps", "path": "steps"}]}))
    for i in range(2):
        out, at = work / f"sweep-kill{i}", rng.uniform(0.2, seconds)
        killed = kill_at(["sweep", "--grid", str(grid), "--out", str(out), "--local"], at)
        run("sweep", "--grid", str(grid), "--out", str(out), "--local")
        assert result(out / "seed1") == want, f"sweep killed at {at:.2f} s: its point differs from the reference"
        assert not temporaries(out), temporaries(out)
        outcomes.append(f"sweep --local killed at {at:.1f} s ({'running' if killed else 'already done'}): "
                        "rerun identical")
    outcomes.append(terminate_sweep(grid, want))
    refused(train_args(work / "no-data") + ["--set", f"dataset.data_dir={work / 'nowhere'}"], "nowhere")
    assert not (work / "no-data" / "metrics.json").exists()
    print(f"reference run {seconds:.1f} s; " + "; ".join(outcomes))


def group_gone(pgid, seconds):
    for _ in range(int(seconds / 0.05)):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def terminate_sweep(grid, want):
    """SIGTERM to `sweep --local` alone (kill PID, timeout(1)) while its point trains: the point's processes end with
    it (they went on training with no parent), the sweep ends by the signal, and a rerun ends identical."""
    out = work / "sweep-term"
    p = subprocess.Popen([exe, "sweep", "--grid", str(grid), "--out", str(out), "--local"], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None and not (out / "seed1/checkpoint.json").exists():
        time.sleep(0.02)
    os.kill(p.pid, signal.SIGTERM)
    code = p.wait(timeout=120)
    gone = group_gone(p.pid, 30)
    if not gone:
        os.killpg(p.pid, signal.SIGKILL)
    assert code == -signal.SIGTERM, f"the sweep ended with {code}, not by SIGTERM"
    assert gone, "the sweep's point was still running 30 s after the sweep ended"
    run("sweep", "--grid", str(grid), "--out", str(out), "--local")
    assert result(out / "seed1") == want, "the sweep rerun after SIGTERM differs from the reference"
    return "SIGTERM to sweep --local alone: its point ended with it, rerun identical"


def mount(folder, options):
    folder.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"skipped: cannot mount a tmpfs here ({p.stderr.strip()}); the full-disk cases need root")
        sys.exit(77)


def fill(folder):
    """Fills the filesystem of folder: what is left after, in bytes."""
    with open(folder / "filler", "wb", buffering=0) as f:  # unbuffered: nothing left to flush at close
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def start_until_checkpoint(args, folder):
    """Starts dmlbench args and SIGKILLs it once folder holds a checkpoint of at least one epoch."""
    p = subprocess.Popen([exe, *args], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None and not ((folder / "checkpoint.json").exists() and
                                    json.loads((folder / "checkpoint.json").read_text())["epochs_done"] >= 1):
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    # the group's other processes (a sweep's point runner) may still be exiting, their locks held: wait them out,
    # or the next command finds the point "running" (what failed a CI run: "0 of 1 points to run")
    assert group_exited(p.pid, 60), "a killed process of the group was still running 60 s after SIGKILL"
    return checkpoint_bytes(folder)


def group_exited(pgid, seconds):
    """Whether every process of the group has exited within `seconds`: gone, or a zombie, which holds no file and so
    no lock (an orphan's zombie waits for whoever reaps orphans here, which need not be soon)."""
    def running():
        for d in Path("/proc").iterdir():
            try:
                stat = (d / "stat").read_text() if d.name.isdigit() else ""
            except OSError:  # it exited while we looked
                continue
            fields = stat[stat.rfind(")") + 2:].split() if stat else []
            if fields and int(fields[2]) == pgid and fields[0] != "Z":
                return True
        return False
    for _ in range(int(seconds / 0.02)):
        if not running():
            return True
        time.sleep(0.02)
    return False


def sweep_on_full_disk(disk_dir, want):
    """`sweep --local` whose point resumes on a full disk: the training's checkpoint and the point's status find no
    room; one error ends the output, sweep.json and the checkpoint are kept, a rerun on free space ends identical."""
    grid, out = work / "grid.json", disk_dir / "sweep"
    grid.write_text(json.dumps({"name": "faults", "command": "train", "config": str(CONFIG),
                                "set": {k: v for k, v in SETS.items() if k != "seed"} | {"eval.sets": ["test_digits"]},
                                "seeds": [1], "metrics": [{"label": "steps", "path": "steps"}]}))
    args = ["sweep", "--grid", str(grid), "--out", str(out), "--local"]
    before = start_until_checkpoint(args, out / "seed1")
    plan = (out / "sweep.json").read_bytes()
    fill(disk_dir)
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)
    print(f"$ dmlbench {' '.join(args)}\n{p.stdout}{p.stderr}")
    assert p.returncode != 0
    assert ONE_LINE.search(p.stderr) and "No space left on device" in p.stderr.splitlines()[-1], p.stderr
    assert (out / "sweep.json").read_bytes() == plan and checkpoint_bytes(out / "seed1") == before
    assert not (out / "seed1/metrics.json").exists() and not temporaries(out), temporaries(out)
    (disk_dir / "filler").unlink()
    run(*args)
    assert result(out / "seed1") == want, "the sweep rerun on free space differs from an uninterrupted run"
    assert json.loads((out / "seed1/sweep_status.json").read_text())["ok"] is True
    print("full disk while a sweep point resumes and writes its status: one error, its checkpoint kept, rerun identical")


def disk():
    want, _ = reference()
    disk_dir, ro = work / "disk", work / "ro"
    for d in (disk_dir, ro):
        subprocess.run(["umount", str(d)], capture_output=True)
    mount(disk_dir, "size=64m")
    try:
        out = disk_dir / "run"
        # a checkpoint after epoch 1, then the disk full before the next: one line, the checkpoint left as it was
        before = start_until_checkpoint(train_args(out), out)
        assert json.loads(before["checkpoint.json"])["epochs_done"] >= 1
        left = fill(disk_dir)
        refused(train_args(out, "--resume"), "No space left on device")
        assert checkpoint_bytes(out) == before, "the full disk changed the previous checkpoint"
        assert not temporaries(out), temporaries(out)
        (disk_dir / "filler").unlink()
        run(*train_args(out, "--resume"))
        assert result(out) == want, "the run resumed on free space differs from an uninterrupted one"
        # a finished run's outputs on a full disk: metrics.json left as it was, then rewritten the same
        metrics = (out / "metrics.json").read_bytes()
        fill(disk_dir)
        refused(train_args(out, "--resume"), "No space left on device")
        assert (out / "metrics.json").read_bytes() == metrics
        assert not temporaries(out), temporaries(out)
        (disk_dir / "filler").unlink()
        run(*train_args(out, "--resume"))
        assert result(out) == want
        print(f"full disk ({left} bytes left): checkpoint and metrics.json kept, resumed identical")
        sweep_on_full_disk(disk_dir, want)
        mount(ro, "size=1m,ro")
        refused(train_args(ro / "run"), "Read-only file system")
    finally:
        for d in (disk_dir, ro):
            subprocess.run(["umount", str(d)], capture_output=True)


def report_args(folder, out):
    return report_fixture.report_args(repo, folder, out)


def fresh_report_folder(name):
    return report_fixture.fresh_report_folder(repo, work, name)


def report():
    ref = fresh_report_folder("reference")
    started = time.time()
    run(*report_args(ref, ref / "reports"))
    seconds, want = time.time() - started, report_result(ref, ref / "reports")
    rng = random.Random(290)
    outcomes = []
    for i in range(3):
        folder, at = fresh_report_folder(f"kill{i}"), rng.uniform(0.5, seconds)
        killed = kill_at(report_args(folder, folder / "reports"), at)
        assert not (folder / "reports").exists() or (folder / "reports/REPORT.md").is_file(), "a half-written report"
        run(*report_args(folder, folder / "reports"))
        assert report_result(folder, folder / "reports") == want, f"report killed at {at:.1f} s: another result"
        outcomes.append(f"report killed at {at:.1f} s ({'running' if killed else 'already done'}): rerun identical")
    print(f"reference report {seconds:.1f} s; " + "; ".join(outcomes))
    disk_dir = work / "disk"
    subprocess.run(["umount", str(disk_dir)], capture_output=True)
    mount(disk_dir, "size=16m")
    try:
        folder = fresh_report_folder("full")
        run(*report_args(folder, disk_dir / "reports"), "--store-from", "0")  # every stage kept in reports/stages
        def report_files():  # the lock file beside the report names its last holder: no part of the report; the
            # stage store (reports/stages) is the cache of the stages finished before the failure, kept on purpose
            return {p.relative_to(disk_dir): p.read_bytes() for p in sorted(disk_dir.rglob("*"))
                    if p.is_file() and not p.name.endswith(".dmlbench.lock")
                    and p.relative_to(disk_dir).parts[:2] != ("reports", "stages")}
        before = report_files()
        fill(disk_dir)
        p = subprocess.run([exe, *report_args(folder, disk_dir / "reports"), "--force", "--store-from", "0"], capture_output=True, text=True)
        print(p.stdout + p.stderr)
        assert p.returncode != 0 and "No space left on device" in p.stdout + p.stderr
        (disk_dir / "filler").unlink()
        after = report_files()
        assert after == before, "the full disk changed the previous report"
        assert any((disk_dir / "reports/stages").iterdir()), "the control: the store is written as stages finish"
        for stored in (disk_dir / "reports/stages").iterdir():  # each copy whole, or cut short before its record
            if not stored.name.endswith(".new"):
                assert json.loads((stored / "stage.json").read_text())["config_hash"], f"a broken copy {stored}"
        print("full disk while the report is written: one error, the previous report left as it was")
    finally:
        subprocess.run(["umount", str(disk_dir)], capture_output=True)


shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
{"kills": kills, "report": report, "disk": disk}[mode]()
