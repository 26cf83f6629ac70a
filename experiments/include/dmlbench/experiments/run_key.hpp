// A training run's key: what it runs (its resolved config, the trainer's code, its threads and device), so that a
// finished run is reused wherever its key matches, and is never reused where anything it depends on moved.
// Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct RunKey {
  std::string key;          // FNV-1a of the four below: the run's identity
  std::string config_hash;  // of the resolved config, normalised (normalized_run_config)
  std::string code_hash;    // of the trainer's code set (code_sets.hpp, "trainer")
  int threads = 1;          // LibTorch's intra-op threads (a sum's order may follow them)
  std::string device;       // "cpu" or "cuda"
};

// The resolved config as the key sees it: the source folder written ${SOURCE} in every string, and a model.init_run
// that names a run folder holding a run_key.json replaced by "run:<its key>" (the run it starts from, wherever that
// folder lies); any other init_run is kept as written.
nlohmann::ordered_json normalized_run_config(const nlohmann::ordered_json& resolved, const std::string& source_dir);

// The key of a run of `resolved` with `threads` intra-op threads on `device`, its code read from source_dir (the
// trainer's code set is hashed once per process and folder).
RunKey run_key(const nlohmann::ordered_json& resolved, int threads, const std::string& device,
               const std::string& source_dir);

// The file each finished run folder holds last: run_key.json.
inline constexpr const char* kRunKeyFile = "run_key.json";

// Writes <run_dir>/run_key.json: the key, its parts, and the hash of every output file of the run (all files but
// run_key.json, checkpoints, logs, locks and temporary files). Text files are hashed with `work_root` written
// ${WORK} and source_dir written ${SOURCE} (as the report's stage store stores them), so that a stored copy checks
// against the same hashes; work_root may be empty (none).
void write_run_key(const std::string& run_dir, const RunKey& key, const std::string& work_root,
                   const std::string& source_dir);

// What a run folder's record says about reusing it for `key`.
struct RunCheck {
  bool reusable = false;  // the same key, metrics.json present, every recorded file present matches its hash
  std::string damage;     // one line naming the file that does not match (a damaged or edited copy), else empty
  std::optional<std::string> recorded_key;  // the key its run_key.json records, if it has a readable one
};
// Checks run_dir against key: its run_key.json, then each recorded file present (a stored copy may lack the large
// files the store leaves out; metrics.json must be there).
RunCheck check_run(const std::string& run_dir, const std::string& key, const std::string& source_dir);

// Finished runs under some folders (a report's stage store, a work folder's previous stages), by key.
class RunStore {
 public:
  explicit RunStore(std::vector<std::string> folders) : folders_(std::move(folders)) {}
  // The first run folder under the store's folders whose run_key.json records `key` and checks intact; damaged
  // copies with that key are skipped, each reported to `damaged` (one line naming the file).
  std::optional<std::string> find(const std::string& key, const std::string& source_dir,
                                  std::vector<std::string>* damaged = nullptr) const;

 private:
  std::vector<std::string> folders_;
};

// Removes everything in a run folder but its lock file (.dmlbench.lock), which its writer holds.
void clear_run_folder(const std::string& run_dir);

// Copies the run folder `from` (found by a RunStore) into `to` (emptied first, its lock kept): text files with ${WORK} written
// work_root (when given) and ${SOURCE} written source_dir, as a restored stage; run_key.json last.
void restore_run(const std::string& from, const std::string& to, const std::string& work_root,
                 const std::string& source_dir);

}  // namespace dmlbench::experiments
