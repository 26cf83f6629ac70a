// The report's stage store: finished stages kept in OUT/stages and restored where the hash matches.
#include "dmlbench/experiments/report_stage_store.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/report_io.hpp"

#include <filesystem>
#include <fnmatch.h>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kWork = "${WORK}", kSource = "${SOURCE}";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool text_file(const std::string& name) {
  for (const char* e : {".json", ".csv", ".txt", ".md", ".tsv"})
    if (ends_with(name, e)) return true;
  return false;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

// Copies every stored file of `from` into `to` (emptied first), text files through `rewrite`; stage.json last, so
// that a copy cut short has no record and never matches.
template <class Keep, class Rewrite>
void copy_stage_folder(const fs::path& from, const fs::path& to, Keep keep, Rewrite rewrite) {
  fs::remove_all(to);
  fs::create_directories(to);
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), from).generic_string();
    if (rel == "stage.json" || !keep(rel, e.file_size())) continue;
    fs::create_directories((to / rel).parent_path());
    if (text_file(rel))
      write_file_atomically((to / rel).string(), rewrite(read_text_file(e.path().string())));
    else
      fs::copy_file(e.path(), to / rel, fs::copy_options::overwrite_existing);
  }
  if (fs::exists(from / "stage.json"))
    write_file_atomically((to / "stage.json").string(), rewrite(read_text_file((from / "stage.json").string())));
}

}  // namespace

std::string stage_store_dir(const ReportConfig& cfg) { return cfg.out + "/stages"; }

std::optional<json> stored_stage_record(const ReportConfig& cfg, const Stage& s) {
  const fs::path rec = fs::path(stage_store_dir(cfg)) / s.name / "stage.json";
  if (!fs::exists(rec)) return std::nullopt;
  try {
    const json j = read_json_file(rec.string());
    if (j.value("config_hash", "") == s.hash) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool worth_storing(const ReportConfig& cfg, double seconds) { return seconds >= cfg.store_min_seconds; }

bool stored_stage_file(const std::string& stage, const std::string& relative_path, std::uintmax_t bytes,
                       const std::vector<std::string>& kept) {
  const std::string name = fs::path(relative_path).filename().string();
  if (ends_with(name, ".pt") || name == "checkpoint.json" || ends_with(name, ".lock") || ends_with(name, ".tmp") ||
      name == "log.txt" || name == "stage_hash.txt")
    return false;
  bool in_run = false;  // a path through a run's folder, seedN/
  for (const auto& part : fs::path(relative_path).parent_path()) {
    const std::string p = part.string();
    in_run = in_run || (p.size() > 4 && p.compare(0, 4, "seed") == 0 &&
                        p.find_first_not_of("0123456789", 4) == std::string::npos);
  }
  if (!in_run || bytes <= kLargeRunFile) return true;
  const std::string in_work = stage + "/" + relative_path;
  for (const auto& g : kept)
    if (fnmatch(g.c_str(), in_work.c_str(), FNM_PATHNAME) == 0) return true;
  return false;
}

std::string placeholders_for_paths(std::string text, const ReportConfig& cfg) {
  return replace_all(replace_all(std::move(text), cfg.work, kWork), cfg.source_dir, kSource);
}

std::string paths_for_placeholders(std::string text, const ReportConfig& cfg) {
  return replace_all(replace_all(std::move(text), kWork, cfg.work), kSource, cfg.source_dir);
}

void save_stage(const ReportConfig& cfg, const Stage& s, const std::vector<std::string>& kept_run_files) {
  const fs::path from = fs::path(cfg.work) / s.name, to = fs::path(stage_store_dir(cfg)) / s.name;
  const fs::path fresh = to.string() + ".new";  // the old copy stays whole until the new one is
  try {
    copy_stage_folder(
        from, fresh,
        [&](const std::string& rel, std::uintmax_t bytes) {
          return stored_stage_file(s.name, rel, bytes, kept_run_files);
        },
        [&](std::string t) { return placeholders_for_paths(std::move(t), cfg); });
    fs::remove_all(to);
    fs::rename(fresh, to);
  } catch (const fs::filesystem_error& e) {
    throw std::runtime_error("cannot store stage " + s.name + " in " + to.string() + ": " + e.what());
  }
}

std::optional<json> restore_stage(const ReportConfig& cfg, const Stage& s) {
  if (cfg.force) return std::nullopt;
  const auto rec = stored_stage_record(cfg, s);
  if (!rec) return std::nullopt;
  const fs::path from = fs::path(stage_store_dir(cfg)) / s.name, to = fs::path(cfg.work) / s.name;
  for (const auto& o : s.outputs)
    if (!fs::exists(from / o)) return std::nullopt;
  copy_stage_folder(
      from, to, [](const std::string&, std::uintmax_t) { return true; },  // the store holds only what save kept
      [&](std::string t) { return paths_for_placeholders(std::move(t), cfg); });
  write_file_atomically((to / "stage_hash.txt").string(), s.hash + "\n");  // the work folder's marker of its config
  return read_json_file((to / "stage.json").string());
}

void carry_stage_store(const ReportConfig& cfg, const std::vector<Stage>& stages, const std::string& dest) {
  const fs::path store = stage_store_dir(cfg);
  for (const auto& s : stages) {
    if (!stored_stage_record(cfg, s)) continue;
    const fs::path to = fs::path(dest) / "stages" / s.name;
    fs::create_directories(to.parent_path());
    fs::copy(store / s.name, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
}

}  // namespace dmlbench::experiments
