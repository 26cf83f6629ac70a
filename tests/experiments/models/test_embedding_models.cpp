// The embedding networks by name (embedding_model.hpp): small-conv's shapes and bad input, the ResNets' torchvision
// names and sizes, frozen batch norm, the safetensors weights files and load_pretrained on weights written here.
// The forward against torchvision's own is tests/experiments/models/test_resnet_torchvision.cpp.
#include "dmlbench/experiments/embedding_model.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/max_pool_2x2.hpp"
#include "dmlbench/experiments/resnet.hpp"
#include "dmlbench/experiments/safetensors_file.hpp"
#include "dmlbench/experiments/small_conv_net.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <array>
#include <filesystem>
#include <limits>
#include <fstream>

using namespace dmlbench::experiments;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::int64_t count(const std::vector<torch::Tensor>& ts) {
  std::int64_t n = 0;
  for (const auto& t : ts) n += t.numel();
  return n;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("dmlbench-models-" + std::to_string(::getpid()) + "-" + name)).string();
}

// The model's backbone tensors (parameters and buffers, not the head) under their names, as a weights file holds them.
NamedTensors backbone_tensors(EmbeddingModel& m, const std::string& arch) {
  NamedTensors t;
  t.metadata["arch"] = arch;
  const auto head = m.head_parameters();
  auto is_head = [&](const torch::Tensor& x) {
    for (const auto& h : head)
      if (h.is_same(x)) return true;
    return false;
  };
  for (const auto& p : m.module().named_parameters())
    if (!is_head(p.value())) t.tensors.emplace_back(p.key(), p.value().detach().clone());
  for (const auto& b : m.module().named_buffers()) t.tensors.emplace_back(b.key(), b.value().clone());
  return t;
}

}  // namespace

TEST_CASE("embedding_model_names lists the four models and an unknown name's error names them all") {
  REQUIRE(embedding_model_names() == std::vector<std::string>{"lcc-mnist", "small-conv", "resnet18", "resnet50"});
  REQUIRE_THROWS_WITH(make_embedding_model("resnet34", 8, "fused", 3),
                      Contains("unknown model 'resnet34'") && Contains("lcc-mnist, small-conv, resnet18, resnet50"));
  for (const auto& name : embedding_model_names()) {
    REQUIRE_THROWS_WITH(make_embedding_model(name, 0, "fused", 0), Contains("embedding_dim must be >= 1"));
    REQUIRE_THROWS_WITH(make_embedding_model(name, 8, "fused", -1), Contains("in_channels >= 0"));
    REQUIRE(make_embedding_model(name, 8, "fused", 0).name() == name);
  }
}

TEST_CASE("small-conv maps B x C x H x W images of 16 to 80 px and any channel count to B x embedding_dim") {
  torch::manual_seed(1);
  // (channels, height, width): MNIST, 3-channel 80 px, a 4-channel non-square input, the 16 px minimum
  for (const auto& [c, h, w] : std::vector<std::array<int, 3>>{{1, 28, 28}, {3, 80, 80}, {4, 28, 64}, {2, 16, 16}}) {
    auto m = make_embedding_model("small-conv", 24, "fused", c);
    const auto e = m.forward(torch::rand({5, c, h, w}));
    REQUIRE(e.sizes() == torch::IntArrayRef{5, 24});
    REQUIRE(torch::isfinite(e).all().item<bool>());
    // the head is embedding (64 -> 24) alone; the backbone 4 x (conv 3x3, no bias) + 4 BN (weight, bias)
    REQUIRE(count(m.head_parameters()) == 64 * 24 + 24);
    REQUIRE(count(m.backbone_parameters()) == 9 * 64 * (c + 3 * 64) + 4 * 2 * 64);
  }
  auto net = SmallConvNet(8, 1);
  REQUIRE(net->features(torch::rand({3, 1, 28, 28})).sizes() == torch::IntArrayRef{3, 64});
}

