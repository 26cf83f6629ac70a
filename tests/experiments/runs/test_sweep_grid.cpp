// Sweeps: grid files expanded into points (order, naming, resolution), their errors, the state of a point
// read from its folder, the merged summary, and the Slurm job-array script. The runs themselves: the cli.sweep tests
// and the cluster test (tests/cluster/).
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/slurm_array_script.hpp"
#include "dmlbench/experiments/sweep_grid.hpp"
#include "dmlbench/experiments/sweep_state.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <set>
#include <tuple>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {
const std::string kRepo = DMLBENCH_SOURCE_DIR;

SweepGrid grid_of(const std::string& text) { return parse_sweep_grid(json::parse(text), "grid.json", kRepo); }

json sim_grid() {
  return json::parse(R"({"name": "g", "command": "sim collapse", "set": {"n": 12, "restarts": 2},
    "arms": [{"name": "all", "set": {"sampling": "all"}}, {"name": "eps", "set": {"sampling": "eps"}}],
    "axes": {"p-correct": [0.6, 0.8], "dim": [2, 3]}, "seeds": [1, 5]})");
}

std::string arg_after(const std::vector<std::string>& args, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) return args[i + 1];
  return "";
}

void write(const fs::path& f, const std::string& text) {
  fs::create_directories(f.parent_path());
  std::ofstream(f) << text;
}
}  // namespace

TEST_CASE("a sim grid expands to arms x axes (first axis outermost) x seeds, each point named by its coordinates",
          "[experiments][sweep]") {
  const auto plan = expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), "/sweeps/g/", {}, kRepo);
  REQUIRE(plan.points.size() == 2u * 2u * 2u * 2u);
  CHECK(plan.dir == "/sweeps/g");
  CHECK(plan.points[0].name == "all/p-correct-0.6_dim-2/seed1");
  CHECK(plan.points[1].name == "all/p-correct-0.6_dim-2/seed5");
  CHECK(plan.points[2].name == "all/p-correct-0.6_dim-3/seed1");
  CHECK(plan.points[4].name == "all/p-correct-0.8_dim-2/seed1");
  CHECK(plan.points[8].name == "eps/p-correct-0.6_dim-2/seed1");
  CHECK(plan.points[8].arm == "eps p-correct=0.6 dim=2");
  CHECK(plan.points[8].coordinates == json::parse(R"({"arm": "eps", "p-correct": 0.6, "dim": 2, "seed": 1})"));
  std::set<std::string> names;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    CHECK(plan.points[i].index == i);
    CHECK(plan.points[i].result == "result.json");
    names.insert(plan.points[i].name);
  }
  CHECK(names.size() == plan.points.size());
  // the command: the options in the command's order, the point's seed and its own result file
  const auto& a = plan.points[11].args;  // eps, p-correct 0.6, dim 3, seed 5
  CHECK(a[0] == "sim");
  CHECK(a[1] == "collapse");
  CHECK(arg_after(a, "--n") == "12");
  CHECK(arg_after(a, "--p-correct") == "0.6");
  CHECK(arg_after(a, "--noise").empty());
  CHECK(arg_after(a, "--dim") == "3");
  CHECK(arg_after(a, "--sampling") == "eps");
  CHECK(arg_after(a, "--seed") == "5");
  CHECK(arg_after(a, "--out") == "/sweeps/g/eps/p-correct-0.6_dim-3/seed5/result.json");
}

TEST_CASE("later overrides win: the grid's set, the arm, the axis, then the command line", "[experiments][sweep]") {
  auto g = sim_grid();
  g["set"]["sampling"] = "all";
  g["arms"][1]["set"]["n"] = 24;
  const auto plan = expand_sweep(parse_sweep_grid(g, "grid.json", kRepo), "/s", {"restarts=7"}, kRepo);
  CHECK(arg_after(plan.points[0].args, "--n") == "12");
  CHECK(arg_after(plan.points[8].args, "--n") == "24");
  CHECK(arg_after(plan.points[8].args, "--sampling") == "eps");
  CHECK(arg_after(plan.points[3].args, "--restarts") == "7");
  // negative control: without the command-line override the grid's value stays
  const auto plain = expand_sweep(parse_sweep_grid(g, "grid.json", kRepo), "/s", {}, kRepo);
  CHECK(arg_after(plain.points[3].args, "--restarts") == "2");
}

