// The names of the datasets (dataset_kind.hpp): the one table of dataset.name.
#include "dmlbench/experiments/dataset_kind.hpp"

namespace dmlbench::experiments {

const NamedChoice<DatasetKind>& dataset_kinds() {
  static const NamedChoice<DatasetKind> table(
      "dataset", {{"mnist-evenodd", DatasetKind::mnist_evenodd}, {"mnist", DatasetKind::mnist},
                  {"fashion-mnist", DatasetKind::fashion_mnist}, {"omniglot", DatasetKind::omniglot},
                  {"cub200", DatasetKind::cub200}, {"cars196", DatasetKind::cars196}, {"sop", DatasetKind::sop},
                  {"inshop", DatasetKind::inshop}, {"folder", DatasetKind::folder}});
  return table;
}

bool is_image_layout(DatasetKind kind) {
  return kind != DatasetKind::mnist_evenodd && kind != DatasetKind::mnist && kind != DatasetKind::fashion_mnist;
}

std::vector<std::string> image_layout_names() {
  std::vector<std::string> out;
  for (const auto& name : dataset_kinds().names())
    if (is_image_layout(dataset_kinds().named(name))) out.push_back(name);
  return out;
}

}  // namespace dmlbench::experiments
