// The image layouts of a run config (omniglot, cub200, cars196, sop, inshop, folder) as training and evaluation sets.
#include "dmlbench/experiments/training_data.hpp"

namespace dmlbench::experiments {

TrainingData load_image_layout(const RunConfig& c) {
  throw config_error("dataset.name = " + c.dataset.name + ": this build reads only the idx datasets (mnist-evenodd, "
                     "mnist, fashion-mnist)");
}

}  // namespace dmlbench::experiments
