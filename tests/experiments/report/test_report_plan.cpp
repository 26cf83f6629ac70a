// The report's stage planning (experiments/report_plan.hpp) and caching (report_stage_hash.hpp): which stages each
// profile runs and in which order, their commands, estimates and the source layers whose edit reruns them.
#include "dmlbench/experiments/content_hash.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/report_stage_estimate.hpp"
#include "dmlbench/experiments/report_stage_hash.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"

#include "../../support/scratch_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

ex::ReportConfig config(const std::string& profile, const std::string& reproductions, const std::string& work) {
  ex::ReportConfig cfg;
  cfg.profile = profile;
  cfg.work = work;
  cfg.reproductions = reproductions;
  cfg.notebooks = kSource + "/notebooks";
  cfg.self = "/opt/fake/dmlbench";
  cfg.source_dir = kSource;
  return cfg;
}

std::vector<std::string> names(const std::vector<ex::Stage>& stages) {
  std::vector<std::string> n;
  for (const auto& s : stages) n.push_back(s.name);
  return n;
}

const ex::Stage& stage(const std::vector<ex::Stage>& stages, const std::string& name) {
  const auto it = std::find_if(stages.begin(), stages.end(), [&](const ex::Stage& s) { return s.name == name; });
  REQUIRE(it != stages.end());
  return *it;
}

// The values after `flag` in argv, up to the next "--" option.
std::vector<std::string> values_of(const std::vector<std::string>& argv, const std::string& flag) {
  std::vector<std::string> v;
  auto it = std::find(argv.begin(), argv.end(), flag);
  if (it != argv.end())
    for (++it; it != argv.end() && it->rfind("--", 0) != 0; ++it) v.push_back(*it);
  return v;
}

// The stages the reproduction files ask for under `profile`, read from their JSON directly (not through the
// library's reader): file name order, each file's "stage" when its "profiles" has the profile.
std::vector<std::string> reproduction_stages_in_files(const std::string& dir, const std::string& profile) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> stages;
  for (const auto& f : files) {
    std::ifstream in(f);
    const json j = json::parse(in);
    if (j.at("profiles").contains(profile)) stages.push_back(j.at("stage"));
  }
  return stages;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("report stages: the fixed stages in order, one per reproduction of the profile, figures last", "[report]") {
  const std::string repro_dir = kSource + "/experiments/reproductions";
  for (const std::string profile : {"quick", "default", "full"}) {
    INFO(profile);
    const auto stages = ex::plan_report_stages(config(profile, repro_dir, "/tmp/w"));
    std::vector<std::string> expected = {"theory-claims", "theory-figures", "sims-claims", "sims-phase",
                                         "sims-minimizers"};
    for (const auto& s : reproduction_stages_in_files(repro_dir, profile)) expected.push_back(s);
    for (const auto& t : ex::report_tuned_reproductions(config(profile, repro_dir, "/tmp/w")))
      expected.push_back(t.default_stage + "-tuned");  // the committed studies' variants (default profile only)
    expected.push_back("figures");
    CHECK(names(stages) == expected);
    CHECK(stages.back().notebooks);
    CHECK(std::count_if(stages.begin(), stages.end(), [](const ex::Stage& s) { return s.notebooks; }) == 1);
  }
  // quick skips the reproductions without a quick profile (lcc_table1_probe.json has default and full only), which
  // default runs; a full-only one (with what it needs) is in neither
  const auto quick = names(ex::plan_report_stages(config("quick", repro_dir, "/tmp/w")));
  const auto deflt = names(ex::plan_report_stages(config("default", repro_dir, "/tmp/w")));
  CHECK(std::count(quick.begin(), quick.end(), "mnist-evenodd-probe") == 0);
  CHECK(std::count(deflt.begin(), deflt.end(), "mnist-evenodd-probe") == 1);
  CHECK(std::count(quick.begin(), quick.end(), "mnist-evenodd") == 1);
  CHECK(std::count(deflt.begin(), deflt.end(), "xhn-table1-cub") == 0);
  CHECK(quick.size() < deflt.size());
}

