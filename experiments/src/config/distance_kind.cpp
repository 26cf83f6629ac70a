// The names of the losses' distances (distance_kind.hpp): the one table of loss.distance.
#include "dmlbench/experiments/distance_kind.hpp"

namespace dmlbench::experiments {

const NamedChoice<Distance>& distances() {
  static const NamedChoice<Distance> table(
      "distance", {{"squared", Distance::squared_euclidean}, {"euclidean", Distance::euclidean}, {"cosine", Distance::cosine}});
  return table;
}

}  // namespace dmlbench::experiments
