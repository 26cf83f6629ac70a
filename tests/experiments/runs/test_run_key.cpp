// A training run's key and its record (experiments/run_key.hpp): what the key covers, what a record checks, and how a
// stored copy (paths written ${WORK} and ${SOURCE}) is found and restored. Files stand in for a trainer's outputs.
#include "dmlbench/experiments/run_key.hpp"

#include "../../support/scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

json config(const std::string& data_dir, const std::string& init_run = "") {
  return {{"name", "tiny"},
          {"seed", 1},
          {"dataset", {{"data_dir", data_dir}}},
          {"model", {{"name", "small-conv"}, {"init_run", init_run}}},
          {"optimizer", {{"lr", 0.001}}}};
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A finished run's outputs under work/stage/arm/seed1, naming the work and source folders as a trainer's do.
std::string fake_run(const fs::path& work, const ex::RunKey& k) {
  const fs::path dir = work / "stage" / "arm" / "seed1";
  write(dir / "metrics.json", "{\"config\": {\"data_dir\": \"" + kSource + "/data/mnist\"}, \"last_loss\": 0.25, "
                              "\"init\": \"" + work.string() + "/stage/pretrain/seed1\"}\n");
  write(dir / "train_steps.csv", "# {\"data_dir\": \"" + kSource + "/data/mnist\"}\nstep,loss\n1,0.5\n");
  write(dir / "embeddings/test.npy", std::string("\x93NUMPY\x01\x00 binary", 16));
  write(dir / "checkpoint.json", "{}\n");  // not an output: never recorded
  write(dir / "train_log.txt", "a log\n");
  write(dir / "sweep_log.txt", "a sweep point's log\n");  // written around the run, after its key: never recorded
  ex::write_run_key(dir.string(), k, work.string(), kSource);
  return dir.string();
}

// What the report's stage store does to a text file: this machine's folders written as placeholders.
std::string stored_text(std::string t, const std::string& work) {
  for (const auto& [from, to] : {std::pair{work, std::string("${WORK}")}, std::pair{kSource, std::string("${SOURCE}")}})
    for (auto p = t.find(from); p != std::string::npos; p = t.find(from, p + to.size())) t.replace(p, from.size(), to);
  return t;
}

void store_copy(const fs::path& from, const fs::path& to, const std::string& work) {
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    if (!e.is_regular_file()) continue;
    const auto rel = fs::relative(e.path(), from);
    if (rel == "embeddings/test.npy") continue;  // large files the store leaves out
    const std::string ext = e.path().extension().string();
    const bool text = ext == ".json" || ext == ".csv" || ext == ".txt";
    write(to / rel, text ? stored_text(slurp(e.path().string()), work) : slurp(e.path().string()));
  }
}

}  // namespace

TEST_CASE("run key: the same run has the same key anywhere, and its config, threads and device each move it",
          "[experiments][run_key]") {
  const auto k = ex::run_key(config(kSource + "/data/mnist"), 1, "cpu", kSource);
  CHECK(k.key.size() == 16);
  CHECK(ex::run_key(config(kSource + "/data/mnist"), 1, "cpu", kSource).key == k.key);
  // the source folder is written ${SOURCE}: the same data under another checkout's path is the same run
  CHECK(ex::normalized_run_config(config(kSource + "/data/mnist"), kSource)["dataset"]["data_dir"] == "${SOURCE}/data/mnist");
  CHECK(ex::run_key(config("/elsewhere/data/mnist"), 1, "cpu", "/elsewhere").config_hash == k.config_hash);
  // each part moves it
  auto lr = config(kSource + "/data/mnist");
  lr["optimizer"]["lr"] = 0.002;
  CHECK(ex::run_key(lr, 1, "cpu", kSource).key != k.key);
  CHECK(ex::run_key(config(kSource + "/data/mnist"), 2, "cpu", kSource).key != k.key);
  CHECK(ex::run_key(config(kSource + "/data/mnist"), 1, "cuda", kSource).key != k.key);
  CHECK(ex::run_key(config(kSource + "/data/other"), 1, "cpu", kSource).key != k.key);
}

TEST_CASE("run key: a run that starts from another is keyed by that run's key, not by where its folder lies",
          "[experiments][run_key]") {
  ScratchDir scratch("dmlbench-run-key-init");
  const auto parent_key = ex::run_key(config(kSource + "/data/mnist"), 1, "cpu", kSource);
  const std::string a = fake_run(scratch.dir() / "a", parent_key), b = fake_run(scratch.dir() / "b", parent_key);
  const auto from_a = ex::normalized_run_config(config(kSource + "/data/mnist", a), kSource);
  CHECK(from_a["model"]["init_run"] == "run:" + parent_key.key);
  CHECK(ex::normalized_run_config(config(kSource + "/data/mnist", b), kSource) == from_a);
  // a folder with no key record is kept as written (negative control)
  CHECK(ex::normalized_run_config(config(kSource + "/data/mnist", "/no/such/run"), kSource)["model"]["init_run"] ==
        "/no/such/run");
}

