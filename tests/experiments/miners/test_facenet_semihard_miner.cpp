// trip-shp, [LCC] Sec 5.2.3's printed Trip+SH baseline as FaceNet Sec 3.2 defines it (experiments/src/miners/
// facenet_semihard_miner.cpp): every anchor-positive pair, each with its own semi-hard negative.
#include "dmlbench/experiments/batch_miner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace dmlbench::experiments;

namespace {

// The mined triplets as a flat list a0, p0, n0, a1, p1, n1, ... (printable by Catch).
std::vector<std::int64_t> triplets_of(const MinedTriplets& m) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < m.anchors.size(0); ++i)
    for (const auto* t : {&m.anchors, &m.positives, &m.negatives}) out.push_back((*t)[i].item<std::int64_t>());
  return out;
}

// Whether the flat list holds the triplet (a, p, n).
bool holds(const std::vector<std::int64_t>& flat, std::int64_t a, std::int64_t p, std::int64_t n) {
  for (std::size_t i = 0; i + 2 < flat.size(); i += 3)
    if (flat[i] == a && flat[i + 1] == p && flat[i + 2] == n) return true;
  return false;
}

// Points on the unit circle at the given angles (degrees).
torch::Tensor circle(const std::vector<double>& degrees) {
  std::vector<double> v;
  for (double d : degrees) {
    v.push_back(std::cos(d * M_PI / 180));
    v.push_back(std::sin(d * M_PI / 180));
  }
  return torch::tensor(v, torch::kFloat64).reshape({long(degrees.size()), 2});
}

}  // namespace

// Batch: class 0 at 0, 30, 70 degrees (indices 0-2); class 1 at 50, 105 (3-4); class 2 alone at 190 (5). Anchor 0:
// positives 30 deg (S = 0.866) and 70 deg (0.342); negatives 50 deg (0.643), 105 deg (-0.259), 190 deg (-0.985). Its
// pair with 30 deg takes 50 deg (the most similar negative below 0.866), its pair with 70 deg takes 105 deg (50 deg
// is above 0.342). The expected list is computed by hand from cos(angle difference); no chosen negative is within
// 0.05 of a competitor or of its positive, so the rounding of cos cannot change it.
TEST_CASE("trip-shp mines every anchor-positive pair with its own semi-hard negative, singletons skipped "
          "[LCC Sec 5.2.3, FaceNet Sec 3.2]",
          "[experiments][miners]") {
  const auto x = circle({0, 30, 70, 50, 105, 190});
  const auto sim = x.matmul(x.t());
  const auto y = torch::tensor(std::vector<std::int64_t>{0, 0, 0, 1, 1, 2});
  auto gen = at::detail::createCPUGenerator(Catch::rngSeed());
  const auto m = mine_triplets(sim, y, named_miner("trip-shp"), gen);
  const std::vector<std::int64_t> expected = {0, 1, 3, 0, 2, 4, 1, 0, 4, 1, 2, 4, 2, 0, 5, 2, 1, 5, 3, 4, 5, 4, 3, 1};
  CHECK(triplets_of(m) == expected);
  CHECK(m.skipped_no_positive == 1);  // the singleton at 190 degrees: an anchor of no pair, still a negative
  CHECK(m.skipped_no_negative == 0);
  CHECK(miner_spec("trip-shp").positive == PositiveChoice::all);

  // negative controls: one positive per anchor gives one triplet per anchor (5, not 8); the easy positive's pair
  // alone ([XHN] EPSHN) misses anchor 0's pair with 70 deg; a negative shared by all pairs of an anchor (the one of
  // its easy positive) would give (0, 2, 3), not (0, 2, 4)
  const auto sh = mine_triplets(sim, y, named_miner("trip-sh"), gen);
  CHECK(sh.anchors.size(0) == 5);
  CHECK(triplets_of(sh) != expected);
  const auto ep = triplets_of(mine_triplets(sim, y, named_miner("EPSHN"), gen));
  CHECK(!holds(ep, 0, 2, 4));
  CHECK(!holds(expected, 0, 2, 3));
  CHECK(holds(ep, 0, 1, 3));  // the pair both rules share

  // a feature in at most one triplet ([XHN] Sec 6.1) has no room for every pair: refused, saying why
  MinerConfig disjoint = named_miner("trip-shp");
  disjoint.one_triplet_per_feature = true;
  CHECK_THROWS_WITH(mine_triplets(sim, y, disjoint, gen), Catch::Contains("all positives"));
}

// Random embeddings (24 x 6, 4 classes of 6, unit norm): the mined list is exactly every ordered same-class pair once,
// and each negative is the brute-force semi-hard one (most similar negative with S_an < S_ap, else the least similar).
TEST_CASE("trip-shp equals a brute-force loop over all anchor-positive pairs on random batches [LCC Sec 5.2.3]",
          "[experiments][miners]") {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto gen = at::detail::createCPUGenerator(seed);
    auto e = torch::randn({24, 6}, gen, torch::kFloat64);
    e = e / e.norm(2, 1, true);
    const auto y = torch::arange(24, torch::kInt64).remainder(4);
    const auto sim = e.matmul(e.t());
    const auto got = triplets_of(mine_triplets(sim, y, named_miner("trip-shp"), gen));
    std::vector<std::int64_t> want;
    const auto S = sim.accessor<double, 2>();
    for (std::int64_t a = 0; a < 24; ++a)
      for (std::int64_t p = 0; p < 24; ++p) {
        if (p == a || y[p].item<std::int64_t>() != y[a].item<std::int64_t>()) continue;
        std::int64_t semi = -1, easiest = -1;
        for (std::int64_t n = 0; n < 24; ++n) {
          if (y[n].item<std::int64_t>() == y[a].item<std::int64_t>()) continue;
          if (S[a][n] < S[a][p] && (semi < 0 || S[a][n] > S[a][semi])) semi = n;
          if (easiest < 0 || S[a][n] < S[a][easiest]) easiest = n;
        }
        want.insert(want.end(), {a, p, semi >= 0 ? semi : easiest});
      }
    CHECK(got.size() == 3 * 24 * 5);
    CHECK(got == want);
  }
}
