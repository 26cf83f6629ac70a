// The loss registry's torch half: a registered loss's implementation behind one interface, built per run
// from its spec (loss_spec.hpp). A loss is one file in experiments/src/losses/ that ends with DMLBENCH_REGISTER_LOSS.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// What a run's loss is built from.
struct LossSetup {
  const RunConfig& config;
  std::int64_t num_classes = 0;  // training classes at the training level
  torch::Device device = torch::kCPU;
};

// One step's batch as the loss sees it.
struct LossBatch {
  torch::Tensor embeddings;   // B x d, L2-normalised when model.normalize
  torch::Tensor labels;       // B training-level labels
  torch::Tensor class_index;  // B positions of the labels among the sorted training classes
  const MinedTriplets* triplets = nullptr;  // the miner's triplets (a loss whose spec uses_miner)
};

struct LossValue {
  torch::Tensor loss;
  std::optional<double> active;  // the fraction of its triplets that violate their margin, where it has one
};

// What a loss with state sees when an epoch ends ([HTL] rebuilds its class tree).
struct EpochEnd {
  int epoch = 0;                                // 1-based, just finished
  std::function<torch::Tensor()> embed_train;  // the training split's L2-normalised embeddings
  const std::vector<std::int64_t>& train_labels;
  const std::string& train_level;
  const std::string& out_dir;
  std::ostream& log;
};

// The core every loss has: its value on a batch. What only some losses have is an add-on below, an interface the
// loss's class derives from beside TrainingLoss; the engine asks for one with capability<T>(loss).
class TrainingLoss {
 public:
  virtual ~TrainingLoss() = default;
  virtual LossValue forward(const LossBatch& b) = 0;
};

// Add-on: per-triplet terms whose mean is the loss (spec trimmable), for the trimmed reducer (loss_reducers.hpp), and
// what they say of the active triplets.
class PerTripletTerms {
 public:
  virtual ~PerTripletTerms() = default;
  virtual torch::Tensor terms(const LossBatch& b) = 0;
  virtual std::optional<double> active_of_terms(const torch::Tensor&) const { return std::nullopt; }
};

// Add-on: trainable parameters of its own (an optimizer group of their own) and their learning rate (0: the
// optimizer's).
class OwnParameters {
 public:
  virtual ~OwnParameters() = default;
  virtual std::vector<torch::Tensor> parameters() = 0;
  virtual double learning_rate() const { return 0; }
};

// Add-on: state in the run folder's checkpoint: files of its own (name, bytes), written with the checkpoint's other
// files as one set (atomic_file.hpp), and fields of checkpoint.json; load() reads them back from the run folder.
class CheckpointedState {
 public:
  virtual ~CheckpointedState() = default;
  virtual std::vector<std::pair<std::string, std::string>> state_files() const = 0;
  virtual nlohmann::ordered_json checkpoint_fields() const { return nlohmann::ordered_json::object(); }
  virtual void load(const std::string& out_dir, const nlohmann::ordered_json& checkpoint) = 0;
};

// Add-on: state across epochs ([HTL]'s class tree): updated when an epoch ends, read by a sampler that needs its C x C
// row-major class distances (empty: none yet), and its block of metrics.json.
class EpochState {
 public:
  virtual ~EpochState() = default;
  virtual void end_epoch(const EpochEnd&) = 0;
  virtual const std::vector<double>& class_distances() const = 0;
  virtual nlohmann::ordered_json metrics() const = 0;
};

// The add-on T of `loss`, or nullptr where it has none.
template <class T>
T* capability(TrainingLoss& loss) {
  return dynamic_cast<T*>(&loss);
}
template <class T>
const T* capability(const TrainingLoss& loss) {
  return dynamic_cast<const T*>(&loss);
}

// The C x C class distances of the loss's state across epochs (EpochState), empty where it has none or none yet.
const std::vector<double>& loss_class_distances(const TrainingLoss& loss);

using LossFactory = std::function<std::unique_ptr<TrainingLoss>(const LossSetup&)>;
// Registers a loss's spec and implementation (from DMLBENCH_REGISTER_LOSS).
void register_loss(LossSpec spec, LossFactory make);
// The loss config.loss.name names, built for this run; config_error for a name with no implementation.
std::unique_ptr<TrainingLoss> make_training_loss(const LossSetup& s);

}  // namespace dmlbench::experiments
