// The triplet margin loss on mined triplets, mean of [D(a,p) - D(a,n) + margin]_+ with squared, plain Euclidean or
// cosine distance ([LCC] Sec 3, [XHN] eq 28's vanilla loss L^v; Schroff et al. 2015).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"
#include "dmlbench/experiments/triplet_loss.hpp"
#endif

namespace dmlbench::experiments {

#if DMLBENCH_LOSS_IMPLEMENTATION
torch::Tensor triplet_margin_terms(const torch::Tensor& emb, const MinedTriplets& t, double margin, Distance d) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors}), p = emb.index({t.positives}), n = emb.index({t.negatives});
  const auto dap = paired_distance(a, p, d);
  const auto dan = paired_distance(a, n, d);
  return torch::relu(dap - dan + margin);
}

torch::Tensor triplet_margin_loss(const torch::Tensor& emb, const MinedTriplets& t, double margin, Distance d) {
  return mean_of_terms(triplet_margin_terms(emb, t, margin, d));
}
#endif

namespace {

LossSpec triplet_spec() {
  LossSpec s;
  s.name = "triplet";
  s.doc = "margin triplet loss on mined triplets, [LCC] Sec 3 ([XHN] eq 28 L^v)";
  s.shared_keys = {"loss.margin", "loss.distance"};
  s.uses_miner = true;
  s.trimmable = true;
  s.movement_model = "vanilla";
  s.cosine = [](const RunConfig& c) { return c.loss.distance_kind == Distance::cosine; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class TripletLoss final : public TrainingLoss, public PerTripletTerms {
 public:
  explicit TripletLoss(const LossSetup& s) : margin_(s.config.loss.margin), distance_(s.config.loss.distance_kind) {}
  LossValue forward(const LossBatch& b) override {
    const auto t = terms(b);
    return {mean_of_terms(t), active_of_terms(t)};
  }
  torch::Tensor terms(const LossBatch& b) override {
    return triplet_margin_terms(b.embeddings, *b.triplets, margin_, distance_);
  }
  std::optional<double> active_of_terms(const torch::Tensor& t) const override { return share_violating(t); }

 private:
  double margin_;
  Distance distance_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(triplet_spec, TripletLoss)
}  // namespace dmlbench::experiments
