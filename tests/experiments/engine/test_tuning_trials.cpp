// A tuning trial's run: class-disjoint folds of the training classes (class_folds.hpp) with the test classes
// never read, and the early stop on the validation curve (schedule.patience), on a subset of the bundled MNIST digits.
#include "dmlbench/experiments/class_folds.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/training_engine.hpp"

#include "../../../experiments/src/engine/training_run.hpp"  // stops_early, the early-stopping rule

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <random>
#include <set>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kRepo = DMLBENCH_SOURCE_DIR;

// 100 digits of each class in the MNIST train layout; with `noisy_test`, the pixels of digits 6-9 (the test classes of
// mnist-evenodd) replaced by seeded noise.
fs::path digits_subset(bool noisy_test) {
  if (!fs::exists(kRepo + "/data/mnist/train-labels-idx1-ubyte"))
    FAIL("the bundled MNIST digits are missing: run scripts/fetch_data.sh (the README's test command does)");
  const auto dir = fs::temp_directory_path() / ("dmlbench-fold-digits-" + std::string(noisy_test ? "noisy-" : "") +
                                                std::to_string(::getpid()));
  if (fs::exists(dir / "train-labels-idx1-ubyte")) return dir;
  const auto d = read_mnist_layout(kRepo + "/data/mnist", "train");
  std::vector<int> per(10, 0);
  IdxArray im, lb;
  im.dims = {1000, 28, 28};
  lb.dims = {1000};
  std::mt19937 noise(7);
  for (std::size_t i = 0; i < d.labels.size(); ++i)
    if (per[std::size_t(d.labels[i])]++ < 100) {
      for (long p = 0; p < 784; ++p)
        im.data.push_back(noisy_test && d.labels[i] >= 6 ? std::uint8_t(noise() & 0xff)
                                                          : d.images.data[std::size_t(long(i) * 784 + p)]);
      lb.data.push_back(std::uint8_t(d.labels[i]));
    }
  write_idx((dir / "train-images-idx3-ubyte").string(), im);
  write_idx((dir / "train-labels-idx1-ubyte").string(), lb);
  return dir;
}

// lcc_table1's trial settings (its tuning block: folds of the digits 0-5), on the subset.
RunConfig trial(const fs::path& data, std::vector<std::string> set) {
  std::vector<std::string> s = {"device=cpu", "dataset.data_dir=" + data.string(), "batch.per_class=16", "seed=3",
                                "schedule.epochs=3", "schedule.steps_per_epoch=6", "eval.scatter=false",
                                "eval.triplet_accuracy_set=", "eval.nmi=false"};
  s.insert(s.end(), set.begin(), set.end());
  return load_run_config(kRepo + "/experiments/configs/lcc-mnist-evenodd.json", s, kRepo);
}

const std::vector<std::string> kFold = {"dataset.folds=2", "dataset.fold_level=digit", "dataset.fold_seed=0",
                                        "eval.sets=validation", "eval.curve_sets=validation", "eval.levels=digit",
                                        "eval.every_epoch=true", "eval.curve_ranking=true"};

std::string fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d.string();
}

std::set<std::int64_t> digits_of(const LabeledSplit& s) {
  const auto& y = s.labels[std::size_t(s.level_index("digit"))];
  return {y.begin(), y.end()};
}

}  // namespace