TEST_CASE("a sim grid's bad keys, types and values are one error naming them, before anything is written",
          "[experiments][sweep]") {
  auto bad = [](const std::function<void(json&)>& edit) {
    json g = sim_grid();
    edit(g);
    return g;
  };
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["axes"]["nosie"] = {0.7}; }), "grid.json", kRepo),
                    Contains("no option \"nosie\""));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["axes"]["p-corect"] = {0.7}; }), "grid.json", kRepo),
                    Contains("no option \"p-corect\"") && Contains("did you mean \"p-correct\""));
  // the old name of p-correct: refused, naming the new one (control: the grid as it is parses)
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["set"]["noise"] = 0.8; }), "grid.json", kRepo),
                    Contains("no option \"noise\" (renamed \"p-correct\""));
  CHECK_NOTHROW(parse_sweep_grid(sim_grid(), "grid.json", kRepo));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["axes"]["n"] = {12.5}; }), "grid.json", kRepo),
                    Contains("n must be an integer, got 12.5"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["axes"]["p-correct"] = json::array(); }), "grid.json", kRepo),
                    Contains("axis p-correct must be a non-empty list"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["axes"]["p-correct"] = {0.6, 0.6}; }), "grid.json", kRepo),
                    Contains("listed twice"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["set"]["seed"] = 3; }), "grid.json", kRepo),
                    Contains("seeds"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["sets"] = json::object(); }), "grid.json", kRepo),
                    Contains("unknown key \"sets\"") && Contains("did you mean \"set\""));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["name"] = "a b"; }), "grid.json", kRepo),
                    Contains("name must be"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["arms"][1]["name"] = "all"; }), "grid.json", kRepo),
                    Contains("listed twice"));
  CHECK_THROWS_WITH(parse_sweep_grid(bad([](json& g) { g["command"] = "sim phase"; }), "grid.json", kRepo),
                    Contains("command must be"));
  // the value check the command line passes (here: p-correct must be above 1/classes) fails the expansion, naming the
  // point
  const SimOptionCheck check = [](const json& o) {
    if (o.value("p-correct", 1.0) <= 0.5) throw std::invalid_argument("p-correct must be in (1/t, 1]");
  };
  json low = sim_grid();
  low["axes"]["p-correct"] = {0.8, 0.5};
  CHECK_THROWS_WITH(expand_sweep(parse_sweep_grid(low, "grid.json", kRepo), "/s", {}, kRepo, check),
                    Contains("point all/p-correct-0.5_dim-2/seed1") && Contains("p-correct must be in"));
  CHECK_NOTHROW(expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), "/s", {}, kRepo, check));
  CHECK_THROWS_WITH(expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), "/s", {"nose=1"}, kRepo),
                    Contains("no option \"nose\""));
}

TEST_CASE("a train grid resolves each point's config through the schema, and a bad key fails naming the point",
          "[experiments][sweep]") {
  const auto g = grid_of(R"({"name": "t", "command": "train", "config": "experiments/configs/lcc-mnist-evenodd.json",
    "set": {"schedule.epochs": 2}, "axes": {"loss.margin": [0.1, 0.4], "eval.ks": [[1, 2]]}, "seeds": 2,
    "metrics": [{"label": "R@1", "path": "eval.test_digits.digit.recall_at_k.1", "scale": 100}]})");
  const auto plan = expand_sweep(g, "/s", {"optimizer.lr=0.01"}, kRepo);
  REQUIRE(plan.points.size() == 4u);
  CHECK(plan.points[2].name == "loss.margin-0.4_eval.ks--1-2-/seed1");
  const auto& c = plan.points[3].config;
  CHECK(c["seed"] == 2);
  CHECK(c["loss"]["margin"] == 0.4);
  CHECK(c["eval"]["ks"] == json::array({1, 2}));
  CHECK(c["schedule"]["epochs"] == 2);
  CHECK(c["optimizer"]["lr"] == 0.01);
  CHECK(c["dataset"]["data_dir"] == kRepo + "/data/mnist");
  CHECK(plan.points[3].args == std::vector<std::string>{"train", "--config", "/s/" + plan.points[3].name +
                                                        "/run_config.json", "--out", "/s/" + plan.points[3].name,
                                                        "--resume", "--reuse-finished"});
  // the written config reads back to itself (train --config takes the resolved config)
  CHECK(parse_run_config(c, {}, kRepo).resolved == c);
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(expand_sweep(g, "/s", {"optimizer.lrr=0.1"}, kRepo),
                    Contains("point loss.margin-0.1_eval.ks--1-2-/seed1") && Contains("optimizer.lr"));
  CHECK_THROWS_WITH(grid_of(R"({"name": "t", "command": "train", "config": "experiments/configs/lcc-mnist-evenodd.json"})"),
                    Contains("metrics"));
}

