// A training run as data: the JSON run config of experiments/configs/*.json, its schema, `--set key=value`
// overrides, and one clear error per bad key, type or range. Torch-free.
#pragma once

#include "dmlbench/experiments/config_key.hpp"
#include "dmlbench/experiments/dataset_kind.hpp"
#include "dmlbench/experiments/distance_kind.hpp"
#include "dmlbench/experiments/miner_similarity.hpp"
#include "dmlbench/experiments/model_arch.hpp"
#include "dmlbench/experiments/nearest_name.hpp"  // used with every config error
#include "dmlbench/experiments/optimizer_kind.hpp"
#include "dmlbench/experiments/similarity.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The whole schema: the core keys (run_config.cpp) with the registered losses', miners' and samplers' own keys in
// their places (loss_spec.hpp, miner_spec.hpp, batch_sampler_spec.hpp).
const std::vector<ConfigKey>& run_config_schema();

// The schema's key `path`; config_error "<where>: unknown key ..." (with the nearest key) for any other.
const ConfigKey& run_config_key(const std::string& path, const std::string& where);

// The typed view of a resolved config (every key present).
struct RunConfig {
  std::string name, paper;
  std::uint64_t seed = 1;
  std::string device = "auto";
  struct Dataset {
    std::string name, data_dir, train_level;
    DatasetKind kind = DatasetKind::mnist;  // dataset.name, parsed
    double holdout = 0.2;
    int image_size = 0, channels = 0;  // file-backed datasets: the network's input size and channels
    std::string train_split, transform_train, transform_eval;
    int loader_threads = 0, prefetch = 4;
    // tuning's class-disjoint folds: fold `fold` of `folds` (0: none) of the classes at fold_level
    int folds = 0, fold = 0;
    std::string fold_level;
    std::uint64_t fold_seed = 0;
  } dataset;
  struct Model {
    std::string name, kernels, pretrained;
    ModelArch arch = ModelArch::small_conv;  // model.name, parsed
    int embedding_dim = 2;
    bool normalize = false, freeze_bn = false;
    std::string init_run;  // a finished run's folder whose final weights start this run (e.g. [XHN] Sec 6.1's later phase)
  } model;
  struct Loss {
    std::string name, distance;  // the shared keys every loss may read
    Distance distance_kind = Distance::squared_euclidean;  // loss.distance, parsed
    double margin = 0.2;
    double trim = 0;  // the trimmed reducer ([LCC] Sec 5.2.5): fraction of triplets left out
    nlohmann::ordered_json settings;  // every registered loss's own keys, by their name after "loss."
    // One of `settings`; std::invalid_argument naming the key when no registered loss declares it.
    const nlohmann::ordered_json& setting(const std::string& key) const;
  } loss;
  struct Miner {
    std::string name, similarity;
    MinerSimilarity ranking = MinerSimilarity::automatic;  // miner.similarity, parsed
    bool one_triplet_per_feature = false;  // [XHN] Sec 6.1
  } miner;
  struct Batch {
    int classes = 2, per_class = 64;
    std::string sampler = "class-balanced";  // | anchor-neighbour ([HTL] A-N)
    int classes_per_anchor = 2;              // m
  } batch;
  struct Optimizer {
    std::string name;
    OptimizerKind kind = OptimizerKind::adam;  // optimizer.name, parsed
    double lr = 1e-3, head_lr = 0, momentum = 0.9, weight_decay = 0;
  } optimizer;
  struct Schedule {
    int epochs = 5;
    long steps_per_epoch = 0;  // 0: the training set's size over the batch size
    std::vector<int> decay_epochs;
    double decay_factor = 0.1;
    long max_steps = -1;       // stop the run after this many steps in all (smoke runs); -1: no limit
    int patience = 0;          // early stopping: curve points without a better stop_metric (0: never)
    std::string stop_metric;   // a dotted path into a curve point's eval
  } schedule;
  struct Eval {
    std::vector<std::string> sets, levels;
    std::vector<int> ks;
    std::string metric;
    Similarity similarity = Similarity::cosine;  // eval.metric, parsed
    int nmi_plus_factor = 10;
    bool every_epoch = false, nmi = true, curve_ranking = false;
    std::vector<std::string> curve_sets;   // every_epoch: the sets of the curve (empty: all)
    std::vector<std::string> subclusters;  // {coarse, fine} levels of the sub-cluster count, or empty
    std::string triplet_accuracy_set;
    bool scatter = false;
    std::string tree_groups;  // a coarse level to score the [HTL] tree of the final training embeddings against
    bool movement = false;            // [XHN] Sec 6.1: where each mined triplet's dot moves in each step
    double movement_tolerance = 1e-6;  // a similarity change at most this large counts as none
  } eval;

  nlohmann::ordered_json resolved;  // every key with its value, in schema order: the config block of every output
};

// Reads a config file; `overrides` are "key=value" strings (--set), applied after the file, each value parsed as its
// key's type ("a,b,c" or a JSON array for lists). Relative data_dir and pretrained paths resolve against
// `path_root` (the repository: paths never depend on the working directory). Throws config_error.
RunConfig load_run_config(const std::string& file, const std::vector<std::string>& overrides,
                          const std::string& path_root);
RunConfig parse_run_config(const nlohmann::ordered_json& j, const std::vector<std::string>& overrides,
                           const std::string& path_root, const std::string& origin = "config");

// The rules that span several keys (the core's, and each registered loss's, miner's and sampler's own), run by
// parse_run_config before any data loads: config_error naming the keys, prefixed by `origin`.
void check_cross_key_rules(const RunConfig& c, const std::string& origin);

// Whether the miner ranks by cosine similarity: miner.similarity = cosine, or auto with a loss that compares cosines
// or a miner that draws by cosine (distance-weighted negatives read the similarity as a cosine, d = sqrt(2 - 2 S)).
bool miner_ranks_by_cosine(const RunConfig& c);

// The schema as Markdown (README's config reference).
std::string run_config_schema_markdown();

}  // namespace dmlbench::experiments