TEST_CASE("report stages: commands run the executable given and write under the work folder", "[report]") {
  const auto cfg = config("default", kSource + "/experiments/reproductions", "/tmp/report-work");
  const auto stages = ex::plan_report_stages(cfg);
  for (const auto& s : stages) {
    INFO(s.name);
    for (const auto& c : s.commands) {
      CHECK(c.argv.at(0) == cfg.self);
      for (const char* flag : {"--out", "--json", "--markdown"})
        for (const auto& v : values_of(c.argv, flag)) CHECK(v.rfind("/tmp/report-work/" + s.name, 0) == 0);
    }
  }
  // each reproduction stage runs `reproduce` on its file with the report's profile, and its estimate is the seconds
  // its file gives for that profile, scaled to its seeds_cap where it may add seeds (at most)
  const auto& r = stage(stages, "mnist-evenodd");
  REQUIRE(r.commands.size() == 1);
  CHECK(values_of(r.commands[0].argv, "--profile") == std::vector<std::string>{"default"});
  CHECK(values_of(r.commands[0].argv, "--file") == std::vector<std::string>{kSource + "/experiments/reproductions/lcc_table1.json"});
  const auto prof = ex::read_reproduction(kSource + "/experiments/reproductions/lcc_table1.json", kSource)
                        .profiles.at("default");  // its seeds and cap from the design file it names
  CHECK(r.nominal_seconds == prof.estimate_seconds * double(prof.cap()) / double(prof.seeds));
  CHECK(r.spending.has_value() == prof.has_looks());
  CHECK(r.code_set == "training");
  CHECK(stage(stages, "sims-phase").code_set == "sims");
  CHECK(stage(stages, "theory-claims").code_set == "theory");
  CHECK(stage(stages, "figures").code_set.empty());
  // a reproduction reads its finished runs back from the stage's previous outputs and the stage store
  CHECK(values_of(r.commands[0].argv, "--reuse-from") ==
        std::vector<std::string>{"/tmp/report-work/.previous/mnist-evenodd"});
  CHECK(std::count(r.commands[0].argv.begin(), r.commands[0].argv.end(), "--reuse-from") == 2);
}

TEST_CASE("report stages: the quick phase diagram is a subset of the default one", "[report]") {
  const auto quick = ex::plan_report_stages(config("quick", "/nonexistent", "/w"));
  const auto deflt = ex::plan_report_stages(config("default", "/nonexistent", "/w"));
  const auto& q = stage(quick, "sims-phase");
  const auto& d = stage(deflt, "sims-phase");
  REQUIRE(q.commands.size() == 3);  // all vs EPS with distinct triples, all with all triples
  REQUIRE(d.commands.size() == 3);
  CHECK(q.outputs == d.outputs);
  for (std::size_t i = 0; i < 3; ++i) {
    for (const char* flag : {"--classes", "--n", "--p-correct"}) {
      INFO(flag);
      const auto qv = values_of(q.commands[i].argv, flag), dv = values_of(d.commands[i].argv, flag);
      CHECK(qv.size() < dv.size());
      for (const auto& v : qv) CHECK(std::count(dv.begin(), dv.end(), v) == 1);
    }
  }
  CHECK(values_of(q.commands[0].argv, "--classes") == std::vector<std::string>{"2"});
  CHECK(values_of(d.commands[0].argv, "--classes") == std::vector<std::string>{"2", "3"});
  CHECK(q.nominal_seconds < d.nominal_seconds);
  CHECK(values_of(stage(quick, "sims-minimizers").commands[0].argv, "--n") == std::vector<std::string>{"12"});
  CHECK(values_of(stage(deflt, "sims-minimizers").commands[0].argv, "--n") == std::vector<std::string>{"24"});
  // no reproductions folder: no reproduction stage, and the fixed stages are the same
  CHECK(names(quick) == names(deflt));
  CHECK(quick.size() == 6);
}

TEST_CASE("report stages: --stages selects by name, and none selects all", "[report]") {
  auto cfg = config("quick", "/nonexistent", "/w");
  CHECK(ex::stage_selected(cfg, "figures"));
  cfg.only = {"sims-phase"};
  CHECK(ex::stage_selected(cfg, "sims-phase"));
  CHECK_FALSE(ex::stage_selected(cfg, "figures"));
  CHECK(ex::join_command({"/opt/fake/dmlbench", "sim", "phase", "--out", "/repo/out/a b.csv"}, "/opt/fake/dmlbench",
                         "/repo") == "dmlbench sim phase --out 'out/a b.csv'");
}

