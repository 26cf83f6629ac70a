#include "dmlbench/experiments/single_channel_conv.hpp"

#include "cpu_kernel_support.hpp"

#include <ATen/Parallel.h>

#include <algorithm>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::experiments {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using Index = std::int64_t;

// Channels go in blocks of kLanes, each block's accumulators held in registers (a constant-length inner loop).
constexpr Index kLanes = 32;

struct Geometry {
  Index H, W, KH, KW, C;
  Index Ho() const { return H - KH + 1; }
  Index Wo() const { return W - KW + 1; }
  Index K() const { return KH * KW; }
};

// out (Ho*Wo rows of C) = bias + sum_k x_tap(k) wt_k, wt: K rows of C (the weight transposed)
template <typename T>
DMLBENCH_KERNEL void conv_image(const T* __restrict x, const T* __restrict wt, const T* __restrict bias,
                                T* __restrict out, Geometry g) {
  const Index C = g.C;
  for (Index oh = 0; oh < g.Ho(); ++oh)
    for (Index ow = 0; ow < g.Wo(); ++ow) {
      T* o = out + (oh * g.Wo() + ow) * C;
      Index c0 = 0;
      for (; c0 + kLanes <= C; c0 += kLanes) {
        T acc[kLanes];
        for (Index l = 0; l < kLanes; ++l) acc[l] = bias[c0 + l];
        for (Index ky = 0; ky < g.KH; ++ky)
          for (Index kx = 0; kx < g.KW; ++kx) {
            const T t = x[(oh + ky) * g.W + ow + kx];
            const T* w = wt + (ky * g.KW + kx) * C + c0;
            for (Index l = 0; l < kLanes; ++l) acc[l] += t * w[l];
          }
        for (Index l = 0; l < kLanes; ++l) o[c0 + l] = acc[l];
      }
      for (Index c = c0; c < C; ++c) {
        T acc = bias[c];
        for (Index k = 0; k < g.K(); ++k) acc += x[(oh + k / g.KW) * g.W + ow + k % g.KW] * wt[k * C + c];
        o[c] = acc;
      }
    }
}

// dwt[k][c] += sum_p x_tap(p, k) dy[p][c], db[c] += sum_p dy[p][c] over the positions p of one image (in T)
template <typename T>
DMLBENCH_KERNEL void weight_gradient_image(const T* __restrict x, const T* __restrict dy, T* __restrict dwt,
                                           T* __restrict db, Geometry g) {
  const Index C = g.C;
  for (Index oh = 0; oh < g.Ho(); ++oh)
    for (Index ow = 0; ow < g.Wo(); ++ow) {
      const T* d = dy + (oh * g.Wo() + ow) * C;
      for (Index c = 0; c < C; ++c) db[c] += d[c];
      for (Index ky = 0; ky < g.KH; ++ky)
        for (Index kx = 0; kx < g.KW; ++kx) {
          const T t = x[(oh + ky) * g.W + ow + kx];
          T* w = dwt + (ky * g.KW + kx) * C;
          for (Index c = 0; c < C; ++c) w[c] += t * d[c];
        }
    }
}

// dx[tap] += sum_c dy[p][c] wt[k][c], for a gradient through to the input (the network's input never needs one)
template <typename T>
DMLBENCH_KERNEL void input_gradient_image(const T* __restrict dy, const T* __restrict wt, T* __restrict dx,
                                          Geometry g) {
  const Index C = g.C;
  for (Index i = 0; i < g.H * g.W; ++i) dx[i] = T(0);
  for (Index oh = 0; oh < g.Ho(); ++oh)
    for (Index ow = 0; ow < g.Wo(); ++ow) {
      const T* d = dy + (oh * g.Wo() + ow) * C;
      for (Index k = 0; k < g.K(); ++k) {
        const T* w = wt + k * C;
        T s = T(0);
        for (Index c = 0; c < C; ++c) s += d[c] * w[c];
        dx[(oh + k / g.KW) * g.W + ow + k % g.KW] += s;
      }
    }
}

Geometry geometry(const torch::Tensor& x, const torch::Tensor& w) {
  return {x.size(2), x.size(3), w.size(2), w.size(3), w.size(0)};
}

// the weight as K rows of C (C x 1 x KH x KW -> K x C)
torch::Tensor transposed(const torch::Tensor& w) { return w.reshape({w.size(0), -1}).t().contiguous(); }

