#include "dmlbench/experiments/fused_relu_batch_norm.hpp"

#include "cpu_kernel_support.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dmlbench::experiments {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

using Index = std::int64_t;

template <typename T>
inline T relu(T v) { return v < T(0) ? T(0) : v; }  // a NaN stays NaN, as torch::relu

// ---- per-image kernels; an image is `rows` = H*W rows of C channels (channels-last), all pointers distinct ----

// rows x C from the C x rows planes of an NCHW image
template <typename T>
DMLBENCH_KERNEL void planes_to_rows(const T* __restrict planes, T* __restrict rows_out, Index rows, Index C) {
  for (Index c = 0; c < C; ++c)
    for (Index r = 0; r < rows; ++r) rows_out[r * C + c] = planes[c * rows + r];
}

template <typename T>
DMLBENCH_KERNEL void rows_to_planes(const T* __restrict rows_in, T* __restrict planes, Index rows, Index C) {
  for (Index c = 0; c < C; ++c)
    for (Index r = 0; r < rows; ++r) planes[c * rows + r] = rows_in[r * C + c];
}

// Sums run over rows in blocks of kBlock, in T and vectorised over channels, each block then added into double.
constexpr Index kBlock = 16;

// With v = relu(x) - centre: acc[c] += sum_r u_rc, acc[C + c] += sum_r u_rc v_rc, where u = dy, or u = v when dy is
// null (the forward's moments; the backward's sums of dy and dy xhat). buf: 2C scratch.
template <typename T>
DMLBENCH_KERNEL void centred_sums(const T* __restrict dy, const T* __restrict x, Index rows, Index C,
                                  const T* __restrict centre, double* __restrict acc, T* __restrict buf) {
  T* __restrict b1 = buf;
  T* __restrict b2 = buf + C;
  for (Index r0 = 0; r0 < rows; r0 += kBlock) {
    for (Index c = 0; c < 2 * C; ++c) buf[c] = T(0);
    const Index r1 = r0 + kBlock < rows ? r0 + kBlock : rows;
    for (Index r = r0; r < r1; ++r)
      for (Index c = 0; c < C; ++c) {
        const T v = relu(x[r * C + c]) - centre[c];
        const T u = dy ? dy[r * C + c] : v;
        b1[c] += u;
        b2[c] += u * v;
      }
    for (Index c = 0; c < C; ++c) {
      acc[c] += double(b1[c]);
      acc[C + c] += double(b2[c]);
    }
  }
}

// y = relu(x) a + b
template <typename T>
DMLBENCH_KERNEL void normalise_rows(const T* __restrict x, T* __restrict y, Index rows, Index C,
                                    const T* __restrict a, const T* __restrict b) {
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < C; ++c) y[r * C + c] = relu(x[r * C + c]) * a[c] + b[c];
}

// 2x2 max pooling of y = relu(x) a + b without storing y. pooled and won: Ho*Wo rows of C; won holds the winning
// position of each window (0..3, row-major; in T so that the backward selects with vector compares). The first
// maximum wins, as in torch::max_pool2d; a NaN anywhere in a window makes its maximum NaN.
template <typename T>
DMLBENCH_KERNEL void pool_rows(const T* __restrict x, Index H, Index W, Index C, const T* __restrict a,
                               const T* __restrict b, T* __restrict pooled, T* __restrict won) {
  const Index Ho = H / 2, Wo = W / 2;
  for (Index oh = 0; oh < Ho; ++oh)
    for (Index ow = 0; ow < Wo; ++ow) {
      const T* r0 = x + ((2 * oh) * W + 2 * ow) * C;
      const T* r2 = r0 + W * C;
      T* best = pooled + (oh * Wo + ow) * C;
      T* arg = won + (oh * Wo + ow) * C;
      for (Index c = 0; c < C; ++c) {
        const T v0 = relu(r0[c]) * a[c] + b[c], v1 = relu(r0[C + c]) * a[c] + b[c];
        const T v2 = relu(r2[c]) * a[c] + b[c], v3 = relu(r2[C + c]) * a[c] + b[c];
        T m = v0, i = T(0);
        i = v1 > m ? T(1) : i;
        m = v1 > m ? v1 : m;
        i = v2 > m ? T(2) : i;
        m = v2 > m ? v2 : m;
        i = v3 > m ? T(3) : i;
        m = v3 > m ? v3 : m;
        const T sum = v0 + v1 + v2 + v3;  // NaN exactly when some v is NaN (or infinities of both signs meet)
        best[c] = sum != sum ? sum : m;
        arg[c] = i;
      }
    }
}

