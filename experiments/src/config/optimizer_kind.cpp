// The names of the optimizers (optimizer_kind.hpp): the one table of optimizer.name.
#include "dmlbench/experiments/optimizer_kind.hpp"

namespace dmlbench::experiments {

const NamedChoice<OptimizerKind>& optimizer_kinds() {
  static const NamedChoice<OptimizerKind> table("optimizer", {{"adam", OptimizerKind::adam}, {"sgd", OptimizerKind::sgd}});
  return table;
}

}  // namespace dmlbench::experiments