TEST_CASE("a reproduction grid's points are reproduce's runs: arms x seeds, <arm>/seed<k>, the profile's overrides",
          "[experiments][sweep]") {
  const auto g = grid_of(R"({"name": "t5", "reproduction": "experiments/reproductions/lcc_omniglot_1_trip.json",
    "profile": "full", "seeds": 8})");
  const auto plan = expand_sweep(g, "/s", {}, kRepo);
  REQUIRE(plan.points.size() == 24u);  // arms base, eps and shp ([LCC] Sec 5.2.3's printed baseline)
  CHECK(plan.points[0].name == "base/seed1");
  CHECK(plan.points[15].name == "eps/seed8");
  CHECK(plan.points[15].arm == "eps");
  CHECK(plan.points[15].config["miner"]["name"] == "eps-trip-sh");
  CHECK(plan.points[23].name == "shp/seed8");
  CHECK(plan.points[23].config["miner"]["name"] == "trip-shp");
  CHECK(plan.points[15].config["model"]["name"] == "resnet50");  // the full profile's set
  CHECK(plan.points[15].config["seed"] == 8);
  // the same configs as `reproduce` plans them
  const auto& r = *g.reproduction;
  const auto runs = plan_reproduction_runs(r, r.profiles.at("full"), selected_variants(r, {}), r.arms,
                                           {1, 2, 3, 4, 5, 6, 7, 8}, {}, "/s", kRepo);
  REQUIRE(runs.size() == plan.points.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CHECK(runs[i].dir == "/s/" + plan.points[i].name);
    CHECK(runs[i].config.resolved == plan.points[i].config);
  }
  // an arm started from another arm's weights depends on that point (xhn_movement's later phase)
  const auto mv = expand_sweep(grid_of(R"({"name": "m", "reproduction": "experiments/reproductions/xhn_movement.json",
    "profile": "quick"})"), "/m", {}, kRepo);
  std::size_t dependent = 0;
  for (const auto& p : mv.points)
    if (p.depends >= 0) {
      ++dependent;
      const auto& d = mv.points[std::size_t(p.depends)];
      CHECK(d.seed == p.seed);
      CHECK(p.config["model"]["init_run"] == "/m/" + d.name);
    }
  CHECK(dependent > 0);
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(grid_of(R"({"name": "t", "reproduction": "experiments/reproductions/lcc_omniglot_1_trip.json",
    "profile": "fast"})"), Contains("no profile \"fast\""));
  CHECK_THROWS_WITH(grid_of(R"({"name": "t", "reproduction": "experiments/reproductions/lcc_omniglot_1_trip.json",
    "arms": ["bsae"]})"), Contains("match no arm"));
  CHECK_THROWS_WITH(grid_of(R"({"name": "t", "reproduction": "experiments/reproductions/lcc_omniglot_1_trip.json",
    "axes": {"loss.margin": [0.1]}})"), Contains("axes"));
}

