#!/usr/bin/python3
"""The system BLAS, ATLAS against OpenBLAS, in one run: Debian's LibTorch (and numpy, Ceres) call the generic
libblas.so.3, which update-alternatives points to one library; LD_LIBRARY_PATH puts either one first for a single
process without touching the system (/usr/lib/x86_64-linux-gnu/atlas or .../openblas-pthread, each with libblas.so.3
and liblapack.so.3). Three workloads, each arm in its own process, repetitions interleaved (the order of the
configurations rotates from one repetition to the next; an untimed sgemm arm per configuration and one untimed
training run come first), medians and per-repetition ratios:

  sgemm         torch.matmul of two --size^2 float32 matrices (PyTorch 1.13: cpublas::gemm -> sgemm_), GFLOP/s
                from the median of --sgemm-iters products after one warm-up product, --threads LibTorch threads
  training      dmlbench train mnist-evenodd as bench/training_throughput.py runs it (EPS + semi-hard, batch 2 x 64,
                --steps steps, --threads threads; images/s of the training steps from metrics.json), with the fused
                kernels (the default) and with --kernels stock (torch::nn modules: the dense layers on sgemm_)
  vector field  bench_vector_field (the [XHN] Delta S sweep, theory/: Eigen and closed forms, no BLAS linked),
                --grid, the median of --vf-reps sweeps per process after one untimed sweep (a fresh process's first
                sweep faults its pages in: ~5 x slower): the control, which must not move

Configurations: atlas, openblas and openblas-1t (OpenBLAS with OPENBLAS_NUM_THREADS=1: does OpenBLAS's own pthread
pool oversubscribe the cores with LibTorch's OpenMP threads?; sgemm and training only).

Every arm checks the BLAS it ran on and refuses to report otherwise: the sgemm child resolves sgemm_ from
libtorch_cpu's handle (dlsym + dladdr) and reads its own /proc/self/maps; each dmlbench training child's
/proc/<pid>/maps is read once LibTorch is mapped, and `dmlbench info` (which prints the library sgemm_ binds to) runs
once per configuration; the vector field's libraries are listed by the loader (LD_TRACE_LOADED_OBJECTS, as ldd).

Usage: /usr/bin/python3 bench/blas_compare.py [--build build] [--reps 5] [--steps 60] [--threads 2]
           [--sgemm-size 2048] [--sgemm-iters 5] [--grid 400] [--vf-reps 5] [--kernels fused stock]
           [--no-openblas-1t] [--json out.json]
"""
import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import dmlbench_training_arm  # bench/: the C++ arm of training_throughput.py

LIBDIR = "/usr/lib/x86_64-linux-gnu"
CONFIGS = {  # name: (the BLAS the process must run on, LD_LIBRARY_PATH, extra environment)
    "atlas": ("ATLAS", f"{LIBDIR}/atlas", {}),
    "openblas": ("OpenBLAS", f"{LIBDIR}/openblas-pthread", {}),
    "openblas-1t": ("OpenBLAS", f"{LIBDIR}/openblas-pthread", {"OPENBLAS_NUM_THREADS": "1"}),
}


def blas_name_of(path):
    """= blas_name_of in experiments/src/evaluation/blas_info.cpp"""
    p, b = path.lower(), os.path.basename(path).lower()
    if "openblas" in p:
        return "OpenBLAS"
    if "atlas" in p or b.startswith(("libf77blas", "libptf77blas", "libcblas", "libptcblas")):
        return "ATLAS"
    if "/blas/" in p and b.startswith("libblas"):
        return "reference BLAS"
    return "unknown"


def is_blas_file(path):
    b = os.path.basename(path).lower()
    return ("blas" in b or "atlas" in b) and "cublas" not in b


def mapped_files(pid="self"):
    out = []
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    p = parts[5].strip()
                    if p not in out:
                        out.append(p)
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def check_blas(where, expected, libs, bound=None):
    """Exits (refuses to report) unless the process ran on the expected BLAS: the library sgemm_ binds to, where
    known, is of that kind, and no BLAS library of another kind is mapped. Returns the BLAS files seen."""
    blas = [p for p in libs if is_blas_file(p)]
    other = [p for p in blas if blas_name_of(p) != expected]
    if bound is not None and blas_name_of(bound) != expected:
        sys.exit(f"error: {where}: sgemm_ binds to {bound} ({blas_name_of(bound)}), not {expected}: "
                 "the LD_LIBRARY_PATH override did not take; not reporting")
    if other:
        sys.exit(f"error: {where}: {', '.join(other)} mapped, not {expected} alone; not reporting")
    return blas


