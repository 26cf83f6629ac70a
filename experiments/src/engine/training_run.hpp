// The pieces of one training run (training_engine.cpp's train_run): its set-up, its progress and checkpoint, one
// step, one epoch's logs, and the final evaluation. Internal to experiments/.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_model.hpp"
#include "dmlbench/experiments/phase_clock.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/run_key.hpp"
#include "dmlbench/experiments/training_data.hpp"
#include "dmlbench/experiments/training_engine.hpp"
#include "dmlbench/experiments/training_loss.hpp"
#include "training_evaluation.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Everything a run trains with: the data at its training level, the model, the loss and the optimizer.
struct TrainingSetup {
  TrainingData data;
  std::string train_level;
  std::vector<std::int64_t> train_labels;    // one per training item, at the training level
  std::vector<int> train_labels_int;         // the same, as the samplers take them
  torch::Tensor train_y, train_class_pos;    // the same, and each label's position among the sorted classes
  std::vector<std::vector<std::int64_t>> items_by_class;  // by class position
  torch::Device device = torch::kCPU;
  std::unique_ptr<EmbeddingModel> model;
  std::unique_ptr<TrainingLoss> loss;
  PerTripletTerms* per_triplet = nullptr;  // the loss's per-triplet terms (loss.trim), found once at setup
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::vector<double> base_lr;  // per parameter group, before the schedule's decay
  MinerConfig miner;
  bool mine_cosine = false;  // the miner ranks by cosine (else by minus the squared distance)
  long per_epoch = 0;        // steps per epoch
  // eval.triplet_accuracy_set: the set, its training-level labels and its fixed triplets (null: none)
  const LabeledSplit* accuracy_set = nullptr;
  torch::Tensor accuracy_labels;
  MinedTriplets accuracy_triplets;
};
// Loads the data, checks the config against it, builds the model (seeded), the loss and the optimizer's groups, into
// `s` (which holds pointers into itself, so it is filled in place).
void set_up_training(const RunConfig& c, TrainingSetup& s);

// What a run has done so far: restored from its checkpoint on --resume, written after every epoch.
struct TrainingProgress {
  int epochs_done = 0;
  long steps = 0;
  double first_loss = 0, last_loss = 0, triplet_accuracy_before = 0, train_seconds = 0;
  std::int64_t skipped_anchors = 0;
  nlohmann::ordered_json scatter = nlohmann::ordered_json::array(), curve = nlohmann::ordered_json::array(),
                         step_rows = nlohmann::ordered_json::array(),
                         active_by_epoch = nlohmann::ordered_json::object(),
                         movement_rows = nlohmann::ordered_json::array(),
                         config_changes = nlohmann::ordered_json::array();  // each --resume-changed: what changed
  // Not in the checkpoint: wall seconds by phase (metrics.json's "profile"), and each curve set's embeddings after the
  // last epoch, which the final evaluation reuses (the same weights in eval mode give the same rows).
  mutable PhaseClock clock;
  std::map<std::string, torch::Tensor> last_curve_embeddings;
  bool growth_noted = false;  // the loss's growth past kLossGrowthFactor has been logged by this process
  RunKey run_key;             // stamped on each checkpoint and, as run_key.json, on the finished run (empty: unkeyed)
};
// A step loss past kLossGrowthFactor times the first step's (a first loss of 0 has no factor), the rule of the
// log's note and of metrics.json's loss_growth.
inline bool loss_grown(double first_step_loss, double loss) {
  return first_step_loss > 0 && loss > kLossGrowthFactor * first_step_loss;
}

// The checkpoint in the run folder: model, optimizer, the loss's state, then checkpoint.json, which marks it complete.
void save_checkpoint(const RunConfig& c, const TrainingSetup& s, const TrainingProgress& p, const std::string& out_dir);
// Restores a checkpoint of the same config (max_steps aside); false where there is none. config_error for another
// config's checkpoint, unless `accept_changes` (--resume-changed): then the changed keys are logged and appended to
// p.config_changes.
bool restore_checkpoint(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, const std::string& out_dir,
                        bool accept_changes, std::ostream& log);

// `train --trace-steps N` (training_trace.cpp): out_dir/trace/ gets the starting weights and config (trace.json), then
// each of the first N steps' batch: its items, their training-level labels and the input images as .npy.
void write_trace_start(const RunConfig& c, TrainingSetup& s, const std::string& out_dir);
void write_trace_batch(TrainingSetup& s, long step, const std::vector<std::int64_t>& batch, const torch::Tensor& x,
                       const std::string& out_dir);
// ... and after each of those steps the model's parameters, concatenated in named_parameters order.
void write_trace_update(TrainingSetup& s, long step, const std::string& out_dir);

// One optimiser step on the batch of items `batch` (images x): mine, loss, update, the movement log; the loss value
// and the fraction of active triplets (where the loss has them); the caller checks that the loss is finite.
struct StepOutcome {
  double loss = 0;
  std::optional<double> active;
};
StepOutcome train_step(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, const std::vector<std::int64_t>& batch,
                       const torch::Tensor& x, int epoch);

// After a full epoch: the loss's epoch end (a class tree), the scatter log and the curve point.
void end_epoch(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, int epoch, double mean_loss,
               std::optional<double> mean_active, const std::string& out_dir, std::ostream& log);

// Early stopping (schedule.patience): the curve's best point by schedule.stop_metric (the first of equal values), and
// whether `patience` points have followed it. config_error when a point lacks the metric.
struct EarlyStop {
  bool stop = false;
  double best = 0;
  std::size_t best_index = 0;
};
EarlyStop stops_early(const RunConfig& c, const nlohmann::ordered_json& curve);

// The final evaluation of every set and every output file of the run; returns metrics.json's contents.
nlohmann::ordered_json finish_run(const RunConfig& c, TrainingSetup& s, const TrainingProgress& p,
                                  const RunOptions& o, std::chrono::steady_clock::time_point started);

}  // namespace dmlbench::experiments
