// The report's stage store: a finished stage saved in OUT/stages without checkpoints or this
// machine's folders, restored byte for byte into another work folder under its own config hash only.
#include "dmlbench/experiments/report_stage_store.hpp"

#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_manifest.hpp"
#include "scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A source tree with a work folder inside it (as out/report is) and one finished stage "st" with hash "h1".
struct Store {
  ScratchDir scratch{"dmlbench-stage-store"};
  fs::path dir = scratch.dir();
  ex::ReportConfig cfg;
  ex::Stage stage;
  std::string summary, binary;
  Store() {
    cfg.source_dir = (dir / "src").string();
    cfg.work = (dir / "src/out/report").string();
    cfg.out = (dir / "src/reports").string();
    stage.name = "st";
    stage.hash = "h1";
    stage.outputs = {"summary.json"};
    summary = "{\"init_run\": \"" + cfg.work + "/st/pretrain/seed1\", \"data_dir\": \"" + cfg.source_dir +
              "/data/glyphs\"}\n";
    binary = std::string("\x89PNG\0\x01", 6) + cfg.work;  // a binary file is copied as it is, paths and all
    const fs::path st = fs::path(cfg.work) / "st";
    write(st / "summary.json", summary);
    write(st / "arm/seed1/metrics.json", "{\"r1\": 0.5}\n");
    write(st / "arm/seed1/checkpoint_model.pt", "weights");
    write(st / "fig.png", binary);
    write(st / "log.txt", "the log of this machine\n");
    write(st / "stage_hash.txt", "h1\n");
    write(st / "stage.json", "{\"stage\": \"st\", \"config_hash\": \"h1\", \"git_revision\": \"abc\"}\n");
  }
  fs::path stored(const std::string& rel) const { return fs::path(ex::stage_store_dir(cfg)) / "st" / rel; }
};

}  // namespace

TEST_CASE("stage store: saved without checkpoints, logs or this machine's folders", "[report]") {
  Store s;
  ex::save_stage(s.cfg, s.stage);
  CHECK(slurp(s.stored("summary.json")) ==
        "{\"init_run\": \"${WORK}/st/pretrain/seed1\", \"data_dir\": \"${SOURCE}/data/glyphs\"}\n");
  CHECK(slurp(s.stored("arm/seed1/metrics.json")) == "{\"r1\": 0.5}\n");
  CHECK(slurp(s.stored("fig.png")) == s.binary);
  CHECK(fs::exists(s.stored("stage.json")));
  CHECK_FALSE(fs::exists(s.stored("arm/seed1/checkpoint_model.pt")));
  CHECK_FALSE(fs::exists(s.stored("log.txt")));
  CHECK_FALSE(fs::exists(s.stored("stage_hash.txt")));
  const auto big = ex::kLargeRunFile + 1;
  CHECK(ex::stored_stage_file("st", "arm/seed1/metrics.json", 100));
  CHECK_FALSE(ex::stored_stage_file("st", "arm/seed1/checkpoint_optimizer.pt", 100));
  CHECK_FALSE(ex::stored_stage_file("st", "arm/seed1/checkpoint.json", 100));  // the manifest of what is not kept
  CHECK_FALSE(ex::stored_stage_file("st", "out.json.tmp", 100));
  CHECK_FALSE(ex::stored_stage_file("st", "arm/seed1/embeddings/test.npy", big));  // 6 MB a run: not evidence
  CHECK(ex::stored_stage_file("st", "arm/seed1/embeddings/test_labels.csv", ex::kLargeRunFile));
  CHECK(ex::stored_stage_file("st", "summary.json", big));  // the stage's own outputs: no run's file
  CHECK(ex::stored_stage_file("st", "arm/seedling/big.csv", big));  // seedN names a run, not any "seed..."
}

TEST_CASE("stage store: a run's large files kept only where a notebook reads them", "[report]") {
  Store s;
  const std::string large(ex::kLargeRunFile + 1, 'x');
  write(fs::path(s.cfg.work) / "st/base/seed1/embeddings/test.npy", large);
  write(fs::path(s.cfg.work) / "st/base/seed1/embeddings/test_labels.csv", large);
  write(fs::path(s.cfg.work) / "st/base/seed2/embeddings/test.npy", large);
  write(fs::path(s.cfg.work) / "st/base/seed1/embeddings/train.npy", large);
  write(fs::path(s.cfg.work) / "st/base/seed2/class_tree.json", large);
  write(fs::path(s.cfg.work) / "st/base/seed2/train_steps.csv", "step,loss\n1,0.5\n");
  ex::save_stage(s.cfg, s.stage, {"st/*/seed1/embeddings/test*"});
  CHECK(fs::exists(s.stored("base/seed1/embeddings/test.npy")));
  CHECK(fs::exists(s.stored("base/seed1/embeddings/test_labels.csv")));
  CHECK(fs::exists(s.stored("base/seed2/train_steps.csv")));
  CHECK_FALSE(fs::exists(s.stored("base/seed2/embeddings/test.npy")));
  CHECK_FALSE(fs::exists(s.stored("base/seed1/embeddings/train.npy")));
  CHECK_FALSE(fs::exists(s.stored("base/seed2/class_tree.json")));
  CHECK(fs::exists(s.stored("arm/seed1/metrics.json")));
  // a glob is matched per path component: "*" does not reach into another stage or a deeper folder
  const std::vector<std::string> kept = {"st/*/seed1/embeddings/test*"};
  CHECK_FALSE(ex::stored_stage_file("other", "base/seed1/embeddings/test.npy", ex::kLargeRunFile + 1, kept));
  CHECK_FALSE(ex::stored_stage_file("st", "base/x/seed1/embeddings/test.npy", ex::kLargeRunFile + 1, kept));
}

