// Run configs (run_config.hpp) and reproduction files (reproduction.hpp): the schema's errors, overrides, every config
// and reproduction file in the repository, Welch's test and the verdict rule.
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/binomial_test.hpp"
#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <catch2/catch.hpp>
#include <algorithm>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {
const std::string kRepo = DMLBENCH_SOURCE_DIR;
json minimal() {
  return json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"}, "model": {"name": "small-conv"}})");
}
}  // namespace

TEST_CASE("a minimal config resolves every key of the schema, in schema order, with relative paths made absolute",
          "[experiments][config]") {
  const auto c = parse_run_config(minimal(), {}, "/repo");
  CHECK(c.dataset.data_dir == "/repo/data/mnist");
  CHECK(c.optimizer.name == "adam");
  CHECK(c.eval.ks == std::vector<int>{1, 2, 4, 8});
  std::size_t leaves = 0;
  for (auto s = c.resolved.begin(); s != c.resolved.end(); ++s) leaves += s->is_object() ? s->size() : 1;
  CHECK(leaves == run_config_schema().size());
  CHECK(c.resolved.begin().key() == "name");
}

TEST_CASE("overrides given with --set parse each value as its key's type", "[experiments][config]") {
  const auto c = parse_run_config(minimal(),
                                  {"optimizer.lr=1e-4", "schedule.decay_epochs=20,30", "model.normalize=true",
                                   "eval.sets=test", "miner.name=EPSHN", "seed=7"},
                                  "/repo");
  CHECK(c.optimizer.lr == 1e-4);
  CHECK(c.schedule.decay_epochs == std::vector<int>{20, 30});
  CHECK(c.model.normalize);
  CHECK(c.eval.sets == std::vector<std::string>{"test"});
  CHECK(c.seed == 7);
  CHECK(c.resolved["optimizer"]["lr"] == 1e-4);
}

