// OPENBLAS_CORETYPE where OpenBLAS 0.3.21 misreads the CPU (blas_kernel_choice.hpp).
#include "blas_kernel_choice.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace dmlbench::app {

namespace {

// What OpenBLAS's DYNAMIC_ARCH fallback picks from the CPU's features (driver/others/dynamic.c) when it does not
// know the model, best first.
const char* kernels_for_features() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
  if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
  if (__builtin_cpu_supports("avx2")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
#endif
  return nullptr;
}

}  // namespace

void use_openblas_kernels_for_this_cpu(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE")) return;
  using CoreName = char* (*)();
  const auto core_name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!core_name) return;
  const char* chosen = core_name();
  if (!chosen || strcasecmp(chosen, "prescott") != 0) return;
  const char* better = kernels_for_features();
  if (!better) return;
  setenv("OPENBLAS_CORETYPE", better, 1);
  setenv("DMLBENCH_OPENBLAS_CORE_FORCED", chosen, 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then go on with the kernels OpenBLAS chose
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("DMLBENCH_OPENBLAS_CORE_FORCED");
}

}  // namespace dmlbench::app