# ---- the sgemm child (in-process, under the LD_LIBRARY_PATH of its configuration)

class DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p), ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", ctypes.c_void_p)]


def sgemm_child(size, iters, threads):
    import torch
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    x, y = torch.randn(size, size), torch.randn(size, size)
    z = torch.matmul(x, y)  # warm-up: binds sgemm_, starts OpenBLAS's threads, faults the output in
    seconds = []
    for _ in range(iters):
        t0 = time.perf_counter()
        torch.matmul(x, y, out=z)
        seconds.append(time.perf_counter() - t0)
    libs = mapped_files()
    torch_cpu = next(p for p in libs if os.path.basename(p).startswith("libtorch_cpu"))
    # dlsym on libtorch_cpu's handle searches its dependencies in load order, as its own sgemm_ reference does
    h = ctypes.CDLL(torch_cpu, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    info = DlInfo()
    libc = ctypes.CDLL(None)
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    if not libc.dladdr(ctypes.cast(h.sgemm_, ctypes.c_void_p), ctypes.byref(info)):
        sys.exit("error: dladdr found no library for sgemm_")
    bound = os.path.realpath(info.dli_fname.decode())
    blas_threads = None
    if blas_name_of(bound) == "OpenBLAS":
        blas_threads = h.openblas_get_num_threads()
    print(json.dumps({"gflops": 2.0 * size ** 3 / statistics.median(seconds) / 1e9, "seconds": seconds,
                      "torch_threads": torch.get_num_threads(), "sgemm_binds_to": bound,
                      "openblas_threads": blas_threads, "libs": libs}))


# ---- the parent

def config_env(name, threads):
    _, libdir, extra = CONFIGS[name]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "LD_PRELOAD")}
    env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               LD_LIBRARY_PATH=libdir + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH")
                                         else ""))
    env.update(extra)
    return env


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--data-dir", default=os.path.join(root, "data", "mnist"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--per-class", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sgemm-size", type=int, default=2048)
    ap.add_argument("--sgemm-iters", type=int, default=5)
    ap.add_argument("--grid", type=int, default=400)
    ap.add_argument("--vf-reps", type=int, default=5)
    ap.add_argument("--kernels", nargs="+", default=["fused", "stock"], choices=["fused", "stock"])
    ap.add_argument("--no-openblas-1t", action="store_true", help="leave out the OPENBLAS_NUM_THREADS=1 arms")
    ap.add_argument("--workloads", nargs="+", default=["sgemm", "training", "vector-field"],
                    choices=["sgemm", "training", "vector-field"])
    ap.add_argument("--json")
    ap.add_argument("--sgemm-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.sgemm_child:
        sgemm_child(a.sgemm_size, a.sgemm_iters, a.threads)
        return

    exe = os.path.join(a.build, "apps", "dmlbench")
    vf = os.path.join(a.build, "bench", "bench_vector_field")
    for f in (exe, vf):
        if not os.path.exists(f):
            sys.exit(f"error: {f} not found; build first (cmake --build build --target dmlbench bench_vector_field)")
    if not os.path.exists(os.path.join(a.data_dir, "train-images-idx3-ubyte")):
        sys.exit(f"error: no MNIST under {a.data_dir}; run scripts/fetch_data.sh")
    for _, (blas, libdir, _) in CONFIGS.items():
        if not os.path.exists(os.path.join(libdir, "libblas.so.3")):
            sys.exit(f"error: {libdir}/libblas.so.3 not found ({blas} not installed)")
    configs = ["atlas", "openblas"] + ([] if a.no_openblas_1t else ["openblas-1t"])
    load_before = os.getloadavg()

    # dmlbench info under each configuration: the library sgemm_ binds to in the dmlbench process
    info = {}
    for c in configs:
        out = subprocess.run([exe, "info"], env=config_env(c, a.threads), check=True, capture_output=True,
                             text=True).stdout
        line = next((l for l in out.splitlines() if l.startswith("BLAS: ")), "")
        m = re.match(r"BLAS: (.+?) \((/[^;)]+)", line)
        if not m or m.group(1) != CONFIGS[c][0] or "also loaded" in line:
            sys.exit(f"error: dmlbench info under {c}: '{line}', not {CONFIGS[c][0]} alone; not reporting")
        if c == "openblas-1t" and ", 1 BLAS threads" not in line:
            sys.exit(f"error: dmlbench info under {c}: '{line}': OPENBLAS_NUM_THREADS=1 did not take")
        info[c] = line
        print(f"{c}: {line}", flush=True)

    # the vector field's libraries, as the loader resolves them under each configuration (ldd)
    vf_libs = {}
    for c in configs[:2]:
        t = subprocess.run([vf], env=dict(config_env(c, a.threads), LD_TRACE_LOADED_OBJECTS="1"), check=True,
                           capture_output=True, text=True).stdout
        libs = [w for w in t.split() if w.startswith("/")]
        vf_libs[c] = check_blas(f"bench_vector_field under {c}", CONFIGS[c][0], libs)
    print("bench_vector_field links BLAS: " + (", ".join(sorted(set(sum(vf_libs.values(), [])))) or "none"),
          flush=True)

    def sgemm(c):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--sgemm-child", "--sgemm-size",
                            str(a.sgemm_size), "--sgemm-iters", str(a.sgemm_iters), "--threads", str(a.threads)],
                           env=config_env(c, a.threads), check=True, capture_output=True, text=True)
        r = json.loads(p.stdout.strip().splitlines()[-1])
        check_blas(f"sgemm under {c}", CONFIGS[c][0], r["libs"], r["sgemm_binds_to"])
        if r["torch_threads"] != a.threads:
            sys.exit(f"error: sgemm under {c} ran {r['torch_threads']} torch threads, not {a.threads}")
        if c == "openblas-1t" and r["openblas_threads"] != 1:
            sys.exit(f"error: sgemm under {c}: OpenBLAS ran {r['openblas_threads']} threads, not 1")
        return r

    def train(c, kernels):
        with tempfile.TemporaryDirectory() as out:
            cmd = dmlbench_training_arm.command(exe, a.data_dir, out, a.steps, a.per_class, kernels)
            with tempfile.TemporaryFile("w+") as log:
                proc = subprocess.Popen(cmd, env=config_env(c, a.threads), stdout=log, stderr=subprocess.STDOUT)
                libs = []
                while proc.poll() is None:  # LibTorch and its BLAS are mapped together when the plugin loads
                    libs = mapped_files(proc.pid)
                    if any(os.path.basename(p).startswith("libtorch_cpu") for p in libs):
                        break
                    time.sleep(0.02)
                if proc.wait() != 0:
                    log.seek(0)
                    sys.exit(f"error: {' '.join(cmd)} failed under {c}:\n{log.read()[-2000:]}")
            if not any(is_blas_file(p) for p in libs):
                sys.exit(f"error: training under {c}: no BLAS seen in the child's maps; not reporting")
            check_blas(f"training ({kernels}) under {c}", CONFIGS[c][0], libs)
            return dmlbench_training_arm.images_per_second(out, a.per_class, a.threads)

    def vector_field(c):
        p = subprocess.run([vf, "--grid", str(a.grid), "--reps", str(a.vf_reps + 1)], env=config_env(c, a.threads),
                           check=True, capture_output=True, text=True)
        rows = [json.loads(l) for l in p.stdout.split("\n") if l.startswith("{")][1:]  # the first: page faults
        return statistics.median(r["seconds"] for r in rows), statistics.median(r["points_per_second"] for r in rows)

    # untimed: the first training run after a while pages LibTorch and the data in (once 5 x slower than the rest)
    for c in configs if "sgemm" in a.workloads else []:
        s = sgemm(c)
        print(f"{c}: sgemm child: sgemm_ binds to {s['sgemm_binds_to']}, {s['torch_threads']} torch threads"
              + (f", {s['openblas_threads']} OpenBLAS threads" if s["openblas_threads"] is not None else ""),
              flush=True)
    if "training" in a.workloads:
        train(configs[0], a.kernels[0])

    metrics = {}
    if "sgemm" in a.workloads:
        metrics["sgemm_gflops"] = "sgemm %d^3 GFLOP/s" % a.sgemm_size
    if "training" in a.workloads:
        metrics.update({f"train_{k}_images_per_second": f"training {k} images/s" for k in a.kernels})
    if "vector-field" in a.workloads:
        metrics.update(vector_field_seconds="vector field s/sweep",
                       vector_field_points_per_second="vector field points/s")
    runs = {c: {k: [] for k in metrics} for c in configs}
    sgemm_seen = {}
    for r in range(a.reps):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for c in order:
            if "sgemm" in a.workloads:
                s = sgemm(c)
                sgemm_seen[c] = {"sgemm_binds_to": s["sgemm_binds_to"], "openblas_threads": s["openblas_threads"],
                                 "torch_threads": s["torch_threads"]}
                runs[c]["sgemm_gflops"].append(s["gflops"])
            for k in a.kernels if "training" in a.workloads else []:
                runs[c][f"train_{k}_images_per_second"].append(train(c, k))
            if c in vf_libs and "vector-field" in a.workloads:
                sec, pps = vector_field(c)
                runs[c]["vector_field_seconds"].append(sec)
                runs[c]["vector_field_points_per_second"].append(pps)
        print(f"rep {r}: " + "; ".join(f"{c}: " + ", ".join(f"{metrics[k]} {v[-1]:.4g}" for k, v in runs[c].items()
                                                              if v) for c in configs), flush=True)

    def ratio(num, den, key):
        rs = [x / y for x, y in zip(runs[num][key], runs[den][key])]  # per repetition
        return {"median": statistics.median(rs), "min": min(rs), "max": max(rs)} if rs else None

    medians = {c: {k: statistics.median(v) for k, v in runs[c].items() if v} for c in configs}
    ratios = {"openblas_over_atlas": {k: ratio("openblas", "atlas", k) for k in metrics}}
    runs = {c: {k: v for k, v in runs[c].items() if v} for c in configs}
    if "openblas-1t" in configs:
        ratios["openblas_1t_over_openblas"] = {k: ratio("openblas-1t", "openblas", k) for k in metrics
                                               if k in runs["openblas-1t"]}
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")
    import torch
    result = {
        "benchmark": "blas_compare", "reps": a.reps, "threads": a.threads, "steps": a.steps,
        "batch": 2 * a.per_class, "sgemm_size": a.sgemm_size, "sgemm_iters": a.sgemm_iters, "grid": a.grid,
        "vf_reps": a.vf_reps, "torch": torch.__version__, "cpu": cpu, "cpus": os.cpu_count(),
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "workloads": a.workloads, "kernels": a.kernels,
        "openblas_environment": {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS_", "GOTO"))},
        "configs": {c: {"blas": CONFIGS[c][0], "LD_LIBRARY_PATH": CONFIGS[c][1], "env": CONFIGS[c][2],
                        "dmlbench_info": info[c], "sgemm": sgemm_seen.get(c), "vector_field_blas": vf_libs.get(c)}
                    for c in configs},
        "medians": medians, "ratios": ratios, "runs": runs,
    }
    print(json.dumps(result, indent=2))
    head = ["metric"] + configs + ["OpenBLAS/ATLAS"] + (["1t/OpenBLAS"] if "openblas-1t" in configs else [])
    rows = []
    for k, label in metrics.items():
        cells = [label] + [f"{medians[c][k]:.4g}" if k in medians[c] else "-" for c in configs]
        for rk in ratios:
            q = ratios[rk].get(k)
            cells.append(f"{q['median']:.3f} ({q['min']:.2f}-{q['max']:.2f})" if q else "-")
        rows.append(cells)
    w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    print("\nmedians over %d repetitions; ratios: median (min-max) of the per-repetition ratios of the metric as "
          "named (of s/sweep: below 1 is faster)" % a.reps)
    for r in [head] + rows:
        print("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(r)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
