#!/usr/bin/python3
"""Issue 49 item 4b: does a decided training verdict recur on other numerics of the same machine? For each kernel
setting (an environment such as OPENBLAS_CORETYPE=Zen or ONEDNN_MAX_CPU_ISA=AVX2, each a core type this CPU runs),
the report's work folder is copied, the named stages are rerun there under that setting (`dmlbench report --stages S
--force`: the other stages' summaries stay, so every claim is decided over the report's whole family, as in the
committed report), and each claim's verdict is compared with the baseline work folder's. A verdict that flips direction
(verified <-> refuted) is an error (exit status 1); one that falls to or rises from inconclusive, or moves between a
decided verdict and not-reproduced, is machine-sensitive. The JSON written starts with the config that made it.

  /usr/bin/python3 bench/kernel_recurrence.py --work out/report --stages omniglot-margin,omniglot-positives,xhn-movement \
      --setting OPENBLAS_CORETYPE=Zen --setting ONEDNN_MAX_CPU_ISA=AVX2 [--exe build/apps/dmlbench] [--into out/kernels]
      [--json out/kernels/recurrence.json]

It trains: hours on two cores for the default stages (bench/README.md's stage profile). The stages named by the issue
are the [LCC] margin rows (omniglot-margin), lcc-fig5b-more-positives (omniglot-positives) and [XHN] Fig 3
(xhn-movement)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

DECIDED = {"verified", "refuted"}


def verdicts(reports):
    """claim id -> verdict of the training rows of a report folder's claims.json."""
    with open(os.path.join(reports, "claims.json")) as f:
        claims = json.load(f)["claims"]
    return {c["id"]: c["verdict"] for c in claims if c.get("statistics")}


def rerun(exe, work, into, name, setting, stages):
    """The stages rerun in a copy of `work` under `setting` ("KEY=VALUE"); returns the copy's report folder."""
    key, _, value = setting.partition("=")
    if not key or not value:
        sys.exit(f"kernel_recurrence: --setting must be KEY=VALUE, got {setting!r}")
    copy = os.path.join(into, name, "work")
    if os.path.exists(copy):
        sys.exit(f"kernel_recurrence: {copy} exists: remove it or choose another --into")
    shutil.copytree(work, copy, symlinks=True)
    reports = os.path.join(into, name, "reports")
    env = dict(os.environ, **{key: value})
    subprocess.run([exe, "report", "--stages", stages, "--force", "--work", copy, "--out", reports, "--allow-dirty"],
                   env=env, check=True)
    return reports


def compare(base, other):
    """(flipped, sensitive): claims whose verdict flips direction, and those that move otherwise."""
    flipped, sensitive = [], []
    for cid, v in sorted(base.items()):
        w = other.get(cid)
        if w is None or w == v:
            continue
        (flipped if {v, w} == DECIDED else sensitive).append({"id": cid, "baseline": v, "rerun": w})
    return flipped, sensitive


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="the baseline report's work folder (out/report)")
    ap.add_argument("--stages", required=True, help="comma-separated stages to rerun")
    ap.add_argument("--setting", action="append", required=True, help="KEY=VALUE, repeatable")
    ap.add_argument("--exe", default="build/apps/dmlbench")
    ap.add_argument("--into", default="out/kernels")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    baseline = os.path.join(a.into, "baseline", "reports")
    if not os.path.exists(os.path.join(baseline, "claims.json")):  # the baseline decided from its own work folder
        subprocess.run([a.exe, "report", "--stages", "figures", "--work", a.work, "--out", baseline, "--allow-dirty"],
                       check=True)
    base = verdicts(baseline)
    out = {"config": {"work": a.work, "stages": a.stages, "settings": a.setting, "exe": a.exe}, "settings": {}}
    status = 0
    for k, setting in enumerate(a.setting):
        flipped, sensitive = compare(base, verdicts(rerun(a.exe, a.work, a.into, f"setting-{k}", setting, a.stages)))
        out["settings"][setting] = {"flipped": flipped, "machine_sensitive": sensitive}
        print(f"{setting}: {len(flipped)} flipped, {len(sensitive)} machine-sensitive")
        for m in flipped + sensitive:
            print(f"  {m['id']}: {m['baseline']} -> {m['rerun']}")
        status |= bool(flipped)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
