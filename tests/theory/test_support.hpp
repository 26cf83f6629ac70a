// Shared fixtures of the theory tests: samples drawn with Catch's --rng-seed, so every property test is repeatable.
#pragma once

#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include <catch2/catch.hpp>

namespace dmlbench::test {

inline theory::CheckConfig seeded_config(int samples_per_dim = 100) {
  theory::CheckConfig c;
  c.seed = Catch::rngSeed();
  c.samples_per_dim = samples_per_dim;
  return c;
}

inline const std::vector<theory::Sample>& seeded_samples() {
  static const auto s = theory::make_samples(seeded_config());
  return s;
}

inline const theory::ClaimResult& find(const std::vector<theory::ClaimResult>& rs, const std::string& id) {
  for (const auto& r : rs)
    if (r.id == id) return r;
  FAIL("no claim with id " << id);
  throw;  // unreachable
}

}  // namespace dmlbench::test
