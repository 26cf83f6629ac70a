// A training run's set-up: the data at its training level checked against the config, the model (seeded), the
// registered loss, the miner and the optimizer's parameter groups (backbone, head, the loss's own).
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/checkpoint_state.hpp"
#include "training_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// An evaluation set that a key names must hold images (an empty one would end in a LibTorch reduction error).
void require_images(const TrainingData& d, const std::string& name, const std::string& key, const RunConfig& c) {
  if (d.eval_set(name).size > 0) return;
  std::ostringstream holdout;
  holdout << c.dataset.holdout;
  throw config_error(key + " names the set " + name + ", which holds no images here" +
                     (name == "heldout" ? " (dataset.holdout = " + holdout.str() +
                                              " of each training class rounds down to none): raise dataset.holdout "
                                              "or leave " + name + " out of " + key
                                        : ""));
}

// The rules that need the data (a level or set the dataset lacks, too few classes) or other runs' files.
void check_against_data(const RunConfig& c, const TrainingData& d, const std::string& train_level) {
  if (!c.model.init_run.empty()) {
    const fs::path r(c.model.init_run);
    if (!fs::exists(r / "metrics.json") || !fs::exists(r / "checkpoint_model.pt"))
      throw config_error("model.init_run = " + r.string() + " is not a finished run (no metrics.json and "
                         "checkpoint_model.pt there)");
    const json config = read_checkpoint_state((r / "checkpoint.json").string()).config;
    const json other = config.contains("model") && config["model"].is_object() ? config["model"] : json::object();
    for (const char* k : {"name", "embedding_dim", "normalize", "kernels"})
      if (other.value(k, json()) != c.resolved.at("model").at(k))
        throw config_error("model.init_run = " + r.string() + " trained model." + k + " = " + other.value(k, json()).dump() +
                           ", this run has " + c.resolved.at("model").at(k).dump());
  }
  for (const auto& name : c.eval.curve_sets) require_images(d, name, "eval.curve_sets", c);
  if (!c.eval.subclusters.empty())
    for (const auto& name : eval_sets(c, d)) {
      d.eval_set(name).level_index(c.eval.subclusters[0]);
      d.eval_set(name).level_index(c.eval.subclusters[1]);
    }
  const auto& labels = d.train.labels[std::size_t(d.train.level_index(train_level))];
  for (const auto& s : c.eval.sets) require_images(d, s, "eval.sets", c);
  if (!c.eval.triplet_accuracy_set.empty()) {
    require_images(d, c.eval.triplet_accuracy_set, "eval.triplet_accuracy_set", c);
    d.eval_set(c.eval.triplet_accuracy_set).level_index(train_level);
  }
  if (!c.eval.tree_groups.empty()) d.train.level_index(c.eval.tree_groups);
  if (const auto& f = sampler_spec(c.batch.sampler).check_data) f(c, labels);
  if (const auto& f = loss_spec(c.loss.name).check_data) f(c, labels);
  const std::set<std::int64_t> classes(labels.begin(), labels.end());
  if (classes.size() < 2)  // a metric needs negatives
    throw config_error("the training split has " + std::to_string(classes.size()) + " class at level " + train_level +
                       ": metric learning needs at least 2");
  if (int(classes.size()) < c.batch.classes)
    throw config_error("batch.classes = " + std::to_string(c.batch.classes) + " but the training split has " +
                       std::to_string(classes.size()) + " classes at level " + train_level);
}

// [HTL]: each training item's class position among the sorted distinct labels (the margin table's rows), and the
// items of each class.
void index_classes(TrainingSetup& s) {
  const std::set<std::int64_t> u(s.train_labels.begin(), s.train_labels.end());
  const std::vector<std::int64_t> classes(u.begin(), u.end());
  std::vector<std::int64_t> pos(s.train_labels.size());
  s.items_by_class.assign(classes.size(), {});
  for (std::size_t i = 0; i < s.train_labels.size(); ++i) {
    pos[i] = std::lower_bound(classes.begin(), classes.end(), s.train_labels[i]) - classes.begin();
    s.items_by_class[std::size_t(pos[i])].push_back(std::int64_t(i));
  }
  s.train_class_pos = torch::tensor(pos, torch::kInt64);
}

