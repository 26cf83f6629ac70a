// The hierarchical triplet loss of [HTL] Sec 4.2 over all triplets of the batch, with the class tree of the training
// embeddings rebuilt every loss.htl_update_epochs epochs ([HTL] Algorithm 1); until the first tree the margin is
// loss.margin for every class pair. The tree's class distances feed the anchor-neighbour sampler.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "loss_registration.hpp"
#if DMLBENCH_LOSS_IMPLEMENTATION
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/class_tree_json.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "../engine/class_tree_margins.hpp"
#include "dmlbench/experiments/hierarchical_triplet_loss.hpp"

#include <filesystem>
#include <sstream>
#include <iomanip>
#endif

#include <algorithm>
#include <set>

namespace dmlbench::experiments {
namespace {

void check_htl(const RunConfig& c) {
  if (c.loss.distance_kind == Distance::cosine)
    throw config_error("loss.name = htl compares Euclidean distances: loss.distance = euclidean (as [HTL] prints it) or "
                       "squared (the units of its margin), not cosine");
  if (sampler_spec(c.batch.sampler).needs_class_tree && c.loss.setting("htl_update_epochs").get<int>() == 0)
    throw config_error("batch.sampler = " + c.batch.sampler +
                       " needs a class tree: loss.htl_update_epochs = 0 never builds one");
}

void check_htl_data(const RunConfig&, const std::vector<std::int64_t>& labels) {
  for (auto y : std::set<std::int64_t>(labels.begin(), labels.end()))
    if (std::count(labels.begin(), labels.end(), y) < 2)
      throw config_error("loss.name = htl: training class " + std::to_string(y) +
                         " has one image; the tree's average inner distance s_c needs two");
}

LossSpec htl_spec() {
  LossSpec s;
  s.name = "htl";
  s.doc = "[HTL] Sec 4.2: all triplets of the batch, the class tree's dynamic violate margin";
  s.shared_keys = {"loss.margin", "loss.distance"};
  s.settings = {
      ranged(config_key("loss.htl_beta", "number", 0.1, "htl: beta of the dynamic violate margin ([HTL]: 0.1)"), 0, 4),
      ranged(config_key("loss.htl_levels", "integer", 15, "htl: tree levels above the leaves ([HTL]: 16 with the "
                                                          "leaves); also eval.tree_groups' tree"),
             1, 1000),
      config_key("loss.htl_linkage", "string", "average", "htl: how merged nodes' distance is taken (the slides do not "
                                                          "say): single | average | complete; also eval.tree_groups'",
                 {"single", "average", "complete"}),
      ranged(config_key("loss.htl_update_epochs", "integer", 1,
                        "htl: rebuild the class tree from the training set every this many epochs ([HTL] Algorithm 1: "
                        "1); until the first tree, the margin is loss.margin and batches are class-balanced; 0: never "
                        "(the triplet loss over all triplets, an ablation)"),
             0, 1e6),
  };
  s.cosine = [](const RunConfig&) { return true; };  // unit-length features: the tree's thresholds assume them
  s.builds_class_tree = [](const RunConfig&) { return true; };
  s.check = check_htl;
  s.check_data = check_htl_data;
  return s;
}

#if DMLBENCH_LOSS_IMPLEMENTATION
// Its settings typed once, when the run's loss is built (no string look-up in the step or at an epoch's end);
// `tree_fields`, as the config wrote them, go into each htl_tree.json.
struct HtlSettings {
  bool squared;
  int update_epochs, levels;
  theory::Linkage linkage;
  double beta;
  nlohmann::ordered_json tree_fields;
  explicit HtlSettings(const RunConfig::Loss& l)
      : squared(l.distance_kind == Distance::squared_euclidean),
        update_epochs(l.setting("htl_update_epochs").get<int>()),
        levels(l.setting("htl_levels").get<int>()),
        linkage(theory::linkage_from_name(l.setting("htl_linkage").get<std::string>())),
        beta(l.setting("htl_beta").get<double>()),
        tree_fields({{"levels", l.setting("htl_levels")},
                     {"linkage", l.setting("htl_linkage")},
                     {"beta", l.setting("htl_beta")}}) {}
};

class HierarchicalTripletLoss final : public TrainingLoss, public EpochState, public CheckpointedState {
 public:
  explicit HierarchicalTripletLoss(const LossSetup& s)
      : c_(s.config), h_(s.config.loss), device_(s.device),
        margins_(torch::full({s.num_classes, s.num_classes}, s.config.loss.margin, torch::kFloat32).to(s.device)) {}
  LossValue forward(const LossBatch& b) override {
    const auto r = hierarchical_triplet_loss_all(b.embeddings, b.class_index, margins_, h_.squared);
    return {r.loss, r.active};
  }
  void end_epoch(const EpochEnd& e) override;
  const std::vector<double>& class_distances() const override { return distances_; }
  nlohmann::ordered_json metrics() const override {
    return {{"trees_built", trees_built_}, {"last_tree_epoch", last_tree_epoch_}};
  }
  nlohmann::ordered_json checkpoint_fields() const override {
    return {{"trees_built", trees_built_}, {"last_tree_epoch", last_tree_epoch_}};
  }
  std::vector<std::pair<std::string, std::string>> state_files() const override;
  void load(const std::string& dir, const nlohmann::ordered_json& checkpoint) override;

