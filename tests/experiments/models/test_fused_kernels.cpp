// The CPU kernels behind MnistEmbeddingNet's `fused` path against the stock LibTorch ops they replace: the same
// values and gradients, running statistics, layouts, tie and NaN rules, and thread-count independence.
#include "dmlbench/experiments/fused_relu_batch_norm.hpp"
#include "dmlbench/experiments/mnist_embedding_net.hpp"
#include "dmlbench/experiments/single_channel_conv.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;

namespace {

// max |a - b| / max(1, max |b|): the error measure of every comparison below
double rel_err(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>() / scale;
}

// Double precision: the fused and stock ops evaluate the same closed forms, with sums over at most a few hundred
// terms in another order, so they agree to (terms) x eps ~ 1e-13; 1e-12 leaves a 10x margin.
constexpr double kDoubleTol = 1e-12;

// Values rounded to 1/4 so that ReLU zeros and equal window entries (max-pool ties) are common.
torch::Tensor tied_input(std::vector<std::int64_t> shape, std::uint64_t seed, bool channels_last) {
  auto gen = at::detail::createCPUGenerator(seed);
  auto x = (torch::randn(shape, gen, torch::kFloat64) * 4).round() / 4;
  return channels_last ? x.contiguous(at::MemoryFormat::ChannelsLast) : x.contiguous();
}

torch::nn::BatchNorm2d make_bn(int C, std::uint64_t seed) {
  torch::nn::BatchNorm2d bn(C);
  bn->to(torch::kFloat64);
  auto gen = at::detail::createCPUGenerator(seed);
  torch::NoGradGuard no_grad;
  bn->weight.copy_(torch::randn({C}, gen, torch::kFloat64));  // some negative: the pool must not assume monotone
  bn->bias.copy_(torch::randn({C}, gen, torch::kFloat64));
  bn->running_mean.copy_(torch::rand({C}, gen, torch::kFloat64));
  bn->running_var.copy_(torch::rand({C}, gen, torch::kFloat64) + 0.5);
  return bn;
}

struct Compared {
  double y, dx, dweight, dbias, running_mean, running_var;
  double y_scale;  // max(1, max |y|) of the stock output
  bool layout_ok, tracked_ok;
};

// fused vs stock on one configuration; `bias_shift` is added to the stock BN's bias (the negative control)
Compared compare(bool channels_last, bool training, bool pool, std::vector<std::int64_t> shape, double bias_shift = 0) {
  const int C = int(shape[1]);
  auto bn_f = make_bn(C, 11), bn_s = make_bn(C, 11);
  if (bias_shift != 0) {
    torch::NoGradGuard no_grad;
    bn_s->bias.add_(bias_shift);
  }
  bn_f->train(training);
  bn_s->train(training);
  const auto x0 = tied_input(shape, 7, channels_last);
  const auto xf = x0.clone().requires_grad_(true), xs = x0.clone().requires_grad_(true);
  const auto yf = pool ? fused_relu_batch_norm_max_pool_flatten(xf, bn_f) : fused_relu_batch_norm(xf, bn_f);
  auto ys = bn_s(torch::relu(xs));
  if (pool) ys = torch::max_pool2d(ys, 2).flatten(1);
  auto gen = at::detail::createCPUGenerator(5);
  const auto g = torch::randn(ys.sizes(), gen, torch::kFloat64);
  yf.backward(g);
  ys.backward(g);
  const auto fmt = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  return {rel_err(yf, ys),
          rel_err(xf.grad(), xs.grad()),
          rel_err(bn_f->weight.grad(), bn_s->weight.grad()),
          rel_err(bn_f->bias.grad(), bn_s->bias.grad()),
          rel_err(bn_f->running_mean, bn_s->running_mean),
          rel_err(bn_f->running_var, bn_s->running_var),
          std::max(1.0, ys.abs().max().item<double>()),
          xf.grad().is_contiguous(fmt) && (pool || yf.is_contiguous(at::MemoryFormat::ChannelsLast)),
          bn_f->num_batches_tracked.item<std::int64_t>() == bn_s->num_batches_tracked.item<std::int64_t>()};
}

}  // namespace

TEST_CASE("fused ReLU -> BN [-> 2x2 max-pool] equals the stock ops: values, gradients, running statistics",
          "[experiments][kernels][LCC App. C]") {
  for (bool channels_last : {true, false})
    for (bool training : {true, false})
      for (bool pool : {false, true}) {
        // odd H and W: the last row and column of a pooled map are in no window and get no gradient
        const auto r = compare(channels_last, training, pool, {4, 5, 7, 9});
        INFO("channels_last " << channels_last << ", training " << training << ", pool " << pool);
        CHECK_THAT(r.y, WithinAbs(0, kDoubleTol));
        CHECK_THAT(r.dx, WithinAbs(0, kDoubleTol));
        CHECK_THAT(r.dweight, WithinAbs(0, kDoubleTol));
        CHECK_THAT(r.dbias, WithinAbs(0, kDoubleTol));
        CHECK_THAT(r.running_mean, WithinAbs(0, kDoubleTol));
        CHECK_THAT(r.running_var, WithinAbs(0, kDoubleTol));
        CHECK(r.layout_ok);  // dx in x's layout, an unpooled y channels-last
        CHECK(r.tracked_ok);
      }
}