TEST_CASE("bad configs: one error naming the key, with the nearest valid name for a typo", "[experiments][config]") {
  auto bad = [](json j, std::vector<std::string> set = {}) {
    try {
      parse_run_config(j, set, "/repo", "cfg.json");
    } catch (const config_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json j = minimal();
  j["optimizer"] = {{"lrr", 0.1}};
  CHECK_THAT(bad(j), Catch::Contains("unknown key \"optimizer.lrr\"") && Catch::Contains("did you mean \"optimizer.lr\""));
  j = minimal();
  j["optimiser"] = {{"lr", 0.1}};
  CHECK_THAT(bad(j), Catch::Contains("unknown key \"optimiser\""));
  j = minimal();
  j["optimizer"] = {{"lr", "fast"}};
  CHECK_THAT(bad(j), Catch::Contains("optimizer.lr must be a number"));
  j = minimal();
  j["optimizer"] = {{"lr", 0}};
  CHECK_THAT(bad(j), Catch::Contains("optimizer.lr = 0.0 is out of range (0, 1000]"));
  j = minimal();
  j["batch"] = {{"per_class", 2.5}};
  CHECK_THAT(bad(j), Catch::Contains("batch.per_class must be a integer"));
  j = minimal();
  j["miner"] = {{"name", "EPHM"}};
  CHECK_THAT(bad(j), Catch::Contains("did you mean \"EPHN\""));
  j = minimal();
  j["dataset"].erase("data_dir");
  CHECK_THAT(bad(j), Catch::Contains("dataset.data_dir is required"));
  j = minimal();
  j["model"] = "resnet18";
  CHECK_THAT(bad(j), Catch::Contains("model must be an object"));
  CHECK_THAT(bad(minimal(), {"schedule.decay_epochs=30,20"}), Catch::Contains("increasing"));
  CHECK_THAT(bad(minimal(), {"schedule.epoch=3"}), Catch::Contains("did you mean \"schedule.epochs\""));
  CHECK_THAT(bad(minimal(), {"optimizer.lr"}), Catch::Contains("expected key=value"));
  CHECK_THAT(bad(minimal(), {"optimizer.lr=nan"}), Catch::Contains("optimizer.lr"));
  // negative control: a valid config raises nothing, so the helper above can tell the difference
  CHECK(bad(minimal()) == "no error");
}

TEST_CASE("the nearest name: Levenshtein distance, and nothing for a word far from every candidate",
          "[experiments][config]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(nearest_name("optimzer", {"optimizer", "model"}) == "optimizer");
  CHECK(nearest_name("zzzzzzzz", {"optimizer", "model"}).empty());
}

TEST_CASE("experiments/README.md holds the config schema as dmlbench train --schema prints it", "[experiments][config]") {
  std::ifstream in(kRepo + "/experiments/README.md");
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto table = run_config_schema_markdown();
  CHECK(readme.find(table) != std::string::npos);
  // negative control: a changed default is not found
  auto changed = table;
  changed.replace(changed.find("`0.001`"), 7, "`0.002`");
  CHECK(readme.find(changed) == std::string::npos);
  CHECK(table.find("auto (CUDA when present) \\| cpu") != std::string::npos);  // '|' escaped inside a cell
}

TEST_CASE("every config and reproduction file in the repository parses", "[experiments][config]") {
  int configs = 0, reproductions = 0;
  for (const auto& e : fs::directory_iterator(kRepo + "/experiments/configs")) {
    INFO(e.path());
    CHECK_NOTHROW(load_run_config(e.path().string(), {}, kRepo));
    ++configs;
  }
  for (const auto& e : fs::directory_iterator(kRepo + "/experiments/reproductions")) {
    INFO(e.path());
    const auto r = read_reproduction(e.path().string(), kRepo);
    CHECK(!r.arms.empty());
    for (const auto& p : r.profiles) {
      auto set = r.set;
      set.insert(set.end(), p.second.set.begin(), p.second.set.end());
      for (const auto& a : r.arms) {
        auto s = set;
        s.insert(s.end(), a.set.begin(), a.set.end());
        for (const auto& v : r.variants) s.insert(s.end(), v.set.begin(), v.set.end());
        CHECK_NOTHROW(load_run_config(r.config, s, kRepo));
      }
    }
    ++reproductions;
  }
  CHECK(configs >= 1);
  CHECK(reproductions >= 2);
}

// Welch's test against a value worked out by hand: a = {1, 2, 3, 4}, b = {2, 4, 6, 8, 10}: means 2.5 and 6, variances
// 5/3 and 10, se^2 = 5/12 + 2 = 29/12, t = -3.5 / sqrt(29/12) = -2.251436, df = (29/12)^2 / ((5/12)^2/3 + 2^2/4)
// = 5.520788; scipy.stats.ttest_ind(a, b, equal_var=False) (scipy 1.10) gives t = -2.2514363231593695,
// p = 0.06913359319239236. Tolerance: Boost's t cdf is accurate to ~1e-15 relative, the df formula is exact
// arithmetic; 1e-9 absolute leaves room for the different evaluation order of the two implementations.
TEST_CASE("Welch's t-test matches a hand computation and scipy", "[experiments][reproduction]") {
  const auto w = welch_test({1, 2, 3, 4}, {2, 4, 6, 8, 10});
  CHECK_THAT(w.difference, Catch::WithinAbs(-3.5, 1e-12));
  CHECK_THAT(w.t, Catch::WithinAbs(-2.2514363231593695, 1e-9));
  CHECK_THAT(w.df, Catch::WithinAbs(5.520787746170677, 1e-9));
  CHECK_THAT(w.p, Catch::WithinAbs(0.06913359319239236, 1e-9));
  CHECK(std::isnan(welch_test({1}, {2, 3}).p));        // one seed: no test
  CHECK(std::isnan(welch_test({1, 1}, {2, 2}).p));     // no spread: no test
}

TEST_CASE("verdicts: the paper's direction with p < alpha is verified, the opposite refuted, otherwise not "
          "reproducible with the reason, and one seed prints n/a", "[experiments][reproduction]") {
  WelchResult up{+3, 4, 6, 0.01}, down{-3, -4, 6, 0.01}, weak{+1, 1, 6, 0.3};
  CHECK(judge("increase", up, 5, 5, 0.05).verdict == "verified");
  CHECK(judge("increase", down, 5, 5, 0.05).verdict == "refuted");
  CHECK(judge("decrease", down, 5, 5, 0.05).verdict == "verified");
  const auto ns = judge("increase", weak, 5, 5, 0.05);
  CHECK(ns.verdict == "not-reproducible");
  CHECK_THAT(ns.note, Catch::Contains("not significant"));
  const auto one = judge("increase", up, 1, 1, 0.05);
  CHECK(one.verdict == "not-reproducible");
  CHECK_THAT(one.note, Catch::StartsWith("n/a (1 seed)"));
  CHECK(mean_std_text(json{{"mean", 41.25}, {"std", nullptr}}) == "41.2 (1 seed)");
  CHECK(mean_std_text(json{{"mean", 41.25}, {"std", 2.0}}) == "41.2 +- 2.0");
}

TEST_CASE("metric paths: object keys and 0-based array indices, with an error naming the missing part",
          "[experiments][reproduction]") {
  const json m = json::parse(R"({"curve": [{"r1": 0.25}, {"r1": 0.5}], "eval": {"test": {"recall_at_k": {"1": 0.75}}}})");
  CHECK(metric_at(m, "curve.1.r1") == 0.5);
  CHECK(metric_at(m, "curve.0.r1") == 0.25);
  CHECK(metric_at(m, "eval.test.recall_at_k.1") == 0.75);
  CHECK_THROWS_WITH(metric_at(m, "curve.2.r1"), Catch::Contains("\"2\" is not an index of an array of 2"));
  CHECK_THROWS_WITH(metric_at(m, "curve.x.r1"), Catch::Contains("\"x\" is not an index"));
  CHECK_THROWS_WITH(metric_at(m, "eval.train"), Catch::Contains("no \"train\""));
  CHECK_THROWS_WITH(metric_at(m, "eval.test"), Catch::Contains("is not a number"));
}

TEST_CASE("a metric with its own sides compares one arm early in its curve with another at the end, and one arm "
          "with itself", "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-compare";
  fs::create_directories(dir);
  const json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "HTL", "where": "Sec 4", "config": "experiments/configs/htl-omniglot-proxy.json",
    "arms": [{"name": "base", "label": "B", "set": {}}, {"name": "new", "label": "N", "set": {}}],
    "profiles": {"quick": {"seeds": 3}},
    "comparison": {"baseline": "base", "treatment": "new"},
    "metrics": [
      {"label": "final", "path": "curve.1.r1", "direction": "increase", "claim": "c-final", "smallest_effect": 0.05, "smallest_effect_reason": "test"},
      {"label": "early new vs final base", "path": "curve.1.r1", "direction": "increase", "claim": "c-early", "smallest_effect": 0.05, "smallest_effect_reason": "test",
       "compare": {"baseline": {"path": "curve.1.r1"}, "treatment": {"path": "curve.0.r1"}}},
      {"label": "base first vs last", "path": "active.last", "direction": "decrease", "claim": "c-active", "smallest_effect": 0.05, "smallest_effect_reason": "test",
       "compare": {"baseline": {"arm": "base", "path": "active.first"}, "treatment": {"arm": "base"}}}
    ]})");
  std::ofstream(dir / "r.json") << file.dump();
  const auto r = read_reproduction((dir / "r.json").string(), kRepo);
  REQUIRE(r.metrics.size() == 3);
  CHECK(r.metrics[1].treatment_arm == "new");
  CHECK(r.metrics[1].treatment_path == "curve.0.r1");
  CHECK(r.metrics[2].treatment_arm == "base");
  auto run = [](double early, double late, double first, double last) {
    return json{{"curve", json::array({json{{"r1", early}}, json{{"r1", late}}})},
                {"active", json{{"first", first}, {"last", last}}}};
  };
  std::map<std::string, std::vector<json>> runs;
  // five seeds: the fewest whose anytime interval at 0.05 can decide (anytime_t_test.hpp)
  runs["base"] = {run(0.1, 0.50, 0.9, 0.2), run(0.1, 0.52, 0.8, 0.3), run(0.1, 0.51, 0.85, 0.25),
                  run(0.1, 0.505, 0.83, 0.24), run(0.1, 0.515, 0.87, 0.26)};
  runs["new"] = {run(0.6, 0.70, 0.5, 0.5), run(0.61, 0.71, 0.5, 0.5), run(0.62, 0.72, 0.5, 0.5),
                 run(0.605, 0.705, 0.5, 0.5), run(0.615, 0.715, 0.5, 0.5)};
  const auto v = summarize_variant(r, ReproductionVariant{"default", "", {}}, runs);
  const auto& rows = v["rows"];
  CHECK_THAT(rows[0]["difference"].get<double>(), Catch::WithinAbs(0.71 - 0.51, 1e-12));  // final new - final base
  CHECK_THAT(rows[1]["difference"].get<double>(), Catch::WithinAbs(0.61 - 0.51, 1e-12));  // early new - final base
  CHECK(rows[1]["treatment"]["path"] == "curve.0.r1");
  CHECK(rows[1]["verdict"] == "verified");
  CHECK_THAT(rows[2]["difference"].get<double>(), Catch::WithinAbs(0.25 - 0.85, 1e-12));  // base: last - first
  CHECK(rows[2]["verdict"] == "verified");
  // negative control: without its own sides the first-vs-last metric compares the arms at "active.last" (new 0.5 vs
  // base 0.25, against the stated decrease): refuted, not verified
  json plain = file;
  plain["metrics"][2].erase("compare");
  std::ofstream(dir / "r.json") << plain.dump();
  const auto r2 = read_reproduction((dir / "r.json").string(), kRepo);
  CHECK(summarize_variant(r2, ReproductionVariant{"default", "", {}}, runs)["rows"][2]["verdict"] == "refuted");
  json bad = file;
  bad["metrics"][1]["compare"]["treatment"]["arm"] = "nope";
  std::ofstream(dir / "r.json") << bad.dump();
  CHECK_THROWS_WITH(read_reproduction((dir / "r.json").string(), kRepo), Catch::Contains("names arm \"nope\""));
  fs::remove_all(dir);
}