TEST_CASE("run key record: a finished run checks, a changed file is named and never reused, another key is not this "
          "run", "[experiments][run_key]") {
  ScratchDir scratch("dmlbench-run-key-check");
  const auto k = ex::run_key(config(kSource + "/data/mnist"), 1, "cpu", kSource);
  const auto dir = fake_run(scratch.dir() / "work", k);
  const json rec = json::parse(slurp(dir + "/run_key.json"));
  CHECK(rec["key"] == k.key);
  CHECK(rec["files"].size() == 3);  // metrics.json, train_steps.csv, embeddings/test.npy: no checkpoint, no log
  CHECK_FALSE(rec["files"].contains("checkpoint.json"));
  CHECK_FALSE(rec["files"].contains("sweep_log.txt"));
  write(fs::path(dir) / "sweep_log.txt", "a sweep point's log, appended when the sweep merges it\n");
  const auto ok = ex::check_run(dir, k.key, kSource);
  CHECK(ok.reusable);
  CHECK(ok.damage.empty());

  const auto other = ex::check_run(dir, "0123456789abcdef", kSource);
  CHECK_FALSE(other.reusable);
  CHECK(other.damage.empty());
  CHECK(other.recorded_key == k.key);

  // an edited result: named, not reused
  write(fs::path(dir) / "train_steps.csv", slurp(dir + "/train_steps.csv") + "2,0.4\n");
  const auto edited = ex::check_run(dir, k.key, kSource);
  CHECK_FALSE(edited.reusable);
  CHECK_THAT(edited.damage, Catch::Contains(dir + "/train_steps.csv") && Catch::Contains("does not match"));
  // metrics.json gone: not a finished run
  fs::remove(fs::path(dir) / "train_steps.csv");
  fs::remove(fs::path(dir) / "metrics.json");
  CHECK_THAT(ex::check_run(dir, k.key, kSource).damage, Catch::Contains("metrics.json is missing"));
}

TEST_CASE("run store: a stored copy (paths as placeholders, large files left out) is found by key, restored into "
          "another work folder, and checks there, and a damaged copy is skipped and said", "[experiments][run_key]") {
  ScratchDir scratch("dmlbench-run-store");
  const auto k = ex::run_key(config(kSource + "/data/mnist"), 1, "cpu", kSource);
  const fs::path work = scratch.dir() / "work";
  const auto dir = fake_run(work, k);
  const fs::path store = scratch.dir() / "store";
  store_copy(fs::path(dir), store / "stage" / "arm" / "seed1", work.string());
  CHECK_THAT(slurp((store / "stage/arm/seed1/metrics.json").string()), Catch::Contains("${WORK}/stage/pretrain"));
  CHECK(ex::check_run((store / "stage/arm/seed1").string(), k.key, kSource).reusable);

  const ex::RunStore runs({(scratch.dir() / "nothing-here").string(), store.string()});
  const auto found = runs.find(k.key, kSource);
  REQUIRE(found);
  CHECK(fs::path(*found) == store / "stage/arm/seed1");
  CHECK_FALSE(runs.find("0123456789abcdef", kSource));

  // restored into another machine's work folder: its paths written back, the record checks against them
  const fs::path there = scratch.dir() / "there";
  write(there / "stage/arm/seed1/.dmlbench.lock", "");
  write(there / "stage/arm/seed1/stale.csv", "from another run\n");
  ex::restore_run(*found, (there / "stage/arm/seed1").string(), there.string(), kSource);
  CHECK(fs::exists(there / "stage/arm/seed1/.dmlbench.lock"));  // its writer's lock is kept
  CHECK_FALSE(fs::exists(there / "stage/arm/seed1/stale.csv"));
  CHECK_THAT(slurp((there / "stage/arm/seed1/metrics.json").string()), Catch::Contains(there.string() + "/stage/pretrain"));
  CHECK(ex::check_run((there / "stage/arm/seed1").string(), k.key, kSource).reusable);

  // a damaged stored copy: skipped, and said in one line naming its file
  write(store / "stage/arm/seed1/metrics.json", "{\"last_loss\": 0.125}\n");
  std::vector<std::string> damaged;
  CHECK_FALSE(ex::RunStore({store.string()}).find(k.key, kSource, &damaged));
  REQUIRE(damaged.size() == 1);
  CHECK_THAT(damaged[0], Catch::Contains("stage/arm/seed1/metrics.json does not match"));
  CHECK(damaged[0].find('\n') == std::string::npos);
}
