// ResNet-18 and ResNet-50 (He et al. 2016) in torchvision 0.14's layout, with global average pooling and a linear
// embedding head in place of the classifier, as [LCC] Sec 5.2.2 and [XHN] Sec 6 (512-d) train them.
//
// Module and parameter names are torchvision's (conv1, bn1, layer1.0.conv1, ..., layer2.0.downsample.0/1), so the
// weights scripts/export_torchvision_weights.py writes load by name; the head is `embedding` (torchvision's `fc` is
// not built). BasicBlock (ResNet-18) and Bottleneck (ResNet-50, the stride on its 3x3 convolution: "ResNet v1.5", as
// torchvision) match torchvision's; conv1 takes any channel count (3 for pretrained weights). Initialisation as
// torchvision's: convolutions Kaiming-normal (fan_out, ReLU), batch norm weight 1 and bias 0, the head torch's
// default for Linear. tests/experiments/models/test_resnet_torchvision.cpp checks the forward against torchvision's.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace dmlbench::experiments {

// conv 3x3 (stride) -> BN -> ReLU -> conv 3x3 -> BN, plus the (downsampled) input, -> ReLU
struct BasicBlockImpl : torch::nn::Module {
  static constexpr std::int64_t expansion = 1;
  BasicBlockImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};  // conv 1x1 (stride) -> BN where the shape changes, else absent
};
TORCH_MODULE(BasicBlock);

// conv 1x1 -> BN -> ReLU -> conv 3x3 (stride) -> BN -> ReLU -> conv 1x1 (4 x planes) -> BN, plus the input, -> ReLU
struct BottleneckImpl : torch::nn::Module {
  static constexpr std::int64_t expansion = 4;
  BottleneckImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride);
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

struct ResNetImpl : torch::nn::Module {
  // depth 18 or 50 (anything else throws std::invalid_argument); embedding_dim >= 1; in_channels >= 1
  ResNetImpl(int depth, std::int64_t embedding_dim, std::int64_t in_channels = 3);
  torch::Tensor features(torch::Tensor x);  // B x C x H x W -> the globally pooled B x feature_dim (512 or 2048)
  torch::Tensor forward(torch::Tensor x);   // embedding(features(x)): B x embedding_dim

  int depth;
  std::int64_t in_channels, feature_dim;
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear embedding{nullptr};
};
TORCH_MODULE(ResNet);

}  // namespace dmlbench::experiments
