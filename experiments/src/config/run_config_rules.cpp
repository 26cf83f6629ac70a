// The run config's rules that span several keys: the core's, and those the registered losses, miners and
// samplers declare; all run before any data loads. Torch-free.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/miner_spec.hpp"
#include "ranking_metrics.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <algorithm>
#include <sstream>

namespace dmlbench::experiments {

namespace {

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// A key that belongs to one loss (owner_only) set to other than its default under another loss.
void check_owner_only_settings(const RunConfig& c) {
  for (const auto& spec : loss_specs()) {
    if (spec.name == c.loss.name) continue;
    for (const auto& k : spec.settings)
      if (k.owner_only && c.loss.settings.at(k.path.substr(5)) != k.default_value)
        throw config_error(k.path + " = " + c.loss.settings.at(k.path.substr(5)).dump() + " applies to loss.name = " +
                           spec.name + " only, not " + c.loss.name);
  }
}

std::string names_where(const std::vector<LossSpec>& specs, bool (*pick)(const LossSpec&)) {
  std::string out;
  for (const auto& s : specs)
    if (pick(s)) out += (out.empty() ? "" : " | ") + s.name;
  return out;
}

void check_loss_rules(const RunConfig& c, const LossSpec& loss) {
  if (loss.cosine && loss.cosine(c) && !c.model.normalize)
    throw config_error("loss.name = " + c.loss.name + (c.loss.distance_kind == Distance::cosine ? " with cosine distance" : "") +
                       " compares cosine similarities of L2-normalised embeddings: set model.normalize = true");
  check_owner_only_settings(c);
  if (c.loss.trim > 0 && !loss.trimmable)
    throw config_error("loss.trim = " + number_text(c.loss.trim) + ": the trimmed loss applies to the losses that are "
                       "a mean of triplet terms (" + names_where(loss_specs(), [](const LossSpec& s) {
                         return s.trimmable;
                       }) + "), not to loss.name = " + c.loss.name);
  if (c.eval.movement && loss.movement_model.empty())
    throw config_error("eval.movement: the movement model knows loss.name = " +
                       names_where(loss_specs(), [](const LossSpec& s) { return !s.movement_model.empty(); }) +
                       ", not " + c.loss.name);
  if (c.eval.movement && c.loss.trim > 0)
    throw config_error("eval.movement follows every mined triplet: loss.trim leaves some out of the step; set it to 0");
  if (loss.check) loss.check(c);
}

void check_miner_and_sampler_rules(const RunConfig& c, const LossSpec& loss) {
  const auto& miner = miner_spec(c.miner.name);
  if (miner.needs_unit_sphere && !c.model.normalize)
    throw config_error("miner.name = " + c.miner.name + " samples by distance on the unit sphere: set "
                       "model.normalize = true");
  if (miner.negative == NegativeChoice::distance_weighted && c.miner.ranking == MinerSimilarity::neg_squared_distance)
    throw config_error("miner.name = " + c.miner.name + " weights negatives by their distance on the unit sphere, "
                       "read from the cosine (d = sqrt(2 - 2 S)): miner.similarity must be auto or cosine");
  const auto& sampler = sampler_spec(c.batch.sampler);
  if (sampler.needs_class_tree && !loss.builds_class_tree)
    throw config_error("batch.sampler = " + c.batch.sampler + " draws neighbours by a class tree, which loss.name = " +
                       c.loss.name + " does not build (the losses that do: loss.name = " +
                       names_where(loss_specs(), [](const LossSpec& s) { return bool(s.builds_class_tree); }) + ")");
  if (sampler.needs_class_tree && !loss.builds_class_tree(c))
    throw config_error("batch.sampler = " + c.batch.sampler + " needs a class tree, and loss.name = " + c.loss.name +
                       " builds none with these settings");
  if (sampler.check) sampler.check(c);
}

void check_core_rules(const RunConfig& c) {
  if (!c.model.init_run.empty() && !c.model.pretrained.empty())
    throw config_error("model.init_run and model.pretrained both name starting weights: name one");
  if (c.eval.scatter && c.eval.triplet_accuracy_set.empty())
    throw config_error("eval.scatter logs the set named by eval.triplet_accuracy_set: name one");
  if (!c.eval.subclusters.empty() && c.eval.subclusters.size() != 2)
    throw config_error("eval.subclusters names two levels, coarse then fine (or none)");
  if (c.eval.ks.empty()) throw config_error("eval.ks must name at least one K");
  for (std::size_t i = 1; i < c.schedule.decay_epochs.size(); ++i)
    if (c.schedule.decay_epochs[i] <= c.schedule.decay_epochs[i - 1])
      throw config_error("schedule.decay_epochs must be increasing");
}

// The folds and early stopping of a tuning trial.
void check_fold_and_stopping_rules(const RunConfig& c) {
  const auto& d = c.dataset;
  if (d.folds == 1) throw config_error("dataset.folds = 1 leaves no class to train on: 0 (no folds) or 2 and more");
  if (d.folds > 1 && d.fold >= d.folds)
    throw config_error("dataset.fold = " + std::to_string(d.fold) + " is not a fold of dataset.folds = " +
                       std::to_string(d.folds) + " (0 to " + std::to_string(d.folds - 1) + ")");
  if (d.folds == 0 && (d.fold != 0 || !d.fold_level.empty()))
    throw config_error("dataset.fold and dataset.fold_level apply with dataset.folds >= 2 only");
  const auto& s = c.schedule;
  if (s.patience == 0) {
    if (!s.stop_metric.empty()) throw config_error("schedule.stop_metric applies with schedule.patience >= 1 only");
    return;
  }
  if (!c.eval.every_epoch)
    throw config_error("schedule.patience stops on the curve of eval.every_epoch: set eval.every_epoch = true");
  if (s.stop_metric.empty())
    throw config_error("schedule.patience needs schedule.stop_metric, the curve's number it waits on");
  if (s.patience >= s.epochs)
    throw config_error("schedule.patience = " + std::to_string(s.patience) + " is not below the budget of " +
                       "schedule.epochs = " + std::to_string(s.epochs) + " curve points: it could never stop early");
  const auto dot = s.stop_metric.find('.');
  const auto set = s.stop_metric.substr(0, dot);
  const auto& sets = c.eval.curve_sets;
  if (!sets.empty() && std::find(sets.begin(), sets.end(), set) == sets.end())
    throw config_error("schedule.stop_metric = " + s.stop_metric + " names the set \"" + set +
                       "\", which is not one of eval.curve_sets (" + joined_names(sets) + ")");
  const auto& keys = ranking_metric_keys();
  const bool ranking = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
    return s.stop_metric.find("." + k) != std::string::npos;
  });
  if (ranking && !c.eval.curve_ranking)
    throw config_error("schedule.stop_metric = " + s.stop_metric + " is a ranking metric, which curve points carry "
                       "with eval.curve_ranking = true");
}

}  // namespace

void check_cross_key_rules(const RunConfig& c, const std::string& origin) {
  try {
    check_core_rules(c);
    check_fold_and_stopping_rules(c);
    const auto& loss = loss_spec(c.loss.name);
    check_loss_rules(c, loss);
    check_miner_and_sampler_rules(c, loss);
  } catch (const config_error& e) {
    throw config_error(origin + ": " + e.what());
  }
}

bool miner_ranks_by_cosine(const RunConfig& c) {
  const auto& loss = loss_spec(c.loss.name);
  return c.miner.ranking == MinerSimilarity::cosine ||
         (c.miner.ranking == MinerSimilarity::automatic &&
          ((loss.cosine && loss.cosine(c)) ||
           miner_spec(c.miner.name).negative == NegativeChoice::distance_weighted));
}

}  // namespace dmlbench::experiments
