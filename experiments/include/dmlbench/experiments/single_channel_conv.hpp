// The first layer of the [LCC] App. C MNIST network on the CPU: a valid, stride-1 convolution of one-channel images
// written channels-last, so that the fused ReLU -> BN after it reads its rows in place (MKL-DNN writes this layer NCHW
// and is slow at its weight gradient with one input channel).
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

// Whether single_channel_conv2d takes (x, weight): CPU float or double, x N x 1 x H x W, weight C x 1 x KH x KW of
// x's dtype, the map at least the kernel's size.
bool single_channel_conv2d_supported(const torch::Tensor& x, const torch::Tensor& weight);

// torch::conv2d(x, weight, bias) (stride 1, no padding, one input channel): N x C x (H-KH+1) x (W-KW+1),
// channels-last. Differentiable in x, weight and bias. Throws std::invalid_argument where not supported.
torch::Tensor single_channel_conv2d(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace dmlbench::experiments