// The gradient at y = bn(relu(x)) of one image from the gradient at its pooled map (gp, Ho*Wo rows of C): a window's
// gradient goes to the position that won it; every other position gets 0, the last row or column of an odd-sized
// map (in no window) included.
template <typename T>
DMLBENCH_KERNEL void unpool_rows(const T* __restrict gp, const T* __restrict won, Index H, Index W, Index C,
                                 T* __restrict dy) {
  const Index Ho = H / 2, Wo = W / 2;
  for (Index h = 0; h < H; ++h)
    for (Index w = 0; w < W; ++w) {
      T* d = dy + (h * W + w) * C;
      if (h / 2 >= Ho || w / 2 >= Wo) {
        for (Index c = 0; c < C; ++c) d[c] = T(0);
        continue;
      }
      const T k = T((h % 2) * 2 + w % 2);
      const T* g = gp + ((h / 2) * Wo + w / 2) * C;
      const T* arg = won + ((h / 2) * Wo + w / 2) * C;
      for (Index c = 0; c < C; ++c) {
        const T v = g[c];  // loaded before the select, so that it compiles to a vector blend
        d[c] = arg[c] == k ? v : T(0);
      }
    }
}

// dx = [x > 0] a (dy - mdy - (relu(x) - mean) k): the batch-norm backward (mdy = mean dy, k = invstd^2 mean(dy
// (relu(x) - mean)); both 0 with running statistics) through the ReLU. threshold_backward's mask: the gradient stops
// where x <= 0 (a NaN passes, as in torch).
template <typename T>
DMLBENCH_KERNEL void relu_bn_backward_rows(const T* __restrict dy, const T* __restrict x, T* __restrict dx, Index rows,
                                           Index C, const T* __restrict a, const T* __restrict mdy,
                                           const T* __restrict mean, const T* __restrict k) {
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < C; ++c) {
      const T v = x[r * C + c], d = a[c] * (dy[r * C + c] - mdy[c] - (v - mean[c]) * k[c]);
      dx[r * C + c] = v <= T(0) ? T(0) : d;
    }
}

// ---- drivers ----

struct Shape {
  Index N, C, H, W;
  bool channels_last;  // x's layout: N x H x W x C, or else N x C x H x W
  Index rows() const { return H * W; }  // per image
  Index Ho() const { return H / 2; }
  Index Wo() const { return W / 2; }
};

Shape shape_of(const torch::Tensor& x) {
  return {x.size(0), x.size(1), x.size(2), x.size(3), x.is_contiguous(at::MemoryFormat::ChannelsLast)};
}

// x as given (channels-last or NCHW-contiguous, whichever it already is, so that no layout copy is made)
torch::Tensor in_place_layout(const torch::Tensor& x) {
  return x.is_contiguous(at::MemoryFormat::ChannelsLast) ? x : x.contiguous();
}

// Image n of x as rows: x itself when it is channels-last, else its transpose into buf (an image stays in cache).
template <typename T>
const T* image_rows(const T* x, Index n, const Shape& s, std::vector<T>& buf) {
  const Index size = s.rows() * s.C;
  if (s.channels_last) return x + n * size;
  buf.resize(static_cast<std::size_t>(size));
  planes_to_rows(x + n * size, buf.data(), s.rows(), s.C);
  return buf.data();
}

std::vector<double> as_doubles(const torch::Tensor& t) {
  const auto d = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); }

// The normalisation's per-channel mean and 1/sqrt(var + eps) (batch statistics, or the running ones in eval), and
// y = relu(x) a + b with a = weight invstd, b = bias - mean a.
struct Normalisation {
  std::vector<double> mean, invstd, a, b;
};

