#include "dmlbench/experiments/small_conv_net.hpp"

#include "dmlbench/experiments/max_pool_2x2.hpp"

#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

SmallConvNetImpl::SmallConvNetImpl(std::int64_t embedding_dim, std::int64_t channels, std::int64_t width)
    : in_channels(channels) {
  if (embedding_dim < 1 || in_channels < 1 || width < 1)
    throw std::invalid_argument("small-conv: embedding_dim, in_channels and width must be >= 1, got " +
                                std::to_string(embedding_dim) + ", " + std::to_string(in_channels) + " and " +
                                std::to_string(width));
  for (int i = 0; i < 4; ++i) {
    const auto name = std::to_string(i + 1);
    convs.push_back(register_module(
        "conv" + name,
        torch::nn::Conv2d(torch::nn::Conv2dOptions(i == 0 ? in_channels : width, width, 3).padding(1).bias(false))));
    bns.push_back(register_module("bn" + name, torch::nn::BatchNorm2d(width)));
  }
  embedding = register_module("embedding", torch::nn::Linear(width, embedding_dim));
}

torch::Tensor SmallConvNetImpl::features(torch::Tensor x) {
  if (x.dim() != 4 || x.size(1) != in_channels || x.size(2) < 16 || x.size(3) < 16) {
    std::ostringstream got;
    got << x.sizes();
    throw std::invalid_argument("small-conv: input must be B x " + std::to_string(in_channels) +
                                " x H x W with H, W >= 16, got " + got.str());
  }
  for (std::size_t i = 0; i < convs.size(); ++i) x = relu_max_pool_2x2(bns[i](convs[i](x)));
  return torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
}

torch::Tensor SmallConvNetImpl::forward(torch::Tensor x) { return embedding(features(x)); }

}  // namespace dmlbench::experiments
