// One optimiser step of a training run: the batch's embeddings, the miner's triplets where the loss takes them, the
// loss (through the trimmed reducer where loss.trim is set), the update, and [XHN] Sec 6.1's movement log.
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"
#include "dmlbench/experiments/triplet_movement_log.hpp"
#include "training_run.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

namespace dmlbench::experiments {

namespace F = torch::nn::functional;
using json = nlohmann::ordered_json;

namespace {

// [XHN] Sec 6.1: the same images through the updated network, in the same mode (batch statistics), the batch-norm
// running statistics put back so that the log does not change the training; where each triplet's dot moved.
json movement_row(const RunConfig& c, TrainingSetup& s, const torch::Tensor& x, const torch::Tensor& before,
                  const MinedTriplets& t, long step, int epoch) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> kept;
  for (const auto& b : s.model->module().buffers()) kept.push_back(b.clone());
  auto after = s.model->forward(x);
  std::size_t i = 0;
  for (auto& b : s.model->module().buffers()) b.copy_(kept[i++]);
  const auto m = step_movement(before, triplet_dots(after, t), t, movement_model_of(c.loss.name),
                               c.eval.movement_tolerance);
  json row = {step, epoch};
  for (const auto* counts : {&m.observed, &m.predicted})
    for (auto n : counts->count) row.push_back(n);
  row.push_back(m.agree);
  row.push_back(m.compared);
  return row;
}

// The loss of the batch: the trimmed reducer over the loss's per-triplet terms, or the loss itself.
LossValue loss_of(const RunConfig& c, TrainingSetup& s, const LossBatch& b) {
  if (c.loss.trim > 0 && b.triplets && b.triplets->anchors.size(0) > 0) {  // [LCC] Sec 5.2.5: the lowest-loss ones
    auto* per_triplet = s.per_triplet;
    if (!per_triplet) throw std::logic_error("loss.trim: " + c.loss.name + " has no per-triplet terms (its spec is not trimmable)");
    const auto terms = per_triplet->terms(b);
    return {trimmed_mean(terms, c.loss.trim), per_triplet->active_of_terms(terms)};
  }
  return s.loss->forward(b);
}

}  // namespace

StepOutcome train_step(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, const std::vector<std::int64_t>& batch,
                       const torch::Tensor& x, int epoch) {
  const auto index = torch::tensor(batch, torch::kInt64);
  LossBatch b;
  b.labels = s.train_y.index({index}).to(s.device);
  b.class_index = s.train_class_pos.index({index}).to(s.device);
  {
    PhaseClock::Lap lap(&p.clock, "forward");
    b.embeddings = s.model->forward(x);
    if (c.model.normalize) b.embeddings = F::normalize(b.embeddings, F::NormalizeFuncOptions().dim(1));
  }
  MinedTriplets t;
  if (loss_spec(c.loss.name).uses_miner) {
    PhaseClock::Lap lap(&p.clock, "mining");
    auto gen = at::detail::createCPUGenerator(c.seed * 7919ULL + std::uint64_t(p.steps));
    const auto& e = b.embeddings;
    const auto sim = s.mine_cosine ? e.matmul(e.t()).detach() : -pairwise_squared_cdist(e).detach();
    t = mine_triplets(sim, b.labels, s.miner, gen);
    p.skipped_anchors += t.skipped_no_positive + t.skipped_no_negative;
    b.triplets = &t;
  }
  const auto before = b.embeddings.detach();
  std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "loss");
  const auto value = loss_of(c, s, b);
  lap.emplace(&p.clock, "backward");
  s.optimizer->zero_grad();
  value.loss.backward();
  lap.emplace(&p.clock, "optimizer");
  s.optimizer->step();
  lap.reset();
  if (c.eval.movement && b.triplets && t.anchors.size(0) > 0) {
    PhaseClock::Lap movement(&p.clock, "movement log");
    p.movement_rows.push_back(movement_row(c, s, x, before, t, p.steps + 1, epoch + 1));
  }
  return {value.loss.item<double>(), value.active};
}

}  // namespace dmlbench::experiments