TEST_CASE("a grid past 10,000 points, a reproduction's axes without a seed and a damaged sweep.json's point names "
          "are each one error, before any point is made or probed", "[experiments][sweep]") {
  using Catch::Matchers::Contains;
  // the count: a seed count (before 4e9 seeds filled the memory), then arms x axes x seeds, counted without overflow
  json many = sim_grid();
  many["seeds"] = 4000000000LL;
  CHECK_THROWS_WITH(parse_sweep_grid(many, "grid.json", kRepo), Contains("over 10000 points"));
  many["seeds"] = 1000;  // 2 arms x 4 axis points x 1000 seeds = 8,000: the control expands
  CHECK(expand_sweep(parse_sweep_grid(many, "grid.json", kRepo), "/s", {}, kRepo).points.size() == 8000u);
  many["seeds"] = 1300;  // 10,400
  CHECK_THROWS_WITH(expand_sweep(parse_sweep_grid(many, "grid.json", kRepo), "/s", {}, kRepo),
                    Contains("grid.json: over 10000 points"));
  many["seeds"] = 2;  // five axes of ten values: 2 arms x 10^5 x 2 seeds, refused before the combinations are built
  many["axes"] = json::object();
  for (const char* k : {"n", "dim", "restarts", "classes"})
    for (int v = 0; v < 10; ++v) many["axes"][k].push_back(v + 2);
  for (int v = 0; v < 10; ++v) many["axes"]["p-correct"].push_back(0.9 + 0.01 * v);
  CHECK_THROWS_WITH(expand_sweep(parse_sweep_grid(many, "grid.json", kRepo), "/s", {}, kRepo),
                    Contains("over 10000 points"));
  // a reproduction grid's axes hold only the seed axis, and must hold it
  CHECK_THROWS_WITH(grid_of(R"({"name": "t", "reproduction": "experiments/reproductions/lcc_table1.json",
    "axes": {}})"), Contains("axes: \"seed\" is required"));
  CHECK(grid_of(R"({"name": "t", "reproduction": "experiments/reproductions/lcc_table1.json",
    "axes": {"seed": [3, 4]}})").seeds == std::vector<std::uint64_t>{3, 4});
  // sweep.json's point names and result files: paths below the sweep folder, names the file system takes
  ScratchDir s("dmlbench-sweep-damaged");
  const auto plan = expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), s.root(), {}, kRepo);
  const json state = plan.to_json();
  write(fs::path(s.root()) / "sweep.json", state.dump());
  CHECK(read_sweep_plan(s.root(), kRepo).points.size() == plan.points.size());  // the control reads back
  const std::string long_part(300, 'x');
  for (const auto& [key, value, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"name", "../elsewhere", "leaves the sweep folder"},
           {"name", "/tmp/abs", "is not a relative path"},
           {"name", "all/seed1\n" + long_part, "holds a control character"},
           {"name", "all/" + long_part, "longer than 255 bytes"},
           {"result", "../result.json", "leaves the sweep folder"}}) {
    json damaged = state;
    damaged["points"][1][key] = value;
    write(fs::path(s.root()) / "sweep.json", damaged.dump());
    INFO(key << " " << why);
    CHECK_THROWS_WITH(read_sweep_plan(s.root(), kRepo), Contains("point 1: " + key) && Contains(why) &&
                                                            Contains("a damaged sweep.json") && !Contains("\n"));
  }
}

TEST_CASE("every grid file in experiments/sweeps expands", "[experiments][sweep]") {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(kRepo + "/experiments/sweeps")) {
    if (e.path().extension() != ".json") continue;  // README.md documents them
    INFO(e.path().string());
    const auto g = read_sweep_grid(e.path().string(), kRepo);
    CHECK(g.name + ".json" == [&] {
      std::string f = e.path().filename().string();
      for (auto& ch : f)
        if (ch == '_') ch = '-';
      return f;
    }());
    CHECK_FALSE(expand_sweep(g, "/s", {}, kRepo).points.empty());
    ++n;
  }
  CHECK(n >= 3u);
}

TEST_CASE("a point's state is read from its folder: done, failed with its log tail, interrupted, missing",
          "[experiments][sweep]") {
  ScratchDir s("dmlbench-sweep-state");
  const auto plan = expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), s.root(), {}, kRepo);
  const auto& p = plan.points[0];
  const fs::path d = point_dir(plan, p);
  CHECK(point_status(plan, p).state == PointState::missing);
  write(d / kSweepLog, "line 1\nerror: boom\n");
  CHECK(point_status(plan, p).state == PointState::interrupted);
  write(d / kSweepStatus, R"({"description": "exit status 2", "ok": false})");
  const auto f = point_status(plan, p);
  CHECK(f.state == PointState::failed);
  CHECK(f.detail == "exit status 2");
  CHECK(f.log_tail == "  | line 1\n  | error: boom\n");
  write(d / "result.json", R"({"collapsed_runs": 2, "best_objective": 0.5})");
  CHECK(point_status(plan, p).state == PointState::done);
  // a result path taken by a folder is not a result
  fs::create_directories(point_dir(plan, plan.points[1]) + "/result.json");
  CHECK(point_status(plan, plan.points[1]).state == PointState::missing);
}

