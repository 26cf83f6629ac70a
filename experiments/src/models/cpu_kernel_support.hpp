// What the hand-written CPU kernels of experiments/ share (fused_relu_batch_norm.cpp, single_channel_conv.cpp):
// function multiversioning of their hot loops, and per-image sums added in a thread-count-independent order.
#pragma once

#include <ATen/Parallel.h>

#include <cstdint>
#include <vector>

// The hot loops are compiled twice on x86-64, for AVX2 (x86-64-v3) and for the baseline, and the loader picks the one
// the machine runs. Both give the same bits: the loops vectorise over channels, so no sum changes order with the
// vector width, and the kernel files are built with -ffp-contract=off (no FMA contraction; experiments/CMakeLists.txt).
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
#define DMLBENCH_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DMLBENCH_KERNEL
#endif

namespace dmlbench::experiments::cpu {

// Sums over the N images of a batch of `width` values each: f(n, acc) adds image n's terms into acc[0 .. width)
// (zeroed, double). Images run in parallel; their sums are added in image order, so the result is the same for any
// number of threads.
template <typename F>
std::vector<double> sum_over_images(std::int64_t N, std::int64_t width, F f) {
  std::vector<double> part(static_cast<std::size_t>(N * width), 0.0);
  at::parallel_for(0, N, 1, [&](std::int64_t n0, std::int64_t n1) {
    for (std::int64_t n = n0; n < n1; ++n) f(n, part.data() + n * width);
  });
  std::vector<double> s(static_cast<std::size_t>(width), 0.0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t k = 0; k < width; ++k) s[std::size_t(k)] += part[std::size_t(n * width + k)];
  return s;
}

}  // namespace dmlbench::experiments::cpu
