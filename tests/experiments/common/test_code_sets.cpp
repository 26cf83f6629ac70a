// The code sets (experiments/code_sets.hpp) that key training runs and hash report stages: on a copy of the sources,
// which edits move which set; and, where the build made the targets, each set's sources against CMake's own lists.
#include "dmlbench/experiments/code_sets.hpp"

#include "../../support/scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

// The code folders of the repository, copied: what the sets read.
void copy_code(const fs::path& to) {
  for (const char* part : {"CMakeLists.txt", "theory", "sims", "experiments/src", "experiments/include",
                           "experiments/CMakeLists.txt", "apps"}) {
    fs::create_directories((to / part).parent_path());
    fs::copy(fs::path(kSource) / part, to / part, fs::copy_options::recursive);
  }
}

void append(const fs::path& file, const std::string& text) {
  REQUIRE(fs::is_regular_file(file));
  std::ofstream(file, std::ios::app) << text;
}

std::map<std::string, std::string> hashes(const std::string& root) {
  std::map<std::string, std::string> h;
  for (const char* set : {"trainer", "training", "theory", "sims", "seed-spending"}) h[set] = ex::code_fingerprint(root, set).hash;
  return h;
}

// The sets whose hash differs between two readings.
std::set<std::string> moved(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  std::set<std::string> m;
  for (const auto& [k, v] : a)
    if (b.at(k) != v) m.insert(k);
  return m;
}

bool has(const std::vector<std::string>& files, const std::string& f) {
  return std::find(files.begin(), files.end(), f) != files.end();
}

}  // namespace

TEST_CASE("code sets: the trainer holds the training and evaluation code and what it includes, not the verdicts, the "
          "report or a paper's theory checks", "[experiments][code_sets]") {
  const auto trainer = ex::code_set_files(kSource, ex::code_set_roots("trainer"));
  for (const char* f : {"experiments/src/engine/training_step.cpp", "experiments/src/evaluation/kmeans.cpp",
                        "experiments/src/losses/triplet_loss.cpp", "experiments/src/config/run_config_rules.cpp",
                        "experiments/include/dmlbench/experiments/run_config.hpp",
                        "theory/src/hierarchical_class_tree.cpp", "CMakeLists.txt", "experiments/CMakeLists.txt"})
    CHECK(has(trainer, f));
  for (const auto& f : trainer) {
    INFO(f);
    CHECK(f.rfind("experiments/src/verdicts/", 0) != 0);
    CHECK(f.rfind("experiments/src/report/", 0) != 0);
    CHECK(f.rfind("theory/papers/", 0) != 0);
    CHECK(f.rfind("theory/src/claims_", 0) != 0);
    CHECK(f.rfind("apps/", 0) != 0);
    CHECK(f != "experiments/src/config/reproduction.cpp");
  }
  // the commands that run it judge their runs: the training stages' set holds the verdicts too
  const auto training = ex::code_set_files(kSource, ex::code_set_roots("training"));
  CHECK(has(training, "experiments/src/verdicts/anytime_t_test.cpp"));
  CHECK(has(training, "apps/torch_commands.cpp"));
  CHECK(std::includes(training.begin(), training.end(), trainer.begin(), trainer.end()));
  CHECK_THROWS_WITH(ex::code_set_roots("report"), Catch::Contains("no code set named"));
}

TEST_CASE("code sets: a header nothing includes moves no set, and each edit moves exactly the sets that reach the file",
          "[experiments][code_sets]") {
  ScratchDir scratch("dmlbench-code-sets");
  const fs::path repo = scratch.dir() / "repo";
  copy_code(repo);
  const auto base = hashes(repo.string());
  CHECK(hashes(repo.string()) == base);  // read twice, the same

  // a new theory concept's header, before any source includes it: no stage or run moves
  std::ofstream(repo / "theory/include/dmlbench/theory/new_concept.hpp") << "#pragma once\ninline int answer() { return 42; }\n";
  CHECK(moved(base, hashes(repo.string())).empty());
  // the documentation of a layer is no code
  append(repo / "theory/README.md", "\nedited\n");
  CHECK(moved(base, hashes(repo.string())).empty());

  // a paper's theory checks: the theory stages only
  append(repo / "theory/src/claims_xhn.cpp", "\n// edited\n");
  CHECK(moved(base, hashes(repo.string())) == std::set<std::string>{"theory", "sims"});
  const auto after_claims = hashes(repo.string());
  // the verdicts: the training stages (reproduce judges) and the seed-spending rule, no run
  append(repo / "experiments/src/verdicts/anytime_t_test.cpp", "\n// edited\n");
  CHECK(moved(after_claims, hashes(repo.string())) == std::set<std::string>{"training", "seed-spending"});
  const auto after_verdicts = hashes(repo.string());
  // the seed-spending rule itself: only that
  append(repo / "experiments/src/report/report_seed_spending.cpp", "\n// edited\n");
  CHECK(moved(after_verdicts, hashes(repo.string())) == std::set<std::string>{"seed-spending"});
  const auto after_spending = hashes(repo.string());
  // the training loop: every run (the trainer) and the training stages
  append(repo / "experiments/src/engine/training_step.cpp", "\n// edited\n");
  const auto after_loop = hashes(repo.string());
  CHECK(moved(after_spending, after_loop) == std::set<std::string>{"trainer", "training"});
  // a theory concept the trainer includes (the [HTL] class tree): runs move too, as do the theory stages
  append(repo / "theory/include/dmlbench/theory/hierarchical_class_tree.hpp", "\n// edited\n");
  const auto after_tree = hashes(repo.string());
  CHECK(moved(after_loop, after_tree) == std::set<std::string>{"trainer", "training", "theory", "sims"});
  // a new source in a folder the trainer takes whole
  std::ofstream(repo / "experiments/src/losses/new_loss.cpp") << "// a new loss\n";
  CHECK(moved(after_tree, hashes(repo.string())) == std::set<std::string>{"trainer", "training"});

  // what moved, file by file
  const auto before = ex::code_fingerprint(kSource, "trainer").files;
  const auto changes = ex::fingerprint_changes(before, ex::code_fingerprint(repo.string(), "trainer").files);
  CHECK(has(changes, "experiments/src/engine/training_step.cpp (changed)"));
  CHECK(has(changes, "experiments/src/losses/new_loss.cpp (added)"));
  CHECK_FALSE(has(changes, "experiments/src/verdicts/anytime_t_test.cpp (changed)"));
}

