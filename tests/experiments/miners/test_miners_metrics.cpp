#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/nmi.hpp"
#include "dmlbench/experiments/retrieval_metrics.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;

namespace {

// Points on the unit circle at the given angles (degrees).
torch::Tensor circle(std::initializer_list<double> degrees) {
  std::vector<double> v;
  for (double d : degrees) {
    v.push_back(std::cos(d * M_PI / 180));
    v.push_back(std::sin(d * M_PI / 180));
  }
  return torch::tensor(v, torch::kFloat64).reshape({long(degrees.size()), 2});
}

torch::Tensor labels(std::initializer_list<std::int64_t> l) { return torch::tensor(std::vector<std::int64_t>(l)); }

// the mined (positive, negative) of an anchor, or (-1, -1) when it was skipped
std::pair<std::int64_t, std::int64_t> of(const MinedTriplets& m, std::int64_t a) {
  for (std::int64_t i = 0; i < m.anchors.size(0); ++i)
    if (m.anchors[i].item<std::int64_t>() == a) return {m.positives[i].item<std::int64_t>(), m.negatives[i].item<std::int64_t>()};
  return {-1, -1};
}

}  // namespace

// Batch: class 0 at 0, 10, 60 degrees (indices 0-2); class 1 at 20, 90 (3-4); class 2 alone at 180 (5).
// For anchor 0: positives 10 deg (S = 0.985, easy) and 60 deg (S = 0.5, hard); negatives 20 deg (0.940, hard),
// 90 deg (0), 180 deg (-1, easy).
TEST_CASE("miners on a hand-made batch: easy/hard positives and hard/easy/semi-hard negatives, singletons skipped",
          "[experiments][miners]") {
  const auto x = circle({0, 10, 60, 20, 90, 180});
  const auto sim = x.matmul(x.t());
  const auto y = labels({0, 0, 0, 1, 1, 2});
  auto gen = at::detail::createCPUGenerator(Catch::rngSeed());
  auto run = [&](const std::string& name) { return mine_triplets(sim, y, named_miner(name), gen); };
  const auto ephn = run("EPHN");
  CHECK(of(ephn, 0) == std::pair<std::int64_t, std::int64_t>{1, 3});
  CHECK(ephn.skipped_no_positive == 1);  // the singleton at 180 degrees
  CHECK(of(ephn, 5).first == -1);
  CHECK(ephn.anchors.size(0) == 5);
  CHECK(of(run("HPHN"), 0) == std::pair<std::int64_t, std::int64_t>{2, 3});
  CHECK(of(run("EPEN"), 0) == std::pair<std::int64_t, std::int64_t>{1, 5});
  // semi-hard after the easy positive (S_ap = 0.985): the most similar negative below it is 20 deg
  CHECK(of(run("EPSHN"), 0) == std::pair<std::int64_t, std::int64_t>{1, 3});
  // semi-hard after the hard positive (S_ap = 0.5): 20 deg is too similar, 90 deg is the closest below
  MinerConfig hp_sh{PositiveChoice::hard, NegativeChoice::semi_hard};
  CHECK(of(mine_triplets(sim, y, hp_sh, gen), 0) == std::pair<std::int64_t, std::int64_t>{2, 4});
  // anchor 3 (20 deg, class 1): its only positive is 90 deg (S = 0.342); no negative is less similar except 180 deg
  // (S = -0.940) -> semi-hard picks it; with the fallback rule an anchor without any takes its least similar negative
  CHECK(of(run("EPSHN"), 3) == std::pair<std::int64_t, std::int64_t>{4, 5});
  // random choices stay inside the right sets
  for (int trial = 0; trial < 50; ++trial) {
    const auto r = run("random");
    for (std::int64_t i = 0; i < r.anchors.size(0); ++i) {
      const auto a = r.anchors[i].item<std::int64_t>(), p = r.positives[i].item<std::int64_t>(),
                 n = r.negatives[i].item<std::int64_t>();
      CHECK(p != a);
      CHECK(y[p].item<std::int64_t>() == y[a].item<std::int64_t>());
      CHECK(y[n].item<std::int64_t>() != y[a].item<std::int64_t>());
    }
  }
  CHECK_THROWS_WITH(named_miner("EPXX"), Catch::Contains("unknown miner"));
  CHECK_THROWS_WITH(mine_triplets(sim, labels({0, 1}), named_miner("EPHN"), gen), Catch::Contains("one label"));
}