TEST_CASE("a claim against a bound: a one-sample test over the seeds, a spread-free side judged as it lies, and an arm "
          "that starts from another arm's weights",
          "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-bound";
  fs::create_directories(dir);
  const json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "XHN", "where": "Fig 3", "config": "experiments/configs/xhn-movement-glyphs.json",
    "arms": [{"name": "pre", "set": {}}, {"name": "later", "init_from": "pre", "set": {}}],
    "profiles": {"quick": {"seeds": 3}},
    "metrics": [
      {"label": "below", "path": "s.ul", "direction": "decrease", "claim": "c-below", "smallest_effect": 0.005, "smallest_effect_reason": "test",
       "compare": {"treatment": {"arm": "later"}, "bound": 0.01}},
      {"label": "above", "path": "s.ul", "direction": "increase", "claim": "c-above", "smallest_effect": 0.005, "smallest_effect_reason": "test",
       "compare": {"treatment": {"arm": "later"}, "bound": 0.01}},
      {"label": "flat", "path": "s.zero", "direction": "decrease", "claim": "c-flat", "smallest_effect": 0.005, "smallest_effect_reason": "test",
       "compare": {"treatment": {"arm": "pre"}, "bound": 0.01}}
    ]})");
  std::ofstream(dir / "r.json") << file.dump();
  const auto r = read_reproduction((dir / "r.json").string(), kRepo);
  CHECK(r.arms[1].init_from == "pre");
  REQUIRE(r.metrics[0].bound);
  CHECK(*r.metrics[0].bound == 0.01);
  auto run = [](double ul) { return json{{"s", json{{"ul", ul}, {"zero", 0.0}}}}; };
  std::map<std::string, std::vector<json>> runs;
  runs["pre"] = {run(0.5), run(0.5), run(0.5), run(0.5), run(0.5)};
  runs["later"] = {run(0.001), run(0.002), run(0.0015), run(0.001), run(0.002)};  // five seeds: see above
  const auto v = summarize_variant(r, ReproductionVariant{"", "", {}}, runs);
  const auto& rows = v["rows"];
  // mean 0.0015, sd 0.0005, n 5: t = (0.0015 - 0.01) / (0.0005 / sqrt 5) = -38.0, df 4
  CHECK_THAT(rows[0]["difference"].get<double>(), Catch::WithinAbs(0.0015 - 0.01, 1e-15));
  CHECK_THAT(rows[0]["welch_t"].get<double>(), Catch::WithinRel(-0.0085 / (0.0005 / std::sqrt(5.0)), 1e-9));
  CHECK_THAT(rows[0]["df"].get<double>(), Catch::WithinRel(4.0, 1e-12));
  CHECK(rows[0]["verdict"] == "verified");
  CHECK(rows[1]["verdict"] == "refuted");  // the same numbers, the claim the other way
  CHECK(rows[0]["baseline"]["arm"] == "bound");
  CHECK(rows[0]["treatment"]["arm"] == "later");
  // every seed exactly 0, below 0.01: no spread, so no test (one zero-spread rule for bounds and arms)
  CHECK(rows[2]["verdict"] == "inconclusive");
  CHECK_THAT(rows[2]["note"].get<std::string>(), Catch::Contains("no spread"));
  // a run that wrote null for the metric (no value in that run) is left out of it: four seeds remain, and the
  // per-seed differences name the four (the runs carry no "seed": their positions)
  runs["later"][2]["s"]["ul"] = nullptr;
  const auto w = summarize_variant(r, ReproductionVariant{"", "", {}}, runs);
  CHECK(w["rows"][0]["treatment"]["seeds"].size() == 4);
  CHECK(w["rows"][0]["seeds_per_arm"] == 4);
  CHECK(w["rows"][0]["statistics"]["per_seed"]["seeds"] == json::array({0, 1, 3, 4}));
  CHECK_THROWS_AS(metric_at(runs["later"][2], "s.ul"), metric_undefined);
  // every run null: no mean, no difference, not reproducible
  for (auto& m : runs["later"]) m["s"]["ul"] = nullptr;
  const auto none = summarize_variant(r, ReproductionVariant{"", "", {}}, runs);
  CHECK(none["rows"][0]["treatment"]["mean"].is_null());
  CHECK_FALSE(none["rows"][0].contains("difference"));
  CHECK(none["rows"][0]["verdict"] == "inconclusive");  // a claim's verdict is its statistics' outcome: no values
  CHECK(mean_std_text(none["rows"][0]["treatment"]) == "n/a (no run has it)");
  // bad files: init_from naming no earlier arm; a bound beside a baseline; a bound without a direction
  auto bad = [&](const std::string& name, json edit) {
    json f = file;
    f.merge_patch(edit);
    std::ofstream(dir / (name + ".json")) << f.dump();
    return (dir / (name + ".json")).string();
  };
  CHECK_THROWS_WITH(read_reproduction(bad("b1", {{"arms", json::array({json{{"name", "later"}, {"init_from", "pre"}}})}}), kRepo),
                    Catch::Contains("init_from"));
  json m = file["metrics"];
  m[0]["compare"]["baseline"] = json{{"arm", "pre"}};
  CHECK_THROWS_WITH(read_reproduction(bad("b2", {{"metrics", m}}), kRepo), Catch::Contains("bound"));
  m = file["metrics"];
  m[0].erase("direction");
  CHECK_THROWS_WITH(read_reproduction(bad("b3", {{"metrics", m}}), kRepo), Catch::Contains("direction"));
  fs::remove_all(dir);
}

