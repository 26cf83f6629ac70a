// The how-to-extend examples (tests/extend/example_*) are live: each is found where the bench looks for its kind and
// does what its doc says on a hand-made input. That docs/extend/<kind>.md shows each file verbatim is checked by
// tests/docs/check_docs.py (ctest docs.examples_check, with its negative control).
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/training_loss.hpp"
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"
#include "../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::examples {
// example_metric.cpp
std::optional<double> precision_at_2(const std::vector<std::int64_t>& query_labels,
                                     const std::vector<std::vector<std::int64_t>>& ranked);
}  // namespace dmlbench::examples

namespace ex = dmlbench::experiments;
namespace th = dmlbench::theory;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

ex::RunConfig config(const std::vector<std::string>& set) {
  const auto j = json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"},
                                 "model": {"name": "small-conv"}})");
  return ex::parse_run_config(j, set, "/repo");
}

// The example loss on embeddings e (double, one row per item) and the triplets (anchor, positive, negative).
torch::Tensor example_gap(const ex::RunConfig& c, const torch::Tensor& e, const std::vector<std::int64_t>& a,
                          const std::vector<std::int64_t>& p, const std::vector<std::int64_t>& n) {
  ex::MinedTriplets t;
  t.anchors = torch::tensor(a);
  t.positives = torch::tensor(p);
  t.negatives = torch::tensor(n);
  ex::LossBatch b;
  b.embeddings = e;
  b.labels = torch::tensor({0, 0, 1, 1}, torch::kInt64);
  b.triplets = &t;
  return ex::make_training_loss({c, 2, torch::kCPU})->forward(b).loss;
}

// Query q's gallery (every other item) ranked by key[q][j], ties by index (kRetrievalTieRule), as labels.
std::vector<std::int64_t> ranked_labels(const std::vector<std::vector<double>>& key, const std::vector<std::int64_t>& y,
                                        std::size_t q, bool ties_by_index = true) {
  std::vector<std::size_t> g;
  for (std::size_t j = 0; j < y.size(); ++j)
    if (j != q) g.push_back(j);
  std::sort(g.begin(), g.end(), [&](std::size_t i, std::size_t j) {
    return key[q][i] != key[q][j] ? key[q][i] < key[q][j] : (ties_by_index ? i < j : i > j);
  });
  std::vector<std::int64_t> out;
  for (auto j : g) out.push_back(y[j]);
  return out;
}

// Brute force without sorting: a positive j counts for query q when fewer than 2 other gallery items come before it
// (a smaller key, or an equal key and a lower index).
double brute_force_precision_at_2(const std::vector<std::vector<double>>& key, const std::vector<std::int64_t>& y) {
  double total = 0;
  int with_positive = 0;
  for (std::size_t q = 0; q < y.size(); ++q) {
    int positives = 0, hits = 0;
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (j == q || y[j] != y[q]) continue;
      ++positives;
      int before = 0;
      for (std::size_t i = 0; i < y.size(); ++i)
        before += i != q && i != j && (key[q][i] < key[q][j] || (key[q][i] == key[q][j] && i < j));
      hits += before < 2;
    }
    if (positives == 0) continue;
    ++with_positive;
    total += hits / 2.0;
  }
  return total / with_positive;
}

}  // namespace

TEST_CASE("extend: the example loss is registered by name and its value and gradient are the hand computation",
          "[extend][experiments]") {
  CHECK(ex::loss_spec("example-gap").uses_miner);
  // e0 = (0,0), e1 = (1,0), e2 = (0,2), e3 = (3,0); triplets (0,1,2): 1 - 4 = -3, (2,3,0): 13 - 4 = 9; mean 3
  const auto e = torch::tensor({0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 3.0, 0.0}, torch::kFloat64).reshape({4, 2});
  const auto x = e.clone().requires_grad_(true);
  const auto loss = example_gap(config({"loss.name=example-gap"}), x, {0, 2}, {1, 3}, {2, 0});
  // exact: small integers in float64 (sums of squares below 2^53)
  CHECK(loss.item<double>() == 3.0);
  loss.backward();
  // d/de0 = (1/2)[2(e0 - e1) - 2(e0 - e2) - 2(e0 - e2)] = (-1, 4)
  CHECK(x.grad()[0][0].item<double>() == -1.0);
  CHECK(x.grad()[0][1].item<double>() == 4.0);
  // its setting is read: w = 0.5 halves the value
  CHECK(example_gap(config({"loss.name=example-gap", "loss.example_gap_weight=0.5"}), e, {0, 2}, {1, 3}, {2, 0})
            .item<double>() == 1.5);
  // negative control: e3 moved to (4,0) makes D(2,3) = 20 and the mean (-3 + 16) / 2 = 6.5
  const auto moved = e.clone().index_put_({3, 0}, 4.0);
  CHECK(example_gap(config({"loss.name=example-gap"}), moved, {0, 2}, {1, 3}, {2, 0}).item<double>() == 6.5);
  // and its own key is refused out of range, as the schema says
  CHECK_THROWS_WITH(config({"loss.name=example-gap", "loss.example_gap_weight=11"}),
                    Contains("loss.example_gap_weight") && Contains("out of range [0, 10]"));
}

