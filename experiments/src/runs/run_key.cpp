// A training run's key and the record that lets a finished run be reused by it (run_key.hpp).
#include "dmlbench/experiments/run_key.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/code_sets.hpp"
#include "dmlbench/experiments/content_hash.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kWork = "${WORK}", kSource = "${SOURCE}";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The stage store's text files (report_stage_store.cpp rewrites their paths); the rest are hashed byte for byte.
bool text_file(const std::string& name) {
  for (const char* e : {".json", ".csv", ".txt", ".md", ".tsv"})
    if (ends_with(name, e)) return true;
  return false;
}

// Files of a run folder that are not its outputs: the key record itself, checkpoints, logs (a sweep point's log and
// status are written around the run, after its key), locks, temporary files.
bool output_file(const std::string& rel) {
  const std::string name = fs::path(rel).filename().string();
  return name != kRunKeyFile && name != "checkpoint.json" && !ends_with(name, "_log.txt") &&
         name != "sweep_status.json" && !ends_with(name, ".pt") &&
         !ends_with(name, ".lock") && !ends_with(name, ".tmp") && name.rfind("checkpoint_", 0) != 0 &&
         name.rfind(".dmlbench", 0) != 0;
}

// A file's hash as the key record keeps it: text with the work and source folders written as placeholders (the
// work folder first: it may lie inside the source folder).
std::string file_hash(const fs::path& file, const std::string& work_root, const std::string& source_dir) {
  std::string bytes = read_bytes(file);
  if (text_file(file.filename().string()))
    bytes = replace_all(replace_all(std::move(bytes), work_root, kWork), source_dir, kSource);
  return fnv1a_hex(bytes);
}

void normalize_strings(json& j, const std::string& source_dir) {
  if (j.is_string()) {
    j = replace_all(j.get<std::string>(), source_dir, kSource);
  } else if (j.is_structured()) {
    for (auto& v : j) normalize_strings(v, source_dir);
  }
}

const std::string& trainer_code_hash(const std::string& source_dir) {
  static std::mutex m;
  static std::map<std::string, std::string> by_folder;
  const std::lock_guard<std::mutex> lock(m);
  auto it = by_folder.find(source_dir);
  if (it == by_folder.end()) it = by_folder.emplace(source_dir, code_fingerprint(source_dir, "trainer").hash).first;
  return it->second;
}

std::optional<json> read_record(const fs::path& run_dir) {
  try {
    std::ifstream in(run_dir / kRunKeyFile);
    if (!in) return std::nullopt;
    const json j = json::parse(in);
    if (j.is_object() && j.contains("key") && j["key"].is_string() && j.contains("files") && j["files"].is_object())
      return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

json normalized_run_config(const json& resolved, const std::string& source_dir) {
  json c = resolved;
  normalize_strings(c, source_dir);
  if (c.contains("model") && c["model"].is_object() && c["model"].contains("init_run") &&
      c["model"]["init_run"].is_string()) {
    const std::string from = resolved["model"]["init_run"].get<std::string>();
    if (!from.empty())
      if (const auto rec = read_record(fs::path(from))) c["model"]["init_run"] = "run:" + (*rec)["key"].get<std::string>();
  }
  return c;
}

RunKey run_key(const json& resolved, int threads, const std::string& device, const std::string& source_dir) {
  RunKey k;
  k.config_hash = fnv1a_hex(normalized_run_config(resolved, source_dir).dump());
  k.code_hash = trainer_code_hash(source_dir);
  k.threads = threads;
  k.device = device;
  k.key = fnv1a_hex(json{{"config", k.config_hash}, {"code", k.code_hash}, {"threads", threads}, {"device", device}}.dump());
  return k;
}

void write_run_key(const std::string& run_dir, const RunKey& key, const std::string& work_root,
                   const std::string& source_dir) {
  json files = json::object();
  std::vector<std::string> rels;
  for (const auto& e : fs::recursive_directory_iterator(run_dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), run_dir).generic_string();
    if (output_file(rel)) rels.push_back(rel);
  }
  std::sort(rels.begin(), rels.end());
  for (const auto& rel : rels) files[rel] = file_hash(fs::path(run_dir) / rel, work_root, source_dir);
  const json j = {{"key", key.key},       {"config_hash", key.config_hash}, {"code_hash", key.code_hash},
                  {"threads", key.threads}, {"device", key.device},         {"work_root", work_root},
                  {"files", files}};
  write_file_atomically((fs::path(run_dir) / kRunKeyFile).string(), j.dump(2) + "\n");
}

RunCheck check_run(const std::string& run_dir, const std::string& key, const std::string& source_dir) {
  RunCheck c;
  const auto rec = read_record(fs::path(run_dir));
  if (!rec) return c;
  c.recorded_key = (*rec)["key"].get<std::string>();
  if (*c.recorded_key != key) return c;
  const std::string work_root = rec->value("work_root", "");
  const auto& files = (*rec)["files"];
  if (!files.contains("metrics.json") || !fs::exists(fs::path(run_dir) / "metrics.json")) {
    c.damage = (fs::path(run_dir) / "metrics.json").string() + " is missing, though " + kRunKeyFile + " records the run";
    return c;
  }
  for (const auto& [rel, h] : files.items()) {
    const fs::path f = fs::path(run_dir) / rel;
    if (!fs::exists(f)) continue;  // a large file a stored copy leaves out
    if (!h.is_string() || file_hash(f, work_root, source_dir) != h.get<std::string>()) {
      c.damage = f.string() + " does not match the hash its " + kRunKeyFile + " records: not reused";
      return c;
    }
  }
  c.reusable = true;
  return c;
}

std::optional<std::string> RunStore::find(const std::string& key, const std::string& source_dir,
                                          std::vector<std::string>* damaged) const {
  for (const auto& folder : folders_) {
    std::error_code ec;
    if (folder.empty() || !fs::is_directory(folder, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->path().filename() != kRunKeyFile) continue;
      const std::string dir = it->path().parent_path().string();
      const auto c = check_run(dir, key, source_dir);
      if (c.reusable) return dir;
      if (!c.damage.empty() && damaged) damaged->push_back(c.damage);
    }
  }
  return std::nullopt;
}

void clear_run_folder(const std::string& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(run_dir))
    if (e.path().filename().string().rfind(".dmlbench", 0) != 0) doomed.push_back(e.path());
  for (const auto& d : doomed) fs::remove_all(d);
}

void restore_run(const std::string& from, const std::string& to, const std::string& work_root,
                 const std::string& source_dir) {
  fs::create_directories(to);
  clear_run_folder(to);
  const auto rewrite = [&](std::string t) {
    if (!work_root.empty()) t = replace_all(std::move(t), kWork, work_root);
    return replace_all(std::move(t), kSource, source_dir);
  };
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), from).generic_string();
    const bool log = fs::path(rel).filename() == "train_log.txt";  // kept beside the outputs, never checked
    if (rel == kRunKeyFile || (!output_file(rel) && !log)) continue;
    fs::create_directories((fs::path(to) / rel).parent_path());
    if (text_file(rel))
      write_file_atomically((fs::path(to) / rel).string(), rewrite(read_bytes(e.path())));
    else
      fs::copy_file(e.path(), fs::path(to) / rel, fs::copy_options::overwrite_existing);
  }
  write_file_atomically((fs::path(to) / kRunKeyFile).string(), rewrite(read_bytes(fs::path(from) / kRunKeyFile)));
}

}  // namespace dmlbench::experiments
