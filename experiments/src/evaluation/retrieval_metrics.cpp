#include "dmlbench/experiments/retrieval_metrics.hpp"

#include "dmlbench/experiments/nmi.hpp"
#include "dmlbench/experiments/retrieval_evaluation.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

std::vector<double> recall_at_k(const torch::Tensor& emb, const torch::Tensor& labels_in, const std::vector<int>& ks,
                                Similarity similarity, std::int64_t block) {
  if (emb.dim() != 2 || labels_in.dim() != 1 || labels_in.size(0) != emb.size(0))
    throw std::invalid_argument("recall_at_k: N x d embeddings and N labels");
  const auto N = emb.size(0);
  if (ks.empty()) throw std::invalid_argument("recall_at_k: no K");
  const int kmax = *std::max_element(ks.begin(), ks.end());
  if (kmax < 1 || kmax >= N) throw std::invalid_argument("recall_at_k: K must lie in [1, N-1], got " + std::to_string(kmax));
  const auto l = labels_in.to(torch::kInt64).cpu().contiguous();
  LabelLevel level{"labels", std::vector<std::int64_t>(l.data_ptr<std::int64_t>(), l.data_ptr<std::int64_t>() + N)};
  RetrievalOptions o;
  o.ks = ks;
  o.similarity = similarity;
  o.clustering = false;
  o.block = block;
  o.ranking_metrics = false;  // K neighbours per query, not R
  return retrieval_report(emb, {level}, o).levels[0].recall_at_k;
}

std::vector<int> kmeans(const torch::Tensor& pts_in, int k, std::uint64_t seed, int iterations, KMeansStats* stats,
                        std::int64_t float64_copy_bytes) {
  torch::NoGradGuard no_grad;
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  if (pts_in.dim() != 2 || pts_in.size(0) < 1) throw std::invalid_argument("kmeans: a non-empty rows x dims matrix");
  const auto N = pts_in.size(0), d = pts_in.size(1);
  if (k < 1 || k > N) throw std::invalid_argument("kmeans: k must lie in [1, N], got " + std::to_string(k));
  // float64 arithmetic on slices of rows: one float64 copy where it is small, else each slice converted as it is used
  const bool whole = N * d * 8 <= float64_copy_bytes;
  const auto pts = whole ? pts_in.to(torch::kFloat64) : pts_in.contiguous();
  const auto rows = [&](std::int64_t s, std::int64_t e) {
    return whole ? pts.slice(0, s, e) : pts.slice(0, s, e).to(torch::kFloat64);
  };
  const std::int64_t slice = std::max<std::int64_t>(1, (std::int64_t(32) << 20) / (8 * std::max<std::int64_t>(d, k)));
  auto gen = at::detail::createCPUGenerator(seed);
  auto t0 = Clock::now();
  // k-means++ seeding: each next centre drawn with probability proportional to the squared distance to the nearest
  std::vector<std::int64_t> centre_idx = {torch::randint(N, {1}, gen).item<std::int64_t>()};
  auto d2 = torch::empty({N}, pts_in.options().dtype(torch::kFloat64));
  const auto nearest = [&](std::int64_t c, bool first) {
    const auto centre = rows(c, c + 1)[0];
    for (std::int64_t s = 0; s < N; s += slice) {
      const auto e = std::min(N, s + slice);
      auto out = d2.slice(0, s, e);
      const auto dc = (rows(s, e) - centre).pow(2).sum(1);
      out.copy_(first ? dc : torch::minimum(out, dc));
    }
  };
  nearest(centre_idx[0], true);
  for (int c = 1; c < k; ++c) {
    const auto next = torch::multinomial(d2.cpu() + 1e-300, 1, false, gen).item<std::int64_t>();
    centre_idx.push_back(next);
    nearest(next, false);
  }
  auto centres = rows(0, 0).new_empty({k, d});
  for (int c = 0; c < k; ++c) centres[c].copy_(rows(centre_idx[std::size_t(c)], centre_idx[std::size_t(c)] + 1)[0]);
  if (stats) {
    stats->seeding_seconds = since(t0);
    stats->flops_per_iteration = 2.0 * double(N) * double(k) * double(d);
  }
  t0 = Clock::now();
  int done = 0;
  torch::Tensor assign;
  for (int it = 0; it < iterations; ++it) {
    auto a = torch::empty({N}, torch::TensorOptions().dtype(torch::kInt64).device(pts_in.device()));
    for (std::int64_t s = 0; s < N; s += slice) {
      const auto e = std::min(N, s + slice);
      a.slice(0, s, e).copy_(torch::cdist(rows(s, e), centres).argmin(1));
    }
    ++done;
    if (assign.defined() && a.equal(assign)) break;
    assign = a;
    // every centre the mean of its members (an empty cluster keeps its centre); rows added in order
    const auto counts = torch::bincount(assign, {}, k);
    auto sums = torch::zeros_like(centres);
    for (std::int64_t s = 0; s < N; s += slice) {
      const auto e = std::min(N, s + slice);
      sums.index_add_(0, assign.slice(0, s, e), rows(s, e));
    }
    const auto filled = counts.gt(0);
    centres = torch::where(filled.unsqueeze(1), sums / counts.clamp_min(1).unsqueeze(1).to(centres.dtype()), centres);
  }
  if (stats) {
    stats->iterations = done;
    stats->seconds_per_iteration = since(t0) / double(done);
  }
  const auto a = assign.cpu();
  return std::vector<int>(a.data_ptr<std::int64_t>(), a.data_ptr<std::int64_t>() + N);
}

double nmi_of_kmeans(const torch::Tensor& emb, const torch::Tensor& labels, int k, std::uint64_t seed) {
  const auto clusters = kmeans(emb, k, seed);
  const auto l = labels.to(torch::kInt64).cpu();
  std::vector<int> y(l.data_ptr<std::int64_t>(), l.data_ptr<std::int64_t>() + l.size(0));
  return normalized_mutual_information(clusters, y);
}

}  // namespace dmlbench::experiments
