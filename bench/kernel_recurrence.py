#!/usr/bin/python3
"""Does a decided training verdict recur on other numerics of the same machine? For each kernel
setting (an environment such as OPENBLAS_CORETYPE=Zen or ONEDNN_MAX_CPU_ISA=AVX2, each a core type this CPU runs),
the report's work folder is copied without the named stages' folders, and those stages are trained afresh there under
that setting, with their seed spending (`dmlbench report --stages S --force`). The other stages' summaries stay, so
that every claim is decided over the report's whole family, as in the committed report. Each training claim's verdict
is then compared with the baseline work folder's. A verdict that flips direction (verified <-> refuted) is an error
(exit status 1). One that falls to or rises from inconclusive, or moves between a decided verdict and not-reproduced,
is machine-sensitive.

The JSON written (default bench/results/kernel_recurrence.json) starts with the config that made it. It holds the
baseline's stage config hashes and verdicts, the rerun stages and their claims, and each setting's verdicts. The
default report reads it (`dmlbench report --kernel-recurrence`) and shows it beside each row while those hashes and
verdicts are its own.

  /usr/bin/python3 bench/kernel_recurrence.py --work out/report --stages omniglot-margin,omniglot-positives,xhn-movement \
      --setting OPENBLAS_CORETYPE=Zen --setting ONEDNN_MAX_CPU_ISA=AVX2@training [--exe build/apps/dmlbench]
      [--into out/kernels] [--json bench/results/kernel_recurrence.json] [--reuse]

A setting may name its own stages after "@" (a comma list, or "training": every default training stage of the work
folder, the tuned ones left out: they are decided in a family of their own); without, it reruns --stages. --reuse
takes a setting's earlier rerun under --into (its rerun.json names the stages trained there) and trains only the
stages it lacks.
It trains: about 16 minutes a setting for the three stages above on the 2-core AMD EPYC (bench/README.md). The stages of
the committed record (bench/README.md) are the [LCC] margin rows (omniglot-margin), lcc-fig5b-more-positives
(omniglot-positives) and [XHN] Fig 3 (xhn-movement)."""
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


def stage_records(work):
    """stage -> its stage.json of a work folder (the stages that finished there)."""
    out = {}
    for name in sorted(os.listdir(work)):
        rec = os.path.join(work, name, "stage.json")
        if os.path.isfile(rec):
            with open(rec) as f:
                out[name] = json.load(f)
    return out


def stage_claims(work, stages):
    """The claims of the named stages' summaries (their first variant's rows), in order."""
    ids = []
    for s in stages:
        with open(os.path.join(work, s, "summary.json")) as f:
            rows = json.load(f)["variants"][0].get("rows", [])
        ids += [r["claim"] for r in rows if r.get("claim") and r.get("statistics")]
    return ids


def report(exe, work, reports, stages, env=None, force=False):
    """`dmlbench report` of a work folder into `reports` (no kernel record of its own)."""
    cmd = [exe, "report", "--stages", stages, "--work", work, "--out", reports, "--allow-dirty",
           "--kernel-recurrence", "none"] + (["--force"] if force else [])
    subprocess.run(cmd, env=env, check=True)


def setting_stages(setting, a, records):
    """(KEY=VALUE, its stages): the part after "@", "training" for every default training stage, else --stages."""
    env, _, named = setting.partition("@")
    if not named:
        return env, a.stages.split(",")
    if named == "training":
        return env, [n for n in records if not n.endswith("-tuned") and
                     os.path.isfile(os.path.join(a.work, n, "summary.json"))]
    return env, named.split(",")


