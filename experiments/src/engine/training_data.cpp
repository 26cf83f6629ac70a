#include "dmlbench/experiments/training_data.hpp"

#include "dmlbench/experiments/class_folds.hpp"
#include "dmlbench/experiments/evenodd_split.hpp"
#include "dmlbench/experiments/idx_file.hpp"

#include <algorithm>
#include <random>
#include <sstream>

namespace dmlbench::experiments {

int LabeledSplit::level_index(const std::string& level) const {
  for (std::size_t i = 0; i < level_names.size(); ++i)
    if (level_names[i] == level) return int(i);
  const auto near = nearest_name(level, level_names);
  throw config_error("label level \"" + level + "\" is not a level of the set " + name + " (" +
                     joined_names(level_names) + ")" +
                     (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
}

torch::Tensor LabeledSplit::level_labels(const std::string& level) const {
  return torch::tensor(labels[std::size_t(level_index(level))], torch::kInt64);
}

std::vector<std::string> TrainingData::eval_set_names() const {
  std::vector<std::string> n;
  for (const auto& s : eval) n.push_back(s.name);
  return n;
}

const LabeledSplit& TrainingData::eval_set(const std::string& name) const {
  for (const auto& s : eval)
    if (s.name == name) return s;
  if (!train.name.empty() && name == train.name) return train;  // the training split itself, only when named
  auto names = eval_set_names();
  if (!train.name.empty()) names.push_back(train.name);
  const auto near = nearest_name(name, names);
  throw config_error("eval set \"" + name + "\" is not a set of this dataset (" + joined_names(names) +
                     ")" +
                     (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
}

namespace {

// An in-memory split of idx images: the rows `rows` of `pixels` (N x 1 x H x W uint8, shared), scaled to [0, 1] per
// batch exactly as a float copy of the whole set would be (the same elementwise conversion).
LabeledSplit idx_split(std::string name, const std::shared_ptr<torch::Tensor>& pixels, const std::vector<int>& rows,
                       std::vector<std::string> level_names, std::vector<std::vector<std::int64_t>> labels) {
  LabeledSplit s;
  s.name = std::move(name);
  s.level_names = std::move(level_names);
  s.labels = std::move(labels);
  s.size = std::int64_t(rows.size());
  const auto sel = torch::tensor(std::vector<std::int64_t>(rows.begin(), rows.end()), torch::kInt64);
  const auto mine = std::make_shared<torch::Tensor>(pixels->index({sel}));
  s.images = [mine](const std::vector<std::int64_t>& idx, bool, std::uint64_t) {
    return mine->index({torch::tensor(idx, torch::kInt64)}).to(torch::kFloat32).div(255.0);
  };
  return s;
}

std::shared_ptr<torch::Tensor> pixels_of(const LabeledImages& d) {
  auto t = torch::from_blob(const_cast<std::uint8_t*>(d.images.data.data()),
                            {static_cast<std::int64_t>(d.images.count()), 1, d.rows, d.cols}, torch::kUInt8)
               .clone();
  return std::make_shared<torch::Tensor>(std::move(t));
}

std::string sizes(const TrainingData& d) {
  std::ostringstream o;
  o << "train " << d.train.size;
  for (const auto& s : d.eval) o << ", " << s.name << " " << s.size;
  return o.str();
}

TrainingData mnist_evenodd(const RunConfig& c) {
  const auto data = read_mnist_layout(c.dataset.data_dir, "train");
  const auto split = evenodd_split(data.labels, c.dataset.holdout, c.seed);
  const auto px = pixels_of(data);
  auto levels = [&](const std::vector<int>& rows) {
    std::vector<std::vector<std::int64_t>> l(2);
    for (int i : rows) {
      l[0].push_back(data.labels[std::size_t(i)]);
      l[1].push_back(parity_label(data.labels[std::size_t(i)]));
    }
    return l;
  };
  TrainingData d;
  d.default_train_level = "parity";
  d.channels = 1;
  d.train = idx_split("train", px, split.train, {"digit", "parity"}, levels(split.train));
  d.eval.push_back(idx_split("train_digits", px, split.heldout_train_digits, {"digit", "parity"},
                             levels(split.heldout_train_digits)));
  d.eval.push_back(idx_split("test_digits", px, split.test_digits, {"digit", "parity"}, levels(split.test_digits)));
  d.description = "MNIST even/odd ([LCC] Sec 5.1) from " + c.dataset.data_dir + ": " + sizes(d);
  return d;
}

// Classes 0-4 train (a seeded holdout of each held out), classes 5-9 test: class-disjoint, as DML evaluates.
TrainingData mnist_classes(const RunConfig& c) {
  const auto data = read_mnist_layout(c.dataset.data_dir, "train");
  std::vector<std::vector<int>> by(10);
  for (std::size_t i = 0; i < data.labels.size(); ++i) by[std::size_t(data.labels[i])].push_back(int(i));
  std::mt19937_64 rng(c.seed);
  std::vector<int> train, held, test;
  for (int k = 0; k < 10; ++k) {
    auto& v = by[std::size_t(k)];
    if (k >= 5) {
      test.insert(test.end(), v.begin(), v.end());
      continue;
    }
    std::shuffle(v.begin(), v.end(), rng);
    const auto h = std::size_t(std::lround(c.dataset.holdout * double(v.size())));
    held.insert(held.end(), v.begin(), v.begin() + long(h));
    train.insert(train.end(), v.begin() + long(h), v.end());
  }
  for (auto* v : {&train, &held, &test}) std::sort(v->begin(), v->end());
  const auto px = pixels_of(data);
  auto lab = [&](const std::vector<int>& rows) {
    std::vector<std::vector<std::int64_t>> l(1);
    for (int i : rows) l[0].push_back(data.labels[std::size_t(i)]);
    return l;
  };
  TrainingData d;
  d.default_train_level = "class";
  d.channels = 1;
  d.train = idx_split("train", px, train, {"class"}, lab(train));
  d.eval.push_back(idx_split("heldout", px, held, {"class"}, lab(held)));
  d.eval.push_back(idx_split("test", px, test, {"class"}, lab(test)));
  d.description = c.dataset.name + " (idx, classes 0-4 train, 5-9 test) from " + c.dataset.data_dir + ": " + sizes(d);
  return d;
}

}  // namespace

TrainingData load_training_data(const RunConfig& c) {
  const auto k = c.dataset.kind;
  auto d = k == DatasetKind::mnist_evenodd                                   ? mnist_evenodd(c)
           : k == DatasetKind::mnist || k == DatasetKind::fashion_mnist ? mnist_classes(c)
                                                                          : load_image_layout(c);
  apply_class_folds(d, c);  // tuning: one fold of the training classes validates, the rest trains (nothing else)
  return d;
}

}  // namespace dmlbench::experiments
