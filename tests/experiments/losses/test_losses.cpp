#include "dmlbench/experiments/gradient_surgery_loss.hpp"
#include "dmlbench/experiments/hierarchical_triplet_loss.hpp"
#include "dmlbench/experiments/contrastive_loss.hpp"
#include "dmlbench/experiments/l2nd_loss.hpp"
#include "dmlbench/experiments/margin_loss.hpp"
#include "dmlbench/experiments/multi_similarity_loss.hpp"
#include "dmlbench/experiments/nca_loss.hpp"
#include "dmlbench/experiments/triplet_loss.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"
#include "dmlbench/experiments/training_loss.hpp"
#include "dmlbench/theory/gradient_decomposition.hpp"

#include <catch2/catch.hpp>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// one triplet (0, 1, 2) over three given rows
MinedTriplets single() {
  MinedTriplets t;
  t.anchors = torch::tensor({0}, torch::kInt64);
  t.positives = torch::tensor({1}, torch::kInt64);
  t.negatives = torch::tensor({2}, torch::kInt64);
  return t;
}

torch::Tensor rows(std::vector<std::vector<double>> r) {
  std::vector<double> v;
  for (auto& x : r) v.insert(v.end(), x.begin(), x.end());
  return torch::tensor(v, torch::kFloat64).reshape({long(r.size()), long(r[0].size())});
}

torch::Tensor random_unit(int B, int d, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  return torch::nn::functional::normalize(torch::randn({B, d}, gen, torch::kFloat64),
                                          torch::nn::functional::NormalizeFuncOptions().dim(1));
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

}  // namespace

TEST_CASE("triplet margin loss: hand values for squared, plain Euclidean and cosine distance", "[experiments][losses]") {
  // a = (1,0), p = (0,1), n = (-1,0): |a-p|^2 = 2, |a-n|^2 = 4; S_ap = 0, S_an = -1
  const auto x = rows({{1, 0}, {0, 1}, {-1, 0}});
  CHECK_THAT(triplet_margin_loss(x, single(), 3.0, Distance::squared_euclidean).item<double>(), WithinAbs(1.0, 1e-12));
  CHECK_THAT(triplet_margin_loss(x, single(), 1.0, Distance::euclidean).item<double>(),
             WithinAbs(std::sqrt(2.0) - 2 + 1, 1e-6));  // sqrt(x + 1e-12): 1e-12 / (2 sqrt 2) below 1e-6
  CHECK_THAT(triplet_margin_loss(x, single(), 1.5, Distance::cosine).item<double>(), WithinAbs(1 - 2 + 1.5, 1e-12));
  CHECK(triplet_margin_loss(x, single(), 1.0, Distance::squared_euclidean).item<double>() == 0.0);  // satisfied
  MinedTriplets none;
  CHECK_THROWS_WITH(triplet_margin_loss(x, none, 1.0, Distance::cosine), Catch::Contains("no triplets"));
}

