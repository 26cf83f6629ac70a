#!/usr/bin/python3
"""Training throughput (images/s) of the C++ MNIST even/odd loop (dmlbench train mnist-evenodd) against the same
model ([LCC] App. C), loss (squared-Euclidean triplet, margin 0.2), miner (easy positive + semi-hard negative) and
class-balanced sampler written in Python PyTorch (Debian's python3-torch, the same 1.13), in one script; both on
the CPU with the same number of threads. Each side trains --steps steps; interleaved repetitions; median ratio.

Usage: /usr/bin/python3 bench/training_throughput.py [--build build] [--steps 60] [--reps 3] [--json out.json]
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):  # [LCC] App. C, as experiments/src/mnist_embedding_net.cpp
    def __init__(self, dim=2):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 32, 3), nn.BatchNorm2d(32)
        self.conv2, self.bn2 = nn.Conv2d(32, 64, 3), nn.BatchNorm2d(64)
        self.fc1, self.fc2 = nn.Linear(64 * 12 * 12, 128), nn.Linear(128, dim)

    def forward(self, x):
        x = self.bn1(torch.relu(self.conv1(x)))
        x = self.bn2(torch.relu(self.conv2(x)))
        x = torch.max_pool2d(x, 2).flatten(1)
        return self.fc2(torch.relu(self.fc1(x)))


def read_idx(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        b = f.read()
    nd = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims)


def mine_eps_semihard(sim, y):
    """Easy positive, semi-hard negative: experiments/src/batch_miner.cpp, the same rules."""
    B = sim.shape[0]
    eye = torch.eye(B, dtype=torch.bool)
    same = y[None, :] == y[:, None]
    pos, neg = same & ~eye, ~same
    inf = 1e30
    p = torch.where(pos, sim, torch.full_like(sim, -inf)).argmax(1)
    sap = sim.gather(1, p[:, None])
    semi = neg & (sim < sap)
    best = torch.where(semi, sim, torch.full_like(sim, -inf)).argmax(1)
    easiest = torch.where(neg, sim, torch.full_like(sim, inf)).argmin(1)
    n = torch.where(semi.any(1), best, easiest)
    keep = pos.any(1) & neg.any(1)
    idx = torch.arange(B)
    return idx[keep], p[keep], n[keep]


def python_train(images, parity, steps, per_class, seed):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    by_class = [np.flatnonzero(parity == c) for c in (0, 1)]
    x_all = torch.from_numpy(images).float().div(255.0).unsqueeze(1)
    t0 = time.perf_counter()
    for _ in range(steps):
        b = np.concatenate([rng.choice(ix, per_class, replace=False) for ix in by_class])
        x, yb = x_all[b], torch.from_numpy(parity[b])
        e = model(x)
        with torch.no_grad():
            a, p, n = mine_eps_semihard(-torch.cdist(e, e) ** 2, yb)
        loss = torch.relu(((e[a] - e[p]) ** 2).sum(1) - ((e[a] - e[n]) ** 2).sum(1) + 0.2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return steps * 2 * per_class / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--data-dir", default=os.path.join(root, "data", "mnist"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--per-class", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads))
    exe = os.path.join(a.build, "apps", "dmlbench")
    images = read_idx(os.path.join(a.data_dir, "train-images-idx3-ubyte"))
    labels = read_idx(os.path.join(a.data_dir, "train-labels-idx1-ubyte"))
    keep = labels <= 5
    images, parity = images[keep], (labels[keep] % 2).astype(np.int64)
    cpp, py = [], []
    for r in range(a.reps):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            proc = subprocess.run([exe, "train", "mnist-evenodd", "--data-dir", a.data_dir, "--out", out, "--sampler",
                                   "eps", "--seeds", "1", "--epochs", "1000", "--max-steps", str(a.steps),
                                   "--samples-per-class", str(a.per_class), "--device", "cpu"],
                                  check=True, capture_output=True, text=True, env=env)
            m = json.load(open(os.path.join(out, "eps", "seed1", "metrics.json")))
        if m["torch_threads"] != a.threads:
            sys.exit(f"error: the C++ run used {m['torch_threads']} threads, not {a.threads}")
        # the training steps alone, as the Python loop times them (no evaluation, logging or checkpoints)
        cpp.append(m["steps"] * 2 * a.per_class / m["train_seconds"])
        py.append(python_train(images, parity, a.steps, a.per_class, seed=r + 1))
        print(f"rep {r}: C++ {cpp[-1]:.0f} images/s, Python {py[-1]:.0f} images/s", flush=True)
    ratios = [c / p for c, p in zip(cpp, py)]
    result = {"benchmark": "training_throughput", "steps": a.steps, "batch": 2 * a.per_class, "reps": a.reps,
              "torch": torch.__version__, "threads": a.threads,
              "cpp_images_per_second_median": statistics.median(cpp),
              "python_images_per_second_median": statistics.median(py),
              "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios)}
    print(json.dumps(result, indent=2))
    if a.json:
        json.dump(result, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
