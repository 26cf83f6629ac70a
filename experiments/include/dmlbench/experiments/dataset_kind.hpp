// The datasets a run can train on, named once (dataset.name): the idx files (mnist-evenodd, [LCC]
// Sec 5.1; mnist and fashion-mnist, classes 0-4 train and 5-9 test) and the official image layouts (omniglot, cub200,
// cars196, sop, inshop, folder; image_dataset.hpp reads them).
#pragma once

#include "dmlbench/experiments/named_choice.hpp"

#include <string>
#include <vector>

namespace dmlbench::experiments {

enum class DatasetKind { mnist_evenodd, mnist, fashion_mnist, omniglot, cub200, cars196, sop, inshop, folder };

const NamedChoice<DatasetKind>& dataset_kinds();
// An image layout (read by image_dataset.hpp), not idx files.
bool is_image_layout(DatasetKind kind);
// The image layouts' names, in the table's order.
std::vector<std::string> image_layout_names();

}  // namespace dmlbench::experiments