TEST_CASE("trimmed loss: the mean of the lowest-loss triplets, the others get no gradient [LCC Sec 5.2.5]",
          "[experiments][losses]") {
  // Four 1-D points a = 0, p1 = 1, n1 = 3, p2 = 2, n2 = 1 (rows 0..4); squared distances, margin 1:
  // triplet (0,1,2): 1 - 9 + 1 -> 0; (0,3,4): 4 - 1 + 1 = 4; (0,1,4): 1 - 1 + 1 = 1; (0,3,2): 4 - 9 + 1 -> 0.
  auto x = rows({{0}, {1}, {3}, {2}, {1}}).requires_grad_(true);
  MinedTriplets t;
  t.anchors = torch::tensor({0, 0, 0, 0}, torch::kInt64);
  t.positives = torch::tensor({1, 3, 1, 3}, torch::kInt64);
  t.negatives = torch::tensor({2, 4, 4, 2}, torch::kInt64);
  const auto terms = triplet_margin_terms(x, t, 1.0, Distance::squared_euclidean);
  // Exact: small integers in double.
  CHECK(torch::equal(terms.detach(), torch::tensor({0.0, 4.0, 1.0, 0.0}, torch::kFloat64)));
  CHECK(triplet_margin_loss(x, t, 1.0, Distance::squared_euclidean).item<double>() == 5.0 / 4);
  // trim 0.25 keeps ceil(0.75 x 4) = 3 terms: 0, 0, 1 -> 1/3; the triplet of loss 4 drops out.
  CHECK_THAT(trimmed_mean(terms, 0.25).item<double>(), WithinRel(1.0 / 3, 1e-15));  // one rounding of 1/3
  // trim 0.5 keeps 2: the two zeros.
  CHECK(trimmed_mean(terms, 0.5).item<double>() == 0.0);
  // trim 0 is the plain mean (negative control: trimming changes the value).
  CHECK(trimmed_mean(terms, 0.0).item<double>() == 5.0 / 4);
  // Gradient of the trim-0.25 loss by hand: only triplet (0,1,4) is active: d/dx of ((x0 - x1)^2 - (x0 - x4)^2) / 3
  // = x0: 2 (x0 - x1 - x0 + x4) / 3 = 0, x1: -2 (x0 - x1) / 3 = 2/3, x4: 2 (x0 - x4) / 3 = -2/3; row 3 (p2 of the
  // dropped triplet) and row 2 get nothing.
  trimmed_mean(terms, 0.25).backward();
  CHECK(torch::equal(x.grad().flatten(), torch::tensor({0.0, 2.0 / 3, 0.0, 0.0, -2.0 / 3}, torch::kFloat64)));
  CHECK_THROWS_WITH(trimmed_mean(terms, 1.0), Catch::Contains("[0, 1)"));
  CHECK_THROWS_WITH(trimmed_mean(torch::zeros({0}), 0.5), Catch::Contains("non-empty"));
  // NCA and L2nd terms average to their losses.
  const auto u = random_unit(6, 4, 3);
  MinedTriplets t2;
  t2.anchors = torch::tensor({0, 1}, torch::kInt64);
  t2.positives = torch::tensor({2, 3}, torch::kInt64);
  t2.negatives = torch::tensor({4, 5}, torch::kInt64);
  CHECK(nca_triplet_terms(u, t2, 2.0).mean().item<double>() == nca_triplet_loss(u, t2, 2.0).item<double>());
  CHECK(second_order_triplet_terms(u, t2).mean().item<double>() == second_order_triplet_loss(u, t2).item<double>());
}

TEST_CASE("NCA L1st and L2nd: value by hand and autograd gradient equal the printed updates [XHN eqs 1, 4-6, 13-16]",
          "[experiments][losses][XHN eq 16]") {
  const auto x = random_unit(3, 5, 3).requires_grad_(true);
  const auto t = single();
  const auto a = x[0].detach(), p = x[1].detach(), n = x[2].detach();
  const double sap = (a * p).sum().item<double>(), san = (a * n).sum().item<double>();
  auto l1 = nca_triplet_loss(x, t, 1.0);
  CHECK_THAT(l1.item<double>(), WithinAbs(std::log1p(std::exp(san - sap)), 1e-12));
  l1.backward();
  const double b = 1 / (1 + std::exp(sap - san));  // beta / alpha of [XHN eq 6]
  CHECK(max_abs(x.grad()[1] + b * a) < 1e-12);    // -dL/df_p = beta f_a (eq 4)
  CHECK(max_abs(x.grad()[2] - b * a) < 1e-12);    // eq 5
  CHECK(max_abs(x.grad()[0] - b * (n - p)) < 1e-12);  // eq 6
  x.mutable_grad().zero_();
  auto l2 = second_order_triplet_loss(x, t);
  CHECK_THAT(l2.item<double>(), WithinAbs(std::log1p(std::exp(0.5 * san * san - sap + 0.5 * sap * sap)), 1e-12));
  l2.backward();
  const double bw = 1 / (1 + std::exp(sap - 0.5 * sap * sap - 0.5 * san * san)), wap = 1 - sap, wan = san;
  CHECK(max_abs(x.grad()[1] + bw * wap * a) < 1e-12);                   // eq 13
  CHECK(max_abs(x.grad()[2] - bw * wan * a) < 1e-12);                   // eq 14
  CHECK(max_abs(x.grad()[0] - bw * (wan * n - wap * p)) < 1e-12);       // eq 15
}

