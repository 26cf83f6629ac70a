// The fine-grained configs of [XHN] Table 1 and [LCC] Table 2 (experiments/configs/xhn-table1-*.json,
// lcc-table2-*.json) on a decodable fixture of each official layout (CUB-200-2011, CARS196, Stanford Online Products,
// In-shop): each config as written, only the data folder, the input size, the batch and the length shrunk to a smoke
// run on the CPU, trains through the engine and writes the metric its reproduction file judges.
#include "dmlbench/experiments/image.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/training_data.hpp"
#include "dmlbench/experiments/training_engine.hpp"

#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kRepo = DMLBENCH_SOURCE_DIR;

// a 40 x 48 RGB JPEG: seeded noise with a bright block whose place depends on the class
void jpeg(const fs::path& p, int cls, unsigned seed) {
  fs::create_directories(p.parent_path());
  std::mt19937 rng(seed);
  Image im{40, 48, 3, std::vector<std::uint8_t>(40 * 48 * 3)};
  for (auto& v : im.pixels) v = std::uint8_t(rng() % 96);
  const int r0 = 4 + (cls * 7) % 24, c0 = 4 + (cls * 11) % 30;
  for (int r = r0; r < r0 + 10; ++r)
    for (int c = c0; c < c0 + 10; ++c)
      for (int ch = 0; ch < 3; ++ch) im.pixels[std::size_t((r * 48 + c) * 3 + ch)] = std::uint8_t(160 + 40 * ch);
  write_jpeg(p.string(), im, 90);
}

// Each layout with two test classes of three images each and two training classes (SOP and In-shop: four, in two
// super-classes / categories, so that the training level shows in the class count; In-shop's test: two items with a
// query and two gallery images each, and a gallery distractor).
void write_layout(const std::string& layout, const fs::path& root) {
  std::ofstream out;
  if (layout == "cub") {
    std::ofstream images(root / "images.txt"), labels(root / "image_class_labels.txt"), classes(root / "classes.txt");
    int id = 1;
    for (int cls : {1, 2, 101, 102}) {
      char folder[32];
      std::snprintf(folder, sizeof folder, "%03d.Bird_%d", cls, cls);
      for (int k = 0; k < 3; ++k, ++id) {
        const std::string rel = std::string(folder) + "/Bird_" + std::to_string(id) + ".jpg";
        jpeg(root / "images" / rel, cls, unsigned(id));
        images << id << " " << rel << "\n";
        labels << id << " " << cls << "\n";
      }
    }
    for (int c = 1; c <= 200; ++c) classes << c << " " << c << ".Bird_" << c << "\n";
  } else if (layout == "cars") {
    std::ofstream list(root / "cars_annos.txt");
    list << "# converted from cars_annos.mat by scripts/convert_cars_annos.py: <relative_im_path> <class>\n";
    int id = 1;
    for (int cls : {1, 2, 99, 100})
      for (int k = 0; k < 3; ++k, ++id) {
        char rel[32];
        std::snprintf(rel, sizeof rel, "car_ims/%06d.jpg", id);
        jpeg(root / rel, cls, unsigned(id));
        list << rel << " " << cls << "\n";
      }
  } else if (layout == "sop") {
    int id = 1;
    for (const auto& [file, classes] : {std::pair<std::string, std::vector<int>>{"Ebay_train.txt", {1, 2, 5, 6}},
                                        {"Ebay_test.txt", {3, 4}}}) {
      std::ofstream list(root / file);
      list << "image_id class_id super_class_id path\n";
      for (int cls : classes)
        for (int k = 0; k < 3; ++k, ++id) {
          const std::string rel = (cls % 2 ? "bicycle_final/" : "chair_final/") + std::to_string(1000 + cls) + "_" +
                                  std::to_string(k) + ".JPG";
          jpeg(root / rel, cls, unsigned(id));
          list << id << " " << cls << " " << (cls % 2 ? 1 : 2) << " " << rel << "\n";
        }
    }
  } else {
    std::vector<std::string> rows;
    auto image = [&](int item, int n, const std::string& status) {
      const std::string cat = item % 2 ? "WOMEN/Dresses" : "MEN/Shirts", id = "id_0000000" + std::to_string(item);
      const std::string rel = "img/" + cat + "/" + id + "/0" + std::to_string(n) + "_1_front.jpg";
      jpeg(root / rel, item, unsigned(item * 10 + n));
      rows.push_back(rel + " " + id + " " + status);
    };
    for (int item : {1, 2, 6, 7})
      for (int n = 1; n <= 3; ++n) image(item, n, "train");
    for (int item : {3, 4}) {
      image(item, 1, "query");
      image(item, 2, "gallery");
      image(item, 3, "gallery");
    }
    image(5, 1, "gallery");
    std::ofstream list(root / "list_eval_partition.txt");
    list << rows.size() << "\nimage_name item_id evaluation_status\n";
    for (const auto& r : rows) list << r << "\n";
  }
}

