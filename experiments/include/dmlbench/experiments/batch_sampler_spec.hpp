// The batch-sampler registry: each way of drawing a training batch as one registration with its settings,
// checks and a factory of the epoch's batch source, from its own file (experiments/src/samplers/). Torch-free.
#pragma once

#include "dmlbench/experiments/config_key.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct RunConfig;

// What a sampler draws from in one epoch.
struct SamplerContext {
  const RunConfig& config;
  const std::vector<int>& labels;                              // one training-level label per training item
  const std::vector<std::vector<std::int64_t>>& items_by_class;  // by class position (sorted distinct labels)
  const std::vector<double>& class_distances;  // C x C row-major, from the loss's class tree; empty: none yet
  int epoch = 0;
};
using BatchSource = std::function<std::vector<std::int64_t>()>;

struct SamplerSpec {
  std::string name, doc;            // batch.sampler, and one line with its paper
  std::vector<ConfigKey> settings;  // its own keys (batch.<key>)
  bool needs_class_tree = false;    // draws by the class distances of a loss that builds a class tree
  std::function<void(const RunConfig&)> check;  // its own cross-key rules, before any data
  std::function<void(const RunConfig&, const std::vector<std::int64_t>& train_labels)> check_data;
  std::function<BatchSource(const SamplerContext&)> make;  // the epoch's batches (seeded by config seed and epoch)
};

void register_sampler_spec(SamplerSpec spec);
const std::vector<SamplerSpec>& sampler_specs();  // sorted by name
const SamplerSpec& sampler_spec(const std::string& name);
std::vector<std::string> sampler_names();

// A sampler's check_data that draws batch.per_class distinct images of each class it picks: config_error naming the
// first training class with fewer (after the holdout and the folds), its count and what to lower.
void require_per_class_images(const RunConfig& c, const std::vector<std::int64_t>& train_labels);

}  // namespace dmlbench::experiments