TEST_CASE("margin loss with learnable beta: hand value and the beta gradient [LCC Sec 3]", "[experiments][losses]") {
  const auto x = rows({{0, 0}, {0.3, 0}, {0, 1}});  // D_ap = 0.09, D_an = 1
  MarginLoss m(2, 0.2, 1.2);
  m->to(torch::kFloat64);
  const auto labels = torch::tensor({0, 0, 1}, torch::kInt64);
  auto l = m->forward(x, labels, single());
  // (0.09 - 1.2 + 0.2)_+ = 0, (1.2 - 1 + 0.2)_+ = 0.4: one active term. beta is created in float32, so it holds
  // 1.2f = 1.2000000477 after the conversion to double
  CHECK_THAT(l.item<double>(), WithinAbs(double(1.2f) - 1 + 0.2, 1e-12));
  l.backward();
  CHECK_THAT(m->beta.grad()[0].item<double>(), WithinAbs(1.0, 1e-12));  // d/dbeta of (beta - D_an + alpha)
  CHECK(m->beta.grad()[1].item<double>() == 0.0);
}

TEST_CASE("contrastive loss: hand value over all pairs [LCC Sec 3]", "[experiments][losses]") {
  const auto x = rows({{0, 0}, {0.5, 0}, {0, 0.2}});
  const auto labels = torch::tensor({0, 0, 1}, torch::kInt64);
  // pairs (ordered, i != j): same (0,1),(1,0): D = 0.25; different: (0,2),(2,0): D = 0.04 -> (0.5 - 0.04)_+ = 0.46,
  // (1,2),(2,1): D = 0.29 -> 0.21. Mean over 6 ordered pairs.
  CHECK_THAT(contrastive_loss(x, labels, 0.5).item<double>(), WithinAbs((2 * 0.25 + 2 * 0.46 + 2 * 0.21) / 6, 1e-12));
}

TEST_CASE("Multi-Similarity loss equals the theory/ reference of [XGS] for one anchor, value and gradient",
          "[experiments][losses][XGS eq 12]") {
  // batch: class 0 = rows 0-2, rows 3-5 one class each. Anchors 0, 1, 2 have positives; 3-5 do not, so they mine
  // nothing. The loss is the sum of the three anchor terms, each computed by the theory/ reference (double, [XGS]
  // reconstruction), over the batch's 6 samples (Wang et al. eq 15, the default), or over the 3
  // anchors that mined (loss.ms_reduction = mined_anchors).
  const auto x = random_unit(6, 4, 5);
  namespace th = dmlbench::theory;
  th::xgs::AnchorSet set;
  auto vec = [&](int i) {
    Eigen::VectorXd v(4);
    for (int k = 0; k < 4; ++k) v(k) = x[i][k].item<double>();
    return v;
  };
  set.a = vec(0);
  set.positives = {vec(1), vec(2)};
  set.negatives = {vec(3), vec(4), vec(5)};
  th::xgs::LossParams lp;
  lp.alpha = 2;
  lp.beta = 50;
  lp.lambda = 1.0;
  const auto sel = th::xgs::ms_mining(set);
  Eigen::VectorXd stacked(24);
  for (int i = 0; i < 6; ++i) stacked.segment(4 * i, 4) = vec(i);
  std::vector<double> sv(stacked.data(), stacked.data() + 24);
  const double want = th::xgs::ms_loss(sv, 4, 2, 3, sel, lp);
  const auto labels = torch::tensor({0, 0, 0, 1, 2, 3}, torch::kInt64);
  double others = 0;  // the terms of anchors 1 and 2
  for (int i : {1, 2}) {
    th::xgs::AnchorSet s2;
    s2.a = vec(i);
    s2.positives = {vec(0), vec(i == 1 ? 2 : 1)};
    s2.negatives = {vec(3), vec(4), vec(5)};
    Eigen::VectorXd st(24);
    st << s2.a, s2.positives[0], s2.positives[1], s2.negatives[0], s2.negatives[1], s2.negatives[2];
    std::vector<double> v2(st.data(), st.data() + 24);
    others += th::xgs::ms_loss(v2, 4, 2, 3, th::xgs::ms_mining(s2), lp);
  }
  const double got = multi_similarity_loss(x, labels, 2, 50, 1.0, th::xgs::kMsMiningEpsilon).item<double>();
  // a few roundings of log1p / exp sums: relative 1e-12
  CHECK_THAT(got * 6, WithinRel(want + others, 1e-12));
  const double over_mined = multi_similarity_loss(x, labels, 2, 50, 1.0, th::xgs::kMsMiningEpsilon, false,
                                                  MsReduction::mined_anchors)
                                .item<double>();
  CHECK_THAT(over_mined * 3, WithinRel(want + others, 1e-12));
  CHECK_THAT(over_mined / got, WithinRel(2.0, 1e-12));  // the two readings differ by 6 / 3 on this batch
}

