#include "dmlbench/experiments/resnet.hpp"

#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace {

namespace nn = torch::nn;

nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

// torchvision's `downsample`: conv 1x1 (stride) -> BN where the block changes the shape, else an empty holder
nn::Sequential downsample_if_needed(nn::Module& block, std::int64_t inplanes, std::int64_t out, std::int64_t stride) {
  if (stride == 1 && inplanes == out) return nullptr;
  return block.register_module("downsample", nn::Sequential(conv(inplanes, out, 1, stride), nn::BatchNorm2d(out)));
}

torch::Tensor shortcut(nn::Sequential downsample, const torch::Tensor& x) {
  return downsample.is_empty() ? x : downsample->forward(x);
}

template <class Block>
nn::Sequential make_layer(std::int64_t& inplanes, std::int64_t planes, int blocks, std::int64_t stride) {
  nn::Sequential layer;
  for (int b = 0; b < blocks; ++b) {
    layer->push_back(Block(inplanes, planes, b == 0 ? stride : 1));
    inplanes = planes * Block::ContainedType::expansion;
  }
  return layer;
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride) {
  conv1 = register_module("conv1", conv(inplanes, planes, 3, stride));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", conv(planes, planes, 3, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(planes));
  downsample = downsample_if_needed(*this, inplanes, planes * expansion, stride);
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x) {
  auto out = torch::relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  return torch::relu(out + shortcut(downsample, x));
}

BottleneckImpl::BottleneckImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride) {
  conv1 = register_module("conv1", conv(inplanes, planes, 1, 1));
  bn1 = register_module("bn1", nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", conv(planes, planes, 3, stride));
  bn2 = register_module("bn2", nn::BatchNorm2d(planes));
  conv3 = register_module("conv3", conv(planes, planes * expansion, 1, 1));
  bn3 = register_module("bn3", nn::BatchNorm2d(planes * expansion));
  downsample = downsample_if_needed(*this, inplanes, planes * expansion, stride);
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  auto out = torch::relu(bn1(conv1(x)));
  out = torch::relu(bn2(conv2(out)));
  out = bn3(conv3(out));
  return torch::relu(out + shortcut(downsample, x));
}

ResNetImpl::ResNetImpl(int d, std::int64_t embedding_dim, std::int64_t channels) : depth(d), in_channels(channels) {
  if (depth != 18 && depth != 50)
    throw std::invalid_argument("ResNet depth must be 18 or 50, got " + std::to_string(depth));
  if (embedding_dim < 1 || in_channels < 1)
    throw std::invalid_argument("resnet" + std::to_string(depth) + ": embedding_dim and in_channels must be >= 1, got " +
                                std::to_string(embedding_dim) + " and " + std::to_string(in_channels));
  conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in_channels, 64, 7).stride(2).padding(3).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(64));
  std::int64_t inplanes = 64;
  const int blocks[4] = {depth == 18 ? 2 : 3, depth == 18 ? 2 : 4, depth == 18 ? 2 : 6, depth == 18 ? 2 : 3};
  nn::Sequential* layers[4] = {&layer1, &layer2, &layer3, &layer4};
  for (int i = 0; i < 4; ++i) {
    const std::int64_t planes = 64 << i, stride = i == 0 ? 1 : 2;
    *layers[i] = register_module("layer" + std::to_string(i + 1),
                                 depth == 18 ? make_layer<BasicBlock>(inplanes, planes, blocks[i], stride)
                                             : make_layer<Bottleneck>(inplanes, planes, blocks[i], stride));
  }
  feature_dim = inplanes;
  embedding = register_module("embedding", nn::Linear(feature_dim, embedding_dim));
  torch::NoGradGuard no_grad;
  for (auto& m : modules(/*include_self=*/false))
    if (auto* c = m->as<nn::Conv2d>()) nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
}

torch::Tensor ResNetImpl::features(torch::Tensor x) {
  if (x.dim() != 4 || x.size(1) != in_channels) {
    std::ostringstream got;
    got << x.sizes();
    throw std::invalid_argument("resnet" + std::to_string(depth) + ": input must be B x " + std::to_string(in_channels) +
                                " x H x W, got " + got.str());
  }
  x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 3, 2, 1);
  x = layer4->forward(layer3->forward(layer2->forward(layer1->forward(x))));
  return torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
}

torch::Tensor ResNetImpl::forward(torch::Tensor x) { return embedding(features(x)); }

}  // namespace dmlbench::experiments