template <typename T>
Normalisation normalisation(const T* x, const Shape& s, torch::nn::BatchNorm2d& bn, bool training) {
  const auto cn = static_cast<std::size_t>(s.C);
  Normalisation z;
  z.mean.resize(cn);
  z.invstd.resize(cn);
  const double eps = bn->options.eps();
  const auto rm = as_doubles(bn->running_mean), rv = as_doubles(bn->running_var);
  if (training) {
    // shifted sums (shift: the running mean, rounded to T) keep E[(r-K)^2] - E[r-K]^2 free of cancellation
    const auto shift = as<T>(rm);
    const auto sums = cpu::sum_over_images(s.N, 2 * s.C, [&](Index n, double* acc) {
      std::vector<T> xbuf, buf(2 * cn);
      centred_sums<T>(nullptr, image_rows(x, n, s, xbuf), s.rows(), s.C, shift.data(), acc, buf.data());
    });
    const double M = double(s.N * s.rows());
    std::vector<double> unbiased(cn);
    for (std::size_t c = 0; c < cn; ++c) {
      const double s1 = sums[c], s2 = sums[cn + c];
      const double var = std::max(0.0, (s2 - s1 * s1 / M) / M);
      z.mean[c] = double(shift[c]) + s1 / M;
      z.invstd[c] = 1.0 / std::sqrt(var + eps);
      unbiased[c] = M > 1 ? var * M / (M - 1) : var;
    }
    // running statistics, as torch::nn::BatchNorm2d updates them
    torch::NoGradGuard no_grad;
    double factor = bn->options.momentum().value_or(0.0);
    if (bn->num_batches_tracked.defined()) {
      bn->num_batches_tracked += 1;
      if (!bn->options.momentum()) factor = 1.0 / bn->num_batches_tracked.item<double>();
    }
    const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    const auto mean_t = torch::from_blob(z.mean.data(), {s.C}, opts).to(bn->running_mean.dtype());
    const auto var_t = torch::from_blob(unbiased.data(), {s.C}, opts).to(bn->running_var.dtype());
    bn->running_mean.mul_(1 - factor).add_(mean_t, factor);
    bn->running_var.mul_(1 - factor).add_(var_t, factor);
  } else {
    for (std::size_t c = 0; c < cn; ++c) {
      z.mean[c] = rm[c];
      z.invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
    }
  }
  const auto w = as_doubles(bn->weight), bi = as_doubles(bn->bias);
  z.a.resize(cn);
  z.b.resize(cn);
  for (std::size_t c = 0; c < cn; ++c) {
    z.a[c] = w[c] * z.invstd[c];
    z.b[c] = bi[c] - z.mean[c] * z.a[c];
  }
  return z;
}

// y (channels-last) = relu(x) a + b
template <typename T>
void normalise(const T* x, T* y, const Shape& s, const Normalisation& z) {
  const auto a = as<T>(z.a), b = as<T>(z.b);
  at::parallel_for(0, s.N, 1, [&](Index n0, Index n1) {
    std::vector<T> xbuf;
    for (Index n = n0; n < n1; ++n)
      normalise_rows(image_rows(x, n, s, xbuf), y + n * s.rows() * s.C, s.rows(), s.C, a.data(), b.data());
  });
}

// out: N x (C Ho Wo) in NCHW flatten order; won: N x Ho x Wo x C
template <typename T>
void normalise_max_pool(const T* x, T* out, T* won, const Shape& s, const Normalisation& z) {
  const auto a = as<T>(z.a), b = as<T>(z.b);
  const Index pooled_size = s.Ho() * s.Wo() * s.C;
  at::parallel_for(0, s.N, 1, [&](Index n0, Index n1) {
    std::vector<T> xbuf, pooled(static_cast<std::size_t>(pooled_size));
    for (Index n = n0; n < n1; ++n) {
      pool_rows(image_rows(x, n, s, xbuf), s.H, s.W, s.C, a.data(), b.data(), pooled.data(), won + n * pooled_size);
      rows_to_planes(pooled.data(), out + n * pooled_size, s.Ho() * s.Wo(), s.C);
    }
  });
}

