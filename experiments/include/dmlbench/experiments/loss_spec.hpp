// The loss registry's torch-free half: each training loss's name, its own settings and what the rest of the
// engine must know of it, declared in the loss's own file (experiments/src/losses/) and read by the config schema, its
// cross-key checks, the docs and the dispatch (training_loss.hpp). Torch-free.
#pragma once

#include "dmlbench/experiments/config_key.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct RunConfig;

struct LossSpec {
  std::string name;  // the value of loss.name
  std::string doc;   // one line for loss.name's documentation: what it is, with its paper and equation
  std::vector<ConfigKey> settings;       // its own keys (loss.<key>), declared here and nowhere else
  std::vector<std::string> shared_keys;  // the shared keys it reads (loss.margin, loss.distance), for the docs
  bool uses_miner = false;  // trains on the triplets miner.name picks (otherwise on the batch as it is)
  bool trimmable = false;   // a mean of per-triplet terms, so the trimmed reducer (loss.trim) applies
  std::string movement_model;  // eval.movement: the isolated-triplet model of [XHN] eqs 9-10 ("" none)
  std::function<bool(const RunConfig&)> cosine;            // compares cosine similarities (needs model.normalize)
  std::function<bool(const RunConfig&)> builds_class_tree;  // keeps class distances a sampler may draw by
  std::function<void(const RunConfig&)> check;             // its own cross-key rules (config_error), before any data
  // its rules on the training labels (config_error), once the data is loaded
  std::function<void(const RunConfig&, const std::vector<std::int64_t>& train_labels)> check_data;
};

// Adds a loss (at static initialisation, from the loss's file). A loss file is compiled into the torch-free library
// (its spec) and into the engine (its spec and implementation, training_loss.hpp): the second registration of the
// same spec is ignored.
void register_loss_spec(LossSpec spec);
// Every registered loss, sorted by name.
const std::vector<LossSpec>& loss_specs();
// The registered loss `name`; config_error naming the registered ones (and the nearest) for any other.
const LossSpec& loss_spec(const std::string& name);
// The registered names, sorted.
std::vector<std::string> loss_names();

}  // namespace dmlbench::experiments
