// The MNIST embedding network of [LCC] App. C: conv 3x3 (32) -> ReLU -> BN, conv 3x3 (64) -> ReLU -> BN,
// max-pool 2, dense 128 (ReLU), dense to the embedding size (2 in [LCC] Fig 2).
#pragma once

#include <torch/torch.h>

#include <string>

namespace dmlbench::experiments {

// How forward computes the same function: `stock` with torch::nn's modules as [LCC] App. C lists them; `fused` (the
// default) on CPU tensors with the first convolution written channels-last (single_channel_conv.hpp), each
// ReLU -> BN [-> max-pool] as one op (fused_relu_batch_norm.hpp) and the dense 128 layer on MKL-DNN's inner product
// rather than the generic BLAS. Elsewhere (CUDA) `fused` falls back to `stock`. The parameters, buffers and
// checkpoints are the same either way; the outputs agree to float rounding (tests/experiments/models/test_fused_kernels.cpp).
enum class NetKernels { stock, fused };
NetKernels parse_net_kernels(const std::string& name);  // "stock" | "fused"; anything else throws

struct MnistEmbeddingNetImpl : torch::nn::Module {
  explicit MnistEmbeddingNetImpl(int embedding_dim = 2, NetKernels kernels = NetKernels::fused);
  torch::Tensor forward(torch::Tensor x);  // x: B x 1 x 28 x 28 in [0, 1]

  NetKernels kernels;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(MnistEmbeddingNet);

}  // namespace dmlbench::experiments