TEST_CASE("small-conv rejects a wrong channel count, inputs under 16 px and bad sizes with a clear error") {
  auto m = make_embedding_model("small-conv", 8, "fused", 1);
  REQUIRE_THROWS_WITH(m.forward(torch::rand({2, 3, 28, 28})),
                      Contains("small-conv: input must be B x 1 x H x W with H, W >= 16") && Contains("[2, 3, 28, 28]"));
  REQUIRE_THROWS_WITH(m.forward(torch::rand({2, 1, 15, 28})), Contains("H, W >= 16"));
  REQUIRE_THROWS_WITH(m.forward(torch::rand({1, 28, 28})), Contains("input must be"));
  REQUIRE_NOTHROW(m.forward(torch::rand({2, 1, 16, 16})));  // the boundary itself works
  REQUIRE_THROWS_AS(SmallConvNet(8, 1, 0), std::invalid_argument);
  REQUIRE_THROWS_AS(SmallConvNet(0, 1), std::invalid_argument);
}

TEST_CASE("small-conv learns: 40 Adam steps fit fixed targets for two image classes") {
  torch::manual_seed(3);
  auto m = make_embedding_model("small-conv", 2, "fused", 1);
  const auto x = torch::cat({torch::rand({8, 1, 28, 28}) * 0.5, torch::rand({8, 1, 28, 28}) * 0.5 + 0.5});
  const auto target = torch::cat({torch::full({8, 2}, -1.0), torch::full({8, 2}, 1.0)});
  torch::optim::Adam opt(m.parameters(), torch::optim::AdamOptions(1e-2));
  double first = 0, last = 0;
  for (int s = 0; s < 40; ++s) {
    const auto loss = (m.forward(x) - target).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    (s == 0 ? first : last) = loss.item<double>();
  }
  // the classes differ in mean brightness only: a working conv + BN + head fits them well below the start
  REQUIRE(last < 0.2 * first);
}

TEST_CASE("freeze_bn keeps batch-norm statistics fixed in training mode, and the affine weights still train") {
  for (const std::string name : {"small-conv", "resnet18"}) {
    INFO(name);
    const auto x = torch::rand({4, 3, 32, 32});
    torch::manual_seed(4);
    auto m = make_embedding_model(name, 8, "fused", 3);
    auto& bn = *m.module().named_modules()["bn1"]->as<torch::nn::BatchNorm2d>();
    const auto before = bn.running_mean.clone();
    m.set_freeze_bn(true);
    m.forward(x).sum().backward();
    REQUIRE(torch::equal(bn.running_mean, before));
    REQUIRE_FALSE(bn.is_training());
    REQUIRE(m.module().is_training());  // only the batch norms are in eval mode
    REQUIRE(bn.weight.grad().abs().sum().item<double>() > 0);
    m.eval();
    m.train();  // as the trainer does around each evaluation: still frozen
    m.forward(x);
    REQUIRE(torch::equal(bn.running_mean, before));
    m.set_freeze_bn(false);  // negative control: unfrozen, the same forward moves the running mean
    m.forward(x);
    REQUIRE_FALSE(torch::equal(bn.running_mean, before));
  }
}

