#include "dmlbench/experiments/small_conv_net.hpp"

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

namespace {

// 2 x 2 max pooling (floor mode). Without gradients (evaluation), the elementwise maximum of the four strided quarter
// maps: the values of torch::max_pool2d (a NaN wins there too), whose NCHW kernel with indices took a third of an
// embedding pass (issue 30's profile). With gradients the stock op, whose backward sends a tie to the first maximum.
torch::Tensor max_pool_2x2(const torch::Tensor& y) {
  if (torch::GradMode::is_enabled() && y.requires_grad()) return torch::max_pool2d(y, 2);
  using torch::indexing::Slice;
  const auto h = y.size(2) / 2 * 2, w = y.size(3) / 2 * 2;
  const auto q = [&](std::int64_t a, std::int64_t b) {
    return y.index({Slice(), Slice(), Slice(a, h, 2), Slice(b, w, 2)});
  };
  return torch::maximum(torch::maximum(q(0, 0), q(0, 1)), torch::maximum(q(1, 0), q(1, 1)));
}

}  // namespace

torch::Tensor SmallConvNetImpl::features(torch::Tensor x) {
  if (x.dim() != 4 || x.size(1) != in_channels || x.size(2) < 16 || x.size(3) < 16) {
    std::ostringstream got;
    got << x.sizes();
    throw std::invalid_argument("small-conv: input must be B x " + std::to_string(in_channels) +
                                " x H x W with H, W >= 16, got " + got.str());
  }
  for (std::size_t i = 0; i < convs.size(); ++i) x = max_pool_2x2(torch::relu(bns[i](convs[i](x))));
  return torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
}

torch::Tensor SmallConvNetImpl::forward(torch::Tensor x) { return embedding(features(x)); }

}  // namespace dmlbench::experiments