TEST_CASE("extend: the example miner is registered by name and takes the least similar positive and negative",
          "[extend][experiments]") {
  // items 0-2 of class 0, 3-4 of class 1; symmetric similarities
  const auto sim = torch::tensor({1.0, 0.9, 0.5, 0.3, 0.1,  //
                                  0.9, 1.0, 0.2, 0.4, 0.6,  //
                                  0.5, 0.2, 1.0, 0.7, 0.0,  //
                                  0.3, 0.4, 0.7, 1.0, 0.8,  //
                                  0.1, 0.6, 0.0, 0.8, 1.0},
                                 torch::kFloat64)
                       .reshape({5, 5});
  const auto labels = torch::tensor({0, 0, 0, 1, 1}, torch::kInt64);
  using Items = std::vector<std::int64_t>;
  const auto items = [](const torch::Tensor& t) {
    return Items(t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel());
  };
  const auto hpen = ex::mine_triplets(sim, labels, ex::named_miner("example-hpen"), at::detail::createCPUGenerator(1));
  // anchors 0..4: the least similar positive (2, 2, 1, 4, 3) and the least similar negative (4, 3, 4, 0, 2)
  CHECK(items(hpen.anchors) == Items{0, 1, 2, 3, 4});
  CHECK(items(hpen.positives) == Items{2, 2, 1, 4, 3});
  CHECK(items(hpen.negatives) == Items{4, 3, 4, 0, 2});
  // negative control: EPHN (easy positive, hard negative) reads the same matrix the other way round
  const auto ephn = ex::mine_triplets(sim, labels, ex::named_miner("EPHN"), at::detail::createCPUGenerator(1));
  CHECK(items(ephn.positives) == Items{1, 0, 0, 4, 3});
  CHECK(items(ephn.negatives) == Items{3, 4, 3, 2, 1});
}

TEST_CASE("extend: the example sampler is registered by name and gives the classes in turn",
          "[extend][experiments]") {
  const auto c = config({"batch.sampler=example-round-robin", "batch.classes=2", "batch.per_class=2"});
  const std::vector<int> labels = {0, 0, 1, 1, 2, 2};
  const std::vector<std::vector<std::int64_t>> items = {{0, 1}, {2, 3}, {4, 5}};
  const std::vector<double> no_tree;
  const auto& spec = ex::sampler_spec("example-round-robin");
  const auto next = spec.make({c, labels, items, no_tree, 1});
  using Batch = std::vector<std::int64_t>;
  CHECK(next() == Batch{0, 1, 2, 3});
  CHECK(next() == Batch{4, 5, 0, 1});  // wraps round to class 0
  CHECK(next() == Batch{2, 3, 4, 5});
  CHECK(next() == Batch{0, 1, 2, 3});
  // its check_data: batch.per_class = 3 with 2 images a class is refused, naming the class
  const auto c3 = config({"batch.sampler=example-round-robin", "batch.classes=2", "batch.per_class=3"});
  CHECK_THROWS_WITH(spec.check_data(c3, {0, 0, 1, 1, 2, 2}), Contains("training class 0 has 2"));
  CHECK_NOTHROW(spec.check_data(c, {0, 0, 1, 1, 2, 2}));  // the control: 2 a class suffice for per_class 2
}

