// The optimizers a run can use, named once (optimizer.name): Adam, and SGD with momentum.
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

namespace dmlbench::experiments {

enum class OptimizerKind { adam, sgd };

const NamedChoice<OptimizerKind>& optimizer_kinds();

}  // namespace dmlbench::experiments