TEST_CASE("negative control: an output off by twice the tolerance fails the comparison", "[experiments][kernels][LCC App. C]") {
  // y = relu(x) a + b: a bias shifted by d moves every output (pooled or not) by d
  const auto clean = compare(true, true, true, {4, 5, 7, 9});
  CHECK(clean.y <= kDoubleTol);
  const auto off = compare(true, true, true, {4, 5, 7, 9}, 2 * kDoubleTol * clean.y_scale);
  CHECK(off.y > kDoubleTol);
  CHECK(off.y < 3 * kDoubleTol);  // and by no more than it was moved
}

TEST_CASE("fused max-pool: the first maximum of a window wins its gradient, a NaN wins the window",
          "[experiments][kernels][LCC App. C]") {
  // eval mode with running mean 0 and variance 1 - eps, weight 1, bias 0: y = relu(x) exactly
  torch::nn::BatchNorm2d bn(1);
  bn->to(torch::kFloat64);
  bn->eval();
  {
    torch::NoGradGuard no_grad;
    bn->running_var.fill_(1 - bn->options.eps());
  }
  // window [[1, 2], [2, -1]]: the max 2 ties between positions 1 and 2; position 1 (row-major first) wins
  auto x = torch::tensor({1.0, 2.0, 2.0, -1.0}, torch::kFloat64).reshape({1, 1, 2, 2}).requires_grad_(true);
  const auto y = fused_relu_batch_norm_max_pool_flatten(x, bn);
  CHECK_THAT(y.item<double>(), WithinAbs(2.0, 1e-15));
  y.backward(torch::ones_like(y));
  const auto dx = x.grad().flatten();
  CHECK(dx[0].item<double>() == 0.0);
  CHECK_THAT(dx[1].item<double>(), WithinAbs(1.0, 1e-15));
  CHECK(dx[2].item<double>() == 0.0);
  CHECK(dx[3].item<double>() == 0.0);
  // the same tie through the stock op, for the record
  auto xs = x.detach().clone().requires_grad_(true);
  torch::max_pool2d(torch::relu(xs), 2).sum().backward();
  CHECK(torch::equal(xs.grad(), x.grad()));
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const auto xn = torch::tensor({1.0, nan, 2.0, 0.5}, torch::kFloat64).reshape({1, 1, 2, 2});
  CHECK(std::isnan(fused_relu_batch_norm_max_pool_flatten(xn, bn).item<double>()));
}

TEST_CASE("fused kernels give the same bits with 1 and 2 threads", "[experiments][kernels][LCC App. C]") {
  const int before = torch::get_num_threads();
  auto run = [](int threads) {
    torch::set_num_threads(threads);
    auto bn = make_bn(6, 3);
    bn->to(torch::kFloat32);
    auto gen = at::detail::createCPUGenerator(9);
    auto x = torch::randn({16, 6, 10, 10}, gen).contiguous(at::MemoryFormat::ChannelsLast).requires_grad_(true);
    auto y = fused_relu_batch_norm_max_pool_flatten(x, bn);
    y.backward(torch::ones_like(y));
    return std::vector<torch::Tensor>{y.detach(), x.grad(), bn->weight.grad(), bn->running_var.clone()};
  };
  const auto one = run(1), two = run(2);
  torch::set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(torch::equal(one[i], two[i]));
}

TEST_CASE("single-channel convolution equals torch::conv2d: values and the three gradients", "[experiments][kernels][LCC App. C]") {
  // (C, KH, KW): C = 3 and 37 exercise the scalar tail and the 32-lane block plus tail; 2 x 5 a non-square kernel
  for (auto [C, KH, KW] : {std::tuple{3, 3, 3}, {37, 3, 3}, {32, 2, 5}}) {
    auto gen = at::detail::createCPUGenerator(std::uint64_t(C * 100 + KW));
    const auto x0 = torch::randn({3, 1, 9, 8}, gen, torch::kFloat64);
    const auto w0 = torch::randn({C, 1, KH, KW}, gen, torch::kFloat64), b0 = torch::randn({C}, gen, torch::kFloat64);
    auto xf = x0.clone().requires_grad_(true), wf = w0.clone().requires_grad_(true), bf = b0.clone().requires_grad_(true);
    auto xs = x0.clone().requires_grad_(true), ws = w0.clone().requires_grad_(true), bs = b0.clone().requires_grad_(true);
    const auto yf = single_channel_conv2d(xf, wf, bf), ys = torch::conv2d(xs, ws, bs);
    INFO("C " << C << ", kernel " << KH << " x " << KW);
    CHECK(yf.is_contiguous(at::MemoryFormat::ChannelsLast));
    CHECK_THAT(rel_err(yf, ys), WithinAbs(0, kDoubleTol));
    const auto g = torch::randn(ys.sizes(), gen, torch::kFloat64);
    yf.backward(g);
    ys.backward(g);
    CHECK_THAT(rel_err(xf.grad(), xs.grad()), WithinAbs(0, kDoubleTol));
    CHECK_THAT(rel_err(wf.grad(), ws.grad()), WithinAbs(0, kDoubleTol));
    CHECK_THAT(rel_err(bf.grad(), bs.grad()), WithinAbs(0, kDoubleTol));
  }
}

