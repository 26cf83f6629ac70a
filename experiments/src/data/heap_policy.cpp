#include "dmlbench/experiments/heap_policy.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dmlbench::experiments {

std::string keep_freed_memory_in_heap() {
#if defined(__GLIBC__)
  // M_MMAP_THRESHOLD also turns off glibc's dynamic threshold, which is what otherwise sends the maps to mmap
  // M_MMAP_MAX 0: no allocation is mmap'ed at all, so larger blocks (an evaluation batch's 200 MB activation maps, a
  // 48 MB similarity tile) are reused from the heap too; on the glyph proxy's evaluation this took the time of one
  // pass over the test set from 56 s to 12 s (perf: a third of the time in the kernel's page-fault handler)
  const bool ok = mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1 && mallopt(M_MMAP_MAX, 0) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024) == 1;
  return ok ? "glibc malloc: no mmap'ed blocks, trim threshold 1 GiB" : "";
#else
  return "";
#endif
}

}  // namespace dmlbench::experiments