TEST_CASE("gradient surgery equals autograd where the composition is a known loss's gradient [XGS Sec 3]",
          "[experiments][losses][XGS Table 1]") {
  const auto x0 = random_unit(12, 6, 9);
  const auto labels = torch::tensor({0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}, torch::kInt64);
  auto gen = at::detail::createCPUGenerator(1);
  const auto t = mine_triplets(x0.matmul(x0.t()), labels, named_miner("EPHN"), gen);
  REQUIRE(t.anchors.size(0) == 12);
  auto grad_of = [&](auto&& loss) {
    auto x = x0.clone().requires_grad_(true);
    loss(x).backward();
    return x.grad().clone();
  };
  // cosine x constant(s) x NCA(s) == NCA triplet loss with scale s
  SurgeryConfig c;
  c.scale = 16;
  const auto g1 = grad_of([&](const torch::Tensor& x) { return gradient_surgery_loss(x, t, c); });
  const auto g2 = grad_of([&](const torch::Tensor& x) { return nca_triplet_loss(x, t, 16); });
  CHECK(max_abs(g1 - g2) <= 1e-12 * std::max(1.0, max_abs(g2)));
  // Euclidean x Euclidean pair weight x hinge (margin 4.5: always active) == squared-distance triplet loss
  c = SurgeryConfig{SurgeryDirection::euclidean, SurgeryPairWeight::euclidean, SurgeryTripletWeight::constant};
  const auto g3 = grad_of([&](const torch::Tensor& x) { return gradient_surgery_loss(x, t, c); });
  const auto g4 = grad_of([&](const torch::Tensor& x) { return triplet_margin_loss(x, t, 4.5, Distance::squared_euclidean); });
  CHECK(max_abs(g3 - g4) <= 1e-12 * std::max(1.0, max_abs(g4)));
  // negative control: the linear pair weight with the NCA triplet weight is no known loss here: it differs
  c = SurgeryConfig{SurgeryDirection::cosine, SurgeryPairWeight::linear, SurgeryTripletWeight::nca};
  const auto g5 = grad_of([&](const torch::Tensor& x) { return gradient_surgery_loss(x, t, c); });
  CHECK(max_abs(g5 - g2) > 1e-3);
  // the vectorised factors agree with theory/gradient_decomposition.hpp on the first triplet (Circle composition)
  namespace th = dmlbench::theory;
  c = SurgeryConfig{SurgeryDirection::cosine, SurgeryPairWeight::linear, SurgeryTripletWeight::circle};
  const auto a = t.anchors[0].item<std::int64_t>(), p = t.positives[0].item<std::int64_t>(), n = t.negatives[0].item<std::int64_t>();
  auto vec = [&](std::int64_t i) {
    Eigen::VectorXd v(6);
    for (int k = 0; k < 6; ++k) v(k) = x0[i][k].item<double>();
    return v;
  };
  th::Triplet tr{vec(a), vec(p), vec(n)};
  const double sap = tr.a.dot(tr.p), san = tr.a.dot(tr.n);
  const auto d = th::xgs::compose(th::xgs::Direction::cosine, th::xgs::linear_pair_weight(sap, san, 16, 0.25),
                                  th::xgs::circle_triplet_weight(sap, san, 16, 0.25), tr);
  // a batch with this triplet alone, so that no row mixes the contributions of several triplets
  MinedTriplets one;
  one.anchors = torch::tensor({a});
  one.positives = torch::tensor({p});
  one.negatives = torch::tensor({n});
  auto x = x0.clone().requires_grad_(true);
  gradient_surgery_loss(x, one, c).backward();
  for (int k = 0; k < 6; ++k) {
    CHECK_THAT(-x.grad()[p][k].item<double>(), WithinAbs(d.p(k), 1e-12));
    CHECK_THAT(-x.grad()[n][k].item<double>(), WithinAbs(d.n(k), 1e-12));
    CHECK_THAT(-x.grad()[a][k].item<double>(), WithinAbs(d.a(k), 1e-12));
  }
}

