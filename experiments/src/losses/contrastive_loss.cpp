// The contrastive loss over all pairs of the batch: delta D + (1 - delta)(alpha - D)_+, D the squared distance
// ([LCC] Sec 3).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/metric_losses.hpp"
#endif

namespace dmlbench::experiments {
namespace {

LossSpec contrastive_spec() {
  LossSpec s;
  s.name = "contrastive";
  s.doc = "contrastive loss over all pairs, [LCC] Sec 3";
  s.shared_keys = {"loss.margin"};
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class ContrastiveLoss final : public TrainingLoss {
 public:
  explicit ContrastiveLoss(const LossSetup& s) : alpha_(s.config.loss.margin) {}
  LossValue forward(const LossBatch& b) override { return {contrastive_loss(b.embeddings, b.labels, alpha_), {}}; }

 private:
  double alpha_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(contrastive_spec, ContrastiveLoss)
}  // namespace dmlbench::experiments
