"""The small report the fault tests run: a fixture reproduction of 4 runs of 3 steps (its stage fx-sweep) and the
figures stage, from a copy of the report fixture's work folder; what a run of it leaves that must not change."""
import json
import shutil
from pathlib import Path


def report_args(repo, folder, out):
    fx = Path(repo) / "tests/fixtures"
    return ["report", "--profile", "quick", "--reproductions", str(fx / "sweep/reproductions"), "--work",
            str(folder / "work"), "--out", str(out), "--notebooks", str(fx / "report/notebooks_ok"),
            "--stages", "fx-sweep,figures"]


def report_result(folder, out):
    claims = json.loads((out / "claims.json").read_text())
    summary = json.loads((folder / "work/fx-sweep/summary.json").read_text())
    return summary["variants"], [{k: c.get(k) for k in ("id", "verdict", "measured")} for c in claims["claims"]]


def fresh_report_folder(repo, work, name):
    folder = work / name
    shutil.copytree(Path(repo) / "tests/fixtures/report/work", folder / "work")
    return folder
