// [HTL] Sec 4.1-4.2: class distances, the merge thresholds d_l, the class tree and the dynamic violate margin, on
// hand-made distance matrices worked out here and on random unit features (pinned seed).
#include "dmlbench/theory/hierarchical_class_tree.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

using namespace dmlbench::theory;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

ClassDistances hand(Eigen::MatrixXd d, double d0, std::vector<double> inner) {
  ClassDistances cd;
  for (Eigen::Index c = 0; c < d.rows(); ++c) cd.classes.push_back(c);
  cd.d = std::move(d);
  cd.d0 = d0;
  cd.inner = Eigen::Map<Eigen::VectorXd>(inner.data(), Eigen::Index(inner.size()));
  return cd;
}

Eigen::MatrixXd random_unit_rows(int n, int dim, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  Eigen::MatrixXd x(n, dim);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < dim; ++j) x(i, j) = g(rng);
  x.rowwise().normalize();
  return x;
}

}  // namespace

TEST_CASE("class distances and d_0 equal the pairwise means by brute force [HTL Sec 4.1]", "[theory][HTL]") {
  std::mt19937_64 rng(20261123);
  const auto x = random_unit_rows(40, 6, rng);
  std::vector<std::int64_t> y;
  for (int i = 0; i < 40; ++i) y.push_back(i % 5 == 0 ? 7 : i % 3);  // classes 0, 1, 2, 7 of uneven sizes
  const auto cd = class_distances(x, y);
  REQUIRE(cd.classes == std::vector<std::int64_t>{0, 1, 2, 7});
  double d0 = 0;
  for (std::size_t p = 0; p < 4; ++p) {
    double inner = 0, pairs = 0;
    for (std::size_t q = 0; q < 4; ++q) {
      double sum = 0, n = 0;
      for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 40; ++j)
          if (y[std::size_t(i)] == cd.classes[p] && y[std::size_t(j)] == cd.classes[q]) {
            const double v = (x.row(i) - x.row(j)).squaredNorm();
            sum += v, n += 1;
            if (p == q && i != j) inner += v, pairs += 1;
          }
      // the closed form |r_i|^2 + |r_j|^2 - 2 mu_p . mu_q against the sum of 40^2 terms: rounding ~1e-15 per
      // term, cancellation in the closed form ~1e-14; 1e-12 absolute on values in [0, 4]
      CHECK_THAT(cd.d(Eigen::Index(p), Eigen::Index(q)), WithinAbs(sum / n, 1e-12));
    }
    CHECK_THAT(cd.inner(Eigen::Index(p)), WithinAbs(inner / pairs, 1e-12));
    d0 += inner / pairs / 4;
  }
  CHECK_THAT(cd.d0, WithinAbs(d0, 1e-12));
  // unit vectors: every distance in [0, 4] ([HTL]: "varies from 0 to 4")
  CHECK(cd.d.minCoeff() >= 0);
  CHECK(cd.d.maxCoeff() <= 4);
}

TEST_CASE("thresholds and merges on a hand-made matrix [HTL Sec 4.1]", "[theory][HTL]") {
  // classes 0-1 at 0.5, 2-3 at 1.0, every other pair 3.0; d_0 = 0.4, L = 4:
  // d_l = l (4 - 0.4) / 4 + 0.4 = 0.4, 1.3, 2.2, 3.1, 4.0
  Eigen::MatrixXd d(4, 4);
  d << 0.3, 0.5, 3.0, 3.0,  //
      0.5, 0.3, 3.0, 3.0,   //
      3.0, 3.0, 0.5, 1.0,   //
      3.0, 3.0, 1.0, 0.5;
  const auto cd = hand(d, 0.4, {0.3, 0.35, 0.45, 0.5});
  for (auto link : {Linkage::single, Linkage::average, Linkage::complete}) {
    const auto t = build_class_tree(cd, 4, link);
    REQUIRE(t.levels() == 4);
    const std::vector<double> want = {0.4, 1.3, 2.2, 3.1, 4.0};
    for (std::size_t l = 0; l < want.size(); ++l) CHECK_THAT(t.threshold[l], WithinAbs(want[l], 1e-15));
    CHECK(t.nodes(0) == 4);  // nothing closer than 0.4
    CHECK(t.nodes(1) == 2);  // {0,1} at 0.5 and {2,3} at 1.0 < 1.3
    CHECK(t.nodes(2) == 2);
    CHECK(t.nodes(3) == 1);  // the cross distances 3.0 < 3.1 under every linkage
    CHECK(t.merge_level(0, 1) == 1);
    CHECK(t.merge_level(2, 3) == 1);
    CHECK(t.merge_level(0, 3) == 3);
    // alpha_z = beta + d_H - s_{y_a}: anchor 0 (s = 0.3) against class 1 (level 1) and class 2 (level 3)
    CHECK_THAT(dynamic_violate_margin(t, cd, 0, 1), WithinAbs(0.1 + 1.3 - 0.3, 1e-15));
    CHECK_THAT(dynamic_violate_margin(t, cd, 0, 2), WithinAbs(0.1 + 3.1 - 0.3, 1e-15));
    CHECK_THAT(dynamic_violate_margin(t, cd, 3, 0, 0.2), WithinAbs(0.2 + 3.1 - 0.5, 1e-15));
  }
}

