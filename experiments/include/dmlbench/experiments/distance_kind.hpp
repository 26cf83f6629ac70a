// The distances a loss compares embeddings by (loss.distance): squared Euclidean ([LCC] Sec 3, [XHN] eq 28), Euclidean
// ([HTL] eq 3) and cosine 1 - S ([XHN] eq 1's S); named once, here, computed in
// embedding_distance.hpp.
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

namespace dmlbench::experiments {

enum class Distance { squared_euclidean, euclidean, cosine };

// "squared" | "euclidean" | "cosine": the values of loss.distance
const NamedChoice<Distance>& distances();

}  // namespace dmlbench::experiments
