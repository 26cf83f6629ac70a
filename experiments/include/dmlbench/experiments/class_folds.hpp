// Class-disjoint folds of the training classes (Musgrave, Belongie and Lim, "A Metric Learning Reality Check",
// ECCV 2020, Sec 4: hyperparameters chosen on held-out training classes, never on the test classes).
#pragma once

#include "dmlbench/experiments/training_data.hpp"

#include <cstdint>
#include <map>
#include <vector>

namespace dmlbench::experiments {

// Each class's fold: the sorted distinct classes shuffled by a mt19937_64 seeded with `seed`, then dealt in turn into
// `folds` folds (sizes differ by at most one). Throws config_error when there are fewer classes than folds.
std::map<std::int64_t, int> fold_of_classes(const std::vector<std::int64_t>& labels, int folds, std::uint64_t seed);

// The rows `rows` of `s` as a split of its own, named `name`: labels, paths, images and the training stream read
// through to `s` (nothing is copied or decoded here).
LabeledSplit subset_split(const LabeledSplit& s, const std::vector<std::int64_t>& rows, const std::string& name);

// With c.dataset.folds >= 2: the training split's rows whose class at c.dataset.fold_level (default: the training
// level) falls in fold c.dataset.fold become the only evaluation set, "validation"; the other rows train (their
// training-level labels renumbered 0..K-1, as the readers give them). Every other
// evaluation set (the test classes, the held-out images) is dropped before anything reads its images. Throws
// config_error naming the fold when either side is left without rows.
void apply_class_folds(TrainingData& d, const RunConfig& c);

}  // namespace dmlbench::experiments