TEST_CASE("distance-weighted negatives follow 1/q(d) (Wu et al. 2017) and never pick the anchor's class",
          "[experiments][miners]") {
  // anchor at 0 deg with one positive; negatives at 40, 100, 150 deg. In dimension n = 3 the density of pairwise
  // distances is q(d) ~ d (1 - d^2/4)^0 = d, so the weights are 1/d (distances clipped below at 0.5).
  const auto x = circle({0, 5, 40, 100, 150});
  const auto sim = x.matmul(x.t());
  const auto y = labels({0, 0, 1, 2, 3});
  MinerConfig c{PositiveChoice::random, NegativeChoice::distance_weighted};
  c.dw_dim = 3;
  c.dw_nonzero_loss_cutoff = 2.1;  // admit every negative
  auto gen = at::detail::createCPUGenerator(Catch::rngSeed());
  std::vector<double> w, count(5, 0.0);
  for (double deg : {40.0, 100.0, 150.0}) w.push_back(1.0 / std::max(0.5, 2 * std::sin(deg * M_PI / 360)));
  const double wsum = w[0] + w[1] + w[2];
  const int draws = 6000;
  for (int d = 0; d < draws; ++d) {
    const auto m = mine_triplets(sim, y, c, gen);
    const auto n = of(m, 0).second;
    REQUIRE(n >= 2);
    count[std::size_t(n)] += 1;
  }
  for (int k = 0; k < 3; ++k) {
    const double p = w[std::size_t(k)] / wsum, f = count[std::size_t(k + 2)] / draws;
    const double se = std::sqrt(p * (1 - p) / draws);
    INFO("negative " << k << ": expected " << p << ", drawn " << f);
    CHECK(std::abs(f - p) < 4 * se);
  }
}

TEST_CASE("Recall@K with the query excluded, on a hand-made case", "[experiments][metrics]") {
  // 1-D-like: labels 0,0,1,1. Item 0's nearest other item is item 2 (wrong), its second is item 1 (right).
  const auto x = circle({0, 30, 10, 40});
  const auto y = labels({0, 0, 1, 1});
  // item 0: nearest 10 (label 1) then 30 (0) -> miss at K=1, hit at K=2
  // item 1 (30): nearest 40 (1) then 10 (1)... -> miss at 1; at 2: 40, 10 both label 1 -> miss; at 3: hit
  // item 2 (10): nearest 0 (0) -> miss; then 30 (0) -> miss; then 40 (1) -> hit at 3
  // item 3 (40): nearest 30 (0) -> miss; then 10 (1) -> hit at 2
  const auto r = recall_at_k(x, y, {1, 2, 3});
  CHECK_THAT(r[0], WithinAbs(0.0, 1e-12));
  CHECK_THAT(r[1], WithinAbs(0.5, 1e-12));
  CHECK_THAT(r[2], WithinAbs(1.0, 1e-12));
  // the query itself never counts: duplicates of a lone item are not a hit for it
  const auto z = recall_at_k(circle({0, 0, 90}), labels({0, 1, 1}), {1});
  CHECK_THAT(z[0], WithinAbs(0.0, 1e-12));  // item 0's nearest is item 1 (label 1); items 1, 2: nearest are 0 / 0
  CHECK_THROWS_WITH(recall_at_k(x, y, {4}), Catch::Contains("[1, N-1]"));
}

TEST_CASE("NMI: hand values (scikit-learn's arithmetic normalisation), and k-means NMI on separated blobs",
          "[experiments][metrics]") {
  CHECK_THAT(normalized_mutual_information({0, 0, 0, 1}, {0, 0, 1, 1}), WithinAbs(0.3437110184854508, 1e-15));
  CHECK_THAT(normalized_mutual_information({0, 0, 1, 1, 2, 2}, {0, 0, 0, 1, 1, 1}), WithinAbs(0.5158037429793888, 1e-15));
  CHECK_THAT(normalized_mutual_information({0, 0, 1, 1}, {0, 1, 0, 1}), WithinAbs(0.0, 1e-15));
  CHECK_THAT(normalized_mutual_information({5, 5, 7, 7}, {1, 1, 0, 0}), WithinAbs(1.0, 1e-15));
  // three tight blobs: k-means with k = 3 recovers them exactly
  auto gen = at::detail::createCPUGenerator(Catch::rngSeed());
  std::vector<torch::Tensor> parts;
  std::vector<std::int64_t> lab;
  for (int c = 0; c < 3; ++c) {
    parts.push_back(torch::randn({20, 4}, gen, torch::kFloat64) * 0.01 + 5.0 * c);
    for (int i = 0; i < 20; ++i) lab.push_back(c);
  }
  const auto pts = torch::cat(parts);
  CHECK_THAT(nmi_of_kmeans(pts, torch::tensor(lab), 3, 1), WithinAbs(1.0, 1e-12));
  CHECK(kmeans(pts, 3, 7) == kmeans(pts, 3, 7));  // seeded
  CHECK_THROWS_WITH(kmeans(pts, 0, 1), Catch::Contains("k must lie"));
}

