// The MNIST embedding network of [LCC] App. C: conv 3x3 (32) -> ReLU -> BN, conv 3x3 (64) -> ReLU -> BN,
// max-pool 2, dense 128 (ReLU), dense to the embedding size (2 in [LCC] Fig 2).
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

struct MnistEmbeddingNetImpl : torch::nn::Module {
  explicit MnistEmbeddingNetImpl(int embedding_dim = 2);
  torch::Tensor forward(torch::Tensor x);  // x: B x 1 x 28 x 28 in [0, 1]

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(MnistEmbeddingNet);

}  // namespace dmlbench::experiments
