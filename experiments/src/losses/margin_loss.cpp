// The margin loss with a learnable beta per class on mined pairs (a, p), (a, n) ([LCC] Sec 3, Wu et al. 2017); beta is
// its own optimizer group and checkpoint file.
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/margin_loss.hpp"

#include <filesystem>
#include <sstream>
#include <stdexcept>
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
MarginLossImpl::MarginLossImpl(int num_classes, double a, double beta0) : alpha(a) {
  if (num_classes < 1) throw std::invalid_argument("margin loss: num_classes >= 1");
  beta = register_parameter("beta", torch::full({num_classes}, beta0, torch::kFloat32));
}

torch::Tensor MarginLossImpl::forward(const torch::Tensor& emb, const torch::Tensor& labels, const MinedTriplets& t) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto b = beta.to(emb.device()).index({labels.to(emb.device()).index({t.anchors})});
  const auto dap = paired_distance(a, emb.index({t.positives}), Distance::squared_euclidean),
             dan = paired_distance(a, emb.index({t.negatives}), Distance::squared_euclidean);
  const auto lp = torch::relu(dap - b + alpha), ln = torch::relu(b - dan + alpha);
  const auto active = (lp.gt(0).sum() + ln.gt(0).sum()).clamp_min(1).to(emb.dtype());
  return (lp.sum() + ln.sum()) / active;
}
#endif

namespace {

LossSpec margin_spec() {
  LossSpec s;
  s.name = "margin";
  s.doc = "margin loss with learnable beta, [LCC] Sec 3";
  s.shared_keys = {"loss.margin"};
  s.settings = {
      ranged(config_key("loss.beta0", "number", 1.2, "margin loss: initial beta"), -1e6, 1e6),
      ranged(config_key("loss.beta_lr", "number", 0.0, "margin loss: learning rate of beta (0: the optimizer's)"), 0,
             1e6),
  };
  s.uses_miner = true;
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class LearnableMarginLoss final : public TrainingLoss, public OwnParameters, public CheckpointedState {
 public:
  explicit LearnableMarginLoss(const LossSetup& s)
      : module_(int(s.num_classes), s.config.loss.margin, s.config.loss.setting("beta0").get<double>()),
        lr_(s.config.loss.setting("beta_lr").get<double>()) {
    module_->to(s.device);
  }
  LossValue forward(const LossBatch& b) override { return {module_->forward(b.embeddings, b.labels, *b.triplets), {}}; }
  std::vector<torch::Tensor> parameters() override { return module_->parameters(); }
  double learning_rate() const override { return lr_; }
  std::vector<std::pair<std::string, std::string>> state_files() const override {
    std::ostringstream bytes;
    torch::save(module_, bytes);
    return {{"checkpoint_loss.pt", bytes.str()}};
  }
  void load(const std::string& dir, const nlohmann::ordered_json&) override { torch::load(module_, file(dir)); }

 private:
  static std::string file(const std::string& dir) { return (std::filesystem::path(dir) / "checkpoint_loss.pt").string(); }
  MarginLoss module_;
  double lr_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(margin_spec, LearnableMarginLoss)
}  // namespace dmlbench::experiments
