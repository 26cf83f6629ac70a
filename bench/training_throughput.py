#!/usr/bin/python3
"""Training throughput (images/s) of the C++ MNIST even/odd loop (dmlbench train mnist-evenodd) against the same
model ([LCC] App. C), loss (squared-Euclidean triplet, margin 0.2), miner (easy positive + semi-hard negative) and
class-balanced sampler written in Python PyTorch (Debian's python3-torch, the same 1.13), in one script; all on
the CPU with the same number of threads. Each arm trains --steps steps; interleaved repetitions; median ratios.

Four arms, each in its own process (the C++ arms report their own training-step time in metrics.json):
  cpp-fused     dmlbench as it runs by default: --kernels fused (ReLU -> BN -> max-pool fused, dense 128 on MKL-DNN)
                and freed tensor memory kept in the heap (experiments/heap_policy.hpp)
  cpp-stock     dmlbench --kernels stock: torch::nn modules, the same ops as the Python loop (heap policy as above)
  python        the Python loop as one writes it: nn.Conv2d / BatchNorm2d / max_pool2d / Linear. The target's
                reference: cpp-fused >= 1.5 x python
  python-tuned  the Python loop given every trick that needs no new kernel: channels-last maps, dense 128 as the 12x12
                convolution, and the same malloc settings (GLIBC_TUNABLES): what is left of the C++ gain then

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

import dmlbench_training_arm  # bench/: the C++ arm, shared with blas_compare.py


class Net(nn.Module):  # [LCC] App. C, as experiments/src/models/mnist_embedding_net.cpp
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


TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"  # = heap_policy.cpp


class NetChannelsLast(Net):  # the same function; channels-last maps, dense 128 as the 12x12 conv it equals
    def forward(self, x):
        x = self.bn1(torch.relu(self.conv1(x)))
        x = self.bn2(torch.relu(self.conv2(x)))
        x = torch.max_pool2d(x, 2)
        x = torch.nn.functional.conv2d(x, self.fc1.weight.view(-1, 64, 12, 12), self.fc1.bias).flatten(1)
        return self.fc2(torch.relu(x))


def read_idx(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        b = f.read()
    nd = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims)


def mine_eps_semihard(sim, y):
    """Easy positive, semi-hard negative: experiments/src/engine/batch_miner.cpp, the same rules."""
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


def python_train(images, parity, steps, per_class, seed, channels_last=False):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = NetChannelsLast() if channels_last else Net()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    by_class = [np.flatnonzero(parity == c) for c in (0, 1)]
    x_all = torch.from_numpy(images).float().div(255.0).unsqueeze(1)
    if channels_last:
        x_all = x_all.contiguous(memory_format=torch.channels_last)
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
    ap.add_argument("--arm", choices=["python", "python-tuned"], help=argparse.SUPPRESS)  # one Python arm, in-process
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads))
    exe = os.path.join(a.build, "apps", "dmlbench")
    images = read_idx(os.path.join(a.data_dir, "train-images-idx3-ubyte"))
    labels = read_idx(os.path.join(a.data_dir, "train-labels-idx1-ubyte"))
    keep = labels <= 5
    images, parity = images[keep], (labels[keep] % 2).astype(np.int64)
    if a.arm:
        print(json.dumps({"images_per_second": python_train(images, parity, a.steps, a.per_class, a.seed,
                                                              channels_last=a.arm == "python-tuned")}))
        return

    def python(arm, seed):
        penv = dict(env, GLIBC_TUNABLES=TUNABLES) if arm == "python-tuned" else env
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--arm", arm, "--seed", str(seed),
                            "--steps", str(a.steps), "--per-class", str(a.per_class), "--threads", str(a.threads),
                            "--data-dir", a.data_dir], check=True, capture_output=True, text=True, env=penv)
        return json.loads(p.stdout.strip().splitlines()[-1])["images_per_second"]

    arms = {"cpp-fused": [], "cpp-stock": [], "python": [], "python-tuned": []}

    def cpp(kernels):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(dmlbench_training_arm.command(exe, a.data_dir, out, a.steps, a.per_class, kernels),
                           check=True, capture_output=True, text=True, env=env)
            return dmlbench_training_arm.images_per_second(out, a.per_class, a.threads)

    for r in range(a.reps):
        arms["cpp-fused"].append(cpp("fused"))
        arms["cpp-stock"].append(cpp("stock"))
        arms["python"].append(python("python", r + 1))
        arms["python-tuned"].append(python("python-tuned", r + 1))
        print(f"rep {r}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in arms.items()) + " images/s", flush=True)

    def ratio(num, den):
        rs = [x / y for x, y in zip(arms[num], arms[den])]  # per repetition: the arms of one rep ran back to back
        return {"median": statistics.median(rs), "min": min(rs), "max": max(rs)}

    result = {"benchmark": "training_throughput", "steps": a.steps, "batch": 2 * a.per_class, "reps": a.reps,
              "torch": torch.__version__, "threads": a.threads,
              "images_per_second_median": {k: statistics.median(v) for k, v in arms.items()},
              "images_per_second": arms,
              "ratio_cpp_fused_over_python": ratio("cpp-fused", "python"),
              "ratio_cpp_stock_over_python": ratio("cpp-stock", "python"),
              "ratio_cpp_fused_over_python_tuned": ratio("cpp-fused", "python-tuned"),
              "target": "cpp-fused >= 1.5 x python"}
    print(json.dumps(result, indent=2))
    if a.json:
        json.dump(result, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
