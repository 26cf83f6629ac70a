// Each training claim read at its own stop in its stage's design of looks (report_claim_stops.hpp).
#include "dmlbench/experiments/report_claim_stops.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"

#include <set>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

std::size_t read_claims_at_their_stops(std::vector<ClaimRow>& rows, const std::map<std::string, json>& summaries,
                                       const std::vector<Stage>& stages) {
  std::size_t earlier = 0;
  for (const auto& stage : stages) {
    const auto it = summaries.find(stage.name);
    if (!stage.spending || it == summaries.end()) continue;
    const SeedSpending& sp = *stage.spending;
    std::set<std::string> ids;
    if (it->second.contains("variants") && !it->second["variants"].empty())
      for (const auto& row : it->second["variants"][0].value("rows", json::array())) ids.insert(row.value("claim", ""));
    const ClaimDesign design{std::size_t(sp.first), std::size_t(sp.cap), sp.level(), sp.g};
    for (auto& r : rows) {
      if (!r.training() || !ids.count(r.id) || !claim_statistics_testable(r.statistics)) continue;
      ClaimTestInput in = claim_test_input(r.statistics, design.look_level);
      in.g = design.g;
      const std::size_t stop = claim_stop(in, design.first, design.cap);
      earlier += stop < in.differences.size();
      r.statistics = claim_statistics_at(r.statistics, stop, design);
    }
  }
  return earlier;
}

}  // namespace dmlbench::experiments