TEST_CASE("eps-distance-weighted: each anchor's most similar positive with a distance-weighted negative [LCC Sec 5.2.3]",
          "[experiments][miners]") {
  auto gen0 = at::detail::createCPUGenerator(3);
  const auto x = torch::nn::functional::normalize(torch::randn({24, 16}, gen0, torch::kFloat64),
                                                  torch::nn::functional::NormalizeFuncOptions().dim(1));
  const auto y = torch::arange(24, torch::kInt64).floor_divide(6);
  const auto sim = x.matmul(x.t());
  auto gen = at::detail::createCPUGenerator(5);
  const auto t = mine_triplets(sim, y, named_miner("eps-distance-weighted"), gen);
  REQUIRE(t.anchors.size(0) == 24);
  const auto same = y.unsqueeze(0).eq(y.unsqueeze(1)).logical_and(torch::eye(24, torch::kBool).logical_not());
  const auto easiest = torch::where(same, sim, torch::full_like(sim, -9.0)).argmax(1);
  CHECK(t.positives.equal(easiest));
  CHECK(y.index({t.negatives}).ne(y.index({t.anchors})).all().item<bool>());
  // negative control: the plain distance-weighted miner draws random positives, which differ from the easiest here
  auto gen2 = at::detail::createCPUGenerator(5);
  const auto r = mine_triplets(sim, y, named_miner("distance-weighted"), gen2);
  CHECK_FALSE(r.positives.equal(easiest));
}

TEST_CASE("one triplet per feature: a hand-made batch, whichever anchor comes first [XHN Sec 6.1]",
          "[experiments][miners][XHN]") {
  // items 0, 1 of class 0 and 2, 3 of class 1; each item's two negatives have distinct similarities
  const auto sim = torch::tensor(std::vector<double>{1, .5, .9, .1,  .5, 1, .2, .8,  .9, .2, 1, .5,  .1, .8, .5, 1},
                                 torch::kFloat64).reshape({4, 4});
  const auto y = labels({0, 0, 1, 1});
  // anchor -> (its only positive, its most similar negative) and (..., its least similar negative)
  const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> hard = {{0, {1, 2}}, {1, {0, 3}}, {2, {3, 0}}, {3, {2, 1}}},
                                                                      easy = {{0, {1, 3}}, {1, {0, 2}}, {2, {3, 1}}, {3, {2, 0}}};
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (const auto& [miner, want] : {std::pair{"EPHN", hard}, std::pair{"EPEN", easy}}) {
      auto c = named_miner(miner);
      c.one_triplet_per_feature = true;
      const auto m = mine_triplets(sim, y, c, at::detail::createCPUGenerator(seed));
      // four features: one triplet takes three, the fourth has no free positive left
      REQUIRE(m.anchors.size(0) == 1);
      CHECK(m.skipped_no_positive == 1);
      const auto a = m.anchors[0].item<std::int64_t>();
      CHECK(std::pair{m.positives[0].item<std::int64_t>(), m.negatives[0].item<std::int64_t>()} == want.at(a));
    }
  }
  auto dw = named_miner("distance-weighted");
  dw.one_triplet_per_feature = true;
  CHECK_THROWS_WITH(mine_triplets(sim, y, dw, at::detail::createCPUGenerator(1)), Catch::Contains("distance-weighted"));
}

TEST_CASE("one triplet per feature on random batches: no feature twice, every triplet valid, as many as fit "
          "[XHN Sec 6.1]", "[experiments][miners][XHN]") {
  auto gen = at::detail::createCPUGenerator(20261123);
  std::vector<std::int64_t> yv;
  for (int c = 0; c < 8; ++c)
    for (int i = 0; i < 4; ++i) yv.push_back(c);
  const auto y = torch::tensor(yv);
  for (const char* miner : {"EPHN", "HPHN", "EPEN", "EPSHN", "random", "trip-sh"}) {
    const auto e = torch::nn::functional::normalize(torch::randn({32, 5}, gen, torch::kFloat64),
                                                    torch::nn::functional::NormalizeFuncOptions().dim(1));
    auto c = named_miner(miner);
    c.one_triplet_per_feature = true;
    const auto m = mine_triplets(e.matmul(e.t()), y, c, gen);
    INFO(miner);
    std::vector<int> seen(32, 0);
    for (std::int64_t i = 0; i < m.anchors.size(0); ++i) {
      const auto a = m.anchors[i].item<std::int64_t>(), p = m.positives[i].item<std::int64_t>(),
                 n = m.negatives[i].item<std::int64_t>();
      CHECK(yv[std::size_t(a)] == yv[std::size_t(p)]);
      CHECK(yv[std::size_t(a)] != yv[std::size_t(n)]);
      CHECK(a != p);
      for (auto j : {a, p, n}) ++seen[std::size_t(j)];
    }
    CHECK(*std::max_element(seen.begin(), seen.end()) == 1);
    // 32 features make at most 10 disjoint triplets; each class of 4 gives at least one anchor-positive pair
    CHECK(m.anchors.size(0) <= 10);
    CHECK(m.anchors.size(0) >= 8);
    // negative control: the usual miner reuses features (32 anchors, one triplet each)
    const auto usual = mine_triplets(e.matmul(e.t()), y, named_miner(miner), gen);
    CHECK(usual.anchors.size(0) == 32);
  }
}