TEST_CASE("extend: the example metric equals a brute-force reference on a ranking with a tie and a lone query",
          "[extend][experiments]") {
  // labels 0 0 0 1 2: items 3 and 4 have no positive (left out); key[q][j], smaller is nearer
  const std::vector<std::int64_t> y = {0, 0, 0, 1, 2};
  const std::vector<std::vector<double>> key = {{0, 2, 5, 1, 2},   // q0: 3, then 1 and 4 tied at 2 (1 first), 2
                                                {2, 0, 1, 3, 4},   // q1: 2, 0, 3, 4
                                                {5, 1, 0, 4, 3},   // q2: 1, 4, 3, 0
                                                {1, 3, 4, 0, 2},   // q3: no positive
                                                {2, 4, 3, 2, 0}};  // q4: no positive
  std::vector<std::vector<std::int64_t>> ranked, reversed_ties;
  for (std::size_t q = 0; q < y.size(); ++q) {
    ranked.push_back(ranked_labels(key, y, q));
    reversed_ties.push_back(ranked_labels(key, y, q, false));
  }
  // by hand: q0 1/2 (3, then 1 by the tie rule), q1 2/2, q2 1/2; mean 2/3. Tolerance: one rounding of a sum of halves
  // divided by 3 (1e-15 is far below the 1/6 a changed query moves it)
  const auto p2 = dmlbench::examples::precision_at_2(y, ranked);
  REQUIRE(p2.has_value());
  CHECK_THAT(*p2, WithinAbs(2.0 / 3.0, 1e-15));
  CHECK_THAT(*p2, WithinAbs(brute_force_precision_at_2(key, y), 1e-15));
  // negative control: the tie broken the other way puts item 4 (label 2) second for q0, so q0 gives 0
  CHECK_THAT(*dmlbench::examples::precision_at_2(y, reversed_ties), WithinAbs(0.5, 1e-15));
  // no query with a positive: no value
  CHECK_FALSE(dmlbench::examples::precision_at_2({0, 1}, {{1}, {0}}).has_value());
}

TEST_CASE("extend: the example paper is registered, its claim verified and its negative control refuted",
          "[extend][theory]") {
  CHECK(th::registered_paper("EXAMPLE").layers == std::vector<std::string>{"theory"});
  CHECK_THAT(th::paper_keys_text("theory"), Contains("[EXAMPLE]"));
  std::vector<th::ClaimResult> rows;
  th::CheckConfig small;
  small.samples_per_dim = 20;
  for (const auto& [paper, claims] : th::registered_theory_claims())
    if (paper == "EXAMPLE") rows = claims(small);
  REQUIRE(rows.size() == 1);
  const auto& r = rows[0];
  CHECK(r.id == "example-unit-distance");
  CHECK(r.verdict == th::Verdict::verified);
  CHECK(r.max_error <= r.tolerance);
  REQUIRE(r.control.has_value());
  // the form with the factor 2 dropped errs by |a.p| / max(1, |a - p|^2): 1 at the edge case S_ap = 1
  CHECK(r.control->verdict == th::Verdict::refuted);
  CHECK(r.control->error > 0.5);
}

TEST_CASE("extend: the example reproduction reads and plans, and a broken copy is refused naming its key",
          "[extend][experiments]") {
  const std::string file = kSource + "/tests/extend/example_reproduction.json";
  const auto r = ex::read_reproduction(file, kSource);
  CHECK(r.id == "example-reproduction");
  CHECK(r.profiles.count("quick") == 1);
  CHECK(r.profiles.count("default") == 0);  // a profile left out is not run there
  REQUIRE(r.metrics.size() == 1);
  CHECK(r.metrics[0].direction == "increase");  // from the paper's numbers, 42.3 >= 35.2
  // every run's overrides resolve against the schema: 2 arms x 2 seeds
  const auto runs = ex::plan_reproduction_runs(r, r.profiles.at("quick"), ex::selected_variants(r, {}), r.arms,
                                               {0, 1}, {}, "/tmp/example-reproduction", kSource);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].config.miner.name == "trip-sh");
  CHECK(runs[3].config.miner.name == "eps-trip-sh");
  CHECK(runs[3].config.schedule.max_steps == 3);
  // negative control: an unknown key in a profile is one error naming it and the nearest key
  auto broken = json::parse(slurp(file));
  broken["profiles"]["quick"]["seedz"] = 2;
  CHECK_THROWS_WITH(ex::parse_reproduction(broken, file, kSource),
                    Contains("unknown key \"seedz\"") && Contains("did you mean \"seeds\"?"));
}
