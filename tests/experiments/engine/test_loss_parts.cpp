// The parts a loss is built from: the shared distances (embedding_distance.hpp), the reducers
// (loss_reducers.hpp) and the core loss interface with its add-ons (training_loss.hpp), each against hand values, with
// negative controls; and every registered loss's add-ons agreeing with its spec.
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"
#include "dmlbench/experiments/training_loss.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

torch::Tensor rows(std::vector<double> v, std::int64_t d) {
  return torch::tensor(v, torch::kFloat64).reshape({-1, d});
}

// What an add-on check says of one loss: the add-ons it has, by name.
std::set<std::string> add_ons(TrainingLoss& loss) {
  std::set<std::string> out;
  if (capability<PerTripletTerms>(loss)) out.insert("terms");
  if (capability<OwnParameters>(loss)) out.insert("parameters");
  if (capability<CheckpointedState>(loss)) out.insert("checkpoint");
  if (capability<EpochState>(loss)) out.insert("epochs");
  return out;
}

// The disagreements between a spec and the add-ons of its implementation: a trimmable spec needs per-triplet terms
// (loss.trim reduces them), and a loss with per-triplet terms should say so in its spec (trimmable), else loss.trim
// refuses a loss that could take it.
std::vector<std::string> spec_disagreements(const LossSpec& spec, TrainingLoss& loss) {
  std::vector<std::string> out;
  const bool terms = capability<PerTripletTerms>(loss) != nullptr;
  if (spec.trimmable && !terms) out.push_back(spec.name + ": trimmable without per-triplet terms");
  if (!spec.trimmable && terms) out.push_back(spec.name + ": per-triplet terms, yet not trimmable");
  return out;
}

RunConfig config_of(const std::string& loss) {
  const auto j = json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"}, "model": {"name": "small-conv",
                                "normalize": true}, "loss": {"name": ")" + loss + R"("}})");
  return parse_run_config(j, {}, "/repo");
}

class CoreOnly final : public TrainingLoss {
 public:
  LossValue forward(const LossBatch&) override { return {torch::zeros({}), {}}; }
};

}  // namespace

// Hand values on two rows: a = (1, 0), b = (0, 1) (|a - b|^2 = 2, <a, b> = 0) and a = b = (0.6, 0.8).
TEST_CASE("loss parts: each distance form against hand values, and a distance name outside the three refused",
          "[experiments][losses][distance]") {
  const auto a = rows({1, 0, 0.6, 0.8}, 2), b = rows({0, 1, 0.6, 0.8}, 2);
  const auto sq = paired_distance(a, b, Distance::squared_euclidean);
  CHECK(sq[0].item<double>() == 2.0);  // exact in binary: 1 + 1
  CHECK(sq[1].item<double>() == 0.0);
  // Euclidean carries 1e-12 inside the root: sqrt(2 + 1e-12) and sqrt(1e-12) = 1e-6 (the gradient at 0 stays finite)
  const auto eu = paired_distance(a, b, Distance::euclidean);
  CHECK_THAT(eu[0].item<double>(), Catch::Matchers::WithinRel(std::sqrt(2.0), 1e-12));  // 1e-12 / 4 relative shift
  CHECK_THAT(eu[1].item<double>(), Catch::Matchers::WithinRel(1e-6, 1e-12));
  const auto co = paired_distance(a, b, Distance::cosine);
  CHECK(co[0].item<double>() == 1.0);
  CHECK_THAT(co[1].item<double>(), Catch::Matchers::WithinAbs(0.0, 1e-15));  // 0.36 + 0.64 rounds within 2 ulp of 1
  // from_squared matches paired_distance bit for bit, and refuses cosine (not a function of the squared distance)
  CHECK(torch::equal(from_squared(sq, Distance::euclidean), eu));
  CHECK_THROWS_WITH(from_squared(sq, Distance::cosine), Catch::Contains("cosine"));
  // the two pairwise forms agree to rounding on these rows, each with a zero diagonal
  const auto x = rows({1, 0, 0, 1, 0.6, 0.8}, 2);
  CHECK(torch::allclose(pairwise_squared_cdist(x), pairwise_squared_expanded(x), 0, 1e-12));
  CHECK(pairwise_squared_expanded(x)[0][1].item<double>() == 2.0);
  // the unit sphere: sqrt(2 - 2 S), clamped at 0 for a similarity rounded above 1
  const auto us = unit_sphere_distance(torch::tensor({0.0, std::nextafter(1.0, 2.0), -1.0}, torch::kFloat64));
  CHECK_THAT(us[0].item<double>(), Catch::Matchers::WithinRel(std::sqrt(2.0), 1e-15));
  CHECK(us[1].item<double>() == 0.0);
  CHECK(us[2].item<double>() == 2.0);
  CHECK(distances().named("squared") == Distance::squared_euclidean);
  CHECK(distances().named("euclidean") == Distance::euclidean);
  CHECK(distances().named("cosine") == Distance::cosine);
  CHECK_THROWS_WITH(distances().named("manhattan"), Catch::Contains("manhattan"));
}

