// Class-disjoint folds of the training classes for tuning (Musgrave et al. 2020, Sec 4).
#include "dmlbench/experiments/class_folds.hpp"

#include <algorithm>
#include <random>
#include <set>

namespace dmlbench::experiments {

std::map<std::int64_t, int> fold_of_classes(const std::vector<std::int64_t>& labels, int folds, std::uint64_t seed) {
  const std::set<std::int64_t> distinct(labels.begin(), labels.end());
  std::vector<std::int64_t> classes(distinct.begin(), distinct.end());
  if (folds < 2 || std::int64_t(classes.size()) < folds)
    throw config_error("dataset.folds = " + std::to_string(folds) + " needs at least that many classes to deal, and "
                       "the training split has " + std::to_string(classes.size()));
  std::mt19937_64 rng(seed);
  std::shuffle(classes.begin(), classes.end(), rng);
  std::map<std::int64_t, int> fold;
  for (std::size_t i = 0; i < classes.size(); ++i) fold[classes[i]] = int(i % std::size_t(folds));
  return fold;
}

LabeledSplit subset_split(const LabeledSplit& s, const std::vector<std::int64_t>& rows, const std::string& name) {
  LabeledSplit out;
  out.name = name;
  out.level_names = s.level_names;
  out.labels.resize(s.labels.size());
  for (std::size_t l = 0; l < s.labels.size(); ++l)
    for (auto r : rows) out.labels[l].push_back(s.labels[l][std::size_t(r)]);
  if (!s.paths.empty())
    for (auto r : rows) out.paths.push_back(s.paths[std::size_t(r)]);
  out.size = std::int64_t(rows.size());
  const auto map = std::make_shared<const std::vector<std::int64_t>>(rows);
  auto mapped = [map](const std::vector<std::int64_t>& idx) {
    std::vector<std::int64_t> m;
    m.reserve(idx.size());
    for (auto i : idx) m.push_back((*map)[std::size_t(i)]);
    return m;
  };
  if (s.images)
    out.images = [base = s.images, mapped](const std::vector<std::int64_t>& idx, bool train, std::uint64_t seed) {
      return base(mapped(idx), train, seed);
    };
  if (s.stream)
    out.stream = [base = s.stream, mapped](const std::vector<std::vector<std::int64_t>>& plan, std::uint64_t seed,
                                           std::uint64_t epoch) {
      std::vector<std::vector<std::int64_t>> p;
      p.reserve(plan.size());
      for (const auto& b : plan) p.push_back(mapped(b));
      return base(p, seed, epoch);
    };
  return out;
}

namespace {

// The labels of one level renumbered 0..K-1 in their sorted order: the losses with a parameter per class (the margin
// loss's beta) index it by the training label, as the dataset readers' dense ids allow.
void densify_level(LabeledSplit& s, const std::string& level) {
  auto& y = s.labels[std::size_t(s.level_index(level))];
  const std::set<std::int64_t> distinct(y.begin(), y.end());
  std::map<std::int64_t, std::int64_t> id;
  for (auto k : distinct) id.emplace(k, std::int64_t(id.size()));
  for (auto& v : y) v = id.at(v);
}

}  // namespace

void apply_class_folds(TrainingData& d, const RunConfig& c) {
  const auto& ds = c.dataset;
  if (ds.folds < 2) return;
  const auto train_level = ds.train_level.empty() ? d.default_train_level : ds.train_level;
  const auto level = ds.fold_level.empty() ? train_level : ds.fold_level;
  const auto& y = d.train.labels[std::size_t(d.train.level_index(level))];
  const auto fold = fold_of_classes(y, ds.folds, ds.fold_seed);
  std::vector<std::int64_t> train_rows, validation_rows;
  for (std::size_t i = 0; i < y.size(); ++i) (fold.at(y[i]) == ds.fold ? validation_rows : train_rows).push_back(i);
  const auto where = "dataset.fold = " + std::to_string(ds.fold) + " of " + std::to_string(ds.folds) + " (level " +
                     level + ")";
  if (train_rows.empty() || validation_rows.size() < 2)
    throw config_error(where + " leaves " + std::to_string(train_rows.size()) + " training and " +
                       std::to_string(validation_rows.size()) + " validation images");
  const auto held = std::count_if(fold.begin(), fold.end(), [&](const auto& kf) { return kf.second == ds.fold; });
  auto validation = subset_split(d.train, validation_rows, "validation");
  d.train = subset_split(d.train, train_rows, "train");
  densify_level(d.train, train_level);
  d.eval.clear();  // the test classes and the held-out images: never read while tuning
  d.eval.push_back(std::move(validation));
  d.query_gallery.clear();
  d.description += "; " + where + ": " + std::to_string(held) + " of " + std::to_string(fold.size()) +
                   " classes held out as the set validation (" + std::to_string(validation_rows.size()) +
                   " images), " + std::to_string(train_rows.size()) + " images train, no other set";
}

}  // namespace dmlbench::experiments