namespace {

// A scratch repository (the layers' sources, a notebooks folder) and work folder for the caching tests.
struct Scratch {
  ScratchDir scratch{"dmlbench-report-plan"};
  fs::path dir = scratch.dir();
  ex::ReportConfig cfg;
  std::vector<ex::NotebookSpec> manifest;
  Scratch() {
    for (const char* f : {"CMakeLists.txt", "apps/main.cpp", "apps/theory_commands.cpp", "theory/src/a.cpp",
                          "sims/src/b.cpp", "experiments/src/engine/c.cpp", "experiments/src/report/report_plan.cpp",
                          "experiments/src/report/report_seed_spending.cpp", "notebooks/n.ipynb"})
      write(dir / "repo" / f, std::string("// ") + f + "\n");
    write(dir / "repo/apps/sim_commands.cpp", "#include \"dmlbench/sims/b.hpp\"\n");
    write(dir / "repo/sims/include/dmlbench/sims/b.hpp", "// b.hpp\n");
    write(dir / "repo/notebooks/figures.json", "{}");
    cfg.profile = "quick";
    cfg.work = (dir / "work").string();
    cfg.reproductions = (dir / "repo/none").string();
    cfg.notebooks = (dir / "repo/notebooks").string();
    cfg.self = "/opt/fake/dmlbench";
    cfg.source_dir = (dir / "repo").string();
    manifest = {{"n.ipynb", {{"f.png", "[XHN] Fig 0", "caption", {"sims-phase"}, {}}}, {}}};
  }
  std::vector<ex::Stage> hashed() const {
    auto stages = ex::plan_report_stages(cfg);
    ex::hash_stages(stages, cfg, manifest, cfg.notebooks + "/figures.json");
    return stages;
  }
  // Leaves every stage as a finished run leaves it: its outputs and a stage.json with its hash.
  void finish(const std::vector<ex::Stage>& stages) const {
    for (const auto& s : stages) {
      for (const auto& o : s.outputs) write(fs::path(cfg.work) / s.name / o, "output\n");
      write(fs::path(cfg.work) / s.name / "stage.json",
            json{{"stage", s.name}, {"config_hash", s.hash}, {"profile", cfg.profile}, {"seconds", 7.5}}.dump());
    }
  }
  // The stages whose outputs are not current (would run).
  std::set<std::string> stale(const std::vector<ex::Stage>& stages) const {
    std::set<std::string> out;
    for (const auto& s : stages)
      if (!ex::current_stage_record(cfg, s)) out.insert(s.name);
    return out;
  }
};

const std::set<std::string> kAll = {"theory-claims", "theory-figures", "sims-claims", "sims-phase", "sims-minimizers",
                                    "figures"};

}  // namespace

TEST_CASE("report caching: an unchanged stage is not rerun, an edit of a layer reruns the stages that run it",
          "[report]") {
  Scratch s;
  const auto first = s.hashed();
  CHECK(s.stale(first) == kAll);  // nothing has run yet
  s.finish(first);
  const auto again = s.hashed();
  for (std::size_t k = 0; k < first.size(); ++k) CHECK(again[k].hash == first[k].hash);
  CHECK(s.stale(again).empty());
  CHECK(ex::current_stage_record(s.cfg, again[0])->value("seconds", 0.0) == 7.5);

  // the report builder's own files are no input: editing one reruns nothing
  write(s.dir / "repo/experiments/src/report/report_plan.cpp", "// edited\n");
  CHECK(s.stale(s.hashed()).empty());
  // nor is a layer's documentation, nor a header no stage's code includes
  write(s.dir / "repo/theory/README.md", "# edited\n");
  write(s.dir / "repo/experiments/tuning.md", "# edited\n");
  write(s.dir / "repo/theory/include/dmlbench/theory/new_concept.hpp", "// new\n");
  CHECK(s.stale(s.hashed()).empty());
  // a new source in a folder the sims stages take whole, and a header their command includes
  write(s.dir / "repo/sims/src/b2.cpp", "// new\n");
  CHECK(s.stale(s.hashed()) == std::set<std::string>{"sims-claims", "sims-phase", "sims-minimizers", "figures"});
  fs::remove(s.dir / "repo/sims/src/b2.cpp");
  CHECK(s.stale(s.hashed()).empty());
  write(s.dir / "repo/sims/include/dmlbench/sims/b.hpp", "// edited\n");
  CHECK(s.stale(s.hashed()) == std::set<std::string>{"sims-claims", "sims-phase", "sims-minimizers", "figures"});
  // an edit of the theory: every stage runs theory code
  write(s.dir / "repo/theory/src/a.cpp", "// edited\n");
  CHECK(s.stale(s.hashed()) == kAll);
  // and it says why, file by file, against the record of the last run
  const auto now = s.hashed();
  const json rec = {{"config", first[0].config}, {"code_files", first[0].code_files}, {"config_hash", first[0].hash}};
  CHECK(ex::stage_hash_changes(now[0], rec) == std::vector<std::string>{"theory/src/a.cpp (changed)"});
  CHECK(ex::stage_hash_changes(first[0], rec).empty());
}

