#include "dmlbench/experiments/retrieval_metrics.hpp"

#include "dmlbench/experiments/nmi.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

std::vector<double> recall_at_k(const torch::Tensor& emb, const torch::Tensor& labels_in, const std::vector<int>& ks,
                                Similarity similarity, std::int64_t block) {
  torch::NoGradGuard no_grad;
  if (emb.dim() != 2 || labels_in.dim() != 1 || labels_in.size(0) != emb.size(0))
    throw std::invalid_argument("recall_at_k: N x d embeddings and N labels");
  const auto N = emb.size(0);
  const int kmax = *std::max_element(ks.begin(), ks.end());
  if (kmax < 1 || kmax >= N) throw std::invalid_argument("recall_at_k: K must lie in [1, N-1], got " + std::to_string(kmax));
  if (!torch::isfinite(emb).all().item<bool>()) throw std::invalid_argument("recall_at_k: NaN or infinite embeddings");
  const auto x = similarity == Similarity::cosine
                     ? torch::nn::functional::normalize(emb.to(torch::kFloat32),
                                                        torch::nn::functional::NormalizeFuncOptions().dim(1))
                     : emb.to(torch::kFloat32);
  const auto labels = labels_in.to(x.device());
  std::vector<double> hits(ks.size(), 0.0);
  for (std::int64_t s = 0; s < N; s += block) {
    const auto e = std::min(N, s + block);
    auto sim = similarity == Similarity::cosine ? x.slice(0, s, e).matmul(x.t())      // rows: queries s..e
                                                : -torch::cdist(x.slice(0, s, e), x).pow(2);
    const auto self = torch::arange(s, e, torch::TensorOptions().dtype(torch::kInt64).device(x.device()));
    if (!torch::isfinite(sim).all().item<bool>())  // finite embeddings: only an overflow of the squared distance
      throw std::invalid_argument("recall_at_k: squared distances overflow float32; scale the embeddings down");
    // The query is not in its gallery: -inf, below every other (finite) similarity. A finite mask such as -1e9
    // ranked the query as its own neighbour once squared distances exceeded 1e9.
    sim.scatter_(1, self.unsqueeze(1), -std::numeric_limits<float>::infinity());
    const auto top = std::get<1>(sim.topk(kmax, 1));                             // (e-s) x kmax
    const auto match = labels.index({top}).eq(labels.slice(0, s, e).unsqueeze(1));
    const auto first = torch::cumsum(match.to(torch::kInt32), 1).gt(0);         // hit within the first j+1
    for (std::size_t i = 0; i < ks.size(); ++i) hits[i] += first.select(1, ks[i] - 1).sum().item<double>();
  }
  for (auto& h : hits) h /= double(N);
  return hits;
}

std::vector<int> kmeans(const torch::Tensor& pts_in, int k, std::uint64_t seed, int iterations) {
  torch::NoGradGuard no_grad;
  const auto pts = pts_in.to(torch::kFloat64);
  const auto N = pts.size(0);
  if (k < 1 || k > N) throw std::invalid_argument("kmeans: k must lie in [1, N], got " + std::to_string(k));
  auto gen = at::detail::createCPUGenerator(seed);
  // k-means++ seeding
  std::vector<std::int64_t> centre_idx = {torch::randint(N, {1}, gen).item<std::int64_t>()};
  auto d2 = (pts - pts[centre_idx[0]]).pow(2).sum(1);
  for (int c = 1; c < k; ++c) {
    const auto next = torch::multinomial(d2.cpu() + 1e-300, 1, false, gen).item<std::int64_t>();
    centre_idx.push_back(next);
    d2 = torch::minimum(d2, (pts - pts[next]).pow(2).sum(1));
  }
  auto centres = pts.index({torch::tensor(centre_idx, torch::kInt64).to(pts.device())});
  torch::Tensor assign;
  for (int it = 0; it < iterations; ++it) {
    const auto dist = torch::cdist(pts, centres);
    const auto a = dist.argmin(1);
    if (assign.defined() && a.equal(assign)) break;
    assign = a;
    // every centre the mean of its members in one pass (an empty cluster keeps its centre)
    const auto counts = torch::bincount(assign, {}, k);
    const auto sums = torch::zeros_like(centres).index_add_(0, assign, pts);
    const auto filled = counts.gt(0);
    centres = torch::where(filled.unsqueeze(1), sums / counts.clamp_min(1).unsqueeze(1).to(pts.dtype()), centres);
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
