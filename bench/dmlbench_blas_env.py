"""The OpenBLAS kernels `dmlbench` runs with, for the Python arms of a benchmark: Debian's OpenBLAS 0.3.21 takes some
CPUs for Prescott, and dmlbench then restarts itself with OPENBLAS_CORETYPE set (apps/blas_kernel_choice.cpp), so a
Python arm (PyTorch, faiss, numpy) must be given the same variable to run on the same kernels."""
import re
import statistics
import subprocess


def coretype_env(exe, env=None):
    """({"OPENBLAS_CORETYPE": kernel} where dmlbench set it, else {}), and the BLAS line of `exe info` (run in env,
    default this process's environment)."""
    info = subprocess.run([str(exe), "info"], capture_output=True, text=True, check=True, env=env).stdout
    m = re.search(r"OPENBLAS_CORETYPE=(\w+) set by dmlbench", info)
    blas = next((l for l in info.splitlines() if l.startswith("BLAS:")), "")
    return ({"OPENBLAS_CORETYPE": m.group(1)} if m else {}), blas


def spread(ratios):
    """A ratio record: the median, least and greatest of per-repetition ratios."""
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}


def kernel_arm(core, env):
    """An arm of the same build on other OpenBLAS kernels: its name and environment. core "own": without
    OPENBLAS_CORETYPE, on the kernels OpenBLAS (or dmlbench's restart) picks for this CPU; else OPENBLAS_CORETYPE=core."""
    name = "dmlbench, OPENBLAS_CORETYPE " + ("unset" if core == "own" else f"={core}")
    kept = {k: v for k, v in env.items() if k != "OPENBLAS_CORETYPE"}
    return name, kept if core == "own" else dict(kept, OPENBLAS_CORETYPE=core)


def kernel_arm_record(exe, env, levels, reference_levels, identical, ratios, speedup_key):
    """What a kernel arm's result file records: its BLAS, whether its report equals the first arm's, how far its NMI
    and NMI+ lie from the first arm's per level (`levels` against `reference_levels`, a report's "levels"), and the
    spread of the first arm's seconds over its own under `speedup_key`."""
    return {"blas": coretype_env(exe, env)[1], "reports_identical_to_first_arm": identical,
            "nmi_abs_difference": {lv: max(abs((levels[lv].get(f) or 0) - (l.get(f) or 0)) for f in ("nmi", "nmi_plus"))
                                   for lv, l in reference_levels.items()},
            speedup_key: spread(ratios)}

# The sgemm rate a benchmark compares with: torch.matmul of two 2048 x 2048 float32 matrices on argv[1] threads, 5
# repetitions after a first, their median (argv[2] "median") or best ("best"); prints {"gflops": ...}. Run it in the
# environment coretype_env gives, so that it multiplies on dmlbench's OpenBLAS kernels.
SGEMM_CODE = """
import sys, time, json, torch
torch.set_num_threads(int(sys.argv[1]))
a = torch.randn(2048, 2048); b = torch.randn(2048, 2048)
a @ b
ts = []
for _ in range(5):
    t0 = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t0)
ts.sort()
print(json.dumps({"gflops": 2 * 2048 ** 3 / (ts[0] if sys.argv[2] == "best" else ts[2]) / 1e9}))
"""


def sgemm_command(threads, statistic="median"):
    """The command that prints the sgemm rate (SGEMM_CODE) on `threads` threads: "median" or "best" of 5."""
    if statistic not in ("median", "best"):
        raise ValueError(f"sgemm_command: statistic must be median or best, got {statistic!r}")
    return ["/usr/bin/python3", "-c", SGEMM_CODE, str(threads), statistic]
