// The miners of [LCC] Sec 4.3, 5: semi-hard triplets (Schroff et al. 2015) and distance-weighted negatives (Wu et al.
// 2017), each with a random positive (the baselines; for Trip+SH the bench's variant) or Easy Positive Sampling (EPS).
#include "dmlbench/experiments/miner_spec.hpp"

namespace dmlbench::experiments {
namespace {
const bool registered = [] {
  using P = PositiveChoice;
  using N = NegativeChoice;
  // The bench's variant of [LCC]'s Trip+SH: [LCC] Sec 5.2.3 says its semi-hard baselines sampled the positive part
  // too, as the original papers do (that is trip-shp, experiments/src/miners/facenet_semihard_miner.cpp).
  register_miner_spec({"trip-sh",
                       "random positive, semi-hard negative (the bench's variant of [LCC] Trip+SH; the printed "
                       "baseline is trip-shp)",
                       P::random, N::semi_hard});
  register_miner_spec({"eps-trip-sh", "easy positive, semi-hard negative ([LCC] EPS + Trip + SH)", P::easy,
                       N::semi_hard});
  // Distance-weighted negatives read the similarity as a cosine, so both miners rank by cosine under
  // miner.similarity = auto (NegativeChoice::distance_weighted, miner_spec.hpp); on the unit sphere the easy positive is
  // the same under cosine and minus the squared distance (D^2 = 2 - 2 S). Were the EPS variant to keep the
  // margin loss's neg-squared-distance, every distance would read >= sqrt(2) > dw_nonzero_loss_cutoff and each anchor
  // fall back to a uniform random negative: [LCC]'s EPS + Dist-Margin arm would change the negatives as well as the
  // positives.
  register_miner_spec({"distance-weighted", "random positive, distance-weighted negative ([LCC] Dist-Margin baseline)",
                       P::random, N::distance_weighted, /*needs_unit_sphere=*/true});
  register_miner_spec({"eps-distance-weighted", "easy positive, distance-weighted negative ([LCC] EPS + Dist-Margin)",
                       P::easy, N::distance_weighted, /*needs_unit_sphere=*/true});
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
