// The image layouts as training data (training_data.hpp, load_image_layout): an Omniglot-layout fixture tree of PNGs
// the test writes, its splits, levels and holdout, the images the loader hands the trainer, a short training run
// through the engine, and the config errors of file-backed datasets.
#include "dmlbench/experiments/image.hpp"
#include "dmlbench/experiments/image_transforms.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/training_data.hpp"
#include "dmlbench/experiments/training_engine.hpp"

#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;

namespace {

// <root>/images_background: 3 alphabets x 2 characters x 5 drawers, images_evaluation: 2 x 2 x 5; 28 x 28 gray
// PNGs, each a seeded noise image with its character's bright square (so the images differ by class and by drawer).
std::string omniglot_tree() {
  const auto root = fs::temp_directory_path() / ("dmlbench-omniglot-fixture-" + std::to_string(::getpid()));
  if (fs::exists(root / "done")) return root.string();
  std::mt19937 rng(5);
  int character = 0;
  for (const auto& [split, alphabets] : {std::pair<std::string, int>{"images_background", 3}, {"images_evaluation", 2}})
    for (int a = 0; a < alphabets; ++a)
      for (int ch = 1; ch <= 2; ++ch, ++character) {
        const auto dir = root / split / ("Alphabet_" + std::to_string(a) + "_" + split.substr(7, 4)) /
                         ("character0" + std::to_string(ch));
        fs::create_directories(dir);
        for (int drawer = 1; drawer <= 5; ++drawer) {
          Image im{28, 28, 1, std::vector<std::uint8_t>(28 * 28)};
          for (auto& v : im.pixels) v = std::uint8_t(rng() % 64);
          const int r0 = 2 + (character * 5) % 20, c0 = 2 + (character * 3) % 20;
          for (int r = r0; r < r0 + 6; ++r)
            for (int c = c0; c < c0 + 6; ++c) im.pixels[std::size_t(r * 28 + c)] = 255;
          write_png((dir / (std::to_string(100 + character) + "_0" + std::to_string(drawer) + ".png")).string(), im);
        }
      }
  std::ofstream(root / "done") << "ok\n";
  return root.string();
}

json omniglot_config(const std::string& root) {
  return {{"name", "omniglot-fixture"},
          {"device", "cpu"},
          {"dataset", {{"name", "omniglot"}, {"data_dir", root}, {"holdout", 0.2}}},
          {"model", {{"name", "lcc-mnist"}, {"embedding_dim", 8}}},
          {"loss", {{"name", "triplet"}, {"margin", 0.2}}},
          {"miner", {{"name", "trip-sh"}}},
          {"batch", {{"classes", 2}, {"per_class", 4}}},
          {"schedule", {{"epochs", 2}, {"steps_per_epoch", 2}}},
          {"eval", {{"ks", {1, 2}}, {"nmi_plus_factor", 1}}}};
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("omniglot layout as training data: background trains, evaluation tests, a seeded holdout of each letter",
          "[experiments][data][layouts]") {
  const auto root = omniglot_tree();
  const auto d = load_image_layout(parse_run_config(omniglot_config(root), {}, "/"));
  CHECK(d.channels == 1);
  // the finest level (the class labels) trains unless the config names another; the log line says which, and how
  // many classes (control: a config naming the coarse level gets the coarse statement)
  CHECK(d.default_train_level == "character");
  CHECK_THAT(d.description, EndsWith("; trains on level character (6 classes)"));
  auto coarse = omniglot_config(root);
  coarse["dataset"]["train_level"] = "alphabet";
  CHECK_THAT(load_image_layout(parse_run_config(coarse, {}, "/")).description,
             EndsWith("; trains on level alphabet (3 classes)"));
  // 6 training letters of 5 drawers: round(0.2 x 5) = 1 of each held out.
  CHECK(d.train.size == 24);
  CHECK(d.eval_set_names() == std::vector<std::string>{"heldout", "test"});
  CHECK(d.eval_set("heldout").size == 6);
  CHECK(d.eval_set("test").size == 20);
  for (const auto* s : {&d.train, &d.eval_set("heldout"), &d.eval_set("test")}) {
    CHECK(s->level_names == std::vector<std::string>{"alphabet", "character"});
    const std::set<std::int64_t> alphabets(s->labels[0].begin(), s->labels[0].end()),
        letters(s->labels[1].begin(), s->labels[1].end());
    CHECK(alphabets.size() == (s->name == "test" ? 2u : 3u));
    CHECK(letters.size() == (s->name == "test" ? 4u : 6u));
    CHECK(*letters.rbegin() == std::int64_t(letters.size()) - 1);  // dense ids
  }
  // The holdout is seeded: another seed holds out other drawers.
  auto other = omniglot_config(root);
  other["seed"] = 2;
  const auto d2 = load_image_layout(parse_run_config(other, {}, "/"));
  CHECK(d2.train.size == 24);
  CHECK(!torch::equal(d.train.images({0, 1, 2, 3}, false, 0), d2.train.images({0, 1, 2, 3}, false, 0)));
}

TEST_CASE("omniglot layout: the trainer's batches are the decoded PNGs, the same for any loader thread count",
          "[experiments][data][layouts]") {
  const auto root = omniglot_tree();
  const auto c = omniglot_config(root);
  const auto d = load_image_layout(parse_run_config(c, {}, "/"));
  // At the native size with no transform an image is its bytes / 255, exactly (one float division).
  const auto x = d.eval_set("test").images({0, 19}, false, 0);
  REQUIRE(x.sizes() == torch::IntArrayRef({2, 1, 28, 28}));
  const auto first = decode_image((fs::path(root) / "images_evaluation" / "Alphabet_0_eval" / "character01" /
                                   "106_01.png").string(), 1);
  const auto want = torch::from_blob(const_cast<std::uint8_t*>(first.pixels.data()), {1, 28, 28}, torch::kUInt8)
                        .to(torch::kFloat32)
                        .div(255.0);
  CHECK(torch::equal(x[0], want));
  CHECK(!torch::equal(x[0], x[1]));  // negative control: another letter's image differs
  // The evaluation images are decoded once and kept: the last item, asked alone, is what the pair gave.
  CHECK(torch::equal(d.eval_set("test").images({19}, false, 0)[0], x[1]));
  // A training transform with random draws, streamed over an epoch's plan: 0 and 2 worker threads give equal bytes.
  const std::vector<std::vector<std::int64_t>> plan{{0, 5, 10, 15}, {20, 1, 6, 11}, {2, 3, 4, 7}};
  auto tf = c;
  tf["dataset"]["transform_train"] = R"([{"op": "random_affine", "degrees": 15}, {"op": "hflip"}])";
  std::vector<std::vector<torch::Tensor>> got;
  for (int threads : {0, 2}) {
    tf["dataset"]["loader_threads"] = threads;
    const auto dt = load_image_layout(parse_run_config(tf, {}, "/"));
    auto stream = dt.train.stream(plan, 7, 1);
    got.emplace_back();
    for (std::size_t b = 0; b < plan.size(); ++b) got.back().push_back(stream());
    CHECK_THROWS_WITH(stream(), Contains("exhausted"));
  }
  for (std::size_t b = 0; b < plan.size(); ++b) CHECK(torch::equal(got[0][b], got[1][b]));
  // The draws move pixels: the streamed training image is not the plain decoded one.
  CHECK(!torch::equal(got[0][0][0], load_image_layout(parse_run_config(c, {}, "/")).train.images({0}, false, 0)[0]));
}

TEST_CASE("a short run on the omniglot layout writes Recall@K and NMI for every set and level",
          "[experiments][training][layouts]") {
  const auto root = omniglot_tree();
  const ScratchDir out("dmlbench-omniglot-run");
  std::ostringstream log;
  const auto m =
      train_run(parse_run_config(omniglot_config(root), {}, "/"), RunOptions{out.root(), false, "test"}, log);
  CHECK(m["config"]["dataset"]["name"] == "omniglot");
  for (const auto& set : {"heldout", "test"})
    for (const auto& level : {"alphabet", "character"}) {
      const auto& r = m["eval"][set][level];
      const double r1 = r["recall_at_k"]["1"], r2 = r["recall_at_k"]["2"];
      CHECK(r1 >= 0.0);
      CHECK(r2 >= r1);  // Recall@K never falls with K
      CHECK(r2 <= 1.0);
      CHECK(r.contains("nmi"));
    }
  CHECK(fs::exists(out.dir() / "embeddings" / "test.npy"));
}

TEST_CASE("in-shop layout: each query is ranked against the gallery, the official protocol",
          "[experiments][training][layouts]") {
  // Items 1-4 train (two categories, 5 images each), items 5 and 6 have one query image each and two gallery images, one of them
  // the query's own bytes; item 7 is a gallery distractor. 28 x 28 gray noise PNGs, each item its own seed.
  const ScratchDir fixture("dmlbench-inshop-fixture");
  const auto& root = fixture.dir();
  std::vector<std::string> rows;
  auto image = [&](int item, int n, const std::string& status, unsigned seed) {
    const std::string category = item % 2 ? "WOMEN/Dresses" : "MEN/Shirts";
    const std::string id = "id_0000000" + std::to_string(item);
    const auto rel = "img/" + category + "/" + id + "/0" + std::to_string(n) + "_1_front.png";
    fs::create_directories((root / rel).parent_path());
    std::mt19937 rng(seed);
    Image im{28, 28, 1, std::vector<std::uint8_t>(28 * 28)};
    for (auto& v : im.pixels) v = std::uint8_t(rng() % 256);
    write_png((root / rel).string(), im);
    rows.push_back(rel + " " + id + " " + status);
  };
  // 5 training images an item: 4 after the holdout, the batch's per_class (a class short of it is refused)
  for (int item = 1; item <= 4; ++item)
    for (int n = 1; n <= 5; ++n) image(item, n, "train", unsigned(item * 10 + n));
  for (int item : {5, 6}) {
    image(item, 1, "query", unsigned(item * 10 + 1));
    image(item, 2, "gallery", unsigned(item * 10 + 1));  // the query's bytes
    image(item, 3, "gallery", unsigned(item * 10 + 3));
  }
  image(7, 1, "gallery", 71);
  {
    std::ofstream list(root / "list_eval_partition.txt");
    list << rows.size() << "\nimage_name item_id evaluation_status\n";
    for (const auto& r : rows) list << r << "\n";
  }
  json c = omniglot_config(root.string());
  c["dataset"] = {{"name", "inshop"}, {"data_dir", root.string()}, {"image_size", 28}, {"channels", 1}};
  const auto d = load_image_layout(parse_run_config(c, {}, "/"));
  CHECK(d.query_gallery == std::vector<std::pair<std::string, std::string>>{{"query", "gallery"}});
  const ScratchDir out("dmlbench-inshop-run");
  std::ostringstream log;
  const auto m = train_run(parse_run_config(c, {}, "/"), RunOptions{out.root(), false, "test"}, log);
  const auto& qg = m["eval"]["query_to_gallery"];
  REQUIRE(qg.contains("item"));
  // Each query's own bytes are in the gallery under its item: its nearest gallery image, whatever the training did.
  CHECK(qg["item"]["queries"] == 2);
  CHECK(qg["item"]["recall_at_k"]["1"] == 1.0);
  CHECK(qg["item"]["precision_at_1"] == 1.0);
  CHECK(qg["category"]["recall_at_k"]["1"] == 1.0);
  // Negative control: the query set against itself has no other image of any query's item.
  CHECK(m["eval"]["query"]["item"]["queries_without_positive"] == 2);
  CHECK(m["eval"]["query"]["item"]["recall_at_k"]["1"] == 0.0);
}

TEST_CASE("file-backed dataset errors name the key: input size, channels, transform presets and JSON",
          "[experiments][data][layouts]") {
  const auto root = omniglot_tree();
  auto c = omniglot_config(root);
  auto with = [&](const std::string& key, const json& v) {
    auto x = c;
    x["dataset"][key] = v;
    return message_of([&] { load_image_layout(parse_run_config(x, {}, "/")); });
  };
  CHECK_THAT(with("transform_train", "rrc-flp"), Contains("dataset.transform_train") && Contains("rrc-flip"));
  CHECK_THAT(with("transform_train", "rrc-flip"), Contains("needs dataset.image_size"));
  CHECK_THAT(with("transform_eval", "[{\"op\": \"blur\"}]"), Contains("dataset.transform_eval") && Contains("blur"));
  CHECK_THAT(with("transform_eval", "[{\"op\""), Contains("not a JSON list"));
  CHECK_THAT(with("channels", 2), Contains("dataset.channels = 2"));
  auto cub = c;
  cub["dataset"]["name"] = "cub200";
  CHECK_THAT(message_of([&] { load_image_layout(parse_run_config(cub, {}, "/")); }),
             Contains("dataset.image_size = 0") && Contains("cub200"));
  cub["dataset"]["image_size"] = 64;  // the size given, the omniglot tree is not a CUB layout
  CHECK_THAT(message_of([&] { load_image_layout(parse_run_config(cub, {}, "/")); }), Contains("cub200: list file not found"));
  // The presets at a size: rrc-flip and center-crop give image_size x image_size and normalise RGB only.
  const auto p = transform_from_config("center-crop", 32, 3, "k");
  CHECK(p.fixed_output_size() == std::optional<std::pair<int, int>>({32, 32}));
  CHECK(p.spec().back()["op"] == "normalize");
  CHECK(transform_from_config("rrc-flip", 32, 1, "k").spec().back()["op"] == "hflip");
  // [XHN] Sec 6's augmentation: S x S, padded by 10, a random S x S crop, a random flip, ImageNet statistics for RGB
  const auto x = transform_from_config("pad-crop-flip", 32, 3, "k");
  CHECK(x.fixed_output_size() == std::optional<std::pair<int, int>>({32, 32}));
  CHECK(x.spec()[1]["op"] == "pad");
  CHECK(x.spec()[2]["op"] == "random_crop");
  CHECK(x.spec().back()["op"] == "normalize");
  const auto xe = transform_from_config("resize-normalize", 32, 3, "k");
  CHECK(xe.fixed_output_size() == std::optional<std::pair<int, int>>({32, 32}));
  CHECK(xe.spec().back()["op"] == "normalize");
  CHECK(transform_from_config("resize-normalize", 32, 1, "k").spec().back()["op"] == "resize");
}
