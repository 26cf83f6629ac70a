// The tuning block of a reproduction file (tuning_plan.hpp): the committed blocks resolve for every arm, and each bad
// input is one error naming the file, the arm and the key before any trial runs.
#include "dmlbench/experiments/tuning_plan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

const std::string kRepo = DMLBENCH_SOURCE_DIR;

json margin_file() {
  return read_json_file(kRepo + "/experiments/reproductions/lcc_omniglot_2_margin.json", "test");
}

TuningSpec spec_of(const json& j) {
  return read_tuning_spec(parse_reproduction(j, "margin.json", kRepo), kRepo);
}

}  // namespace

TEST_CASE("the committed tuning blocks of the six tuned reproductions resolve: each arm's space, folds and trial "
          "settings", "[experiments][config][tuning]") {
  for (const char* name : {"htl_omniglot", "lcc_omniglot_1_trip", "lcc_omniglot_2_margin", "lcc_omniglot_3_ms",
                           "xhn_groupsize", "lcc_table1"}) {
    INFO(name);
    const auto r = read_reproduction(kRepo + "/experiments/reproductions/" + name + ".json", kRepo);
    const auto t = read_tuning_spec(r, kRepo);
    CHECK(t.trials_per_arm >= 16);  // at least 16 for the committed results (experiments/tuning.md)
    CHECK(t.folds >= 2);
    CHECK(t.arms.size() == r.arms.size());
    CHECK(t.objective == "validation." + t.level + ".map_at_r");
    for (const auto& a : t.arms) {
      CHECK(std::any_of(a.space.begin(), a.space.end(), [](const TuningParameter& p) { return p.key == "optimizer.lr"; }));
      const auto c = load_run_config(r.config, [&] {
        auto o = a.overrides;
        o.push_back("dataset.fold=1");
        return o;
      }(), kRepo);
      CHECK(c.eval.sets == std::vector<std::string>{"validation"});
      CHECK(c.schedule.patience == t.patience);
      CHECK(c.dataset.folds == t.folds);
    }
  }
  // the space hash moves with the space (a resumed study must be the same study)
  auto j = margin_file();
  const auto h1 = tuning_space_hash(spec_of(j), parse_reproduction(j, "margin.json", kRepo));
  j["tuning"]["space"]["loss.margin"]["high"] = 0.6;
  CHECK(tuning_space_hash(spec_of(j), parse_reproduction(j, "margin.json", kRepo)) != h1);
}

TEST_CASE("bad tuning blocks: unknown key, empty or non-positive log range, patience at the budget, a space that "
          "differs without a reason, a key the arm's loss does not read, a key the tuning sets",
          "[experiments][config][tuning]") {
  auto bad = [](auto edit) {
    auto j = margin_file();
    edit(j["tuning"]);
    return j;
  };
  using Catch::Contains;
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["optimizer.lrr"] = {{"low", 1e-4}, {"high", 1e-2}}; })),
                    Contains("margin.json") && Contains("unknown key \"optimizer.lrr\"") &&
                        Contains("did you mean \"optimizer.lr\""));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["loss.margin"] = {{"low", 0.3}, {"high", 0.3}}; })),
                    Contains("loss.margin") && Contains("is empty"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["optimizer.lr"] = {{"low", 0}, {"high", 1e-2}, {"log", true}}; })),
                    Contains("optimizer.lr") && Contains("log range needs low > 0"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["budget"]["patience"] = 6; })), Contains("not below the budget"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) {
                      t["arms"] = {{"eps", {{"space", {{"loss.margin", {{"low", 0.1}, {"high", 0.9}}}}}}}};
                    })),
                    Contains("arm eps") && Contains("state why"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["loss.ms_alpha"] = {{"low", 1}, {"high", 4}}; })),
                    Contains("arm base") && Contains("loss.ms_alpha is not read by this arm's loss"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["schedule.epochs"] = {{"low", 1}, {"high", 4}}; })),
                    Contains("schedule.epochs is set by the tuning itself"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["space"]["optimizer.lr"] = {{"low", 1e-4}, {"high", 2e3}}; })),
                    Contains("optimizer.lr=2000") && Contains("out of range"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["claim"] = "lcc-table3-margin-r1"; })),
                    Contains("is not a claim of this file"));
  CHECK_THROWS_WITH(spec_of(bad([](json& t) { t["folds"] = 5; })), Contains("folds = 5"));
  auto none = margin_file();
  none.erase("tuning");
  CHECK_THROWS_WITH(spec_of(none), Contains("no \"tuning\" block"));
  // with a reason the arm's own space is accepted (the positive control of the reason rule)
  const auto ok = spec_of(bad([](json& t) {
    t["arms"] = {{"eps", {{"space", {{"loss.margin", {{"low", 0.1}, {"high", 0.9}}}}}, {"reason", "test"}}}};
  }));
  CHECK(ok.arms.at(1).reason == "test");
  CHECK(ok.arms.at(1).space.size() == ok.arms.at(0).space.size());
}

