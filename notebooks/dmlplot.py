"""Shared helpers of the dmlbench notebooks: where the runs are, reading the C++ outputs, saving figures.

The notebooks only draw: every number comes from the CSV/JSON that `dmlbench` wrote (its first '#' line or its
"config" key holds the config, git revision and seed that made it).
"""
import io
import json
import os
from pathlib import Path

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

HERE = Path.cwd()
# `dmlbench report` sets both; opened by hand, the notebooks read the last report's work folder.
RUNS = Path(os.environ.get("DMLBENCH_RUNS", HERE.parent / "out" / "report"))
FIGURES = Path(os.environ.get("DMLBENCH_FIGURES", RUNS / "figures"))

plt.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "font.size": 9, "axes.titlesize": 9,
                     "axes.labelsize": 9, "legend.fontsize": 8})


def run_path(stage, name):
    p = RUNS / stage / name
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing: run `dmlbench report` (stage {stage}) first")
    return p


def read_csv(stage, name):
    """A dmlbench CSV: the '#' line is the provenance JSON, the rest a table. Returns (frame, provenance)."""
    text = run_path(stage, name).read_text()
    first, _, rest = text.partition("\n")
    if not first.startswith("# "):
        raise ValueError(f"{stage}/{name}: no provenance line")
    return pd.read_csv(io.StringIO(rest)), json.loads(first[2:])


def read_json(stage, name):
    return json.loads(run_path(stage, name).read_text())


def save(fig, name):
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / name
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    print("wrote", path)
    return path


def grid(df, value, x="s_ap", y="s_an"):
    """A regular-grid column as a 2-D array indexed [y, x], with the axis values."""
    t = df.pivot(index=y, columns=x, values=value)
    return t.columns.values, t.index.values, t.values