TEST_CASE("the ResNets have torchvision's tensor names, sizes and output widths") {
  torch::manual_seed(5);
  auto r18 = ResNet(18, 512, 3), r50 = ResNet(50, 128, 3);
  // torchvision's resnet18 / resnet50 parameter counts (11,689,512 / 25,557,032) less fc (1000 classes)
  REQUIRE(count(r18->parameters()) - count(r18->embedding->parameters()) == 11689512 - (512 * 1000 + 1000));
  REQUIRE(count(r50->parameters()) - count(r50->embedding->parameters()) == 25557032 - (2048 * 1000 + 1000));
  REQUIRE(r18->named_parameters().size() == 62);  // torchvision: 62 parameters, 60 buffers (20 BN x 3)
  REQUIRE(r18->named_buffers().size() == 60);
  REQUIRE(r50->named_parameters().size() == 161);  // torchvision: 161 parameters, 159 buffers (53 BN x 3)
  REQUIRE(r50->named_buffers().size() == 159);
  const auto p18 = r18->named_parameters(), p50 = r50->named_parameters();
  REQUIRE(p18["layer2.0.downsample.0.weight"].sizes() == torch::IntArrayRef{128, 64, 1, 1});
  REQUIRE(p18["layer4.1.conv2.weight"].sizes() == torch::IntArrayRef{512, 512, 3, 3});
  REQUIRE(p50["layer1.0.downsample.1.weight"].sizes() == torch::IntArrayRef{256});
  REQUIRE(p50["layer3.5.conv3.weight"].sizes() == torch::IntArrayRef{1024, 256, 1, 1});
  REQUIRE(r18->named_buffers()["layer3.1.bn2.num_batches_tracked"].scalar_type() == torch::kInt64);
  REQUIRE(r18->features(torch::rand({2, 3, 64, 64})).sizes() == torch::IntArrayRef{2, 512});
  REQUIRE(r50->forward(torch::rand({2, 3, 64, 48})).sizes() == torch::IntArrayRef{2, 128});
  REQUIRE_THROWS_WITH(r18->forward(torch::rand({2, 1, 64, 64})), Contains("resnet18: input must be B x 3 x H x W"));
  REQUIRE_THROWS_WITH(ResNet(34, 8, 3), Contains("depth must be 18 or 50"));
  auto gray = make_embedding_model("resnet18", 16, "fused", 1);  // conv1 takes one channel
  REQUIRE(gray.forward(torch::rand({2, 1, 40, 40})).sizes() == torch::IntArrayRef{2, 16});
}

TEST_CASE("safetensors files round-trip every dtype bit for bit and keep their metadata") {
  NamedTensors t;
  t.metadata = {{"arch", "resnet18"}, {"note", "x"}};
  t.tensors = {{"a.weight", torch::randn({3, 4})},
               {"b", torch::randn({2, 2}, torch::kFloat64)},
               {"c.num_batches_tracked", torch::tensor(int64_t(7))},  // 0-dim, as torchvision's
               {"d", torch::randint(0, 255, {5}, torch::kUInt8)},
               {"e", torch::empty({0, 3})},
               {"f", torch::randn({2, 3}).t()}};  // not contiguous: written as its values
  const auto path = temp_path("roundtrip.safetensors");
  write_safetensors(path, t);
  const auto back = read_safetensors(path);
  REQUIRE(back.metadata == t.metadata);
  REQUIRE(back.tensors.size() == t.tensors.size());
  for (std::size_t i = 0; i < t.tensors.size(); ++i) {
    INFO(t.tensors[i].first);
    REQUIRE(back.tensors[i].first == t.tensors[i].first);
    REQUIRE(back.tensors[i].second.scalar_type() == t.tensors[i].second.scalar_type());
    REQUIRE(torch::equal(back.tensors[i].second, t.tensors[i].second));
  }
  REQUIRE(back.find("b") != nullptr);
  REQUIRE(back.find("z") == nullptr);
  fs::remove(path);
}

TEST_CASE("malformed safetensors files are one data_error naming the file and the tensor") {
  const auto path = temp_path("bad.safetensors");
  auto write_raw = [&](const std::string& header, std::size_t data_bytes, std::uint64_t claimed = 0) {
    std::ofstream f(path, std::ios::binary);
    const std::uint64_t n = claimed ? claimed : header.size();
    f.write(reinterpret_cast<const char*>(&n), 8);
    f << header << std::string(data_bytes, '\0');
  };
  const std::string ok = R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
  write_raw(ok, 24);
  REQUIRE(read_safetensors(path).tensors.at(0).second.sizes() == torch::IntArrayRef{2, 3});  // the control reads
  write_raw(ok, 23);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains(path + ": tensor w: data_offsets [0,24]"));
  write_raw(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,24]}})", 24);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains("tensor w: data_offsets") && Contains("hold 16 bytes"));
  write_raw(R"({"w":{"dtype":"F8","shape":[2],"data_offsets":[0,2]}})", 2);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains("tensor w: dtype 'F8' is not one of F32"));
  write_raw(R"({"w":{"dtype":"F32","shape":[2]}})", 8);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains("tensor w: malformed header entry"));
  write_raw("{not json", 0);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains("header is not JSON"));
  write_raw(ok, 24, 1u << 20);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains("header length 1048576 exceeds"));
  fs::resize_file(path, 3);
  REQUIRE_THROWS_AS(read_safetensors(path), data_error);
  fs::remove(path);
  REQUIRE_THROWS_WITH(read_safetensors(path), Contains(path + ": cannot open"));
}