// Parameter groups: the backbone, the embedding head when it has its own learning rate, the loss's own parameters.
std::vector<torch::optim::OptimizerParamGroup> parameter_groups(const RunConfig& c, TrainingSetup& s) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  if (c.optimizer.head_lr > 0) {
    groups.emplace_back(s.model->backbone_parameters());
    s.base_lr.push_back(c.optimizer.lr);
    groups.emplace_back(s.model->head_parameters());
    s.base_lr.push_back(c.optimizer.head_lr);
  } else {
    groups.emplace_back(s.model->parameters());
    s.base_lr.push_back(c.optimizer.lr);
  }
  auto* own = capability<OwnParameters>(*s.loss);
  if (auto params = own ? own->parameters() : std::vector<torch::Tensor>{}; !params.empty()) {
    groups.emplace_back(std::move(params));
    s.base_lr.push_back(own->learning_rate() > 0 ? own->learning_rate() : c.optimizer.lr);
  }
  return groups;
}

void make_optimizer(const RunConfig& c, TrainingSetup& s) {
  auto groups = parameter_groups(c, s);
  const auto& o = c.optimizer;
  if (o.kind == OptimizerKind::adam) {
    for (std::size_t g = 0; g < groups.size(); ++g)
      groups[g].set_options(
          std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(s.base_lr[g]).weight_decay(o.weight_decay)));
    s.optimizer = std::make_unique<torch::optim::Adam>(groups, torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay));
    return;
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    groups[g].set_options(std::make_unique<torch::optim::SGDOptions>(
        torch::optim::SGDOptions(s.base_lr[g]).momentum(o.momentum).weight_decay(o.weight_decay)));
  s.optimizer = std::make_unique<torch::optim::SGD>(
      groups, torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
}

void make_model(const RunConfig& c, TrainingSetup& s) {
  torch::manual_seed(c.seed);
  s.model = std::make_unique<EmbeddingModel>(
      make_embedding_model(c.model.arch, c.model.embedding_dim, c.model.kernels, s.data.channels));
  if (!c.model.pretrained.empty()) s.model->load_pretrained(c.model.pretrained);
  if (!c.model.init_run.empty()) s.model->load((fs::path(c.model.init_run) / "checkpoint_model.pt").string());
  s.model->set_freeze_bn(c.model.freeze_bn);
  s.model->to(s.device);
}

void set_up_mining_and_checks(const RunConfig& c, TrainingSetup& s) {
  s.miner = named_miner(c.miner.name);
  s.miner.one_triplet_per_feature = c.miner.one_triplet_per_feature;
  s.mine_cosine = miner_ranks_by_cosine(c);
  const long batch = long(c.batch.classes) * c.batch.per_class;
  s.per_epoch = c.schedule.steps_per_epoch > 0 ? c.schedule.steps_per_epoch
                                               : std::max<long>(1, long(s.data.train.size) / batch);
  if (c.eval.triplet_accuracy_set.empty()) return;
  s.accuracy_set = &s.data.eval_set(c.eval.triplet_accuracy_set);
  s.accuracy_labels = s.accuracy_set->level_labels(s.train_level);
  s.accuracy_triplets = fixed_triplets(s.accuracy_labels, c.seed);
}

}  // namespace

void set_up_training(const RunConfig& c, TrainingSetup& s) {
  s.device = torch::Device(resolve_device(c.device));
  s.data = load_training_data(c);
  s.train_level = c.dataset.train_level.empty() ? s.data.default_train_level : c.dataset.train_level;
  check_against_data(c, s.data, s.train_level);
  s.train_labels = s.data.train.labels[std::size_t(s.data.train.level_index(s.train_level))];
  s.train_labels_int.assign(s.train_labels.begin(), s.train_labels.end());
  s.train_y = torch::tensor(s.train_labels, torch::kInt64);
  index_classes(s);
  make_model(c, s);
  s.loss = make_training_loss({c, std::int64_t(s.items_by_class.size()), s.device});
  s.per_triplet = capability<PerTripletTerms>(*s.loss);  // once, not at every step
  make_optimizer(c, s);
  set_up_mining_and_checks(c, s);
}

}  // namespace dmlbench::experiments
