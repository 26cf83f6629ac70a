// The exact search's candidate scan in three builds picked at run time (candidate_scan.hpp; Musgrave et al. 2020
// Sec 3.2 ranks every gallery row): the same distances by the same float operations (no FMA: the file is built
// with -ffp-contract=off), the same comparison, the same keys in column order.
#include "dmlbench/experiments/candidate_scan.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
// GCC 12's AVX-512 headers start some intrinsics from an undefined vector on purpose (-Wmaybe-uninitialized).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define DMLBENCH_SCAN_X86 1
#endif

namespace dmlbench::experiments {

// Branch-free: d + 0.0f turns -0 into +0 (round to nearest), and the sign selects the flip by a mask.
std::uint64_t rank_key(float d, std::uint32_t row) {
  d = d + 0.0f;
  std::uint32_t u;
  std::memcpy(&u, &d, sizeof u);
  const std::uint32_t negative = 0u - (u >> 31);  // all ones for a negative distance
  u ^= negative | 0x80000000u;
  return std::uint64_t(u) << 32 | row;
}

float key_distance(std::uint64_t key) {
  auto u = std::uint32_t(key >> 32);
  u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
  float d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

namespace {

// One chunk [j0, j1), the reference: every column's key written at keys[n], n advanced past those that enter.
template <bool Euclid>
std::size_t chunk_generic(const ScanRow& row, std::int64_t j0, std::int64_t j1, float thr, std::uint64_t* keys,
                          std::size_t n) {
  int any = 0;  // a branch-free pass first: most chunks have no candidate
  for (std::int64_t j = j0; j < j1; ++j) any |= int(scan_distance(row, Euclid, j) < thr);
  if (!any) return n;
  for (std::int64_t j = j0; j < j1; ++j) {
    const float d = scan_distance(row, Euclid, j);
    keys[n] = rank_key(d, std::uint32_t(row.first + std::uint32_t(j)));
    n += std::size_t(d < thr) & std::size_t(j != row.own);
  }
  return n;
}

template <bool Euclid>
std::int64_t scan_generic(const ScanRow& row, std::int64_t j, float thr, std::uint64_t* keys, std::size_t& n,
                          std::size_t limit) {
  for (; j < row.size;) {
    const auto j1 = std::min(row.size, j + kScanChunk);
    n = chunk_generic<Euclid>(row, j, j1, thr, keys, n);
    j = j1;
    if (n >= limit) break;
  }
  return j;
}

#ifdef DMLBENCH_SCAN_X86

// AVX2: 8 columns per comparison; the entering columns (few, past the first tile) keyed one by one.
template <bool Euclid>
__attribute__((target("avx2"))) std::int64_t scan_avx2(const ScanRow& row, std::int64_t j, float thr,
                                                      std::uint64_t* keys, std::size_t& n, std::size_t limit) {
  const __m256 t = _mm256_set1_ps(thr), zero = _mm256_setzero_ps(), qn = _mm256_set1_ps(row.query_norm);
  alignas(32) float d[kScanChunk];
  for (; j + kScanChunk <= row.size;) {
    unsigned mask = 0;
    for (int v = 0; v < int(kScanChunk / 8); ++v) {
      const __m256 s = _mm256_loadu_ps(row.similarity + j + 8 * v);
      const __m256 dv = Euclid ? _mm256_sub_ps(_mm256_add_ps(qn, _mm256_loadu_ps(row.gallery_norms + j + 8 * v)),
                                               _mm256_add_ps(s, s))
                               : _mm256_sub_ps(zero, s);
      _mm256_store_ps(d + 8 * v, dv);
      mask |= unsigned(_mm256_movemask_ps(_mm256_cmp_ps(dv, t, _CMP_LT_OQ))) << (8 * v);
    }
    if (row.own >= j && row.own < j + kScanChunk) mask &= ~(1u << (row.own - j));
    for (; mask; mask &= mask - 1) {
      const int i = __builtin_ctz(mask);
      keys[n++] = rank_key(d[i], std::uint32_t(row.first + std::uint32_t(j + i)));
    }
    j += kScanChunk;
    if (n >= limit) return j;
  }
  return scan_generic<Euclid>(row, j, thr, keys, n, limit);  // the last, partial chunk
}

// Eight rank keys from their distance bits (made monotone) and rows.
__attribute__((target("avx512f"))) inline __m512i keys_of(__m256i u, __m256i rows) {
  return _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(u), 32), _mm512_cvtepu32_epi64(rows));
}

// AVX-512: 16 columns per comparison, the entering ones' keys compressed into place.
template <bool Euclid>
__attribute__((target("avx512f"))) std::int64_t scan_avx512(const ScanRow& row, std::int64_t j, float thr,
                                                           std::uint64_t* keys, std::size_t& n, std::size_t limit) {
  const __m512 t = _mm512_set1_ps(thr), zero = _mm512_setzero_ps(), qn = _mm512_set1_ps(row.query_norm);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i sign = _mm512_set1_epi32(int(0x80000000u));
  for (; j + kScanChunk <= row.size;) {
    for (int v = 0; v < int(kScanChunk / 16); ++v) {
      const std::int64_t c = j + 16 * v;
      const __m512 s = _mm512_loadu_ps(row.similarity + c);
      const __m512 d = Euclid ? _mm512_sub_ps(_mm512_add_ps(qn, _mm512_loadu_ps(row.gallery_norms + c)),
                                              _mm512_add_ps(s, s))
                              : _mm512_sub_ps(zero, s);
      __mmask16 mask = _mm512_cmp_ps_mask(d, t, _CMP_LT_OQ);
      if (row.own >= c && row.own < c + 16) mask = __mmask16(mask & ~(1u << (row.own - c)));
      if (!mask) continue;
      // rank_key, 16 at once: -0 -> +0, then the sign flip by a mask
      const __m512i bits = _mm512_castps_si512(_mm512_add_ps(d, zero));
      const __m512i u = _mm512_xor_si512(bits, _mm512_or_si512(_mm512_srai_epi32(bits, 31), sign));
      const __m512i rows = _mm512_add_epi32(_mm512_set1_epi32(int(row.first + std::uint32_t(c))), iota);
      const __m512i cu = _mm512_maskz_compress_epi32(mask, u), cr = _mm512_maskz_compress_epi32(mask, rows);
      _mm512_storeu_si512(keys + n, keys_of(_mm512_castsi512_si256(cu), _mm512_castsi512_si256(cr)));
      _mm512_storeu_si512(keys + n + 8, keys_of(_mm512_extracti64x4_epi64(cu, 1), _mm512_extracti64x4_epi64(cr, 1)));
      n += std::size_t(__builtin_popcount(mask));
    }
    j += kScanChunk;
    if (n >= limit) return j;
  }
  return scan_generic<Euclid>(row, j, thr, keys, n, limit);
}

#endif

ScanIsa parse_isa(const char* s) {
  for (const auto isa : {ScanIsa::generic, ScanIsa::avx2, ScanIsa::avx512})
    if (std::string(s) == scan_isa_name(isa)) {
      if (!scan_isa_runs_here(isa))
        throw std::invalid_argument(std::string("DMLBENCH_SCAN_ISA=") + s + ": this CPU does not run it");
      return isa;
    }
  throw std::invalid_argument(std::string("DMLBENCH_SCAN_ISA must be generic, avx2 or avx512, got '") + s + "'");
}

}  // namespace

