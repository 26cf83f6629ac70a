// Strings stop at the parser: the tables of model.name, optimizer.name, eval.metric, loss.distance and
// miner.similarity, each read by the schema's choices and by the parser that fills the config's typed fields; an
// unknown name refused with the choices.
#include "dmlbench/experiments/dataset_kind.hpp"
#include "dmlbench/experiments/distance_kind.hpp"
#include "dmlbench/experiments/miner_similarity.hpp"
#include "dmlbench/experiments/model_arch.hpp"
#include "dmlbench/experiments/optimizer_kind.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/similarity.hpp"
#include "dmlbench/experiments/transform_presets.hpp"

#include <catch2/catch.hpp>

using namespace dmlbench::experiments;
using Catch::Contains;
using json = nlohmann::ordered_json;

namespace {

RunConfig parsed(const std::vector<std::string>& overrides) {
  const auto j = json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"}, "model": {"name": "small-conv",
                                "normalize": true}, "loss": {"name": "triplet"}})");
  return parse_run_config(j, overrides, "/repo");
}

template <class Value>
void round_trips(const NamedChoice<Value>& table) {
  for (const auto& name : table.names()) CHECK(table.name_of(table.named(name)) == name);
}

}  // namespace

TEST_CASE("named choices: each name of a table round-trips, and one outside it is refused with the choices and the "
          "nearest",
          "[config][choices]") {
  round_trips(model_archs());
  round_trips(optimizer_kinds());
  round_trips(similarities());
  round_trips(distances());
  round_trips(miner_similarities());
  CHECK(distances().names() == std::vector<std::string>{"squared", "euclidean", "cosine"});
  CHECK(miner_similarities().names() == std::vector<std::string>{"auto", "cosine", "neg-squared-distance"});
  CHECK(model_archs().names() == std::vector<std::string>{"lcc-mnist", "small-conv", "resnet18", "resnet50"});
  CHECK_THROWS_WITH(model_archs().named("resnet34"),
                    Contains("unknown model 'resnet34' (lcc-mnist, small-conv, resnet18, resnet50)") &&
                        Contains("did you mean \"resnet18\"?"));
  CHECK_THROWS_WITH(optimizer_kinds().named("adamw"), Contains("unknown optimizer 'adamw' (adam, sgd)"));
  // the control: a table whose names differ from another's maps a value to its own name
  const NamedChoice<int> t("thing", {{"one", 1}, {"two", 2}});
  CHECK(t.named("two") == 2);
  CHECK(t.name_of(1) == "one");
  CHECK_THROWS_AS(t.name_of(3), std::logic_error);
}

TEST_CASE("named choices: the config's typed fields are the tables' values of its keys, and the schema's choices are "
          "the tables' names",
          "[config][choices]") {
  const auto d = parsed({});
  CHECK(d.model.arch == ModelArch::small_conv);
  CHECK(d.optimizer.kind == OptimizerKind::adam);
  CHECK(d.eval.similarity == Similarity::cosine);
  const auto c = parsed({"model.name=resnet50", "optimizer.name=sgd", "eval.metric=euclidean"});
  CHECK(c.model.arch == ModelArch::resnet50);
  CHECK(c.optimizer.kind == OptimizerKind::sgd);
  CHECK(c.eval.similarity == Similarity::euclidean);
  CHECK(run_config_key("model.name", "test").choices == model_archs().names());
  CHECK(run_config_key("optimizer.name", "test").choices == optimizer_kinds().names());
  CHECK(run_config_key("eval.metric", "test").choices == similarities().names());
  CHECK(run_config_key("loss.distance", "test").choices == distances().names());
  CHECK(run_config_key("miner.similarity", "test").choices == miner_similarities().names());
  CHECK(d.loss.distance_kind == Distance::squared_euclidean);
  CHECK(d.miner.ranking == MinerSimilarity::automatic);
  const auto e = parsed({"loss.distance=euclidean", "miner.similarity=neg-squared-distance"});
  CHECK(e.loss.distance_kind == Distance::euclidean);
  CHECK(e.miner.ranking == MinerSimilarity::neg_squared_distance);
  // the control: a name outside the table never reaches a typed field
  CHECK_THROWS_WITH(parsed({"optimizer.name=adamw"}), Contains("adamw"));
}

TEST_CASE("transform presets: one table gives the config's help, the names and each preset's steps", "[config][choices]") {
  CHECK(transform_preset_names() ==
        std::vector<std::string>{"resize", "rrc-flip", "center-crop", "pad-crop-flip", "resize-normalize"});
  // the help of dataset.transform_train, as the schema table of experiments/README.md prints it
  CHECK(transform_presets_help() == "resize | rrc-flip | center-crop | pad-crop-flip, [XHN] Sec 6 | resize-normalize");
  CHECK_THAT(run_config_key("dataset.transform_train", "test").doc, Contains(transform_presets_help()));
  // [XHN] Sec 6 at 64 px: resize to 64 x 64, pad by 10, random 64 crop, flip; resize alone is nothing at the native size
  const auto* x = find_transform_preset("pad-crop-flip");
  REQUIRE(x != nullptr);
  CHECK(x->steps(64).dump() ==
        R"([{"op":"resize","size":[64,64]},{"op":"pad","padding":10},{"op":"random_crop","size":64},{"op":"hflip"}])");
  CHECK(find_transform_preset("resize")->steps(0).empty());
  CHECK_FALSE(find_transform_preset("resize")->needs_size);
  // the control: a name outside the table is no preset
  CHECK(find_transform_preset("pad-crop") == nullptr);
}

TEST_CASE("dataset kinds: dataset.name's table, its image layouts the readers' names, and the config's typed field",
          "[config][choices]") {
  CHECK(run_config_key("dataset.name", "test").choices == dataset_kinds().names());
  CHECK(image_layout_names() == std::vector<std::string>{"omniglot", "cub200", "cars196", "sop", "inshop", "folder"});
  CHECK(is_image_layout(DatasetKind::cub200));
  CHECK_FALSE(is_image_layout(DatasetKind::mnist_evenodd));  // the control: idx files are no image layout
  CHECK(parsed({"dataset.name=omniglot", "dataset.data_dir=data/glyphs"}).dataset.kind == DatasetKind::omniglot);
  CHECK(parsed({}).dataset.kind == DatasetKind::mnist);
}
