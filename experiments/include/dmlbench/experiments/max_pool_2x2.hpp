// small-conv's 2 x 2 max pooling with stride 2 (floor mode), with torch::max_pool2d's values and gradients bit for bit
// (the stock NCHW kernel with int64 indices took a quarter of a glyph-proxy training step).
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

// With gradients, on the CPU in float32: an autograd op, one pass of a hand-written kernel that keeps each window's
// argmax in a byte. The stock op's rules: a tie goes to the window's first maximum (row-major), a NaN wins (the last
// one), the row or column that floor mode crops gets a zero gradient, and each gradient is 0 + dy as the stock
// backward adds it into zeros (so -0 becomes +0). With gradients elsewhere (CUDA, other types): torch::max_pool2d.
// Without gradients: the maximum of the four strided quarter maps (the same values).
torch::Tensor max_pool_2x2(const torch::Tensor& y);

// max_pool_2x2(torch::relu(y)) in one pass, the same values and gradients bit for bit, without the ReLU's map
// (small-conv's block ends in ReLU then pooling).
torch::Tensor relu_max_pool_2x2(const torch::Tensor& y);

}  // namespace dmlbench::experiments
