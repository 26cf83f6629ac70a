// The exact kNN engine (exact_knn.hpp): every neighbour list against a brute-force ranking on integer embeddings
// (all float32 arithmetic exact, so ties are exact), for both backends, both distances, awkward tile and block sizes
// and per-query list lengths; the two backends against each other on random floats; the memory bound; bad input.
#include "dmlbench/experiments/exact_knn.hpp"
#include "dmlbench/experiments/candidate_scan.hpp"
#include "dmlbench/experiments/nmi.hpp"
#include "dmlbench/experiments/phase_clock.hpp"
#include "dmlbench/experiments/retrieval_metrics.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <limits>
#include <random>

using namespace dmlbench::experiments;
using Catch::Matchers::Contains;

namespace {

// rows x dims integers in [-2, 2]: every dot product and squared norm is a small integer, exact in float32
torch::Tensor integer_rows(std::mt19937_64& rng, int rows, int dims) {
  std::vector<float> v(std::size_t(rows * dims));
  for (auto& x : v) x = float(int(rng() % 5) - 2);
  return torch::tensor(v).reshape({rows, dims});
}

using Lists = std::vector<std::vector<std::pair<float, std::uint32_t>>>;

// Brute force in double over exact integers: each query's gallery sorted by (distance, row), the first wanted(q).
// lower_row_first = false is the opposite tie rule, a negative control.
Lists brute_force(const torch::Tensor& q, const torch::Tensor& g, Similarity s, bool exclude_self,
                  const std::function<std::int64_t(std::int64_t)>& wanted, bool lower_row_first = true) {
  const auto qa = q.to(torch::kFloat64).contiguous(), ga = g.to(torch::kFloat64).contiguous();
  const double* qp = qa.data_ptr<double>();
  const double* gp = ga.data_ptr<double>();
  const std::int64_t dims = q.size(1);
  auto dot = [dims](const double* a, const double* b) {
    double t = 0;
    for (std::int64_t k = 0; k < dims; ++k) t += a[k] * b[k];
    return t;
  };
  Lists out(std::size_t(q.size(0)));
  for (std::int64_t i = 0; i < q.size(0); ++i) {
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::int64_t j = 0; j < g.size(0); ++j) {
      if (exclude_self && i == j) continue;
      const double* a = qp + i * dims;
      const double* b = gp + j * dims;
      const double d = s == Similarity::cosine ? -dot(a, b) : dot(a, a) + dot(b, b) - 2 * dot(a, b);
      all.push_back({d, std::uint32_t(j)});
    }
    std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : (lower_row_first ? a.second < b.second : a.second > b.second);
    });
    const auto m = std::min<std::int64_t>(wanted(i), std::int64_t(all.size()));
    for (std::int64_t k = 0; k < m; ++k) out[std::size_t(i)].push_back({float(all[std::size_t(k)].first), all[std::size_t(k)].second});
  }
  return out;
}

Lists engine(const torch::Tensor& q, const torch::Tensor& g, const KnnOptions& o,
             const std::function<std::int64_t(std::int64_t)>& wanted, KnnStats* stats = nullptr) {
  Lists out(std::size_t(q.size(0)));
  std::vector<int> visits(std::size_t(q.size(0)), 0);
  std::mutex m;
  const auto st = exact_knn(q, g, o, wanted, [&](std::int64_t i, const Neighbour* nb, std::int64_t count) {
    std::lock_guard<std::mutex> lock(m);
    ++visits[std::size_t(i)];
    for (std::int64_t k = 0; k < count; ++k) out[std::size_t(i)].push_back({nb[k].distance, nb[k].index});
  });
  CHECK(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));  // each query once
  if (stats) *stats = st;
  return out;
}

// Lists of equal rows at equal distances, with ties: two lists can differ in order only where distances tie.
std::int64_t ties_in(const Lists& lists) {
  std::int64_t t = 0;
  for (const auto& l : lists)
    for (std::size_t k = 1; k < l.size(); ++k) t += l[k].first == l[k - 1].first;
  return t;
}

}  // namespace

