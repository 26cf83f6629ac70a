// Class-balanced batches of c classes x n samples per class ([XHN] Sec 6 "n examples from c classes", [LCC] App. C),
// seeded. Torch-free: yields index lists.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace dmlbench::experiments {

class ClassBalancedSampler {
 public:
  // labels: one per dataset item. Throws std::invalid_argument when fewer than c classes have at least one item, or
  // c, n < 1. A class with fewer than n items is sampled with replacement within the batch only as far as it must be.
  ClassBalancedSampler(const std::vector<int>& labels, int classes_per_batch, int samples_per_class, std::uint64_t seed);
  std::vector<int> next_batch();
  int batch_size() const { return c_ * n_; }

 private:
  std::vector<std::vector<int>> by_class_;
  std::vector<std::size_t> cursor_;
  std::vector<int> class_ids_;
  int c_, n_;
  std::mt19937_64 rng_;
};

}  // namespace dmlbench::experiments
