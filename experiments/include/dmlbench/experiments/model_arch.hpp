// The embedding networks a run can build, named once (model.name): lcc-mnist ([LCC] App. C,
// mnist_embedding_net.hpp), small-conv (small_conv_net.hpp), resnet18 and resnet50 (resnet.hpp, torchvision layout).
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

namespace dmlbench::experiments {

enum class ModelArch { lcc_mnist, small_conv, resnet18, resnet50 };

// Their names, in the schema's order.
const NamedChoice<ModelArch>& model_archs();

}  // namespace dmlbench::experiments