TEST_CASE("report caching: a missing output, --force, or another command reruns a stage", "[report]") {
  Scratch s;
  auto stages = s.hashed();
  s.finish(stages);
  REQUIRE(s.stale(stages).empty());
  fs::remove(fs::path(s.cfg.work) / "sims-phase" / stage(stages, "sims-phase").outputs.at(1));
  CHECK(s.stale(stages) == std::set<std::string>{"sims-phase"});
  s.cfg.force = true;
  CHECK(s.stale(stages) == kAll);
  s.cfg.force = false;
  s.cfg.profile = "default";  // the default phase diagram: other commands for the sims stages, same theory commands
  const auto deflt = s.hashed();
  CHECK(stage(deflt, "theory-claims").hash == stage(stages, "theory-claims").hash);
  CHECK(stage(deflt, "sims-phase").hash != stage(stages, "sims-phase").hash);
  CHECK(stage(deflt, "sims-minimizers").hash != stage(stages, "sims-minimizers").hash);
  // the work folder is abstracted ($WORK): the same stages elsewhere hash the same
  auto moved = s.cfg;
  moved.work = (s.dir / "elsewhere").string();
  auto there = ex::plan_report_stages(moved);
  ex::hash_stages(there, moved, s.manifest, moved.notebooks + "/figures.json");
  CHECK(stage(there, "sims-phase").hash == stage(deflt, "sims-phase").hash);
  // so is the repository (${SOURCE}): the same code checked out elsewhere hashes the same
  fs::copy(s.dir / "repo", s.dir / "checkout", fs::copy_options::recursive);
  auto elsewhere = s.cfg;
  elsewhere.source_dir = (s.dir / "checkout").string();
  elsewhere.notebooks = (s.dir / "checkout/notebooks").string();
  auto checkout = ex::plan_report_stages(elsewhere);
  ex::hash_stages(checkout, elsewhere, s.manifest, elsewhere.notebooks + "/figures.json");
  for (std::size_t k = 0; k < checkout.size(); ++k) CHECK(checkout[k].hash == deflt[k].hash);
}

TEST_CASE("report estimates: a stage's last run of the profile, else its nominal time, 0 when not selected or "
          "current", "[report]") {
  Scratch s;
  auto stages = s.hashed();
  auto est = ex::stage_estimates(stages, s.cfg);
  for (std::size_t k = 0; k < stages.size(); ++k) CHECK(est[k] == stages[k].nominal_seconds);
  s.finish(stages);  // records of 7.5 s, quick profile, each current
  est = ex::stage_estimates(stages, s.cfg);
  for (const double e : est) CHECK(e == 0.0);
  s.cfg.force = true;  // the control: forced, each runs again and its last run is its estimate
  est = ex::stage_estimates(stages, s.cfg);
  for (const double e : est) CHECK(e == 7.5);
  s.cfg.only = {"figures"};
  est = ex::stage_estimates(stages, s.cfg);
  CHECK(est.back() == 7.5);
  CHECK(est.front() == 0.0);
  s.cfg.only.clear();
  s.cfg.profile = "default";  // a record of another profile is no estimate
  stages = s.hashed();
  est = ex::stage_estimates(stages, s.cfg);
  CHECK(est[3] == stage(stages, "sims-phase").nominal_seconds);
  CHECK(est[3] == 200);  // its nominal time: the default phase diagram on 2 cores
}