TEST_CASE("exact_knn equals a brute-force ranking with exact ties: both backends, distances, tilings and lengths",
          "[experiments][metrics][knn]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const auto x = integer_rows(rng, 301, 5);   // 3^5... few distinct distances: nearly every list has ties
  const auto qx = integer_rows(rng, 47, 5);
  // per-query lengths from 1 to the whole gallery (past it: capped)
  const auto wanted = [](std::int64_t i) { return i % 11 == 0 ? std::int64_t(1000) : 1 + (i * 7) % 60; };
  for (const auto s : {Similarity::cosine, Similarity::euclidean}) {
    const auto self_ref = brute_force(x, x, s, true, wanted);
    const auto cross_ref = brute_force(qx, x, s, false, wanted);
    CHECK(ties_in(self_ref) > 1000);  // the tie rule is exercised
    // negative control: the opposite tie rule gives other lists on these points
    CHECK(brute_force(x, x, s, true, wanted, false) != self_ref);
    for (const auto backend : {KnnBackend::native, KnnBackend::torch_ops})
      for (const auto& [block, tile] : std::vector<std::pair<int, int>>{{0, 0}, {7, 13}, {1, 37}, {64, 300}, {301, 301}}) {
        INFO("similarity " << int(s) << " backend " << int(backend) << " block " << block << " tile " << tile);
        KnnOptions o;
        o.similarity = s;
        o.backend = backend;
        o.query_block = block;
        o.gallery_tile = tile;
        o.exclude_self = true;
        CHECK(engine(x, x, o, wanted) == self_ref);
        o.exclude_self = false;
        CHECK(engine(qx, x, o, wanted) == cross_ref);
      }
  }
}

TEST_CASE("the two backends give the same neighbours and distance bits on random floats",
          "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  const auto x = torch::randn({500, 24});
  const auto wanted = [](std::int64_t i) { return 1 + i % 40; };
  for (const auto s : {Similarity::cosine, Similarity::euclidean}) {
    KnnOptions o;
    o.similarity = s;
    o.exclude_self = true;
    o.gallery_tile = 128;
    o.backend = KnnBackend::native;
    const auto native = engine(x, x, o, wanted);
    o.backend = KnnBackend::torch_ops;
    CHECK(engine(x, x, o, wanted) == native);
    // and the ranking is the one of the distances the engine states (non-decreasing along each list)
    for (const auto& l : native)
      for (std::size_t k = 1; k < l.size(); ++k) CHECK(l[k - 1].first <= l[k].first);
  }
}

// The search's slices are fixed (512 queries) and each thread multiplies and scans whole ones, so the lists and
// their distance bits do not depend on the thread count or on the scan's build (AVX-512, AVX2, generic: whichever
// run here). Random floats through several tiles and slices; long lists, so that candidates are kept many times.
TEST_CASE("exact_knn gives the same lists and bits on 1 and 2 threads and with every scan build",
          "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  const auto x = torch::randn({700, 16});
  const auto wanted = [](std::int64_t i) { return 1 + (i * 37) % 300; };
  const int threads = at::get_num_threads();
  for (const auto s : {Similarity::cosine, Similarity::euclidean}) {
    KnnOptions o;
    o.similarity = s;
    o.exclude_self = true;
    o.gallery_tile = 160;
    at::set_num_threads(1);
    ::setenv("DMLBENCH_SCAN_ISA", "generic", 1);
    const auto reference = engine(x, x, o, wanted);
    for (const auto isa : {ScanIsa::generic, ScanIsa::avx2, ScanIsa::avx512}) {
      if (!scan_isa_runs_here(isa)) continue;
      ::setenv("DMLBENCH_SCAN_ISA", scan_isa_name(isa), 1);
      for (const int t : {1, 2}) {
        INFO("similarity " << int(s) << " scan " << scan_isa_name(isa) << " threads " << t);
        at::set_num_threads(t);
        CHECK(engine(x, x, o, wanted) == reference);
      }
    }
    ::unsetenv("DMLBENCH_SCAN_ISA");
    // negative control: another row order of the gallery gives other lists (the comparison sees the rows)
    CHECK(engine(x.flip(0), x.flip(0), o, wanted) != reference);
  }
  at::set_num_threads(threads);
}

