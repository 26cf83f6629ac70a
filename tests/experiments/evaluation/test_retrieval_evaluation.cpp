// The retrieval evaluation (retrieval_evaluation.hpp) and the query exclusion of recall_at_k: hand-computed cases,
// the tie rule, a brute-force reference on exact integer distances, and bad input.
#include "dmlbench/experiments/retrieval_evaluation.hpp"

#include "dmlbench/experiments/blas_info.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace dmlbench::experiments;
using Catch::Matchers::Contains;

namespace {

torch::Tensor matrix(const std::vector<std::vector<float>>& rows) {
  std::vector<float> v;
  for (const auto& r : rows) v.insert(v.end(), r.begin(), r.end());
  return torch::tensor(v).reshape({std::int64_t(rows.size()), std::int64_t(rows[0].size())});
}

RetrievalOptions options(std::vector<int> ks, Similarity s, bool clustering = false) {
  RetrievalOptions o;
  o.ks = std::move(ks);
  o.similarity = s;
  o.clustering = clustering;
  return o;
}

enum class MapDenominator { r, relevant_retrieved, k };

struct Reference {
  std::vector<double> recall;
  double p1 = 0, r_precision = 0, map_at_r = 0;
  std::int64_t without_positive = 0;
  std::vector<std::int64_t> ties_at_k;  // queries whose K-th and (K+1)-th nearest have equal keys
};

// Brute force over a full key matrix (smaller is nearer, exact values): every query's gallery sorted by
// (key, index), the query itself left out when exclude_self. The MAP@R denominator is a parameter so that the
// wrong variants can serve as negative controls.
Reference brute_force(const std::vector<std::vector<double>>& key, const std::vector<std::int64_t>& qy,
                      const std::vector<std::int64_t>& gy, bool exclude_self, const std::vector<int>& ks,
                      MapDenominator denominator = MapDenominator::r) {
  Reference ref;
  ref.recall.assign(ks.size(), 0);
  ref.ties_at_k.assign(ks.size(), 0);
  std::int64_t hits_k[16] = {};
  std::int64_t with_positive = 0, p1 = 0;
  double rp = 0, map = 0;
  for (std::size_t q = 0; q < qy.size(); ++q) {
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < gy.size(); ++j)
      if (!(exclude_self && j == q)) order.push_back(j);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return key[q][a] != key[q][b] ? key[q][a] < key[q][b] : a < b;
    });
    std::vector<bool> rel;
    for (auto j : order) rel.push_back(gy[j] == qy[q]);
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const auto k = std::size_t(ks[i]);
      ref.ties_at_k[i] += k < order.size() && key[q][order[k - 1]] == key[q][order[k]];
    }
    const auto R = std::size_t(std::count(rel.begin(), rel.end(), true));
    for (std::size_t i = 0; i < ks.size(); ++i)
      hits_k[i] += std::find(rel.begin(), rel.begin() + ks[i], true) != rel.begin() + ks[i];
    if (R == 0) continue;
    ++with_positive;
    p1 += rel[0];
    std::int64_t hits = 0;
    double ap = 0;
    for (std::size_t i = 0; i < R; ++i)
      if (rel[i]) ap += double(++hits) / double(i + 1);
    rp += double(hits) / double(R);
    if (denominator == MapDenominator::r) ap /= double(R);
    if (denominator == MapDenominator::relevant_retrieved) ap = hits ? ap / double(hits) : 0.0;
    if (denominator == MapDenominator::k) ap /= double(ks.back());
    map += ap;
  }
  for (std::size_t i = 0; i < ks.size(); ++i) ref.recall[i] = double(hits_k[i]) / double(qy.size());
  ref.without_positive = std::int64_t(qy.size()) - with_positive;
  ref.p1 = double(p1) / double(with_positive);
  ref.r_precision = rp / double(with_positive);
  ref.map_at_r = map / double(with_positive);
  return ref;
}

// Exact squared Euclidean distances of integer-valued points.
std::vector<std::vector<double>> squared_distances(const std::vector<std::vector<float>>& q,
                                                   const std::vector<std::vector<float>>& g) {
  std::vector<std::vector<double>> d(q.size(), std::vector<double>(g.size()));
  for (std::size_t i = 0; i < q.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j)
      for (std::size_t c = 0; c < q[i].size(); ++c) d[i][j] += double(q[i][c] - g[j][c]) * double(q[i][c] - g[j][c]);
  return d;
}