TEST_CASE("the tuned variant trains each arm's best trial for its chosen epochs, keeps the claim ids, leaves out claims "
          "read at a fixed curve point, and refuses results of another space", "[experiments][config][tuning]") {
  const auto htl = read_reproduction(kRepo + "/experiments/reproductions/htl_omniglot.json", kRepo);
  const auto t = read_tuning_spec(htl, kRepo);
  json tuned = {{"space_hash", tuning_space_hash(t, htl)}, {"arms", json::array()}};
  double lr = 1e-3;
  for (const auto& a : htl.arms) {
    tuned["arms"].push_back({{"name", a.name},
                             {"best", {{"params", {{"optimizer.lr", lr}, {"loss.margin", 0.3}}}, {"epochs", 4}}}});
    lr *= 2;
  }
  const auto r = with_tuned_settings(htl, tuned, "htl_omniglot.json", kRepo);
  CHECK(r.stage == htl.stage + "-tuned");
  REQUIRE(r.arms.size() == htl.arms.size());
  auto has = [](const std::vector<std::string>& set, const std::string& kv) {
    return std::find(set.begin(), set.end(), kv) != set.end();
  };
  CHECK(has(r.arms[1].set, "optimizer.lr=0.002"));
  CHECK(has(r.arms[1].set, "schedule.epochs=4"));
  CHECK(has(r.arms[1].set, "schedule.steps_per_epoch=" + std::to_string(t.steps_per_epoch)));  // the budget's
  CHECK_FALSE(has(htl.arms[1].set, "schedule.epochs=4"));  // the default reproduction is untouched
  // the claims keep their ids; those read at curve.7 (a quarter of the default steps) are left out
  std::set<std::string> before, after;
  for (const auto& m : htl.metrics) before.insert(m.claim);
  for (const auto& m : r.metrics) after.insert(m.claim);
  CHECK(before.count("htl-fewer-iterations") == 1);
  CHECK(after.count("htl-fewer-iterations") == 0);
  CHECK(after.count("htl-r1-vs-random") == 1);
  for (const auto& m : r.metrics) CHECK(m.path.rfind("curve.", 0) != 0);
  // every run of the tuned variant resolves with the arm's tuned values
  const auto runs = plan_reproduction_runs(r, r.profiles.at("default"), selected_variants(r, {}), r.arms, {1}, {},
                                           "/tmp/x", kRepo);
  CHECK(runs.at(1).config.optimizer.lr == 0.002);
  CHECK(runs.at(1).config.schedule.epochs == 4);
  // results of another space, or without an arm's best trial: refused, naming why
  auto stale = tuned;
  stale["space_hash"] = "0000000000000000";
  CHECK_THROWS_WITH(with_tuned_settings(htl, stale, "htl_omniglot.json", kRepo),
                    Catch::Contains("another space, budget or folds"));
  auto failed = tuned;
  failed["arms"][2]["best"] = nullptr;
  CHECK_THROWS_WITH(with_tuned_settings(htl, failed, "htl_omniglot.json", kRepo),
                    Catch::Contains("arm htl has no best trial"));
  // a best trial without its params (an object) or its epochs: one line naming the arm (params missing aborted on an
  // assertion before; tests/fuzz/regressions/tuned_results/best-without-params.json)
  for (const auto& edit : std::vector<std::function<void(json&)>>{
           [](json& b) { b.erase("params"); }, [](json& b) { b.erase("epochs"); },
           [](json& b) { b["params"] = json::array({1, 2}); }}) {
    auto partial = tuned;
    edit(partial["arms"][2]["best"]);
    CHECK_THROWS_WITH(with_tuned_settings(htl, partial, "htl_omniglot.json", kRepo),
                      Catch::Contains("htl_omniglot.json: arm htl's best trial lacks its \"params\""));
  }
}
