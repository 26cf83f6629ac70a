"""The OpenBLAS kernels `dmlbench` runs with, for the Python arms of a benchmark: Debian's OpenBLAS 0.3.21 takes some
CPUs for Prescott, and dmlbench then restarts itself with OPENBLAS_CORETYPE set (apps/blas_kernel_choice.cpp), so a
Python arm (PyTorch, faiss, numpy) must be given the same variable to run on the same kernels."""
import re
import subprocess


def coretype_env(exe):
    """({"OPENBLAS_CORETYPE": kernel} where dmlbench set it, else {}), and the BLAS line of `exe info`."""
    info = subprocess.run([str(exe), "info"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"OPENBLAS_CORETYPE=(\w+) set by dmlbench", info)
    blas = next((l for l in info.splitlines() if l.startswith("BLAS:")), "")
    return ({"OPENBLAS_CORETYPE": m.group(1)} if m else {}), blas
