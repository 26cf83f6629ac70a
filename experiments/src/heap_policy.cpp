#include "dmlbench/experiments/heap_policy.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dmlbench::experiments {

std::string keep_freed_memory_in_heap() {
#if defined(__GLIBC__)
  // M_MMAP_THRESHOLD also turns off glibc's dynamic threshold, which is what otherwise sends the maps to mmap
  const bool ok = mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1 && mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024) == 1;
  return ok ? "glibc malloc: mmap threshold 32 MiB, trim threshold 1 GiB" : "";
#else
  return "";
#endif
}

}  // namespace dmlbench::experiments