TEST_CASE("load_pretrained copies every backbone tensor by name, ignores fc and keeps the embedding head") {
  torch::manual_seed(6);
  auto source = make_embedding_model("resnet18", 8, "fused", 3);
  auto target = make_embedding_model("resnet18", 8, "fused", 3);
  auto file = backbone_tensors(source, "resnet18");
  file.tensors.emplace_back("fc.weight", torch::randn({1000, 512}));  // torchvision's classifier
  file.tensors.emplace_back("fc.bias", torch::randn({1000}));
  const auto path = temp_path("r18.safetensors");
  write_safetensors(path, file);
  const auto head_before = target.head_parameters()[0].clone();
  target.load_pretrained(path);
  for (const auto& [name, t] : file.tensors) {
    if (name.rfind("fc.", 0) == 0) continue;
    INFO(name);
    const auto* p = target.module().named_parameters().find(name);
    REQUIRE(torch::equal(p ? *p : target.module().named_buffers()[name], t));
  }
  REQUIRE(torch::equal(target.head_parameters()[0], head_before));

  SECTION("a missing, extra or misshapen tensor, or another architecture's file, is an error and loads nothing") {
    auto fresh = make_embedding_model("resnet18", 8, "fused", 3);
    const auto conv1_before = fresh.module().named_parameters()["conv1.weight"].clone();
    auto broken = file;
    broken.tensors.erase(broken.tensors.begin() + 5);
    const std::string dropped = file.tensors[5].first;
    write_safetensors(path, broken);
    REQUIRE_THROWS_WITH(fresh.load_pretrained(path), Contains("tensor " + dropped + " of model resnet18 is missing"));
    broken = file;
    broken.tensors.emplace_back("layer5.0.conv1.weight", torch::zeros({1}));
    write_safetensors(path, broken);
    REQUIRE_THROWS_WITH(fresh.load_pretrained(path), Contains("tensor layer5.0.conv1.weight is not a tensor of model"));
    broken = file;
    broken.tensors[0].second = torch::zeros({64, 3, 3, 3});
    write_safetensors(path, broken);
    REQUIRE_THROWS_WITH(fresh.load_pretrained(path), Contains("tensor " + file.tensors[0].first + " has shape [64, 3, 3, 3]"));
    broken = file;
    broken.metadata["arch"] = "resnet50";
    write_safetensors(path, broken);
    REQUIRE_THROWS_WITH(fresh.load_pretrained(path), Contains("holds weights of resnet50, not of model resnet18"));
    REQUIRE(torch::equal(fresh.module().named_parameters()["conv1.weight"], conv1_before));
  }
  fs::remove(path);
}

