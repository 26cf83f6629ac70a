#include "class_tree_margins.hpp"

#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

ClassTreeMargins class_tree_margins(const torch::Tensor& emb, const std::vector<std::int64_t>& labels, int levels,
                                    theory::Linkage linkage, double beta) {
  if (emb.dim() != 2 || emb.size(0) != std::int64_t(labels.size()))
    throw std::invalid_argument("class_tree_margins: " + std::to_string(emb.dim() == 2 ? emb.size(0) : -1) +
                                " embedding rows for " + std::to_string(labels.size()) + " labels");
  auto e = emb.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  const auto norms = e.norm(2, 1);
  if (norms.min().item<double>() == 0)
    throw std::invalid_argument("class_tree_margins: a zero embedding has no direction");
  e = (e / norms.unsqueeze(1)).contiguous();
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(
      e.data_ptr<double>(), e.size(0), e.size(1));
  ClassTreeMargins r;
  r.distances = theory::class_distances(x, labels);
  r.tree = theory::build_class_tree(r.distances, levels, linkage);
  const int C = int(r.distances.classes.size());
  r.margins = torch::zeros({C, C}, torch::kFloat64);
  auto m = r.margins.accessor<double, 2>();
  r.distance_table.resize(std::size_t(C) * std::size_t(C));
  for (int a = 0; a < C; ++a)
    for (int n = 0; n < C; ++n) {
      r.distance_table[std::size_t(a) * std::size_t(C) + std::size_t(n)] = r.distances.d(a, n);
      if (a != n) m[a][n] = theory::dynamic_violate_margin(r.tree, r.distances, a, n, beta);
    }
  return r;
}

}  // namespace dmlbench::experiments
