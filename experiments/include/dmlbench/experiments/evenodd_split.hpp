// The MNIST even/odd split of [LCC] Sec 5.1: train on digits 0-5 with parity labels; evaluate retrieval with digit
// labels on held-out images of digits 0-5 ("train digits") and on every image of digits 6-9 ("test digits").
#pragma once

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct EvenOddSplit {
  std::vector<int> train;                 // indices of digits 0-5 used for training
  std::vector<int> heldout_train_digits;  // held-out indices of digits 0-5
  std::vector<int> test_digits;           // indices of digits 6-9
};

// Per digit 0-5, round(holdout_fraction * count) images go to the held-out set (chosen by a seeded shuffle).
// Throws std::invalid_argument for holdout_fraction outside (0, 1) or a label outside 0-9.
EvenOddSplit evenodd_split(const std::vector<int>& digit_labels, double holdout_fraction, std::uint64_t seed);

inline int parity_label(int digit) { return digit % 2; }

}  // namespace dmlbench::experiments
