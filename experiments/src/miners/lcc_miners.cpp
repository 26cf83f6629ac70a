// The miners of [LCC] Sec 4.3, 5: semi-hard triplets (Schroff et al. 2015) and distance-weighted negatives (Wu et al.
// 2017), each with a random positive (the baselines) or Easy Positive Sampling (EPS).
#include "dmlbench/experiments/miner_spec.hpp"

namespace dmlbench::experiments {
namespace {
const bool registered = [] {
  using P = PositiveChoice;
  using N = NegativeChoice;
  register_miner_spec({"trip-sh", "random positive, semi-hard negative ([LCC] Table 1-2 baseline)", P::random,
                       N::semi_hard});
  register_miner_spec({"eps-trip-sh", "easy positive, semi-hard negative ([LCC] EPS + Trip + SH)", P::easy,
                       N::semi_hard});
  // Both distance-weighted miners rank by cosine when miner.similarity = auto: the rule reads the similarity as a
  // cosine (d = sqrt(2 - 2 S)). On the unit sphere (needs_unit_sphere) the easy positive is the same under cosine
  // and minus the squared distance (D^2 = 2 - 2 S). Until issue 32 the EPS variant kept the margin loss's
  // neg-squared-distance, so every distance read >= sqrt(2) > dw_nonzero_loss_cutoff and each anchor fell back to a
  // uniform random negative: [LCC]'s EPS + Dist-Margin arm changed the negatives as well as the positives.
  register_miner_spec({"distance-weighted", "random positive, distance-weighted negative ([LCC] Dist-Margin baseline)",
                       P::random, N::distance_weighted, /*cosine_when_auto=*/true, /*needs_unit_sphere=*/true});
  register_miner_spec({"eps-distance-weighted", "easy positive, distance-weighted negative ([LCC] EPS + Dist-Margin)",
                       P::easy, N::distance_weighted, /*cosine_when_auto=*/true, /*needs_unit_sphere=*/true});
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
