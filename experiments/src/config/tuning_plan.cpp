// The "tuning" block of a reproduction file: each arm's search space, the class-disjoint folds, the step
// budget with its patience, and the objective (MAP@R at the claim's level on the held-out fold), checked before any
// trial runs; and the plan the Optuna driver reads. Torch-free.
#include "dmlbench/experiments/tuning_plan.hpp"

#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/content_hash.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

// Keys a trial's settings fix (folds, validation curve, budget, data): searching them would change what is measured.
bool set_by_tuning(const std::string& key) {
  static const std::set<std::string> fixed = {"seed", "device", "dataset.name", "dataset.data_dir", "dataset.folds",
                                              "dataset.fold", "dataset.fold_level", "dataset.fold_seed",
                                              "schedule.epochs", "schedule.patience", "schedule.stop_metric",
                                              "schedule.max_steps", "model.init_run", "model.pretrained"};
  return fixed.count(key) > 0 || key.rfind("eval.", 0) == 0;
}

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

TuningParameter read_parameter(const std::string& key, const json& v, const std::string& where) {
  const std::string w = where + ": " + key;
  const auto& k = run_config_key(key, where);
  if (set_by_tuning(key))
    throw config_error(w + " is set by the tuning itself (its folds, validation curve or budget), not searched");
  if (!v.is_object()) throw config_error(w + ": expected {\"low\", \"high\", \"log\"} or {\"choices\": [...]}");
  check_only_keys(v, {"low", "high", "log", "choices"}, w);
  TuningParameter p;
  p.key = key;
  if (v.contains("choices")) {
    if (!v["choices"].is_array() || v["choices"].empty()) throw config_error(w + ": choices must be a non-empty list");
    if (v.contains("low") || v.contains("high")) throw config_error(w + ": give a range or choices, not both");
    p.type = "categorical";
    p.choices = v["choices"];
    return p;
  }
  if (k.type != "number" && k.type != "integer")
    throw config_error(w + " is a " + k.type + " key: search it by \"choices\", not a range");
  if (!v.contains("low") || !v.contains("high") || !v["low"].is_number() || !v["high"].is_number())
    throw config_error(w + ": a range needs numbers \"low\" and \"high\"");
  p.type = k.type == "integer" ? "int" : "float";
  p.low = v["low"].get<double>();
  p.high = v["high"].get<double>();
  p.log = v.value("log", false);
  if (!(p.low < p.high))
    throw config_error(w + ": the range [" + number_text(p.low) + ", " + number_text(p.high) + "] is empty");
  if (p.log && p.low <= 0)
    throw config_error(w + ": a log range needs low > 0, got " + number_text(p.low));
  if (p.type == "int" && (std::floor(p.low) != p.low || std::floor(p.high) != p.high))
    throw config_error(w + " is an integer key: low and high must be integers");
  return p;
}

std::vector<TuningParameter> read_space(const json& j, const std::string& where) {
  if (!j.is_object() || j.empty()) throw config_error(where + " must be a non-empty object of key: range");
  std::vector<TuningParameter> space;
  for (auto it = j.begin(); it != j.end(); ++it) space.push_back(read_parameter(it.key(), it.value(), where));
  return space;
}

// The shared space with the arm's entries in place of (or after) the shared ones.
std::vector<TuningParameter> merged(std::vector<TuningParameter> shared, const std::vector<TuningParameter>& own) {
  for (const auto& p : own) {
    auto it = std::find_if(shared.begin(), shared.end(), [&](const TuningParameter& q) { return q.key == p.key; });
    if (it != shared.end())
      *it = p;
    else
      shared.push_back(p);
  }
  return shared;
}

std::string value_text(const TuningParameter& p, double v) {
  return p.type == "int" ? std::to_string(std::llround(v)) : number_text(v);
}

}  // namespace

std::vector<std::string> fold_overrides(int fold) { return {"dataset.fold=" + std::to_string(fold)}; }