// The incoming gradient of image n as rows: the gradient at y itself (channels-last), or unpooled from the gradient
// at the pooled map (NCHW flatten order).
template <typename T>
struct IncomingGradient {
  const T* g;
  const T* won;  // null: no pooling
  Shape s;
  const T* rows(Index n, std::vector<T>& gbuf, std::vector<T>& dybuf) const {
    if (!won) return g + n * s.rows() * s.C;
    const Index pooled_rows = s.Ho() * s.Wo();
    gbuf.resize(static_cast<std::size_t>(pooled_rows * s.C));
    dybuf.resize(static_cast<std::size_t>(s.rows() * s.C));
    planes_to_rows(g + n * pooled_rows * s.C, gbuf.data(), pooled_rows, s.C);
    unpool_rows(gbuf.data(), won + n * pooled_rows * s.C, s.H, s.W, s.C, dybuf.data());
    return dybuf.data();
  }
};

// Backward of y = bn(relu(x)): dbias = sum dy, dweight = invstd sum dy (relu(x) - mean), dx in x's layout.
template <typename T>
void backward(const T* x, const IncomingGradient<T>& grad, T* dx, double* dweight, double* dbias, const Shape& s,
              const Normalisation& z, bool training) {
  const auto cn = static_cast<std::size_t>(s.C);
  const auto mean = as<T>(z.mean);
  const auto sums = cpu::sum_over_images(s.N, 2 * s.C, [&](Index n, double* acc) {
    std::vector<T> xbuf, gbuf, dybuf, buf(2 * cn);
    centred_sums(grad.rows(n, gbuf, dybuf), image_rows(x, n, s, xbuf), s.rows(), s.C, mean.data(), acc, buf.data());
  });
  const double M = double(s.N * s.rows());
  std::vector<T> a(cn), mdy(cn), k(cn);
  for (std::size_t c = 0; c < cn; ++c) {
    dbias[c] = sums[c];
    dweight[c] = sums[cn + c] * z.invstd[c];
    a[c] = T(z.a[c]);
    mdy[c] = training ? T(sums[c] / M) : T(0);
    k[c] = training ? T(z.invstd[c] * z.invstd[c] * sums[cn + c] / M) : T(0);
  }
  at::parallel_for(0, s.N, 1, [&](Index n0, Index n1) {
    std::vector<T> xbuf, gbuf, dybuf, dxbuf(s.channels_last ? 0 : static_cast<std::size_t>(s.rows() * s.C));
    for (Index n = n0; n < n1; ++n) {
      T* dxn = s.channels_last ? dx + n * s.rows() * s.C : dxbuf.data();
      relu_bn_backward_rows(grad.rows(n, gbuf, dybuf), image_rows(x, n, s, xbuf), dxn, s.rows(), s.C, a.data(),
                            mdy.data(), mean.data(), k.data());
      if (!s.channels_last) rows_to_planes(dxn, dx + n * s.rows() * s.C, s.rows(), s.C);
    }
  });
}

torch::Tensor doubles(const std::vector<double>& v) { return torch::tensor(v, torch::TensorOptions().dtype(torch::kFloat64)); }

