// How retrieval ranks a gallery for a query: cosine similarity or Euclidean distance (retrieval_metrics.hpp,
// retrieval_evaluation.hpp and the exact kNN engine share it); named once (eval.metric, `dmlbench eval --metric`).
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

namespace dmlbench::experiments {

enum class Similarity { cosine, euclidean };

const NamedChoice<Similarity>& similarities();

}  // namespace dmlbench::experiments