// The stock small-conv forward: each block's 2 x 2 max pooling by torch::max_pool2d; the controls pool by the
// average, or by torch::maximum of the quarter maps (the maximum, but a tie's gradient split between its elements).
enum class Pool { stock, average, split_ties };
torch::Tensor stock_small_conv(SmallConvNet& net, torch::Tensor x, Pool pool = Pool::stock) {
  using torch::indexing::Slice;
  for (std::size_t i = 0; i < net->convs.size(); ++i) {
    const auto y = torch::relu(net->bns[i](net->convs[i](x)));
    const auto h = y.size(2) / 2 * 2, w = y.size(3) / 2 * 2;
    const auto q = [&](int a, int b) { return y.index({Slice(), Slice(), Slice(a, h, 2), Slice(b, w, 2)}); };
    x = pool == Pool::stock     ? torch::max_pool2d(y, 2)
        : pool == Pool::average ? torch::avg_pool2d(y, 2)
                                : torch::maximum(torch::maximum(q(0, 0), q(0, 1)), torch::maximum(q(1, 0), q(1, 1)));
  }
  return net->embedding(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
}

// Without gradients small-conv pools by the maximum of four strided quarter maps; the embeddings are those
// of torch::max_pool2d bit for bit (eval and training mode, odd sizes that floor mode crops), and with
// gradients it is the stock op itself.
TEST_CASE("small-conv without gradients pools to the same bits as torch::max_pool2d") {
  torch::manual_seed(3);
  auto net = SmallConvNet(16, 2);
  for (const bool training : {false, true})
    for (const auto& [h, w] : std::vector<std::array<int, 2>>{{28, 28}, {29, 31}, {17, 40}}) {
      net->train(training);
      auto x = torch::randn({6, 2, h, w});
      torch::Tensor fast, stock, control;
      {
        torch::NoGradGuard no_grad;
        fast = net->forward(x);
        stock = stock_small_conv(net, x);
        control = stock_small_conv(net, x, Pool::average);
      }
      CHECK(torch::equal(fast, stock));
      CHECK_FALSE(torch::equal(fast, control));  // negative control: another pooling
      const auto xg = x.clone().requires_grad_(true);
      CHECK(torch::equal(net->forward(xg), stock_small_conv(net, xg)));
    }
}

// With gradients small-conv pools by torch::max_pool2d itself, whose backward sends a tie to the first
// maximum: the forward and every gradient are the stock network's bit for bit, ties included (a constant patch gives
// equal window elements after every block, as the glyphs' background does), where the maximum of the quarter maps
// (the no-gradient path's values) splits a tie's gradient and differs (the negative control).
TEST_CASE("small-conv's max pooling with gradients gives torch::max_pool2d's values and gradients bit for bit") {
  torch::manual_seed(4);
  auto net = SmallConvNet(8, 1);
  net->train();
  for (const auto& [h, w] : std::vector<std::array<int, 2>>{{28, 28}, {29, 33}}) {
    auto x = torch::randn({5, 1, h, w});
    x.index_put_({torch::indexing::Slice(), 0, torch::indexing::Slice(0, 12), torch::indexing::Slice(0, 12)}, 0.5);
    const auto r = torch::randn({5, 8});
    auto grads = [&](Pool pool, bool ours) {
      net->zero_grad();
      const auto xg = x.clone().requires_grad_(true);
      const auto e = ours ? net->forward(xg) : stock_small_conv(net, xg, pool);
      (e * r).sum().backward();
      std::vector<torch::Tensor> g = {e.detach(), xg.grad()};
      for (const auto& p : net->parameters()) g.push_back(p.grad().clone());
      return g;
    };
    const auto ours = grads(Pool::stock, true), stock = grads(Pool::stock, false);
    const auto split = grads(Pool::split_ties, false);
    REQUIRE(ours.size() == stock.size());
    for (std::size_t i = 0; i < ours.size(); ++i) CHECK(torch::equal(ours[i], stock[i]));
    CHECK(torch::equal(split[0], stock[0]));        // the same forward values
    CHECK_FALSE(torch::equal(split[1], stock[1]));  // but the ties' gradients go elsewhere
  }
}

// Bit patterns equal (NaN included, +0 and -0 told apart).
static bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && torch::equal(a.contiguous().view(torch::kInt32), b.contiguous().view(torch::kInt32));
}

