#!/usr/bin/python3
"""Image loader throughput (images/s of one epoch): the C++ prefetching loader (experiments/image_loader.hpp,
bench_loader: libpng / libjpeg-turbo, worker threads) against the reference, PIL (Debian's python3-pil) with
torchvision 0.14 transforms in a torch DataLoader (python3-torch 1.13, num_workers processes), in one script, on
the same files and the same transforms: RandomResizedCrop(224, scale=(0.16, 1)) + RandomHorizontalFlip + ToTensor +
Normalize, batches of --batch in file order.

Three sets of --n generated images: 256 x 256 RGB PNG, the same as JPEG (quality 90), and 105 x 105 1-bit gray
PNG strokes like Omniglot's. Arms: C++ with 0 (decoding in the consumer), 1 and 2 worker threads; Python with
num_workers 0, 1 and 2 (a fresh DataLoader per epoch, so the workers' start is counted, as it is for the C++
threads). Each arm runs in its own process and times its second epoch (the first warms the heap and the page
cache); repetitions interleave the arms; medians and per-repetition ratios. Both sides run with the malloc
settings of the training commands (experiments/heap_policy.hpp; GLIBC_TUNABLES for Python). No GEMM runs in either
arm, so which BLAS is installed does not matter here.

Before timing, a pipeline with no random step (Resize([224, 224]) + Normalize) runs on both sides and must agree
to one uint8 level (PIL rounds between its two resampling passes, the C++ loader once).

Usage: /usr/bin/python3 bench/loader_bench.py [--build build] [--n 2000] [--reps 5] [--batch 50] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

MEAN = {3: [0.485, 0.456, 0.406], 1: [0.5]}
STD = {3: [0.229, 0.224, 0.225], 1: [0.5]}
TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"  # = heap_policy.cpp
SETS = {  # name: (channels, extension)
    "rgb-png-256": (3, "png"),
    "rgb-jpeg-256": (3, "jpg"),
    "gray-png-105": (1, "png"),
}


def spec(channels, random=True):
    steps = ([{"op": "random_resized_crop", "size": 224, "scale": [0.16, 1.0]}, {"op": "hflip", "p": 0.5}] if random
             else [{"op": "resize", "size": [224, 224]}])
    return steps + [{"op": "normalize", "mean": MEAN[channels], "std": STD[channels]}]


def torchvision_transform(channels, random=True):
    import torchvision.transforms as T
    steps = ([T.RandomResizedCrop(224, scale=(0.16, 1.0)), T.RandomHorizontalFlip()] if random
             else [T.Resize([224, 224])])
    return T.Compose(steps + [T.ToTensor(), T.Normalize(MEAN[channels], STD[channels])])


def generate(folder, n, seed=0):
    """Photo-like RGB (smooth colour fields, edges and noise) and Omniglot-like gray strokes."""
    from PIL import Image, ImageDraw
    rng = np.random.default_rng(seed)
    paths = {k: [] for k in SETS}
    for i in range(n):
        low = rng.uniform(0, 255, (6, 6, 3)).astype(np.uint8)
        base = np.asarray(Image.fromarray(low).resize((256, 256), Image.BICUBIC), dtype=np.float32)
        img = np.clip(base + rng.normal(0, 6, base.shape), 0, 255).astype(np.uint8)
        im = Image.fromarray(img)
        d = ImageDraw.Draw(im)
        for _ in range(3):
            x, y = sorted(int(v) for v in rng.integers(0, 256, 2)), sorted(int(v) for v in rng.integers(0, 256, 2))
            d.rectangle([x[0], y[0], x[1], y[1]], outline=tuple(int(v) for v in rng.integers(0, 256, 3)), width=2)
        for name, ext in (("rgb-png-256", "png"), ("rgb-jpeg-256", "jpg")):
            p = os.path.join(folder, name, f"{i:05d}.{ext}")
            im.save(p, quality=90) if ext == "jpg" else im.save(p)
            paths[name].append(p)
        g = Image.new("L", (105, 105), 255)
        d = ImageDraw.Draw(g)
        for _ in range(int(rng.integers(2, 6))):
            d.line([tuple(int(v) for v in rng.integers(10, 95, 2)) for _ in range(int(rng.integers(2, 5)))],
                   fill=0, width=3)
        p = os.path.join(folder, "gray-png-105", f"{i:05d}.png")
        g.convert("1").save(p)  # 1-bit, as Omniglot's files are
        paths["gray-png-105"].append(p)
    return paths


class Files:
    """torch Dataset over image files: PIL open + convert + torchvision transforms, as one writes it."""

    def __init__(self, paths, channels, transform):
        self.paths, self.mode, self.transform = paths, "RGB" if channels == 3 else "L", transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        from PIL import Image
        with Image.open(self.paths[i]) as im:
            return self.transform(im.convert(self.mode))


def python_epoch(list_file, channels, workers, batch, seed, random=True, epochs=1):
    """images/s of the last of `epochs` epochs, each a fresh DataLoader; the first batch of the first epoch"""
    import torch
    torch.set_num_threads(1)  # the C++ loader's consumer does no arithmetic either
    torch.manual_seed(seed)
    paths = open(list_file).read().split()
    ds = Files(paths, channels, torchvision_transform(channels, random))
    first = None
    for _ in range(epochs):
        t0 = time.perf_counter()
        loader = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=False, num_workers=workers)
        images = 0
        for x in loader:
            images += x.shape[0]
            if first is None:
                first = x.numpy().copy()
        ips = images / (time.perf_counter() - t0)
    return ips, first


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    # one Python arm, in its own process
    ap.add_argument("--arm-list", help=argparse.SUPPRESS)
    ap.add_argument("--arm-channels", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--arm-workers", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--arm-seed", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.arm_list:
        ips, _ = python_epoch(a.arm_list, a.arm_channels, a.arm_workers, a.batch, a.arm_seed, epochs=2)
        print(json.dumps({"images_per_second": ips}))
        return
    exe = os.path.join(a.build, "bench", "bench_loader")
    if not os.path.exists(exe):
        sys.exit(f"error: {exe} not found; build first (cmake --build build --target bench_loader)")

    with tempfile.TemporaryDirectory() as tmp:
        for k in SETS:
            os.makedirs(os.path.join(tmp, k))
        t0 = time.perf_counter()
        paths = generate(tmp, a.n)
        sizes = {k: statistics.mean(os.path.getsize(p) for p in v) for k, v in paths.items()}
        print(f"generated 3 x {a.n} images in {time.perf_counter() - t0:.0f} s; mean file sizes "
              + ", ".join(f"{k} {v / 1024:.1f} KiB" for k, v in sizes.items()), flush=True)
        lists, specs = {}, {}
        for k, (channels, _) in SETS.items():
            lists[k] = os.path.join(tmp, k + ".txt")
            open(lists[k], "w").write("\n".join(paths[k]) + "\n")
            specs[k] = os.path.join(tmp, k + ".json")
            json.dump(spec(channels), open(specs[k], "w"))

        # agreement on a pipeline with no random step: the first batch, C++ against torchvision
        agreement = {}
        for k, (channels, _) in SETS.items():
            det = os.path.join(tmp, k + "-det.json")
            json.dump(spec(channels, random=False), open(det, "w"))
            dump = os.path.join(tmp, k + ".f32")
            subprocess.run([exe, lists[k], str(channels), "1", str(a.batch), "1", det, "--dump", dump], check=True,
                           capture_output=True, text=True)
            _, ref = python_epoch(lists[k], channels, 0, a.batch, 0, random=False)
            cpp = np.fromfile(dump, dtype=np.float32).reshape(ref.shape)
            level = 1.0 / (255 * min(STD[channels]))  # one uint8 level after normalisation
            diff = np.abs(cpp - ref)
            agreement[k] = {"max_abs": float(diff.max()), "fraction_differing": float((diff > 1e-6).mean()),
                            "one_level": level}
            if diff.max() > level * 1.0001:
                sys.exit(f"error: {k}: C++ and torchvision disagree by {diff.max():.4f} > one level {level:.4f}")
        print("agreement with torchvision (Resize 224 + Normalize, first batch): "
              + ", ".join(f"{k} max {v['max_abs']:.4f} ({v['fraction_differing']:.1%} of values differ)"
                          for k, v in agreement.items()), flush=True)

        # warm the page cache: every arm reads the same files
        for k in SETS:
            for p in paths[k]:
                open(p, "rb").read()

        arms = [f"cpp-{t}" for t in (0, 1, 2)] + [f"python-{w}" for w in (0, 1, 2)]
        ips = {k: {arm: [] for arm in arms} for k in SETS}

        def cpp(k, threads, rep):
            out = subprocess.run([exe, lists[k], str(SETS[k][0]), str(threads), str(a.batch), "2", specs[k]],
                                 check=True, capture_output=True, text=True)
            return json.loads(out.stdout.strip().splitlines()[-1])["images_per_second"]

        def python(k, workers, rep):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--arm-list", lists[k], "--arm-channels",
                                  str(SETS[k][0]), "--arm-workers", str(workers), "--arm-seed", str(rep),
                                  "--batch", str(a.batch)], check=True, capture_output=True, text=True,
                                 env=dict(os.environ, GLIBC_TUNABLES=TUNABLES))
            return json.loads(out.stdout.strip().splitlines()[-1])["images_per_second"]

        for r in range(a.reps):
            for k in SETS:
                for arm in arms:
                    kind, n = arm.split("-")
                    ips[k][arm].append((cpp if kind == "cpp" else python)(k, int(n), r))
                print(f"rep {r} {k}: " + ", ".join(f"{arm} {v[-1]:.0f}" for arm, v in ips[k].items()) + " images/s",
                      flush=True)

    def ratio(k, num, den):
        rs = [x / y for x, y in zip(ips[k][num], ips[k][den])]  # per repetition: the arms ran back to back
        return {"median": statistics.median(rs), "min": min(rs), "max": max(rs)}

    import PIL
    import torch
    import torchvision
    result = {"benchmark": "loader", "n": a.n, "batch": a.batch, "reps": a.reps, "cpus": os.cpu_count(),
              "pipeline": spec(3), "pil": PIL.__version__, "torch": torch.__version__,
              "torchvision": torchvision.__version__, "blas": "irrelevant (no GEMM in either arm)",
              "timed": "the second epoch of each arm's process", "malloc": TUNABLES,
              "mean_file_bytes": sizes, "agreement_deterministic_pipeline": agreement,
              "images_per_second_median": {k: {arm: statistics.median(v) for arm, v in d.items()}
                                           for k, d in ips.items()},
              "images_per_second": ips,
              "ratio_cpp_over_python": {k: {f"{t} thread(s) vs {t} worker(s)": ratio(k, f"cpp-{t}", f"python-{t}")
                                            for t in (0, 1, 2)} for k in SETS}}
    print(json.dumps(result, indent=2))
    if a.json:
        json.dump(result, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
