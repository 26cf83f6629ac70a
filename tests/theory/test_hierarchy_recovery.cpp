// How well a tree level recovers a known grouping (beyond [HTL]: purity, inverse purity, NMI), worked by hand.
#include "dmlbench/theory/hierarchy_recovery.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace dmlbench::theory;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

// Tolerances: each value is a sum of at most six logs or ratios of small integers: a few ulps; 1e-12 relative.
TEST_CASE("partition agreement of a hand-made pair of partitions [HTL Sec 4.1, beyond the paper]", "[theory][HTL]") {
  const std::vector<std::int64_t> a = {0, 0, 1, 1, 2, 2}, b = {0, 0, 0, 1, 1, 1};
  const auto r = partition_agreement(a, b);
  // joint counts (0,0)=2 (1,0)=1 (1,1)=1 (2,1)=2: purity (2+1+2)/6, inverse purity (2+2)/6,
  // I = 2 * (1/3) ln 2, H(a) = ln 3, H(b) = ln 2, NMI = 2I / (H(a) + H(b)) = 4 ln 2 / (3 ln 6)
  CHECK_THAT(r.purity, WithinRel(5.0 / 6.0, 1e-12));
  CHECK_THAT(r.inverse_purity, WithinRel(4.0 / 6.0, 1e-12));
  CHECK_THAT(r.nmi, WithinRel(4 * std::log(2.0) / (3 * std::log(6.0)), 1e-12));
  CHECK(r.groups_a == 3);
  CHECK(r.groups_b == 2);
  // negative control: the two purities are not symmetric, so swapping the partitions must swap them
  const auto s = partition_agreement(b, a);
  CHECK_THAT(s.purity, WithinRel(4.0 / 6.0, 1e-12));
  CHECK_THAT(s.nmi, WithinRel(r.nmi, 1e-12));
}

TEST_CASE("partition agreement: identical partitions score 1 whatever the names, a shuffled one less [HTL Sec 4.1, beyond the paper]",
          "[theory][HTL]") {
  std::vector<std::int64_t> a, renamed;
  for (int c = 0; c < 60; ++c) {
    a.push_back(c / 10);
    renamed.push_back(100 - 7 * (c / 10));
  }
  const auto same = partition_agreement(a, renamed);
  CHECK_THAT(same.purity, WithinAbs(1.0, 1e-12));
  CHECK_THAT(same.inverse_purity, WithinAbs(1.0, 1e-12));
  CHECK_THAT(same.nmi, WithinAbs(1.0, 1e-12));
  std::mt19937_64 rng(20261123);
  auto shuffled = a;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const auto r = partition_agreement(a, shuffled);
  CHECK(r.nmi < 0.5);  // six groups of ten shuffled: the expected NMI of chance is about 0.1
  CHECK(r.purity < 0.7);
  CHECK_THROWS_AS(partition_agreement(a, std::vector<std::int64_t>(59, 0)), std::invalid_argument);
  CHECK_THROWS_AS(partition_agreement({}, {}), std::invalid_argument);
}

TEST_CASE("the tree level closest in node count to the known groups, ties to the lower level [HTL Sec 4.1, beyond the paper]",
          "[theory][HTL]") {
  const std::vector<std::vector<int>> node = {{0, 1, 2, 3, 4, 5}, {0, 0, 1, 1, 2, 2}, {0, 0, 0, 0, 0, 0}};
  const std::vector<std::int64_t> known = {0, 0, 0, 1, 1, 1};
  const auto r = closest_level_agreement(node, known);  // levels 1 (3 nodes) and 2 (1 node) are both 1 from 2 groups
  CHECK(r.level == 1);
  CHECK(r.nodes == 3);
  CHECK_THAT(r.agreement.purity, WithinRel(5.0 / 6.0, 1e-12));
  const auto exact = closest_level_agreement({{0, 1, 2, 3, 4, 5}, {0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 0}}, known);
  CHECK(exact.level == 1);
  CHECK_THAT(exact.agreement.nmi, WithinAbs(1.0, 1e-12));
  CHECK_THROWS_AS(closest_level_agreement({}, known), std::invalid_argument);
}