// Small-conv's pooling kernels against torch::max_pool2d (and torch::relu before it) over random inputs with
// a pinned seed, on values from {-2, ..., 2} (most windows hold a tie; with the ReLU every window of non-positive
// values is one), with NaNs (one or two in a window), -inf, -0 in the input and in the gradient, odd sizes that floor
// mode crops, with 1 and 2 threads: forward and input gradient bit for bit (without gradients, the same values, and
// the same bits where no NaN or -0 is pooled: a NaN's bits and a zero's sign may differ there). Negative controls:
// the maximum of the quarter maps (the same values) sends a tie's gradient elsewhere, and the stock gradient turns -0
// into +0, which writing dy as it comes would not.
TEST_CASE("max_pool_2x2 and relu_max_pool_2x2 give the stock ops' values and gradients bit for bit") {
  const int threads_before = at::get_num_threads();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const bool with_relu : {false, true})
    for (const int threads : {1, 2}) {
      at::set_num_threads(threads);
      torch::manual_seed(30);
      for (const auto& size : std::vector<std::array<std::int64_t, 4>>{{3, 5, 28, 28}, {2, 3, 7, 7}, {2, 2, 29, 33},
                                                                        {1, 1, 2, 2}, {2, 4, 3, 5}}) {
        INFO("relu " << with_relu << ", threads " << threads << ", size " << size[2] << " x " << size[3]);
        auto x = torch::randint(-2, 3, {size[0], size[1], size[2], size[3]}).to(torch::kFloat32);
        x.view(-1).index_put_({torch::randint(0, x.numel(), {x.numel() / 17 + 1})}, nan);
        x.view(-1).index_put_({torch::randint(0, x.numel(), {x.numel() / 13 + 1})}, -inf);
        x.view(-1).index_put_({torch::randint(0, x.numel(), {x.numel() / 11 + 1})}, -0.0f);
        auto dy = torch::randn({size[0], size[1], size[2] / 2, size[3] / 2});
        dy.view(-1).index_put_({torch::randint(0, dy.numel(), {dy.numel() / 5 + 1})}, -0.0f);
        const auto run = [&](int which) {
          const auto xg = x.clone().requires_grad_(true);
          const auto r = with_relu && which != 0 ? torch::relu(xg) : xg;
          using torch::indexing::Slice;
          const auto h = size[2] / 2 * 2, w = size[3] / 2 * 2;
          const auto q = [&](int a, int b) { return r.index({Slice(), Slice(), Slice(a, h, 2), Slice(b, w, 2)}); };
          const auto y = which == 0   ? (with_relu ? relu_max_pool_2x2(xg) : max_pool_2x2(xg))
                         : which == 1 ? torch::max_pool2d(r, 2)
                                      : torch::maximum(torch::maximum(q(0, 0), q(0, 1)), torch::maximum(q(1, 0), q(1, 1)));
          y.backward(dy);
          return std::array<torch::Tensor, 2>{y.detach(), xg.grad()};
        };
        const auto ours = run(0), stock = run(1), split = run(2);
        CHECK(same_bits(ours[0], stock[0]));
        CHECK(same_bits(ours[1], stock[1]));
        {  // without gradients (the quarter maps): the same values, and the same bits where no NaN or -0 is pooled
          torch::NoGradGuard no_grad;
          const auto pool = [&](const torch::Tensor& v) { return with_relu ? relu_max_pool_2x2(v) : max_pool_2x2(v); };
          CHECK(torch::allclose(pool(x), stock[0], 0, 0, /*equal_nan=*/true));
          const auto clean = torch::where(x.isnan().logical_or(x.eq(0)), torch::zeros_like(x), x);
          CHECK(same_bits(pool(clean), torch::max_pool2d(with_relu ? torch::relu(clean) : clean, 2)));
        }
        if (size[2] >= 4) {
          CHECK(torch::allclose(split[0], stock[0], 0, 0, /*equal_nan=*/true));  // the same values (NaN bits aside)
          CHECK_FALSE(same_bits(split[1], stock[1]));                            // a tie's gradient elsewhere
          CHECK(torch::signbit(dy).logical_and(dy.eq(0)).any().item<bool>());    // -0 in dy ...
          CHECK_FALSE(torch::signbit(stock[1]).logical_and(stock[1].eq(0)).any().item<bool>());  // ... +0 in dx
        }
      }
    }
  at::set_num_threads(threads_before);
}