TEST_CASE("the linkage decides a chain: single merges it, average and complete do not [HTL Sec 4.1]",
          "[theory][HTL]") {
  // a-b 1.0, b-c 1.0, a-c 3.5; d_0 = 0.1, L = 4: d_1 = 1.075. Single: {a,b,c} at level 1. Average: {a,b}, then
  // ({a,b}, c) = (3.5 + 1.0) / 2 = 2.25 >= 1.075, apart until d_3 = 3.025. Complete: 3.5, apart until d_4 = 4.
  Eigen::MatrixXd d(3, 3);
  d << 0.05, 1.0, 3.5,  //
      1.0, 0.05, 1.0,   //
      3.5, 1.0, 0.05;
  const auto cd = hand(d, 0.1, {0.1, 0.1, 0.1});
  CHECK(build_class_tree(cd, 4, Linkage::single).merge_level(0, 2) == 1);
  CHECK(build_class_tree(cd, 4, Linkage::average).merge_level(0, 2) == 3);
  CHECK(build_class_tree(cd, 4, Linkage::complete).merge_level(0, 2) == 4);
  // negative control: a and b themselves merge at level 1 whatever the linkage (only one distance between them)
  for (auto link : {Linkage::single, Linkage::average, Linkage::complete})
    CHECK(build_class_tree(cd, 4, link).merge_level(0, 1) == 1);
}

TEST_CASE("properties on random features: nested partitions, one merge level per pair, the margin grows with tree "
          "distance [HTL Sec 4.1-4.2]",
          "[theory][HTL]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    const int C = 12;
    Eigen::MatrixXd x(C * 5, 8);
    std::vector<std::int64_t> y;
    const auto centres = random_unit_rows(C, 8, rng);
    const auto noise = random_unit_rows(C * 5, 8, rng);
    for (int i = 0; i < C * 5; ++i) {
      x.row(i) = (centres.row(i % C) + 0.6 * noise.row(i)).normalized();
      y.push_back(i % C);
    }
    const auto cd = class_distances(x, y);
    for (auto link : {Linkage::single, Linkage::average, Linkage::complete}) {
      const auto t = build_class_tree(cd, 15, link);
      for (int l = 1; l <= t.levels(); ++l) {
        CHECK(t.nodes(l) <= t.nodes(l - 1));
        for (int a = 0; a < C; ++a)  // coarser: classes together below stay together
          for (int b = 0; b < C; ++b)
            if (t.node[std::size_t(l - 1)][std::size_t(a)] == t.node[std::size_t(l - 1)][std::size_t(b)])
              CHECK(t.node[std::size_t(l)][std::size_t(a)] == t.node[std::size_t(l)][std::size_t(b)]);
      }
      for (int a = 0; a < C; ++a)
        for (int b = 0; b < C; ++b) {
          const int h = t.merge_level(a, b);
          if (a == b) {
            CHECK(h == 0);
            continue;
          }
          REQUIRE(h >= 0);  // unit features with noise: no distance reaches 4
          CHECK(h == t.merge_level(b, a));
          for (int other = 0; other < C; ++other) {  // alpha grows with the level where the classes merge
            const int h2 = t.merge_level(a, other);
            if (h2 > h) CHECK(dynamic_violate_margin(t, cd, a, other) > dynamic_violate_margin(t, cd, a, b));
          }
        }
    }
  }
}

TEST_CASE("bad input: a one-sample class, mismatched lengths, non-finite features, L < 1 [HTL Sec 4.1]",
          "[theory][HTL]") {
  Eigen::MatrixXd x = Eigen::MatrixXd::Identity(3, 3);
  CHECK_THROWS_WITH(class_distances(x, {0, 0, 1}), Catch::Contains("class 1 has one sample"));
  CHECK_THROWS_WITH(class_distances(x, {0, 0}), Catch::Contains("3 feature rows for 2 labels"));
  x(0, 0) = std::nan("");
  CHECK_THROWS_WITH(class_distances(x, {0, 0, 0}), Catch::Contains("NaN or infinite"));
  const auto cd = class_distances(Eigen::MatrixXd::Identity(4, 4), {0, 0, 1, 1});
  CHECK_THROWS_WITH(build_class_tree(cd, 0), Catch::Contains("levels L must be >= 1"));
  CHECK_THROWS_WITH(linkage_from_name("ward"), Catch::Contains("not single, average or complete"));
  CHECK_NOTHROW(build_class_tree(cd, 1));
}

