// A decided claim's holdout (claim_statistics.hpp): the seeds after its own stop, which its decision never saw, read
// as a fresh look at the decided direction and never as the verdict.
#include "dmlbench/experiments/claim_statistics.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

// A claim against the bound 0 on 8 seeds: the first 5 well above it, the last 3 as given.
json stopped_at_five(const std::vector<double>& last_three) {
  ClaimSides s;
  s.treatment = {10.1, 9.8, 10.3, 9.9, 10.2};
  s.treatment.insert(s.treatment.end(), last_three.begin(), last_three.end());
  s.bound = 0;
  s.delta = 1;
  s.delta_reason = "a test";
  return claim_statistics_at(claim_statistics(s), 5, ClaimDesign{4, 10, 0.03});
}

}  // namespace

TEST_CASE("holdout: a claim decided at its stop reads the seeds after it apart, never in its verdict",
          "[verdicts][holdout]") {
  const json agree = claim_statistics_decided(stopped_at_five({9.7, 10.4, 10.0}), ClaimFamily{1, 0});
  REQUIRE(agree["outcome"] == "verified");
  REQUIRE(agree.contains("holdout"));
  CHECK(agree["holdout"]["n"] == 3);
  CHECK(agree["holdout"]["seeds"] == json::array({5, 6, 7}));  // the sides' seeds count from 0
  CHECK(agree["holdout"]["on_decided_side"] == 3);
  CHECK(agree["holdout"]["mean"].get<double>() == Approx(10.0333).epsilon(1e-4));
  // the control: fresh seeds against the decided side are counted as such, and the verdict does not move
  const json against = claim_statistics_decided(stopped_at_five({-5, -6, 2}), ClaimFamily{1, 0});
  CHECK(against["outcome"] == "verified");
  CHECK(against["holdout"]["on_decided_side"] == 1);
  CHECK(against["difference"] == agree["difference"]);
  // no holdout for an undecided claim, nor for one read at all its seeds
  ClaimSides flat;
  flat.treatment = {1, -1, 2, -2, 0.5, 3, -3, 1};
  flat.bound = 0;
  flat.delta = 1;
  flat.delta_reason = "a test";
  const json open = claim_statistics_decided(claim_statistics_at(claim_statistics(flat), 5, ClaimDesign{4, 10, 0.03}),
                                             ClaimFamily{1, 0});
  CHECK(open["outcome"] == "inconclusive");
  CHECK_FALSE(open.contains("holdout"));
  ClaimSides all = flat;
  all.treatment = {10.1, 9.8, 10.3, 9.9, 10.2, 9.7, 10.4, 10.0};
  const json whole = claim_statistics_decided(claim_statistics(all), ClaimFamily{1, 0});
  CHECK(whole["outcome"] == "verified");
  CHECK_FALSE(whole.contains("holdout"));
}