// Minus the cosine similarity, exact for the vectors of cosine_exact_points (dot / (|a| |b|) is a multiple of 1/4).
std::vector<std::vector<double>> minus_cosine(const std::vector<std::vector<float>>& q,
                                              const std::vector<std::vector<float>>& g) {
  auto norm = [](const std::vector<float>& a) {
    double s = 0;
    for (float x : a) s += double(x) * x;
    return std::sqrt(s);
  };
  std::vector<std::vector<double>> d(q.size(), std::vector<double>(g.size()));
  for (std::size_t i = 0; i < q.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j) {
      double dot = 0;
      for (std::size_t c = 0; c < q[i].size(); ++c) dot += double(q[i][c]) * g[j][c];
      d[i][j] = -dot / (norm(q[i]) * norm(g[j]));
    }
  return d;
}

// Points with coordinates in {-2..2}: squared distances are small integers, exact in float32, with many ties.
std::vector<std::vector<float>> integer_points(std::mt19937_64& rng, int n, int d) {
  std::uniform_int_distribution<int> c(-2, 2);
  std::vector<std::vector<float>> p(static_cast<std::size_t>(n), std::vector<float>(static_cast<std::size_t>(d)));
  for (auto& r : p)
    for (auto& x : r) x = float(c(rng));
  return p;
}

// 8-d points with exactly four nonzero coordinates +-s (s in 1..3): the L2-normalised vectors have entries
// +-1/2 exactly, so every float32 cosine similarity is an exact multiple of 1/4 (ties are exact).
std::vector<std::vector<float>> cosine_exact_points(std::mt19937_64& rng, int n) {
  std::vector<std::vector<float>> p;
  for (int i = 0; i < n; ++i) {
    std::vector<int> dims(8);
    std::iota(dims.begin(), dims.end(), 0);
    std::shuffle(dims.begin(), dims.end(), rng);
    const float s = float(1 + rng() % 3);
    std::vector<float> v(8, 0.0f);
    for (int k = 0; k < 4; ++k) v[std::size_t(dims[std::size_t(k)])] = rng() % 2 ? s : -s;
    p.push_back(v);
  }
  return p;
}

std::vector<std::int64_t> random_labels(std::mt19937_64& rng, int n, int classes) {
  std::vector<std::int64_t> y(static_cast<std::size_t>(n));
  for (auto& v : y) v = std::int64_t(rng() % std::uint64_t(classes));
  return y;
}

// Every metric of a level report equals the reference exactly: both sum the same terms in the same order.
void check_equal(const LevelReport& r, const Reference& ref) {
  CHECK(r.recall_at_k == ref.recall);
  CHECK(r.precision_at_1 == ref.p1);
  CHECK(r.r_precision == ref.r_precision);
  CHECK(r.map_at_r == ref.map_at_r);
  CHECK(r.queries_without_positive == ref.without_positive);
}

}  // namespace

