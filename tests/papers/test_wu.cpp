// [WU] Sec 4: its registry entry and its theory row's verdict and control, pinned here (torch-free: built and run in
// every build, the sanitizer build included). What it says of the bench's distance-weighted miner is in
// tests/papers/torch/test_wu.cpp.
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

namespace th = dmlbench::theory;

namespace {

th::ClaimResult wu_row() {
  for (const auto& [paper, claims] : th::registered_theory_claims())
    if (paper == "WU") {
      const auto rows = claims(th::CheckConfig{});
      REQUIRE(rows.size() == 1);
      return rows[0];
    }
  FAIL("no theory checks registered for WU");
  return {};
}

}  // namespace

TEST_CASE("[WU] is registered with its theory layer and no text, and its row is reconstructed", "[papers][WU]") {
  const auto& p = th::registered_paper("WU");
  CHECK(p.title == "Sampling matters in deep embedding learning");
  CHECK(p.text.empty());
  CHECK(th::paper_keys_text("theory").find("[WU]") != std::string::npos);
  CHECK(th::paper_keys_text("sims").find("[WU]") == std::string::npos);
  CHECK_THROWS_WITH(th::registered_paper("WUU"), Catch::Contains("no paper WUU is registered") &&
                                                     Catch::Contains("WU"));
}

TEST_CASE("[WU Sec 4] the distance density on the sphere: verified by quadrature and Monte Carlo, its control refuted",
          "[papers][WU]") {
  const auto r = wu_row();
  CHECK(r.id == "wu-sec4-distance-density");
  CHECK(r.verdict == th::Verdict::verified);
  CHECK(r.max_error <= r.tolerance);
  CHECK(r.samples == 4 * 20000);
  // the tolerance is the DKW bound at alpha 1e-6: sqrt(ln(2e6) / 40000) = 0.01905...
  CHECK_THAT(r.tolerance, Catch::WithinRel(std::sqrt(std::log(2e6) / 40000.0), 1e-12));
  REQUIRE(r.control.has_value());
  CHECK(r.control->verdict == th::Verdict::refuted);
  CHECK(r.control->error > 2 * r.tolerance);
  // an independent fact the closed form must give: on S^2 (n = 3) the density is d / 2 on [0, 2] (Archimedes: the
  // height of a uniform point is uniform), so its mean distance is 4/3; the row's CDF at d is then d^2 / 4
  CHECK_THAT(r.note, Catch::Contains("n = 3: KS") && Catch::Contains("n = 128: KS"));
}