 private:
  static std::string file(const std::string& dir) {
    return (std::filesystem::path(dir) / "checkpoint_htl_tree.pt").string();
  }
  const RunConfig& c_;
  const HtlSettings h_;
  torch::Device device_;
  torch::Tensor margins_;
  std::vector<double> distances_;
  int trees_built_ = 0, last_tree_epoch_ = 0;
};

void HierarchicalTripletLoss::end_epoch(const EpochEnd& e) {
  if (h_.update_epochs == 0 || e.epoch % h_.update_epochs != 0) return;
  // [HTL] Algorithm 1 step 7: the tree of the current model's training embeddings, for the epochs that follow
  const auto tree = class_tree_margins(e.embed_train(), e.train_labels, h_.levels, h_.linkage, h_.beta);
  margins_ = tree.margins.to(device_, torch::kFloat32);
  distances_ = tree.distance_table;
  ++trees_built_;
  last_tree_epoch_ = e.epoch;
  nlohmann::ordered_json fields = {{"run", c_.name}, {"seed", c_.seed}, {"after_epoch", e.epoch}, {"level", e.train_level}};
  for (const auto& [key, value] : h_.tree_fields.items()) fields[key] = value;
  write_file_atomically((std::filesystem::path(e.out_dir) / "htl_tree.json").string(),
                        class_tree_json(tree.distances, tree.tree, fields).dump(1) + "\n");
  e.log << "[train]   class tree " << trees_built_ << ": " << tree.distances.classes.size() << " classes, d_0 = "
        << std::setprecision(3) << tree.distances.d0 << ", nodes per level";
  for (int k = 0; k <= tree.tree.levels(); ++k) e.log << " " << tree.tree.nodes(k);
  e.log << "\n";
}

std::vector<std::pair<std::string, std::string>> HierarchicalTripletLoss::state_files() const {
  if (trees_built_ == 0) return {};
  std::ostringstream bytes;
  torch::save(std::vector<torch::Tensor>{margins_.cpu(), torch::tensor(distances_, torch::kFloat64)}, bytes);
  return {{"checkpoint_htl_tree.pt", bytes.str()}};
}

void HierarchicalTripletLoss::load(const std::string& dir, const nlohmann::ordered_json& checkpoint) {
  trees_built_ = checkpoint.value("trees_built", 0);
  last_tree_epoch_ = checkpoint.value("last_tree_epoch", 0);
  if (trees_built_ == 0) return;
  std::vector<torch::Tensor> tree;
  torch::load(tree, file(dir));
  margins_ = tree.at(0).to(device_);
  const auto d = tree.at(1).contiguous();
  distances_.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

#endif

}  // namespace
DMLBENCH_REGISTER_LOSS(htl_spec, HierarchicalTripletLoss)
}  // namespace dmlbench::experiments