TEST_CASE("the MNIST network's fused path equals its stock path in float32, training and eval [LCC App. C]",
          "[experiments][kernels][LCC App. C]") {
  torch::manual_seed(1);
  MnistEmbeddingNet fused(2, NetKernels::fused), stock(2, NetKernels::stock);
  {
    torch::NoGradGuard no_grad;
    auto ps = stock->named_parameters(), bs = stock->named_buffers();
    for (const auto& kv : fused->named_parameters()) ps[kv.key()].copy_(kv.value());
    for (const auto& kv : fused->named_buffers()) bs[kv.key()].copy_(kv.value());
  }
  auto gen = at::detail::createCPUGenerator(2);
  const auto x = torch::rand({32, 1, 28, 28}, gen);
  const auto yf = fused->forward(x), ys = stock->forward(x);
  // float32: sums of up to 73,728 terms (BN statistics, conv2's weight gradient) in another order; a random walk of
  // rounding errors gives eps sqrt(n) ~ 1.6e-5 relative (measured: at most 1.1e-5), so 1e-4
  const double tol = 1e-4;
  CHECK_THAT(rel_err(yf, ys), WithinAbs(0, tol));
  const auto g = torch::randn(ys.sizes(), gen);
  yf.backward(g);
  ys.backward(g);
  auto ps = stock->named_parameters();
  for (const auto& kv : fused->named_parameters()) {
    INFO(kv.key());
    CHECK_THAT(rel_err(kv.value().grad(), ps[kv.key()].grad()), WithinAbs(0, tol));
  }
  auto bs = stock->named_buffers();
  for (const auto& kv : fused->named_buffers()) {
    INFO(kv.key());
    CHECK_THAT(rel_err(kv.value(), bs[kv.key()]), WithinAbs(0, tol));
  }
  fused->eval();
  stock->eval();
  torch::NoGradGuard no_grad;
  CHECK_THAT(rel_err(fused->forward(x), stock->forward(x)), WithinAbs(0, tol));
  CHECK_THROWS_WITH(parse_net_kernels("fast"), Catch::Contains("--kernels must be stock or fused"));
}

TEST_CASE("fused kernels reject what they cannot compute, with a clear error", "[experiments][kernels][LCC App. C]") {
  auto bn = make_bn(3, 1);
  CHECK_THROWS_WITH(fused_relu_batch_norm(torch::zeros({2, 3, 4, 4}, torch::kInt64), bn), Catch::Contains("float or double"));
  CHECK_THROWS_WITH(fused_relu_batch_norm(torch::zeros({2, 3, 4}, torch::kFloat64), bn), Catch::Contains("4-D"));
  CHECK_THROWS_WITH(fused_relu_batch_norm(torch::zeros({2, 4, 4, 4}, torch::kFloat64), bn), Catch::Contains("channels"));
  CHECK_THROWS_WITH(fused_relu_batch_norm(torch::zeros({2, 3, 4, 4}, torch::kFloat32), bn), Catch::Contains("dtype"));
  CHECK_THROWS_WITH(fused_relu_batch_norm_max_pool_flatten(torch::zeros({2, 3, 1, 4}, torch::kFloat64), bn),
                    Catch::Contains("2 x 2"));
  CHECK_THROWS_WITH(fused_relu_batch_norm(torch::zeros({1, 3, 1, 1}, torch::kFloat64), bn),
                    Catch::Contains("more than one value"));
  const auto w = torch::zeros({4, 1, 3, 3}, torch::kFloat64);
  CHECK_THROWS_WITH(single_channel_conv2d(torch::zeros({2, 2, 5, 5}, torch::kFloat64), w, {}),
                    Catch::Contains("N x 1 x H x W"));
  CHECK_THROWS_WITH(single_channel_conv2d(torch::zeros({2, 1, 2, 5}, torch::kFloat64), w, {}),
                    Catch::Contains("no smaller than the kernel"));
  CHECK_THROWS_WITH(single_channel_conv2d(torch::zeros({2, 1, 5, 5}, torch::kFloat64), w, torch::zeros({3}, torch::kFloat64)),
                    Catch::Contains("one value per output channel"));
}
