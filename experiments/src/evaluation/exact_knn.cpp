#include "dmlbench/experiments/exact_knn.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::experiments {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A candidate as one integer in rank order: the distance's bits made monotone (-0 and +0 equal) above the row.
// Branch-free: d + 0.0f turns -0 into +0 (round to nearest), and the sign selects the flip by a mask.
std::uint64_t key_of(float d, std::uint32_t row) {
  d = d + 0.0f;
  std::uint32_t u;
  std::memcpy(&u, &d, sizeof u);
  const std::uint32_t negative = 0u - (u >> 31);  // all ones for a negative distance
  u ^= negative | 0x80000000u;
  return std::uint64_t(u) << 32 | row;
}

float distance_of(std::uint64_t key) {
  auto u = std::uint32_t(key >> 32);
  u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
  float d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

constexpr std::int64_t kChunk = 32;  // rows scanned between two checks of a query's candidate count
constexpr std::int64_t kTileFloats = std::int64_t(1024) * 4096;  // bound on one tile of distances (16 MiB)
constexpr std::int64_t kOneTileGallery = 16384;  // galleries up to this many rows are one tile (default tiling)

// One query's candidates: every row seen so far that may still be among its m nearest. Grows to at least 2m, then
// keeps the m nearest; a later row (a higher index) enters only when strictly nearer than the m-th, so ties stay by
// row. The keys live in keys[0, n); a chunk writes every row's key and advances n only past those that enter, so
// the buffer holds 2m + kChunk.
struct Candidates {
  std::vector<std::uint64_t> keys;
  std::size_t n = 0, m = 0;
  float threshold = std::numeric_limits<float>::infinity();

  void reset(std::size_t wanted) {
    m = wanted;
    n = 0;
    threshold = std::numeric_limits<float>::infinity();
    keys.resize(2 * m + std::size_t(kChunk));
  }
  void keep_nearest() {
    std::nth_element(keys.begin(), keys.begin() + std::ptrdiff_t(m - 1), keys.begin() + std::ptrdiff_t(n));
    threshold = distance_of(keys[m - 1]);  // the m-th nearest; every key before it is no farther
    n = m;
  }
};

// One query's row of a tile of distances.
struct TileRow {
  const float* similarity;     // <q, g> of the tile's gallery rows, by GEMM
  const float* gallery_norms;  // their |g|^2 (Euclidean only)
  float query_norm;            // |q|^2 (Euclidean only)
  std::int64_t first, size;    // the gallery row of column 0; the columns
  std::int64_t own;            // the query's own column (excluded), or -1

  template <bool Euclid>
  float distance(std::int64_t j) const {
    return Euclid ? (query_norm + gallery_norms[j]) - (similarity[j] + similarity[j]) : 0.0f - similarity[j];
  }
};

// Adds the row's columns strictly nearer than the query's threshold to its candidates.
template <bool Euclid>
void scan(const TileRow& row, Candidates& c) {
  float thr = c.threshold;
  std::uint64_t* keys = c.keys.data();
  for (std::int64_t j0 = 0; j0 < row.size; j0 += kChunk) {
    const auto j1 = std::min(row.size, j0 + kChunk);
    int any = 0;  // a branch-free pass first: most chunks have no candidate
    for (std::int64_t j = j0; j < j1; ++j) any |= int(row.distance<Euclid>(j) < thr);
    if (!any) continue;
    std::size_t n = c.n;  // branch-free compaction: every key written, n advanced past those that enter
    for (std::int64_t j = j0; j < j1; ++j) {
      const float d = row.distance<Euclid>(j);
      keys[n] = key_of(d, std::uint32_t(row.first + j));
      n += std::size_t(d < thr) & std::size_t(j != row.own);
    }
    c.n = n;
    if (n >= 2 * c.m) {
      c.keep_nearest();
      thr = c.threshold;
    }
  }
  c.threshold = thr;
}

// A first threshold for a query's first tile: the k-th smallest distance of a strided sample of the row, k about
// three standard deviations above where the m-th nearest falls in the sample. It is used only when m of the row's
// columns turn out to lie below it, so the selection stays exact; +inf where a sample would not help.
template <bool Euclid>
float sampled_threshold(const TileRow& row, std::size_t m, std::vector<float>& sample) {
  constexpr std::int64_t S = 512;
  if (row.size < 4 * S) return std::numeric_limits<float>::infinity();
  const double expected = double(m) * double(S) / double(row.size);
  const auto k = std::int64_t(std::ceil(expected + 3.0 * std::sqrt(expected))) + 1;
  if (k > S / 4) return std::numeric_limits<float>::infinity();
  const std::int64_t stride = row.size / S;
  sample.resize(std::size_t(S));
  for (std::int64_t i = 0; i < S; ++i) sample[std::size_t(i)] = row.distance<Euclid>(i * stride);
  std::nth_element(sample.begin(), sample.begin() + (k - 1), sample.end());
  return sample[std::size_t(k - 1)];
}

template <bool Euclid>
void select_in_tile(const TileRow& row, Candidates& c, std::vector<float>& sample) {
  if (c.n > 0 || !std::isinf(c.threshold)) return scan<Euclid>(row, c);
  c.threshold = sampled_threshold<Euclid>(row, c.m, sample);  // the query's first tile
  if (std::isinf(c.threshold)) return scan<Euclid>(row, c);
  scan<Euclid>(row, c);
  if (c.n >= c.m) return c.keep_nearest();  // m columns below the sample's threshold: the m nearest are among them
  c.n = 0;  // too few: the row again without a threshold
  c.threshold = std::numeric_limits<float>::infinity();
  scan<Euclid>(row, c);
}

struct Prepared {
  torch::Tensor query_norms, gallery_norms;  // |x|^2 in float32 (Euclidean only)
  std::vector<std::int64_t> wanted;
  std::int64_t ranked_max = 0, wanted_max = 0;
  std::int64_t tile = 0;  // gallery rows per tile
};

Prepared prepare(const torch::Tensor& q, const torch::Tensor& g, const KnnOptions& o,
                 const std::function<std::int64_t(std::int64_t)>& wanted) {
  if (q.dim() != 2 || g.dim() != 2 || q.size(0) < 1 || g.size(0) < 1 || q.size(1) < 1)
    throw std::invalid_argument("exact_knn: queries and gallery must be non-empty rows x dims matrices");
  if (q.size(1) != g.size(1))
    throw std::invalid_argument("exact_knn: queries have " + std::to_string(q.size(1)) + " dimensions, the gallery " +
                                std::to_string(g.size(1)));
  if (q.scalar_type() != torch::kFloat32 || g.scalar_type() != torch::kFloat32 || q.device() != g.device())
    throw std::invalid_argument("exact_knn: float32 queries and gallery on one device");
  if (o.exclude_self && q.size(0) != g.size(0))
    throw std::invalid_argument("exact_knn: excluding the query needs the queries to be the gallery");
  if (g.size(0) >= (std::int64_t(1) << 32)) throw std::invalid_argument("exact_knn: a gallery of 2^32 rows or more");
  if (o.query_block < 0 || o.gallery_tile < 0 || o.candidate_bytes < 1)
    throw std::invalid_argument("exact_knn: query_block and gallery_tile must be >= 0, candidate_bytes > 0");
  Prepared p;
  p.tile = o.gallery_tile > 0 ? o.gallery_tile : g.size(0) <= kOneTileGallery ? g.size(0) : 4096;
  p.ranked_max = g.size(0) - (o.exclude_self ? 1 : 0);
  if (p.ranked_max < 1) throw std::invalid_argument("exact_knn: no gallery row to rank");
  p.wanted.resize(std::size_t(q.size(0)));
  for (std::int64_t i = 0; i < q.size(0); ++i) {
    const auto w = wanted(i);
    if (w < 1) throw std::invalid_argument("exact_knn: a query wants " + std::to_string(w) + " neighbours");
    p.wanted[std::size_t(i)] = std::min(w, p.ranked_max);
    p.wanted_max = std::max(p.wanted_max, p.wanted[std::size_t(i)]);
  }
  if (o.similarity == Similarity::euclidean) {
    p.query_norms = (q * q).sum(1);
    p.gallery_norms = q.is_same(g) ? p.query_norms : (g * g).sum(1);
    const float largest = p.query_norms.max().item<float>() + p.gallery_norms.max().item<float>();
    if (!std::isfinite(largest))
      throw std::invalid_argument("squared distances overflow float32 (the largest |q|^2 + |g|^2 is not finite); "
                                  "scale the embeddings down");
  }
  return p;
}

KnnStats native(const torch::Tensor& q, const torch::Tensor& g, const KnnOptions& o, const Prepared& p,
                const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit) {
  KnnStats st;
  const std::int64_t Q = q.size(0), G = g.size(0);
  const std::int64_t tile = p.tile;
  const std::int64_t block =
      o.query_block > 0 ? o.query_block
                        : std::clamp<std::int64_t>(std::min(o.candidate_bytes / (8 * (2 * p.wanted_max + kChunk)),
                                                            kTileFloats / tile),
                                                   1, 1024);
  const bool euclid = o.similarity == Similarity::euclidean;
  const float* qn = euclid ? p.query_norms.data_ptr<float>() : nullptr;
  const float* gn = euclid ? p.gallery_norms.data_ptr<float>() : nullptr;
  auto buffer = torch::empty({std::min(block, Q) * std::min(tile, G)}, q.options());
  st.tile_bytes = buffer.numel() * 4;
  std::vector<Candidates> cand(std::size_t(std::min(block, Q)));
  for (std::int64_t qs = 0; qs < Q; qs += block) {
    const auto qe = std::min(Q, qs + block), b = qe - qs;
    const auto qb = q.slice(0, qs, qe);
    for (std::int64_t r = 0; r < b; ++r) cand[std::size_t(r)].reset(std::size_t(p.wanted[std::size_t(qs + r)]));
    ++st.query_blocks;
    for (std::int64_t gs = 0; gs < G; gs += tile) {
      const auto ge = std::min(G, gs + tile), t = ge - gs;
      auto s = buffer.narrow(0, 0, b * t).view({b, t});
      auto t0 = Clock::now();
      at::mm_out(s, qb, g.slice(0, gs, ge).t());
      st.gemm_seconds += seconds_since(t0);
      t0 = Clock::now();
      ++st.tiles;
      const float* sp = s.data_ptr<float>();
      at::parallel_for(0, b, 1, [&](std::int64_t r0, std::int64_t r1) {
        std::vector<float> sample;
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t query = qs + r;
          const TileRow row{sp + r * t, euclid ? gn + gs : nullptr, euclid ? qn[query] : 0.0f, gs, t,
                            o.exclude_self ? query - gs : -1};
          if (euclid)
            select_in_tile<true>(row, cand[std::size_t(r)], sample);
          else
            select_in_tile<false>(row, cand[std::size_t(r)], sample);
        }
      });
      st.select_seconds += seconds_since(t0);
    }
    std::int64_t held = 0;
    for (std::int64_t r = 0; r < b; ++r) held += std::int64_t(cand[std::size_t(r)].keys.capacity()) * 8;
    st.peak_candidate_bytes = std::max(st.peak_candidate_bytes, held);
    const auto t0 = Clock::now();
    at::parallel_for(0, b, 1, [&](std::int64_t r0, std::int64_t r1) {
      std::vector<Neighbour> ranked;
      for (std::int64_t r = r0; r < r1; ++r) {
        auto& c = cand[std::size_t(r)];
        auto& k = c.keys;
        const auto m = c.m;
        if (c.n > m) std::nth_element(k.begin(), k.begin() + std::ptrdiff_t(m), k.begin() + std::ptrdiff_t(c.n));
        std::sort(k.begin(), k.begin() + std::ptrdiff_t(m));
        ranked.resize(m);
        for (std::size_t i = 0; i < m; ++i) ranked[i] = {distance_of(k[i]), std::uint32_t(k[i] & 0xffffffffu)};
        visit(qs + r, ranked.data(), std::int64_t(m));
      }
    });
    st.select_seconds += seconds_since(t0);
    if (o.on_block) o.on_block(qe, Q);
  }
  return st;
}

