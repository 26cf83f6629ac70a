// Exact k nearest neighbours for retrieval evaluation (Musgrave et al. 2020 Sec 3.2, [LCC] Sec 5): query blocks
// against gallery tiles by GEMM with a bounded per-query selection, never more than one tile of the distance matrix.
#pragma once

#include "dmlbench/experiments/retrieval_metrics.hpp"  // Similarity

#include <torch/torch.h>

#include <cstdint>
#include <functional>

namespace dmlbench::experiments {

// One ranked neighbour: its distance as the engine computed it (below) and its gallery row.
struct Neighbour {
  float distance;
  std::uint32_t index;
};

// native: the CPU engine (each thread runs fixed slices of 512 queries through the gallery: a BLAS GEMM per tile on
// one BLAS thread, then a scan with a per-query threshold, built for AVX-512, AVX2 or generic x86-64 and picked at
// run time); torch_ops: the same distances and ranking from LibTorch operations alone (a stable sort per tile), the
// path CUDA tensors take; automatic: native for CPU tensors, torch_ops otherwise.
enum class KnnBackend { automatic, native, torch_ops };

struct KnnOptions {
  Similarity similarity = Similarity::cosine;
  bool exclude_self = false;          // query i is gallery row i and not its own neighbour (needs queries == gallery)
  std::int64_t query_block = 0;       // queries per block; 0: up to 1024 in whole slices of 512, fewer where the
                                      // candidate buffers need it
  std::int64_t gallery_tile = 0;      // gallery rows per tile; 0: 1024 (a slice's distances stay in a core's L2)
  std::int64_t candidate_bytes = std::int64_t(256) << 20;  // bound on one block's per-query candidate buffers
  KnnBackend backend = KnnBackend::automatic;
  // called after each block of queries with the queries done and the total (progress for long searches); may be null
  std::function<void(std::int64_t done, std::int64_t total)> on_block;
};

// What a search cost; flops counts 2 x queries x gallery x dims. The native backend's gemm_seconds and
// select_seconds are summed over its threads; tile_bytes is one thread's buffer of distances.
struct KnnStats {
  double seconds = 0, gemm_seconds = 0, select_seconds = 0, flops = 0;
  std::int64_t query_blocks = 0, tiles = 0, tile_bytes = 0, peak_candidate_bytes = 0;
  const char* scan = "torch_ops";  // the native backend: its scan's build (candidate_scan.hpp)
};

// The distance the ranking uses, computed in float32 from the rows as given (the caller L2-normalises for cosine):
// cosine 0 - <q, g>; Euclidean (|q|^2 + |g|^2) - 2 <q, g> (the squared distance by the expansion GEMM engines use,
// faiss included; it can round below 0 for near-duplicates). Neighbours are ranked by distance and exactly equal
// distances by gallery row, lower first (-0 and +0 are equal: the cosine form gives +0).
//
// wanted(q): how many neighbours query q needs (at least 1; capped at the gallery size, less one with exclude_self).
// visit(q, neighbours, count): once per query, from worker threads (never twice at once for the same q), with its
// `count` nearest in rank order; the pointer is valid during the call only.
// Throws std::invalid_argument for non-2-D or mismatched inputs, exclude_self with different query and gallery
// counts, or Euclidean norms that overflow float32. The rows must be finite (the caller checks).
KnnStats exact_knn(const torch::Tensor& queries, const torch::Tensor& gallery, const KnnOptions& options,
                   const std::function<std::int64_t(std::int64_t)>& wanted,
                   const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit);

}  // namespace dmlbench::experiments
