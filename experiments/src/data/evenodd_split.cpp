#include "dmlbench/experiments/evenodd_split.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

EvenOddSplit evenodd_split(const std::vector<int>& labels, double holdout_fraction, std::uint64_t seed) {
  if (!(holdout_fraction > 0 && holdout_fraction < 1))
    throw std::invalid_argument("--holdout must lie in (0, 1), got " + std::to_string(holdout_fraction));
  std::vector<std::vector<int>> by_digit(10);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] > 9)
      throw std::invalid_argument("digit label " + std::to_string(labels[i]) + " at index " + std::to_string(i));
    by_digit[std::size_t(labels[i])].push_back(int(i));
  }
  EvenOddSplit s;
  std::mt19937_64 rng(seed);
  for (int d = 0; d < 10; ++d) {
    auto& idx = by_digit[std::size_t(d)];
    if (d >= 6) {
      s.test_digits.insert(s.test_digits.end(), idx.begin(), idx.end());
      continue;
    }
    std::shuffle(idx.begin(), idx.end(), rng);
    const auto h = std::size_t(std::lround(holdout_fraction * double(idx.size())));
    s.heldout_train_digits.insert(s.heldout_train_digits.end(), idx.begin(), idx.begin() + long(h));
    s.train.insert(s.train.end(), idx.begin() + long(h), idx.end());
  }
  for (auto* v : {&s.train, &s.heldout_train_digits, &s.test_digits}) std::sort(v->begin(), v->end());
  return s;
}

}  // namespace dmlbench::experiments