// A share claim is tested on each seed's share (the metric's path) by a test valid for bounded values, here whether a
// typical seed lies below the bound (claim_test.hpp); the counts pooled over the runs stay beside it as a description
// without a test. A share cannot take the t-test of a mean.
TEST_CASE("a share claim: per-seed shares decide, the pooled counts describe ([XHN] Fig 3)",
          "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-counts";
  fs::create_directories(dir);
  const json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "XHN", "where": "Fig 3", "config": "experiments/configs/xhn-movement-glyphs.json",
    "arms": [{"name": "a", "set": {}}, {"name": "b", "set": {}}],
    "profiles": {"quick": {"seeds": 3}},
    "metrics": [
      {"label": "top-left", "path": "m.share.ul", "scale": 100, "direction": "decrease", "claim": "c-ul",
       "smallest_effect": 1, "smallest_effect_reason": "test",
       "estimand": "typical seed", "estimand_reason": "a run's share", "range": [0, 100],
       "compare": {"treatment": {"arm": "a"}, "bound": 1},
       "counts": {"successes": "m.counts.ul", "trials": ["m.counts.ul", "m.counts.ur"], "unit": "seed",
                  "unit_reason": "dots of one step share the weights"}}
    ]})");
  std::ofstream(dir / "r.json") << file.dump();
  const auto r = read_reproduction((dir / "r.json").string(), kRepo);
  REQUIRE(r.metrics[0].count_trials.size() == 2);
  auto run = [](int seed, int ul, int ur) {
    return json{{"seed", seed},
                {"m", json{{"share", json{{"ul", double(ul) / (ul + ur)}}}, {"counts", json{{"ul", ul}, {"ur", ur}}}}}};
  };
  std::map<std::string, std::vector<json>> runs;
  const std::vector<int> ul = {3, 5, 4, 6, 2, 5, 4, 3};  // of 1000 dots each: 0.2% to 0.6%, all well below 1%
  for (int k = 0; k < 8; ++k) runs["a"].push_back(run(k, ul[k], 1000 - ul[k]));
  runs["b"] = {run(0, 1, 1)};
  const json s = summarize_variant(r, ReproductionVariant{"", "", {}}, runs)["rows"][0]["statistics"];
  CHECK(s["test"] == "against a bound");
  CHECK(s["unit"] == "seed");
  CHECK(s["estimand"]["kind"] == "typical seed");
  CHECK(s["estimand"]["range"] == json::array({-1.0, 99.0}));  // the shares' [0, 100] less the bound
  REQUIRE(s["per_seed"]["n"] == 8);
  CHECK_THAT(s["per_seed"]["differences"][0].get<double>(), Catch::WithinAbs(0.3 - 1, 1e-12));  // 0.3% - the 1% bound
  // the decision reads the signs: 8 of 8 seeds below the bound, E = ((2^9 - 1) / 9 + 1 / 9) / 2 = 28.4 >= 1 / 0.05
  CHECK(s["decision"]["paper_side"] == 8);
  CHECK(s["decision"]["other_side"] == 0);
  CHECK_THAT(s["decision"]["e_value"].get<double>(), Catch::WithinRel(256.0 / 9, 1e-12));
  CHECK(s["ci_low"].is_null());  // no interval of a mean: the estimand is a typical seed
  CHECK(s["outcome"] == "verified");
  // the pooled counts: a description beside it, with no test and no outcome of their own
  CHECK(s["pooled"]["successes"] == 32);
  CHECK(s["pooled"]["trials"] == 8000);
  CHECK_FALSE(s["pooled"].contains("p"));
  CHECK_FALSE(s["pooled"].contains("outcome"));
  // negative control, the case for the seed as the unit: one seed at 1.5% leaves 7 of 8 below. The pooled share, 45
  // of 8000 (0.56%), is still far below 1% as counts; the seeds (E = (502 / 72 + 10 / 72) / 2 = 3.6) do not decide
  runs["a"][4] = run(4, 15, 985);
  const json t = summarize_variant(r, ReproductionVariant{"", "", {}}, runs)["rows"][0]["statistics"];
  CHECK(t["pooled"]["successes"] == 45);
  CHECK_THAT(t["decision"]["e_value"].get<double>(), Catch::WithinRel(512.0 / 144, 1e-12));
  CHECK(t["outcome"] == "inconclusive");
  // the mean share of the same eight seeds by the betting test knows only the range [0, 100]: eight seeds under 1%
  // cannot show a mean under 1% (a share of 100 on one seed in a hundred would give them too), so it stays open
  json bm = file;
  bm["metrics"][0]["estimand"] = "bounded mean";
  std::ofstream(dir / "bm.json") << bm.dump();
  runs["a"][4] = run(4, 2, 998);
  const json b = summarize_variant(read_reproduction((dir / "bm.json").string(), kRepo), ReproductionVariant{"", "", {}},
                                   runs)["rows"][0]["statistics"];
  CHECK(b["decision"]["estimand"] == "bounded mean");
  CHECK(b["ci_high"].get<double>() > 0);
  CHECK(b["outcome"] == "inconclusive");
  // a count that is not a whole number is refused
  runs["a"][0]["m"]["counts"]["ul"] = 2.5;
  CHECK_THROWS_WITH(summarize_variant(r, ReproductionVariant{"", "", {}}, runs), Catch::Contains("is not a count"));
  // bad files: counts without a bound; no trials; no per-seed unit
  auto bad = [&](const std::string& name, const json& metric) {
    json f = file;
    f["metrics"] = json::array({metric});
    std::ofstream(dir / (name + ".json")) << f.dump();
    return (dir / (name + ".json")).string();
  };
  json m = file["metrics"][0];
  m["compare"] = json{{"treatment", json{{"arm", "a"}}}, {"baseline", json{{"arm", "b"}}}};
  CHECK_THROWS_WITH(read_reproduction(bad("c1", m), kRepo), Catch::Contains("add compare.bound"));
  m = file["metrics"][0];
  m["counts"]["trials"] = json::array();
  CHECK_THROWS_WITH(read_reproduction(bad("c2", m), kRepo), Catch::Contains("non-empty list"));
  m = file["metrics"][0];
  m["counts"].erase("unit");
  CHECK_THROWS_WITH(read_reproduction(bad("c3", m), kRepo),
                    Catch::Contains("c3.json") && Catch::Contains("metric top-left: counts") &&
                        Catch::Contains("set \"unit\": \"seed\""));
  m["counts"]["unit"] = "dot";
  CHECK_THROWS_WITH(read_reproduction(bad("c4", m), kRepo), Catch::Contains("set \"unit\": \"seed\""));
  m["counts"]["unit"] = "seed";
  m["counts"].erase("unit_reason");
  CHECK_THROWS_WITH(read_reproduction(bad("c5", m), kRepo), Catch::Contains("unit_reason"));
  // a share under the t-test of a mean; an estimand without its reason; a bounded mean without its range
  m = file["metrics"][0];
  m.erase("estimand");
  CHECK_THROWS_WITH(read_reproduction(bad("c6", m), kRepo),
                    Catch::Contains("claim c-ul") && Catch::Contains("set \"estimand\""));
  m = file["metrics"][0];
  m.erase("estimand_reason");
  CHECK_THROWS_WITH(read_reproduction(bad("c7", m), kRepo), Catch::Contains("needs an estimand_reason"));
  m = file["metrics"][0];
  m["estimand"] = "bounded mean";
  m.erase("range");
  CHECK_THROWS_WITH(read_reproduction(bad("c8", m), kRepo), Catch::Contains("a bounded mean needs \"range\""));
  m["range"] = json::array({5, 1});
  CHECK_THROWS_WITH(read_reproduction(bad("c9", m), kRepo), Catch::Contains("lo < hi"));
  m = file["metrics"][0];
  m["estimand"] = "median";
  CHECK_THROWS_WITH(read_reproduction(bad("c10", m), kRepo), Catch::Contains("no estimand \"median\""));
  fs::remove_all(dir);
}