TEST_CASE("collect merges the finished points per arm (mean, std over seeds) and lists the failed and unfinished",
          "[experiments][sweep]") {
  ScratchDir s("dmlbench-sweep-collect");
  json g = sim_grid();
  g.erase("axes");  // 2 arms x 2 seeds
  const auto plan = expand_sweep(parse_sweep_grid(g, "grid.json", kRepo), s.root(), {}, kRepo);
  REQUIRE(plan.points.size() == 4u);
  CHECK_THROWS_WITH(collect_sweep(plan, "rev", nullptr), Catch::Matchers::Contains("no point has finished"));
  write(fs::path(point_dir(plan, plan.points[0])) / "result.json", R"({"collapsed_runs": 2, "best_objective": 1.0})");
  write(fs::path(point_dir(plan, plan.points[1])) / "result.json", R"({"collapsed_runs": 1, "best_objective": 4.0})");
  write(fs::path(point_dir(plan, plan.points[2])) / "result.json", R"({"collapsed_runs": 0, "best_objective": 0.25})");
  write(fs::path(point_dir(plan, plan.points[3])) / kSweepLog, "Traceback\nerror: out of memory\n");
  write(fs::path(point_dir(plan, plan.points[3])) / kSweepStatus, R"({"description": "killed by signal 9"})");
  std::string table;
  const json sm = collect_sweep(plan, "rev", &table);
  REQUIRE(sm["arms"].size() == 2u);
  const auto& all = sm["arms"][0];
  CHECK(all["arm"] == "all");
  CHECK(all["done"] == 2);
  CHECK_THAT(all["metrics"]["collapsed minimizers"]["mean"].get<double>(), Catch::Matchers::WithinULP(1.5, 0));
  // sample std of {1, 4}: sqrt(4.5); of {2, 1}: sqrt(0.5) (exactly rounded here, so a few ULP)
  CHECK_THAT(all["metrics"]["best objective"]["std"].get<double>(), Catch::Matchers::WithinULP(std::sqrt(4.5), 2));
  const auto& eps = sm["arms"][1];
  CHECK(eps["done"] == 1);
  CHECK(eps["metrics"]["best objective"]["std"].is_null());  // one seed: no spread
  REQUIRE(sm["sweep"]["failed"].size() == 1u);
  CHECK(sm["sweep"]["failed"][0]["name"] == "eps/seed5");
  CHECK(sm["sweep"]["failed"][0]["detail"] == "killed by signal 9");
  CHECK(sm["sweep"]["failed"][0]["log_tail"] == "  | Traceback\n  | error: out of memory\n");
  CHECK(sm["config"]["grid"]["name"] == "g");
  CHECK_THAT(table, Catch::Matchers::Contains("3 of 4 points merged, 1 failed") &&
                        Catch::Matchers::Contains("failed: eps/seed5 (killed by signal 9)") &&
                        Catch::Matchers::Contains("error: out of memory"));
}

TEST_CASE("the Slurm script is one array over the given points, with the resources asked for", "[experiments][sweep]") {
  CHECK(array_ranges({7, 0, 1, 2, 3, 5, 8, 9}) == "0-3,5,7-9");
  CHECK(array_ranges({4}) == "4");
  const auto plan = expand_sweep(parse_sweep_grid(sim_grid(), "grid.json", kRepo), "/sw/g", {}, kRepo);
  SlurmOptions o;
  o.dmlbench = "/opt/dmlbench/bin/dmlbench";
  o.partition = "gpu";
  o.time = "2:00:00";
  o.gres = "gpu:1";
  o.cpus_per_task = 4;
  o.max_running = 3;
  o.extra = {"--constraint=a100"};
  const std::string s = slurm_array_script(plan, {0, 1, 2, 9}, o, "abc");
  using Catch::Matchers::Contains;
  CHECK_THAT(s, Catch::Matchers::StartsWith("#!/bin/bash\n"));
  CHECK_THAT(s, Contains("\n#SBATCH --array=0-2,9%3\n") && Contains("\n#SBATCH --partition=gpu\n") &&
                    Contains("\n#SBATCH --time=2:00:00\n") && Contains("\n#SBATCH --gres=gpu:1\n") &&
                    Contains("\n#SBATCH --cpus-per-task=4\n") && Contains("\n#SBATCH --constraint=a100\n") &&
                    Contains("\n#SBATCH --output=/sw/g/slurm/%A_%a.out\n") &&
                    Contains("\nexec /opt/dmlbench/bin/dmlbench sweep run-point /sw/g \"$SLURM_ARRAY_TASK_ID\"\n"));
  // every #SBATCH line comes before the first command (sbatch stops reading them there)
  CHECK(s.rfind("#SBATCH") < s.find("\nset -eu"));
  CHECK_THAT(slurm_array_script(plan, {0}, SlurmOptions{{}, {}, {}, {}, {}, {}, 1, 0, {}, "/x"}, "abc"),
             !Contains("--partition") && !Contains("--time") && Contains("--array=0\n"));
  SlurmOptions spaced = o;
  spaced.dmlbench = "/my tools/dmlbench";
  CHECK_THROWS_WITH(slurm_array_script(plan, {0}, spaced, "abc"), Contains("whitespace"));
  CHECK_THROWS_WITH(slurm_array_script(plan, {}, o, "abc"), Contains("at least one point"));
}
