#!/usr/bin/python3
"""Where a report's stages spend their time: per stage, its wall seconds (stage.json) and the sum
over its training runs of each run's profile (metrics.json "profile.seconds", experiments/.../phase_clock.hpp), in
four groups: the training steps (data, forward, mining, loss, backward, optimizer), the embedding passes (curve, final
and the [HTL] epoch end, whose tree is built from them), the rest of the evaluation, and set-up / checkpoints / outputs.
"floor" is the training steps divided by the workers: what the stage would take if every evaluation were free and the
workers never idle. "use" is the runs' summed seconds over workers x wall.

--flops adds the compute floor: each run's multiply-adds counted from its config (the convolutions and dense layers
of small-conv and the [LCC] App. C MNIST network, direct convolution: 2 FLOP a multiply-add; batch norm, ReLU,
pooling and the loss counted as free), for the training steps (forward and backward, steps x batch images) and for
the embedding passes that can be counted from a run's files (each curve point's curve sets, the final sets not reused
from the last curve point, the [HTL] epoch-end passes over the training set; the triplet accuracy, movement and
scatter logs left out). The floor of a stage is those FLOPs at the machine's sgemm rate on every worker, measured here
as the report runs: one thread per worker, all workers at once, each one's best of 5 (dmlbench_blas_env.SGEMM_CODE,
on dmlbench's OPENBLAS_CORETYPE); a stage without runs (Ceres, the theory checks) counts at its wall. It is a lower
bound on what the same computation can take here with direct convolutions.

--first-seeds K (the budget of seed spending measured): per stage, the runs' seconds of a fixed design of seeds 1..K
against those of every seed the stage's seed spending ran, and their ratio; the seed of a run is its folder's name
(seedN), its arm the folder above. An arm that stopped before K seeds (its claims decided at an earlier look) counts
its missing seeds at its mean seconds a run.

  /usr/bin/python3 bench/report_stage_profile.py [WORK] [--workers 2] [--phases] [--skip REGEX]
      [--flops [--sgemm-gflops G] [--build build]] [--first-seeds K] [--json out.json]

WORK: the report's work folder (default out/report), or a report's stage store (reports/stages: the same files less
the checkpoints). Stages are listed in the order they finished."""
import argparse
import glob
import json
import os
import re
import subprocess
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


def conv_flops(size, c_in, c_out, k=3, pad=0):
    """2 x the multiply-adds of a k x k convolution, stride 1, on size x size maps."""
    out = size + 2 * pad - k + 1
    return 2 * out * out * c_out * c_in * k * k, out


def model_flops(config):
    """(forward, forward + backward) FLOPs per image of the run's model, or None for a model not counted here.
    Backward: the weight gradient of every layer plus the input gradient of every layer but the first, each as many
    FLOPs as the layer's forward."""
    model, data = config["model"], config["dataset"]
    if model["name"] == "small-conv":  # experiments/.../small_conv_net.hpp: 4 x (conv 3x3 pad 1, 64) with pool 2
        size, c_in, layers = data["image_size"], max(1, data["channels"]), []
        for _ in range(4):
            f, size = conv_flops(size, c_in, 64, pad=1)
            layers.append(f)
            c_in, size = 64, size // 2
        layers.append(2 * 64 * model["embedding_dim"])
    elif model["name"] == "lcc-mnist":  # experiments/.../mnist_embedding_net.hpp: [LCC] App. C
        layers = [conv_flops(28, 1, 32)[0], conv_flops(26, 32, 64)[0], 2 * 64 * 12 * 12 * 128,
                  2 * 128 * model["embedding_dim"]]
    else:
        return None
    forward = sum(layers)
    return forward, forward + forward + sum(layers[1:])