namespace {

// The settings that make a run a trial: the folds, a validation-only curve with MAP@R at the claim's level, the
// budget and its early stop; nothing else evaluated.
std::vector<std::string> trial_settings(const TuningSpec& t) {
  std::vector<std::string> s = {"dataset.folds=" + std::to_string(t.folds),
                                "dataset.fold_seed=" + std::to_string(t.fold_seed),
                                "eval.sets=validation",
                                "eval.curve_sets=validation",
                                "eval.levels=" + t.level,
                                "eval.every_epoch=true",
                                "eval.curve_ranking=true",
                                "eval.nmi=false",
                                "eval.subclusters=[]",
                                "eval.triplet_accuracy_set=",
                                "eval.scatter=false",
                                "eval.tree_groups=",
                                "eval.movement=false",
                                "schedule.epochs=" + std::to_string(t.epochs),
                                "schedule.patience=" + std::to_string(t.patience),
                                "schedule.stop_metric=" + t.objective};
  if (!t.fold_level.empty()) s.push_back("dataset.fold_level=" + t.fold_level);
  if (t.steps_per_epoch > 0) s.push_back("schedule.steps_per_epoch=" + std::to_string(t.steps_per_epoch));
  return s;
}

// A loss key the arm's loss reads: its own settings, the shared keys it declares, loss.trim where it applies.
void check_loss_key(const TuningParameter& p, const RunConfig& c, const std::string& where) {
  if (p.key.rfind("loss.", 0) != 0 || p.key == "loss.name") return;
  const auto& spec = loss_spec(c.loss.name);
  const bool own = std::any_of(spec.settings.begin(), spec.settings.end(),
                               [&](const ConfigKey& k) { return k.path == p.key; });
  const bool shared = std::find(spec.shared_keys.begin(), spec.shared_keys.end(), p.key) != spec.shared_keys.end();
  if (own || shared || (p.key == "loss.trim" && spec.trimmable)) return;
  throw config_error(where + ": " + p.key + " is not read by this arm's loss, loss.name = " + c.loss.name +
                     ": searching it would spend trials on nothing");
}

// Each trial config resolves at the space's corners (all low, all high, each key alone at each end or choice).
void check_corners(const Reproduction& r, const TuningArm& arm, const std::string& repo_root, const std::string& w) {
  std::vector<std::vector<std::string>> corners(2);
  for (const auto& p : arm.space) {
    std::vector<std::string> values;
    if (p.type == "categorical") {
      for (const auto& c : p.choices) values.push_back(c.is_string() ? c.get<std::string>() : c.dump());
    } else {
      values = {value_text(p, p.low), value_text(p, p.high)};
    }
    corners[0].push_back(p.key + "=" + values.front());
    corners[1].push_back(p.key + "=" + values.back());
    for (const auto& v : values) corners.push_back({p.key + "=" + v});
  }
  for (const auto& corner : corners) {
    auto o = arm.overrides;
    o.insert(o.end(), corner.begin(), corner.end());
    o.push_back(fold_overrides(0).front());
    try {
      load_run_config(r.config, o, repo_root);
    } catch (const config_error& e) {
      throw config_error(w + ": a trial at " + joined_names(corner) + " is not a valid run: " + e.what());
    }
  }
}

void read_budget(const json& j, const std::string& w, TuningSpec& t) {
  const auto& b = required_field(j, "budget", w);
  check_only_keys(b, {"epochs", "steps_per_epoch", "patience"}, w + ".budget");
  t.epochs = required_field(b, "epochs", w + ".budget").get<int>();
  t.steps_per_epoch = b.value("steps_per_epoch", 0L);
  t.patience = required_field(b, "patience", w + ".budget").get<int>();
  if (t.epochs < 1 || t.steps_per_epoch < 0 || t.patience < 1)
    throw config_error(w + ".budget: epochs and patience must be >= 1, steps_per_epoch >= 0 (0: the config's)");
  if (t.patience >= t.epochs)
    throw config_error(w + ".budget: patience = " + std::to_string(t.patience) + " is not below the budget of " +
                       std::to_string(t.epochs) + " epochs: no trial could stop early");
}

// The claim whose level the objective is scored at: its metric's path is eval.<set>.<level>....
void read_objective(const Reproduction& r, const json& j, const std::string& w, TuningSpec& t) {
  t.claim = required_string(j, "claim", w);
  std::vector<std::string> claims;
  for (const auto& m : r.metrics) {
    if (m.claim.empty()) continue;
    claims.push_back(m.claim);
    if (m.claim != t.claim) continue;
    std::vector<std::string> parts;
    std::stringstream ss(m.path);
    for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
    if (parts.size() < 4 || parts[0] != "eval")
      throw config_error(w + ": claim " + t.claim + "'s path " + m.path + " names no eval.<set>.<level>");
    t.level = parts[2];
  }
  if (t.level.empty())
    throw config_error(w + ": claim \"" + t.claim + "\" is not a claim of this file (" + joined_names(claims) + ")");
  t.objective = "validation." + t.level + ".map_at_r";
  t.secondary = "validation." + t.level + ".recall_at_k.1";
}

}  // namespace

