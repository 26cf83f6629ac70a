// count_subclusters: the letters that stay apart inside an alphabet ([LCC] Sec 5.2.6, Fig 2), on hand-made points.
#include "dmlbench/experiments/subcluster_count.hpp"

#include <catch2/catch.hpp>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;

TEST_CASE("sub-clusters by hand: an alphabet with its letters apart counts each, a collapsed one counts one "
          "[LCC Sec 5.2.6]",
          "[experiments][metrics]") {
  // alphabet 0: letters 0, 1, 2 at (0,0), (10,0), (0,10), each two images at +-0.5 in y (radius 0.5): 3 components.
  // alphabet 1: letters 3, 4, 5 all around (50,50) with the same +-0.5 spread: centroids coincide, 1 component.
  std::vector<double> v;
  std::vector<std::int64_t> coarse, fine;
  auto add = [&](double cx, double cy, std::int64_t a, std::int64_t l) {
    for (double dy : {-0.5, 0.5}) {
      v.insert(v.end(), {cx, cy + dy});
      coarse.push_back(a);
      fine.push_back(l);
    }
  };
  add(0, 0, 0, 0);
  add(10, 0, 0, 1);
  add(0, 10, 0, 2);
  for (std::int64_t l : {3, 4, 5}) add(50, 50, 1, l);
  const auto emb = torch::tensor(v, torch::kFloat64).reshape({std::int64_t(fine.size()), 2});
  const auto r = count_subclusters(emb, coarse, fine);
  CHECK(r.coarse_classes == 2);
  // (3/3 + 1/3) / 2 and (3 + 1) / 2, exact in binary up to one rounding of 1/3: 1e-15
  CHECK_THAT(r.mean_surviving, WithinAbs((1.0 + 1.0 / 3.0) / 2.0, 1e-15));
  CHECK_THAT(r.mean_subclusters, WithinAbs(2.0, 1e-15));
  CHECK_THAT(r.mean_fine_classes, WithinAbs(3.0, 1e-15));
  // the threshold is the letters' radius: letter 1 moved to 0.9 from letter 0 (closer than 0.5? no: 0.9 > 0.5) stays
  // apart, moved to 0.4 (< 0.5) merges
  for (auto [x1, want] : {std::pair{0.9, 1.0}, std::pair{0.4, 2.0 / 3.0}}) {
    auto e2 = emb.clone();
    e2[2][0] = x1;
    e2[3][0] = x1;
    CHECK_THAT(count_subclusters(e2, coarse, fine).mean_surviving, WithinAbs((want + 1.0 / 3.0) / 2.0, 1e-15));
  }
}

TEST_CASE("sub-clusters need nested levels and one label per row", "[experiments][metrics]") {
  const auto emb = torch::zeros({4, 2}, torch::kFloat64);
  // fine class 7 in coarse classes 0 and 1: the levels do not nest (negative control of the nesting check)
  CHECK_THROWS_WITH(count_subclusters(emb, {0, 0, 1, 1}, {7, 7, 7, 8}), Catch::Contains("do not nest"));
  CHECK_THROWS_WITH(count_subclusters(emb, {0, 0, 1}, {1, 2, 3, 4}), Catch::Contains("one coarse and one fine"));
  CHECK_NOTHROW(count_subclusters(emb, {0, 0, 1, 1}, {7, 7, 8, 8}));
}
