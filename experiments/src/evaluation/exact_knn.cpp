#include "dmlbench/experiments/exact_knn.hpp"

#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/candidate_scan.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::experiments {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Query rows of one GEMM, a thread's unit of work. Fixed, slices start at multiples of it in every block, and each
// runs on one BLAS thread, so the GEMMs never depend on the thread count and both backends multiply the same
// slices: OpenBLAS's bits for a row can depend on a call's shape and on how its threads split it (its small-matrix
// and edge kernels).
constexpr std::int64_t kSliceRows = 512;
constexpr std::int64_t kDefaultTile = 1024;  // gallery rows per tile: a slice's distances (2 MiB) in a core's L2

// One query's candidates: every row seen so far that may still be among its m nearest. Grows to at least 2m, then
// keeps the m nearest; a later row (a higher index) enters only when strictly nearer than the m-th, so ties stay by
// row. The keys live in keys[0, n); a scan appends those that enter and may write scratch up to a chunk past n
// (scan_chunks), so the buffer holds 2m + kScanChunk.
struct Candidates {
  std::vector<std::uint64_t> keys;
  std::size_t n = 0, m = 0;
  float threshold = std::numeric_limits<float>::infinity();

  void reset(std::size_t wanted) {
    m = wanted;
    n = 0;
    threshold = std::numeric_limits<float>::infinity();
    keys.resize(2 * m + std::size_t(kScanChunk));
  }
  void keep_nearest() {
    std::nth_element(keys.begin(), keys.begin() + std::ptrdiff_t(m - 1), keys.begin() + std::ptrdiff_t(n));
    threshold = key_distance(keys[m - 1]);  // the m-th nearest; every key before it is no farther
    n = m;
  }
};

// Adds the row's columns strictly nearer than the query's threshold to its candidates, keeping the m nearest
// whenever they reach 2m.
void scan(ScanIsa isa, bool euclid, const ScanRow& row, Candidates& c) {
  for (std::int64_t j = 0; j < row.size;) {
    j = scan_chunks(isa, euclid, row, j, c.threshold, c.keys.data(), c.n, 2 * c.m);
    if (c.n >= 2 * c.m) c.keep_nearest();
  }
}

// A first threshold for a query's first tile: the k-th smallest distance of a strided sample of the row, k about
// three standard deviations above where the m-th nearest falls in the sample. It is used only when m of the row's
// columns turn out to lie below it, so the selection stays exact; +inf where a sample would not help.
float sampled_threshold(bool euclid, const ScanRow& row, std::size_t m, std::vector<float>& sample) {
  const std::int64_t S = std::min<std::int64_t>(512, row.size / 4);  // a quarter of a default tile
  if (S < 64) return std::numeric_limits<float>::infinity();
  const double expected = double(m) * double(S) / double(row.size);
  const auto k = std::int64_t(std::ceil(expected + 3.0 * std::sqrt(expected))) + 1;
  if (k > S / 4) return std::numeric_limits<float>::infinity();
  const std::int64_t stride = row.size / S;
  sample.resize(std::size_t(S));
  for (std::int64_t i = 0; i < S; ++i) sample[std::size_t(i)] = scan_distance(row, euclid, i * stride);
  std::nth_element(sample.begin(), sample.begin() + (k - 1), sample.end());
  return sample[std::size_t(k - 1)];
}

void select_in_tile(ScanIsa isa, bool euclid, const ScanRow& row, Candidates& c, std::vector<float>& sample) {
  if (c.n > 0 || !std::isinf(c.threshold)) return scan(isa, euclid, row, c);
  c.threshold = sampled_threshold(euclid, row, c.m, sample);  // the query's first tile
  if (std::isinf(c.threshold)) return scan(isa, euclid, row, c);
  scan(isa, euclid, row, c);
  if (c.n >= c.m) return c.keep_nearest();  // m columns below the sample's threshold: the m nearest are among them
  c.n = 0;  // too few: the row again without a threshold
  c.threshold = std::numeric_limits<float>::infinity();
  scan(isa, euclid, row, c);
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
  p.tile = o.gallery_tile > 0 ? o.gallery_tile : std::min(g.size(0), kDefaultTile);
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

// A block's queries in slices: [start, end) of each, at multiples of kSliceRows from the block's start.
std::int64_t slices_in(std::int64_t b) { return (b + kSliceRows - 1) / kSliceRows; }

// Rounds a block of more than one slice down to whole slices, so every block's slices start at multiples of it.
std::int64_t whole_slices(std::int64_t block) { return block > kSliceRows ? block / kSliceRows * kSliceRows : block; }

struct Search {  // what every slice of a native search shares
  const torch::Tensor &q, &g;
  const KnnOptions& o;
  const Prepared& p;
  const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit;
  const float *qn, *gn;  // squared norms (Euclidean only)
  ScanIsa isa;
};

struct SliceCost {
  double gemm = 0, select = 0;
};

// Each query's candidates sorted into its neighbours, then visited.
void rank_and_visit(const Search& S, std::int64_t first, Candidates* cand, std::int64_t rows) {
  std::vector<Neighbour> ranked;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto& c = cand[r];
    auto& k = c.keys;
    const auto m = c.m;
    if (c.n > m) std::nth_element(k.begin(), k.begin() + std::ptrdiff_t(m), k.begin() + std::ptrdiff_t(c.n));
    std::sort(k.begin(), k.begin() + std::ptrdiff_t(m));
    ranked.resize(m);
    for (std::size_t i = 0; i < m; ++i) ranked[i] = {key_distance(k[i]), std::uint32_t(k[i] & 0xffffffffu)};
    S.visit(first + r, ranked.data(), std::int64_t(m));
  }
}

