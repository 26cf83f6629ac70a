// Atomic outputs and file sets (experiments/src/data/atomic_file.cpp): a failed write leaves the previous
// file; a set interrupted during its renames is completed from its manifest; a damaged set is named.
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/checkpoint_state.hpp"
#include "dmlbench/experiments/idx_file.hpp"

#include "scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::vector<std::pair<std::string, std::string>> kOld = {{"a.pt", "old model"}, {"b.pt", "old optimizer"}};
const std::vector<std::pair<std::string, std::string>> kNew = {{"a.pt", "new model bytes"}, {"b.pt", "new optim"}};

}  // namespace

TEST_CASE("a file set is written whole and its manifest lists each file's size and hash", "[atomic]") {
  ScratchDir d("dmlbench-fileset");
  write_file_set(d.root(), kOld, "m.json", {{"step", 1}});
  const json m = json::parse(slurp(d.dir() / "m.json"));
  CHECK(m["step"] == 1);
  CHECK(m["files"]["a.pt"]["bytes"] == 9);
  CHECK(slurp(d.dir() / "b.pt") == "old optimizer");
  CHECK_NOTHROW(check_file_set(d.root(), m, "m.json"));
  CHECK_FALSE(fs::exists(d.dir() / "a.pt.tmp"));
  // negative control: a file changed behind the manifest's back is named
  std::ofstream(d.dir() / "b.pt") << "other bytes";
  CHECK_THROWS_WITH(check_file_set(d.root(), m, "m.json"), Catch::Contains("b.pt does not match m.json"));
  // an older manifest has no "files" and is not checked
  CHECK_NOTHROW(check_file_set(d.root(), json{{"step", 1}}, "m.json"));
}

TEST_CASE("a set stopped during its renames is completed and one stopped before them is dropped", "[atomic]") {
  ScratchDir d("dmlbench-fileset-kill");
  write_file_set(d.root(), kOld, "m.json", {{"step", 1}});
  // what a kill after the first rename leaves: a.pt new, b.pt.tmp and m.json.tmp new, m.json old
  const std::string old_manifest = slurp(d.dir() / "m.json");
  write_file_set(d.root(), kNew, "m.json", {{"step", 2}});
  const std::string new_manifest = slurp(d.dir() / "m.json");
  fs::rename(d.dir() / "b.pt", d.dir() / "b.pt.tmp");
  std::ofstream(d.dir() / "b.pt") << "old optimizer";
  fs::rename(d.dir() / "m.json", d.dir() / "m.json.tmp");
  std::ofstream(d.dir() / "m.json") << old_manifest;
  CHECK_THROWS(check_file_set(d.root(), json::parse(old_manifest), "m.json"));  // the mix is detected...
  CHECK(finish_file_set(d.root(), "m.json"));                                    // ...and completed
  CHECK(slurp(d.dir() / "m.json") == new_manifest);
  CHECK(slurp(d.dir() / "b.pt") == "new optim");
  CHECK_NOTHROW(check_file_set(d.root(), json::parse(new_manifest), "m.json"));
  // a kill while the temporary files were written: a truncated m.json.tmp, nothing renamed; the old set stays
  std::ofstream(d.dir() / "a.pt.tmp") << "half";
  std::ofstream(d.dir() / "m.json.tmp") << new_manifest.substr(0, 20);
  CHECK_FALSE(finish_file_set(d.root(), "m.json"));
  CHECK_FALSE(fs::exists(d.dir() / "a.pt.tmp"));
  CHECK_FALSE(fs::exists(d.dir() / "m.json.tmp"));
  CHECK(slurp(d.dir() / "a.pt") == "new model bytes");
  CHECK_FALSE(finish_file_set(d.root(), "m.json"));  // nothing to do
}

TEST_CASE("an atomic write into a folder it cannot write names the file and keeps the old one",
          "[atomic]") {
  ScratchDir d("dmlbench-atomic-fail");
  write_file_atomically(d.path("out/x.json"), "first");
  CHECK(slurp(d.dir() / "out/x.json") == "first");
  fs::create_directories(d.dir() / "out/x.json.tmp");  // the temporary name taken by a folder: open fails
  CHECK_THROWS_WITH(write_file_atomically(d.path("out/x.json"), "second"),
                    Catch::StartsWith("cannot write " + d.path("out/x.json") + ": ") &&
                        Catch::EndsWith("is left as it was)"));
  CHECK(slurp(d.dir() / "out/x.json") == "first");
}

TEST_CASE("a checkpoint.json is read with every field checked", "[atomic]") {
  ScratchDir d("dmlbench-checkpoint-state");
  const json good = {{"config", {{"seed", 1}}}, {"epochs_done", 2}, {"steps", 40}, {"first_loss", 0.5},
                     {"last_loss", nullptr}, {"skipped_anchors", 0}, {"triplet_accuracy_before", 0.25},
                     {"scatter", json::array()}, {"curve", json::array()}};
  std::ofstream(d.dir() / "good.json") << good.dump();
  const auto s = read_checkpoint_state(d.path("good.json"));
  CHECK(s.steps == 40);
  CHECK(std::isnan(s.last_loss));  // a NaN is written as null
  CHECK(s.movement.is_array());
  for (const auto& [key, bad] : std::vector<std::pair<std::string, json>>{
           {"steps", -1}, {"steps", "40"}, {"curve", json::object()}, {"config", 3}, {"epochs_done", 1e12}}) {
    json j = good;
    j[key] = bad;
    std::ofstream(d.dir() / "bad.json") << j.dump();
    CHECK_THROWS_AS(read_checkpoint_state(d.path("bad.json")), data_error);
  }
  std::ofstream(d.dir() / "cut.json") << good.dump().substr(0, 30);
  CHECK_THROWS_WITH(read_checkpoint_state(d.path("cut.json")), Catch::Contains("a damaged checkpoint"));
}