// Seven points on a line (Euclidean), all distances distinct; labels A = {0, 2, 3}, B = {1, 4, 5}, C = {6}:
//   x:      0   1   3   7   15  31  63
//   label:  A   B   A   A   B   B   C
// Rankings (nearest first) and rel = same label, R = 2 for every query but 6:
//   q0 (A): 1B 2A 3A ...         first hit at 2; top R: 0 1 -> R-prec 1/2, AP@R = (1/2)/2 = 1/4
//   q1 (B): 0A 2A 3A 4B 5B 6C    first hit at 4; top R: 0 0 -> 0, 0
//   q2 (A): 1B 0A 3A ...         first hit at 2; 1/2, 1/4
//   q3 (A): 2A 1B 0A ...         first hit at 1; top R: 1 0 -> 1/2, (1/1)/2 = 1/2
//   q4 (B): 3A 2A 1B 0A 5B 6C    first hit at 3; 0, 0
//   q5 (B): 4B 3A ...            first hit at 1; 1/2, 1/2
//   q6 (C): no other C           no positive: a miss in Recall@K, left out of the rest
// Recall@1 = 2/7 (q3, q5), @2 = 4/7 (+ q0, q2), @4 = 6/7 (+ q1, q4); over the 6 queries with a positive:
// P@1 = 2/6, R-precision = (4 x 1/2)/6 = 1/3, MAP@R = (1/4 + 1/4 + 1/2 + 1/2)/6 = 1/4.
TEST_CASE("retrieval report on seven points on a line: hand-computed Recall@K, P@1, R-precision and MAP@R",
          "[experiments][metrics]") {
  const std::vector<std::vector<float>> pts = {{0}, {1}, {3}, {7}, {15}, {31}, {63}};
  const std::vector<std::int64_t> y = {0, 1, 0, 0, 1, 1, 2};
  const auto r = retrieval_report(matrix(pts), {{"class", y}}, options({1, 2, 4}, Similarity::euclidean));
  REQUIRE(r.levels.size() == 1);
  const auto& l = r.levels[0];
  // exact: each value is one integer count (or a sum of exact binary fractions) divided once
  CHECK(l.recall_at_k == std::vector<double>{2.0 / 7, 4.0 / 7, 6.0 / 7});
  CHECK(l.precision_at_1 == 2.0 / 6);
  CHECK(l.r_precision == 2.0 / 6);
  CHECK(l.map_at_r == 0.25);
  CHECK(l.queries == 7);
  CHECK(l.queries_without_positive == 1);
  CHECK(r.recall_ties_at_k == std::vector<std::int64_t>{0, 0, 0});
  // the reference agrees; MAP@R variants with the wrong denominator (relevant items retrieved, or K) do not
  const auto key = squared_distances(pts, pts);
  check_equal(l, brute_force(key, y, y, true, {1, 2, 4}));
  CHECK(brute_force(key, y, y, true, {1, 2, 4}, MapDenominator::relevant_retrieved).map_at_r == 0.5);
  CHECK(brute_force(key, y, y, true, {1, 2, 4}, MapDenominator::k).map_at_r != l.map_at_r);
  // JSON: the per-level fields, Recall@K keyed by K
  const nlohmann::ordered_json j = r;
  CHECK(j["metric"] == "euclidean");
  CHECK(j["levels"]["class"]["recall_at_k"]["4"] == 6.0 / 7);
  CHECK(j["levels"]["class"]["map_at_r"] == 0.25);
  CHECK(j["levels"]["class"]["queries_without_positive"] == 1);
  CHECK(j["levels"]["class"]["nmi"].is_null());  // clustering off
  CHECK(j["recall_ties_at_k"]["2"] == 0);
}

// Six co-located points, labels 0 1 1 0 1 0: every distance ties, so the ranking is the gallery index order.
//   q0 (0): 1 2 3 4 5 -> rel 0 0 1 0 1, R = 2: first hit 3, R-prec 0, AP 0
//   q1 (1): 0 2 3 4 5 -> rel 0 1 0 1 0: first hit 2, 1/2, (1/2)/2 = 1/4
//   q2 (1): 0 1 3 4 5 -> rel 0 1 0 1 0: 2, 1/2, 1/4
//   q3 (0): 0 1 2 4 5 -> rel 1 0 0 0 1: 1, 1/2, 1/2
//   q4 (1): 0 1 2 3 5 -> rel 0 1 1 0 0: 2, 1/2, 1/4
//   q5 (0): 0 1 2 3 4 -> rel 1 0 0 1 0: 1, 1/2, 1/2
// R@1 = 2/6, R@2 = 5/6, R@3 = 1; P@1 = 2/6; R-precision = 5/12; MAP@R = 7/4 / 6 = 7/24.
// Had ties gone the other way (higher index first), q0 would rank 5 (label 0) first: R@1 = 3/6.
TEST_CASE("tied distances are ranked by gallery index, lower first, for Euclidean and cosine", "[experiments][metrics]") {
  const std::vector<std::int64_t> y = {0, 1, 1, 0, 1, 0};
  for (const auto s : {Similarity::euclidean, Similarity::cosine}) {
    // cosine: all (3, 0) normalise to (1, 0) exactly, every similarity is 1
    const auto x = s == Similarity::euclidean ? torch::zeros({6, 2}) : matrix(std::vector<std::vector<float>>(6, {3, 0}));
    const auto r = retrieval_report(x, {{"class", y}}, options({1, 2, 3}, s));
    const auto& l = r.levels[0];
    CHECK(l.recall_at_k == std::vector<double>{2.0 / 6, 5.0 / 6, 1.0});
    CHECK(l.precision_at_1 == 2.0 / 6);
    CHECK(l.r_precision == 5.0 / 12);
    CHECK(l.map_at_r == 1.75 / 6);
    CHECK(r.recall_ties_at_k == std::vector<std::int64_t>{6, 6, 6});  // every query's ranking is one tie
  }
  // pytorch-metric-learning's test_tied_distances: [10], [10], [20], [20] with labels 1 0 1 0; each query's
  // co-located item (other label) is its nearest, not the query itself: precision@1 = 0
  const auto r = retrieval_report(matrix({{10}, {10}, {20}, {20}}), {{"class", {1, 0, 1, 0}}},
                                  options({1}, Similarity::euclidean));
  CHECK(r.levels[0].precision_at_1 == 0.0);
  CHECK(r.levels[0].recall_at_k[0] == 0.0);
}