TEST_CASE("exact_knn holds one tile of distances and candidate buffers within its bound", "[experiments][metrics][knn]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const auto x = integer_rows(rng, 2000, 8);
  KnnOptions o;
  o.similarity = Similarity::euclidean;
  o.exclude_self = true;
  o.gallery_tile = 256;
  o.candidate_bytes = 64 * 1024;  // forces blocks of 64 KiB / (8 x (2 x 50 + 32)) = 62 queries
  KnnStats st;
  const auto lists = engine(x, x, o, [](std::int64_t) { return std::int64_t(50); }, &st);
  CHECK(st.peak_candidate_bytes <= o.candidate_bytes);
  CHECK(st.peak_candidate_bytes > 0);
  CHECK(st.query_blocks == (2000 + 61) / 62);
  CHECK(st.tile_bytes == 62 * 256 * 4);  // one slice of a block (62 queries) by one tile, per thread
  CHECK(st.tiles == st.query_blocks * 8);
  CHECK(st.flops == 2.0 * 2000 * 2000 * 8);
  CHECK(lists == brute_force(x, x, Similarity::euclidean, true, [](std::int64_t) { return std::int64_t(50); }));
}

TEST_CASE("exact_knn rejects bad input with a clear error", "[experiments][metrics][knn]") {
  const auto x = torch::randn({10, 4});
  const auto none = [](std::int64_t, const Neighbour*, std::int64_t) {};
  const auto one = [](std::int64_t) { return std::int64_t(1); };
  KnnOptions o;
  CHECK_THROWS_WITH(exact_knn(x, torch::randn({10, 5}), o, one, none), Contains("5"));
  CHECK_THROWS_WITH(exact_knn(x, x, o, [](std::int64_t) { return std::int64_t(0); }, none), Contains("wants 0"));
  o.exclude_self = true;
  CHECK_THROWS_WITH(exact_knn(x, torch::randn({9, 4}), o, one, none), Contains("queries to be the gallery"));
  CHECK_THROWS_WITH(exact_knn(x.slice(0, 0, 1), x.slice(0, 0, 1), o, one, none), Contains("no gallery row"));
  o.exclude_self = false;
  o.similarity = Similarity::euclidean;
  CHECK_THROWS_WITH(exact_knn(x * 1e19f, x, o, one, none), Contains("overflow float32"));
  CHECK_THROWS_WITH(exact_knn(x.to(torch::kFloat64), x.to(torch::kFloat64), o, one, none), Contains("float32"));
}

// Lloyd's assignment step reads the argmin of each row of scores: row_minimum must give torch::min(1)'s values and
// columns bit for bit, ties to the first column and a NaN propagated. Integer scores make ties common; rows of -0 and
// +0, NaN rows, and widths below, at and above the 16 lanes are the awkward points.
TEST_CASE("row_minimum equals torch::min over rows, ties to the first column", "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  for (const std::int64_t k : {1, 5, 16, 17, 40, 600}) {
    auto score = torch::randint(-3, 4, {300, k}).to(torch::kFloat32);
    score[0] = 0.0f;
    score[1] = -0.0f;
    if (k > 1) score[1][k - 1] = 0.0f;
    score[2][k - 1] = std::numeric_limits<float>::quiet_NaN();
    score[3][0] = std::numeric_limits<float>::quiet_NaN();
    const auto [best, at] = row_minimum(score);
    const auto [want_best, want_at] = score.min(1);
    CHECK(at.equal(want_at));
    CHECK(torch::equal(best.isnan(), want_best.isnan()));
    CHECK(torch::equal(best.nan_to_num(), want_best.nan_to_num()));
    CHECK(std::signbit(best[1].item<float>()) == std::signbit(want_best[1].item<float>()));
    if (k >= 16) {  // negative control: the last of the tied columns differs somewhere, so the rule is tested
      const auto last = (k - 1) - std::get<1>(score.flip(1).min(1));
      CHECK_FALSE(last.equal(want_at));
    }
  }
  CHECK_THROWS_WITH(row_minimum(torch::zeros({3, 0})), Contains("at least one column"));
}

// The assignment step in blocks of rows (large N) gives the assignment of one block, and its cost is reported.
TEST_CASE("k-means in blocks of rows equals k-means in one block, with its cost per iteration",
          "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  const auto x = torch::randn({3000, 16});
  KMeansStats whole, blocked;
  KMeansOptions one, small;
  one.block_bytes = std::int64_t(1) << 30;
  small.block_bytes = 4 * 20 * 7;  // 7 rows per block
  const auto a = kmeans(x, 20, 5, one, &whole);
  const auto b = kmeans(x, 20, 5, small, &blocked);
  CHECK(a == b);
  CHECK(whole.iterations == blocked.iterations);
  CHECK(whole.iterations >= 2);
  CHECK(whole.seeding == "k-means++");
  CHECK(blocked.flops_per_iteration == 2.0 * 3000 * 20 * 16);
  CHECK(blocked.seconds_per_iteration > 0);
  CHECK(kmeans(x, 20, 6, 100) != a);  // negative control: another seed, another clustering
}

