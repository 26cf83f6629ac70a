// The 2nd-order triplet loss L2nd on mined triplets: mean of softplus(S_an^2 / 2 - S_ap + S_ap^2 / 2) ([XHN eq 16]).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/l2nd_loss.hpp"
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
torch::Tensor second_order_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto sap = (a * emb.index({t.positives})).sum(1), san = (a * emb.index({t.negatives})).sum(1);
  return torch::nn::functional::softplus(0.5 * san * san - sap + 0.5 * sap * sap);
}

torch::Tensor second_order_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t) {
  return mean_of_terms(second_order_triplet_terms(emb, t));
}
#endif

namespace {

LossSpec l2nd_spec() {
  LossSpec s;
  s.name = "l2nd";
  s.doc = "2nd-order triplet loss L2nd, [XHN eq 16]";
  s.uses_miner = true;
  s.trimmable = true;
  s.movement_model = "l2nd";
  s.cosine = [](const RunConfig&) { return true; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class SecondOrderLoss final : public TrainingLoss, public PerTripletTerms {
 public:
  explicit SecondOrderLoss(const LossSetup&) {}
  LossValue forward(const LossBatch& b) override { return {second_order_triplet_loss(b.embeddings, *b.triplets), {}}; }
  torch::Tensor terms(const LossBatch& b) override { return second_order_triplet_terms(b.embeddings, *b.triplets); }
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(l2nd_spec, SecondOrderLoss)
}  // namespace dmlbench::experiments