TEST_CASE("stage store: restored byte for byte into another machine's work folder under its own hash only",
          "[report]") {
  Store s;
  ex::save_stage(s.cfg, s.stage);
  // another machine: the same store (committed with the report), other folders
  ex::ReportConfig other = s.cfg;
  fs::rename(s.cfg.source_dir, s.dir / "elsewhere");
  other.source_dir = (s.dir / "elsewhere").string();
  other.out = other.source_dir + "/reports";
  other.work = (s.dir / "work-b").string();
  const auto rec = ex::restore_stage(other, s.stage);
  REQUIRE(rec);
  CHECK(rec->value("git_revision", "") == "abc");
  const fs::path st = fs::path(other.work) / "st";
  CHECK(slurp(st / "summary.json") == "{\"init_run\": \"" + other.work + "/st/pretrain/seed1\", \"data_dir\": \"" +
                                          other.source_dir + "/data/glyphs\"}\n");
  CHECK(slurp(st / "fig.png") == s.binary);
  CHECK(slurp(st / "stage_hash.txt") == "h1\n");
  CHECK_FALSE(fs::exists(st / "arm/seed1/checkpoint_model.pt"));

  // negative controls: another hash, --force, an output missing from the copy, a copy cut short before its record
  ex::Stage changed = s.stage;
  changed.hash = "h2";
  CHECK_FALSE(ex::restore_stage(other, changed));
  other.force = true;
  CHECK_FALSE(ex::restore_stage(other, s.stage));
  other.force = false;
  ex::Stage more = s.stage;
  more.outputs.push_back("curve.csv");
  CHECK_FALSE(ex::restore_stage(other, more));
  fs::remove(fs::path(ex::stage_store_dir(other)) / "st/stage.json");
  CHECK_FALSE(ex::restore_stage(other, s.stage));
}

TEST_CASE("stage store: the new report folder carries the current stages' copies only", "[report]") {
  Store s;
  ex::save_stage(s.cfg, s.stage);
  const fs::path dest = s.dir / "reports.new";
  ex::carry_stage_store(s.cfg, {s.stage}, dest.string());
  CHECK(slurp(dest / "stages/st/summary.json") == slurp(s.stored("summary.json")));
  fs::remove_all(dest);
  ex::Stage changed = s.stage;
  changed.hash = "h2";  // the stage's config has changed since the copy was made: it is not the new report's
  ex::carry_stage_store(s.cfg, {changed}, dest.string());
  CHECK_FALSE(fs::exists(dest / "stages/st"));
}

TEST_CASE("stage store: the work folder is written before the source folder that holds it", "[report]") {
  ex::ReportConfig cfg;
  cfg.source_dir = "/r";
  cfg.work = "/r/out/report";
  CHECK(ex::placeholders_for_paths("/r/out/report/a /r/data", cfg) == "${WORK}/a ${SOURCE}/data");
  CHECK(ex::paths_for_placeholders("${WORK}/a ${SOURCE}/data", cfg) == "/r/out/report/a /r/data");
}

// notebooks/figures.json's run_files_read names the only large run files the store keeps: each must be a glob of one
// stage's run files (STAGE/ARM/seedN/FILE), which can reach neither another stage nor outside the work folder.
TEST_CASE("stage store: a notebook's run_files_read is a glob of one stage's run files, or the manifest is refused",
          "[report]") {
  ScratchDir scratch{"dmlbench-manifest-globs"};
  const fs::path manifest = scratch.dir() / "figures.json";
  const auto read_with = [&](const std::string& glob) {
    write(manifest, "{\"notebooks\": [{\"notebook\": \"n.ipynb\", \"run_files_read\": [\"" + glob +
                        "\"], \"figures\": []}]}");
    return ex::read_manifest(manifest.string());
  };
  for (const std::string good : {"htl-omniglot/*/seed1/class_tree.json", "omniglot-trip/*/seed1/embeddings/test*",
                                 "mnist-evenodd/lcc/seed*/scatter.csv", "st/arm/seed12/x"})
    CHECK(ex::run_files_read(read_with(good)) == std::vector<std::string>{good});
  for (const std::string bad : {"", "/st/arm/seed1/x", "*/arm/seed1/x", "st*/arm/seed1/x", "st/arm/seed1",
                                "st/../other/seed1/x", "st/arm/seedling/x", "st/seed1/x", "st/arm/seed1/../../x",
                                "st//seed1/x", "st/arm/seed1/./x", "st/arm/x/seed1/y"})
    CHECK_THROWS_WITH(read_with(bad), Catch::Contains("n.ipynb's run_files_read \"" + bad + "\" is no glob"));
}
