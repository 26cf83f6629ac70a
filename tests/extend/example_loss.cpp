// How to add a loss: "example-gap", w x the mean over the miner's triplets of D(a,p) - D(a,n), D the squared distance.
#include "loss_registration.hpp"  // beside the real losses, in experiments/src/losses/
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/embedding_distance.hpp"  // the distances every loss shares
#include "dmlbench/experiments/loss_reducers.hpp"       // mean, trimmed mean, the MS average
#endif

namespace dmlbench::experiments {
namespace {

// The spec: read by the config schema (loss.name's choices, its own key), its checks and the docs.
LossSpec example_gap_spec() {
  LossSpec s;
  s.name = "example-gap";  // the value of loss.name
  s.doc = "example only (tests/extend): w x mean of D(a,p) - D(a,n) over the mined triplets";
  s.settings = {ranged(config_key("loss.example_gap_weight", "number", 1.0, "example-gap: the weight w"), 0, 10)};
  s.uses_miner = true;  // forward() gets the triplets of miner.name
  s.trimmable = true;   // a mean of per-triplet terms, so loss.trim applies
  return s;
}

// The implementation: left out where the torch-free library compiles the file for its spec alone.
#if DMLBENCH_LOSS_IMPLEMENTATION
// The core interface (forward) and the add-on its trimmable spec needs (per-triplet terms), training_loss.hpp.
class ExampleGapLoss final : public TrainingLoss, public PerTripletTerms {
 public:
  explicit ExampleGapLoss(const LossSetup& s) : w_(s.config.loss.setting("example_gap_weight").get<double>()) {}
  LossValue forward(const LossBatch& b) override { return {mean_of_terms(terms(b)), {}}; }
  torch::Tensor terms(const LossBatch& b) override {
    const auto& e = b.embeddings;
    const auto a = e.index({b.triplets->anchors});
    const auto d_ap = paired_distance(a, e.index({b.triplets->positives}), Distance::squared_euclidean);
    const auto d_an = paired_distance(a, e.index({b.triplets->negatives}), Distance::squared_euclidean);
    return w_ * (d_ap - d_an);
  }

 private:
  double w_;
};
#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(example_gap_spec, ExampleGapLoss)
}  // namespace dmlbench::experiments
