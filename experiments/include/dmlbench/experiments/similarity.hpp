// How retrieval ranks a gallery for a query: cosine similarity or Euclidean distance (retrieval_metrics.hpp,
// retrieval_evaluation.hpp and the exact kNN engine share it).
#pragma once

namespace dmlbench::experiments {

enum class Similarity { cosine, euclidean };

}  // namespace dmlbench::experiments
