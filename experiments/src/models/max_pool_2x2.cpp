// 2 x 2 max pooling with torch::max_pool2d's values and gradients bit for bit (max_pool_2x2.hpp).
#include "dmlbench/experiments/max_pool_2x2.hpp"

#include "cpu_kernel_support.hpp"

#include <ATen/Parallel.h>

#include <cstdint>

namespace dmlbench::experiments {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using Index = std::int64_t;

// torch::relu's value: a < 0 ? 0 : a (a NaN and -0 stay as they are, as its vectorised max(0, a) leaves them).
inline float relu(float a) { return a < 0.0f ? 0.0f : a; }

// One H x W plane into OH x OW maxima and each window's argmax 0-3 (row-major) in code. The stock
// kernel's scan: the first element, then each later one that is greater or NaN. With `with_relu`, the scan runs over
// relu(v), as torch::max_pool2d(torch::relu(y)) does, and code 4 marks a maximum <= 0, whose gradient relu's
// backward stops (threshold_backward: relu(v) <= 0 gives 0).
DMLBENCH_KERNEL void pool_plane(const float* __restrict in, Index W, Index OH, Index OW, bool with_relu,
                                float* __restrict out, std::uint8_t* __restrict code) {
  for (Index oh = 0; oh < OH; ++oh) {
    const float* r0 = in + 2 * oh * W;
    const float* r1 = r0 + W;
    for (Index ow = 0; ow < OW; ++ow) {
      float v[4] = {r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1]};
      if (with_relu)
        for (float& a : v) a = relu(a);
      float m = v[0];
      std::uint8_t k = 0;
      for (std::uint8_t j = 1; j < 4; ++j) {
        const bool take = (v[j] > m) | (v[j] != v[j]);
        m = take ? v[j] : m;
        k = take ? j : k;
      }
      out[oh * OW + ow] = m;
      code[oh * OW + ow] = with_relu && m <= 0.0f ? 4 : k;
    }
  }
}

// The gradient of one plane: each window's dy at its argmax (0 + dy, as the stock backward adds into zeros), zero
// at the other three and on the row and column that floor mode cropped.
DMLBENCH_KERNEL void unpool_plane(const float* __restrict dy, const std::uint8_t* __restrict code, Index H, Index W,
                                  Index OH, Index OW, float* __restrict dx) {
  for (Index oh = 0; oh < OH; ++oh) {
    float* r0 = dx + 2 * oh * W;
    float* r1 = r0 + W;
    for (Index ow = 0; ow < OW; ++ow) {
      const float g = 0.0f + dy[oh * OW + ow];
      const std::uint8_t k = code[oh * OW + ow];  // 4: none
      r0[2 * ow] = k == 0 ? g : 0.0f;
      r0[2 * ow + 1] = k == 1 ? g : 0.0f;
      r1[2 * ow] = k == 2 ? g : 0.0f;
      r1[2 * ow + 1] = k == 3 ? g : 0.0f;
    }
    if (W > 2 * OW) r0[W - 1] = r1[W - 1] = 0.0f;
  }
  for (Index i = 2 * OH * W; i < H * W; ++i) dx[i] = 0.0f;
}

// out and code of every plane of the contiguous N x C x H x W x, planes in parallel.
void pool_planes(const torch::Tensor& x, bool with_relu, torch::Tensor& out, std::uint8_t* code) {
  const Index H = x.size(2), W = x.size(3), OH = H / 2, OW = W / 2;
  const float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, x.size(0) * x.size(1), 1, [&](Index p0, Index p1) {
    for (Index p = p0; p < p1; ++p)
      pool_plane(in + p * H * W, W, OH, OW, with_relu, o + p * OH * OW, code + p * OH * OW);
  });
}

struct MaxPool2x2 : torch::autograd::Function<MaxPool2x2> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& y, bool with_relu) {
    const auto x = y.contiguous();
    auto out = torch::empty({x.size(0), x.size(1), x.size(2) / 2, x.size(3) / 2}, x.options());
    auto code = torch::empty(out.sizes(), x.options().dtype(torch::kUInt8));
    pool_planes(x, with_relu, out, code.data_ptr<std::uint8_t>());
    ctx->save_for_backward({code});
    ctx->saved_data["H"] = x.size(2);
    ctx->saved_data["W"] = x.size(3);
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto code = ctx->get_saved_variables()[0];
    const auto dy = grads[0].contiguous();
    const Index H = ctx->saved_data["H"].toInt(), W = ctx->saved_data["W"].toInt();
    const Index OH = code.size(2), OW = code.size(3);
    auto dx = torch::empty({code.size(0), code.size(1), H, W}, dy.options());
    const float* g = dy.data_ptr<float>();
    const std::uint8_t* k = code.data_ptr<std::uint8_t>();
    float* d = dx.data_ptr<float>();
    at::parallel_for(0, code.size(0) * code.size(1), 1, [&](Index p0, Index p1) {
      for (Index p = p0; p < p1; ++p) unpool_plane(g + p * OH * OW, k + p * OH * OW, H, W, OH, OW, d + p * H * W);
    });
    return {dx, torch::Tensor()};
  }
};

torch::Tensor pool(const torch::Tensor& y, bool with_relu) {
  const bool grad = torch::GradMode::is_enabled() && y.requires_grad();
  // Without gradients the quarter maps below: LibTorch's vectorised maximum took 13% less time over the glyph proxy's
  // curve embeddings than this scalar kernel.
  if (grad && y.dim() == 4 && y.device().is_cpu() && y.scalar_type() == torch::kFloat32 && y.size(2) >= 2 &&
      y.size(3) >= 2)
    return MaxPool2x2::apply(y, with_relu);
  const auto r = with_relu ? torch::relu(y) : y;
  if (grad) return torch::max_pool2d(r, 2);
  using torch::indexing::Slice;
  const auto h = r.size(2) / 2 * 2, w = r.size(3) / 2 * 2;
  const auto q = [&](std::int64_t a, std::int64_t b) {
    return r.index({Slice(), Slice(), Slice(a, h, 2), Slice(b, w, 2)});
  };
  return torch::maximum(torch::maximum(q(0, 0), q(0, 1)), torch::maximum(q(1, 0), q(1, 1)));
}

}  // namespace

torch::Tensor max_pool_2x2(const torch::Tensor& y) { return pool(y, false); }

torch::Tensor relu_max_pool_2x2(const torch::Tensor& y) { return pool(y, true); }

}  // namespace dmlbench::experiments
