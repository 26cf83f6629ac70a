// The ranking metrics of one level of a retrieval evaluation (experiments/evaluation.md: P@1, R-precision, MAP@R),
// computed from each query's ranked neighbours when ranking is asked for (a curve point needs eval.curve_ranking). The
// one list the run's eval block and schedule.stop_metric's rule read (a new one is named here once).
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

inline const std::vector<std::string>& ranking_metric_keys() {
  static const std::vector<std::string> keys = {"precision_at_1", "r_precision", "map_at_r"};
  return keys;
}

}  // namespace dmlbench::experiments
