#!/usr/bin/python3
"""Training steps of the glyph proxy (`experiments/configs/lcc-omniglot-proxy.json`: small-conv, 28 px gray, 8
alphabets x 16 glyphs, cosine triplet loss with margin 0.2 on trip-sh triplets, Adam 1e-3) in `dmlbench train`
against the same loop in PyTorch's Python front end (Debian's python3-torch 1.13, the LibTorch of the build), in one
script, the same thread count.

  agree   `dmlbench train --trace-steps K` writes its starting weights and its first K batches; the Python model,
          given those weights, trains on those batches (same miner rules and random draws: trip-sh's random positive
          comes from a CPU generator seeded as the engine seeds it) and its losses are set beside the run's
          train_steps.csv and its parameters after each step beside the run's. Exits 1 unless every step's
          parameters are bit-identical and every loss within --tolerance (relative; the CSV's 9 digits).
  speed   images per second of the training steps, each arm in its own process, repetitions interleaved, medians and
          per-repetition ratios. C++: `dmlbench train` with the config as the report runs it (its loader decodes the
          PNGs on its own threads while it trains), the time of its steps as the run reports it (train_seconds:
          data, forward, mining, loss, backward, optimizer). Python: the training alphabets decoded once, before the
          clock starts, to a 28 x 28 tensor; each step draws 8 alphabets x 16 glyphs with numpy, then the same model,
          miner, loss and optimizer. Both arms get the OPENBLAS_CORETYPE that `dmlbench info` says it runs with.

Usage: /usr/bin/python3 bench/glyph_training_bench.py agree|speed [--build build] [--threads 1] [--steps 100]
       [--reps 5] [--trace-steps 20] [--set key=value ...] [--control double-gather] [--before EXE] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from dmlbench_blas_env import coretype_env  # bench/

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "experiments/configs/lcc-omniglot-proxy.json"


class SmallConv(nn.Module):  # experiments/src/models/small_conv_net.cpp: 4 x (conv 3x3 pad 1, BN, ReLU, max-pool 2)
    def __init__(self, dim=128, width=64):
        super().__init__()
        for i in range(1, 5):
            setattr(self, f"conv{i}", nn.Conv2d(1 if i == 1 else width, width, 3, padding=1, bias=False))
            setattr(self, f"bn{i}", nn.BatchNorm2d(width))
        self.embedding = nn.Linear(width, dim)

    def forward(self, x):
        for i in range(1, 5):
            x = F.max_pool2d(F.relu(getattr(self, f"bn{i}")(getattr(self, f"conv{i}")(x))), 2)
        return self.embedding(F.adaptive_avg_pool2d(x, 1).flatten(1))


def mine_trip_sh(sim, y, gen):
    """Random positive, semi-hard negative: experiments/src/engine/batch_miner.cpp's rules and draws (float64)."""
    B = sim.shape[0]
    same = y[None, :] == y[:, None]
    pos, neg = same & ~torch.eye(B, dtype=torch.bool), ~same
    u = torch.rand((B, B), generator=gen, dtype=torch.float64)
    p = torch.where(pos, u, torch.full_like(u, -1.0)).argmax(1)
    semi = neg & (sim < sim.gather(1, p[:, None]))
    best = torch.where(semi, sim, torch.full_like(sim, -1e30)).argmax(1)
    easiest = torch.where(neg, sim, torch.full_like(sim, 1e30)).argmin(1)
    n = torch.where(semi.any(1), best, easiest)
    keep = pos.any(1) & neg.any(1)
    idx = torch.arange(B)
    return idx[keep], p[keep], n[keep]


def step(model, opt, x, y, gen, margin, double_gather=False):
    e = F.normalize(model(x), dim=1)
    with torch.no_grad():
        a, p, n = mine_trip_sh((e @ e.t()).double(), y, gen)
    ea, ep, en = e[a], e[p], e[n]  # each gathered once, as metric_losses.cpp does (the gradients add in that order)
    if double_gather:  # the negative control: the anchors gathered again for the negative term
        loss = F.relu((1 - (ea * ep).sum(1)) - (1 - (e[a] * en).sum(1)) + margin).mean()
        return finish(opt, loss)
    loss = F.relu((1 - (ea * ep).sum(1)) - (1 - (ea * en).sum(1)) + margin).mean()
    return finish(opt, loss)


