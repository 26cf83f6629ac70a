#!/usr/bin/python3
"""ResNet training throughput (images/s of forward + backward + SGD step) of the C++ model the engine trains
(experiments/resnet.hpp through make_embedding_model, driver bench_resnet_training) against the same loop in Python
PyTorch (Debian's python3-torch 1.13 with torchvision 0.14's resnet18 / resnet50), in one script, on the CPU with
the same number of threads.

Both sides: the backbone with a linear head of --dim outputs (torchvision's fc with num_classes=--dim, the C++
`embedding`), training mode, one fixed N(0, 1) batch of --batch x 3 x --size x --size, loss mean(e^2), SGD (lr 0.01,
momentum 0.9, weight decay 5e-4), --warmup untimed steps then --steps timed ones; freed memory kept in the heap on
both sides (experiments/heap_policy.hpp; GLIBC_TUNABLES for Python). Each arm runs in its own process; repetitions
interleave the arms; medians and per-repetition ratios. Both sides call the same libtorch_cpu 1.13 (python3-torch
links Debian's libtorch), so a ratio near 1 says the C++ model adds no overhead of its own; the convolutions run on
oneDNN, the linear head and a few small GEMMs on the system BLAS (printed).

Usage: /usr/bin/python3 bench/resnet_training_bench.py [--build build] [--arch resnet18] [--batch 32] [--size 64]
           [--threads 2] [--reps 5] [--steps 8] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"  # = heap_policy.cpp


def python_train(arch, batch, size, dim, warmup, steps, threads):
    import torch
    import torchvision
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, arch)(weights=None, num_classes=dim)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(batch, 3, size, size)
    seconds, loss = 0.0, 0.0
    for s in range(warmup + steps):
        t0 = time.perf_counter()
        l = model(x).pow(2).mean()
        opt.zero_grad()
        l.backward()
        opt.step()
        loss = l.item()
        if s >= warmup:
            seconds += time.perf_counter() - t0
    return {"images_per_second": batch * steps / seconds, "threads": torch.get_num_threads(), "last_loss": loss}


def blas():
    """the libblas.so.3 alternative in use (Debian's update-alternatives), else the library's real path"""
    try:
        q = subprocess.run(["update-alternatives", "--query", "libblas.so.3-x86_64-linux-gnu"], capture_output=True,
                           text=True).stdout
        for line in q.splitlines():
            if line.startswith("Value:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--arch", default="resnet18", choices=("resnet18", "resnet50"))
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--json")
    ap.add_argument("--arm-python", action="store_true", help=argparse.SUPPRESS)  # one Python arm, own process
    a = ap.parse_args()
    shape = [str(v) for v in (a.batch, a.size, a.dim, a.warmup, a.steps, a.threads)]
    if a.arm_python:
        print(json.dumps(python_train(a.arch, a.batch, a.size, a.dim, a.warmup, a.steps, a.threads)))
        return
    exe = os.path.join(a.build, "bench", "bench_resnet_training")
    if not os.path.exists(exe):
        sys.exit(f"error: {exe} not found; build first (cmake --build build --target bench_resnet_training)")

    def cpp():
        out = subprocess.run([exe, a.arch] + shape, check=True, capture_output=True, text=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    def python():
        args = [sys.executable, os.path.abspath(__file__), "--arm-python", "--arch", a.arch, "--batch", shape[0],
                "--size", shape[1], "--dim", shape[2], "--warmup", shape[3], "--steps", shape[4], "--threads", shape[5]]
        out = subprocess.run(args, check=True, capture_output=True, text=True,
                             env=dict(os.environ, GLIBC_TUNABLES=TUNABLES))
        return json.loads(out.stdout.strip().splitlines()[-1])

    arms = {"cpp": cpp, "python": python}
    ips = {k: [] for k in arms}
    info = {}
    t0 = time.perf_counter()
    for r in range(a.reps):
        for k, run in arms.items():
            res = run()
            ips[k].append(res["images_per_second"])
            info[k] = res
            if res["threads"] != a.threads:
                sys.exit(f"error: the {k} arm ran with {res['threads']} threads, not {a.threads}")
        print(f"rep {r}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in ips.items()) + " images/s", flush=True)
    rs = [c / p for c, p in zip(ips["cpp"], ips["python"])]  # per repetition: the arms ran back to back

    import torch
    import torchvision
    med = {k: statistics.median(v) for k, v in ips.items()}
    print(f"\n{a.arch} training, batch {a.batch} x 3 x {a.size} x {a.size}, {a.threads} thread(s), "
          f"{a.steps} timed steps x {a.reps} reps ({time.perf_counter() - t0:.0f} s)")
    print(f"{'arm':<28}{'median images/s':>16}{'min':>10}{'max':>10}")
    for k, label in (("cpp", "C++ LibTorch (dmlbench)"), ("python", "Python PyTorch")):
        print(f"{label:<28}{med[k]:>16.1f}{min(ips[k]):>10.1f}{max(ips[k]):>10.1f}")
    print(f"{'ratio C++ / Python':<28}{statistics.median(rs):>16.3f}{min(rs):>10.3f}{max(rs):>10.3f}")
    result = {"benchmark": "resnet_training", "arch": a.arch, "batch": a.batch, "size": a.size, "dim": a.dim,
              "threads": a.threads, "warmup": a.warmup, "steps": a.steps, "reps": a.reps, "cpus": os.cpu_count(),
              "torch": torch.__version__, "torchvision": torchvision.__version__, "blas": blas(),
              "mkldnn": bool(torch.backends.mkldnn.is_available()), "malloc": TUNABLES,
              "images_per_second_median": med, "images_per_second": ips,
              "ratio_cpp_over_python": {"median": statistics.median(rs), "min": min(rs), "max": max(rs)}}
    print(f"BLAS {result['blas']}, oneDNN {'yes' if result['mkldnn'] else 'no'}, torch {torch.__version__}")
    if a.json:
        json.dump(result, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