// A training stage's estimate counts what it will do: the runs its trainer code no longer matches train again (their
// wall seconds over the runs at a time), the others are read back; a folder without a finished run gives none.
TEST_CASE("report estimates: a training stage's runs of other trainer code train again, the others are read back",
          "[report]") {
  const ScratchDir scratch("dmlbench-stage-estimate");
  const fs::path stage = scratch.dir() / "omniglot-ms";
  const auto finished_run = [&](const std::string& folder, const std::string& code, double seconds) {
    fs::create_directories(stage / folder);
    std::ofstream(stage / folder / "run_key.json") << nlohmann::json{{"key", "k"}, {"code_hash", code}}.dump();
    std::ofstream(stage / folder / "metrics.json") << nlohmann::json{{"seconds", seconds}}.dump();
  };
  CHECK_FALSE(ex::training_stage_estimate(stage.string(), "now", 2));  // no folder
  finished_run("base/seed1", "now", 100);
  finished_run("eps/seed1", "then", 40);
  fs::create_directories(stage / "eps/seed2");  // a run that did not finish: no metrics.json, not counted
  std::ofstream(stage / "eps/seed2/run_key.json") << nlohmann::json{{"key", "k"}, {"code_hash", "then"}}.dump();
  const double read_back = ex::kReadBackSecondsPerRun;
  CHECK(*ex::training_stage_estimate(stage.string(), "now", 2) == Approx(40.0 / 2 + 2 * read_back));
  // the control: after a change to the trainer's code every run trains again
  CHECK(*ex::training_stage_estimate(stage.string(), "other", 2) == Approx(140.0 / 2 + 2 * read_back));
  CHECK(*ex::training_stage_estimate(stage.string(), "other", 1) == Approx(140.0 + 2 * read_back));
  fs::remove_all(stage / "base");
  fs::remove_all(stage / "eps/seed1");
  CHECK_FALSE(ex::training_stage_estimate(stage.string(), "now", 2));  // only an unfinished run left
}

TEST_CASE("report stages: a reproduction with committed tuning results gets a tuned stage in the default profile only, "
          "hashed on its own study", "[report][tuning]") {
  const ScratchDir scratch("dmlbench-tuned-plan");
  const auto& dir = scratch.dir();
  fs::create_directories(dir / "reproductions");
  fs::copy_file(kSource + "/experiments/reproductions/lcc_table1.json", dir / "reproductions/lcc_table1.json");
  const auto r = ex::read_reproduction((dir / "reproductions/lcc_table1.json").string(), kSource);
  const auto t = ex::read_tuning_spec(r, kSource);
  json results = {{"space_hash", ex::tuning_space_hash(t, r)}, {"arms", json::array()}};
  for (const auto& a : r.arms)
    results["arms"].push_back({{"name", a.name}, {"best", {{"params", {{"optimizer.lr", 0.002}}}, {"epochs", 3}}}});
  write(dir / "tuned/lcc_table1.json", results.dump());
  const auto repros = (dir / "reproductions").string();
  auto deflt = ex::plan_report_stages(config("default", repros, "/tmp/w"));
  const auto& tuned = stage(deflt, "mnist-evenodd-tuned");
  CHECK(values_of(tuned.commands.at(0).argv, "--tuned") == std::vector<std::string>{(dir / "tuned/lcc_table1.json").string()});
  const auto quick = names(ex::plan_report_stages(config("quick", repros, "/tmp/w")));
  CHECK(std::count(quick.begin(), quick.end(), "mnist-evenodd-tuned") == 0);
  // the tuned stage's hash follows its study; the default stage's does not
  auto cfg = config("default", repros, "/tmp/w");
  const auto manifest = ex::read_manifest(kSource + "/notebooks/figures.json");
  ex::hash_stages(deflt, cfg, manifest, kSource + "/notebooks/figures.json");
  results["arms"][0]["best"]["epochs"] = 4;
  write(dir / "tuned/lcc_table1.json", results.dump());
  auto again = ex::plan_report_stages(cfg);
  ex::hash_stages(again, cfg, manifest, kSource + "/notebooks/figures.json");
  CHECK(stage(again, "mnist-evenodd-tuned").hash != stage(deflt, "mnist-evenodd-tuned").hash);
  CHECK(stage(again, "mnist-evenodd").hash == stage(deflt, "mnist-evenodd").hash);
  // results of another space are refused when the report plans its stages
  results["space_hash"] = "0000000000000000";
  write(dir / "tuned/lcc_table1.json", results.dump());
  CHECK_THROWS_WITH(ex::plan_report_stages(cfg), Catch::Contains("another space, budget or folds"));
}