// Each claim metric's row carries its per-seed differences (paired by seed) and the decision read from the anytime
// interval at level alpha (a reproduction
// decides each claim alone). The interval's own values are checked against SciPy in test_anytime_t_test.cpp; here the
// wiring: the row's interval is anytime_interval of the paired differences.
TEST_CASE("a claim's summary row: per-seed differences paired by seed, decided by the anytime interval",
          "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-statistics";
  fs::create_directories(dir);
  const json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "LCC", "where": "Table 1", "config": "experiments/configs/htl-omniglot-proxy.json",
    "arms": [{"name": "base", "set": {}}, {"name": "new", "set": {}}],
    "profiles": {"quick": {"seeds": 3}},
    "comparison": {"baseline": "base", "treatment": "new"},
    "metrics": [{"label": "r1", "path": "r1", "paper": {"base": 50, "new": 60}, "claim": "c-paper"}]})");
  const std::string path = (dir / "r.json").string();
  auto write = [&](const json& j) {
    std::ofstream(path) << j.dump();
    return path;
  };
  const auto r = read_reproduction(write(file), kRepo);
  const std::vector<double> base = {50, 51, 52, 50.5, 51.5, 50.8, 51.2, 52.3};
  auto runs_of = [](std::vector<double> b, std::vector<double> t) {
    std::map<std::string, std::vector<json>> runs;
    for (std::size_t k = 0; k < b.size(); ++k) runs["base"].push_back(json{{"seed", k}, {"r1", b[k]}});
    for (std::size_t k = 0; k < t.size(); ++k) runs["new"].push_back(json{{"seed", k}, {"r1", t[k]}});
    return runs;
  };
  auto plus = [&](const std::vector<double>& d) {
    std::vector<double> t = base;
    for (std::size_t k = 0; k < t.size(); ++k) t[k] += d[k];
    return t;
  };
  const std::vector<double> rise = {5.1, 4.8, 5.3, 4.9, 5.2, 5.0, 4.7, 5.4};
  const json s = summarize_variant(r, {"", "", {}}, runs_of(base, plus(rise)))["rows"][0]["statistics"];
  CHECK(s["test"] == "two arms");
  CHECK(s["estimand"]["kind"] == "mean");  // the default: a continuous metric's mean difference, by the t-test
  CHECK(s["per_seed"]["pairing"] == "by seed");
  REQUIRE(s["per_seed"]["n"] == 8);
  const AnytimeInterval i = anytime_interval(rise, 0.05);
  CHECK_THAT(s["difference"].get<double>(), Catch::WithinAbs(i.mean, 1e-12));
  CHECK_THAT(s["ci_low"].get<double>(), Catch::WithinAbs(i.low, 1e-12));
  CHECK_THAT(s["ci_high"].get<double>(), Catch::WithinAbs(i.high, 1e-12));
  CHECK(s["decision"]["family_size"] == 1);
  CHECK(s["decision"]["level"] == 0.05);
  CHECK_FALSE(s.contains("single_look"));  // no number under another rule
  CHECK(s["smallest_effect"] == 5.0);                  // the default: 0.5 x |60 - 50|
  CHECK(s["paper_difference"] == 10.0);
  CHECK(s["paper_position"] == "above");  // the paper's 10 lies above the interval around +5
  CHECK(s["outcome"] == "verified");
  CHECK_FALSE(s.contains("design_power"));  // decided; and a reproduction alone has no design of looks
  // pairing is by seed, not by position: the baseline's runs listed in reverse order give the same differences
  auto reversed = runs_of(base, plus(rise));
  std::reverse(reversed["base"].begin(), reversed["base"].end());
  CHECK(summarize_variant(r, {"", "", {}}, reversed)["rows"][0]["statistics"]["per_seed"] == s["per_seed"]);
  // a seed missing from one arm drops out of the differences
  auto missing = runs_of(base, plus(rise));
  missing["base"].erase(missing["base"].begin() + 2);
  const json sm = summarize_variant(r, {"", "", {}}, missing)["rows"][0]["statistics"];
  CHECK(sm["per_seed"]["n"] == 7);
  CHECK(sm["per_seed"]["seeds"] == json::array({0, 1, 3, 4, 5, 6, 7}));
  // negative control: the paper's numbers the other way (decrease): the same rise is refuted, the paper below
  json down = file;
  down["metrics"][0]["paper"] = {{"base", 50}, {"new", 40}};
  const json sd = summarize_variant(read_reproduction(write(down), kRepo), {"", "", {}},
                                    runs_of(base, plus(rise)))["rows"][0]["statistics"];
  CHECK(sd["outcome"] == "refuted");
  CHECK(sd["paper_position"] == "below");
  // differences around 0 well inside delta 5: not reproduced, read from the same interval
  const std::vector<double> flat = {0.5, -0.4, 0.3, -0.2, 0.1, -0.3, 0.4, -0.1};
  const json se = summarize_variant(r, {"", "", {}}, runs_of(base, plus(flat)))["rows"][0]["statistics"];
  CHECK(se["ci_low"].get<double>() > -5);
  CHECK(se["ci_high"].get<double>() < 5);
  CHECK(se["outcome"] == "not-reproduced");
  // differences of +1 with a small spread: the interval excludes 0 on the paper's side but lies inside (-5, 5): the
  // direction holds, the effect is smaller than delta (counted apart from verified)
  const std::vector<double> small = {1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.02, 0.98};
  const json so = summarize_variant(r, {"", "", {}}, runs_of(base, plus(small)))["rows"][0]["statistics"];
  CHECK(so["ci_low"].get<double>() > 0);
  CHECK(so["ci_high"].get<double>() < 5);
  CHECK(so["outcome"] == "direction-only");
  // a claim of likeness read as non-inferiority with the margin delta 2: treatment - baseline around -1 (worse, but by
  // less than the margin) is verified, around -5 refuted; the interval printed is of the differences themselves
  json likeness = file;
  likeness["metrics"][0]["reading"] = "non-inferiority";
  likeness["metrics"][0]["smallest_effect"] = 2;
  likeness["metrics"][0]["smallest_effect_reason"] = "a test margin";
  const auto rl = read_reproduction(write(likeness), kRepo);
  std::vector<double> near = small, far = small;
  for (auto& x : near) x -= 2;  // about -1
  for (auto& x : far) x -= 6;   // about -5
  const json sn = summarize_variant(rl, {"", "", {}}, runs_of(base, plus(near)))["rows"][0]["statistics"];
  CHECK(sn["reading"] == "non-inferiority");
  CHECK(sn["outcome"] == "verified");
  CHECK(sn["ci_low"].get<double>() > -2);
  CHECK(sn["ci_high"].get<double>() < 0);  // below 0: superiority would refute it
  CHECK_THAT(sn["outcome_reason"].get<std::string>(), Catch::StartsWith("non-inferiority by the margin delta = 2: "));
  const AnytimeInterval ni = anytime_interval(near, 0.05);
  CHECK_THAT(sn["ci_low"].get<double>(), Catch::WithinAbs(ni.low, 1e-9));  // the differences' own interval
  CHECK(summarize_variant(rl, {"", "", {}}, runs_of(base, plus(far)))["rows"][0]["statistics"]["outcome"] == "refuted");
  // the control: the same "near" differences read as superiority are refuted (below 0)
  CHECK(summarize_variant(r, {"", "", {}}, runs_of(base, plus(near)))["rows"][0]["statistics"]["outcome"] == "refuted");
  likeness["metrics"][0]["reading"] = "equal";
  CHECK_THROWS_WITH(read_reproduction(write(likeness), kRepo), Catch::Contains("reading must be superiority or "
                                                                               "non-inferiority"));
  // a stated delta of 0.1 replaces the default: the same differences are then inconclusive
  json stated = file;
  stated["metrics"][0]["smallest_effect"] = 0.1;
  stated["metrics"][0]["smallest_effect_reason"] = "a test";
  const json st = summarize_variant(read_reproduction(write(stated), kRepo), {"", "", {}},
                                    runs_of(base, plus(flat)))["rows"][0]["statistics"];
  CHECK(st["smallest_effect"] == 0.1);
  CHECK(st["outcome"] == "inconclusive");
  // two seeds: no interval can decide at level 0.05 (the first n that can is 3 at the default g): inconclusive, too
  // few seeds
  const json two = summarize_variant(r, {"", "", {}}, runs_of({50, 51}, {55.2, 55.9}))["rows"][0]["statistics"];
  CHECK(two["outcome"] == "inconclusive");
  CHECK_THAT(two["outcome_reason"].get<std::string>(), Catch::StartsWith("too few seeds"));
  CHECK(two["ci_low"].is_null());
  // one seed a side (the quick profile): no test, inconclusive "1 seed"
  const json one = summarize_variant(r, {"", "", {}}, runs_of({50}, {60}))["rows"][0]["statistics"];
  CHECK(one["outcome"] == "inconclusive");
  CHECK_THAT(one["outcome_reason"].get<std::string>(), Catch::StartsWith("1 seed"));
  CHECK_FALSE(one.contains("decision"));
  fs::remove_all(dir);
}