struct SingleChannelConv : torch::autograd::Function<SingleChannelConv> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    const auto xc = x.contiguous();
    const Geometry g = geometry(xc, weight);
    const Index N = xc.size(0);
    const auto wt = transposed(weight);
    const auto b = bias.defined() ? bias.contiguous() : torch::zeros({g.C}, weight.options());
    auto out = torch::empty({N, g.C, g.Ho(), g.Wo()}, xc.options().memory_format(at::MemoryFormat::ChannelsLast));
    AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "single_channel_conv2d", [&] {
      const auto* xp = xc.data_ptr<scalar_t>();
      auto* op = out.data_ptr<scalar_t>();
      at::parallel_for(0, N, 1, [&](Index n0, Index n1) {
        for (Index n = n0; n < n1; ++n)
          conv_image(xp + n * g.H * g.W, wt.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), op + n * g.Ho() * g.Wo() * g.C,
                     g);
      });
    });
    ctx->save_for_backward({xc, weight});
    ctx->saved_data["has_bias"] = bias.defined();
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& weight = saved[1];
    const Geometry g = geometry(x, weight);
    const Index N = x.size(0), per_image = g.Ho() * g.Wo() * g.C;
    const auto dy = grads[0].contiguous(at::MemoryFormat::ChannelsLast);
    torch::Tensor dx, dw, db;
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "single_channel_conv2d_backward", [&] {
      const auto* xp = x.data_ptr<scalar_t>();
      const auto* dyp = dy.data_ptr<scalar_t>();
      // per image in T, then over the images in double, in image order
      const auto sum = cpu::sum_over_images(N, (g.K() + 1) * g.C, [&](Index n, double* acc) {
        std::vector<scalar_t> img(static_cast<std::size_t>((g.K() + 1) * g.C), scalar_t(0));
        weight_gradient_image(xp + n * g.H * g.W, dyp + n * per_image, img.data(), img.data() + g.K() * g.C, g);
        std::copy(img.begin(), img.end(), acc);
      });
      const auto all = torch::tensor(sum, torch::TensorOptions().dtype(torch::kFloat64)).reshape({g.K() + 1, g.C});
      dw = all.slice(0, 0, g.K()).t().reshape(weight.sizes()).to(x.dtype()).contiguous();
      db = all[g.K()].to(x.dtype());
      if (ctx->needs_input_grad(0)) {
        dx = torch::empty_like(x);
        const auto wt = transposed(weight);
        auto* dxp = dx.data_ptr<scalar_t>();
        at::parallel_for(0, N, 1, [&](Index n0, Index n1) {
          for (Index n = n0; n < n1; ++n)
            input_gradient_image(dyp + n * per_image, wt.data_ptr<scalar_t>(), dxp + n * g.H * g.W, g);
        });
      }
    });
    return {dx, dw, ctx->saved_data["has_bias"].toBool() ? db : torch::Tensor()};
  }
};

}  // namespace

bool single_channel_conv2d_supported(const torch::Tensor& x, const torch::Tensor& w) {
  return x.defined() && w.defined() && x.dim() == 4 && w.dim() == 4 && x.device().is_cpu() && w.device().is_cpu() &&
         x.layout() == torch::kStrided && (x.scalar_type() == torch::kFloat32 || x.scalar_type() == torch::kFloat64) &&
         w.scalar_type() == x.scalar_type() && x.size(1) == 1 && w.size(1) == 1 && w.size(0) >= 1 &&
         w.size(2) >= 1 && w.size(3) >= 1 && x.size(2) >= w.size(2) && x.size(3) >= w.size(3);
}

torch::Tensor single_channel_conv2d(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (!single_channel_conv2d_supported(x, weight))
    throw std::invalid_argument("single_channel_conv2d: x must be N x 1 x H x W and weight C x 1 x KH x KW, float or "
                                "double on the CPU, the map no smaller than the kernel; got x " +
                                x.toString() + " " + std::to_string(x.dim()) + "-D, weight " + weight.toString() + " " +
                                std::to_string(weight.dim()) + "-D");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0) || bias.scalar_type() != x.scalar_type()))
    throw std::invalid_argument("single_channel_conv2d: bias must hold one value per output channel, of x's dtype");
  return SingleChannelConv::apply(x, weight, bias);
}

}  // namespace dmlbench::experiments