// The outside cross-check's bug: recall_at_k masked the query with -1e9 on -cdist^2, so once every other squared
// distance exceeded 1e9 the query ranked as its own neighbour. Scaling by 2^14 (about 1.6e4; a power of two, so
// every float operation scales exactly and only the mask can change the ranking) must leave Recall@K unchanged.
TEST_CASE("the query is excluded by index: Recall@K of embeddings scaled by 2^14 equals the unscaled one",
          "[experiments][metrics]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::normal_distribution<float> g(0.0f, 5.0f);
  std::vector<float> v(80 * 2);
  for (auto& x : v) x = g(rng);
  const auto x = torch::tensor(v).reshape({80, 2});
  const auto y = torch::tensor(random_labels(rng, 80, 4));
  const auto scaled = x * 16384.0f;
  const std::vector<int> ks = {1, 2, 4, 8};
  const auto plain = recall_at_k(x, y, ks, Similarity::euclidean);
  CHECK(recall_at_k(scaled, y, ks, Similarity::euclidean) == plain);
  CHECK(recall_at_k(scaled, y, ks, Similarity::cosine) == recall_at_k(x, y, ks, Similarity::cosine));
  std::vector<std::int64_t> yv(y.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>() + 80);
  const auto r = retrieval_report(scaled, {{"class", yv}}, options(ks, Similarity::euclidean));
  CHECK(r.levels[0].recall_at_k == plain);
  // negative control: the old -1e9 mask on the scaled embeddings inflates Recall@K (the regime is exercised)
  auto sim = -torch::cdist(scaled, scaled).pow(2);
  sim.scatter_(1, torch::arange(80).unsqueeze(1), -1e9);
  const auto top = std::get<1>(sim.topk(8, 1));
  const auto first = torch::cumsum(y.index({top}).eq(y.unsqueeze(1)).to(torch::kInt32), 1).gt(0);
  CHECK(first.select(1, 0).sum().item<double>() / 80 > plain[0]);
  CHECK(plain[0] < 1.0);
}

TEST_CASE("the evaluation's Recall@K equals recall_at_k on random embeddings (cosine and Euclidean)",
          "[experiments][metrics]") {
  torch::manual_seed(Catch::rngSeed());
  const auto x = torch::randn({300, 16});
  const auto y = torch::randint(10, {300}, torch::kInt64);
  std::vector<std::int64_t> yv(y.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>() + 300);
  const std::vector<int> ks = {1, 2, 4, 8, 16};
  for (const auto s : {Similarity::cosine, Similarity::euclidean}) {
    const auto r = retrieval_report(x, {{"class", yv}}, options(ks, s));
    CHECK(r.levels[0].recall_at_k == recall_at_k(x, y, ks, s));  // exact: the same engine and distances
    CHECK(r.levels[0].recall_at_k[0] == r.levels[0].precision_at_1);  // every class has more than one member here
  }
}

