#!/usr/bin/python3
"""Where a report's stages spend their time (issue 30 item 4): per stage, its wall seconds (stage.json) and the sum
over its training runs of each run's profile (metrics.json "profile.seconds", experiments/.../phase_clock.hpp), in
four groups: the training steps (data, forward, mining, loss, backward, optimizer), the embedding passes (curve, final
and the [HTL] epoch end, whose tree is built from them), the rest of the evaluation, and set-up / checkpoints / outputs.
"floor" is the training steps divided by the workers: what the stage would take if every evaluation were free and the
workers never idle. "use" is the runs' summed seconds over workers x wall.

  /usr/bin/python3 bench/report_stage_profile.py [WORK] [--workers 2] [--phases] [--json out.json]

WORK: the report's work folder (default out/report). Stages are listed in the order they finished."""
import argparse
import glob
import json
import os
import sys

# The step phases by name, not the run's train_seconds: that is the step's wall, which also holds measurements taken
# inside a step ([XHN] Fig 3's movement log: 339 s of the xhn-movement stage), not training.
TRAINING = {"data", "forward", "mining", "loss", "backward", "optimizer"}
HOUSEKEEPING = {"setup", "checkpoint", "outputs"}
GROUPS = ("training", "embedding", "evaluation", "housekeeping")


def group_of(phase):
    if phase in TRAINING:
        return "training"
    if phase in HOUSEKEEPING:
        return "housekeeping"
    if "embedding" in phase or phase == "epoch end (loss)":
        return "embedding"
    return "evaluation"


def stage_profile(stage_dir):
    """The summed profile of every run under stage_dir: group totals, phase totals, run count, runs' seconds."""
    groups = dict.fromkeys(GROUPS, 0.0)
    phases, runs, run_seconds = {}, 0, 0.0
    for path in glob.glob(os.path.join(stage_dir, "**", "metrics.json"), recursive=True):
        with open(path) as f:
            profile = json.load(f).get("profile")
        if not profile:
            continue
        runs += 1
        run_seconds += profile.get("run_seconds", 0.0)
        for phase, seconds in profile["seconds"].items():
            groups[group_of(phase)] += seconds
            phases[phase] = phases.get(phase, 0.0) + seconds
    return {"runs": runs, "run_seconds": run_seconds, "groups": groups, "phases": phases}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", nargs="?", default="out/report")
    ap.add_argument("--workers", type=int, default=2, help="the report's parallel runs (default 2: the 2 cores)")
    ap.add_argument("--phases", action="store_true", help="also list each stage's five largest phases")
    ap.add_argument("--json", help="write the table as JSON here")
    a = ap.parse_args()
    if a.workers < 1:
        sys.exit("report_stage_profile: --workers must be >= 1")
    records = glob.glob(os.path.join(a.work, "*", "stage.json"))
    if not records:
        sys.exit(f"report_stage_profile: no stage.json under {a.work}: not a report work folder, or no stage finished")
    stages = []
    for record in records:
        with open(record) as f:
            stages.append((json.load(f), os.path.dirname(record)))
    rows = []
    for stage, folder in sorted(stages, key=lambda sf: sf[0]["finished"]):
        row = {"stage": stage["stage"], "wall": stage["seconds"], "git_revision": stage.get("git_revision")}
        row.update(stage_profile(folder))
        row["floor"] = row["groups"]["training"] / a.workers
        row["use"] = row["run_seconds"] / (a.workers * row["wall"]) if row["wall"] > 0 else 0.0
        rows.append(row)
    print("| stage | wall (s) | runs | training | embedding | evaluation | housekeeping | floor (s) | use |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        g = r["groups"]
        print(f"| {r['stage']} | {r['wall']:.0f} | {r['runs']} | {g['training']:.0f} | {g['embedding']:.0f} | "
              f"{g['evaluation']:.0f} | {g['housekeeping']:.0f} | {r['floor']:.0f} | {r['use']:.2f} |")
    wall, floor = sum(r["wall"] for r in rows), sum(r["floor"] for r in rows)
    print(f"\n{len(rows)} stages: wall {wall / 60:.1f} min; training steps alone on {a.workers} workers "
          f"{floor / 60:.1f} min ({100 * floor / wall:.0f}% of the wall)")
    if a.phases:
        for r in rows:
            top = sorted(r["phases"].items(), key=lambda kv: -kv[1])[:5]
            if top:
                print(f"{r['stage']}: " + ", ".join(f"{k} {v:.0f} s" for k, v in top))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"work": a.work, "workers": a.workers, "stages": rows}, f, indent=1)


if __name__ == "__main__":
    main()
