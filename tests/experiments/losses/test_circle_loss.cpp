// The Circle loss (Sun et al., CVPR 2020) as the registry builds it from a config: a hand value and gradient, and a
// cross-check against the published per-anchor formula over random unit embeddings (value and gradient, the weights
// alpha held constant), each with a negative control.
#include "dmlbench/experiments/training_loss.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using json = nlohmann::ordered_json;

namespace {

RunConfig circle_config(double m, double gamma) {
  const auto j = json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"}, "model": {"name": "small-conv",
                                "normalize": true}, "loss": {"name": "circle"}})");
  return parse_run_config(j, {"loss.circle_m=" + std::to_string(m), "loss.circle_gamma=" + std::to_string(gamma)},
                          "/repo");
}

torch::Tensor circle_value(const RunConfig& c, const torch::Tensor& emb, const torch::Tensor& labels) {
  auto loss = make_training_loss({c, 4, torch::kCPU});
  LossBatch b;
  b.embeddings = emb;
  b.labels = labels;
  return loss->forward(b).loss;
}

double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

// Sun et al. as printed: per anchor, log[1 + sum_n exp(gamma a_n (s_n - m)) sum_p exp(-gamma a_p (s_p - (1 - m)))],
// a_p = [1 + m - s_p]_+, a_n = [s_n + m]_+ taken from the similarities of `weights_from`; the mean over anchors with
// a positive and a negative. `delta_p` is 1 - m as printed (a wrong one for the negative control).
double published_circle(const torch::Tensor& e, const torch::Tensor& weights_from, const std::vector<int>& y, double m,
                        double gamma, double delta_p) {
  const auto s = e.matmul(e.t()), w = weights_from.matmul(weights_from.t());
  double total = 0;
  int anchors = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    double sum_p = 0, sum_n = 0;
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (j == i) continue;
      const double sij = s[long(i)][long(j)].item<double>(), wij = w[long(i)][long(j)].item<double>();
      if (y[i] == y[j]) sum_p += std::exp(-gamma * std::max(0.0, 1 + m - wij) * (sij - delta_p));
      else sum_n += std::exp(gamma * std::max(0.0, wij + m) * (sij - m));
    }
    if (sum_p == 0 || sum_n == 0) continue;
    total += std::log1p(sum_n * sum_p);
    ++anchors;
  }
  return total / anchors;
}

}  // namespace

TEST_CASE("Circle loss: hand value and gradient of three points, the anchor without a positive left out "
          "[Sun et al. 2020 Sec 3.2]",
          "[experiments][losses][circle]") {
  // s_ap = 0.8, s_an = 0.3, s_pn = 0.24; m = 0.25 (D_p = 0.75, D_n = 0.25, O_p = 1.25, O_n = -0.25), gamma = 2
  const auto e = torch::tensor({1.0, 0.0, 0.0, 0.8, 0.6, 0.0, 0.3, 0.0, std::sqrt(0.91)}, torch::kFloat64)
                     .reshape({3, 3})
                     .requires_grad_(true);
  const auto y = torch::tensor({0, 0, 1}, torch::kInt64);
  const auto loss = circle_value(circle_config(0.25, 2), e, y);
  // anchor a: a_p = 0.45, a_n = 0.55: z = -2(0.45)(0.05) + 2(0.55)(0.05) = 0.01; anchor p: a_n = 0.49,
  // z = -0.045 + 2(0.49)(-0.01) = -0.0548; the value is the mean of log(1 + e^z)
  const double za = 0.01, zp = -0.0548;
  CHECK_THAT(loss.item<double>(), WithinRel((std::log1p(std::exp(za)) + std::log1p(std::exp(zp))) / 2, 1e-12));
  loss.backward();
  // d/dn = (1/2)[sigma(z_a) gamma a_n^a a + sigma(z_p) gamma a_n^p p], the weights held constant
  const auto g = e.grad();
  const double gn[3] = {0.5 * (sigmoid(za) * 1.1 * 1.0 + sigmoid(zp) * 0.98 * 0.8), 0.5 * sigmoid(zp) * 0.98 * 0.6, 0};
  for (int k = 0; k < 3; ++k) CHECK_THAT(g[2][k].item<double>(), WithinAbs(gn[k], 1e-12));
  // d/da = (1/2)[sigma(z_a)(-gamma a_p p + gamma a_n n) - sigma(z_p) gamma a_p p]
  const double pa[3] = {0.8, 0.6, 0}, na[3] = {0.3, 0, std::sqrt(0.91)};
  for (int k = 0; k < 3; ++k)
    CHECK_THAT(g[0][k].item<double>(),
               WithinAbs(0.5 * (sigmoid(za) * (-0.9 * pa[k] + 1.1 * na[k]) - sigmoid(zp) * 0.9 * pa[k]), 1e-12));
  // negative control: the anchor without a positive counted as a zero term gives another mean
  CHECK(std::abs(loss.item<double>() - (std::log1p(std::exp(za)) + std::log1p(std::exp(zp))) / 3) > 1e-3);
}

TEST_CASE("Circle loss equals the published per-anchor formula on random unit embeddings, value and gradient "
          "[Sun et al. 2020 Sec 3.2-3.3]",
          "[experiments][losses][circle]") {
  auto gen = at::detail::createCPUGenerator(2020);
  const auto e0 = torch::nn::functional::normalize(torch::randn({12, 8}, gen, torch::kFloat64),
                                                   torch::nn::functional::NormalizeFuncOptions().dim(1));
  const std::vector<int> y = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  const auto labels = torch::tensor(std::vector<std::int64_t>(y.begin(), y.end()), torch::kInt64);
  const double m = 0.4, gamma = 80;  // pytorch-metric-learning's defaults
  const auto e = e0.clone().requires_grad_(true);
  const auto loss = circle_value(circle_config(m, gamma), e, labels);
  // float64 sums of exp up to e^96: the two computations agree to rounding
  CHECK_THAT(loss.item<double>(), WithinRel(published_circle(e0, e0, y, m, gamma, 1 - m), 1e-10));
  CHECK(std::abs(published_circle(e0, e0, y, m, gamma, 1 + m) - loss.item<double>()) > 1e-3);  // a D_p sign slip
  loss.backward();
  // central differences of the published formula with the weights frozen at e0: autograd's gradient (h = 1e-6:
  // truncation ~h^2 x third derivative, rounding ~1e-16 / h, both far below 1e-6)
  const double h = 1e-6;
  double worst = 0, worst_unfrozen = 0;
  for (long i : {0L, 4L, 11L})
    for (long k : {0L, 3L, 7L}) {
      auto up = e0.clone(), down = e0.clone();
      up[i][k] += h;
      down[i][k] -= h;
      const double fd = (published_circle(up, e0, y, m, gamma, 1 - m) - published_circle(down, e0, y, m, gamma, 1 - m)) / (2 * h);
      const double fd_unfrozen =
          (published_circle(up, up, y, m, gamma, 1 - m) - published_circle(down, down, y, m, gamma, 1 - m)) / (2 * h);
      const double g = e.grad()[i][k].item<double>();
      worst = std::max(worst, std::abs(fd - g) / std::max(1.0, std::abs(g)));
      worst_unfrozen = std::max(worst_unfrozen, std::abs(fd_unfrozen - g) / std::max(1.0, std::abs(g)));
    }
  CHECK(worst < 1e-6);
  CHECK(worst_unfrozen > 1e-3);  // negative control: weights that follow the similarities give another gradient
}