TEST_CASE("brute-force reference on random integer embeddings with many ties: exact agreement in every block size",
          "[experiments][metrics]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const std::vector<int> ks = {1, 2, 3, 5, 10};
  for (int trial = 0; trial < 4; ++trial) {
    const int n = 40 + 17 * trial;
    const bool cosine = trial % 2 == 1;
    const auto pts = cosine ? cosine_exact_points(rng, n) : integer_points(rng, n, 3);
    const auto fine = random_labels(rng, n, 6);
    std::vector<std::int64_t> coarse;
    for (auto v : fine) coarse.push_back(v / 3);
    const auto key = cosine ? minus_cosine(pts, pts) : squared_distances(pts, pts);
    for (const std::int64_t block : {0, 1, 7}) {
      auto o = options(ks, cosine ? Similarity::cosine : Similarity::euclidean);
      o.block = block;
      const auto r = retrieval_report(matrix(pts), {{"fine", fine}, {"coarse", coarse}}, o);
      INFO("trial " << trial << ", block " << block);
      const auto ref = brute_force(key, fine, fine, true, ks);
      check_equal(r.levels[0], ref);
      check_equal(r.levels[1], brute_force(key, coarse, coarse, true, ks));
      CHECK(r.recall_ties_at_k == ref.ties_at_k);
    }
    // separate queries and gallery (In-shop): nothing excluded
    const auto queries = cosine ? cosine_exact_points(rng, 25) : integer_points(rng, 25, 3);
    const auto qy = random_labels(rng, 25, 6);
    const auto r = retrieval_report(matrix(queries), {{"fine", qy}}, matrix(pts), {{"coarse", coarse}, {"fine", fine}},
                                    options(ks, cosine ? Similarity::cosine : Similarity::euclidean));
    CHECK(r.separate_gallery);
    check_equal(r.levels[0], brute_force(cosine ? minus_cosine(queries, pts) : squared_distances(queries, pts), qy,
                                         fine, false, ks));
  }
}

TEST_CASE("queries whose class has no other member: misses in Recall@K, left out of P@1, R-precision, MAP@R",
          "[experiments][metrics]") {
  // 0 and 1 share label 7; 2 and 3 are alone. q0 and q1 are each other's nearest.
  const auto x = matrix({{0}, {1}, {5}, {9}});
  const auto r = retrieval_report(x, {{"class", {7, 7, 8, 9}}}, options({1}, Similarity::euclidean));
  CHECK(r.levels[0].queries_without_positive == 2);
  CHECK(r.levels[0].recall_at_k[0] == 0.5);
  CHECK(r.levels[0].precision_at_1 == 1.0);
  CHECK(r.levels[0].map_at_r == 1.0);
  // every query alone: Recall@K is 0, precision@1, R-precision and MAP@R are undefined (null in JSON, never NaN)
  const auto alone = retrieval_report(x, {{"class", {1, 2, 3, 4}}}, options({1}, Similarity::euclidean));
  CHECK(alone.levels[0].recall_at_k == std::vector<double>{0.0});
  CHECK(alone.levels[0].queries_without_positive == 4);
  CHECK_FALSE(alone.levels[0].precision_at_1.has_value());
  CHECK_FALSE(alone.levels[0].r_precision.has_value());
  CHECK_FALSE(alone.levels[0].map_at_r.has_value());
  const nlohmann::ordered_json j = alone;
  CHECK(j["levels"]["class"]["map_at_r"].is_null());
  CHECK(j["levels"]["class"]["precision_at_1"].is_null());
}