std::vector<double> doubles(const torch::Tensor& t) {
  return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

struct FusedReluBatchNorm : torch::autograd::Function<FusedReluBatchNorm> {
  // weight and bias are inputs so that autograd routes their gradients; the module carries the statistics
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                               torch::nn::BatchNorm2d bn, bool pool) {
    (void)weight;
    (void)bias;
    const auto xc = in_place_layout(x);
    const Shape s = shape_of(xc);
    const bool training = bn->is_training();
    torch::Tensor out, won;
    Normalisation z;
    AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "fused_relu_batch_norm", [&] {
      const auto* xp = xc.data_ptr<scalar_t>();
      z = normalisation(xp, s, bn, training);
      if (pool) {
        out = torch::empty({s.N, s.C * s.Ho() * s.Wo()}, xc.options());
        won = torch::empty({s.N, s.Ho(), s.Wo(), s.C}, xc.options());
        normalise_max_pool(xp, out.data_ptr<scalar_t>(), won.data_ptr<scalar_t>(), s, z);
      } else {
        out = torch::empty({s.N, s.C, s.H, s.W}, xc.options().memory_format(at::MemoryFormat::ChannelsLast));
        normalise(xp, out.data_ptr<scalar_t>(), s, z);
      }
    });
    ctx->save_for_backward({xc});
    ctx->saved_data["mean"] = doubles(z.mean);
    ctx->saved_data["invstd"] = doubles(z.invstd);
    ctx->saved_data["a"] = doubles(z.a);
    ctx->saved_data["training"] = training;
    if (pool) ctx->saved_data["won"] = won;
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto x = ctx->get_saved_variables()[0];
    const Shape s = shape_of(x);
    Normalisation z;
    z.mean = doubles(ctx->saved_data["mean"].toTensor());
    z.invstd = doubles(ctx->saved_data["invstd"].toTensor());
    z.a = doubles(ctx->saved_data["a"].toTensor());
    const bool training = ctx->saved_data["training"].toBool(), pool = ctx->saved_data.count("won") > 0;
    const auto layout = s.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
    auto dx = torch::empty({s.N, s.C, s.H, s.W}, x.options().memory_format(layout));
    std::vector<double> dw(static_cast<std::size_t>(s.C)), db(static_cast<std::size_t>(s.C));
    const auto g = pool ? grads[0].contiguous() : grads[0].contiguous(at::MemoryFormat::ChannelsLast);
    const auto won = pool ? ctx->saved_data["won"].toTensor() : torch::Tensor();
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fused_relu_batch_norm_backward", [&] {
      const IncomingGradient<scalar_t> grad{g.data_ptr<scalar_t>(), pool ? won.data_ptr<scalar_t>() : nullptr, s};
      dmlbench::experiments::backward(x.data_ptr<scalar_t>(), grad, dx.data_ptr<scalar_t>(), dw.data(), db.data(), s,
                                      z, training);
    });
    return {dx, doubles(dw).to(x.dtype()), doubles(db).to(x.dtype()), torch::Tensor(), torch::Tensor()};
  }
};

torch::Tensor apply(const torch::Tensor& x, torch::nn::BatchNorm2d& bn, bool pool) {
  if (!fused_relu_batch_norm_supported(x))
    throw std::invalid_argument("fused_relu_batch_norm: x must be a 4-D float or double CPU tensor, got " +
                                x.toString() + " of dim " + std::to_string(x.dim()));
  if (!bn->options.affine() || !bn->options.track_running_stats())
    throw std::invalid_argument("fused_relu_batch_norm: bn must be affine and track running statistics");
  if (x.size(1) != bn->options.num_features())
    throw std::invalid_argument("fused_relu_batch_norm: x has " + std::to_string(x.size(1)) + " channels, bn " +
                                std::to_string(bn->options.num_features()));
  if (x.dtype() != bn->weight.dtype())
    throw std::invalid_argument("fused_relu_batch_norm: x and bn must have the same dtype");
  if (bn->is_training() && x.size(0) * x.size(2) * x.size(3) < 2)
    throw std::invalid_argument("fused_relu_batch_norm: batch statistics need more than one value per channel");
  if (pool && (x.size(2) < 2 || x.size(3) < 2))
    throw std::invalid_argument("fused_relu_batch_norm: 2x2 pooling needs maps of at least 2 x 2");
  return FusedReluBatchNorm::apply(x, bn->weight, bn->bias, bn, pool);
}

}  // namespace

bool fused_relu_batch_norm_supported(const torch::Tensor& x) {
  return x.defined() && x.dim() == 4 && x.device().is_cpu() && x.layout() == torch::kStrided &&
         (x.scalar_type() == torch::kFloat32 || x.scalar_type() == torch::kFloat64);
}

torch::Tensor fused_relu_batch_norm(const torch::Tensor& x, torch::nn::BatchNorm2d& bn) { return apply(x, bn, false); }

torch::Tensor fused_relu_batch_norm_max_pool_flatten(const torch::Tensor& x, torch::nn::BatchNorm2d& bn) {
  return apply(x, bn, true);
}

}  // namespace dmlbench::experiments