TEST_CASE("report caching: a stage that spends seeds is hashed on the seed-spending rule and its settings",
          "[report]") {
  // the rule (report_seed_spending.cpp and what it calls) decides which runs a spending stage makes, though no
  // command of that stage runs it: its code set and the looks' settings enter such a stage's config, and no other's
  const ScratchDir scratch("dmlbench-spending-hash");
  const fs::path& dir = scratch.dir();
  fs::create_directories(dir / "reproductions");
  fs::copy_file(kSource + "/experiments/reproductions/lcc_table1.json", dir / "reproductions/lcc_table1.json");
  const std::string rule = "experiments/src/report/report_seed_spending.cpp";
  write(dir / "repo" / rule, "// the rule\n");
  write(dir / "repo/experiments/src/engine/c.cpp", "// c\n");
  fs::create_directories(dir / "repo/experiments");  // the reproduction's run configs, read when its stage is planned
  fs::copy(kSource + "/experiments/configs", dir / "repo/experiments/configs", fs::copy_options::recursive);
  fs::copy_file(kSource + "/experiments/report_design.json", dir / "repo/experiments/report_design.json");
  auto cfg = config("default", (dir / "reproductions").string(), "/tmp/w");
  cfg.source_dir = (dir / "repo").string();
  const auto manifest = ex::read_manifest(kSource + "/notebooks/figures.json");
  auto hashed = [&] {
    auto stages = ex::plan_report_stages(cfg);
    ex::hash_stages(stages, cfg, manifest, kSource + "/notebooks/figures.json");
    return stages;
  };
  const auto before = hashed();
  const auto& spends = stage(before, "mnist-evenodd");
  REQUIRE(spends.spending.has_value());
  REQUIRE(spends.config.contains("spending"));
  CHECK(spends.config["spending"]["cap"] == spends.spending->cap);
  CHECK(spends.code_files.count("seed spending: " + rule));
  CHECK_FALSE(stage(before, "sims-phase").config.contains("spending"));
  // the rule edited: the spending stage reruns and says why, the others do not
  write(dir / "repo" / rule, "// edited\n");
  const auto edited = hashed();
  CHECK(stage(edited, "mnist-evenodd").hash != spends.hash);
  CHECK(stage(edited, "sims-phase").hash == stage(before, "sims-phase").hash);
  const json rec = {{"config", spends.config}, {"code_files", spends.code_files}, {"config_hash", spends.hash}};
  CHECK(ex::stage_hash_changes(stage(edited, "mnist-evenodd"), rec) ==
        std::vector<std::string>{"seed spending: " + rule + " (changed)"});
  // the looks' family rule changed (Holm: looks at alpha / m, no planned selection): the spending stage reruns
  cfg.multiplicity = "holm";
  const auto holm = hashed();
  CHECK(stage(holm, "mnist-evenodd").hash != stage(edited, "mnist-evenodd").hash);
  CHECK(ex::stage_hash_changes(stage(holm, "mnist-evenodd"), rec).front() == "its seed-spending settings changed");
  // where runs are read back from is no part of the hash
  cfg.out = "/elsewhere/report";
  CHECK(stage(hashed(), "mnist-evenodd").hash == stage(holm, "mnist-evenodd").hash);
  // the design file's text is: a note added to it moves the spending stage, not the sims stage
  std::ofstream(dir / "repo/experiments/report_design.json", std::ios::app) << "\n";
  const auto redesigned = hashed();
  CHECK(stage(redesigned, "mnist-evenodd").hash != stage(holm, "mnist-evenodd").hash);
  CHECK(stage(redesigned, "sims-phase").hash == stage(holm, "sims-phase").hash);
}
