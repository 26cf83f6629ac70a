// Anchor-neighbour sampling ([HTL] Sec 4.2): l' x m classes x t images, the neighbours the nearest classes, and clear
// errors where the batch cannot be drawn.
#include "dmlbench/experiments/anchor_neighbour_sampler.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace dmlbench::experiments;

namespace {

// 8 classes on a line at positions 0, 1, 10, 11, 20, 21, 30, 31: each class's nearest other class is its pair
std::vector<double> line_distances() {
  const std::vector<double> pos = {0, 1, 10, 11, 20, 21, 30, 31};
  std::vector<double> d;
  for (double p : pos)
    for (double q : pos) d.push_back((p - q) * (p - q));
  return d;
}

std::vector<std::vector<std::int64_t>> items_per_class(int classes, int per) {
  std::vector<std::vector<std::int64_t>> items(static_cast<std::size_t>(classes));
  for (int k = 0; k < classes; ++k)
    for (int i = 0; i < per; ++i) items[std::size_t(k)].push_back(100 * k + i);
  return items;
}

}  // namespace

TEST_CASE("anchor-neighbour batches: l' x m classes x t images, each anchor with its nearest class [HTL Sec 4.2]",
          "[experiments][data]") {
  const auto d = line_distances();
  const auto items = items_per_class(8, 6);
  std::mt19937_64 rng(5);
  for (int draw = 0; draw < 50; ++draw) {
    const auto b = anchor_neighbour_batch(d, items, {3, 2, 4}, rng);
    REQUIRE(b.size() == 3 * 2 * 4);
    std::map<std::int64_t, std::set<std::int64_t>> per;
    for (auto i : b) per[i / 100].insert(i);
    CHECK(per.size() == 6);  // l' m distinct classes
    for (const auto& [k, s] : per) CHECK(s.size() == 4);  // t distinct images each
    // classes come in (anchor, neighbour) groups of m = 2: every neighbour is the anchor's pair on the line
    for (std::size_t g = 0; g < 3; ++g) {
      const auto anchor = b[g * 8] / 100, neighbour = b[g * 8 + 4] / 100;
      CHECK(anchor / 2 == neighbour / 2);
    }
  }
  // negative control: with m = 1 no neighbour is drawn, so the groups need not be pairs: some batch breaks the rule
  bool broke = false;
  for (int draw = 0; draw < 50 && !broke; ++draw) {
    const auto b = anchor_neighbour_batch(d, items, {2, 1, 4}, rng);
    broke = (b[0] / 100) / 2 != (b[4] / 100) / 2;
  }
  CHECK(broke);
}

TEST_CASE("anchor-neighbour sampling errors: too few classes, a class with fewer than t images, a wrong table",
          "[experiments][data]") {
  const auto d = line_distances();
  std::mt19937_64 rng(1);
  CHECK_THROWS_WITH(anchor_neighbour_batch(d, items_per_class(8, 6), {5, 2, 4}, rng),
                    Catch::Contains("l' m = 10 classes per batch, but there are 8"));
  auto items = items_per_class(8, 6);
  items[3].resize(2);
  CHECK_THROWS_WITH(anchor_neighbour_batch(d, items, {1, 2, 4}, rng),
                    Catch::Contains("class 3 has 2 items, fewer than t = 4"));
  CHECK_THROWS_WITH(anchor_neighbour_batch({1.0, 2.0}, items_per_class(8, 6), {1, 2, 4}, rng),
                    Catch::Contains("2 class distances for 8 classes"));
  CHECK_NOTHROW(anchor_neighbour_batch(d, items_per_class(8, 4), {4, 2, 4}, rng));  // exactly enough: every class
}
