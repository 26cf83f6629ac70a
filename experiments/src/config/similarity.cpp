// The names of the retrieval rankings (similarity.hpp): the one table of eval.metric.
#include "dmlbench/experiments/similarity.hpp"

namespace dmlbench::experiments {

const NamedChoice<Similarity>& similarities() {
  static const NamedChoice<Similarity> table("metric", {{"cosine", Similarity::cosine}, {"euclidean", Similarity::euclidean}});
  return table;
}

}  // namespace dmlbench::experiments
