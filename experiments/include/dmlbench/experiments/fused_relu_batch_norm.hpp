// ReLU then batch normalisation (and optionally 2x2 max pooling flattened in NCHW order) as one autograd op on the
// CPU: the conv -> ReLU -> BN [-> max-pool] blocks of the [LCC] App. C MNIST network, fused so that the forward and
// backward passes read each activation map a few times instead of once per stock operator.
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

// Whether the fused kernels take x: a 4-D float or double tensor on the CPU. Elsewhere (CUDA) use the stock ops.
bool fused_relu_batch_norm_supported(const torch::Tensor& x);

// bn(relu(x)) with bn's parameters and running statistics, exactly as torch::nn::BatchNorm2d computes it: batch
// statistics and a running-statistics update (momentum, unbiased variance, num_batches_tracked + 1) when bn is in
// training mode, the running statistics in eval mode. x: N x C x H x W, read in place when channels-last or
// NCHW-contiguous (its gradient comes back in the same layout); the result is channels-last. Differentiable in x,
// bn->weight and bn->bias.
torch::Tensor fused_relu_batch_norm(const torch::Tensor& x, torch::nn::BatchNorm2d& bn);

// max_pool2d(bn(relu(x)), 2).flatten(1): N x (C * floor(H/2) * floor(W/2)), in the order flatten gives an NCHW map
// (so a dense layer after it sees the same features as in the stock network). Ties go to the first maximum in
// row-major window order and a NaN wins, as in torch::max_pool2d.
torch::Tensor fused_relu_batch_norm_max_pool_flatten(const torch::Tensor& x, torch::nn::BatchNorm2d& bn);

}  // namespace dmlbench::experiments
