// Equal-budget tuning of a reproduction's arms (Musgrave, Belongie and Lim, "A Metric Learning Reality
// Check", ECCV 2020, Sec 4): the "tuning" block of a reproduction file, checked before any trial runs, and the plan
// the Optuna driver (scripts/optuna_tune.py) works from. Torch-free.
#pragma once

#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// One searched key: a range (float or int, linear or log) or a list of choices.
struct TuningParameter {
  std::string key, type;  // type: float | int | categorical
  double low = 0, high = 0;
  bool log = false;
  nlohmann::ordered_json choices;  // categorical: the values
};

struct TuningArm {
  std::string name, label;
  std::vector<std::string> overrides;  // the arm's fixed settings and the trial's (folds, validation curve, budget)
  std::vector<TuningParameter> space;
  std::string reason;  // why its space differs from the shared one ("" when it does not)
};

struct TuningSpec {
  std::string claim, level;  // the claim whose level the objective is scored at
  std::string objective, secondary;  // dotted paths into a curve point's eval: validation.<level>.map_at_r, R@1
  int folds = 2;
  std::string fold_level;
  std::uint64_t fold_seed = 0, seed = 1;
  int trials_per_arm = 16, epochs = 0, patience = 0;
  long steps_per_epoch = 0;
  std::vector<TuningArm> arms;
};

// The tuning block of r (r.source["tuning"]), every arm's space resolved and each trial's config checked at the
// space's corners for every fold. config_error naming the file, the arm and the key for: no tuning block, an unknown
// key, a key the tuning sets itself, an empty range, a log range with a bound <= 0, a bound outside the key's range, a
// loss key the arm's loss does not read, a patience not below the budget, an arm's space that differs from the
// shared one without a stated reason, or an arm that starts from another arm's weights.
TuningSpec read_tuning_spec(const Reproduction& r, const std::string& repo_root);

// The overrides that make a run a tuning trial of fold `fold` (besides the arm's own and the sampled values).
std::vector<std::string> fold_overrides(int fold);

// What identifies a study: the space, the arms' fixed settings, folds, budget, objective, trials and seed. A folder
// whose plan has another hash is refused.
std::string tuning_space_hash(const TuningSpec& t, const Reproduction& r);

// plan.json of a tune folder (the driver's input, scripts/optuna_tune.py). `dmlbench_exe` and the config path are
// absolute on this machine; `threads` is each trial process's thread count.
nlohmann::ordered_json tuning_plan_json(const TuningSpec& t, const Reproduction& r, const std::string& reproduction_name,
                                        const std::string& dmlbench_exe, const std::string& git_revision,
                                        const std::string& blas, int threads);

// The tuned variant of r: each arm trains its best configuration of the results file `tuned` (as
// `dmlbench tune` wrote it, from `tuned_file`) on all training classes, for the chosen number of epochs (of the
// budget's steps per epoch), and is judged on the test classes as the default is. Its stage is "<stage>-tuned"; claims
// keep their ids. Claims read at a fixed curve point (a path starting "curve.") are left out: a tuned length moves
// the point. config_error when the results were tuned with another space, budget or folds than r's tuning block (the
// space hash), or lack an arm or its best trial.
Reproduction with_tuned_settings(const Reproduction& r, const nlohmann::ordered_json& tuned, const std::string& tuned_file,
                                 const std::string& repo_root);

}  // namespace dmlbench::experiments