TEST_CASE("loss parts: the reducers (mean, trimmed mean, Wang et al. eq 15's average over anchors) against hand values",
          "[experiments][losses][reducer]") {
  const auto t = torch::tensor({4.0, 0.0, 1.0, 3.0}, torch::kFloat64);
  CHECK(mean_of_terms(t).item<double>() == 2.0);
  CHECK(trimmed_mean(t, 0.5).item<double>() == 0.5);  // the two smallest, 0 and 1
  CHECK(*share_violating(t) == 0.75);
  const auto sum = torch::tensor(6.0, torch::kFloat64), graph = torch::ones({3}, torch::kFloat64);
  // eq 15: over the batch's 4 samples; the bench's earlier reading: over the 3 anchors that mined a pair
  CHECK(average_over_anchors(sum, 3, 4, MsReduction::batch, graph).item<double>() == 1.5);
  CHECK(average_over_anchors(sum, 3, 4, MsReduction::mined_anchors, graph).item<double>() == 2.0);
  // no anchor mined: 0, still on the graph of the batch
  const auto leaf = torch::ones({3}, torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true));
  const auto none = average_over_anchors(torch::zeros({}, torch::kFloat64), 0, 4, MsReduction::batch, leaf);
  CHECK(none.item<double>() == 0.0);
  CHECK(none.requires_grad());
}

TEST_CASE("loss parts: every registered loss has the add-ons its spec says (trimmable = per-triplet terms), and the "
          "check finds a loss that lacks them",
          "[experiments][losses][interface]") {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& spec : loss_specs()) {
    const auto c = config_of(spec.name);
    auto loss = make_training_loss({c, 4, torch::kCPU});
    INFO(spec.name);
    CHECK(spec_disagreements(spec, *loss).empty());
    seen[spec.name] = add_ons(*loss);
  }
  // what the five losses with an add-on have: the hinge and softplus triplet losses their terms, the margin loss its
  // beta and its checkpoint, [HTL] its class tree across epochs and in the checkpoint; the rest the core alone
  CHECK(seen.at("triplet") == std::set<std::string>{"terms"});
  CHECK(seen.at("nca") == std::set<std::string>{"terms"});
  CHECK(seen.at("l2nd") == std::set<std::string>{"terms"});
  CHECK(seen.at("margin") == std::set<std::string>{"checkpoint", "parameters"});
  CHECK(seen.at("htl") == std::set<std::string>{"checkpoint", "epochs"});
  CHECK(seen.at("contrastive").empty());
  CHECK(seen.at("ms").empty());
  CHECK(seen.at("circle").empty());
  // the negative control: a core-only loss under a trimmable spec, and under a spec that is not
  CoreOnly core;
  LossSpec trimmable;
  trimmable.name = "core-only";
  trimmable.trimmable = true;
  CHECK(spec_disagreements(trimmable, core) == std::vector<std::string>{"core-only: trimmable without per-triplet terms"});
  trimmable.trimmable = false;
  CHECK(spec_disagreements(trimmable, core).empty());
  CHECK(add_ons(core).empty());
}
