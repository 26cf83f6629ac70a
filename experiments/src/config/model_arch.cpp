// The names of the embedding networks (model_arch.hpp): the one table of model.name.
#include "dmlbench/experiments/model_arch.hpp"

namespace dmlbench::experiments {

const NamedChoice<ModelArch>& model_archs() {
  static const NamedChoice<ModelArch> table("model", {{"lcc-mnist", ModelArch::lcc_mnist},
                                                     {"small-conv", ModelArch::small_conv},
                                                     {"resnet18", ModelArch::resnet18},
                                                     {"resnet50", ModelArch::resnet50}});
  return table;
}

}  // namespace dmlbench::experiments
