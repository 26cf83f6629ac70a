// The margin loss with a learnable beta per class on mined pairs (a, p), (a, n) ([LCC] Sec 3, Wu et al. 2017); beta is
// its own optimizer group and checkpoint file.
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/metric_losses.hpp"

#include <filesystem>
#include <sstream>
#endif

namespace dmlbench::experiments {
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
class LearnableMarginLoss final : public TrainingLoss {
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
