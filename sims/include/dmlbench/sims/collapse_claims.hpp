// The claims table of [LCC] Sec 3-4 and Appendices A-B, checked by the minimizers and exact expectations of sims/.
#pragma once

#include "dmlbench/theory/claims.hpp"

#include <cstdint>
#include <vector>

namespace dmlbench::sims {

// Rows: clean-label richness and the diameter conditions (Sec 4.1), Theorems 1-2 and their proofs (App. A), the
// triple convention, Claims 1-2 (App. B). Seeded random starts; a few seconds on 2 cores.
std::vector<theory::ClaimResult> collapse_claims(std::uint64_t seed);

}  // namespace dmlbench::sims