TEST_CASE("class folds deal every training class into exactly one fold, the same for every run seed, and another "
          "fold seed deals them otherwise", "[experiments][tuning]") {
  const std::vector<std::int64_t> labels = {5, 1, 1, 3, 9, 7, 5, 2, 8, 0, 4, 6};
  const auto f = fold_of_classes(labels, 3, 11);
  CHECK(f.size() == 10);  // the distinct classes
  std::vector<int> sizes(3, 0);
  for (const auto& [k, fold] : f) ++sizes[std::size_t(fold)];
  CHECK(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
  CHECK(fold_of_classes(labels, 3, 11) == f);
  bool differs = false;  // the negative control: the seed moves classes
  for (std::uint64_t seed = 12; seed < 20 && !differs; ++seed) differs = fold_of_classes(labels, 3, seed) != f;
  CHECK(differs);
  CHECK_THROWS_WITH(fold_of_classes({1, 2}, 3, 0), Catch::Contains("needs at least that many classes"));
}

TEST_CASE("a trial's folds of the training digits: validation and training digits disjoint, the two folds covering "
          "digits 0-5, and no test digit (6-9) in any set", "[experiments][tuning]") {
  const auto data = digits_subset(false);
  std::set<std::int64_t> validated;
  for (int fold = 0; fold < 2; ++fold) {
    auto set = kFold;
    set.push_back("dataset.fold=" + std::to_string(fold));
    const auto d = load_training_data(trial(data, set));
    REQUIRE(d.eval.size() == 1);
    CHECK(d.eval_set_names() == std::vector<std::string>{"validation"});
    const auto v = digits_of(d.eval[0]), t = digits_of(d.train);
    for (auto k : v) CHECK(t.count(k) == 0);
    for (auto k : v) CHECK(k < 6);
    for (auto k : t) CHECK(k < 6);
    validated.insert(v.begin(), v.end());
    // both parities train in each fold (else the even/odd batches could not be drawn)
    std::set<std::int64_t> parities;
    for (auto k : t) parities.insert(k % 2);
    CHECK(parities.size() == 2);
  }
  CHECK(validated == std::set<std::int64_t>{0, 1, 2, 3, 4, 5});
  // trained on the digits themselves, the training fold's labels are renumbered 0..2 (a loss with a parameter per
  // class indexes it by label); the validation fold keeps the digits
  auto set = kFold;
  set.insert(set.end(), {"dataset.fold=0", "dataset.train_level=digit", "batch.classes=3"});
  const auto d = load_training_data(trial(data, set));
  CHECK(digits_of(d.train) == std::set<std::int64_t>{0, 1, 2});
  const auto v = digits_of(d.eval[0]);
  CHECK(v.size() == 3);
  CHECK(std::set<std::int64_t>(validated).size() == 6);
  CHECK(v != std::set<std::int64_t>{0, 1, 2});
}

TEST_CASE("tuning never reads a test image: a trial on data whose test digits are noise is bit-identical, while an "
          "ordinary run that evaluates them is not", "[experiments][tuning]") {
  const auto clean = digits_subset(false), noisy = digits_subset(true);
  auto fold = kFold;
  fold.push_back("dataset.fold=1");
  const auto a = fresh_dir("dmlbench-fold-a"), b = fresh_dir("dmlbench-fold-b");
  const auto ma = train_run(trial(clean, fold), {a, false, ""}, std::cerr);
  const auto mb = train_run(trial(noisy, fold), {b, false, ""}, std::cerr);
  CHECK(ma["curve"] == mb["curve"]);
  CHECK(ma["eval"] == mb["eval"]);
  CHECK(ma["last_loss"] == mb["last_loss"]);
  // the negative control: the same two datasets in an ordinary run, which evaluates the test digits
  const std::vector<std::string> ordinary = {"eval.sets=test_digits"};
  const auto c = fresh_dir("dmlbench-fold-c"), d = fresh_dir("dmlbench-fold-d");
  const auto mc = train_run(trial(clean, ordinary), {c, false, ""}, std::cerr);
  const auto md = train_run(trial(noisy, ordinary), {d, false, ""}, std::cerr);
  CHECK(mc["last_loss"] == md["last_loss"]);  // training reads no test digit either way
  CHECK(mc["eval"] != md["eval"]);             // but the evaluation does
  for (const auto& dir : {a, b, c, d}) fs::remove_all(dir);
}

TEST_CASE("early stopping: the first best point, a tie is no improvement, a stop once patience points follow it",
          "[experiments][tuning]") {
  const auto c = trial(digits_subset(false), [] {
    auto s = kFold;
    s.insert(s.end(), {"schedule.epochs=6", "schedule.patience=2", "schedule.stop_metric=validation.digit.map_at_r"});
    return s;
  }());
  auto curve_of = [](std::vector<double> values) {
    json curve = json::array();
    for (double v : values) curve.push_back({{"eval", {{"validation", {{"digit", {{"map_at_r", v}}}}}}}});
    return curve;
  };
  CHECK_FALSE(stops_early(c, curve_of({0.1, 0.2, 0.3})).stop);
  CHECK_FALSE(stops_early(c, curve_of({0.1, 0.3, 0.2})).stop);
  const auto e = stops_early(c, curve_of({0.1, 0.3, 0.2, 0.3}));  // the tie at 0.3 is no improvement
  CHECK(e.stop);
  CHECK(e.best_index == 1);
  CHECK(e.best == 0.3);
  CHECK_FALSE(stops_early(c, curve_of({0.1, 0.3, 0.2, 0.31})).stop);
  CHECK_THROWS_WITH(stops_early(c, json::array({{{"eval", json::object()}}})),
                    Catch::Contains("schedule.stop_metric = validation.digit.map_at_r is not a number of the curve"));
}

TEST_CASE("a trial's metrics.json states its early stop as its curve shows it, and a resumed stopped run trains no "
          "further", "[experiments][tuning]") {
  auto set = kFold;
  set.insert(set.end(), {"dataset.fold=0", "schedule.epochs=6", "schedule.patience=1", "optimizer.lr=0.05",
                         "schedule.stop_metric=validation.digit.map_at_r"});
  const auto c = trial(digits_subset(false), set);
  const auto dir = fresh_dir("dmlbench-early-stop");
  const auto m = train_run(c, {dir, false, ""}, std::cerr);
  const auto& e = m.at("early_stopping");
  const auto& curve = m.at("curve");
  CHECK(e["epochs_run"] == curve.size());
  double best = -1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    CHECK(curve[i]["eval"]["validation"]["digit"].contains("map_at_r"));
    const double v = curve[i]["eval"]["validation"]["digit"]["map_at_r"];
    if (v > best) best = v, at = i;
  }
  CHECK(e["best"].get<double>() == best);
  CHECK(e["best_epoch"] == at + 1);
  CHECK(e["stopped_early"] == (curve.size() - 1 - at >= 1));
  const auto again = train_run(c, {dir, true, ""}, std::cerr);
  CHECK(again["curve"] == curve);
  CHECK(again["steps"] == m["steps"]);
  fs::remove_all(dir);
}