TEST_CASE("NMI (k = classes) and NMI+ (k = factor x classes) lie in [0, 1], and separated clusters give NMI 1",
          "[experiments][metrics]") {
  torch::manual_seed(Catch::rngSeed());
  std::vector<std::int64_t> y;
  std::vector<torch::Tensor> parts;
  for (int c = 0; c < 3; ++c) {
    parts.push_back(torch::randn({20, 2}) * 0.1 + torch::tensor({10.0f * float(c), 0.0f}));
    for (int i = 0; i < 20; ++i) y.push_back(c);
  }
  auto o = options({1}, Similarity::euclidean, true);
  o.nmi_plus_factor = 4;
  const auto r = retrieval_report(torch::cat(parts), {{"class", y}}, o);
  const auto& l = r.levels[0];
  REQUIRE(l.nmi.has_value());
  REQUIRE(l.nmi_plus.has_value());
  CHECK(l.nmi_k == 3);
  CHECK(l.nmi_plus_k == 12);
  CHECK_THAT(*l.nmi, Catch::Matchers::WithinAbs(1.0, 1e-12));  // identical partitions: 1 up to log rounding
  CHECK(*l.nmi_plus > 0.0);
  CHECK(*l.nmi_plus <= 1.0);
  // random labels on random points: in [0, 1], well below 1
  std::mt19937_64 rng(Catch::rngSeed());
  const auto rand = retrieval_report(torch::randn({60, 2}), {{"class", random_labels(rng, 60, 3)}}, o);
  CHECK(*rand.levels[0].nmi >= 0.0);
  CHECK(*rand.levels[0].nmi < 0.5);
  CHECK(*rand.levels[0].nmi_plus >= 0.0);
  CHECK(*rand.levels[0].nmi_plus <= 1.0);
  // NMI+ asking for more clusters than points
  o.nmi_plus_factor = 30;
  CHECK_THROWS_WITH(retrieval_report(torch::cat(parts), {{"class", y}}, o), Contains("NMI+ needs k = 30 x 3"));
}

TEST_CASE("retrieval report rejects bad input with one clear message", "[experiments][metrics]") {
  const auto x = matrix({{0}, {1}, {2}, {3}});
  const std::vector<LabelLevel> y = {{"class", {0, 0, 1, 1}}};
  const auto o = options({1}, Similarity::euclidean);
  CHECK_THROWS_WITH(retrieval_report(matrix({{0}, {NAN}, {2}, {3}}), y, o), Contains("NaN or infinite"));
  CHECK_THROWS_WITH(retrieval_report(matrix({{0}, {INFINITY}, {2}, {3}}), y, o), Contains("NaN or infinite"));
  CHECK_THROWS_WITH(retrieval_report(x, {{"class", {0, 0, 1}}}, o), Contains("3 labels for 4 embeddings"));
  CHECK_THROWS_WITH(retrieval_report(x, y, options({4}, Similarity::euclidean)), Contains("K = 4 must lie in [1, 3]"));
  CHECK_THROWS_WITH(retrieval_report(x, y, options({0}, Similarity::euclidean)), Contains("K = 0 must lie"));
  CHECK_THROWS_WITH(retrieval_report(x, y, options({1, 1}, Similarity::euclidean)), Contains("given twice"));
  CHECK_THROWS_WITH(retrieval_report(x, {{"a", {0, 0, 1, 1}}, {"a", {0, 0, 1, 1}}}, o), Contains("\"a\" twice"));
  CHECK_THROWS_WITH(retrieval_report(matrix({{0, 1}}), y, x, y, o), Contains("2 dimensions, gallery embeddings 1"));
  CHECK_THROWS_WITH(retrieval_report(x, {{"fine", {0, 0, 1, 1}}}, x, y, o), Contains("no level \"fine\""));
  CHECK_THROWS_WITH(retrieval_report(x, y, x, y, options({5}, Similarity::euclidean)), Contains("K = 5 must lie in [1, 4]"));
  // squared distances beyond float32 (points 1e30 apart): an error, never a ranking of infinities
  const auto huge = matrix({{0}, {1e30f}, {-1e30f}});
  const std::vector<LabelLevel> y3 = {{"class", {0, 1, 0}}};
  CHECK_THROWS_WITH(recall_at_k(huge, torch::tensor(y3[0].labels), {1}, Similarity::euclidean), Contains("overflow"));
  CHECK_THROWS_WITH(retrieval_report(huge, y3, o), Contains("overflow"));
  // cosine: a zero row has no direction
  CHECK_THROWS_WITH(retrieval_report(matrix({{1, 0}, {0, 0}, {0, 1}}), y3, options({1}, Similarity::cosine)),
                    Contains("row 1 has no direction"));
}

