// The registries of losses, miners and samplers: the config schema, its choices and its cross-key rules all
// come from the registrations in experiments/src/{losses,miners,samplers}/.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/miner_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;
using Catch::Matchers::Contains;

namespace {

json minimal() {
  return json::parse(R"({"dataset": {"name": "mnist", "data_dir": "data/mnist"}, "model": {"name": "small-conv"}})");
}

const ConfigKey& schema_key(const std::string& path) {
  const auto& s = run_config_schema();
  const auto it = std::find_if(s.begin(), s.end(), [&](const ConfigKey& k) { return k.path == path; });
  REQUIRE(it != s.end());
  return *it;
}

std::string error_of(std::vector<std::string> set) {
  try {
    parse_run_config(minimal(), set, "/repo", "cfg.json");
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the schema's loss, miner and sampler choices are the registered names, their settings the specs' keys",
          "[experiments][config][registry]") {
  for (const char* name : {"circle", "contrastive", "htl", "l2nd", "margin", "ms", "nca", "triplet"})
    CHECK_NOTHROW(loss_spec(name));
  CHECK(schema_key("loss.name").choices == loss_names());
  CHECK(schema_key("miner.name").choices == miner_names());
  CHECK(schema_key("batch.sampler").choices == sampler_names());
  std::size_t own = 0;
  for (const auto& spec : loss_specs())
    for (const auto& k : spec.settings) {
      INFO(spec.name << ": " << k.path);
      CHECK(k.path.rfind("loss.", 0) == 0);
      CHECK(schema_key(k.path).doc == k.doc);
      ++own;
    }
  CHECK(own >= 13);  // ms 5, htl 4, margin 2, circle 2, nca 1
  CHECK(schema_key("batch.classes_per_anchor").default_value == 2);
  // each loss's doc line is in loss.name's documentation
  for (const auto& spec : loss_specs()) CHECK_THAT(schema_key("loss.name").doc, Contains(spec.doc));
  // the registries are sorted by name, so that the schema's order does not depend on the link order
  const auto losses = loss_names(), miners = miner_names();
  CHECK(std::is_sorted(losses.begin(), losses.end()));
  CHECK(std::is_sorted(miners.begin(), miners.end()));
}

TEST_CASE("an unknown loss, miner or sampler is one error naming the registered ones and the nearest",
          "[experiments][config][registry]") {
  CHECK_THAT(error_of({"loss.name=circel"}), Contains("loss.name") && Contains("did you mean \"circle\"?"));
  CHECK_THAT(error_of({"miner.name=EPSNH"}), Contains("EPSHN"));
  CHECK_THROWS_AS(loss_spec("no-such-loss"), config_error);
  CHECK_THROWS_AS(miner_spec("no-such-miner"), config_error);
  CHECK_THROWS_AS(sampler_spec("no-such-sampler"), config_error);
  CHECK(error_of({"loss.name=circle", "model.normalize=true"}) == "no error");  // negative control
}

TEST_CASE("cross-key rules come from the specs: cosine losses, owner-only settings, trimming, movement, samplers",
          "[experiments][config][registry]") {
  // a loss whose spec compares cosine similarities needs unit embeddings
  CHECK_THAT(error_of({"loss.name=circle"}), Contains("model.normalize = true"));
  CHECK_THAT(error_of({"loss.name=triplet", "loss.distance=cosine"}), Contains("with cosine distance"));
  CHECK(error_of({"loss.name=triplet", "loss.distance=squared"}) == "no error");
  // a setting owned by one loss, given to another
  CHECK_THAT(error_of({"loss.ms_positives=easiest"}), Contains("loss.ms_positives") && Contains("loss.name = ms only"));
  CHECK(error_of({"loss.name=ms", "loss.ms_positives=easiest", "model.normalize=true"}) == "no error");
  CHECK_THAT(error_of({"loss.ms_reduction=mined_anchors"}),
             Contains("loss.ms_reduction") && Contains("loss.name = ms only"));
  CHECK(error_of({"loss.name=ms", "loss.ms_reduction=mined_anchors", "model.normalize=true"}) == "no error");
  CHECK_THAT(error_of({"loss.name=ms", "loss.ms_reduction=anchors", "model.normalize=true"}),
             Contains("loss.ms_reduction") && Contains("mined_anchors"));
  // the trimmed reducer applies to the losses that are a mean of triplet terms, which the specs say
  CHECK_THAT(error_of({"loss.name=contrastive", "loss.trim=0.2"}),
             Contains("loss.trim = 0.2") && Contains("(l2nd | nca | triplet)") && Contains("contrastive"));
  CHECK(error_of({"loss.name=triplet", "loss.trim=0.2"}) == "no error");
  // the movement log follows the losses that declare a movement model
  CHECK_THAT(error_of({"loss.name=margin", "eval.movement=true"}), Contains("l2nd | nca | triplet, not margin"));
  CHECK(error_of({"loss.name=l2nd", "eval.movement=true", "model.normalize=true"}) == "no error");
  // a sampler that needs a class tree, with a loss that builds none
  CHECK_THAT(error_of({"batch.sampler=anchor-neighbour"}), Contains("anchor-neighbour") && Contains("loss.name = htl"));
  CHECK_THAT(error_of({"batch.sampler=anchor-neighbour", "loss.name=htl", "model.normalize=true",
                       "loss.distance=squared", "loss.htl_update_epochs=0"}),
             Contains("never builds one"));
  CHECK_THAT(error_of({"batch.sampler=anchor-neighbour", "loss.name=htl", "model.normalize=true",
                       "loss.distance=squared", "batch.classes=3"}),
             Contains("multiple of batch.classes_per_anchor"));
  // a miner that samples on the unit sphere
  CHECK_THAT(error_of({"loss.name=margin", "miner.name=eps-distance-weighted"}), Contains("model.normalize = true"));
  // distance-weighted negatives read the similarity as a cosine: an explicit neg-squared-distance is refused
  CHECK_THAT(error_of({"loss.name=margin", "miner.name=eps-distance-weighted", "model.normalize=true",
                       "miner.similarity=neg-squared-distance"}),
             Contains("miner.similarity must be auto or cosine"));
  CHECK(error_of({"loss.name=margin", "miner.name=eps-distance-weighted", "model.normalize=true",
                  "miner.similarity=cosine"}) == "no error");
}

TEST_CASE("both distance-weighted miners rank by cosine under miner.similarity = auto, whatever the loss "
          "[LCC Sec 5.2.3]", "[experiments][config][registry]") {
  // the margin loss compares squared distances; its distance-weighted miners must still draw by cosine (d = sqrt(2 -
  // 2 S)), or every distance reads >= sqrt(2) and the negatives fall back to uniform (a finding of the scope audit)
  for (const char* miner : {"distance-weighted", "eps-distance-weighted"}) {
    INFO(miner);
    CHECK(miner_ranks_by_cosine(parse_run_config(minimal(), {"loss.name=margin", std::string("miner.name=") + miner,
                                                             "model.normalize=true"}, "/repo")));
  }
  // negative controls: a semi-hard miner with the margin loss ranks by minus the squared distance; an explicit
  // cosine is obeyed
  CHECK_FALSE(miner_ranks_by_cosine(parse_run_config(minimal(), {"loss.name=margin", "miner.name=eps-trip-sh",
                                                                 "model.normalize=true"}, "/repo")));
  CHECK(miner_ranks_by_cosine(parse_run_config(minimal(), {"loss.name=margin", "miner.name=eps-trip-sh",
                                                           "model.normalize=true", "miner.similarity=cosine"}, "/repo")));
}

TEST_CASE("a loss's own settings are read by name, and an unregistered one is an error", "[experiments][config][registry]") {
  const auto c = parse_run_config(minimal(), {"loss.ms_alpha=3", "loss.circle_gamma=64"}, "/repo");
  CHECK(c.loss.setting("ms_alpha") == 3);
  CHECK(c.loss.setting("circle_gamma") == 64);
  CHECK(c.loss.setting("scale") == 1.0);  // nca's default
  CHECK_THROWS_WITH(c.loss.setting("ms_alpah"), Contains("loss.ms_alpah is not a setting of any registered loss"));
}
