// Seconds each report stage is expected to take, for the report's ETA (report_stage_estimate.hpp).
#include "dmlbench/experiments/report_stage_estimate.hpp"

#include "dmlbench/experiments/code_sets.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_stage_hash.hpp"
#include "dmlbench/experiments/report_stage_store.hpp"
#include "dmlbench/experiments/run_key.hpp"

#include <algorithm>
#include <filesystem>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::optional<double> training_stage_estimate(const std::string& stage_dir, const std::string& trainer_code,
                                              int jobs) {
  std::error_code ec;
  if (!fs::is_directory(stage_dir, ec)) return std::nullopt;
  std::size_t runs = 0;
  double stale_seconds = 0;
  for (auto it = fs::recursive_directory_iterator(stage_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() != kRunKeyFile) continue;
    const fs::path metrics = it->path().parent_path() / "metrics.json";
    if (!fs::is_regular_file(metrics, ec)) continue;  // not a finished run
    try {
      const json key = read_json_file(it->path().string());
      ++runs;
      if (key.value("code_hash", "") != trainer_code) stale_seconds += read_json_file(metrics.string()).value("seconds", 0.0);
    } catch (const std::exception&) {  // an unreadable record: the run trains again, at a cost not known here
    }
  }
  if (runs == 0) return std::nullopt;
  return stale_seconds / double(std::max(jobs, 1)) + kReadBackSecondsPerRun * double(runs);
}

namespace {

// The trainer code set's hash in this tree, once; empty where it cannot be read (then no run is judged by it).
const std::string& trainer_code_of(const ReportConfig& cfg, std::optional<std::string>& cached) {
  if (!cached) {
    try {
      cached = code_fingerprint(cfg.source_dir, "trainer").hash;
    } catch (const std::exception&) {
      cached = std::string();
    }
  }
  return *cached;
}

// A training stage's estimate from the runs it holds in the work folder, else in the stage store; else `last`.
double training_estimate(const Stage& s, const ReportConfig& cfg, const std::string& code, double last) {
  if (code.empty()) return last;
  if (auto e = training_stage_estimate(cfg.work + "/" + s.name, code, s.jobs)) return *e;
  if (auto e = training_stage_estimate(stage_store_dir(cfg) + "/" + s.name, code, s.jobs)) return *e;
  return last;
}

}  // namespace

std::vector<double> stage_estimates(const std::vector<Stage>& stages, const ReportConfig& cfg) {
  std::vector<double> estimate;
  std::optional<std::string> code;
  for (const auto& s : stages) {
    if (!stage_selected(cfg, s.name) || current_stage_record(cfg, s)) {  // not run, or current: not rerun
      estimate.push_back(0.0);
      continue;
    }
    double e = s.nominal_seconds;
    const auto rec = cfg.work + "/" + s.name + "/stage.json";
    std::optional<json> j;  // its last run: in the work folder, else the report's stage store
    try {
      j = fs::exists(rec) ? std::optional<json>(read_json_file(rec)) : stored_stage_record(cfg, s);
    } catch (const std::exception&) {
    }
    if (j && !cfg.force && !fs::exists(rec) && j->value("config_hash", "") == s.hash) e = 0;  // restored from the store
    else if (j && j->value("profile", "") == cfg.profile && j->contains("seconds")) {
      e = (*j)["seconds"].get<double>();
      if (s.code_set == "training") e = training_estimate(s, cfg, trainer_code_of(cfg, code), e);
    }
    estimate.push_back(e);
  }
  return estimate;
}

}  // namespace dmlbench::experiments
