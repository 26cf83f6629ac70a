#include "dmlbench/experiments/mnist_embedding_net.hpp"

namespace dmlbench::experiments {

MnistEmbeddingNetImpl::MnistEmbeddingNetImpl(int embedding_dim) {
  conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(32));
  conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(64));
  fc1 = register_module("fc1", torch::nn::Linear(64 * 12 * 12, 128));
  fc2 = register_module("fc2", torch::nn::Linear(128, embedding_dim));
}

torch::Tensor MnistEmbeddingNetImpl::forward(torch::Tensor x) {
  x = bn1(torch::relu(conv1(x)));
  x = bn2(torch::relu(conv2(x)));
  x = torch::max_pool2d(x, 2).flatten(1);
  return fc2(torch::relu(fc1(x)));
}

}  // namespace dmlbench::experiments
