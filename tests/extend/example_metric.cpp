// How to compute a new ranking metric: precision at 2 from each query's ranked neighbours (the computation alone).
// Reporting it still takes the places docs/extend/metric.md lists: LevelReport and score() in retrieval_evaluation,
// to_json, ranking_metric_keys(), its test beside test_retrieval_evaluation.cpp and its row in
// experiments/evaluation.md.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace dmlbench::examples {

// ranked[q]: the labels of query q's gallery, nearest first (the query itself left out), in the order the exact
// search gives (ties by gallery index). A query's P@2: the share of its label among its 2 nearest. The mean over the
// queries with a positive in the gallery (one without is left out, as P@1 and R-precision leave it); none if no query
// has one.
std::optional<double> precision_at_2(const std::vector<std::int64_t>& query_labels,
                                     const std::vector<std::vector<std::int64_t>>& ranked) {
  double total = 0;
  int with_positive = 0;
  for (std::size_t q = 0; q < ranked.size(); ++q) {
    const auto& r = ranked[q];
    if (std::find(r.begin(), r.end(), query_labels[q]) == r.end()) continue;
    ++with_positive;
    const auto top = r.begin() + std::min<std::ptrdiff_t>(2, std::ptrdiff_t(r.size()));
    total += double(std::count(r.begin(), top, query_labels[q])) / 2;
  }
  if (with_positive == 0) return std::nullopt;
  return total / with_positive;
}

}  // namespace dmlbench::examples
