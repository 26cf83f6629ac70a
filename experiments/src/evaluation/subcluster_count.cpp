#include "dmlbench/experiments/subcluster_count.hpp"

#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

namespace {

std::int64_t find_root(std::vector<std::int64_t>& parent, std::int64_t i) {
  while (parent[std::size_t(i)] != i) i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
  return i;
}

}  // namespace

SubclusterReport count_subclusters(const torch::Tensor& emb_in, const std::vector<std::int64_t>& coarse,
                                   const std::vector<std::int64_t>& fine) {
  torch::NoGradGuard no_grad;
  if (emb_in.dim() != 2 || emb_in.size(0) < 1) throw std::invalid_argument("count_subclusters: N x d embeddings");
  const auto N = emb_in.size(0);
  if (std::int64_t(coarse.size()) != N || std::int64_t(fine.size()) != N)
    throw std::invalid_argument("count_subclusters: one coarse and one fine label per embedding");
  const auto emb = emb_in.to(torch::kFloat64).cpu().contiguous();
  // fine class -> its rows and its coarse class
  std::map<std::int64_t, std::vector<std::int64_t>> rows;
  std::map<std::int64_t, std::int64_t> parent_class;
  for (std::int64_t i = 0; i < N; ++i) {
    rows[fine[std::size_t(i)]].push_back(i);
    const auto [it, fresh] = parent_class.emplace(fine[std::size_t(i)], coarse[std::size_t(i)]);
    if (!fresh && it->second != coarse[std::size_t(i)])
      throw std::invalid_argument("count_subclusters: fine class " + std::to_string(fine[std::size_t(i)]) +
                                  " lies in coarse classes " + std::to_string(it->second) + " and " +
                                  std::to_string(coarse[std::size_t(i)]) + " (the levels do not nest)");
  }
  std::map<std::int64_t, std::vector<torch::Tensor>> centroids;  // coarse -> its fine centroids
  std::map<std::int64_t, std::vector<double>> radii;
  for (const auto& [f, r] : rows) {
    const auto x = emb.index({torch::tensor(r, torch::kInt64)});
    const auto c = x.mean(0);
    centroids[parent_class[f]].push_back(c);
    radii[parent_class[f]].push_back((x - c).norm(2, 1).mean().item<double>());
  }
  SubclusterReport out;
  for (const auto& [k, cs] : centroids) {
    const auto m = std::int64_t(cs.size());
    const double t = std::accumulate(radii[k].begin(), radii[k].end(), 0.0) / double(m);
    const auto C = torch::stack(cs);
    const auto d = torch::cdist(C, C);
    const auto da = d.accessor<double, 2>();
    std::vector<std::int64_t> parent(static_cast<std::size_t>(m));
    std::iota(parent.begin(), parent.end(), 0);
    for (std::int64_t a = 0; a < m; ++a)
      for (std::int64_t b = a + 1; b < m; ++b)
        if (da[a][b] < t) parent[std::size_t(find_root(parent, a))] = find_root(parent, b);
    std::int64_t comps = 0;
    for (std::int64_t a = 0; a < m; ++a) comps += find_root(parent, a) == a;
    ++out.coarse_classes;
    out.mean_fine_classes += double(m);
    out.mean_subclusters += double(comps);
    out.mean_surviving += double(comps) / double(m);
  }
  const double n = double(out.coarse_classes);
  out.mean_fine_classes /= n;
  out.mean_subclusters /= n;
  out.mean_surviving /= n;
  return out;
}

}  // namespace dmlbench::experiments
