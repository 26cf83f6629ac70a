"""The `dmlbench` arm of the MNIST even/odd training benchmark, shared by bench/training_throughput.py and
bench/blas_compare.py: `dmlbench train mnist-evenodd` with EPS + semi-hard, one seed, batch 2 x per_class, stopped
after `steps` steps, timed by the run itself (the training steps alone)."""
import json
import os
import sys


def command(exe, data_dir, out, steps, per_class, kernels):
    return [exe, "train", "mnist-evenodd", "--data-dir", data_dir, "--out", out, "--sampler", "eps", "--seeds", "1",
            "--epochs", "1000", "--max-steps", str(steps), "--samples-per-class", str(per_class), "--device", "cpu",
            "--kernels", kernels]


def images_per_second(out, per_class, threads):
    """From the run's metrics.json: the training steps alone, as the Python loop times them (no evaluation, logging
    or checkpoints); exits if the run used another thread count."""
    m = json.load(open(os.path.join(out, "eps", "seed1", "metrics.json")))
    if m["torch_threads"] != threads:
        sys.exit(f"error: the C++ run used {m['torch_threads']} threads, not {threads}")
    return m["steps"] * 2 * per_class / m["train_seconds"]
