// What the batch miner ranks a batch's pairs by (miner.similarity): the loss's own comparison (auto), the cosine, or
// minus the squared distance; named once, here.
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

namespace dmlbench::experiments {

enum class MinerSimilarity { automatic, cosine, neg_squared_distance };

// "auto" | "cosine" | "neg-squared-distance": the values of miner.similarity
const NamedChoice<MinerSimilarity>& miner_similarities();

}  // namespace dmlbench::experiments