// Another tie rule can change a query's Recall@K only when its K-th and (K+1)-th nearest tie (the top-K set is
// otherwise unique): Recall@K by torch::topk's order of the same distances (what pytorch-metric-learning's plain
// path does) lies within recall_ties_at_k / N of the report. Integer points in {-2..2}^2 tie often; the bound is
// tight enough to fail: on these points the two rules differ somewhere (checked below), and a bound of 0 would not.
TEST_CASE("Recall@K under another tie rule (torch::topk's order) differs by at most the boundary ties over N",
          "[experiments][metrics]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const std::vector<int> ks = {1, 2, 4, 8};
  double largest_difference = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int n = 200;
    const auto pts = integer_points(rng, n, 2);
    const auto y = random_labels(rng, n, 5);
    const auto r = retrieval_report(matrix(pts), {{"class", y}}, options(ks, Similarity::euclidean));
    // the same exact squared distances, the query masked by +inf, ranked by torch::topk
    const auto x = matrix(pts);
    auto d = torch::cdist(x, x, 2.0, /*compute_mode=*/1).pow(2).round();  // donot_use_mm: exact integers
    d.fill_diagonal_(std::numeric_limits<float>::infinity());
    const auto top = std::get<1>(d.topk(8, 1, /*largest=*/false));
    const auto yt = torch::tensor(y);
    const auto first = torch::cumsum(yt.index({top}).eq(yt.unsqueeze(1)).to(torch::kInt32), 1).gt(0);
    for (std::size_t i = 0; i < ks.size(); ++i) {
      INFO("trial " << trial << ", K = " << ks[i]);
      const double topk = first.select(1, ks[i] - 1).sum().item<double>() / n;
      const double difference = std::abs(topk - r.levels[0].recall_at_k[i]) * n;  // in queries
      CHECK(difference <= double(r.recall_ties_at_k[i]) + 1e-9);  // 1e-9: the two fractions' rounding, << 1 query
      largest_difference = std::max(largest_difference, difference);
    }
  }
  // with 25 distinct points for 200 items nearly every ranking ties; the rules disagree somewhere in the 24 cases
  CHECK(largest_difference >= 1.0 - 1e-9);
}

// k-means NMI of the report equals nmi_of_kmeans (the trainer's) on the same float32 rows and seed: the same
// clustering, and labels renumbered in their numeric order (here 3, 8, 40 -> 0, 1, 2) sum NMI's terms in the same
// order. Exact, at 1 thread and at 2 (where the report's clusterings run side by side, one thread each), two levels
// (k = 3, 15, 6, 30), their cost in the order the levels ask for them.
TEST_CASE("the report's NMI and NMI+ equal nmi_of_kmeans on the same rows, seed and labels", "[experiments][metrics]") {
  torch::manual_seed(Catch::rngSeed());
  const auto x = torch::randn({150, 3});
  std::mt19937_64 rng(Catch::rngSeed());
  std::vector<std::int64_t> y, fine;
  for (auto v : random_labels(rng, 150, 3)) y.push_back(v == 0 ? 40 : v == 1 ? 3 : 8);
  for (auto v : random_labels(rng, 150, 6)) fine.push_back(v);
  auto o = options({1}, Similarity::euclidean, true);
  o.nmi_plus_factor = 5;
  o.kmeans_seed = 11;
  const auto yt = torch::tensor(y), ft = torch::tensor(fine);
  const int was = torch::get_num_threads();
  for (int threads : {1, 2}) {
    INFO("threads " << threads);
    set_compute_threads(threads);
    const auto r = retrieval_report(x, {{"class", y}, {"fine", fine}}, o);
    CHECK(*r.levels[0].nmi == nmi_of_kmeans(x, yt, 3, 11));
    CHECK(*r.levels[0].nmi_plus == nmi_of_kmeans(x, yt, 15, 11));
    CHECK(*r.levels[1].nmi == nmi_of_kmeans(x, ft, 6, 11));
    CHECK(*r.levels[1].nmi_plus == nmi_of_kmeans(x, ft, 30, 11));
    std::vector<int> ks;
    for (const auto& c : r.clustering_cost) ks.push_back(c.first);
    CHECK(ks == std::vector<int>{3, 15, 6, 30});
  }
  set_compute_threads(was);
  const auto r = retrieval_report(x, {{"class", y}}, o);
  // negative control: another seed changes NMI+ (15 clusters of 150 random points; k-means++ seeding differs)
  CHECK(*r.levels[0].nmi_plus != nmi_of_kmeans(x, yt, 15, 12));
}