TEST_CASE("code sets: every library source without a header of its own name says which headers it implements",
          "[experiments][code_sets]") {
  // a source that defines what another header declares is reached only through sources_implementing; the folders a
  // set takes whole (the trainer's, theory's, sims') need no entry
  const std::set<std::string> whole = {"engine", "models", "evaluation", "losses", "miners", "samplers"};
  std::set<std::string> headers;
  for (const auto& e : fs::recursive_directory_iterator(kSource))
    if (e.path().extension() == ".hpp") headers.insert(e.path().stem().string());
  std::vector<std::string> missing;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(kSource) / "experiments/src")) {
    if (e.path().extension() != ".cpp" || whole.count(e.path().parent_path().filename().string())) continue;
    const auto rel = fs::relative(e.path(), kSource).generic_string();
    if (!headers.count(e.path().stem().string()) && !ex::sources_implementing().count(rel)) missing.push_back(rel);
  }
  CHECK(missing.empty());
  for (const auto& [source, implemented] : ex::sources_implementing()) {
    INFO(source);
    CHECK(fs::is_regular_file(fs::path(kSource) / source));
    for (const auto& h : implemented) CHECK(fs::is_regular_file(fs::path(kSource) / h));
  }
}

#ifdef DMLBENCH_TARGET_SOURCES
// CMake's own source lists of the targets (tests/CMakeLists.txt writes them): the sets never name a source that the
// targets they stand for do not compile, and take every source of the libraries they link whole.
TEST_CASE("code sets: the trainer's sources are sources of the libraries the training module links, and every "
          "LibTorch library source is in it", "[experiments][code_sets]") {
  const auto targets = nlohmann::json::parse(slurp(DMLBENCH_TARGET_SOURCES));
  const auto sources_of = [&](std::initializer_list<const char*> names) {
    std::set<std::string> out;
    for (const char* n : names) {
      if (!targets.contains(n)) continue;
      for (const auto& f : targets[n]) out.insert(fs::relative(f.get<std::string>(), kSource).generic_string());
    }
    return out;
  };
  if (!targets.contains("dmlbench_engine")) {
    SUCCEED("a build without LibTorch: no training module to compare with");
    return;
  }
  const auto linked = sources_of({"dmlbench_theory_core", "dmlbench_data_core", "dmlbench_registrations",
                                  "dmlbench_engine", "dmlbench_losses"});
  const auto cpp_of = [](const std::vector<std::string>& files) {
    std::set<std::string> out;
    for (const auto& f : files)
      if (fs::path(f).extension() == ".cpp") out.insert(f);
    return out;
  };
  const auto trainer = cpp_of(ex::code_set_files(kSource, ex::code_set_roots("trainer")));
  for (const auto& f : trainer) {
    INFO(f);
    CHECK(linked.count(f));
  }
  for (const auto& f : sources_of({"dmlbench_engine", "dmlbench_losses"})) {
    INFO(f);
    CHECK(trainer.count(f));
  }
  // the check can fail: a command's source is no source of those libraries
  CHECK_FALSE(linked.count("apps/torch_commands.cpp"));
  const auto theory = cpp_of(ex::code_set_files(kSource, ex::code_set_roots("theory")));
  for (const auto& f : sources_of({"dmlbench_theory_core"})) {
    INFO(f);
    CHECK(theory.count(f));
  }
  const auto sims = cpp_of(ex::code_set_files(kSource, ex::code_set_roots("sims")));
  for (const auto& f : sources_of({"dmlbench_sims"})) {
    INFO(f);
    CHECK(sims.count(f));
  }
  auto all = sources_of({"dmlbench_torch_commands", "dmlbench"});
  all.insert(linked.begin(), linked.end());
  for (const auto& f : cpp_of(ex::code_set_files(kSource, ex::code_set_roots("training")))) {
    INFO(f);
    CHECK(all.count(f));
  }
}
#endif