// Queries [first, first + rows) against the whole gallery on this thread: per tile one GEMM into buf (its own, so
// the distances stay in this core's cache), each row scanned into its candidates; then ranked and visited.
SliceCost search_slice(const Search& S, std::int64_t first, std::int64_t rows, Candidates* cand, torch::Tensor& buf) {
  SliceCost cost;
  std::vector<float> sample;
  const bool euclid = S.o.similarity == Similarity::euclidean;
  const auto qs = S.q.slice(0, first, first + rows);
  const std::int64_t G = S.g.size(0);
  for (std::int64_t gs = 0; gs < G; gs += S.p.tile) {
    const auto ge = std::min(G, gs + S.p.tile), t = ge - gs;
    auto s = buf.narrow(0, 0, rows * t).view({rows, t});
    auto t0 = Clock::now();
    at::mm_out(s, qs, S.g.slice(0, gs, ge).t());
    cost.gemm += seconds_since(t0);
    t0 = Clock::now();
    const float* sp = s.data_ptr<float>();
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t query = first + r;
      const ScanRow row{sp + r * t, euclid ? S.gn + gs : nullptr, euclid ? S.qn[query] : 0.0f, std::uint32_t(gs), t,
                        S.o.exclude_self ? query - gs : -1};
      select_in_tile(S.isa, euclid, row, cand[r], sample);
    }
    cost.select += seconds_since(t0);
  }
  const auto t0 = Clock::now();
  rank_and_visit(S, first, cand, rows);
  cost.select += seconds_since(t0);
  return cost;
}

// Each thread takes whole slices of a block of queries through the whole gallery, with its own GEMMs (OpenBLAS held
// at one thread meanwhile: its pool would otherwise spin beside the scans). gemm_seconds and select_seconds are
// summed over the threads.
KnnStats native(const torch::Tensor& q, const torch::Tensor& g, const KnnOptions& o, const Prepared& p,
                const std::function<void(std::int64_t, const Neighbour*, std::int64_t)>& visit) {
  KnnStats st;
  const std::int64_t Q = q.size(0), G = g.size(0);
  const std::int64_t block =
      o.query_block > 0
          ? o.query_block
          : whole_slices(std::clamp<std::int64_t>(o.candidate_bytes / (8 * (2 * p.wanted_max + kScanChunk)), 1, 1024));
  const bool euclid = o.similarity == Similarity::euclidean;
  const Search S{q, g, o, p, visit, euclid ? p.query_norms.data_ptr<float>() : nullptr,
                 euclid ? p.gallery_norms.data_ptr<float>() : nullptr, fastest_scan_isa()};
  const auto slice_floats = std::min({kSliceRows, block, Q}) * std::min(p.tile, G);
  st.tile_bytes = slice_floats * 4;
  std::vector<Candidates> cand(std::size_t(std::min(block, Q)));
  st.scan = scan_isa_name(S.isa);
  const SerialBlas one_blas_thread;
  for (std::int64_t qs = 0; qs < Q; qs += block) {
    const auto qe = std::min(Q, qs + block), b = qe - qs;
    for (std::int64_t r = 0; r < b; ++r) cand[std::size_t(r)].reset(std::size_t(p.wanted[std::size_t(qs + r)]));
    ++st.query_blocks;
    st.tiles += (G + p.tile - 1) / p.tile;
    std::vector<SliceCost> costs(std::size_t(slices_in(b)));
    at::parallel_for(0, slices_in(b), 1, [&](std::int64_t s0, std::int64_t s1) {
      auto buf = torch::empty({slice_floats}, q.options());
      for (std::int64_t i = s0; i < s1; ++i) {
        const auto first = i * kSliceRows, rows = std::min(b - first, kSliceRows);
        costs[std::size_t(i)] = search_slice(S, qs + first, rows, cand.data() + first, buf);
      }
    });
    for (const auto& c : costs) {
      st.gemm_seconds += c.gemm;
      st.select_seconds += c.select;
    }
    std::int64_t held = 0;
    for (std::int64_t r = 0; r < b; ++r) held += std::int64_t(cand[std::size_t(r)].keys.capacity()) * 8;
    st.peak_candidate_bytes = std::max(st.peak_candidate_bytes, held);
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
      o.query_block > 0
          ? o.query_block
          : whole_slices(std::clamp<std::int64_t>(o.candidate_bytes / (48 * (p.wanted_max + tile)), 1, 1024));
  const bool euclid = o.similarity == Similarity::euclidean;
  const auto long_options = torch::TensorOptions().dtype(torch::kInt64).device(q.device());
  std::optional<SerialBlas> one_blas_thread;
  if (q.is_cpu()) one_blas_thread.emplace();
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
      std::vector<torch::Tensor> parts;  // the native backend's slices on one BLAS thread: the same GEMMs, the same bits
      for (std::int64_t first = 0; first < b; first += kSliceRows)
        parts.push_back(qb.slice(0, first, std::min(b, first + kSliceRows)).mm(g.slice(0, gs, ge).t()));
      const auto s = parts.size() == 1 ? parts[0] : torch::cat(parts, 0);
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
