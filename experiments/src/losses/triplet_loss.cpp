// The triplet margin loss on mined triplets, mean of [D(a,p) - D(a,n) + margin]_+ with squared, plain Euclidean or
// cosine distance ([LCC] Sec 3, [XHN] eq 28's vanilla loss L^v; Schroff et al. 2015).
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/metric_losses.hpp"
#endif

namespace dmlbench::experiments {
namespace {

LossSpec triplet_spec() {
  LossSpec s;
  s.name = "triplet";
  s.doc = "margin triplet loss on mined triplets, [LCC] Sec 3 ([XHN] eq 28 L^v)";
  s.shared_keys = {"loss.margin", "loss.distance"};
  s.uses_miner = true;
  s.trimmable = true;
  s.movement_model = "vanilla";
  s.cosine = [](const RunConfig& c) { return c.loss.distance == "cosine"; };
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
class TripletLoss final : public TrainingLoss {
 public:
  explicit TripletLoss(const LossSetup& s)
      : margin_(s.config.loss.margin),
        distance_(s.config.loss.distance == "squared"     ? TripletDistance::squared_euclidean
                  : s.config.loss.distance == "euclidean" ? TripletDistance::euclidean
                                                          : TripletDistance::cosine) {}
  LossValue forward(const LossBatch& b) override {
    const auto t = terms(b);
    return {t.mean(), active_of_terms(t)};
  }
  torch::Tensor terms(const LossBatch& b) override {
    return triplet_margin_terms(b.embeddings, *b.triplets, margin_, distance_);
  }
  std::optional<double> active_of_terms(const torch::Tensor& t) const override {
    return t.detach().gt(0).to(torch::kFloat64).mean().item<double>();
  }

 private:
  double margin_;
  TripletDistance distance_;
};

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(triplet_spec, TripletLoss)
}  // namespace dmlbench::experiments