namespace {

TuningSpec tuning_spec_fields(const Reproduction& r, const std::string& repo_root) {
  const std::string w = r.file + ": tuning";
  if (!r.source.contains("tuning"))
    throw config_error(r.file + " has no \"tuning\" block (each arm's search space; experiments/tuning.md)");
  const json& j = r.source["tuning"];
  check_only_keys(j, {"claim", "folds", "fold_level", "fold_seed", "trials_per_arm", "budget", "seed", "space", "arms",
                      "note"},
                  w);
  TuningSpec t;
  read_objective(r, j, w, t);
  t.folds = j.value("folds", 2);
  if (t.folds < 2 || t.folds > 4) throw config_error(w + ": folds = " + std::to_string(t.folds) + ": 2 to 4");
  t.fold_level = j.value("fold_level", "");
  t.fold_seed = j.value("fold_seed", std::uint64_t(0));
  t.seed = j.value("seed", std::uint64_t(1));
  t.trials_per_arm = j.value("trials_per_arm", 16);
  if (t.trials_per_arm < 1) throw config_error(w + ": trials_per_arm must be >= 1");
  read_budget(j, w, t);
  const auto shared = read_space(required_field(j, "space", w), w + ".space");
  const json own = j.value("arms", json::object());
  std::set<std::string> names;
  for (const auto& a : r.arms) names.insert(a.name);
  for (auto it = own.begin(); it != own.end(); ++it)
    if (!names.count(it.key())) throw config_error(w + ".arms: \"" + it.key() + "\" is not an arm of the file");
  const auto profile = r.profiles.count("default") ? r.profiles.at("default").set : std::vector<std::string>{};
  for (const auto& a : r.arms) {
    const std::string aw = w + ": arm " + a.name;
    if (!a.init_from.empty())
      throw config_error(aw + " starts from arm " + a.init_from + "'s weights: tuning trains each arm on its own");
    TuningArm arm{a.name, a.label, r.set, shared, ""};
    arm.overrides.insert(arm.overrides.end(), profile.begin(), profile.end());
    arm.overrides.insert(arm.overrides.end(), a.set.begin(), a.set.end());
    const auto settings = trial_settings(t);
    arm.overrides.insert(arm.overrides.end(), settings.begin(), settings.end());
    if (own.contains(a.name)) {
      const auto& o = own[a.name];
      check_only_keys(o, {"space", "reason"}, aw);
      arm.reason = o.value("reason", "");
      if (arm.reason.empty())
        throw config_error(aw + ": its space differs from the shared one: state why (\"reason\"), or tune it on the "
                           "shared space");
      arm.space = merged(shared, read_space(required_field(o, "space", aw), aw + ".space"));
    }
    auto fold_one = arm.overrides;
    fold_one.push_back(fold_overrides(0).front());
    const auto c = load_run_config(r.config, fold_one, repo_root);
    for (const auto& p : arm.space) check_loss_key(p, c, aw);
    check_corners(r, arm, repo_root, aw);
    t.arms.push_back(std::move(arm));
  }
  return t;
}

}  // namespace

TuningSpec read_tuning_spec(const Reproduction& r, const std::string& repo_root) {
  try {
    return tuning_spec_fields(r, repo_root);
  } catch (const json::exception& e) {  // a value of another type than the schema's (found by fuzzing)
    throw config_error(r.file + ": tuning: " + std::string(e.what()));
  }
}

namespace {

json parameter_json(const TuningParameter& p) {
  if (p.type == "categorical") return {{"type", p.type}, {"choices", p.choices}};
  return {{"type", p.type}, {"low", p.low}, {"high", p.high}, {"log", p.log}};
}

json space_json(const TuningArm& a) {
  json s = json::object();
  for (const auto& p : a.space) s[p.key] = parameter_json(p);
  return s;
}

}  // namespace

std::string tuning_space_hash(const TuningSpec& t, const Reproduction& r) {
  json arms = json::array();
  for (const auto& a : t.arms) arms.push_back({{"name", a.name}, {"overrides", a.overrides}, {"space", space_json(a)}});
  const json what = {{"config", r.source.value("config", "")}, {"claim", t.claim},  {"folds", t.folds},
                     {"fold_level", t.fold_level},               {"fold_seed", t.fold_seed}, {"seed", t.seed},
                     {"trials_per_arm", t.trials_per_arm},       {"epochs", t.epochs},   {"patience", t.patience},
                     {"steps_per_epoch", t.steps_per_epoch},     {"arms", arms}};
  return fnv1a_hex(what.dump());
}