def finish(opt, loss):
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def cpp_train(exe, out, steps, env, trace=0, sets=()):
    args = [exe, "train", "--config", str(CONFIG), "--out", str(out), "--max-steps", str(steps), "--device", "cpu",
            "--set", "eval.sets=heldout", "--set", "eval.curve_sets=[]", "--set", "eval.nmi=false"]
    for kv in sets:
        args += ["--set", kv]
    if trace:
        args += ["--trace-steps", str(trace)]
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed (exit status {p.returncode}):\n{p.stderr.strip()}")
    return json.loads((Path(out) / "metrics.json").read_text())


def replay(trace, double_gather):
    """The Python loop on a run's traced weights and batches: per step its loss and its parameters' largest
    difference from the run's after the same step."""
    tr = Path(trace) / "trace"
    index = json.loads((tr / "trace.json").read_text())
    cfg = index["config"]
    replicated = (cfg["model"]["name"], cfg["model"]["normalize"], cfg["loss"]["name"], cfg["loss"]["distance"],
                  cfg["loss"]["trim"], cfg["miner"]["name"], cfg["miner"]["one_triplet_per_feature"],
                  cfg["optimizer"]["name"], cfg["optimizer"]["head_lr"])
    if replicated != ("small-conv", True, "triplet", "cosine", 0.0, "trip-sh", False, "adam", 0.0):
        sys.exit(f"error: the Python loop replicates small-conv, normalised, cosine triplet, trip-sh, Adam, not "
                 f"{replicated}")
    model = SmallConv(cfg["model"]["embedding_dim"])
    state = {k: torch.from_numpy(np.load(tr / v["file"])).reshape(v["shape"]) for k, v in index["weights"].items()}
    missing = model.load_state_dict(state, strict=False)
    assert not missing.unexpected_keys and all(k.endswith("num_batches_tracked") for k in missing.missing_keys)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"]["lr"], weight_decay=cfg["optimizer"]["weight_decay"])
    table = []
    for k in range(1, len(list(tr.glob("batch_*.json"))) + 1):
        b = json.loads((tr / f"batch_{k}.json").read_text())
        x = torch.from_numpy(np.load(tr / b["images"]["file"])).reshape(b["images"]["shape"])
        gen = torch.Generator().manual_seed(cfg["seed"] * 7919 + k - 1)  # training_step.cpp's mining generator
        loss = step(model, opt, x, torch.tensor(b["labels"]), gen, cfg["loss"]["margin"], double_gather)
        mine = torch.cat([t.detach().flatten() for t in model.parameters()])
        theirs = torch.from_numpy(np.load(tr / f"parameters_{k}.npy")).flatten()
        table.append({"step": k, "python": loss, "parameters_max_abs_difference": (mine - theirs).abs().max().item(),
                      "parameters_equal": bool(torch.equal(mine, theirs))})
    return table


def agree(a, exe, env):
    with tempfile.TemporaryDirectory() as out:
        m = cpp_train(exe, out, a.trace_steps, env, trace=a.trace_steps, sets=a.set)
        p = subprocess.run([sys.executable, __file__, "replay", "--trace", out, "--threads", str(a.threads)] +
                           (["--control", a.control] if a.control else []), check=True, capture_output=True,
                           text=True, env=env)
        table = json.loads(p.stdout)
        rows = [l.split(",") for l in (Path(out) / "train_steps.csv").read_text().splitlines()[2:]]
    for r, row in zip(table, rows):
        r["cpp"] = float(row[2])  # printed with 9 significant digits
        r["rel"] = abs(r["python"] - r["cpp"]) / abs(r["cpp"])
    print("step  dmlbench loss  python loss  relative difference  parameters after the step")
    for r in table:
        print(f"{r['step']:4d}  {r['cpp']:.9f}   {r['python']:.9f}  {r['rel']:.2e}             "
              + ("bit-identical" if r["parameters_equal"] else
                 f"largest |difference| {r['parameters_max_abs_difference']:.2e}"))
    worst = max(r["rel"] for r in table)
    ok = worst <= a.tolerance and all(r["parameters_equal"] for r in table)
    print(f"largest relative loss difference {worst:.2e} over {len(table)} steps (tolerance {a.tolerance:g}: "
          f"train_steps.csv prints 9 significant digits); parameters bit-identical after "
          f"{sum(r['parameters_equal'] for r in table)} of {len(table)} steps: {'agree' if ok else 'DIFFER'}")
    return {"steps": table, "largest_relative_difference": worst, "agree": ok, "torch_threads": m["torch_threads"]}