TEST_CASE("EPS + Multi-Similarity: the positive term has the anchor's most similar positive alone, negatives mined as "
          "in MS [LCC Sec 5.2.3]",
          "[experiments][losses]") {
  // one anchor class {0, 1, 2} and one negative class {3}; the anchor 0's positives: S_01 = 0.9, S_02 = 0.2;
  // negative S_03 = 0.5. Rows on the unit circle at angles giving those cosines.
  const double a1 = std::acos(0.9), a2 = -std::acos(0.2), a3 = -std::acos(0.5);
  const auto x = rows({{1, 0}, {std::cos(a1), std::sin(a1)}, {std::cos(a2), std::sin(a2)}, {std::cos(a3), std::sin(a3)}});
  const auto y = torch::tensor({0, 0, 0, 1}, torch::kInt64);
  const double alpha = 2, beta = 50, lambda = 0.5, eps = 0.1;
  const auto S = x.matmul(x.t());
  // every anchor's term by hand from S and the rules (anchor 3 has no positive and is left out, as MS does)
  double want_eps = 0, want_ms = 0;
  int used = 0;
  for (int i = 0; i < 4; ++i) {
    std::vector<int> pos, neg;
    for (int j = 0; j < 4; ++j)
      if (j != i) (y[i].item<long>() == y[j].item<long>() ? pos : neg).push_back(j);
    if (pos.empty() || neg.empty()) continue;
    double smin = 2, smax_n = -2;
    for (int j : pos) smin = std::min(smin, S[i][j].item<double>());
    for (int j : neg) smax_n = std::max(smax_n, S[i][j].item<double>());
    double ns = 0, ps_mined = 0;
    bool any_n = false, any_p = false;
    for (int j : neg)
      if (S[i][j].item<double>() > smin - eps) ns += std::exp(beta * (S[i][j].item<double>() - lambda)), any_n = true;
    for (int j : pos)
      if (S[i][j].item<double>() < smax_n + eps) ps_mined += std::exp(-alpha * (S[i][j].item<double>() - lambda)), any_p = true;
    if (!any_n) continue;
    int easiest = pos[0];
    for (int j : pos)
      if (S[i][j].item<double>() > S[i][easiest].item<double>()) easiest = j;
    const double n_term = std::log1p(ns) / beta;
    want_eps += std::log1p(std::exp(-alpha * (S[i][easiest].item<double>() - lambda))) / alpha + n_term;
    if (any_p) want_ms += std::log1p(ps_mined) / alpha + n_term;
    ++used;
  }
  REQUIRE(used > 0);
  const double got_eps = multi_similarity_loss(x, y, alpha, beta, lambda, eps, true).item<double>();
  // a handful of exp / log1p roundings: relative 1e-12; over the batch's 4 samples (Wang et al. eq 15)
  CHECK_THAT(got_eps, WithinRel(want_eps / 4, 1e-12));
  REQUIRE(used < 4);  // the premise: an anchor (3, no positive) mines nothing
  CHECK_THAT(multi_similarity_loss(x, y, alpha, beta, lambda, eps, true, MsReduction::mined_anchors).item<double>(),
             WithinRel(want_eps / used, 1e-12));
  // negative control: Wang et al.'s mined positives give another value on this batch (anchor 0 mines S_02 only)
  const double got_ms = multi_similarity_loss(x, y, alpha, beta, lambda, eps, false).item<double>();
  CHECK(std::abs(got_ms - got_eps) > 1e-3);
}

