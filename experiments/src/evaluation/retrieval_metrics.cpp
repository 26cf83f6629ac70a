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

double nmi_of_kmeans(const torch::Tensor& emb, const torch::Tensor& labels, int k, std::uint64_t seed) {
  const auto clusters = kmeans(emb, k, seed);
  const auto l = labels.to(torch::kInt64).cpu();
  std::vector<int> y(l.data_ptr<std::int64_t>(), l.data_ptr<std::int64_t>() + l.size(0));
  return normalized_mutual_information(clusters, y);
}

}  // namespace dmlbench::experiments
