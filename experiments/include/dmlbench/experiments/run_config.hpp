// A training run as data (issue 11): the JSON run config of experiments/configs/*.json, its schema, `--set key=value`
// overrides, and one clear error per bad key, type or range. Torch-free.
#pragma once

#include "dmlbench/experiments/nearest_name.hpp"  // used with every config error

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// A bad config: the message names the key (dotted path), what it got and what is allowed (and, for an unknown key,
// the nearest valid name).
struct config_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// One key of the schema: dotted path, JSON type (string | number | integer | boolean | integer-list | number-list |
// string-list), its default (null: required or "unset"), allowed values or a range, and one line of documentation.
struct ConfigKey {
  std::string path, type;
  nlohmann::ordered_json default_value;
  std::vector<std::string> choices;        // allowed strings (string, string-list), empty: any
  double min = -1e300, max = 1e300;        // inclusive range of numbers (and each list element)
  bool min_exclusive = false, max_exclusive = false;
  std::string doc;
};
const std::vector<ConfigKey>& run_config_schema();

// The typed view of a resolved config (every key present).
struct RunConfig {
  std::string name, paper;
  std::uint64_t seed = 1;
  std::string device = "auto";
  struct Dataset {
    std::string name, data_dir, train_level;
    double holdout = 0.2;
    int image_size = 0, channels = 0;  // file-backed datasets: the network's input size and channels
    std::string train_split, transform_train, transform_eval;
    int loader_threads = 0, prefetch = 4;
  } dataset;
  struct Model {
    std::string name, kernels, pretrained;
    int embedding_dim = 2;
    bool normalize = false, freeze_bn = false;
    std::string init_run;  // a finished run's folder whose final weights start this run (e.g. [XHN] Sec 6.1's later phase)
  } model;
  struct Loss {
    std::string name, distance;
    double margin = 0.2, scale = 1.0, beta0 = 1.2, beta_lr = 0;
    double ms_alpha = 2, ms_beta = 50, ms_lambda = 1, ms_epsilon = 0.1;
    std::string ms_positives = "mined";  // mined | easiest ([LCC] EPS + MS)
    double trim = 0;  // trimmed loss ([LCC] Sec 5.2.5): fraction of triplets left out
    double htl_beta = 0.1;  // [HTL] Sec 3.3
    int htl_levels = 15;
    std::string htl_linkage = "average";
    int htl_update_epochs = 1;  // 0: never build the tree
  } loss;
  struct Miner {
    std::string name, similarity;
    bool one_triplet_per_feature = false;  // [XHN] Sec 6.1
  } miner;
  struct Batch {
    int classes = 2, per_class = 64;
    std::string sampler = "class-balanced";  // | anchor-neighbour ([HTL] A-N)
    int classes_per_anchor = 2;              // m
  } batch;
  struct Optimizer {
    std::string name;
    double lr = 1e-3, head_lr = 0, momentum = 0.9, weight_decay = 0;
  } optimizer;
  struct Schedule {
    int epochs = 5;
    long steps_per_epoch = 0;  // 0: the training set's size over the batch size
    std::vector<int> decay_epochs;
    double decay_factor = 0.1;
    long max_steps = -1;       // stop the run after this many steps in all (smoke runs); -1: no limit
  } schedule;
  struct Eval {
    std::vector<std::string> sets, levels;
    std::vector<int> ks;
    std::string metric;
    int nmi_plus_factor = 10;
    bool every_epoch = false, nmi = true;
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

// The schema as Markdown (README's config reference).
std::string run_config_schema_markdown();

}  // namespace dmlbench::experiments
