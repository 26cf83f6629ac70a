// OpenBLAS's kernels for this CPU: where Debian's OpenBLAS 0.3.21 does not know the CPU model (Intel Emerald Rapids,
// family 6 model 0xCF, falls back to its 2004 Prescott kernels: sgemm 4-5x slower, bench/README.md), dmlbench
// restarts itself once with OPENBLAS_CORETYPE set to the kernels OpenBLAS's own feature test would choose.
#pragma once

namespace dmlbench::app {

// Call first in main(). Does nothing where OPENBLAS_CORETYPE is set (the user's choice, or the restart's), where the
// BLAS is not OpenBLAS, or where OpenBLAS chose anything but Prescott on a CPU with AVX; otherwise it re-executes
// /proc/self/exe with the same arguments and DMLBENCH_OPENBLAS_CORE_FORCED naming the core OpenBLAS chose first.
void use_openblas_kernels_for_this_cpu(char** argv);

}  // namespace dmlbench::app
