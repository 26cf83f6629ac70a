// A training run's checkpoint: the model, the optimizer and the loss's own state, then checkpoint.json with the
// progress, written last so that it marks a complete checkpoint; and the resume from it.
#include "dmlbench/experiments/atomic_file.hpp"
#include "training_run.hpp"

#include <filesystem>
#include <fstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// The config as a resume compares it: max_steps is run control, not part of the model (a smoke-stopped run may be
// continued), and the order of keys is not part of it either.
nlohmann::json comparable(json cfg) {
  cfg["schedule"].erase("max_steps");
  return nlohmann::json(cfg);
}

template <class T>
void save_atomically(const T& what, const fs::path& file) {
  torch::save(what, file.string() + ".tmp");
  fs::rename(file.string() + ".tmp", file);
}

}  // namespace

void save_checkpoint(const RunConfig& c, const TrainingSetup& s, const TrainingProgress& p, const std::string& out_dir) {
  const fs::path out(out_dir);
  s.model->save((out / "checkpoint_model.pt").string() + ".tmp");
  fs::rename((out / "checkpoint_model.pt").string() + ".tmp", out / "checkpoint_model.pt");
  save_atomically(*s.optimizer, out / "checkpoint_optim.pt");
  s.loss->save(out_dir);
  json meta = {{"config", c.resolved},       {"epochs_done", p.epochs_done},
               {"steps", p.steps},            {"first_loss", p.first_loss},
               {"last_loss", p.last_loss},    {"skipped_anchors", p.skipped_anchors},
               {"triplet_accuracy_before", p.triplet_accuracy_before},
               {"scatter", p.scatter},        {"curve", p.curve},
               {"steps_log", p.step_rows},    {"active_by_epoch", p.active_by_epoch},
               {"movement", p.movement_rows}};
  const json fields = s.loss->checkpoint_fields();
  for (const auto& [k, v] : fields.items()) meta[k] = v;
  write_file_atomically((out / "checkpoint.json").string(), meta.dump());
}

bool restore_checkpoint(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, const std::string& out_dir) {
  const fs::path out(out_dir), meta_file = out / "checkpoint.json";
  if (!fs::exists(meta_file)) return false;
  const json meta = json::parse(std::ifstream(meta_file));
  if (comparable(meta["config"]) != comparable(c.resolved))
    throw config_error("--resume: " + meta_file.string() + " was written by another config: " + meta["config"].dump());
  s.model->load((out / "checkpoint_model.pt").string());
  torch::load(*s.optimizer, (out / "checkpoint_optim.pt").string());
  s.loss->load(out_dir, meta);
  p.epochs_done = meta["epochs_done"];
  p.steps = meta["steps"];
  p.first_loss = meta["first_loss"];
  p.last_loss = meta["last_loss"];
  p.skipped_anchors = meta["skipped_anchors"];
  p.triplet_accuracy_before = meta["triplet_accuracy_before"];
  p.scatter = meta["scatter"];
  p.curve = meta["curve"];
  p.step_rows = meta.value("steps_log", json::array());
  p.active_by_epoch = meta.value("active_by_epoch", json::object());
  p.movement_rows = meta.value("movement", json::array());
  return true;
}

}  // namespace dmlbench::experiments
