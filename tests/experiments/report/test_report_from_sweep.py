"""`dmlbench report --sweep DIR`: a reproduction's stage takes its runs from a finished sweep (`sweep
collect --require-complete`) instead of running them; the report's rows are the sweep's summary; an unchanged sweep is
not collected again, an incomplete one fails the stage and keeps the previous report, and a sweep that changed the
profile's runs or runs no reproduction is refused.
Usage: test_report_from_sweep.py DMLBENCH SOURCE_DIR WORK_DIR"""
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/, which holds dmlbench_cli.py
from dmlbench_cli import runner  # noqa: E402

exe, src, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
shutil.copytree(src / "tests/fixtures/report/work", work / "work")
fx = src / "tests/fixtures/sweep"


run = runner(exe, timeout=600)


sweep = work / "sweep"
run("sweep", "--grid", str(fx / "fx_sweep_grid.json"), "--out", str(sweep), "--local", "--jobs", "2")
report = ["report", "--profile", "quick", "--reproductions", str(fx / "reproductions"), "--sweep", str(sweep),
          "--work", str(work / "work"), "--out", str(work / "reports"), "--notebooks",
          str(src / "tests/fixtures/report/notebooks_ok"), "--stages", "fx-sweep,figures"]
run(*report)
md = (work / "reports/REPORT.md").read_text()
ours = json.loads((sweep / "summary.json").read_text())
stage = json.loads((work / "work/fx-sweep/summary.json").read_text())
assert stage["variants"] == ours["variants"], "the stage's summary is not the sweep's"
row = ours["variants"][0]["rows"][0]
a, b = row["arms"]["random"], row["arms"]["eps"]
cell = f"triplet {a['mean']:.1f} +- {a['std']:.1f}, triplet + EPS {b['mean']:.1f} +- {b['std']:.1f} (2 seeds)"
assert f"| `fx-sweep-r1` | LCC | Table 1 | unstated | FIXTURE: EPS raises R@1 test digits | {cell}" in md, md
assert "The runs were made by `dmlbench sweep` (4 points of the sweep fx-sweep" in md, md
assert not any((work / "work/fx-sweep").glob("random")), "the stage ran the training itself"

out = run(*report)
assert "fx-sweep: unchanged (config hash" in out, out
md = (work / "reports/REPORT.md").read_text()

# a point's result gone: the stage fails (--require-complete) and the previous report stays
(sweep / "eps/seed2/metrics.json").rename(sweep / "eps/seed2/metrics.moved")
out = run(*report, expect=1)
assert "have not finished" in out and "left as it was" in out, out
assert (work / "reports/REPORT.md").read_text() == md

# refused: a sweep of no reproduction, and a sweep of other runs than the profile's
sims = work / "sims"
run("sweep", "--grid", str(fx / "collapse4.json"), "--out", str(sims), "--local")
out = run(*report[:5], "--sweep", str(sims), *report[7:], expect=2)
assert "runs no reproduction file" in out, out
changed = work / "changed"
shutil.copytree(sweep, changed)
plan = json.loads((changed / "sweep.json").read_text())
plan["config"]["set"] = ["optimizer.lr=0.01"]
(changed / "sweep.json").write_text(json.dumps(plan))
out = run(*report[:5], "--sweep", str(changed), *report[7:], expect=2)
assert "changed fx-sweep's quick profile" in out, out
print("report --sweep: the stage is the sweep's summary; unchanged not rerun; incomplete fails; changed runs refused")
