// The NCA triplet loss L1st with a similarity scale s on mined triplets: mean of softplus(s (S_an - S_ap)) ([XHN eq 1],
// [XGS eq 4]).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/nca_loss.hpp"
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
torch::Tensor nca_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t, double scale) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto sap = (a * emb.index({t.positives})).sum(1), san = (a * emb.index({t.negatives})).sum(1);
  return torch::nn::functional::softplus(scale * (san - sap));
}

torch::Tensor nca_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t, double scale) {
  return mean_of_terms(nca_triplet_terms(emb, t, scale));
}
#endif

namespace {

LossSpec nca_spec() {
  LossSpec s;
  s.name = "nca";
  s.doc = "NCA triplet loss L1st, [XHN eq 1]";
  s.settings = {ranged(config_key("loss.scale", "number", 1.0, "nca: the similarity scale s"), 0, 1e6, true)};
  s.uses_miner = true;
  s.trimmable = true;
  s.movement_model = "l1st";
  s.cosine = [](const RunConfig&) { return true; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class NcaLoss final : public TrainingLoss, public PerTripletTerms {
 public:
  explicit NcaLoss(const LossSetup& s) : scale_(s.config.loss.setting("scale").get<double>()) {}
  LossValue forward(const LossBatch& b) override { return {nca_triplet_loss(b.embeddings, *b.triplets, scale_), {}}; }
  torch::Tensor terms(const LossBatch& b) override { return nca_triplet_terms(b.embeddings, *b.triplets, scale_); }

 private:
  double scale_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(nca_spec, NcaLoss)
}  // namespace dmlbench::experiments
