"""The report adds a seed to a stage by `dmlbench reproduce --seeds n + 1 --resume`; the runs that
finished under the same run key are read back (their metrics.json), not trained or evaluated again, so the earlier
seeds' values stay exactly as they were and only the new seed trains. Checked with the runs trained in-process
(--jobs 1) and by `dmlbench train` processes (--jobs 2). Negative control: a run whose metrics.json is gone is run
again (resumed from its checkpoint), not read.
Usage: test_reproduce_adds_seeds.py DMLBENCH REPRODUCTION_FILE DATA_DIR WORK_DIR"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

exe, repro, data, work = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
shutil.rmtree(work, ignore_errors=True)
READ = re.compile(r"\[reproduce\] (\d+) of (\d+) runs finished before under the same run key")


def read_back(log):
    """(runs read back, runs planned) that reproduce says."""
    m = READ.search(log)
    assert m, f"reproduce said nothing of the runs read back:\n{log}"
    return int(m.group(1)), int(m.group(2))


def run(seeds, jobs, resume=True):
    cmd = [exe, "reproduce", "--file", repro, "--profile", "quick", "--seeds", str(seeds), "--jobs", str(jobs),
           "--out", str(work), "--set", f"dataset.data_dir={data}", "--set", "schedule.max_steps=4"]
    if resume:
        cmd.append("--resume")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    logs = p.stderr + "".join(f.read_text() for f in work.glob("*/seed*/train_log.txt"))
    return json.loads((work / "summary.json").read_text())["variants"][0]["rows"], logs


def seeds_of(rows):
    return {(r["metric"], arm): e["seeds"] for r in rows for arm, e in r["arms"].items()}


first, log1 = run(2, 1, resume=False)
assert read_back(log1)[0] == 0, "a first run reads nothing"
arms = {arm for (_, arm) in seeds_of(first)}
second, log2 = run(3, 1)
assert read_back(log2) == (2 * len(arms), 3 * len(arms)), f"expected {2 * len(arms)} runs read back, log:\n{log2}"
for key, values in seeds_of(first).items():
    assert seeds_of(second)[key][:2] == values, f"{key}: the first two seeds changed: {values} -> {seeds_of(second)[key]}"
    assert len(seeds_of(second)[key]) == 3, f"{key}: no third seed"
for f in work.glob("*/seed*/train_log.txt"):
    f.unlink()
third, log3 = run(4, 2)  # the new seed through `dmlbench train` processes
assert read_back(log3) == (3 * len(arms), 4 * len(arms)), f"expected {3 * len(arms)} runs read back:\n{log3}"
assert log3.count("started:") == len(arms), f"expected one train process per arm:\n{log3}"
assert seeds_of(third) == {k: v + seeds_of(third)[k][3:] for k, v in seeds_of(second).items()}
# negative control: one run's metrics.json removed: that run is not read (it resumes from its checkpoint)
victim = sorted(work.glob("*/seed1/metrics.json"))[0]
victim.unlink()
for f in work.glob("*/seed*/train_log.txt"):
    f.unlink()
_, log4 = run(4, 1)
assert read_back(log4) == (4 * len(arms) - 1, 4 * len(arms)), f"expected one run not read back:\n{log4}"
print(f"seeds 2 -> 3 -> 4: the finished runs were read back ({2 * len(arms)}, {3 * len(arms)}), their values "
      "unchanged; a run without metrics.json was run again")