def rerun(a, name, setting, stages):
    """The stages trained afresh in a copy of the work folder under `setting`; returns the copy's report folder."""
    key, _, value = setting.partition("=")
    if not key or not value:
        sys.exit(f"kernel_recurrence: --setting must be KEY=VALUE[@STAGES], got {setting!r}")
    copy, reports = os.path.join(a.into, name, "work"), os.path.join(a.into, name, "reports")
    done_file = os.path.join(a.into, name, "rerun.json")
    done = []
    if a.reuse and os.path.isfile(done_file):
        with open(done_file) as f:
            done = json.load(f)["stages"]
    elif os.path.exists(copy):
        sys.exit(f"kernel_recurrence: {copy} exists: remove it, choose another --into, or --reuse")
    todo = [st for st in stages if st not in done]
    if not todo:
        return reports
    if not os.path.exists(copy):  # the rerun stages left out: copied, their finished runs would be resumed
        shutil.copytree(a.work, copy, symlinks=True,
                        ignore=lambda d, names: [n for n in names if os.path.samefile(d, a.work) and n in todo])
    for st in todo:  # a reused copy holds the baseline's folders of the stages it lacks
        shutil.rmtree(os.path.join(copy, st), ignore_errors=True)
    report(a.exe, copy, reports, ",".join(todo), env=dict(os.environ, **{key: value}), force=True)
    with open(done_file, "w") as f:
        json.dump({"setting": setting, "stages": done + todo}, f, indent=1)
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


def machine_text(rec):
    m = rec.get("machine", {})
    return f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, {m.get('isa', '?')}" + (
        f", OPENBLAS_CORETYPE={m['openblas_coretype']}" if m.get("openblas_coretype") else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="the baseline report's work folder (out/report)")
    ap.add_argument("--stages", required=True, help="comma-separated stages to rerun (a setting's own after @)")
    ap.add_argument("--setting", action="append", required=True, help="KEY=VALUE[@STAGES], repeatable")
    ap.add_argument("--exe", default="build/apps/dmlbench")
    ap.add_argument("--into", default="out/kernels")
    ap.add_argument("--json", default="bench/results/kernel_recurrence.json")
    ap.add_argument("--reuse", action="store_true", help="take a setting's earlier rerun under --into")
    a = ap.parse_args()
    records = stage_records(a.work)
    plan = [setting_stages(st, a, records) for st in a.setting]
    missing = sorted({st for _, stages in plan for st in stages if st not in records})
    if missing:
        sys.exit(f"kernel_recurrence: {a.work} has no finished stage {', '.join(missing)}")
    baseline = os.path.join(a.into, "baseline", "reports")
    if not os.path.exists(os.path.join(baseline, "claims.json")):  # the baseline decided from its own work folder
        report(a.exe, a.work, baseline, "figures")
    base = verdicts(baseline)
    first = records[plan[0][1][0]]
    out = {"config": {"command": "bench/kernel_recurrence.py", "stages": a.stages, "settings": a.setting,
                      "into": a.into},
           "baseline": {"machine": machine_text(first), "revision": first.get("git_revision", ""),
                        "stage_hashes": {n: r["config_hash"] for n, r in records.items() if "config_hash" in r},
                        "verdicts": base},
           "settings": {}}
    status = 0
    for k, (setting, stages) in enumerate(plan):
        reports = rerun(a, f"setting-{k}", setting, stages)
        other = verdicts(reports)
        flipped, sensitive = compare(base, other)
        seconds = {s: r.get("seconds") for s, r in stage_records(os.path.join(a.into, f"setting-{k}", "work")).items()
                   if s in stages}
        out["settings"][setting] = {"stages": stages, "claims": stage_claims(a.work, stages), "verdicts": other,
                                    "flipped": flipped, "machine_sensitive": sensitive, "seconds": seconds}
        print(f"{setting} ({len(stages)} stages rerun): {len(flipped)} flipped, {len(sensitive)} machine-sensitive")
        for m in flipped + sensitive:
            print(f"  {m['id']}: {m['baseline']} -> {m['rerun']}")
        status |= bool(flipped)
    if a.json:
        os.makedirs(os.path.dirname(a.json) or ".", exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