TEST_CASE("hierarchical triplet loss: hand value, the plain triplet loss with a one-level tree, gradient against "
          "finite differences [HTL Sec 4.2]",
          "[experiments][losses]") {
  // a = (0,0), p = (3,4), n = (6,8): |a-p| = 5, |a-n| = 10; alpha = 6: [5 - 10 + 6]_+ / (2 * 1) = 0.5
  {
    const auto x = rows({{0, 0}, {3, 4}, {6, 8}});
    const auto y = torch::tensor({0, 0, 1}, torch::kInt64);
    auto m = torch::zeros({2, 2}, torch::kFloat64);
    m[0][1] = 6.0;
    // the 1e-12 inside each root moves the value by about 1e-13: 1e-12 absolute
    CHECK_THAT(hierarchical_triplet_loss(x, y, single(), m).item<double>(), WithinAbs(0.5, 1e-12));
    m[0][1] = 4.0;  // inactive: 5 - 10 + 4 < 0
    CHECK_THAT(hierarchical_triplet_loss(x, y, single(), m).item<double>(), WithinAbs(0.0, 1e-12));
    CHECK_THROWS_WITH(hierarchical_triplet_loss(x, torch::tensor({0, 0, 2}, torch::kInt64), single(), m),
                      Catch::Contains("outside the 2 x 2 margin table"));
  }
  const auto x0 = random_unit(16, 5, 11);
  const auto y = torch::tensor({0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, torch::kInt64);
  auto gen = at::detail::createCPUGenerator(2);
  const auto t = mine_triplets(x0.matmul(x0.t()), y, named_miner("trip-sh"), gen);
  REQUIRE(t.anchors.size(0) == 16);
  // one level (every alpha the same, beta + const): half the plain-distance triplet loss with that margin
  const auto flat = torch::full({4, 4}, 0.7, torch::kFloat64);
  CHECK_THAT(hierarchical_triplet_loss(x0, y, t, flat).item<double>(),
             WithinRel(0.5 * triplet_margin_loss(x0, t, 0.7, Distance::euclidean).item<double>(), 1e-14));
  // a tree's margins (classes 0-1 close, 2-3 close): the anchor-negative pair decides alpha
  auto tree = torch::full({4, 4}, 1.2, torch::kFloat64);
  tree[0][1] = tree[1][0] = tree[2][3] = tree[3][2] = 0.4;
  const double v_tree = hierarchical_triplet_loss(x0, y, t, tree).item<double>();
  CHECK(std::abs(v_tree - hierarchical_triplet_loss(x0, y, t, flat).item<double>()) > 1e-3);  // control
  auto x = x0.clone().requires_grad_(true);
  hierarchical_triplet_loss(x, y, t, tree).backward();
  const auto g = x.grad();
  // central differences, h = 1e-6: truncation ~h^2 |f'''| ~ 1e-12, rounding ~1e-16 / h ~ 1e-10; no hinge within h
  // of its kink at this seed (checked: every active term exceeds 1e-4); 1e-7 absolute
  const double h = 1e-6;
  double worst = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 5; ++j) {
      auto xp = x0.clone(), xm = x0.clone();
      xp[i][j] += h;
      xm[i][j] -= h;
      const double fd = (hierarchical_triplet_loss(xp, y, t, tree).item<double>() -
                         hierarchical_triplet_loss(xm, y, t, tree).item<double>()) / (2 * h);
      worst = std::max(worst, std::abs(fd - g[i][j].item<double>()));
    }
  CHECK(worst < 1e-7);
  const auto a = x0.index({t.anchors}), p = x0.index({t.positives}), n = x0.index({t.negatives});
  const auto margin_of = tree.index({y.index({t.anchors}), y.index({t.negatives})});
  const auto terms = (a - p).norm(2, 1) - (a - n).norm(2, 1) + margin_of;
  CHECK(terms.abs().min().item<double>() > 1e-4);  // the kink check the tolerance relies on
}

