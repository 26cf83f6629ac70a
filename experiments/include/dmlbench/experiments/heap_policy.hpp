// Keeps freed tensor memory in the process heap for reuse (glibc malloc): a training step allocates and frees the
// same ~20 MB activation maps each time, and by default glibc hands them back to the kernel and faults in fresh,
// zeroed pages on the next step (a quarter of the step's time on the MNIST network, seen with perf).
#pragma once

#include <string>

namespace dmlbench::experiments {

// Serves every allocation from the heap (none mmap'ed) and trims the heap only beyond 1 GiB free.
// Returns a description of what was set ("" where the C library is not glibc). Results do not change, only speed.
std::string keep_freed_memory_in_heap();

}  // namespace dmlbench::experiments
