// The 2nd-order triplet loss L2nd on mined triplets: mean of softplus(S_an^2 / 2 - S_ap + S_ap^2 / 2) ([XHN eq 16]).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/metric_losses.hpp"
#endif

namespace dmlbench::experiments {
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
class SecondOrderLoss final : public TrainingLoss {
 public:
  explicit SecondOrderLoss(const LossSetup&) {}
  LossValue forward(const LossBatch& b) override { return {second_order_triplet_loss(b.embeddings, *b.triplets), {}}; }
  torch::Tensor terms(const LossBatch& b) override { return second_order_triplet_terms(b.embeddings, *b.triplets); }
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(l2nd_spec, SecondOrderLoss)
}  // namespace dmlbench::experiments
