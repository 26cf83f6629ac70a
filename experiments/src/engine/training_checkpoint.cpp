// A training run's checkpoint: the model, the optimizer and the loss's own state, then checkpoint.json with the
// progress, written last so that it marks a complete checkpoint; and the resume from it.
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/checkpoint_state.hpp"
#include "training_run.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// The config as a resume compares it: max_steps is run control, not part of the model (a smoke-stopped run may be
// continued), and the order of keys is not part of it either.
nlohmann::json comparable(json cfg) {
  if (cfg.contains("schedule") && cfg["schedule"].is_object()) cfg["schedule"].erase("max_steps");
  return nlohmann::json(cfg);
}

// The keys in which two configs differ (max_steps aside): [{"key": "/optimizer/lr", "was": 1000, "now": 0.001}, ...].
json config_changes(const json& before, const json& after) {
  const nlohmann::json was = comparable(before), now = comparable(after);
  json out = json::array();
  for (const auto& op : nlohmann::json::diff(was, now)) {
    const nlohmann::json::json_pointer at(op["path"].get<std::string>());
    out.push_back({{"key", op["path"]},
                   {"was", was.contains(at) ? json(was.at(at)) : json(nullptr)},
                   {"now", now.contains(at) ? json(now.at(at)) : json(nullptr)}});
  }
  return out;
}

std::string changes_text(const json& changes) {
  std::string t;
  for (const auto& ch : changes)
    t += (t.empty() ? "" : ", ") + ch["key"].get<std::string>() + " " + ch["was"].dump() + " -> " + ch["now"].dump();
  return t.empty() ? "no key" : t;
}

template <class T>
std::string saved_bytes(const T& what) {
  std::ostringstream bytes;
  torch::save(what, bytes);
  return bytes.str();
}

}  // namespace

// The model, the optimizer and the loss's files, then checkpoint.json, as one set of files (atomic_file.hpp): a full
// disk leaves the previous checkpoint whole, and a kill during the renames is completed at the next resume.
void save_checkpoint(const RunConfig& c, const TrainingSetup& s, const TrainingProgress& p, const std::string& out_dir) {
  std::vector<std::pair<std::string, std::string>> files = {{"checkpoint_model.pt", s.model->saved_bytes()},
                                                            {"checkpoint_optim.pt", saved_bytes(*s.optimizer)}};
  const auto* loss_state = capability<CheckpointedState>(*s.loss);
  if (loss_state)
    for (auto& f : loss_state->state_files()) files.push_back(std::move(f));
  json meta = {{"config", c.resolved},       {"epochs_done", p.epochs_done},
               {"steps", p.steps},            {"first_loss", p.first_loss},
               {"last_loss", p.last_loss},    {"skipped_anchors", p.skipped_anchors},
               {"triplet_accuracy_before", p.triplet_accuracy_before},
               {"scatter", p.scatter},        {"curve", p.curve},
               {"steps_log", p.step_rows},    {"active_by_epoch", p.active_by_epoch},
               {"movement", p.movement_rows}};
  if (!p.config_changes.empty()) meta["config_changes"] = p.config_changes;
  if (!p.run_key.key.empty()) meta["run_key"] = {{"key", p.run_key.key}, {"config_hash", p.run_key.config_hash}};
  if (loss_state) {
    const json fields = loss_state->checkpoint_fields();
    for (const auto& [k, v] : fields.items()) meta[k] = v;
  }
  write_file_set(out_dir, files, "checkpoint.json", meta);
}

bool restore_checkpoint(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, const std::string& out_dir,
                        bool accept_changes, std::ostream& log) {
  const fs::path out(out_dir), meta_file = out / "checkpoint.json";
  if (finish_file_set(out_dir, "checkpoint.json"))
    std::cerr << "[train] completed the checkpoint a stop left half-renamed in " << out_dir << "\n";
  if (!fs::exists(meta_file)) return false;
  const CheckpointState state = read_checkpoint_state(meta_file.string());
  check_file_set(out_dir, state.meta, "checkpoint.json");
  if (state.meta.contains("config_changes") && state.meta["config_changes"].is_array())
    p.config_changes = state.meta["config_changes"];
  if (const json changes = config_changes(state.config, c.resolved); !changes.empty()) {
    if (!accept_changes)
      throw config_error("--resume: " + meta_file.string() + " was written by another config (" +
                         changes_text(changes) + "); --resume-changed continues it under this one");
    log << "[train] continuing " << out_dir << " after epoch " << state.epochs_done << " under a changed config: "
        << changes_text(changes) << std::endl;
    p.config_changes.push_back({{"after_epoch", state.epochs_done}, {"changes", changes}});
  }
  s.model->load((out / "checkpoint_model.pt").string());
  torch::load(*s.optimizer, (out / "checkpoint_optim.pt").string());
  if (auto* loss_state = capability<CheckpointedState>(*s.loss)) loss_state->load(out_dir, state.meta);
  p.epochs_done = state.epochs_done;
  p.steps = state.steps;
  p.first_loss = state.first_loss;
  p.last_loss = state.last_loss;
  p.skipped_anchors = state.skipped_anchors;
  p.triplet_accuracy_before = state.triplet_accuracy_before;
  p.scatter = state.scatter;
  p.curve = state.curve;
  p.step_rows = state.steps_log;
  p.active_by_epoch = state.active_by_epoch;
  p.movement_rows = state.movement;
  return true;
}

}  // namespace dmlbench::experiments
