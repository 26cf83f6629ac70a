#include "dmlbench/experiments/class_balanced_sampler.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

ClassBalancedSampler::ClassBalancedSampler(const std::vector<int>& labels, int c, int n, std::uint64_t seed)
    : c_(c), n_(n), rng_(seed) {
  if (c < 1 || n < 1) throw std::invalid_argument("classes per batch and samples per class must be >= 1");
  std::map<int, std::vector<int>> m;
  for (std::size_t i = 0; i < labels.size(); ++i) m[labels[i]].push_back(int(i));
  for (auto& [label, idx] : m) {
    class_ids_.push_back(label);
    by_class_.push_back(std::move(idx));
  }
  if (int(by_class_.size()) < c)
    throw std::invalid_argument("a batch of " + std::to_string(c) + " classes needs that many classes, the data has " +
                                std::to_string(by_class_.size()));
  for (auto& v : by_class_) std::shuffle(v.begin(), v.end(), rng_);
  cursor_.assign(by_class_.size(), 0);
}

std::vector<int> ClassBalancedSampler::next_batch() {
  std::vector<std::size_t> classes(by_class_.size());
  for (std::size_t i = 0; i < classes.size(); ++i) classes[i] = i;
  std::shuffle(classes.begin(), classes.end(), rng_);
  std::vector<int> batch;
  for (int k = 0; k < c_; ++k) {
    const std::size_t cl = classes[std::size_t(k)];
    auto& items = by_class_[cl];
    for (int s = 0; s < n_; ++s) {
      if (cursor_[cl] == items.size()) {  // an epoch of this class is used up: reshuffle
        std::shuffle(items.begin(), items.end(), rng_);
        cursor_[cl] = 0;
      }
      batch.push_back(items[cursor_[cl]++]);
    }
  }
  return batch;
}

}  // namespace dmlbench::experiments
