// A small convolutional embedding network for 28-80 px images of any channel count: the "Conv-4" backbone of few-shot
// learning (Vinyals et al. 2016, Matching Networks; Snell et al. 2017, Prototypical Networks, Sec 3.1) — four blocks
// of conv 3x3 (64 channels, padding 1, no bias) -> BN -> ReLU -> max-pool 2 — then global average pooling and a
// linear embedding head `embedding`. 112k backbone parameters (one input channel): a few minutes per run on 2 CPU
// cores. Inputs need at least 16 x 16 px (four halvings); 28 px gives 1 x 1 maps before pooling, 80 px 5 x 5.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct SmallConvNetImpl : torch::nn::Module {
  // embedding_dim >= 1, in_channels >= 1, width >= 1 (channels of every block); else std::invalid_argument
  SmallConvNetImpl(std::int64_t embedding_dim, std::int64_t in_channels = 1, std::int64_t width = 64);
  torch::Tensor features(torch::Tensor x);  // B x in_channels x H x W (H, W >= 16) -> B x width
  torch::Tensor forward(torch::Tensor x);   // embedding(features(x)): B x embedding_dim

  std::int64_t in_channels;
  std::vector<torch::nn::Conv2d> convs;     // registered as conv1 .. conv4
  std::vector<torch::nn::BatchNorm2d> bns;  // bn1 .. bn4
  torch::nn::Linear embedding{nullptr};
};
TORCH_MODULE(SmallConvNet);

}  // namespace dmlbench::experiments