def load_glyphs(config):
    """The training alphabets (images_background), decoded once to 28 x 28 in [0, 1], labels by alphabet."""
    from PIL import Image
    root = ROOT / json.loads(config.read_text())["dataset"]["data_dir"] / "images_background"
    xs, ys = [], []
    for ai, alphabet in enumerate(sorted(p for p in root.iterdir() if p.is_dir())):
        for f in sorted(alphabet.rglob("*.png")):
            xs.append(np.asarray(Image.open(f).convert("L").resize((28, 28), Image.BILINEAR), dtype=np.float32))
            ys.append(ai)
    return torch.from_numpy(np.stack(xs) / 255.0).unsqueeze(1), np.array(ys)


def python_speed(steps, seed):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x_all, y_all = load_glyphs(CONFIG)
    by_class = [np.flatnonzero(y_all == c) for c in np.unique(y_all)]
    model = SmallConv()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        classes = rng.choice(len(by_class), 8, replace=False)
        b = np.concatenate([rng.choice(by_class[c], 16, replace=False) for c in classes])
        step(model, opt, x_all[b], torch.from_numpy(y_all[b]), gen, 0.2)
    return steps * 128 / (time.perf_counter() - t0)


def speed(a, exe, env):
    arms = {"dmlbench": [], "python": []}
    cpp_arms = {"dmlbench": (exe, env)}
    if a.before:  # another build of dmlbench (an earlier commit) as a third arm; its torch plugin where it lies beside it
        plugin = Path(a.before).parent / "libdmlbench_torch_commands.so"
        cpp_arms["dmlbench-before"] = (a.before, dict(env, DMLBENCH_TORCH_PLUGIN=str(plugin)) if plugin.exists() else env)
        arms = {"dmlbench": [], "dmlbench-before": [], "python": []}
    for r in range(a.reps):
        for name, (x, e) in cpp_arms.items():
            with tempfile.TemporaryDirectory() as out:
                m = cpp_train(x, out, a.steps, e)
                if m["torch_threads"] != a.threads:
                    sys.exit(f"error: the C++ run used {m['torch_threads']} threads, not {a.threads}")
                arms[name].append(m["steps"] * 128 / m["train_seconds"])
        p = subprocess.run([sys.executable, __file__, "python-arm", "--steps", str(a.steps), "--seed", str(r + 1),
                            "--threads", str(a.threads)], check=True, capture_output=True, text=True, env=env)
        arms["python"].append(json.loads(p.stdout.strip().splitlines()[-1])["images_per_second"])
        print(f"rep {r}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in arms.items()) + " images/s", flush=True)
    ratios = [c / p for c, p in zip(arms["dmlbench"], arms["python"])]
    extra = {}
    if a.before:
        rb = [c / b for c, b in zip(arms["dmlbench"], arms["dmlbench-before"])]
        extra = {"ratio_dmlbench_over_before": {"median": statistics.median(rb), "min": min(rb), "max": max(rb)}}
    return extra | {"images_per_second": arms, "images_per_second_median": {k: statistics.median(v) for k, v in arms.items()},
            "ratio_dmlbench_over_python": {"median": statistics.median(ratios), "min": min(ratios),
                                           "max": max(ratios)}, "target": "dmlbench >= 1.3 x python"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["agree", "speed", "python-arm", "replay"])
    ap.add_argument("--trace", help=argparse.SUPPRESS)  # replay: a run folder written with --trace-steps
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--trace-steps", type=int, default=20)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--set", action="append", default=[], help="agree: a config override for the run (key=value)")
    ap.add_argument("--control", choices=["double-gather"], help="agree: the negative control, a Python loop that "
                    "gathers the anchors twice (the same loss, its gradients added in another order)")
    ap.add_argument("--before", help="speed: another dmlbench executable (an earlier build) timed as a third arm")
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.mode == "replay":
        print(json.dumps(replay(a.trace, a.control == "double-gather")))
        return 0
    if a.mode == "python-arm":
        print(json.dumps({"images_per_second": python_speed(a.steps, a.seed)}))
        return 0
    exe = str(Path(a.build) / "apps" / "dmlbench")
    extra, blas = coretype_env(exe)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads), **extra)
    result = {"benchmark": f"glyph_training_{a.mode}", "config": str(CONFIG.relative_to(ROOT)), "threads": a.threads,
              "torch": torch.__version__, "blas": blas, "environment": extra}
    if a.mode == "agree":
        result |= {"trace_steps": a.trace_steps, "tolerance": a.tolerance} | agree(a, exe, env)
    else:
        result |= {"steps": a.steps, "reps": a.reps} | speed(a, exe, env)
    print(json.dumps(result, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if a.mode != "agree" or result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