// The config's reproduction file: the one whose "config" names it.
Reproduction reproduction_of(const std::string& config) {
  for (const auto& e : fs::directory_iterator(kRepo + "/experiments/reproductions")) {
    auto r = read_reproduction(e.path().string(), kRepo);
    if (fs::path(r.config).filename() == config) return r;
  }
  FAIL("no reproduction file runs " << config);
  return {};
}

// What a run's log line says it trains on: "class (4 classes)" of "...; trains on level class (4 classes); ...".
std::string trained_on(const std::string& log) {
  const std::string key = "trains on level ";
  const auto a = log.find(key);
  if (a == std::string::npos) return "(no training level in the log)";
  return log.substr(a + key.size(), log.find(')', a) + 1 - a - key.size());
}

}  // namespace

TEST_CASE("the fine-grained configs of [XHN] Table 1 and [LCC] Table 2 smoke-run on a fixture of each official "
          "layout and write the metric their reproduction judges [XHN Table 1]",
          "[experiments][training][layouts][XHN]") {
  const std::vector<std::pair<std::string, std::string>> configs = {
      {"xhn-table1-cub.json", "cub"},       {"xhn-table1-cars.json", "cars"}, {"xhn-table1-sop.json", "sop"},
      {"xhn-table1-inshop.json", "inshop"}, {"lcc-table2-cars.json", "cars"}, {"lcc-table2-cub.json", "cub"}};
  // the level each trains on, the finest (the class labels, as [XHN] and [LCC] train), and its class count; for the
  // layouts with a coarser level, that level and its count, which must differ (the negative control)
  const std::map<std::string, std::string> finest = {
      {"cub", "class (2 classes)"}, {"cars", "class (2 classes)"}, {"sop", "class (4 classes)"},
      {"inshop", "item (4 classes)"}};
  const std::map<std::string, std::pair<std::string, std::string>> coarse = {
      {"sop", {"superclass", "superclass (2 classes)"}}, {"inshop", {"category", "category (2 classes)"}}};
  for (const auto& [file, layout] : configs) {
    SECTION(file) {
      const ScratchDir data("dmlbench-finegrained-" + layout), out("dmlbench-finegrained-run");
      write_layout(layout, data.dir());
      const auto r = reproduction_of(file);
      CHECK(r.profiles.count("default") == 0);  // no CPU profile: the report lists it as not run here
      CHECK_FALSE(r.needs.empty());
      // the config as written, less what a CPU smoke run cannot have: the data, the weights file, the full size
      const std::vector<std::string> smoke = {"dataset.data_dir=" + data.root(), "dataset.image_size=32",
                                              "dataset.loader_threads=1", "model.pretrained=", "batch.classes=2",
                                              "batch.per_class=2", "schedule.epochs=1", "schedule.steps_per_epoch=2",
                                              "device=cpu"};
      const auto c = load_run_config(kRepo + "/experiments/configs/" + file, smoke, kRepo);
      CHECK(c.model.name == "resnet50");
      CHECK(c.dataset.channels == 3);
      std::ostringstream log;
      const auto m = train_run(c, {out.root(), false, "test"}, log);
      INFO(log.str());
      CHECK(m["steps"] == 2);
      CHECK(trained_on(log.str()) == finest.at(layout));
      if (coarse.count(layout)) {
        auto at_coarse = smoke;
        at_coarse.push_back("dataset.train_level=" + coarse.at(layout).first);
        const auto d = load_training_data(load_run_config(kRepo + "/experiments/configs/" + file, at_coarse, kRepo));
        CHECK(trained_on(d.description) == coarse.at(layout).second);
        CHECK(trained_on(d.description) != finest.at(layout));
      }
      int claims = 0;
      for (const auto& metric : r.metrics)  // the claimed metrics (R@1: the fixture's sets are smaller than R@10's K)
        if (!metric.claim.empty()) {
          const double v = metric_at(m, metric.path);
          CHECK((v >= 0 && v <= 1));
          ++claims;
        }
      CHECK(claims >= 1);
    }
  }
  // the configs as written name the official folders and the exported ImageNet weights, relative to the repository
  const auto x = load_run_config(kRepo + "/experiments/configs/xhn-table1-cub.json", {}, kRepo);
  CHECK(x.dataset.data_dir == kRepo + "/data/CUB_200_2011");
  CHECK(x.model.pretrained == kRepo + "/data/weights/resnet50_imagenet.safetensors");
  CHECK(x.dataset.transform_train == "pad-crop-flip");
  CHECK(x.schedule.decay_epochs == std::vector<int>{20, 30});
}
