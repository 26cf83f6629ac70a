// The exact search's scan of one query's row of distances (exact_knn.cpp; Musgrave et al. 2020 Sec 3.2): the columns
// strictly nearer than a threshold, appended as rank keys, built three times (generic, AVX2, AVX-512) and picked at
// run time; all three give the same keys, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmlbench::experiments {

// One query's row of a tile of distances.
struct ScanRow {
  const float* similarity;     // <q, g> of the tile's gallery rows, by GEMM
  const float* gallery_norms;  // their |g|^2 (Euclidean only; may be null for cosine)
  float query_norm;            // |q|^2 (Euclidean only)
  std::uint32_t first;         // the gallery row of column 0
  std::int64_t size;           // the columns
  std::int64_t own;            // the query's own column (never a candidate), or -1
};

// The distance of column j as the engine ranks it: cosine 0 - s, Euclidean (|q|^2 + |g|^2) - (s + s).
inline float scan_distance(const ScanRow& row, bool euclid, std::int64_t j) {
  return euclid ? (row.query_norm + row.gallery_norms[j]) - (row.similarity[j] + row.similarity[j])
                : 0.0f - row.similarity[j];
}

// A candidate as one integer in rank order: the distance's bits made monotone (-0 and +0 equal) above the row.
std::uint64_t rank_key(float distance, std::uint32_t row);
float key_distance(std::uint64_t key);

constexpr std::int64_t kScanChunk = 32;  // columns between two looks at the candidate count

enum class ScanIsa { generic, avx2, avx512 };

// From column j (0 or where the last call stopped), chunk by chunk of kScanChunk columns: appends to keys[n..] the
// rank key of each column nearer than thr (distance < thr; never NaN, never `own`), in column order, and stops
// after the first chunk that brings n to `limit` or more, or at the row's end; returns the column where it stopped.
// keys must hold n + kScanChunk entries for every n < limit (entries past the final n are scratch). Throws
// std::invalid_argument where `isa` does not run on this CPU.
std::int64_t scan_chunks(ScanIsa isa, bool euclid, const ScanRow& row, std::int64_t j, float thr, std::uint64_t* keys,
                         std::size_t& n, std::size_t limit);

bool scan_isa_runs_here(ScanIsa isa);
const char* scan_isa_name(ScanIsa isa);  // "generic", "avx2", "avx512"
// The widest build this CPU runs; DMLBENCH_SCAN_ISA=generic|avx2|avx512 picks another that runs (benchmarks).
ScanIsa fastest_scan_isa();

}  // namespace dmlbench::experiments
