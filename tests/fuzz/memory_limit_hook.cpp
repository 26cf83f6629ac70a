// Linked into every harness: libFuzzer's start-up hook sets the memory limit the readers check declared sizes
// against (theory/memory_budget.hpp) to 256 MiB, below libFuzzer's -malloc_limit_mb (1024 in the fuzz tests), so that
// a size a reader fails to check shows up as a malloc-limit crash rather than passing.
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("DMLBENCH_MEMORY_LIMIT", "256M", 1);
  return 0;
}