// The same distances by LibTorch operations and the same ranking by a stable sort (equal distances keep the order
// they arrive in: the kept neighbours, all of lower rows, before the tile, whose rows ascend).
KnnStats torch_ops(const torch::Tensor& q, const torch::Tensor& g, const KnnOptions& o, const Prepared& p,
                   const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit) {
  KnnStats st;
  const std::int64_t Q = q.size(0), G = g.size(0);
  const std::int64_t tile = p.tile;
  const std::int64_t block =
      o.query_block > 0 ? o.query_block
                        : std::clamp<std::int64_t>(o.candidate_bytes / (48 * (p.wanted_max + tile)), 1, 1024);
  const bool euclid = o.similarity == Similarity::euclidean;
  const auto long_options = torch::TensorOptions().dtype(torch::kInt64).device(q.device());
  for (std::int64_t qs = 0; qs < Q; qs += block) {
    const auto qe = std::min(Q, qs + block), b = qe - qs;
    const auto qb = q.slice(0, qs, qe);
    std::int64_t keep = 0;
    for (std::int64_t r = 0; r < b; ++r) keep = std::max(keep, p.wanted[std::size_t(qs + r)]);
    auto values = torch::empty({b, 0}, q.options());
    auto rows = torch::empty({b, 0}, long_options);
    ++st.query_blocks;
    for (std::int64_t gs = 0; gs < G; gs += tile) {
      const auto ge = std::min(G, gs + tile), t = ge - gs;
      const auto s = qb.mm(g.slice(0, gs, ge).t());
      auto d = euclid ? (p.query_norms.slice(0, qs, qe).unsqueeze(1) + p.gallery_norms.slice(0, gs, ge).unsqueeze(0)) -
                            (s + s)
                      : torch::rsub(s, 0.0);
      if (o.exclude_self) {  // the query's own row ranks last, behind every finite distance
        const auto lo = std::max(qs, gs), hi = std::min(qe, ge);
        if (lo < hi) {
          const auto own = torch::arange(lo, hi, long_options);
          d.index_put_({own - qs, own - gs}, std::numeric_limits<float>::infinity());
        }
      }
      ++st.tiles;
      const auto all_values = torch::cat({values, d}, 1);
      const auto all_rows = torch::cat({rows, torch::arange(gs, ge, long_options).unsqueeze(0).expand({b, t})}, 1);
      const auto sorted = torch::sort(all_values, /*stable=*/true, /*dim=*/1, /*descending=*/false);
      const auto n = std::min(keep, all_values.size(1));
      values = std::get<0>(sorted).narrow(1, 0, n).contiguous();
      rows = all_rows.gather(1, std::get<1>(sorted).narrow(1, 0, n)).contiguous();
    }
    const auto v = values.cpu();
    const auto i = rows.cpu();
    const float* vp = v.data_ptr<float>();
    const std::int64_t* ip = i.data_ptr<std::int64_t>();
    std::vector<Neighbour> ranked;
    for (std::int64_t r = 0; r < b; ++r) {
      const auto m = p.wanted[std::size_t(qs + r)];
      ranked.resize(std::size_t(m));
      for (std::int64_t j = 0; j < m; ++j)
        ranked[std::size_t(j)] = {vp[r * keep + j], std::uint32_t(ip[r * keep + j])};
      visit(qs + r, ranked.data(), m);
    }
    if (o.on_block) o.on_block(qe, Q);
  }
  return st;
}

}  // namespace

KnnStats exact_knn(const torch::Tensor& queries, const torch::Tensor& gallery, const KnnOptions& o,
                   const std::function<std::int64_t(std::int64_t)>& wanted,
                   const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit) {
  torch::NoGradGuard no_grad;
  const auto start = Clock::now();
  const auto q = queries.contiguous();
  const auto g = queries.is_same(gallery) ? q : gallery.contiguous();
  const auto p = prepare(q, g, o, wanted);
  const bool use_native = o.backend == KnnBackend::native || (o.backend == KnnBackend::automatic && q.is_cpu());
  if (use_native && !q.is_cpu()) throw std::invalid_argument("exact_knn: the native backend takes CPU tensors");
  auto st = use_native ? native(q, g, o, p, visit) : torch_ops(q, g, o, p, visit);
  st.flops = 2.0 * double(q.size(0)) * double(g.size(0)) * double(q.size(1));
  st.seconds = seconds_since(start);
  return st;
}

}  // namespace dmlbench::experiments
