// The Circle loss (Sun et al., CVPR 2020, Sec 3.2-3.3) over all pairs of the batch: per anchor
// log[1 + sum_n exp(gamma a_n (s_n - D_n)) sum_p exp(-gamma a_p (s_p - D_p))], a_p = [1 + m - s_p]_+, a_n = [s_n + m]_+,
// D_p = 1 - m, D_n = m; the weights a held constant in the gradient, as the paper's gradient and
// pytorch-metric-learning's CircleLoss take them; the mean over anchors with a positive and a negative.
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include <limits>
#endif

namespace dmlbench::experiments {
namespace {

LossSpec circle_spec() {
  LossSpec s;
  s.name = "circle";
  s.doc = "Circle loss over all pairs, Sun et al. 2020";
  s.settings = {
      ranged(config_key("loss.circle_m", "number", 0.4, "circle: the relaxation margin m (pytorch-metric-learning's "
                                                         "default; Sun et al. use 0.25 for faces)"),
             0, 1),
      ranged(config_key("loss.circle_gamma", "number", 80.0, "circle: the scale gamma (pytorch-metric-learning's "
                                                             "default; Sun et al. use 256 for faces)"),
             0, 1e4, true),
  };
  s.cosine = [](const RunConfig&) { return true; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class CircleLoss final : public TrainingLoss {
 public:
  explicit CircleLoss(const LossSetup& s)
      : m_(s.config.loss.setting("circle_m").get<double>()),
        gamma_(s.config.loss.setting("circle_gamma").get<double>()) {}
  LossValue forward(const LossBatch& b) override;

 private:
  double m_, gamma_;
};

LossValue CircleLoss::forward(const LossBatch& b) {
  const auto& e = b.embeddings;
  const auto s = e.matmul(e.t());
  const auto y = b.labels.to(e.device());
  const auto same = y.unsqueeze(0).eq(y.unsqueeze(1));
  const auto self = torch::eye(e.size(0), torch::TensorOptions().dtype(torch::kBool).device(e.device()));
  const auto pos = same.logical_and(self.logical_not()), neg = same.logical_not();
  const auto sd = s.detach();
  const auto logit_p = -gamma_ * torch::relu(1 + m_ - sd) * (s - (1 - m_));
  const auto logit_n = gamma_ * torch::relu(sd + m_) * (s - m_);
  const auto rows = pos.any(1).logical_and(neg.any(1)).nonzero().squeeze(1);
  if (rows.numel() == 0) return {0 * s.sum(), {}};  // no anchor with a positive and a negative: no gradient
  const auto none = torch::full_like(s, -std::numeric_limits<double>::infinity());
  const auto lse_p = torch::where(pos, logit_p, none).index_select(0, rows).logsumexp(1);
  const auto lse_n = torch::where(neg, logit_n, none).index_select(0, rows).logsumexp(1);
  return {torch::nn::functional::softplus(lse_p + lse_n).mean(), {}};
}
#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(circle_spec, CircleLoss)
}  // namespace dmlbench::experiments
