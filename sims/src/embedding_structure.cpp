#include "dmlbench/sims/embedding_structure.hpp"

#include <cmath>
#include <numeric>

namespace dmlbench::sims {

EmbeddingStructure analyse_structure(const NoisyLabelModel& m, const Eigen::MatrixXd& points, double threshold) {
  EmbeddingStructure s;
  s.threshold = threshold;
  s.class_diameter.assign(std::size_t(m.t), 0.0);
  s.min_interclass_distance = INFINITY;
  s.min_interclass_sq_distance = INFINITY;
  const int n = m.n;
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int i) {
    while (parent[std::size_t(i)] != i) i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
    return i;
  };
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const double d2 = (points.row(i) - points.row(j)).squaredNorm(), d = std::sqrt(d2);
      const int ci = m.class_of(i), cj = m.class_of(j);
      if (ci == cj) {
        s.class_diameter[std::size_t(ci)] = std::max(s.class_diameter[std::size_t(ci)], d);
        if (d < threshold) parent[std::size_t(find(i))] = find(j);  // single linkage within the class
      } else {
        s.min_interclass_distance = std::min(s.min_interclass_distance, d);
        s.min_interclass_sq_distance = std::min(s.min_interclass_sq_distance, d2);
        s.max_interclass_sq_distance = std::max(s.max_interclass_sq_distance, d2);
      }
    }
  s.subclusters.assign(std::size_t(m.t), 0);
  for (int i = 0; i < n; ++i)
    if (find(i) == i) ++s.subclusters[std::size_t(m.class_of(i))];
  s.collapsed = true;
  for (double d : s.class_diameter) s.collapsed = s.collapsed && d < threshold;
  return s;
}

}  // namespace dmlbench::sims