TEST_CASE("HTL over all triplets of the batch equals the triplet-by-triplet loss over them, and counts the active ones "
          "[HTL Sec 4.2]",
          "[experiments][losses][HTL]") {
  const auto x0 = random_unit(12, 4, 23);
  const auto y = torch::tensor({0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3}, torch::kInt64);
  auto tree = torch::full({4, 4}, 1.1, torch::kFloat64);
  tree[0][1] = tree[1][0] = 0.3;
  tree[2][3] = 0.5;
  tree[3][2] = 0.6;  // s_{y_a} differs by anchor class: the table need not be symmetric
  // the triplets [HTL] counts: every ordered (a, p) of a class, p != a, with every n of another class
  std::vector<std::int64_t> A, P, N;
  for (int a = 0; a < 12; ++a)
    for (int p = 0; p < 12; ++p)
      for (int n = 0; n < 12; ++n)
        if (p != a && y[a].item<std::int64_t>() == y[p].item<std::int64_t>() &&
            y[n].item<std::int64_t>() != y[a].item<std::int64_t>()) {
          A.push_back(a);
          P.push_back(p);
          N.push_back(n);
        }
  MinedTriplets t;
  t.anchors = torch::tensor(A, torch::kInt64);
  t.positives = torch::tensor(P, torch::kInt64);
  t.negatives = torch::tensor(N, torch::kInt64);
  const auto all = hierarchical_triplet_loss_all(x0, y, tree);
  CHECK(all.triplets == std::int64_t(A.size()));  // 3*2*9 + 3*2*9 + 2*1*10 + 4*3*8 = 224
  CHECK(all.triplets == 224);
  // the two compute |a - b| differently (Gram matrix vs differences): 1e-12 relative
  CHECK_THAT(all.loss.item<double>(), WithinRel(hierarchical_triplet_loss(x0, y, t, tree).item<double>(), 1e-12));
  const auto a = x0.index({t.anchors}), p = x0.index({t.positives}), n = x0.index({t.negatives});
  const auto terms = (a - p).norm(2, 1) - (a - n).norm(2, 1) + tree.index({y.index({t.anchors}), y.index({t.negatives})});
  const double active = terms.gt(0).to(torch::kFloat64).mean().item<double>();
  CHECK_THAT(all.active, WithinAbs(active, 1e-15));
  CHECK(all.active > 0.0);
  CHECK(all.active < 1.0);  // the check above is not vacuous at this seed
  // negative control: a larger margin for one class pair changes the loss
  auto wider = tree.clone();
  wider[0][2] = 1.9;
  CHECK(std::abs(hierarchical_triplet_loss_all(x0, y, wider).loss.item<double>() - all.loss.item<double>()) > 1e-4);
  // gradient against the triplet-by-triplet form's autograd (checked against finite differences above)
  auto xa = x0.clone().requires_grad_(true), xb = x0.clone().requires_grad_(true);
  hierarchical_triplet_loss_all(xa, y, tree).loss.backward();
  hierarchical_triplet_loss(xb, y, t, tree).backward();
  CHECK(max_abs(xa.grad() - xb.grad()) < 1e-9);  // the 1e-12 inside each root differs at the diagonal only
  // squared distances (the units of alpha_z): the two forms agree too, and differ from the plain-distance loss
  const auto sq = hierarchical_triplet_loss_all(x0, y, tree, true);
  CHECK_THAT(sq.loss.item<double>(), WithinRel(hierarchical_triplet_loss(x0, y, t, tree, true).item<double>(), 1e-12));
  CHECK(std::abs(sq.loss.item<double>() - all.loss.item<double>()) > 1e-3);
  CHECK_THROWS_WITH(hierarchical_triplet_loss_all(x0, torch::zeros({12}, torch::kInt64), tree),
                    Catch::Contains("no triplet in the batch"));
}

// The registered MS loss reads its settings once, typed, when built; through the registry it gives
// the same bits as the formula called with the same settings, for non-default values of every one of them (a setting
// read wrongly, or not at all, shows as a difference; the control changes one setting and must differ).
TEST_CASE("the registered Multi-Similarity loss passes each of its settings to the formula [Wang et al. eq 15]",
          "[losses]") {
  const auto j = nlohmann::ordered_json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"},
      "model": {"name": "small-conv", "normalize": true}, "loss": {"name": "ms"}})");
  const auto c = parse_run_config(j, {"loss.ms_alpha=3", "loss.ms_beta=40", "loss.ms_lambda=0.7",
                                      "loss.ms_epsilon=0.2", "loss.ms_positives=easiest",
                                      "loss.ms_reduction=mined_anchors"},
                                  "/repo");
  torch::manual_seed(51);
  const auto emb = torch::nn::functional::normalize(torch::randn({12, 8}, torch::kFloat64),
                                                    torch::nn::functional::NormalizeFuncOptions().dim(1));
  const auto labels = torch::tensor({0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4}, torch::kInt64);  // 4: mines nothing
  auto loss = make_training_loss({c, 4, torch::kCPU});
  LossBatch b;
  b.embeddings = emb;
  b.labels = labels;
  const double registered = loss->forward(b).loss.item<double>();
  const double formula =
      multi_similarity_loss(emb, labels, 3, 40, 0.7, 0.2, true, MsReduction::mined_anchors).item<double>();
  CHECK(registered == formula);
  CHECK(registered != multi_similarity_loss(emb, labels, 3, 40, 0.7, 0.2, true, MsReduction::batch).item<double>());
  CHECK(registered != multi_similarity_loss(emb, labels, 3, 40, 0.7, 0.2, false, MsReduction::mined_anchors).item<double>());
}