namespace {

// The plain agglomeration: every merge recomputes every pair's linkage distance from the
// members, scanning pairs in node order and taking the first strictly smaller (the reference of the test below).
// `last_on_tie` takes the last of equal pairs instead: the negative control.
ClassTree recomputing_class_tree(const ClassDistances& cd, int levels, Linkage linkage, bool last_on_tie = false) {
  const auto C = int(cd.classes.size());
  ClassTree t;
  std::vector<std::vector<int>> members(static_cast<std::size_t>(C));
  for (int c = 0; c < C; ++c) members[std::size_t(c)] = {c};
  auto dist = [&](const std::vector<int>& a, const std::vector<int>& b) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0, sum = 0;
    for (int i : a)
      for (int j : b) lo = std::min(lo, cd.d(i, j)), hi = std::max(hi, cd.d(i, j)), sum += cd.d(i, j);
    return linkage == Linkage::single ? lo : linkage == Linkage::complete ? hi : sum / double(a.size() * b.size());
  };
  for (int l = 0; l <= levels; ++l) {
    const double th = double(l) * (4.0 - cd.d0) / double(levels) + cd.d0;
    t.threshold.push_back(th);
    for (;;) {
      double best = std::numeric_limits<double>::infinity();
      std::size_t bi = 0, bj = 0;
      for (std::size_t i = 0; i < members.size(); ++i)
        for (std::size_t j = i + 1; j < members.size(); ++j) {
          const double v = dist(members[i], members[j]);
          if (v < best || (last_on_tie && v == best)) best = v, bi = i, bj = j;
        }
      if (!(best < th)) break;
      members[bi].insert(members[bi].end(), members[bj].begin(), members[bj].end());
      members.erase(members.begin() + std::ptrdiff_t(bj));
    }
    std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
      return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
    });
    std::vector<int> at(static_cast<std::size_t>(C));
    for (std::size_t k = 0; k < members.size(); ++k)
      for (int c : members[k]) at[std::size_t(c)] = int(k);
    t.node.push_back(at);
  }
  return t;
}

}  // namespace

// The tree keeps each pair's distance between merges instead of recomputing all of them per merge;
// the trees are the recomputing agglomeration's exactly (every level's nodes, every threshold), on random unit
// features (pinned seed) and on awkward matrices: distances from {0.5, 1, ..., 3.5} so that most pairs tie, and a
// matrix that is not exactly symmetric (as class_distances' product can be in its last bits), where a sum's order
// decides. Negative control: breaking ties the other way gives another tree on the tied matrices.
TEST_CASE("the class tree with kept pair distances is the recomputing agglomeration's exactly [HTL Sec 4.1]",
          "[theory][HTL]") {
  std::mt19937_64 rng(30);
  int tie_trees_that_differ = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int C = 3 + int(rng() % 60), per = 2 + int(rng() % 3);
    std::vector<std::int64_t> labels;
    for (int c = 0; c < C; ++c)
      for (int k = 0; k < per; ++k) labels.push_back(c);
    const auto from_features = class_distances(random_unit_rows(C * per, 2 + int(rng() % 6), rng), labels);
    auto tied = from_features, skewed = from_features;
    std::uniform_int_distribution<int> step(1, 7);
    for (int i = 0; i < C; ++i)
      for (int j = i; j < C; ++j) tied.d(i, j) = tied.d(j, i) = i == j ? 0.0 : 0.5 * step(rng);
    for (int i = 0; i < C; ++i)
      for (int j = 0; j < C; ++j) skewed.d(i, j) *= 1.0 + (i < j ? 1e-15 : -1e-15) * double((i * 7 + j) % 5);
    for (const ClassDistances* cd : std::vector<const ClassDistances*>{&from_features, &tied, &skewed})
      for (auto link : {Linkage::single, Linkage::average, Linkage::complete}) {
        INFO("trial " << trial << ", " << C << " classes, matrix " << (cd == &tied ? "tied" : cd == &skewed ? "skewed" : "features")
                      << ", linkage " << int(link));
        const auto ours = build_class_tree(*cd, 6, link), ref = recomputing_class_tree(*cd, 6, link);
        CHECK(ours.node == ref.node);
        CHECK(ours.threshold == ref.threshold);
        if (cd == &tied && recomputing_class_tree(*cd, 6, link, true).node != ref.node) ++tie_trees_that_differ;
      }
  }
  CHECK(tie_trees_that_differ > 0);  // the tied matrices do decide by the tie rule
}