json tuning_plan_json(const TuningSpec& t, const Reproduction& r, const std::string& reproduction_name,
                      const std::string& dmlbench_exe, const std::string& git_revision, const std::string& blas,
                      int threads) {
  json arms = json::array();
  for (const auto& a : t.arms)
    arms.push_back({{"name", a.name}, {"label", a.label}, {"overrides", a.overrides}, {"space", space_json(a)},
                    {"reason", a.reason}});
  json folds = json::array();
  for (int f = 0; f < t.folds; ++f) folds.push_back(fold_overrides(f));
  return {{"reproduction", reproduction_name},
          {"reproduction_id", r.id},
          {"reproduction_file", "experiments/reproductions/" + reproduction_name + ".json"},
          {"space_hash", tuning_space_hash(t, r)},
          {"dmlbench", dmlbench_exe},
          {"config", r.config},
          {"git_revision", git_revision},
          {"blas", blas},
          {"seed", t.seed},
          {"trials_per_arm", t.trials_per_arm},
          {"folds", t.folds},
          {"fold_level", t.fold_level},
          {"threads", threads},
          {"claim", t.claim},
          {"objective", {{"path", t.objective}, {"secondary", t.secondary}}},
          {"budget", {{"epochs", t.epochs}, {"steps_per_epoch", t.steps_per_epoch}, {"patience", t.patience}}},
          {"arms", arms},
          {"fold_overrides", folds}};
}

namespace {

// Each arm's "set" with its best trial's values, its chosen epochs and the budget's steps per epoch.
void set_best_settings(json& source, const TuningSpec& t, const json& tuned, const std::string& w) {
  std::map<std::string, json> best;
  for (const auto& a : tuned.value("arms", json::array())) best[a.value("name", "")] = a.value("best", json());
  for (auto& arm : source["arms"]) {
    const auto name = arm.value("name", "");
    if (!best.count(name) || !best[name].is_object())
      throw config_error(w + ": arm " + name + " has no best trial (every trial failed, or the arm was not tuned)");
    const auto& b = best[name];
    if (!b.contains("params") || !b["params"].is_object() || !b.contains("epochs"))
      throw config_error(w + ": arm " + name + "'s best trial lacks its \"params\" (an object) or its \"epochs\"");
    if (!arm.contains("set")) arm["set"] = json::object();
    for (auto it = b["params"].begin(); it != b["params"].end(); ++it) arm["set"][it.key()] = it.value();
    arm["set"]["schedule.epochs"] = b.at("epochs");
    if (t.steps_per_epoch > 0) arm["set"]["schedule.steps_per_epoch"] = t.steps_per_epoch;
  }
}

// Metrics read at a fixed curve point: undefined once the length is tuned.
json without_curve_points(const json& metrics) {
  json kept = json::array();
  auto at_curve = [](const json& m) {
    const auto curve = [](const std::string& p) { return p.rfind("curve.", 0) == 0; };
    if (curve(m.value("path", ""))) return true;
    if (m.contains("compare"))
      for (const char* side : {"baseline", "treatment"})
        if (m["compare"].contains(side) && m["compare"][side].is_object() &&
            curve(m["compare"][side].value("path", "")))
          return true;
    return false;
  };
  for (const auto& m : metrics)
    if (!at_curve(m)) kept.push_back(m);
  return kept;
}

Reproduction tuned_variant(const Reproduction& r, const json& tuned, const std::string& tuned_file,
                           const std::string& repo_root) {
  const auto t = read_tuning_spec(r, repo_root);
  const std::string w = tuned_file;
  if (tuned.value("space_hash", "") != tuning_space_hash(t, r))
    throw config_error(w + " was tuned with another space, budget or folds than " + r.file +
                       "'s tuning block (space_hash " + tuned.value("space_hash", "none") + ", the file's " +
                       tuning_space_hash(t, r) + "): tune again (experiments/tuning.md)");
  json source = r.source;
  set_best_settings(source, t, tuned, w);
  source["stage"] = r.stage + "-tuned";
  source["title"] = r.title + " (each arm tuned)";
  source["note"] = source.value("note", "") + " Tuned variant: each arm's best settings of " +
                   fs::path(tuned_file).filename().string() + " (" + std::to_string(t.trials_per_arm) +
                   " TPE trials per arm on " + std::to_string(t.folds) +
                   " class-disjoint folds of the training classes, objective MAP@R at level " + t.level +
                   "), trained on all training classes for the chosen epochs.";
  for (const char* part : {"metrics", "diagnostics"})
    if (source.contains(part)) source[part] = without_curve_points(source[part]);
  source.erase("tuning");
  return parse_reproduction(source, r.file, repo_root);
}

}  // namespace

Reproduction with_tuned_settings(const Reproduction& r, const json& tuned, const std::string& tuned_file,
                                 const std::string& repo_root) {
  try {
    return tuned_variant(r, tuned, tuned_file, repo_root);
  } catch (const json::exception& e) {  // a field of another type than `tune` writes (found by fuzzing)
    throw config_error(tuned_file + ": not a tuning results file as `dmlbench tune` writes it (" + e.what() + ")");
  }
}

}  // namespace dmlbench::experiments
