#include "dmlbench/experiments/evenodd_training.hpp"
#include "dmlbench/experiments/idx_file.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <sstream>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;

namespace {

// 1200 of the bundled MNIST digits (120 of each) (scripts/fetch_data.sh, run by the README's test command) in the
// MNIST train layout.
fs::path small_dataset() {
  const auto dir = fs::temp_directory_path() / ("dmlbench-mnist-subset-" + std::to_string(::getpid()));
  const std::string bundled = DMLBENCH_SOURCE_DIR "/data/mnist";
  if (!fs::exists(bundled + "/train-labels-idx1-ubyte"))
    FAIL("the bundled MNIST digits are missing: run scripts/fetch_data.sh (the README's test command does)");
  auto d = read_mnist_layout(bundled, "train");
  // the bundled file is grouped by digit: take 120 of each digit
  std::vector<int> pick;
  std::vector<int> per(10, 0);
  for (std::size_t i = 0; i < d.labels.size(); ++i)
    if (per[std::size_t(d.labels[i])]++ < 120) pick.push_back(int(i));
  IdxArray sub;
  for (int i : pick) sub.data.insert(sub.data.end(), d.images.data.begin() + long(i) * 784, d.images.data.begin() + long(i + 1) * 784);
  d.images = sub;
  std::vector<int> labels;
  for (int i : pick) labels.push_back(d.labels[std::size_t(i)]);
  d.labels = labels;
  IdxArray im, lb;
  im.dims = {1200, 28, 28};
  lb.dims = {1200};
  im.data.assign(d.images.data.begin(), d.images.data.begin() + 1200 * 784);
  for (int i = 0; i < 1200; ++i) lb.data.push_back(std::uint8_t(d.labels[std::size_t(i)]));
  write_idx((dir / "train-images-idx3-ubyte").string(), im);
  write_idx((dir / "train-labels-idx1-ubyte").string(), lb);
  return dir;
}

EvenOddConfig small_config(const std::string& out) {
  EvenOddConfig c;
  c.data_dir = small_dataset().string();
  c.out_dir = (fs::temp_directory_path() / out).string();
  fs::remove_all(c.out_dir);
  c.samples_per_class = 16;
  c.epochs = 3;
  c.seed = 3;
  c.device = "cpu";
  return c;
}

}  // namespace

TEST_CASE("smoke training run of [LCC] Sec 5.1 on a thousand images lowers the loss and writes its outputs",
          "[experiments][training]") {
  for (const char* sampler : {"random", "eps"}) {
    auto c = small_config(std::string("dmlbench-smoke-") + sampler);
    c.sampler = sampler;
    std::ostringstream log;
    const auto r = train_evenodd(c, log);
    c.samples_per_class = 32;
    c.epochs = 4;
    fs::remove_all(c.out_dir);
    const auto r2 = train_evenodd(c, log);
    INFO(sampler << ": epoch mean loss " << r2.first_loss << " -> " << r2.last_loss << "\n" << log.str());
    CHECK(r2.last_loss < r2.first_loss);
    CHECK(r.steps == 3 * 18);  // 720 images of classes 0-5, 20% held out: 576 / 32 = 18 steps per epoch
    for (double v : r.recall_train_digits) CHECK((v >= 0 && v <= 1));
    CHECK(r.recall_test_digits[2] >= r.recall_test_digits[0]);  // R@10 >= R@1
    for (const char* f : {"metrics.json", "embeddings.csv", "scatter.csv", "checkpoint.json", "checkpoint_model.pt"})
      CHECK(fs::exists(fs::path(c.out_dir) / f));
    CHECK_THAT(log.str(), Catch::Contains("ETA"));
    fs::remove_all(c.out_dir);
    fs::remove_all(c.data_dir);
  }
}

TEST_CASE("a run stopped after one epoch and resumed from its checkpoint ends exactly where an uninterrupted run "
          "does", "[experiments][training]") {
  auto a = small_config("dmlbench-resume-a");
  const auto full = train_evenodd(a, std::cerr);
  auto b = small_config("dmlbench-resume-b");
  b.max_steps = 18;  // "killed" after the first epoch's checkpoint
  const auto part = train_evenodd(b, std::cerr);
  CHECK(part.steps == 18);
  b.max_steps = -1;
  b.resume = true;
  const auto resumed = train_evenodd(b, std::cerr);
  CHECK(resumed.steps == full.steps);
  CHECK(resumed.last_loss == full.last_loss);
  CHECK(resumed.recall_train_digits == full.recall_train_digits);
  CHECK(resumed.recall_test_digits == full.recall_test_digits);
  // a checkpoint of another config is refused, with the reason
  b.lr = 0.5;
  CHECK_THROWS_WITH(train_evenodd(b, std::cerr), Catch::Contains("another config"));
  fs::remove_all(a.out_dir);
  fs::remove_all(b.out_dir);
  fs::remove_all(a.data_dir);
  fs::remove_all(b.data_dir);
}

TEST_CASE("training input errors: missing data, bad sampler, too small a batch", "[experiments][training]") {
  auto c = small_config("dmlbench-bad");
  const auto data = c.data_dir;
  c.sampler = "hard";
  CHECK_THROWS_WITH(train_evenodd(c, std::cerr), Catch::Contains("--sampler"));
  c.sampler = "eps";
  c.samples_per_class = 1;
  CHECK_THROWS_WITH(train_evenodd(c, std::cerr), Catch::Contains("--samples-per-class"));
  c.samples_per_class = 8;
  c.data_dir = "/nonexistent";
  CHECK_THROWS_WITH(train_evenodd(c, std::cerr), Catch::Contains("official MNIST layout"));
  fs::remove_all(data);
}
