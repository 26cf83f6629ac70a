// The seeds a reproduction stage of the report spends: its claims looked at after each seed.
#include "dmlbench/experiments/report_seed_spending.hpp"

#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/claim_test.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

std::size_t planned_family_size(const std::vector<Reproduction>& reproductions) {
  std::set<std::string> ids;
  for (const auto& r : reproductions)
    for (const auto& m : r.metrics)
      if (!m.claim.empty() && !m.direction.empty()) ids.insert(m.claim);
  return ids.size();
}

std::size_t planned_selected(const std::string& multiplicity, std::size_t family, double share) {
  if (multiplicity != "bh") return 0;
  return std::max<std::size_t>(1, std::size_t(std::lround(share * double(family))));
}

std::size_t first_decidable_seeds(double level, double g, std::size_t limit) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("a level must lie in (0, 1)");
  for (std::size_t n = 2; n <= limit; ++n)
    if (std::isfinite(anytime_radius_multiplier(n, level, g))) return n;
  return 0;
}

SeedLook look_at_stage(const json& summary, const ClaimFamily& family, std::size_t first, std::size_t cap, double g) {
  if (!summary.contains("variants") || !summary["variants"].is_array() || summary["variants"].empty())
    throw std::runtime_error("reproduction summary has no \"variants\"");
  SeedLook look;
  for (const auto& row : summary["variants"][0].value("rows", json::array())) {
    if (!row.contains("statistics") || !row["statistics"].contains("per_seed")) continue;
    const json& s0 = row["statistics"];
    ++look.claims;
    look.seeds = std::max(look.seeds, s0["per_seed"].value("n", std::size_t(0)));
    if (!claim_statistics_testable(s0)) {
      look.waiting.push_back(row.value("claim", ""));
      continue;
    }
    ClaimTestInput in = claim_test_input(s0, family.level(s0.at("alpha").get<double>()));
    in.g = g;
    in.differences.resize(claim_stop(in, first, cap));  // a claim stopped earlier stays stopped
    if (decide_claim(in).outcome != TrainingOutcome::inconclusive) ++look.decided;
    else if (!claim_could_decide_by(in, cap)) ++look.hopeless;
    else look.waiting.push_back(row.value("claim", ""));
  }
  return look;
}

std::map<std::string, std::vector<std::string>> claim_arms(const Reproduction& r) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& m : r.metrics) {
    if (m.claim.empty()) continue;
    auto& arms = out[m.claim];
    arms.push_back(m.treatment_arm.empty() ? r.treatment : m.treatment_arm);
    if (!m.bound) arms.push_back(m.baseline_arm.empty() ? r.baseline : m.baseline_arm);
    std::sort(arms.begin(), arms.end());
    arms.erase(std::unique(arms.begin(), arms.end()), arms.end());
  }
  return out;
}

std::vector<std::string> SeedPlan::arguments() const {
  std::vector<std::string> a = {"--seeds", std::to_string(seeds)};
  for (const auto& [arm, n] : arms) a.insert(a.end(), {"--arm-seeds", arm + "=" + std::to_string(n)});
  return a;
}

std::optional<SeedPlan> next_seed_plan(const SeedSpending& sp, const SeedPlan& now, const SeedLook& look) {
  if (!look.more()) return std::nullopt;
  if (sp.claim_arms.empty()) {  // every arm one more seed
    if (now.seeds >= sp.cap) return std::nullopt;
    return SeedPlan{now.seeds + 1, {}};
  }
  SeedPlan next = now;
  bool raised = false;
  for (const auto& c : look.waiting) {
    const auto it = sp.claim_arms.find(c);
    if (it == sp.claim_arms.end() || it->second.empty())
      throw std::runtime_error("claim " + c + " names no arm of its stage (seeds by arm)");
    int n = sp.cap;  // the claim's present seeds, read from `now`: claims sharing an arm raise it once a look
    for (const auto& a : it->second) n = std::min(n, now.of(a));
    if (n >= sp.cap) continue;  // at the cap: it stays undecided
    for (const auto& a : it->second)
      if (next.of(a) < n + 1) {
        next.arms[a] = n + 1;
        raised = true;
      }
  }
  if (!raised) return std::nullopt;
  return next;
}

std::vector<SeedLook> spend_seeds(const SeedSpending& sp, const std::function<json()>& read_summary,
                                  const std::function<void(const SeedPlan&)>& run_with_seeds,
                                  const std::function<void(const SeedLook&)>& on_look) {
  std::vector<SeedLook> looks;
  for (SeedPlan plan{sp.first, {}};;) {
    looks.push_back(look_at_stage(read_summary(), sp.looked_in(), std::size_t(sp.first), std::size_t(sp.cap), sp.g));
    if (on_look) on_look(looks.back());
    const auto next = next_seed_plan(sp, plan, looks.back());
    if (!next) return looks;
    plan = *next;
    run_with_seeds(plan);
  }
}

std::string seed_look_text(const SeedLook& look, double level) {
  std::ostringstream o;
  o.precision(2);
  o << look.claims - look.decided << " of " << look.claims << " claims undecided at level " << level << " after "
    << look.seeds << " seeds";
  if (look.hopeless > 0) o << " (" << look.hopeless << " beyond the cap's reach)";
  for (std::size_t k = 0; k < look.waiting.size(); ++k) o << (k == 0 ? ": " : ", ") << look.waiting[k];
  return o.str();
}

}  // namespace dmlbench::experiments
