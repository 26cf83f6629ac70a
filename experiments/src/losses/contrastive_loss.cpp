// The contrastive loss over all pairs of the batch: delta D + (1 - delta)(alpha - D)_+, D the squared distance
// ([LCC] Sec 3).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/contrastive_loss.hpp"

#include <stdexcept>
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
torch::Tensor contrastive_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha) {
  const auto B = emb.size(0);
  if (B < 2) throw std::invalid_argument("contrastive loss: a batch of at least 2");
  const auto d = pairwise_squared_cdist(emb);
  const auto l = labels.to(emb.device());
  const auto same = l.unsqueeze(0).eq(l.unsqueeze(1)).to(emb.dtype());
  const auto off = 1 - torch::eye(B, emb.options());
  const auto terms = same * d + (1 - same) * torch::relu(alpha - d);
  return (terms * off).sum() / (B * (B - 1));
}
#endif

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