TEST_CASE("bad statistics in a reproduction file: one error naming the file, the claim and the key",
          "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-bad-statistics";
  fs::create_directories(dir);
  const json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "LCC", "where": "Table 1", "config": "experiments/configs/htl-omniglot-proxy.json",
    "arms": [{"name": "base", "set": {}}, {"name": "new", "set": {}}],
    "profiles": {"quick": {"seeds": 3}},
    "comparison": {"baseline": "base", "treatment": "new"},
    "metrics": [{"label": "r1", "path": "r1", "direction": "increase", "claim": "c-x", "smallest_effect": 1,
                 "smallest_effect_reason": "a test"}]})");
  const std::string path = (dir / "bad.json").string();
  auto read = [&](const json& j) {
    std::ofstream(path) << j.dump();
    return read_reproduction(path, kRepo);
  };
  CHECK_NOTHROW(read(file));  // the control: the file as it is reads
  json j = file;
  j["comparison"]["test"] = "student";
  CHECK_THROWS_WITH(read(j), Catch::Contains(path) && Catch::Contains("comparison.test: unknown test \"student\""));
  j = file;
  j["comparison"]["alpha"] = 1.5;
  CHECK_THROWS_WITH(read(j), Catch::Contains(path) && Catch::Contains("comparison.alpha must lie in (0, 1), got 1.5"));
  j = file;
  j["comparison"]["alpha"] = 0;
  CHECK_THROWS_WITH(read(j), Catch::Contains("comparison.alpha must lie in (0, 1)"));
  j = file;
  j["metrics"][0].erase("smallest_effect");
  j["metrics"][0].erase("smallest_effect_reason");
  CHECK_THROWS_WITH(read(j), Catch::Contains(path) && Catch::Contains("claim c-x: smallest_effect is missing"));
  j["metrics"][0]["paper"] = {{"base", 1}, {"new", 2}};  // a paper number: the default fraction of it
  CHECK(smallest_effect_of(read(j), read(j).metrics[0]).first == 0.5);
  j = file;
  j["metrics"][0]["smallest_effect"] = -1;
  CHECK_THROWS_WITH(read(j), Catch::Contains(path) && Catch::Contains("claim c-x: smallest_effect must be a number >= 0"));
  j = file;
  j["metrics"][0].erase("smallest_effect_reason");
  CHECK_THROWS_WITH(read(j), Catch::Contains("claim c-x: smallest_effect needs a smallest_effect_reason"));
  fs::remove_all(dir);
}