bool scan_isa_runs_here(ScanIsa isa) {
#ifdef DMLBENCH_SCAN_X86
  if (isa == ScanIsa::avx2) return __builtin_cpu_supports("avx2");
  if (isa == ScanIsa::avx512) return __builtin_cpu_supports("avx512f");
#endif
  return isa == ScanIsa::generic;
}

const char* scan_isa_name(ScanIsa isa) {
  return isa == ScanIsa::avx512 ? "avx512" : isa == ScanIsa::avx2 ? "avx2" : "generic";
}

ScanIsa fastest_scan_isa() {
  if (const char* forced = std::getenv("DMLBENCH_SCAN_ISA"); forced && *forced) return parse_isa(forced);
  if (scan_isa_runs_here(ScanIsa::avx512)) return ScanIsa::avx512;
  if (scan_isa_runs_here(ScanIsa::avx2)) return ScanIsa::avx2;
  return ScanIsa::generic;
}

std::int64_t scan_chunks(ScanIsa isa, bool euclid, const ScanRow& row, std::int64_t j, float thr, std::uint64_t* keys,
                         std::size_t& n, std::size_t limit) {
  if (!scan_isa_runs_here(isa))
    throw std::invalid_argument(std::string("scan_chunks: this CPU does not run ") + scan_isa_name(isa));
#ifdef DMLBENCH_SCAN_X86
  if (isa == ScanIsa::avx512)
    return euclid ? scan_avx512<true>(row, j, thr, keys, n, limit) : scan_avx512<false>(row, j, thr, keys, n, limit);
  if (isa == ScanIsa::avx2)
    return euclid ? scan_avx2<true>(row, j, thr, keys, n, limit) : scan_avx2<false>(row, j, thr, keys, n, limit);
#endif
  return euclid ? scan_generic<true>(row, j, thr, keys, n, limit) : scan_generic<false>(row, j, thr, keys, n, limit);
}

}  // namespace dmlbench::experiments
