// The labelled image splits a run config names: the training split and the evaluation sets, with labels at
// every level the dataset has, split by class as deep metric learning evaluates ([LCC] Sec 5, [XHN] Sec 6).
#pragma once

#include "dmlbench/experiments/run_config.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

class TransformPipeline;

// The training batches of one epoch, one B x C x H x W tensor per call, in the order of the plan it was opened on.
using BatchStream = std::function<torch::Tensor()>;

struct LabeledSplit {
  std::string name;
  std::vector<std::string> level_names;
  std::vector<std::vector<std::int64_t>> labels;  // labels[level][item]
  // The images of items idx as a float B x C x H x W batch in [0, 1] (or normalised); `train` picks the training
  // transform, `seed` seeds its random draws. In-memory splits ignore both.
  std::function<torch::Tensor(const std::vector<std::int64_t>& idx, bool train, std::uint64_t seed)> images;
  // File-backed splits: the epoch's batches (indices per batch, in order) decoded and transformed with the training
  // transform on the loader's worker threads, dataset.prefetch batches ahead of the trainer; each item's draws seeded
  // from (seed, epoch, batch, position). Null for in-memory splits: the trainer calls images() per batch.
  std::function<BatchStream(const std::vector<std::vector<std::int64_t>>& plan, std::uint64_t seed,
                            std::uint64_t epoch)>
      stream;
  std::int64_t size = 0;
  std::vector<std::string> paths;  // file-backed splits: each item's image file (the figures' nearest-neighbour grids)
  int level_index(const std::string& level) const;  // throws config_error naming the levels there are
  torch::Tensor level_labels(const std::string& level) const;
};

struct TrainingData {
  std::string description;       // one line: the dataset, its folder, the sizes
  LabeledSplit train;
  std::vector<LabeledSplit> eval;
  std::string default_train_level;
  int channels = 0;  // of the images (the model's input channels)
  // Retrieval protocols of separate query and gallery sets (In-shop: {"query", "gallery"}): the trainer ranks each
  // query set's items against the gallery set's and reports it as the set "<query>_to_<gallery>".
  std::vector<std::pair<std::string, std::string>> query_gallery;
  std::vector<std::string> eval_set_names() const;
  // An evaluation set by name, or the training split itself when named ([LCC] Table 4 evaluates on the training
  // alphabets); throws config_error naming the sets there are.
  const LabeledSplit& eval_set(const std::string& name) const;
};

// Loads the dataset of c.dataset (official layout in c.dataset.data_dir); the class-disjoint splits:
// - mnist-evenodd: [LCC] Sec 5.1, digits 0-5 train with parity labels (evenodd_split.hpp), eval sets train_digits
//   (held-out digits 0-5) and test_digits (digits 6-9); levels digit and parity.
// - mnist, fashion-mnist: idx files, classes 0-4 train (c.dataset.holdout of each held out: set heldout), classes
//   5-9 the set test; level class.
// - the image layouts (omniglot, cub200, cars196, sop, inshop, folder): see image_dataset.hpp.
// With dataset.folds >= 2, a fold of the training classes is the only evaluation set (class_folds.hpp).
TrainingData load_training_data(const RunConfig& c);
// The image layouts alone (image_dataset.hpp), decoded and transformed on the loader's threads. Splits: the layout's
// own (a folder tree: the first half of its classes trains, the rest is the set "test"); dataset.holdout of each
// training class (finest level) held out as the set "heldout"; the coarsest level trains by default. The input size
// dataset.image_size is required except for Omniglot (105 px); channels default to 1 for Omniglot, else 3.
// A set's evaluation images are decoded once and kept while they fit in 1 GiB (a random evaluation transform then
// keeps its first draws).
TrainingData load_image_layout(const RunConfig& c);

// dataset.transform_train / transform_eval: a preset (transform_presets.hpp) or a JSON list of transforms
// (image_transforms.hpp). Throws config_error naming `key`.
TransformPipeline transform_from_config(const std::string& spec, int image_size, int channels, const std::string& key);

}  // namespace dmlbench::experiments
