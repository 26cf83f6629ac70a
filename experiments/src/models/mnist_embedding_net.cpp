#include "dmlbench/experiments/mnist_embedding_net.hpp"

#include "dmlbench/experiments/fused_relu_batch_norm.hpp"
#include "dmlbench/experiments/single_channel_conv.hpp"

#include <ATen/Context.h>

#include <stdexcept>

namespace dmlbench::experiments {

NetKernels parse_net_kernels(const std::string& name) {
  if (name == "stock") return NetKernels::stock;
  if (name == "fused") return NetKernels::fused;
  throw std::invalid_argument("--kernels must be stock or fused, got '" + name + "'");
}

MnistEmbeddingNetImpl::MnistEmbeddingNetImpl(int embedding_dim, NetKernels k) : kernels(k) {
  conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3)));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(32));
  conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(64));
  fc1 = register_module("fc1", torch::nn::Linear(64 * 12 * 12, 128));
  fc2 = register_module("fc2", torch::nn::Linear(128, embedding_dim));
}

torch::Tensor MnistEmbeddingNetImpl::forward(torch::Tensor x) {
  if (x.dim() != 4 || x.size(1) != 1 || x.size(2) != 28 || x.size(3) != 28)
    throw std::invalid_argument("MnistEmbeddingNet: input must be B x 1 x 28 x 28, got " + std::to_string(x.dim()) +
                                "-D");
  if (kernels == NetKernels::fused && single_channel_conv2d_supported(x, conv1->weight)) {  // CPU float or double
    x = fused_relu_batch_norm(single_channel_conv2d(x, conv1->weight, conv1->bias), bn1);  // channels-last
    x = fused_relu_batch_norm_max_pool_flatten(conv2(x), bn2);  // B x (64 * 12 * 12), in flatten(1)'s NCHW order
    // dense 128 on MKL-DNN's inner product (the generic BLAS LibTorch links is several times slower at this size)
    if (x.scalar_type() == torch::kFloat32 && at::hasMKLDNN())
      x = at::mkldnn_linear(x.to_mkldnn(), fc1->weight, fc1->bias).to_dense();
    else
      x = fc1(x);
    return fc2(torch::relu(x));
  }
  x = bn1(torch::relu(conv1(x)));
  x = bn2(torch::relu(conv2(x)));
  x = torch::max_pool2d(x, 2).flatten(1);
  return fc2(torch::relu(fc1(x)));
}

}  // namespace dmlbench::experiments
