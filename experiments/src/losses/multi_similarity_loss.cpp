// The Multi-Similarity loss with its pair mining (Wang et al. 2019 eqs 10-12, 15), and [LCC] Sec 5.2.3's EPS + MS
// (each anchor's most similar positive alone in the positive term).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/multi_similarity_loss.hpp"
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
torch::Tensor multi_similarity_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha, double beta,
                                    double lambda, double epsilon, bool easiest_positive, MsReduction reduction) {
  const auto B = emb.size(0);
  const auto sim = emb.matmul(emb.t());
  const auto l = labels.to(emb.device());
  const auto eye = torch::eye(B, torch::TensorOptions().dtype(torch::kBool).device(emb.device()));
  const auto pos = l.unsqueeze(0).eq(l.unsqueeze(1)).logical_and(eye.logical_not());
  const auto neg = l.unsqueeze(0).ne(l.unsqueeze(1));
  torch::Tensor loss = torch::zeros({}, emb.options());
  std::int64_t used = 0;
  const auto s_det = sim.detach();
  for (std::int64_t i = 0; i < B; ++i) {
    if (!pos[i].any().item<bool>() || !neg[i].any().item<bool>()) continue;
    const auto sp = s_det[i].masked_select(pos[i]), sn = s_det[i].masked_select(neg[i]);
    // mining (Wang et al. eqs 10-11): negatives with S + eps > min positive, positives with S - eps < max negative
    const auto keep_n = neg[i].logical_and(s_det[i].gt(sp.min() - epsilon));
    auto keep_p = pos[i].logical_and(s_det[i].lt(sn.max() + epsilon));
    if (easiest_positive)  // EPS: the most similar positive, whatever the mining rule says
      keep_p = torch::zeros_like(pos[i]).index_fill_(
          0, torch::where(pos[i], s_det[i], torch::full_like(s_det[i], -1e30)).argmax(), true);
    if (!keep_n.any().item<bool>() || !keep_p.any().item<bool>()) continue;
    const auto p_term = torch::log1p(torch::exp(-alpha * (sim[i].masked_select(keep_p) - lambda)).sum()) / alpha;
    const auto n_term = torch::log1p(torch::exp(beta * (sim[i].masked_select(keep_n) - lambda)).sum()) / beta;
    loss = loss + p_term + n_term;
    ++used;
  }
  return average_over_anchors(loss, used, B, reduction, sim);
}
#endif

namespace {

LossSpec ms_spec() {
  LossSpec s;
  s.name = "ms";
  s.doc = "Multi-Similarity loss, Wang et al. 2019; [LCC] EPS + MS";
  s.settings = {
      ranged(config_key("loss.ms_alpha", "number", 2.0, "multi-similarity alpha"), 0, 1e6, true),
      ranged(config_key("loss.ms_beta", "number", 50.0, "multi-similarity beta"), 0, 1e6, true),
      ranged(config_key("loss.ms_lambda", "number", 1.0, "multi-similarity lambda"), -1, 1),
      ranged(config_key("loss.ms_epsilon", "number", 0.1, "multi-similarity mining epsilon"), 0, 2),
      config_key("loss.ms_positives", "string", "mined", "ms: the positives of the positive term: mined (Wang et al. "
                                                         "eq 11) | easiest (each anchor's most similar positive, [LCC] "
                                                         "EPS + MS; triplet losses choose positives by miner.name)",
                 {"mined", "easiest"}),
  };
  s.settings.back().owner_only = true;
  s.settings.push_back(config_key("loss.ms_reduction", "string", "batch",
                                  "ms: the average of the anchors' terms: batch (Wang et al. eq 15: over the batch's "
                                  "samples) | mined_anchors (over the anchors that mined a pair)",
                                  {"batch", "mined_anchors"}));
  s.settings.back().owner_only = true;
  s.cosine = [](const RunConfig&) { return true; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
// Its settings typed once, when the run's loss is built (no string look-up in the step).
struct MsSettings {
  double alpha, beta, lambda, epsilon;
  bool easiest_positives;
  MsReduction reduction;
  explicit MsSettings(const RunConfig::Loss& l)
      : alpha(l.setting("ms_alpha").get<double>()),
        beta(l.setting("ms_beta").get<double>()),
        lambda(l.setting("ms_lambda").get<double>()),
        epsilon(l.setting("ms_epsilon").get<double>()),
        easiest_positives(l.setting("ms_positives") == "easiest"),
        reduction(l.setting("ms_reduction") == "batch" ? MsReduction::batch : MsReduction::mined_anchors) {}
};

class MultiSimilarityLoss final : public TrainingLoss {
 public:
  explicit MultiSimilarityLoss(const LossSetup& s) : m_(s.config.loss) {}
  LossValue forward(const LossBatch& b) override {
    return {multi_similarity_loss(b.embeddings, b.labels, m_.alpha, m_.beta, m_.lambda, m_.epsilon,
                                  m_.easiest_positives, m_.reduction),
            {}};
  }

 private:
  const MsSettings m_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(ms_spec, MultiSimilarityLoss)
}  // namespace dmlbench::experiments