// [Arthur and Vassilvitskii 2007] k-means++ with the triangle-inequality pruning draws the same centres as with a pass
// over every row (the same D^2 bits), reading fewer rows; clustered points, so that the pruning has work to skip.
TEST_CASE("k-means++ seeding pruned by the triangle inequality equals the full pass and reads fewer rows",
          "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  const auto centres = torch::randn({40, 8}) * 6;
  const auto x = centres.index({torch::randint(40, {4000})}) + torch::randn({4000, 8});
  KMeansOptions pruned, full;
  full.prune_seeding = false;
  KMeansStats sp, sf;
  const auto a = kmeans(x, 40, 3, pruned, &sp);
  const auto b = kmeans(x, 40, 3, full, &sf);
  CHECK(a == b);
  CHECK(sf.rows_read == 4000 * 40);
  CHECK(sp.rows_read < sf.rows_read / 2);
  CHECK(sp.iterations == sf.iterations);
  // awkward points: duplicated rows (D^2 = 0 for several rows at once) and k = N
  const auto dup = torch::cat({x.slice(0, 0, 50), x.slice(0, 0, 50)});
  CHECK(kmeans(dup, 60, 1, pruned) == kmeans(dup, 60, 1, full));
  CHECK(kmeans(x.slice(0, 0, 30), 30, 2, pruned) == kmeans(x.slice(0, 0, 30), 30, 2, full));
}

// [Bahmani et al. 2012] k-means|| where N k d is over the budget: it recovers well-separated clusters as k-means++
// does, and says which seeding ran; an option out of range is an error.
TEST_CASE("k-means parallel seeding (Bahmani et al.) above the budget recovers separated clusters and bad options are refused",
          "[experiments][metrics][knn]") {
  torch::manual_seed(Catch::rngSeed());
  const auto centres = torch::randn({10, 4}) * 50;
  const auto y = torch::randint(10, {2000});
  const auto x = centres.index({y}) + torch::randn({2000, 4});
  KMeansOptions o;
  o.exact_seeding_budget = 1;  // every N k d is above it
  KMeansStats st;
  const auto c = kmeans(x, 10, 4, o, &st);
  CHECK(st.seeding.rfind("k-means||", 0) == 0);
  CHECK(st.candidates >= 10);
  std::vector<int> labels(y.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>() + 2000);
  CHECK(normalized_mutual_information(c, labels) > 0.95);
  CHECK(normalized_mutual_information(kmeans(x, 10, 4), labels) > 0.95);
  // negative control: two clusters for ten groups cannot recover them
  CHECK(normalized_mutual_information(kmeans(x, 2, 4), labels) < 0.7);
  KMeansOptions bad;
  bad.parallel_rounds = 0;
  CHECK_THROWS_WITH(kmeans(x, 10, 4, bad), Catch::Contains("rounds"));
  bad = KMeansOptions{};
  bad.iterations = 0;
  CHECK_THROWS_WITH(kmeans(x, 10, 4, bad), Catch::Contains("iteration"));
}

// The profile's clock: laps add up per phase in first-use order; a null clock times nothing.
TEST_CASE("phase clock adds laps per phase in first-use order", "[experiments][metrics]") {
  PhaseClock clock;
  clock.add("forward", 1.5);
  clock.add("backward", 2.0);
  clock.add("forward", 0.25);
  { PhaseClock::Lap lap(&clock, "eval"); }
  { PhaseClock::Lap lap(nullptr, "nothing"); }
  const auto j = clock.to_json();
  std::vector<std::string> order;
  for (const auto& [k, v] : j["seconds"].items()) order.push_back(k);
  CHECK(order == std::vector<std::string>{"forward", "backward", "eval"});
  CHECK(j["seconds"]["forward"].get<double>() == 1.75);  // 1.5 + 0.25, exact in binary
  CHECK(j["seconds"]["eval"].get<double>() >= 0.0);
  CHECK(j["timed"].get<double>() >= 3.75);
  CHECK_FALSE(j["seconds"].contains("nothing"));
}