// Tuning's run keys: the folds and the early stop, each misuse refused with the keys named.
TEST_CASE("fold and early-stopping keys: each misuse is one error naming the keys", "[experiments][config][tuning]") {
  auto with = [](std::vector<std::string> set) { return parse_run_config(minimal(), set, "/repo"); };
  CHECK_THROWS_WITH(with({"dataset.folds=1"}), Catch::Contains("dataset.folds = 1"));
  CHECK_THROWS_WITH(with({"dataset.folds=2", "dataset.fold=2"}), Catch::Contains("not a fold"));
  CHECK_THROWS_WITH(with({"dataset.fold=1"}), Catch::Contains("dataset.folds >= 2"));
  CHECK_THROWS_WITH(with({"schedule.patience=2", "schedule.stop_metric=test.class.map_at_r"}),
                    Catch::Contains("eval.every_epoch"));
  CHECK_THROWS_WITH(with({"schedule.patience=2", "eval.every_epoch=true"}), Catch::Contains("schedule.stop_metric"));
  CHECK_THROWS_WITH(with({"schedule.patience=5", "schedule.epochs=5", "eval.every_epoch=true",
                          "schedule.stop_metric=test.class.recall_at_k.1"}),
                    Catch::Contains("not below the budget"));
  CHECK_THROWS_WITH(with({"schedule.patience=2", "eval.every_epoch=true", "eval.curve_sets=validation",
                          "schedule.stop_metric=test.class.recall_at_k.1"}),
                    Catch::Contains("not one of eval.curve_sets"));
  CHECK_THROWS_WITH(with({"schedule.patience=2", "eval.every_epoch=true", "schedule.stop_metric=test.class.map_at_r"}),
                    Catch::Contains("eval.curve_ranking"));
  CHECK_THROWS_WITH(with({"schedule.stop_metric=test.class.map_at_r"}), Catch::Contains("schedule.patience >= 1"));
  // the same keys, used as tuning uses them, resolve (the positive control)
  const auto c = with({"dataset.folds=3", "dataset.fold=2", "dataset.fold_level=class", "schedule.patience=2",
                       "eval.every_epoch=true", "eval.curve_ranking=true", "eval.curve_sets=validation",
                       "schedule.stop_metric=validation.class.map_at_r"});
  CHECK(c.dataset.folds == 3);
  CHECK(c.dataset.fold == 2);
  CHECK(c.schedule.patience == 2);
  CHECK(c.eval.curve_ranking);
}

