// The [HTL] class tree (slides Sec 4.1) as JSON: what `dmlbench htl tree --out` and an HTL training run (htl_tree.json) write.
// Header-only and torch-free, so the command line and the training engine share it.
#pragma once

#include "dmlbench/theory/hierarchical_class_tree.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

// {"config": config, "classes", "d0", "inner_distance", "levels": [{level, threshold, nodes, groups}]}: groups hold
// the class labels of each node.
inline nlohmann::ordered_json class_tree_json(const theory::ClassDistances& cd, const theory::ClassTree& t,
                                              const nlohmann::ordered_json& config) {
  nlohmann::ordered_json j = {
      {"config", config},
      {"classes", cd.classes},
      {"d0", cd.d0},
      {"inner_distance", std::vector<double>(cd.inner.data(), cd.inner.data() + cd.inner.size())},
      {"levels", nlohmann::ordered_json::array()}};
  for (int lv = 0; lv <= t.levels(); ++lv) {
    std::vector<std::vector<std::int64_t>> groups(std::size_t(t.nodes(lv)));
    for (std::size_t c = 0; c < cd.classes.size(); ++c)
      groups[std::size_t(t.node[std::size_t(lv)][c])].push_back(cd.classes[c]);
    j["levels"].push_back(
        {{"level", lv}, {"threshold", t.threshold[std::size_t(lv)]}, {"nodes", t.nodes(lv)}, {"groups", groups}});
  }
  return j;
}

}  // namespace dmlbench::experiments