def htl_epoch_end_images(metrics, run_dir):
    """The [HTL] loss's passes over the training images, one per class-tree rebuild (at the start and after every
    htl_update_epochs epochs but the last), the training set's size read from the run's train_log.txt."""
    config = metrics["config"]
    if config["loss"]["name"] != "htl":
        return 0
    try:
        with open(os.path.join(run_dir, "train_log.txt")) as f:
            m = re.search(r": train (\d+), heldout", f.readline())
    except OSError:
        return 0
    return int(m.group(1)) * (config["schedule"]["epochs"] // config["loss"]["htl_update_epochs"]) if m else 0


def embedded_images(metrics, run_dir):
    """Images embedded by the passes a run's files let us count: curve points x curve sets, final sets not reused
    from the last curve point, the [HTL] epoch-end passes. A lower bound (module docstring)."""
    ev, sizes = metrics["config"]["eval"], {}
    for name, levels in metrics.get("eval", {}).items():
        counts = [v["queries"] for v in levels.values() if isinstance(v, dict) and "queries" in v]
        if counts:
            sizes[name] = max(counts)
    curve_sets = ev.get("curve_sets", []) if metrics.get("curve") else []
    total = len(metrics.get("curve", [])) * sum(sizes.get(s, 0) for s in curve_sets)
    total += sum(n for s, n in sizes.items() if s not in curve_sets)
    return total + htl_epoch_end_images(metrics, run_dir)


def stage_profile(stage_dir):
    """The summed profile of every run under stage_dir: group totals, phase totals, run count, runs' seconds, and
    the counted FLOPs (None where a run's model is not counted)."""
    groups = dict.fromkeys(GROUPS, 0.0)
    phases, runs, run_seconds, by_arm = {}, 0, 0.0, {}
    flops = {"training": 0.0, "embedding": 0.0}
    for path in glob.glob(os.path.join(stage_dir, "**", "metrics.json"), recursive=True):
        with open(path) as f:
            metrics = json.load(f)
        profile = metrics.get("profile")
        if not profile:
            continue
        runs += 1
        run_seconds += profile.get("run_seconds", 0.0)
        seed = re.fullmatch(r"seed(\d+)", os.path.basename(os.path.dirname(path)))
        if seed:
            arm = os.path.relpath(os.path.dirname(os.path.dirname(path)), stage_dir)
            by_arm.setdefault(arm, {})[int(seed.group(1))] = profile.get("run_seconds", 0.0)
        for phase, seconds in profile["seconds"].items():
            groups[group_of(phase)] += seconds
            phases[phase] = phases.get(phase, 0.0) + seconds
        per_image = model_flops(metrics["config"])
        if per_image is None or flops is None:
            flops = None
            continue
        batch = metrics["config"]["batch"]
        flops["training"] += metrics["steps"] * batch["classes"] * batch["per_class"] * per_image[1]
        flops["embedding"] += embedded_images(metrics, os.path.dirname(path)) * per_image[0]
    return {"runs": runs, "run_seconds": run_seconds, "groups": groups, "phases": phases, "flops": flops,
            "run_seconds_by_arm_seed": by_arm}


def sgemm_rate_per_worker(workers, build):
    """The sgemm GFLOP/s of one OpenBLAS thread while `workers` such processes run at once: each process's best of 5
    (a floor wants the fastest rate seen), the median over the processes."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from dmlbench_blas_env import coretype_env, sgemm_command
    core, blas = coretype_env(os.path.join(build, "apps", "dmlbench"))
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **core)
    procs = [subprocess.Popen(sgemm_command(1, "best"), env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(workers)]
    rates = sorted(json.loads(p.communicate()[0])["gflops"] for p in procs)
    return rates[len(rates) // 2], blas


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", nargs="?", default="out/report")
    ap.add_argument("--workers", type=int, default=2, help="the report's parallel runs (default 2: the 2 cores)")
    ap.add_argument("--phases", action="store_true", help="also list each stage's five largest phases")
    ap.add_argument("--skip", help="leave out the stages whose names match this regular expression")
    ap.add_argument("--flops", action="store_true", help="also the counted FLOPs and the compute floor")
    ap.add_argument("--sgemm-gflops", type=float, help="one worker's sgemm GFLOP/s (default: measured here)")
    ap.add_argument("--build", default="build", help="the build whose dmlbench names the OpenBLAS kernels")
    ap.add_argument("--first-seeds", type=int, help="also each stage's runs' seconds of seeds 1..K against all its seeds")
    ap.add_argument("--json", help="write the table as JSON here")
    a = ap.parse_args()
    if a.workers < 1:
        sys.exit("report_stage_profile: --workers must be >= 1")
    if a.first_seeds is not None and a.first_seeds < 1:
        sys.exit("report_stage_profile: --first-seeds must be >= 1")
    if a.sgemm_gflops is not None and not a.sgemm_gflops > 0:
        sys.exit("report_stage_profile: --sgemm-gflops must be > 0")
    records = glob.glob(os.path.join(a.work, "*", "stage.json"))
    if not records:
        sys.exit(f"report_stage_profile: no stage.json under {a.work}: not a report work folder, or no stage finished")
    stages = []
    for record in records:
        with open(record) as f:
            stages.append((json.load(f), os.path.dirname(record)))
    if a.skip:
        try:
            skip = re.compile(a.skip)
        except re.error as e:
            sys.exit(f"report_stage_profile: --skip is not a regular expression: {e}")
        stages = [sf for sf in stages if not skip.search(sf[0]["stage"])]
        if not stages:
            sys.exit(f"report_stage_profile: --skip {a.skip!r} leaves no stage")
    rows = []
    for stage, folder in sorted(stages, key=lambda sf: sf[0]["finished"]):
        row = {"stage": stage["stage"], "wall": stage["seconds"], "git_revision": stage.get("git_revision"),
               "spends_seeds": "spending" in stage.get("config", {})}
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
    if a.first_seeds:
        print_seed_budget(rows, a.first_seeds)
    floor = print_compute_floor(rows, a) if a.flops else None
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"work": a.work, "workers": a.workers, "stages": rows, "compute_floor": floor}, f, indent=1)


def fixed_seed_seconds(by_arm, k, spends):
    """The runs' seconds a fixed design of seeds 1..k would take: each arm's seconds of its seeds 1..k, and where the
    stage spends seeds (its stage.json's config has "spending"), for each of those seeds an arm did not run (its claims
    decided before k seeds) the arm's mean seconds a run. A stage with fixed seeds is its own design."""
    total = 0.0
    for seeds in by_arm.values():
        ran = [v for s, v in seeds.items() if s <= k]
        missing = k - len(ran) if spends else 0
        total += sum(ran) + (missing * sum(seeds.values()) / len(seeds) if missing > 0 else 0.0)
    return total


def print_seed_budget(rows, k):
    """The --first-seeds table: per stage with runs, its seeds per arm, the seconds of a fixed design of seeds 1..k
    (fixed_seed_seconds) and of all the seeds run, the ratio."""
    print(f"\n| stage | seeds per arm | runs' seconds, fixed seeds 1-{k} | runs' seconds, all seeds | ratio |")
    print("|---|---|---|---|---|")
    first = every = 0.0
    part = {"default": [0.0, 0.0], "tuned": [0.0, 0.0]}  # the default stages' and the tuned ones' (<stage>-tuned)
    for r in rows:
        by_arm = r["run_seconds_by_arm_seed"]
        if not by_arm:
            continue
        counts = sorted({len(v) for v in by_arm.values()})
        f, e = fixed_seed_seconds(by_arm, k, r["spends_seeds"]), sum(sum(v.values()) for v in by_arm.values())
        first, every = first + f, every + e
        p = part["tuned" if r["stage"].endswith("-tuned") else "default"]
        p[0], p[1] = p[0] + f, p[1] + e
        shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        print(f"| {r['stage']} | {shown} | {f:.0f} | {e:.0f} | {e / f if f > 0 else 0:.2f} |")
    if first > 0:
        print(f"\nall stages with runs: {every:.0f} s of runs against {first:.0f} s for fixed seeds 1-{k}: "
              f"x{every / first:.2f}")
        for name, (f, e) in part.items():
            if f > 0:
                print(f"{name} stages: {e:.0f} s against {f:.0f} s: x{e / f:.2f}")


def print_compute_floor(rows, a):
    """The --flops table: per stage the counted TFLOP, the training steps' GFLOP/s, and the floor (module docstring)."""
    if a.sgemm_gflops:
        rate, blas = a.sgemm_gflops, "given by --sgemm-gflops"
    else:
        rate, blas = sgemm_rate_per_worker(a.workers, a.build)
    print(f"\nsgemm 2048^3, one thread per worker, {a.workers} at once: {rate:.1f} GFLOP/s a worker "
          f"(kernels as dmlbench's; its {blas})")
    print("| stage | training TFLOP | training GFLOP/s a run | share of sgemm | embedding TFLOP (counted) | "
          "floor (s) | wall / floor |")
    print("|---|---|---|---|---|---|---|")
    total, uncounted = 0.0, []
    for r in rows:
        fl = r["flops"]
        if r["runs"] == 0:
            r["compute_floor"] = r["wall"]
            print(f"| {r['stage']} | - | - | - | - | {r['wall']:.0f} (its wall: no training runs) | 1.00 |")
        elif fl is None:
            r["compute_floor"] = 0.0
            uncounted.append(r["stage"])
            print(f"| {r['stage']} | a model not counted | | | | - | |")
        else:
            r["compute_floor"] = (fl["training"] + fl["embedding"]) / (a.workers * rate * 1e9)
            achieved = fl["training"] / r["groups"]["training"] / 1e9 if r["groups"]["training"] > 0 else 0.0
            ratio = r["wall"] / r["compute_floor"] if r["compute_floor"] > 0 else 0.0
            print(f"| {r['stage']} | {fl['training'] / 1e12:.1f} | {achieved:.1f} | {achieved / rate:.2f} | "
                  f"{fl['embedding'] / 1e12:.1f} | {r['compute_floor']:.0f} | {ratio:.1f} |")
        total += r["compute_floor"]
    print(f"\ncompute floor of the {len(rows)} stages: {total / 60:.1f} min (wall {sum(r['wall'] for r in rows) / 60:.1f})"
          + (f"; not counted: {', '.join(uncounted)}" if uncounted else ""))
    return {"sgemm_gflops_per_worker": rate, "blas": blas, "seconds": total, "uncounted": uncounted}


if __name__ == "__main__":
    main()