// A claim's own section, table or figure ("where" of its metric) replaces its file's in the summary row and
// in the report's claim row; a metric without one keeps the file's; an empty one is refused.
TEST_CASE("a metric's own where replaces its file's in the summary and the claim row", "[experiments][reproduction]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-where";
  fs::create_directories(dir);
  json file = json::parse(R"({
    "id": "t", "stage": "t", "title": "t", "paper": "LCC", "where": "Tables 3-4", "config": "experiments/configs/htl-omniglot-proxy.json",
    "arms": [{"name": "base", "set": {}}, {"name": "new", "set": {}}],
    "profiles": {"quick": {"seeds": 1}},
    "comparison": {"baseline": "base", "treatment": "new"},
    "metrics": [{"label": "a", "path": "r1", "paper": {"base": 50, "new": 60}, "claim": "c-a", "where": "Table 4"},
                {"label": "b", "path": "r1", "paper": {"base": 50, "new": 60}, "claim": "c-b"}]})");
  const std::string path = (dir / "r.json").string();
  std::ofstream(path) << file.dump();
  const auto r = read_reproduction(path, kRepo);
  CHECK(r.metrics[0].where == "Table 4");
  CHECK(r.metrics[1].where.empty());
  std::map<std::string, std::vector<json>> runs = {{"base", {json{{"r1", 50.0}}}}, {"new", {json{{"r1", 61.0}}}}};
  json summary = {{"config", {{"reproduction", file}}},
                  {"variants", json::array({summarize_variant(r, {"", "", {}}, runs)})}};
  const auto rows = claim_rows_from_reproduction_summary(summary, r.paper, r.where);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].where == "Table 4");
  CHECK(rows[1].where == "Tables 3-4");  // the control: the file's
  file["metrics"][0]["where"] = "";
  std::ofstream(path) << file.dump();
  CHECK_THROWS_WITH(read_reproduction(path, kRepo), Catch::Contains("metric a: \"where\" must name"));
  fs::remove_all(dir);
}

// Seeds by arm: each arm's seeds as `reproduce --arm-seeds` runs them; an arm another starts from runs
// at least as many (its weights start the same seed), and a bad name or count is one error.
TEST_CASE("seeds by arm: each arm's own seeds, the arm it starts from raised to them, bad names refused",
          "[experiments][reproduction]") {
  const std::vector<ReproductionArm> arms = {{"pre", "", {}, ""}, {"later", "", {}, "pre"}, {"other", "", {}, ""}};
  const std::vector<std::uint64_t> five = {1, 2, 3, 4, 5};
  const auto same = seeds_of_arms(arms, five, {});
  for (const auto& a : arms) CHECK(same.at(a.name) == five);
  const auto by_arm = seeds_of_arms(arms, five, {{"later", 7}});
  CHECK(by_arm.at("later") == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7});
  CHECK(by_arm.at("pre").size() == 7);  // raised: later's seeds 6 and 7 start from pre's
  CHECK(by_arm.at("other") == five);
  const auto fewer = seeds_of_arms(arms, five, {{"other", 3}});
  CHECK(fewer.at("other") == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(fewer.at("pre") == five);
  CHECK_THROWS_WITH(seeds_of_arms(arms, five, {{"nosuch", 3}}), Catch::Contains("nosuch, which is no arm"));
  CHECK_THROWS_WITH(seeds_of_arms(arms, five, {{"later", 0}}), Catch::Contains("at least 1 seed"));
}
